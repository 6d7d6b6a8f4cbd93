/* runlog: reading the run logs arclamp-log writes (<bucket>.<tag>.runs):
 * complete XHProf runs in the xhprof/1 or xhprof/2 line format
 * (common/src/runline.h), each run's lines together. The runs of one or
 * more logs are summed into one run (the caller divides by `runs` for the
 * mean per request), so memory follows the distinct arcs plus one run, and
 * the ids of the runs counted (a few dozen bytes each), never their arcs.
 *
 * A run counts only with its begin, its arcs and its end, when the arcs
 * counted match the end line's and, in version 2, every arc's ids were
 * defined before it (the same runline_names arclamp-log checks with):
 * lines of another shape (a torn last line, an older writer) are skipped
 * and counted, never guessed at. A run id counts once per view (struct
 * runlog_seen): logs written before runs were stored once per period hold
 * each run in `all` and in its entry point's log, and a sender or a stream
 * may deliver a run twice. */
#ifndef ARCLAMP_REPORT_RUNLOG_H
#define ARCLAMP_REPORT_RUNLOG_H

#include <stddef.h>
#include <stdint.h>

#include "hashidx.h"
#include "keyedhash.h"
#include "run.h"
#include "strbuf.h"

/* Longest line read; arclamp-log's own limit (max_line_bytes) is lower. */
#define RUNLOG_LINE_MAX (1024 * 1024)

struct runlog_stats {
    size_t runs;              /* complete runs summed */
    size_t incomplete;        /* runs begun and not finished, with arcs missing, or
                                 whose names do not resolve */
    size_t bad_lines;         /* lines that are no valid run line, or out of place */
    size_t duplicates;        /* complete runs whose id was counted already */
    size_t long_names;        /* runs not counted for a function name longer than
                                 RUNLINE_MAX_NAME_BYTES (also in `incomplete`) */
    size_t too_many;          /* complete runs past RUNLOG_MAX_SEEN in the view, not
                                 counted (also in `incomplete`) */
    size_t arcs_left_out;     /* arcs the senders left out (their end lines), or that
                                 passed max_arcs here */
    int64_t first, last;      /* begin times of the oldest and newest run (0: none) */
};

/* The ids of the runs counted so far in one view (one report: one log, or
 * every log of a bucket), as 128-bit keyed hashes: 24 bytes a run whatever
 * the id's length, and no more than RUNLOG_MAX_SEEN of them (about 100 MB),
 * since a log of empty runs would otherwise cost memory in proportion to
 * its bytes. Runs past it are not counted (too_many). A fleet's real
 * runs are tens of KB each: 4 million is 100 GB of them in one view. */
#define RUNLOG_MAX_SEEN 4000000u
struct runlog_seen {
    struct hashidx idx;       /* v by low64 */
    struct keyedhash128 *v;
    size_t n, cap;
    size_t max;               /* RUNLOG_MAX_SEEN (a test sets less) */
};

void runlog_seen_init(struct runlog_seen *s);
void runlog_seen_free(struct runlog_seen *s);

/* Adds every complete run of the run log at path whose id `seen` does not
 * hold yet into agg (values summed), and their ids to `seen`. At most
 * max_bytes are read. The run being read is held within agg's budget
 * (max_arcs arcs, max_key_bytes of keys, and as many bytes of a version 2
 * run's names): its arcs beyond are left out and counted, a run whose
 * names pass it does not count. A run with a name longer than
 * RUNLINE_MAX_NAME_BYTES does not count either (no writer makes one). Returns 0, or -1 with a message in err when the file
 * cannot be read. */
int runlog_add(run *agg, const char *path, size_t max_bytes, struct runlog_seen *seen,
               struct runlog_stats *st, char *err, size_t errlen);

/* Whether the file starts like a run log (its first bytes are a run line). */
int runlog_sniff(const char *path);

#endif
