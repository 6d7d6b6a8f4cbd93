/* run: one XHProf run in memory (see run.h). */
#include "run.h"
#include "phpser.h"
#include "strbuf.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

const char *const metric_names[M_COUNT] = {
    "ct", "wt", "ut", "st", "cpu", "mu", "pmu", "samples", "mem.na", "mem.nf", "mem.aa",
};

static const unsigned char metric_lens[M_COUNT] = {2, 2, 2, 2, 3, 2, 3, 7, 6, 6, 6};

int metric_of_name(const char *name, size_t len)
{
    for (int m = 0; m < M_COUNT; m++) {
        if (metric_lens[m] == len && memcmp(metric_names[m], name, len) == 0)
            return m;
    }
    return -1;
}

void run_init(run *r, size_t max_arcs)
{
    memset(r, 0, sizeof *r);
    r->max_arcs = max_arcs;
    r->index_size = 1024;
    r->index = xcalloc(r->index_size, sizeof *r->index);
}

void run_free(run *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->arcs[i].key);
    free(r->arcs);
    free(r->index);
    memset(r, 0, sizeof *r);
}

static size_t slot_of(const run *r, const char *key, size_t klen)
{
    return (size_t)XXH3_64bits(key, klen) & (r->index_size - 1);
}

static void index_grow(run *r)
{
    free(r->index);
    r->index_size *= 2;
    r->index = xcalloc(r->index_size, sizeof *r->index);
    for (size_t i = 0; i < r->n; i++) {
        size_t s = slot_of(r, r->arcs[i].key, r->arcs[i].klen);
        while (r->index[s])
            s = (s + 1) & (r->index_size - 1);
        r->index[s] = (uint32_t)i + 1;
    }
}

arc *run_arc(run *r, const char *key, size_t klen, int create)
{
    size_t s = slot_of(r, key, klen);
    for (uint32_t v; (v = r->index[s]); s = (s + 1) & (r->index_size - 1)) {
        arc *a = &r->arcs[v - 1];
        if (a->klen == klen && memcmp(a->key, key, klen) == 0)
            return a;
    }
    if (!create || r->n >= r->max_arcs)
        return NULL;
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->arcs = xrealloc(r->arcs, r->cap * sizeof *r->arcs);
    }
    arc *a = &r->arcs[r->n];
    memset(a, 0, sizeof *a);
    a->key = xmalloc(klen + 1);
    memcpy(a->key, key, klen);
    a->key[klen] = '\0';
    a->klen = klen;
    r->index[s] = (uint32_t)++r->n;
    if (r->n * 2 > r->index_size)
        index_grow(r);
    return &r->arcs[r->n - 1];
}

void arc_split(const arc *a, const char **parent, size_t *plen, const char **child, size_t *clen)
{
    const char *sep = NULL;
    for (size_t i = 0; i + 3 <= a->klen; i++) {
        if (memcmp(a->key + i, "==>", 3) == 0) {
            sep = a->key + i;
            break;
        }
    }
    if (!sep) {
        *parent = NULL;
        *plen = 0;
        *child = a->key;
        *clen = a->klen;
        return;
    }
    *parent = a->key;
    *plen = (size_t)(sep - a->key);
    *child = sep + 3;
    *clen = a->klen - *plen - 3;
}

/* ---- loading -------------------------------------------------------------- */

struct load {
    run *r;
    arc *cur;
    double weight;             /* each value read counts this many times */
    int cur_is_main;           /* cur is this file's main() */
    int saw_main;
    unsigned main_present;     /* the metrics of this file's main() */
    char *err;
    size_t errlen;
};

static int add_value(struct load *l, const char *key, size_t klen, const char *metric,
                     size_t mlen, double value)
{
    if (!metric) {
        l->cur = run_arc(l->r, key, klen, 1);
        if (!l->cur) {
            snprintf(l->err, l->errlen, "more than %zu arcs", l->r->max_arcs);
            return -1;
        }
        l->cur_is_main = klen == 6 && memcmp(key, "main()", 6) == 0;
        l->saw_main |= l->cur_is_main;
        return 0;
    }
    int m = metric_of_name(metric, mlen);
    if (m < 0) {
        l->r->unknown_metrics++;
        return 0;
    }
    l->cur->v[m] += l->weight * value;
    l->cur->present |= 1u << m;
    if (l->cur_is_main)
        l->main_present |= 1u << m;
    return 0;
}

static int on_phpser(void *arg, const char *key, size_t klen, const char *metric, size_t mlen,
                     double value)
{
    return add_value(arg, key, klen, metric, mlen, value);
}

static int load_json(struct load *l, const char *buf, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(4); /* an object of objects: depth 2 */
    json_object *root = json_tokener_parse_ex(tok, buf, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success || used != len) {
        snprintf(l->err, l->errlen, "not a JSON run: %s at byte %zu",
                 root ? "trailing bytes" : json_tokener_error_desc(jerr), used);
        json_object_put(root);
        return -1;
    }
    int rc = 0;
    if (!json_object_is_type(root, json_type_object)) {
        snprintf(l->err, l->errlen, "a JSON run is an object of arcs");
        rc = -1;
    }
    json_object_object_foreach(rc == 0 ? root : NULL, key, val) {
        if (!json_object_is_type(val, json_type_object)) {
            snprintf(l->err, l->errlen, "arc \"%.100s\": not an object", key);
            rc = -1;
            break;
        }
        if ((rc = add_value(l, key, strlen(key), NULL, 0, 0)) < 0)
            break;
        json_object_object_foreach(val, metric, num) {
            if (!json_object_is_type(num, json_type_int) && !json_object_is_type(num, json_type_double)) {
                snprintf(l->err, l->errlen, "arc \"%.100s\", %.40s: not a number", key, metric);
                rc = -1;
                break;
            }
            double v = json_object_get_double(num);
            if (!(v > -1e18 && v < 1e18)) {
                snprintf(l->err, l->errlen, "arc \"%.100s\", %.40s: out of range", key, metric);
                rc = -1;
                break;
            }
            add_value(l, key, strlen(key), metric, strlen(metric), v);
        }
        if (rc < 0)
            break;
    }
    json_object_put(root);
    return rc;
}

static int read_file(const char *path, size_t max_bytes, strbuf *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out->len + n > max_bytes) {
            fclose(f);
            snprintf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
            return -1;
        }
        strbuf_append(out, chunk, n);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "%s: read error", path);
        return -1;
    }
    return 0;
}

int run_load(run *r, const char *path, size_t max_bytes, char *err, size_t errlen)
{
    return run_load_weighted(r, path, max_bytes, 1.0, err, errlen);
}

int run_load_weighted(run *r, const char *path, size_t max_bytes, double weight, char *err,
                      size_t errlen)
{
    strbuf buf = STRBUF_INIT;
    if (read_file(path, max_bytes, &buf, err, errlen) < 0) {
        strbuf_free(&buf);
        return -1;
    }
    char why[300] = "";
    struct load l = {r, NULL, weight, 0, 0, 0, why, sizeof why};
    int rc;
    if (buf.len && buf.data[0] == '{') {
        rc = load_json(&l, buf.data, buf.len);
    } else {
        char perr[200] = "";
        long n = phpser_read_run(buf.data ? buf.data : "", buf.len, r->max_arcs, on_phpser, &l,
                                 perr, sizeof perr);
        rc = n < 0 ? -1 : 0;
        if (rc < 0 && !why[0])
            snprintf(why, sizeof why, "%s", perr);
        else if (rc < 0)
            snprintf(why + strlen(why), sizeof why - strlen(why), " (%s)", perr);
    }
    strbuf_free(&buf);
    if (rc == 0 && !l.saw_main) {
        snprintf(why, sizeof why, "no main()");
        rc = -1;
    }
    if (rc == 0)
        r->metrics |= l.main_present;
    if (rc < 0)
        snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}
