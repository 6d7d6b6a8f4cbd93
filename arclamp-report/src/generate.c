/* generate: report pages for every run log of the fleet (see generate.h). */
#include "generate.h"
#include "log.h"
#include "atomicfile.h"
#include "callgraph.h"
#include "html.h"
#include "jobfs.h"
#include "layout.h"
#include "numtext.h"
#include "reportpub.h"
#include "reportsrc.h"
#include "reportsummary.h"
#include "runline.h"
#include "runlog.h"
#include "strbuf.h"
#include "tiers.h"
#include "xhprof.h"
#include "xmlesc.h"
#include "vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

/* A period of the logs whose pages go under reports_dir/<period>: any
 * that jobfs accepts but the tier pages' directory. */
static int period_name_ok(const char *s)
{
    return jobfs_period_ok(s) && strcmp(s, LAYOUT_REPORT_TIERS_DIR) != 0;
}

static const char *const kinds[] = {LAYOUT_REPORT_PAGES_DIR, "callgraph", "diff",
                                    REPORT_SUMMARY_DIR};
static const char *const kind_suffix[] = {".html", ".svg", ".html", ".json"};
enum kind { K_REPORT, K_CALLGRAPH, K_DIFF, K_SUMMARY, K_COUNT };

/* One run log found. */
struct logfile {
    char *period;
    char *name;                /* file name without .runs */
    size_t bucket_len;         /* name[0..bucket_len) is the bucket */
    int format;                /* index in the formats */
    struct timespec mtime;
    off_t size;                /* with mtime, what a skip mark is about */
};

struct logfiles {
    struct logfile *v;
    size_t n, cap;
};

/* One report: an entry point's run log, or the `all` view of a bucket,
 * which is every run log of the bucket (arclamp-log writes each run once
 * per period: to its entry point's log, or to `all` when it has none). */
struct entry {
    char *period;              /* points into the first input */
    char *name;                /* "<bucket>.<tag>": the pages' names */
    const char *tag;           /* points into name */
    size_t bucket_len;         /* name[0..bucket_len) is the bucket */
    int format;                /* index in the formats */
    struct timespec mtime;     /* its inputs' time (see inputs_time) */
    const struct logfile **inputs; /* the run logs read for it */
    size_t ninputs;
    const struct entry *previous; /* the bucket before, same period/format/tag */
};

struct entries {
    struct entry *v;
    size_t n, cap;
    struct logfiles files;     /* what the entries' inputs point to */
};

void generate_default_formats(struct generate_opts *o)
{
    static const char *const defaults[] = {LAYOUT_DEFAULT_FORMATS};
    o->nformats = sizeof defaults / sizeof defaults[0];
    for (size_t i = 0; i < o->nformats; i++)
        o->formats[i] = defaults[i];
}

/* What add_file needs while the logs are scanned. */
struct scan {
    struct logfiles *fs;
    const struct generate_opts *o;
};

static void add_file(void *arg, const char *period, const char *file, const struct stat *st)
{
    struct scan *sc = arg;
    struct logfiles *fs = sc->fs;
    const struct generate_opts *o = sc->o;
    if (!period_name_ok(period))
        return;
    size_t len = strlen(file) - strlen(LAYOUT_RUNS_SUFFIX);
    char *name = xmalloc(len + 1);
    memcpy(name, file, len);
    name[len] = '\0';
    size_t bucket_len;
    int format = jobfs_bucket_of(o->formats, o->nformats, name, 1, &bucket_len);
    if (format < 0) {
        if (!o->quiet)
            log_untrusted(LOG_WARNING, "log_unnamed", LOG_NO_FIELDS,
                          "%s/%s: no configured format names it; skipped", period, file);
        free(name);
        return;
    }
    VEC_RESERVE(fs->v, fs->cap, fs->n + 1, 64);
    fs->v[fs->n++] =
        (struct logfile){xstrdup(period), name, bucket_len, format, st->st_mtim, st->st_size};
}

/* Files of one bucket next to each other: by period, format and bucket. */
static int by_bucket(const void *x, const void *y)
{
    const struct logfile *a = x, *b = y;
    int c = strcmp(a->period, b->period);
    if (!c)
        c = a->format - b->format;
    if (!c)
        c = a->bucket_len < b->bucket_len ? -1 : a->bucket_len > b->bucket_len;
    if (!c)
        c = memcmp(a->name, b->name, a->bucket_len);
    return c ? c : strcmp(a->name, b->name);
}

static int same_bucket(const struct logfile *a, const struct logfile *b)
{
    return strcmp(a->period, b->period) == 0 && a->format == b->format &&
           a->bucket_len == b->bucket_len && memcmp(a->name, b->name, a->bucket_len) == 0;
}

/* The time a page of these inputs carries: one log's own mtime; for
 * several, the newest mtime whose nanoseconds are replaced by a hash of
 * every input's name and mtime, so that a log added to or removed from
 * the view (retention prunes each entry point's logs on its own) makes
 * the page out of date like a changed log does. */
static struct timespec inputs_time(const struct logfile *const *in, size_t n)
{
    if (n == 1)
        return in[0]->mtime;
    struct timespec newest = in[0]->mtime;
    XXH3_state_t *h = XXH3_createState();
    XXH3_64bits_reset(h);
    for (size_t i = 0; i < n; i++) {
        newest = *jobfs_newer(&newest, &in[i]->mtime);
        XXH3_64bits_update(h, in[i]->name, strlen(in[i]->name) + 1);
        XXH3_64bits_update(h, &in[i]->mtime, sizeof in[i]->mtime);
    }
    newest.tv_nsec = (long)(XXH3_64bits_digest(h) % 1000000000u);
    XXH3_freeState(h);
    return newest;
}

static struct entry *new_entry(struct entries *es, const struct logfile *f, const char *tag)
{
    VEC_RESERVE(es->v, es->cap, es->n + 1, 64);
    struct entry *e = &es->v[es->n++];
    memset(e, 0, sizeof *e);
    e->period = f->period;
    e->bucket_len = f->bucket_len;
    e->format = f->format;
    size_t tl = strlen(tag);
    e->name = xmalloc(f->bucket_len + 1 + tl + 1);
    memcpy(e->name, f->name, f->bucket_len);
    e->name[f->bucket_len] = '.';
    memcpy(e->name + f->bucket_len + 1, tag, tl + 1);
    e->tag = e->name + f->bucket_len + 1;
    return e;
}

/* The entries of one bucket's files [from, to): one per entry point's log,
 * and the bucket's `all` view over all of them. */
static void bucket_entries(struct entries *es, size_t from, size_t to)
{
    const struct logfile *fs = es->files.v;
    struct entry *all = new_entry(es, &fs[from], LAYOUT_TAG_ALL);
    all->ninputs = to - from;
    all->inputs = xmalloc(all->ninputs * sizeof *all->inputs);
    for (size_t i = from; i < to; i++)
        all->inputs[i - from] = &fs[i];
    all->mtime = inputs_time(all->inputs, all->ninputs);
    for (size_t i = from; i < to; i++) {
        const char *tag = fs[i].name + fs[i].bucket_len + 1;
        if (strcmp(tag, LAYOUT_TAG_ALL) == 0)
            continue; /* the view's own part */
        struct entry *e = new_entry(es, &fs[i], tag);
        e->ninputs = 1;
        e->inputs = xmalloc(sizeof *e->inputs);
        e->inputs[0] = &fs[i];
        e->mtime = fs[i].mtime;
    }
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

/* The reports of the run logs under logs_dir, sorted by period, format,
 * tag and time, each linked to the one before it. */
static int scan_logs(struct entries *es, const struct generate_opts *o)
{
    struct logfiles *fs = &es->files;
    struct scan sc = {fs, o};
    if (jobfs_scan(o->logs_dir, LAYOUT_RUNS_SUFFIX, add_file, &sc) < 0)
        return -1;
    if (fs->n)
        qsort(fs->v, fs->n, sizeof *fs->v, by_bucket);
    for (size_t from = 0, to; from < fs->n; from = to) {
        for (to = from + 1; to < fs->n && same_bucket(&fs->v[from], &fs->v[to]);)
            to++;
        bucket_entries(es, from, to);
    }
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
        free(es->v[i].name);
        free(es->v[i].inputs);
    }
    free(es->v);
    for (size_t i = 0; i < es->files.n; i++) {
        free(es->files.v[i].period);
        free(es->files.v[i].name);
    }
    free(es->files.v);
}

/* ---- pages ------------------------------------------------------------- */

static void page_path(const struct generate_opts *o, const struct entry *e, enum kind k,
                      char *out, size_t outlen)
{
    snprintf(out, outlen, "%s/%s/%s/%s%s", o->reports_dir, e->period, kinds[k], e->name,
             kind_suffix[k]);
}

/* ---- skip marks ---------------------------------------------------------- */

/* A run log that cannot be reported (it cannot be read, or the job died
 * while reading it: killed for memory, a crash) is marked, and skipped by
 * later runs while it stays the same (size and mtime), so it costs its own
 * pages, never the other logs' on every tick. The mark is written before
 * the log is read and removed once it was, so a job killed on it leaves
 * it. One file per log in MARKS_DIR: <period>+<name>.runs, holding
 * "arclamp-report-mark/2 SIZE SEC NSEC DEATHS", the log's path and why.
 * A log is set aside once the job died on it DEATHS_TO_SKIP times: one
 * death may be a stop or a shutdown that happened to fall on a sound log,
 * which must not lose that log's pages for good. */
#define MARKS_DIR ".arclamp-report.marks"
#define MARK_FORMAT "arclamp-report-mark/2"
#define DIED_READING "the job died while reading it"
#define DEATHS_TO_SKIP 2

/* What the logs of one run cost: counted for its last line. */
struct log_counts {
    size_t skipped;            /* reads skipped for a mark */
    size_t failed;             /* reads that failed (now marked) */
};

static void mark_path(const struct generate_opts *o, const struct logfile *f, char *out,
                      size_t outlen)
{
    snprintf(out, outlen, "%s/" MARKS_DIR "/%s+%s" LAYOUT_RUNS_SUFFIX, o->reports_dir, f->period,
             f->name);
}

/* Writes the mark (a plain write: it has to outlive the process, not the
 * machine). -1 when it could not be. */
static int mark_write(const struct generate_opts *o, const struct logfile *f,
                      const char *log_path, const char *why, int deaths)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "%s/" MARKS_DIR, o->reports_dir);
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return -1;
    if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR; /* a symlink planted there is not written through */
        return -1;
    }
    mark_path(o, f, path, sizeof path);
    strbuf text = STRBUF_INIT;
    strbuf_appendf(&text, MARK_FORMAT " %lld %lld %ld %d\n%s\n%s\n", (long long)f->size,
                   (long long)f->mtime.tv_sec, f->mtime.tv_nsec, deaths, log_path, why);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    int rc = fd >= 0 && write(fd, text.data, text.len) == (ssize_t)text.len ? 0 : -1;
    if (fd >= 0)
        close(fd);
    strbuf_free(&text);
    return rc;
}

/* Whether the log carries a mark of its present size and mtime; its
 * reason into why, the deaths it counts into deaths. */
static int mark_matches(const struct generate_opts *o, const struct logfile *f, char *why,
                        size_t whylen, int *deaths)
{
    char path[PATH_MAX], buf[PATH_MAX + 1024];
    mark_path(o, f, path, sizeof path);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    long long size, sec;
    long nsec;
    if (sscanf(buf, MARK_FORMAT " %lld %lld %ld %d", &size, &sec, &nsec, deaths) != 4 ||
        size != (long long)f->size || sec != (long long)f->mtime.tv_sec ||
        nsec != f->mtime.tv_nsec)
        return 0; /* the log changed since: read it again */
    const char *reason = strchr(buf, '\n');
    reason = reason ? strchr(reason + 1, '\n') : NULL;
    snprintf(why, whylen, "%.*s", reason ? (int)strcspn(reason + 1, "\n") : 0,
             reason ? reason + 1 : "");
    return 1;
}

static void mark_clear(const struct generate_opts *o, const struct logfile *f)
{
    char path[PATH_MAX];
    mark_path(o, f, path, sizeof path);
    unlink(path);
}

/* Removes the marks of logs that are gone (retention pruned them). */
static void marks_prune(const struct generate_opts *o, const struct logfiles *fs)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/" MARKS_DIR, o->reports_dir);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        int wanted = 0;
        for (size_t i = 0; !wanted && i < fs->n; i++) {
            char mark[PATH_MAX];
            mark_path(o, &fs->v[i], mark, sizeof mark);
            const char *base = strrchr(mark, '/');
            wanted = strcmp(base + 1, de->d_name) == 0;
        }
        if (!wanted)
            unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
}

/* Test hook: the job kills itself once the mark of the log named so (its
 * file name) is written, as the kernel's OOM killer would. */
static void crash_hook(const struct logfile *f)
{
    const char *name = getenv("ARCLAMP_REPORT_TEST_DIE_ON");
    size_t n = name ? strlen(f->name) : 0;
    if (name && strncmp(name, f->name, n) == 0 && strcmp(name + n, LAYOUT_RUNS_SUFFIX) == 0)
        raise(SIGKILL);
}

/* One run log into a view, unless it is marked; marks it while it is read,
 * and for good when it cannot be. 1 read, 0 skipped, -1 failed. */
static int read_log(const struct generate_opts *o, const struct logfile *f, run *r,
                    struct runlog_seen *seen, struct runlog_stats *st, struct log_counts *lc)
{
    char path[PATH_MAX], why[600], err[700];
    snprintf(path, sizeof path, "%s/%s/%s%s", o->logs_dir, f->period, f->name, LAYOUT_RUNS_SUFFIX);
    int deaths = 0;
    int marked = mark_matches(o, f, why, sizeof why, &deaths);
    if (marked && (strcmp(why, DIED_READING) != 0 || deaths >= DEATHS_TO_SKIP)) {
        lc->skipped++;
        char mark[PATH_MAX];
        mark_path(o, f, mark, sizeof mark);
        log_untrusted(LOG_WARNING, "log_skipped", LOG_NO_FIELDS,
                      "%s: skipped, it could not be reported (%s); "
                      "read again when it changes, or once %s is removed",
                      path, why, mark);
        return 0;
    }
    deaths = marked ? deaths : 0;
    if (mark_write(o, f, path, DIED_READING, deaths + 1) < 0)
        log_untrusted(LOG_WARNING, "mark_failed", LOG_NO_FIELDS,
                      "%s: cannot mark it while it is read (%s)", path, strerror(errno));
    crash_hook(f);
    size_t long_names = st->long_names, too_many = st->too_many;
    if (runlog_add(r, path, o->max_bytes, seen, st, err, sizeof err) < 0) {
        lc->failed++;
        mark_write(o, f, path, err, deaths);
        log_untrusted(LOG_ERR, "log_failed", LOG_NO_FIELDS, "%s", err);
        return -1;
    }
    mark_clear(o, f);
    if (st->long_names > long_names)
        log_untrusted(LOG_WARNING, "runs_not_counted", LOG_NO_FIELDS,
                      "%s: %zu runs not counted: a function name "
                      "longer than %d bytes",
                      path, st->long_names - long_names, RUNLINE_MAX_NAME_BYTES);
    if (st->too_many > too_many)
        log_untrusted(LOG_WARNING, "runs_not_counted", LOG_NO_FIELDS,
                      "%s: %zu runs not counted: the report "
                      "holds %u already",
                      path, st->too_many - too_many, RUNLOG_MAX_SEEN);
    return 1;
}

/* What reading a view's logs came to. */
struct view_read {
    size_t read, skipped, failed;
};

/* The mean run of a report: the sum of the complete runs of its run logs
 * (each run id once) over their number. Logs skipped for their mark leave
 * the rest to be reported. 0 when at least one log was read (or there were
 * none); -1 when none could be, or one failed (its runs may be in r in
 * part: this run writes no page of the view, the next skips the log). */
static int load_mean(const struct generate_opts *o, const struct entry *e, run *r,
                     struct runlog_stats *st, struct log_counts *lc, struct view_read *vr)
{
    memset(st, 0, sizeof *st);
    memset(vr, 0, sizeof *vr);
    run_init(r, o->max_arcs);
    r->max_key_bytes = o->max_key_bytes;
    struct runlog_seen seen;
    runlog_seen_init(&seen);
    for (size_t i = 0; i < e->ninputs; i++) {
        int got = read_log(o, e->inputs[i], r, &seen, st, lc);
        vr->read += got > 0;
        vr->skipped += got == 0;
        vr->failed += got < 0;
    }
    runlog_seen_free(&seen);
    if (st->runs > 1)
        run_scale(r, 1.0 / (double)st->runs);
    return !vr->failed && (vr->read || !e->ninputs) ? 0 : -1;
}

/* Names are [A-Za-z0-9_.-] (period_name_ok, read_name): JSON as they are. */
static void summary_json(strbuf *out, const struct entry *e, const struct runlog_stats *st,
                         size_t logs, size_t arcs, size_t over_main)
{
    struct report_summary sum = {e->period, e->name, e->tag, st->runs, st->incomplete,
                                 st->bad_lines, st->duplicates, logs, arcs,
                                 st->arcs_left_out, over_main, (long long)st->first,
                                 (long long)st->last};
    report_summary_write(out, &sum);
}

static int write_report(const struct generate_opts *o, const struct entry *e, const run *r,
                        const struct runlog_stats *st, size_t logs, char *err, size_t errlen)
{
    char path[PATH_MAX], title[512], link[PATH_MAX];
    flat f;
    flat_compute(r, &f);
    strbuf runs = STRBUF_INIT;
    numtext_counted(&runs, (double)st->runs, "run", "runs");
    snprintf(title, sizeof title, "XHProf: %s - %s - %.*s - mean of %s", e->tag, e->period,
             (int)e->bucket_len, e->name, strbuf_cstr(&runs));
    strbuf_free(&runs);
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
        summary_json(&out, e, st, logs, r->n, flat_over_main(&f));
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

/* The diff against the previous bucket; *whole is cleared when some log
 * of that bucket was not read (the page is then made again next time). */
static int write_diff(const struct generate_opts *o, const struct entry *e, const run *b,
                      const struct last_mean *last, struct log_counts *lc, int *whole,
                      char *err, size_t errlen)
{
    const struct entry *p = e->previous;
    run loaded, d;
    const run *a = &last->r;
    struct runlog_stats st;
    struct view_read vr = {0, 0, 0};
    int own = last->e != p;
    if (own && load_mean(o, p, &loaded, &st, lc, &vr) < 0) {
        run_free(&loaded);
        if (vr.failed)
            return -1; /* said by read_log */
        *whole = 0;    /* every log of the previous bucket is marked: no diff for now */
        return 0;
    }
    *whole = !own || !vr.skipped ? *whole : 0;
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
                        struct last_mean *last, struct log_counts *lc)
{
    char path[PATH_MAX], err[700];
    page_path(o, e, K_REPORT, path, sizeof path);
    int report_ok = jobfs_up_to_date(path, &e->mtime);
    page_path(o, e, K_SUMMARY, path, sizeof path);
    report_ok = report_ok && jobfs_up_to_date(path, &e->mtime);
    const struct timespec *diff_time =
        e->previous ? jobfs_newer(&e->mtime, &e->previous->mtime) : NULL;
    page_path(o, e, K_DIFF, path, sizeof path);
    int diff_ok = !diff_time || jobfs_up_to_date(path, diff_time);
    if (report_ok && diff_ok)
        return 0;
    if (ensure_dirs(o, e->period) < 0) {
        log_untrusted(LOG_ERR, "period_failed", LOG_NO_FIELDS, "%s/%s: %s", o->reports_dir,
                      e->period, strerror(errno));
        return -1;
    }
    run r;
    struct runlog_stats st;
    struct view_read vr;
    err[0] = '\0';
    int rc = load_mean(o, e, &r, &st, lc, &vr);
    int read = rc == 0;
    /* pages of a view that left a log out carry no stamp: made again on
     * the next run, so the log counts again once its mark is gone */
    int whole = !vr.skipped && !vr.failed;
    if (rc == 0 && !report_ok) {
        rc = write_report(o, e, &r, &st, vr.read, err, sizeof err);
        for (int k = 0; rc == 0 && whole && k < K_COUNT; k++) {
            page_path(o, e, (enum kind)k, path, sizeof path);
            if (k != K_DIFF)
                rc = jobfs_stamp(path, &e->mtime, err, sizeof err);
        }
    }
    if (rc == 0 && !diff_ok) {
        int diff_whole = whole;
        rc = write_diff(o, e, &r, last, lc, &diff_whole, err, sizeof err);
        page_path(o, e, K_DIFF, path, sizeof path);
        if (rc == 0 && diff_whole)
            rc = jobfs_stamp(path, diff_time, err, sizeof err);
    }
    if (read && whole)
        last_mean_set(last, e, &r); /* kept for the next log's diff */
    else
        run_free(&r);
    if (rc < 0 && err[0])
        log_untrusted(LOG_ERR, "view_failed", LOG_NO_FIELDS, "%s", err);
    /* a log that failed fails this run; one skipped for its mark does not */
    if (rc < 0 && !vr.failed && !err[0])
        return 0; /* every log of the view skipped: nothing to write */
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

/* Which files of one kind directory are still wanted. */
struct wanted_kind {
    const struct entries *es;
    const char *period;
    enum kind k;
};

/* Whether a file of kind k named `file` belongs to a run log of now. */
static int still_wanted(void *arg, const char *file)
{
    const struct wanted_kind *w = arg;
    size_t n = strlen(file), sl = strlen(kind_suffix[w->k]);
    if (n <= sl || strcmp(file + n - sl, kind_suffix[w->k]) != 0)
        return 0;
    char name[NAME_MAX + 1];
    snprintf(name, sizeof name, "%.*s", (int)(n - sl), file);
    const struct entry *e = find_entry(w->es, w->period, name);
    return e && (w->k != K_DIFF || e->previous);
}

static size_t prune_period(void *arg, int reports_fd, const char *period)
{
    int pfd = openat(reports_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    size_t removed = 0;
    for (int k = 0; pfd >= 0 && k < K_COUNT; k++) {
        struct wanted_kind w = {arg, period, (enum kind)k};
        removed += jobfs_prune_dir(pfd, kinds[k], still_wanted, &w);
    }
    if (pfd >= 0)
        close(pfd);
    unlinkat(reports_fd, period, AT_REMOVEDIR); /* only when empty */
    return removed;
}

/* Removes the pages whose run log is gone (and emptied directories). */
static size_t remove_stale(const struct generate_opts *o, const struct entries *es)
{
    int fd = open(o->reports_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t removed = jobfs_each_period(fd, period_name_ok, prune_period, (void *)es);
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
                          "<h1>XHProf reports</h1>\n<p><a href=\"../index.html\">Flame graphs</a>");
    char path[PATH_MAX], err[600];
    snprintf(path, sizeof path, "%s/%s/index.html", o->reports_dir, LAYOUT_REPORT_TIERS_DIR);
    if (access(path, F_OK) == 0)
        strbuf_appends(&page, " \xc2\xb7 <a href=\"" LAYOUT_REPORT_TIERS_DIR
                              "/index.html\">Request tiers</a>");
    strbuf_appends(&page, "</p>\n");
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
    snprintf(path, sizeof path, "%s/index.html", o->reports_dir);
    int rc = jobfs_same_bytes(AT_FDCWD, path, page.data, page.len)
                 ? 0
                 : atomic_write(path, page.data, page.len, 0, err, sizeof err);
    if (rc < 0)
        log_untrusted(LOG_ERR, "page_failed", LOG_NO_FIELDS, "%s", err);
    strbuf_free(&page);
    return rc;
}

/* ---- the job ----------------------------------------------------------- */

int generate_run(const struct generate_opts *o)
{
    int lock = jobfs_begin(o->reports_dir);
    if (lock < 0)
        return lock == -2 ? 75 : 1;
    /* the tier pages first: the index below links theirs when it exists */
    strbuf fetched = STRBUF_INIT;
    reportsrc_step(o->store, o->logs_dir, o->reports_dir, &fetched);
    struct tiers_opts tiers = o->tiers;
    tiers.reports_index = 1;
    int failed = tiers_update(&tiers, NULL) < 0;
    struct entries es = {NULL, 0, 0, {NULL, 0, 0}};
    size_t written = 0, removed = 0;
    int unlisted = scan_logs(&es, o) < 0;
    failed |= unlisted;
    /* one run log that cannot be read costs its own pages, not the others' */
    struct last_mean last = {NULL, {0}};
    struct log_counts lc = {0, 0};
    for (size_t i = 0; i < es.n; i++) {
        int r = update_entry(o, &es.v[i], &last, &lc);
        failed |= r < 0;
        written += r > 0;
    }
    if (last.e)
        run_free(&last.r);
    failed |= lc.failed > 0; /* a diff's previous log too */
    if (es.n || !unlisted) { /* a logs_dir that cannot be read removes nothing */
        removed = remove_stale(o, &es);
        marks_prune(o, &es.files);
        failed |= write_index(o, &es) < 0;
    }
    strbuf line = STRBUF_INIT;
    strbuf_appendf(&line,
                   "%zu run logs, %zu reports (entry points and all), %zu brought up to "
                   "date, %zu stale pages removed",
                   es.files.n, es.n, written, removed);
    strbuf_append(&line, fetched.data, fetched.len);
    reportpub_step(o->store, o->logs_dir, o->reports_dir, &line);
    if (!o->quiet)
        log_untrusted(LOG_NOTICE, "run_finished", LOG_NO_FIELDS, "%s", strbuf_cstr(&line));
    strbuf_free(&line);
    strbuf_free(&fetched);
    if (lc.skipped || lc.failed)
        log_untrusted(LOG_WARNING, "logs_set_aside", LOG_NO_FIELDS,
                      "%zu run log reads skipped for a mark, %zu "
                      "failed and marked (" MARKS_DIR " in %s)",
                      lc.skipped, lc.failed, o->reports_dir);
    entries_free(&es);
    close(lock);
    return failed ? 1 : 0;
}
