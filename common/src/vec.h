/* vec: growing an array by doubling, written once.
 *
 * Arrays that grow one element at a time (files found in a directory, arcs
 * of a run, entries of a table) keep their own pointer, count and capacity
 * in their struct; vec_reserve is the one place that grows them, doubling
 * from a first size and refusing a size that would overflow. Allocation
 * failure aborts, as strbuf's (see strbuf.h): the callers bound the count
 * themselves. */
#ifndef ARCLAMP_VEC_H
#define ARCLAMP_VEC_H

#include <stddef.h>

/* Returns `v` (an array of `size`-byte elements with room for *cap) grown,
 * if need be, to room for at least `need`: doubled, starting at `first`
 * (at least 1). *cap is updated; elements are kept, new room is not
 * zeroed. */
void *vec_reserve(void *v, size_t *cap, size_t need, size_t size, size_t first);

/* VEC_RESERVE(p, cap, need, first): p = vec_reserve(p, &cap, need,
 * sizeof *p, first), for a pointer p and a size_t cap (lvalues, each
 * evaluated once more than a function argument: use plain fields). */
#define VEC_RESERVE(p, cap, need, first) \
    ((p) = vec_reserve((p), &(cap), (need), sizeof *(p), (first)))

#endif
