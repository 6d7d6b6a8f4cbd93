/* datarun: the start and end of a job that writes into data_dir. See
 * datarun.h. */
#include "datarun.h"
#include "datadir.h"
#include "dropowner.h"
#include "fdio.h"
#include "runlock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum datarun_status datarun_begin(const struct gen_config *cfg, int need_logs,
                                  struct datarun *run, char *err, size_t errlen)
{
    run->data_fd = run->lock_fd = -1;
    if (drop_root_to_owner(cfg->data_dir, "data_dir", err, errlen) < 0)
        return DATARUN_ERROR;
    struct stat st;
    if (need_logs && stat(cfg->logs_dir, &st) < 0 && errno == ENOENT) {
        snprintf(err, errlen, "logs_dir: %s: %s (nothing done)", cfg->logs_dir, strerror(errno));
        return DATARUN_ERROR;
    }
    char why[1024];
    run->data_fd = datadir_open_base(cfg->data_dir, 1, why, sizeof why);
    if (run->data_fd < 0) {
        snprintf(err, errlen, "data_dir: %s", why);
        return DATARUN_ERROR;
    }
    enum runlock_result lr = runlock_acquire(cfg->lock_file, cfg->lock_timeout, &run->lock_fd,
                                             why, sizeof why);
    if (lr == RUNLOCK_OK)
        return DATARUN_OK;
    if (lr == RUNLOCK_BUSY)
        snprintf(err, errlen, "another run held the lock %s for lock_timeout (%g s)",
                 cfg->lock_file, cfg->lock_timeout);
    else
        snprintf(err, errlen, "lock: %s", why);
    close(run->data_fd);
    run->data_fd = -1;
    return lr == RUNLOCK_BUSY ? DATARUN_BUSY : DATARUN_ERROR;
}

void datarun_end(struct datarun *run)
{
    if (run->lock_fd >= 0)
        runlock_release(run->lock_fd);
    if (run->data_fd >= 0)
        close(run->data_fd);
    run->data_fd = run->lock_fd = -1;
}

/* Whether the job must run in a child: root, and data_dir someone else's
 * (drop_root_to_owner would make this process that user for good). */
static int needs_child(const struct gen_config *cfg)
{
    struct stat st;
    return geteuid() == 0 && stat(cfg->data_dir, &st) == 0 && st.st_uid != 0;
}

/* The child's side: run the job, send back [int rc][result][err text]. It
 * never returns, and leaves the parent's stdio buffers alone (_exit). */
static void run_child(int fd, const struct gen_config *cfg,
                      int (*job)(const struct gen_config *, void *, char *, size_t),
                      void *result, size_t result_len, size_t errlen)
{
    char *err = calloc(1, errlen);
    int rc = err ? job(cfg, result, err, errlen) : -1;
    int ok = err && fd_write_all(fd, &rc, sizeof rc) == 0 &&
             fd_write_all(fd, result, result_len) == 0 && fd_write_all(fd, err, strlen(err)) == 0;
    _exit(ok ? 0 : 1);
}

/* The parent's side: read what the child sent, then reap it. */
static int collect_child(pid_t pid, int fd, void *result, size_t result_len, char *err,
                         size_t errlen)
{
    size_t cap = sizeof(int) + result_len + errlen;
    char *buf = malloc(cap);
    ssize_t got = buf ? fd_read_up_to(fd, buf, cap - 1) : -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int rc = -1;
    if (WIFSIGNALED(status))
        snprintf(err, errlen, "the child working as data_dir's owner died of signal %d",
                 WTERMSIG(status));
    else if (got < (ssize_t)(sizeof(int) + result_len) || WEXITSTATUS(status) != 0)
        snprintf(err, errlen, "the child working as data_dir's owner failed to report");
    else {
        memcpy(&rc, buf, sizeof rc);
        memcpy(result, buf + sizeof rc, result_len);
        size_t msg = (size_t)got - sizeof rc - result_len;
        snprintf(err, errlen, "%.*s", (int)msg, buf + sizeof rc + result_len);
    }
    free(buf);
    return rc;
}

int datarun_in_child(const struct gen_config *cfg,
                     int (*job)(const struct gen_config *, void *, char *, size_t),
                     void *result, size_t result_len, char *err, size_t errlen)
{
    err[0] = '\0';
    if (!needs_child(cfg))
        return job(cfg, result, err, errlen);
    int fds[2];
    if (pipe(fds) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        run_child(fds[1], cfg, job, result, result_len, errlen);
    }
    close(fds[1]);
    int rc = collect_child(pid, fds[0], result, result_len, err, errlen);
    close(fds[0]);
    return rc;
}
