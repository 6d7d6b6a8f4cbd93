/* xhprof: the numbers xhprof_lib computes from runs, with its definitions:
 *   flat      per function: ct and, for each metric the run measured, the
 *             inclusive value (the sum over the arcs into it) and excl_
 *             (inclusive minus the inclusive of its arcs out); totals are
 *             main()'s values, and ct the sum of every function's calls;
 *             recursion names (foo@1) are functions of their own
 *   diff      B - A per arc (an arc missing from one side counts as 0):
 *             B added with weight 1 and A with weight -1
 *   aggregate the weighted mean of runs per arc (or the plain sum)
 *   prune     xhprof_prune_run(): arcs into a function below P% of main()'s
 *             inclusive wt go; an arc from such a function to one above it
 *             moves under "__pruned__()" */
#ifndef ARCLAMP_REPORT_XHPROF_H
#define ARCLAMP_REPORT_XHPROF_H

#include "run.h"

typedef struct flat {
    run syms;                  /* one "arc" per function: v = inclusive values */
    double (*excl)[M_COUNT];   /* excl[i]: exclusive values of syms.arcs[i] */
    double totals[M_COUNT];    /* main()'s, and totals[M_CT] = all calls */
    unsigned metrics;          /* the run's metrics (ct included) */
    size_t self_arcs;          /* arcs "f==>f" refused, as xhprof_lib does */
} flat;

void flat_compute(const run *r, flat *f);
void flat_free(flat *f);
/* Functions whose inclusive wt is above main()'s: none in a sound run (a
 * profiler that keys recursion by code rather than printed name made
 * some); the report job counts them in its summaries. */
size_t flat_over_main(const flat *f);

/* out += w * in (metrics of `in`, pmu kept). Returns the arcs of `in` that
 * out could not take (it holds max_arcs already). */
size_t run_add_weighted(run *out, const run *in, double w);
/* every value of out times k */
void run_scale(run *out, double k);
/* out = xhprof_prune_run(in, percent); -1 when in has no wt (or samples). */
int run_prune(const run *in, double percent, run *out);

#endif
