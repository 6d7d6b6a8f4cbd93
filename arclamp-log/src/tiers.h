/* tiers: request-tier aggregates merged across hosts per minute, and the
 * tier tables of every log group.
 *
 * The extension's processes each send, every few seconds, tier lines
 * (tierline.h): what they measured since their last flush. A valid line
 * is added to the pending minute of its END (or of the daemon's clock when
 * END is more than TIERS_MAX_SKEW seconds away from it: counted), kept
 * apart per set of log groups its channel feeds. A minute is due once the
 * clock passes its end by TIERS_GRACE seconds; the daemon's tick (its
 * flush timer) then queues its merged lines, as does a stop or reload, or
 * a fifth minute that needs the slot of the oldest (which is queued early).
 * A line for a minute already due (late) takes a free slot if there is
 * one (it is written on the next tick) but never pushes a minute out: with
 * no slot free it is queued as it came, as a merged line of its minute.
 * Readers add up all the lines, so a minute may be written more than once.
 *
 * Writing, for each of the groups, in the group's directory:
 *   <bucket>.tiers       the queued merged lines appended (HOST "*", PID 0,
 *                        START and END the minute): the source of truth;
 *   <bucket>.tiers.json  the bucket's whole table, rewritten atomically;
 *   <bucket>.tiers.txt   the same as a human table.
 * <bucket> is the group's format at the minute's start. The work a line
 * costs follows its bytes: lines are queued per bucket in memory and
 * appended on the tick (or once TIERS_QUEUE_MAX bytes wait), then folded
 * into the bucket's table; the views, the only writes whose size is the
 * whole table's, are rewritten on a tick when the table changed, at most
 * once per TIERS_VIEWS_INTERVAL seconds per bucket (and at a stop, or when
 * the bucket is closed). A group keeps TIERS_OPEN_BUCKETS buckets' tables
 * in memory (the window of believed ENDs, 11 minutes, spans at most two
 * buckets of any format whose buckets are longer); opening another one
 * writes the least recently used one out and reads the new one's .tiers
 * file, so a restart loses nothing that reached the file. The files follow
 * the group's retention (counted apart from the .log and .runs files) and
 * the free-disk floor (admission.h).
 *
 * Only the ingest module (one thread) uses this state. */
#ifndef ARCLAMP_LOG_TIERS_H
#define ARCLAMP_LOG_TIERS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "admission.h"
#include "bucket.h"
#include "config.h"
#include "stats.h"
#include "tiertable.h"

#define TIERS_MINUTE 60
/* Seconds after a minute's end before it is written: lines of that minute
 * that are still on the way (a process flushes every few seconds). */
#define TIERS_GRACE 10
/* An END further than this from the daemon's clock is not believed. */
#define TIERS_MAX_SKEW 300
/* Minutes (per set of groups) waiting to be written at most. */
#define TIERS_PENDING_MAX 4
/* Buckets of a group whose tables are in memory. */
#define TIERS_OPEN_BUCKETS 2
/* Queued merged lines of a bucket are appended once this many bytes wait
 * (else on the tick). */
#define TIERS_QUEUE_MAX (256 * 1024)
/* A bucket's views are rewritten at most once per this many seconds (the
 * first change after a quiet time at once, on the next tick). */
#define TIERS_VIEWS_INTERVAL 5.0
/* A minute being merged. */
struct tier_minute {
    time_t start;                     /* unix seconds, a multiple of 60 */
    unsigned long long groups;        /* the log groups it goes to; 0: slot unused */
    struct tiertable table;
};

/* A log group's tier table of one bucket. */
struct tier_bucket {
    char name[BUCKET_NAME_MAX + 1];   /* "" while the slot is unused */
    time_t start, end;                /* its seconds [start, end) */
    unsigned char *minutes;           /* bit per minute of [start, end) folded in */
    size_t nminutes;                  /* bits in `minutes` */
    uint64_t minutes_folded;          /* bits set */
    struct tiertable table;           /* what reached the .tiers file */
    strbuf queued;                    /* merged lines not appended yet */
    uint64_t queued_minutes;          /* pending minutes among them (the metric) */
    int dirty;                        /* the views are older than the table */
    int created;                      /* the .tiers file is new: prune after the views */
    double views_at;                  /* monotonic time the views were last written */
    uint64_t used;                    /* when last used (tiers.uses), for the choice of
                                         the bucket to close */
};

struct tier_group {
    const char *dir;                  /* base_path/period (borrowed) */
    struct admission *admission;      /* the group's limits (borrowed) */
    struct tier_bucket open[TIERS_OPEN_BUCKETS];
    int failing;                      /* the last write failed (logged once) */
};

struct tiers {
    const struct config *cfg;         /* borrowed */
    struct stats *stats;              /* borrowed */
    struct tier_minute pending[TIERS_PENDING_MAX];
    struct tier_group *groups;        /* one per cfg->groups (owned) */
    struct tier_names reserved;       /* cfg's reserved_tier_identities, escaped (owned) */
    uint64_t uses;                    /* a clock of bucket uses */
    double last_report;               /* monotonic time of the last invalid-line report */
    uint64_t unreported[TIER_LINE_NREASONS]; /* invalid tier lines since that report */
    char example[256];                /* one of them, quoted */
};

void tiers_init(struct tiers *t, const struct config *cfg, struct stats *stats);
/* Where group g writes, and its limits (both borrowed, outliving t). */
void tiers_attach_group(struct tiers *t, size_t g, const char *dir, struct admission *adm);
/* Writes every pending minute, reports, frees. */
void tiers_free(struct tiers *t, double mono);

/* Takes one tier line (tierline_is_tier) of a message whose channel feeds
 * `groups`; `now` is the daemon's clock (unix seconds). */
void tiers_take(struct tiers *t, const char *line, size_t len, unsigned long long groups,
                time_t now, double mono);
/* Queues the minutes that are due at `now`, appends every bucket's queued
 * lines and rewrites the views that changed (TIERS_VIEWS_INTERVAL). */
void tiers_tick(struct tiers *t, time_t now, double mono);
/* Logs the invalid tier lines counted since the last report, if the report
 * interval has passed (or `force`). */
void tiers_report(struct tiers *t, double mono, int force);

/* A file of a group's bucket, for tests and readers: "<dir>/<bucket>" +
 * suffix (LAYOUT_TIERS_SUFFIX, LAYOUT_TIERS_JSON_SUFFIX, LAYOUT_TIERS_TEXT_SUFFIX).
 * 0, or -1 when it does not fit. */
int tiers_path(char *out, size_t len, const char *dir, const char *bucket, const char *suffix);

#endif
