/* Tests of the request-tier pages' parts: tierrank.c (a .tiers file read
 * through common/src/tiertable.c, its bad lines counted and the rest kept,
 * ranking identities and tiers, the caps and what they leave out, the
 * figures the JSON view states, trends from other buckets), tierpage.c
 * (durations, escaping of hostile names, sparklines with gaps, the change
 * against the previous bucket, the index) and jobfs.c's bucket names. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobfs.h"
#include "strbuf.h"
#include "test-suites.h"
#include "testutil.h"
#include "tierline.h"
#include "tierpage.h"
#include "tierrank.h"
#include "tiertable.h"

#define HOUR0 1764126000 /* 2025-11-26 03:00 UTC */
#define HOURLY "%Y-%m-%d_%H"

/* The bucket 03:00-04:00 with 60 minutes of data, as a file read gives it. */
static const struct tier_file INFO = {HOUR0, HOUR0 + 3600, 60, 0, {0, 0, 0}};

/* Adds `calls` calls of `each_us` each to a (decoded) identity's tier. */
static void add_calls(struct tiertable *t, const char *identity, const char *tier,
                      uint64_t calls, double each_us)
{
    struct tierhist h = TIERHIST_INIT;
    struct tier_drops drops = {0};
    uint64_t ns = (uint64_t)(each_us * 1e3);
    char esc[3 * 1024 + 1];
    size_t len = tierline_escape(identity, strlen(identity), esc);
    tierhist_add_bucket(&h, tierhist_index(ns), calls);
    tiertable_add(t, esc, len, tier, strlen(tier), calls, ns * calls, &h, &drops);
    tierhist_reset(&h);
}

/* The status of the sample's bucket. */
static void add_status(struct tiertable *t)
{
    struct tier_status st = {1000, 100, 2, 1, 0, 7};
    tiertable_add_status(t, &st);
}

/* view: _total 1000 us, db 600, parse 300; edit: _total 5000, db 100;
 * cron: db only (no _total). */
static void sample(struct tiertable *t, double scale)
{
    tiertable_init(t, 100);
    add_calls(t, "view", "parse", 3, 100 * scale);
    add_calls(t, "view", "_total", 10, 100 * scale);
    add_calls(t, "view", "db", 6, 100 * scale);
    add_calls(t, "edit", "db", 1, 100);
    add_calls(t, "edit", "_total", 2, 2500);
    add_calls(t, "cron", "db", 1, 50);
    add_status(t);
}

static void rank(struct tier_table *t, size_t ids, size_t tiers)
{
    struct tiertable table;
    sample(&table, 1);
    tier_table_rank(t, &table, &INFO, ids, tiers);
    tiertable_reset(&table);
}

/* A percentile as the histogram of calls of `us` each gives it back. */
static double hist_us(double us)
{
    return (double)tierhist_value(tierhist_index((uint64_t)(us * 1e3))) / 1e3;
}

START_TEST(table_ranks_identities_by_total_and_total_tier_first)
{
    struct tier_table t;
    rank(&t, 10, 10);
    ck_assert_uint_eq(t.requests, 1000);
    ck_assert_uint_eq(t.traced, 100);
    ck_assert_uint_eq(t.trips, 2);
    ck_assert_uint_eq(t.skipped, 7);
    ck_assert_int_eq(t.start, HOUR0);
    ck_assert_uint_eq(t.minutes, 60);
    ck_assert_uint_eq(t.nids, 3);
    ck_assert_str_eq(t.ids[0].name, "edit");
    ck_assert_str_eq(t.ids[1].name, "view");
    ck_assert_str_eq(t.ids[2].name, "cron");
    ck_assert_double_eq(t.all_us, 6000);
    const struct tier_ranked_identity *view = &t.ids[1];
    ck_assert_uint_eq(view->nrows, 3);
    ck_assert_str_eq(view->rows[0].name, "_total");
    ck_assert_str_eq(view->rows[1].name, "db");
    ck_assert_str_eq(view->rows[2].name, "parse");
    ck_assert_double_eq(view->rows[1].calls, 6);
    ck_assert_double_eq(view->rows[1].total_us, 600);
    ck_assert_double_eq_tol(view->rows[1].share, 0.6, 1e-12);
    ck_assert_double_eq(view->rows[0].share, 1);
    ck_assert_double_eq(view->rows[2].mean_us, 100);
    ck_assert_double_eq(view->rows[2].p99_us, hist_us(100));
    /* the current bucket is the trend's last point, the others unknown */
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND].mean_us, 100);
    ck_assert(isnan(view->rows[1].trend[0].mean_us));
    /* no _total: no share */
    ck_assert(isnan(t.ids[2].rows[0].share));
    tier_table_free(&t);
}
END_TEST

START_TEST(caps_keep_the_heaviest_and_count_the_rest)
{
    struct tier_table t;
    rank(&t, 1, 2);
    ck_assert_uint_eq(t.nids, 1);
    ck_assert_str_eq(t.ids[0].name, "edit");
    ck_assert_uint_eq(t.ids_left_out, 2);
    ck_assert_double_eq(t.left_out_us, 1000); /* view's _total; cron has none */
    tier_table_free(&t);
    rank(&t, 2, 2);
    ck_assert_uint_eq(t.ids[1].nrows, 2);
    ck_assert_str_eq(t.ids[1].rows[1].name, "db");
    ck_assert_uint_eq(t.ids[1].rows_left_out, 1);
    tier_table_free(&t);
}
END_TEST

/* The page's numbers are the JSON view's (what the report read before it
 * read the table itself), to the last digit: read back from the view. */
static double json_field(const char *json, const char *identity, const char *tier,
                         const char *field)
{
    char key[256];
    snprintf(key, sizeof key, "\"%s\":{", identity);
    const char *p = strstr(json, key);
    snprintf(key, sizeof key, "\"%s\":{", tier);
    p = p ? strstr(p, key) : NULL;
    snprintf(key, sizeof key, "\"%s\":", field);
    p = p ? strstr(p, key) : NULL;
    ck_assert_ptr_nonnull(p);
    return strtod(p + strlen(key), NULL);
}

START_TEST(figures_are_those_of_the_json_view)
{
    struct tiertable table;
    tiertable_init(&table, 10);
    add_calls(&table, "odd", "_total", 3, 0.333);     /* a mean in thirds of a ns */
    add_calls(&table, "odd", "_total", 4, 1234.5678);
    add_calls(&table, "odd", "db", 7, 97.1);
    struct tier_header h = {"hourly", "b", HOUR0, HOUR0 + 3600, 60};
    strbuf json = STRBUF_INIT;
    tiertable_format_json(&table, &h, &json);
    struct tier_table t;
    tier_table_rank(&t, &table, &INFO, 10, 10);
    static const char *const fields[] = {"calls", "total_us", "mean_us", "p50_us", "p90_us",
                                         "p99_us"};
    for (size_t r = 0; r < 2; r++) {
        const struct tier_row *row = &t.ids[0].rows[r];
        const double v[] = {row->calls, row->total_us, row->mean_us,
                            row->p50_us, row->p90_us, row->p99_us};
        for (size_t f = 0; f < 6; f++)
            ck_assert_msg(v[f] == json_field(strbuf_cstr(&json), "odd", row->name, fields[f]),
                          "%s %s: %.17g", row->name, fields[f], v[f]);
    }
    tier_table_free(&t);
    tiertable_reset(&table);
    strbuf_free(&json);
}
END_TEST

/* A .tiers file as arclamp-log appends it: two minutes of lines (the
 * common writer), a malformed line between them and a torn last line. */
static char *write_tiers_file(char *dir, int bad)
{
    struct tiertable a, b;
    strbuf text = STRBUF_INIT;
    sample(&a, 1);
    tiertable_format_lines(&a, HOUR0 + 60, HOUR0 + 120, &text);
    if (bad)
        strbuf_appends(&text, "tiers/1 agg 1 2 * 0 view db 1 x 1:1\nnot a tier line\n");
    tiertable_init(&b, 10);
    add_calls(&b, "view", "_total", 10, 100);
    add_calls(&b, "new<b>", "_total", 1, 5);
    tiertable_format_lines(&b, HOUR0 + 600, HOUR0 + 660, &text);
    tiertable_format_lines(&b, HOUR0 + 600, HOUR0 + 660, &text); /* the same minute again */
    if (bad)
        strbuf_appends(&text, "tiers/1 agg 1764126000 1764126060 * 0 view db 1 5 1");
    char *path = path_join(dir, "2025-11-26_03.tiers");
    file_write(path, text.data, text.len);
    tiertable_reset(&a);
    tiertable_reset(&b);
    strbuf_free(&text);
    return path;
}

START_TEST(file_is_read_through_the_common_table_bad_lines_counted)
{
    char *dir = tmpdir_make(), *path = write_tiers_file(dir, 1), err[512] = "";
    struct tiertable table;
    struct tier_file info;
    tiertable_init(&table, 100);
    ck_assert_msg(tier_file_read(path, HOURLY, &table, &info, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(info.bad_lines, 3); /* two malformed, one torn */
    ck_assert_int_eq(info.start, HOUR0);
    ck_assert_int_eq(info.end, HOUR0 + 3600);
    ck_assert_uint_eq(info.minutes, 2);  /* a minute written twice is one minute */
    struct tier_table t;
    tier_table_rank(&t, &table, &info, 10, 10);
    ck_assert_uint_eq(t.bad_lines, 3);
    ck_assert_uint_eq(t.nids, 4);
    ck_assert_str_eq(t.ids[1].name, "view");
    ck_assert_double_eq(t.ids[1].rows[0].calls, 30); /* 10 + 10 + 10 */
    ck_assert_str_eq(t.ids[2].name, "new<b>");       /* decoded: the page escapes it */
    ck_assert_uint_eq(t.requests, 1000);
    strbuf out = STRBUF_INIT;
    struct tier_page p = {"hourly", "2025-11-26_03", NULL, {NULL}, {0}};
    tier_page_render(&out, &t, &p);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "3 lines of this bucket's table could "
                                                    "not be read"));
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "new&lt;b&gt;"));
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "(2 minutes of data)"));
    strbuf_free(&out);
    tier_table_free(&t);
    tiertable_reset(&table);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(file_that_cannot_be_read_is_refused_with_its_path)
{
    char *dir = tmpdir_make(), *path = write_tiers_file(dir, 0), err[512] = "";
    char *link = path_join(dir, "link.tiers"), *missing = path_join(dir, "none.tiers");
    ck_assert_int_eq(symlink(path, link), 0);
    struct tiertable table;
    struct tier_file info;
    tiertable_init(&table, 100);
    ck_assert_int_eq(tier_file_read(path, HOURLY, &table, &info, err, sizeof err), 0);
    ck_assert_uint_eq(info.bad_lines, 0);
    tiertable_reset(&table);
    ck_assert_int_eq(tier_file_read(link, HOURLY, &table, &info, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "link.tiers: "));
    ck_assert_int_eq(tier_file_read(dir, HOURLY, &table, &info, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
    ck_assert_int_eq(tier_file_read(missing, HOURLY, &table, &info, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "none.tiers: No such file"));
    tiertable_reset(&table);
    free(link);
    free(missing);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

/* Memory stays within the table's limits whatever the file holds: the
 * identities past them are added up as _other, and the page says so. */
START_TEST(identities_past_the_table_limit_are_other_and_said)
{
    char *dir = tmpdir_make(), *path = write_tiers_file(dir, 0), err[512] = "";
    struct tiertable table;
    struct tier_file info;
    tiertable_init(&table, 2);
    ck_assert_int_eq(tier_file_read(path, HOURLY, &table, &info, err, sizeof err), 0);
    ck_assert_uint_eq(table.nids, 3); /* view, edit, _other */
    ck_assert_ptr_nonnull(tiertable_find(&table, TIERTABLE_OTHER, strlen(TIERTABLE_OTHER)));
    ck_assert_uint_gt(info.drops.overflow, 0);
    struct tier_table t;
    tier_table_rank(&t, &table, &info, 10, 10);
    strbuf out = STRBUF_INIT;
    struct tier_page p = {"hourly", "2025-11-26_03", NULL, {NULL}, {0}};
    tier_page_render(&out, &t, &p);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "added up as _other"));
    strbuf_free(&out);
    tier_table_free(&t);
    tiertable_reset(&table);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

/* A table's trend points, as tiers.c keeps them for the pages after it. */
static void points_of(struct tier_points *p, struct tiertable *table)
{
    tier_points_of(p, table);
    tiertable_reset(table);
}

START_TEST(trend_takes_each_row_from_another_bucket)
{
    struct tiertable now, table;
    struct tier_points before, other;
    struct tier_table t;
    sample(&now, 2);
    tier_table_rank(&t, &now, &INFO, 10, 10);
    tiertable_reset(&now);
    /* the bucket before: view's times halved */
    sample(&table, 1);
    points_of(&before, &table);
    ck_assert_int_eq(tier_table_trend(&t, TIERS_TREND - 1, &before), 0);
    const struct tier_ranked_identity *view = &t.ids[1];
    ck_assert_str_eq(view->name, "view");
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND - 1].mean_us, 100);
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND].mean_us, 200);
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND - 1].p90_us, hist_us(100));
    ck_assert_double_eq_tol(view->rows[1].trend[TIERS_TREND - 1].share, 0.6, 1e-12);
    /* an identity missing there: no point; a tier missing: none either */
    tiertable_init(&table, 10);
    add_calls(&table, "edit", "db", 1, 1);
    points_of(&other, &table);
    ck_assert_int_eq(tier_table_trend(&t, 3, &other), 0);
    ck_assert(isnan(view->rows[1].trend[3].mean_us));
    ck_assert(isnan(t.ids[0].rows[0].trend[3].mean_us));
    ck_assert_double_eq(t.ids[0].rows[1].trend[3].mean_us, 1);
    ck_assert(isnan(t.ids[0].rows[1].trend[3].share)); /* no _total there */
    ck_assert_int_eq(tier_table_trend(&t, TIERS_TREND, &before), -1);
    /* an identity whose escaped name has a space (%20) is its own key */
    tiertable_init(&table, 10);
    add_calls(&table, "view db", "_total", 1, 7);
    add_calls(&table, "view", "_total", 1, 9);
    tier_points_free(&other);
    points_of(&other, &table);
    ck_assert_int_eq(tier_table_trend(&t, 2, &other), 0);
    ck_assert_double_eq(view->rows[0].trend[2].mean_us, 9);
    tier_table_free(&t);
    tier_points_free(&before);
    tier_points_free(&other);
}
END_TEST

START_TEST(durations_read_as_people_read_them)
{
    static const struct {
        double us;
        const char *text;
    } cases[] = {{0, "0 \xc2\xb5s"},         {2.5, "2.5 \xc2\xb5s"}, {850, "850 \xc2\xb5s"},
                 {1234, "1.23 ms"},          {12345, "12.3 ms"},     {4560000, "4.56 s"},
                 {90e6, "1.50 min"},         {9000e6, "2.50 h"},     {NAN, "\xe2\x80\x93"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf b = STRBUF_INIT;
        tier_format_us(&b, cases[i].us);
        ck_assert_str_eq(strbuf_cstr(&b), cases[i].text);
        strbuf_free(&b);
    }
}
END_TEST

/* A table of one identity `name` (_total: 4 calls of 100 us; "db": 2 of
 * 50 us), with `trend` points of mean (NaN: none) before this bucket's. */
static void one_row_table(struct tier_table *t, const char *name, const double *trend)
{
    struct tiertable table;
    tiertable_init(&table, 10);
    add_calls(&table, name, "_total", 4, 100);
    add_calls(&table, name, "db", 2, 50);
    add_status(&table);
    tier_table_rank(t, &table, &INFO, 10, 10);
    tiertable_reset(&table);
    for (unsigned s = 0; trend && s < TIERS_TREND; s++)
        t->ids[0].rows[0].trend[s].mean_us = trend[s];
}

static void page_for(strbuf *out, const struct tier_table *t, unsigned trend_buckets,
                     int previous_unreadable)
{
    static const char *const names[] = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"};
    struct tier_page p = {"hourly", "h8", NULL, {NULL}, {0}};
    for (unsigned s = TIERS_TREND - trend_buckets; s < TIERS_SLOTS; s++)
        p.slot_bucket[s] = names[s];
    p.slot_unreadable[TIERS_TREND - 1] = previous_unreadable;
    if (trend_buckets)
        p.previous = names[TIERS_TREND - 1];
    tier_page_render(out, t, &p);
}

START_TEST(hostile_names_are_escaped_everywhere)
{
    /* %XX-escaped in the table (spaces); what it decodes to must not be markup */
    const char *evil = "<script>alert(1)</script>\"'&<img src=x onerror=alert(2)>";
    struct tier_table t;
    one_row_table(&t, evil, NULL);
    strbuf out = STRBUF_INIT;
    page_for(&out, &t, 2, 0);
    const char *html = strbuf_cstr(&out);
    ck_assert_ptr_null(strstr(html, "<script"));
    ck_assert_ptr_null(strstr(html, "<img"));
    ck_assert_ptr_nonnull(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&apos;&amp;"));
    ck_assert_ptr_nonnull(strstr(html, "<h2 id=\"i1\">&lt;script&gt;"));
    strbuf_free(&out);
    tier_table_free(&t);
}
END_TEST

START_TEST(long_names_are_cut_on_a_character)
{
    char name[1200];
    size_t n = 0;
    for (; n + 2 <= TIERLINE_IDENTITY_MAX; n += 2)
        memcpy(name + n, "\xc3\xa9", 2); /* é: a cut in its middle would be U+FFFD */
    name[n] = '\0';
    struct tier_table t;
    one_row_table(&t, name, NULL);
    strbuf out = STRBUF_INIT;
    page_for(&out, &t, 0, 0);
    const char *html = strbuf_cstr(&out);
    ck_assert_ptr_nonnull(strstr(html, "\xe2\x80\xa6 (254 bytes)"));
    ck_assert_ptr_null(strstr(html, "\xef\xbf\xbd"));
    ck_assert_ptr_null(strstr(html, name)); /* never in full */
    strbuf_free(&out);
    tier_table_free(&t);
}
END_TEST

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

START_TEST(sparkline_breaks_at_gaps_and_marks_changes)
{
    /* h0..h7 before this bucket (100 us): a gap at h3, h7 = 50 us */
    const double trend[TIERS_TREND] = {10, 20, 30, NAN, 40, 45, 48, 50};
    struct tier_table t;
    one_row_table(&t, "view", trend);
    strbuf out = STRBUF_INIT;
    page_for(&out, &t, TIERS_TREND, 0);
    const char *html = strbuf_cstr(&out);
    /* _total's mean: two pieces (h0-h2, h4-h8); this bucket is the highest */
    ck_assert_ptr_nonnull(strstr(html, "<polyline points=\"3,18.2 13,16.4 23,14.6\"/>"
                                       "<polyline points=\"43,12.8 53,11.9 63,11.4 73,11.0 "
                                       "83,2.0\"/><circle cx=\"83\" cy=\"2.0\" r=\"2\"/>"));
    ck_assert_ptr_nonnull(strstr(html, "h3: \xe2\x80\x93 (p90"));  /* the tooltip's gap */
    ck_assert_ptr_nonnull(strstr(html, "<span class=\"worse\">mean +100%</span>"));
    ck_assert_ptr_nonnull(strstr(html, "href=\"h7.html\">previous bucket (h7)"));
    ck_assert_uint_eq(count(html, "<svg class=\"spark\""), 4); /* summary, _total, tier x2 */
    strbuf_free(&out);
    tier_table_free(&t);
}
END_TEST

START_TEST(change_says_new_only_when_the_previous_bucket_was_read)
{
    struct tier_table t;
    one_row_table(&t, "view", NULL);
    strbuf out = STRBUF_INIT;
    page_for(&out, &t, 1, 0);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), ">new</td>"));
    strbuf_reset(&out);
    page_for(&out, &t, 1, 1);
    ck_assert_ptr_null(strstr(strbuf_cstr(&out), ">new</td>"));
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "Could not be read: h7."));
    strbuf_reset(&out);
    page_for(&out, &t, 0, 0); /* the first bucket: no trend columns at all */
    ck_assert_ptr_null(strstr(strbuf_cstr(&out), "<svg"));
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "no trend"));
    strbuf_free(&out);
    tier_table_free(&t);
}
END_TEST

START_TEST(page_shows_the_figures_and_what_was_left_out)
{
    strbuf out = STRBUF_INIT;
    struct tier_table t;
    rank(&t, 1, 1);
    page_for(&out, &t, 0, 0);
    const char *html = strbuf_cstr(&out);
    ck_assert_ptr_nonnull(strstr(html, "<td class=\"n\">1,000</td><td class=\"n\">100 (10.0%)"));
    ck_assert_ptr_nonnull(strstr(html, "breaker tripped 2 times (1 resume)"));
    ck_assert_ptr_nonnull(strstr(html, "7 tier calls were not recorded"));
    ck_assert_ptr_nonnull(strstr(html, "2 more identities not shown: 1.00 ms of _total time "
                                       "(16.7%)"));
    ck_assert_ptr_nonnull(strstr(html, "1 more tier not shown."));
    ck_assert_ptr_nonnull(strstr(html, "From 2025-11-26 03:00 UTC to 2025-11-26 04:00 UTC"));
    ck_assert_ptr_null(strstr(html, "could not be read"));
    tier_table_free(&t);
    strbuf_free(&out);
}
END_TEST

START_TEST(index_lists_newest_first_with_errors_escaped)
{
    const struct tier_index_row rows[] = {
        {"daily", "2026-11-25", 1, NULL},
        {"hourly", "2026-11-26_01", 1, NULL},
        {"hourly", "2026-11-26_02", 0, "hourly/x.tiers: Permission denied <b>"},
    };
    strbuf out = STRBUF_INIT;
    tier_index_render(&out, rows, 3, 1);
    const char *html = strbuf_cstr(&out);
    const char *h2 = strstr(html, "2026-11-26_02"), *h1 = strstr(html, "2026-11-26_01");
    ck_assert(h2 && h1 && h2 < h1);
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"hourly/2026-11-26_01.html\">tiers</a>"));
    ck_assert_ptr_null(strstr(html, "hourly/2026-11-26_02.html"));
    ck_assert_ptr_nonnull(strstr(html, "Permission denied &lt;b&gt;"));
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"../index.html\">XHProf reports</a>"));
    strbuf_free(&out);
}
END_TEST

START_TEST(bucket_names_with_and_without_tag)
{
    const char *const formats[] = {"%Y-%m-%d_%H", "%Y-%m-%d_%H.excimer"};
    size_t len;
    ck_assert_int_eq(jobfs_bucket_of(formats, 2, "2026-11-26_05.excimer", 0, &len), 1);
    ck_assert_uint_eq(len, strlen("2026-11-26_05.excimer"));
    ck_assert_int_eq(jobfs_bucket_of(formats, 2, "2026-11-26_05", 0, &len), 0);
    ck_assert_int_eq(jobfs_bucket_of(formats, 2, "2026-11-26_05.other", 0, &len), -1);
    ck_assert_int_eq(jobfs_bucket_of(formats, 2, "2026-11-26_05.excimer.index", 1, &len), 1);
    ck_assert_int_eq(jobfs_bucket_of(formats, 2, "2026-11-26_05.excimer", 1, &len), 0);
    ck_assert_int_eq(jobfs_period_ok("hourly"), 1);
    ck_assert_int_eq(jobfs_period_ok("index.html"), 0);
    ck_assert_int_eq(jobfs_period_ok(".hidden"), 0);
}
END_TEST

Suite *tiers_suite(void)
{
    Suite *s = suite_create("tiers");
    TCase *tc = tcase_create("tiers");
    tcase_add_test(tc, table_ranks_identities_by_total_and_total_tier_first);
    tcase_add_test(tc, caps_keep_the_heaviest_and_count_the_rest);
    tcase_add_test(tc, figures_are_those_of_the_json_view);
    tcase_add_test(tc, file_is_read_through_the_common_table_bad_lines_counted);
    tcase_add_test(tc, file_that_cannot_be_read_is_refused_with_its_path);
    tcase_add_test(tc, identities_past_the_table_limit_are_other_and_said);
    tcase_add_test(tc, trend_takes_each_row_from_another_bucket);
    tcase_add_test(tc, durations_read_as_people_read_them);
    tcase_add_test(tc, hostile_names_are_escaped_everywhere);
    tcase_add_test(tc, long_names_are_cut_on_a_character);
    tcase_add_test(tc, sparkline_breaks_at_gaps_and_marks_changes);
    tcase_add_test(tc, change_says_new_only_when_the_previous_bucket_was_read);
    tcase_add_test(tc, page_shows_the_figures_and_what_was_left_out);
    tcase_add_test(tc, index_lists_newest_first_with_errors_escaped);
    tcase_add_test(tc, bucket_names_with_and_without_tag);
    suite_add_tcase(s, tc);
    return s;
}
