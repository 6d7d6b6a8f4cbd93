/* bench_util: small helpers shared by the single-file benchmark programs
 * (each program in bench/src is compiled alone, so these are static inline). */
#ifndef ARCLAMP_BENCH_UTIL_H
#define ARCLAMP_BENCH_UTIL_H

#include <errno.h>
#include <stdlib.h>

/* Parses a number in [lo, hi]; returns 0, or -1 when `arg` is not one. */
static inline int parse_num(const char *arg, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

#endif
