/* Tests of bucket: bucket names, the format check and the shape matcher. */
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "test-suites.h"

/* 2026-01-05T03:04:05Z (a Monday; day 5 for %e's space padding) */
#define EARLY_JAN ((time_t)1767582245)

static const char *name_of(const char *format, time_t t)
{
    static char out[BUCKET_NAME_MAX + 1];
    size_t n = bucket_name(format, t, out, sizeof out);
    ck_assert_msg(n > 0, "bucket_name(%s) failed", format);
    ck_assert_uint_eq(n, strlen(out));
    return out;
}

START_TEST(names_bucket_of_a_fixed_time_in_utc)
{
    ck_assert_str_eq(name_of("%Y-%m-%d_%H", TEST_NOW), "2026-11-22_05");
    ck_assert_str_eq(name_of("%Y-%m-%d", TEST_NOW), "2026-11-22");
    ck_assert_str_eq(name_of("%Y-%m-%d_%H.excimer-wall", TEST_NOW), "2026-11-22_05.excimer-wall");
    ck_assert_str_eq(name_of("%Y%m%d%H%M%S", TEST_NOW), "20261122055001");
    ck_assert_str_eq(name_of("%y-%j", TEST_NOW), "26-326");
    ck_assert_str_eq(name_of("%G-W%V-%u", TEST_NOW), "2026-W47-7");
    ck_assert_str_eq(name_of("%U.%W.%w", TEST_NOW), "47.46.0");
    ck_assert_str_eq(name_of("%s", TEST_NOW), "1795326601");
    ck_assert_str_eq(name_of("100%%-%Y", TEST_NOW), "100%-2026");
    ck_assert_str_eq(name_of("%e", TEST_NOW), "22");
}
END_TEST

START_TEST(names_use_utc_not_local_time)
{
    setenv("TZ", "America/Los_Angeles", 1);
    tzset();
    ck_assert_str_eq(name_of("%Y-%m-%d_%H", TEST_NOW), "2026-11-22_05");
    unsetenv("TZ");
    tzset();
}
END_TEST

START_TEST(day_of_month_with_e_is_space_padded)
{
    ck_assert_str_eq(name_of("%Y-%m-%e_%H", EARLY_JAN), "2026-01- 5_03");
    ck_assert_str_eq(name_of("%Y-%m-%d_%H:%M:%S", EARLY_JAN), "2026-01-05_03:04:05");
}
END_TEST

START_TEST(name_too_long_for_buffer_gives_zero)
{
    char out[8];
    ck_assert_uint_eq(bucket_name("%Y-%m-%d_%H", TEST_NOW, out, sizeof out), 0);
    char big[512];
    char format[200];
    memset(format, 'x', 129);
    format[129] = '\0';
    /* the name is capped at BUCKET_NAME_MAX whatever the buffer */
    ck_assert_uint_eq(bucket_name(format, TEST_NOW, big, sizeof big), 0);
    format[128] = '\0';
    ck_assert_uint_eq(bucket_name(format, TEST_NOW, big, sizeof big), 128);
}
END_TEST

START_TEST(format_check_accepts_every_supported_conversion)
{
    static const char *const ok[] = {
        "%Y-%m-%d_%H", "%Y-%m-%d", "%Y-%m-%d_%H.excimer", "%y%m%d", "%G-W%V", "%j",
        "%U", "%W", "%u", "%w", "%s", "%e", "%M%S", "%%Y", "trace-%Y", "x", "%Y.%m",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const char *why = bucket_format_check(ok[i]);
        ck_assert_msg(why == NULL, "%s refused: %s", ok[i], why);
    }
}
END_TEST

START_TEST(format_check_refuses_empty)
{
    ck_assert_str_eq(bucket_format_check(""), "must not be empty");
    ck_assert_str_eq(bucket_format_check(NULL), "must not be empty");
}
END_TEST

START_TEST(format_check_refuses_slash)
{
    ck_assert_str_eq(bucket_format_check("%Y/%m"), "must not contain '/'");
    ck_assert_str_eq(bucket_format_check("/%Y"), "must not contain '/'");
    ck_assert_str_eq(bucket_format_check("../%Y"), "must not contain '/'");
}
END_TEST

START_TEST(format_check_refuses_unsupported_conversions)
{
    static const char *const bad[] = {"%a", "%A", "%b", "%B", "%c", "%D", "%F", "%T", "%Z",
                                      "%z", "%p", "%n", "%t", "%x", "%X", "%C", "%h", "%I",
                                      "%k", "%l", "%EY", "%Oy", "%-d", "%_H", "%5Y", "%Y-%",
                                      "%", "%%%"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *why = bucket_format_check(bad[i]);
        ck_assert_msg(why && strncmp(why, "unsupported conversion", 22) == 0,
                      "%s not refused as unsupported: %s", bad[i], why ? why : "(accepted)");
    }
}
END_TEST

START_TEST(format_check_refuses_control_characters)
{
    ck_assert_str_eq(bucket_format_check("%Y\t%m"), "must not contain control characters");
    ck_assert_str_eq(bucket_format_check("%Y\n"), "must not contain control characters");
}
END_TEST

START_TEST(format_check_refuses_dot_and_dotdot_names)
{
    ck_assert_str_eq(bucket_format_check("."), "produces \".\" or \"..\"");
    ck_assert_str_eq(bucket_format_check(".."), "produces \".\" or \"..\"");
    ck_assert_ptr_null(bucket_format_check("..%Y"));
}
END_TEST

START_TEST(format_check_refuses_names_longer_than_bucket_name_max)
{
    char format[200];
    memset(format, 'x', 129);
    format[129] = '\0';
    ck_assert_str_eq(bucket_format_check(format), "produces an empty or too long name");
    format[128] = '\0';
    ck_assert_ptr_null(bucket_format_check(format));
}
END_TEST

START_TEST(match_prefix_of_hourly_name)
{
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d_%H", "2026-11-22_05.all.log"), 13);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d_%H", "2026-11-22_05"), 13);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "2026-11-22_05.all.log"), 10);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d_%H", "2026-11-22.all.log"), -1);
}
END_TEST

START_TEST(match_prefix_requires_exact_digit_counts)
{
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "202-11-22.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "20261-11-22.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "2026-1-22.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "2026-111-22.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "2026-11-2.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "2026-11-223.x"), 10); /* a prefix */
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d", "abcd-11-22.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%j", "05"), -1);
    ck_assert_int_eq(bucket_match_prefix("%j", "005"), 3);
    ck_assert_int_eq(bucket_match_prefix("%u.", "7."), 2);
    ck_assert_int_eq(bucket_match_prefix("%u.", "17."), -1);
    ck_assert_int_eq(bucket_match_prefix("%y", "2"), -1);
}
END_TEST

START_TEST(match_prefix_requires_literals)
{
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d_%H.excimer", "2026-11-22_05.excimer.all.log"),
                     21);
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d_%H.excimer",
                                         "2026-11-22_05.excimer-wall.all.log"),
                     21); /* only a prefix: the caller checks what follows */
    ck_assert_int_eq(bucket_match_prefix("%Y-%m-%d_%H.excimer-wall",
                                         "2026-11-22_05.excimer.all.log"),
                     -1);
    ck_assert_int_eq(bucket_match_prefix("trace-%Y", "trace-2026"), 10);
    ck_assert_int_eq(bucket_match_prefix("trace-%Y", "Trace-2026"), -1);
    ck_assert_int_eq(bucket_match_prefix("trace-%Y", "trace"), -1);
}
END_TEST

START_TEST(match_prefix_of_percent_literal)
{
    ck_assert_int_eq(bucket_match_prefix("%Y%%", "2026%.all.log"), 5);
    ck_assert_int_eq(bucket_match_prefix("%Y%%", "2026x.all.log"), -1);
    ck_assert_int_eq(bucket_match_prefix("%%%Y", "%2026"), 5);
    ck_assert_int_eq(bucket_match_prefix("%%%Y", "%%2026"), -1);
}
END_TEST

START_TEST(match_prefix_of_space_padded_day)
{
    ck_assert_int_eq(bucket_match_prefix("%m-%e", "01- 5.x"), 5);
    ck_assert_int_eq(bucket_match_prefix("%m-%e", "01-15.x"), 5);
    ck_assert_int_eq(bucket_match_prefix("%m-%e", "01-5.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%m-%e", "01-  5.x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%m-%e", "01-  .x"), -1);
    ck_assert_int_eq(bucket_match_prefix("%m-%d", "01- 5.x"), -1); /* %d has no spaces */
}
END_TEST

START_TEST(match_prefix_of_epoch_seconds_takes_all_digits)
{
    ck_assert_int_eq(bucket_match_prefix("%s", "1795326601.all.log"), 10);
    ck_assert_int_eq(bucket_match_prefix("%s", "0.all.log"), 1);
    ck_assert_int_eq(bucket_match_prefix("%s", ".all.log"), -1);
}
END_TEST

START_TEST(match_prefix_refuses_unsupported_conversion)
{
    ck_assert_int_eq(bucket_match_prefix("%a", "Mon"), -1);
    ck_assert_int_eq(bucket_match_prefix("", "anything"), 0);
}
END_TEST

START_TEST(every_accepted_format_matches_its_own_names)
{
    static const char *const formats[] = {
        "%Y-%m-%d_%H", "%Y-%m-%d", "%Y-%m-%d_%H.excimer", "%Y%m%d%H%M%S", "%y-%j",
        "%G-W%V-%u",   "%U.%W.%w", "%s",       "%Y-%m-%e_%H", "%e%H", "100%%-%Y", "%j%u",
    };
    static const time_t times[] = {0, EARLY_JAN, TEST_NOW, 951782400 /* 2000-02-29 */,
                                   1609459199 /* 2020-12-31T23:59:59 */};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        ck_assert_ptr_null(bucket_format_check(formats[f]));
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            char name[BUCKET_NAME_MAX + 1];
            size_t n = bucket_name(formats[f], times[t], name, sizeof name);
            ck_assert_uint_gt(n, 0);
            ck_assert_msg(bucket_match_prefix(formats[f], name) == (ssize_t)n,
                          "%s does not match its own name \"%s\"", formats[f], name);
        }
    }
}
END_TEST

/* "%s" has no fixed width, so digits right after it could never be told
 * apart when retention reads names back: such formats are refused. */
START_TEST(format_check_refuses_digits_or_conversions_after_epoch_seconds)
{
    ck_assert_ptr_nonnull(bucket_format_check("%s%H"));
    ck_assert_ptr_nonnull(bucket_format_check("%s0"));
    ck_assert_ptr_null(bucket_format_check("%s.excimer"));
    ck_assert_ptr_null(bucket_format_check("%s"));
    ck_assert_ptr_null(bucket_format_check("%s%%"));
}
END_TEST

START_TEST(span_is_the_bucket_around_a_time)
{
    time_t start, end;
    /* 2026-01-05T03:04:05Z: the hour 03:00-04:00, the day, a 1-second bucket */
    ck_assert_int_eq(bucket_span("%Y-%m-%d_%H", EARLY_JAN, &start, &end), 0);
    ck_assert_int_eq(start, EARLY_JAN - 4 * 60 - 5);
    ck_assert_int_eq(end, start + 3600);
    ck_assert_int_eq(bucket_span("%Y-%m-%d", EARLY_JAN, &start, &end), 0);
    ck_assert_int_eq(start, EARLY_JAN - 3 * 3600 - 4 * 60 - 5);
    ck_assert_int_eq(end, start + 86400);
    ck_assert_int_eq(bucket_span("%Y-%m-%d_%H%M%S", EARLY_JAN, &start, &end), 0);
    ck_assert_int_eq(start, EARLY_JAN);
    ck_assert_int_eq(end, EARLY_JAN + 1);
    /* at the very first second of a bucket */
    ck_assert_int_eq(bucket_span("%Y-%m-%d_%H", start, &start, &end), 0);
    ck_assert_int_eq(end - start, 3600);
    /* no changing field: the window */
    ck_assert_int_eq(bucket_span("static", EARLY_JAN, &start, &end), 0);
    ck_assert_int_eq(start, EARLY_JAN - BUCKET_SPAN_MAX);
    ck_assert_int_eq(end, EARLY_JAN + BUCKET_SPAN_MAX + 1);
}
END_TEST

Suite *bucket_suite(void)
{
    Suite *s = suite_create("bucket");
    TCase *tc = tcase_create("name");
    tcase_add_test(tc, names_bucket_of_a_fixed_time_in_utc);
    tcase_add_test(tc, names_use_utc_not_local_time);
    tcase_add_test(tc, day_of_month_with_e_is_space_padded);
    tcase_add_test(tc, name_too_long_for_buffer_gives_zero);
    suite_add_tcase(s, tc);

    tc = tcase_create("format_check");
    tcase_add_test(tc, format_check_accepts_every_supported_conversion);
    tcase_add_test(tc, format_check_refuses_empty);
    tcase_add_test(tc, format_check_refuses_slash);
    tcase_add_test(tc, format_check_refuses_unsupported_conversions);
    tcase_add_test(tc, format_check_refuses_control_characters);
    tcase_add_test(tc, format_check_refuses_dot_and_dotdot_names);
    tcase_add_test(tc, format_check_refuses_names_longer_than_bucket_name_max);
    tcase_add_test(tc, format_check_refuses_digits_or_conversions_after_epoch_seconds);
    suite_add_tcase(s, tc);

    tc = tcase_create("match_prefix");
    tcase_add_test(tc, match_prefix_of_hourly_name);
    tcase_add_test(tc, match_prefix_requires_exact_digit_counts);
    tcase_add_test(tc, match_prefix_requires_literals);
    tcase_add_test(tc, match_prefix_of_percent_literal);
    tcase_add_test(tc, match_prefix_of_space_padded_day);
    tcase_add_test(tc, match_prefix_of_epoch_seconds_takes_all_digits);
    tcase_add_test(tc, match_prefix_refuses_unsupported_conversion);
    tcase_add_test(tc, every_accepted_format_matches_its_own_names);
    tcase_add_test(tc, span_is_the_bucket_around_a_time);
    suite_add_tcase(s, tc);

    return s;
}
