/* storesrc: drawing from many hosts' logs in the object store.
 *
 * With object_store.from_store, generate first merges every host's
 * <prefix>-logs-<period>/<host>/<name>.log.gz (storepub.h: what each
 * collector host publishes) into <logs_dir>/<period>/<name>.log.gz, the
 * hosts' gzip members one after the other (common/src/storemerge.h: only
 * what changed is fetched, logs gone from the store are removed, hostile
 * names skipped), then draws as usual: reading a merged log adds up the
 * counts of equal stacks, so each bucket and entry point gets one graph of
 * every host. The manifest is <data_dir>/.arclamp-svg/store-merged; the
 * index names the hosts each graph covers (storesrc_hosts_load). export's
 * time-range form merges the same way first (storesrc_fetch), so a range
 * is exported with every host's samples. */
#ifndef ARCLAMP_SVG_STORESRC_H
#define ARCLAMP_SVG_STORESRC_H

#include "gen_config.h"
#include "storemerge.h"

#define STORESRC_MANIFEST "store-merged"

/* Whether cfg draws from the store (an object_store with from_store). */
int storesrc_enabled(const struct gen_config *cfg);

/* Fetches and merges into logs_dir (open as logs_fd; the run lock held).
 * 0 done, 1 something failed (the rest done, the failed logs kept as they
 * were), -1 nothing could be done (err). */
int storesrc_run(const struct gen_config *cfg, int data_fd, int logs_fd,
                 struct storemerge_stats *st, char *err, size_t errlen);

/* storesrc_run for a command that only reads the merged logs (export):
 * opens data_dir and logs_dir (created when missing: the store is their
 * source) and holds generate's run lock while it merges, so the two never
 * write the same logs at once. 0 every log merged, -1 the store could not
 * be reached, the lock was busy or some logs failed (err says which; the
 * logs merged before are left as they were). */
int storesrc_fetch(const struct gen_config *cfg, struct storemerge_stats *st, char *err,
                   size_t errlen);

/* The hosts of each merged log (storemerge_hosts_of(h, period, file));
 * NULL when there is no manifest to read. */
struct storemerge_hosts *storesrc_hosts_load(const struct gen_config *cfg, int data_fd);

#endif
