/* logset: finding the trace logs and reading their names. See logset.h. */
#include "logset.h"
#include "dirstream.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int has_suffix(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len > n && memcmp(s + len - n, suffix, n) == 0;
}

char *logset_log_name(const char *file, int *gz)
{
    size_t len = strlen(file);
    if (file[0] == '.')
        return NULL;
    if (has_suffix(file, len, ".log.gz")) {
        *gz = 1;
        return xstrndup(file, len - 7);
    }
    if (has_suffix(file, len, ".log")) {
        *gz = 0;
        return xstrndup(file, len - 4);
    }
    return NULL;
}

/* Reads `n` decimal digits at s; -1 if they are not all digits. */
static int digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* "YYYY-MM-DD" or "YYYY-MM-DD_HH" at the start of name, followed by '.' or
 * the end, and a real date: its length, with tm filled; else 0. */
static size_t parse_time(const char *name, struct tm *tm)
{
    memset(tm, 0, sizeof *tm);
    /* Checked left to right, so nothing past the terminating NUL is read. */
    int y = digits(name, 4);
    if (y < 0 || name[4] != '-')
        return 0;
    int m = digits(name + 5, 2);
    if (m < 1 || m > 12 || name[7] != '-')
        return 0;
    int d = digits(name + 8, 2), h = 0;
    size_t len = 10;
    if (d < 1 || d > 31)
        return 0;
    if (name[10] == '_') {
        h = digits(name + 11, 2);
        if (h < 0 || h > 23)
            return 0;
        len = 13;
    }
    if (name[len] != '.' && name[len] != '\0')
        return 0;
    tm->tm_year = y - 1900;
    tm->tm_mon = m - 1;
    tm->tm_mday = d;
    tm->tm_hour = h;
    struct tm check = *tm;
    time_t t = timegm(&check);
    if (t == (time_t)-1 || check.tm_mday != d || check.tm_mon != m - 1)
        return 0; /* 2026-02-30 */
    return len;
}

void logset_parse_name(struct logfile *lf)
{
    struct tm tm;
    size_t len = parse_time(lf->name, &tm);
    const char *dot = strrchr(lf->name, '.');
    lf->entrypoint = dot ? dot + 1 : lf->name;
    lf->time_from_name = len > 0;
    if (len) {
        memcpy(lf->time, lf->name, len);
        lf->time[len] = '\0';
        memcpy(lf->date, lf->name, 10);
        lf->date[10] = '\0';
        lf->timestamp = (int64_t)timegm(&tm);
        return;
    }
    lf->time[0] = '\0';
    lf->timestamp = (int64_t)lf->mtime.tv_sec;
    time_t t = lf->mtime.tv_sec;
    struct tm mt;
    if (!gmtime_r(&t, &mt) || strftime(lf->date, sizeof lf->date, "%Y-%m-%d", &mt) == 0)
        snprintf(lf->date, sizeof lf->date, "unknown");
}

struct growing {
    struct logfile *files;
    size_t n, cap;
};

static void add_file(struct growing *g, const char *period, const char *file, char *name, int gz,
                     const struct stat *st)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 64;
        g->files = xrealloc(g->files, g->cap * sizeof *g->files);
    }
    struct logfile *lf = &g->files[g->n++];
    memset(lf, 0, sizeof *lf);
    lf->period = xstrdup(period);
    lf->file = xstrdup(file);
    lf->name = name;
    lf->gz = gz;
    lf->size = (long long)st->st_size;
    lf->mtime = st->st_mtim;
    logset_parse_name(lf);
}

static void free_file(struct logfile *lf)
{
    free(lf->period);
    free(lf->file);
    free(lf->name);
}

/* Adds the logs of one period directory. A directory that cannot be read is
 * skipped (it may have vanished meanwhile). */
static void scan_period(int logs_fd, const char *period, struct growing *g)
{
    int fd = openat(logs_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int gz;
        char *name = logset_log_name(de->d_name, &gz);
        struct stat st;
        if (!name)
            continue;
        if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
            free(name);
            continue;
        }
        add_file(g, period, de->d_name, name, gz, &st);
    }
    closedir(d);
}

/* Order for finding duplicates: period, name, X.log before X.log.gz. */
static int cmp_names(const void *a, const void *b)
{
    const struct logfile *x = a, *y = b;
    int c = strcmp(x->period, y->period);
    if (c)
        return c;
    c = strcmp(x->name, y->name);
    return c ? c : x->gz - y->gz;
}

/* The final order: period, newest first, name. */
static int cmp_files(const void *a, const void *b)
{
    const struct logfile *x = a, *y = b;
    int c = strcmp(x->period, y->period);
    if (c)
        return c;
    if (x->timestamp != y->timestamp)
        return x->timestamp > y->timestamp ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Drops X.log.gz when X.log of the same period is present (input in
 * cmp_names order). */
static void drop_duplicates(struct growing *g)
{
    size_t out = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (out > 0 && strcmp(g->files[out - 1].period, g->files[i].period) == 0 &&
            strcmp(g->files[out - 1].name, g->files[i].name) == 0) {
            free_file(&g->files[i]);
            continue;
        }
        g->files[out++] = g->files[i];
    }
    g->n = out;
}

static int cmp_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The period directories of logs_dir (or just `only`). */
static int list_periods(int logs_fd, const char *only, struct logset *set)
{
    if (only) {
        set->periods = xcalloc(1, sizeof *set->periods);
        set->periods[0] = xstrdup(only);
        set->nperiods = 1;
        return 0;
    }
    DIR *d = dir_stream(logs_fd);
    if (!d)
        return -1;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (de->d_name[0] == '.' ||
            fstatat(logs_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
            continue;
        if (set->nperiods == cap) {
            cap = cap ? cap * 2 : 8;
            set->periods = xrealloc(set->periods, cap * sizeof *set->periods);
        }
        set->periods[set->nperiods++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (set->nperiods)
        qsort(set->periods, set->nperiods, sizeof *set->periods, cmp_strings);
    return 0;
}

int logset_scan(const char *logs_dir, const char *period, struct logset *set, char *err,
                size_t errlen)
{
    memset(set, 0, sizeof *set);
    int logs_fd = open(logs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (logs_fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", logs_dir, strerror(errno));
        return -1;
    }
    if (list_periods(logs_fd, period, set) < 0) {
        snprintf(err, errlen, "%s: %s", logs_dir, strerror(errno));
        close(logs_fd);
        return -1;
    }
    struct growing g = {NULL, 0, 0};
    for (size_t i = 0; i < set->nperiods; i++)
        scan_period(logs_fd, set->periods[i], &g);
    close(logs_fd);
    if (g.n)
        qsort(g.files, g.n, sizeof *g.files, cmp_names);
    drop_duplicates(&g);
    if (g.n)
        qsort(g.files, g.n, sizeof *g.files, cmp_files);
    set->files = g.files;
    set->n = g.n;
    return 0;
}

void logset_free(struct logset *set)
{
    for (size_t i = 0; i < set->n; i++)
        free_file(&set->files[i]);
    free(set->files);
    for (size_t i = 0; i < set->nperiods; i++)
        free(set->periods[i]);
    free(set->periods);
    memset(set, 0, sizeof *set);
}
