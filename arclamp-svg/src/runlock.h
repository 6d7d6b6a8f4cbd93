/* runlock: one maintenance run at a time.
 *
 * generate and compress hold an exclusive flock(2) on the configured
 * lock_file while they work. The kernel drops the lock when the process
 * ends, however it ends, so a crash never leaves a stale lock; the file
 * itself is never removed (removing it would let two runs lock two
 * different files). */
#ifndef ARCLAMP_SVG_RUNLOCK_H
#define ARCLAMP_SVG_RUNLOCK_H

#include <stddef.h>

/* Exit status of a run that found the lock held: EX_TEMPFAIL ("try again
 * later"); a systemd unit may list it in SuccessExitStatus=. */
#define RUNLOCK_BUSY_STATUS 75

enum runlock_result {
    RUNLOCK_OK = 0,    /* locked; *fd holds the lock until closed */
    RUNLOCK_BUSY = 1,  /* another process holds it (only without `wait`) */
    RUNLOCK_ERROR = -1 /* the file could not be opened or locked; err says why */
};

/* Takes the lock on `path` (created 0644 if missing). With `wait`, blocks
 * until it is free. Release with runlock_release(*fd) or by exiting. */
enum runlock_result runlock_acquire(const char *path, int wait, int *fd, char *err,
                                    size_t errlen);
void runlock_release(int fd);

#endif
