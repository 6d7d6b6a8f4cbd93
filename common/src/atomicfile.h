/* atomicfile: writing a file so that readers see the old one or the whole
 * new one, never a part.
 *
 * Data goes to a temporary file in the target's directory, named
 * ATOMIC_TMP_PREFIX + random (so a crash leaves only names that
 * atomic_is_temp_name recognises and a later run can remove); on commit it
 * is optionally gzip'ed (zlib, gzip format, no name or time in the header,
 * so output is deterministic), fsync'ed, given its mode and mtime, renamed
 * over the target and the directory fsync'ed. Any failure removes the
 * temporary file and leaves the target as it was. New files get mode
 * 0666 & ~umask, like any created file.
 *
 * Streaming use (large outputs, compress):
 *     af = atomic_open(path, ATOMIC_GZIP, 6, err, errlen);
 *     atomic_append(af, data, len) ...      (errors are remembered)
 *     atomic_commit(af, NULL, err, errlen); (or atomic_abort(af))
 * One-shot: atomic_write(path, data, len, gzip, err, errlen). */
#ifndef ARCLAMP_ATOMICFILE_H
#define ARCLAMP_ATOMICFILE_H

#include <stddef.h>
#include <time.h>

#define ATOMIC_TMP_PREFIX ".arclamp-tmp-"
#define ATOMIC_GZIP 1u   /* gzip what is appended */
/* No fsync of the file or the directory: a reader still never sees a part
 * and a failed write still leaves nothing, but a power loss may leave the
 * new file empty. For writers whose caller waits (a PHP request's end),
 * where a lost file after a crash costs less than milliseconds on every
 * write. */
#define ATOMIC_NO_SYNC 2u

struct atomic_file;

/* Starts writing `path` (its directory must exist). `level` is the zlib level
 * (1-9) when ATOMIC_GZIP is set. NULL with a message in err on failure. */
struct atomic_file *atomic_open(const char *path, unsigned flags, int level, char *err,
                                size_t errlen);
/* The same for `name` in the directory open as `dirfd` (not closed; kept
 * open, dup'ed, until commit or abort). `name` must not contain '/'. */
struct atomic_file *atomic_openat(int dirfd, const char *name, unsigned flags, int level,
                                  char *err, size_t errlen);
/* Appends (compressing when asked). Returns 0, or -1 after the first error,
 * which commit then reports. */
int atomic_append(struct atomic_file *af, const void *data, size_t len);
/* The temporary file's descriptor (for fchmod/fchown before commit). */
int atomic_fd(const struct atomic_file *af);
/* Bytes given to atomic_append so far (before compression). */
unsigned long long atomic_bytes_in(const struct atomic_file *af);
/* Finishes: sets the mtime (and atime) when `mtime` is not NULL, fsyncs,
 * renames over the target, fsyncs the directory. Always frees `af`; on
 * failure the temporary file is removed and -1 returned with err set. */
int atomic_commit(struct atomic_file *af, const struct timespec *mtime, char *err,
                  size_t errlen);
/* Gives up: removes the temporary file and frees `af` (NULL is fine). */
void atomic_abort(struct atomic_file *af);

/* One call: `len` bytes to `path`, gzip'ed (level 6) when `gzip` is set. */
int atomic_write(const char *path, const void *data, size_t len, int gzip, char *err,
                 size_t errlen);
/* One call in a directory, with a level and an optional mtime. */
int atomic_writeat(int dirfd, const char *name, const void *data, size_t len, unsigned flags,
                   int level, const struct timespec *mtime, char *err, size_t errlen);

/* True for names of temporary files this module makes. */
int atomic_is_temp_name(const char *name);
/* Removes the temporary files left in the directory `dirfd` by interrupted
 * writers (callers hold a lock that rules out live ones). Returns how many. */
int atomic_clean_temps(int dirfd);

#endif
