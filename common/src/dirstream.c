/* dirstream: listing a directory held open as a descriptor (see dirstream.h). */
#include "dirstream.h"

#include <fcntl.h>
#include <unistd.h>

DIR *dir_stream(int dirfd)
{
    int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    rewinddir(d);
    return d;
}
