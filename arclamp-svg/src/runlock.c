/* runlock: a private, bounded flock on the lock file. See runlock.h. */
#include "runlock.h"
#include "clock.h"
#include "datadir.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

/* After the first alarm, how often it repeats: an alarm that fired just
 * before flock() went to sleep is followed by another one this soon. */
#define ALARM_REPEAT_USEC 50000

static void on_alarm(int sig)
{
    (void)sig; /* only there to interrupt flock() */
}

static void arm_alarm(double seconds)
{
    struct itimerval it = {{0, ALARM_REPEAT_USEC}, {0, 0}};
    long long usec = (long long)(seconds * 1e6);
    if (usec < 1)
        usec = 1;
    it.it_value.tv_sec = (time_t)(usec / 1000000);
    it.it_value.tv_usec = (suseconds_t)(usec % 1000000);
    setitimer(ITIMER_REAL, &it, NULL);
}

/* Blocks on the lock until `deadline` (clock_mono); alarms cut the wait. */
static int wait_for_lock(int fd, double deadline)
{
    for (;;) {
        double left = deadline - clock_mono();
        if (left <= 0)
            return 1;
        arm_alarm(left);
        if (flock(fd, LOCK_EX) == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

int runlock_flock_bounded(int fd, double timeout)
{
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    if (errno != EWOULDBLOCK)
        return -1;
    if (timeout <= 0)
        return 1;
    double deadline = clock_mono() + timeout;
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm; /* no SA_RESTART: flock() returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old_sa);
    sigset_t alrm, old_mask;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &alrm, &old_mask);
    int rc = wait_for_lock(fd, deadline);
    int saved = errno;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old_sa, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    errno = saved;
    return rc;
}

/* Opens `name` in directory `dirfd`: O_NOFOLLOW, created 0600 when
 * `create`, a regular file owned by the running user (mode narrowed to
 * 0600). -1 with err set otherwise. */
static int open_private_file(int dirfd, const char *shown, const char *name, int create,
                             char *err, size_t errlen)
{
    int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
                                     (create ? O_CREAT : 0), 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", shown,
                 errno == ELOOP ? "is a symbolic link (refused)" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        snprintf(err, errlen,
                 S_ISREG(st.st_mode)
                     ? "%s: owned by uid %u, not by this user (uid %u): refused; remove it"
                     : "%s: not a regular file (refused)",
                 shown, (unsigned)st.st_uid, (unsigned)geteuid());
        close(fd);
        return -1;
    }
    if ((st.st_mode & 077) && fchmod(fd, 0600) < 0) {
        snprintf(err, errlen, "%s: chmod 0600: %s", shown, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* The lock's directory, created 0700 when missing; it must be the running
 * user's (or root's) and writable by no one else. */
static int open_lock_dir(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "lock directory %s: %s", dir, strerror(errno));
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "lock directory %s: %s", dir, strerror(errno));
        return -1;
    }
    strbuf shown = STRBUF_INIT;
    strbuf_appendf(&shown, "lock directory %s", dir);
    if (datadir_check_private(fd, strbuf_cstr(&shown), err, errlen) < 0) {
        close(fd);
        fd = -1;
    }
    strbuf_free(&shown);
    return fd;
}

enum runlock_result runlock_acquire(const char *path, double timeout, int *fd, char *err,
                                    size_t errlen)
{
    *fd = -1;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
                      : xstrdup(".");
    int dfd = open_lock_dir(dir, err, errlen);
    free(dir);
    if (dfd < 0)
        return RUNLOCK_ERROR;
    strbuf shown = STRBUF_INIT;
    strbuf_appendf(&shown, "lock file %s", path);
    *fd = open_private_file(dfd, strbuf_cstr(&shown), slash ? slash + 1 : path, 1, err,
                               errlen);
    strbuf_free(&shown);
    close(dfd);
    if (*fd < 0)
        return RUNLOCK_ERROR;
    int rc = runlock_flock_bounded(*fd, timeout);
    if (rc == 0)
        return RUNLOCK_OK;
    int saved = errno;
    close(*fd);
    *fd = -1;
    if (rc > 0)
        return RUNLOCK_BUSY;
    snprintf(err, errlen, "lock file %s: %s", path, strerror(saved));
    return RUNLOCK_ERROR;
}

void runlock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}
