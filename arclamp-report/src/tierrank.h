/* tierrank: one request-tier table, as arclamp-log writes it
 * (<logs>/<period>/<bucket>.tiers, merged tier lines), read through
 * common/src/tiertable.c for its page: the bucket's figures, then per
 * identity (request type) its tiers (named functions timed per request;
 * "_total" is the whole request) with calls, total time, mean and the
 * percentiles of their histograms (tier_cell_us: the figures the table's
 * JSON view states, to the last digit).
 *
 * The file is untrusted: identities come from applications (markup,
 * quotes, any length, any number of them). It is read a line at a time
 * into a struct tiertable, whose limits bound memory whatever the file's
 * size (identities past max_table_identities are added up as "_other",
 * as arclamp-log does; what the limits dropped is counted); a line that
 * is no valid tier line (malformed, torn, too long) is skipped and
 * counted (bad_lines), the page is made of the others. Only the heaviest
 * identities and tiers are kept for the page (caps), and what was left
 * out is counted.
 *
 * Ranking: identities by their _total time, heaviest first; within one,
 * _total first, then the tiers by total time (ties: by name, so pages are
 * the same bytes for the same input).
 *
 * Trend: each kept (identity, tier) has TIERS_SLOTS points, the previous
 * TIERS_TREND buckets of the same period and bucket format and this one,
 * filled from the other buckets' tables by tier_table_trend(); a point
 * without a value (the bucket, identity or tier absent) is NaN. */
#ifndef ARCLAMP_REPORT_TIERRANK_H
#define ARCLAMP_REPORT_TIERRANK_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "tiertable.h"

#define TIERS_TREND 8                    /* previous buckets in a trend */
#define TIERS_SLOTS (TIERS_TREND + 1)    /* ... and this one, last */

/* One bucket's value of a (identity, tier); NaN where there is none. */
struct tier_point {
    double mean_us;
    double p90_us;
    double share;                        /* of the identity's _total time */
};

struct tier_row {
    char *name;                          /* the tier (untrusted text), owned */
    double calls, total_us, mean_us, p50_us, p90_us, p99_us;
    double share;                        /* total_us / the identity's _total's; NaN without */
    struct tier_point trend[TIERS_SLOTS]; /* oldest first; [TIERS_TREND] is this bucket */
};

struct tier_ranked_identity {
    char *name;                          /* the identity decoded (untrusted text), owned */
    char *wire;                          /* ... as escaped in the table (its key), owned */
    size_t wire_len;
    double total_us;                     /* its _total's total time; 0 without _total */
    struct tier_row *rows;               /* _total first, then by total time; owned */
    size_t nrows;                        /* at most the max_tiers cap */
    size_t rows_left_out;                /* tiers past the cap */
};

struct tier_table {
    int64_t start, end;                  /* the bucket, unix seconds */
    uint64_t minutes;                    /* minutes of data merged in it */
    uint64_t requests, traced, trips, resumes, skipped;
    struct tier_ranked_identity *ids;           /* heaviest first; owned */
    size_t nids;                         /* at most the max_identities cap */
    size_t ids_left_out;                 /* identities past the cap */
    double left_out_us;                  /* their _total time */
    double all_us;                       /* _total time of every identity */
    uint64_t bad_lines;                  /* lines of the file skipped: no valid tier line */
    struct tier_drops drops;             /* lines the table's limits did not take */
};

/* What reading a .tiers file gave besides its table. */
struct tier_file {
    int64_t start, end;                  /* the bucket (bucket_span of its first line) */
    uint64_t minutes;                    /* distinct minutes in [start, end) */
    uint64_t bad_lines;                  /* lines skipped: no valid tier line */
    struct tier_drops drops;             /* lines the table's limits did not take */
};

/* Reads the .tiers file at path (a regular file, not followed if a
 * symlink) into `table` (empty, initialised by the caller with its
 * limits); `format` is the bucket format that names it. 0, or -1 with
 * "path: why" in err when it cannot be opened or read to its end. */
int tier_file_read(const char *path, const char *format, struct tiertable *table,
                   struct tier_file *info, char *err, size_t errlen);

/* Ranks a table into t (zeroed first; free it with tier_table_free):
 * keeps at most max_ids identities and max_tiers tiers of each (>= 1). */
void tier_table_rank(struct tier_table *t, const struct tiertable *table,
                     const struct tier_file *info, size_t max_ids, size_t max_tiers);

/* What a trend needs of a table: each (identity, tier)'s point, without
 * the histograms (a few dozen bytes a cell, so the tables of a whole
 * trend can be kept while a period's pages are written and each table is
 * read once). */
struct tier_point_entry {
    char *key;                           /* the identity as escaped, a space, the tier; owned */
    struct tier_point point;
};

struct tier_points {
    struct tier_point_entry *v;          /* sorted by key; owned */
    size_t n;
};

/* The points of a table (share: of its identity's _total; NaN without). */
void tier_points_of(struct tier_points *p, const struct tiertable *table);
void tier_points_free(struct tier_points *p);

/* Fills trend point `slot` (< TIERS_TREND) of every kept row from another
 * bucket's points. -1 when slot is out of range. */
int tier_table_trend(struct tier_table *t, unsigned slot, const struct tier_points *other);

void tier_table_free(struct tier_table *t);

#endif
