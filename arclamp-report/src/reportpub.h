/* reportpub: what arclamp-report's timer jobs send to the object store
 * after a run (object_store.publish, jobconf.h), as the original Arc Lamp
 * keeps its files in Swift:
 *
 *   run logs     <prefix>-logs-<period>/[<host>/]<bucket>.<tag>.runs.gz
 *   tier tables  <prefix>-logs-<period>/[<host>/]<bucket>.tiers.gz
 *                this host's files of <logs_dir>/<period>/, gzip'ed on the
 *                way up to their last whole line, Content-Encoding: gzip,
 *                X-Delete-After: the retention (Swift); on S3 this host's
 *                objects past the retention are deleted by the run. Not
 *                sent by a host drawing from the store (from_store): its
 *                files are the other hosts'.
 *   pages        <prefix>-reports/<path under reports_dir>: every report,
 *                callgraph, diff, summary, tier page and index, as
 *                text/html; charset=utf-8, image/svg+xml, application/json
 *
 * Only what changed since the store last confirmed it is sent: manifests
 * "published-report-logs" and "published-reports" in the private
 * directory <reports_dir>/.arclamp-report/ (jobfs.h). A store that is down
 * costs the uploads only (common/src/storeup.h: counted, logged as
 * store_failed, sent again next run, the rest of the run given up on after
 * three failures in a row); the pages are written all the same. */
#ifndef ARCLAMP_REPORT_REPORTPUB_H
#define ARCLAMP_REPORT_REPORTPUB_H

#include <stddef.h>
#include <stdint.h>

#include "storeconf.h"
#include "strbuf.h"

#define REPORTPUB_MANIFEST_LOGS "published-report-logs"
#define REPORTPUB_MANIFEST_PAGES "published-reports"

struct reportpub_stats {
    size_t runs;            /* run logs the store confirmed in this run */
    size_t tables;          /* tier tables confirmed */
    size_t pages;           /* pages confirmed */
    size_t unchanged;       /* files not sent: unchanged since confirmed */
    size_t failed;          /* uploads, listings or deletions that failed */
    size_t expired;         /* S3: objects past retention deleted */
    uint64_t bytes;         /* bytes confirmed */
};

/* The Content-Type of a page by its name (.html, .svg, .json), or NULL:
 * not a page (not published). */
const char *reportpub_content_type(const char *name);

/* Publishes (the reports directory's lock held). 0 everything done, 1
 * something failed (retried next run), -1 nothing could be done (err: the
 * store or the private directory could not be opened). */
int reportpub_run(const struct store_config *sc, const char *logs_dir, const char *reports_dir,
                  struct reportpub_stats *st, char *err, size_t errlen);

/* Appends "; store: R run logs, T tier tables, P pages sent (B bytes), U
 * unchanged[, F failed (sent again next run)][, E expired]". */
void reportpub_summary(const struct reportpub_stats *st, strbuf *out);

/* The job's step: when sc publishes (NULL: no store), publishes, logs a
 * failure (store_failed) and appends reportpub_summary's text to
 * `summary`. A failure never changes the job's exit status. */
void reportpub_step(const struct store_config *sc, const char *logs_dir,
                    const char *reports_dir, strbuf *summary);

#endif
