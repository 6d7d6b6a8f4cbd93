/* export: a run as pprof or as the serialize()d XHProf array (see
 * export.h for how arcs become pprof samples, and what -top then shows). */
#include "export.h"
#include "phpserout.h"
#include "pprof.h"
#include "xhprof.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The sample types, in order: calls, then what the run measured, wall
 * last: pprof shows the last type unless told (-sample_index), and the
 * report ranks functions by exclusive wall time. */
static const struct {
    int metric;
    const char *type, *unit;
} sample_types[] = {
    {M_CT, "calls", "count"},
    {M_CPU, "cpu", "microseconds"},
    {M_MU, "memory", "bytes"},
    {M_WT, "wall", "microseconds"},
};
#define NTYPES (sizeof sample_types / sizeof sample_types[0])
#define NO_FUNCTION SIZE_MAX

/* What the pprof export holds while it is built. */
struct pprof_build {
    const run *r;
    flat f;
    struct pprof_writer w;
    run ids;                 /* function names -> pprof ids (index + 1) */
    int types[NTYPES];       /* metric of each sample type written */
    size_t ntypes;
    size_t *child;           /* per arc: its child's index in f.syms (NO_FUNCTION: left out) */
    size_t *order;           /* arcs grouped by child, in arc order within a child */
    int64_t *values;         /* per arc: ntypes values */
};

/* The pprof id of a function, its function and location written when new. */
static uint64_t function_id(struct pprof_build *b, const char *name, size_t len)
{
    size_t before = b->ids.n;
    arc *a = run_arc(&b->ids, name, len, 1);
    if (b->ids.n > before)
        pprof_function(&b->w, name, len, NULL, 0);
    return (uint64_t)(a - b->ids.arcs) + 1;
}

/* Each arc's child (as an index into f.syms), and the arcs grouped by it
 * (a counting sort: stable, so arc order within a child). */
static void group_by_child(struct pprof_build *b)
{
    size_t n = b->r->n, nsyms = b->f.syms.n;
    size_t *start = xcalloc(nsyms + 1, sizeof *start);
    for (size_t i = 0; i < n; i++) {
        const char *p, *c;
        size_t pl, cl;
        arc_split(&b->r->arcs[i], &p, &pl, &c, &cl);
        int self = p && pl == cl && memcmp(p, c, cl) == 0;
        arc *sym = self ? NULL : run_arc(&b->f.syms, c, cl, 0);
        b->child[i] = sym ? (size_t)(sym - b->f.syms.arcs) : NO_FUNCTION;
        if (sym)
            start[b->child[i] + 1]++;
    }
    for (size_t s = 0; s < nsyms; s++)
        start[s + 1] += start[s];
    for (size_t i = 0; i < n; i++) {
        if (b->child[i] != NO_FUNCTION)
            b->order[start[b->child[i]]++] = i;
    }
    free(start);
}

/* The weight of arc a in splitting a value of metric m over a function's
 * arcs in: the arc's inclusive m, or its calls, or (first arc) all of it. */
static double weight(const arc *a, int basis, int first)
{
    return basis >= 0 ? a->v[basis] : (first ? 1.0 : 0.0);
}

/* Splits function s's value of sample type t over its arcs in (arcs
 * order[0..count)), so that the parts add up to the rounded whole. */
static void split(struct pprof_build *b, size_t s, size_t t, const size_t *arcs, size_t count)
{
    int m = b->types[t];
    const arc *sym = &b->f.syms.arcs[s];
    double whole = m == M_CT ? sym->v[M_CT] : b->f.excl[s][m];
    int basis = sym->v[m] != 0 ? m : (sym->v[M_CT] != 0 ? M_CT : -1);
    double total = basis >= 0 ? sym->v[basis] : 1.0, acc = 0;
    int64_t before = 0;
    for (size_t k = 0; k < count; k++) {
        acc += weight(&b->r->arcs[arcs[k]], basis, k == 0);
        /* the last running sum is the whole, whatever the additions' rounding */
        double upto = k + 1 == count ? whole : whole * (acc / total);
        /* half to even, as the report's %.0f prints it */
        int64_t rounded = llrint(upto);
        b->values[arcs[k] * b->ntypes + t] = rounded - before;
        before = rounded;
    }
}

static void write_samples(struct pprof_build *b)
{
    for (size_t i = 0; i < b->r->n; i++) {
        if (b->child[i] == NO_FUNCTION)
            continue;
        const char *p, *c;
        size_t pl, cl;
        arc_split(&b->r->arcs[i], &p, &pl, &c, &cl);
        uint64_t locations[2] = {function_id(b, c, cl), 0};
        if (p)
            locations[1] = function_id(b, p, pl);
        pprof_sample(&b->w, locations, p ? 2 : 1, &b->values[i * b->ntypes], b->ntypes, NULL, 0);
    }
}

void export_pprof(const run *r, strbuf *out)
{
    struct pprof_build b = {.r = r};
    flat_compute(r, &b.f);
    pprof_writer_init(&b.w);
    run_init(&b.ids, 2 * r->n + 2);
    for (size_t t = 0; t < NTYPES; t++) {
        int m = sample_types[t].metric;
        if (m == M_CT || (r->metrics & (1u << m))) {
            b.types[b.ntypes++] = m;
            pprof_sample_type(&b.w, sample_types[t].type, sample_types[t].unit);
        }
    }
    size_t n = r->n ? r->n : 1;
    b.child = xmalloc(n * sizeof *b.child);
    b.order = xmalloc(n * sizeof *b.order);
    b.values = xcalloc(n * b.ntypes, sizeof *b.values);
    group_by_child(&b);
    /* order holds each function's arcs together: split function by function */
    size_t k = 0, grouped = 0;
    for (size_t i = 0; i < r->n; i++)
        grouped += b.child[i] != NO_FUNCTION;
    while (k < grouped) {
        size_t s = b.child[b.order[k]], end = k;
        while (end < grouped && b.child[b.order[end]] == s)
            end++;
        for (size_t t = 0; t < b.ntypes; t++)
            split(&b, s, t, &b.order[k], end - k);
        k = end;
    }
    write_samples(&b);
    strbuf raw = STRBUF_INIT;
    pprof_encode(&b.w, &raw);
    pprof_gzip(raw.data, raw.len, out);
    strbuf_free(&raw);
    free(b.child);
    free(b.order);
    free(b.values);
    run_free(&b.ids);
    pprof_writer_free(&b.w);
    flat_free(&b.f);
}

void export_xhprof(const run *r, strbuf *out)
{
    phpser_write_array(out, r->n);
    for (size_t i = 0; i < r->n; i++) {
        const arc *a = &r->arcs[i];
        size_t count = 0;
        for (int m = 0; m < M_COUNT; m++)
            count += (a->present >> m) & 1u;
        phpser_write_string(out, a->key, a->klen);
        phpser_write_array(out, count);
        for (int m = 0; m < M_COUNT; m++) {
            if (!(a->present & (1u << m)))
                continue;
            phpser_write_string(out, metric_names[m], strlen(metric_names[m]));
            phpser_write_number(out, a->v[m]);
        }
        phpser_write_end(out);
    }
    phpser_write_end(out);
}
