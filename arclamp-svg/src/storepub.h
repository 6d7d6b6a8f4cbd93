/* storepub: publishing the generator's files to the object store, as the
 * original Arc Lamp keeps them in Swift.
 *
 *   logs    <prefix>-logs-<period>/[<host>/]<name>.log.gz   every trace log,
 *           gzip'ed (a plain log is gzip'ed on the way, up to its last
 *           whole line), Content-Encoding: gzip, X-Delete-After: the
 *           retention (Swift); on S3 this host's objects older than the
 *           retention are deleted by the run
 *   graphs  <prefix>-svgs-<period>/<name>.svgz                image/svg+xml,
 *           Content-Encoding: gzip
 *   index   <prefix>-index/index.json: the original's index — a JSON array
 *           of the listing items (name, hash, bytes, last_modified,
 *           content_type, and the container) of every svgs container —
 *           and the same bytes in <data_dir>/store-index.json
 *
 * Only what changed since the store last confirmed it is sent (publish.h;
 * manifests in the private directory). A store that is down, slow or
 * refusing costs the run its uploads only: they are counted, logged
 * (store_failed) and sent again next run; local files are never removed
 * here. A host drawing from the store (object_store.from_store) publishes
 * its graphs and the index, never the logs it fetched. */
#ifndef ARCLAMP_SVG_STOREPUB_H
#define ARCLAMP_SVG_STOREPUB_H

#include <stddef.h>
#include <stdint.h>

#include "gen_config.h"

#define STOREPUB_INDEX_NAME "index.json"
#define STOREPUB_LOCAL_INDEX "store-index.json"

struct storepub_stats {
    size_t logs;            /* logs the store confirmed in this run */
    size_t graphs;          /* graphs confirmed */
    size_t unchanged;       /* files not sent: unchanged since confirmed */
    size_t failed;          /* uploads (or listings, deletions) that failed */
    size_t expired;         /* S3: objects past retention deleted */
    uint64_t bytes;         /* bytes confirmed */
    int index;              /* the index was published */
};

/* Publishes from the open directories (the run lock held). Returns 0 when
 * everything was done, 1 when something failed (it is retried next run),
 * -1 when nothing could be done (err says why: the store could not be
 * opened, the private directory refused). */
int storepub_run(const struct gen_config *cfg, int data_fd, int logs_fd, int svgs_fd,
                 struct storepub_stats *st, char *err, size_t errlen);

/* Appends the summary "; store: L logs, G graphs sent (B bytes), U
 * unchanged[, F failed][, E expired], index sent". */
void storepub_summary(const struct storepub_stats *st, strbuf *out);

#endif
