/* namemap: names numbered in order of insertion (see namemap.h).
 *
 * Names live back to back in one arena; an open-addressing table of entry
 * numbers (kept at most half full) finds them by a 64-bit hash, compared
 * before the bytes. */
#include "namemap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    size_t *slots;           /* entry number + 1; 0 marks an empty slot */
    size_t cap;              /* slots: a power of two, or 0 */
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
    free(m->slots);
    free(m);
}

/* The slot holding `name`, or the empty slot where it would go. */
static size_t *slot_of(const struct namemap *m, const char *name, size_t len, uint64_t hash)
{
    size_t j = (size_t)hash & (m->cap - 1);
    for (;; j = (j + 1) & (m->cap - 1)) {
        size_t *s = &m->slots[j];
        if (!*s)
            return s;
        const struct entry *e = &m->entries[*s - 1];
        if (e->hash == hash && e->len == len &&
            (len == 0 || memcmp(m->names.data + e->off, name, len) == 0))
            return s;
    }
}

/* Doubles the table (or makes the first one) and places every entry again. */
static void grow(struct namemap *m)
{
    free(m->slots);
    m->cap = m->cap ? m->cap * 2 : 64;
    m->slots = xcalloc(m->cap, sizeof(*m->slots));
    for (size_t i = 0; i < m->n; i++) {
        const struct entry *e = &m->entries[i];
        *slot_of(m, m->names.data + e->off, e->len, e->hash) = i + 1;
    }
}

long namemap_get(const struct namemap *m, const char *name, size_t len)
{
    if (!m->cap)
        return -1;
    size_t *s = slot_of(m, name, len, keyedhash(name, len));
    return *s ? (long)(*s - 1) : -1;
}

size_t namemap_add(struct namemap *m, const char *name, size_t len)
{
    long i = namemap_get(m, name, len);
    if (i >= 0)
        return (size_t)i;
    if ((m->n + 1) * 2 > m->cap)
        grow(m);
    VEC_RESERVE(m->entries, m->alloc, m->n + 1, 64);
    uint64_t hash = keyedhash(name, len);
    m->entries[m->n] = (struct entry){m->names.len, len, hash};
    if (len)
        strbuf_append(&m->names, name, len);
    *slot_of(m, name, len, hash) = m->n + 1;
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
