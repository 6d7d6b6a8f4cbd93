/* retention: pruning of old trace logs and run logs per (log group, tag,
 * kind). */
#include "retention.h"
#include "bucket.h"
#include "layout.h"
#include "log.h"
#include "strbuf.h"
#include "vec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct candidate {
    char *name;
    struct timespec mtime;
};

int retention_name_matches(const char *format, const char *tag, const char *suffix,
                           const char *name)
{
    ssize_t n = bucket_match_prefix(format, name);
    if (n <= 0 || name[n] != '.')
        return 0;
    const char *rest = name + n + 1;
    size_t tag_len = strlen(tag);
    if (strncmp(rest, tag, tag_len) != 0)
        return 0;
    rest += tag_len;
    size_t suffix_len = strlen(suffix);
    if (strncmp(rest, suffix, suffix_len) != 0)
        return 0;
    rest += suffix_len;
    return strcmp(rest, "") == 0 || strcmp(rest, LAYOUT_GZ_SUFFIX) == 0;
}

static int older_first(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

long retention_prune(const char *dir, const char *format, const char *tag, const char *suffix,
                     long retain)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct candidate *list = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (!retention_name_matches(format, tag, suffix, de->d_name))
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue; /* vanished meanwhile, or not ours to remove */
        VEC_RESERVE(list, cap, n + 1, 64);
        list[n].name = xstrdup(de->d_name);
        list[n].mtime = st.st_mtim;
        n++;
    }
    long removed = 0;
    if (n > (size_t)retain) {
        qsort(list, n, sizeof *list, older_first);
        for (size_t i = 0; i < n - (size_t)retain; i++) {
            if (unlinkat(dirfd(d), list[i].name, 0) == 0)
                removed++;
            else if (errno != ENOENT)
                log_event(LOG_WARNING, "prune_failed", LOG_FIELDS({"ARCLAMP_FILE", list[i].name}),
                          "cannot remove %s/%s: %s", dir, list[i].name, strerror(errno));
        }
    }
    for (size_t i = 0; i < n; i++)
        free(list[i].name);
    free(list);
    closedir(d);
    return removed;
}
