/* runs: hierarchical runs being put back together.
 *
 * The extension sends each XHProf run as run lines (runline.h): a begin
 * line, its arc lines (in version 2 with fn lines naming the functions),
 * an end line, every line tagged with the run's id. A run longer than one
 * message is split over several, and messages of other runs and hosts
 * come in between, so a run is collected here, keyed by its id, until its
 * end line completes it; only complete runs leave this module (to be
 * written to run logs by ingest.c). A run is complete when its end line's
 * ARCS_SENT is the number of arc lines received and, in version 2, every
 * arc's ids were defined once by an fn line before it (checked when the
 * end line comes, with common's runline_names: a reader resolves the run
 * the same way), all its lines being of its begin line's version.
 *
 * Memory is bounded whatever senders do: at most `max_pending` entries, a
 * run's lines at most `max_run_bytes`, all pending runs' lines together at
 * most `max_pending_bytes` (the oldest run is dropped to make room), and a
 * run whose end has not come within `timeout` is dropped (runs_expire, from
 * a periodic timer). Every drop is counted once per run and reason
 * (stats->runs_dropped) and logged at most once per `report_interval`.
 *
 * A dropped run leaves a marker (an entry without lines) for `timeout`
 * seconds, so the rest of its lines, which are still on the way, are
 * ignored instead of each being counted as a run without a begin line. A
 * marker never pushes out a run being collected.
 *
 * Only the ingest module (one thread) uses this state. */
#ifndef ARCLAMP_LOG_RUNS_H
#define ARCLAMP_LOG_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "dlist.h"
#include "runline.h"
#include "stackline.h"
#include "stats.h"
#include "strbuf.h"

struct runs_limits {
    size_t max_pending;         /* entries at most (runs and markers of dropped ones) */
    size_t max_run_bytes;       /* one run's lines (with their newlines) at most */
    size_t max_pending_bytes;   /* the lines of all pending runs at most */
    double timeout;             /* seconds a run may wait for its end line */
    double report_interval;     /* at most one log entry about drops per this long */
};

/* A run being collected, or a complete one handed to the caller. */
struct run {
    char runid[RUNLINE_RUNID_MAX + 1];
    char tag[STACKLINE_TAG_MAX + 1]; /* the entry point's tag; "" for none */
    unsigned long long groups;  /* log groups of the message holding its begin line */
    double since;               /* monotonic time of its begin line (marker: of the drop) */
    int dropped;                /* a marker: the run was dropped, its lines are ignored */
    strbuf lines;               /* begin, arcs (and end once complete), each with '\n' */
    uint64_t arcs;              /* arc lines in `lines` */
    int version;                /* its begin line's */
    int mixed;                  /* a line of another version came: the run is bad */
    struct run *hnext;          /* hash chain */
    struct dlist_node age;      /* its place on runs.live or runs.markers */
};

struct runs {
    struct runs_limits lim;
    struct stats *stats;        /* borrowed; runs_pending is kept up to date */
    struct run **table;         /* by run id; a power of two of buckets */
    size_t table_size;
    struct dlist live;          /* runs being collected, by begin time (oldest first) */
    struct dlist markers;       /* dropped runs, by drop time (oldest first) */
    size_t count;               /* entries in both lists */
    size_t bytes;               /* lines held by the live runs */
    double last_report;         /* monotonic time of the last drop report */
    uint64_t unreported[RUN_DROP_NREASONS]; /* drops since that report */
    char example[RUNLINE_RUNID_MAX + 1]; /* the run id of one of them */
    struct runline_names names; /* checking a complete version 2 run (ids only) */
};

void runs_init(struct runs *r, const struct runs_limits *lim, struct stats *stats);
/* Drops every pending run (counted as "stopped"), reports, frees. */
void runs_free(struct runs *r, double mono);

/* Takes one valid run line (`rl` is runline_parse's result for it) of a
 * message feeding `groups`. Returns the run this line completed — owned by
 * the caller, to be given back with runs_release() — or NULL. */
struct run *runs_take(struct runs *r, const char *line, size_t len, const struct runline *rl,
                      unsigned long long groups, double mono);
void runs_release(struct runs *r, struct run *run);

/* Drops the runs that waited longer than the timeout for their end line,
 * and forgets the markers as old. */
void runs_expire(struct runs *r, double mono);
/* Counts a run lost after it was complete (ingest: write_error). */
void runs_count_drop(struct runs *r, enum run_drop why, const char *runid, double mono);
/* Logs the drops counted since the last report, if the report interval has
 * passed (or `force`). */
void runs_report(struct runs *r, double mono, int force);

/* The most entries one bucket of the table holds: what a lookup may walk.
 * The tests' measure that ids crafted to share a bucket do not. */
size_t runs_longest_chain(const struct runs *r);

#endif
