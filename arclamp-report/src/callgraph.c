/* callgraph: the run as a Graphviz graph drawn by libgvc (see callgraph.h). */
#include "callgraph.h"
#include "numtext.h"

#include <gvc.h>
#include <stdlib.h>
#include <string.h>

/* The metric boxes and the path are measured by: wt, else samples, else ct. */
static int main_metric(const flat *f)
{
    if (f->metrics & (1u << M_WT))
        return M_WT;
    if (f->metrics & (1u << M_SAMPLES))
        return M_SAMPLES;
    return M_CT;
}

/* A name as a DOT string's content: quotes and backslashes escaped, bytes
 * that are not printable ASCII or UTF-8 as '?', at most 200 bytes. */
static void append_dot_text(strbuf *out, const char *s, size_t len)
{
    size_t n = len > 200 ? 200 : len;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            strbuf_appendc(out, '\\');
        if (c < 0x20 || c == 0x7f || c >= 0x80)
            c = '?'; /* (Graphviz's SVG is XML: no control bytes, no broken UTF-8) */
        strbuf_appendc(out, (char)c);
    }
    if (n < len)
        strbuf_appends(out, "...");
}

struct node_pick {
    size_t sym;
    double weight;
};

static int by_weight(const void *a, const void *b)
{
    double x = ((const struct node_pick *)a)->weight, y = ((const struct node_pick *)b)->weight;
    return x < y ? 1 : (x > y ? -1 : 0);
}

static long sym_index(const flat *f, const char *name, size_t len)
{
    arc *s = run_arc((run *)&f->syms, name, len, 0);
    return s ? (long)(s - f->syms.arcs) : -1;
}

/* Each arc's two functions as indexes into f->syms, looked up once for
 * every pass over the arcs; and each function's arcs out of it, so the
 * critical path visits a function's arcs, not all of them, at each step
 * (searching them all made a 50,000-arc chain take 260 s). */
struct ends {
    long *parent, *child;     /* per arc; -1: none (main()'s parent) or unknown */
    size_t *out_start;        /* function i's arcs out: out[out_start[i] .. out_start[i+1]) */
    size_t *out;              /* arc indexes, grouped by parent */
};

static void ends_init(struct ends *e, const run *r, const flat *f)
{
    e->parent = xcalloc(r->n + 1, sizeof *e->parent);
    e->child = xcalloc(r->n + 1, sizeof *e->child);
    e->out_start = xcalloc(f->syms.n + 2, sizeof *e->out_start);
    e->out = xcalloc(r->n + 1, sizeof *e->out);
    for (size_t k = 0; k < r->n; k++) {
        const char *p, *c;
        size_t pl, cl;
        arc_split(&r->arcs[k], &p, &pl, &c, &cl);
        e->parent[k] = p ? sym_index(f, p, pl) : -1;
        e->child[k] = sym_index(f, c, cl);
        if (e->parent[k] >= 0)
            e->out_start[e->parent[k] + 2]++;
    }
    /* counting sort: out_start[i + 1] is where function i's arcs begin */
    for (size_t i = 2; i < f->syms.n + 2; i++)
        e->out_start[i] += e->out_start[i - 1];
    for (size_t k = 0; k < r->n; k++) {
        if (e->parent[k] >= 0)
            e->out[e->out_start[e->parent[k] + 1]++] = k;
    }
}

static void ends_free(struct ends *e)
{
    free(e->parent);
    free(e->child);
    free(e->out_start);
    free(e->out);
}

/* The functions shown: keep[i] for each function of f. With a focus,
 * that function and those it calls or is called by (one pass over the
 * arcs); else those above the threshold. At most CALLGRAPH_MAX_NODES, the
 * heaviest. */
static void choose_nodes(const run *r, const flat *f, const struct ends *e, double threshold,
                         const char *focus, int metric, char *keep)
{
    double total = f->totals[metric];
    long fi = focus ? sym_index(f, focus, strlen(focus)) : -1;
    char *near = xcalloc(f->syms.n + 1, 1);
    if (fi >= 0) {
        near[fi] = 1;
        for (size_t k = 0; k < r->n; k++) {
            long pi = e->parent[k], ci = e->child[k];
            if (pi == fi && ci >= 0)
                near[ci] = 1;
            if (ci == fi && pi >= 0)
                near[pi] = 1;
        }
    }
    struct node_pick *picks = xcalloc(f->syms.n + 1, sizeof *picks);
    size_t np = 0;
    for (size_t i = 0; i < f->syms.n; i++) {
        double v = f->syms.arcs[i].v[metric];
        if (focus ? near[i] : v >= threshold * total)
            picks[np++] = (struct node_pick){i, v};
    }
    qsort(picks, np, sizeof *picks, by_weight);
    for (size_t k = 0; k < np && k < CALLGRAPH_MAX_NODES; k++)
        keep[picks[k].sym] = 1;
    free(picks);
    free(near);
}

/* The arcs drawn: between kept functions, at most CALLGRAPH_MAX_EDGES, the
 * critical path's first and then the heaviest. draw[k] for arc k. */
static void choose_edges(const run *r, const struct ends *e, const char *keep,
                         const char *arc_on, int metric, char *draw)
{
    struct node_pick *picks = xcalloc(r->n + 1, sizeof *picks);
    size_t np = 0;
    for (size_t k = 0; k < r->n; k++) {
        long pi = e->parent[k], ci = e->child[k];
        if (pi < 0 || ci < 0 || !keep[pi] || !keep[ci])
            continue;
        /* the path's arcs sort first, whatever their weight */
        picks[np++] = (struct node_pick){k, arc_on[k] ? 1e300 : r->arcs[k].v[metric]};
    }
    qsort(picks, np, sizeof *picks, by_weight);
    for (size_t k = 0; k < np && k < CALLGRAPH_MAX_EDGES; k++)
        draw[picks[k].sym] = 1;
    free(picks);
}

/* The critical path: from main(), the heaviest arc out at each step;
 * each function's arcs out are looked at once. Returns how many arcs were
 * looked at (at most the run's: the work is linear). */
static size_t path_of(const run *r, const flat *f, const struct ends *e, int metric,
                      char *on_path, char *arc_on)
{
    size_t looked = 0;
    long cur = sym_index(f, "main()", 6);
    while (cur >= 0 && !on_path[cur]) {
        on_path[cur] = 1;
        long best = -1, next = -1;
        for (size_t j = e->out_start[cur]; j < e->out_start[cur + 1]; j++) {
            size_t k = e->out[j];
            looked++;
            if (best < 0 || r->arcs[k].v[metric] > r->arcs[best].v[metric]) {
                best = (long)k;
                next = e->child[k];
            }
        }
        if (best >= 0)
            arc_on[best] = 1;
        cur = next;
    }
    return looked;
}

size_t callgraph_critical_path(const run *r, const flat *f, char *on_path, char *arc_on)
{
    struct ends e;
    ends_init(&e, r, f);
    size_t looked = path_of(r, f, &e, main_metric(f), on_path, arc_on);
    ends_free(&e);
    return looked;
}

/* "1.234 ms (12.3%)": a value of the graph's metric and its share of the
 * total. */
static void append_value(strbuf *out, const flat *f, double v, int metric)
{
    double total = f->totals[metric] > 0 ? f->totals[metric] : 1;
    const char *unit = metric == M_WT ? " ms" : "";
    double scale = metric == M_WT ? 1000.0 : 1.0;
    strbuf_appendf(out, "%.3f%s (%.1f%%)", v / scale, unit, 100 * v / total);
}

static void node_dot(strbuf *out, const flat *f, size_t i, int metric, int red)
{
    const arc *s = &f->syms.arcs[i];
    double total = f->totals[metric] > 0 ? f->totals[metric] : 1;
    double share = f->excl[i][metric] / total;
    strbuf_appendf(out, "  N%zu [label=\"", i);
    append_dot_text(out, s->key, s->klen);
    strbuf_appends(out, "\\nInc: ");
    append_value(out, f, s->v[metric], metric);
    strbuf_appends(out, "\\nExcl: ");
    append_value(out, f, f->excl[i][metric], metric);
    strbuf_appends(out, "\\n");
    numtext_counted(out, s->v[M_CT], "total call", "total calls");
    strbuf_appendc(out, '"');
    strbuf_appendf(out, " fontsize=%.1f", 10 + 25 * (share > 0 ? share : 0));
    if (red)
        strbuf_appends(out, " color=red style=filled fillcolor=\"#ffe0e0\"");
    strbuf_appends(out, "];\n");
}

/* What the graph shows, and why the rest is not shown. */
struct selection {
    const char *keep;     /* keep[i]: function i is a box */
    const char *draw;     /* draw[k]: arc k is an arrow */
    double threshold;     /* without a focus, functions below it of the total are left out */
    const char *focus;    /* the function the graph is about; NULL: none */
};

/* Why an arc into a box is not drawn: its caller is below the threshold,
 * not next to the focus, not among the CALLGRAPH_MAX_NODES heaviest, or
 * is a box whose arrow is not among the CALLGRAPH_MAX_EDGES drawn. */
enum cut_reason { CUT_THRESHOLD, CUT_FOCUS, CUT_MAX_NODES, CUT_MAX_EDGES, CUT_REASONS };

/* The callers of one box whose arcs into it are not drawn. */
struct cut {
    size_t callers[CUT_REASONS];  /* by reason (a box's callers are its arcs in) */
    double calls;                 /* their calls into it */
    double value;                 /* their inclusive value into it (the graph's metric) */
};

static enum cut_reason cut_reason(const flat *f, const struct selection *sel, long caller,
                                  int metric)
{
    if (caller >= 0 && sel->keep[caller])
        return CUT_MAX_EDGES;
    if (sel->focus)
        return CUT_FOCUS;
    if (caller >= 0 && f->syms.arcs[caller].v[metric] >= sel->threshold * f->totals[metric])
        return CUT_MAX_NODES;
    return CUT_THRESHOLD;
}

/* Per box, the arcs into it that are not drawn (calloc'd, one per function). */
static struct cut *collect_cuts(const run *r, const flat *f, const struct ends *e,
                                const struct selection *sel, int metric)
{
    struct cut *cuts = xcalloc(f->syms.n + 1, sizeof *cuts);
    for (size_t k = 0; k < r->n; k++) {
        const char *p, *c;
        size_t pl, cl;
        arc_split(&r->arcs[k], &p, &pl, &c, &cl);
        long ci = p && !sel->draw[k] ? e->child[k] : -1;
        if (ci < 0 || !sel->keep[ci])
            continue;
        struct cut *cu = &cuts[ci];
        cu->callers[cut_reason(f, sel, e->parent[k], metric)]++;
        cu->calls += r->arcs[k].v[M_CT];
        cu->value += r->arcs[k].v[metric];
    }
    return cuts;
}

static void append_cut_reason(strbuf *out, enum cut_reason why, const struct selection *sel)
{
    switch (why) {
    case CUT_THRESHOLD:
        strbuf_appendf(out, " below the %g%% threshold", 100 * sel->threshold);
        break;
    case CUT_FOCUS:
        strbuf_appends(out, " outside the focus");
        break;
    case CUT_MAX_NODES:
        strbuf_appendf(out, " beyond the %d-box limit", CALLGRAPH_MAX_NODES);
        break;
    default:
        strbuf_appendf(out, " beyond the %d-arrow limit", CALLGRAPH_MAX_EDGES);
        break;
    }
}

/* The placeholder of box i's callers that are not drawn, and its dashed
 * arrow into the box: "3 callers below the 1% threshold / Inc: 0.400 ms
 * (0.4%)", the arrow labelled with their calls. */
static void cut_dot(strbuf *out, const flat *f, size_t i, const struct cut *cu,
                    const struct selection *sel, int metric)
{
    strbuf_appendf(out, "  C%zu [label=\"", i);
    for (int why = 0; why < CUT_REASONS; why++) {
        if (!cu->callers[why])
            continue;
        numtext_counted(out, (double)cu->callers[why], "caller", "callers");
        append_cut_reason(out, (enum cut_reason)why, sel);
        strbuf_appends(out, "\\n");
    }
    strbuf_appends(out, "Inc: ");
    append_value(out, f, cu->value, metric);
    strbuf_appends(out, "\" " CALLGRAPH_CUT_STYLE "];\n");
    strbuf_appendf(out, "  C%zu -> N%zu [label=\"", i, i);
    numtext_counted(out, cu->calls, "call", "calls");
    strbuf_appends(out, "\" " CALLGRAPH_CUT_EDGE_STYLE "];\n");
}

/* One placeholder per box that has callers not drawn: no box floats
 * without saying where its calls came from. */
static void cut_callers_dot(strbuf *out, const run *r, const flat *f, const struct ends *e,
                            const struct selection *sel, int metric)
{
    struct cut *cuts = collect_cuts(r, f, e, sel, metric);
    for (size_t i = 0; i < f->syms.n; i++) {
        const struct cut *cu = &cuts[i];
        size_t callers = 0;
        for (int why = 0; why < CUT_REASONS; why++)
            callers += cu->callers[why];
        if (callers)
            cut_dot(out, f, i, cu, sel, metric);
    }
    free(cuts);
}

void callgraph_dot(const run *r, const flat *f, double threshold, const char *focus, strbuf *out)
{
    int metric = main_metric(f);
    char *keep = xcalloc(f->syms.n + 1, 1), *on_path = xcalloc(f->syms.n + 1, 1);
    char *arc_on = xcalloc(r->n + 1, 1), *draw = xcalloc(r->n + 1, 1);
    struct ends e;
    ends_init(&e, r, f);
    choose_nodes(r, f, &e, threshold, focus, metric, keep);
    path_of(r, f, &e, metric, on_path, arc_on);
    choose_edges(r, &e, keep, arc_on, metric, draw);
    struct selection sel = {keep, draw, threshold, focus};
    /* nslimit/mclimit/searchsize bound dot's network simplex and crossing
     * minimisation: on a dense graph they otherwise run for minutes */
    strbuf_appends(out, "digraph xhprof {\n  graph [nslimit=4 nslimit1=4 mclimit=0.5 "
                        "searchsize=20];\n  node [shape=box fontname=Helvetica];\n"
                        "  edge [fontname=Helvetica fontsize=9];\n");
    for (size_t i = 0; i < f->syms.n; i++) {
        if (keep[i])
            node_dot(out, f, i, metric, on_path[i]);
    }
    for (size_t k = 0; k < r->n; k++) {
        if (!draw[k])
            continue;
        long pi = e.parent[k], ci = e.child[k];
        strbuf_appendf(out, "  N%ld -> N%ld [label=\"", pi, ci);
        numtext_counted(out, r->arcs[k].v[M_CT], "call", "calls");
        strbuf_appendf(out, "\"%s];\n", arc_on[k] ? " color=red penwidth=2" : "");
    }
    cut_callers_dot(out, r, f, &e, &sel, metric);
    strbuf_appends(out, "}\n");
    ends_free(&e);
    free(keep);
    free(on_path);
    free(arc_on);
    free(draw);
}

/* The process's one Graphviz context. Global on purpose: Graphviz's pango
 * plugin keeps font data from the first context it served and reads it
 * again after that context is freed (a use-after-free under ASan when
 * generate draws its second graph), so a context is made once and kept;
 * freed at exit. */
static GVC_t *shared_gvc;

static void free_gvc(void)
{
    gvFreeContext(shared_gvc);
    shared_gvc = NULL;
}

static GVC_t *gvc_get(void)
{
    if (!shared_gvc) {
        shared_gvc = gvContext();
        atexit(free_gvc);
    }
    return shared_gvc;
}

int callgraph_svg(const run *r, const flat *f, double threshold, const char *focus, strbuf *out,
                  char *err, size_t errlen)
{
    strbuf dot = STRBUF_INIT;
    callgraph_dot(r, f, threshold, focus, &dot);
    GVC_t *gvc = gvc_get();
    Agraph_t *g = agmemread(strbuf_cstr(&dot));
    int rc = -1;
    char *data = NULL;
    unsigned int len = 0;
    if (!g)
        snprintf(err, errlen, "Graphviz could not read the graph");
    else if (gvLayout(gvc, g, "dot") != 0)
        snprintf(err, errlen, "Graphviz could not lay the graph out");
    else if (gvRenderData(gvc, g, "svg", &data, &len) != 0)
        snprintf(err, errlen, "Graphviz could not draw the graph");
    else {
        strbuf_append(out, data, len);
        rc = 0;
    }
    if (data)
        gvFreeRenderData(data);
    if (g) {
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    strbuf_free(&dot);
    return rc;
}
