/* admission: the limits on what a sender can make the daemon write.
 *
 * Anyone allowed to send can choose entry point names, and every new name is
 * a new trace log (and two graphs downstream). Per log group this module
 * bounds the tag files opened in one bucket (max_tags_per_bucket), the
 * entries of the group's directory (max_files_per_period), and stops writing
 * when the file system holding the directory runs low (min_free_disk_bytes,
 * min_free_disk_percent). A run log's tag file is a tag file like a trace
 * log's. A refused line (or run) is counted per reason (stats->lines_refused,
 * stats->runs_refused) and the refusals are logged at most twice per
 * reason, group, bucket and kind: at the first one, and with their count
 * when the bucket ends. Only the ingest module (one thread) touches this
 * state. */
#ifndef ARCLAMP_LOG_ADMISSION_H
#define ARCLAMP_LOG_ADMISSION_H

#include <stdint.h>

#include "config.h"
#include "stats.h"

/* How often the free space of a directory is looked at (statvfs), seconds. */
#define ADMISSION_DISK_CHECK_INTERVAL 1.0
/* A directory at its file limit is counted again at most this often, so
 * files removed by others (or by another group's retention) free room. */
#define ADMISSION_RECOUNT_INTERVAL 10.0

/* What was refused: sample lines, hierarchical runs or merged minutes of
 * request tiers (counted apart). */
enum refused_kind { REFUSED_LINES, REFUSED_RUNS, REFUSED_TIERS, REFUSED_NKINDS };

struct admission {
    const struct config *cfg;        /* borrowed */
    struct stats *stats;             /* borrowed */
    const char *dir;                 /* the group's directory (borrowed) */
    const char *period;              /* the group's period, for messages */
    const char *bucket;              /* the current bucket name (borrowed, updated in place) */
    unsigned long tags_in_bucket;    /* tag files this group created in the current bucket */
    struct admission *counter;       /* the one that counts dir's entries: the first group
                                        writing to dir (groups may share a directory) */
    long dir_entries;                /* (counter only) entries in dir as last counted, plus
                                        creations since, minus retention's removals; -1:
                                        unreadable */
    double counted_at;               /* (counter only) monotonic time of that count */
    double disk_checked_at;          /* monotonic time of the last statvfs; < 0: never */
    int below_floor;                 /* the last statvfs found less free space than the floor */
    char floor_text[160];            /* what that statvfs found, for the log */
    uint64_t refused[REFUSED_NKINDS][REFUSED_NREASONS]; /* refusals in this bucket not yet
                                                           reported */
    int logged[REFUSED_NKINDS][REFUSED_NREASONS]; /* the first refusal of this bucket was
                                                     logged */
};

/* `shares_dir` is an earlier group's admission writing to the same
 * directory, or NULL. The strings are borrowed and must outlive `a`. */
void admission_init(struct admission *a, const struct config *cfg, struct stats *stats,
                    const char *dir, const char *period, const char *bucket,
                    struct admission *shares_dir);
/* The bucket changes (and at reload/shutdown): logs the count of the
 * refusals not reported yet, and starts counting the new bucket's tags. */
void admission_end_bucket(struct admission *a);

/* Whether lines may be written now: 0 while the directory's file system has
 * less free space (or inodes) than the floor. Looks at most once a second. */
int admission_disk_ok(struct admission *a, double mono);
/* Whether a tag file that is not open may be opened: returns REFUSED_NONE
 * or the reason. `exists` tells whether the file is already on disk (an
 * existing file is no new tag and takes no new directory entry). */
enum refusal admission_tag_file(struct admission *a, int exists, double mono);
/* A file was created (tag says whether it is a tag file) / retention removed
 * `removed` files of the directory. */
void admission_created(struct admission *a, int is_tag);
void admission_pruned(struct admission *a, long removed);

/* Counts one refused line (or one line's tag copy, see the README) and logs
 * the first of this bucket; `example` is the tag it concerned, or NULL. */
void admission_refuse(struct admission *a, enum refusal why, const char *example);
/* The same for one complete run (or its tag copy). */
void admission_refuse_run(struct admission *a, enum refusal why, const char *example);
/* The same for one merged minute of a tier table (tiers.h). */
void admission_refuse_tiers(struct admission *a, enum refusal why, const char *example);

#endif
