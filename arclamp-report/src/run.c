/* run: one XHProf run in memory (see run.h). */
#include "run.h"
#include "keyedhash.h"
#include "phpser.h"
#include "strbuf.h"
#include "vec.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
}

void run_free(run *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->arcs[i].key);
    free(r->arcs);
    hashidx_free(&r->index);
    memset(r, 0, sizeof *r);
}

static uint64_t key_hash(const char *key, size_t klen)
{
    return keyedhash(key, klen); /* names are the senders' */
}

static uint64_t arc_hash(size_t i, void *ctx)
{
    const run *r = ctx;
    return key_hash(r->arcs[i].key, r->arcs[i].klen);
}

arc *run_arc(run *r, const char *key, size_t klen, int create)
{
    uint64_t hash = key_hash(key, klen);
    struct hashidx_walk w;
    for (size_t i = hashidx_find(&r->index, hash, &w); i != HASHIDX_NONE; i = hashidx_next(&w)) {
        arc *a = &r->arcs[i];
        if (a->klen == klen && memcmp(a->key, key, klen) == 0)
            return a;
    }
    if (!create || r->n >= r->max_arcs ||
        (r->max_key_bytes && klen > r->max_key_bytes - r->key_bytes) ||
        hashidx_reserve(&r->index, r->n + 1, 1024, arc_hash, r) < 0)
        return NULL;
    VEC_RESERVE(r->arcs, r->cap, r->n + 1, 256);
    arc *a = &r->arcs[r->n];
    memset(a, 0, sizeof *a);
    a->key = xmalloc(klen + 1);
    memcpy(a->key, key, klen);
    a->key[klen] = '\0';
    a->klen = klen;
    r->key_bytes += klen;
    hashidx_insert(&r->index, hash);
    return &r->arcs[r->n++];
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
    double weight;             /* each value read counts this many times */
    uint32_t prev;             /* the previous entry's arc (index + 1; 0: none yet) */
    uint32_t main;             /* this file's main() (index + 1; 0: not seen) */
    unsigned main_present;     /* the metrics of this file's main() */
    char *err;
    size_t errlen;
};

static uint64_t load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* memcmp() == 0, inline for the short keys of most arcs (a call costs
 * more than the compare); the last word overlaps the one before it. */
static int same_bytes(const char *a, const char *b, size_t n)
{
    if (n > 32)
        return memcmp(a, b, n) == 0;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            if (load64(a + i) != load64(b + i))
                return 0;
        }
        return load64(a + n - 8) == load64(b + n - 8);
    }
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i])
            return 0;
    }
    return 1;
}

static int same_key(const arc *a, const char *key, size_t klen)
{
    return a->klen == klen && same_bytes(a->key, key, klen);
}

/* Where the prediction for the entry after l->prev is kept. */
static uint32_t *prediction(struct load *l)
{
    return l->prev ? &l->r->arcs[l->prev - 1].next : &l->r->first;
}

/* The arc of a key not predicted: the table's, created when new, which
 * becomes the prediction. Out of line: the predicted case stays small. */
static arc *unpredicted_arc(struct load *l, const char *key, size_t klen)
    __attribute__((noinline));

static arc *unpredicted_arc(struct load *l, const char *key, size_t klen)
{
    run *r = l->r;
    arc *a = run_arc(r, key, klen, 1);
    if (!a) {
        snprintf(l->err, l->errlen, "more than %zu arcs", r->max_arcs);
        return NULL;
    }
    uint32_t i = (uint32_t)(a - r->arcs) + 1;
    *prediction(l) = i; /* after run_arc: the arcs may have moved */
    l->prev = i;
    return a;
}

/* The arc of the next entry: the predicted one (the arc that followed the
 * previous entry's arc in the last file) when the key is the same. */
static arc *next_arc(struct load *l, const char *key, size_t klen)
{
    uint32_t i = *prediction(l);
    if (!i || !same_key(&l->r->arcs[i - 1], key, klen))
        return unpredicted_arc(l, key, klen);
    l->prev = i;
    return &l->r->arcs[i - 1];
}

/* An entry begins: its metrics go to its arc; main()'s are also this
 * file's metrics (main_present, added to the arc's at the end). */
static int on_entry(void *arg, const char *key, size_t klen, phpser_dest *dest)
{
    struct load *l = arg;
    arc *a = next_arc(l, key, klen);
    if (!a)
        return -1;
    dest->values = a->v;
    dest->present = &a->present;
    if (klen == 6 && memcmp(key, "main()", 6) == 0) {
        l->main = l->prev;
        dest->present = &l->main_present;
    }
    return 0;
}

static int load_serialized(struct load *l, const char *buf, size_t len)
{
    phpser_sum sum = {metric_names, metric_lens, M_COUNT, l->weight, on_entry, l, 0};
    char perr[200] = "";
    long n = phpser_sum_run(buf, len, l->r->max_arcs, &sum, perr, sizeof perr);
    l->r->unknown_metrics += sum.unknown;
    if (n >= 0)
        return 0;
    if (!l->errlen || !l->err[0])
        snprintf(l->err, l->errlen, "%s", perr);
    else
        snprintf(l->err + strlen(l->err), l->errlen - strlen(l->err), " (%s)", perr);
    return -1;
}

/* One metric of a JSON arc: a number within ±1e18, added as phpser_sum_run
 * adds it. */
static int json_metric(struct load *l, const char *key, phpser_dest *dest, const char *metric,
                       json_object *num)
{
    if (!json_object_is_type(num, json_type_int) && !json_object_is_type(num, json_type_double)) {
        snprintf(l->err, l->errlen, "arc \"%.100s\", %.40s: not a number", key, metric);
        return -1;
    }
    double v = json_object_get_double(num);
    if (!(v > -1e18 && v < 1e18)) {
        snprintf(l->err, l->errlen, "arc \"%.100s\", %.40s: out of range", key, metric);
        return -1;
    }
    int m = metric_of_name(metric, strlen(metric));
    if (m < 0) {
        l->r->unknown_metrics++;
        return 0;
    }
    dest->values[m] += l->weight * v;
    *dest->present |= 1u << m;
    return 0;
}

static int json_arcs(struct load *l, json_object *root)
{
    if (!json_object_is_type(root, json_type_object)) {
        snprintf(l->err, l->errlen, "a JSON run is an object of arcs");
        return -1;
    }
    json_object_object_foreach(root, key, val) {
        phpser_dest dest;
        if (!json_object_is_type(val, json_type_object)) {
            snprintf(l->err, l->errlen, "arc \"%.100s\": not an object", key);
            return -1;
        }
        if (on_entry(l, key, strlen(key), &dest) < 0)
            return -1;
        json_object_object_foreach(val, metric, num) {
            if (json_metric(l, key, &dest, metric, num) < 0)
                return -1;
        }
    }
    return 0;
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
    int rc = json_arcs(l, root);
    json_object_put(root);
    return rc;
}

/* ---- the file --------------------------------------------------------------- */

/* A run file's bytes. A regular file is mapped, not read: the parse then
 * reads the page cache itself (read() into a buffer, which the parse
 * pushes out of the cache again, made aggregating 60% slower). Anything
 * else (a pipe) is read. */
struct bytes {
    const char *data;
    size_t len;
    void *map;                 /* the mapping to undo, or NULL */
    strbuf copy;               /* what was read, when not mapped */
};

static int read_fd(int fd, const char *path, size_t max_bytes, strbuf *out, char *err,
                   size_t errlen)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n == 0)
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(err, errlen, "%s: read error (%s)", path, strerror(errno));
            return -1;
        }
        if (out->len + (size_t)n > max_bytes) {
            snprintf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
            return -1;
        }
        strbuf_append(out, chunk, (size_t)n);
    }
}

static int bytes_open(struct bytes *b, const char *path, size_t max_bytes, char *err,
                      size_t errlen)
{
    memset(b, 0, sizeof *b);
    b->data = "";
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if ((uintmax_t)st.st_size > max_bytes) {
            snprintf(err, errlen, "%s: larger than %zu bytes", path, max_bytes);
            close(fd);
            return -1;
        }
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            b->map = map;
            b->data = map;
            b->len = (size_t)st.st_size;
        }
    }
    if (!b->map) {
        rc = read_fd(fd, path, max_bytes, &b->copy, err, errlen);
        b->data = b->copy.data ? b->copy.data : "";
        b->len = b->copy.len;
    }
    close(fd);
    return rc;
}

static void bytes_close(struct bytes *b)
{
    if (b->map)
        munmap(b->map, b->len);
    strbuf_free(&b->copy);
}

/* A mapped file cut short by another process while it is parsed raises
 * SIGBUS when its lost pages are read: the handler jumps back out of the
 * parse, which fails with a message instead of the process dying. A
 * signal handler reaches only globals: these two, armed only while a
 * parse runs (arclamp-report has one thread). */
static sigjmp_buf bus_jump;
static volatile sig_atomic_t bus_armed;

static void on_sigbus(int sig)
{
    if (bus_armed)
        siglongjmp(bus_jump, 1);
    signal(sig, SIG_DFL); /* not during a parse: die of it, as without this handler */
    raise(sig);
}

static int parse(struct load *l, const char *buf, size_t len)
{
    if (len && buf[0] == '{')
        return load_json(l, buf, len);
    return load_serialized(l, buf, len);
}

static int parse_guarded(struct load *l, const char *buf, size_t len)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sa.sa_flags = SA_NODEFER; /* the jump leaves the handler: SIGBUS must not stay blocked */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old);
    if (sigsetjmp(bus_jump, 0) != 0) {
        bus_armed = 0;
        sigaction(SIGBUS, &old, NULL);
        snprintf(l->err, l->errlen, "the file was cut short while it was read");
        return -1;
    }
    bus_armed = 1;
    int rc = parse(l, buf, len);
    bus_armed = 0;
    sigaction(SIGBUS, &old, NULL);
    return rc;
}

/* ---- loading a run ------------------------------------------------------------ */

int run_load(run *r, const char *path, size_t max_bytes, char *err, size_t errlen)
{
    return run_load_weighted(r, path, max_bytes, 1.0, err, errlen);
}

int run_load_bytes(run *r, const char *buf, size_t len, double weight, char *err, size_t errlen)
{
    struct load l = {r, weight, 0, 0, 0, err, errlen};
    if (errlen)
        err[0] = '\0';
    int rc = parse_guarded(&l, buf, len);
    if (rc == 0 && !l.main) {
        snprintf(err, errlen, "no main()");
        rc = -1;
    }
    if (rc == 0) {
        r->arcs[l.main - 1].present |= l.main_present;
        r->metrics |= l.main_present;
    }
    return rc;
}

int run_load_weighted(run *r, const char *path, size_t max_bytes, double weight, char *err,
                      size_t errlen)
{
    struct bytes b;
    if (bytes_open(&b, path, max_bytes, err, errlen) < 0) {
        bytes_close(&b);
        return -1;
    }
    char why[300];
    int rc = run_load_bytes(r, b.data, b.len, weight, why, sizeof why);
    bytes_close(&b);
    if (rc < 0)
        snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}
