/* generate: report pages for every run log of the fleet (see generate.h). */
#include "generate.h"
#include "atomicfile.h"
#include "bucket.h"
#include "callgraph.h"
#include "dirstream.h"
#include "dropowner.h"
#include "html.h"
#include "runlog.h"
#include "stackline.h"
#include "strbuf.h"
#include "xhprof.h"
#include "xmlesc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUNS_SUFFIX ".runs"
#define LOCK_NAME ".arclamp-report.lock"

static const char *const kinds[] = {"report", "callgraph", "diff", "summary"};
static const char *const kind_suffix[] = {".html", ".svg", ".html", ".json"};
enum kind { K_REPORT, K_CALLGRAPH, K_DIFF, K_SUMMARY, K_COUNT };

/* One run log found. */
struct entry {
    char *period;
    char *name;                /* file name without .runs */
    const char *tag;           /* points into name */
    size_t bucket_len;         /* name[0..bucket_len) is the bucket */
    int format;                /* index in the formats */
    struct timespec mtime;
    const struct entry *previous; /* the bucket before, same period/format/tag */
};

struct entries {
    struct entry *v;
    size_t n, cap;
};

void generate_default_formats(struct generate_opts *o)
{
    static const char *const defaults[] = {
        "%Y-%m-%d_%H.excimer", "%Y-%m-%d.excimer", "%Y-%m-%d_%H.excimer-wall",
        "%Y-%m-%d.excimer-wall", "%Y-%m-%d_%H", "%Y-%m-%d",
    };
    o->nformats = sizeof defaults / sizeof defaults[0];
    for (size_t i = 0; i < o->nformats; i++)
        o->formats[i] = defaults[i];
}

/* A period directory name we may mirror under reports_dir. */
static int period_name_ok(const char *s)
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

/* Reads "<bucket>.<tag>" with the longest bucket a format produces whose
 * rest is a valid tag (or "all"). -1: no format reads it. */
static int read_name(const struct generate_opts *o, const char *name, size_t *bucket_len)
{
    int best = -1;
    ssize_t best_len = -1;
    for (size_t f = 0; f < o->nformats; f++) {
        ssize_t n = bucket_match_prefix(o->formats[f], name);
        if (n <= best_len || name[n] != '.')
            continue;
        const char *tag = name + n + 1;
        if (strcmp(tag, "all") != 0 && !stackline_tag_name_ok(tag, strlen(tag)))
            continue;
        best = (int)f;
        best_len = n;
    }
    *bucket_len = best_len > 0 ? (size_t)best_len : 0;
    return best;
}

static void add_entry(struct entries *es, const struct generate_opts *o, const char *period,
                      const char *file, const struct stat *st)
{
    size_t len = strlen(file) - strlen(RUNS_SUFFIX);
    char *name = xmalloc(len + 1);
    memcpy(name, file, len);
    name[len] = '\0';
    size_t bucket_len;
    int format = read_name(o, name, &bucket_len);
    if (format < 0) {
        if (!o->quiet)
            fprintf(stderr, "arclamp-report: %s/%s: no configured format names it; skipped\n",
                    period, file);
        free(name);
        return;
    }
    if (es->n == es->cap) {
        es->cap = es->cap ? es->cap * 2 : 64;
        es->v = xrealloc(es->v, es->cap * sizeof *es->v);
    }
    struct entry *e = &es->v[es->n++];
    e->period = xstrdup(period);
    e->name = name;
    e->bucket_len = bucket_len;
    e->tag = name + bucket_len + 1;
    e->format = format;
    e->mtime = st->st_mtim;
    e->previous = NULL;
}

static void scan_period(struct entries *es, const struct generate_opts *o, int logs_fd,
                        const char *period)
{
    int fd = openat(logs_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "arclamp-report: %s/%s: %s\n", o->logs_dir, period, strerror(errno));
        return;
    }
    for (struct dirent *de; (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        struct stat st;
        if (de->d_name[0] == '.' || n <= strlen(RUNS_SUFFIX) ||
            strcmp(de->d_name + n - strlen(RUNS_SUFFIX), RUNS_SUFFIX) != 0 ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        add_entry(es, o, period, de->d_name, &st);
    }
    closedir(d);
}

static int by_series(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    int c = strcmp(a->period, b->period);
    if (!c)
        c = a->format - b->format;
    if (!c)
        c = strcmp(a->tag, b->tag);
    return c ? c : strcmp(a->name, b->name);
}

/* The run logs under logs_dir, sorted by period, format, tag and time, each
 * linked to the one before it. */
static int scan_logs(struct entries *es, const struct generate_opts *o)
{
    int fd = open(o->logs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? dir_stream(fd) : NULL;
    if (!d) {
        fprintf(stderr, "arclamp-report: %s: %s\n", o->logs_dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        if (period_name_ok(de->d_name) &&
            fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            scan_period(es, o, fd, de->d_name);
    }
    closedir(d);
    close(fd);
    if (es->n)
        qsort(es->v, es->n, sizeof *es->v, by_series);
    for (size_t i = 1; i < es->n; i++) {
        const struct entry *p = &es->v[i - 1], *e = &es->v[i];
        if (strcmp(p->period, e->period) == 0 && p->format == e->format &&
            strcmp(p->tag, e->tag) == 0)
            es->v[i].previous = p;
    }
    return 0;
}

static void entries_free(struct entries *es)
{
    for (size_t i = 0; i < es->n; i++) {
        free(es->v[i].period);
        free(es->v[i].name);
    }
    free(es->v);
}

/* ---- pages ------------------------------------------------------------- */

static void page_path(const struct generate_opts *o, const struct entry *e, enum kind k,
                      char *out, size_t outlen)
{
    snprintf(out, outlen, "%s/%s/%s/%s%s", o->reports_dir, e->period, kinds[k], e->name,
             kind_suffix[k]);
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static const struct timespec *newer(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec) ? a : b;
}

/* Whether the page exists with the inputs' time: nothing to do. */
static int up_to_date(const char *path, const struct timespec *inputs)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && same_time(&st.st_mtim, inputs);
}

static int stamp(const char *path, const struct timespec *t, char *err, size_t errlen)
{
    struct timespec times[2] = {*t, *t};
    if (utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
}

/* The mean run of a run log: the sum of its complete runs over their number. */
static int load_mean(const struct generate_opts *o, const struct entry *e, run *r,
                     struct runlog_stats *st, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/%s%s", o->logs_dir, e->period, e->name, RUNS_SUFFIX);
    memset(st, 0, sizeof *st);
    run_init(r, o->max_arcs);
    if (runlog_add(r, path, o->max_bytes, st, err, errlen) < 0)
        return -1;
    if (st->runs > 1)
        run_scale(r, 1.0 / (double)st->runs);
    return 0;
}

/* Names are [A-Za-z0-9_.-] (period_name_ok, read_name): JSON as they are. */
static void summary_json(strbuf *out, const struct entry *e, const struct runlog_stats *st,
                         size_t arcs)
{
    strbuf_appendf(out,
                   "{\"period\": \"%s\", \"name\": \"%s\", \"entrypoint\": \"%s\", "
                   "\"runs\": %zu, \"incomplete\": %zu, \"bad_lines\": %zu, "
                   "\"arcs\": %zu, \"arcs_left_out\": %zu, \"first\": %lld, \"last\": %lld}\n",
                   e->period, e->name, e->tag, st->runs, st->incomplete, st->bad_lines, arcs,
                   st->arcs_left_out, (long long)st->first, (long long)st->last);
}

static int write_report(const struct generate_opts *o, const struct entry *e, const run *r,
                        const struct runlog_stats *st, char *err, size_t errlen)
{
    char path[PATH_MAX], title[512], link[PATH_MAX];
    flat f;
    flat_compute(r, &f);
    snprintf(title, sizeof title, "XHProf: %s - %s - %.*s - mean of %zu runs", e->tag, e->period,
             (int)e->bucket_len, e->name, st->runs);
    snprintf(link, sizeof link, "../callgraph/%s.svg", e->name);
    page_path(o, e, K_REPORT, path, sizeof path);
    int rc = html_write(path, title, r, &f, NULL, NULL, link, err, errlen);
    strbuf out = STRBUF_INIT;
    if (rc == 0) {
        page_path(o, e, K_CALLGRAPH, path, sizeof path);
        /* no main(): nothing to draw, an empty but valid SVG stands in */
        if (callgraph_svg(r, &f, o->threshold, NULL, &out, err, errlen) < 0) {
            strbuf_reset(&out);
            strbuf_appends(&out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" "
                                 "height=\"1\"></svg>\n");
        }
        rc = atomic_write(path, out.data, out.len, 0, err, errlen);
    }
    if (rc == 0) {
        strbuf_reset(&out);
        summary_json(&out, e, st, r->n);
        page_path(o, e, K_SUMMARY, path, sizeof path);
        rc = atomic_write(path, out.data, out.len, 0, err, errlen);
    }
    strbuf_free(&out);
    flat_free(&f);
    return rc;
}

/* The mean run loaded last. Run logs are handled in order of period,
 * format, tag and time, so a log's previous bucket is usually the one just
 * read: its diff takes that mean instead of reading the log again. */
struct last_mean {
    const struct entry *e;     /* whose mean r is; NULL: none */
    run r;
};

static void last_mean_set(struct last_mean *last, const struct entry *e, run *r)
{
    if (last->e)
        run_free(&last->r);
    last->e = e;
    last->r = *r;
}

static int write_diff(const struct generate_opts *o, const struct entry *e, const run *b,
                      const struct last_mean *last, char *err, size_t errlen)
{
    const struct entry *p = e->previous;
    run loaded, d;
    const run *a = &last->r;
    struct runlog_stats st;
    int own = last->e != p;
    if (own && load_mean(o, p, &loaded, &st, err, errlen) < 0) {
        run_free(&loaded);
        return -1;
    }
    if (own)
        a = &loaded;
    run_init(&d, o->max_arcs);
    run_add_weighted(&d, b, 1.0);
    run_add_weighted(&d, a, -1.0);
    flat f;
    flat_compute(&d, &f);
    char path[PATH_MAX], title[512], fwd[256], back[256];
    snprintf(title, sizeof title, "XHProf diff: %s - %s - %.*s against %.*s", e->tag, e->period,
             (int)e->bucket_len, e->name, (int)p->bucket_len, p->name);
    snprintf(fwd, sizeof fwd, "Showing %.*s - %.*s (mean run)", (int)e->bucket_len, e->name,
             (int)p->bucket_len, p->name);
    snprintf(back, sizeof back, "Showing %.*s - %.*s (mean run)", (int)p->bucket_len, p->name,
             (int)e->bucket_len, e->name);
    page_path(o, e, K_DIFF, path, sizeof path);
    int rc = html_write(path, title, &d, &f, fwd, back, NULL, err, errlen);
    flat_free(&f);
    run_free(&d);
    if (own)
        run_free(&loaded);
    return rc;
}

static int ensure_dirs(const struct generate_opts *o, const char *period)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", o->reports_dir, period);
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return -1;
    for (int k = 0; k < K_COUNT; k++) {
        snprintf(path, sizeof path, "%s/%s/%s", o->reports_dir, period, kinds[k]);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

/* Brings the pages of one run log up to date; its mean, when read, becomes
 * `last`. 1 when something was written, 0 when nothing had to be, -1 on
 * failure. */
static int update_entry(const struct generate_opts *o, const struct entry *e,
                        struct last_mean *last)
{
    char path[PATH_MAX], err[700];
    page_path(o, e, K_REPORT, path, sizeof path);
    int report_ok = up_to_date(path, &e->mtime);
    page_path(o, e, K_SUMMARY, path, sizeof path);
    report_ok = report_ok && up_to_date(path, &e->mtime);
    const struct timespec *diff_time = e->previous ? newer(&e->mtime, &e->previous->mtime) : NULL;
    page_path(o, e, K_DIFF, path, sizeof path);
    int diff_ok = !diff_time || up_to_date(path, diff_time);
    if (report_ok && diff_ok)
        return 0;
    if (ensure_dirs(o, e->period) < 0) {
        fprintf(stderr, "arclamp-report: %s/%s: %s\n", o->reports_dir, e->period, strerror(errno));
        return -1;
    }
    run r;
    struct runlog_stats st;
    int rc = load_mean(o, e, &r, &st, err, sizeof err);
    int read = rc == 0;
    if (rc == 0 && !report_ok) {
        rc = write_report(o, e, &r, &st, err, sizeof err);
        for (int k = 0; rc == 0 && k < K_COUNT; k++) {
            page_path(o, e, (enum kind)k, path, sizeof path);
            if (k != K_DIFF)
                rc = stamp(path, &e->mtime, err, sizeof err);
        }
    }
    if (rc == 0 && !diff_ok) {
        rc = write_diff(o, e, &r, last, err, sizeof err);
        page_path(o, e, K_DIFF, path, sizeof path);
        if (rc == 0)
            rc = stamp(path, diff_time, err, sizeof err);
    }
    if (read)
        last_mean_set(last, e, &r); /* kept for the next log's diff */
    else
        run_free(&r);
    if (rc < 0)
        fprintf(stderr, "arclamp-report: %s\n", err);
    return rc < 0 ? -1 : 1;
}

/* ---- stale pages ------------------------------------------------------- */

static const struct entry *find_entry(const struct entries *es, const char *period,
                                      const char *name)
{
    for (size_t i = 0; i < es->n; i++) {
        if (strcmp(es->v[i].period, period) == 0 && strcmp(es->v[i].name, name) == 0)
            return &es->v[i];
    }
    return NULL;
}

/* Whether a file of kind k named `file` belongs to a run log of now. */
static int still_wanted(const struct entries *es, const char *period, enum kind k,
                        const char *file)
{
    size_t n = strlen(file), sl = strlen(kind_suffix[k]);
    if (n <= sl || strcmp(file + n - sl, kind_suffix[k]) != 0)
        return 0;
    char name[NAME_MAX + 1];
    snprintf(name, sizeof name, "%.*s", (int)(n - sl), file);
    const struct entry *e = find_entry(es, period, name);
    return e && (k != K_DIFF || e->previous);
}

static size_t prune_kind_dir(const struct entries *es, int period_fd, const char *period,
                             enum kind k)
{
    int fd = openat(period_fd, kinds[k], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? dir_stream(fd) : NULL;
    size_t removed = 0;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' && !atomic_is_temp_name(de->d_name))
            continue;
        if (atomic_is_temp_name(de->d_name) || !still_wanted(es, period, k, de->d_name))
            removed += unlinkat(fd, de->d_name, 0) == 0;
    }
    closedir(d);
    unlinkat(period_fd, kinds[k], AT_REMOVEDIR); /* only when empty */
    close(fd);
    return removed;
}

/* Removes the pages whose run log is gone (and emptied directories). */
static size_t remove_stale(const struct generate_opts *o, const struct entries *es)
{
    int fd = open(o->reports_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? dir_stream(fd) : NULL;
    size_t removed = 0;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        if (!period_name_ok(de->d_name) ||
            fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
            continue;
        int pfd = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (pfd < 0)
            continue;
        for (int k = 0; k < K_COUNT; k++)
            removed += prune_kind_dir(es, pfd, de->d_name, (enum kind)k);
        close(pfd);
        unlinkat(fd, de->d_name, AT_REMOVEDIR);
    }
    closedir(d);
    close(fd);
    return removed;
}

/* ---- index ------------------------------------------------------------- */

static void index_link(strbuf *page, const struct entry *e, enum kind k, const char *label)
{
    strbuf_appends(page, "<a href=\"");
    xml_escape(page, e->period, strlen(e->period));
    strbuf_appendf(page, "/%s/", kinds[k]);
    xml_escape(page, e->name, strlen(e->name));
    strbuf_appendf(page, "%s\">%s</a>", kind_suffix[k], label);
}

static void index_row(strbuf *page, const struct entry *e)
{
    strbuf_appends(page, "<tr><td>");
    xml_escape(page, e->tag, strlen(e->tag));
    strbuf_appends(page, "</td><td>");
    xml_escape(page, e->name, e->bucket_len);
    strbuf_appends(page, "</td><td>");
    index_link(page, e, K_REPORT, "report");
    strbuf_appends(page, " ");
    index_link(page, e, K_CALLGRAPH, "callgraph");
    if (e->previous) {
        strbuf_appends(page, " ");
        index_link(page, e, K_DIFF, "diff with the previous");
    }
    strbuf_appends(page, " ");
    index_link(page, e, K_SUMMARY, "summary");
    strbuf_appends(page, "</td></tr>\n");
}

static int write_index(const struct generate_opts *o, const struct entries *es)
{
    strbuf page = STRBUF_INIT;
    strbuf_appends(&page, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
                          "<title>Arc Lamp: XHProf reports</title>\n<style>body{font:13px/1.4 "
                          "Verdana,sans-serif;margin:1em 2em}td,th{padding:2px 8px;border:1px "
                          "solid #ccc}table{border-collapse:collapse}</style>\n</head><body>\n"
                          "<h1>XHProf reports</h1>\n<p><a href=\"../index.html\">Flame graphs</a></p>\n");
    if (!es->n)
        strbuf_appends(&page, "<p>No run logs yet.</p>\n");
    /* newest first within each period: walk each period's entries backwards */
    for (size_t end = 0, start = 0; start < es->n; start = end) {
        for (end = start; end < es->n && strcmp(es->v[end].period, es->v[start].period) == 0;)
            end++;
        strbuf_appends(&page, "<h2>");
        xml_escape(&page, es->v[start].period, strlen(es->v[start].period));
        strbuf_appends(&page, "</h2>\n<table class=\"reports\"><tr><th>entry point</th>"
                              "<th>time</th><th>pages</th></tr>\n");
        for (size_t i = end; i > start; i--)
            index_row(&page, &es->v[i - 1]);
        strbuf_appends(&page, "</table>\n");
    }
    strbuf_appends(&page, "</body></html>\n");
    char path[PATH_MAX], err[600];
    snprintf(path, sizeof path, "%s/index.html", o->reports_dir);
    int rc = atomic_write(path, page.data, page.len, 0, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "arclamp-report: %s\n", err);
    strbuf_free(&page);
    return rc;
}

/* ---- the job ----------------------------------------------------------- */

/* One generate at a time per reports_dir: a flock on a file in it. */
static int take_lock(const struct generate_opts *o)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", o->reports_dir, LOCK_NAME);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "arclamp-report: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        fprintf(stderr, "arclamp-report: another generate is running (%s is locked)\n", path);
        close(fd);
        return -2;
    }
    return fd;
}

/* Run as root (by hand): become the owner of reports_dir, or of the
 * directory it will be made in, so the pages stay the service's to
 * replace. */
static int become_owner(const struct generate_opts *o)
{
    char dir[PATH_MAX], err[PATH_MAX + 200];
    snprintf(dir, sizeof dir, "%s", o->reports_dir);
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
    fprintf(stderr, "arclamp-report: %s\n", err);
    return -1;
}

int generate_run(const struct generate_opts *o)
{
    if (become_owner(o) < 0)
        return 1;
    if (mkdir(o->reports_dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "arclamp-report: %s: %s\n", o->reports_dir, strerror(errno));
        return 1;
    }
    int lock = take_lock(o);
    if (lock < 0)
        return lock == -2 ? 75 : 1;
    struct entries es = {NULL, 0, 0};
    size_t written = 0, removed = 0;
    int failed = scan_logs(&es, o) < 0;
    /* one run log that cannot be read costs its own pages, not the others' */
    struct last_mean last = {NULL, {0}};
    for (size_t i = 0; i < es.n; i++) {
        int r = update_entry(o, &es.v[i], &last);
        failed |= r < 0;
        written += r > 0;
    }
    if (last.e)
        run_free(&last.r);
    if (es.n || !failed) { /* a logs_dir that cannot be read removes nothing */
        removed = remove_stale(o, &es);
        failed |= write_index(o, &es) < 0;
    }
    if (!o->quiet)
        fprintf(stderr, "arclamp-report: %zu run logs, %zu brought up to date, %zu stale pages "
                        "removed\n", es.n, written, removed);
    entries_free(&es);
    close(lock);
    return failed ? 1 : 0;
}
