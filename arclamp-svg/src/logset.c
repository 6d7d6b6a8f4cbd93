/* logset: finding the trace logs and reading their names. See logset.h. */
#include "logset.h"
#include "bucket.h"
#include "datadir.h"
#include "dirstream.h"
#include "layout.h"
#include "stackline.h"
#include "strbuf.h"
#include "vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *logset_log_name(const char *file, int *gz)
{
    size_t len = strlen(file);
    if (file[0] == '.')
        return NULL;
    if (layout_has_suffix(file, len, LAYOUT_LOG_SUFFIX LAYOUT_GZ_SUFFIX)) {
        *gz = 1;
        return xstrndup(file, len - strlen(LAYOUT_LOG_SUFFIX LAYOUT_GZ_SUFFIX));
    }
    if (layout_has_suffix(file, len, LAYOUT_LOG_SUFFIX)) {
        *gz = 0;
        return xstrndup(file, len - strlen(LAYOUT_LOG_SUFFIX));
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
    lf->is_all = 0;
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

static int reserved_word(const char *component)
{
    return strcmp(component, "all") == 0 || strcmp(component, "reversed") == 0 ||
           strcmp(component, "diff") == 0 || strncmp(component, "fn-", 3) == 0;
}

const char *logset_classify(struct logfile *lf, char *const *formats, size_t nformats)
{
    const char *tag = NULL;
    ssize_t tag_bucket = -1;
    int matched = 0;
    for (size_t i = 0; i < nformats; i++) {
        ssize_t b = bucket_match_prefix(formats[i], lf->name);
        if (b <= 0 || lf->name[b] != '.')
            continue;
        matched = 1;
        const char *rest = lf->name + b + 1;
        int ok = strcmp(rest, "all") == 0 || stackline_tag_name_ok(rest, strlen(rest));
        if (ok && b > tag_bucket) {
            tag = rest;
            tag_bucket = b;
        }
    }
    lf->is_all = 0;
    if (tag) {
        lf->entrypoint = tag;
        lf->is_all = strcmp(tag, "all") == 0;
        return NULL;
    }
    if (matched)
        return "its tag is not a valid entry point name (written by an older arclamp-log or "
               "the original?): its graphs could take another log's place";
    if (reserved_word(lf->entrypoint))
        return "no log_formats entry matches its name, and it ends in all, reversed, diff or fn-*";
    return NULL;
}

struct growing {
    struct logfile *files;
    size_t n, cap;
    struct logset_refusal *refused;
    size_t nrefused, refused_cap;
};

static void add_refusal(struct growing *g, const char *period, const char *file,
                        const char *why)
{
    VEC_RESERVE(g->refused, g->refused_cap, g->nrefused + 1, 8);
    g->refused[g->nrefused++] = (struct logset_refusal){xstrdup(period), xstrdup(file), why};
}

static void add_file(const struct gen_config *cfg, struct growing *g, const char *period,
                     const char *file, char *name, int gz, const struct stat *st)
{
    VEC_RESERVE(g->files, g->cap, g->n + 1, 64);
    struct logfile *lf = &g->files[g->n++];
    memset(lf, 0, sizeof *lf);
    lf->period = xstrdup(period);
    lf->file = xstrdup(file);
    lf->name = name;
    lf->gz = gz;
    lf->size = (long long)st->st_size;
    lf->mtime = st->st_mtim;
    logset_parse_name(lf);
    const char *why = logset_classify(lf, cfg->log_formats, cfg->nlog_formats);
    if (why) {
        free(lf->period);
        free(lf->file);
        free(lf->name);
        g->n--;
        add_refusal(g, period, file, why);
    }
}

static void free_file(struct logfile *lf)
{
    free(lf->period);
    free(lf->file);
    free(lf->name);
}

/* Drops the logs added since `mark` (a period that failed halfway). */
static void forget_since(struct growing *g, size_t mark, size_t refused_mark)
{
    while (g->n > mark)
        free_file(&g->files[--g->n]);
    while (g->nrefused > refused_mark) {
        g->nrefused--;
        free(g->refused[g->nrefused].period);
        free(g->refused[g->nrefused].file);
    }
}

/* Adds the logs of one period directory. Returns 0, or -1 with err set when
 * the directory could not be opened or read completely (opendir, readdir
 * or a stat failed): then nothing of it is added. */
static int scan_period(const struct gen_config *cfg, int logs_fd, int check_owner,
                       const char *period, struct growing *g, char *err, size_t errlen)
{
    size_t mark = g->n, refused_mark = g->nrefused;
    int fd = check_owner ? datadir_openat(logs_fd, period, period, 0, 0, err, errlen)
                         : openat(logs_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                                       O_CLOEXEC);
    if (fd < 0 && !check_owner)
        snprintf(err, errlen, "%s", strerror(errno));
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            close(fd);
        }
        return -1;
    }
    int rc = 0;
    struct dirent *de;
    for (errno = 0; rc == 0 && (de = readdir(d)) != NULL; errno = 0) {
        int gz;
        char *name = logset_log_name(de->d_name, &gz);
        struct stat st;
        if (!name)
            continue;
        if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            if (errno != ENOENT) { /* gone meanwhile is fine; EACCES, EIO are not */
                snprintf(err, errlen, "%s: %s", de->d_name, strerror(errno));
                rc = -1;
            }
            free(name);
        } else if (!S_ISREG(st.st_mode)) {
            free(name);
        } else {
            add_file(cfg, g, period, de->d_name, name, gz, &st);
        }
    }
    if (rc == 0 && errno) {
        snprintf(err, errlen, "readdir: %s", strerror(errno));
        rc = -1;
    }
    closedir(d);
    if (rc < 0)
        forget_since(g, mark, refused_mark);
    return rc;
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
    int rc = 0;
    for (errno = 0; rc == 0 && (de = readdir(d)) != NULL; errno = 0) {
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        if (fstatat(logs_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = errno == ENOENT ? 0 : -1; /* a period we cannot even stat: not "gone" */
            continue;
        }
        if (!S_ISDIR(st.st_mode))
            continue;
        VEC_RESERVE(set->periods, cap, set->nperiods + 1, 8);
        set->periods[set->nperiods++] = xstrdup(de->d_name);
    }
    if (rc == 0 && errno)
        rc = -1;
    int saved = errno;
    closedir(d);
    errno = saved;
    if (rc < 0)
        return -1;
    if (set->nperiods)
        qsort(set->periods, set->nperiods, sizeof *set->periods, cmp_strings);
    return 0;
}

static void add_failure(struct logset *set, const char *period, const char *why)
{
    VEC_RESERVE(set->failed, set->failed_cap, set->nfailed + 1, 4);
    set->failed[set->nfailed++] = (struct logset_failure){xstrdup(period), xstrdup(why)};
}

int logset_period_failed(const struct logset *set, const char *period)
{
    for (size_t i = 0; i < set->nfailed; i++) {
        if (strcmp(set->failed[i].period, period) == 0)
            return 1;
    }
    return 0;
}

static int scan_fd(const struct gen_config *cfg, int logs_fd, const char *only, int check_owner,
                   struct logset *set, char *err, size_t errlen)
{
    memset(set, 0, sizeof *set);
    if (list_periods(logs_fd, only, set) < 0) {
        snprintf(err, errlen, "%s: %s", cfg->logs_dir, strerror(errno));
        logset_free(set);
        return -1;
    }
    struct growing g;
    memset(&g, 0, sizeof g);
    for (size_t i = 0; i < set->nperiods; i++) {
        char why[512];
        if (scan_period(cfg, logs_fd, check_owner, set->periods[i], &g, why, sizeof why) < 0 &&
            !(only && errno == ENOENT)) /* top --period that does not exist: no logs */
            add_failure(set, set->periods[i], why);
    }
    set->refused = g.refused;
    set->nrefused = g.nrefused;
    if (g.n)
        qsort(g.files, g.n, sizeof *g.files, cmp_names);
    drop_duplicates(&g);
    if (g.n)
        qsort(g.files, g.n, sizeof *g.files, cmp_files);
    set->files = g.files;
    set->n = g.n;
    return 0;
}

int logset_scan_at(const struct gen_config *cfg, int logs_fd, int check_owner,
                   struct logset *set, char *err, size_t errlen)
{
    return scan_fd(cfg, logs_fd, NULL, check_owner, set, err, errlen);
}

int logset_scan(const struct gen_config *cfg, const char *period, struct logset *set,
                char *err, size_t errlen)
{
    memset(set, 0, sizeof *set);
    int logs_fd = open(cfg->logs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (logs_fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", cfg->logs_dir, strerror(errno));
        return -1;
    }
    int rc = scan_fd(cfg, logs_fd, period, 0, set, err, errlen);
    close(logs_fd);
    if (rc == 0 && set->nfailed) {
        snprintf(err, errlen, "%s/%s: %s", cfg->logs_dir, set->failed[0].period,
                 set->failed[0].why);
        logset_free(set);
        rc = -1;
    }
    return rc;
}

void logset_free(struct logset *set)
{
    for (size_t i = 0; i < set->nrefused; i++) {
        free(set->refused[i].period);
        free(set->refused[i].file);
    }
    free(set->refused);
    for (size_t i = 0; i < set->nfailed; i++) {
        free(set->failed[i].period);
        free(set->failed[i].why);
    }
    free(set->failed);
    for (size_t i = 0; i < set->n; i++)
        free_file(&set->files[i]);
    free(set->files);
    for (size_t i = 0; i < set->nperiods; i++)
        free(set->periods[i]);
    free(set->periods);
    memset(set, 0, sizeof *set);
}
