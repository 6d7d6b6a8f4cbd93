/* phpser: a strict, bounded reader of serialize()d XHProf runs (see phpser.h). */
#include "phpser.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
    const char *buf;
    size_t len, pos;
    char *err;
    size_t errlen;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->errlen)
        snprintf(r->err, r->errlen, "byte %zu: %s", r->pos, msg);
    return -1;
}

static int expect(struct reader *r, const char *lit)
{
    size_t n = strlen(lit);
    if (r->len - r->pos < n || memcmp(r->buf + r->pos, lit, n) != 0)
        return fail(r, "expected \"%s\"", lit);
    r->pos += n;
    return 0;
}

/* Decimal digits (at most 10) up to `end`: a count or a length. */
static int read_count(struct reader *r, char end, size_t *out)
{
    size_t v = 0, digits = 0;
    while (r->pos < r->len && r->buf[r->pos] >= '0' && r->buf[r->pos] <= '9') {
        if (++digits > 10)
            return fail(r, "a count or length of more than 10 digits");
        v = v * 10 + (size_t)(r->buf[r->pos++] - '0');
    }
    if (digits == 0)
        return fail(r, "expected a count or length");
    if (r->pos >= r->len || r->buf[r->pos] != end)
        return fail(r, "expected '%c'", end);
    r->pos++;
    *out = v;
    return 0;
}

/* s:LEN:"BYTES"; — the bytes in place. */
static int read_string(struct reader *r, const char **s, size_t *n)
{
    if (expect(r, "s:") < 0 || read_count(r, ':', n) < 0)
        return -1;
    if (*n > PHPSER_MAX_KEY)
        return fail(r, "a string of %zu bytes (at most %d)", *n, PHPSER_MAX_KEY);
    if (expect(r, "\"") < 0)
        return -1;
    if (r->len - r->pos < *n + 2)
        return fail(r, "a string of %zu bytes runs past the end", *n);
    *s = r->buf + r->pos;
    r->pos += *n;
    return expect(r, "\";");
}

/* i:INT; or d:DOUBLE; — finite, within ±1e18. */
static int read_number(struct reader *r, double *v)
{
    if (r->len - r->pos < 2 || (r->buf[r->pos] != 'i' && r->buf[r->pos] != 'd')
        || r->buf[r->pos + 1] != ':')
        return fail(r, "expected a number (i: or d:)");
    char type = r->buf[r->pos];
    r->pos += 2;
    const char *semi = memchr(r->buf + r->pos, ';', r->len - r->pos);
    if (!semi || semi - (r->buf + r->pos) > 64 || semi == r->buf + r->pos)
        return fail(r, "expected a number and ';'");
    char text[72];
    size_t n = (size_t)(semi - (r->buf + r->pos));
    memcpy(text, r->buf + r->pos, n);
    text[n] = '\0';
    char *end;
    errno = 0;
    if (type == 'i') {
        long long i = strtoll(text, &end, 10);
        if (*end || errno)
            return fail(r, "not an integer: \"%s\"", text);
        *v = (double)i;
    } else {
        *v = strtod(text, &end);
        if (*end || errno)
            return fail(r, "not a number: \"%s\"", text);
    }
    if (!isfinite(*v) || fabs(*v) > 1e18)
        return fail(r, "a number out of range: \"%s\"", text);
    r->pos = (size_t)(semi - r->buf) + 1;
    return 0;
}

/* a:N:{ — returns N. */
static int array_open(struct reader *r, size_t *n)
{
    if (expect(r, "a:") < 0 || read_count(r, ':', n) < 0 || expect(r, "{") < 0)
        return -1;
    return 0;
}

static int read_entry(struct reader *r, phpser_run_fn fn, void *arg)
{
    const char *key, *metric;
    size_t klen, mlen, n;
    if (read_string(r, &key, &klen) < 0)
        return -1;
    if (r->pos < r->len && r->buf[r->pos] != 'a')
        return fail(r, "the value of an arc must be an array");
    if (array_open(r, &n) < 0)
        return -1;
    if (fn(arg, key, klen, NULL, 0, 0) < 0)
        return fail(r, "refused by the reader");
    for (size_t i = 0; i < n; i++) {
        double v = 0;
        if (read_string(r, &metric, &mlen) < 0 || read_number(r, &v) < 0)
            return -1;
        if (fn(arg, key, klen, metric, mlen, v) < 0)
            return fail(r, "refused by the reader");
    }
    return expect(r, "}");
}

long phpser_read_run(const char *buf, size_t len, size_t max_entries, phpser_run_fn fn,
                     void *arg, char *err, size_t errlen)
{
    struct reader r = {buf, len, 0, err, errlen};
    size_t n;
    if (array_open(&r, &n) < 0)
        return -1;
    if (n > max_entries)
        return fail(&r, "%zu entries (at most %zu)", n, max_entries);
    for (size_t i = 0; i < n; i++) {
        if (read_entry(&r, fn, arg) < 0)
            return -1;
    }
    if (expect(&r, "}") < 0)
        return -1;
    if (r.pos != r.len)
        return fail(&r, "%zu bytes after the end of the array", r.len - r.pos);
    return (long)n;
}
