/* storepub: logs, graphs and the index sent to the object store. See
 * storepub.h. */
#include "storepub.h"
#include "atomicfile.h"
#include "datadir.h"
#include "dirstream.h"
#include "log.h"
#include "logset.h"
#include "storeup.h"
#include "strbuf.h"
#include "vec.h"
#include "xmlesc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MANIFEST_LOGS "published-logs"
#define MANIFEST_GRAPHS "published-svgs"

/* Uploads go through common/src/storeup.c: manifests, the give-up rule,
 * containers made sure of once, S3's expiry. */
struct pub {
    const struct gen_config *cfg;
    struct storeup up;
    struct storepub_stats *st;
    size_t local_graphs;    /* graphs this host holds (sent or not) */
};

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
        storeup_failure(&p->up, container, name, why);
        return;
    }
    struct objstore_put put = {"text/plain; charset=utf-8", "gzip",
                               storeup_retention_seconds(p->cfg->store.retention_days)};
    /* a log gzip'ed already is stored as it is */
    if (storeup_file(&p->up, container, name, fd, &sb, &put,
                     lf->gz ? -1 : (int)p->cfg->gzip_level) > 0)
        p->st->logs++;
    close(fd);
}

static int publish_logs(struct pub *p, int logs_fd, char *err, size_t errlen)
{
    struct logset set;
    if (logset_scan_at(p->cfg, logs_fd, 1, &set, err, errlen) < 0)
        return -1;
    if (storeup_open_manifest(&p->up, MANIFEST_LOGS, err, errlen) < 0) {
        logset_free(&set);
        return -1;
    }
    int pfd = -1;
    const char *open_period = NULL;
    for (size_t i = 0; i < set.n && !p->up.gave_up; i++) {
        const struct logfile *lf = &set.files[i];
        if (!open_period || strcmp(open_period, lf->period) != 0) {
            if (pfd >= 0)
                close(pfd);
            char why[1024];
            pfd = datadir_openat(logs_fd, lf->period, lf->period, 0, 0755, why, sizeof why);
            open_period = lf->period;
            if (pfd < 0)
                storeup_failure(&p->up, "logs", lf->period, why);
        }
        if (pfd >= 0)
            publish_log(p, pfd, lf);
    }
    if (pfd >= 0)
        close(pfd);
    storeup_close_manifest(&p->up, 1);
    if (p->cfg->store.conn.kind == OBJSTORE_S3) {
        for (size_t i = 0; i < set.nperiods && !p->up.gave_up; i++) {
            char container[160];
            store_container(&p->cfg->store, "logs", set.periods[i], container, sizeof container);
            storeup_expire(&p->up, container, p->cfg->store.host, p->cfg->store.retention_days);
        }
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
        storeup_failure(&p->up, container, file, why);
        return;
    }
    struct objstore_put put = {"image/svg+xml", "gzip", 0};
    if (storeup_file(&p->up, container, file, fd, &sb, &put, -1) > 0)
        p->st->graphs++;
    close(fd);
}

/* The period directories of svgs_dir, sorted. */
static int graph_periods(int svgs_fd, char ***periods, size_t *n)
{
    return dir_sorted_names(svgs_fd, periods, n);
}

static int publish_graphs(struct pub *p, int svgs_fd, char **periods, size_t nperiods, char *err,
                          size_t errlen)
{
    if (storeup_open_manifest(&p->up, MANIFEST_GRAPHS, err, errlen) < 0)
        return -1;
    int complete = 1;
    for (size_t i = 0; i < nperiods && !p->up.gave_up; i++) {
        char why[1024];
        int pfd = datadir_openat(svgs_fd, periods[i], periods[i], 0, 0755, why, sizeof why);
        char **files;
        size_t nfiles;
        if (pfd < 0 || dir_sorted_names(pfd, &files, &nfiles) < 0) {
            complete = 0;
            if (pfd >= 0)
                close(pfd);
            continue; /* not a directory of ours: nothing to publish */
        }
        for (size_t j = 0; j < nfiles && !p->up.gave_up; j++) {
            if (ends_with(files[j], ".svgz")) {
                p->local_graphs++;
                publish_graph(p, pfd, periods[i], files[j]);
            }
        }
        dir_names_free(files, nfiles);
        close(pfd);
    }
    storeup_close_manifest(&p->up, complete);
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
        int rc = objstore_list(p->up.store, container, NULL, index_item, &x, why, sizeof why);
        if (rc == OBJ_NOT_FOUND)
            continue;
        if (rc != OBJ_OK) {
            storeup_failure(&p->up, container, "(listing)", why);
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
        storeup_failure(&p->up, container, STOREPUB_LOCAL_INDEX, why);
        strbuf_free(&json);
        return;
    }
    strbuf_free(&json);
    struct stat sb;
    int fd = datadir_open_regular(data_fd, STOREPUB_LOCAL_INDEX, &sb, why, sizeof why);
    struct objstore_put put = {"application/json", NULL, 0};
    char md5[33];
    if (fd < 0 || storeup_ensure(&p->up, container, why, sizeof why) != OBJ_OK ||
        objstore_put_fd(p->up.store, container, STOREPUB_INDEX_NAME, fd, &put, md5, why,
                        sizeof why) != OBJ_OK) {
        storeup_failure(&p->up, container, STOREPUB_INDEX_NAME, why);
    } else {
        storeup_success(&p->up);
        p->st->index = 1;
        p->st->bytes += (uint64_t)sb.st_size;
    }
    if (fd >= 0)
        close(fd);
}

/* The index is sent when a graph was, or never was while this host holds
 * graphs: a collector that draws none leaves the index to the host that
 * does. */
static int index_due(const struct pub *p, int data_fd)
{
    struct stat sb;
    return p->st->graphs > 0 ||
           (p->local_graphs > 0 &&
            fstatat(data_fd, STOREPUB_LOCAL_INDEX, &sb, AT_SYMLINK_NOFOLLOW) < 0);
}

int storepub_run(const struct gen_config *cfg, int data_fd, int logs_fd, int svgs_fd,
                 struct storepub_stats *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    char why[1024];
    int private_fd = datadir_open_private(data_fd, cfg->data_dir, 1, why, sizeof why);
    if (private_fd < 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    struct objstore *store = objstore_open(&cfg->store.conn, err, errlen);
    if (!store) {
        close(private_fd);
        return -1;
    }
    struct pub p = {cfg, {0}, st, 0};
    storeup_init(&p.up, store, private_fd);
    size_t setup_failed = 0;
    if (!cfg->store.from_store && publish_logs(&p, logs_fd, why, sizeof why) < 0) {
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS, "logs: %s", why);
        setup_failed++;
    }
    char **periods = NULL;
    size_t nperiods = 0;
    if (graph_periods(svgs_fd, &periods, &nperiods) < 0 ||
        publish_graphs(&p, svgs_fd, periods, nperiods, why, sizeof why) < 0) {
        log_untrusted(LOG_WARNING, "store_failed", LOG_NO_FIELDS, "graphs: %s", why);
        setup_failed++;
    }
    if (!p.up.gave_up && index_due(&p, data_fd))
        publish_index(&p, data_fd, periods, nperiods);
    dir_names_free(periods, nperiods);
    st->failed = p.up.failed + setup_failed;
    st->unchanged = p.up.unchanged;
    st->expired = p.up.expired;
    st->bytes += p.up.bytes;
    storeup_free(&p.up);
    objstore_close(store);
    close(private_fd);
    return st->failed ? 1 : 0;
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
