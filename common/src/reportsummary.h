/* reportsummary: the small JSON summary arclamp-report's timer job writes
 * next to the report of each run log (<reports>/<period>/summary/<bucket>.<tag>.json),
 * and the reading of its run count, which arclamp-svg's index shows next
 * to the report's link without reading the run log.
 *
 * One object on one line, its fields always in this order:
 *   {"period": "hourly", "name": "2026-11-26_03.excimer.index",
 *    "entrypoint": "index", "runs": 12, "incomplete": 0, "bad_lines": 0,
 *    "duplicates": 0, "logs": 1, "arcs": 3, "arcs_left_out": 0,
 *    "inclusive_over_main": 0, "first": 1764126000, "last": 1764126000}
 * Its strings are [A-Za-z0-9_.-] (arclamp-report takes only such names), so
 * they are written as they are and no string can hold a field's key. */
#ifndef ARCLAMP_REPORTSUMMARY_H
#define ARCLAMP_REPORTSUMMARY_H

#include <stddef.h>

#include "strbuf.h"

/* The directory of the summaries below <reports>/<period>. */
#define REPORT_SUMMARY_DIR "summary"
/* A summary is far shorter: a reader need not look further. */
#define REPORT_SUMMARY_MAX 4096

struct report_summary {
    const char *period;     /* the run log's period directory */
    const char *name;       /* its name without .runs: <bucket>.<tag> */
    const char *entrypoint; /* the tag */
    size_t runs;            /* complete runs (profiled requests) the report is the mean of */
    size_t incomplete;      /* runs begun and not finished, or with arcs missing */
    size_t bad_lines;       /* lines that are no valid run line */
    size_t duplicates;      /* runs read twice (an older daemon wrote each to `all` too) */
    size_t logs;            /* run logs the report was made from */
    size_t arcs;            /* distinct arcs of the mean run */
    size_t arcs_left_out;   /* arcs the senders or max_arcs left out */
    size_t over_main;       /* functions whose inclusive wt is above main()'s (0 when sound) */
    long long first, last;  /* begin times of the oldest and newest run (0: none) */
};

/* Appends the summary's line. */
void report_summary_write(strbuf *out, const struct report_summary *s);

/* The "runs" of a summary's text: 0 with *runs set, or -1 when `text` is
 * not a summary report_summary_write wrote. */
int report_summary_runs(const char *text, size_t len, unsigned long long *runs);

#endif
