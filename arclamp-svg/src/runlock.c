/* runlock: flock on the lock file. See runlock.h. */
#include "runlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

enum runlock_result runlock_acquire(const char *path, int wait, int *fd, char *err,
                                    size_t errlen)
{
    *fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (*fd < 0) {
        snprintf(err, errlen, "lock file %s: %s", path, strerror(errno));
        return RUNLOCK_ERROR;
    }
    int rc;
    do
        rc = flock(*fd, LOCK_EX | (wait ? 0 : LOCK_NB));
    while (rc < 0 && errno == EINTR);
    if (rc == 0)
        return RUNLOCK_OK;
    int saved = errno;
    close(*fd);
    *fd = -1;
    if (saved == EWOULDBLOCK)
        return RUNLOCK_BUSY;
    snprintf(err, errlen, "lock file %s: %s", path, strerror(saved));
    return RUNLOCK_ERROR;
}

void runlock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}
