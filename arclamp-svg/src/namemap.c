/* namemap: names numbered in order of insertion (see namemap.h).
 *
 * Names live back to back in one arena; a hashidx of entry numbers finds
 * them by their 64-bit hash, compared before the bytes. */
#include "namemap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashidx.h"
#include "keyedhash.h"
#include "strbuf.h"
#include "vec.h"

struct entry {
    size_t off;       /* the name's bytes in the arena */
    size_t len;
    uint64_t hash;
};

struct namemap {
    strbuf names;            /* every name, back to back */
    struct entry *entries;
    size_t n, alloc;
    struct hashidx idx;      /* the entries by hash */
};

struct namemap *namemap_new(void)
{
    return xcalloc(1, sizeof(struct namemap));
}

void namemap_free(struct namemap *m)
{
    if (!m)
        return;
    strbuf_free(&m->names);
    free(m->entries);
    hashidx_free(&m->idx);
    free(m);
}

static uint64_t entry_hash(size_t i, void *ctx)
{
    const struct namemap *m = ctx;
    return m->entries[i].hash;
}

/* The entry number of `name` by its hash, or -1. */
static long find(const struct namemap *m, const char *name, size_t len, uint64_t hash)
{
    struct hashidx_walk w;
    for (size_t i = hashidx_find(&m->idx, hash, &w); i != HASHIDX_NONE; i = hashidx_next(&w)) {
        const struct entry *e = &m->entries[i];
        if (e->hash == hash && e->len == len &&
            (len == 0 || memcmp(m->names.data + e->off, name, len) == 0))
            return (long)i;
    }
    return -1;
}

long namemap_get(const struct namemap *m, const char *name, size_t len)
{
    return find(m, name, len, keyedhash(name, len));
}

size_t namemap_add(struct namemap *m, const char *name, size_t len)
{
    uint64_t hash = keyedhash(name, len);
    long i = find(m, name, len, hash);
    if (i >= 0)
        return (size_t)i;
    if (hashidx_reserve(&m->idx, m->n + 1, 64, entry_hash, m) < 0)
        abort(); /* past 2^31 names: the callers bound them far below */
    VEC_RESERVE(m->entries, m->alloc, m->n + 1, 64);
    m->entries[m->n] = (struct entry){m->names.len, len, hash};
    if (len)
        strbuf_append(&m->names, name, len);
    hashidx_insert(&m->idx, hash);
    return m->n++;
}

size_t namemap_count(const struct namemap *m)
{
    return m->n;
}

const char *namemap_name(const struct namemap *m, size_t i, size_t *len)
{
    *len = m->entries[i].len;
    return m->entries[i].len ? m->names.data + m->entries[i].off : "";
}

static int by_name(const void *a, const void *b, void *arg)
{
    const struct namemap *m = arg;
    const struct entry *ea = &m->entries[*(const size_t *)a], *eb = &m->entries[*(const size_t *)b];
    size_t n = ea->len < eb->len ? ea->len : eb->len;
    int c = n ? memcmp(m->names.data + ea->off, m->names.data + eb->off, n) : 0;
    return c ? c : (ea->len > eb->len) - (ea->len < eb->len);
}

size_t *namemap_sorted(const struct namemap *m)
{
    if (!m->n)
        return NULL;
    size_t *order = xmalloc(m->n * sizeof(*order));
    for (size_t i = 0; i < m->n; i++)
        order[i] = i;
    qsort_r(order, m->n, sizeof(*order), by_name, (void *)m);
    return order;
}
