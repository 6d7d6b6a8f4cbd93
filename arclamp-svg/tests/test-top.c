/* Tests of the read-only companions: top's figures (self, inclusive counted
 * once per stack under recursion) and choice of logs, and the metrics text. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flame.h"
#include "gen_config.h"
#include "logset.h"
#include "metrics.h"
#include "strbuf.h"
#include "test-suites.h"
#include "top.h"

static char err[1024];

static const struct top_row *row_named(const struct top_row *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (rows[i].len == strlen(name) && memcmp(rows[i].name, name, rows[i].len) == 0)
            return &rows[i];
    }
    ck_abort_msg("no row %s", name);
    return NULL;
}

START_TEST(self_and_inclusive_with_recursion_counted_once)
{
    const char *lines[] = {"a;b;c 3", "a;b 2", "a;d;a;e 1", "x 4", "a;b;c 1", NULL};
    struct flame *f = flame_of(lines);
    size_t n;
    struct top_row *rows = top_rows(f, &n);
    ck_assert_uint_eq(n, 6);
    const struct {
        const char *name;
        double self, inclusive;
    } want[] = {{"a", 0, 7}, {"b", 2, 6}, {"c", 4, 4}, {"d", 0, 1}, {"e", 1, 1}, {"x", 4, 4}};
    for (size_t i = 0; i < 6; i++) {
        const struct top_row *r = row_named(rows, n, want[i].name);
        ck_assert_msg(r->self == want[i].self && r->inclusive == want[i].inclusive,
                      "%s: self %g incl %g", want[i].name, r->self, r->inclusive);
    }
    /* By self: c and x tie at 4 (c first by name), then b, e, then a, d. */
    ck_assert_uint_eq(rows[0].name[0], 'c');
    ck_assert_uint_eq(rows[1].name[0], 'x');
    ck_assert_uint_eq(rows[2].name[0], 'b');
    top_sort(rows, n, 1);
    ck_assert_uint_eq(rows[0].name[0], 'a');
    ck_assert_uint_eq(rows[1].name[0], 'b');
    free(rows);
    flame_free(f);
}
END_TEST

START_TEST(deep_recursion_counts_once)
{
    strbuf line = STRBUF_INIT;
    for (int i = 0; i < 5000; i++)
        strbuf_appends(&line, i ? ";r" : "r");
    strbuf_appends(&line, ";leaf 2");
    const char *lines[] = {strbuf_cstr(&line), "r 1", NULL};
    struct flame *f = flame_of(lines);
    size_t n;
    struct top_row *rows = top_rows(f, &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_double_eq(row_named(rows, n, "r")->inclusive, 3);
    ck_assert_double_eq(row_named(rows, n, "r")->self, 1);
    ck_assert_double_eq(row_named(rows, n, "leaf")->self, 2);
    free(rows);
    flame_free(f);
    strbuf_free(&line);
}
END_TEST

START_TEST(empty_input_has_no_rows)
{
    const char *lines[] = {NULL};
    struct flame *f = flame_of(lines);
    size_t n;
    struct top_row *rows = top_rows(f, &n);
    ck_assert_uint_eq(n, 0);
    free(rows);
    flame_free(f);
}
END_TEST

static char *const formats[] = {(char *)"%Y-%m-%d_%H.excimer"};

/* A logset of names (newest first, as logset_scan sorts them). */
static struct logset set_of(const char *const *names, size_t n)
{
    struct logset set;
    memset(&set, 0, sizeof set);
    set.files = xcalloc(n, sizeof *set.files);
    set.n = n;
    for (size_t i = 0; i < n; i++) {
        set.files[i].period = xstrdup("hourly");
        set.files[i].name = xstrdup(names[i]);
        set.files[i].file = xstrdup(names[i]);
        logset_parse_name(&set.files[i]);
        logset_classify(&set.files[i], formats, 1);
    }
    return set;
}

static const char *const names[] = {
    "2026-11-22_05.excimer.all", "2026-11-22_05.excimer.index", "2026-11-22_04.excimer.all",
    "2026-11-21_23.excimer.all", "2026-11-21_22.excimer.all", "2026-11-21_22.excimer.rest.all",
};

START_TEST(select_last_n_prefix_and_entrypoint)
{
    struct logset set = set_of(names, 6);
    struct top_options opt = {"hourly", "all", NULL, NULL, 20, 0};
    size_t *v;
    ck_assert_int_eq(top_select(&set, &opt, &v), 1); /* default last-1 */
    ck_assert_uint_eq(v[0], 0);
    free(v);
    opt.slice = "LAST-3";
    ck_assert_int_eq(top_select(&set, &opt, &v), 3);
    ck_assert_uint_eq(v[0], 3); /* oldest first */
    ck_assert_uint_eq(v[2], 0);
    free(v);
    opt.slice = "2026-11-21";
    ck_assert_int_eq(top_select(&set, &opt, &v), 2); /* not rest.all: a tag, not an all log */
    free(v);
    opt.entrypoint = "index";
    opt.slice = "2026-11";
    ck_assert_int_eq(top_select(&set, &opt, &v), 1);
    ck_assert_uint_eq(v[0], 1);
    free(v);
    opt.entrypoint = "rest.all";  /* a tag the rule refuses: never chosen */
    ck_assert_int_eq(top_select(&set, &opt, &v), 0);
    free(v);
    opt.period = "daily";
    ck_assert_int_eq(top_select(&set, &opt, &v), 0);
    free(v);
    opt.slice = "last-0";
    ck_assert_int_eq(top_select(&set, &opt, &v), -1);
    opt.slice = "last-x";
    ck_assert_int_eq(top_select(&set, &opt, &v), -1);
    logset_free(&set);
}
END_TEST

/* --- metrics ------------------------------------------------------------ */

static char *label_of(const char *s)
{
    strbuf sb = STRBUF_INIT;
    prom_label_value(&sb, s);
    return (char *)strbuf_cstr(&sb);
}

START_TEST(label_values_are_escaped)
{
    char *v = label_of("a\"b\\c\nd\xff\xc3\xa9");
    ck_assert_str_eq(v, "a\\\"b\\\\c\\nd\xef\xbf\xbd\xc3\xa9");
    free(v);
}
END_TEST

static void put(const char *root, const char *rel, const char *text, time_t mtime)
{
    char *p = path_join(root, rel);
    file_write(p, text, strlen(text));
    file_set_mtime(p, mtime);
    free(p);
}

START_TEST(metrics_per_period_and_entry_point)
{
    char *root = tmpdir_make();
    char *p = path_join(root, "logs");
    mkdir(p, 0755);
    free(p);
    p = path_join(root, "logs/hourly");
    mkdir(p, 0755);
    free(p);
    put(root, "logs/hourly/2026-11-22_05.index.log", "a 1\n", 1);
    put(root, "logs/hourly/2026-11-22_03.index.log.gz", "123456", 1);
    put(root, "logs/hourly/2026-11-22_04.all.log", "ab 1\n", 1);
    put(root, "logs/hourly/odd\"name.index.log", "x", 1700000000);
    struct gen_config cfg;
    ck_assert_int_eq(gen_config_load_string("t", NULL, root, &cfg, err, sizeof err), 0);
    strbuf out = STRBUF_INIT;
    ck_assert_int_eq(metrics_render(&cfg, &out, err, sizeof err), 0);
    const char *text = strbuf_cstr(&out);
    const char *want[] = {
        "# TYPE arclamp_trace_log_files gauge\n",
        "arclamp_trace_log_files{period=\"hourly\",entrypoint=\"index\"} 3\n",
        "arclamp_trace_log_files{period=\"hourly\",entrypoint=\"all\"} 1\n",
        "arclamp_trace_log_bytes{period=\"hourly\",entrypoint=\"index\"} 11\n",
        /* the name without a date counts by its mtime */
        "arclamp_trace_log_oldest_timestamp_seconds{period=\"hourly\",entrypoint=\"index\"} "
        "1700000000\n",
        "arclamp_trace_log_newest_timestamp_seconds{period=\"hourly\",entrypoint=\"index\"} "
        "1795323600\n",
        "arclamp_flame_graph_files{period=\"hourly\"} 0\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(text, want[i]) != NULL, "missing %s in\n%s", want[i], text);
    ck_assert_ptr_null(strstr(text, "arclamp_svg_index_timestamp_seconds"));
    strbuf_free(&out);
    gen_config_free(&cfg);
    tmpdir_remove(root);
}
END_TEST

Suite *top_suite(void)
{
    Suite *s = suite_create("top");
    TCase *tc = tcase_create("top");
    tcase_add_test(tc, self_and_inclusive_with_recursion_counted_once);
    tcase_add_test(tc, deep_recursion_counts_once);
    tcase_add_test(tc, empty_input_has_no_rows);
    tcase_add_test(tc, select_last_n_prefix_and_entrypoint);
    suite_add_tcase(s, tc);
    tc = tcase_create("metrics");
    tcase_add_test(tc, label_values_are_escaped);
    tcase_add_test(tc, metrics_per_period_and_entry_point);
    suite_add_tcase(s, tc);
    return s;
}
