/* Tests of linefields: the field cursor, strict integers, UTF-8 lengths. */
#include <string.h>

#include "linefields.h"
#include "test-suites.h"

START_TEST(fields_split_on_single_spaces)
{
    const char *line = "a bc  d";
    struct linefields f = {line, line + strlen(line)};
    const char *s;
    size_t n;
    ck_assert(linefields_next(&f, &s, &n) && n == 1 && s[0] == 'a');
    ck_assert(linefields_next(&f, &s, &n) && n == 2 && !memcmp(s, "bc", 2));
    ck_assert(!linefields_next(&f, &s, &n)); /* two spaces: an empty field */
    ck_assert(linefields_next(&f, &s, &n) && n == 1 && s[0] == 'd');
    ck_assert(!linefields_next(&f, &s, &n));
}
END_TEST

START_TEST(integers_are_strict)
{
    int64_t v;
    ck_assert(linefields_int("0", 1, 0, &v) == 0 && v == 0);
    ck_assert(linefields_int("9223372036854775807", 19, 0, &v) == 0 && v == INT64_MAX);
    ck_assert(linefields_int("9223372036854775808", 19, 0, &v) < 0);
    ck_assert(linefields_int("-5", 2, 1, &v) == 0 && v == -5);
    ck_assert(linefields_int("-5", 2, 0, &v) < 0);
    ck_assert(linefields_int("007", 3, 0, &v) < 0);
    ck_assert(linefields_int("+7", 2, 0, &v) < 0);
    ck_assert(linefields_int("7a", 2, 0, &v) < 0);
    ck_assert(linefields_int("", 0, 0, &v) < 0);
    ck_assert(linefields_int("-", 1, 1, &v) < 0);
}
END_TEST

START_TEST(utf8_lengths)
{
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\xc0\x80", 2), 0);     /* overlong */
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0); /* surrogate */
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\xe2\x82", 2), 0);     /* cut */
    ck_assert_uint_eq(linefields_utf8_len((const unsigned char *)"\x80", 1), 0);
}
END_TEST

START_TEST(escapes_decode)
{
    ck_assert_int_eq(linefields_hexval('0'), 0);
    ck_assert_int_eq(linefields_hexval('F'), 15);
    ck_assert_int_eq(linefields_hexval('f'), 15);
    ck_assert_int_eq(linefields_hexval('g'), -1);
    ck_assert_int_eq(linefields_hexval('%'), -1);
    char out[16];
    size_t n = linefields_unescape("a%20b%00c%25", 12, out);
    ck_assert_uint_eq(n, 6);
    ck_assert(memcmp(out, "a b\0c%", 6) == 0);
}
END_TEST

Suite *linefields_suite(void)
{
    Suite *s = suite_create("linefields");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, fields_split_on_single_spaces);
    tcase_add_test(tc, integers_are_strict);
    tcase_add_test(tc, utf8_lengths);
    tcase_add_test(tc, escapes_decode);
    suite_add_tcase(s, tc);
    return s;
}
