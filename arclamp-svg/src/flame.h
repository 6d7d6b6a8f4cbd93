/* flame: collapsed stacks aggregated, then laid out as flame graph boxes.
 *
 * Lines are "FRAME;FRAME;...;LEAF COUNT" (or "STACK COUNT1 COUNT2" for a
 * differential graph). Identical stacks are recognised by a 128-bit hash of
 * their bytes (SipHash under the process's key, keyedhash.h: a log's author
 * can neither make two stacks one nor pile them into one slot), so a line
 * seen before costs one hash and one table lookup; only the first sighting
 * of a stack splits it into frames and stores it as a short array of frame
 * numbers (names are interned once).
 * Memory therefore grows with distinct stacks and frames, never with the
 * number of lines.
 *
 * Layout works like flamegraph.pl's: stacks sorted frame by frame (by name,
 * a stack that ends first before its extensions), then one pass in that
 * order opens a box where a stack leaves the previous one's path and closes
 * it where the path changes again. The same stored stacks give the forward
 * graph and, compared from their leaves, the reversed one: both from one
 * read.
 *
 * In flame chart mode the layout follows the input order instead (time from
 * left to right), so it needs the sequence of lines, not just their sums.
 *
 * Memory is bounded whatever the input (flame_limits): distinct stacks,
 * distinct frames and the bytes of all tables are capped. A line whose stack
 * would pass a limit is not stored: its samples go to one stack made of the
 * frame "[truncated]" (FLAME_TRUNCATED_FRAME), so the totals stay right and
 * the graph says how much it does not show. Offsets into the name and path
 * tables are 32-bit: a table that would pass UINT32_MAX is a limit like the
 * others (truncation, never a wrapped offset). */
#ifndef ARCLAMP_FLAME_H
#define ARCLAMP_FLAME_H

#include <stddef.h>
#include <stdint.h>

enum flame_direction {
    FLAME_FORWARD = 0,   /* root frame at the bottom (flamegraph.pl's default) */
    FLAME_REVERSED = 1,  /* each stack reversed: leaf frames at the bottom (--reverse) */
};

/* One box of the graph, as the layout pass reports it. */
struct flame_box {
    uint32_t depth;     /* 0 for the root ("all"), 1 for the first frame, ... */
    uint32_t frame;     /* the frame's name (flame_frame_name); unused for the root */
    double start;       /* samples to the left of the box */
    double end;         /* samples up to its right edge: start + total, as summed (x2 is
                           drawn from it, so adjacent boxes share an edge exactly) */
    double total;       /* samples in the box (second column for differential input) */
    double delta;       /* differential input: the change of the lines that END at this
                           box (second column - first), as flamegraph.pl gives a line's
                           change to its leaf only; 0 for other boxes and other input */
};

/* Called for every box, children before their parents, the root last. */
typedef void (*flame_box_fn)(void *arg, const struct flame_box *box);

struct flame;

/* The frame that holds the samples of stacks beyond the limits. */
#define FLAME_TRUNCATED_FRAME "[truncated]"

/* Defaults of flame_new(): far above any real profile (a busy site's daily
 * log has some 10^5 distinct stacks and 10^4 frames), low enough that one
 * graph stays well inside the generator's 200 MB. */
#define FLAME_DEFAULT_MAX_STACKS 1000000
#define FLAME_DEFAULT_MAX_FRAMES 1000000
#define FLAME_DEFAULT_MAX_MEMORY (96u << 20)
/* Bytes a layout or renderer may hold per level of depth (flame_layout's
 * open boxes, svg.c's per-depth sizes, top.c's walk): charged to the
 * budget for the deepest stack, so a million-frame stack is paid for. */
#define FLAME_DEPTH_BYTES 64

/* A memory budget, possibly shared by several aggregations (the graphs of
 * one log). */
struct flame_budget {
    size_t limit;   /* bytes the tables may hold together */
    size_t used;    /* bytes they hold now */
};

struct flame_limits {
    size_t max_stacks;            /* distinct stacks stored (0: the default) */
    size_t max_frames;            /* distinct frame names stored (0: the default) */
    size_t max_offset;            /* largest entry of the name and path tables: UINT32_MAX - 1
                                     (0: that; tests set less to reach the 32-bit limit) */
    struct flame_budget *budget;  /* NULL: a budget of its own of FLAME_DEFAULT_MAX_MEMORY */
};

/* Why stacks went to [truncated]: the first limit reached. */
enum flame_limit {
    FLAME_LIMIT_NONE = 0,
    FLAME_LIMIT_STACKS,    /* max_stacks */
    FLAME_LIMIT_FRAMES,    /* max_frames */
    FLAME_LIMIT_MEMORY,    /* the budget */
    FLAME_LIMIT_OFFSET,    /* a 32-bit table offset */
};

/* A new, empty aggregation with the default limits. */
struct flame *flame_new(void);
/* The same with `lim` (copied; a shared budget must outlive the flame). */
struct flame *flame_new_limited(const struct flame_limits *lim);
/* Flame chart mode (flamegraph.pl's --flamechart), before the first line:
 * the layout keeps the input order instead of sorting stacks, and only
 * adjacent lines with the same stack share boxes. Each run of such lines is
 * kept (24 bytes), so memory then grows with the runs in the input. */
void flame_keep_order(struct flame *f);
/* Chain graphs (--colors chain), before the first line: each stack is read
 * as flamegraph.pl rewrites it, with the frames after its first "--"
 * separator marked "_[w]" (wakers); which frames those are depends on the
 * direction the graph will be drawn in (`dir`), as flamegraph.pl reverses a
 * stack before marking it. */
void flame_chain(struct flame *f, enum flame_direction dir);
void flame_free(struct flame *f);

/* Adds one line (len bytes, without its newline; a trailing '\r' is ignored).
 * Returns 0 (also when its samples went to [truncated]), or -1 when the line
 * has no valid count (it is then counted in flame_ignored and otherwise
 * ignored). Frames may hold any bytes; escaping
 * is the renderer's job. An empty stack (" 5") counts for the root. */
int flame_add_line(struct flame *f, const char *line, size_t len);

/* Adds `count` samples of a stack already split from its count (stack[0..len),
 * frames separated by ';'), as a caller that validated the line itself
 * has it: no count is looked for in it, so a frame such as "retry 3" stays
 * a frame. Returns 0, or -1 (counted in flame_ignored) for a count that is
 * not positive. */
int flame_add_stack(struct flame *f, const char *stack, size_t len, double count);

/* Sorts the stacks for both directions; call after the last line and before
 * flame_layout. Adding lines afterwards is not allowed. */
void flame_finish(struct flame *f);

/* Reports every box of the graph in direction `dir`. */
void flame_layout(const struct flame *f, enum flame_direction dir, flame_box_fn fn, void *arg);

/* Called for each distinct stack: its frames root first (frame numbers, as
 * flame_frame_name takes them; valid during the call only), and its samples. */
typedef void (*flame_stack_fn)(void *arg, const uint32_t *frames, uint32_t len, double count);
/* Reports every distinct stack (the [truncated] one included) once, after
 * flame_finish, in the forward layout's order: frame by frame by name, a
 * stack before its extensions. Not in flame chart mode. */
void flame_each_stack(const struct flame *f, flame_stack_fn fn, void *arg);

/* Samples in the whole graph (second column for differential input). */
double flame_total(const struct flame *f);
/* The deepest stack, in frames. */
uint32_t flame_max_depth(const struct flame *f);

/* A frame's name: pointer and length (bytes as they were in the input). */
const char *flame_frame_name(const struct flame *f, uint32_t frame, size_t *len);

size_t flame_ignored(const struct flame *f);      /* lines without a valid count */
size_t flame_lines(const struct flame *f);        /* lines accepted */
size_t flame_distinct_stacks(const struct flame *f);
size_t flame_distinct_frames(const struct flame *f);
int flame_is_differential(const struct flame *f); /* any line had two counts */
/* The largest |second - first column| of one differential line, 0 if none. */
double flame_max_line_delta(const struct flame *f);
/* Bytes of memory held or reserved by the tables (what the budget counts). */
size_t flame_memory(const struct flame *f);

/* Truncation: the first limit reached (FLAME_LIMIT_NONE: nothing was left
 * out), its value (stacks, frames or bytes), and what went to [truncated]. */
enum flame_limit flame_limit_reached(const struct flame *f, size_t *value);
size_t flame_truncated_lines(const struct flame *f);
double flame_truncated_samples(const struct flame *f);

#endif
