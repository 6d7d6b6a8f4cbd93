/* exportsel: choosing the logs of a time range (see exportsel.h).
 *
 * Two passes over the logs: the daily logs of whole days first (so the
 * hours of those days are known to be taken), then the hourly logs of the
 * other hours. A bucket is identified by its granularity, start and tag;
 * the chosen ones are kept in a small array and searched linearly, as a
 * range holds few of them compared with the cost of reading each. */
#include "exportsel.h"
#include "strbuf.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOUR 3600
#define DAY 86400

int export_parse_time(const char *text, int64_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(text, "%Y-%m-%d", &tm);
    if (!end || end - text != 10)
        return -1;
    if (*end) {
        if ((*end != 'T' && *end != '_' && *end != ' ') || strlen(end + 1) != 2 ||
            end[1] < '0' || end[1] > '9' || end[2] < '0' || end[2] > '9')
            return -1;
        tm.tm_hour = (end[1] - '0') * 10 + (end[2] - '0');
        if (tm.tm_hour > 23)
            return -1;
    }
    struct tm check = tm;
    time_t t = timegm(&tm);
    /* timegm normalises 2026-02-30 into March: such a date is refused */
    if (t == (time_t)-1 || tm.tm_mday != check.tm_mday || tm.tm_mon != check.tm_mon)
        return -1;
    *out = (int64_t)t;
    return 0;
}

/* The bucket's length in seconds from its name: HOUR, DAY, or 0. */
static int64_t bucket_length(const struct logfile *lf)
{
    if (!lf->time_from_name)
        return 0;
    size_t n = strlen(lf->time);
    return n == 13 ? HOUR : n == 10 ? DAY : 0;
}

/* The index into entrypoints of lf's tag, or -1 when it is not wanted. */
static long wanted_entrypoint(const struct logfile *lf, char *const *entrypoints, size_t n)
{
    if (n == 0)
        return lf->is_all ? 0 : -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(lf->entrypoint, entrypoints[i]) == 0)
            return (long)i;
    return -1;
}

struct bucket {
    int64_t start, length;
    long entrypoint;
};

struct chosen_buckets {
    struct bucket *v;
    size_t n, cap;
};

static int has_bucket(const struct chosen_buckets *b, struct bucket k)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->v[i].start == k.start && b->v[i].length == k.length &&
            b->v[i].entrypoint == k.entrypoint)
            return 1;
    return 0;
}

/* One pass: the logs of granularity `length` that the rule takes. */
static void choose(const struct logset *set, int64_t from, int64_t to, char *const *eps,
                   size_t neps, int64_t length, struct chosen_buckets *taken,
                   struct export_selection *sel, size_t *cap)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct logfile *lf = &set->files[i];
        long ep = wanted_entrypoint(lf, eps, neps);
        if (ep < 0 || bucket_length(lf) != length)
            continue;
        struct bucket b = {lf->timestamp, length, ep};
        if (b.start < from || b.start + length > to)
            continue;
        /* an hour of a day already taken whole */
        int64_t day = b.start - (((b.start % DAY) + DAY) % DAY);
        if (length == HOUR && has_bucket(taken, (struct bucket){day, DAY, ep}))
            continue;
        if (has_bucket(taken, b)) {
            sel->duplicates++;
            continue;
        }
        VEC_RESERVE(taken->v, taken->cap, taken->n + 1, 64);
        taken->v[taken->n++] = b;
        VEC_RESERVE(sel->chosen, *cap, sel->n + 1, 64);
        sel->chosen[sel->n++] = i;
        if (length == DAY)
            sel->daily++;
        else
            sel->hourly++;
    }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

void export_select(const struct logset *set, int64_t from, int64_t to,
                   char *const *entrypoints, size_t nentrypoints, struct export_selection *sel)
{
    memset(sel, 0, sizeof *sel);
    struct chosen_buckets taken = {NULL, 0, 0};
    size_t cap = 0;
    choose(set, from, to, entrypoints, nentrypoints, DAY, &taken, sel, &cap);
    choose(set, from, to, entrypoints, nentrypoints, HOUR, &taken, sel, &cap);
    size_t neps = nentrypoints ? nentrypoints : 1;
    sel->hours = to > from ? (size_t)((to - from) / HOUR) * neps : 0;
    size_t covered = sel->hourly + 24 * sel->daily;
    sel->missing_hours = sel->hours > covered ? sel->hours - covered : 0;
    if (sel->n)
        qsort(sel->chosen, sel->n, sizeof *sel->chosen, cmp_size);
    free(taken.v);
}
