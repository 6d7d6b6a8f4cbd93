/* dirstream: listing a directory held open as a descriptor.
 *
 * The programs work through directory descriptors (opened with O_NOFOLLOW,
 * so a symlink swapped in cannot redirect them). fdopendir() takes over the
 * descriptor it is given and shares its offset, so listings use a copy,
 * rewound first. */
#ifndef ARCLAMP_DIRSTREAM_H
#define ARCLAMP_DIRSTREAM_H

#include <dirent.h>
#include <stddef.h>

/* A stream over a copy of `dirfd` (which stays open), at the first entry;
 * NULL on failure. Close with closedir(). */
DIR *dir_stream(int dirfd);

/* The names in the directory open as `dirfd` that do not start with '.'
 * (temporary files, private directories, locks), sorted bytewise: a stable
 * order for whoever walks a tree. *names is a malloc'ed array of *n
 * malloc'ed names (NULL when none); free it with dir_names_free. 0, or -1
 * when the directory cannot be read. */
int dir_sorted_names(int dirfd, char ***names, size_t *n);
void dir_names_free(char **names, size_t n);

#endif
