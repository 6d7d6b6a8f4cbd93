/* xhprof: xhprof_lib's numbers (see xhprof.h). */
#include "xhprof.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

static void add_into(arc *to, const arc *from, double w)
{
    for (int m = 0; m < M_COUNT; m++) {
        if (from->present & (1u << m))
            to->v[m] += w * from->v[m];
    }
    to->present |= from->present;
}

void flat_compute(const run *r, flat *f)
{
    memset(f, 0, sizeof *f);
    run_init(&f->syms, r->n + 1);
    f->metrics = r->metrics;
    /* inclusive: each arc's values go to its child */
    for (size_t i = 0; i < r->n; i++) {
        const arc *a = &r->arcs[i];
        const char *p, *c;
        size_t pl, cl;
        arc_split(a, &p, &pl, &c, &cl);
        if (p && pl == cl && memcmp(p, c, cl) == 0) {
            f->self_arcs++;
            continue;
        }
        add_into(run_arc(&f->syms, c, cl, 1), a, 1.0);
    }
    f->excl = xcalloc(f->syms.n ? f->syms.n : 1, sizeof *f->excl);
    for (size_t i = 0; i < f->syms.n; i++) {
        memcpy(f->excl[i], f->syms.arcs[i].v, sizeof f->excl[i]);
        f->totals[M_CT] += f->syms.arcs[i].v[M_CT];
    }
    /* exclusive: minus what each arc out of a function took */
    for (size_t i = 0; i < r->n; i++) {
        const arc *a = &r->arcs[i];
        const char *p, *c;
        size_t pl, cl;
        arc_split(a, &p, &pl, &c, &cl);
        arc *parent = p ? run_arc(&f->syms, p, pl, 0) : NULL;
        if (!parent || (pl == cl && memcmp(p, c, cl) == 0))
            continue;
        size_t k = (size_t)(parent - f->syms.arcs);
        for (int m = 0; m < M_COUNT; m++) {
            if (m != M_CT)
                f->excl[k][m] -= a->v[m];
        }
    }
    arc *main_sym = run_arc(&f->syms, "main()", 6, 0);
    for (int m = 0; m < M_COUNT; m++) {
        if (m != M_CT && main_sym)
            f->totals[m] = main_sym->v[m];
    }
}

size_t flat_over_main(const flat *f)
{
    size_t n = 0;
    for (size_t i = 0; i < f->syms.n; i++)
        n += f->syms.arcs[i].v[M_WT] > f->totals[M_WT];
    return n;
}

void flat_free(flat *f)
{
    run_free(&f->syms);
    free(f->excl);
    memset(f, 0, sizeof *f);
}

size_t run_add_weighted(run *out, const run *in, double w)
{
    size_t left_out = 0;
    for (size_t i = 0; i < in->n; i++) {
        arc *to = run_arc(out, in->arcs[i].key, in->arcs[i].klen, 1);
        if (to)
            add_into(to, &in->arcs[i], w);
        else
            left_out++;
    }
    out->metrics |= in->metrics;
    return left_out;
}

void run_scale(run *out, double k)
{
    for (size_t i = 0; i < out->n; i++) {
        for (int m = 0; m < M_COUNT; m++)
            out->arcs[i].v[m] *= k;
    }
}

int run_prune(const run *in, double percent, run *out)
{
    const arc *main_arc = run_arc((run *)in, "main()", 6, 0);
    int metric = -1;
    if (main_arc && (main_arc->present & (1u << M_WT)))
        metric = M_WT;
    else if (main_arc && (main_arc->present & (1u << M_SAMPLES)))
        metric = M_SAMPLES;
    if (metric < 0)
        return -1;
    double threshold = main_arc->v[metric] * percent / 100.0;
    flat f;
    flat_compute(in, &f);
    out->metrics = in->metrics;
    for (size_t i = 0; i < in->n; i++) {
        const arc *a = &in->arcs[i];
        const char *p, *c;
        size_t pl, cl;
        arc_split(a, &p, &pl, &c, &cl);
        const arc *child = run_arc(&f.syms, c, cl, 0);
        const arc *parent = p ? run_arc(&f.syms, p, pl, 0) : NULL;
        if (child && child->v[metric] < threshold)
            continue; /* the edge goes */
        if (p && !(pl == 12 && memcmp(p, "__pruned__()", 12) == 0) && parent
            && parent->v[metric] < threshold) {
            strbuf key = STRBUF_INIT;
            strbuf_appends(&key, "__pruned__()==>");
            strbuf_append(&key, c, cl);
            arc *to = run_arc(out, key.data, key.len, 1);
            if (to)
                add_into(to, a, 1.0);
            strbuf_free(&key);
            continue;
        }
        arc *to = run_arc(out, a->key, a->klen, 1);
        if (to)
            add_into(to, a, 1.0);
    }
    flat_free(&f);
    return 0;
}
