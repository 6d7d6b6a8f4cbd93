/* stats: arclamp-log's counters and their Prometheus text file.
 *
 * One struct of plain counters, owned by the daemon and passed to the
 * modules that count. Writing the metrics file is atomic (temp + rename), so
 * a node exporter never reads half a file. */
#ifndef ARCLAMP_LOG_STATS_H
#define ARCLAMP_LOG_STATS_H

#include <stdint.h>

#include "config.h"
#include "runline.h"
#include "stackline.h"
#include "tierline.h"

enum input_kind { INPUT_REDIS, INPUT_SOCKET, INPUT_NKINDS };

/* Why a valid line (or its tag copy) was not written by policy (admission.h).
 * The names (refusal_name) are metric labels. */
enum refusal {
    REFUSED_NONE = 0,
    REFUSED_TAG_LIMIT,   /* a new tag file beyond max_tags_per_bucket */
    REFUSED_FILE_LIMIT,  /* a new tag file in a directory at max_files_per_period */
    REFUSED_DISK_FLOOR,  /* less free space than min_free_disk_bytes/_percent */
    REFUSED_NREASONS
};

/* Why a hierarchical run was not written (runs.h, ingest.c). The names
 * (run_drop_name) are metric labels and log words. */
enum run_drop {
    RUN_DROP_DUPLICATE = 0, /* a second begin line for a run being put together */
    RUN_DROP_NO_BEGIN,      /* arc or end lines of a run whose begin never came */
    RUN_DROP_ARCS_MISSING,  /* the arc lines received are not the end line's ARCS_SENT */
    RUN_DROP_BAD_IDS,       /* version 2: an arc uses a function id no fn line defined
                               before it, an id is defined twice, or its lines are of
                               two versions */
    RUN_DROP_TOO_BIG,       /* its lines passed max_run_bytes */
    RUN_DROP_PENDING_LIMIT, /* pushed out by max_pending_runs or max_pending_run_bytes */
    RUN_DROP_TIMEOUT,       /* no end line within run_timeout */
    RUN_DROP_WRITE_ERROR,   /* a run log could not take it (cannot be opened, or disk) */
    RUN_DROP_STOPPED,       /* still pending when the daemon stopped or reloaded */
    RUN_DROP_NREASONS
};

/* Invalid run lines are counted per runline_error, and one more reason of
 * ours: longer than max_line_bytes. */
#define RUN_LINE_TOO_LONG RUNLINE_NERRORS
#define RUN_LINE_NREASONS (RUNLINE_NERRORS + 1)

/* Invalid tier lines are counted per tierline_error, and longer than
 * max_line_bytes. */
#define TIER_LINE_TOO_LONG TIERLINE_NERRORS
#define TIER_LINE_NREASONS (TIERLINE_NERRORS + 1)

/* Why a valid agg line was not kept in a tier table (tiertable.h). */
enum tier_drop {
    TIER_DROP_TIER_LIMIT = 0, /* its identity had TIERTABLE_MAX_TIERS tiers already */
    TIER_DROP_MEMORY,         /* the table's histogram budget was spent */
    TIER_DROP_NREASONS
};

struct stats {
    uint64_t messages_received[INPUT_NKINDS];   /* messages per input kind */
    uint64_t lines_received;                    /* lines in those messages */
    uint64_t lines_invalid[STACKLINE_NERRORS];  /* refused lines per reason */
    uint64_t lines_written[CONFIG_MAX_GROUPS];  /* lines in each group's all file */
    uint64_t lines_dropped_write_error;         /* lines lost to a refusing disk */
    uint64_t lines_deferred;                    /* stream lines left in Redis to retry */
    uint64_t lines_refused[REFUSED_NREASONS];   /* lines (or tag copies) refused by policy */
    uint64_t tags_refused;                      /* lines whose .php entry point is no valid tag */
    uint64_t bytes_written;                     /* bytes written to trace logs */
    uint64_t write_errors;                      /* failed or short writes, failed opens */
    uint64_t files_pruned;                      /* files removed by retention */
    uint64_t torn_lines_repaired;               /* partial last lines cut at open */
    uint64_t datagrams_dropped;                 /* dropped by the kernel: we were too slow */
    uint64_t redis_reconnects;                  /* connections lost or refused */
    int redis_connected;                        /* 1 while subscribed or reading (a
                                                   cluster: every shard read) */
    uint64_t redis_claimed;                     /* stream entries taken over (XAUTOCLAIM) */
    uint64_t redis_reread;                      /* stream entries read again from a pending
                                                   list: possible duplicates */
    /* Redis Cluster (redis_cluster.c) */
    int cluster;                                /* the input is a cluster: report below */
    uint64_t cluster_map_reads;                 /* slot maps read */
    uint64_t cluster_shard_moves;               /* shard inputs started on another master */
    uint64_t cluster_shards_read;               /* shards this instance reads */
    uint64_t cluster_shards_connected;          /* ... of them subscribed or reading now */
    uint64_t open_files;                        /* trace log and run log files open now */
    /* hierarchical runs */
    uint64_t run_lines_invalid[RUN_LINE_NREASONS]; /* refused run lines per reason */
    uint64_t runs_received;                     /* valid begin lines */
    uint64_t runs_written[CONFIG_MAX_GROUPS];   /* runs written to each group's run logs */
    uint64_t runs_dropped[RUN_DROP_NREASONS];   /* runs not written, per reason */
    uint64_t runs_refused[REFUSED_NREASONS];    /* runs (or tag copies) refused by policy */
    uint64_t runs_pending;                      /* runs being put together now */
    /* request tiers */
    uint64_t tier_lines_received;               /* lines starting "tiers/1 " */
    uint64_t tier_lines_invalid[TIER_LINE_NREASONS]; /* refused tier lines per reason */
    uint64_t tier_lines_clock_skew;             /* END too far from our clock: ours used */
    uint64_t tier_lines_late;                   /* for a minute already due (past the
                                                   grace): written with the next write */
    uint64_t tier_views_written;                /* .tiers.json/.tiers.txt pairs rewritten */
    uint64_t tier_minutes_written[CONFIG_MAX_GROUPS]; /* minutes appended to .tiers files */
    uint64_t tier_minutes_refused[REFUSED_NREASONS]; /* minutes not written by policy */
    uint64_t tier_identities_overflow;          /* agg lines whose identity became _other */
    uint64_t tier_tiers_dropped[TIER_DROP_NREASONS]; /* agg lines not kept, per reason */
    uint64_t tier_write_errors;                 /* tier files that could not be written */
};

/* Writes the metrics of `st` to `path` atomically; -1 with errno on failure. */
int stats_write_prometheus(const struct stats *st, const struct config *cfg, const char *path);
/* "tag_limit", "file_limit", "disk_floor". */
const char *refusal_name(enum refusal why);
/* "duplicate", "no_begin", ... */
const char *run_drop_name(enum run_drop why);
/* runline_error_name(), and "too_long" for RUN_LINE_TOO_LONG. */
const char *run_line_invalid_name(int why);
/* tierline_error_name(), and "too_long" for TIER_LINE_TOO_LONG. */
const char *tier_line_invalid_name(int why);
/* stackline_error_name() and run_drop_name() taking an int, as struct
 * count_report and the metrics want reason names. */
const char *stackline_reason(int why);
const char *run_drop_reason(int why);
/* "tier_limit", "memory". */
const char *tier_drop_name(enum tier_drop why);
/* Writes "name=N name=N ..." of the non-zero counts[first..n) to `out`
 * (truncated to `len`), with the names of name(i), for log entries.
 * Returns their total. */
uint64_t stats_format_counts(char *out, size_t len, const uint64_t *counts, int first, int n,
                             const char *(*name)(int));
/* How stats_log_counts() words one kind of rate-limited report. */
struct count_report {
    const char *event;         /* ARCLAMP_EVENT= */
    const char *what;          /* "invalid sample lines": "dropped N <what> (...)" */
    const char *example_open;  /* around the example: "\"" and "\"", or "run " and "" */
    const char *example_close;
    int first, n;              /* the counts reported: [first, n) */
    const char *(*name)(int);  /* a count's reason name */
};

/* Logs the non-zero unreported[first..n) as one warning ("dropped N <what>
 * (reason=N ...), e.g. <example>", with ARCLAMP_COUNT, _REASON and
 * _EXAMPLE), then clears unreported[0..n) and the example. Returns 0 when there was
 * nothing to log. */
int stats_log_counts(const struct count_report *how, uint64_t *unreported, char *example);
/* Total messages received from all inputs. */
uint64_t stats_messages_total(const struct stats *st);

#endif
