/* jobfs: names, page times, lock and owner of the report jobs (see jobfs.h). */
#include "jobfs.h"
#include "log.h"
#include "atomicfile.h"
#include "bucket.h"
#include "dirstream.h"
#include "dropowner.h"
#include "layout.h"
#include "stackline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int jobfs_period_ok(const char *s)
{
    if (!*s || *s == '.' || strlen(s) > 100 || strcmp(s, "index.html") == 0)
        return 0;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    }
    return 1;
}

static int rest_ok(const char *rest, int with_tag)
{
    if (!with_tag)
        return *rest == '\0';
    if (*rest++ != '.')
        return 0;
    return strcmp(rest, LAYOUT_TAG_ALL) == 0 || stackline_tag_name_ok(rest, strlen(rest));
}

int jobfs_bucket_of(const char *const *formats, size_t nformats, const char *name,
                    int with_tag, size_t *bucket_len)
{
    int best = -1;
    ssize_t best_len = -1;
    for (size_t f = 0; f < nformats; f++) {
        ssize_t n = bucket_match_prefix(formats[f], name);
        if (n <= best_len || !rest_ok(name + n, with_tag))
            continue;
        best = (int)f;
        best_len = n;
    }
    *bucket_len = best_len > 0 ? (size_t)best_len : 0;
    return best;
}

static void scan_period(const char *logs_dir, int logs_fd, const char *period,
                        const char *suffix, jobfs_file_fn *fn, void *arg)
{
    int fd = openat(logs_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    size_t sl = strlen(suffix);
    if (!d) {
        if (fd >= 0)
            close(fd);
        log_untrusted(LOG_ERR, "period_failed", LOG_NO_FIELDS, "%s/%s: %s", logs_dir, period,
                      strerror(errno));
        return;
    }
    for (struct dirent *de; (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        struct stat st;
        if (de->d_name[0] == '.' || n <= sl || strcmp(de->d_name + n - sl, suffix) != 0 ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        fn(arg, period, de->d_name, &st);
    }
    closedir(d);
}

int jobfs_scan(const char *logs_dir, const char *suffix, jobfs_file_fn *fn, void *arg)
{
    int fd = open(logs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? dir_stream(fd) : NULL;
    if (!d) {
        log_untrusted(LOG_ERR, "logs_dir_failed", LOG_NO_FIELDS, "%s: %s", logs_dir,
                      strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        if (jobfs_period_ok(de->d_name) &&
            fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            scan_period(logs_dir, fd, de->d_name, suffix, fn, arg);
    }
    closedir(d);
    close(fd);
    return 0;
}

size_t jobfs_prune_dir(int parent_fd, const char *name, jobfs_wanted_fn *wanted, void *arg)
{
    int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    /* before the listing: the two share the descriptor's offset */
    size_t removed = (size_t)atomic_clean_temps(fd);
    DIR *d = dir_stream(fd);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] != '.' && !wanted(arg, de->d_name))
            removed += unlinkat(fd, de->d_name, 0) == 0;
    }
    if (d)
        closedir(d);
    close(fd);
    unlinkat(parent_fd, name, AT_REMOVEDIR); /* only when empty */
    return removed;
}

size_t jobfs_each_period(int dirfd, int (*period_ok)(const char *), jobfs_period_fn *fn,
                         void *arg)
{
    DIR *d = dir_stream(dirfd);
    size_t sum = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        struct stat st;
        if (period_ok(de->d_name) &&
            fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            sum += fn(arg, dirfd, de->d_name);
    }
    if (d)
        closedir(d);
    return sum;
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

const struct timespec *jobfs_newer(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec) ? a : b;
}

int jobfs_up_to_date(const char *path, const struct timespec *inputs)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && same_time(&st.st_mtim, inputs);
}

int jobfs_stamp(const char *path, const struct timespec *t, char *err, size_t errlen)
{
    struct timespec times[2] = {*t, *t};
    if (utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
}

/* One job at a time per reports_dir: a flock on a file in it. */
static int take_lock(const char *reports_dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", reports_dir, JOBFS_LOCK_NAME);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        log_untrusted(LOG_ERR, "lock_failed", LOG_NO_FIELDS, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        log_untrusted(LOG_WARNING, "run_skipped", LOG_NO_FIELDS,
                      "another generate is running (%s is locked)", path);
        close(fd);
        return -2;
    }
    return fd;
}

/* Run as root (by hand): become the owner of reports_dir, or of the
 * directory it will be made in, so the pages stay the service's to
 * replace. */
static int become_owner(const char *reports_dir)
{
    char dir[PATH_MAX], err[PATH_MAX + 200];
    snprintf(dir, sizeof dir, "%s", reports_dir);
    struct stat st;
    if (stat(dir, &st) < 0 && errno == ENOENT) {
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, "%s", slash ? "/" : ".");
    }
    if (drop_root_to_owner(dir, "the reports directory", err, sizeof err) == 0)
        return 0;
    log_untrusted(LOG_ERR, "reports_dir_failed", LOG_NO_FIELDS, "%s", err);
    return -1;
}

int jobfs_begin(const char *reports_dir)
{
    if (become_owner(reports_dir) < 0)
        return -1;
    if (mkdir(reports_dir, 0755) < 0 && errno != EEXIST) {
        log_untrusted(LOG_ERR, "reports_dir_failed", LOG_NO_FIELDS, "%s: %s", reports_dir,
                      strerror(errno));
        return -1;
    }
    return take_lock(reports_dir);
}

int jobfs_private_dir(const char *reports_dir, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/" JOBFS_PRIVATE_DIR, reports_dir);
    if (mkdir(path, 0700) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    const char *why = st.st_uid != geteuid() && st.st_uid != 0 ? "belongs to another user"
                      : (st.st_mode & 077)                   ? "is open to other users"
                                                             : NULL;
    if (why) {
        snprintf(err, errlen, "%s %s (uid %u, mode %04o): refused", path, why,
                 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        close(fd);
        return -1;
    }
    return fd;
}

int jobfs_same_bytes(int dirfd, const char *name, const void *data, size_t len)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return 0;
    int same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len;
    char buf[65536];
    for (size_t off = 0; same && off < len;) {
        size_t want = len - off < sizeof buf ? len - off : sizeof buf;
        ssize_t got = read(fd, buf, want);
        same = got > 0 && memcmp(buf, (const char *)data + off, (size_t)got) == 0;
        off += got > 0 ? (size_t)got : 0;
    }
    close(fd);
    return same;
}
