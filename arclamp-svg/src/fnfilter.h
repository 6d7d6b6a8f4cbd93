/* fnfilter: which of the per-function graphs' functions a stack holds.
 *
 * A stack holds FUNCTION when ";FUNCTION;" occurs in it or it ends with
 * ";FUNCTION" (a whole frame, never the entry point). Searching every line
 * for every function would cost one pass over the bytes per function; as
 * trace logs repeat the same stacks over and over, the answer is kept per
 * distinct stack (keyed by a 128-bit keyed hash of its bytes, as flame.c
 * identifies stacks), so each distinct stack is searched once and every
 * repeat costs one hash and one lookup (a hashidx, common/src/hashidx.h).
 * Memory grows with distinct stacks (24 bytes each and 2 to 4 slots of 4
 * bytes in the index, at most FNFILTER_MAX_MEMO of them: past that, stacks not
 * yet remembered are searched every time, so a log of unique stacks cannot
 * make the memo grow without bound). */
#ifndef ARCLAMP_SVG_FNFILTER_H
#define ARCLAMP_SVG_FNFILTER_H

#include <stddef.h>
#include <stdint.h>

/* At most this many functions (one bit each). */
#define FNFILTER_MAX 64
/* Stacks remembered at most (6 MiB of them and 2 MiB of index). */
#define FNFILTER_MAX_MEMO (1u << 18)

struct fnfilter;

/* A filter for `n` (<= FNFILTER_MAX) frame names. */
struct fnfilter *fnfilter_new(const char *const *functions, size_t n);
void fnfilter_free(struct fnfilter *ff);

/* Bit i set when the stack (len bytes, without the count) holds functions[i]. */
uint64_t fnfilter_match(struct fnfilter *ff, const char *stack, size_t len);

/* Bytes held (for tests). */
size_t fnfilter_memory(const struct fnfilter *ff);

#endif
