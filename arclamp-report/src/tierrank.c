/* tierrank: reading, ranking and trends of request-tier tables for their
 * pages (see tierrank.h). */
#include "tierrank.h"
#include "layout.h"
#include "log.h"
#include "tierline.h"
#include "tiertable.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Counts above 2^53 are not exact in a double; arclamp-log's counts stop
 * there (TIERLINE_COUNT_MAX, common/src/tierline.h). A table that says
 * more (an older arclamp-log summed up to 2^63-1) is read with such a
 * figure saturated at 2^53, as arclamp-log saturates today, and counted
 * (tier_table.capped): one status line must not cost the pages. */
#define TIERS_COUNT_MAX ((double)TIERLINE_COUNT_MAX)

/* A whole number >= 0 read as a count: at most TIERS_COUNT_MAX (counted in
 * *capped, when given, when it was more). */
static double count_capped(double d, size_t *capped)
{
    if (d > TIERS_COUNT_MAX) {
        if (capped)
            (*capped)++;
        return TIERS_COUNT_MAX;
    }
    return d;
}

/* ---- reading ------------------------------------------------------------ */

int tier_file_read(const char *path, size_t max_bytes, strbuf *out, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    const char *why = !S_ISREG(st.st_mode) ? "not a regular file"
                      : (uintmax_t)st.st_size > max_bytes ? "larger than the size cap"
                                                          : NULL;
    char chunk[65536];
    for (ssize_t n = 1; !why && n > 0;) {
        n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            n = 1;
        else if (n < 0)
            why = strerror(errno);
        else if (out->len + (size_t)n > max_bytes)
            why = "larger than the size cap"; /* it grew while read */
        else
            strbuf_append(out, chunk, (size_t)n);
    }
    close(fd);
    if (why)
        snprintf(err, errlen, "%s: %s (%zu bytes at most)", path, why, max_bytes);
    return why ? -1 : 0;
}

/* ---- the document's skeleton ------------------------------------------------
 * A table is an object (the figures, "identities") of objects (identities)
 * of objects (tiers) of numbers. json-c would hold the whole document as a
 * tree, some 30 times its size for many small identities; instead the
 * three levels of objects are walked here, in place, and json-c parses
 * only what they hold: one key or one tier's object at a time. */

struct span {
    const char *p;
    size_t n;
};

static int is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* What ends a scalar (a number, true, false, null). */
static int ends_scalar(char c)
{
    return is_ws(c) || c == ',' || c == ':' || c == '{' || c == '}' || c == '[' || c == ']' ||
           c == '"';
}

static size_t skip_ws(struct span s, size_t i)
{
    while (i < s.n && is_ws(s.p[i]))
        i++;
    return i;
}

/* The index after the string starting at s.p[i] ('"'); 0 when malformed
 * (json-c checks its escapes when it reads it). */
static size_t string_end(struct span s, size_t i)
{
    for (i++; i < s.n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        if (c == '"')
            return i + 1;
        if (c < 0x20)
            return 0;
        if (c == '\\')
            i++;
    }
    return 0;
}

/* The index after the value starting at s.p[i]; 0 when malformed. Nesting
 * is counted, not recursed into: json-c's depth limit applies when the
 * value is read. */
static size_t value_end(struct span s, size_t i)
{
    size_t depth = 0;
    do {
        if (i >= s.n)
            return 0;
        char c = s.p[i];
        if (c == '"') {
            if (!(i = string_end(s, i)))
                return 0;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && depth-- == 0)
            return 0;
        else if (!depth && !ends_scalar(c)) { /* a scalar */
            while (i < s.n && !ends_scalar(s.p[i]))
                i++;
            return i;
        }
        i++;
    } while (depth);
    return i;
}

/* Walks the members of an object. */
struct members {
    struct span s;
    size_t i;
    int first;
};

/* Starts at the object s begins with (after white space); -1 when it is
 * not one. */
static int members_open(struct members *m, struct span s)
{
    m->s = s;
    m->i = skip_ws(s, 0);
    m->first = 1;
    if (m->i >= s.n || s.p[m->i] != '{')
        return -1;
    m->i++;
    return 0;
}

/* The next member's key (the string with its quotes) and value: 1; 0 at
 * the end of the object (m->i then after it); -1 when malformed. */
static int members_next(struct members *m, struct span *key, struct span *val)
{
    size_t i = skip_ws(m->s, m->i), e;
    if (i < m->s.n && m->s.p[i] == '}') {
        m->i = i + 1;
        return 0;
    }
    if (!m->first && (i >= m->s.n || m->s.p[i++] != ','))
        return -1;
    i = skip_ws(m->s, i);
    if (i >= m->s.n || m->s.p[i] != '"' || !(e = string_end(m->s, i)))
        return -1;
    *key = (struct span){m->s.p + i, e - i};
    i = skip_ws(m->s, e);
    if (i >= m->s.n || m->s.p[i++] != ':')
        return -1;
    i = skip_ws(m->s, i);
    if (!(e = value_end(m->s, i)))
        return -1;
    *val = (struct span){m->s.p + i, e - i};
    m->i = e;
    m->first = 0;
    return 1;
}

/* json-c's reading of one value (all of its bytes), or NULL. */
static json_object *leaf(struct span v)
{
    if (v.n > (size_t)INT32_MAX)
        return NULL;
    struct json_tokener *tok = json_tokener_new_ex(2); /* a tier: an object of scalars */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);  /* no trailing commas and such */
    json_object *o = json_tokener_parse_ex(tok, v.p, (int)v.n);
    size_t end = json_tokener_get_parse_end(tok);
    /* a number needs a byte after it to end: the value's bytes were all
     * read, a space ends it */
    if (!o && json_tokener_get_error(tok) == json_tokener_continue) {
        o = json_tokener_parse_ex(tok, " ", 1);
        end = v.n;
    }
    if (o && (json_tokener_get_error(tok) != json_tokener_success || end != v.n)) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

/* A key's text, malloc'd (up to a NUL it may encode); NULL when its
 * escapes are malformed. */
static char *key_text(struct span k)
{
    if (!memchr(k.p, '\\', k.n))
        return xstrndup(k.p + 1, k.n - 2);
    json_object *o = leaf(k);
    char *text = o ? xstrdup(json_object_get_string(o)) : NULL;
    json_object_put(o);
    return text;
}

/* The members of `obj` (an object) as an array; -1 when it is no object
 * or is malformed. */
static int member_list(struct span obj, struct span **keys, struct span **vals, size_t *n)
{
    struct members m;
    struct span k, v;
    size_t cap = 0;
    int r;
    *keys = *vals = NULL;
    *n = 0;
    if (members_open(&m, obj) < 0)
        return -1;
    while ((r = members_next(&m, &k, &v)) > 0) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *keys = xrealloc(*keys, cap * sizeof **keys);
            *vals = xrealloc(*vals, cap * sizeof **vals);
        }
        (*keys)[*n] = k;
        (*vals)[(*n)++] = v;
    }
    return r;
}

/* A number >= 0 (a whole one when `whole`: a count, capped at 2^53) of a
 * json-c object's member; NaN when it is missing or anything else. */
static double number(json_object *o, const char *key, int whole, size_t *capped)
{
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        return NAN;
    double d = json_object_get_double(v);
    if (!(d >= 0) || !isfinite(d) || (whole && d != floor(d)))
        return NAN;
    return whole ? count_capped(d, capped) : d;
}

/* "identity "x", tier "y"" for messages: untrusted text quoted. */
static void where(char *out, size_t outlen, const char *identity, const char *tier)
{
    char qi[4 * 64 + 4], qt[4 * 64 + 4];
    log_quote(qi, identity, strlen(identity), 64);
    if (tier) {
        log_quote(qt, tier, strlen(tier), 64);
        snprintf(out, outlen, "identity \"%s\", tier \"%s\"", qi, qt);
    } else {
        snprintf(out, outlen, "identity \"%s\"", qi);
    }
}

/* ---- the top level -------------------------------------------------------- */

static const char *const figure_names[] = {"start", "end", "minutes", "requests", "traced",
                                           "trips", "resumes", "skipped"};
#define NFIGURES (sizeof figure_names / sizeof figure_names[0])

/* The figures (NaN: not seen) and the identities' object of a document;
 * -1 with err set when it is no table of our format. */
static int read_top(struct span doc, double *fig, struct span *ids, char *err, size_t errlen)
{
    struct members m;
    struct span k, v;
    int r, format = 0;
    ids->p = NULL;
    for (size_t i = 0; i < NFIGURES; i++)
        fig[i] = NAN;
    if (members_open(&m, doc) < 0) {
        snprintf(err, errlen, "not a table of format \"%s\" (no object)", LAYOUT_TIERS_JSON_FORMAT);
        return -1;
    }
    while ((r = members_next(&m, &k, &v)) > 0) {
        char *name = key_text(k);
        json_object *o = name && strcmp(name, "identities") != 0 ? leaf(v) : NULL;
        if (name && strcmp(name, "identities") == 0)
            *ids = v;
        else if (name && strcmp(name, "format") == 0)
            format = json_object_is_type(o, json_type_string) &&
                     strcmp(json_object_get_string(o), LAYOUT_TIERS_JSON_FORMAT) == 0;
        for (size_t i = 0; name && i < NFIGURES; i++) {
            if (strcmp(name, figure_names[i]) == 0 && o)
                fig[i] = json_object_is_type(o, json_type_int) ||
                                 json_object_is_type(o, json_type_double)
                             ? json_object_get_double(o) : NAN;
        }
        r = name && (o || v.p == ids->p) ? r : -1;
        json_object_put(o);
        free(name);
        if (r < 0)
            break;
    }
    if (r == 0 && skip_ws(doc, m.i) != doc.n)
        r = -1;
    if (r < 0) {
        snprintf(err, errlen, "not JSON: malformed near byte %zu", m.i);
        return -1;
    }
    if (!format) {
        snprintf(err, errlen, "not a table of format \"%s\"", LAYOUT_TIERS_JSON_FORMAT);
        return -1;
    }
    if (!ids->p || members_open(&m, *ids) < 0) {
        snprintf(err, errlen, "\"identities\" is missing or not an object");
        return -1;
    }
    return 0;
}

static int read_figures(struct tier_table *t, const double *v, char *err, size_t errlen)
{
    for (size_t i = 0; i < NFIGURES; i++) {
        if (!(v[i] >= 0) || !isfinite(v[i]) || v[i] != floor(v[i])) {
            snprintf(err, errlen, "\"%s\" is missing or not a whole number >= 0",
                     figure_names[i]);
            return -1;
        }
    }
    double fig[NFIGURES];
    for (size_t i = 0; i < NFIGURES; i++)
        fig[i] = count_capped(v[i], &t->capped);
    v = fig;
    t->start = (int64_t)v[0];
    t->end = (int64_t)v[1];
    t->minutes = (uint64_t)v[2];
    t->requests = (uint64_t)v[3];
    t->traced = (uint64_t)v[4];
    t->trips = (uint64_t)v[5];
    t->resumes = (uint64_t)v[6];
    t->skipped = (uint64_t)v[7];
    return 0;
}

/* ---- identities and tiers ---------------------------------------------- */

static const char *const tier_fields[] = {"calls", "total_us", "mean_us", "p50_us", "p90_us",
                                          "p99_us"};
#define NFIELDS (sizeof tier_fields / sizeof tier_fields[0])

/* Reads one tier's object into v (in tier_fields' order). */
static int read_tier(struct span val, const char *identity, const char *tier, double *v,
                     size_t *capped, char *err, size_t errlen)
{
    char at[600];
    json_object *o = leaf(val);
    int rc = 0;
    where(at, sizeof at, identity, tier);
    if (!json_object_is_type(o, json_type_object)) {
        snprintf(err, errlen, "%s: not an object of numbers", at);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < NFIELDS; i++) {
        v[i] = number(o, tier_fields[i], i == 0, capped);
        if (isnan(v[i])) {
            snprintf(err, errlen, "%s: \"%s\" is missing or not a %snumber >= 0", at,
                     tier_fields[i], i == 0 ? "whole " : "");
            rc = -1;
        }
    }
    json_object_put(o);
    return rc;
}

/* An identity or a tier found, before the caps. */
struct cand {
    char *name;                /* decoded, malloc'd */
    struct span val;
    double v[NFIELDS];         /* a tier's numbers; an identity: v[1] its _total's time */
};

static int by_total(const void *x, const void *y)
{
    const struct cand *a = x, *b = y;
    int at = strcmp(a->name, TIERLINE_TOTAL) == 0, bt = strcmp(b->name, TIERLINE_TOTAL) == 0;
    if (at != bt)
        return bt - at;
    if (a->v[1] != b->v[1])
        return a->v[1] < b->v[1] ? 1 : -1;
    return strcmp(a->name, b->name);
}

static void cands_free(struct cand *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(c[i].name);
    free(c);
}

/* Reads every tier of an identity into *out (n of them). */
static int read_tiers(const char *identity, struct span val, struct cand **out, size_t *n,
                      size_t *capped, char *err, size_t errlen)
{
    struct span *keys, *vals;
    char at[600];
    int rc = member_list(val, &keys, &vals, n);
    *out = xcalloc(*n ? *n : 1, sizeof **out);
    if (rc < 0) {
        where(at, sizeof at, identity, NULL);
        snprintf(err, errlen, "%s: not an object of tiers", at);
    }
    for (size_t i = 0; rc == 0 && i < *n; i++) {
        (*out)[i].name = key_text(keys[i]);
        (*out)[i].val = vals[i];
        if (!(*out)[i].name) {
            where(at, sizeof at, identity, NULL);
            snprintf(err, errlen, "%s: a tier's name is malformed", at);
            rc = -1;
        } else {
            rc = read_tier(vals[i], identity, (*out)[i].name, (*out)[i].v, capped, err,
                           errlen);
        }
    }
    free(keys);
    free(vals);
    return rc;
}

static void point_unknown(struct tier_point *p)
{
    p->mean_us = p->p90_us = p->share = NAN;
}

/* The identity's rows: its heaviest tiers, _total first. */
static void fill_rows(struct tier_ranked_identity *id, struct cand *c, size_t n, size_t max_tiers)
{
    qsort(c, n, sizeof *c, by_total);
    id->nrows = n < max_tiers ? n : max_tiers;
    id->rows_left_out = n - id->nrows;
    id->rows = xcalloc(id->nrows ? id->nrows : 1, sizeof *id->rows);
    for (size_t i = 0; i < id->nrows; i++) {
        struct tier_row *r = &id->rows[i];
        r->name = c[i].name;
        c[i].name = NULL;
        r->calls = c[i].v[0];
        r->total_us = c[i].v[1];
        r->mean_us = c[i].v[2];
        r->p50_us = c[i].v[3];
        r->p90_us = c[i].v[4];
        r->p99_us = c[i].v[5];
        r->share = id->total_us > 0 ? r->total_us / id->total_us : NAN;
        for (unsigned s = 0; s < TIERS_SLOTS; s++)
            point_unknown(&r->trend[s]);
        r->trend[TIERS_TREND] = (struct tier_point){r->mean_us, r->p90_us, r->share};
    }
}

/* The _total's time among an identity's tiers (0 without). */
static double total_of(const struct cand *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(c[i].name, TIERLINE_TOTAL) == 0)
            return c[i].v[1];
    }
    return 0;
}

/* Checks every identity (one's tiers in memory at a time), keeps the
 * heaviest, then reads their tiers again for their rows. */
static int read_identities(struct tier_table *t, struct span ids, size_t max_ids,
                           size_t max_tiers, char *err, size_t errlen)
{
    struct span *keys, *vals;
    size_t n, nt;
    int rc = member_list(ids, &keys, &vals, &n);
    struct cand *c = xcalloc(n ? n : 1, sizeof *c), *tiers;
    if (rc < 0)
        snprintf(err, errlen, "\"identities\": not JSON (malformed)");
    for (size_t i = 0; rc == 0 && i < n; i++) {
        c[i].val = vals[i];
        if (!(c[i].name = key_text(keys[i]))) {
            snprintf(err, errlen, "an identity's name is malformed");
            rc = -1;
            break;
        }
        rc = read_tiers(c[i].name, vals[i], &tiers, &nt, &t->capped, err, errlen);
        c[i].v[1] = rc == 0 ? total_of(tiers, nt) : 0;
        t->all_us += c[i].v[1];
        cands_free(tiers, nt);
    }
    if (rc == 0) {
        qsort(c, n, sizeof *c, by_total);
        t->nids = n < max_ids ? n : max_ids;
        t->ids_left_out = n - t->nids;
        for (size_t i = t->nids; i < n; i++)
            t->left_out_us += c[i].v[1];
        t->ids = xcalloc(t->nids ? t->nids : 1, sizeof *t->ids);
        for (size_t i = 0; i < t->nids; i++) {
            t->ids[i].name = c[i].name;
            c[i].name = NULL;
            t->ids[i].total_us = c[i].v[1];
            read_tiers(t->ids[i].name, c[i].val, &tiers, &nt, NULL, err, errlen); /* checked */
            fill_rows(&t->ids[i], tiers, nt, max_tiers);
            cands_free(tiers, nt);
        }
    }
    cands_free(c, n);
    free(keys);
    free(vals);
    return rc;
}

int tier_table_parse(struct tier_table *t, const char *buf, size_t len, size_t max_ids,
                     size_t max_tiers, char *err, size_t errlen)
{
    double fig[NFIGURES];
    struct span ids;
    memset(t, 0, sizeof *t);
    int rc = read_top((struct span){buf, len}, fig, &ids, err, errlen);
    if (rc == 0)
        rc = read_figures(t, fig, err, errlen);
    if (rc == 0)
        rc = read_identities(t, ids, max_ids ? max_ids : 1, max_tiers ? max_tiers : 1, err,
                             errlen);
    return rc;
}

/* ---- trend -------------------------------------------------------------- */

static int by_name(const void *x, const void *y)
{
    const struct tier_ranked_identity *const *a = x, *const *b = y;
    return strcmp((*a)->name, (*b)->name);
}

/* Fills slot `slot` of an identity's rows from its tiers in another
 * bucket; a tier that is malformed there is a gap. */
static void trend_identity(struct tier_ranked_identity *id, unsigned slot, struct span val)
{
    struct members m;
    struct span k, v;
    double all = NAN;
    if (members_open(&m, val) < 0)
        return;
    while (members_next(&m, &k, &v) > 0) {
        char *name = key_text(k), err[8];
        double f[NFIELDS];
        size_t r = 0;
        while (name && r < id->nrows && strcmp(id->rows[r].name, name) != 0)
            r++;
        int total = name && strcmp(name, TIERLINE_TOTAL) == 0;
        /* only the rows kept (and _total) are read: the others may be many */
        if ((r < id->nrows || total) && read_tier(v, id->name, name, f, NULL, err, sizeof err) == 0) {
            if (total)
                all = f[1];
            if (r < id->nrows)
                id->rows[r].trend[slot] = (struct tier_point){f[2], f[4], f[1]};
        }
        free(name);
    }
    /* share: the total time kept in .share until the _total is known */
    for (size_t r = 0; r < id->nrows; r++) {
        struct tier_point *p = &id->rows[r].trend[slot];
        p->share = all > 0 && !isnan(p->share) ? p->share / all : NAN;
    }
}

int tier_table_trend(struct tier_table *t, unsigned slot, const char *buf, size_t len,
                     char *err, size_t errlen)
{
    if (slot >= TIERS_TREND)
        return -1;
    double fig[NFIGURES];
    struct span ids;
    if (read_top((struct span){buf, len}, fig, &ids, err, errlen) < 0)
        return -1;
    /* the kept identities by name: the other table may have many more */
    struct tier_ranked_identity **byname = xcalloc(t->nids ? t->nids : 1, sizeof *byname);
    for (size_t i = 0; i < t->nids; i++)
        byname[i] = &t->ids[i];
    qsort(byname, t->nids, sizeof *byname, by_name);
    struct members m;
    struct span k, v;
    members_open(&m, ids);
    while (members_next(&m, &k, &v) > 0) {
        struct tier_ranked_identity key = {.name = key_text(k)}, *kp = &key, **id = NULL;
        if (key.name)
            id = bsearch(&kp, byname, t->nids, sizeof *byname, by_name);
        if (id)
            trend_identity(*id, slot, v);
        free(key.name);
    }
    free(byname);
    return 0;
}

void tier_table_free(struct tier_table *t)
{
    for (size_t i = 0; i < t->nids; i++) {
        for (size_t r = 0; r < t->ids[i].nrows; r++)
            free(t->ids[i].rows[r].name);
        free(t->ids[i].rows);
        free(t->ids[i].name);
    }
    free(t->ids);
    memset(t, 0, sizeof *t);
}
