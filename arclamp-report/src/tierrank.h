/* tierrank: one request-tier table, as arclamp-log writes it
 * (<logs>/<period>/<bucket>.tiers.json, LAYOUT_TIERS_JSON_FORMAT, the view
 * common/src/tiertable.c writes), read for its page: the bucket's figures, then per identity (request type) its
 * tiers (named functions timed per request; "_total" is the whole request)
 * with calls, total time and the percentiles arclamp-log computed.
 *
 * The file is untrusted: identities come from applications (markup,
 * quotes, any length, any number of them). It is read whole up to a size
 * cap, parsed by json-c with a nesting limit, and checked strictly: a
 * field missing or of the wrong type refuses the whole table with a
 * message saying where. Counts (the figures, calls) are whole numbers in
 * the one range of tier lines and tables, 0 to 2^53 (TIERLINE_COUNT_MAX):
 * a larger one (an older arclamp-log's sum) is read as 2^53 and counted in
 * `capped`, never a reason to refuse the table. Only the heaviest identities and tiers are kept
 * (caps), and what was left out is counted, so a page's size and the work
 * after parsing do not follow the input.
 *
 * Ranking: identities by their _total time, heaviest first; within one,
 * _total first, then the tiers by total time (ties: by name, so pages are
 * the same bytes for the same input).
 *
 * Trend: each kept (identity, tier) has TIERS_SLOTS points, the previous
 * TIERS_TREND buckets of the same period and this one, filled from the
 * other buckets' tables by tier_table_trend(); a point without a value
 * (the bucket, identity or tier absent) is NaN. */
#ifndef ARCLAMP_REPORT_TIERRANK_H
#define ARCLAMP_REPORT_TIERRANK_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

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
    char *name;                          /* the identity (untrusted text), owned */
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
    size_t capped;                       /* counts above 2^53 read as 2^53 */
};

/* Parses a table's text into t (zeroed first; free it with
 * tier_table_free whatever the result). Keeps at most max_ids identities
 * and max_tiers tiers of each (>= 1). 0, or -1 with a message in err. */
int tier_table_parse(struct tier_table *t, const char *buf, size_t len, size_t max_ids,
                     size_t max_tiers, char *err, size_t errlen);

/* Fills trend point `slot` (< TIERS_TREND) of every kept row from another
 * bucket's table text. -1 (err set, the points left NaN) when that text is
 * no table. */
int tier_table_trend(struct tier_table *t, unsigned slot, const char *buf, size_t len,
                     char *err, size_t errlen);

void tier_table_free(struct tier_table *t);

/* Reads the file at path (a regular file, not followed if a symlink, at
 * most max_bytes) into out. 0, or -1 with "path: why" in err. */
int tier_file_read(const char *path, size_t max_bytes, strbuf *out, char *err, size_t errlen);

#endif
