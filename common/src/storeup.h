/* storeup: uploading the files of a directory tree through a publisher
 * (publish.h) — what both timer jobs (arclamp-svg, arclamp-report) do
 * after a run: each file sent only when it changed since the store last
 * confirmed it, plain logs gzip'ed on the way up to their last whole line
 * (a line still being written is never published half), each container
 * made sure of once per run, and a store that is down costing the run its
 * uploads only: every failure is counted and logged (store_failed, "sent
 * again next run"), and after STOREUP_GIVE_UP failures in a row the store
 * is taken as down for the rest of the run (store_down) instead of
 * costing a timeout per file. On S3, which has no per-object expiry
 * header, storeup_expire deletes this host's objects past the retention.
 *
 *   struct storeup u;
 *   storeup_init(&u, store, private_fd);
 *   storeup_open_manifest(&u, "published-x", err, errlen);
 *   storeup_file(&u, container, name, fd, &sb, &put, gzip_level);
 *   storeup_close_manifest(&u, complete);
 *   storeup_free(&u);
 *
 * Ownership: the caller owns the store handle and the private directory's
 * descriptor; storeup owns its publisher and its list of containers. */
#ifndef ARCLAMP_STOREUP_H
#define ARCLAMP_STOREUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "objstore.h"
#include "publish.h"

/* Failures in a row after which the store is taken as down for the run. */
#define STOREUP_GIVE_UP 3

struct storeup {
    struct objstore *store;
    int private_fd;            /* temporary files, manifests */
    struct publisher *pub;     /* the manifest open now; NULL: none */
    char **ensured;            /* containers made sure of in this run */
    size_t nensured, ensured_cap;
    int in_a_row;              /* failures in a row */
    int gave_up;               /* the store is down for this run */
    /* counters of the run, every manifest's added up */
    size_t uploaded;           /* objects the store confirmed */
    size_t unchanged;          /* files not sent: unchanged since confirmed */
    size_t failed;             /* uploads, listings or deletions that failed */
    size_t expired;            /* S3: objects past retention deleted */
    uint64_t bytes;            /* bytes confirmed */
};

void storeup_init(struct storeup *u, struct objstore *store, int private_fd);
/* Frees what storeup_init and the run allocated (a manifest still open is
 * closed as incomplete). */
void storeup_free(struct storeup *u);

/* Counts and logs a failure about container/name (store_failed); the
 * STOREUP_GIVE_UP-th in a row gives up for the run (store_down). */
void storeup_failure(struct storeup *u, const char *container, const char *name,
                     const char *why);
/* Ends a run of failures. */
void storeup_success(struct storeup *u);
/* Makes sure of `container` once per run. The objstore code. */
int storeup_ensure(struct storeup *u, const char *container, char *why, size_t whylen);

/* Opens the manifest `name` of the private directory (a malformed one is
 * started anew, with a warning logged). 0, or -1 with err. */
int storeup_open_manifest(struct storeup *u, const char *name, char *err, size_t errlen);
/* Adds its counters to the run's and writes it back; `complete` (every
 * file was looked at, the store not given up on) drops the lines of files
 * not seen. A manifest that cannot be written is logged (its files are
 * sent again next run). */
void storeup_close_manifest(struct storeup *u, int complete);

/* Writes the first `size` bytes of `fd`, up to its last newline (a line
 * longer than 1 MiB is sent as it is), gzip'ed at `level` into `out`.
 * 0, or -1 with err. */
int storeup_gzip_lines(int fd, off_t size, int out, int level, char *err, size_t errlen);

/* Sends the file open as `fd` (stat `sb`) as container/name through the
 * open manifest, unless it is unchanged or the store was given up on;
 * with gzip_level >= 0, a gzip'ed copy of its whole lines (an unnamed
 * temporary file of the private directory) is what is sent. 1 sent, 0 not
 * due, -1 failed (counted and logged). */
int storeup_file(struct storeup *u, const char *container, const char *name, int fd,
                 const struct stat *sb, const struct objstore_put *put, int gzip_level);

/* S3: deletes the objects of `container` under "<host>/" (host NULL or
 * "": the objects without a host prefix) last modified more than
 * retention_days ago. Failures are counted and logged. */
void storeup_expire(struct storeup *u, const char *container, const char *host,
                    double retention_days);

/* retention_days as the seconds of X-Delete-After. */
int64_t storeup_retention_seconds(double retention_days);

#endif
