/* jobfs: what arclamp-report's timer jobs (generate's XHProf pages,
 * tiers' request-tier pages) share about the files they read and write:
 * which directory and file names they accept, how a page carries the
 * time of its inputs (so an unchanged input costs nothing), and the one
 * lock and owner of the reports directory. */
#ifndef ARCLAMP_REPORT_JOBFS_H
#define ARCLAMP_REPORT_JOBFS_H

#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#define JOBFS_LOCK_NAME ".arclamp-report.lock"
/* The jobs' private directory in the reports directory: the object
 * store's manifests and temporary files (a dot name: never listed as a
 * page, never published, denied by the web server's config). */
#define JOBFS_PRIVATE_DIR ".arclamp-report"

/* A period directory name that may be mirrored under the reports
 * directory: 1-100 bytes of [A-Za-z0-9_.-], no leading dot, not
 * "index.html". */
int jobfs_period_ok(const char *s);

/* Reads `name` as a bucket of one of the formats (bucket.h): with
 * `with_tag`, "<bucket>.<tag>" where the tag is valid (or "all"); without,
 * the bucket alone. The longest bucket wins. Returns the format's index
 * and its length in *bucket_len, or -1 when no format reads it. */
int jobfs_bucket_of(const char *const *formats, size_t nformats, const char *name,
                    int with_tag, size_t *bucket_len);

/* Calls fn(arg, period, file, st) for every regular file (symlinks are not
 * followed) named *<suffix>, not a dot file, in the directories
 * <logs_dir>/<period> whose names jobfs_period_ok accepts. A period that
 * cannot be listed is said on stderr and skipped; -1 (said too) when
 * logs_dir itself cannot be listed. */
typedef void jobfs_file_fn(void *arg, const char *period, const char *file,
                           const struct stat *st);
int jobfs_scan(const char *logs_dir, const char *suffix, jobfs_file_fn *fn, void *arg);

/* Stale pages. In the directory `name` of parent_fd (not followed): removes
 * the temporary files of interrupted writes and every other file, dot files
 * aside, that wanted(arg, file) does not keep; then the directory itself
 * when that left it empty. Returns how many files went. */
typedef int jobfs_wanted_fn(void *arg, const char *file);
size_t jobfs_prune_dir(int parent_fd, const char *name, jobfs_wanted_fn *wanted, void *arg);
/* Calls fn(arg, dirfd, period) for every directory of dirfd (not a
 * symlink) whose name period_ok accepts; returns the sum of what fn
 * returned. */
typedef size_t jobfs_period_fn(void *arg, int dirfd, const char *period);
size_t jobfs_each_period(int dirfd, int (*period_ok)(const char *), jobfs_period_fn *fn,
                         void *arg);

/* The later of two times. */
const struct timespec *jobfs_newer(const struct timespec *a, const struct timespec *b);
/* Whether the page at `path` is a regular file carrying the inputs' time:
 * nothing to redo. */
int jobfs_up_to_date(const char *path, const struct timespec *inputs);
/* Gives the page its inputs' time. 0, or -1 with err set. */
int jobfs_stamp(const char *path, const struct timespec *t, char *err, size_t errlen);

/* Before a job writes: as root, become the owner of reports_dir (or of the
 * directory it will be made in), make reports_dir, take its lock. Returns
 * the lock's descriptor (close it when done), -1 on failure (said on
 * stderr), -2 when another job holds the lock (said too). */
int jobfs_begin(const char *reports_dir);

/* 1 when `name` of dirfd (AT_FDCWD: a path) is a regular file (not
 * followed) holding exactly these bytes: an index page that would not
 * change is not written again, so it keeps its mtime and is not
 * published again (reportpub.h). */
int jobfs_same_bytes(int dirfd, const char *name, const void *data, size_t len);

/* Opens <reports_dir>/JOBFS_PRIVATE_DIR, made 0700 when missing; a
 * symlink is not followed, a directory of another user (root aside) or
 * writable by others is refused. An fd, or -1 with err. */
int jobfs_private_dir(const char *reports_dir, char *err, size_t errlen);

#endif
