/* publish: the manifest of confirmed uploads, and uploads through it. See
 * publish.h. */
#include "publish.h"
#include "atomicfile.h"
#include "strbuf.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct manifest_line {
    char *key;              /* "container\tname" */
    long long size;
    long long sec;
    long nsec;
    char md5[33];
    int seen;               /* looked at in this run */
};

struct publisher {
    struct objstore *st;
    int dirfd;
    char *name;
    struct manifest_line *lines;   /* sorted by key: the manifest as loaded */
    size_t n, cap;
    struct manifest_line *added;   /* lines of objects first confirmed in this run */
    size_t nadded, added_cap;
    struct publish_stats stats;
};

static int cmp_line(const void *a, const void *b)
{
    return strcmp(((const struct manifest_line *)a)->key, ((const struct manifest_line *)b)->key);
}

static char *make_key(const char *container, const char *name)
{
    strbuf key = STRBUF_INIT;
    strbuf_appendf(&key, "%s\t%s", container, name);
    return (char *)strbuf_cstr(&key);
}

/* Parses "container\tname\tsize\tsec\tnsec\tmd5"; 0 or -1. */
static int parse_line(char *text, struct manifest_line *out)
{
    char *f[6];
    char *p = text;
    for (int i = 0; i < 6; i++) {
        f[i] = p;
        p = strchr(p, i < 5 ? '\t' : '\0');
        if (!p)
            return -1;
        if (i < 5)
            *p++ = '\0';
    }
    char *end;
    errno = 0;
    out->size = strtoll(f[2], &end, 10);
    if (errno || *end || out->size < 0)
        return -1;
    out->sec = strtoll(f[3], &end, 10);
    if (errno || *end)
        return -1;
    out->nsec = strtol(f[4], &end, 10);
    if (errno || *end || out->nsec < 0 || out->nsec > 999999999 || strlen(f[5]) != 32)
        return -1;
    memcpy(out->md5, f[5], 33);
    out->key = make_key(f[0], f[1]);
    out->seen = 0;
    return 0;
}

static void free_lines(struct manifest_line *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(lines[i].key);
    free(lines);
}

/* Reads the manifest; -1 for a malformed one (warn set), -2 past the
 * bound (err set). */
static int load(struct publisher *pub, char *warn, size_t warnlen, char *err, size_t errlen)
{
    int fd = openat(pub->dirfd, pub->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT && warn)
            snprintf(warn, warnlen, "%s: %s; every file is sent again", pub->name,
                     strerror(errno));
        return errno == ENOENT ? 0 : -1;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return -1;
    }
    char *text = NULL;
    size_t textcap = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&text, &textcap, f)) > 0) {
        if (text[len - 1] == '\n')
            text[len - 1] = '\0';
        if (pub->n >= PUBLISH_MANIFEST_MAX) {
            snprintf(err, errlen, "%s: more than %d lines", pub->name, PUBLISH_MANIFEST_MAX);
            rc = -2;
            break;
        }
        VEC_RESERVE(pub->lines, pub->cap, pub->n + 1, 256);
        if (parse_line(text, &pub->lines[pub->n]) < 0) {
            if (warn)
                snprintf(warn, warnlen, "%s:%zu: malformed line; every file is sent again",
                         pub->name, pub->n + 1);
            rc = -1;
            break;
        }
        pub->n++;
    }
    free(text);
    fclose(f);
    if (rc < 0) {
        free_lines(pub->lines, pub->n);
        pub->lines = NULL;
        pub->n = pub->cap = 0;
        return rc;
    }
    if (pub->n)
        qsort(pub->lines, pub->n, sizeof *pub->lines, cmp_line);
    return 0;
}

struct publisher *publish_open(struct objstore *st, int dirfd, const char *name, char *warn,
                               size_t warnlen, char *err, size_t errlen)
{
    if (warn && warnlen)
        warn[0] = '\0';
    struct publisher *pub = xcalloc(1, sizeof *pub);
    pub->st = st;
    pub->dirfd = dirfd;
    pub->name = xstrdup(name);
    if (load(pub, warn, warnlen, err, errlen) == -2) {
        free(pub->name);
        free(pub);
        return NULL;
    }
    return pub;
}

static struct manifest_line *find(struct publisher *pub, const char *key)
{
    struct manifest_line probe = {.key = (char *)key};
    if (!pub->n)
        return NULL; /* an empty manifest has no array to search (bsearch wants one) */
    return bsearch(&probe, pub->lines, pub->n, sizeof *pub->lines, cmp_line);
}

static int same_file(const struct manifest_line *line, const struct stat *sb)
{
    return line->size == (long long)sb->st_size && line->sec == (long long)sb->st_mtim.tv_sec &&
           line->nsec == sb->st_mtim.tv_nsec;
}

int publish_changed(struct publisher *pub, const char *container, const char *name,
                    const struct stat *sb)
{
    char *key = make_key(container, name);
    struct manifest_line *line = find(pub, key);
    free(key);
    if (!line)
        return 1;
    line->seen = 1;
    if (!same_file(line, sb))
        return 1;
    pub->stats.unchanged++;
    return 0;
}

static void remember(struct publisher *pub, const char *container, const char *name,
                     const struct stat *sb, const char md5[33])
{
    char *key = make_key(container, name);
    struct manifest_line *line = find(pub, key);
    if (!line) {
        VEC_RESERVE(pub->added, pub->added_cap, pub->nadded + 1, 64);
        line = &pub->added[pub->nadded++];
        line->key = key;
    } else {
        free(key);
    }
    line->size = (long long)sb->st_size;
    line->sec = (long long)sb->st_mtim.tv_sec;
    line->nsec = sb->st_mtim.tv_nsec;
    memcpy(line->md5, md5, 33);
    line->seen = 1;
}

int publish_upload(struct publisher *pub, const char *container, const char *name, int fd,
                   const struct stat *sb, const struct objstore_put *put, char *err,
                   size_t errlen)
{
    char md5[33];
    struct stat sent;
    if (fstat(fd, &sent) < 0) {
        snprintf(err, errlen, "fstat: %s", strerror(errno));
        pub->stats.failed++;
        return OBJ_ERR;
    }
    int rc = objstore_put_fd(pub->st, container, name, fd, put, md5, err, errlen);
    if (rc != OBJ_OK) {
        pub->stats.failed++;
        return rc;
    }
    remember(pub, container, name, sb, md5);
    pub->stats.uploaded++;
    pub->stats.bytes += (uint64_t)sent.st_size;
    return OBJ_OK;
}

const struct publish_stats *publish_stats(const struct publisher *pub)
{
    return &pub->stats;
}

static void write_lines(struct atomic_file *af, const struct manifest_line *lines, size_t n,
                        int complete)
{
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        if (complete && !lines[i].seen)
            continue;
        strbuf_reset(&sb);
        strbuf_appendf(&sb, "%s\t%lld\t%lld\t%ld\t%s\n", lines[i].key, lines[i].size,
                       lines[i].sec, lines[i].nsec, lines[i].md5);
        atomic_append(af, sb.data, sb.len);
    }
    strbuf_free(&sb);
}

int publish_close(struct publisher *pub, int complete, char *err, size_t errlen)
{
    int rc = 0;
    struct atomic_file *af = atomic_openat(pub->dirfd, pub->name, 0, 0, err, errlen);
    if (!af) {
        rc = -1;
    } else {
        fchmod(atomic_fd(af), 0600);
        write_lines(af, pub->lines, pub->n, complete);
        write_lines(af, pub->added, pub->nadded, complete);
        rc = atomic_commit(af, NULL, err, errlen);
    }
    free_lines(pub->lines, pub->n);
    free_lines(pub->added, pub->nadded);
    free(pub->name);
    free(pub);
    return rc;
}
