/* storesrc: drawing from many hosts' logs in the object store.
 *
 * Several arclamp-log hosts (one per data centre or shard) publish their
 * logs as <prefix>-logs-<period>/<host>/<name>.log.gz (storepub.h). With
 * object_store.from_store, generate first lists those containers (for the
 * hosts in object_store.hosts, or all), and for every log name writes one
 * merged log <logs_dir>/<period>/<name>.log.gz: the hosts' gzip members one
 * after the other. Reading it adds the counts of equal stacks, which is how
 * trace logs merge, so the graph of a bucket and entry point is drawn from
 * every host at once. Its mtime is the newest member's time in the store.
 *
 * Only what changed is fetched: the manifest <data_dir>/.arclamp-svg/
 * store-merged remembers, per merged log, the hosts and ETags it was built
 * from; a log whose listing shows the same is left alone. A merged log
 * whose objects are gone from the store (retention) is removed, but only
 * one this module wrote (named in the manifest). A listing that fails
 * leaves everything as it was: the last good logs are drawn.
 *
 * Objects are checked before they are used: a name whose log part is not a
 * plain file name, or a host failing store_host_ok, is skipped and
 * counted; an object larger than max_object_mb or not gzip is refused. */
#ifndef ARCLAMP_SVG_STORESRC_H
#define ARCLAMP_SVG_STORESRC_H

#include <stddef.h>
#include <stdint.h>

#include "gen_config.h"
#include "strbuf.h"

#define STORESRC_MANIFEST "store-merged"

struct storesrc_stats {
    size_t logs;          /* merged logs, after the run */
    size_t fetched;       /* merged logs built again in this run */
    size_t objects;       /* objects downloaded */
    uint64_t bytes;       /* bytes downloaded */
    size_t removed;       /* merged logs removed (gone from the store) */
    size_t skipped;       /* objects skipped: names or hosts refused */
    size_t failed;        /* listings or downloads that failed */
};

/* Fetches and merges into logs_dir (open as logs_fd; the run lock held).
 * 0 done, 1 something failed (the rest done, the failed logs kept as they
 * were), -1 nothing could be done (err). */
int storesrc_run(const struct gen_config *cfg, int data_fd, int logs_fd,
                 struct storesrc_stats *st, char *err, size_t errlen);

/* Appends "; from the store: N logs (F fetched, O objects, B bytes)[, R
 * removed][, S skipped][, X failed]". */
void storesrc_summary(const struct storesrc_stats *st, strbuf *out);

/* The hosts a merged log was built from, "a,b" (malloc'd), from the
 * manifest; NULL when unknown. `cache` is loaded on first use and freed
 * with storesrc_hosts_free. */
struct storesrc_hosts;
struct storesrc_hosts *storesrc_hosts_load(const struct gen_config *cfg, int data_fd);
const char *storesrc_hosts_of(const struct storesrc_hosts *h, const char *period,
                              const char *name);
void storesrc_hosts_free(struct storesrc_hosts *h);

#endif
