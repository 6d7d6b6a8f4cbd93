/* hashidx: finding the entries of an array by hash, written once.
 *
 * A table whose entries live in an array of its own (names, arcs, run ids)
 * keeps beside it a hashidx: open addressing over a power-of-two number of
 * slots, each holding an entry's index + 1 (0: empty), linear probing, and
 * never more than half the slots used, so a probe stays short. The index
 * knows neither the keys nor where the entries are: a lookup walks the
 * slots of a hash and hands each index it finds to the caller, who compares
 * its own entry with the key; growing places every entry again by the hash
 * the caller gives for it (stored, or computed again from the entry).
 *
 * Entries are numbered from 0 in the order they are inserted, as in the
 * caller's array; none is ever removed (a table that forgets everything at
 * once clears the index). Tables whose entries leave one by one (arclamp-log's
 * runs and trace files, common's tiertable) keep intrusive chains instead:
 * taking an entry out of an open-addressed table needs tombstones or moving
 * the entries after it, while unlinking a chained entry touches it alone.
 *
 * When senders choose the keys (run ids, function names, stacks), the hash
 * must be keyedhash's (keyedhash.h): under an unkeyed one a sender can make
 * every key start one probe sequence, and each lookup then walks them all.
 *
 * Memory: 4 bytes a slot, at least 2 slots an entry and, past the first
 * size, at most 4; the old slots are freed before the new are made. The
 * caller bounds the entries (hashidx_reserve refuses past HASHIDX_MAX).
 * Allocation failure aborts, as strbuf's (see strbuf.h). */
#ifndef ARCLAMP_HASHIDX_H
#define ARCLAMP_HASHIDX_H

#include <stddef.h>
#include <stdint.h>

/* Entries at most: an index + 1 fits a 32-bit slot, and the slots' bytes
 * fit a size_t (2^31, or 2^28 where size_t has 32 bits). */
#define HASHIDX_MAX \
    (SIZE_MAX / 16 + 1 < ((size_t)1 << 31) ? SIZE_MAX / 16 + 1 : ((size_t)1 << 31))

/* What a walk returns when no slot is left to look at. */
#define HASHIDX_NONE SIZE_MAX

struct hashidx {
    uint32_t *slots;  /* entry index + 1; 0 marks an empty slot (NULL: no slots yet) */
    size_t cap;       /* slots: a power of two, or 0 */
    size_t n;         /* entries inserted: 0 .. n-1, at most cap / 2 */
};

#define HASHIDX_INIT {NULL, 0, 0}

/* The hash of entry `index` (as given to hashidx_insert), for placing it
 * again when the slots grow. */
typedef uint64_t (*hashidx_hash_fn)(size_t index, void *ctx);

/* A walk along the slots of one hash (hashidx_find / hashidx_next). */
struct hashidx_walk {
    const uint32_t *slots;
    size_t mask;      /* cap - 1 */
    size_t at;        /* the slot looked at last */
};

void hashidx_free(struct hashidx *h);

/* Forgets every entry (n = 0) and keeps the slots for the next ones. */
void hashidx_clear(struct hashidx *h);

/* Makes room for `need` entries (at most half the slots used): doubles
 * the slots, from `first` (rounded up to a power of two, at least 2) for
 * the first ones, until they are enough, and places entries 0 .. n-1 again
 * by hash_of(index, ctx). 0; or -1, nothing changed, when need is above
 * HASHIDX_MAX. */
int hashidx_reserve(struct hashidx *h, size_t need, size_t first, hashidx_hash_fn hash_of,
                    void *ctx);

/* Places entry number n (the next one) at `hash` and returns its index.
 * hashidx_reserve must have made room for it. Whether an equal key is
 * there already is the caller's question (hashidx_find). */
size_t hashidx_insert(struct hashidx *h, uint64_t hash);

/* The first entry whose slot lies on the probe sequence of `hash`, or
 * HASHIDX_NONE: the caller compares that entry with its key and, when it
 * is another, asks hashidx_next. The walk ends at the first empty slot
 * (no entry with that key is beyond it). The table must not change during
 * the walk. */
static inline size_t hashidx_next(struct hashidx_walk *w)
{
    w->at = (w->at + 1) & w->mask;
    uint32_t v = w->slots[w->at];
    return v ? (size_t)v - 1 : HASHIDX_NONE;
}

static inline size_t hashidx_find(const struct hashidx *h, uint64_t hash, struct hashidx_walk *w)
{
    if (!h->cap)
        return HASHIDX_NONE;
    w->slots = h->slots;
    w->mask = h->cap - 1;
    w->at = ((size_t)hash - 1) & w->mask; /* hashidx_next steps onto hash's own slot */
    return hashidx_next(w);
}

/* The longest stretch of occupied slots: the most a lookup may probe (for
 * tests measuring that crafted keys do not pile up). */
size_t hashidx_longest_probe(const struct hashidx *h);

#endif
