/* reportsrc: drawing the reports from every host's run logs and tier
 * tables in the object store (object_store.from_store, jobconf.h).
 *
 * Before `generate` or `tiers` reports, every host's
 *   <prefix>-logs-<period>/<host>/<bucket>.<tag>.runs.gz  and
 *   <prefix>-logs-<period>/<host>/<bucket>.tiers.gz
 * (reportpub.h: what each host publishes) is merged, unpacked, into
 * <logs_dir>/<period>/<bucket>.<tag>.runs and <bucket>.tiers
 * (common/src/storemerge.h: only what changed is fetched, files gone from
 * the store are removed, hostile names skipped), then the job reports as
 * usual: a run log is read run by run, each run id counted once; a tier
 * table's reader adds up every line of a minute — so the pages are the
 * fleet's. The manifest is <reports_dir>/.arclamp-report/
 * store-merged-report (not arclamp-svg's, which may share a host). */
#ifndef ARCLAMP_REPORT_REPORTSRC_H
#define ARCLAMP_REPORT_REPORTSRC_H

#include <stddef.h>

#include "storemerge.h"

#define REPORTSRC_MANIFEST "store-merged-report"

/* Fetches and merges (the reports directory's lock held); logs_dir is
 * made when missing. 0 done, 1 something failed (the rest done, the
 * failed files kept as they were), -1 nothing could be done (err). */
int reportsrc_run(const struct store_config *sc, const char *logs_dir, const char *reports_dir,
                  struct storemerge_stats *st, char *err, size_t errlen);

/* The job's step: when sc draws from the store (NULL: no store), fetches,
 * logs a failure (store_failed: the files merged before are reported) and
 * appends storemerge_summary's text to `summary`. */
void reportsrc_step(const struct store_config *sc, const char *logs_dir,
                    const char *reports_dir, strbuf *summary);

#endif
