/* Tests of stats: the Prometheus text file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../src/stats.h"
#include "test-suites.h"

static void load_config(struct config *cfg, const char *yaml)
{
    char err[512];
    ck_assert_msg(config_load_string("t.yaml", yaml, cfg, err, sizeof err) == 0, "%s", err);
}

START_TEST(messages_total_sums_all_inputs)
{
    struct stats st;
    memset(&st, 0, sizeof st);
    st.messages_received[INPUT_REDIS] = 5;
    st.messages_received[INPUT_SOCKET] = 7;
    ck_assert_uint_eq(stats_messages_total(&st), 12);
}
END_TEST

START_TEST(prometheus_file_has_every_counter)
{
    struct config cfg;
    load_config(&cfg, "logs:\n"
                      "  - {period: hourly, format: '%Y', retain: 1}\n"
                      "  - {period: daily, format: '%Y', retain: 1}\n");
    struct stats st;
    memset(&st, 0, sizeof st);
    st.messages_received[INPUT_REDIS] = 3;
    st.messages_received[INPUT_SOCKET] = 4;
    st.lines_received = 100;
    st.lines_invalid[STACKLINE_BAD_COUNT] = 2;
    st.lines_invalid[STACKLINE_EMPTY] = 1;
    st.lines_written[0] = 90;
    st.lines_written[1] = 45;
    st.lines_dropped_write_error = 6;
    st.bytes_written = 123456789012ULL;
    st.write_errors = 8;
    st.files_pruned = 9;
    st.torn_lines_repaired = 10;
    st.datagrams_dropped = 11;
    st.redis_reconnects = 12;
    st.redis_connected = 1;
    st.open_files = 13;
    st.run_lines_invalid[RUNLINE_BAD_RUNID] = 14;
    st.run_lines_invalid[RUN_LINE_TOO_LONG] = 15;
    st.runs_received = 16;
    st.runs_written[0] = 17;
    st.runs_written[1] = 18;
    st.runs_dropped[RUN_DROP_DUPLICATE] = 19;
    st.runs_dropped[RUN_DROP_TIMEOUT] = 20;
    st.runs_refused[REFUSED_TAG_LIMIT] = 21;
    st.runs_pending = 22;

    char *dir = tmpdir_make();
    char *path = path_join(dir, "arclamp-log.prom");
    ck_assert_int_eq(stats_write_prometheus(&st, &cfg, path), 0);
    char *text = file_read(path, NULL);
    ck_assert_ptr_nonnull(text);
    static const char *const want[] = {
        "# TYPE arclamp_log_messages_received_total counter\n",
        "\narclamp_log_messages_received_total{input=\"redis\"} 3\n",
        "\narclamp_log_messages_received_total{input=\"socket\"} 4\n",
        "\narclamp_log_lines_received_total 100\n",
        "\narclamp_log_lines_invalid_total{reason=\"empty\"} 1\n",
        "\narclamp_log_lines_invalid_total{reason=\"bad_count\"} 2\n",
        "\narclamp_log_lines_invalid_total{reason=\"too_long\"} 0\n",
        "\narclamp_log_lines_invalid_total{reason=\"empty_frame\"} 0\n",
        "\narclamp_log_lines_written_total{group=\"hourly\"} 90\n",
        "\narclamp_log_lines_written_total{group=\"daily\"} 45\n",
        "\narclamp_log_lines_dropped_total{reason=\"write_error\"} 6\n",
        "\narclamp_log_bytes_written_total 123456789012\n",
        "\narclamp_log_write_errors_total 8\n",
        "\narclamp_log_files_pruned_total 9\n",
        "\narclamp_log_torn_lines_repaired_total 10\n",
        "\narclamp_log_datagrams_dropped_total 11\n",
        "\narclamp_log_redis_reconnects_total 12\n",
        "# TYPE arclamp_log_redis_connected gauge\narclamp_log_redis_connected 1\n",
        "# TYPE arclamp_log_open_files gauge\narclamp_log_open_files 13\n",
        "\narclamp_log_run_lines_invalid_total{reason=\"bad_runid\"} 14\n",
        "\narclamp_log_run_lines_invalid_total{reason=\"bad_record\"} 0\n",
        "\narclamp_log_run_lines_invalid_total{reason=\"bad_number\"} 0\n",
        "\narclamp_log_run_lines_invalid_total{reason=\"bad_text\"} 0\n",
        "\narclamp_log_run_lines_invalid_total{reason=\"too_long\"} 15\n",
        "# TYPE arclamp_log_runs_received_total counter\narclamp_log_runs_received_total 16\n",
        "\narclamp_log_runs_written_total{group=\"hourly\"} 17\n",
        "\narclamp_log_runs_written_total{group=\"daily\"} 18\n",
        "\narclamp_log_runs_dropped_total{reason=\"duplicate\"} 19\n",
        "\narclamp_log_runs_dropped_total{reason=\"no_begin\"} 0\n",
        "\narclamp_log_runs_dropped_total{reason=\"arcs_missing\"} 0\n",
        "\narclamp_log_runs_dropped_total{reason=\"too_big\"} 0\n",
        "\narclamp_log_runs_dropped_total{reason=\"pending_limit\"} 0\n",
        "\narclamp_log_runs_dropped_total{reason=\"timeout\"} 20\n",
        "\narclamp_log_runs_dropped_total{reason=\"write_error\"} 0\n",
        "\narclamp_log_runs_dropped_total{reason=\"stopped\"} 0\n",
        "\narclamp_log_runs_refused_total{reason=\"tag_limit\"} 21\n",
        "\narclamp_log_runs_refused_total{reason=\"disk_floor\"} 0\n",
        "# TYPE arclamp_log_runs_pending gauge\narclamp_log_runs_pending 22\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(text, want[i]) != NULL, "missing: %s", want[i]);
    ck_assert_ptr_null(strstr(text, "reason=\"ok\""));
    ck_assert_int_eq(dir_count_entries(dir), 1); /* no temporary file left */
    free(text);
    free(path);
    tmpdir_remove(dir);
    config_free(&cfg);
}
END_TEST

START_TEST(prometheus_label_values_are_escaped)
{
    struct config cfg;
    load_config(&cfg, "logs:\n  - {period: 'a\"b\\c', format: '%Y', retain: 1}\n");
    struct stats st;
    memset(&st, 0, sizeof st);
    char *dir = tmpdir_make();
    char *path = path_join(dir, "m.prom");
    ck_assert_int_eq(stats_write_prometheus(&st, &cfg, path), 0);
    char *text = file_read(path, NULL);
    ck_assert_ptr_nonnull(strstr(text, "{group=\"a\\\"b\\\\c\"} 0\n"));
    free(text);
    free(path);
    tmpdir_remove(dir);
    config_free(&cfg);
}
END_TEST

START_TEST(prometheus_write_into_missing_directory_fails)
{
    struct config cfg;
    load_config(&cfg, "logs:\n  - {period: h, format: '%Y', retain: 1}\n");
    struct stats st;
    memset(&st, 0, sizeof st);
    char *dir = tmpdir_make();
    char *path = path_join(dir, "missing/m.prom");
    errno = 0;
    ck_assert_int_eq(stats_write_prometheus(&st, &cfg, path), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(dir_count_entries(dir), 0);
    free(path);
    tmpdir_remove(dir);
    config_free(&cfg);
}
END_TEST

static const char *letter(int i)
{
    static const char *const names[] = {"a", "b", "c", "d"};
    return names[i];
}

START_TEST(format_counts_lists_the_non_zero_ones)
{
    uint64_t counts[4] = {7, 0, 2, 30};
    char out[64];
    ck_assert_uint_eq(stats_format_counts(out, sizeof out, counts, 1, 4, letter), 32);
    ck_assert_str_eq(out, "c=2 d=30");
    ck_assert_uint_eq(stats_format_counts(out, sizeof out, counts, 0, 4, letter), 39);
    ck_assert_str_eq(out, "a=7 c=2 d=30");
    ck_assert_uint_eq(stats_format_counts(out, 6, counts, 0, 4, letter), 39); /* truncated */
    ck_assert_str_eq(out, "a=7");
    uint64_t none[2] = {0, 0};
    ck_assert_uint_eq(stats_format_counts(out, sizeof out, none, 0, 2, letter), 0);
    ck_assert_str_eq(out, "");
}
END_TEST

Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("prometheus");
    tcase_add_test(tc, messages_total_sums_all_inputs);
    tcase_add_test(tc, prometheus_file_has_every_counter);
    tcase_add_test(tc, prometheus_label_values_are_escaped);
    tcase_add_test(tc, prometheus_write_into_missing_directory_fails);
    tcase_add_test(tc, format_counts_lists_the_non_zero_ones);
    suite_add_tcase(s, tc);
    return s;
}
