/* flame: collapsed stacks aggregated, then laid out as boxes (see flame.h).
 *
 * Two open-addressing hash tables do the reading:
 *   stack index  128-bit hash of a stack's bytes -> stack number
 *   frame index  frame name -> frame number (names stored once in an arena)
 * A line whose stack was seen before touches only the first one. Each stack
 * is kept as a run of frame numbers in one array (`path`); after reading,
 * frame numbers are replaced by their rank in name order, so sorting and
 * comparing stacks is comparing small integers. */
#include "flame.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "strbuf.h"

struct stack {
    uint32_t path;      /* offset of its frames in f->path */
    uint32_t len;       /* number of frames */
    double count;       /* samples (second column for differential input) */
    double count1;      /* differential input: the first column */
};

/* Flame chart mode: a run of adjacent input lines with the same stack. */
struct run {
    double count, count1;
    uint32_t stack;
};

struct stack_slot {
    XXH128_hash_t hash;     /* identity of the stack's bytes */
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

struct flame {
    struct stack *stacks;           /* distinct stacks, in order of first sight */
    size_t nstacks, stacks_alloc;
    struct stack_slot *stack_index;
    size_t stack_cap;               /* a power of two */
    uint32_t *path;                 /* frames of every stack, back to back */
    size_t path_len, path_alloc;

    struct frame_ref *frames;
    size_t nframes, frames_alloc;
    struct frame_slot *frame_index;
    size_t frame_cap;               /* a power of two */
    strbuf names;                   /* every frame name, back to back */

    /* Flame chart mode (flame_keep_order): the input order, as runs. */
    struct run *runs;
    size_t nruns, runs_alloc;
    int keep_order;

    /* After flame_finish: path holds ranks; order[rank] is the frame;
     * sorted[dir] lists the stack numbers in layout order (not in chart
     * mode, where the runs are the order). */
    uint32_t *order;
    uint32_t *sorted[2];
    int finished;

    double total, total1;
    uint32_t max_depth;
    size_t lines, ignored;
    int differential;
};

/* Sizes are kept in uint32_t: more than 4 G frames is far past any real
 * profile (and past available memory at 4 bytes each). */
#define MAX_PATH UINT32_MAX

/* --- frames ------------------------------------------------------------- */

static void frames_grow(struct flame *f)
{
    size_t old_cap = f->frame_cap;
    struct frame_slot *old = f->frame_index;
    f->frame_cap = old_cap ? old_cap * 2 : 1024;
    f->frame_index = xcalloc(f->frame_cap, sizeof(*f->frame_index));
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].frame_plus1)
            continue;
        size_t j = old[i].hash & (f->frame_cap - 1);
        while (f->frame_index[j].frame_plus1)
            j = (j + 1) & (f->frame_cap - 1);
        f->frame_index[j] = old[i];
    }
    free(old);
}

static uint32_t frame_intern(struct flame *f, const char *name, size_t len)
{
    if ((f->nframes + 1) * 2 > f->frame_cap)
        frames_grow(f);
    uint64_t h = XXH3_64bits(name, len);
    size_t j = h & (f->frame_cap - 1);
    while (f->frame_index[j].frame_plus1) {
        const struct frame_slot *s = &f->frame_index[j];
        const struct frame_ref *r = &f->frames[s->frame_plus1 - 1];
        if (s->hash == h && r->len == len && memcmp(f->names.data + r->off, name, len) == 0)
            return s->frame_plus1 - 1;
        j = (j + 1) & (f->frame_cap - 1);
    }
    if (f->nframes == f->frames_alloc) {
        f->frames_alloc = f->frames_alloc ? f->frames_alloc * 2 : 1024;
        f->frames = xrealloc(f->frames, f->frames_alloc * sizeof(*f->frames));
    }
    uint32_t id = (uint32_t)f->nframes++;
    f->frames[id].off = (uint32_t)f->names.len;
    f->frames[id].len = (uint32_t)len;
    strbuf_append(&f->names, name, len);
    f->frame_index[j].hash = h;
    f->frame_index[j].frame_plus1 = id + 1;
    return id;
}

const char *flame_frame_name(const struct flame *f, uint32_t frame, size_t *len)
{
    *len = f->frames[frame].len;
    return f->names.data ? f->names.data + f->frames[frame].off : "";
}

/* --- stacks ------------------------------------------------------------- */

static void stacks_grow(struct flame *f)
{
    size_t old_cap = f->stack_cap;
    struct stack_slot *old = f->stack_index;
    f->stack_cap = old_cap ? old_cap * 2 : 4096;
    f->stack_index = xcalloc(f->stack_cap, sizeof(*f->stack_index));
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].stack_plus1)
            continue;
        size_t j = old[i].hash.low64 & (f->stack_cap - 1);
        while (f->stack_index[j].stack_plus1)
            j = (j + 1) & (f->stack_cap - 1);
        f->stack_index[j] = old[i];
    }
    free(old);
}

static void path_push(struct flame *f, uint32_t frame)
{
    if (f->path_len == f->path_alloc) {
        f->path_alloc = f->path_alloc ? f->path_alloc * 2 : 4096;
        f->path = xrealloc(f->path, f->path_alloc * sizeof(*f->path));
    }
    f->path[f->path_len++] = frame;
}

/* Stores a new stack: its frames, split at ';', interned. */
static uint32_t stack_store(struct flame *f, const char *stack, size_t len)
{
    if (f->nstacks == f->stacks_alloc) {
        f->stacks_alloc = f->stacks_alloc ? f->stacks_alloc * 2 : 1024;
        f->stacks = xrealloc(f->stacks, f->stacks_alloc * sizeof(*f->stacks));
    }
    struct stack *s = &f->stacks[f->nstacks];
    s->path = (uint32_t)f->path_len;
    s->count = s->count1 = 0;
    if (len > 0) {
        const char *p = stack, *end = stack + len;
        for (;;) {
            const char *semi = memchr(p, ';', (size_t)(end - p));
            const char *stop = semi ? semi : end;
            path_push(f, frame_intern(f, p, (size_t)(stop - p)));
            if (!semi)
                break;
            p = semi + 1;
        }
    }
    s->len = (uint32_t)(f->path_len - s->path);
    if (s->len > f->max_depth)
        f->max_depth = s->len;
    return (uint32_t)f->nstacks++;
}

static struct stack *stack_find(struct flame *f, const char *stack, size_t len)
{
    if ((f->nstacks + 1) * 2 > f->stack_cap)
        stacks_grow(f);
    XXH128_hash_t h = XXH3_128bits(stack, len);
    size_t j = h.low64 & (f->stack_cap - 1);
    while (f->stack_index[j].stack_plus1) {
        if (XXH128_isEqual(f->stack_index[j].hash, h))
            return &f->stacks[f->stack_index[j].stack_plus1 - 1];
        j = (j + 1) & (f->stack_cap - 1);
    }
    uint32_t id = stack_store(f, stack, len);
    f->stack_index[j].hash = h;
    f->stack_index[j].stack_plus1 = id + 1;
    return &f->stacks[id];
}

/* --- lines -------------------------------------------------------------- */

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Parses the number that ends s[0..*len) ("12", "12." or "12.5") when blanks
 * precede it: stores it, shortens *len to exclude it and those blanks, and
 * returns 0. */
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
    while (i > 0 && is_blank(s[i - 1]))
        i--;
    *len = i;
    return 0;
}

/* Chart mode: appends the line to the run of its stack when the previous
 * line had the same stack, as flamegraph.pl merges adjacent lines. */
static void run_add(struct flame *f, uint32_t stack, double count, double count1)
{
    if (f->nruns > 0 && f->runs[f->nruns - 1].stack == stack) {
        f->runs[f->nruns - 1].count += count;
        f->runs[f->nruns - 1].count1 += count1;
        return;
    }
    if (f->nruns == f->runs_alloc) {
        f->runs_alloc = f->runs_alloc ? f->runs_alloc * 2 : 1024;
        f->runs = xrealloc(f->runs, f->runs_alloc * sizeof(*f->runs));
    }
    f->runs[f->nruns++] = (struct run){count, count1, stack};
}

int flame_add_line(struct flame *f, const char *line, size_t len)
{
    if (len > 0 && line[len - 1] == '\r')
        len--;
    double count, first = 0;
    if (f->finished || take_count(line, &len, &count) != 0) {
        f->ignored++;
        return -1;
    }
    /* A second number before the count makes the line differential
     * ("STACK BEFORE AFTER"), as in flamegraph.pl. */
    size_t stack_len = len;
    if (take_count(line, &stack_len, &first) == 0) {
        len = stack_len;
        f->differential = 1;
    }
    struct stack *s = stack_find(f, line, len);
    s->count += count;
    s->count1 += first;
    if (f->keep_order)
        run_add(f, (uint32_t)(s - f->stacks), count, first);
    f->total += count;
    f->total1 += first;
    f->lines++;
    return 0;
}

/* --- sorting ------------------------------------------------------------ */

/* qsort_r comparators get the flame through their last argument. */
static int frame_name_cmp(const void *a, const void *b, void *arg)
{
    const struct flame *f = arg;
    const struct frame_ref *fa = &f->frames[*(const uint32_t *)a];
    const struct frame_ref *fb = &f->frames[*(const uint32_t *)b];
    int c = memcmp(f->names.data + fa->off, f->names.data + fb->off,
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
    double start, start1;
};

static uint32_t frame_at(const struct flame *f, const struct stack *s, enum flame_direction dir,
                         uint32_t depth)
{
    /* depth 1 is the first frame of the path in this direction */
    return dir == FLAME_FORWARD ? f->path[s->path + depth - 1]
                                : f->path[s->path + s->len - depth];
}

static void close_box(const struct flame *f, const struct open_box *b, uint32_t depth, double x,
                      double x1, flame_box_fn fn, void *arg)
{
    struct flame_box box = {depth, depth ? f->order[b->rank] : 0, b->start, x - b->start,
                            x1 - b->start1};
    fn(arg, &box);
}

/* The i-th stack laid out and the samples it spans: a distinct stack in
 * sorted order, or in chart mode a run of lines in input order. */
static const struct stack *item_at(const struct flame *f, enum flame_direction dir, size_t i,
                                   double *count, double *count1)
{
    if (f->keep_order) {
        *count = f->runs[i].count;
        *count1 = f->runs[i].count1;
        return &f->stacks[f->runs[i].stack];
    }
    const struct stack *s = &f->stacks[f->sorted[dir][i]];
    *count = s->count;
    *count1 = s->count1;
    return s;
}

void flame_layout(const struct flame *f, enum flame_direction dir, flame_box_fn fn, void *arg)
{
    struct open_box *open = xcalloc((size_t)f->max_depth + 1, sizeof(*open));
    uint32_t depth = 0;          /* boxes open at depths 1..depth */
    double x = 0, x1 = 0;        /* samples laid out so far (both columns) */
    const struct stack *prev = NULL;
    size_t items = f->keep_order ? f->nruns : f->nstacks;
    for (size_t i = 0; i < items; i++) {
        double count, count1;
        const struct stack *s = item_at(f, dir, i, &count, &count1);
        uint32_t common = 0;     /* leading frames shared with the open path */
        while (prev && common < depth && common < s->len &&
               frame_at(f, s, dir, common + 1) == open[common + 1].rank)
            common++;
        for (; depth > common; depth--)
            close_box(f, &open[depth], depth, x, x1, fn, arg);
        for (; depth < s->len; depth++) {
            open[depth + 1].rank = frame_at(f, s, dir, depth + 1);
            open[depth + 1].start = x;
            open[depth + 1].start1 = x1;
        }
        x += count;
        x1 += count1;
        prev = s;
    }
    for (; depth > 0; depth--)
        close_box(f, &open[depth], depth, x, x1, fn, arg);
    close_box(f, &open[0], 0, x, x1, fn, arg);
    free(open);
}

/* --- life cycle and figures --------------------------------------------- */

struct flame *flame_new(void)
{
    return xcalloc(1, sizeof(struct flame));
}

void flame_keep_order(struct flame *f)
{
    f->keep_order = 1;
}

void flame_free(struct flame *f)
{
    if (!f)
        return;
    free(f->stacks);
    free(f->stack_index);
    free(f->path);
    free(f->frames);
    free(f->frame_index);
    free(f->runs);
    strbuf_free(&f->names);
    free(f->order);
    free(f->sorted[0]);
    free(f->sorted[1]);
    free(f);
}

double flame_total(const struct flame *f) { return f->total; }
uint32_t flame_max_depth(const struct flame *f) { return f->max_depth; }
size_t flame_ignored(const struct flame *f) { return f->ignored; }
size_t flame_lines(const struct flame *f) { return f->lines; }
size_t flame_distinct_stacks(const struct flame *f) { return f->nstacks; }
size_t flame_distinct_frames(const struct flame *f) { return f->nframes; }
int flame_is_differential(const struct flame *f) { return f->differential; }

size_t flame_memory(const struct flame *f)
{
    /* After flame_finish: order[] always, sorted[] unless in chart mode. */
    size_t sorted = !f->finished ? 0
                    : f->nframes * sizeof(*f->order) +
                          (f->keep_order ? 0 : 2 * f->nstacks * sizeof(uint32_t));
    return sizeof(*f) + f->stacks_alloc * sizeof(*f->stacks) +
           f->stack_cap * sizeof(*f->stack_index) + f->path_alloc * sizeof(*f->path) +
           f->frames_alloc * sizeof(*f->frames) + f->frame_cap * sizeof(*f->frame_index) +
           f->names.cap + f->runs_alloc * sizeof(*f->runs) + sorted;
}
