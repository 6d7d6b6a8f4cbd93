/* dirstream: listing a directory held open as a descriptor.
 *
 * The programs work through directory descriptors (opened with O_NOFOLLOW,
 * so a symlink swapped in cannot redirect them). fdopendir() takes over the
 * descriptor it is given and shares its offset, so listings use a copy,
 * rewound first. */
#ifndef ARCLAMP_DIRSTREAM_H
#define ARCLAMP_DIRSTREAM_H

#include <dirent.h>

/* A stream over a copy of `dirfd` (which stays open), at the first entry;
 * NULL on failure. Close with closedir(). */
DIR *dir_stream(int dirfd);

#endif
