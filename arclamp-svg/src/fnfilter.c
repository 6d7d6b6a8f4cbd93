/* fnfilter: per-function matching of stacks, memoized per distinct stack.
 * See fnfilter.h. */
#include "fnfilter.h"
#include "hashidx.h"
#include "keyedhash.h"
#include "strbuf.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>

/* One distinct stack remembered. */
struct memo {
    struct keyedhash128 hash; /* the stack's identity */
    uint64_t bits;            /* its answer */
};

struct fnfilter {
    char **needles;       /* ";FUNCTION;" */
    size_t *needle_len;
    size_t n;
    struct memo *memo;    /* the stacks remembered, in the order first seen */
    size_t used, alloc;
    struct hashidx idx;   /* memo by hash.low64 */
};

struct fnfilter *fnfilter_new(const char *const *functions, size_t n)
{
    struct fnfilter *ff = xcalloc(1, sizeof *ff);
    ff->n = n < FNFILTER_MAX ? n : FNFILTER_MAX;
    ff->needles = xcalloc(ff->n + 1, sizeof *ff->needles);
    ff->needle_len = xcalloc(ff->n + 1, sizeof *ff->needle_len);
    for (size_t i = 0; i < ff->n; i++) {
        strbuf sb = STRBUF_INIT;
        strbuf_appendf(&sb, ";%s;", functions[i]);
        ff->needle_len[i] = sb.len;
        ff->needles[i] = (char *)strbuf_cstr(&sb);
    }
    return ff;
}

void fnfilter_free(struct fnfilter *ff)
{
    if (!ff)
        return;
    for (size_t i = 0; i < ff->n; i++)
        free(ff->needles[i]);
    free(ff->needles);
    free(ff->needle_len);
    free(ff->memo);
    hashidx_free(&ff->idx);
    free(ff);
}

/* The search itself: ";F;" inside, or ";F" at the end. */
static uint64_t search(const struct fnfilter *ff, const char *stack, size_t len)
{
    uint64_t bits = 0;
    for (size_t i = 0; i < ff->n; i++) {
        const char *needle = ff->needles[i];
        size_t nlen = ff->needle_len[i];
        if (memmem(stack, len, needle, nlen) ||
            (len >= nlen - 1 && memcmp(stack + len - (nlen - 1), needle, nlen - 1) == 0))
            bits |= (uint64_t)1 << i;
    }
    return bits;
}

static uint64_t memo_hash(size_t i, void *ctx)
{
    const struct fnfilter *ff = ctx;
    return ff->memo[i].hash.low64;
}

/* The memo of the stack of hash h, or NULL. */
static const struct memo *recall(const struct fnfilter *ff, struct keyedhash128 h)
{
    struct hashidx_walk w;
    for (size_t i = hashidx_find(&ff->idx, h.low64, &w); i != HASHIDX_NONE; i = hashidx_next(&w)) {
        if (keyedhash128_eq(ff->memo[i].hash, h))
            return &ff->memo[i];
    }
    return NULL;
}

uint64_t fnfilter_match(struct fnfilter *ff, const char *stack, size_t len)
{
    if (ff->n == 0)
        return 0;
    struct keyedhash128 h = keyedhash128(stack, len);
    const struct memo *m = recall(ff, h);
    if (m)
        return m->bits;
    uint64_t bits = search(ff, stack, len);
    if (ff->used >= FNFILTER_MAX_MEMO)
        return bits;   /* the memo is full: not remembered */
    hashidx_reserve(&ff->idx, ff->used + 1, 1024, memo_hash, ff); /* bounded far below HASHIDX_MAX */
    VEC_RESERVE(ff->memo, ff->alloc, ff->used + 1, 512);
    ff->memo[ff->used++] = (struct memo){h, bits};
    hashidx_insert(&ff->idx, h.low64);
    return bits;
}

size_t fnfilter_memory(const struct fnfilter *ff)
{
    return sizeof *ff + ff->idx.cap * sizeof *ff->idx.slots + ff->alloc * sizeof *ff->memo;
}
