/* bucket: time buckets of trace log names.
 *
 * A log group's `format` (strftime, UTC) names the bucket a sample falls in:
 * "%Y-%m-%d_%H" -> "2026-11-22_05". Retention (arclamp-log) and the
 * generator (arclamp-svg, to tell a log's bucket from its tag) must
 * recognise the names a format produces, and only those, so the supported
 * conversions are a fixed list with a known shape each (e.g. %Y is four
 * digits). Shared by both programs, hence in common/. */
#ifndef ARCLAMP_BUCKET_H
#define ARCLAMP_BUCKET_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* Longest bucket name accepted; leaves room for ".<tag>.log.gz" in NAME_MAX. */
#define BUCKET_NAME_MAX 128

/* NULL when `format` is usable, else why not (static text). */
const char *bucket_format_check(const char *format);
/* Writes the bucket name of time `t` (UTC) to out; returns its length, 0 on error. */
size_t bucket_name(const char *format, time_t t, char *out, size_t outlen);
/* If `name` begins with a bucket name of `format`, returns how many bytes
 * that is; else -1. */
ssize_t bucket_match_prefix(const char *format, const char *name);
/* The seconds [*start, *end) around `t` whose bucket name is t's (for the
 * tier tables' "start" and "end"): found by galloping then bisecting, a few
 * dozen bucket_name() calls, looking at most BUCKET_SPAN_MAX seconds each
 * way (a format without a changing field gives that window). -1 when t has
 * no name. */
#define BUCKET_SPAN_MAX (400L * 86400)
int bucket_span(const char *format, time_t t, time_t *start, time_t *end);

#endif
