/* top: `arclamp-svg top`, a leaderboard of the functions with the largest
 * share of samples in a choice of trace logs.
 *
 * For each function: self samples (stacks ending in it) and inclusive
 * samples (stacks holding it, counted once per stack even when it recurses),
 * as counts and as shares of the samples considered. The logs are those of
 * one period and entry point (file names ending in ".<entrypoint>"), narrowed
 * by --slice: a prefix of the log name ("2026-11-22" for one day of hourly
 * logs) or "last-N" (the N newest; the default is last-1). --grep keeps the
 * stacks matching a POSIX extended regular expression; shares are then of
 * the matching samples. Lines are aggregated by flame.h (identical stacks
 * once), so memory follows distinct stacks, not log size. */
#ifndef ARCLAMP_SVG_TOP_H
#define ARCLAMP_SVG_TOP_H

#include <stddef.h>
#include <stdio.h>

#include "flame.h"
#include "gen_config.h"
#include "logset.h"

struct top_options {
    const char *period;      /* "daily" by default */
    const char *entrypoint;  /* "all" by default */
    const char *grep;        /* extended regex on the stack, or NULL */
    const char *slice;       /* name prefix or "last-N"; NULL: last-1 */
    size_t count;            /* rows to print (20) */
    int by_inclusive;        /* rank by inclusive instead of self samples */
};

struct top_row {
    const char *name;        /* the frame's bytes (owned by the flame) */
    size_t len;
    double self;             /* samples with this frame as the leaf */
    double inclusive;        /* samples of stacks holding it (once per stack) */
};

/* Per-function figures of a finished flame, sorted (see top_sort). */
struct top_row *top_rows(const struct flame *f, size_t *nrows);
/* Sorts rows by self (or inclusive), then the other, then name. */
void top_sort(struct top_row *rows, size_t n, int by_inclusive);

/* Indexes into set->files of the logs chosen by period, entry point and
 * slice, oldest first. Returns how many (0 if none), or -1 for a bad slice. */
long top_select(const struct logset *set, const struct top_options *opt, size_t **chosen);

#endif
