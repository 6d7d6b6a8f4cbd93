/* phpser: a strict, bounded reader of PHP serialize() output, for the one
 * shape XHProf runs have (xhprof.output_dir's <runid>.<ns>.xhprof files):
 * an array of arrays of numbers,
 *   a:N:{s:LEN:"parent==>child";a:M:{s:2:"ct";i:3;s:2:"wt";i:120;...}...}
 * Everything else is refused with the byte offset where it went wrong:
 * other value types, deeper nesting, counts or lengths that do not match
 * the bytes, numbers that are not finite or past ±1e18, trailing bytes.
 * Nothing is allocated: the caller gets each (key, metric, value) as it is
 * read, and decides what to keep. */
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

#endif
