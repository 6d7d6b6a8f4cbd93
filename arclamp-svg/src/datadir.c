/* datadir: opening the data directories without following other users'
 * symlinks. See datadir.h. */
#include "datadir.h"
#include "gen_config.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int datadir_check_owner(int fd, const char *shown, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", shown, strerror(errno));
        return -1;
    }
    if (st.st_uid == geteuid() || st.st_uid == 0)
        return 0;
    snprintf(err, errlen, "%s belongs to uid %u, neither this user (uid %u) nor root: refused",
             shown, (unsigned)st.st_uid, (unsigned)geteuid());
    errno = EPERM;
    return -1;
}

int datadir_check_private(int fd, const char *shown, char *err, size_t errlen)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", shown, strerror(errno));
        return -1;
    }
    const char *why = st.st_uid != geteuid() && st.st_uid != 0 ? "belongs to another user"
                      : (st.st_mode & 022)                   ? "is writable by other users"
                                                             : NULL;
    if (!why)
        return 0;
    snprintf(err, errlen, "%s %s (uid %u, mode %04o): refused", shown, why, (unsigned)st.st_uid,
             (unsigned)(st.st_mode & 07777));
    errno = EPERM;
    return -1;
}

static int checked(int fd, const char *shown, char *err, size_t errlen)
{
    if (fd >= 0 && datadir_check_owner(fd, shown, err, errlen) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int datadir_openat(int dirfd, const char *shown, const char *name, int create, mode_t mode,
                   char *err, size_t errlen)
{
    if (create && mkdirat(dirfd, name, mode) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", shown, strerror(errno));
        return -1;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        snprintf(err, errlen, "%s: %s", shown,
                 saved == ELOOP || saved == ENOTDIR ? "not a directory (a symbolic link?): refused"
                                                    : strerror(saved));
        errno = saved;
        return -1;
    }
    return checked(fd, shown, err, errlen);
}

int datadir_open_regular(int dirfd, const char *name, struct stat *st, char *err,
                         size_t errlen)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fstat(fd, st) < 0) {
        int saved = errno;
        snprintf(err, errlen, "cannot open: %s",
                 saved == ELOOP ? "a symbolic link (refused)" : strerror(saved));
        if (fd >= 0)
            close(fd);
        errno = saved;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(err, errlen, "not a regular file");
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* mkdir -p of a trusted path; errno tells why on failure. */
static int mkdir_p(const char *path)
{
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = strchr(p + 1, '/'); s && rc == 0; s = strchr(s + 1, '/')) {
        *s = '\0';
        rc = mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
        *s = '/';
    }
    if (rc == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
        rc = -1;
    int saved = errno;
    free(p);
    errno = saved;
    return rc;
}

int datadir_open_base(const char *path, int create, char *err, size_t errlen)
{
    if (create && mkdir_p(path) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(saved));
        errno = saved;
        return -1;
    }
    return checked(fd, path, err, errlen);
}

/* The part of `path` below `base` ("" for base itself), or NULL. */
static const char *below(const char *base, const char *path)
{
    size_t n = strlen(base);
    if (strcmp(base, "/") == 0)
        return path[0] == '/' ? path + 1 : NULL;
    if (strncmp(base, path, n) != 0 || (path[n] != '\0' && path[n] != '/'))
        return NULL;
    return path[n] ? path + n + 1 : path + n;
}

int datadir_open(int base_fd, const char *base_path, const char *path, int create, char *err,
                 size_t errlen)
{
    const char *rest = below(base_path, path);
    if (!rest)
        return datadir_open_base(path, create, err, errlen);
    int fd = fcntl(base_fd, F_DUPFD_CLOEXEC, 0);
    char *parts = xstrdup(rest), *save = NULL;
    strbuf shown = STRBUF_INIT;
    strbuf_appends(&shown, base_path);
    for (char *c = strtok_r(parts, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
        strbuf_appendf(&shown, "/%s", c);
        int next = strcmp(c, "..") == 0 ? (errno = EPERM, -1)
                                          : datadir_openat(fd, strbuf_cstr(&shown), c, create,
                                                           0755, err, errlen);
        if (next < 0 && errno == EPERM && strcmp(c, "..") == 0)
            snprintf(err, errlen, "%s: \"..\" refused", path);
        int saved = errno;
        close(fd);
        errno = saved;
        fd = next;
    }
    free(parts);
    strbuf_free(&shown);
    return fd;
}

int datadir_open_private(int data_fd, const char *data_dir, int create, char *err,
                         size_t errlen)
{
    strbuf shown = STRBUF_INIT;
    strbuf_appendf(&shown, "%s/" GEN_PRIVATE_DIR, data_dir);
    int fd = datadir_openat(data_fd, strbuf_cstr(&shown), GEN_PRIVATE_DIR, create, 0700, err,
                            errlen);
    if (fd >= 0 && datadir_check_private(fd, strbuf_cstr(&shown), err, errlen) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        fd = -1;
    }
    strbuf_free(&shown);
    return fd;
}
