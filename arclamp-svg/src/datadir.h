/* datadir: the directories generate and compress write into, opened so
 * that no other user can redirect them.
 *
 * The configured paths (data_dir, and logs_dir or svgs_dir when they are
 * not below data_dir) are the trusted bases: the administrator wrote them,
 * so symlinks in them are followed. Everything below a base is opened
 * component by component with openat(O_NOFOLLOW): a symlink planted there
 * (svgs -> /etc) is refused, not followed. Every directory opened must
 * belong to the running user or to root; one that belongs to anybody else
 * is refused.
 *
 * Run as root, generate and compress first become the owner of data_dir
 * (its uid and gid, no supplementary groups) unless root owns it
 * (common/src/dropowner.c): a run by hand then does exactly what the
 * timer's run would do, and leaves no root-owned file behind. */
#ifndef ARCLAMP_SVG_DATADIR_H
#define ARCLAMP_SVG_DATADIR_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The running user or root owns the directory open as `fd`; else -1 with
 * err naming `shown`. */
int datadir_check_owner(int fd, const char *shown, char *err, size_t errlen);

/* The directory open as `fd` is private enough to hold our own files: the
 * running user or root owns it and nobody else may write to it (else a
 * file of theirs could take a name in it). -1 with err naming `shown`. */
int datadir_check_private(int fd, const char *shown, char *err, size_t errlen);

/* Opens <data_dir>/GEN_PRIVATE_DIR below `data_fd` (O_NOFOLLOW), creating
 * it 0700 when `create`; datadir_check_private'd. -1 with err (errno
 * ENOENT when missing). */
int datadir_open_private(int data_fd, const char *data_dir, int create, char *err,
                         size_t errlen);

/* Opens directory `name` below `dirfd` without following a symlink,
 * creating it (`mode`) first when `create`; owner checked. -1 with err
 * (errno kept: ENOENT when missing). */
int datadir_openat(int dirfd, const char *shown, const char *name, int create, mode_t mode,
                   char *err, size_t errlen);

/* Opens `path`: walked from base_fd with datadir_openat when it is
 * `base_path` or below it (as written), else opened as a trusted base of
 * its own; owner checked either way. `create` makes missing components
 * (0755). -1 with err set (errno ENOENT when missing). */
int datadir_open(int base_fd, const char *base_path, const char *path, int create, char *err,
                 size_t errlen);

/* Opens file `name` in directory `dirfd` for reading without following a
 * symlink or blocking on a FIFO, and fstat's it into *st: the fd of a
 * regular file, or -1 with err set ("cannot open: ...", "not a regular
 * file") and errno kept (ENOENT when missing, EINVAL when not regular). */
int datadir_open_regular(int dirfd, const char *name, struct stat *st, char *err,
                         size_t errlen);

/* Opens a trusted base (`create`: mkdir -p first), owner checked. */
int datadir_open_base(const char *path, int create, char *err, size_t errlen);

#endif
