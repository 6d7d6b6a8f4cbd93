/* Tests of the request-tier pages' parts: tierrank.c (reading a table
 * strictly, ranking identities and tiers, the caps and what they leave
 * out, trends from other buckets), tierpage.c (durations, escaping of
 * hostile names, sparklines with gaps, the change against the previous
 * bucket, the index) and jobfs.c's bucket names. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobfs.h"
#include "strbuf.h"
#include "test-suites.h"
#include "tierline.h"
#include "tierpage.h"
#include "tierrank.h"

#define HEAD "{\"format\":\"arclamp-tiers/1\",\"period\":\"hourly\",\"bucket\":\"b\"," \
             "\"start\":1764126000,\"end\":1764129600,\"minutes\":60,\"requests\":1000," \
             "\"traced\":100,\"trips\":2,\"resumes\":1,\"skipped\":7,"

/* A tier's object: total and mean given, percentiles derived. */
static void tier(strbuf *b, const char *name, double calls, double total, double mean)
{
    strbuf_appendf(b, "\"%s\":{\"calls\":%.0f,\"total_us\":%g,\"mean_us\":%g,\"p50_us\":%g,"
                      "\"p90_us\":%g,\"p99_us\":%g,\"hist\":\"1:1\"}",
                   name, calls, total, mean, mean * 0.9, mean * 2, mean * 3);
}

/* view: _total 1000 us, db 600, parse 300; edit: _total 5000, db 100;
 * cron: db only (no _total). */
static const char *sample(strbuf *b, double scale)
{
    strbuf_reset(b);
    strbuf_appends(b, HEAD "\"identities\":{\"view\":{");
    tier(b, "parse", 3, 300 * scale, 100 * scale);
    strbuf_appendc(b, ',');
    tier(b, "_total", 10, 1000 * scale, 100 * scale);
    strbuf_appendc(b, ',');
    tier(b, "db", 6, 600 * scale, 100 * scale);
    strbuf_appends(b, "},\"edit\":{");
    tier(b, "db", 1, 100, 100);
    strbuf_appendc(b, ',');
    tier(b, "_total", 2, 5000, 2500);
    strbuf_appends(b, "},\"cron\":{");
    tier(b, "db", 1, 50, 50);
    strbuf_appends(b, "}}}\n");
    return strbuf_cstr(b);
}

static int parse(struct tier_table *t, const char *text, size_t ids, size_t tiers, char *err)
{
    return tier_table_parse(t, text, strlen(text), ids, tiers, err, 300);
}

START_TEST(table_ranks_identities_by_total_and_total_tier_first)
{
    strbuf b = STRBUF_INIT;
    struct tier_table t;
    char err[300];
    ck_assert_int_eq(parse(&t, sample(&b, 1), 10, 10, err), 0);
    ck_assert_uint_eq(t.requests, 1000);
    ck_assert_uint_eq(t.traced, 100);
    ck_assert_uint_eq(t.trips, 2);
    ck_assert_uint_eq(t.skipped, 7);
    ck_assert_int_eq(t.start, 1764126000);
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
    ck_assert_double_eq_tol(view->rows[1].share, 0.6, 1e-12);
    ck_assert_double_eq(view->rows[0].share, 1);
    ck_assert_double_eq(view->rows[2].p99_us, 300);
    /* the current bucket is the trend's last point, the others unknown */
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND].mean_us, 100);
    ck_assert(isnan(view->rows[1].trend[0].mean_us));
    /* no _total: no share */
    ck_assert(isnan(t.ids[2].rows[0].share));
    tier_table_free(&t);
    strbuf_free(&b);
}
END_TEST

START_TEST(caps_keep_the_heaviest_and_count_the_rest)
{
    strbuf b = STRBUF_INIT;
    struct tier_table t;
    char err[300];
    ck_assert_int_eq(parse(&t, sample(&b, 1), 1, 2, err), 0);
    ck_assert_uint_eq(t.nids, 1);
    ck_assert_str_eq(t.ids[0].name, "edit");
    ck_assert_uint_eq(t.ids_left_out, 2);
    ck_assert_double_eq(t.left_out_us, 1000); /* view's _total; cron has none */
    tier_table_free(&t);
    ck_assert_int_eq(parse(&t, sample(&b, 1), 2, 2, err), 0);
    ck_assert_uint_eq(t.ids[1].nrows, 2);
    ck_assert_str_eq(t.ids[1].rows[1].name, "db");
    ck_assert_uint_eq(t.ids[1].rows_left_out, 1);
    tier_table_free(&t);
    strbuf_free(&b);
}
END_TEST

/* Each text refused, with a word of the message that says why. */
static const struct {
    const char *text, *why;
} bad_tables[] = {
    {"", "not a table"},
    {"{\"format\":\"arclamp-tiers/1\"", "not JSON"},
    {"[1,2]", "not a table"},
    {"{\"format\":\"arclamp-tiers/2\"}", "format"},
    {HEAD "\"identities\":{}} x", "malformed near byte 187"},
    {HEAD "\"identities\":{},}", "malformed"},
    {HEAD "\"identities\":{\"v\":{\"db\":{\"calls\":1,}}}}", "not an object of numbers"},
    {HEAD "\"identities\":{\"v\":{\"db\":{\"calls\":1]}}}", "not an object of numbers"},
    {HEAD "\"identities\":{\"v\":{\"db\":{}]}}", "not an object of tiers"},
    {HEAD "\"identities\":{\"v\"", "malformed"},
    {HEAD "\"identities\":{\"a\\q\":{}}}", "name is malformed"},
    {HEAD "\"identities\":{\"v\":{\"db\":{\"calls\":tru}}}}", "not an object of numbers"},
    {"{\"format\":\"arclamp-tiers/1\",\"identities\":{}}", "\"start\""},
    {HEAD "\"identities\":[]}", "\"identities\""},
    {HEAD "\"identities\":{\"v\":3}}", "not an object"},
    {HEAD "\"identities\":{\"v\":{\"_total\":[]}}}", "not an object"},
    {HEAD "\"identities\":{\"v\":{\"_total\":{\"calls\":1}}}}", "\"total_us\""},
    {HEAD "\"identities\":{\"v\":{\"db\":{\"calls\":1.5,\"total_us\":1,\"mean_us\":1,"
          "\"p50_us\":1,\"p90_us\":1,\"p99_us\":1}}}}", "\"calls\""},
    {HEAD "\"identities\":{\"v\":{\"db\":{\"calls\":1,\"total_us\":-1,\"mean_us\":1,"
          "\"p50_us\":1,\"p90_us\":1,\"p99_us\":1}}}}", "\"total_us\""},
    {HEAD "\"identities\":{\"v\":{\"db\":{\"calls\":1,\"total_us\":\"9\",\"mean_us\":1,"
          "\"p50_us\":1,\"p90_us\":1,\"p99_us\":1}}}}", "\"total_us\""},
    {HEAD "\"identities\":{\"v\":{\"db\":{\"calls\":{\"x\":{}},\"total_us\":1}}}}",
     "not an object of numbers"},
    {"{\"format\":\"arclamp-tiers/1\",\"identities\":{},\"start\":1e400}", "\"start\""},
};

START_TEST(malformed_tables_are_refused_with_where)
{
    struct tier_table t;
    char err[300];
    const char *text = bad_tables[_i].text;
    ck_assert_int_eq(tier_table_parse(&t, text, strlen(text), 10, 10, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad_tables[_i].why), "%s: %s", text, err);
    tier_table_free(&t);
}
END_TEST

START_TEST(messages_quote_hostile_identities)
{
    const char *text = HEAD "\"identities\":{\"\\u001b[31m\\n\":{\"db\":{\"calls\":1}}}}";
    struct tier_table t;
    char err[300];
    ck_assert_int_eq(tier_table_parse(&t, text, strlen(text), 10, 10, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "identity \"\\x1b[31m\\x0a\""), "%s", err);
    ck_assert_ptr_null(strchr(err, '\n'));
    tier_table_free(&t);
}
END_TEST

/* The walk over the document is ours, not json-c's: no prefix of a table
 * is one, and no mutation of one reads out of bounds (ASan) or is read
 * differently by the table and its trend. */
START_TEST(cut_and_mutated_tables_are_refused_or_read_whole)
{
    strbuf b = STRBUF_INIT;
    struct tier_table t;
    char err[300];
    const char *text = sample(&b, 1);
    size_t len = strlen(text) - 1; /* without the newline */
    for (size_t n = 0; n < len; n++) {
        char *cut = xstrndup(text, n); /* its own allocation: ASan sees a read past it */
        ck_assert_msg(tier_table_parse(&t, cut, n, 10, 10, err, sizeof err) < 0, "%zu", n);
        tier_table_free(&t);
        free(cut);
    }
    static const char bytes[] = "{}[]\",:\\ 0-e.a\x01\xff";
    uint64_t x = 88172645463325252u;
    for (int round = 0; round < 3000; round++) {
        char *m = xstrndup(text, len);
        for (int k = 0; k < 1 + round % 3; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            m[x % len] = bytes[(x >> 32) % (sizeof bytes - 1)];
        }
        int rc = tier_table_parse(&t, m, len, 10, 10, err, sizeof err);
        if (rc == 0)
            ck_assert_int_eq(tier_table_trend(&t, 0, m, len, err, sizeof err), 0);
        tier_table_free(&t);
        free(m);
    }
    strbuf_free(&b);
}
END_TEST

START_TEST(trend_takes_each_row_from_another_bucket)
{
    strbuf b = STRBUF_INIT;
    struct tier_table t;
    char err[300];
    ck_assert_int_eq(parse(&t, sample(&b, 2), 10, 10, err), 0);
    /* the bucket before: view's times halved */
    const char *before = sample(&b, 1);
    ck_assert_int_eq(tier_table_trend(&t, TIERS_TREND - 1, before, strlen(before), err, 300), 0);
    const struct tier_ranked_identity *view = &t.ids[1];
    ck_assert_str_eq(view->name, "view");
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND - 1].mean_us, 100);
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND].mean_us, 200);
    ck_assert_double_eq(view->rows[1].trend[TIERS_TREND - 1].p90_us, 200);
    ck_assert_double_eq_tol(view->rows[1].trend[TIERS_TREND - 1].share, 0.6, 1e-12);
    /* an identity missing there: no point; an unreadable bucket: none */
    const char *other = HEAD "\"identities\":{\"edit\":{}}}";
    ck_assert_int_eq(tier_table_trend(&t, 3, other, strlen(other), err, 300), 0);
    ck_assert(isnan(view->rows[1].trend[3].mean_us));
    ck_assert(isnan(t.ids[0].rows[0].trend[3].mean_us));
    ck_assert_int_eq(tier_table_trend(&t, 2, "{", 1, err, 300), -1);
    ck_assert(isnan(view->rows[0].trend[2].share));
    ck_assert_int_eq(tier_table_trend(&t, TIERS_TREND, before, strlen(before), err, 300), -1);
    tier_table_free(&t);
    strbuf_free(&b);
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

/* A table of one identity and one tier named `name`, with `trend` points
 * of mean (NaN: none) before this bucket's 100 us. */
static void one_row_table(struct tier_table *t, const char *name, const double *trend)
{
    char text[4096];
    snprintf(text, sizeof text,
             HEAD "\"identities\":{\"%s\":{\"_total\":{\"calls\":4,\"total_us\":400,"
                  "\"mean_us\":100,\"p50_us\":90,\"p90_us\":200,\"p99_us\":300},"
                  "\"%s\":{\"calls\":2,\"total_us\":100,\"mean_us\":50,\"p50_us\":40,"
                  "\"p90_us\":60,\"p99_us\":70}}}}",
             name, name);
    char err[300];
    ck_assert_int_eq(tier_table_parse(t, text, strlen(text), 10, 10, err, sizeof err), 0);
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
    /* JSON-escaped in the table text; what it decodes to must not be markup */
    const char *evil = "<script>alert(1)</script>\\\"'&<img src=x onerror=alert(2)>";
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
    for (; n + 2 < 1000; n += 2)
        memcpy(name + n, "\xc3\xa9", 2); /* é: a cut in its middle would be U+FFFD */
    name[n] = '\0';
    struct tier_table t;
    one_row_table(&t, name, NULL);
    strbuf out = STRBUF_INIT;
    page_for(&out, &t, 0, 0);
    const char *html = strbuf_cstr(&out);
    ck_assert_ptr_nonnull(strstr(html, "\xe2\x80\xa6 (998 bytes)"));
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

/* One range for every count (2^53, arclamp-log's TIERLINE_COUNT_MAX): a
 * table with larger figures (an older arclamp-log summed status lines up
 * to 2^63-1) is read whole, each such count as 2^53, counted, and its page
 * says so, instead of the table being refused. */
START_TEST(counts_above_2_pow_53_are_read_as_2_pow_53)
{
    static const char text[] =
        "{\"format\":\"arclamp-tiers/1\",\"period\":\"hourly\",\"bucket\":\"b\","
        "\"start\":1764126000,\"end\":1764129600,\"minutes\":60,"
        "\"requests\":9007199254740994,\"traced\":9223372036854775807,\"trips\":0,"
        "\"resumes\":0,\"skipped\":1e20,\"identities\":{\"view\":{\"_total\":"
        "{\"calls\":18014398509481984,\"total_us\":5,\"mean_us\":0,\"p50_us\":0,"
        "\"p90_us\":0,\"p99_us\":0}}}}";
    struct tier_table t;
    char err[300] = "";
    ck_assert_msg(tier_table_parse(&t, text, strlen(text), 10, 10, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_uint_eq(t.requests, (uint64_t)TIERLINE_COUNT_MAX);
    ck_assert_uint_eq(t.traced, (uint64_t)TIERLINE_COUNT_MAX);
    ck_assert_uint_eq(t.skipped, (uint64_t)TIERLINE_COUNT_MAX);
    ck_assert(t.ids[0].rows[0].calls == (double)TIERLINE_COUNT_MAX);
    ck_assert_uint_eq(t.capped, 4);
    strbuf out = STRBUF_INIT;
    page_for(&out, &t, 0, 0);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "4 counts were above 2<sup>53</sup>"));
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out), "9,007,199,254,740,992"));
    strbuf_free(&out);
    tier_table_free(&t);
    /* 2^53 itself is a count like any other; a negative one is still refused */
    static const char exact[] =
        "{\"format\":\"arclamp-tiers/1\",\"start\":0,\"end\":1,\"minutes\":0,"
        "\"requests\":9007199254740992,\"traced\":0,\"trips\":0,\"resumes\":0,"
        "\"skipped\":0,\"identities\":{}}";
    ck_assert_int_eq(tier_table_parse(&t, exact, strlen(exact), 10, 10, err, sizeof err), 0);
    ck_assert_uint_eq(t.capped, 0);
    tier_table_free(&t);
}
END_TEST

START_TEST(page_shows_the_figures_and_what_was_left_out)
{
    strbuf b = STRBUF_INIT, out = STRBUF_INIT;
    struct tier_table t;
    char err[300];
    ck_assert_int_eq(parse(&t, sample(&b, 1), 1, 1, err), 0);
    page_for(&out, &t, 0, 0);
    const char *html = strbuf_cstr(&out);
    ck_assert_ptr_nonnull(strstr(html, "<td class=\"n\">1,000</td><td class=\"n\">100 (10.0%)"));
    ck_assert_ptr_nonnull(strstr(html, "breaker tripped 2 times (1 resume)"));
    ck_assert_ptr_nonnull(strstr(html, "7 tier calls were not recorded"));
    ck_assert_ptr_nonnull(strstr(html, "2 more identities not shown: 1.00 ms of _total time "
                                       "(16.7%)"));
    ck_assert_ptr_nonnull(strstr(html, "1 more tier not shown."));
    ck_assert_ptr_nonnull(strstr(html, "From 2025-11-26 03:00 UTC to 2025-11-26 04:00 UTC"));
    tier_table_free(&t);
    strbuf_free(&b);
    strbuf_free(&out);
}
END_TEST

START_TEST(index_lists_newest_first_with_errors_escaped)
{
    const struct tier_index_row rows[] = {
        {"daily", "2026-11-25", 1, NULL},
        {"hourly", "2026-11-26_01", 1, NULL},
        {"hourly", "2026-11-26_02", 0, "hourly/x.tiers.json: not JSON <b>"},
    };
    strbuf out = STRBUF_INIT;
    tier_index_render(&out, rows, 3, 1);
    const char *html = strbuf_cstr(&out);
    const char *h2 = strstr(html, "2026-11-26_02"), *h1 = strstr(html, "2026-11-26_01");
    ck_assert(h2 && h1 && h2 < h1);
    ck_assert_ptr_nonnull(strstr(html, "<a href=\"hourly/2026-11-26_01.html\">tiers</a>"));
    ck_assert_ptr_null(strstr(html, "hourly/2026-11-26_02.html"));
    ck_assert_ptr_nonnull(strstr(html, "not JSON &lt;b&gt;"));
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
    tcase_add_loop_test(tc, malformed_tables_are_refused_with_where, 0,
                        sizeof bad_tables / sizeof bad_tables[0]);
    tcase_add_test(tc, messages_quote_hostile_identities);
    tcase_add_test(tc, cut_and_mutated_tables_are_refused_or_read_whole);
    tcase_add_test(tc, trend_takes_each_row_from_another_bucket);
    tcase_add_test(tc, durations_read_as_people_read_them);
    tcase_add_test(tc, hostile_names_are_escaped_everywhere);
    tcase_add_test(tc, long_names_are_cut_on_a_character);
    tcase_add_test(tc, sparkline_breaks_at_gaps_and_marks_changes);
    tcase_add_test(tc, change_says_new_only_when_the_previous_bucket_was_read);
    tcase_add_test(tc, page_shows_the_figures_and_what_was_left_out);
    tcase_add_test(tc, counts_above_2_pow_53_are_read_as_2_pow_53);
    tcase_add_test(tc, index_lists_newest_first_with_errors_escaped);
    tcase_add_test(tc, bucket_names_with_and_without_tag);
    suite_add_tcase(s, tc);
    return s;
}
