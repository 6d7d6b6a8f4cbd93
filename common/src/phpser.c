/* phpser: a strict, bounded reader of serialize()d XHProf runs (see phpser.h).
 *
 * Speed: arclamp-report reads thousands of 500 KB runs in a row, so the
 * tokens of the common shape are read without library calls (the literals
 * compared inline, counts and plain numbers parsed here, an entry's head
 * in a few compares); anything else (a '+', a fraction, an exponent, 16
 * digits or more) goes to strtoll()/strtod() as before, so what is
 * accepted does not change. phpser_sum_run() also guesses each metric
 * from the previous entry (see "summing" below). */
#include "phpser.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The hot helpers must be inlined into the loops, and the reader must not
 * escape (no non-inlined function gets its address): GCC then keeps it in
 * registers instead of reloading it after every store of a value (the
 * build has -fno-strict-aliasing). So fail() takes the reader's fields by
 * value. */
#define HOT static inline __attribute__((always_inline))
#define likely(x) __builtin_expect(!!(x), 1)

struct reader {
    const char *buf;
    size_t len, pos;
    char *err;
    size_t errlen;
};

static int fail_at(char *err, size_t errlen, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noinline));

static int fail_at(char *err, size_t errlen, size_t pos, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (errlen)
        snprintf(err, errlen, "byte %zu: %s", pos, msg);
    return -1;
}

/* "byte POS: what" into r->err; returns -1. */
#define fail(r, ...) fail_at((r)->err, (r)->errlen, (r)->pos, __VA_ARGS__)

/* lit: a string literal (its length folds to a constant once inlined). */
HOT int expect(struct reader *r, const char *lit)
{
    size_t n = strlen(lit);
    if (r->len - r->pos < n || memcmp(r->buf + r->pos, lit, n) != 0)
        return fail(r, "expected \"%s\"", lit);
    r->pos += n;
    return 0;
}

/* Decimal digits (at most 10) up to `end`: a count or a length. */
HOT int read_count(struct reader *r, char end, size_t *out)
{
    const char *p = r->buf + r->pos;
    if (likely(r->len - r->pos >= 3 && (unsigned char)(p[0] - '0') < 10)) {
        /* one or two digits, the common case */
        if (p[1] == end) {
            *out = (size_t)(p[0] - '0');
            r->pos += 2;
            return 0;
        }
        if ((unsigned char)(p[1] - '0') < 10 && p[2] == end) {
            *out = (size_t)(p[0] - '0') * 10 + (size_t)(p[1] - '0');
            r->pos += 3;
            return 0;
        }
    }
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
HOT int read_string(struct reader *r, const char **s, size_t *n)
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

/* The general number, text between ':' and ';' (the reader at the type
 * letter): strtoll() or strtod(), finite, within ±1e18. */
static int read_number_slow(struct reader *r, double *v);

/* By value: the caller's reader does not escape; returns the position
 * after the number, or 0 (the message in reader.err). */
static size_t number_slow(struct reader copy, double *v) __attribute__((noinline));

static size_t number_slow(struct reader copy, double *v)
{
    return read_number_slow(&copy, v) < 0 ? 0 : copy.pos;
}

static int read_number_slow(struct reader *r, double *v)
{
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

/* Digits a plain number may have on the fast path: below 2^53, so the
 * double is exact and the same as strtoll()'s or strtod()'s. */
#define FAST_DIGITS 15

static uint64_t load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

#define ONES 0x0101010101010101ULL

/* The decimal digits that begin the word w (8 bytes as read from memory):
 * how many (0-8), and their value, without a loop. Less '0' from each
 * byte, the digits are 0-9 (a borrow only disturbs the bytes after the
 * first other byte), and a byte is no digit when bit 7 is set in it or in
 * it plus 0x76; the digits, moved to the high end of the word behind
 * zeros, are then summed in pairs, fours and eights (the method of
 * simdjson's parse_eight_digits). */
HOT unsigned digits8(uint64_t w, uint64_t *value)
{
    uint64_t t = w - 0x30 * ONES;
    uint64_t other = (t | (t + 0x76 * ONES)) & 0x80 * ONES;
    unsigned n = other ? (unsigned)__builtin_ctzll(other) / 8 : 8;
    /* n == 0: no digit (the shift stays defined, the value is not used) */
    uint64_t d = t << ((64 - 8 * n) & 63);
    d = d * 10 + (d >> 8);
    d = ((d & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))
         + ((d >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))
        >> 32;
    *value = n ? d : 0;
    return n;
}

/* -?DIGITS; at q, at most FAST_DIGITS digits: the end of the digits (at
 * the ';'), or NULL. */
HOT const char *plain_number(const char *q, const char *end, int *neg, uint64_t *x)
{
    *neg = q < end && *q == '-';
    q += *neg;
    const char *digits = q, *stop = end - q > FAST_DIGITS ? q + FAST_DIGITS : end;
    unsigned n = end - q >= 8 ? digits8(load64(q), x) : 0;
    q += n;
    if (n == 0 || n == 8) {
        /* the end of the buffer is near, or 8 digits or more */
        while (q < stop && (unsigned char)(*q - '0') < 10)
            *x = *x * 10 + (uint64_t)(*q++ - '0');
    }
    return q > digits && q < end && *q == ';' ? q : NULL;
}

/* i:INT; or d:DOUBLE; — finite, within ±1e18. `-?DIGITS;` is parsed here
 * (the common case: PHP writes whole numbers so); anything else goes to
 * read_number_slow(), which decides as strtoll()/strtod() do. */
HOT int read_number(struct reader *r, double *v)
{
    const char *p = r->buf + r->pos, *end = r->buf + r->len;
    if (end - p < 2 || (p[0] != 'i' && p[0] != 'd') || p[1] != ':')
        return fail(r, "expected a number (i: or d:)");
    int neg = 0;
    uint64_t x = 0;
    const char *semi = plain_number(p + 2, end, &neg, &x);
    if (likely(semi != NULL)) {
        /* i:-0; is integer 0 (+0.0 as strtoll then the cast give); d:-0; is -0.0 */
        int64_t ix = (int64_t)x; /* < 10^15 */
        if (p[0] == 'i')
            *v = (double)(neg ? -ix : ix);
        else
            *v = neg ? -(double)ix : (double)ix;
        r->pos = (size_t)(semi + 1 - r->buf);
        return 0;
    }
    size_t pos = number_slow(*r, v);
    if (!pos)
        return -1;
    r->pos = pos;
    return 0;
}

/* a:N:{ — returns N. */
HOT int array_open(struct reader *r, size_t *n)
{
    if (expect(r, "a:") < 0 || read_count(r, ':', n) < 0 || expect(r, "{") < 0)
        return -1;
    return 0;
}

/* The common entry head, s:LEN:"KEY";a:M:{ with LEN of at most 5 digits
 * and M of one, checked in a few compares: 1 when it is one (key, klen, n
 * set, the reader past it), 0 when entry_open() must read it. The bytes
 * accepted are bytes the general reader accepts, with the same result. */
HOT int entry_head(struct reader *r, const char **key, size_t *klen, size_t *n)
{
    const char *p = r->buf + r->pos;
    size_t room = r->len - r->pos, len = 0, i = 2;
    if (room < 16 || p[0] != 's' || p[1] != ':')
        return 0;
    for (; i < 7 && (unsigned char)(p[i] - '0') < 10; i++)
        len = len * 10 + (size_t)(p[i] - '0');
    if (i == 2 || p[i] != ':' || p[i + 1] != '"' || len > PHPSER_MAX_KEY || room - i - 2 < len + 7)
        return 0;
    const char *k = p + i + 2, *t = k + len;
    if (memcmp(t, "\";a:", 4) != 0 || (unsigned char)(t[4] - '0') >= 10 || t[5] != ':' || t[6] != '{')
        return 0;
    *key = k;
    *klen = len;
    *n = (size_t)(t[4] - '0');
    r->pos = (size_t)(t + 7 - r->buf);
    return 1;
}

/* An entry's key and the opening of its array (a:M:{): returns M. */
HOT int entry_open(struct reader *r, const char **key, size_t *klen, size_t *n)
{
    if (entry_head(r, key, klen, n))
        return 0;
    if (read_string(r, key, klen) < 0)
        return -1;
    if (r->pos < r->len && r->buf[r->pos] != 'a')
        return fail(r, "the value of an arc must be an array");
    return array_open(r, n);
}

/* The outer a:N:{, N within max_entries. */
HOT int run_open(struct reader *r, size_t max_entries, size_t *n)
{
    if (array_open(r, n) < 0)
        return -1;
    if (*n > max_entries)
        return fail(r, "%zu entries (at most %zu)", *n, max_entries);
    return 0;
}

/* The outer array's '}' and nothing after it. */
HOT long run_close(struct reader *r, size_t n)
{
    if (expect(r, "}") < 0)
        return -1;
    if (r->pos != r->len)
        return fail(r, "%zu bytes after the end of the array", r->len - r->pos);
    return (long)n;
}

static int read_entry(struct reader *r, phpser_run_fn fn, void *arg)
{
    const char *key = NULL, *metric = NULL; /* set before use; GCC cannot tell through fail() */
    size_t klen = 0, mlen = 0, n = 0;
    if (entry_open(r, &key, &klen, &n) < 0)
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
    size_t n = 0;
    if (run_open(&r, max_entries, &n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (read_entry(&r, fn, arg) < 0)
            return -1;
    }
    return run_close(&r, n);
}

/* ---- summing ---------------------------------------------------------------- */

/* The metrics of an entry come in the same order, with the same number
 * types, as in the previous entry (XHProf writes every arc's array the
 * same way). So an entry's metrics are first read as a guess: the i-th is
 * the previous entry's i-th token, name and type (s:2:"ct";i:, kept in
 * guess[i] as its first and last 8 bytes), then a plain number of at most
 * 15 digits (digits8()); room for the whole array is checked once. At the
 * first metric that differs (another name, a sign other than '-', a
 * fraction, 16 digits), the general reader reads on from that metric's
 * start: what is accepted, and every error, stay its. */
#define PREDICTED 16
#define TOKEN 16          /* longest guessed token: a name of 7 bytes, s:7:"samples";i: */
#define MAX_SLOTS 32
#define GUESS_ROOM 40     /* a metric: token, sign, 16 bytes of digits read, ';' */

struct guess {
    uint64_t head, tail;  /* the token's first and last 8 bytes */
    unsigned char len;    /* 0: no guess (none yet, an unknown or long name) */
    unsigned char slot, dbl;
};

struct sum_state {
    phpser_sum *s;
    double weight;                /* s's, here: a store of a value cannot change it */
    size_t unknown;
    struct guess guess[PREDICTED];
};

/* The guess for position i: metric `slot` (-1: unknown) of type d: or i:. */
static void guess_set(struct sum_state *st, size_t i, int slot, int dbl)
{
    struct guess *g = &st->guess[i];
    const phpser_sum *s = st->s;
    char text[TOKEN + 8] = {0};
    int n = slot >= 0 && s->lens[slot] <= 7
                ? snprintf(text, sizeof text, "s:%d:\"%.*s\";%c:", (int)s->lens[slot],
                           (int)s->lens[slot], s->names[slot], dbl ? 'd' : 'i')
                : 0;
    g->len = n >= 8 && n <= TOKEN ? (unsigned char)n : 0;
    g->slot = (unsigned char)(slot < 0 ? 0 : slot);
    g->dbl = (unsigned char)dbl;
    g->head = load64(text);
    g->tail = g->len ? load64(text + g->len - 8) : 0;
}

static const uint64_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

/* -?DIGITS; at q, 1 to 15 digits, 17 bytes readable: the ';', or NULL.
 * The sign is taken from the word read for the digits, and made a '0'
 * there (a leading zero): where the number ends, which the next token
 * waits for, then does not wait for another read. */
HOT const char *guess_number(const char *q, int *neg, uint64_t *x)
{
    uint64_t w = load64(q);
    *neg = (w & 0xFF) == '-';
    unsigned n = digits8(w + (uint64_t)*neg * ('0' - '-'), x);
    if (n == 8) {
        uint64_t low;
        unsigned more = digits8(load64(q + 8), &low);
        if (more == 8)
            return NULL;
        *x = *x * pow10[more] + low;
        n += more;
    }
    return n > (unsigned)*neg && q[n] == ';' ? q + n : NULL;
}

/* The guessed metrics of an entry of n (see above), from the first on,
 * added to values: returns how many were right (the reader past them),
 * their bits or'ed into *present. Locals only in the loop: a store to
 * values[] may alias anything reached through a pointer. */
HOT size_t guess_metrics(struct reader *r, const struct sum_state *st, size_t n, double *values,
                         unsigned *present)
{
    if (n > PREDICTED || r->len - r->pos < n * GUESS_ROOM)
        return 0;
    const char *p = r->buf + r->pos;
    const double weight = st->weight;
    unsigned bits = 0;
    size_t i = 0;
    for (; i < n; i++) {
        const struct guess *g = &st->guess[i];
        if (!g->len || load64(p) != g->head || load64(p + g->len - 8) != g->tail)
            break;
        int neg;
        uint64_t x;
        const char *semi = guess_number(p + g->len, &neg, &x);
        if (!semi)
            break;
        /* as read_number() converts (x < 2^53: exact as int64_t) */
        int64_t ix = (int64_t)x;
        double v;
        if (g->dbl)
            v = neg ? -(double)ix : (double)ix;
        else
            v = (double)(neg ? -ix : ix);
        values[g->slot] += weight * v;
        bits |= 1u << g->slot;
        p = semi + 1;
    }
    *present |= bits;
    r->pos = (size_t)(p - r->buf);
    return i;
}

static int slot_search(const phpser_sum *s, const char *name, size_t len)
{
    for (int m = 0; m < s->count; m++) {
        if (s->lens[m] == len && memcmp(s->names[m], name, len) == 0)
            return m;
    }
    return -1;
}

/* The i-th metric, by the general reader: its slot (-1: unknown) and
 * value; it becomes the guess for the next entry. */
static int read_metric(struct reader *r, struct sum_state *st, size_t i, int *slot, double *v)
{
    const char *name = NULL;
    size_t len = 0;
    if (read_string(r, &name, &len) < 0)
        return -1;
    *slot = slot_search(st->s, name, len);
    if (i < PREDICTED)
        guess_set(st, i, *slot, r->pos < r->len && r->buf[r->pos] == 'd');
    return read_number(r, v);
}

/* The metrics of an entry from the i-th, by the general reader. */
static int read_metrics(struct reader *r, struct sum_state *st, size_t i, size_t n,
                        const phpser_dest *d, unsigned *present)
{
    for (; i < n; i++) {
        int m = -1;
        double v = 0;
        if (read_metric(r, st, i, &m, &v) < 0)
            return -1;
        if (m < 0) {
            st->unknown++;
            continue;
        }
        d->values[m] += st->weight * v;
        *present |= 1u << m;
    }
    return 0;
}

HOT int sum_entry(struct reader *r, struct sum_state *st)
{
    phpser_sum *s = st->s;
    const char *key = NULL; /* as in read_entry() */
    size_t klen = 0, n = 0;
    phpser_dest d;
    if (entry_open(r, &key, &klen, &n) < 0)
        return -1;
    if (s->entry(s->arg, key, klen, &d) < 0)
        return fail(r, "refused by the reader");
    unsigned present = 0; /* or'ed in at the end: a store to values may alias *d.present */
    size_t i = guess_metrics(r, st, n, d.values, &present);
    if (i < n && read_metrics(r, st, i, n, &d, &present) < 0)
        return -1;
    *d.present |= present;
    return expect(r, "}");
}

long phpser_sum_run(const char *buf, size_t len, size_t max_entries, phpser_sum *s, char *err,
                    size_t errlen)
{
    struct reader r = {buf, len, 0, err, errlen};
    struct sum_state st;
    if (s->count > MAX_SLOTS) {
        snprintf(err, errlen, "byte 0: more than %d metrics asked for", MAX_SLOTS);
        return -1;
    }
    memset(&st, 0, sizeof st);
    st.s = s;
    st.weight = s->weight;
    size_t n = 0;
    if (run_open(&r, max_entries, &n) < 0)
        return -1;
    long rc = (long)n;
    for (size_t i = 0; i < n && rc >= 0; i++)
        rc = sum_entry(&r, &st) < 0 ? -1 : rc;
    s->unknown += st.unknown;
    return rc < 0 ? -1 : run_close(&r, n);
}
