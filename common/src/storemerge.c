/* storemerge: every host's objects fetched from the store and merged per
 * name. See storemerge.h. */
#include "storemerge.h"
#include "atomicfile.h"
#include "log.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Unpacked, a member may be this many times max_object_mb. */
#define GUNZIP_RATIO 32

/* One object of a listing: a host's copy of a file. */
struct member {
    const struct storemerge_kind *kind;
    char *name;         /* the file's name without its suffix */
    char *host;         /* "" for an object without a host prefix (the original's) */
    char *object;       /* the object name */
    char *hash;
    int64_t mtime;
};

/* What a merged file was built from (a manifest line). */
struct merged {
    char *period, *file;  /* file NULL: removed or replaced */
    char *hosts;          /* "a,b" */
    char *hashes;         /* "h1,h2", in the order of hosts */
    int64_t mtime;
    int seen;
};

struct manifest {
    struct merged *v;
    size_t n, cap;
};

struct merge {
    const struct storemerge_args *a;
    struct manifest man;
    struct storemerge_stats *st;
};

struct listing {
    struct merge *m;
    struct member *v;
    size_t n, cap;
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static const struct storemerge_kind *kind_of(const struct storemerge_args *a, const char *rest)
{
    for (size_t i = 0; i < a->nkinds; i++) {
        if (ends_with(rest, a->kinds[i].suffix))
            return &a->kinds[i];
    }
    return NULL;
}

/* Takes <host>/<file> (or <file>: no host) when the file is a kind asked
 * for and a plain name, and the host is wanted. */
static int take_item(const struct objstore_item *item, void *arg)
{
    struct listing *l = arg;
    const struct store_config *sc = l->m->a->sc;
    const char *slash = strchr(item->name, '/');
    const char *rest = slash ? slash + 1 : item->name;
    const struct storemerge_kind *kind = kind_of(l->m->a, rest);
    if (!kind)
        return 0; /* another kind of file: not ours to judge */
    char *host = slash ? xstrndup(item->name, (size_t)(slash - item->name)) : xstrdup("");
    int ok = rest[0] != '.' && !strchr(rest, '/') && (!*host || store_host_ok(host));
    if (!ok || !store_host_wanted(sc, host)) {
        l->m->st->skipped += !ok;
        free(host);
        return 0;
    }
    VEC_RESERVE(l->v, l->cap, l->n + 1, 64);
    struct member *m = &l->v[l->n++];
    m->kind = kind;
    m->name = xstrndup(rest, strlen(rest) - strlen(kind->suffix));
    m->host = host;
    m->object = xstrdup(item->name);
    m->hash = xstrdup(item->hash ? item->hash : "");
    m->mtime = item->last_modified_s;
    return 0;
}

static int cmp_member(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->host, y->host);
}

static void free_listing(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].name);
        free(l->v[i].host);
        free(l->v[i].object);
        free(l->v[i].hash);
    }
    free(l->v);
}

/* --- the manifest: "period\tfile\thosts\thashes\tmtime" lines ----------- */

static struct merged *add_merged(struct manifest *man, const char *period, const char *file,
                                 const char *hosts, const char *hashes, int64_t mtime)
{
    VEC_RESERVE(man->v, man->cap, man->n + 1, 64);
    man->v[man->n] = (struct merged){xstrdup(period), xstrdup(file), xstrdup(hosts),
                                     xstrdup(hashes), mtime, 0};
    return &man->v[man->n++];
}

static void free_manifest(struct manifest *man)
{
    for (size_t i = 0; i < man->n; i++) {
        free(man->v[i].period);
        free(man->v[i].file);
        free(man->v[i].hosts);
        free(man->v[i].hashes);
    }
    free(man->v);
}

/* A malformed line is dropped: that file is simply fetched again. */
static void load_manifest(struct manifest *man, int private_fd, const char *name)
{
    int fd = openat(private_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
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
        char *field[5], *p = line;
        int i;
        for (i = 0; i < 5 && p; i++) {
            field[i] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = '\0';
        }
        if (i == 5 && !p)
            add_merged(man, field[0], field[1], field[2], field[3],
                       strtoll(field[4], NULL, 10));
    }
    free(line);
    fclose(f);
}

static void save_manifest(const struct manifest *man, int private_fd, const char *name)
{
    char why[1024];
    struct atomic_file *af = atomic_openat(private_fd, name, 0, 0, why, sizeof why);
    if (!af) {
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS, "%s", why);
        return;
    }
    fchmod(atomic_fd(af), 0600);
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < man->n; i++) {
        const struct merged *m = &man->v[i];
        if (!m->file)
            continue;
        strbuf_reset(&sb);
        strbuf_appendf(&sb, "%s\t%s\t%s\t%s\t%lld\n", m->period, m->file, m->hosts, m->hashes,
                       (long long)m->mtime);
        atomic_append(af, sb.data, sb.len);
    }
    strbuf_free(&sb);
    if (atomic_commit(af, NULL, why, sizeof why) < 0)
        log_untrusted(LOG_WARNING, "store_manifest", LOG_NO_FIELDS, "%s", why);
}

static struct merged *find_merged(const struct manifest *man, const char *period,
                                  const char *file)
{
    for (size_t i = 0; i < man->n; i++) {
        if (man->v[i].file && strcmp(man->v[i].period, period) == 0 &&
            strcmp(man->v[i].file, file) == 0)
            return &man->v[i];
    }
    return NULL;
}

/* --- merging ----------------------------------------------------------- */

static void note_failure(struct merge *m, const char *what, const char *why)
{
    m->st->failed++;
    log_untrusted(LOG_WARNING, "store_failed", LOG_FIELDS({"ARCLAMP_OBJECT", what}),
                  "%s: %s (the last merged file is kept)", what, why);
}

/* Copies the gzip data of `fd` into af, as it is or unpacked (at most
 * `max` bytes unpacked). 0, or -1 with err. */
static int copy_member(int fd, struct atomic_file *af, int gunzip, uint64_t max, char *err,
                       size_t errlen)
{
    unsigned char buf[1 << 16];
    if (!gunzip) {
        ssize_t got;
        for (off_t off = 0; (got = pread(fd, buf, sizeof buf, off)) > 0; off += got)
            atomic_append(af, buf, (size_t)got);
        return 0;
    }
    if (lseek(fd, 0, SEEK_SET) < 0) {
        snprintf(err, errlen, "gunzip: %s", strerror(errno));
        return -1;
    }
    int dupfd = dup(fd);
    gzFile gz = dupfd >= 0 ? gzdopen(dupfd, "rb") : NULL;
    if (!gz) {
        if (dupfd >= 0)
            close(dupfd);
        snprintf(err, errlen, "gunzip: cannot start");
        return -1;
    }
    uint64_t total = 0;
    int got, rc = 0;
    while ((got = gzread(gz, buf, sizeof buf)) > 0) {
        total += (uint64_t)got;
        if (total > max) {
            snprintf(err, errlen, "larger than %llu bytes unpacked", (unsigned long long)max);
            rc = -1;
            break;
        }
        atomic_append(af, buf, (size_t)got);
    }
    int code = Z_OK;
    const char *msg = gzerror(gz, &code);
    if (rc == 0 && (got < 0 || code != Z_OK)) {
        snprintf(err, errlen, "corrupt gzip data: %s", msg);
        rc = -1;
    }
    gzclose(gz);
    return rc;
}

/* Downloads one host's object and appends it to the merged file. */
static int append_member(struct merge *m, const char *container, const struct member *mb,
                         struct atomic_file *af, char *err, size_t errlen)
{
    int tmp = openat(m->a->private_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (tmp < 0) {
        snprintf(err, errlen, "temporary file: %s", strerror(errno));
        return -1;
    }
    uint64_t bytes = 0, max = (uint64_t)m->a->sc->max_object_mb << 20;
    int rc = objstore_get_fd(m->a->store, container, mb->object, tmp, max, &bytes, NULL, err,
                             errlen);
    unsigned char magic[2];
    if (rc == OBJ_OK && (pread(tmp, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b)) {
        snprintf(err, errlen, "%s: not gzip data", mb->object);
        rc = OBJ_REFUSED;
    }
    if (rc == OBJ_OK &&
        copy_member(tmp, af, mb->kind->gunzip, max * GUNZIP_RATIO, err, errlen) < 0)
        rc = OBJ_REFUSED;
    close(tmp);
    if (rc == OBJ_OK) {
        m->st->objects++;
        m->st->bytes += bytes;
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

/* The merged file's mtime: the newest member's time, but always after the
 * file it replaces (a host left out, or an older object, must still read
 * as a change to whoever compares mtimes downstream). */
static struct timespec merged_mtime(int64_t mtime, const struct stat *old)
{
    struct timespec ts = {(time_t)mtime, 0};
    if (old && !(ts.tv_sec > old->st_mtim.tv_sec)) {
        ts = old->st_mtim;
        if (++ts.tv_nsec == 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec = 0;
        }
    }
    return ts;
}

static int build(struct merge *m, int pfd, const char *container, const char *file,
                 const struct member *v, size_t n, struct timespec ts, char *why,
                 size_t whylen)
{
    struct atomic_file *af = atomic_openat(pfd, file, 0, 0, why, whylen);
    if (!af)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (append_member(m, container, &v[i], af, why, whylen) < 0) {
            atomic_abort(af);
            return -1;
        }
    }
    return atomic_commit(af, &ts, why, whylen);
}

/* Builds <period>/<name><out_suffix> from members v[0..n) (one name and
 * kind, sorted by host) unless the manifest says it holds the same. */
static void merge_file(struct merge *m, int pfd, const char *period, const char *container,
                       const struct member *v, size_t n)
{
    strbuf hosts = STRBUF_INIT, hashes = STRBUF_INIT, file = STRBUF_INIT;
    join_members(v, n, 0, &hosts);
    join_members(v, n, 1, &hashes);
    strbuf_appendf(&file, "%s%s", v[0].name, v[0].kind->out_suffix);
    int64_t mtime = 0;
    for (size_t i = 0; i < n; i++)
        mtime = v[i].mtime > mtime ? v[i].mtime : mtime;
    struct merged *old = find_merged(&m->man, period, strbuf_cstr(&file));
    struct stat sb;
    int present = fstatat(pfd, strbuf_cstr(&file), &sb, AT_SYMLINK_NOFOLLOW) == 0;
    if (old)
        old->seen = 1;
    if (old && present && strcmp(old->hashes, strbuf_cstr(&hashes)) == 0 &&
        strcmp(old->hosts, strbuf_cstr(&hosts)) == 0) {
        /* unchanged */
    } else {
        char why[1024];
        struct timespec ts = merged_mtime(mtime, present ? &sb : NULL);
        if (build(m, pfd, container, strbuf_cstr(&file), v, n, ts, why, sizeof why) == 0) {
            m->st->fetched++;
            if (old) {
                free(old->file);
                old->file = NULL;
            }
            add_merged(&m->man, period, strbuf_cstr(&file), strbuf_cstr(&hosts),
                       strbuf_cstr(&hashes), mtime)->seen = 1;
        } else {
            strbuf what = STRBUF_INIT;
            strbuf_appendf(&what, "%s/%s", container, strbuf_cstr(&file));
            note_failure(m, strbuf_cstr(&what), why);
            strbuf_free(&what);
        }
    }
    strbuf_free(&hosts);
    strbuf_free(&hashes);
    strbuf_free(&file);
}

/* Merged files of `period` the listing no longer has: removed. */
static void remove_unseen(struct merge *m, int pfd, const char *period)
{
    for (size_t i = 0; i < m->man.n; i++) {
        struct merged *mg = &m->man.v[i];
        if (!mg->file || mg->seen || strcmp(mg->period, period) != 0)
            continue;
        if (unlinkat(pfd, mg->file, 0) == 0 || errno == ENOENT)
            m->st->removed++;
        free(mg->file);
        mg->file = NULL;
    }
}

static void keep_period(struct merge *m, const char *period)
{
    for (size_t i = 0; i < m->man.n; i++) {
        if (m->man.v[i].file && strcmp(m->man.v[i].period, period) == 0)
            m->man.v[i].seen = 1;
    }
}

/* <logs_dir>/<period>, created when missing, never through a symlink. */
static int open_period(int logs_fd, const char *period)
{
    int fd = openat(logs_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && mkdirat(logs_fd, period, 0755) == 0)
        fd = openat(logs_fd, period, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd;
}

static void merge_period(struct merge *m, const char *period)
{
    char container[160], why[1024];
    store_container(m->a->sc, "logs", period, container, sizeof container);
    struct listing l = {m, NULL, 0, 0};
    uint64_t skipped_before = objstore_stats(m->a->store)->skipped_names;
    int rc = objstore_list(m->a->store, container, NULL, take_item, &l, why, sizeof why);
    m->st->skipped += (size_t)(objstore_stats(m->a->store)->skipped_names - skipped_before);
    int pfd = -1;
    if (rc != OBJ_OK && rc != OBJ_NOT_FOUND) {
        note_failure(m, container, why);
        keep_period(m, period);
    } else if ((pfd = open_period(m->a->logs_fd, period)) < 0) {
        note_failure(m, period, strerror(errno));
        keep_period(m, period);
    } else {
        if (l.n) /* qsort wants an array, even of none */
            qsort(l.v, l.n, sizeof *l.v, cmp_member);
        for (size_t i = 0, j; i < l.n; i = j) {
            for (j = i + 1; j < l.n && l.v[j].kind == l.v[i].kind &&
                            strcmp(l.v[j].name, l.v[i].name) == 0;)
                j++;
            merge_file(m, pfd, period, container, &l.v[i], j - i);
        }
        remove_unseen(m, pfd, period);
        close(pfd);
    }
    free_listing(&l);
}

int storemerge_run(const struct storemerge_args *a, struct storemerge_stats *st)
{
    memset(st, 0, sizeof *st);
    struct merge m = {a, {NULL, 0, 0}, st};
    load_manifest(&m.man, a->private_fd, a->manifest);
    for (size_t i = 0; i < a->sc->nperiods; i++)
        merge_period(&m, a->sc->periods[i]);
    for (size_t i = 0; i < m.man.n; i++)
        st->files += m.man.v[i].file != NULL;
    save_manifest(&m.man, a->private_fd, a->manifest);
    free_manifest(&m.man);
    return st->failed ? 1 : 0;
}

void storemerge_summary(const struct storemerge_stats *st, const char *what, strbuf *out)
{
    strbuf_appendf(out, "; from the store: %zu %s (%zu fetched, %zu objects, %llu bytes)",
                   st->files, what, st->fetched, st->objects, (unsigned long long)st->bytes);
    if (st->removed)
        strbuf_appendf(out, ", %zu removed", st->removed);
    if (st->skipped)
        strbuf_appendf(out, ", %zu objects skipped", st->skipped);
    if (st->failed)
        strbuf_appendf(out, ", %zu failed (the files merged before are used)", st->failed);
}

/* --- hosts, for the index ------------------------------------------------ */

struct storemerge_hosts {
    struct manifest man;
};

struct storemerge_hosts *storemerge_hosts_load(int private_fd, const char *manifest)
{
    struct storemerge_hosts *h = xcalloc(1, sizeof *h);
    load_manifest(&h->man, private_fd, manifest);
    return h;
}

const char *storemerge_hosts_of(const struct storemerge_hosts *h, const char *period,
                                const char *file)
{
    if (!h)
        return NULL;
    const struct merged *m = find_merged(&h->man, period, file);
    return m ? m->hosts : NULL;
}

void storemerge_hosts_free(struct storemerge_hosts *h)
{
    if (!h)
        return;
    free_manifest(&h->man);
    free(h);
}
