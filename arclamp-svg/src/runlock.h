/* runlock: one maintenance run at a time, and a lock nobody else can take.
 *
 * generate and compress hold an exclusive flock(2) on the configured
 * lock_file while they work. The kernel drops the lock when the process
 * ends, however it ends, so a crash never leaves a stale lock; the file
 * itself is never removed (removing it would let two runs lock two
 * different files).
 *
 * flock needs only an open descriptor, so whoever can open the file can
 * hold the lock and stop the graphs (issue 14). Hence: the lock file is
 * created 0600 (an older, wider mode is narrowed), must be a regular file
 * owned by the running user, is opened with O_NOFOLLOW, and its directory
 * must belong to the running user (or root) and be writable by nobody
 * else, so no other user can put a file of theirs in its place. By
 * default it lives in <data_dir>/.arclamp-svg/, created 0700.
 *
 * Every wait is bounded: runlock_acquire gives up after `timeout` seconds
 * and the caller counts a skipped run (runstate.h). */
#ifndef ARCLAMP_SVG_RUNLOCK_H
#define ARCLAMP_SVG_RUNLOCK_H

#include <stddef.h>

/* Exit status of a run that gave up waiting for the lock: EX_TEMPFAIL. */
#define RUNLOCK_BUSY_STATUS 75

enum runlock_result {
    RUNLOCK_OK = 0,    /* locked; *fd holds the lock until closed */
    RUNLOCK_BUSY = 1,  /* another process held it for `timeout` seconds */
    RUNLOCK_ERROR = -1 /* the file could not be opened, trusted or locked; err says why */
};

/* Takes the lock on `path`, waiting at most `timeout` seconds (0: not at
 * all). Creates the file (0600) and, when missing, its directory (0700).
 * Release with runlock_release(*fd) or by exiting. */
enum runlock_result runlock_acquire(const char *path, double timeout, int *fd, char *err,
                                    size_t errlen);
void runlock_release(int fd);

/* flock(fd, LOCK_EX) waiting at most `timeout` seconds: 0 locked, 1 timed
 * out, -1 error (errno set). The wait is cut by SIGALRM (setitimer), whose
 * handler is restored afterwards. */
int runlock_flock_bounded(int fd, double timeout);

#endif
