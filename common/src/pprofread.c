/* pprofread: the reader half of pprof.h, a strict decoder of the Profile
 * message, used by the tests to check what pprof.c writes (and kept beside
 * it so both halves of the format live in one place).
 *
 * A cursor walks the bytes; every varint is at most ten bytes, every length
 * is checked against what is left before it is used, and fields this
 * reader does not know are skipped by their wire type, as protobuf
 * requires. Repeated numbers are accepted packed or not. */
#include "pprof.h"
#include "vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

struct cursor {
    const unsigned char *p, *end;
    char *err;
    size_t errlen;
};

static int fail(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cursor *c, const char *fmt, ...)
{
    if (c->err[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err, c->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int get_varint(struct cursor *c, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end)
            return fail(c, "varint cut short");
        unsigned char b = *c->p++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return fail(c, "varint longer than 10 bytes");
}

/* A length-delimited field's bytes as a cursor of their own. */
static int get_sub(struct cursor *c, struct cursor *sub)
{
    uint64_t len;
    if (get_varint(c, &len) < 0)
        return -1;
    if (len > (uint64_t)(c->end - c->p))
        return fail(c, "length %llu past the end", (unsigned long long)len);
    *sub = (struct cursor){c->p, c->p + len, c->err, c->errlen};
    c->p += len;
    return 0;
}

static int skip(struct cursor *c, unsigned wire)
{
    uint64_t v;
    struct cursor sub;
    size_t n = wire == WIRE_I64 ? 8 : 4;
    switch (wire) {
    case WIRE_VARINT: return get_varint(c, &v);
    case WIRE_LEN: return get_sub(c, &sub);
    case WIRE_I64:
    case WIRE_I32:
        if ((size_t)(c->end - c->p) < n)
            return fail(c, "fixed field cut short");
        c->p += n;
        return 0;
    default: return fail(c, "unknown wire type %u", wire);
    }
}

/* The next field's number and wire type; 0 at the end, 1 for a field, -1. */
static int next_field(struct cursor *c, unsigned *field, unsigned *wire)
{
    if (c->p == c->end)
        return 0;
    uint64_t key;
    if (get_varint(c, &key) < 0)
        return -1;
    if ((key >> 3) == 0 || (key >> 3) > UINT32_MAX)
        return fail(c, "field number %llu", (unsigned long long)(key >> 3));
    *field = (unsigned)(key >> 3);
    *wire = (unsigned)(key & 7);
    return 1;
}

/* A number field that must have wire type varint. */
static int get_number(struct cursor *c, unsigned wire, uint64_t *v)
{
    if (wire != WIRE_VARINT)
        return fail(c, "number with wire type %u", wire);
    return get_varint(c, v);
}

/* A growing array of uint64 (location ids; values are stored the same way). */
struct u64s {
    uint64_t *v;
    size_t n, cap;
};

/* One repeated number, packed (wire type 2) or not. */
static int get_repeated(struct cursor *c, unsigned wire, struct u64s *out)
{
    uint64_t v;
    if (wire == WIRE_VARINT) {
        if (get_varint(c, &v) < 0)
            return -1;
        VEC_RESERVE(out->v, out->cap, out->n + 1, 8);
        out->v[out->n++] = v;
        return 0;
    }
    struct cursor sub;
    if (wire != WIRE_LEN || get_sub(c, &sub) < 0)
        return fail(c, "repeated number with wire type %u", wire);
    while (sub.p < sub.end) {
        if (get_varint(&sub, &v) < 0)
            return -1;
        VEC_RESERVE(out->v, out->cap, out->n + 1, 8);
        out->v[out->n++] = v;
    }
    return 0;
}

/* --- messages ------------------------------------------------------------- */

/* A message of numbers only (ValueType, Label, Line: what the readers
 * need of them): field f (1..n) into out[f - 1], the others skipped. */
static int read_numbers(struct cursor *c, uint64_t *out, unsigned n)
{
    unsigned field = 0, wire = 0;
    int rc;
    while ((rc = next_field(c, &field, &wire)) > 0) {
        if (field >= 1 && field <= n) {
            if (get_number(c, wire, &out[field - 1]) < 0)
                return -1;
        } else if (skip(c, wire) < 0) {
            return -1;
        }
    }
    return rc;
}

static int read_value_type(struct cursor *c, struct pprof_value_type *vt)
{
    uint64_t f[2] = {(uint64_t)vt->type, (uint64_t)vt->unit};
    int rc = read_numbers(c, f, 2);
    vt->type = (int64_t)f[0];
    vt->unit = (int64_t)f[1];
    return rc;
}

static int read_label(struct cursor *c, struct pprof_label *l)
{
    uint64_t f[2] = {l->key, l->str};
    int rc = read_numbers(c, f, 2);
    l->key = f[0];
    l->str = f[1];
    return rc;
}

static int read_line(struct cursor *c, uint64_t *function_id)
{
    return read_numbers(c, function_id, 1);
}

static int read_sample(struct cursor *c, struct pprof_read_sample *s)
{
    unsigned field = 0, wire = 0;
    int rc;
    struct u64s locs = {NULL, 0, 0}, vals = {NULL, 0, 0};
    size_t labels_cap = 0;
    while ((rc = next_field(c, &field, &wire)) > 0) {
        if (field == 1)
            rc = get_repeated(c, wire, &locs);
        else if (field == 2)
            rc = get_repeated(c, wire, &vals);
        else if (field == 3) {
            struct cursor sub;
            struct pprof_label l = {0, 0};
            rc = wire == WIRE_LEN ? get_sub(c, &sub) : fail(c, "label not a message");
            if (rc == 0 && (rc = read_label(&sub, &l)) == 0) {
                VEC_RESERVE(s->labels, labels_cap, s->nlabels + 1, 4);
                s->labels[s->nlabels++] = l;
            }
        } else
            rc = skip(c, wire);
        if (rc < 0)
            break;
    }
    s->locations = locs.v;
    s->nlocations = locs.n;
    s->values = (int64_t *)vals.v;   /* int64 values are their uint64 varints */
    s->nvalues = vals.n;
    return rc;
}

static int read_location(struct cursor *c, struct pprof_read_location *l)
{
    unsigned field = 0, wire = 0;
    int rc;
    while ((rc = next_field(c, &field, &wire)) > 0) {
        if (field == 1) {
            rc = get_number(c, wire, &l->id);
        } else if (field == 4) {
            struct cursor sub;
            uint64_t fid = 0;
            rc = wire == WIRE_LEN ? get_sub(c, &sub) : fail(c, "line not a message");
            if (rc == 0 && (rc = read_line(&sub, &fid)) == 0 && l->nlines++ == 0)
                l->function_id = fid;
        } else {
            rc = skip(c, wire);
        }
        if (rc < 0)
            return -1;
    }
    return rc;
}

static int read_function(struct cursor *c, struct pprof_read_function *f)
{
    unsigned field = 0, wire = 0;
    int rc;
    uint64_t v;
    while ((rc = next_field(c, &field, &wire)) > 0) {
        if (field >= 1 && field <= 4) {
            if (get_number(c, wire, &v) < 0)
                return -1;
            if (field == 1)
                f->id = v;
            else
                *(field == 2 ? &f->name : field == 3 ? &f->system_name : &f->filename) =
                    (int64_t)v;
        } else if (skip(c, wire) < 0) {
            return -1;
        }
    }
    return rc;
}

/* --- the profile ---------------------------------------------------------- */

struct caps {
    size_t sample_types, samples, locations, functions, strings;
};

/* One top-level field of the Profile. */
static int read_profile_field(struct cursor *c, unsigned field, unsigned wire,
                              struct pprof_profile *p, struct caps *cap)
{
    struct cursor sub;
    uint64_t v;
    if (field == 12)
        return get_number(c, wire, &v) < 0 ? -1 : (p->period = (int64_t)v, 0);
    if (field < 1 || field > 11 || field == 3 || field == 7 || field == 8 || field == 9 ||
        field == 10)
        return skip(c, wire);
    if (wire != WIRE_LEN)
        return fail(c, "field %u with wire type %u", field, wire);
    if (get_sub(c, &sub) < 0)
        return -1;
    switch (field) {
    case 1:
        VEC_RESERVE(p->sample_types, cap->sample_types, p->nsample_types + 1, 4);
        p->sample_types[p->nsample_types] = (struct pprof_value_type){0, 0};
        return read_value_type(&sub, &p->sample_types[p->nsample_types++]);
    case 2:
        VEC_RESERVE(p->samples, cap->samples, p->nsamples + 1, 64);
        memset(&p->samples[p->nsamples], 0, sizeof *p->samples);
        return read_sample(&sub, &p->samples[p->nsamples++]);
    case 4:
        VEC_RESERVE(p->locations, cap->locations, p->nlocations + 1, 64);
        memset(&p->locations[p->nlocations], 0, sizeof *p->locations);
        return read_location(&sub, &p->locations[p->nlocations++]);
    case 5:
        VEC_RESERVE(p->functions, cap->functions, p->nfunctions + 1, 64);
        memset(&p->functions[p->nfunctions], 0, sizeof *p->functions);
        return read_function(&sub, &p->functions[p->nfunctions++]);
    case 6: {
        /* the bytes as they are (a NUL among them included), NUL-terminated */
        size_t n = (size_t)(sub.end - sub.p);
        char *copy = xmalloc(n + 1);
        if (n)
            memcpy(copy, sub.p, n);
        copy[n] = '\0';
        VEC_RESERVE(p->strings, cap->strings, p->nstrings + 1, 64);
        p->strings[p->nstrings++] = (struct pprof_read_string){copy, n};
        return 0;
    }
    case 11:
        return read_value_type(&sub, &p->period_type);
    default:
        return 0;
    }
}

int pprof_decode(const void *data, size_t len, struct pprof_profile *p, char *err,
                 size_t errlen)
{
    memset(p, 0, sizeof *p);
    err[0] = '\0';
    struct cursor c = {data, (const unsigned char *)data + len, err, errlen};
    struct caps cap = {0, 0, 0, 0, 0};
    unsigned field = 0, wire = 0;
    int rc;
    while ((rc = next_field(&c, &field, &wire)) > 0) {
        if (read_profile_field(&c, field, wire, p, &cap) < 0)
            return fail(&c, "malformed field %u", field);
    }
    if (rc == 0 && (p->nstrings == 0 || p->strings[0].len != 0))
        return fail(&c, "string_table[0] is not \"\"");
    return rc;
}

void pprof_profile_free(struct pprof_profile *p)
{
    for (size_t i = 0; i < p->nsamples; i++) {
        free(p->samples[i].locations);
        free(p->samples[i].values);
        free(p->samples[i].labels);
    }
    for (size_t i = 0; i < p->nstrings; i++)
        free(p->strings[i].s);
    free(p->sample_types);
    free(p->samples);
    free(p->locations);
    free(p->functions);
    free(p->strings);
    memset(p, 0, sizeof *p);
}

const char *pprof_profile_string(const struct pprof_profile *p, int64_t index, size_t *len)
{
    if (index < 0 || (uint64_t)index >= p->nstrings)
        return NULL;
    if (len)
        *len = p->strings[index].len;
    return p->strings[index].s;
}

/* Linear: the reader serves tests, whose profiles are small. */
const struct pprof_read_location *pprof_profile_location(const struct pprof_profile *p,
                                                         uint64_t id)
{
    for (size_t i = 0; i < p->nlocations; i++)
        if (p->locations[i].id == id)
            return &p->locations[i];
    return NULL;
}

const struct pprof_read_function *pprof_profile_function(const struct pprof_profile *p,
                                                         uint64_t id)
{
    for (size_t i = 0; i < p->nfunctions; i++)
        if (p->functions[i].id == id)
            return &p->functions[i];
    return NULL;
}
