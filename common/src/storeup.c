/* storeup: files sent to the object store through a manifest, with the
 * give-up-after-failures rule and S3's expiry. See storeup.h. */
#include "storeup.h"
#include "clock.h"
#include "log.h"
#include "strbuf.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A line longer than this is sent even without its newline (it is no
 * valid line of any log anyway); bounds what is held back. */
#define MAX_HELD_BACK (1u << 20)

void storeup_init(struct storeup *u, struct objstore *store, int private_fd)
{
    memset(u, 0, sizeof *u);
    u->store = store;
    u->private_fd = private_fd;
}

void storeup_free(struct storeup *u)
{
    if (u->pub)
        storeup_close_manifest(u, 0);
    for (size_t i = 0; i < u->nensured; i++)
        free(u->ensured[i]);
    free(u->ensured);
    u->ensured = NULL;
    u->nensured = u->ensured_cap = 0;
}

void storeup_failure(struct storeup *u, const char *container, const char *name,
                     const char *why)
{
    u->failed++;
    strbuf obj = STRBUF_INIT;
    strbuf_appendf(&obj, "%s/%s", container, name);
    log_untrusted(LOG_WARNING, "store_failed", LOG_FIELDS({"ARCLAMP_OBJECT", strbuf_cstr(&obj)}),
                  "%s: %s (sent again next run)", strbuf_cstr(&obj), why);
    strbuf_free(&obj);
    if (++u->in_a_row >= STOREUP_GIVE_UP && !u->gave_up) {
        u->gave_up = 1;
        log_event(LOG_WARNING, "store_down", LOG_NO_FIELDS,
                  "%d uploads in a row failed: the rest waits for the next run",
                  STOREUP_GIVE_UP);
    }
}

void storeup_success(struct storeup *u)
{
    u->in_a_row = 0;
}

int storeup_ensure(struct storeup *u, const char *container, char *why, size_t whylen)
{
    for (size_t i = 0; i < u->nensured; i++) {
        if (strcmp(u->ensured[i], container) == 0)
            return OBJ_OK;
    }
    int rc = objstore_ensure_container(u->store, container, why, whylen);
    if (rc == OBJ_OK) {
        VEC_RESERVE(u->ensured, u->ensured_cap, u->nensured + 1, 8);
        u->ensured[u->nensured++] = xstrdup(container);
    }
    return rc;
}

int storeup_open_manifest(struct storeup *u, const char *name, char *err, size_t errlen)
{
    char warn[512];
    u->pub = publish_open(u->store, u->private_fd, name, warn, sizeof warn, err, errlen);
    if (warn[0])
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS, "%s", warn);
    return u->pub ? 0 : -1;
}

void storeup_close_manifest(struct storeup *u, int complete)
{
    if (!u->pub)
        return;
    const struct publish_stats *ps = publish_stats(u->pub);
    u->unchanged += ps->unchanged;
    u->bytes += ps->bytes;
    char why[1024];
    if (publish_close(u->pub, complete && !u->gave_up, why, sizeof why) < 0)
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS,
                      "manifest not written: %s (files are sent again next run)", why);
    u->pub = NULL;
}

int storeup_gzip_lines(int fd, off_t size, int out, int level, char *err, size_t errlen)
{
    int dupfd = dup(out);
    char mode[8];
    snprintf(mode, sizeof mode, "wb%d", level < 0 || level > 9 ? 6 : level);
    gzFile gz = dupfd >= 0 ? gzdopen(dupfd, mode) : NULL;
    if (!gz) {
        if (dupfd >= 0)
            close(dupfd);
        snprintf(err, errlen, "gzip: cannot start");
        return -1;
    }
    static const size_t block = 1u << 16;
    char *buf = xmalloc(block);
    strbuf held = STRBUF_INIT; /* bytes after the last newline so far */
    int rc = 0;
    for (off_t off = 0; off < size && rc == 0;) {
        size_t want = (size_t)(size - off) < block ? (size_t)(size - off) : block;
        ssize_t got = pread(fd, buf, want, off);
        if (got <= 0) {
            snprintf(err, errlen, "read: %s", got < 0 ? strerror(errno) : "file shrank");
            rc = -1;
            break;
        }
        off += got;
        const char *nl = memrchr(buf, '\n', (size_t)got);
        if (!nl && held.len + (size_t)got < MAX_HELD_BACK) {
            strbuf_append(&held, buf, (size_t)got);
            continue;
        }
        size_t upto = nl ? (size_t)(nl - buf) + 1 : (size_t)got;
        if ((held.len && gzwrite(gz, held.data, (unsigned)held.len) <= 0) ||
            gzwrite(gz, buf, (unsigned)upto) <= 0) {
            snprintf(err, errlen, "gzip: write failed");
            rc = -1;
        }
        strbuf_reset(&held);
        strbuf_append(&held, buf + upto, (size_t)got - upto);
    }
    free(buf);
    strbuf_free(&held);
    if (gzclose(gz) != Z_OK && rc == 0) {
        snprintf(err, errlen, "gzip: close failed");
        rc = -1;
    }
    return rc;
}

/* The bytes to send: `fd` itself, or a gzip'ed copy of its whole lines in
 * an unnamed temporary file. An fd to close, or -1 with err. */
static int bytes_to_send(struct storeup *u, int fd, const struct stat *sb, int gzip_level,
                         char *err, size_t errlen)
{
    if (gzip_level < 0)
        return dup(fd);
    int tmp = openat(u->private_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (tmp < 0) {
        snprintf(err, errlen, "temporary file: %s", strerror(errno));
        return -1;
    }
    if (storeup_gzip_lines(fd, sb->st_size, tmp, gzip_level, err, errlen) < 0) {
        close(tmp);
        return -1;
    }
    return tmp;
}

int storeup_file(struct storeup *u, const char *container, const char *name, int fd,
                 const struct stat *sb, const struct objstore_put *put, int gzip_level)
{
    if (!publish_changed(u->pub, container, name, sb) || u->gave_up)
        return 0;
    char why[1024];
    int bytes = bytes_to_send(u, fd, sb, gzip_level, why, sizeof why);
    if (bytes < 0) {
        storeup_failure(u, container, name, why);
        return -1;
    }
    int rc = -1;
    if (storeup_ensure(u, container, why, sizeof why) != OBJ_OK ||
        publish_upload(u->pub, container, name, bytes, sb, put, why, sizeof why) != OBJ_OK) {
        storeup_failure(u, container, name, why);
    } else {
        storeup_success(u);
        u->uploaded++;
        rc = 1;
    }
    close(bytes);
    return rc;
}

int64_t storeup_retention_seconds(double retention_days)
{
    return (int64_t)(retention_days * 86400 + 0.5);
}

struct expire_ctx {
    const char *prefix;
    int64_t before;
    char **names;
    size_t n, cap;
};

static int collect_expired(const struct objstore_item *item, void *arg)
{
    struct expire_ctx *x = arg;
    const char *rest = item->name + strlen(x->prefix);
    if (!*x->prefix && strchr(rest, '/'))
        return 0; /* another host's (prefixed) object */
    if (item->last_modified_s >= 0 && item->last_modified_s < x->before) {
        VEC_RESERVE(x->names, x->cap, x->n + 1, 16);
        x->names[x->n++] = xstrdup(item->name);
    }
    return 0;
}

void storeup_expire(struct storeup *u, const char *container, const char *host,
                    double retention_days)
{
    if (u->gave_up)
        return;
    char prefix[256] = "", why[1024];
    if (host && *host)
        snprintf(prefix, sizeof prefix, "%s/", host);
    struct expire_ctx x = {prefix,
                           clock_wall_seconds() - storeup_retention_seconds(retention_days),
                           NULL, 0, 0};
    int rc = objstore_list(u->store, container, prefix, collect_expired, &x, why, sizeof why);
    if (rc != OBJ_OK && rc != OBJ_NOT_FOUND)
        storeup_failure(u, container, *prefix ? prefix : "(listing)", why);
    for (size_t i = 0; i < x.n; i++) {
        if (objstore_delete(u->store, container, x.names[i], why, sizeof why) == OBJ_OK)
            u->expired++;
        else
            storeup_failure(u, container, x.names[i], why);
        free(x.names[i]);
    }
    free(x.names);
}
