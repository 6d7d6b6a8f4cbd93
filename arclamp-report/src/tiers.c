/* tiers: the request-tier pages of every tier table (see tiers.h). */
#include "tiers.h"
#include "layout.h"
#include "log.h"
#include "atomicfile.h"
#include "jobfs.h"
#include "reportpub.h"
#include "reportsrc.h"
#include "strbuf.h"
#include "tierpage.h"
#include "tierrank.h"
#include "tiertable.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One tier table found. */
struct table_file {
    char *period;
    char *bucket;              /* the file name without LAYOUT_TIERS_SUFFIX */
    int format;                /* index in the formats */
    struct timespec mtime;
    int has_page;              /* its page exists after this run's update */
    char *error;               /* why its page could not be written, or NULL */
    struct tier_points *points; /* its trend points while a later page may need them */
    int unreadable;            /* it could not be read (its points: none) */
};

struct tables {
    struct table_file *v;
    size_t n, cap;
    const struct tiers_opts *o;
};

/* ---- finding the tables -------------------------------------------------- */

static void add_table(void *arg, const char *period, const char *file, const struct stat *st)
{
    struct tables *ts = arg;
    size_t len = strlen(file) - strlen(LAYOUT_TIERS_SUFFIX), bucket_len;
    char *bucket = xstrndup(file, len);
    int format = jobfs_bucket_of(ts->o->formats, ts->o->nformats, bucket, 0, &bucket_len);
    if (format < 0) {
        if (!ts->o->quiet)
            log_untrusted(LOG_WARNING, "table_unnamed", LOG_NO_FIELDS,
                          "%s/%s: no configured format names it; skipped", period, file);
        free(bucket);
        return;
    }
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? ts->cap * 2 : 64;
        ts->v = xrealloc(ts->v, ts->cap * sizeof *ts->v);
    }
    ts->v[ts->n++] = (struct table_file){xstrdup(period), bucket, format, st->st_mtim, 0, NULL,
                                         NULL, 0};
}

/* By period, format and time: a table's trend is the ones before it. */
static int by_series(const void *x, const void *y)
{
    const struct table_file *a = x, *b = y;
    int c = strcmp(a->period, b->period);
    if (!c)
        c = a->format - b->format;
    return c ? c : strcmp(a->bucket, b->bucket);
}

static int same_series(const struct table_file *a, const struct table_file *b)
{
    return strcmp(a->period, b->period) == 0 && a->format == b->format;
}

/* Frees the points of a table no later page's trend will need. */
static void drop_points(struct table_file *f)
{
    if (f->points)
        tier_points_free(f->points);
    free(f->points);
    f->points = NULL;
}

static void tables_free(struct tables *ts)
{
    for (size_t i = 0; i < ts->n; i++) {
        drop_points(&ts->v[i]);
        free(ts->v[i].period);
        free(ts->v[i].bucket);
        free(ts->v[i].error);
    }
    free(ts->v);
}

/* ---- one page ----------------------------------------------------------- */

static void table_path(const struct tiers_opts *o, const struct table_file *f, char *out,
                       size_t outlen)
{
    snprintf(out, outlen, "%s/%s/%s%s", o->logs_dir, f->period, f->bucket, LAYOUT_TIERS_SUFFIX);
}

/* How many tables before ts->v[i] make its trend. */
static size_t trend_len(const struct tables *ts, size_t i)
{
    size_t k = 0;
    while (k < TIERS_TREND && k < i && same_series(&ts->v[i - k - 1], &ts->v[i]))
        k++;
    return k;
}

/* The directory `name` in dirfd, made when missing, opened without
 * following a symlink; -1 on failure. */
static int open_dir(int dirfd, const char *name)
{
    if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
        return -1;
    return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* reports_dir/tiers, made when missing (and `create`), never through a
 * symlink; -1 with err set. */
static int open_tiers_dir(const struct tiers_opts *o, int create, char *err, size_t errlen)
{
    int rfd = open(o->reports_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
    if (rfd >= 0)
        fd = create ? open_dir(rfd, LAYOUT_REPORT_TIERS_DIR)
                    : openat(rfd, LAYOUT_REPORT_TIERS_DIR,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        snprintf(err, errlen, "%s/%s: %s", o->reports_dir, LAYOUT_REPORT_TIERS_DIR,
                 strerror(errno));
    if (rfd >= 0)
        close(rfd);
    return fd;
}

static int write_page(const struct tiers_opts *o, const struct table_file *f, const strbuf *page,
                      const struct timespec *mtime, char *err, size_t errlen)
{
    int tfd = open_tiers_dir(o, 1, err, errlen);
    int pfd = tfd >= 0 ? open_dir(tfd, f->period) : -1;
    int rc = -1;
    if (tfd >= 0 && pfd < 0) {
        snprintf(err, errlen, "%s/%s/%s: %s", o->reports_dir, LAYOUT_REPORT_TIERS_DIR, f->period,
                 strerror(errno));
    } else if (pfd >= 0) {
        char name[NAME_MAX + 1];
        snprintf(name, sizeof name, "%s.html", f->bucket);
        rc = atomic_writeat(pfd, name, page->data, page->len, 0, 0, mtime, err, errlen);
        close(pfd);
    }
    if (tfd >= 0)
        close(tfd);
    return rc;
}

/* Reads the table of f (a tiertable within the report's limits) into
 * `table`, emptied first. 0, or -1 with "path: why" in err. */
static int read_table(const struct tiers_opts *o, const struct table_file *f,
                      struct tiertable *table, struct tier_file *info, char *err,
                      size_t errlen)
{
    char path[PATH_MAX];
    table_path(o, f, path, sizeof path);
    tiertable_reset(table);
    return tier_file_read(path, o->formats[f->format], table, info, err, errlen);
}

/* Says what of a table's file did not reach its page: lines that are no
 * tier lines, lines past the report's limits. The page is written all the
 * same, and says it too. */
static void say_left_out(const struct tiers_opts *o, const struct table_file *f,
                         const struct tier_file *info)
{
    char path[PATH_MAX];
    const struct tier_drops *d = &info->drops;
    if (o->quiet)
        return;
    table_path(o, f, path, sizeof path);
    if (info->bad_lines)
        log_untrusted(LOG_WARNING, "table_lines_skipped", LOG_NO_FIELDS,
                      "%s: %llu line%s skipped: no valid tier line (malformed, torn or too "
                      "long)", path, (unsigned long long)info->bad_lines,
                      info->bad_lines == 1 ? "" : "s");
    if (d->overflow || d->tier_limit || d->memory)
        log_untrusted(LOG_WARNING, "table_limited", LOG_NO_FIELDS,
                      "%s: past the report's limits (--max-table-identities %zu): %llu lines "
                      "added up as %s, %llu dropped", path, o->max_table_identities,
                      (unsigned long long)d->overflow, TIERTABLE_OTHER,
                      (unsigned long long)(d->tier_limit + d->memory));
}

/* Keeps the trend points of f, whose table is in `table`. */
static void keep_points(struct table_file *f, const struct tiertable *table)
{
    drop_points(f);
    f->points = xmalloc(sizeof *f->points);
    tier_points_of(f->points, table);
}

/* Reads and ranks the table of f into t (to be freed whatever the
 * result), and keeps its points for the pages after it. 0, or -1 with
 * "path: why" in err. */
static int load_table(const struct tiers_opts *o, struct table_file *f,
                      struct tiertable *table, struct tier_table *t, char *err, size_t errlen)
{
    struct tier_file info;
    f->unreadable = read_table(o, f, table, &info, err, errlen) < 0;
    if (f->unreadable)
        return -1;
    say_left_out(o, f, &info);
    tier_table_rank(t, table, &info, o->max_identities, o->max_tiers);
    keep_points(f, table);
    return 0;
}

/* The trend points of f: kept from an earlier page, else its table read
 * now (once: they are kept until no later page needs them); NULL when it
 * cannot be read. */
static const struct tier_points *points_of(const struct tiers_opts *o, struct table_file *f,
                                           struct tiertable *table)
{
    char err[PATH_MAX + 200];
    struct tier_file info;
    if (!f->points && !f->unreadable) {
        f->unreadable = read_table(o, f, table, &info, err, sizeof err) < 0;
        if (!f->unreadable)
            keep_points(f, table);
    }
    return f->points;
}

/* Fills the trend of t from the k tables before ts->v[i], nearest first
 * (`table`: room to read one). */
static void add_trend(struct tables *ts, size_t i, size_t k, struct tiertable *table,
                      struct tier_table *t, struct tier_page *p)
{
    p->slot_bucket[TIERS_TREND] = ts->v[i].bucket;
    for (size_t j = 1; j <= k; j++) {
        struct table_file *f = &ts->v[i - j];
        unsigned slot = TIERS_TREND - (unsigned)j;
        const struct tier_points *points = points_of(ts->o, f, table);
        p->slot_bucket[slot] = f->bucket;
        p->slot_unreadable[slot] = points == NULL;
        if (points)
            tier_table_trend(t, slot, points);
    }
}

static void page_path(const struct tiers_opts *o, const struct table_file *f, char *out,
                      size_t outlen)
{
    snprintf(out, outlen, "%s/%s/%s/%s.html", o->reports_dir, LAYOUT_REPORT_TIERS_DIR, f->period,
             f->bucket);
}

/* A message for the index, which the web serves: without the directories
 * of this host. */
static const char *shown_error(const struct tiers_opts *o, const char *err)
{
    const char *const dirs[] = {o->logs_dir, o->reports_dir};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(dirs[i]);
        if (strncmp(err, dirs[i], n) == 0 && err[n] == '/')
            return err + n + 1;
    }
    return err;
}

/* Brings the page of ts->v[i] up to date: 1 when written, 0 when it was,
 * -1 when its table could not be read or the page written (the reason in
 * its `error`, and on stderr). */
static int update_page(struct tables *ts, size_t i)
{
    const struct tiers_opts *o = ts->o;
    struct table_file *f = &ts->v[i];
    size_t k = trend_len(ts, i);
    const struct timespec *inputs = &f->mtime;
    for (size_t j = 1; j <= k; j++)
        inputs = jobfs_newer(inputs, &ts->v[i - j].mtime);
    char path[PATH_MAX], err[PATH_MAX + 600];
    page_path(o, f, path, sizeof path);
    if (jobfs_up_to_date(path, inputs)) {
        f->has_page = 1;
        return 0;
    }
    struct tier_table t = {0};
    struct tiertable table;
    tiertable_init(&table, o->max_table_identities);
    int rc = load_table(o, f, &table, &t, err, sizeof err);
    if (rc == 0) {
        struct tier_page p = {f->period, f->bucket, NULL, {NULL}, {0}};
        strbuf page = STRBUF_INIT;
        if (k && ts->v[i - 1].has_page)
            p.previous = ts->v[i - 1].bucket;
        add_trend(ts, i, k, &table, &t, &p);
        tier_page_render(&page, &t, &p);
        rc = write_page(o, f, &page, inputs, err, sizeof err);
        strbuf_free(&page);
    }
    tier_table_free(&t);
    tiertable_reset(&table);
    struct stat st;
    f->has_page = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
    if (rc < 0) {
        log_untrusted(LOG_ERR, "table_failed", LOG_NO_FIELDS, "%s", err);
        f->error = xstrdup(shown_error(o, err));
        return -1;
    }
    return 1;
}

/* ---- stale pages and the index ------------------------------------------ */

/* Which pages of one period directory are still wanted. */
struct wanted_page {
    const struct tables *ts;
    const char *period;
};

static int still_wanted(void *arg, const char *file)
{
    const struct wanted_page *w = arg;
    size_t n = strlen(file);
    if (n <= 5 || strcmp(file + n - 5, ".html") != 0)
        return 0;
    for (size_t i = 0; i < w->ts->n; i++) {
        const struct table_file *f = &w->ts->v[i];
        if (strcmp(f->period, w->period) == 0 && strlen(f->bucket) == n - 5 &&
            memcmp(f->bucket, file, n - 5) == 0)
            return 1;
    }
    return 0;
}

static size_t prune_period(void *arg, int tiers_fd, const char *period)
{
    struct wanted_page w = {arg, period};
    return jobfs_prune_dir(tiers_fd, period, still_wanted, &w);
}

/* Removes the pages whose table is gone, and the directories (tiers/
 * itself, its index with it, once no table is left). */
static size_t remove_stale(const struct tiers_opts *o, const struct tables *ts)
{
    char err[PATH_MAX + 100];
    int fd = open_tiers_dir(o, 0, err, sizeof err);
    if (fd < 0)
        return 0;
    atomic_clean_temps(fd);
    size_t removed = jobfs_each_period(fd, jobfs_period_ok, prune_period, (void *)ts);
    if (!ts->n && unlinkat(fd, "index.html", 0) == 0) {
        int rfd = open(o->reports_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rfd >= 0) {
            unlinkat(rfd, LAYOUT_REPORT_TIERS_DIR, AT_REMOVEDIR); /* only when empty */
            close(rfd);
        }
    }
    close(fd);
    return removed;
}

static int write_index(const struct tiers_opts *o, const struct tables *ts)
{
    struct tier_index_row *rows = xcalloc(ts->n, sizeof *rows);
    for (size_t i = 0; i < ts->n; i++)
        rows[i] = (struct tier_index_row){ts->v[i].period, ts->v[i].bucket, ts->v[i].has_page,
                                          ts->v[i].error};
    char path[PATH_MAX], err[PATH_MAX + 200];
    snprintf(path, sizeof path, "%s/index.html", o->reports_dir);
    strbuf page = STRBUF_INIT;
    tier_index_render(&page, rows, ts->n, o->reports_index || access(path, F_OK) == 0);
    int fd = open_tiers_dir(o, 1, err, sizeof err), rc = -1;
    if (fd >= 0) {
        rc = jobfs_same_bytes(fd, "index.html", page.data, page.len)
                 ? 0
                 : atomic_writeat(fd, "index.html", page.data, page.len, 0, 0, NULL, err,
                                  sizeof err);
        close(fd);
    }
    if (rc < 0)
        log_untrusted(LOG_ERR, "page_failed", LOG_NO_FIELDS, "%s", err);
    strbuf_free(&page);
    free(rows);
    return rc;
}

/* ---- the job ------------------------------------------------------------ */

int tiers_update(const struct tiers_opts *o, strbuf *summary)
{
    struct tables ts = {NULL, 0, 0, o};
    size_t written = 0, removed = 0;
    int unlisted = jobfs_scan(o->logs_dir, LAYOUT_TIERS_SUFFIX, add_table, &ts) < 0;
    int failed = unlisted;
    if (ts.n)
        qsort(ts.v, ts.n, sizeof *ts.v, by_series);
    /* a table that cannot be read costs its own page, not the others' */
    for (size_t i = 0, kept = 0; i < ts.n; i++) {
        /* the points no trend from here on needs: at most TIERS_SLOTS kept */
        for (; kept < i && (i - kept > TIERS_TREND || !same_series(&ts.v[kept], &ts.v[i]));
             kept++)
            drop_points(&ts.v[kept]);
        int r = update_page(&ts, i);
        failed |= r < 0;
        written += r > 0;
    }
    if (!unlisted) /* a logs_dir that cannot be read removes nothing */
        removed = remove_stale(o, &ts);
    if (ts.n)
        failed |= write_index(o, &ts) < 0;
    strbuf line = STRBUF_INIT;
    strbuf_appendf(summary ? summary : &line,
                   "%zu tier tables, %zu pages brought up to date, %zu stale pages removed",
                   ts.n, written, removed);
    if (!summary && !o->quiet)
        log_untrusted(LOG_NOTICE, "run_finished", LOG_NO_FIELDS, "%s", strbuf_cstr(&line));
    strbuf_free(&line);
    tables_free(&ts);
    return failed ? -1 : 0;
}

int tiers_run(const struct tiers_opts *o)
{
    int lock = jobfs_begin(o->reports_dir);
    if (lock < 0)
        return lock == -2 ? 75 : 1;
    strbuf fetched = STRBUF_INIT, line = STRBUF_INIT;
    reportsrc_step(o->store, o->logs_dir, o->reports_dir, &fetched);
    int rc = tiers_update(o, &line);
    strbuf_append(&line, fetched.data, fetched.len);
    reportpub_step(o->store, o->logs_dir, o->reports_dir, &line);
    if (!o->quiet)
        log_untrusted(LOG_NOTICE, "run_finished", LOG_NO_FIELDS, "%s", strbuf_cstr(&line));
    strbuf_free(&fetched);
    strbuf_free(&line);
    close(lock);
    return rc < 0 ? 1 : 0;
}
