/* flame: collapsed stacks aggregated, then laid out as flame graph boxes.
 *
 * Lines are "FRAME;FRAME;...;LEAF COUNT" (or "STACK COUNT1 COUNT2" for a
 * differential graph). Identical stacks are recognised by a 128-bit hash of
 * their bytes (XXH3, from libxxhash), so a line seen before costs one hash and
 * one table lookup; only the first sighting of a stack splits it into frames
 * and stores it as a short array of frame numbers (names are interned once).
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
 * left to right), so it needs the sequence of lines, not just their sums. */
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
    double total;       /* samples in the box (second column for differential input) */
    double total1;      /* differential input: the first column's samples, else 0 */
};

/* Called for every box, children before their parents, the root last. */
typedef void (*flame_box_fn)(void *arg, const struct flame_box *box);

struct flame;

/* A new, empty aggregation. */
struct flame *flame_new(void);
/* Flame chart mode (flamegraph.pl's --flamechart), before the first line:
 * the layout keeps the input order instead of sorting stacks, and only
 * adjacent lines with the same stack share boxes. Each run of such lines is
 * kept (24 bytes), so memory then grows with the runs in the input. */
void flame_keep_order(struct flame *f);
void flame_free(struct flame *f);

/* Adds one line (len bytes, without its newline; a trailing '\r' is ignored).
 * Returns 0, or -1 when the line has no valid count (it is then counted in
 * flame_ignored and otherwise ignored). Frames may hold any bytes; escaping
 * is the renderer's job. An empty stack (" 5") counts for the root. */
int flame_add_line(struct flame *f, const char *line, size_t len);

/* Sorts the stacks for both directions; call after the last line and before
 * flame_layout. Adding lines afterwards is not allowed. */
void flame_finish(struct flame *f);

/* Reports every box of the graph in direction `dir`. */
void flame_layout(const struct flame *f, enum flame_direction dir, flame_box_fn fn, void *arg);

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
/* Bytes of memory held (for tests and the benchmark). */
size_t flame_memory(const struct flame *f);

#endif
