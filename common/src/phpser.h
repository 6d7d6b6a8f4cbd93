/* phpser: a strict, bounded reader of PHP serialize() output, for the one
 * shape XHProf runs have (xhprof.output_dir's <runid>.<ns>.xhprof files):
 * an array of arrays of numbers,
 *   a:N:{s:LEN:"parent==>child";a:M:{s:2:"ct";i:3;s:2:"wt";i:120;...}...}
 * Everything else is refused with the byte offset where it went wrong:
 * other value types, deeper nesting, counts or lengths that do not match
 * the bytes, numbers that are not finite or past ±1e18, trailing bytes.
 * Nothing is allocated: the caller gets each (key, metric, value) as it is
 * read, and decides what to keep.
 *
 * Two ways to read, with the same checks and the same errors:
 *   phpser_read_run  a callback per entry and per metric (any consumer);
 *   phpser_sum_run   for summing runs fast (arclamp-report aggregates
 *                    thousands of them): the metric names are resolved
 *                    here against a list the caller gives, and each value is
 *                    added where the entry's callback said, with no call per
 *                    metric. */
#ifndef ARCLAMP_PHPSER_H
#define ARCLAMP_PHPSER_H

#include <stddef.h>

/* Longest key or metric name accepted (a name of eval'd code can be long). */
#define PHPSER_MAX_KEY 65536

/* Called once per entry of the outer array (metric NULL, mlen 0: the entry
 * begins, even when its array is empty) and once per metric. Returns 0 to
 * go on, -1 to stop (the read then fails with the callback's message). */
typedef int (*phpser_run_fn)(void *arg, const char *key, size_t klen, const char *metric,
                             size_t mlen, double value);

/* Reads buf[0..len). Returns the number of entries, or -1 with a message in
 * err ("byte 123: ..."). At most `max_entries` entries. */
long phpser_read_run(const char *buf, size_t len, size_t max_entries, phpser_run_fn fn,
                     void *arg, char *err, size_t errlen);

/* Where phpser_sum_run adds an entry's metrics: for a metric named
 * names[slot], values[slot] += weight * value and *present |= 1u << slot. */
typedef struct phpser_dest {
    double *values;
    unsigned *present;
} phpser_dest;

typedef struct phpser_sum {
    const char *const *names;   /* the metrics kept: slot = index */
    const unsigned char *lens;  /* their lengths */
    int count;                  /* at most 32 (bits of `present`) */
    double weight;
    /* An entry begins (its key in place in buf): sets *dest, valid until
     * the next call. Returns 0, or -1 to stop the read. */
    int (*entry)(void *arg, const char *key, size_t klen, phpser_dest *dest);
    void *arg;
    size_t unknown;             /* out: metrics whose name is not in names, skipped */
} phpser_sum;

/* Reads buf[0..len) as phpser_read_run does (same result, same errors),
 * adding the metrics as `s` says. */
long phpser_sum_run(const char *buf, size_t len, size_t max_entries, phpser_sum *s, char *err,
                    size_t errlen);

#endif
