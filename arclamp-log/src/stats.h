/* stats: arclamp-log's counters and their Prometheus text file.
 *
 * One struct of plain counters, owned by the daemon and passed to the
 * modules that count. Writing the metrics file is atomic (temp + rename), so
 * a node exporter never reads half a file. */
#ifndef ARCLAMP_LOG_STATS_H
#define ARCLAMP_LOG_STATS_H

#include <stdint.h>

#include "config.h"
#include "stackline.h"

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
    int redis_connected;                        /* 1 while subscribed or reading */
    uint64_t open_files;                        /* trace log files open now */
};

/* Writes the metrics of `st` to `path` atomically; -1 with errno on failure. */
int stats_write_prometheus(const struct stats *st, const struct config *cfg, const char *path);
/* "tag_limit", "file_limit", "disk_floor". */
const char *refusal_name(enum refusal why);
/* Total messages received from all inputs. */
uint64_t stats_messages_total(const struct stats *st);

#endif
