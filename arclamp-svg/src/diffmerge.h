/* diffmerge: two sides, BEFORE and AFTER, each one or more trace logs,
 * merged into one differential input.
 *
 * What flamegraph.pl's difffolded.pl does with -n, in-process: the counts
 * of identical stacks are summed per side (BEFORE, AFTER), and every stack
 * present in either becomes one line "STACK BEFORE AFTER" (0 where it was
 * absent). Normalised (-n): when the totals differ, each BEFORE count is
 * scaled by total(AFTER) / total(BEFORE) and truncated to an integer
 * (difffolded's int()), so both sides have about the same total and a
 * busier hour does not paint every box red. The lines come out sorted by
 * stack bytes (difffolded prints them in hash order; the renderer does not
 * care, and a sorted text can be compared).
 *
 * Lines are read with the shared sample-line rules (stackline_parse): a
 * line those refuse is counted as ignored, as a trace log holds nothing
 * else. Memory is bounded like an aggregation's (flame.h): past max_stacks
 * distinct stacks or max_bytes of tables, the samples of new stacks go to
 * one "[truncated]" stack, so the totals stay right. */
#ifndef ARCLAMP_SVG_DIFFMERGE_H
#define ARCLAMP_SVG_DIFFMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "input.h"

enum diffmerge_side { DIFFMERGE_BEFORE = 0, DIFFMERGE_AFTER = 1 };

struct diffmerge;

/* A new, empty merge: at most max_stacks distinct stacks and max_bytes of
 * tables (0: flame.h's defaults). */
struct diffmerge *diffmerge_new(size_t max_stacks, size_t max_bytes);
void diffmerge_free(struct diffmerge *dm);

/* Adds one sample line (len bytes, no newline; a trailing '\r' is
 * ignored) to `side`: 0, or -1 when it is not a valid sample line (then
 * counted in diffmerge_ignored). */
int diffmerge_add_line(struct diffmerge *dm, enum diffmerge_side side, const char *line,
                       size_t len);

/* Reads a whole log (plain or gzip, input.h) into `side`, within `limit`
 * (NULL: none; each call its own): 0, or -1 with err set when it could not
 * be read. A side may be read from several logs, one call each: their
 * counts add up (diff --before/--after RANGE). */
int diffmerge_read_fd(struct diffmerge *dm, enum diffmerge_side side, int fd, const char *name,
                      struct input_limit *limit, char *err, size_t errlen);
int diffmerge_read_path(struct diffmerge *dm, enum diffmerge_side side, const char *path,
                        struct input_limit *limit, char *err, size_t errlen);

/* Hands every merged line "STACK BEFORE AFTER" to fn (sorted by stack,
 * BEFORE normalised when `normalise`), without a newline; stops at fn's
 * first non-zero return and returns it, else 0. */
int diffmerge_emit(const struct diffmerge *dm, int normalise, input_line_fn fn, void *arg);

/* BEFORE's count as emitted when normalised (difffolded -n). */
uint64_t diffmerge_normalised(uint64_t before, uint64_t total_before, uint64_t total_after);

uint64_t diffmerge_total(const struct diffmerge *dm, enum diffmerge_side side);
size_t diffmerge_lines(const struct diffmerge *dm, enum diffmerge_side side);   /* accepted */
size_t diffmerge_ignored(const struct diffmerge *dm, enum diffmerge_side side); /* refused */
size_t diffmerge_stacks(const struct diffmerge *dm);          /* distinct stacks stored */
size_t diffmerge_truncated_lines(const struct diffmerge *dm); /* lines sent to [truncated] */

#endif
