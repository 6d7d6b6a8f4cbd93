/* flame: collapsed stacks aggregated, then laid out as boxes (see flame.h).
 *
 * Two open-addressing hash tables do the reading:
 *   stack index  128-bit hash of a stack's bytes -> stack number
 *   frame index  frame name -> frame number (names stored once in an arena)
 * A line whose stack was seen before touches only the first one. Each stack
 * is kept as a run of frame numbers in one array (`path`); after reading,
 * frame numbers are replaced by their rank in name order, so sorting and
 * comparing stacks is comparing small integers.
 *
 * Bounded memory: a new stack is first planned (its frames counted, the new
 * names measured), the capacities every table then needs are computed and
 * their cost checked against the limits and the budget; only then is
 * anything grown or stored. So a limit is never passed halfway through a
 * stack, and no table ever grows past what the budget allows. The budget
 * also counts what flame_finish and the layout will allocate (per stack,
 * frame and level of depth), so those cannot surprise it. Room for the
 * [truncated] stack is always kept in reserve. */
#include "flame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "keyedhash.h"
#include "strbuf.h"

struct stack {
    uint32_t path;      /* offset of its frames in f->path */
    uint32_t len;       /* number of frames */
    double count;       /* samples (second column for differential input) */
    double delta;       /* differential lines: sum of second - first column */
};

/* Flame chart mode: a run of adjacent input lines with the same stack. */
struct run {
    double count, delta;
    uint32_t stack;
};

struct stack_slot {
    struct keyedhash128 hash; /* identity of the stack's bytes */
    uint32_t stack_plus1;   /* stack number + 1; 0 marks an empty slot */
};

struct frame_slot {
    uint64_t hash;          /* hash of the name (skips most byte comparisons) */
    uint32_t frame_plus1;   /* frame number + 1; 0 marks an empty slot */
};

struct frame_ref {
    uint32_t off;           /* offset of the name in the arena */
    uint32_t len;
};

/* The sizes that decide the memory held: capacities and counts. A plan for a
 * new stack is a copy of the current one, grown. */
struct tables {
    size_t stacks_alloc, stack_cap;   /* stacks[], stack_index[] (a power of two) */
    size_t path_alloc;                /* path[] */
    size_t frames_alloc, frame_cap;   /* frames[], frame_index[] (a power of two) */
    size_t names_alloc;               /* names[] */
    size_t runs_alloc;                /* runs[] (chart mode) */
    size_t nstacks, nframes;          /* what flame_finish sorts */
    size_t depth;                     /* the deepest stack (what the layout holds) */
};

struct flame {
    struct stack *stacks;           /* distinct stacks, in order of first sight */
    size_t nstacks;
    struct stack_slot *stack_index;
    uint32_t *path;                 /* frames of every stack, back to back */
    size_t path_len;

    struct frame_ref *frames;
    size_t nframes;
    struct frame_slot *frame_index;
    char *names;                    /* every frame name, back to back */
    size_t names_len;

    /* --colors chain (flame_chain): waker frames marked per line, in
     * chain_buf, for the direction chain_dir. */
    int chain;
    enum flame_direction chain_dir;
    strbuf chain_buf;
    strbuf chain_tmp;     /* the reversed stack's rewrite, for --reverse */

    /* Flame chart mode (flame_keep_order): the input order, as runs. */
    struct run *runs;
    size_t nruns;
    int keep_order;

    struct tables t;                /* capacities of the arrays above */

    /* After flame_finish: path holds ranks; order[rank] is the frame;
     * sorted[dir] lists the stack numbers in layout order (not in chart
     * mode, where the runs are the order). */
    uint32_t *order;
    uint32_t *sorted[2];
    int finished;

    double total;
    double max_delta;               /* the largest |second - first| of one line */
    uint32_t max_depth;
    size_t lines, ignored;
    int differential;

    /* Limits, and what went beyond them. */
    struct flame_limits lim;
    struct flame_budget own_budget; /* used when lim.budget was NULL */
    enum flame_limit limit_hit;     /* the first limit reached */
    size_t limit_value;
    uint32_t trunc_plus1;           /* the [truncated] stack + 1; 0: none yet */
    size_t trunc_lines;
    double trunc_samples;
};

/* Offsets and sizes are stored in uint32_t; the largest value any of them
 * may take (one below UINT32_MAX, which the +1 encodings of the indexes
 * need). A table that would pass it is a limit like the others. */
#define MAX_PATH (UINT32_MAX - 1)

#define TRUNC_LEN (sizeof(FLAME_TRUNCATED_FRAME) - 1)

/* --- memory accounting -------------------------------------------------- */

/* Bytes the tables of size `t` hold, plus what flame_finish and a layout
 * will allocate for them. */
static size_t footprint(const struct tables *t)
{
    return t->stacks_alloc * sizeof(struct stack) + t->stack_cap * sizeof(struct stack_slot) +
           t->path_alloc * sizeof(uint32_t) + t->frames_alloc * sizeof(struct frame_ref) +
           t->frame_cap * sizeof(struct frame_slot) + t->names_alloc +
           t->runs_alloc * sizeof(struct run) + t->nstacks * 2 * sizeof(uint32_t) +
           t->nframes * 2 * sizeof(uint32_t) + (t->depth + 1) * FLAME_DEPTH_BYTES;
}

/* Capacity of a plain array for `need` items: doubled (from `first`) when
 * that is affordable, else exactly `need` (near the budget's end). */
static size_t array_cap(size_t cap, size_t need, size_t first)
{
    if (need <= cap)
        return cap;
    size_t c = cap ? cap * 2 : first;
    return c < need ? need : c;
}

/* Capacity of a hash table (a power of two) holding `n` entries at most half full. */
static size_t table_cap(size_t cap, size_t n, size_t first)
{
    if (!cap)
        cap = first;
    while (n * 2 > cap)
        cap *= 2;
    return cap;
}

/* What storing `add_stacks` stacks of `add_path` frames, `add_frames` new
 * names of `add_bytes` bytes and `add_runs` runs needs, grown generously
 * (`tight` 0) or exactly (`tight` 1). */
static struct tables plan(const struct flame *f, size_t add_stacks, size_t add_path,
                          size_t add_frames, size_t add_bytes, size_t add_runs, size_t depth,
                          int tight)
{
    struct tables t = f->t;
    size_t (*grow)(size_t, size_t, size_t) = array_cap;
    size_t ns = f->nstacks + add_stacks, nf = f->nframes + add_frames;
    t.stacks_alloc = tight && ns > t.stacks_alloc ? ns : grow(t.stacks_alloc, ns, 1024);
    t.stack_cap = table_cap(t.stack_cap, ns + 1, tight ? 2 : 4096);
    size_t np = f->path_len + add_path;
    t.path_alloc = tight && np > t.path_alloc ? np : grow(t.path_alloc, np, 4096);
    t.frames_alloc = tight && nf > t.frames_alloc ? nf : grow(t.frames_alloc, nf, 1024);
    t.frame_cap = table_cap(t.frame_cap, nf + 1, tight ? 2 : 1024);
    size_t nb = f->names_len + add_bytes;
    t.names_alloc = tight && nb > t.names_alloc ? nb : grow(t.names_alloc, nb, 16384);
    size_t nr = f->nruns + add_runs;
    t.runs_alloc = tight && nr > t.runs_alloc ? nr : grow(t.runs_alloc, nr, 1024);
    if (ns > t.nstacks)   /* (a plan may count the reserve an earlier one counted) */
        t.nstacks = ns;
    if (nf > t.nframes)
        t.nframes = nf;
    if (depth > t.depth)
        t.depth = depth;
    return t;
}

/* The cost of going from the current tables to `t`, if the budget has it. */
static int affordable(const struct flame *f, const struct tables *t)
{
    size_t now = footprint(&f->t), then = footprint(t);
    const struct flame_budget *b = f->lim.budget;
    return then <= now || then - now <= (b->limit > b->used ? b->limit - b->used : 0);
}

static void rehash_stacks(struct flame *f, size_t cap);
static void rehash_frames(struct flame *f, size_t cap);

/* Grows every array to the sizes of `t` (already found affordable). */
static void apply(struct flame *f, const struct tables *t)
{
    struct tables *c = &f->t;
    size_t now = footprint(c), then = footprint(t);
    if (t->stacks_alloc != c->stacks_alloc)
        f->stacks = xrealloc(f->stacks, t->stacks_alloc * sizeof(*f->stacks));
    if (t->path_alloc != c->path_alloc)
        f->path = xrealloc(f->path, t->path_alloc * sizeof(*f->path));
    if (t->frames_alloc != c->frames_alloc)
        f->frames = xrealloc(f->frames, t->frames_alloc * sizeof(*f->frames));
    if (t->names_alloc != c->names_alloc)
        f->names = xrealloc(f->names, t->names_alloc);
    if (t->runs_alloc != c->runs_alloc)
        f->runs = xrealloc(f->runs, t->runs_alloc * sizeof(*f->runs));
    if (t->stack_cap != c->stack_cap)
        rehash_stacks(f, t->stack_cap);
    if (t->frame_cap != c->frame_cap)
        rehash_frames(f, t->frame_cap);
    *c = *t;
    f->lim.budget->used += then - now;
}

/* Records the first limit reached. */
static void hit(struct flame *f, enum flame_limit why, size_t value)
{
    if (f->limit_hit == FLAME_LIMIT_NONE) {
        f->limit_hit = why;
        f->limit_value = value;
    }
}

/* Room for a new stack of `depth` frames, `add_frames` of them new with
 * `add_bytes` bytes of names (and a run in chart mode), keeping the reserve
 * for the [truncated] stack. Grows the tables and returns 0, or returns -1
 * with the limit recorded. */
static int make_room(struct flame *f, size_t depth, size_t add_frames, size_t add_bytes)
{
    /* the reserve: one stack of one frame named FLAME_TRUNCATED_FRAME, and its run */
    size_t r = f->trunc_plus1 ? 0 : 1;
    size_t runs = f->keep_order ? 1 + r : 0;
    if (f->nstacks + 1 > f->lim.max_stacks) {
        hit(f, FLAME_LIMIT_STACKS, f->lim.max_stacks);
        return -1;
    }
    if (f->nframes + add_frames > f->lim.max_frames) {
        hit(f, FLAME_LIMIT_FRAMES, f->lim.max_frames);
        return -1;
    }
    size_t max = f->lim.max_offset;
    if (depth > max || f->path_len + depth + r > max || add_bytes > max ||
        f->names_len + add_bytes + r * TRUNC_LEN > max || f->nstacks + 1 + r > max ||
        f->nframes + add_frames + r > max) {
        hit(f, FLAME_LIMIT_OFFSET, max);
        return -1;
    }
    for (int tight = 0; tight < 2; tight++) {
        struct tables t = plan(f, 1 + r, depth + r, add_frames + r, add_bytes + r * TRUNC_LEN,
                               runs, depth, tight);
        if (affordable(f, &t)) {
            apply(f, &t);
            return 0;
        }
    }
    hit(f, FLAME_LIMIT_MEMORY, f->lim.budget->limit);
    return -1;
}

/* --- frames ------------------------------------------------------------- */

static void rehash_frames(struct flame *f, size_t cap)
{
    struct frame_slot *old = f->frame_index;
    size_t old_cap = f->t.frame_cap;
    f->frame_index = xcalloc(cap, sizeof(*f->frame_index));
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].frame_plus1)
            continue;
        size_t j = old[i].hash & (cap - 1);
        while (f->frame_index[j].frame_plus1)
            j = (j + 1) & (cap - 1);
        f->frame_index[j] = old[i];
    }
    free(old);
}

/* The slot of the name in the frame index: the frame's, or the empty slot
 * where it would go (no index yet: NULL). */
static struct frame_slot *frame_slot(const struct flame *f, const char *name, size_t len,
                                     uint64_t h)
{
    if (!f->t.frame_cap)
        return NULL;
    size_t j = h & (f->t.frame_cap - 1);
    while (f->frame_index[j].frame_plus1) {
        struct frame_slot *s = &f->frame_index[j];
        const struct frame_ref *r = &f->frames[s->frame_plus1 - 1];
        if (s->hash == h && r->len == len && memcmp(f->names + r->off, name, len) == 0)
            return s;
        j = (j + 1) & (f->t.frame_cap - 1);
    }
    return &f->frame_index[j];
}

/* The frame's number; a new name is stored (make_room made space for it). */
static uint32_t frame_intern(struct flame *f, const char *name, size_t len)
{
    uint64_t h = keyedhash(name, len);
    struct frame_slot *s = frame_slot(f, name, len, h);
    if (s->frame_plus1)
        return s->frame_plus1 - 1;
    uint32_t id = (uint32_t)f->nframes++;
    f->frames[id].off = (uint32_t)f->names_len;
    f->frames[id].len = (uint32_t)len;
    if (len)
        memcpy(f->names + f->names_len, name, len);
    f->names_len += len;
    s->hash = h;
    s->frame_plus1 = id + 1;
    return id;
}

const char *flame_frame_name(const struct flame *f, uint32_t frame, size_t *len)
{
    *len = f->frames[frame].len;
    return f->names ? f->names + f->frames[frame].off : "";
}

/* --- stacks ------------------------------------------------------------- */

static void rehash_stacks(struct flame *f, size_t cap)
{
    struct stack_slot *old = f->stack_index;
    size_t old_cap = f->t.stack_cap;
    f->stack_index = xcalloc(cap, sizeof(*f->stack_index));
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].stack_plus1)
            continue;
        size_t j = old[i].hash.low64 & (cap - 1);
        while (f->stack_index[j].stack_plus1)
            j = (j + 1) & (cap - 1);
        f->stack_index[j] = old[i];
    }
    free(old);
}

/* Calls fn for each frame of a stack (split at ';'); an empty stack has none. */
#define FOR_EACH_FRAME(stack, len, p, n, body)                                    \
    do {                                                                          \
        const char *p = (stack), *end_ = (stack) + (len);                         \
        while ((len) > 0) {                                                       \
            const char *semi_ = memchr(p, ';', (size_t)(end_ - p));               \
            size_t n = (size_t)((semi_ ? semi_ : end_) - p);                      \
            body;                                                                 \
            if (!semi_)                                                           \
                break;                                                            \
            p = semi_ + 1;                                                        \
        }                                                                         \
    } while (0)

/* Counts a stack's frames, and the names not yet stored. A new name
 * repeated within the stack counts each time, except right after itself
 * (direct recursion): an upper bound is enough. */
static void measure_stack(const struct flame *f, const char *stack, size_t len, size_t *depth,
                          size_t *new_frames, size_t *new_bytes)
{
    const char *prev = NULL;
    size_t prev_len = 0;
    *depth = *new_frames = *new_bytes = 0;
    FOR_EACH_FRAME(stack, len, p, n, {
        (*depth)++;
        int repeat = prev && prev_len == n && memcmp(prev, p, n) == 0;
        const struct frame_slot *s = repeat ? NULL : frame_slot(f, p, n, keyedhash(p, n));
        if (!repeat && (!s || !s->frame_plus1)) {
            (*new_frames)++;
            *new_bytes += n;
        }
        prev = p;
        prev_len = n;
    });
}

/* Stores a new stack: its frames, split at ';', interned (room was made). */
static uint32_t stack_store(struct flame *f, const char *stack, size_t len)
{
    struct stack *s = &f->stacks[f->nstacks];
    s->path = (uint32_t)f->path_len;
    s->count = s->delta = 0;
    FOR_EACH_FRAME(stack, len, p, n, { f->path[f->path_len++] = frame_intern(f, p, n); });
    s->len = (uint32_t)(f->path_len - s->path);
    if (s->len > f->max_depth)
        f->max_depth = s->len;
    return (uint32_t)f->nstacks++;
}

/* The stack of these bytes, stored if new; NULL when it is new and does not
 * fit within the limits. */
static struct stack *stack_find(struct flame *f, const char *stack, size_t len)
{
    struct keyedhash128 h = keyedhash128(stack, len);
    for (int pass = 0; pass < 2; pass++) {
        size_t j = f->t.stack_cap ? h.low64 & (f->t.stack_cap - 1) : 0;
        while (f->t.stack_cap && f->stack_index[j].stack_plus1) {
            if (keyedhash128_eq(f->stack_index[j].hash, h))
                return &f->stacks[f->stack_index[j].stack_plus1 - 1];
            j = (j + 1) & (f->t.stack_cap - 1);
        }
        if (pass == 1) {   /* room was made: j is where it goes */
            uint32_t id = stack_store(f, stack, len);
            f->stack_index[j].hash = h;
            f->stack_index[j].stack_plus1 = id + 1;
            return &f->stacks[id];
        }
        size_t depth, new_frames, new_bytes;
        measure_stack(f, stack, len, &depth, &new_frames, &new_bytes);
        if (make_room(f, depth, new_frames, new_bytes) != 0)
            return NULL;
    }
    return NULL;
}

/* --- chain graphs ------------------------------------------------------ */

/* The frames of s[0..len) in reverse order, joined by ';', into out. */
static void reverse_frames(strbuf *out, const char *s, size_t len)
{
    strbuf_reset(out);
    size_t end = len;
    for (;;) {
        const char *semi = memrchr(s, ';', end);
        size_t start = semi ? (size_t)(semi - s) + 1 : 0;
        strbuf_append(out, s + start, end - start);
        if (!semi)
            break;
        strbuf_appendc(out, ';');
        end = start - 1;
    }
}

/* The next ";--;" in s[from..len) at or after `from`, or len. */
static size_t next_separator(const char *s, size_t len, size_t from)
{
    for (size_t i = from; i + 4 <= len; i++) {
        if (memcmp(s + i, ";--;", 4) == 0)
            return i;
    }
    return len;
}

/* flamegraph.pl's chain rewrite of one stack, into out: split at ";--;"
 * (leftmost, not overlapping, as Perl's split), keep the first part, then
 * ";--;", then the other parts joined by ";--;" with every frame marked
 * "_[w]" (the waker mark the palette colours aqua and the labels hide).
 * A stack without a separator so ends in a "--" frame, as there. */
static void chain_stack(strbuf *out, const char *s, size_t len)
{
    strbuf_reset(out);
    size_t sep = next_separator(s, len, 0);
    strbuf_append(out, s, sep);
    strbuf_append(out, ";--", 3);
    if (sep == len)
        return;
    strbuf_appendc(out, ';');
    for (size_t from = sep + 4; from <= len;) {
        size_t end = next_separator(s, len, from);
        for (size_t i = from; i < end; i++) {
            if (s[i] == ';')
                strbuf_append(out, "_[w]", 4);
            strbuf_appendc(out, s[i]);
        }
        strbuf_append(out, "_[w]", 4);
        if (end == len)
            break;
        strbuf_append(out, ";--;", 4);
        from = end + 4;
    }
}

/* --colors chain, as flamegraph.pl prepares each line before merging
 * (chain_stack), on the stack reversed first for --reverse. The result,
 * stored in forward order (the tree reverses it again), goes to
 * f->chain_buf. */
static void chain_rewrite(struct flame *f, const char *stack, size_t len)
{
    if (f->chain_dir != FLAME_REVERSED) {
        chain_stack(&f->chain_buf, stack, len);
        return;
    }
    reverse_frames(&f->chain_buf, stack, len);
    chain_stack(&f->chain_tmp, f->chain_buf.data, f->chain_buf.len);
    reverse_frames(&f->chain_buf, f->chain_tmp.data, f->chain_tmp.len);
}

/* --- lines -------------------------------------------------------------- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Parses the number that ends s[0..*len) ("12", "12." or "12.5") when a
 * blank precedes it: stores it, shortens *len to exclude it and that one
 * blank, and returns 0. One blank only, as flamegraph.pl's /(.*)\s+?(\d+)$/:
 * in "a;b  3" the frame is "b " (its greedy .* keeps the other blanks). */
static int take_count(const char *s, size_t *len, double *value)
{
    size_t end = *len, i = end;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i > 0 && s[i - 1] == '.') {
        size_t dot = --i;
        while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
            i--;
        if (i == dot)
            return -1;
    } else if (i == end) {
        return -1;
    }
    size_t start = i;
    if (start == 0 || !is_blank(s[start - 1]) || end - start >= 64)
        return -1;
    char buf[64];
    memcpy(buf, s + start, end - start);
    buf[end - start] = '\0';
    *value = strtod(buf, NULL);
    *len = start - 1;
    return 0;
}

/* Chart mode: a new run at the end; 0, or -1 when the limits leave no
 * room (the reserve keeps one for the [truncated] run). */
static int run_room(struct flame *f)
{
    size_t reserve = f->trunc_plus1 ? 0 : 1;
    if (f->nruns + 1 + reserve <= f->t.runs_alloc)
        return 0;
    for (int tight = 0; tight < 2; tight++) {
        struct tables t = plan(f, 0, 0, 0, 0, 1 + reserve, 0, tight);
        if (affordable(f, &t)) {
            apply(f, &t);
            return 0;
        }
    }
    hit(f, FLAME_LIMIT_MEMORY, f->lim.budget->limit);
    return -1;
}

/* Chart mode: appends the line to the run of its stack when the previous
 * line had the same stack, as flamegraph.pl merges adjacent lines. Returns
 * -1 when a new run does not fit. */
static int run_add(struct flame *f, uint32_t stack, double count, double delta)
{
    if (f->nruns > 0 && f->runs[f->nruns - 1].stack == stack) {
        f->runs[f->nruns - 1].count += count;
        f->runs[f->nruns - 1].delta += delta;
        return 0;
    }
    int is_trunc = f->trunc_plus1 && stack == f->trunc_plus1 - 1;
    if (is_trunc ? f->nruns >= f->t.runs_alloc : run_room(f) != 0)
        return -1;   /* (the [truncated] run always has its room kept) */
    f->runs[f->nruns++] = (struct run){count, delta, stack};
    return 0;
}

/* The [truncated] stack (and in chart mode its run at the end), stored on
 * first use in the room kept for it. The tables are grown for it only when
 * nothing was ever stored (no room kept yet): a few KB past the budget at
 * most. */
static struct stack *trunc_stack(struct flame *f)
{
    if (!f->trunc_plus1) {
        size_t runs = f->keep_order && f->nruns + 1 > f->t.runs_alloc ? 1 : 0;
        if (f->nstacks + 1 > f->t.stacks_alloc || f->path_len + 1 > f->t.path_alloc ||
            f->nframes + 1 > f->t.frames_alloc || (f->nframes + 1) * 2 > f->t.frame_cap ||
            f->names_len + TRUNC_LEN > f->t.names_alloc || runs) {
            struct tables t = plan(f, 1, 1, 1, TRUNC_LEN, runs, 1, 1);
            apply(f, &t);
        }
        f->trunc_plus1 = stack_store(f, FLAME_TRUNCATED_FRAME, TRUNC_LEN) + 1;
    }
    return &f->stacks[f->trunc_plus1 - 1];
}

/* Counts a line beyond the limits: its samples go to [truncated]. In chart
 * mode every later line goes there too (the chart ends where the room did). */
static void add_truncated(struct flame *f, double count, double delta)
{
    struct stack *t = trunc_stack(f);
    t->count += count;
    t->delta += delta;
    f->trunc_lines++;
    f->trunc_samples += count;
    if (f->keep_order)
        run_add(f, f->trunc_plus1 - 1, count, delta);
}

/* Takes the counts off the end of a line: "STACK COUNT" or, differential,
 * "STACK BEFORE AFTER" (as flamegraph.pl: the width is AFTER). Shortens *len
 * to the stack, without the empty frames Perl's split drops at the end ("a;"
 * is "a", ";;;" only the root). 0, or -1 when there is no valid count. */
static int parse_line(const char *line, size_t *len, double *count, double *first,
                      int *differential)
{
    if (*len > 0 && line[*len - 1] == '\r')
        (*len)--;
    if (take_count(line, len, count) != 0)
        return -1;
    size_t stack_len = *len;
    *differential = take_count(line, &stack_len, first) == 0;
    if (*differential)
        *len = stack_len;
    while (*len > 0 && line[*len - 1] == ';')
        (*len)--;
    return 0;
}

/* Stores `count` samples (and their change) of the stack line[0..len). */
static void add_stack(struct flame *f, const char *line, size_t len, double count, double delta)
{
    if (f->chain) {
        chain_rewrite(f, line, len);
        line = f->chain_buf.data;
        len = f->chain_buf.len;
    }
    f->total += count;
    f->lines++;
    struct stack *s = f->keep_order && f->trunc_plus1 ? NULL : stack_find(f, line, len);
    if (s && f->keep_order && run_add(f, (uint32_t)(s - f->stacks), count, delta) != 0)
        s = NULL;
    if (!s) {
        add_truncated(f, count, delta);
        return;
    }
    s->count += count;
    s->delta += delta;
}

int flame_add_line(struct flame *f, const char *line, size_t len)
{
    double count, first = 0;
    int differential;
    if (f->finished || parse_line(line, &len, &count, &first, &differential) != 0) {
        f->ignored++;
        return -1;
    }
    /* A line's change, flamegraph.pl's COUNT2 - COUNT1; a line with one
     * count has none, even in a differential graph. */
    double delta = differential ? count - first : 0;
    if (differential) {
        f->differential = 1;
        if (fabs(delta) > f->max_delta)
            f->max_delta = fabs(delta);
    }
    add_stack(f, line, len, count, delta);
    return 0;
}

int flame_add_stack(struct flame *f, const char *stack, size_t len, double count)
{
    if (f->finished || !(count > 0)) {
        f->ignored++;
        return -1;
    }
    add_stack(f, stack, len, count, 0);
    return 0;
}

/* --- sorting ------------------------------------------------------------ */

/* qsort_r comparators get the flame through their last argument. */
static int frame_name_cmp(const void *a, const void *b, void *arg)
{
    const struct flame *f = arg;
    const struct frame_ref *fa = &f->frames[*(const uint32_t *)a];
    const struct frame_ref *fb = &f->frames[*(const uint32_t *)b];
    int c = memcmp(f->names + fa->off, f->names + fb->off,
                   fa->len < fb->len ? fa->len : fb->len);
    return c != 0 ? c : (fa->len > fb->len) - (fa->len < fb->len);
}

/* Frame by frame from the root; a stack that ends first sorts first (its
 * samples are the parent's own, drawn left of the children). */
static int stack_cmp_forward(const void *a, const void *b, void *arg)
{
    const struct flame *f = arg;
    const struct stack *sa = &f->stacks[*(const uint32_t *)a];
    const struct stack *sb = &f->stacks[*(const uint32_t *)b];
    const uint32_t *pa = f->path + sa->path, *pb = f->path + sb->path;
    uint32_t n = sa->len < sb->len ? sa->len : sb->len;
    for (uint32_t i = 0; i < n; i++) {
        if (pa[i] != pb[i])
            return pa[i] < pb[i] ? -1 : 1;
    }
    return (sa->len > sb->len) - (sa->len < sb->len);
}

/* The same from the leaf. */
static int stack_cmp_reversed(const void *a, const void *b, void *arg)
{
    const struct flame *f = arg;
    const struct stack *sa = &f->stacks[*(const uint32_t *)a];
    const struct stack *sb = &f->stacks[*(const uint32_t *)b];
    const uint32_t *pa = f->path + sa->path + sa->len, *pb = f->path + sb->path + sb->len;
    uint32_t n = sa->len < sb->len ? sa->len : sb->len;
    for (uint32_t i = 1; i <= n; i++) {
        if (pa[-(ptrdiff_t)i] != pb[-(ptrdiff_t)i])
            return pa[-(ptrdiff_t)i] < pb[-(ptrdiff_t)i] ? -1 : 1;
    }
    return (sa->len > sb->len) - (sa->len < sb->len);
}

void flame_finish(struct flame *f)
{
    if (f->finished)
        return;
    f->finished = 1;
    f->order = xmalloc((f->nframes ? f->nframes : 1) * sizeof(*f->order));
    for (uint32_t i = 0; i < f->nframes; i++)
        f->order[i] = i;
    qsort_r(f->order, f->nframes, sizeof(*f->order), frame_name_cmp, f);
    uint32_t *rank = xmalloc((f->nframes ? f->nframes : 1) * sizeof(*rank));
    for (uint32_t r = 0; r < f->nframes; r++)
        rank[f->order[r]] = r;
    for (size_t i = 0; i < f->path_len; i++)
        f->path[i] = rank[f->path[i]];
    free(rank);
    for (int dir = 0; dir < 2 && !f->keep_order; dir++) {
        f->sorted[dir] = xmalloc((f->nstacks ? f->nstacks : 1) * sizeof(uint32_t));
        for (uint32_t i = 0; i < f->nstacks; i++)
            f->sorted[dir][i] = i;
        qsort_r(f->sorted[dir], f->nstacks, sizeof(uint32_t),
                dir == FLAME_FORWARD ? stack_cmp_forward : stack_cmp_reversed, f);
    }
}

/* --- layout ------------------------------------------------------------- */

/* The open boxes of the current path: depth d is open[d]. */
struct open_box {
    uint32_t rank;
    double start;
    double delta;   /* the change of the lines ending here so far */
};

static uint32_t frame_at(const struct flame *f, const struct stack *s, enum flame_direction dir,
                         uint32_t depth)
{
    /* depth 1 is the first frame of the path in this direction */
    return dir == FLAME_FORWARD ? f->path[s->path + depth - 1]
                                : f->path[s->path + s->len - depth];
}

static void close_box(const struct flame *f, const struct open_box *b, uint32_t depth, double x,
                      flame_box_fn fn, void *arg)
{
    struct flame_box box = {depth, depth ? f->order[b->rank] : 0, b->start, x, x - b->start,
                            b->delta};
    fn(arg, &box);
}

/* The i-th stack laid out and the samples it spans: a distinct stack in
 * sorted order, or in chart mode a run of lines in input order. */
static const struct stack *item_at(const struct flame *f, enum flame_direction dir, size_t i,
                                   double *count, double *delta)
{
    if (f->keep_order) {
        *count = f->runs[i].count;
        *delta = f->runs[i].delta;
        return &f->stacks[f->runs[i].stack];
    }
    const struct stack *s = &f->stacks[f->sorted[dir][i]];
    *count = s->count;
    *delta = s->delta;
    return s;
}

void flame_layout(const struct flame *f, enum flame_direction dir, flame_box_fn fn, void *arg)
{
    struct open_box *open = xcalloc((size_t)f->max_depth + 1, sizeof(*open));
    uint32_t depth = 0;          /* boxes open at depths 1..depth */
    double x = 0;                /* samples laid out so far */
    const struct stack *prev = NULL;
    size_t items = f->keep_order ? f->nruns : f->nstacks;
    for (size_t i = 0; i < items; i++) {
        double count, delta;
        const struct stack *s = item_at(f, dir, i, &count, &delta);
        uint32_t common = 0;     /* leading frames shared with the open path */
        while (prev && common < depth && common < s->len &&
               frame_at(f, s, dir, common + 1) == open[common + 1].rank)
            common++;
        for (; depth > common; depth--)
            close_box(f, &open[depth], depth, x, fn, arg);
        for (; depth < s->len; depth++)
            open[depth + 1] = (struct open_box){frame_at(f, s, dir, depth + 1), x, 0};
        /* the stack's change belongs to its last frame (its leaf in this
         * direction), or the root for an empty stack */
        open[s->len].delta += delta;
        x += count;
        prev = s;
    }
    for (; depth > 0; depth--)
        close_box(f, &open[depth], depth, x, fn, arg);
    close_box(f, &open[0], 0, x, fn, arg);
    free(open);
}

void flame_each_stack(const struct flame *f, flame_stack_fn fn, void *arg)
{
    uint32_t *frames = xcalloc((size_t)f->max_depth + 1, sizeof(*frames));
    for (size_t i = 0; i < f->nstacks && !f->keep_order; i++) {
        const struct stack *s = &f->stacks[f->sorted[FLAME_FORWARD][i]];
        for (uint32_t d = 0; d < s->len; d++)
            frames[d] = f->order[f->path[s->path + d]];
        fn(arg, frames, s->len, s->count);
    }
    free(frames);
}

/* --- life cycle and figures --------------------------------------------- */

struct flame *flame_new(void)
{
    struct flame_limits lim = {0, 0, 0, NULL};
    return flame_new_limited(&lim);
}

struct flame *flame_new_limited(const struct flame_limits *lim)
{
    struct flame *f = xcalloc(1, sizeof(struct flame));
    f->lim = *lim;
    if (!f->lim.max_stacks)
        f->lim.max_stacks = FLAME_DEFAULT_MAX_STACKS;
    if (!f->lim.max_frames)
        f->lim.max_frames = FLAME_DEFAULT_MAX_FRAMES;
    if (!f->lim.max_offset || f->lim.max_offset > MAX_PATH)
        f->lim.max_offset = MAX_PATH;
    if (!f->lim.budget) {
        f->own_budget.limit = FLAME_DEFAULT_MAX_MEMORY;
        f->lim.budget = &f->own_budget;
    }
    return f;
}

void flame_keep_order(struct flame *f)
{
    f->keep_order = 1;
}

void flame_chain(struct flame *f, enum flame_direction dir)
{
    f->chain = 1;
    f->chain_dir = dir;
}

void flame_free(struct flame *f)
{
    if (!f)
        return;
    static const struct tables none;
    size_t held = footprint(&f->t) - footprint(&none);   /* what apply() charged */
    struct flame_budget *b = f->lim.budget;
    b->used = b->used > held ? b->used - held : 0;   /* the budget may be shared */
    free(f->stacks);
    free(f->stack_index);
    free(f->path);
    free(f->frames);
    free(f->frame_index);
    free(f->runs);
    free(f->names);
    free(f->order);
    free(f->sorted[0]);
    free(f->sorted[1]);
    strbuf_free(&f->chain_buf);
    strbuf_free(&f->chain_tmp);
    free(f);
}

double flame_total(const struct flame *f) { return f->total; }
uint32_t flame_max_depth(const struct flame *f) { return f->max_depth; }
size_t flame_ignored(const struct flame *f) { return f->ignored; }
size_t flame_lines(const struct flame *f) { return f->lines; }
size_t flame_distinct_stacks(const struct flame *f) { return f->nstacks - (f->trunc_plus1 != 0); }
size_t flame_distinct_frames(const struct flame *f) { return f->nframes; }
int flame_is_differential(const struct flame *f) { return f->differential; }
double flame_max_line_delta(const struct flame *f) { return f->max_delta; }
size_t flame_truncated_lines(const struct flame *f) { return f->trunc_lines; }
double flame_truncated_samples(const struct flame *f) { return f->trunc_samples; }

enum flame_limit flame_limit_reached(const struct flame *f, size_t *value)
{
    if (value)
        *value = f->limit_value;
    return f->trunc_lines ? f->limit_hit : FLAME_LIMIT_NONE;
}

size_t flame_memory(const struct flame *f)
{
    return sizeof(*f) + footprint(&f->t);
}
