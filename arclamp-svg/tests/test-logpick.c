/* Unit tests of logpick's pure parts: the RANGE text of `diff --before` and
 * `--after` ("T" an hour or a day, "T..T" from included to excluded), and
 * how the entry points are named in messages. */
#include <string.h>

#include "logpick.h"
#include "strbuf.h"
#include "test-suites.h"

/* 2026-12-01T00:00:00Z */
#define DEC1 INT64_C(1796083200)

START_TEST(a_lone_hour_or_day_is_that_hour_or_day)
{
    struct logpick_range r;
    ck_assert_int_eq(logpick_parse_range("2026-12-01", &r), 0);
    ck_assert_int_eq(r.from, DEC1);
    ck_assert_int_eq(r.to, DEC1 + 86400);
    ck_assert_str_eq(r.from_text, "2026-12-01");
    ck_assert_str_eq(r.to_text, "2026-12-02");
    ck_assert_int_eq(logpick_parse_range("2026-12-01T05", &r), 0);
    ck_assert_int_eq(r.from, DEC1 + 5 * 3600);
    ck_assert_int_eq(r.to, DEC1 + 6 * 3600);
    ck_assert_str_eq(r.to_text, "2026-12-01T06");
    /* the last hour of a year ends in the next one */
    ck_assert_int_eq(logpick_parse_range("2026-12-31_23", &r), 0);
    ck_assert_str_eq(r.from_text, "2026-12-31_23");
    ck_assert_str_eq(r.to_text, "2027-01-01T00");
    ck_assert_int_eq(r.to - r.from, 3600);
}
END_TEST

START_TEST(from_to_is_from_included_to_excluded)
{
    struct logpick_range r;
    ck_assert_int_eq(logpick_parse_range("2026-11-30T22..2026-12-01T03", &r), 0);
    ck_assert_int_eq(r.from, DEC1 - 2 * 3600);
    ck_assert_int_eq(r.to, DEC1 + 3 * 3600);
    ck_assert_str_eq(r.from_text, "2026-11-30T22");
    ck_assert_str_eq(r.to_text, "2026-12-01T03");
    ck_assert_int_eq(logpick_parse_range("2026-11-30..2026-12-01", &r), 0);
    ck_assert_int_eq(r.to - r.from, 86400);
    ck_assert_int_eq(logpick_parse_range("2026-12-01..2026-12-01T01", &r), 0);
    ck_assert_int_eq(r.to - r.from, 3600);
}
END_TEST

START_TEST(anything_else_is_refused)
{
    static const char *const bad[] = {
        "", "..", "2026-12-01..", "..2026-12-01", "2026-12-01..2026-12-01",
        "2026-12-01T05..2026-12-01T04", "2026-12-02..2026-12-01", "2026-12-01T24",
        "2026-02-30", "2026-12-01T5", "2026-12-01T05:00", "yesterday", "2026-12-01...2026-12-02",
        "2026-12-01..2026-12-02..2026-12-03", "2026-12-01 ..2026-12-02",
        "2026-12-01T05..2026-12-01T06x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct logpick_range r;
        ck_assert_msg(logpick_parse_range(bad[i], &r) == -1, "accepted \"%s\"", bad[i]);
    }
}
END_TEST

START_TEST(entry_points_are_named_as_messages_name_them)
{
    char *eps[] = {"index", "api"};
    strbuf sb = STRBUF_INIT;
    logpick_entrypoints_text(eps, 2, &sb);
    ck_assert_str_eq(strbuf_cstr(&sb), "index, api");
    strbuf_reset(&sb);
    logpick_entrypoints_text(NULL, 0, &sb);
    ck_assert_str_eq(strbuf_cstr(&sb), "all");
    strbuf_free(&sb);
}
END_TEST

Suite *logpick_suite(void)
{
    Suite *s = suite_create("logpick");
    TCase *tc = tcase_create("range");
    tcase_add_test(tc, a_lone_hour_or_day_is_that_hour_or_day);
    tcase_add_test(tc, from_to_is_from_included_to_excluded);
    tcase_add_test(tc, anything_else_is_refused);
    tcase_add_test(tc, entry_points_are_named_as_messages_name_them);
    suite_add_tcase(s, tc);
    return s;
}
