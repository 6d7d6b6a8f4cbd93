/* gendiff: the timer job's differential graphs.
 *
 * For every entry point of a period, the latest COMPLETE bucket (its hour
 * or day is over; the current one is still filling and would compare a
 * part with a whole) is compared with the bucket just before it (hour over
 * hour, day over day), as `arclamp-svg diff` draws it (diffmerge.h:
 * difffolded -n semantics): <name>.diff.svgz and <name>.diff.reversed.svgz
 * next to the log's graphs. Only that one bucket of a series has a diff; a
 * diff of a bucket that is no longer the latest is a stale graph like any
 * other (generate removes it). No bucket before it (the first hour of a
 * tag, a gap): no diff.
 *
 * A series is the logs of one entry point whose names differ only in their
 * time ("2026-11-22_05.excimer.index" and "2026-11-22_04.excimer.index"),
 * with a time from the name of the same resolution.
 *
 * A diff is drawn again only when one of its two logs is newer than it:
 * it gets the newer of their mtimes as they were when opened. */
#ifndef ARCLAMP_SVG_GENDIFF_H
#define ARCLAMP_SVG_GENDIFF_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gen_config.h"
#include "logset.h"
#include "strbuf.h"

#define GENDIFF_NONE SIZE_MAX

/* For files[0..n) of one period: prev[i] is the index of the log file i is
 * compared with, or GENDIFF_NONE (most files). `now` tells which buckets
 * are complete. */
void gendiff_pairs(const struct logfile *files, size_t n, time_t now, size_t *prev);

/* "previous hour" or "previous day": what a log's diff compares it with. */
const char *gendiff_what(const struct logfile *lf);

/* Draws the diff of `lf` against `before` into the period's graph
 * directory `pfd`, reading the logs from `logs_pfd` (logs_dir shown as
 * `logs_dir` in messages); `doc` is a reusable buffer. Returns 1 when
 * drawn, 0 when both graphs were up to date (and not `force`), -1 with err
 * set when a log could not be read or a graph written. */
int gendiff_draw(const struct gen_config *cfg, int logs_pfd, int pfd, const struct logfile *lf,
                 const struct logfile *before, int force, strbuf *doc, char *err,
                 size_t errlen);

#endif
