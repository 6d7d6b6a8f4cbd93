/* dropowner: root becomes the owner of its working directory (see
 * dropowner.h). */
#include "dropowner.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int drop_root_to_owner(const char *dir, const char *what, char *err, size_t errlen)
{
    struct stat st;
    if (geteuid() != 0)
        return 0;
    if (stat(dir, &st) < 0) {
        if (errno == ENOENT)
            return 0; /* made by this run, as root: root's */
        snprintf(err, errlen, "%s %s: %s", what, dir, strerror(errno));
        return -1;
    }
    if (st.st_uid == 0)
        return 0;
    if (setgroups(0, NULL) < 0 || setgid(st.st_gid) < 0 || setuid(st.st_uid) < 0) {
        snprintf(err, errlen, "cannot become uid %u gid %u, the owner of %s %s: %s",
                 (unsigned)st.st_uid, (unsigned)st.st_gid, what, dir, strerror(errno));
        return -1;
    }
    if (setuid(0) == 0) { /* must be impossible now */
        snprintf(err, errlen, "could regain root after dropping it: refused");
        return -1;
    }
    return 0;
}
