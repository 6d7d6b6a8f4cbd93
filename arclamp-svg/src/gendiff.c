/* gendiff: which bucket the timer job compares with which, and drawing
 * that differential graph (see gendiff.h). */
#include "gendiff.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "datadir.h"
#include "diffmerge.h"
#include "flame.h"
#include "input.h"
#include "svg.h"

/* The length of a bucket from the resolution of its time. */
static int64_t bucket_seconds(const struct logfile *lf)
{
    return strlen(lf->time) > 10 ? 3600 : 86400;   /* "YYYY-MM-DD_HH" or "YYYY-MM-DD" */
}

const char *gendiff_what(const struct logfile *lf)
{
    return bucket_seconds(lf) == 3600 ? "previous hour" : "previous day";
}

/* What a log's name holds besides its time: the bucket format's other
 * text, then the tag. */
static const char *series_rest(const struct logfile *lf, size_t *len)
{
    size_t t = strlen(lf->time);
    *len = strlen(lf->name) - t;
    return lf->name + t;
}

/* Series (same time resolution, same name but for the time), then newest
 * first. */
static int by_series(const void *a, const void *b, void *ctx)
{
    const struct logfile *files = ctx;
    const struct logfile *x = &files[*(const size_t *)a], *y = &files[*(const size_t *)b];
    size_t tx = strlen(x->time), ty = strlen(y->time);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    size_t lx, ly;
    const char *rx = series_rest(x, &lx), *ry = series_rest(y, &ly);
    int c = memcmp(rx, ry, lx < ly ? lx : ly);
    if (c || lx != ly)
        return c ? c : lx < ly ? -1 : 1;
    return (x->timestamp < y->timestamp) - (x->timestamp > y->timestamp);
}

static int same_series(const struct logfile *files, size_t a, size_t b)
{
    const struct logfile *x = &files[a], *y = &files[b];
    size_t lx, ly;
    const char *rx = series_rest(x, &lx), *ry = series_rest(y, &ly);
    return strlen(x->time) == strlen(y->time) && lx == ly && memcmp(rx, ry, lx) == 0;
}

void gendiff_pairs(const struct logfile *files, size_t n, time_t now, size_t *prev)
{
    size_t *order = calloc(n + 1, sizeof *order), m = 0;
    if (!order)
        abort();
    for (size_t i = 0; i < n; i++) {
        prev[i] = GENDIFF_NONE;
        if (files[i].time_from_name)
            order[m++] = i;
    }
    qsort_r(order, m, sizeof *order, by_series, (void *)files);
    for (size_t g = 0; g < m;) {
        size_t end = g + 1;
        while (end < m && same_series(files, order[g], order[end]))
            end++;
        /* The newest complete bucket of the series, and the one before it. */
        for (size_t k = g; k < end; k++) {
            const struct logfile *lf = &files[order[k]];
            int64_t step = bucket_seconds(lf);
            if (lf->timestamp + step > (int64_t)now)
                continue;   /* still filling */
            if (k + 1 < end && files[order[k + 1]].timestamp == lf->timestamp - step)
                prev[order[k]] = order[k + 1];
            break;
        }
        g = end;
    }
    free(order);
}

static int timespec_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static char *diff_name(const struct logfile *lf, int reversed)
{
    strbuf sb = STRBUF_INIT;
    gen_diff_graph_name(&sb, lf->name, reversed);
    return (char *)strbuf_cstr(&sb);
}

/* Both graphs are regular files at least as new as `mtime`. */
static int up_to_date(int pfd, const struct logfile *lf, const struct timespec *mtime)
{
    int ok = 1;
    for (int rev = 0; rev < 2 && ok; rev++) {
        char *name = diff_name(lf, rev);
        struct stat st;
        ok = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
             !timespec_before(&st.st_mtim, mtime);
        free(name);
    }
    return ok;
}

/* Reads one log into a side of dm; `newest` becomes the newer of itself
 * and the log's mtime as it was opened. */
static int read_side(const struct gen_config *cfg, int logs_pfd, const struct logfile *lf,
                     struct diffmerge *dm, enum diffmerge_side side, struct input_limit *limit,
                     struct timespec *newest, char *err, size_t errlen)
{
    struct stat st;
    int fd = datadir_open_regular(logs_pfd, lf->file, &st, err, errlen);
    if (fd < 0)
        return -1;
    if (timespec_before(newest, &st.st_mtim))
        *newest = st.st_mtim;
    strbuf shown = STRBUF_INIT;
    strbuf_appendf(&shown, "%s/%s/%s", cfg->logs_dir, lf->period, lf->file);
    int rc = diffmerge_read_fd(dm, side, fd, strbuf_cstr(&shown), limit, err, errlen);
    strbuf_free(&shown);
    close(fd);
    return rc;
}

static int add_to_flame(void *arg, const char *line, size_t len)
{
    flame_add_line(arg, line, len);
    return 0;
}

static int write_one(const struct gen_config *cfg, int pfd, const struct logfile *lf,
                     const struct logfile *before, const struct flame *f, int reversed,
                     unsigned long long cut_at, const struct timespec *mtime, strbuf *doc,
                     char *err, size_t errlen)
{
    strbuf title = STRBUF_INIT, label = STRBUF_INIT, subtitle = STRBUF_INIT;
    strbuf_appendf(&label, "diff vs %s (", gendiff_what(lf));
    for (const char *p = before->time; *p; p++)
        strbuf_appendc(&label, *p == '_' ? ' ' : *p);
    strbuf_appendc(&label, ')');
    struct gen_title_vars vars = {lf->period, lf->time, lf->name, lf->entrypoint,
                                  strbuf_cstr(&label), reversed, flame_total(f)};
    gen_title(&title, cfg->title, &vars);
    strbuf_appendf(&subtitle, "%s scaled to the same total: red grew, blue shrank",
                   before->name);
    struct svg_options o;
    svg_options_init(&o);
    o.title = strbuf_cstr(&title);
    o.subtitle = strbuf_cstr(&subtitle);
    o.font_type = cfg->font_type;
    o.font_size = cfg->font_size;
    o.min_width = cfg->min_width;
    o.width = (double)cfg->width;
    o.max_bytes = (size_t)cfg->max_svg_mb << 20;
    o.input_cut_at = cut_at;
    strbuf_reset(doc);
    svg_render(f, reversed ? FLAME_REVERSED : FLAME_FORWARD, &o, doc);
    char *name = diff_name(lf, reversed);
    int rc = atomic_writeat(pfd, name, doc->data, doc->len, ATOMIC_GZIP, (int)cfg->gzip_level,
                            mtime, err, errlen);
    free(name);
    strbuf_free(&title);
    strbuf_free(&label);
    strbuf_free(&subtitle);
    return rc;
}

int gendiff_draw(const struct gen_config *cfg, int logs_pfd, int pfd, const struct logfile *lf,
                 const struct logfile *before, int force, strbuf *doc, char *err,
                 size_t errlen)
{
    struct timespec newest = timespec_before(&lf->mtime, &before->mtime) ? before->mtime
                                                                          : lf->mtime;
    if (!force && up_to_date(pfd, lf, &newest))
        return 0;
    /* One max_memory_mb for the merge and the graph's tables together. */
    size_t half = ((size_t)cfg->max_memory_mb << 20) / 2;
    struct diffmerge *dm = diffmerge_new((size_t)cfg->max_stacks, half);
    struct input_limit limit[2] = {{(unsigned long long)cfg->max_log_read_mb << 20, 0},
                                   {(unsigned long long)cfg->max_log_read_mb << 20, 0}};
    newest = (struct timespec){0, 0};
    int rc = read_side(cfg, logs_pfd, before, dm, DIFFMERGE_BEFORE, &limit[0], &newest, err,
                       errlen);
    if (rc == 0)
        rc = read_side(cfg, logs_pfd, lf, dm, DIFFMERGE_AFTER, &limit[1], &newest, err, errlen);
    struct flame_budget budget = {half, 0};
    struct flame_limits lim = {(size_t)cfg->max_stacks, (size_t)cfg->max_frames, 0, &budget};
    struct flame *f = flame_new_limited(&lim);
    if (rc == 0) {
        diffmerge_emit(dm, 1, add_to_flame, f);
        flame_finish(f);
        unsigned long long cut = limit[0].reached || limit[1].reached ? limit[0].max_bytes : 0;
        /* The reversed graph first: the forward one marks the pair done. */
        for (int rev = 1; rev >= 0 && rc == 0; rev--)
            rc = write_one(cfg, pfd, lf, before, f, rev, cut, &newest, doc, err, errlen);
    }
    flame_free(f);
    diffmerge_free(dm);
    return rc < 0 ? -1 : 1;
}
