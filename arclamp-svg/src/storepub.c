/* storepub: logs, graphs and the index sent to the object store. See
 * storepub.h. */
#include "storepub.h"
#include "atomicfile.h"
#include "clock.h"
#include "datadir.h"
#include "log.h"
#include "logset.h"
#include "publish.h"
#include "strbuf.h"
#include "vec.h"
#include "xmlesc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* After this many failures in a row the store is taken as down: the rest
 * waits for the next run instead of costing a timeout each. */
#define GIVE_UP_AFTER 3
/* A line longer than this is sent even without its newline (it is no
 * valid sample line anyway); bounds what is held back. */
#define MAX_HELD_BACK (1u << 20)
#define MANIFEST_LOGS "published-logs"
#define MANIFEST_GRAPHS "published-svgs"

struct pub {
    const struct gen_config *cfg;
    struct objstore *store;
    struct publisher *pub;
    int private_fd;
    char **ensured;         /* containers made sure of in this run */
    size_t nensured, ensured_cap;
    int in_a_row;           /* failures in a row */
    int gave_up;            /* the store is down for this run */
    struct storepub_stats *st;
};

static void note_failure(struct pub *p, const char *container, const char *name,
                         const char *why)
{
    p->st->failed++;
    strbuf obj = STRBUF_INIT;
    strbuf_appendf(&obj, "%s/%s", container, name);
    log_untrusted(LOG_WARNING, "store_failed", LOG_FIELDS({"ARCLAMP_OBJECT", strbuf_cstr(&obj)}),
                  "%s: %s (sent again next run)", strbuf_cstr(&obj), why);
    strbuf_free(&obj);
    if (++p->in_a_row >= GIVE_UP_AFTER && !p->gave_up) {
        p->gave_up = 1;
        log_event(LOG_WARNING, "store_down", LOG_NO_FIELDS,
                  "%d uploads in a row failed: the rest waits for the next run", GIVE_UP_AFTER);
    }
}

/* Makes sure of each container once per run, not once per object. */
static int ensure(struct pub *p, const char *container, char *why, size_t whylen)
{
    for (size_t i = 0; i < p->nensured; i++) {
        if (strcmp(p->ensured[i], container) == 0)
            return OBJ_OK;
    }
    int rc = objstore_ensure_container(p->store, container, why, whylen);
    if (rc == OBJ_OK) {
        VEC_RESERVE(p->ensured, p->ensured_cap, p->nensured + 1, 8);
        p->ensured[p->nensured++] = xstrdup(container);
    }
    return rc;
}

static void note_success(struct pub *p)
{
    p->in_a_row = 0;
}

/* Writes the first `size` bytes of `fd`, up to the last newline, gzip'ed
 * into `out` (an empty temporary file). 0, or -1 with err. */
static int gzip_lines(int fd, off_t size, int out, int level, char *err, size_t errlen)
{
    int dupfd = dup(out);
    char mode[8];
    snprintf(mode, sizeof mode, "wb%d", level);
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

/* The bytes to store for a log: its own fd when gzip'ed already, else a
 * gzip'ed copy in an unnamed temporary file of the private directory.
 * Returns an fd to close, or -1 with err. */
static int log_bytes(struct pub *p, int fd, const struct logfile *lf, const struct stat *sb,
                     char *err, size_t errlen)
{
    if (lf->gz)
        return dup(fd);
    int tmp = openat(p->private_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (tmp < 0) {
        snprintf(err, errlen, "temporary file: %s", strerror(errno));
        return -1;
    }
    if (gzip_lines(fd, sb->st_size, tmp, (int)p->cfg->gzip_level, err, errlen) < 0) {
        close(tmp);
        return -1;
    }
    return tmp;
}

static void log_object_name(const struct gen_config *cfg, const struct logfile *lf, char *out,
                            size_t outlen)
{
    const char *host = cfg->store.host;
    if (host && *host)
        snprintf(out, outlen, "%s/%s.log.gz", host, lf->name);
    else
        snprintf(out, outlen, "%s.log.gz", lf->name);
}

static void publish_log(struct pub *p, int pfd, const struct logfile *lf)
{
    char container[160], name[PATH_MAX + 80], why[1024];
    store_container(&p->cfg->store, "logs", lf->period, container, sizeof container);
    log_object_name(p->cfg, lf, name, sizeof name);
    struct stat sb;
    int fd = datadir_open_regular(pfd, lf->file, &sb, why, sizeof why);
    if (fd < 0) {
        note_failure(p, container, name, why);
        return;
    }
    if (!publish_changed(p->pub, container, name, &sb) || p->gave_up) {
        close(fd);
        return;
    }
    int bytes = log_bytes(p, fd, lf, &sb, why, sizeof why);
    close(fd);
    if (bytes < 0) {
        note_failure(p, container, name, why);
        return;
    }
    struct objstore_put put = {"text/plain; charset=utf-8", "gzip",
                               (int64_t)(p->cfg->store.retention_days * 86400 + 0.5)};
    if (ensure(p, container, why, sizeof why) != OBJ_OK ||
        publish_upload(p->pub, container, name, bytes, &sb, &put, why, sizeof why) != OBJ_OK) {
        note_failure(p, container, name, why);
    } else {
        note_success(p);
        p->st->logs++;
    }
    close(bytes);
}

/* S3 has no per-object expiry header: this host's logs past the retention
 * are deleted by the run. */
struct expire_ctx {
    struct pub *p;
    const char *container;
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

static void expire_period(struct pub *p, const char *period)
{
    char container[160], prefix[STORECONF_HOST_MAX + 2] = "", why[1024];
    store_container(&p->cfg->store, "logs", period, container, sizeof container);
    if (p->cfg->store.host && *p->cfg->store.host)
        snprintf(prefix, sizeof prefix, "%s/", p->cfg->store.host);
    struct expire_ctx x = {p, container, prefix,
                           clock_wall_seconds() -
                               (int64_t)(p->cfg->store.retention_days * 86400 + 0.5),
                           NULL, 0, 0};
    int rc = objstore_list(p->store, container, prefix, collect_expired, &x, why, sizeof why);
    if (rc != OBJ_OK && rc != OBJ_NOT_FOUND)
        note_failure(p, container, prefix, why);
    for (size_t i = 0; i < x.n; i++) {
        if (objstore_delete(p->store, container, x.names[i], why, sizeof why) == OBJ_OK)
            p->st->expired++;
        else
            note_failure(p, container, x.names[i], why);
        free(x.names[i]);
    }
    free(x.names);
}

static int open_manifest(struct pub *p, const char *name, char *err, size_t errlen)
{
    char warn[512];
    p->pub = publish_open(p->store, p->private_fd, name, warn, sizeof warn, err, errlen);
    if (warn[0])
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS, "%s", warn);
    return p->pub ? 0 : -1;
}

static void close_manifest(struct pub *p, int complete)
{
    const struct publish_stats *ps = publish_stats(p->pub);
    p->st->unchanged += ps->unchanged;
    p->st->bytes += ps->bytes;
    char why[1024];
    if (publish_close(p->pub, complete && !p->gave_up, why, sizeof why) < 0)
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS,
                      "manifest not written: %s (files are sent again next run)", why);
    p->pub = NULL;
}

static int publish_logs(struct pub *p, int logs_fd, char *err, size_t errlen)
{
    struct logset set;
    if (logset_scan_at(p->cfg, logs_fd, 1, &set, err, errlen) < 0)
        return -1;
    if (open_manifest(p, MANIFEST_LOGS, err, errlen) < 0) {
        logset_free(&set);
        return -1;
    }
    int pfd = -1;
    const char *open_period = NULL;
    for (size_t i = 0; i < set.n && !p->gave_up; i++) {
        const struct logfile *lf = &set.files[i];
        if (!open_period || strcmp(open_period, lf->period) != 0) {
            if (pfd >= 0)
                close(pfd);
            char why[1024];
            pfd = datadir_openat(logs_fd, lf->period, lf->period, 0, 0755, why, sizeof why);
            open_period = lf->period;
            if (pfd < 0)
                note_failure(p, "logs", lf->period, why);
        }
        if (pfd >= 0)
            publish_log(p, pfd, lf);
    }
    if (pfd >= 0)
        close(pfd);
    close_manifest(p, 1);
    if (p->cfg->store.conn.kind == OBJSTORE_S3 && !p->gave_up) {
        for (size_t i = 0; i < set.nperiods && !p->gave_up; i++)
            expire_period(p, set.periods[i]);
    }
    logset_free(&set);
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void publish_graph(struct pub *p, int pfd, const char *period, const char *file)
{
    char container[160], why[1024];
    store_container(&p->cfg->store, "svgs", period, container, sizeof container);
    if (!objstore_name_ok(file))
        return; /* not a name the store can hold; the generator never writes one */
    struct stat sb;
    int fd = datadir_open_regular(pfd, file, &sb, why, sizeof why);
    if (fd < 0) {
        note_failure(p, container, file, why);
        return;
    }
    if (publish_changed(p->pub, container, file, &sb) && !p->gave_up) {
        struct objstore_put put = {"image/svg+xml", "gzip", 0};
        if (ensure(p, container, why, sizeof why) != OBJ_OK ||
            publish_upload(p->pub, container, file, fd, &sb, &put, why, sizeof why) != OBJ_OK) {
            note_failure(p, container, file, why);
        } else {
            note_success(p);
            p->st->graphs++;
        }
    }
    close(fd);
}

/* The names in the directory open as dirfd that do not start with '.'
 * (unsorted). 0, or -1 when it cannot be read. */
static int sorted_names(int dirfd, char ***names, size_t *n)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    rewinddir(d);
    size_t cap = 0;
    *names = NULL;
    *n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        VEC_RESERVE(*names, cap, *n + 1, 32);
        (*names)[(*n)++] = xstrdup(de->d_name);
    }
    closedir(d);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The period directories of svgs_dir, sorted. */
static int graph_periods(int svgs_fd, char ***periods, size_t *n)
{
    if (sorted_names(svgs_fd, periods, n) < 0)
        return -1;
    qsort(*periods, *n, sizeof **periods, cmp_str);
    return 0;
}


static int publish_graphs(struct pub *p, int svgs_fd, char **periods, size_t nperiods, char *err,
                          size_t errlen)
{
    if (open_manifest(p, MANIFEST_GRAPHS, err, errlen) < 0)
        return -1;
    int complete = 1;
    for (size_t i = 0; i < nperiods && !p->gave_up; i++) {
        char why[1024];
        int pfd = datadir_openat(svgs_fd, periods[i], periods[i], 0, 0755, why, sizeof why);
        char **files;
        size_t nfiles;
        if (pfd < 0 || sorted_names(pfd, &files, &nfiles) < 0) {
            complete = 0;
            if (pfd >= 0)
                close(pfd);
            continue; /* not a directory of ours: nothing to publish */
        }
        qsort(files, nfiles, sizeof *files, cmp_str);
        for (size_t j = 0; j < nfiles && !p->gave_up; j++) {
            if (ends_with(files[j], ".svgz"))
                publish_graph(p, pfd, periods[i], files[j]);
        }
        free_names(files, nfiles);
        close(pfd);
    }
    close_manifest(p, complete);
    return 0;
}

/* --- the original's index --------------------------------------------- */

struct index_ctx {
    strbuf *out;
    const char *container;
    size_t items;
};

static void json_field(strbuf *out, const char *key, const char *value)
{
    strbuf_appendf(out, ", \"%s\": ", key);
    if (value)
        json_string(out, value, strlen(value));
    else
        strbuf_appends(out, "null");
}

static int index_item(const struct objstore_item *item, void *arg)
{
    struct index_ctx *x = arg;
    strbuf *out = x->out;
    x->items++;
    strbuf_appends(out, out->len > 1 ? ",\n " : "\n ");
    strbuf_appends(out, "{\"name\": ");
    json_string(out, item->name, strlen(item->name));
    json_field(out, "hash", item->hash);
    strbuf_appendf(out, ", \"bytes\": %llu", (unsigned long long)item->bytes);
    json_field(out, "last_modified", item->last_modified);
    json_field(out, "content_type", item->content_type ? item->content_type : "image/svg+xml");
    json_field(out, "container", x->container);
    strbuf_appendc(out, '}');
    return 0;
}

/* Lists every svgs container into the original's index; -1 when a listing
 * failed (the index would leave graphs out: not written). */
static int build_index(struct pub *p, char **periods, size_t nperiods, strbuf *out)
{
    strbuf_appends(out, "[");
    for (size_t i = 0; i < nperiods; i++) {
        char container[160], why[1024];
        store_container(&p->cfg->store, "svgs", periods[i], container, sizeof container);
        struct index_ctx x = {out, container, 0};
        int rc = objstore_list(p->store, container, NULL, index_item, &x, why, sizeof why);
        if (rc == OBJ_NOT_FOUND)
            continue;
        if (rc != OBJ_OK) {
            note_failure(p, container, "(listing)", why);
            return -1;
        }
    }
    strbuf_appends(out, "\n]\n");
    return 0;
}

static void publish_index(struct pub *p, int data_fd, char **periods, size_t nperiods)
{
    char container[160], why[1024];
    store_container(&p->cfg->store, "index", NULL, container, sizeof container);
    strbuf json = STRBUF_INIT;
    if (build_index(p, periods, nperiods, &json) < 0) {
        strbuf_free(&json);
        return;
    }
    struct atomic_file *af = atomic_openat(data_fd, STOREPUB_LOCAL_INDEX, 0, 0, why, sizeof why);
    if (!af || (atomic_append(af, json.data, json.len), atomic_commit(af, NULL, why, sizeof why))) {
        note_failure(p, container, STOREPUB_LOCAL_INDEX, why);
        strbuf_free(&json);
        return;
    }
    strbuf_free(&json);
    struct stat sb;
    int fd = datadir_open_regular(data_fd, STOREPUB_LOCAL_INDEX, &sb, why, sizeof why);
    struct objstore_put put = {"application/json", NULL, 0};
    char md5[33];
    if (fd < 0 || ensure(p, container, why, sizeof why) != OBJ_OK ||
        objstore_put_fd(p->store, container, STOREPUB_INDEX_NAME, fd, &put, md5, why,
                        sizeof why) != OBJ_OK) {
        note_failure(p, container, STOREPUB_INDEX_NAME, why);
    } else {
        note_success(p);
        p->st->index = 1;
        p->st->bytes += (uint64_t)sb.st_size;
    }
    if (fd >= 0)
        close(fd);
}

/* The index is sent when a graph was, or when it never was (no local copy). */
static int index_due(const struct pub *p, int data_fd)
{
    struct stat sb;
    return p->st->graphs > 0 ||
           fstatat(data_fd, STOREPUB_LOCAL_INDEX, &sb, AT_SYMLINK_NOFOLLOW) < 0;
}

int storepub_run(const struct gen_config *cfg, int data_fd, int logs_fd, int svgs_fd,
                 struct storepub_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    struct pub p = {cfg, NULL, NULL, -1, NULL, 0, 0, 0, 0, st};
    char why[1024];
    p.private_fd = datadir_open_private(data_fd, cfg->data_dir, 1, why, sizeof why);
    if (p.private_fd < 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    p.store = objstore_open(&cfg->store.conn, err, errlen);
    if (!p.store) {
        close(p.private_fd);
        return -1;
    }
    int rc = 0;
    if (!cfg->store.from_store && publish_logs(&p, logs_fd, why, sizeof why) < 0) {
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS, "logs: %s", why);
        st->failed++;
    }
    char **periods = NULL;
    size_t nperiods = 0;
    if (graph_periods(svgs_fd, &periods, &nperiods) < 0 ||
        publish_graphs(&p, svgs_fd, periods, nperiods, why, sizeof why) < 0) {
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS, "graphs: %s", why);
        st->failed++;
    }
    if (!p.gave_up && index_due(&p, data_fd))
        publish_index(&p, data_fd, periods, nperiods);
    free_names(periods, nperiods);
    if (st->failed)
        rc = 1;
    objstore_close(p.store);
    close(p.private_fd);
    free_names(p.ensured, p.nensured);
    return rc;
}

void storepub_summary(const struct storepub_stats *st, strbuf *out)
{
    strbuf_appendf(out, "; store: %zu logs, %zu graphs sent (%llu bytes), %zu unchanged",
                   st->logs, st->graphs, (unsigned long long)st->bytes, st->unchanged);
    if (st->failed)
        strbuf_appendf(out, ", %zu failed (sent again next run)", st->failed);
    if (st->expired)
        strbuf_appendf(out, ", %zu expired", st->expired);
    if (st->index)
        strbuf_appends(out, ", index sent");
}
