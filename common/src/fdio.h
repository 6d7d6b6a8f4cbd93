/* fdio: whole-buffer reads and writes on a file descriptor.
 *
 * write(2) and read(2) may move fewer bytes than asked (pipes, signals);
 * every caller that wants "all of it" needs the same loop, retrying EINTR,
 * so it lives here once (atomicfile's temporary files, arclamp-svg's
 * child-to-parent report in datarun). */
#ifndef ARCLAMP_FDIO_H
#define ARCLAMP_FDIO_H

#include <stddef.h>
#include <sys/types.h>

/* Writes all `len` bytes: 0, or -1 (errno set; 0 bytes written by a
 * write(2) that returned 0 count as EIO). */
int fd_write_all(int fd, const void *data, size_t len);

/* Reads until end of file or `cap` bytes: how many, or -1 (errno set). */
ssize_t fd_read_up_to(int fd, void *buf, size_t cap);

#endif
