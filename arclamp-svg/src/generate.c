/* generate: `arclamp-svg generate`, the timer job that keeps the graphs and
 * the index in step with the trace logs. See generate.h. */
#include "generate.h"
#include "atomicfile.h"
#include "cli.h"
#include "datadir.h"
#include "datarun.h"
#include "dirstream.h"
#include "commands.h"
#include "flame.h"
#include "fnfilter.h"
#include "gendiff.h"
#include "indexpage.h"
#include "input.h"
#include "layout.h"
#include "log.h"
#include "logset.h"
#include "reportsummary.h"
#include "runstate.h"
#include "svg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* One run's state. */
struct run {
    const struct gen_config *cfg;
    const struct generate_options *opt;
    struct generate_stats *st;
    int data_fd;          /* data_dir (index.html, index.json) */
    int logs_fd;          /* logs_dir */
    int svgs_fd;          /* svgs_dir */
    int logs_pfd;         /* logs_dir/<the period being processed> */
    strbuf doc;           /* the SVG being written (reused: bounded by min_width) */
};

/* How far into a graph its sample count is looked for: it is in the first
 * kilobyte or two (svg.h), after a style whose font name only the
 * configuration makes longer. */
#define GRAPH_HEAD_MAX (64 * 1024)

/* What one read of a log feeds. */
struct reader {
    const struct run *run;
    struct flame *all;    /* forward and reversed trees of every line */
    struct flame **fn;    /* per function; NULL unless the log is an "all" log */
    struct fnfilter *filter; /* which functions a stack holds (with fn) */
    struct flame_budget budget; /* max_memory_mb, shared by all of them */
    struct input_limit limit;   /* max_log_read_mb */
};

/* --- helpers ------------------------------------------------------------ */

/* A true "all" log (<bucket>.all for a configured format, logset.h). */
static int is_all_log(const struct logfile *lf)
{
    return lf->is_all;
}

static int cmp_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int timespec_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static char *graph_name(const struct logfile *lf, const char *label, int reversed)
{
    strbuf sb = STRBUF_INIT;
    gen_graph_name(&sb, lf->name, label, reversed);
    return (char *)strbuf_cstr(&sb);
}

static char *diff_graph_name(const struct logfile *lf, int reversed)
{
    strbuf sb = STRBUF_INIT;
    gen_diff_graph_name(&sb, lf->name, reversed);
    return (char *)strbuf_cstr(&sb);
}

/* The graph is a regular file at least as new as `mtime`. */
static int graph_current(int pfd, const char *name, const struct timespec *mtime)
{
    struct stat st;
    return fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
           !timespec_before(&st.st_mtim, mtime);
}

static int up_to_date(int pfd, const struct logfile *lf)
{
    int ok = 1;
    for (int rev = 0; rev < 2 && ok; rev++) {
        char *name = graph_name(lf, NULL, rev);
        ok = graph_current(pfd, name, &lf->mtime);
        free(name);
    }
    return ok;
}

/* --- reading a log ------------------------------------------------------ */

/* The stack part of a line: up to its last space (the count's separator). */
static size_t stack_len(const char *line, size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    const char *sp = memrchr(line, ' ', len);
    return sp ? (size_t)(sp - line) : len;
}

static int on_line(void *arg, const char *line, size_t len)
{
    struct reader *rd = arg;
    flame_add_line(rd->all, line, len);
    if (!rd->fn)
        return 0;
    uint64_t bits = fnfilter_match(rd->filter, line, stack_len(line, len));
    for (size_t i = 0; bits; i++, bits >>= 1) {
        if (bits & 1)
            flame_add_line(rd->fn[i], line, len);
    }
    return 0;
}

static void reader_free(struct reader *rd, size_t nfunctions)
{
    flame_free(rd->all);
    for (size_t i = 0; rd->fn && i < nfunctions; i++)
        flame_free(rd->fn[i]);
    free(rd->fn);
    fnfilter_free(rd->filter);
}

/* Counts and logs one graph's samples beyond the limits. */
static void note_truncated(const struct run *run, const struct logfile *lf, const char *label,
                           const struct flame *f)
{
    size_t limit;
    enum flame_limit why = flame_limit_reached(f, &limit);
    static const char *const names[] = {"", "max_stacks", "max_frames", "max_memory_mb",
                                        "32-bit table size"};
    if (why == FLAME_LIMIT_NONE)
        return;
    run->st->truncated_graphs++;
    run->st->truncated_lines += flame_truncated_lines(f);
    log_untrusted(LOG_WARNING, "graph_truncated",
            LOG_FIELDS({"ARCLAMP_PERIOD", lf->period}, {"ARCLAMP_LOG_FILE", lf->file}),
            "%s/%s%s%s: %zu lines (%g samples) beyond %s shown as " FLAME_TRUNCATED_FRAME,
            lf->period, lf->name, label ? " fn-" : "", label ? label : "",
            flame_truncated_lines(f), flame_truncated_samples(f), names[why]);
}

/* What the limits left out of a log read: counted and logged. */
static void note_limits(const struct run *run, const struct logfile *lf, const struct reader *rd)
{
    if (rd->limit.reached) {
        run->st->cut_logs++;
        log_untrusted(LOG_WARNING, "log_read_limit",
                LOG_FIELDS({"ARCLAMP_PERIOD", lf->period}, {"ARCLAMP_LOG_FILE", lf->file}),
                "%s/%s: read only the first %llu bytes (max_log_read_mb); the graphs show those",
                lf->period, lf->file, rd->limit.max_bytes);
    }
    note_truncated(run, lf, NULL, rd->all);
    for (size_t i = 0; rd->fn && i < run->cfg->nfunctions; i++)
        note_truncated(run, lf, run->cfg->functions[i].label, rd->fn[i]);
}

/* Opens and reads one log into `rd`; `mtime` gets the log's mtime as it was
 * before reading. */
static int read_log(const struct run *run, const struct logfile *lf, struct reader *rd,
                    struct timespec *mtime, char *err, size_t errlen)
{
    strbuf path = STRBUF_INIT;
    strbuf_appendf(&path, "%s/%s/%s", run->cfg->logs_dir, lf->period, lf->file);
    struct stat st;
    int fd = datadir_open_regular(run->logs_pfd, lf->file, &st, err, errlen);
    int rc = fd >= 0 ? 0 : -1;
    struct input_stats ist = {0};
    if (rc == 0) {
        *mtime = st.st_mtim;
        rc = input_read_fd_limited(fd, strbuf_cstr(&path), &rd->limit, on_line, rd, &ist, err,
                                   errlen) == 0 ? 0 : -1;
    }
    if (fd >= 0)
        close(fd);
    strbuf_free(&path);
    size_t ignored = flame_ignored(rd->all) + ist.too_long;
    if (rc == 0 && flame_lines(rd->all) == 0 && ignored > 0) {
        snprintf(err, errlen, "no valid sample line (%zu invalid)", ignored);
        rc = -1;
    }
    if (rc == 0 && ignored > 0) {
        run->st->ignored_lines += ignored;
        log_untrusted(LOG_WARNING, "invalid_lines", LOG_NO_FIELDS, "%s/%s: ignored %zu invalid lines",
                  lf->period, lf->name, ignored);
    }
    if (rc == 0)
        note_limits(run, lf, rd);
    return rc;
}

/* --- writing graphs ----------------------------------------------------- */

static int write_graph(struct run *run, int pfd, const struct logfile *lf, struct flame *f,
                       const struct gen_function *fn, int reversed, unsigned long long cut_at,
                       const struct timespec *mtime, char *err, size_t errlen)
{
    const struct gen_config *cfg = run->cfg;
    strbuf title = STRBUF_INIT, subtitle = STRBUF_INIT;
    struct gen_title_vars vars = {lf->period, lf->time_from_name ? lf->time : lf->name, lf->name,
                                  lf->entrypoint, fn ? fn->label : NULL, reversed,
                                  flame_total(f)};
    gen_title(&title, cfg->title, &vars);
    if (fn)
        strbuf_appendf(&subtitle, "Stacks holding %s", fn->function);
    struct svg_options o;
    svg_options_init(&o);
    o.title = strbuf_cstr(&title);
    o.subtitle = fn ? strbuf_cstr(&subtitle) : NULL;
    o.font_type = cfg->font_type;
    o.font_size = cfg->font_size;
    o.min_width = cfg->min_width;
    o.width = (double)cfg->width;
    o.palette = (enum palette)(reversed ? cfg->reversed_palette : cfg->palette);
    o.max_bytes = (size_t)cfg->max_svg_mb << 20;
    o.input_cut_at = cut_at;
    strbuf_reset(&run->doc);
    svg_render(f, reversed ? FLAME_REVERSED : FLAME_FORWARD, &o, &run->doc);
    char *name = graph_name(lf, fn ? fn->label : NULL, reversed);
    int rc = atomic_writeat(pfd, name, run->doc.data, run->doc.len, ATOMIC_GZIP,
                            (int)cfg->gzip_level, mtime, err, errlen);
    if (rc == 0) {
        run->st->graphs++;
        log_untrusted(LOG_INFO, "graph_written", LOG_NO_FIELDS, "%s/%s", lf->period, name);
    }
    free(name);
    strbuf_free(&title);
    strbuf_free(&subtitle);
    return rc;
}

/* Removes one graph of period directory `pfd`; counted and logged when it
 * was there. */
static void unlink_graph(struct run *run, int pfd, const char *period, const char *name)
{
    if (unlinkat(pfd, name, 0) == 0) {
        run->st->removed++;
        log_untrusted(LOG_INFO, "graph_removed", LOG_NO_FIELDS, "%s/%s", period, name);
    }
}

/* Removes a graph that should no longer exist (no samples any more). */
static void remove_graph(struct run *run, int pfd, const struct logfile *lf, const char *label,
                         int reversed)
{
    char *name = graph_name(lf, label, reversed);
    unlink_graph(run, pfd, lf->period, name);
    free(name);
}

/* Per-function graphs first and the forward graph last: the forward and
 * reversed graphs mark the log done, so an interrupted run redoes it. */
static int write_graphs(struct run *run, int pfd, const struct logfile *lf,
                        struct reader *rd, const struct timespec *mtime, char *err,
                        size_t errlen)
{
    unsigned long long cut_at = rd->limit.reached ? rd->limit.max_bytes : 0;
    for (size_t i = 0; rd->fn && i < run->cfg->nfunctions; i++) {
        const struct gen_function *fn = &run->cfg->functions[i];
        for (int rev = 1; rev >= 0; rev--) {
            if (flame_lines(rd->fn[i]) == 0)
                remove_graph(run, pfd, lf, fn->label, rev);
            else if (write_graph(run, pfd, lf, rd->fn[i], fn, rev, cut_at, mtime, err, errlen) < 0)
                return -1;
        }
    }
    for (int rev = 1; rev >= 0; rev--) {
        if (write_graph(run, pfd, lf, rd->all, NULL, rev, cut_at, mtime, err, errlen) < 0)
            return -1;
    }
    return 0;
}

static int draw_log(struct run *run, int pfd, const struct logfile *lf, char *err,
                    size_t errlen)
{
    size_t nfn = run->cfg->nfunctions;
    const struct gen_config *cfg = run->cfg;
    struct reader rd = {run, NULL, NULL, NULL, {(size_t)cfg->max_memory_mb << 20, 0},
                        {(unsigned long long)cfg->max_log_read_mb << 20, 0}};
    struct flame_limits lim = {(size_t)cfg->max_stacks, (size_t)cfg->max_frames, 0, &rd.budget};
    rd.all = flame_new_limited(&lim);
    if (is_all_log(lf) && nfn) {
        const char **names = xcalloc(nfn, sizeof *names);
        rd.fn = xcalloc(nfn, sizeof *rd.fn);
        for (size_t i = 0; i < nfn; i++) {
            rd.fn[i] = flame_new_limited(&lim);
            names[i] = run->cfg->functions[i].function;
        }
        rd.filter = fnfilter_new(names, nfn);
        free(names);
    }
    struct timespec mtime;
    int rc = read_log(run, lf, &rd, &mtime, err, errlen);
    if (rc == 0) {
        flame_finish(rd.all);
        for (size_t i = 0; rd.fn && i < nfn; i++)
            flame_finish(rd.fn[i]);
        rc = write_graphs(run, pfd, lf, &rd, &mtime, err, errlen);
    }
    reader_free(&rd, nfn);
    return rc;
}

static void process_log(struct run *run, int pfd, const struct logfile *lf,
                        struct index_entry *entry)
{
    char err[1024];
    if (!run->opt->force && up_to_date(pfd, lf)) {
        run->st->skipped++;
        return;
    }
    if (draw_log(run, pfd, lf, err, sizeof err) == 0) {
        run->st->generated++;
        return;
    }
    run->st->failed++;
    entry->failed = 1;
    log_untrusted(LOG_ERR, "log_failed",
            LOG_FIELDS({"ARCLAMP_PERIOD", lf->period}, {"ARCLAMP_LOG_FILE", lf->file}),
            "%s/%s: %s", lf->period, lf->file, err);
}

/* The differential graphs of `lf` against `before` (gendiff.h), when
 * either log changed; a failure is logged and counted, the old graphs
 * stay. */
static void process_diff(struct run *run, int pfd, const struct logfile *lf,
                         const struct logfile *before)
{
    char err[1024];
    int rc = gendiff_draw(run->cfg, run->logs_pfd, pfd, lf, before, run->opt->force, &run->doc,
                          err, sizeof err);
    if (rc > 0) {
        run->st->diffs++;   /* counted apart from `graphs` (the logs' own) */
        log_untrusted(LOG_INFO, "graph_written", LOG_NO_FIELDS, "%s/%s (diff vs %s)",
                      lf->period, lf->name, before->name);
    } else if (rc < 0) {
        run->st->diffs_failed++;
        log_untrusted(LOG_ERR, "diff_failed",
                LOG_FIELDS({"ARCLAMP_PERIOD", lf->period}, {"ARCLAMP_LOG_FILE", lf->file}),
                "%s/%s: diff vs %s: %s", lf->period, lf->file, before->file, err);
    }
}

/* --- stale graphs ------------------------------------------------------- */

static int is_graph_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && layout_has_suffix(name, n, LAYOUT_SVGZ_SUFFIX);
}

/* Every graph name the logs [files, files+n) may have, sorted. */
static char **expected_names(const struct gen_config *cfg, const struct logfile *files, size_t n,
                             const size_t *diff_prev, size_t *count)
{
    char **v = xcalloc(n * 2 * (2 + cfg->nfunctions) + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        for (int rev = 0; rev < 2; rev++) {
            v[k++] = graph_name(&files[i], NULL, rev);
            if (diff_prev[i] != GENDIFF_NONE)
                v[k++] = diff_graph_name(&files[i], rev);
            for (size_t f = 0; is_all_log(&files[i]) && f < cfg->nfunctions; f++)
                v[k++] = graph_name(&files[i], cfg->functions[f].label, rev);
        }
    }
    if (k)
        qsort(v, k, sizeof *v, cmp_strings);
    *count = k;
    return v;
}

/* Removes the graphs in `pfd` not in the sorted `keep` (all when NULL). */
static void remove_graphs_except(struct run *run, int pfd, const char *period, char **keep,
                                 size_t nkeep)
{
    DIR *d = dir_stream(pfd);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        struct stat st;
        if (!is_graph_name(name) || (keep && bsearch(&name, keep, nkeep, sizeof *keep,
                                                      cmp_strings)))
            continue;
        if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            continue;
        unlink_graph(run, pfd, period, name);
    }
    closedir(d);
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* --- periods ------------------------------------------------------------ */

/* The graph directory of a period, created when `create`; -1 (err set) if
 * missing, a symlink or another user's. */
static int open_period(const struct run *run, const char *period, int create, char *err,
                       size_t errlen)
{
    strbuf shown = STRBUF_INIT;
    strbuf_appendf(&shown, "%s/%s", run->cfg->svgs_dir, period);
    int fd = datadir_openat(run->svgs_fd, strbuf_cstr(&shown), period, create, 0755, err, errlen);
    strbuf_free(&shown);
    return fd;
}

/* Every log of the period fails (its old graphs stay). */
static void fail_period(struct run *run, const char *period, struct index_entry *entries,
                        size_t n, const char *why)
{
    log_untrusted(LOG_ERR, "period_failed", LOG_FIELDS({"ARCLAMP_PERIOD", period}), "%s", why);
    run->st->failed += n;
    for (size_t i = 0; i < n; i++)
        entries[i].failed = 1;
}

/* The period and name of a log whose report arclamp-report may have
 * written: only names of [A-Za-z0-9_.-] are looked for (arclamp-report
 * takes no others), so they need no escaping in the index's JSON either. */
static int report_name_ok(const struct logfile *lf)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    return strspn(lf->name, ok) == strlen(lf->name) &&
           strspn(lf->period, ok) == strlen(lf->period);
}

/* Whether arclamp-report wrote the page of this log's bucket and entry
 * point. */
static int has_report(int data_fd, const struct logfile *lf)
{
    char path[PATH_MAX];
    if (!report_name_ok(lf))
        return 0;
    int n = snprintf(path, sizeof path, LAYOUT_REPORTS_DIR "/%s/" LAYOUT_REPORT_PAGES_DIR "/%s.html", lf->period,
                     lf->name);
    return n > 0 && (size_t)n < sizeof path &&
           faccessat(data_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The runs that report is the mean of, from the summary arclamp-report
 * writes beside it (a few hundred bytes: the run log is not read); -1 when
 * there is none or it cannot be read. */
static long long report_runs(int data_fd, const struct logfile *lf)
{
    char path[PATH_MAX], err[256], text[REPORT_SUMMARY_MAX];
    int n = snprintf(path, sizeof path, LAYOUT_REPORTS_DIR "/%s/" REPORT_SUMMARY_DIR "/%s.json",
                     lf->period, lf->name);
    if (n <= 0 || (size_t)n >= sizeof path)
        return -1;
    struct stat st;
    int fd = datadir_open_regular(data_fd, path, &st, err, sizeof err);
    if (fd < 0)
        return -1;
    ssize_t len = read(fd, text, sizeof text);
    close(fd);
    unsigned long long runs;
    if (len <= 0 || report_summary_runs(text, (size_t)len, &runs) < 0 || runs > LLONG_MAX)
        return -1;
    return (long long)runs;
}

/* The samples a graph on disk was drawn from, read back from its first
 * kilobytes (svg_head_total), so that the index shows them on every run
 * without reading the logs of graphs that are up to date; -1 when it
 * cannot be read. */
static double graph_samples(int pfd, const char *name)
{
    char err[256], buf[2048];
    struct stat st;
    int fd = datadir_open_regular(pfd, name, &st, err, sizeof err);
    gzFile gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
    if (!gz) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    gzbuffer(gz, sizeof buf);   /* the count is in the first 2 KB: inflate no more */
    strbuf head = STRBUF_INIT;
    double total = -1;
    int n;
    while (head.len < GRAPH_HEAD_MAX && (n = gzread(gz, buf, sizeof buf)) > 0) {
        strbuf_append(&head, buf, (size_t)n);
        if (svg_head_total(head.data, head.len, &total) == 0)
            break;
    }
    gzclose(gz);
    strbuf_free(&head);
    return total;
}

/* Which graphs of a log (and of its functions) exist, and their samples. */
static void note_presence(const struct gen_config *cfg, int pfd, struct index_entry *e)
{
    struct timespec zero = {0, 0};
    for (int rev = 0; rev < 2; rev++) {
        char *name = graph_name(e->log, NULL, rev);
        if (graph_current(pfd, name, &zero)) {
            e->graphs |= rev ? INDEX_REVERSED : INDEX_FORWARD;
            if (e->samples < 0)
                e->samples = graph_samples(pfd, name);
        }
        free(name);
        name = diff_graph_name(e->log, rev);
        if (graph_current(pfd, name, &zero))
            e->graphs |= rev ? INDEX_DIFF_REVERSED : INDEX_DIFF;
        free(name);
        for (size_t i = 0; e->fn && i < cfg->nfunctions; i++) {
            name = graph_name(e->log, cfg->functions[i].label, rev);
            if (graph_current(pfd, name, &zero)) {
                e->fn[i] |= rev ? INDEX_REVERSED : INDEX_FORWARD;
                if (e->fn_samples[i] < 0)
                    e->fn_samples[i] = graph_samples(pfd, name);
            }
            free(name);
        }
    }
}

static void process_period(struct run *run, const char *period, const struct logfile *files,
                           struct index_entry *entries, size_t n)
{
    char err[1024];
    int pfd = open_period(run, period, n > 0, err, sizeof err);
    if (pfd < 0) {
        if (n > 0 || errno != ENOENT)
            fail_period(run, period, entries, n, err);
        return;
    }
    strbuf shown = STRBUF_INIT;
    strbuf_appendf(&shown, "%s/%s", run->cfg->logs_dir, period);
    run->logs_pfd = n ? datadir_openat(run->logs_fd, strbuf_cstr(&shown), period, 0, 0, err,
                                       sizeof err)
                      : -1;
    strbuf_free(&shown);
    if (n && run->logs_pfd < 0) {
        fail_period(run, period, entries, n, err);
        close(pfd);
        return;
    }
    run->st->temps += (size_t)atomic_clean_temps(pfd);
    for (size_t i = 0; i < n; i++)
        process_log(run, pfd, &files[i], &entries[i]);
    size_t *diff_prev = xcalloc(n + 1, sizeof *diff_prev);
    gendiff_pairs(files, n, time(NULL), diff_prev);
    for (size_t i = 0; i < n; i++) {
        if (diff_prev[i] != GENDIFF_NONE)
            process_diff(run, pfd, &files[i], &files[diff_prev[i]]);
    }
    if (run->logs_pfd >= 0)
        close(run->logs_pfd);
    run->logs_pfd = -1;
    size_t nkeep;
    char **keep = expected_names(run->cfg, files, n, diff_prev, &nkeep);
    remove_graphs_except(run, pfd, period, keep, nkeep);
    free_strings(keep, nkeep);
    free(diff_prev);
    for (size_t i = 0; i < n; i++) {
        note_presence(run->cfg, pfd, &entries[i]);
        entries[i].report = has_report(run->data_fd, &files[i]);
        if (entries[i].report)
            entries[i].report_runs = report_runs(run->data_fd, &files[i]);
    }
    close(pfd);
}

/* Graph directories whose period has no log directory any more: their
 * graphs go, and the directory too when nothing else is in it. */
static void purge_orphan_periods(struct run *run, const struct logset *set)
{
    DIR *d = dir_stream(run->svgs_fd);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (name[0] == '.' || bsearch(&name, set->periods, set->nperiods,
                                      sizeof *set->periods, cmp_strings))
            continue;
        char err[1024];
        int pfd = open_period(run, name, 0, err, sizeof err);
        if (pfd < 0) {
            if (errno == EPERM)
                log_untrusted(LOG_WARNING, "period_refused", LOG_NO_FIELDS, "%s (left alone)", err);
            continue;
        }
        run->st->temps += (size_t)atomic_clean_temps(pfd);
        remove_graphs_except(run, pfd, name, NULL, 0);
        close(pfd);
        unlinkat(run->svgs_fd, name, AT_REMOVEDIR); /* fails if other files remain */
    }
    closedir(d);
}

/* --- the run ------------------------------------------------------------ */

static void free_run(struct run *run)
{
    strbuf_free(&run->doc);
    if (run->svgs_fd >= 0)
        close(run->svgs_fd);
    if (run->logs_fd >= 0)
        close(run->logs_fd);
}

/* Periods whose scan failed are left exactly as they are: a directory we
 * could not read is not a directory without logs. */
static void process_all(struct run *run, const struct logset *set, struct index_entry *entries)
{
    size_t i = 0;
    for (size_t p = 0; p < set->nperiods; p++) {
        size_t begin = i;
        while (i < set->n && strcmp(set->files[i].period, set->periods[p]) == 0)
            i++;
        if (!logset_period_failed(set, set->periods[p]))
            process_period(run, set->periods[p], set->files + begin, entries + begin,
                           i - begin);
    }
    purge_orphan_periods(run, set);
}

static int write_index(struct run *run, const struct logset *set,
                       const struct index_entry *entries, char *err, size_t errlen)
{
    run->st->temps += (size_t)atomic_clean_temps(run->data_fd);
    return index_write(run->data_fd, run->cfg, entries, set->n, time(NULL), err, errlen);
}

/* Names refused by logset (colliding tags) and periods it could not read:
 * logged one by one, counted. */
static void report_scan(struct run *run, const struct logset *set)
{
    for (size_t i = 0; i < set->nrefused; i++) {
        const struct logset_refusal *r = &set->refused[i];
        log_untrusted(LOG_WARNING, "log_refused",
                LOG_FIELDS({"ARCLAMP_PERIOD", r->period}, {"ARCLAMP_LOG_FILE", r->file}),
                "%s/%s: refused, not drawn: %s", r->period, r->file, r->why);
    }
    run->st->refused = set->nrefused;
    for (size_t i = 0; i < set->nfailed; i++) {
        const struct logset_failure *f = &set->failed[i];
        log_untrusted(LOG_ERR, "scan_failed", LOG_FIELDS({"ARCLAMP_PERIOD", f->period}),
                "%s/%s: cannot list the logs: %s (its graphs are kept, index.html not "
                "rewritten)", run->cfg->logs_dir, f->period, f->why);
    }
    run->st->scan_failed = set->nfailed;
}

static struct index_entry *make_entries(const struct gen_config *cfg, const struct logset *set)
{
    struct index_entry *e = xcalloc(set->n + 1, sizeof *e);
    for (size_t i = 0; i < set->n; i++) {
        e[i].log = &set->files[i];
        e[i].samples = -1;
        e[i].report_runs = -1;
        if (is_all_log(&set->files[i]) && cfg->nfunctions) {
            e[i].fn = xcalloc(cfg->nfunctions, 1);
            e[i].fn_samples = xcalloc(cfg->nfunctions, sizeof *e[i].fn_samples);
            for (size_t f = 0; f < cfg->nfunctions; f++)
                e[i].fn_samples[f] = -1;
        }
    }
    return e;
}

static void free_entries(struct index_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(e[i].fn);
        free(e[i].fn_samples);
    }
    free(e);
}

/* Every host's logs merged into logs_dir (storesrc.h). A store that is
 * down costs the fetch only: the logs merged before are drawn. */
static void fetch_from_store(struct run *run)
{
    char why[1024];
    run->st->store_from = 1;
    if (storesrc_run(run->cfg, run->data_fd, run->logs_fd, &run->st->fetched, why,
                     sizeof why) < 0) {
        run->st->fetched.failed++;
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS,
                      "fetching the logs: %s (the logs merged before are drawn)", why);
    }
}

/* Graphs, the index and (unless drawn from the store) the logs sent
 * (storepub.h); a store that is down costs the uploads only. */
static void publish_to_store(struct run *run)
{
    char why[1024];
    run->st->store_published = 1;
    if (storepub_run(run->cfg, run->data_fd, run->logs_fd, run->svgs_fd, &run->st->published,
                     why, sizeof why) < 0) {
        run->st->published.failed++;
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS, "publishing: %s", why);
    }
}

/* Everything once the lock is held. */
static enum generate_status locked_run(struct run *run, char *err, size_t errlen)
{
    const struct gen_config *cfg = run->cfg;
    char why[1024];
    run->logs_fd = datadir_open(run->data_fd, cfg->data_dir, cfg->logs_dir, 0, why, sizeof why);
    if (run->logs_fd < 0) {
        snprintf(err, errlen, "logs_dir: %s (nothing done)", why);
        return GENERATE_ERROR;
    }
    run->svgs_fd = datadir_open(run->data_fd, cfg->data_dir, cfg->svgs_dir, 1, why, sizeof why);
    if (run->svgs_fd < 0) {
        snprintf(err, errlen, "svgs_dir: %s (nothing done)", why);
        return GENERATE_ERROR;
    }
    if (storesrc_enabled(cfg))
        fetch_from_store(run);
    struct logset set;
    if (logset_scan_at(cfg, run->logs_fd, 1, &set, err, errlen) < 0)
        return GENERATE_ERROR;
    run->st->logs = set.n;
    report_scan(run, &set);
    struct index_entry *entries = make_entries(cfg, &set);
    struct storemerge_hosts *hosts =
        storesrc_enabled(cfg) ? storesrc_hosts_load(cfg, run->data_fd) : NULL;
    for (size_t i = 0; hosts && i < set.n; i++)
        entries[i].hosts = storemerge_hosts_of(hosts, set.files[i].period, set.files[i].file);
    process_all(run, &set, entries);
    runstate_note_limits(cfg, run->st->truncated_graphs, run->st->truncated_lines,
                         run->st->cut_logs);
    char ierr[1024];
    if (set.nfailed) {
        run->st->index_failed = 1; /* it would leave out the periods not read */
    } else if (write_index(run, &set, entries, ierr, sizeof ierr) < 0) {
        run->st->index_failed = 1;
        log_untrusted(LOG_ERR, "index_failed", LOG_NO_FIELDS, "index: %s", ierr);
    }
    free_entries(entries, set.n);
    storemerge_hosts_free(hosts);
    logset_free(&set);
    if (cfg->store.conn.kind != OBJSTORE_NONE && cfg->store.publish && !run->st->index_failed)
        publish_to_store(run);
    if (run->st->store_from || run->st->store_published) {
        const struct storepub_stats *p = &run->st->published;
        const struct storemerge_stats *f = &run->st->fetched;
        runstate_note_store(cfg, p->logs + p->graphs + (size_t)p->index, p->bytes,
                            p->failed + f->failed, f->objects, f->bytes);
    }
    return run->st->failed || run->st->index_failed || run->st->scan_failed ||
                   run->st->diffs_failed
               ? GENERATE_SOME_FAILED
               : GENERATE_OK;
}

enum generate_status generate_run(const struct gen_config *cfg,
                                  const struct generate_options *opt,
                                  struct generate_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    struct datarun dr;
    enum datarun_status ds = datarun_begin(cfg, 1, &dr, err, errlen);
    if (ds == DATARUN_BUSY)
        runstate_note_skip(cfg, RUNSTATE_GENERATE);
    if (ds != DATARUN_OK)
        return ds == DATARUN_BUSY ? GENERATE_BUSY : GENERATE_ERROR;
    struct run run = {cfg, opt, st, dr.data_fd, -1, -1, -1, STRBUF_INIT};
    enum generate_status rc = locked_run(&run, err, errlen);
    free_run(&run);
    datarun_end(&dr);
    return rc;
}

/* --- the command -------------------------------------------------------- */

static void usage(FILE *out)
{
    fputs("Usage: arclamp-svg generate [--config FILE] [--data-dir DIR] [--force] [--verbose]\n"
          "\n"
          "Draws <svgs_dir>/<period>/<name>.svgz and <name>.reversed.svgz (and the\n"
          "per-function graphs of the all logs) for every trace log newer than its\n"
          "graphs, <name>.diff[.reversed].svgz for the latest complete bucket of each\n"
          "entry point against the one before (hour over hour, day over day),\n"
          "removes graphs whose log is gone, and writes <data_dir>/index.html and\n"
          "index.json.\n"
          "\n"
          "  -c, --config FILE    configuration (default " GEN_CONFIG_DEFAULT_PATH
          " if it exists)\n"
          "  -d, --data-dir DIR   use DIR as data_dir\n"
          "  -f, --force          draw every log, even those whose graphs are up to date\n"
          "  -v, --verbose        log every graph written and removed\n"
          "  -h, --help           print this help\n"
          "\n"
          "Run as root, it first becomes the owner of data_dir (unless root owns it).\n"
          "\n"
          "Exit status: 0 done; 1 some logs, a log directory or the index failed (the\n"
          "others were done), or nothing could be done; 2 bad command line; 75 another\n"
          "generate or compress held the lock for lock_timeout (skipped, counted in\n"
          "arclamp_svg_runs_skipped_total); 78 bad configuration.\n\n",
          out);
    gen_config_print_help(out);
}

static void print_summary(const struct generate_stats *st)
{
    printf("arclamp-svg generate: %zu logs: %zu drawn (%zu graphs), %zu up to date, "
           "%zu failed; %zu graphs removed",
           st->logs, st->generated, st->graphs, st->skipped, st->failed, st->removed);
    if (st->diffs || st->diffs_failed)
        printf(", %zu diffs drawn (%zu failed)", st->diffs, st->diffs_failed);
    if (st->temps)
        printf(", %zu temporary files removed", st->temps);
    if (st->ignored_lines)
        printf(", %zu invalid lines ignored", st->ignored_lines);
    if (st->refused)
        printf(", %zu logs refused (names that collide)", st->refused);
    if (st->scan_failed)
        printf("; %zu log directories could not be read (their graphs kept)", st->scan_failed);
    if (st->truncated_graphs)
        printf(", %zu graphs truncated (%zu lines beyond the limits)", st->truncated_graphs,
               st->truncated_lines);
    if (st->cut_logs)
        printf(", %zu logs read only up to max_log_read_mb", st->cut_logs);
    if (st->index_failed)
        printf("; index NOT written");
    strbuf extra = STRBUF_INIT;
    if (st->store_from)
        storemerge_summary(&st->fetched, "logs", &extra);
    if (st->store_published)
        storepub_summary(&st->published, &extra);
    printf("%s\n", extra.len ? strbuf_cstr(&extra) : "");
    strbuf_free(&extra);
}

int cmd_generate(int argc, char **argv)
{
    static const struct option options[] = {
        {"config", required_argument, NULL, 'c'}, {"data-dir", required_argument, NULL, 'd'},
        {"force", no_argument, NULL, 'f'},        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const char *config = NULL, *data_dir = NULL;
    struct generate_options opt = {0};
    int verbose = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "c:d:fvh", options, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'd': data_dir = optarg; break;
        case 'f': opt.force = 1; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return CLI_EXIT_OK;
        default: usage(stderr); return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "arclamp-svg generate: unexpected argument \"%s\"\n", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    struct gen_config cfg;
    char msg[1024];
    int rc = cli_load_config(config, data_dir, verbose, &cfg, msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "arclamp-svg generate: %s\n", msg);
    if (rc)
        return rc;
    struct generate_stats st;
    char err[1024];
    enum generate_status status = generate_run(&cfg, &opt, &st, err, sizeof err);
    gen_config_free(&cfg);
    if (status == GENERATE_BUSY) {
        fprintf(stderr, "arclamp-svg generate: %s; skipped, nothing done\n", err);
        return CLI_EXIT_BUSY;
    }
    if (status == GENERATE_ERROR) {
        fprintf(stderr, "arclamp-svg generate: %s\n", err);
        return CLI_EXIT_FAILED;
    }
    print_summary(&st);
    return status == GENERATE_OK ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}
