/* tiers: request-tier aggregates merged across hosts per minute, and the
 * tier tables of every log group.
 *
 * The extension's processes each send, every few seconds, tier lines
 * (tierline.h): what they measured since their last flush. A valid line
 * is added to the pending minute of its END (or of the daemon's clock when
 * END is more than TIERS_MAX_SKEW seconds away from it: counted), kept
 * apart per set of log groups its channel feeds. A minute is written once
 * the clock passes its end by TIERS_GRACE seconds, or at once when
 * TIERS_PENDING_MAX minutes are pending and another begins (the oldest
 * goes), and at a stop or reload. A line for a minute already written
 * simply starts that minute again: it is written with the next write, and
 * readers add up all the lines.
 *
 * Writing a minute, for each of its groups, in the group's directory:
 *   <bucket>.tiers       its merged lines appended (HOST "*", PID 0, START
 *                        and END the minute): the source of truth;
 *   <bucket>.tiers.json  the bucket's whole table, rewritten atomically;
 *   <bucket>.tiers.txt   the same as a human table.
 * <bucket> is the group's format at the minute's start. The table of a
 * bucket lives in memory (one per group: the last bucket written) and is
 * rebuilt from <bucket>.tiers whenever another bucket is written, so a
 * restart loses nothing that reached the file. The files follow the
 * group's retention (counted apart from the .log and .runs files) and the
 * free-disk floor (admission.h).
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
/* File names of the tier table: "<bucket>.tiers" and its two views. The
 * retention of tier files treats "tiers" as the tag and these as suffixes. */
#define TIERS_TAG "tiers"
#define TIERS_SUFFIX ""
#define TIERS_JSON_SUFFIX ".json"
#define TIERS_TEXT_SUFFIX ".txt"

/* A minute being merged. */
struct tier_minute {
    time_t start;                     /* unix seconds, a multiple of 60 */
    unsigned long long groups;        /* the log groups it goes to; 0: slot unused */
    struct tiertable table;
};

/* A log group's tier table of one bucket. */
struct tier_bucket {
    char name[BUCKET_NAME_MAX + 1];   /* "" while none is loaded */
    time_t start, end;                /* its seconds [start, end) */
    unsigned char *minutes;           /* bit per minute of [start, end) folded in */
    size_t nminutes;                  /* bits in `minutes` */
    uint64_t minutes_folded;          /* bits set */
    struct tiertable table;
};

struct tier_group {
    const char *dir;                  /* base_path/period (borrowed) */
    struct admission *admission;      /* the group's limits (borrowed) */
    struct tier_bucket bucket;
    int failing;                      /* the last write failed (logged once) */
};

struct tiers {
    const struct config *cfg;         /* borrowed */
    struct stats *stats;              /* borrowed */
    struct tier_minute pending[TIERS_PENDING_MAX];
    struct tier_group *groups;        /* one per cfg->groups (owned) */
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
/* Writes the minutes that are due at `now`. */
void tiers_tick(struct tiers *t, time_t now, double mono);
/* Logs the invalid tier lines counted since the last report, if the report
 * interval has passed (or `force`). */
void tiers_report(struct tiers *t, double mono, int force);

/* The tier table's file of a group and bucket, for tests and readers:
 * "<dir>/<bucket>.tiers" + suffix. 0, or -1 when it does not fit. */
int tiers_path(char *out, size_t len, const char *dir, const char *bucket, const char *suffix);

#endif
