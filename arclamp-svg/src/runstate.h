/* runstate: the counters kept across runs, for the metrics.
 *
 * One small file, <data_dir>/.arclamp-svg/state (RUNSTATE_FILE, in the
 * private directory of the default lock_file: 0700, the running user's or
 * root's, writable by nobody else), of "NAME VALUE" lines:
 *     skipped_generate, skipped_compress     runs that gave up waiting
 *                                            lock_timeout for the lock
 *     last_skip_generate, last_skip_compress unix time of the last (0: never)
 *     truncated_graphs, truncated_lines      what max_stacks, max_frames and
 *                                            max_memory_mb left out
 *     log_read_limit                         logs read up to max_log_read_mb
 *     store_uploads, store_upload_bytes      objects the store confirmed
 *     store_failures                         uploads, listings, downloads failed
 *     store_downloads, store_download_bytes  objects fetched (from_store)
 *     store_last_success                     unix time of the last run that
 *                                            used the store without a failure
 * Writers (a skipped generate or compress, a generate that hit a limit)
 * read, add and rewrite it atomically (temporary file + rename) through the
 * directory's descriptor, opened with O_NOFOLLOW from data_dir's, while
 * holding a flock on that directory (waited for at most
 * RUNSTATE_LOCK_TIMEOUT): a skipped run does not hold the run lock, so two
 * writers can meet. `arclamp-svg metrics` only reads it. Unknown or
 * malformed lines are ignored, so a file of another version costs counts,
 * never a run. */
#ifndef ARCLAMP_SVG_RUNSTATE_H
#define ARCLAMP_SVG_RUNSTATE_H

#include <stddef.h>
#include <time.h>

#include "gen_config.h"
#include "strbuf.h"

#define RUNSTATE_FILE "state"
#define RUNSTATE_LOCK_TIMEOUT 2.0
#define RUNSTATE_MAX_BYTES 4096 /* read at most: the file is ~200 bytes */

enum runstate_command { RUNSTATE_GENERATE = 0, RUNSTATE_COMPRESS = 1, RUNSTATE_NCOMMANDS };

struct runstate {
    unsigned long long skipped[RUNSTATE_NCOMMANDS];   /* runs skipped, ever */
    unsigned long long last_skip[RUNSTATE_NCOMMANDS]; /* unix time of the last, 0: never */
    unsigned long long truncated_graphs, truncated_lines, log_read_limit;
    /* the object store (storepub.h, storesrc.h) */
    unsigned long long store_uploads, store_upload_bytes, store_failures;
    unsigned long long store_downloads, store_download_bytes;
    unsigned long long store_last_success; /* unix time of the last run without a failure */
};

/* Adds `add` to the file: counts are summed, a non-zero last_skip replaces
 * the one kept. Nothing is written when `add` is all zero. Returns 0, or -1
 * with err set. */
int runstate_add(const char *data_dir, const struct runstate *add, char *err, size_t errlen);
/* Reads the file (all 0 when it or the private directory does not exist
 * yet). Returns 0, or -1 with err set (e.g. not readable by this user). */
int runstate_read(const char *data_dir, struct runstate *st, char *err, size_t errlen);
/* Appends every family of the file and returns 0; when it cannot be read,
 * leaves them all out (never shown as 0) and returns -1 with err saying
 * why, for the metrics command to warn. */
int runstate_metrics(const struct gen_config *cfg, strbuf *out, char *err, size_t errlen);

/* Logs the skip (warning, ARCLAMP_EVENT=run_skipped) and counts it. */
void runstate_note_skip(const struct gen_config *cfg, enum runstate_command cmd);
/* Counts what a generate run left out; a failure is logged
 * (counters_failed): the graphs matter more than the count. */
void runstate_note_limits(const struct gen_config *cfg, unsigned long long truncated_graphs,
                          unsigned long long truncated_lines, unsigned long long cut_logs);

/* Counts what a run did with the object store; a run without failures
 * sets store_last_success. */
void runstate_note_store(const struct gen_config *cfg, unsigned long long uploads,
                         unsigned long long upload_bytes, unsigned long long failures,
                         unsigned long long downloads, unsigned long long download_bytes);

#endif
