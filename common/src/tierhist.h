/* tierhist: mergeable latency histograms for request tiers.
 *
 * Log-linear buckets over nanoseconds: a value below 64 has a bucket of its
 * own; above, each power of two [2^e, 2^(e+1)) is cut into 64 equal
 * buckets. A bucket's midpoint is within 1/128 (< 1%) of every value in
 * it, so a percentile read back is within 1% of the true one. Bucket
 * indexes are the same everywhere (the extension, arclamp-log and
 * arclamp-report), so histograms from any number of processes and hosts
 * merge by adding counts:
 *   idx(v) = v                                  for v < 64
 *   idx(v) = (e - 5) * 64 + ((v >> (e - 6)) & 63)  for v >= 64, e = floor(log2 v)
 * Counters live in 64-counter blocks, one per power of two, allocated when
 * first used: a tier whose calls take 50 us to 5 ms uses 7 blocks (3.5 KB).
 * Allocation failure aborts (strbuf.h's policy). */
#ifndef ARCLAMP_TIERHIST_H
#define ARCLAMP_TIERHIST_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define TIERHIST_SUB 64
#define TIERHIST_BLOCKS 59                       /* block 0: 0..63, block b: 2^(b+5).. */
#define TIERHIST_NBUCKETS (TIERHIST_BLOCKS * TIERHIST_SUB)

struct tierhist {
    uint64_t count;                              /* values recorded */
    uint64_t *block[TIERHIST_BLOCKS];            /* TIERHIST_SUB counters, or NULL */
};

#define TIERHIST_INIT {0, {NULL}}

unsigned tierhist_index(uint64_t ns);
/* The value a bucket stands for: its midpoint (buckets below 128 are one
 * value wide: the value itself). */
uint64_t tierhist_value(unsigned idx);

void tierhist_add(struct tierhist *h, uint64_t ns);
/* Adds n to bucket idx (< TIERHIST_NBUCKETS). */
void tierhist_add_bucket(struct tierhist *h, unsigned idx, uint64_t n);
void tierhist_merge(struct tierhist *dst, const struct tierhist *src);
/* The value at percentile p (0 < p <= 100): the bucket holding the
 * ceil(p/100 * count)-th smallest value; 0 when empty. */
uint64_t tierhist_percentile(const struct tierhist *h, double p);
/* Frees the blocks; the histogram is empty and reusable. */
void tierhist_reset(struct tierhist *h);

/* Appends the histogram as "IDX:COUNT,IDX:COUNT,..." (ascending indexes,
 * no zero counts; nothing when empty). */
void tierhist_format(const struct tierhist *h, strbuf *out);
/* Adds a histogram in that format to h. Returns -1 (h unchanged) when it
 * is malformed: empty, an index out of range or not ascending, a count of
 * 0, a number too large, or the counts' sum overflowing. */
int tierhist_parse(struct tierhist *h, const char *s, size_t len);
/* Checks a histogram in that format without storing it (no allocation);
 * sets *total to its counts' sum. Returns -1 when tierhist_parse would. */
int tierhist_check(const char *s, size_t len, uint64_t *total);

#endif
