/* bucket: time bucket names and the matcher retention uses. See bucket.h. */
#include "bucket.h"

#include <string.h>

/* Supported conversions and what their output looks like. */
struct conversion {
    char spec;       /* the letter after % */
    int min_digits;  /* digits it prints at least */
    int max_digits;  /* and at most */
    int space_pad;   /* leading spaces may replace digits (%e) */
};

static const struct conversion conversions[] = {
    {'Y', 4, 4, 0}, {'G', 4, 4, 0}, {'y', 2, 2, 0}, {'m', 2, 2, 0}, {'d', 2, 2, 0},
    {'e', 2, 2, 1}, {'H', 2, 2, 0}, {'M', 2, 2, 0}, {'S', 2, 2, 0}, {'j', 3, 3, 0},
    {'U', 2, 2, 0}, {'W', 2, 2, 0}, {'V', 2, 2, 0}, {'u', 1, 1, 0}, {'w', 1, 1, 0},
    {'s', 1, 20, 0},
};

static const struct conversion *find_conversion(char spec)
{
    for (size_t i = 0; i < sizeof conversions / sizeof conversions[0]; i++) {
        if (conversions[i].spec == spec)
            return &conversions[i];
    }
    return NULL;
}

const char *bucket_format_check(const char *format)
{
    if (!format || !format[0])
        return "must not be empty";
    if (strchr(format, '/'))
        return "must not contain '/'";
    for (const char *p = format; *p; p++) {
        if ((unsigned char)*p < 0x20)
            return "must not contain control characters";
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        if (!*p || !find_conversion(*p))
            return "unsupported conversion; supported: %Y %y %G %m %d %e %H %M %S %j %U %W %V %u %w %s %%";
        /* %s has no fixed width: digits right after it could not be told
         * apart from it when retention reads the names back. */
        if (*p == 's' && ((p[1] >= '0' && p[1] <= '9') || (p[1] == '%' && p[2] != '%' && p[2])))
            return "%s must not be followed by a digit or another conversion";
    }
    char probe[BUCKET_NAME_MAX + 1];
    if (bucket_name(format, 0, probe, sizeof probe) == 0)
        return "produces an empty or too long name";
    if (strcmp(probe, ".") == 0 || strcmp(probe, "..") == 0)
        return "produces \".\" or \"..\"";
    return NULL;
}

size_t bucket_name(const char *format, time_t t, char *out, size_t outlen)
{
    struct tm tm;
    if (!gmtime_r(&t, &tm))
        return 0;
    if (outlen > BUCKET_NAME_MAX + 1)
        outlen = BUCKET_NAME_MAX + 1;
    /* The format is configuration, checked by bucket_format_check. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    return strftime(out, outlen, format, &tm);
#pragma GCC diagnostic pop
}

static int match_conversion(const struct conversion *c, const char *name, size_t *used)
{
    int n = 0;
    if (c->space_pad) {
        while (n < c->max_digits - 1 && name[n] == ' ')
            n++;
    }
    int digits = 0;
    while (n < c->max_digits && name[n] >= '0' && name[n] <= '9') {
        n++;
        digits++;
    }
    if (digits == 0 || n < c->min_digits)
        return -1;
    *used = (size_t)n;
    return 0;
}

ssize_t bucket_match_prefix(const char *format, const char *name)
{
    const char *n = name;
    for (const char *f = format; *f; f++) {
        if (*f != '%' || f[1] == '%') {
            if (*f == '%')
                f++;
            if (*n != *f)
                return -1;
            n++;
            continue;
        }
        f++;
        const struct conversion *c = find_conversion(*f);
        size_t used;
        if (!c || match_conversion(c, n, &used) < 0)
            return -1;
        n += used;
    }
    return n - name;
}

/* Whether t + off has the bucket name `name`. */
static int same_bucket(const char *format, time_t t, long off, const char *name)
{
    char other[BUCKET_NAME_MAX + 1];
    return bucket_name(format, t + off, other, sizeof other) != 0 && strcmp(other, name) == 0;
}

/* The farthest offset d in [0, BUCKET_SPAN_MAX], toward dir (+1 or -1),
 * with t + dir*d still in the bucket: the first step out is found by
 * doubling, then the edge by bisection. */
static long bucket_reach(const char *format, time_t t, int dir, const char *name)
{
    long in = 0, out = 1;
    while (out <= BUCKET_SPAN_MAX && same_bucket(format, t, dir * out, name)) {
        in = out;
        out *= 2;
    }
    if (out > BUCKET_SPAN_MAX) {
        if (same_bucket(format, t, dir * BUCKET_SPAN_MAX, name))
            return BUCKET_SPAN_MAX;
        out = BUCKET_SPAN_MAX;
    }
    while (out - in > 1) {
        long mid = in + (out - in) / 2;
        if (same_bucket(format, t, dir * mid, name))
            in = mid;
        else
            out = mid;
    }
    return in;
}

int bucket_span(const char *format, time_t t, time_t *start, time_t *end)
{
    char name[BUCKET_NAME_MAX + 1];
    if (bucket_name(format, t, name, sizeof name) == 0)
        return -1;
    *start = t - bucket_reach(format, t, -1, name);
    *end = t + bucket_reach(format, t, 1, name) + 1;
    return 0;
}
