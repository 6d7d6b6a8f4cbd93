/* runnames: the name table of one version 2 run (runline_names in
 * runline.h), apart from the rest of runline.c because only the readers
 * (arclamp-log, arclamp-report) need it, and its hash is keyed
 * (keyedhash.h, libsodium), which the PHP extension that compiles
 * runline.c for its writer has no use for. */
#include "hashidx.h"
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
    if (t->ids)
        hashidx_free(t->ids);
    free(t->ids);
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
    if (t->ids)
        hashidx_clear(t->ids);
    t->n = 0;
    strbuf_reset(&t->text);
}

/* The sender numbers the names: a fixed mix of the id would let it pick ids
 * that share one slot (multiples of the table's size), so it is keyed. */
static uint64_t id_hash(uint32_t id)
{
    return keyedhash(&id, sizeof id);
}

static uint64_t entry_hash(size_t i, void *ctx)
{
    const struct runline_names *t = ctx;
    return id_hash(t->entries[i].id);
}

static const struct runline_name_entry *lookup_id(const struct runline_names *t, uint32_t id)
{
    if (!t->ids)
        return NULL;
    struct hashidx_walk w;
    for (size_t i = hashidx_find(t->ids, id_hash(id), &w); i != HASHIDX_NONE;
         i = hashidx_next(&w)) {
        if (t->entries[i].id == id)
            return &t->entries[i];
    }
    return NULL;
}

int runline_names_define(struct runline_names *t, const struct runline *rl)
{
    if (lookup_id(t, rl->id))
        return -1;
    if (!t->ids)
        t->ids = xcalloc(1, sizeof *t->ids);
    if (hashidx_reserve(t->ids, t->n + 1, 64, entry_hash, t) < 0)
        abort(); /* past 2^31 names: the callers' budget holds runs far below */
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
    hashidx_insert(t->ids, id_hash(rl->id));
    t->n++;
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
    return t->ids ? hashidx_longest_probe(t->ids) : 0;
}
