/* tierhist: log-linear latency histograms that merge by adding counts (see
 * tierhist.h for the bucket formula). Compiled into the extension too, so
 * it uses strbuf.h alone. */
#include "tierhist.h"

#include <stdlib.h>

unsigned tierhist_index(uint64_t ns)
{
    if (ns < TIERHIST_SUB)
        return (unsigned)ns;
    unsigned e = 63u - (unsigned)__builtin_clzll(ns);
    return (e - 5) * TIERHIST_SUB + (unsigned)((ns >> (e - 6)) & (TIERHIST_SUB - 1));
}

uint64_t tierhist_value(unsigned idx)
{
    if (idx >= TIERHIST_NBUCKETS)
        idx = TIERHIST_NBUCKETS - 1;
    if (idx < 2 * TIERHIST_SUB)                  /* buckets one value wide */
        return idx;
    unsigned e = idx / TIERHIST_SUB + 5;
    uint64_t width = (uint64_t)1 << (e - 6);
    uint64_t low = ((uint64_t)1 << e) + (uint64_t)(idx % TIERHIST_SUB) * width;
    return low + width / 2;
}

void tierhist_add_bucket(struct tierhist *h, unsigned idx, uint64_t n)
{
    if (idx >= TIERHIST_NBUCKETS || n == 0)
        return;
    uint64_t **block = &h->block[idx / TIERHIST_SUB];
    if (*block == NULL)
        *block = xcalloc(TIERHIST_SUB, sizeof **block);
    (*block)[idx % TIERHIST_SUB] += n;
    h->count += n;
}

void tierhist_add(struct tierhist *h, uint64_t ns)
{
    tierhist_add_bucket(h, tierhist_index(ns), 1);
}

/* A block at a time (a loop the compiler vectorises): merging is what
 * reading a tier table back costs most, a line at a time. A block of src
 * is there only once a count was added to it, so dst gets no empty one. */
void tierhist_merge(struct tierhist *dst, const struct tierhist *src)
{
    for (unsigned b = 0; b < TIERHIST_BLOCKS; b++) {
        const uint64_t *from = src->block[b];
        if (from == NULL)
            continue;
        if (dst->block[b] == NULL)
            dst->block[b] = xcalloc(TIERHIST_SUB, sizeof *dst->block[b]);
        uint64_t *to = dst->block[b];
        for (unsigned i = 0; i < TIERHIST_SUB; i++)
            to[i] += from[i];
    }
    dst->count += src->count;
}

uint64_t tierhist_percentile(const struct tierhist *h, double p)
{
    if (h->count == 0)
        return 0;
    /* p * count first: exact for integer p and counts below 2^53, so a rank
     * that is a whole number is not pushed to the next one by rounding */
    double x = p * (double)h->count / 100.0;
    uint64_t rank = x <= 1 ? 1 : x >= (double)h->count ? h->count : (uint64_t)x;
    if ((double)rank < x && rank < h->count)     /* ceil without libm */
        rank++;
    uint64_t seen = 0;
    for (unsigned b = 0; b < TIERHIST_BLOCKS; b++) {
        if (h->block[b] == NULL)
            continue;
        for (unsigned i = 0; i < TIERHIST_SUB; i++) {
            seen += h->block[b][i];
            if (seen >= rank)
                return tierhist_value(b * TIERHIST_SUB + i);
        }
    }
    return 0;                                    /* not reached: counts add up to count */
}

void tierhist_reset(struct tierhist *h)
{
    for (unsigned b = 0; b < TIERHIST_BLOCKS; b++) {
        free(h->block[b]);
        h->block[b] = NULL;
    }
    h->count = 0;
}

void tierhist_format(const struct tierhist *h, strbuf *out)
{
    const char *sep = "";
    for (unsigned b = 0; b < TIERHIST_BLOCKS; b++) {
        if (h->block[b] == NULL)
            continue;
        for (unsigned i = 0; i < TIERHIST_SUB; i++) {
            uint64_t n = h->block[b][i];
            if (n == 0)
                continue;
            strbuf_appendf(out, "%s%u:%llu", sep, b * TIERHIST_SUB + i, (unsigned long long)n);
            sep = ",";
        }
    }
}

/* A decimal number of s[*pos..], up to a byte not a digit; no leading zero
 * (but "0" itself), at most UINT64_MAX. */
static int parse_u64(const char *s, size_t len, size_t *pos, uint64_t *out)
{
    size_t start = *pos;
    uint64_t v = 0;
    while (*pos < len && s[*pos] >= '0' && s[*pos] <= '9') {
        unsigned d = (unsigned)(s[*pos] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        (*pos)++;
    }
    size_t n = *pos - start;
    if (n == 0 || (n > 1 && s[start] == '0'))
        return -1;
    *out = v;
    return 0;
}

/* Calls fn(idx, count) for each pair of a well-formed histogram; h == NULL
 * only checks. Returns the counts' sum in *total, or -1 when malformed. */
static int walk(const char *s, size_t len, struct tierhist *h, uint64_t *total)
{
    size_t pos = 0;
    uint64_t sum = 0, idx, n;
    long long prev = -1;
    if (len == 0)
        return -1;
    for (;;) {
        if (parse_u64(s, len, &pos, &idx) < 0 || idx >= TIERHIST_NBUCKETS ||
            (long long)idx <= prev)
            return -1;
        if (pos >= len || s[pos++] != ':')
            return -1;
        if (parse_u64(s, len, &pos, &n) < 0 || n == 0 || n > UINT64_MAX - sum)
            return -1;
        sum += n;
        prev = (long long)idx;
        if (h)
            tierhist_add_bucket(h, (unsigned)idx, n);
        if (pos == len)
            break;
        if (s[pos++] != ',' || pos == len)
            return -1;
    }
    *total = sum;
    return 0;
}

int tierhist_check(const char *s, size_t len, uint64_t *total)
{
    return walk(s, len, NULL, total);
}

int tierhist_parse(struct tierhist *h, const char *s, size_t len)
{
    uint64_t total;
    /* checked whole first, so a bad histogram leaves h as it was */
    if (walk(s, len, NULL, &total) < 0 || total > UINT64_MAX - h->count)
        return -1;
    walk(s, len, h, &total);
    return 0;
}
