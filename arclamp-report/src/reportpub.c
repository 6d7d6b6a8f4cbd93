/* reportpub: run logs, tier tables and pages sent to the object store.
 * See reportpub.h. */
#include "reportpub.h"
#include "dirstream.h"
#include "jobfs.h"
#include "layout.h"
#include "log.h"
#include "storeup.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deepest directory of the reports tree walked: <period>/<kind>/<page>
 * and tiers/<period>/<page> are two levels down. */
#define MAX_DEPTH 3
#define GZIP_LEVEL 6

struct pub {
    const struct store_config *sc;
    struct storeup up;
    struct reportpub_stats *st;
};

const char *reportpub_content_type(const char *name)
{
    static const struct {
        const char *suffix, *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".svg", "image/svg+xml"},
        {".json", "application/json"},
    };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t m = strlen(types[i].suffix);
        if (n > m && strcmp(name + n - m, types[i].suffix) == 0)
            return types[i].type;
    }
    return NULL;
}

/* Opens a regular file without following a symlink; -1 with why. */
static int open_regular(int dirfd, const char *name, struct stat *sb, char *why, size_t whylen)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, sb) == 0 && S_ISREG(sb->st_mode))
        return fd;
    snprintf(why, whylen, "%s", fd < 0 ? strerror(errno) : "not a regular file");
    if (fd >= 0)
        close(fd);
    return -1;
}

/* ---- run logs and tier tables ------------------------------------------- */

struct logref {
    char *period, *file;
    int tiers;
};

struct logrefs {
    struct logref *v;
    size_t n, cap;
    int tiers;              /* what the scan now finds */
};

static void add_ref(void *arg, const char *period, const char *file, const struct stat *st)
{
    (void)st;
    struct logrefs *refs = arg;
    VEC_RESERVE(refs->v, refs->cap, refs->n + 1, 64);
    refs->v[refs->n++] = (struct logref){xstrdup(period), xstrdup(file), refs->tiers};
}

static int by_period(const void *x, const void *y)
{
    const struct logref *a = x, *b = y;
    int c = strcmp(a->period, b->period);
    return c ? c : strcmp(a->file, b->file);
}

static void publish_logfile(struct pub *p, const char *logs_dir, const struct logref *r)
{
    char container[160], name[NAME_MAX + 128], path[PATH_MAX], why[1024];
    store_container(p->sc, "logs", r->period, container, sizeof container);
    if (p->sc->host && *p->sc->host)
        snprintf(name, sizeof name, "%s/%s.gz", p->sc->host, r->file);
    else
        snprintf(name, sizeof name, "%s.gz", r->file);
    snprintf(path, sizeof path, "%s/%s/%s", logs_dir, r->period, r->file);
    struct stat sb;
    int fd = open_regular(AT_FDCWD, path, &sb, why, sizeof why);
    if (fd < 0) {
        storeup_failure(&p->up, container, name, why);
        return;
    }
    struct objstore_put put = {"text/plain; charset=utf-8", "gzip",
                               storeup_retention_seconds(p->sc->retention_days)};
    if (storeup_file(&p->up, container, name, fd, &sb, &put, GZIP_LEVEL) > 0) {
        if (r->tiers)
            p->st->tables++;
        else
            p->st->runs++;
    }
    close(fd);
}

static void free_refs(struct logrefs *refs)
{
    for (size_t i = 0; i < refs->n; i++) {
        free(refs->v[i].period);
        free(refs->v[i].file);
    }
    free(refs->v);
}

static int publish_logs(struct pub *p, const char *logs_dir, char *err, size_t errlen)
{
    struct logrefs refs = {NULL, 0, 0, 0};
    int complete = jobfs_scan(logs_dir, LAYOUT_RUNS_SUFFIX, add_ref, &refs) == 0;
    refs.tiers = 1;
    complete &= jobfs_scan(logs_dir, LAYOUT_TIERS_SUFFIX, add_ref, &refs) == 0;
    if (refs.n)
        qsort(refs.v, refs.n, sizeof *refs.v, by_period);
    if (storeup_open_manifest(&p->up, REPORTPUB_MANIFEST_LOGS, err, errlen) < 0) {
        free_refs(&refs);
        return -1;
    }
    for (size_t i = 0; i < refs.n && !p->up.gave_up; i++)
        publish_logfile(p, logs_dir, &refs.v[i]);
    storeup_close_manifest(&p->up, complete);
    if (p->sc->conn.kind == OBJSTORE_S3) {
        for (size_t i = 0; i < refs.n && !p->up.gave_up; i++) {
            if (i && strcmp(refs.v[i].period, refs.v[i - 1].period) == 0)
                continue;
            char container[160];
            store_container(p->sc, "logs", refs.v[i].period, container, sizeof container);
            storeup_expire(&p->up, container, p->sc->host, p->sc->retention_days);
        }
    }
    free_refs(&refs);
    return 0;
}

/* ---- pages --------------------------------------------------------------- */

static void publish_page(struct pub *p, const char *container, int dirfd, const char *file,
                         const char *object)
{
    const char *type = reportpub_content_type(file);
    if (!type || !objstore_name_ok(object))
        return; /* not a page, or a name the store cannot hold */
    char why[1024];
    struct stat sb;
    int fd = open_regular(dirfd, file, &sb, why, sizeof why);
    if (fd < 0) {
        storeup_failure(&p->up, container, object, why);
        return;
    }
    struct objstore_put put = {type, NULL, 0};
    if (storeup_file(&p->up, container, object, fd, &sb, &put, -1) > 0)
        p->st->pages++;
    close(fd);
}

/* Every page under the directory open as dirfd, whose path under the
 * reports directory is `rel` ("" or "hourly/report/"). 0, or -1 when some
 * directory could not be read (the manifest then keeps what it did not
 * see). */
static int walk(struct pub *p, const char *container, int dirfd, const char *rel, int depth)
{
    char **names;
    size_t n;
    if (dir_sorted_names(dirfd, &names, &n) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && !p->up.gave_up; i++) {
        struct stat sb;
        if (fstatat(dirfd, names[i], &sb, AT_SYMLINK_NOFOLLOW) < 0)
            continue; /* removed meanwhile */
        strbuf path = STRBUF_INIT;
        strbuf_appendf(&path, "%s%s", rel, names[i]);
        if (S_ISDIR(sb.st_mode) && depth < MAX_DEPTH) {
            int sub = openat(dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            strbuf_appendc(&path, '/');
            if (sub < 0 || walk(p, container, sub, strbuf_cstr(&path), depth + 1) < 0)
                rc = -1;
            if (sub >= 0)
                close(sub);
        } else if (S_ISREG(sb.st_mode)) {
            publish_page(p, container, dirfd, names[i], strbuf_cstr(&path));
        }
        strbuf_free(&path);
    }
    dir_names_free(names, n);
    return rc;
}

static int publish_pages(struct pub *p, const char *reports_dir, char *err, size_t errlen)
{
    char container[160];
    store_container(p->sc, "reports", NULL, container, sizeof container);
    int fd = open(reports_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", reports_dir, strerror(errno));
        return -1;
    }
    if (storeup_open_manifest(&p->up, REPORTPUB_MANIFEST_PAGES, err, errlen) < 0) {
        close(fd);
        return -1;
    }
    int complete = walk(p, container, fd, "", 0) == 0;
    storeup_close_manifest(&p->up, complete);
    close(fd);
    return 0;
}

int reportpub_run(const struct store_config *sc, const char *logs_dir, const char *reports_dir,
                  struct reportpub_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    int private_fd = jobfs_private_dir(reports_dir, err, errlen);
    if (private_fd < 0)
        return -1;
    struct objstore *store = objstore_open(&sc->conn, err, errlen);
    if (!store) {
        close(private_fd);
        return -1;
    }
    struct pub p = {sc, {0}, st};
    storeup_init(&p.up, store, private_fd);
    size_t setup_failed = 0;
    char why[1024];
    if (!sc->from_store && publish_logs(&p, logs_dir, why, sizeof why) < 0) {
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS, "run logs and tier tables: %s",
                      why);
        setup_failed++;
    }
    if (!p.up.gave_up && publish_pages(&p, reports_dir, why, sizeof why) < 0) {
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS, "pages: %s", why);
        setup_failed++;
    }
    st->failed = p.up.failed + setup_failed;
    st->unchanged = p.up.unchanged;
    st->expired = p.up.expired;
    st->bytes = p.up.bytes;
    storeup_free(&p.up);
    objstore_close(store);
    close(private_fd);
    return st->failed ? 1 : 0;
}

void reportpub_summary(const struct reportpub_stats *st, strbuf *out)
{
    strbuf_appendf(out,
                   "; store: %zu run logs, %zu tier tables, %zu pages sent (%llu bytes), "
                   "%zu unchanged",
                   st->runs, st->tables, st->pages, (unsigned long long)st->bytes, st->unchanged);
    if (st->failed)
        strbuf_appendf(out, ", %zu failed (sent again next run)", st->failed);
    if (st->expired)
        strbuf_appendf(out, ", %zu expired", st->expired);
}

void reportpub_step(const struct store_config *sc, const char *logs_dir,
                    const char *reports_dir, strbuf *summary)
{
    if (!sc || sc->conn.kind == OBJSTORE_NONE || !sc->publish)
        return;
    struct reportpub_stats st;
    char why[1024];
    if (reportpub_run(sc, logs_dir, reports_dir, &st, why, sizeof why) < 0) {
        st.failed++;
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS,
                      "publishing: %s (sent next run)", why);
    }
    reportpub_summary(&st, summary);
}
