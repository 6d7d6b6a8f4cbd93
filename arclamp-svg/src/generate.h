/* generate: the timer job. Draws the flame graphs of every trace log that
 * changed, removes the graphs of logs that are gone, and writes the index.
 *
 * For each <logs_dir>/<period>/<name>.log[.gz]:
 *   <svgs_dir>/<period>/<name>.svgz and <name>.reversed.svgz, and for logs
 *   whose entry point is "all", <name>.fn-<Label>[.reversed].svgz for each
 *   configured function that has samples in it — all from ONE read of the
 *   log. A log is drawn again only when it is newer than its forward or
 *   reversed graph: each graph gets the mtime the log had when it was
 *   opened, so lines appended while it was read make it "newer" again.
 *   Graphs are written atomically (atomicfile.h), fn graphs and the reversed
 *   graph before the forward one.
 * For the latest complete bucket of each entry point, the differential
 * graphs against the bucket before (<name>.diff[.reversed].svgz, gendiff.h).
 * Then every *.svgz under svgs_dir that belongs to no log (or to a label no
 * longer configured) is removed, as are temporary files of interrupted runs,
 * and <data_dir>/index.html and index.json are rewritten (indexpage.h).
 *
 * One run at a time: the lock_file is flock'ed, waiting at most
 * lock_timeout (runlock.h). A log that cannot be read or holds no valid
 * line is reported (log_event), counted, and the others go on; a log whose
 * name could collide with another's graphs is refused (logset.h); a period
 * directory that cannot be listed is left as it is, index.html is not
 * rewritten and the run fails. Run as root, it becomes data_dir's owner
 * first; every directory is opened through datadir.h (no symlink below the
 * configured paths followed, owner checked), so nothing is written outside
 * svgs_dir and data_dir. */
#ifndef ARCLAMP_SVG_GENERATE_H
#define ARCLAMP_SVG_GENERATE_H

#include <stddef.h>

#include "gen_config.h"
#include "storepub.h"
#include "storesrc.h"

struct generate_options {
    int force;    /* draw every log, even when its graphs are up to date */
};

struct generate_stats {
    size_t logs;          /* trace logs found */
    size_t generated;     /* logs whose graphs were drawn */
    size_t graphs;        /* graph files written */
    size_t skipped;       /* logs whose graphs were up to date */
    size_t removed;       /* graphs removed (log gone, or no samples any more) */
    size_t failed;        /* logs that could not be drawn */
    size_t temps;         /* temporary files of interrupted runs removed */
    size_t ignored_lines; /* invalid lines skipped in the logs drawn */
    size_t refused;       /* logs refused: their names could collide (logset.h) */
    size_t scan_failed;   /* period directories that could not be listed (kept as they are) */
    size_t truncated_graphs; /* graphs with samples beyond the limits ([truncated]) */
    size_t truncated_lines;  /* lines whose samples went to [truncated] */
    size_t cut_logs;      /* logs read only up to max_log_read_mb */
    size_t diffs;         /* differential graphs drawn (pairs: gendiff.h) */
    size_t diffs_failed;  /* differential graphs that could not be drawn */
    int index_failed;     /* index.html / index.json not written (error, or a scan failed) */
    int store_from;       /* the logs were fetched from the object store first */
    struct storemerge_stats fetched; /* what that fetch did */
    int store_published;  /* the run published to the object store */
    struct storepub_stats published; /* what that did */
};

enum generate_status {
    GENERATE_OK = 0,           /* everything done */
    GENERATE_SOME_FAILED = 1,  /* done, but some logs (or the index) failed */
    GENERATE_BUSY = 2,         /* another run held the lock for lock_timeout; nothing done,
                                  the skip logged and counted (runstate.h) */
    GENERATE_ERROR = 3,        /* nothing done: err says why */
};

/* One run. `st` is filled in every case. */
enum generate_status generate_run(const struct gen_config *cfg,
                                  const struct generate_options *opt,
                                  struct generate_stats *st, char *err, size_t errlen);

#endif
