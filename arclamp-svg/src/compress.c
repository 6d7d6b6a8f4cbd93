/* compress: sort and gzip old trace logs in place. See compress.h. */
#include "compress.h"
#include "atomicfile.h"
#include "cli.h"
#include "layout.h"
#include "datadir.h"
#include "dropowner.h"
#include "dirstream.h"
#include "commands.h"
#include "log.h"
#include "logset.h"
#include "runlock.h"
#include "runstate.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define PIPE_CHUNK (256u * 1024)

/* --- the sort child ----------------------------------------------------- */

/* The environment with LC_ALL=C (byte order, whatever the caller's locale). */
static char **sort_environment(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = xcalloc(n + 2, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(environ[i], "LC_ALL=", 7) != 0)
            env[k++] = environ[i];
    }
    env[k++] = (char *)"LC_ALL=C";
    return env;
}

/* Starts `sort` reading `in_fd`; *out_fd gets the read end of its output. */
static int spawn_sort(int in_fd, const char *tmpdir, pid_t *pid, int *out_fd, char *err,
                      size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_fd, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
    char *argv[] = {(char *)"sort", (char *)"-S", (char *)COMPRESS_SORT_MEMORY, (char *)"-T",
                    (char *)tmpdir, NULL};
    char **env = sort_environment();
    int rc = posix_spawnp(pid, "sort", &fa, NULL, argv, env);
    free(env);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        snprintf(err, errlen, "cannot run sort: %s", strerror(rc));
        return -1;
    }
    *out_fd = p[0];
    return 0;
}

static int wait_sort(pid_t pid, char *err, size_t errlen)
{
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            snprintf(err, errlen, "waitpid: %s", strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFEXITED(status))
        snprintf(err, errlen, "sort failed (exit status %d)", WEXITSTATUS(status));
    else
        snprintf(err, errlen, "sort killed by signal %d", WTERMSIG(status));
    return -1;
}

/* Copies the sort output into `af`; -1 on a read error (err set). */
static int pump_output(int fd, struct atomic_file *af, char *err, size_t errlen)
{
    char *buf = xmalloc(PIPE_CHUNK);
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, buf, PIPE_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "reading sort output: %s", strerror(errno));
            rc = -1;
        }
        if (n <= 0)
            break;
        atomic_append(af, buf, (size_t)n); /* a write error is reported by commit */
    }
    free(buf);
    return rc;
}

/* --- temporary directories ---------------------------------------------- */

/* Removes a sort directory and the files sort may have left in it. */
static void remove_sort_dir(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                unlinkat(fd, de->d_name, 0);
        }
        closedir(d);
    } else if (fd >= 0) {
        close(fd);
    }
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Temporary files and sort directories of interrupted runs. */
static size_t clean_leftovers(int dirfd)
{
    size_t n = (size_t)atomic_clean_temps(dirfd);
    DIR *d = dir_stream(dirfd);
    if (!d)
        return n;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, COMPRESS_SORT_DIR_PREFIX,
                    sizeof COMPRESS_SORT_DIR_PREFIX - 1) == 0) {
            remove_sort_dir(dirfd, de->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

/* --- one log ------------------------------------------------------------ */

/* The checks before the rename: output complete, log unchanged. */
static int verify(int log_fd, const struct stat *before, unsigned long long out_bytes,
                  char *err, size_t errlen)
{
    struct stat now;
    unsigned long long size = (unsigned long long)before->st_size;
    if (out_bytes != size && out_bytes != size + 1) {
        snprintf(err, errlen, "sort returned %llu bytes for %llu", out_bytes, size);
        return -1;
    }
    if (fstat(log_fd, &now) < 0 || now.st_size != before->st_size ||
        now.st_mtim.tv_sec != before->st_mtim.tv_sec ||
        now.st_mtim.tv_nsec != before->st_mtim.tv_nsec) {
        snprintf(err, errlen, "the log changed while it was compressed");
        return -1;
    }
    return 0;
}

/* Mode and (as root) owner of the original. */
static void copy_attributes(int fd, const struct stat *st)
{
    if (fchmod(fd, st->st_mode & 07777) < 0)
        return;
    if (geteuid() == 0 && fchown(fd, st->st_uid, st->st_gid) < 0)
        return; /* the file stays root's; still readable as before */
}

/* Sorts `log_fd` into the open atomic file. */
static int sort_into(int dirfd, const char *dir, int log_fd, struct atomic_file *af, char *err,
                     size_t errlen)
{
    strbuf tmpdir = STRBUF_INIT;
    strbuf_appendf(&tmpdir, "%s/" COMPRESS_SORT_DIR_PREFIX "XXXXXX", dir);
    char *path = (char *)strbuf_cstr(&tmpdir);
    if (!mkdtemp(path)) {
        snprintf(err, errlen, "sort directory: %s", strerror(errno));
        strbuf_free(&tmpdir);
        return -1;
    }
    pid_t pid;
    int out_fd, rc = spawn_sort(log_fd, path, &pid, &out_fd, err, errlen);
    if (rc == 0) {
        rc = pump_output(out_fd, af, err, errlen);
        close(out_fd);
        char werr[256];
        if (wait_sort(pid, werr, sizeof werr) < 0 && rc == 0) {
            snprintf(err, errlen, "%s", werr);
            rc = -1;
        }
    }
    remove_sort_dir(dirfd, strrchr(path, '/') + 1);
    strbuf_free(&tmpdir);
    return rc;
}

int compress_log(int dirfd, const char *dir, const char *file, int level,
                 unsigned long long *bytes_after, char *err, size_t errlen)
{
    struct stat st;
    int fd = datadir_open_regular(dirfd, file, &st, err, errlen);
    if (fd < 0)
        return -1;
    strbuf gz = STRBUF_INIT;
    strbuf_appendf(&gz, "%s" LAYOUT_GZ_SUFFIX, file);
    struct atomic_file *af = atomic_openat(dirfd, strbuf_cstr(&gz), ATOMIC_GZIP, level, err,
                                           errlen);
    int rc = af ? sort_into(dirfd, dir, fd, af, err, errlen) : -1;
    if (rc == 0)
        rc = verify(fd, &st, atomic_bytes_in(af), err, errlen);
    if (rc == 0) {
        copy_attributes(atomic_fd(af), &st);
        rc = atomic_commit(af, &st.st_mtim, err, errlen);
        af = NULL;
    }
    atomic_abort(af);
    if (rc == 0 && unlinkat(dirfd, file, 0) < 0) {
        snprintf(err, errlen, "compressed, but the original stays: unlink: %s", strerror(errno));
        rc = -1;
    }
    struct stat gst;
    if (rc == 0 && bytes_after && fstatat(dirfd, strbuf_cstr(&gz), &gst, AT_SYMLINK_NOFOLLOW) == 0)
        *bytes_after = (unsigned long long)gst.st_size;
    strbuf_free(&gz);
    close(fd);
    return rc;
}

/* --- the run ------------------------------------------------------------ */

/* A period directory of logs_dir: no symlink, ours (datadir.h). */
static int open_period(const struct gen_config *cfg, int logs_fd, const char *period,
                       strbuf *dir, char *err, size_t errlen)
{
    strbuf_reset(dir);
    strbuf_appendf(dir, "%s/%s", cfg->logs_dir, period);
    return datadir_openat(logs_fd, strbuf_cstr(dir), period, 0, 0, err, errlen);
}

static void compress_one(const struct gen_config *cfg, int logs_fd, const struct logfile *lf,
                         struct compress_stats *st)
{
    strbuf dir = STRBUF_INIT;
    char err[1024];
    unsigned long long after = 0;
    int dirfd = open_period(cfg, logs_fd, lf->period, &dir, err, sizeof err);
    int rc = dirfd < 0 ? -1 : compress_log(dirfd, dir.data, lf->file, (int)cfg->gzip_level,
                                            &after, err, sizeof err);
    if (rc == 0) {
        st->compressed++;
        st->bytes_before += (unsigned long long)lf->size;
        st->bytes_after += after;
        log_untrusted(LOG_INFO, "log_compressed", LOG_NO_FIELDS, "%s/%s: %lld -> %llu bytes",
                lf->period, lf->name, lf->size, after);
    } else {
        st->failed++;
        log_untrusted(LOG_ERR, "compress_failed",
                LOG_FIELDS({"ARCLAMP_PERIOD", lf->period}, {"ARCLAMP_LOG_FILE", lf->file}),
                "%s/%s: %s (left as it was)", lf->period, lf->file, err);
    }
    if (dirfd >= 0)
        close(dirfd);
    strbuf_free(&dir);
}

static void clean_all(const struct gen_config *cfg, int logs_fd, const struct logset *set,
                      struct compress_stats *st)
{
    strbuf dir = STRBUF_INIT;
    char err[1024];
    for (size_t i = 0; i < set->nperiods; i++) {
        if (logset_period_failed(set, set->periods[i]))
            continue;
        int fd = open_period(cfg, logs_fd, set->periods[i], &dir, err, sizeof err);
        if (fd >= 0) {
            st->leftovers += clean_leftovers(fd);
            close(fd);
        }
    }
    strbuf_free(&dir);
}

/* Takes the lock for a bounded time: 0, COMPRESS_BUSY (the skip logged and
 * counted) or -1 (err set). */
static int lock_for(const struct gen_config *cfg, int *lock, char *err, size_t errlen)
{
    enum runlock_result lr = runlock_acquire(cfg->lock_file, cfg->lock_timeout, lock, err,
                                             errlen);
    if (lr == RUNLOCK_BUSY) {
        runstate_note_skip(cfg, RUNSTATE_COMPRESS);
        snprintf(err, errlen, "another run held the lock %s for lock_timeout (%g s)",
                 cfg->lock_file, cfg->lock_timeout);
        return COMPRESS_BUSY;
    }
    return lr == RUNLOCK_OK ? 0 : -1;
}

/* Between two logs, so that a generate blocked on the lock is woken and
 * takes it before this run takes it again. */
static void let_waiters_in(void)
{
    struct timespec pause = {0, COMPRESS_YIELD_MSEC * 1000000L};
    nanosleep(&pause, NULL);
}

static void report_failed_periods(const struct gen_config *cfg, const struct logset *set,
                                  struct compress_stats *st)
{
    for (size_t i = 0; i < set->nfailed; i++)
        log_untrusted(LOG_ERR, "scan_failed", LOG_FIELDS({"ARCLAMP_PERIOD", set->failed[i].period}),
                "%s/%s: cannot list the logs: %s (nothing compressed there)", cfg->logs_dir,
                set->failed[i].period, set->failed[i].why);
    st->scan_failed = set->nfailed;
}

static int compress_locked(const struct gen_config *cfg, int logs_fd, const struct logset *set,
                           time_t cutoff, struct compress_stats *st, char *err, size_t errlen)
{
    int lock, rc = lock_for(cfg, &lock, err, errlen);
    if (rc != 0)
        return rc;
    clean_all(cfg, logs_fd, set, st);
    runlock_release(lock);
    for (size_t i = 0; rc == 0 && i < set->n; i++) {
        const struct logfile *lf = &set->files[i];
        if (lf->gz)
            continue;
        if (lf->mtime.tv_sec >= cutoff) {
            st->recent++;
            continue;
        }
        let_waiters_in();
        /* Held per log, so a generate waits for one file at most. */
        if ((rc = lock_for(cfg, &lock, err, errlen)) != 0)
            break;
        compress_one(cfg, logs_fd, lf, st);
        runlock_release(lock);
    }
    return rc;
}

int compress_run(const struct gen_config *cfg, time_t cutoff, struct compress_stats *st,
                 char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    char why[1024];
    if (drop_root_to_owner(cfg->data_dir, "data_dir", err, errlen) < 0)
        return -1;
    int data_fd = datadir_open_base(cfg->data_dir, 0, why, sizeof why);
    int logs_fd = data_fd < 0 ? -1 : datadir_open(data_fd, cfg->data_dir, cfg->logs_dir, 0,
                                                  why, sizeof why);
    if (data_fd >= 0)
        close(data_fd);
    if (logs_fd < 0) {
        if (errno == ENOENT)
            return 0; /* no logs, nothing to compress */
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    struct logset set;
    int rc = logset_scan_at(cfg, logs_fd, 1, &set, err, errlen);
    if (rc == 0) {
        report_failed_periods(cfg, &set, st);
        rc = compress_locked(cfg, logs_fd, &set, cutoff, st, err, errlen);
        logset_free(&set);
    }
    close(logs_fd);
    return rc;
}

/* --- the command -------------------------------------------------------- */

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg compress --older-than DAYS [--config FILE] [--data-dir DIR]\n"
          "                            [--verbose]\n"
          "\n"
          "Sorts (byte order) and gzips every trace log X.log under logs_dir last\n"
          "modified more than DAYS days ago into X.log.gz, keeping its mtime, mode and\n"
          "owner; the original is removed only once X.log.gz is complete and on disk.\n"
          "\n"
          "  -o, --older-than DAYS  the age, in days (fractions allowed; more than 0)\n"
          "  -c, --config FILE      configuration (default " GEN_CONFIG_DEFAULT_PATH
          " if it exists)\n"
          "  -d, --data-dir DIR     use DIR as data_dir\n"
          "  -v, --verbose          log every file compressed\n"
          "  -h, --help             print this help\n"
          "\n"
          "Run as root, it first becomes the owner of data_dir (unless root owns it).\n"
          "\n"
          "Exit status: 0 done; 1 some logs or log directories failed (left as they were)\n"
          "or nothing could be done; 2 bad command line; 75 another run held the lock for\n"
          "lock_timeout (skipped, counted in arclamp_svg_runs_skipped_total); 78 bad\n"
          "configuration.\n",
          out);
}

int cmd_compress(int argc, char **argv)
{
    static const struct option options[] = {
        {"older-than", required_argument, NULL, 'o'}, {"config", required_argument, NULL, 'c'},
        {"data-dir", required_argument, NULL, 'd'},   {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0},
    };
    const char *config = NULL, *data_dir = NULL;
    double days = -1;
    int verbose = 0, c;
    char msg[1024];
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:c:d:vh", options, NULL)) != -1) {
        switch (c) {
        case 'o':
            if (cli_number("older-than", optarg, 1e-9, 1e6, &days, msg, sizeof msg) < 0) {
                fprintf(stderr, "arclamp-svg compress: %s\n", msg);
                return CLI_EXIT_USAGE;
            }
            break;
        case 'c': config = optarg; break;
        case 'd': data_dir = optarg; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "arclamp-svg compress: unexpected argument \"%s\"\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (days < 0) {
        fprintf(stderr, "arclamp-svg compress: --older-than DAYS is required\n");
        return CLI_EXIT_USAGE;
    }
    struct gen_config cfg;
    int rc = cli_load_config(config, data_dir, verbose, &cfg, msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "arclamp-svg compress: %s\n", msg);
    if (rc)
        return rc;
    struct compress_stats st;
    char err[1024];
    time_t cutoff = time(NULL) - (time_t)(days * 86400);
    rc = compress_run(&cfg, cutoff, &st, err, sizeof err);
    gen_config_free(&cfg);
    if (rc != 0) {
        fprintf(stderr, "arclamp-svg compress: %s%s\n", err,
                rc == COMPRESS_BUSY ? "; skipped" : "");
        return rc == COMPRESS_BUSY ? CLI_EXIT_BUSY : CLI_EXIT_FAILED;
    }
    printf("arclamp-svg compress: %zu logs compressed (%llu -> %llu bytes), %zu failed, "
           "%zu newer logs left alone%s\n",
           st.compressed, st.bytes_before, st.bytes_after, st.failed, st.recent,
           st.scan_failed ? "; log directories could not be read" : "");
    return st.failed || st.scan_failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
