/* Tests of tierhist: the bucket formula keeps every value within 1%,
 * percentiles read back within 1% of the true ones, histograms merge by
 * adding, and the text form round-trips and refuses every malformed input. */
#include "tierhist.h"
#include "test-suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double rel_err(uint64_t got, uint64_t want)
{
    double d = (double)got - (double)want;
    return (d < 0 ? -d : d) / (double)want;
}

/* xorshift64*: a fixed sequence, so a failure reproduces. */
static uint64_t rng(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* Log-uniform over [1, 2^max_bits): every magnitude equally likely. */
static uint64_t rand_ns(uint64_t *state, unsigned max_bits)
{
    unsigned bits = 1 + (unsigned)(rng(state) % max_bits);
    uint64_t v = rng(state) >> (64 - bits);
    return v ? v : 1;
}

START_TEST(values_below_128_are_exact)
{
    for (uint64_t v = 0; v < 128; v++) {
        ck_assert_uint_eq(tierhist_index(v), v);
        ck_assert_uint_eq(tierhist_value((unsigned)v), v);
    }
    ck_assert_uint_eq(tierhist_index(128), 128);
    ck_assert_uint_eq(tierhist_index(129), 128);  /* 128 and 129 share a bucket */
}
END_TEST

START_TEST(index_value_round_trip_within_1_percent)
{
    /* every bucket's own value maps back to it ... */
    for (unsigned idx = 0; idx < TIERHIST_NBUCKETS; idx++)
        ck_assert_uint_eq(tierhist_index(tierhist_value(idx)), idx);
    /* ... and random values of every magnitude land within 1 %: 20,000
     * cover each of the buckets many times over (200,000 took 1.4 s alone
     * and timed out on a loaded machine, for nothing more) */
    uint64_t state = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        uint64_t v = rand_ns(&state, 62);
        unsigned idx = tierhist_index(v);
        ck_assert_uint_lt(idx, TIERHIST_NBUCKETS);
        ck_assert_msg(rel_err(tierhist_value(idx), v) < 0.01, "v=%llu value=%llu",
                      (unsigned long long)v, (unsigned long long)tierhist_value(idx));
        ck_assert_uint_eq(tierhist_index(tierhist_value(idx)), idx);
    }
    /* the edges of every power of two up to 2^62, and the largest value */
    for (unsigned e = 6; e <= 62; e++) {
        uint64_t lo = (uint64_t)1 << e, hi = ((uint64_t)1 << (e + 1)) - 1;
        ck_assert(rel_err(tierhist_value(tierhist_index(lo)), lo) < 0.01);
        ck_assert(rel_err(tierhist_value(tierhist_index(hi)), hi) < 0.01);
        ck_assert_uint_eq(tierhist_index(hi) + 1, tierhist_index(hi + 1));
    }
    ck_assert_uint_eq(tierhist_index(UINT64_MAX), TIERHIST_NBUCKETS - 1);
    ck_assert(rel_err(tierhist_value(TIERHIST_NBUCKETS - 1), UINT64_MAX) < 0.01);
}
END_TEST

START_TEST(indexes_grow_with_values)
{
    unsigned prev = 0;
    for (uint64_t v = 1; v < 1000000; v += v / 50 + 1) {
        unsigned idx = tierhist_index(v);
        ck_assert_uint_ge(idx, prev);
        prev = idx;
    }
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(percentiles_match_sorted_values)
{
    enum { N = 10007 };
    static uint64_t v[N];
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    struct tierhist h = TIERHIST_INIT;
    for (int i = 0; i < N; i++) {
        v[i] = rand_ns(&state, 40);
        tierhist_add(&h, v[i]);
    }
    qsort(v, N, sizeof v[0], cmp_u64);
    ck_assert_uint_eq(h.count, N);
    static const double ps[] = {0.01, 1, 10, 25, 50, 75, 90, 99, 99.9, 100};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        size_t rank = (size_t)(ps[i] * N / 100.0);
        if ((double)rank < ps[i] * N / 100.0)
            rank++;
        if (rank == 0)
            rank = 1;
        uint64_t want = v[rank - 1], got = tierhist_percentile(&h, ps[i]);
        ck_assert_msg(rel_err(got, want) < 0.01, "p%g: %llu vs %llu", ps[i],
                      (unsigned long long)got, (unsigned long long)want);
    }
    tierhist_reset(&h);
    ck_assert_uint_eq(h.count, 0);
    ck_assert_uint_eq(tierhist_percentile(&h, 50), 0);
}
END_TEST

START_TEST(percentile_of_exact_ranks)
{
    struct tierhist h = TIERHIST_INIT;
    for (uint64_t v = 1; v <= 100; v++)
        tierhist_add(&h, v);
    /* rank ceil(p/100 * 100) = p: exact values below 128 */
    ck_assert_uint_eq(tierhist_percentile(&h, 50), 50);
    ck_assert_uint_eq(tierhist_percentile(&h, 90), 90);
    ck_assert_uint_eq(tierhist_percentile(&h, 99), 99);
    ck_assert_uint_eq(tierhist_percentile(&h, 100), 100);
    ck_assert_uint_eq(tierhist_percentile(&h, 0.5), 1);
    tierhist_reset(&h);
}
END_TEST

START_TEST(merge_is_adding)
{
    struct tierhist a = TIERHIST_INIT, b = TIERHIST_INIT, both = TIERHIST_INIT;
    uint64_t state = 12345;
    for (int i = 0; i < 5000; i++) {
        uint64_t v = rand_ns(&state, 36);
        tierhist_add(i % 3 ? &a : &b, v);
        tierhist_add(&both, v);
    }
    tierhist_merge(&a, &b);
    ck_assert_uint_eq(a.count, both.count);
    for (unsigned i = 0; i < TIERHIST_BLOCKS; i++) {
        ck_assert_int_eq(a.block[i] == NULL, both.block[i] == NULL);
        if (a.block[i])
            ck_assert(memcmp(a.block[i], both.block[i], TIERHIST_SUB * sizeof(uint64_t)) == 0);
    }
    strbuf sa = STRBUF_INIT, sboth = STRBUF_INIT;
    tierhist_format(&a, &sa);
    tierhist_format(&both, &sboth);
    ck_assert_str_eq(strbuf_cstr(&sa), strbuf_cstr(&sboth));
    strbuf_free(&sa);
    strbuf_free(&sboth);
    tierhist_reset(&a);
    tierhist_reset(&b);
    tierhist_reset(&both);
}
END_TEST

START_TEST(format_parse_round_trip)
{
    struct tierhist h = TIERHIST_INIT, back = TIERHIST_INIT;
    strbuf sb = STRBUF_INIT, again = STRBUF_INIT;
    tierhist_format(&h, &sb);
    ck_assert_uint_eq(sb.len, 0);                 /* empty: nothing */
    tierhist_add(&h, 5);
    tierhist_add(&h, 5);
    tierhist_add(&h, 1000);
    tierhist_add(&h, (uint64_t)1 << 62);
    tierhist_format(&h, &sb);
    char want[128];
    snprintf(want, sizeof want, "5:2,%u:1,%u:1", tierhist_index(1000),
             tierhist_index((uint64_t)1 << 62));
    ck_assert_str_eq(strbuf_cstr(&sb), want);
    ck_assert_int_eq(tierhist_parse(&back, sb.data, sb.len), 0);
    ck_assert_uint_eq(back.count, 4);
    tierhist_format(&back, &again);
    ck_assert_str_eq(strbuf_cstr(&again), want);
    /* parsing adds to what is there */
    ck_assert_int_eq(tierhist_parse(&back, "5:3", 3), 0);
    ck_assert_uint_eq(back.count, 7);
    ck_assert_uint_eq(back.block[0][5], 5);
    uint64_t total = 0;
    ck_assert_int_eq(tierhist_check(sb.data, sb.len, &total), 0);
    ck_assert_uint_eq(total, 4);
    strbuf_free(&sb);
    strbuf_free(&again);
    tierhist_reset(&h);
    tierhist_reset(&back);
}
END_TEST

START_TEST(parse_refuses_malformed)
{
    static const char *const bad[] = {
        "",                       /* empty */
        "5:1,3:1",                /* not ascending */
        "5:1,5:1",                /* repeated */
        "3776:1",                 /* index out of range */
        "5:0",                    /* count 0 */
        "5:18446744073709551616", /* count too large */
        "99999999999999999999999:1",
        "1:18446744073709551615,2:1", /* sum overflows */
        "5",  "5:", ":5", "5:1,", ",5:1", "5:1,,6:1", "05:1", "5:01", "-5:1",
        "5:1 ", "5:1;6:1", "a:1", "5:x", "5:1,6:1x",
    };
    struct tierhist h = TIERHIST_INIT;
    tierhist_add(&h, 7);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t total;
        ck_assert_msg(tierhist_parse(&h, bad[i], strlen(bad[i])) == -1, "accepted '%s'", bad[i]);
        ck_assert_msg(tierhist_check(bad[i], strlen(bad[i]), &total) == -1, "checked '%s'", bad[i]);
        ck_assert_uint_eq(h.count, 1);            /* unchanged */
        ck_assert_uint_eq(h.block[0][7], 1);
        ck_assert_uint_eq(h.block[0][5], 0);
    }
    /* the sum fits but adding it to what h holds would not */
    ck_assert_int_eq(tierhist_parse(&h, "3775:18446744073709551615", 25), -1);
    ck_assert_uint_eq(h.count, 1);
    ck_assert_ptr_null(h.block[TIERHIST_BLOCKS - 1]);
    ck_assert_int_eq(tierhist_parse(&h, "0:1,3775:9", 10), 0);
    ck_assert_uint_eq(h.count, 11);
    tierhist_reset(&h);
}
END_TEST

Suite *tierhist_suite(void)
{
    Suite *s = suite_create("tierhist");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, values_below_128_are_exact);
    tcase_add_test(tc, index_value_round_trip_within_1_percent);
    tcase_add_test(tc, indexes_grow_with_values);
    tcase_add_test(tc, percentiles_match_sorted_values);
    tcase_add_test(tc, percentile_of_exact_ranks);
    tcase_add_test(tc, merge_is_adding);
    tcase_add_test(tc, format_parse_round_trip);
    tcase_add_test(tc, parse_refuses_malformed);
    suite_add_tcase(s, tc);
    return s;
}
