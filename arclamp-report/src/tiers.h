/* tiers: the request-tier pages, the job. For every tier table arclamp-log
 * wrote (<logs_dir>/<period>/<bucket>.tiers, read by tierrank.c through
 * common/src/tiertable.c; the .tiers.json view beside it is not read), a page
 * <reports_dir>/tiers/<period>/<bucket>.html (tierpage.h) with the trend
 * over the previous TIERS_TREND buckets of the same period and bucket
 * format, and <reports_dir>/tiers/index.html listing them.
 *
 * As generate's pages: a page carries the newest mtime of its inputs (its
 * table and the tables of its trend) and is rewritten only when that
 * changes; pages whose table is gone are removed (and directories left
 * empty; the whole tiers/ directory once no table is left). A table that
 * cannot be read costs its own page only: the others are written, the
 * index says why, and the run fails at the end. Nothing is written but
 * under <reports_dir>/tiers, through directories opened without following
 * symlinks. `arclamp-report generate` runs it too (before its own index,
 * which then links the tier pages). */
#ifndef ARCLAMP_REPORT_TIERS_H
#define ARCLAMP_REPORT_TIERS_H

#include <stddef.h>

#include "storeconf.h"
#include "strbuf.h"

/* A table is read a line at a time into a tiertable of at most this many
 * identities (about 21 KB each at most: 42 MB, within the unit's
 * MemoryHigh=): arclamp-log's default max_tier_identities (1000) plus as
 * many reserved_tier_identities as it allows (1000), so a table within
 * arclamp-log's defaults is read whole. */
#define TIERS_DEFAULT_MAX_TABLE_IDENTITIES 2000
#define TIERS_DEFAULT_MAX_IDENTITIES 100
#define TIERS_DEFAULT_MAX_TIERS 32

struct tiers_opts {
    const char *logs_dir;                /* arclamp-log's base_path */
    const char *reports_dir;             /* pages go under reports_dir/tiers */
    const char *const *formats;          /* arclamp-log's bucket formats */
    size_t nformats;
    size_t max_table_identities;         /* identities a table is read into (the rest:
                                            "_other") */
    size_t max_identities;               /* identities per page */
    size_t max_tiers;                    /* tiers per identity */
    int reports_index;                   /* reports_dir/index.html will be there (generate
                                            writes it): the tier index links it */
    int quiet;
    const struct store_config *store;    /* object_store (jobconf.h); NULL: none */
};

/* Brings the pages up to date; the caller holds the reports directory's
 * lock (jobfs_begin). What it did goes to `summary` when not NULL, else
 * is logged (run_finished, unless quiet). 0, or -1 when something could
 * not be read or written (said on stderr). */
int tiers_update(const struct tiers_opts *o, strbuf *summary);

/* `arclamp-report tiers`: takes the lock, draws from the object store
 * (from_store, reportsrc.h), tiers_update, publishes (reportpub.h).
 * Returns the exit status (0, 1, 75 when another job holds the lock); a
 * store that failed does not change it (counted in run_finished). */
int tiers_run(const struct tiers_opts *o);

#endif
