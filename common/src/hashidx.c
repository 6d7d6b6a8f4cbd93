/* hashidx: an open-addressing index of an array's entries by hash. See
 * hashidx.h. */
#include "hashidx.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

void hashidx_free(struct hashidx *h)
{
    free(h->slots);
    *h = (struct hashidx)HASHIDX_INIT;
}

void hashidx_clear(struct hashidx *h)
{
    if (h->n)
        memset(h->slots, 0, h->cap * sizeof *h->slots);
    h->n = 0;
}

/* The empty slot where `hash` goes. */
static void place(struct hashidx *h, uint64_t hash, size_t index)
{
    size_t mask = h->cap - 1, s = (size_t)hash & mask;
    while (h->slots[s])
        s = (s + 1) & mask;
    h->slots[s] = (uint32_t)(index + 1);
}

/* The slots for `need` entries: doubled from cap (or from first) while
 * more than half would be used. need <= HASHIDX_MAX keeps the result at
 * most 2 * HASHIDX_MAX, whose bytes fit a size_t. */
static size_t slots_for(size_t cap, size_t need, size_t first)
{
    size_t c = cap;
    if (!c) {
        c = 2;
        while (c < first && c < 2 * HASHIDX_MAX)
            c *= 2;
    }
    while (c / 2 < need)
        c *= 2;
    return c;
}

int hashidx_reserve(struct hashidx *h, size_t need, size_t first, hashidx_hash_fn hash_of,
                    void *ctx)
{
    if (need > HASHIDX_MAX)
        return -1;
    if (h->cap && need <= h->cap / 2)
        return 0;
    size_t cap = slots_for(h->cap, need, first);
    free(h->slots); /* hash_of gives every entry's hash: the old slots are not needed */
    h->slots = xcalloc(cap, sizeof *h->slots);
    h->cap = cap;
    for (size_t i = 0; i < h->n; i++)
        place(h, hash_of(i, ctx), i);
    return 0;
}

size_t hashidx_insert(struct hashidx *h, uint64_t hash)
{
    if (h->n >= h->cap / 2)
        abort(); /* no room reserved: a bug of the caller's, never input */
    place(h, hash, h->n);
    return h->n++;
}

size_t hashidx_longest_probe(const struct hashidx *h)
{
    size_t longest = 0, n = 0;
    /* twice round, so a stretch that wraps past the end is measured whole */
    for (size_t i = 0; i < 2 * h->cap && n < h->cap; i++) {
        n = h->slots[i & (h->cap - 1)] ? n + 1 : 0;
        if (n > longest)
            longest = n;
    }
    return longest;
}
