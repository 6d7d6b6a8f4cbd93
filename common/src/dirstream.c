/* dirstream: listing a directory held open as a descriptor (see dirstream.h). */
#include "dirstream.h"

#include "strbuf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int dir_sorted_names(int dirfd, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    DIR *d = dir_stream(dirfd);
    if (!d)
        return -1;
    size_t cap = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        if (*n == cap) { /* vec.h is not compiled into the extension: grown here */
            cap = cap ? 2 * cap : 32;
            *names = xrealloc(*names, cap * sizeof **names);
        }
        (*names)[(*n)++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (*n) /* qsort wants an array, even of none */
        qsort(*names, *n, sizeof **names, cmp_names);
    return 0;
}

void dir_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
