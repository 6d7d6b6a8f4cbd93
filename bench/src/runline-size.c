/* runline-size: what a hierarchical run costs on the wire in each line
 * format, measured with the project's own writer (common/src/runline.c).
 *
 * Reads one run in the xhprof/1 format (the lines the extension sent
 * before xhprof/2: begin, arcs, end), turns it into the names and arcs the
 * extension hands to runline_write_run (each key split at its first "==>",
 * a trailing "@LEVEL" read as the recursion level), writes it as xhprof/2,
 * reads that back with runline_names and checks that every arc has the key
 * and metrics it had, then prints, on one line for scripts:
 *   arcs= names= v1_bytes= v2_bytes= v1_per_arc= v2_per_arc= ratio=
 *   cap= v1_left_out= v2_left_out= write_us=
 * v1 bytes are the run as the extension joins it (lines joined by '\n');
 * at the cap, v1 keeps the heaviest arcs whose lines fit as the extension
 * does (excimer.hprof_max_bytes), v2 as runline_write_run does; write_us is
 * the median time of one runline_write_run of the whole run (sorting
 * included).
 *
 * Usage: runline-size [--cap BYTES] [--repeat N] [--write-v2 FILE] RUNFILE
 * Exit status: 0, 1 when the run cannot be read or does not read back the
 * same, 64 for bad usage. */
#include "bench_util.h"
#include "runline.h"
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

struct names {
    struct runline_name *v;    /* the distinct names, by id */
    size_t n, cap;
    uint32_t *slots;           /* open addressing: id + 1 */
    size_t nslots;
};

static uint32_t intern(struct names *t, const char *s, size_t len)
{
    if ((t->n + 1) * 2 > t->nslots) {
        free(t->slots);
        t->nslots = t->nslots ? t->nslots * 2 : 1024;
        t->slots = xcalloc(t->nslots, sizeof *t->slots);
        for (size_t i = 0; i < t->n; i++) {
            size_t k = XXH3_64bits(t->v[i].s, t->v[i].len) & (t->nslots - 1);
            while (t->slots[k])
                k = (k + 1) & (t->nslots - 1);
            t->slots[k] = (uint32_t)i + 1;
        }
    }
    size_t k = XXH3_64bits(s, len) & (t->nslots - 1);
    for (; t->slots[k]; k = (k + 1) & (t->nslots - 1)) {
        const struct runline_name *e = &t->v[t->slots[k] - 1];
        if (e->len == len && memcmp(e->s, s, len) == 0)
            return t->slots[k] - 1;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->v = xrealloc(t->v, t->cap * sizeof *t->v);
    }
    t->v[t->n] = (struct runline_name){xstrndup(s, len), len};
    t->slots[k] = (uint32_t)++t->n;
    return (uint32_t)t->n - 1;
}

/* "name@LEVEL": the name and its level (0 when none). */
static uint32_t split_level(const char *s, size_t *len)
{
    size_t i = *len;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i == *len || i < 2 || s[i - 1] != '@' || s[i] == '0' || *len - i > 9)
        return 0;
    uint32_t level = (uint32_t)strtoul(s + i, NULL, 10);
    *len = i - 1;
    return level;
}

struct run_in {
    struct runline_run run;
    char runid[RUNLINE_RUNID_MAX + 1];
    char host[RUNLINE_HOST_MAX + 1];
    strbuf entry;
    struct names names;
    struct runline_arc *arcs;
    size_t narcs, cap;
    strbuf keys;               /* the v1 keys, decoded, one after another */
    size_t *key_off;           /* arc i's key: keys[key_off[i], key_off[i + 1]) */
    size_t v1_bytes;           /* the lines joined by '\n' */
    size_t begin_len;          /* the begin line's length */
    size_t *v1_len;            /* each arc line's length */
};

static void add_arc(struct run_in *in, const struct runline *rl, size_t line_len)
{
    if (in->narcs == in->cap) {
        in->cap = in->cap ? in->cap * 2 : 1024;
        in->arcs = xrealloc(in->arcs, in->cap * sizeof *in->arcs);
        in->key_off = xrealloc(in->key_off, (in->cap + 1) * sizeof *in->key_off);
        in->v1_len = xrealloc(in->v1_len, in->cap * sizeof *in->v1_len);
    }
    size_t start = in->keys.len;
    strbuf_reserve(&in->keys, rl->text_len);
    in->keys.len += runline_unescape(rl->text, rl->text_len, in->keys.data + start);
    const char *key = in->keys.data + start;
    size_t klen = in->keys.len - start;
    struct runline_arc *a = &in->arcs[in->narcs];
    memset(a, 0, sizeof *a);
    memcpy(a->v, rl->v, sizeof a->v);
    const char *sep = memmem(key, klen, "==>", 3);
    a->caller = RUNLINE_NO_CALLER;
    if (sep) {
        size_t plen = (size_t)(sep - key);
        a->caller_level = split_level(key, &plen);
        a->caller = intern(&in->names, key, plen);
        key = sep + 3;
        klen -= (size_t)(sep - (in->keys.data + start)) + 3;
    }
    a->callee_level = split_level(key, &klen);
    a->callee = intern(&in->names, key, klen);
    in->key_off[in->narcs] = start;
    in->v1_len[in->narcs] = line_len;
    in->narcs++;
    in->key_off[in->narcs] = in->keys.len;
}

static int read_run(const char *path, struct run_in *in)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, lines = 0;
    ssize_t n;
    int ended = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            n--;
        struct runline rl;
        if (runline_parse(line, (size_t)n, &rl) != RUNLINE_OK || rl.version != 1) {
            fprintf(stderr, "runline-size: %s: line %zu is no xhprof/1 run line\n", path,
                    lines + 1);
            free(line);
            fclose(f);
            return -1;
        }
        in->v1_bytes += (size_t)n + (lines++ > 0);
        if (rl.kind == RUNLINE_BEGIN) {
            in->begin_len = (size_t)n;
            snprintf(in->runid, sizeof in->runid, "%.*s", (int)rl.runid_len, rl.runid);
            snprintf(in->host, sizeof in->host, "%.*s", (int)rl.host_len, rl.host);
            strbuf_reserve(&in->entry, rl.text_len);
            in->entry.len = runline_unescape(rl.text, rl.text_len, in->entry.data);
            in->run = (struct runline_run){in->runid, rl.time, in->host, rl.metrics,
                                           in->entry.data, in->entry.len, NULL, 0};
        } else if (rl.kind == RUNLINE_ARC) {
            add_arc(in, &rl, (size_t)n);
        } else {
            ended = 1;
        }
    }
    free(line);
    fclose(f);
    in->run.names = in->names.v;
    in->run.nnames = in->names.n;
    if (!ended || !in->narcs) {
        fprintf(stderr, "runline-size: %s: no complete run\n", path);
        return -1;
    }
    return 0;
}

/* The arcs' indexes, heaviest wt first (stable): the order both writers
 * go in. */
static size_t *by_weight(const struct run_in *in)
{
    size_t *order = xmalloc(in->narcs * sizeof *order);
    for (size_t i = 0; i < in->narcs; i++)
        order[i] = i;
    for (size_t i = 1; i < in->narcs; i++) { /* insertion sort: a bench, once */
        size_t x = order[i], j = i;
        for (; j > 0 && in->arcs[order[j - 1]].v[RL_WT] < in->arcs[x].v[RL_WT]; j--)
            order[j] = order[j - 1];
        order[j] = x;
    }
    return order;
}

/* Arcs left out of the v1 run at the cap, by the extension's rule: the
 * text so far (begin and arc lines, each with its newline) may not pass
 * the cap; a line that would is left out, later ones may fit. */
static size_t v1_left_out(const struct run_in *in, const size_t *order, size_t cap, size_t begin)
{
    size_t total = begin + 1, left = 0;
    for (size_t i = 0; i < in->narcs; i++) {
        size_t n = in->v1_len[order[i]] + 1;
        if (total + n > cap)
            left++;
        else
            total += n;
    }
    return left;
}

/* Reads the v2 text back and compares every arc with the v1 run's. */
static int same_run(const struct run_in *in, const char *text, size_t len)
{
    struct runline_names t;
    runline_names_init(&t, 1);
    strbuf key = STRBUF_INIT;
    char *seen = xcalloc(in->narcs, 1);
    size_t arcs = 0;
    int ok = 1;
    for (const char *p = text, *end = text + len; ok && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct runline rl;
        ok = runline_parse(p, n, &rl) == RUNLINE_OK;
        if (ok && rl.kind == RUNLINE_FN)
            ok = runline_names_define(&t, &rl) == 0;
        if (ok && rl.kind == RUNLINE_ARC) {
            ok = runline_names_key(&t, &rl, &key) == 0;
            /* the writer keeps the input's order among equal weights: find
             * the first unmatched arc of this key */
            size_t i = 0;
            for (; ok && i < in->narcs; i++) {
                size_t kl = in->key_off[i + 1] - in->key_off[i];
                if (!seen[i] && kl == key.len &&
                    memcmp(in->keys.data + in->key_off[i], key.data, kl) == 0 &&
                    memcmp(in->arcs[i].v, rl.v, sizeof rl.v) == 0)
                    break;
            }
            ok = ok && i < in->narcs;
            if (ok)
                seen[i] = 1;
            arcs++;
        }
        p = nl ? nl + 1 : end;
    }
    ok = ok && arcs == in->narcs;
    free(seen);
    strbuf_free(&key);
    runline_names_free(&t);
    return ok;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One write of the run (a fresh copy of its arcs: the writer sorts them). */
static size_t write_v2(const struct run_in *in, struct runline_arc *work, strbuf *out, size_t cap,
                       uint64_t *left)
{
    memcpy(work, in->arcs, in->narcs * sizeof *work);
    strbuf_reset(out);
    return runline_write_run(out, &in->run, work, in->narcs, cap, left);
}

int main(int argc, char **argv)
{
    double cap = 1048576, repeat = 21;
    const char *v2_path = NULL;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (strcmp(argv[i], "--cap") == 0 && parse_num(argv[i + 1], 1, 1e12, &cap) == 0)
            continue;
        if (strcmp(argv[i], "--repeat") == 0 && parse_num(argv[i + 1], 1, 1e6, &repeat) == 0)
            continue;
        if (strcmp(argv[i], "--write-v2") == 0) {
            v2_path = argv[i + 1];
            continue;
        }
        break;
    }
    if (i != argc - 1) {
        fprintf(stderr, "usage: runline-size [--cap BYTES] [--repeat N] [--write-v2 FILE] RUNFILE\n");
        return 64;
    }
    struct run_in in;
    memset(&in, 0, sizeof in);
    if (read_run(argv[i], &in) < 0)
        return 1;
    struct runline_arc *work = xmalloc(in.narcs * sizeof *work);
    strbuf out = STRBUF_INIT;
    uint64_t left = 0;
    double *times = xmalloc((size_t)repeat * sizeof *times);
    for (size_t r = 0; r < (size_t)repeat; r++) {
        double t0 = now_us();
        write_v2(&in, work, &out, 0, &left);
        times[r] = now_us() - t0;
    }
    qsort(times, (size_t)repeat, sizeof *times, cmp_double);
    if (!same_run(&in, out.data, out.len)) {
        fprintf(stderr, "runline-size: the xhprof/2 run does not read back as the xhprof/1 one\n");
        return 1;
    }
    if (v2_path) {
        FILE *f = fopen(v2_path, "w");
        if (!f || fwrite(out.data, 1, out.len, f) != out.len || fputc('\n', f) == EOF ||
            fclose(f) != 0) {
            perror(v2_path);
            return 1;
        }
    }
    size_t v2_bytes = out.len;
    uint64_t v2_left;
    write_v2(&in, work, &out, (size_t)cap, &v2_left);
    size_t *order = by_weight(&in);
    printf("arcs=%zu names=%zu v1_bytes=%zu v2_bytes=%zu v1_per_arc=%.1f v2_per_arc=%.1f "
           "ratio=%.2f cap=%.0f v1_left_out=%zu v2_left_out=%llu write_us=%.0f\n",
           in.narcs, in.names.n, in.v1_bytes, v2_bytes, (double)in.v1_bytes / (double)in.narcs,
           (double)v2_bytes / (double)in.narcs, (double)in.v1_bytes / (double)v2_bytes, cap,
           v1_left_out(&in, order, (size_t)cap, in.begin_len), (unsigned long long)v2_left,
           times[(size_t)repeat / 2]);
    return 0;
}
