/* fnfilter: per-function matching of stacks, memoized per distinct stack.
 * See fnfilter.h. */
#include "fnfilter.h"
#include "keyedhash.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

struct slot {
    struct keyedhash128 hash; /* the stack's identity */
    uint64_t bits;            /* its answer */
    int used;
};

struct fnfilter {
    char **needles;       /* ";FUNCTION;" */
    size_t *needle_len;
    size_t n;
    struct slot *slots;   /* open addressing, linear probing */
    size_t cap;           /* a power of two */
    size_t used;
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
    free(ff->slots);
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

static struct slot *find(struct slot *slots, size_t cap, struct keyedhash128 h)
{
    size_t i = (size_t)h.low64 & (cap - 1);
    while (slots[i].used && !keyedhash128_eq(slots[i].hash, h))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static void grow(struct fnfilter *ff)
{
    size_t cap = ff->cap ? ff->cap * 2 : 1024;
    struct slot *slots = xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < ff->cap; i++) {
        if (ff->slots[i].used)
            *find(slots, cap, ff->slots[i].hash) = ff->slots[i];
    }
    free(ff->slots);
    ff->slots = slots;
    ff->cap = cap;
}

uint64_t fnfilter_match(struct fnfilter *ff, const char *stack, size_t len)
{
    if (ff->n == 0)
        return 0;
    if (ff->used * 2 >= ff->cap && ff->used < FNFILTER_MAX_MEMO)
        grow(ff);
    struct keyedhash128 h = keyedhash128(stack, len);
    struct slot *s = find(ff->slots, ff->cap, h);
    if (!s->used && ff->used >= FNFILTER_MAX_MEMO)
        return search(ff, stack, len);   /* the memo is full: not remembered */
    if (!s->used) {
        s->hash = h;
        s->bits = search(ff, stack, len);
        s->used = 1;
        ff->used++;
    }
    return s->bits;
}

size_t fnfilter_memory(const struct fnfilter *ff)
{
    return sizeof *ff + ff->cap * sizeof *ff->slots;
}
