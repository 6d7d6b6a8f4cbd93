/* publish: uploading a program's output files to the object store, each
 * only when it changed since the store last confirmed it.
 *
 * The publisher remembers, in a manifest file of the program's private
 * directory, every object the store confirmed (objstore_put_fd returned
 * OBJ_OK, so its ETag matched the MD5 of what was sent) with the size and
 * mtime its source file had. A file whose size and mtime are those of its
 * manifest line is not sent again. A failed upload leaves no line, so the
 * next run sends it again; local files are never removed here.
 *
 *   pub = publish_open(st, private_fd, "published-svg", err, errlen);
 *   if (publish_changed(pub, container, name, &sb))
 *       publish_upload(pub, container, name, fd, &sb, &put);
 *   publish_close(pub, complete, err, errlen);
 *
 * Manifest lines: "container\tname\tsize\tmtime_sec\tmtime_nsec\tmd5\n";
 * object names never hold control bytes (objstore_name_ok), so tabs and
 * newlines cannot appear in them. The manifest is rewritten atomically at
 * close; with `complete` set (every file was looked at) lines of files not
 * seen in this run are dropped, so it does not grow with files removed
 * locally (their objects stay in the store: it keeps history, retention
 * is the store's). */
#ifndef ARCLAMP_PUBLISH_H
#define ARCLAMP_PUBLISH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "objstore.h"

/* Most lines a manifest may hold (bounded memory). */
#define PUBLISH_MANIFEST_MAX 4000000

struct publish_stats {
    size_t uploaded;      /* objects the store confirmed in this run */
    size_t unchanged;     /* files not sent: unchanged since their confirmed upload */
    size_t failed;        /* uploads that failed (sent again next run) */
    uint64_t bytes;       /* bytes confirmed */
};

struct publisher;

/* Loads the manifest `name` from the directory open as `dirfd` (which must
 * be private to the running user; it is not closed). A missing manifest is
 * empty; an unreadable or malformed one is started anew (everything is
 * sent again), with a warning in `warn` when not NULL. NULL only on a
 * manifest past PUBLISH_MANIFEST_MAX lines, with err set. */
struct publisher *publish_open(struct objstore *st, int dirfd, const char *name, char *warn,
                               size_t warnlen, char *err, size_t errlen);
/* 1 when container/name has no manifest line with sb's size and mtime. In
 * both cases the line is marked seen. */
int publish_changed(struct publisher *pub, const char *container, const char *name,
                    const struct stat *sb);
/* Uploads the file open as `fd` (the bytes to store; `sb` is the stat of the
 * source the manifest remembers, which may be another file when the bytes
 * were derived from it, e.g. gzip'ed). Returns the objstore code; on OBJ_OK
 * the manifest line is set, otherwise the failure is counted and err says
 * why. */
int publish_upload(struct publisher *pub, const char *container, const char *name, int fd,
                   const struct stat *sb, const struct objstore_put *put, char *err,
                   size_t errlen);
/* The counters so far. */
const struct publish_stats *publish_stats(const struct publisher *pub);
/* Writes the manifest back (atomically) and frees the publisher. -1 with
 * err when it could not be written (uploads are then repeated next run). */
int publish_close(struct publisher *pub, int complete, char *err, size_t errlen);

#endif
