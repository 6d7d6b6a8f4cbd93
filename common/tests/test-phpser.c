/* Tests of phpser: serialize()d XHProf runs are read whole, and every way a
 * hostile file can lie (lengths, counts, types, nesting, numbers, trailing
 * bytes, size) is refused with the byte where it went wrong. The summing
 * reader (phpser_sum_run, with its guesses) must agree with the general
 * one on every input: the same verdict, the same error, the same sums;
 * inputs are copied to buffers of their exact size, so that the ASan build
 * catches any read past the end. */
#include "phpser.h"
#include "phpserout.h"
#include "strbuf.h"
#include "test-suites.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seen {
    int entries, metrics;
    double sum;
};

static int count(void *arg, const char *key, size_t klen, const char *metric, size_t mlen,
                 double value)
{
    (void)key;
    (void)klen;
    (void)mlen;
    struct seen *s = arg;
    if (!metric)
        s->entries++;
    else {
        s->metrics++;
        s->sum += value;
    }
    return 0;
}

static long read_str(const char *text, struct seen *s, char *err)
{
    memset(s, 0, sizeof *s);
    return phpser_read_run(text, strlen(text), 100, count, s, err, 200);
}

START_TEST(a_run_is_read_whole)
{
    struct seen s;
    char err[200];
    const char *run = "a:2:{s:6:\"main()\";a:2:{s:2:\"ct\";i:1;s:2:\"wt\";i:100;}"
                      "s:10:\"main()==>a\";a:2:{s:2:\"ct\";i:2;s:2:\"wt\";d:60.5;}}";
    ck_assert_int_eq(read_str(run, &s, err), 2);
    ck_assert_int_eq(s.entries, 2);
    ck_assert_int_eq(s.metrics, 4);
    ck_assert_double_eq(s.sum, 163.5);
    ck_assert_int_eq(read_str("a:0:{}", &s, err), 0);
}
END_TEST

START_TEST(hostile_runs_are_refused_with_where)
{
    static const char *const bad[] = {
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";i:1;}",            /* truncated */
        "a:1:{s:60:\"main()\";a:0:{}}",                          /* length past the end */
        "a:1:{s:3:\"main()\";a:0:{}}",                           /* wrong length */
        "a:2:{s:6:\"main()\";a:0:{}}",                           /* fewer entries than said */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";a:0:{}}}",           /* nested deeper */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";s:1:\"x\";}}",       /* a string value */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";i:99999999999999999999;}}", /* overflow */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";d:1e300;}}",         /* out of range */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";d:NAN;}}",           /* not finite */
        "a:1:{s:6:\"main()\";a:0:{}}trailing",                    /* trailing bytes */
        "a:99999999999:{}",                                       /* a count of 11 digits */
        "a:101:{}",                                               /* over max_entries */
        "O:8:\"stdClass\":0:{}",                                  /* an object */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct seen s;
        char err[200] = "";
        ck_assert_msg(read_str(bad[i], &s, err) == -1, "accepted: %s", bad[i]);
        ck_assert_msg(strncmp(err, "byte ", 5) == 0, "no offset for %s: %s", bad[i], err);
    }
}
END_TEST

START_TEST(keys_may_hold_any_bytes)
{
    struct seen s;
    char err[200];
    const char run[] = "a:1:{s:5:\"a\0\"\n;\";a:0:{}}";
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(phpser_read_run(run, sizeof run - 1, 10, count, &s, err, sizeof err), 1);
}
END_TEST

/* ---- phpser_sum_run against phpser_read_run ------------------------------- */

#define NAMES 4
#define ENTRIES 64
static const char *const names[NAMES] = {"ct", "wt", "cpu", "samples"};
static const unsigned char name_lens[NAMES] = {2, 2, 3, 7};

/* What a reader made of a run: per entry, the sums of the known metrics. */
struct tally {
    double v[ENTRIES][NAMES];
    unsigned present[ENTRIES];
    size_t entries, unknown;
    double weight;
    long rc;
    char err[200];
};

static int by_name(const char *name, size_t len)
{
    for (int m = 0; m < NAMES; m++) {
        if (name_lens[m] == len && memcmp(names[m], name, len) == 0)
            return m;
    }
    return -1;
}

static int tally_value(void *arg, const char *key, size_t klen, const char *metric, size_t mlen,
                       double value)
{
    (void)key;
    (void)klen;
    struct tally *t = arg;
    if (!metric)
        return t->entries++ < ENTRIES ? 0 : -1;
    int m = by_name(metric, mlen);
    if (m < 0) {
        t->unknown++;
        return 0;
    }
    t->v[t->entries - 1][m] += t->weight * value;
    t->present[t->entries - 1] |= 1u << m;
    return 0;
}

static int tally_entry(void *arg, const char *key, size_t klen, phpser_dest *dest)
{
    (void)key;
    (void)klen;
    struct tally *t = arg;
    if (t->entries >= ENTRIES)
        return -1;
    dest->values = t->v[t->entries];
    dest->present = &t->present[t->entries];
    t->entries++;
    return 0;
}

/* Both readers on text (copied to a buffer of its exact size). */
static void read_both(const char *text, size_t len, double weight, struct tally *general,
                      struct tally *summed)
{
    char *buf = malloc(len ? len : 1);
    memcpy(buf, text, len);
    memset(general, 0, sizeof *general);
    memset(summed, 0, sizeof *summed);
    general->weight = weight;
    general->rc = phpser_read_run(buf, len, ENTRIES, tally_value, general, general->err,
                                  sizeof general->err);
    phpser_sum sum = {names, name_lens, NAMES, weight, tally_entry, summed, 0};
    summed->rc = phpser_sum_run(buf, len, ENTRIES, &sum, summed->err, sizeof summed->err);
    summed->unknown = sum.unknown;
    free(buf);
}

/* The same verdict, error and sums (bit for bit: -0.0 is not 0.0). */
static void assert_agree(const char *text, size_t len, double weight)
{
    struct tally *g = malloc(sizeof *g), *s = malloc(sizeof *s);
    read_both(text, len, weight, g, s);
    ck_assert_msg(g->rc == s->rc, "rc %ld vs %ld for %.*s", g->rc, s->rc, (int)len, text);
    ck_assert_msg(strcmp(g->err, s->err) == 0, "\"%s\" vs \"%s\" for %.*s", g->err, s->err,
                  (int)len, text);
    if (g->rc >= 0) {
        ck_assert_msg(memcmp(g->v, s->v, sizeof g->v) == 0, "sums differ for %.*s", (int)len,
                      text);
        ck_assert(memcmp(g->present, s->present, sizeof g->present) == 0);
        ck_assert_uint_eq(g->unknown, s->unknown);
    }
    free(g);
    free(s);
}

/* Number texts of every shape: the guessed path's (-?digits, up to 15)
 * and the general one's (signs, spaces, fractions, exponents, 16 digits
 * and more), and wrong ones. */
static const char *const numbers[] = {
    "i:0;", "i:-0;", "d:-0;", "d:0;", "i:7;", "d:7;", "i:42;", "i:12345678;", "i:-1234567;",
    "i:-12345678;", "i:123456789;", "i:00000001;", "i:123456789012345;", "d:999999999999999;",
    "i:-123456789012345;", "i:1234567890123456;", "i:999999999999999999;", "d:1.5;",
    "d:-60.25;", "d:1e3;", "d:1.0E+25;", "i:+5;", "i: 5;", "d:0x10;", "i:99999999999999999999;",
    "d:NAN;", "d:INF;", "i:;", "i:-;", "i:1", "i:1x;", "x:1;", "i:12345678", "d:-",
    "i:0000000000000000000012;",
};
#define NUMBERS (sizeof numbers / sizeof numbers[0])

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A run of entries whose metrics mostly keep one order, with the odd
 * other order, unknown or long name, and numbers of every shape. */
static void random_run(uint64_t *rng, char *out, size_t cap)
{
    static const char *const metric_tokens[] = {
        "s:2:\"ct\";", "s:2:\"wt\";", "s:3:\"cpu\";", "s:7:\"samples\";", "s:2:\"zz\";",
        "s:11:\"a_long_name\";",
    };
    size_t entries = 1 + rng_next(rng) % 12, len = 0;
    len += (size_t)snprintf(out + len, cap - len, "a:%zu:{", entries);
    for (size_t e = 0; e < entries; e++) {
        size_t metrics = rng_next(rng) % 5;
        char key[32];
        int klen = snprintf(key, sizeof key, "f%zu==>g", e);
        len += (size_t)snprintf(out + len, cap - len, "s:%d:\"%s\";a:%zu:{", klen, key, metrics);
        for (size_t i = 0; i < metrics; i++) {
            int odd = rng_next(rng) % 8 == 0;
            const char *name = metric_tokens[odd ? rng_next(rng) % 6 : i];
            const char *num = numbers[rng_next(rng) % 4 ? rng_next(rng) % 13 : rng_next(rng) % NUMBERS];
            len += (size_t)snprintf(out + len, cap - len, "%s%s", name, num);
        }
        len += (size_t)snprintf(out + len, cap - len, "}");
    }
    snprintf(out + len, cap - len, "}");
}

START_TEST(summing_agrees_with_the_general_reader_on_every_number)
{
    /* entries after the one guessed: the guess needs room to be tried */
    const char *room = "s:1:\"b\";a:1:{s:2:\"ct\";i:1;}s:1:\"c\";a:1:{s:2:\"ct\";i:1;}";
    char text[300];
    for (size_t i = 0; i < NUMBERS; i++) {
        /* the number first (a guess for no one), then again where it is guessed */
        int n = snprintf(text, sizeof text,
                         "a:4:{s:6:\"main()\";a:1:{s:2:\"ct\";%s}s:1:\"a\";a:1:{s:2:\"ct\";%s}%s}",
                         numbers[i], numbers[i], room);
        assert_agree(text, (size_t)n, 1.0);
        n = snprintf(text, sizeof text,
                     "a:4:{s:6:\"main()\";a:1:{s:2:\"ct\";i:1;}s:1:\"a\";a:1:{s:2:\"ct\";%s}%s}",
                     numbers[i], room);
        assert_agree(text, (size_t)n, -1.0);
    }
}
END_TEST

START_TEST(summing_agrees_with_the_general_reader_on_random_runs)
{
    uint64_t rng = 20261126;
    static char text[8192];
    for (int iter = 0; iter < 3000; iter++) {
        random_run(&rng, text, sizeof text);
        size_t len = strlen(text);
        double weight = iter % 3 == 0 ? 2.5 : (iter % 3 == 1 ? 1.0 : -1.0);
        assert_agree(text, len, weight);
        /* and cut short, or with a byte changed, added or dropped */
        size_t at = (size_t)(rng_next(&rng) % (len + 1));
        assert_agree(text, at, weight);
        char mutated[8200];
        memcpy(mutated, text, len);
        static const char bytes[] = "0123456789-+.;:\"{}adis \xff";
        size_t op = rng_next(&rng) % 3, m = len;
        at = (size_t)(rng_next(&rng) % len);
        if (op == 0)
            mutated[at] = bytes[rng_next(&rng) % (sizeof bytes - 1)];
        else if (op == 1) {
            memmove(mutated + at + 1, mutated + at, len - at);
            mutated[at] = bytes[rng_next(&rng) % (sizeof bytes - 1)];
            m++;
        } else {
            memmove(mutated + at, mutated + at + 1, len - at - 1);
            m--;
        }
        assert_agree(mutated, m, weight);
    }
}
END_TEST

START_TEST(summing_adds_where_the_entry_says)
{
    const char *run = "a:3:{s:6:\"main()\";a:2:{s:2:\"ct\";i:1;s:2:\"wt\";i:100;}"
                      "s:1:\"a\";a:3:{s:2:\"ct\";i:2;s:2:\"wt\";d:60.5;s:2:\"zz\";i:9;}"
                      "s:1:\"b\";a:2:{s:2:\"wt\";i:-7;s:7:\"samples\";i:3;}}";
    struct tally *g = malloc(sizeof *g), *s = malloc(sizeof *s);
    read_both(run, strlen(run), 2.0, g, s);
    ck_assert_int_eq(s->rc, 3);
    ck_assert_uint_eq(s->entries, 3);
    ck_assert_double_eq(s->v[0][1], 200);
    ck_assert_double_eq(s->v[1][1], 121);
    ck_assert_double_eq(s->v[2][1], -14);
    ck_assert_double_eq(s->v[2][3], 6);
    ck_assert_uint_eq(s->present[2], (1u << 1) | (1u << 3));
    ck_assert_uint_eq(s->unknown, 1);
    free(g);
    free(s);
}
END_TEST


/* The writer (phpserout.h) and the reader agree: what one writes, the
 * other reads back to the same keys (a NUL in one) and the same doubles,
 * whole or not, negative or tiny. */
struct collected {
    char keys[4][32];
    size_t klens[4];
    double values[16];
    int nkeys, nvalues;
};

static int collect(void *arg, const char *key, size_t klen, const char *metric, size_t mlen,
                   double value)
{
    (void)mlen;
    struct collected *c = arg;
    if (!metric) {
        memcpy(c->keys[c->nkeys], key, klen);
        c->klens[c->nkeys++] = klen;
    } else {
        c->values[c->nvalues++] = value;
    }
    return 0;
}

START_TEST(what_the_writer_writes_the_reader_reads)
{
    static const double values[] = {3, 120.5, -7, 1.0 / 3, 1e-7, 123456789012345678.0, 0.1, 0};
    static const char *const metrics[] = {"ct", "wt", "cpu", "mu"};
    strbuf out = STRBUF_INIT;
    phpser_write_array(&out, 2);
    phpser_write_string(&out, "main()", 6);
    phpser_write_array(&out, 4);
    for (int m = 0; m < 4; m++) {
        phpser_write_string(&out, metrics[m], strlen(metrics[m]));
        phpser_write_number(&out, values[m]);
    }
    phpser_write_end(&out);
    phpser_write_string(&out, "main()==>a\0b", 13);
    phpser_write_array(&out, 4);
    for (int m = 0; m < 4; m++) {
        phpser_write_string(&out, metrics[m], strlen(metrics[m]));
        phpser_write_number(&out, values[4 + m]);
    }
    phpser_write_end(&out);
    phpser_write_end(&out);
    ck_assert(strstr(out.data, "s:2:\"ct\";i:3;s:2:\"wt\";d:120.5;s:3:\"cpu\";i:-7;") != NULL);
    struct collected c = {0};
    char err[200];
    ck_assert_int_eq(phpser_read_run(out.data, out.len, 10, collect, &c, err, sizeof err), 2);
    ck_assert_int_eq(c.nkeys, 2);
    ck_assert(c.klens[1] == 13 && memcmp(c.keys[1], "main()==>a\0b", 13) == 0);
    ck_assert_int_eq(c.nvalues, 8);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(c.values[i] == values[i], "value %d: %.17g read as %.17g", i, values[i],
                      c.values[i]);
    strbuf_free(&out);
}
END_TEST

Suite *phpser_suite(void)
{
    Suite *s = suite_create("phpser");
    TCase *tc = tcase_create("phpser");
    tcase_add_test(tc, a_run_is_read_whole);
    tcase_add_test(tc, hostile_runs_are_refused_with_where);
    tcase_add_test(tc, keys_may_hold_any_bytes);
    tcase_add_test(tc, summing_agrees_with_the_general_reader_on_every_number);
    tcase_add_test(tc, summing_agrees_with_the_general_reader_on_random_runs);
    tcase_add_test(tc, summing_adds_where_the_entry_says);
    tcase_add_test(tc, what_the_writer_writes_the_reader_reads);
    suite_add_tcase(s, tc);
    return s;
}
