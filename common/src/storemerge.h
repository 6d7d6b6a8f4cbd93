/* storemerge: many hosts' files in the object store, fetched and merged
 * into one local file per name — how a generator draws from every host.
 *
 * Collector hosts (arclamp-log, one per data centre or shard) publish
 * their files as <container>/<host>/<name><suffix> (gzip). For each kind
 * asked (trace logs ".log.gz", run logs ".runs.gz", tier tables
 * ".tiers.gz"), storemerge lists the period's container and writes, per
 * name, <logs_dir>/<period>/<name><out_suffix>: the hosts' objects one
 * after the other — as gzip members (a reader of .gz reads them all), or
 * unpacked for readers of plain files. Every format merged this way merges
 * by concatenation: a trace log's equal stacks add up when read, a run log
 * holds runs identified by their run ids, and a tier table's reader adds
 * up every line of a minute. The merged file's mtime is the newest
 * member's time in the store, so "only what changed" works downstream.
 *
 * Only what changed is fetched: the manifest (in the caller's private
 * directory) remembers, per merged file, the hosts and ETags it was built
 * from; a name whose listing shows the same is left alone. A merged file
 * whose objects are gone from the store (retention) is removed — only one
 * this module wrote, named in the manifest. A listing that fails leaves
 * that period as it was (the last good files are used).
 *
 * Objects are checked before they are used: a name whose file part is not
 * a plain file name (no '/', no leading '.'), or a host that fails
 * store_host_ok, is skipped and counted; an object larger than
 * max_object_mb (32 times that unpacked) or not gzip is refused and
 * counted, and its merged file is kept as it was. Nothing is written
 * outside <logs_dir>/<period>/, whose directories are opened without
 * following symlinks. */
#ifndef ARCLAMP_STOREMERGE_H
#define ARCLAMP_STOREMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "objstore.h"
#include "storeconf.h"
#include "strbuf.h"

/* One kind of file merged. */
struct storemerge_kind {
    const char *suffix;       /* of the objects: ".log.gz" */
    const char *out_suffix;   /* of the merged file: ".log.gz", ".runs", ".tiers" */
    int gunzip;               /* write the members unpacked */
};

struct storemerge_args {
    const struct store_config *sc;  /* containers, hosts and periods read, max_object_mb */
    struct objstore *store;
    int private_fd;           /* the caller's private directory: manifest, temporary files */
    const char *manifest;     /* the manifest's name in it */
    int logs_fd;              /* where <period>/<name><out_suffix> are written */
    const struct storemerge_kind *kinds;
    size_t nkinds;
};

struct storemerge_stats {
    size_t files;         /* merged files, after the run */
    size_t fetched;       /* merged files built again in this run */
    size_t objects;       /* objects downloaded */
    uint64_t bytes;       /* bytes downloaded */
    size_t removed;       /* merged files removed (gone from the store) */
    size_t skipped;       /* objects skipped: names or hosts refused */
    size_t failed;        /* listings or objects that failed or were refused */
};

/* Fetches and merges every period of sc->periods. 0 done, 1 something
 * failed (logged as store_failed; the rest done). */
int storemerge_run(const struct storemerge_args *a, struct storemerge_stats *st);
/* Appends "; from the store: N files (F fetched, O objects, B bytes)[, R
 * removed][, S objects skipped][, X failed ...]". */
void storemerge_summary(const struct storemerge_stats *st, const char *what, strbuf *out);

/* The hosts each merged file was built from, read from the manifest. */
struct storemerge_hosts;
struct storemerge_hosts *storemerge_hosts_load(int private_fd, const char *manifest);
/* "a,b" ("-" for objects without a host prefix) for <period>/<file>, or
 * NULL when the manifest does not name it. */
const char *storemerge_hosts_of(const struct storemerge_hosts *h, const char *period,
                                const char *file);
void storemerge_hosts_free(struct storemerge_hosts *h);

#endif
