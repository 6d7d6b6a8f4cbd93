/* callgraph: the run as a Graphviz graph, laid out and drawn to SVG by
 * libgvc (Debian's libgraphviz-dev), as xhprof_html's callgraph: functions
 * above `threshold` of the total inclusive time (or, with a focus, that
 * function, its parents and its children), the critical path from main()
 * (the heaviest child at each step) in red, a box's size by its exclusive
 * time, arcs labelled with their calls ("1 call", "2 calls", "0.5 calls"
 * in a mean run), and for each box whose callers were left out a dashed
 * placeholder saying what was cut. */
#ifndef ARCLAMP_REPORT_CALLGRAPH_H
#define ARCLAMP_REPORT_CALLGRAPH_H

#include "run.h"
#include "strbuf.h"
#include "xhprof.h"

/* At most this many boxes and arrows: the heaviest are kept, so the layout
 * stays quick and the picture readable: dot's time grows much faster than
 * the graph (320 boxes and 727 arrows of a dense random graph took over
 * ten minutes; capped at these, with the layout limits of callgraph_dot,
 * 3.5 s). */
#define CALLGRAPH_MAX_NODES 120
#define CALLGRAPH_MAX_EDGES 300

/* A box whose callers (some or all) are not drawn gets one placeholder,
 * "C<n>" for box "N<n>", with a dashed arrow into it: how many callers and
 * why (below the threshold, outside the focus, beyond the box or arrow
 * limit), their inclusive time into it, and the arrow labelled with their
 * calls. These are its look (also for tests telling it apart). */
#define CALLGRAPH_CUT_STYLE \
    "shape=box style=\"dashed,rounded\" color=gray50 fontcolor=gray30 fontsize=9"
#define CALLGRAPH_CUT_EDGE_STYLE "style=dashed color=gray50 fontcolor=gray30"

/* The critical path alone (what callgraph_dot draws red): on_path[i] for
 * each function on it (f->syms.n bytes), arc_on[k] for each arc (r->n
 * bytes), both zeroed by the caller. Returns how many arcs it looked at:
 * at most r->n, each function's arcs out being indexed (tests hold it to
 * that). */
size_t callgraph_critical_path(const run *r, const flat *f, char *on_path, char *arc_on);

/* The DOT text of the graph into out. */
void callgraph_dot(const run *r, const flat *f, double threshold, const char *focus, strbuf *out);
/* The SVG of the graph into out; -1 with a message when Graphviz fails. */
int callgraph_svg(const run *r, const flat *f, double threshold, const char *focus, strbuf *out,
                  char *err, size_t errlen);

#endif
