/* runlog: reading the run logs arclamp-log writes (<bucket>.<tag>.runs):
 * complete XHProf runs in the xhprof/1 line format (common/src/runline.h),
 * each run's lines together. The runs of a log are summed into one run
 * (the caller divides by `runs` for the mean per request), so memory
 * follows the distinct arcs plus one run, never the number of runs.
 *
 * A run counts only with its begin, its arcs and its end, and when the
 * arcs counted match the end line's: lines of another shape (a torn last
 * line, an older writer) are skipped and counted, never guessed at. */
#ifndef ARCLAMP_REPORT_RUNLOG_H
#define ARCLAMP_REPORT_RUNLOG_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

/* Longest line read; arclamp-log's own limit (max_line_bytes) is lower. */
#define RUNLOG_LINE_MAX (1024 * 1024)

struct runlog_stats {
    size_t runs;              /* complete runs summed */
    size_t incomplete;        /* runs begun and not finished, or with arcs missing */
    size_t bad_lines;         /* lines that are no valid run line, or out of place */
    size_t arcs_left_out;     /* arcs the senders left out (their end lines), or that
                                 passed max_arcs here */
    int64_t first, last;      /* begin times of the oldest and newest run (0: none) */
};

/* Adds every complete run of the run log at path into agg (values summed).
 * At most max_bytes are read. Returns 0, or -1 with a message in err when
 * the file cannot be read. */
int runlog_add(run *agg, const char *path, size_t max_bytes, struct runlog_stats *st, char *err,
               size_t errlen);

/* Whether the file starts like a run log (its first bytes are a run line). */
int runlog_sniff(const char *path);

#endif
