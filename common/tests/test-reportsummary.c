/* Tests of reportsummary: the summary arclamp-report writes beside a
 * report, and its run count read back by arclamp-svg's index. */
#include <string.h>

#include "reportsummary.h"
#include "test-suites.h"

static const struct report_summary example = {
    "hourly", "2026-11-26_03.excimer.index", "index", 1234, 1, 2, 5, 6, 3, 4, 7, 1764126000,
    1764129599};

START_TEST(summary_is_one_line_of_json_and_its_runs_read_back)
{
    strbuf sb = STRBUF_INIT;
    report_summary_write(&sb, &example);
    ck_assert_str_eq(strbuf_cstr(&sb),
                     "{\"period\": \"hourly\", \"name\": \"2026-11-26_03.excimer.index\", "
                     "\"entrypoint\": \"index\", \"runs\": 1234, \"incomplete\": 1, "
                     "\"bad_lines\": 2, \"duplicates\": 5, \"logs\": 6, \"arcs\": 3, "
                     "\"arcs_left_out\": 4, \"inclusive_over_main\": 7, "
                     "\"first\": 1764126000, \"last\": 1764129599}\n");
    unsigned long long runs = 0;
    ck_assert_int_eq(report_summary_runs(sb.data, sb.len, &runs), 0);
    ck_assert_uint_eq(runs, 1234);
    strbuf_free(&sb);
}
END_TEST

START_TEST(anything_else_has_no_run_count)
{
    static const char *const bad[] = {
        "",
        "{\"runs\": 3, \"period\": \"hourly\"}",
        "{\"period\": \"hourly\", \"name\": \"x\", \"entrypoint\": \"i\", \"runs\": -3, }",
        "{\"period\": \"hourly\", \"name\": \"x\", \"entrypoint\": \"i\", \"runs\": 3.5, }",
        "{\"period\": \"hourly\", \"name\": \"x\", \"entrypoint\": \"i\", \"runs\": , }",
        "{\"period\": \"hourly\", \"name\": \"x\", \"entrypoint\": \"i\", \"runs\": 3",
        "{\"period\": \"hourly\", \"name\": \"x\", \"entrypoint\": \"i\", "
        "\"runs\": 99999999999999999999999, }",
        "<html>{\"period\": \"hourly\", \"runs\": 3, }",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        unsigned long long runs = 7;
        ck_assert_msg(report_summary_runs(bad[i], strlen(bad[i]), &runs) == -1, "%s", bad[i]);
        ck_assert_uint_eq(runs, 7);
    }
    /* a summary cut short before its count */
    strbuf sb = STRBUF_INIT;
    report_summary_write(&sb, &example);
    unsigned long long runs;
    const char *key = strstr(sb.data, "1234,");
    ck_assert_int_eq(report_summary_runs(sb.data, (size_t)(key + 4 - sb.data), &runs), -1);
    strbuf_free(&sb);
}
END_TEST

Suite *reportsummary_suite(void)
{
    Suite *s = suite_create("reportsummary");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, summary_is_one_line_of_json_and_its_runs_read_back);
    tcase_add_test(tc, anything_else_has_no_run_count);
    suite_add_tcase(s, tc);
    return s;
}
