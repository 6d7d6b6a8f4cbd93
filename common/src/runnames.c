/* runnames: the name table of one version 2 run (runline_names in
 * runline.h), apart from the rest of runline.c because only the readers
 * (arclamp-log, arclamp-report) need it, and its hash is keyed
 * (keyedhash.h, libsodium), which the PHP extension that compiles
 * runline.c for its writer has no use for. */
#include "keyedhash.h"
#include "runline.h"
#include "strbuf.h"
#include "vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the name table of one run --------------------------------------------- */

/* A run's names are a few thousand; past this many the table's memory is
 * given back when the next run begins rather than kept for it. */
#define NAMES_KEEP 16384

void runline_names_init(struct runline_names *t, int keep_text)
{
    memset(t, 0, sizeof *t);
    t->keep_text = keep_text;
}

void runline_names_free(struct runline_names *t)
{
    free(t->slots);
    free(t->entries);
    strbuf_free(&t->text);
    int keep = t->keep_text;
    runline_names_init(t, keep);
}

void runline_names_clear(struct runline_names *t)
{
    if (t->cap > NAMES_KEEP) {
        runline_names_free(t);
        return;
    }
    if (t->n)
        memset(t->slots, 0, t->nslots * sizeof *t->slots);
    t->n = 0;
    strbuf_reset(&t->text);
}

/* The sender numbers the names: a fixed mix of the id would let it pick ids
 * that share one slot (multiples of the table's size), so it is keyed. */
static size_t slot_of_id(const struct runline_names *t, uint32_t id)
{
    return (size_t)keyedhash(&id, sizeof id) & (t->nslots - 1);
}

static const struct runline_name_entry *lookup_id(const struct runline_names *t, uint32_t id)
{
    if (!t->nslots)
        return NULL;
    for (size_t s = slot_of_id(t, id); t->slots[s]; s = (s + 1) & (t->nslots - 1)) {
        const struct runline_name_entry *e = &t->entries[t->slots[s] - 1];
        if (e->id == id)
            return e;
    }
    return NULL;
}

/* Doubles the slots (at most half of them used) and puts the entries back. */
static void names_grow(struct runline_names *t)
{
    free(t->slots);
    t->nslots = t->nslots ? t->nslots * 2 : 64;
    t->slots = xcalloc(t->nslots, sizeof *t->slots);
    for (size_t i = 0; i < t->n; i++) {
        size_t s = slot_of_id(t, t->entries[i].id);
        while (t->slots[s])
            s = (s + 1) & (t->nslots - 1);
        t->slots[s] = (uint32_t)i + 1;
    }
}

int runline_names_define(struct runline_names *t, const struct runline *rl)
{
    if (lookup_id(t, rl->id))
        return -1;
    if ((t->n + 1) * 2 > t->nslots)
        names_grow(t);
    VEC_RESERVE(t->entries, t->cap, t->n + 1, 64);
    struct runline_name_entry *e = &t->entries[t->n];
    e->id = rl->id;
    e->off = t->text.len;
    e->len = 0;
    if (t->keep_text) {
        strbuf_reserve(&t->text, rl->text_len);
        e->len = runline_unescape(rl->text, rl->text_len, t->text.data + t->text.len);
        t->text.len += e->len;
    }
    size_t s = slot_of_id(t, rl->id);
    while (t->slots[s])
        s = (s + 1) & (t->nslots - 1);
    t->slots[s] = (uint32_t)++t->n;
    return 0;
}

int runline_names_resolves(const struct runline_names *t, const struct runline *rl)
{
    if (rl->version == 1)
        return 1;
    return (rl->caller == RUNLINE_NO_CALLER || lookup_id(t, rl->caller)) &&
           lookup_id(t, rl->callee) != NULL;
}

static void append_name(const struct runline_names *t, const struct runline_name_entry *e,
                        uint32_t level, strbuf *key)
{
    strbuf_append(key, t->text.data + e->off, e->len);
    if (level) {
        strbuf_appendf(key, "@%" PRIu32, level);
    }
}

int runline_names_key(const struct runline_names *t, const struct runline *rl, strbuf *key)
{
    strbuf_reset(key);
    if (rl->version == 1) {
        strbuf_reserve(key, rl->text_len);
        key->len = runline_unescape(rl->text, rl->text_len, key->data);
        return 0;
    }
    const struct runline_name_entry *callee = lookup_id(t, rl->callee);
    const struct runline_name_entry *caller =
        rl->caller == RUNLINE_NO_CALLER ? NULL : lookup_id(t, rl->caller);
    if (!t->keep_text || !callee || (rl->caller != RUNLINE_NO_CALLER && !caller))
        return -1;
    if (caller) {
        append_name(t, caller, rl->caller_level, key);
        strbuf_append(key, "==>", 3);
    }
    append_name(t, callee, rl->callee_level, key);
    return 0;
}

size_t runline_names_longest_probe(const struct runline_names *t)
{
    size_t longest = 0, n = 0;
    /* twice round, so a stretch that wraps past the end is measured whole */
    for (size_t i = 0; i < 2 * t->nslots && n < t->nslots; i++) {
        n = t->slots[i & (t->nslots - 1)] ? n + 1 : 0;
        if (n > longest)
            longest = n;
    }
    return longest;
}
