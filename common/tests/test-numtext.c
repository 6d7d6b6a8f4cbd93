/* Tests of numtext: counts with commas, amounts (means of counts) and
 * counted nouns in the right number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numtext.h"
#include "test-suites.h"

static char *count_of(double v)
{
    strbuf sb = STRBUF_INIT;
    numtext_count(&sb, v);
    return (char *)strbuf_cstr(&sb);
}

static char *amount_of(double v)
{
    strbuf sb = STRBUF_INIT;
    numtext_amount(&sb, v);
    return (char *)strbuf_cstr(&sb);
}

static char *counted_of(double v)
{
    strbuf sb = STRBUF_INIT;
    numtext_counted(&sb, v, "call", "calls");
    return (char *)strbuf_cstr(&sb);
}

#define CHECK_TEXT(expr, expected) \
    do { \
        char *got_ = (expr); \
        ck_assert_str_eq(got_, expected); \
        free(got_); \
    } while (0)

START_TEST(counts_get_commas_between_thousands)
{
    CHECK_TEXT(count_of(0), "0");
    CHECK_TEXT(count_of(999), "999");
    CHECK_TEXT(count_of(1000), "1,000");
    CHECK_TEXT(count_of(12345), "12,345");
    CHECK_TEXT(count_of(1234567), "1,234,567");
    CHECK_TEXT(count_of(-1234), "-1,234");
    CHECK_TEXT(count_of(-123), "-123");
    CHECK_TEXT(count_of(1e15), "1,000,000,000,000,000");
    CHECK_TEXT(count_of(2.5), "2");     /* %.0f: halves to even */
    CHECK_TEXT(count_of(3.5), "4");
    CHECK_TEXT(count_of(INFINITY), "inf");
}
END_TEST

START_TEST(count_of_the_largest_double_is_whole)
{
    char buf[NUMTEXT_MAX];
    double v = numtext_count_buf(buf, 1.7976931348623157e308);
    ck_assert(v == 1.7976931348623157e308);
    ck_assert_uint_eq(strlen(buf), 309 + 102);   /* every digit and its commas */
    ck_assert(strncmp(buf, "179,769,313,486,231,5", 21) == 0);
}
END_TEST

START_TEST(amounts_keep_up_to_two_decimals)
{
    CHECK_TEXT(amount_of(3), "3");
    CHECK_TEXT(amount_of(0.5), "0.5");
    CHECK_TEXT(amount_of(1.25), "1.25");
    CHECK_TEXT(amount_of(1.333333), "1.33");
    CHECK_TEXT(amount_of(1234.5), "1,234.5");
    CHECK_TEXT(amount_of(1.999), "2");
    CHECK_TEXT(amount_of(-2.5), "-2.5");
}
END_TEST

START_TEST(small_amounts_show_two_significant_digits)
{
    CHECK_TEXT(amount_of(0.0042), "0.0042");
    CHECK_TEXT(amount_of(0.00005), "0.00005");
    CHECK_TEXT(amount_of(0.004), "0.004");
    CHECK_TEXT(amount_of(-0.0042), "-0.0042");
    CHECK_TEXT(amount_of(1e-13), "0");
    CHECK_TEXT(amount_of(-1e-14), "0");
}
END_TEST

START_TEST(nouns_are_singular_only_for_one)
{
    CHECK_TEXT(counted_of(1), "1 call");
    CHECK_TEXT(counted_of(0), "0 calls");
    CHECK_TEXT(counted_of(2), "2 calls");
    CHECK_TEXT(counted_of(0.5), "0.5 calls");
    CHECK_TEXT(counted_of(1.4), "1.4 calls");   /* a mean: never "1 calls" */
    CHECK_TEXT(counted_of(0.999), "1 call");    /* reads 1 */
    CHECK_TEXT(counted_of(11), "11 calls");
    CHECK_TEXT(counted_of(1001), "1,001 calls");
    CHECK_TEXT(counted_of(-1), "-1 calls");
}
END_TEST

Suite *numtext_suite(void)
{
    Suite *s = suite_create("numtext");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, counts_get_commas_between_thousands);
    tcase_add_test(tc, count_of_the_largest_double_is_whole);
    tcase_add_test(tc, amounts_keep_up_to_two_decimals);
    tcase_add_test(tc, small_amounts_show_two_significant_digits);
    tcase_add_test(tc, nouns_are_singular_only_for_one);
    suite_add_tcase(s, tc);
    return s;
}
