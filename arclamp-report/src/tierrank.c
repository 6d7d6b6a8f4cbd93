/* tierrank: reading, ranking and trends of request-tier tables for their
 * pages (see tierrank.h). */
#include "tierrank.h"
#include "bucket.h"
#include "tierline.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading ------------------------------------------------------------ */

/* A file being read: its table, and the minutes its lines cover. */
struct reading {
    struct tiertable *table;
    struct tier_file *info;
    const char *format;
    int spanned;                 /* start and end are known (the first line's bucket) */
    unsigned char *seen;         /* a bit per minute of [start, end) */
    size_t nminutes;
};

/* As arclamp-log counts a bucket's minutes: the distinct STARTs of its
 * lines within the bucket. */
static void mark_minute(struct reading *r, int64_t start)
{
    struct tier_file *f = r->info;
    if (!r->spanned) {
        time_t s, e;
        r->spanned = 1;
        if (bucket_span(r->format, (time_t)start, &s, &e) < 0)
            s = e = (time_t)start;
        f->start = s;
        f->end = e;
        r->nminutes = (size_t)((e - s + 59) / 60);
        r->seen = xcalloc(r->nminutes / 8 + 1, 1);
    }
    if (start < f->start || start >= f->end)
        return;
    size_t i = (size_t)(start - f->start) / 60;
    if (i >= r->nminutes || (r->seen[i / 8] & (1u << (i % 8))))
        return;
    r->seen[i / 8] |= (unsigned char)(1u << (i % 8));
    f->minutes++;
}

static void add_line(void *arg, const struct tierline *tl)
{
    struct reading *r = arg;
    tiertable_add_line(r->table, tl, &r->info->drops);
    mark_minute(r, tl->start);
}

int tier_file_read(const char *path, const char *format, struct tiertable *table,
                   struct tier_file *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    /* O_NONBLOCK: a FIFO planted there must not hang the job */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    struct reading r = {table, info, format, 0, NULL, 0};
    long long bad = tiertable_read_fd(fd, add_line, &r);
    if (bad < 0)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    else
        info->bad_lines = (uint64_t)bad;
    free(r.seen);
    close(fd);
    return bad < 0 ? -1 : 0;
}

/* ---- ranking ------------------------------------------------------------ */

/* An identity or a tier found, before the caps. */
struct cand {
    char *name;                  /* decoded, malloc'd */
    const struct tier_identity *id; /* an identity's (NULL for a tier) */
    const struct tier_cell *cell;   /* a tier's */
    double total_us;             /* a tier's total; an identity's _total's (0 without) */
};

/* _total first, then by total time, most first; then by name. */
static int by_total(const void *x, const void *y)
{
    const struct cand *a = x, *b = y;
    int at = strcmp(a->name, TIERLINE_TOTAL) == 0, bt = strcmp(b->name, TIERLINE_TOTAL) == 0;
    if (at != bt)
        return bt - at;
    if (a->total_us != b->total_us)
        return a->total_us < b->total_us ? 1 : -1;
    return strcmp(a->name, b->name);
}

static void cands_free(struct cand *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].name);
    free(c);
}

/* The identity decoded: the text its page shows. */
static char *decoded_name(const struct tier_identity *id)
{
    char *s = xmalloc(id->name_len + 1);
    s[tierline_unescape(id->name, id->name_len, s)] = '\0';
    return s;
}

static double total_us_of(const struct tier_identity *id)
{
    const struct tier_cell *c = tier_identity_cell(id, TIERLINE_TOTAL);
    return c ? (double)c->total_ns / 1e3 : 0;
}

static void point_unknown(struct tier_point *p)
{
    p->mean_us = p->p90_us = p->share = NAN;
}

/* The identity's rows: its heaviest tiers, _total first. */
static void fill_rows(struct tier_ranked_identity *rid, const struct tier_identity *id,
                      size_t max_tiers)
{
    struct cand *c = xcalloc(id->ncells ? id->ncells : 1, sizeof *c);
    for (size_t i = 0; i < id->ncells; i++)
        c[i] = (struct cand){xstrdup(id->cells[i].tier), NULL, &id->cells[i],
                             (double)id->cells[i].total_ns / 1e3};
    qsort(c, id->ncells, sizeof *c, by_total);
    rid->nrows = id->ncells < max_tiers ? id->ncells : max_tiers;
    rid->rows_left_out = id->ncells - rid->nrows;
    rid->rows = xcalloc(rid->nrows ? rid->nrows : 1, sizeof *rid->rows);
    for (size_t i = 0; i < rid->nrows; i++) {
        struct tier_row *r = &rid->rows[i];
        struct tier_cell_us us;
        tier_cell_us(c[i].cell, &us);
        r->name = c[i].name;
        c[i].name = NULL;
        r->calls = (double)c[i].cell->calls;
        r->total_us = us.total;
        r->mean_us = us.mean;
        r->p50_us = us.p50;
        r->p90_us = us.p90;
        r->p99_us = us.p99;
        r->share = rid->total_us > 0 ? r->total_us / rid->total_us : NAN;
        for (unsigned s = 0; s < TIERS_SLOTS; s++)
            point_unknown(&r->trend[s]);
        r->trend[TIERS_TREND] = (struct tier_point){r->mean_us, r->p90_us, r->share};
    }
    cands_free(c, id->ncells);
}

void tier_table_rank(struct tier_table *t, const struct tiertable *table,
                     const struct tier_file *info, size_t max_ids, size_t max_tiers)
{
    const struct tier_status *s = &table->status;
    memset(t, 0, sizeof *t);
    *t = (struct tier_table){.start = info->start, .end = info->end, .minutes = info->minutes,
                             .requests = s->requests, .traced = s->traced, .trips = s->trips,
                             .resumes = s->resumes, .skipped = s->skipped,
                             .bad_lines = info->bad_lines, .drops = info->drops};
    max_ids = max_ids ? max_ids : 1;
    max_tiers = max_tiers ? max_tiers : 1;
    /* summed in the views' order: the same double as a reader of the JSON */
    const struct tier_identity **ids = tiertable_sorted_identities(table);
    size_t n = table->nids;
    struct cand *c = xcalloc(n ? n : 1, sizeof *c);
    for (size_t i = 0; i < n; i++) {
        c[i] = (struct cand){decoded_name(ids[i]), ids[i], NULL, total_us_of(ids[i])};
        t->all_us += c[i].total_us;
    }
    free(ids);
    qsort(c, n, sizeof *c, by_total);
    t->nids = n < max_ids ? n : max_ids;
    t->ids_left_out = n - t->nids;
    for (size_t i = t->nids; i < n; i++)
        t->left_out_us += c[i].total_us;
    t->ids = xcalloc(t->nids ? t->nids : 1, sizeof *t->ids);
    for (size_t i = 0; i < t->nids; i++) {
        struct tier_ranked_identity *rid = &t->ids[i];
        rid->name = c[i].name;
        c[i].name = NULL;
        rid->wire = xstrndup(c[i].id->name, c[i].id->name_len);
        rid->wire_len = c[i].id->name_len;
        rid->total_us = c[i].total_us;
        fill_rows(rid, c[i].id, max_tiers);
    }
    cands_free(c, n);
}

/* ---- trend -------------------------------------------------------------- */

/* "IDENTITY TIER": a space is never in an escaped identity. */
static char *point_key(const char *wire, size_t wire_len, const char *tier)
{
    size_t tlen = strlen(tier);
    char *key = xmalloc(wire_len + 1 + tlen + 1);
    memcpy(key, wire, wire_len);
    key[wire_len] = ' ';
    memcpy(key + wire_len + 1, tier, tlen + 1);
    return key;
}

static int by_key(const void *x, const void *y)
{
    const struct tier_point_entry *a = x, *b = y;
    return strcmp(a->key, b->key);
}

void tier_points_of(struct tier_points *p, const struct tiertable *table)
{
    size_t n = 0;
    for (size_t i = 0; i < table->nids; i++)
        n += table->ids[i]->ncells;
    p->v = xcalloc(n ? n : 1, sizeof *p->v);
    p->n = 0;
    for (size_t i = 0; i < table->nids; i++) {
        const struct tier_identity *id = table->ids[i];
        const struct tier_cell *total = tier_identity_cell(id, TIERLINE_TOTAL);
        double all = total ? (double)total->total_ns / 1e3 : NAN;
        for (size_t c = 0; c < id->ncells; c++) {
            struct tier_cell_us us;
            tier_cell_us(&id->cells[c], &us);
            p->v[p->n++] = (struct tier_point_entry){
                point_key(id->name, id->name_len, id->cells[c].tier),
                {us.mean, us.p90, all > 0 ? us.total / all : NAN}};
        }
    }
    qsort(p->v, p->n, sizeof *p->v, by_key);
}

void tier_points_free(struct tier_points *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].key);
    free(p->v);
    memset(p, 0, sizeof *p);
}

int tier_table_trend(struct tier_table *t, unsigned slot, const struct tier_points *other)
{
    if (slot >= TIERS_TREND)
        return -1;
    for (size_t i = 0; i < t->nids; i++) {
        struct tier_ranked_identity *rid = &t->ids[i];
        for (size_t r = 0; r < rid->nrows; r++) {
            struct tier_point_entry key = {point_key(rid->wire, rid->wire_len,
                                                     rid->rows[r].name), {0, 0, 0}};
            const struct tier_point_entry *e = bsearch(&key, other->v, other->n,
                                                       sizeof *other->v, by_key);
            if (e)
                rid->rows[r].trend[slot] = e->point;
            free(key.key);
        }
    }
    return 0;
}

void tier_table_free(struct tier_table *t)
{
    for (size_t i = 0; i < t->nids; i++) {
        for (size_t r = 0; r < t->ids[i].nrows; r++)
            free(t->ids[i].rows[r].name);
        free(t->ids[i].rows);
        free(t->ids[i].name);
        free(t->ids[i].wire);
    }
    free(t->ids);
    memset(t, 0, sizeof *t);
}
