/* exportsel: the trace logs of a data directory that cover a time range,
 * for `arclamp-svg export --from T --to T`.
 *
 * arclamp-log writes every sample to one log per period (by default an
 * hourly and a daily one), so the same sample is in an hourly and a daily
 * log: a range must take each hour from exactly one of them. The rule:
 *   - a day wholly inside [from, to) is its daily log when there is one
 *     (one file instead of 24, and it outlives the hourly logs' retention);
 *   - every other hour inside the range is its hourly log;
 *   - an hour neither gives is missing (counted, so the caller can say so).
 * Buckets are read from the log names (logset.h): "YYYY-MM-DD_HH" is an
 * hour, "YYYY-MM-DD" a day, both UTC; a log without a time in its name is
 * never chosen. Only buckets wholly inside the range are taken, so the
 * range is whole hours (export_parse_time gives nothing finer). When two
 * periods hold the same bucket, the first (in period order) is taken and
 * the other is counted as a duplicate, never added.
 * Entry points: the logs whose tag is one of `entrypoints`; none given
 * means the true "all" logs (<bucket>.all, logset.h's is_all). */
#ifndef ARCLAMP_SVG_EXPORTSEL_H
#define ARCLAMP_SVG_EXPORTSEL_H

#include <stddef.h>
#include <stdint.h>

#include "logset.h"

struct export_selection {
    size_t *chosen;        /* indexes into set->files, in set order */
    size_t n;
    size_t daily, hourly;  /* how many of each were chosen */
    size_t hours;          /* hours in the range, times the entry points */
    size_t missing_hours;  /* of those, hours no chosen log covers */
    size_t duplicates;     /* buckets found again in another period, left out */
};

/* "YYYY-MM-DD" or "YYYY-MM-DD" followed by 'T', '_' or ' ' and "HH", UTC,
 * to seconds since the epoch: 0, or -1 when the text is not such a time. */
int export_parse_time(const char *text, int64_t *out);

/* Chooses the logs of set for [from, to) (from < to, whole hours) and the
 * entry points (NULL/0: "all"). Free sel->chosen. */
void export_select(const struct logset *set, int64_t from, int64_t to,
                   char *const *entrypoints, size_t nentrypoints, struct export_selection *sel);

#endif
