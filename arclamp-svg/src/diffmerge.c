/* diffmerge: two trace logs merged into "STACK BEFORE AFTER" lines (see
 * diffmerge.h).
 *
 * One table of distinct stacks: their bytes in one arena, an entry per
 * stack with both sides' counts, and a hashidx over the entries keyed by
 * keyedhash (the stacks come from the logs' writers, so the hash must be
 * keyed, hashidx.h). A repeated stack costs one hash and one compare. */
#include "diffmerge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "hashidx.h"
#include "keyedhash.h"
#include "stackline.h"
#include "strbuf.h"
#include "vec.h"

struct dm_entry {
    size_t off;          /* the stack's bytes: arena[off .. off + len) */
    size_t len;
    uint64_t hash;
    uint64_t count[2];   /* BEFORE, AFTER */
};

struct diffmerge {
    strbuf arena;
    struct dm_entry *v;
    size_t n, cap;
    struct hashidx idx;
    size_t max_stacks, max_bytes;
    size_t truncated;     /* entry number of [truncated] + 1; 0 until needed */
    size_t truncated_lines;
    uint64_t total[2];
    size_t lines[2], ignored[2];
};

struct diffmerge *diffmerge_new(size_t max_stacks, size_t max_bytes)
{
    struct diffmerge *dm = xcalloc(1, sizeof *dm);
    dm->arena = (strbuf)STRBUF_INIT;
    dm->max_stacks = max_stacks ? max_stacks : FLAME_DEFAULT_MAX_STACKS;
    dm->max_bytes = max_bytes ? max_bytes : FLAME_DEFAULT_MAX_MEMORY;
    return dm;
}

void diffmerge_free(struct diffmerge *dm)
{
    if (!dm)
        return;
    strbuf_free(&dm->arena);
    free(dm->v);
    hashidx_free(&dm->idx);
    free(dm);
}

static uint64_t entry_hash(size_t index, void *ctx)
{
    return ((const struct diffmerge *)ctx)->v[index].hash;
}

/* Bytes the tables would hold with one more stack of `len` bytes: the
 * arena, the entries (room doubles) and the index (at most 4 slots an
 * entry, hashidx.h). */
static size_t memory_with(const struct diffmerge *dm, size_t len)
{
    size_t n = dm->n + 1;
    return dm->arena.len + len + 2 * n * sizeof(struct dm_entry) + 4 * n * sizeof(uint32_t);
}

static size_t find(const struct diffmerge *dm, const char *stack, size_t len, uint64_t hash)
{
    struct hashidx_walk w;
    for (size_t i = hashidx_find(&dm->idx, hash, &w); i != HASHIDX_NONE; i = hashidx_next(&w)) {
        const struct dm_entry *e = &dm->v[i];
        if (e->hash == hash && e->len == len && memcmp(dm->arena.data + e->off, stack, len) == 0)
            return i;
    }
    return HASHIDX_NONE;
}

static size_t insert(struct diffmerge *dm, const char *stack, size_t len, uint64_t hash)
{
    if (hashidx_reserve(&dm->idx, dm->n + 1, 1024, entry_hash, dm) < 0)
        abort();   /* unreachable: max_stacks is far below HASHIDX_MAX */
    VEC_RESERVE(dm->v, dm->cap, dm->n + 1, 1024);
    dm->v[dm->n] = (struct dm_entry){dm->arena.len, len, hash, {0, 0}};
    strbuf_append(&dm->arena, stack, len);
    hashidx_insert(&dm->idx, hash);
    return dm->n++;
}

/* The entry of a stack, stored now if the limits leave room; else the
 * [truncated] entry (always allowed: one stack more). */
static size_t entry_of(struct diffmerge *dm, const char *stack, size_t len)
{
    uint64_t hash = keyedhash(stack, len);
    size_t i = find(dm, stack, len, hash);
    if (i != HASHIDX_NONE)
        return i;
    if (dm->n < dm->max_stacks && memory_with(dm, len) <= dm->max_bytes)
        return insert(dm, stack, len, hash);
    dm->truncated_lines++;
    if (!dm->truncated) {
        const char *t = FLAME_TRUNCATED_FRAME;
        uint64_t th = keyedhash(t, strlen(t));
        size_t ti = find(dm, t, strlen(t), th);
        dm->truncated = (ti != HASHIDX_NONE ? ti : insert(dm, t, strlen(t), th)) + 1;
    }
    return dm->truncated - 1;
}

int diffmerge_add_line(struct diffmerge *dm, enum diffmerge_side side, const char *line,
                       size_t len)
{
    if (len && line[len - 1] == '\r')
        len--;
    struct stackline sl;
    if (stackline_parse(line, len, 0, &sl) != STACKLINE_OK) {
        dm->ignored[side]++;
        return -1;
    }
    size_t i = entry_of(dm, sl.stack, sl.stack_len);
    dm->v[i].count[side] += sl.count;
    dm->total[side] += sl.count;
    dm->lines[side]++;
    return 0;
}

struct side_reader {
    struct diffmerge *dm;
    enum diffmerge_side side;
};

static int on_line(void *arg, const char *line, size_t len)
{
    struct side_reader *r = arg;
    diffmerge_add_line(r->dm, r->side, line, len);
    return 0;
}

int diffmerge_read_fd(struct diffmerge *dm, enum diffmerge_side side, int fd, const char *name,
                      struct input_limit *limit, char *err, size_t errlen)
{
    struct side_reader r = {dm, side};
    struct input_stats st = {0};
    int rc = input_read_fd_limited(fd, name, limit, on_line, &r, &st, err, errlen);
    dm->ignored[side] += st.too_long;
    return rc == 0 ? 0 : -1;
}

int diffmerge_read_path(struct diffmerge *dm, enum diffmerge_side side, const char *path,
                        struct input_limit *limit, char *err, size_t errlen)
{
    struct side_reader r = {dm, side};
    struct input_stats st = {0};
    int rc = input_read_path_limited(path, limit, on_line, &r, &st, err, errlen);
    dm->ignored[side] += st.too_long;
    return rc == 0 ? 0 : -1;
}

uint64_t diffmerge_normalised(uint64_t before, uint64_t total_before, uint64_t total_after)
{
    if (total_before == 0 || total_before == total_after)
        return before;
    /* difffolded: int(count * total2 / total1), in doubles; truncated. */
    return (uint64_t)trunc((double)before * (double)total_after / (double)total_before);
}

static int by_stack(const void *a, const void *b, void *ctx)
{
    const struct diffmerge *dm = ctx;
    const struct dm_entry *x = &dm->v[*(const size_t *)a], *y = &dm->v[*(const size_t *)b];
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(dm->arena.data + x->off, dm->arena.data + y->off, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

int diffmerge_emit(const struct diffmerge *dm, int normalise, input_line_fn fn, void *arg)
{
    size_t *order = xcalloc(dm->n + 1, sizeof *order);
    for (size_t i = 0; i < dm->n; i++)
        order[i] = i;
    qsort_r(order, dm->n, sizeof *order, by_stack, (void *)dm);
    strbuf line = STRBUF_INIT;
    int rc = 0;
    for (size_t k = 0; k < dm->n && rc == 0; k++) {
        const struct dm_entry *e = &dm->v[order[k]];
        uint64_t before = normalise ? diffmerge_normalised(e->count[0], dm->total[0], dm->total[1])
                                    : e->count[0];
        strbuf_reset(&line);
        strbuf_append(&line, dm->arena.data + e->off, e->len);
        strbuf_appendf(&line, " %llu %llu", (unsigned long long)before,
                       (unsigned long long)e->count[1]);
        rc = fn(arg, line.data, line.len);
    }
    strbuf_free(&line);
    free(order);
    return rc;
}

uint64_t diffmerge_total(const struct diffmerge *dm, enum diffmerge_side side)
{
    return dm->total[side];
}

size_t diffmerge_lines(const struct diffmerge *dm, enum diffmerge_side side)
{
    return dm->lines[side];
}

size_t diffmerge_ignored(const struct diffmerge *dm, enum diffmerge_side side)
{
    return dm->ignored[side];
}

size_t diffmerge_stacks(const struct diffmerge *dm)
{
    return dm->n;
}

size_t diffmerge_truncated_lines(const struct diffmerge *dm)
{
    return dm->truncated_lines;
}
