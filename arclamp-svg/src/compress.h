/* compress: `arclamp-svg compress --older-than DAYS`, sorting and gzip'ing
 * old trace logs in place (X.log -> X.log.gz), as the original's cron job
 * did: sorted logs compress about 6x better, and sorting does not change a
 * graph (identical stacks are summed whatever their order).
 *
 * Each log whose mtime is older than DAYS is piped through
 * `LC_ALL=C sort -S 64M -T <tmp>` (a child process: bounded memory, spilling
 * to a private temporary directory next to the log) and gzip'ed into a
 * temporary file in the log's directory, which gets the log's mode, owner
 * (when run as root) and mtime, is fsync'ed and renamed to X.log.gz; only
 * then is X.log removed. Before the rename the result is checked: sort must
 * succeed and give back as many bytes as the log held (one more when the
 * last line had no newline), and the log must not have changed meanwhile.
 * On any failure the temporary file goes and the log stays as it was.
 *
 * Each log is compressed while holding the lock_file (waiting for it at
 * most lock_timeout), so a running generate finishes first and no generate
 * starts mid-file; leftovers
 * of an interrupted run (temporary files, sort directories) are removed. */
#ifndef ARCLAMP_SVG_COMPRESS_H
#define ARCLAMP_SVG_COMPRESS_H

#include <stddef.h>
#include <time.h>

#include "gen_config.h"

/* Memory and temporary directory of the sort child. */
#define COMPRESS_SORT_MEMORY "64M"
#define COMPRESS_SORT_DIR_PREFIX ".arclamp-sort-"
/* Pause between two logs, so a generate waiting for the lock gets it. */
#define COMPRESS_YIELD_MSEC 10
/* compress_run's result when the lock stayed held for lock_timeout. */
#define COMPRESS_BUSY 1

struct compress_stats {
    size_t compressed;              /* logs now .log.gz */
    size_t failed;                  /* logs left as they were because of an error */
    size_t recent;                  /* .log files newer than the cut-off, left alone */
    unsigned long long bytes_before; /* sizes of the logs compressed */
    unsigned long long bytes_after;  /* sizes of their .log.gz */
    size_t leftovers;               /* temporary files and sort dirs removed */
    size_t scan_failed;             /* period directories that could not be listed */
};

/* Sorts and gzips `file` in the directory `dir` (a path, also opened as
 * `dirfd`). Returns 0, or -1 with err set and the log untouched. */
int compress_log(int dirfd, const char *dir, const char *file, int level,
                 unsigned long long *bytes_after, char *err, size_t errlen);

/* Compresses every .log under logs_dir last modified before `cutoff`.
 * Returns 0; COMPRESS_BUSY when the lock stayed held for lock_timeout (the
 * skip logged and counted, err set); or -1 when logs_dir could not be
 * listed or the lock not taken (err set). Failures of single logs and
 * period directories are counted in st and logged. As root, it first
 * becomes data_dir's owner (datadir.h). */
int compress_run(const struct gen_config *cfg, time_t cutoff, struct compress_stats *st,
                 char *err, size_t errlen);

#endif
