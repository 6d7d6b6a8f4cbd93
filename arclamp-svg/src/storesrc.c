/* storesrc: every host's logs fetched from the store and merged per name.
 * See storesrc.h. */
#include "storesrc.h"
#include "atomicfile.h"
#include "datadir.h"
#include "log.h"
#include "objstore.h"
#include "strbuf.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_SUFFIX ".log.gz"

/* One object of a listing: a host's copy of a log. */
struct member {
    char *log;          /* the log name, without .log.gz */
    char *host;         /* "" for an object without a host prefix (the original's) */
    char *object;       /* the object name */
    char *hash;
    int64_t mtime;
};

/* What a merged log was built from (a manifest line). */
struct merged {
    char *period, *log;
    char *hosts;        /* "a,b" */
    char *hashes;       /* "h1,h2", in the order of hosts */
    int64_t mtime;
    int seen;
};

struct src {
    const struct gen_config *cfg;
    struct objstore *store;
    int private_fd;
    struct merged *merged;
    size_t nmerged, merged_cap;
    struct storesrc_stats *st;
};

struct listing {
    struct src *s;
    struct member *v;
    size_t n, cap;
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A log part must be a plain file name of ours: no '/', no leading '.'. */
static int take_item(const struct objstore_item *item, void *arg)
{
    struct listing *l = arg;
    const char *slash = strchr(item->name, '/');
    const char *rest = slash ? slash + 1 : item->name;
    char *host = slash ? xstrndup(item->name, (size_t)(slash - item->name)) : xstrdup("");
    size_t restlen = strlen(rest);
    int ok = ends_with(rest, LOG_SUFFIX) && restlen > strlen(LOG_SUFFIX) && rest[0] != '.' &&
             !strchr(rest, '/') && (!*host || store_host_ok(host));
    if (!ok || !store_host_wanted(&l->s->cfg->store, host)) {
        if (!ok)
            l->s->st->skipped++;
        free(host);
        return 0;
    }
    VEC_RESERVE(l->v, l->cap, l->n + 1, 64);
    struct member *m = &l->v[l->n++];
    m->log = xstrndup(rest, restlen - strlen(LOG_SUFFIX));
    m->host = host;
    m->object = xstrdup(item->name);
    m->hash = xstrdup(item->hash ? item->hash : "");
    m->mtime = item->last_modified_s;
    return 0;
}

static int cmp_member(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    int c = strcmp(x->log, y->log);
    return c ? c : strcmp(x->host, y->host);
}

static void free_listing(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].log);
        free(l->v[i].host);
        free(l->v[i].object);
        free(l->v[i].hash);
    }
    free(l->v);
}

/* --- the manifest ------------------------------------------------------ */

static void add_merged(struct src *s, const char *period, const char *log, const char *hosts,
                       const char *hashes, int64_t mtime)
{
    VEC_RESERVE(s->merged, s->merged_cap, s->nmerged + 1, 64);
    s->merged[s->nmerged++] = (struct merged){xstrdup(period), xstrdup(log), xstrdup(hosts),
                                              xstrdup(hashes), mtime, 0};
}

static void free_merged(struct merged *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].period);
        free(v[i].log);
        free(v[i].hosts);
        free(v[i].hashes);
    }
    free(v);
}

/* Reads "period\tlog\thosts\thashes\tmtime" lines; a malformed manifest is
 * dropped (everything fetched again). */
static void load_manifest(struct src *s, int private_fd)
{
    int fd = openat(private_fd, STORESRC_MANIFEST, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n')
            line[len - 1] = '\0';
        char *f5[5], *p = line;
        int i;
        for (i = 0; i < 5 && p; i++) {
            f5[i] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = '\0';
        }
        if (i < 5 || p)
            continue; /* malformed: that log is simply fetched again */
        add_merged(s, f5[0], f5[1], f5[2], f5[3], strtoll(f5[4], NULL, 10));
    }
    free(line);
    fclose(f);
}

static void save_manifest(struct src *s)
{
    char why[1024];
    struct atomic_file *af = atomic_openat(s->private_fd, STORESRC_MANIFEST, 0, 0, why,
                                           sizeof why);
    if (!af) {
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS, "%s", why);
        return;
    }
    fchmod(atomic_fd(af), 0600);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < s->nmerged; i++) {
        const struct merged *m = &s->merged[i];
        if (!m->log)
            continue; /* removed */
        strbuf_reset(&sb);
        strbuf_appendf(&sb, "%s\t%s\t%s\t%s\t%lld\n", m->period, m->log, m->hosts, m->hashes,
                       (long long)m->mtime);
        atomic_append(af, sb.data, sb.len);
    }
    strbuf_free(&sb);
    if (atomic_commit(af, NULL, why, sizeof why) < 0)
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS, "%s", why);
}

static struct merged *find_merged(struct src *s, const char *period, const char *log)
{
    for (size_t i = 0; i < s->nmerged; i++) {
        if (s->merged[i].log && strcmp(s->merged[i].period, period) == 0 &&
            strcmp(s->merged[i].log, log) == 0)
            return &s->merged[i];
    }
    return NULL;
}

/* --- merging ----------------------------------------------------------- */

static void note_failure(struct src *s, const char *what, const char *why)
{
    s->st->failed++;
    log_untrusted(LOG_WARNING, "store_failed", LOG_FIELDS({"ARCLAMP_OBJECT", what}),
                  "%s: %s (the last merged log is kept)", what, why);
}

/* Appends one host's object to the merged file. 0, or -1 with err. */
static int append_member(struct src *s, const char *container, const struct member *m,
                         struct atomic_file *af, char *err, size_t errlen)
{
    int tmp = openat(s->private_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (tmp < 0) {
        snprintf(err, errlen, "temporary file: %s", strerror(errno));
        return -1;
    }
    uint64_t bytes = 0, max = (uint64_t)s->cfg->store.max_object_mb << 20;
    int rc = objstore_get_fd(s->store, container, m->object, tmp, max, &bytes, NULL, err,
                             errlen);
    unsigned char buf[1 << 16];
    ssize_t got = rc == OBJ_OK ? pread(tmp, buf, sizeof buf, 0) : -1;
    if (rc == OBJ_OK && (got < 2 || buf[0] != 0x1f || buf[1] != 0x8b)) {
        snprintf(err, errlen, "not gzip data");
        rc = OBJ_REFUSED;
    }
    for (off_t off = 0; rc == OBJ_OK && got > 0; got = pread(tmp, buf, sizeof buf, off)) {
        atomic_append(af, buf, (size_t)got);
        off += got;
    }
    close(tmp);
    if (rc == OBJ_OK) {
        s->st->objects++;
        s->st->bytes += bytes;
    }
    return rc == OBJ_OK ? 0 : -1;
}

static void join_members(const struct member *v, size_t n, int hashes, strbuf *out)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_appendc(out, ',');
        strbuf_appends(out, hashes ? v[i].hash : (*v[i].host ? v[i].host : "-"));
    }
}

/* Builds <period>/<log>.log.gz from members v[0..n) (one log, sorted by
 * host) unless the manifest says it is built from the same objects. */
static void merge_log(struct src *s, int pfd, const char *period, const char *container,
                      const struct member *v, size_t n)
{
    strbuf hosts = STRBUF_INIT, hashes = STRBUF_INIT, file = STRBUF_INIT;
    join_members(v, n, 0, &hosts);
    join_members(v, n, 1, &hashes);
    strbuf_appendf(&file, "%s" LOG_SUFFIX, v[0].log);
    int64_t mtime = 0;
    for (size_t i = 0; i < n; i++)
        mtime = v[i].mtime > mtime ? v[i].mtime : mtime;
    struct merged *old = find_merged(s, period, v[0].log);
    struct stat sb;
    int present = fstatat(pfd, strbuf_cstr(&file), &sb, AT_SYMLINK_NOFOLLOW) == 0;
    if (old)
        old->seen = 1;
    if (!old || !present || strcmp(old->hashes, strbuf_cstr(&hashes)) != 0 ||
        strcmp(old->hosts, strbuf_cstr(&hosts)) != 0) {
        char why[1024];
        struct atomic_file *af = atomic_openat(pfd, strbuf_cstr(&file), 0, 0, why, sizeof why);
        int rc = af ? 0 : -1;
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = append_member(s, container, &v[i], af, why, sizeof why);
        struct timespec ts[1] = {{(time_t)mtime, 0}};
        if (rc == 0 && atomic_commit(af, ts, why, sizeof why) == 0) {
            s->st->fetched++;
            if (old) { /* replaced by the line added below */
                free(old->log);
                old->log = NULL;
            }
            add_merged(s, period, v[0].log, strbuf_cstr(&hosts), strbuf_cstr(&hashes), mtime);
            s->merged[s->nmerged - 1].seen = 1;
        } else {
            if (rc < 0 && af)
                atomic_abort(af);
            strbuf obj = STRBUF_INIT;
            strbuf_appendf(&obj, "%s/%s", container, v[0].log);
            note_failure(s, strbuf_cstr(&obj), why);
            strbuf_free(&obj);
        }
    }
    strbuf_free(&hosts);
    strbuf_free(&hashes);
    strbuf_free(&file);
}

/* Merged logs of `period` the listing no longer has: removed. */
static void remove_unseen(struct src *s, int pfd, const char *period)
{
    for (size_t i = 0; i < s->nmerged; i++) {
        struct merged *m = &s->merged[i];
        if (!m->log || m->seen || strcmp(m->period, period) != 0)
            continue;
        strbuf file = STRBUF_INIT;
        strbuf_appendf(&file, "%s" LOG_SUFFIX, m->log);
        if (unlinkat(pfd, strbuf_cstr(&file), 0) == 0 || errno == ENOENT)
            s->st->removed++;
        strbuf_free(&file);
        free(m->log);
        m->log = NULL;
    }
}

static void merge_period(struct src *s, int logs_fd, const char *period)
{
    char container[160], why[1024];
    store_container(&s->cfg->store, "logs", period, container, sizeof container);
    struct listing l = {s, NULL, 0, 0};
    int rc = objstore_list(s->store, container, NULL, take_item, &l, why, sizeof why);
    if (rc != OBJ_OK && rc != OBJ_NOT_FOUND) {
        note_failure(s, container, why);
        for (size_t i = 0; i < s->nmerged; i++) {
            if (s->merged[i].log && strcmp(s->merged[i].period, period) == 0)
                s->merged[i].seen = 1; /* kept as they are */
        }
        free_listing(&l);
        return;
    }
    int pfd = datadir_openat(logs_fd, period, period, 1, 0755, why, sizeof why);
    if (pfd < 0) {
        note_failure(s, period, why);
        free_listing(&l);
        return;
    }
    qsort(l.v, l.n, sizeof *l.v, cmp_member);
    for (size_t i = 0, j; i < l.n; i = j) {
        for (j = i + 1; j < l.n && strcmp(l.v[j].log, l.v[i].log) == 0;)
            j++;
        merge_log(s, pfd, period, container, &l.v[i], j - i);
    }
    remove_unseen(s, pfd, period);
    close(pfd);
    free_listing(&l);
}

int storesrc_run(const struct gen_config *cfg, int data_fd, int logs_fd,
                 struct storesrc_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    struct src s = {cfg, NULL, -1, NULL, 0, 0, st};
    s.private_fd = datadir_open_private(data_fd, cfg->data_dir, 1, err, errlen);
    if (s.private_fd < 0)
        return -1;
    s.store = objstore_open(&cfg->store.conn, err, errlen);
    if (!s.store) {
        close(s.private_fd);
        return -1;
    }
    load_manifest(&s, s.private_fd);
    for (size_t i = 0; i < cfg->store.nperiods; i++)
        merge_period(&s, logs_fd, cfg->store.periods[i]);
    for (size_t i = 0; i < s.nmerged; i++)
        st->logs += s.merged[i].log != NULL;
    save_manifest(&s);
    free_merged(s.merged, s.nmerged);
    objstore_close(s.store);
    close(s.private_fd);
    return st->failed ? 1 : 0;
}

/* --- hosts for the index ------------------------------------------------ */

struct storesrc_hosts {
    struct src s;
    struct storesrc_stats unused;
};

struct storesrc_hosts *storesrc_hosts_load(const struct gen_config *cfg, int data_fd)
{
    char why[512];
    int fd = datadir_open_private(data_fd, cfg->data_dir, 0, why, sizeof why);
    if (fd < 0)
        return NULL;
    struct storesrc_hosts *h = xcalloc(1, sizeof *h);
    h->s.cfg = cfg;
    h->s.st = &h->unused;
    load_manifest(&h->s, fd);
    close(fd);
    return h;
}

const char *storesrc_hosts_of(const struct storesrc_hosts *h, const char *period,
                              const char *name)
{
    if (!h)
        return NULL;
    struct merged *m = find_merged((struct src *)&h->s, period, name);
    return m ? m->hosts : NULL;
}

void storesrc_hosts_free(struct storesrc_hosts *h)
{
    if (!h)
        return;
    free_merged(h->s.merged, h->s.nmerged);
    free(h);
}

void storesrc_summary(const struct storesrc_stats *st, strbuf *out)
{
    strbuf_appendf(out, "; from the store: %zu logs (%zu fetched, %zu objects, %llu bytes)",
                   st->logs, st->fetched, st->objects, (unsigned long long)st->bytes);
    if (st->removed)
        strbuf_appendf(out, ", %zu removed", st->removed);
    if (st->skipped)
        strbuf_appendf(out, ", %zu objects skipped", st->skipped);
    if (st->failed)
        strbuf_appendf(out, ", %zu failed (the logs merged before are drawn)", st->failed);
}
