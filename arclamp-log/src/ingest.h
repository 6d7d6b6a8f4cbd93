/* ingest: from a received message to lines queued in trace log files and
 * runs queued in run logs.
 *
 * A message (from Redis or a socket) is split into lines; each line is
 * validated (stackline_parse), invalid ones are counted per reason and
 * reported at a limited rate, and valid ones are routed to every log group
 * the message's channel feeds: the group's `all` file and, when the stack
 * has an entry point tag, the tag's file, within the limits of admission.h
 * (new tags per bucket, files per directory, free disk). Paths are built only from
 * base_path, the configured period, the bucket name and a tag of
 * [A-Za-z0-9_.-], so nothing can be written outside base_path.
 *
 * A line that starts with "xhprof/1 " or "xhprof/2 " is a line of a
 * hierarchical run instead (runline.h): validated with runline_parse,
 * collected in runs.h until its run is complete, and the complete run is
 * written in one piece, once, to a `.runs` file of each group its begin
 * line's channel feeds: its entry point's tag file, or the all file when it
 * has no tag or its tag file is refused (sample_pop does not apply). */
#ifndef ARCLAMP_LOG_INGEST_H
#define ARCLAMP_LOG_INGEST_H

#include <limits.h>
#include <stddef.h>
#include <time.h>

#include "admission.h"
#include "bucket.h"
#include "config.h"
#include "runs.h"
#include "stats.h"
#include "tiers.h"
#include "tracefile.h"

/* Inputs that others write to when they like (pub/sub, the datagram
 * sockets) are read at most once per this many microseconds (sd-event's
 * rate limit on their sources). At a few thousand messages a second each
 * would otherwise get a wakeup of its own, which costs far more than the
 * message (measured: 19-28 us of CPU per message at 4-8k msg/s one at a
 * time, against under 4 at saturation); waiting up to 5 ms lets them pile
 * up in the socket and be read together (7.5-10 us). The socket buffers
 * hold 5 ms at any rate this daemon can take. */
#define INGEST_COALESCE_USEC 5000

/* Files of the current bucket by tag, so most lines skip building a path
 * and the hash lookup. Valid while the fileset's generation is unchanged. */
#define GROUP_FILE_CACHE 16

struct cached_file {
    char tag[STACKLINE_TAG_MAX + 1];
    struct tracefile *file;
};

struct group_state {
    char dir[PATH_MAX];                /* base_path/period */
    unsigned long pop_counter;         /* lines seen, for sample_pop */
    time_t bucket_time;                /* second the bucket name was made for */
    char bucket[BUCKET_NAME_MAX + 1];  /* bucket name of bucket_time */
    struct cached_file cache[GROUP_FILE_CACHE]; /* open files of this bucket */
    size_t ncached;                    /* entries in use */
    size_t next_evict;                 /* round-robin slot when full */
    unsigned long cache_generation;    /* fileset generation the cache is for */
    struct admission admission;        /* the group's tag, file and disk limits */
};

struct ingest {
    const struct config *cfg;          /* borrowed */
    struct stats *stats;               /* borrowed */
    struct fileset files;              /* owned */
    struct group_state *groups;        /* one per cfg->groups */
    double last_report;                /* monotonic time of the last invalid-line report */
    uint64_t unreported[STACKLINE_NERRORS]; /* invalid lines since that report */
    char example[256];                 /* one unreported invalid line, quoted */
    double last_tag_report;            /* monotonic time of the last refused-tag report */
    uint64_t tags_unreported;          /* lines with a refused tag name since that report */
    char tag_example[STACKLINE_TAG_MAX * 4 + 8]; /* one such name, quoted */
    struct runs runs;                  /* runs being put together (owned) */
    double last_run_report;            /* monotonic time of the last invalid-run-line report */
    uint64_t runs_unreported[RUN_LINE_NREASONS]; /* invalid run lines since that report */
    char run_example[256];             /* one of them, quoted */
    struct tiers tiers;                /* request tier minutes and tables (owned) */
};

void ingest_init(struct ingest *in, const struct config *cfg, struct stats *stats);
void ingest_free(struct ingest *in);

/* Handles one message. `groups` is the mask of log groups its channel feeds;
 * `now` is wall-clock time (buckets), `mono` monotonic seconds (buffers).
 * A valid line that some file cannot take now (it cannot be opened, or its
 * buffer is full of lines the disk refused) is dropped and counted, unless
 * the message is `redeliverable` (a stream entry Redis keeps until it is
 * acknowledged): then it is counted as deferred and the return value says
 * how many such lines the message had, so the entry is not acknowledged. */
size_t ingest_message(struct ingest *in, const char *msg, size_t len, unsigned long long groups,
                      enum input_kind kind, time_t now, double mono, int redeliverable);
/* Writes the buffers that are due; returns the bytes still buffered (the
 * disk refused them: they are retried). */
size_t ingest_flush(struct ingest *in, double mono);
/* Closes the files not written for close_idle_after seconds. */
void ingest_close_idle(struct ingest *in, double mono);
/* Drops the runs that waited longer than run_timeout for their end line
 * (called from the daemon's periodic timer, not per line). */
void ingest_expire_runs(struct ingest *in, double mono);
/* Writes the request tier minutes that are due at `now` (wall clock). */
void ingest_tick_tiers(struct ingest *in, time_t now, double mono);
/* Lines lost so far after they were queued (a file closed while the disk
 * refused its buffer). A stream batch is acknowledged only when this did
 * not move while its lines were on the way to the disk. */
uint64_t ingest_lines_lost(const struct ingest *in);
/* Counts one message refused as a whole (e.g. a truncated datagram). */
void ingest_refuse_message(struct ingest *in, enum stackline_error why, enum input_kind kind,
                           double mono);
/* Logs the invalid lines (sample, run and tier lines), the lines whose entry
 * point is no valid tag, and the dropped runs, counted since the last
 * report, if the report interval has passed (or `force`). */
void ingest_report_invalid(struct ingest *in, double mono, int force);

#endif
