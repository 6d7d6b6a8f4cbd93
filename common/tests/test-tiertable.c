/* Tests of tiertable: merge, bounds, reserved identities, saturation,
 * the .tiers file's lines written and read back (whole, torn, too long)
 * and the JSON and text views. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "test-suites.h"
#include "testutil.h"
#include "tiertable.h"

/* A histogram of the given values. */
static void hist_of(struct tierhist *h, const uint64_t *ns, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tierhist_add(h, ns[i]);
}

static void add(struct tiertable *t, const char *identity, const char *tier, const uint64_t *ns,
                size_t n, struct tier_drops *drops)
{
    struct tierhist h = TIERHIST_INIT;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += ns[i];
    hist_of(&h, ns, n);
    tiertable_add(t, identity, strlen(identity), tier, strlen(tier), n, total, &h, drops);
    tierhist_reset(&h);
}

static const struct tier_cell *cell_of(const struct tiertable *t, const char *identity,
                                       const char *tier)
{
    const struct tier_identity *id = tiertable_find(t, identity, strlen(identity));
    return id ? tier_identity_cell(id, tier) : NULL;
}

/* --- tables -------------------------------------------------------------------- */

START_TEST(merging_two_hosts_adds_calls_time_and_histograms)
{
    struct tiertable a, b;
    struct tier_drops drops = {0};
    tiertable_init(&a, 10);
    tiertable_init(&b, 10);
    static const uint64_t host1[] = {1000000, 2000000, 3000000};
    static const uint64_t host2[] = {4000000, 50000000};
    add(&a, "view", "db", host1, 3, &drops);
    add(&b, "view", "db", host2, 2, &drops);
    add(&b, "edit", "_total", host2, 2, &drops);
    struct tier_status s1 = {100, 10, 1, 0, 1, 0}, s2 = {50, 5, 0, 1, 0, 3};
    tiertable_add_status(&a, &s1);
    tiertable_add_status(&b, &s2);
    tiertable_merge(&a, &b, &drops);
    const struct tier_cell *db = cell_of(&a, "view", "db");
    ck_assert_ptr_nonnull(db);
    ck_assert_uint_eq(db->calls, 5);
    ck_assert_uint_eq(db->total_ns, 60000000);
    ck_assert_uint_eq(db->hist.count, 5);
    /* p50 is the 3rd of 1, 2, 3, 4, 50 ms; p99 the 5th */
    uint64_t p50 = tierhist_percentile(&db->hist, 50), p99 = tierhist_percentile(&db->hist, 99);
    ck_assert_msg(p50 > 2970000 && p50 < 3030000, "p50 %llu", (unsigned long long)p50);
    ck_assert_msg(p99 > 49500000 && p99 < 50500000, "p99 %llu", (unsigned long long)p99);
    ck_assert_ptr_nonnull(cell_of(&a, "edit", "_total"));
    ck_assert_uint_eq(a.status.requests, 150);
    ck_assert_uint_eq(a.status.traced, 15);
    ck_assert_uint_eq(a.status.trips, 1);
    ck_assert_uint_eq(a.status.resumes, 1);
    ck_assert_uint_eq(a.status.paused, 1);
    ck_assert_uint_eq(a.status.skipped, 3);
    ck_assert_uint_eq(a.status_lines, 2);
    ck_assert_uint_eq(drops.overflow + drops.tier_limit + drops.memory, 0);
    tiertable_reset(&a);
    tiertable_reset(&b);
}
END_TEST

START_TEST(identities_past_the_limit_become_other)
{
    struct tiertable t;
    struct tier_drops drops = {0};
    static const uint64_t one[] = {1000};
    tiertable_init(&t, 2);
    add(&t, "a", "db", one, 1, &drops);
    add(&t, "b", "db", one, 1, &drops);
    add(&t, "c", "db", one, 1, &drops);
    add(&t, "d", "db", one, 1, &drops);
    add(&t, "a", "db", one, 1, &drops);  /* known: no overflow */
    ck_assert_uint_eq(drops.overflow, 2);
    ck_assert_uint_eq(t.nids, 3);
    ck_assert_ptr_null(tiertable_find(&t, "c", 1));
    ck_assert_uint_eq(cell_of(&t, "_other", "db")->calls, 2);
    ck_assert_uint_eq(cell_of(&t, "a", "db")->calls, 2);
    tiertable_reset(&t);
}
END_TEST

START_TEST(tiers_past_64_and_histograms_past_the_budget_are_dropped)
{
    struct tiertable t;
    struct tier_drops drops = {0};
    static const uint64_t one[] = {1000};
    tiertable_init(&t, 10);
    char tier[16];
    for (int i = 0; i < TIERTABLE_MAX_TIERS + 3; i++) {
        snprintf(tier, sizeof tier, "t%d", i);
        add(&t, "view", tier, one, 1, &drops);
    }
    ck_assert_uint_eq(drops.tier_limit, 3);
    ck_assert_uint_eq(t.ids[0]->ncells, TIERTABLE_MAX_TIERS);
    add(&t, "view", "t0", one, 1, &drops); /* an existing tier still takes calls */
    ck_assert_uint_eq(cell_of(&t, "view", "t0")->calls, 2);
    tiertable_reset(&t);

    /* 2 identities: 24 cells in the whole table */
    drops.tier_limit = 0;
    tiertable_init(&t, 2);
    for (int i = 0; i < 20; i++) {
        snprintf(tier, sizeof tier, "t%d", i);
        add(&t, "a", tier, one, 1, &drops);
        add(&t, "b", tier, one, 1, &drops);
    }
    ck_assert_uint_eq(t.cells, 3 * TIERTABLE_CELLS_PER_IDENTITY);
    ck_assert_uint_eq(drops.tier_limit, 40 - 3 * TIERTABLE_CELLS_PER_IDENTITY);
    ck_assert_ptr_null(tiertable_find(&t, "_other", 6));
    tiertable_reset(&t);

    /* a histogram spread over every power of two takes 59 blocks: the
     * budget of 2 identities (64) holds one such, not two */
    uint64_t spread[TIERHIST_BLOCKS];
    for (int i = 0; i < TIERHIST_BLOCKS; i++)
        spread[i] = i ? (uint64_t)1 << (i + 5) : 1;
    tiertable_init(&t, 1);
    add(&t, "view", "a", spread, TIERHIST_BLOCKS, &drops);
    add(&t, "view", "b", spread, TIERHIST_BLOCKS, &drops);
    ck_assert_uint_eq(drops.memory, 1);
    ck_assert_uint_eq(t.blocks, TIERHIST_BLOCKS);
    ck_assert_ptr_null(cell_of(&t, "view", "b")); /* no empty cell left behind */
    add(&t, "view", "a", spread, TIERHIST_BLOCKS, &drops); /* no new blocks: taken */
    ck_assert_uint_eq(cell_of(&t, "view", "a")->calls, 2 * TIERHIST_BLOCKS);
    tiertable_reset(&t);
}
END_TEST

START_TEST(lines_round_trip_through_the_wire_format)
{
    struct tiertable t, back;
    struct tier_drops drops = {0};
    static const uint64_t ns[] = {5, 70000, 123456789};
    tiertable_init(&t, 10);
    tiertable_init(&back, 10);
    add(&t, "api:query%20x", "_total", ns, 3, &drops);
    add(&t, "view", "parse", ns, 2, &drops);
    struct tier_status s = {7, 6, 5, 4, 3, 2};
    tiertable_add_status(&t, &s);
    strbuf out = STRBUF_INIT;
    tiertable_format_lines(&t, 600, 660, &out);
    ck_assert_uint_eq(count_char(out.data, out.len, '\n'), 3);
    const char *p = strbuf_cstr(&out);
    for (const char *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        struct tierline tl;
        ck_assert_int_eq(tierline_parse(p, (size_t)(nl - p), &tl), TIERLINE_OK);
        ck_assert_int_eq(tl.start, 600);
        ck_assert_int_eq(tl.end, 660);
        ck_assert_int_eq((int)tl.host_len, 1);
        ck_assert_int_eq(tl.host[0], '*');
        ck_assert_int_eq(tl.pid, 0);
        tiertable_add_line(&back, &tl, &drops);
    }
    ck_assert(strstr(out.data, "tiers/1 status 600 660 * 0 7 6 5 4 3 2\n") != NULL);
    ck_assert_uint_eq(cell_of(&back, "api:query%20x", "_total")->total_ns, 123526794);
    ck_assert_uint_eq(cell_of(&back, "view", "parse")->hist.count, 2);
    ck_assert_uint_eq(back.status.requests, 7);
    strbuf_free(&out);
    tiertable_reset(&t);
    tiertable_reset(&back);
}
END_TEST

static const struct tier_header HEADER = {"hourly", "2026-11-22_05", 1795323600, 1795327200, 2};

START_TEST(json_is_the_documented_shape)
{
    struct tiertable t;
    struct tier_drops drops = {0};
    static const uint64_t ms[] = {1000000, 3000000};
    tiertable_init(&t, 10);
    add(&t, "view", "db", ms, 1, &drops);
    add(&t, "view", "_total", ms, 2, &drops);
    struct tier_status s = {10, 9, 1, 1, 0, 4};
    tiertable_add_status(&t, &s);
    strbuf out = STRBUF_INIT;
    tiertable_format_json(&t, &HEADER, &out);
    unsigned i1 = tierhist_index(1000000), i3 = tierhist_index(3000000);
    double v1 = (double)tierhist_value(i1) / 1e3, v3 = (double)tierhist_value(i3) / 1e3;
    char want[1024];
    snprintf(want, sizeof want,
             "{\"format\":\"arclamp-tiers/1\",\"period\":\"hourly\",\"bucket\":"
             "\"2026-11-22_05\",\"start\":1795323600,\"end\":1795327200,\"minutes\":2,"
             "\"requests\":10,\"traced\":9,\"trips\":1,\"resumes\":1,\"skipped\":4,"
             "\"identities\":{\"view\":{"
             "\"_total\":{\"calls\":2,\"total_us\":4000.000,\"mean_us\":2000.000,"
             "\"p50_us\":%.3f,\"p90_us\":%.3f,\"p99_us\":%.3f,\"hist\":\"%u:1,%u:1\"},"
             "\"db\":{\"calls\":1,\"total_us\":1000.000,\"mean_us\":1000.000,"
             "\"p50_us\":%.3f,\"p90_us\":%.3f,\"p99_us\":%.3f,\"hist\":\"%u:1\"}}}}\n",
             v1, v3, v3, i1, i3, v1, v1, v1, i1);
    ck_assert_str_eq(strbuf_cstr(&out), want);
    /* the midpoints are within 1% of 1 and 3 ms */
    ck_assert(v1 > 990 && v1 < 1010 && v3 > 2970 && v3 < 3030);
    strbuf_free(&out);
    tiertable_reset(&t);
}
END_TEST

/* The figures a reader of the table gets (arclamp-report's pages) are the
 * JSON view's to the last digit: the mean rounded to the nanosecond as
 * "%.3f" writes it, the percentiles from the histogram; and the order of
 * identities and cells is the views'. */
START_TEST(cell_figures_and_order_are_the_json_views)
{
    struct tiertable t;
    struct tier_drops drops = {0};
    static const uint64_t odd[] = {1000, 1, 2}, big[] = {5000000};
    tiertable_init(&t, 10);
    add(&t, "light", "_total", odd, 3, &drops);   /* mean 333.666.. ns */
    add(&t, "heavy", "db", big, 1, &drops);
    add(&t, "heavy", "_total", big, 1, &drops);
    add(&t, "heavy", "cache", odd, 1, &drops);
    const struct tier_identity **ids = tiertable_sorted_identities(&t);
    ck_assert_str_eq(ids[0]->name, "heavy");
    ck_assert_str_eq(ids[1]->name, "light");
    const struct tier_cell *cells[TIERTABLE_MAX_TIERS];
    tier_identity_sorted_cells(ids[0], cells);
    ck_assert_str_eq(cells[0]->tier, "_total");
    ck_assert_str_eq(cells[1]->tier, "db");
    ck_assert_str_eq(cells[2]->tier, "cache");
    struct tier_cell_us us;
    tier_cell_us(tier_identity_cell(ids[1], "_total"), &us);
    ck_assert(us.total == 1.003);
    ck_assert(us.mean == 0.334);                  /* "0.334" read back */
    double v1000 = (double)tierhist_value(tierhist_index(1000)) / 1e3;
    ck_assert(us.p50 == 0.002 && us.p90 == v1000 && us.p99 == v1000);
    free(ids);
    struct tiertable empty; /* status lines only: no identity, no array */
    tiertable_init(&empty, 10);
    ids = tiertable_sorted_identities(&empty);
    ck_assert_ptr_nonnull(ids);
    free(ids);
    strbuf out = STRBUF_INIT;
    tiertable_format_json(&t, &HEADER, &out);
    ck_assert_ptr_nonnull(strstr(strbuf_cstr(&out),
                                 "\"light\":{\"_total\":{\"calls\":3,\"total_us\":1.003,"
                                 "\"mean_us\":0.334,\"p50_us\":0.002,"));
    strbuf_free(&out);
    tiertable_reset(&t);
}
END_TEST

START_TEST(json_escapes_hostile_identities)
{
    struct tiertable t;
    struct tier_drops drops = {0};
    static const uint64_t one[] = {1000};
    tiertable_init(&t, 10);
    /* as on the wire: "<script>\"x\"</script>", "a b%", "cr\r\nlf\0", "été" */
    add(&t, "<script>\"x\"</script>", "_total", one, 1, &drops);
    add(&t, "a%20b%25", "_total", one, 1, &drops);
    add(&t, "cr%0D%0Alf%00", "_total", one, 1, &drops);
    add(&t, "\xc3\xa9t\xc3\xa9", "_total", one, 1, &drops);
    strbuf out = STRBUF_INIT;
    tiertable_format_json(&t, &HEADER, &out);
    const char *j = strbuf_cstr(&out);
    ck_assert_msg(strstr(j, "\"<script>\\\"x\\\"</script>\":{") != NULL, "%s", j);
    ck_assert(strstr(j, "\"a b%\":{") != NULL);
    ck_assert(strstr(j, "\"cr\\u000d\\u000alf\\u0000\":{") != NULL);
    ck_assert(strstr(j, "\"\xc3\xa9t\xc3\xa9\":{") != NULL);
    ck_assert(memchr(j, '\r', out.len) == NULL && memchr(j, '\0', out.len) == NULL);
    strbuf_free(&out);
    tiertable_reset(&t);
}
END_TEST

START_TEST(text_table_orders_by_time_total_first)
{
    struct tiertable t;
    struct tier_drops drops = {0};
    static const uint64_t small[] = {1000000}, big[] = {9000000, 1000000};
    tiertable_init(&t, 10);
    add(&t, "light", "_total", small, 1, &drops);
    add(&t, "heavy", "db", small, 1, &drops);
    add(&t, "heavy", "parse", big, 2, &drops);
    add(&t, "heavy", "_total", big, 2, &drops);
    add(&t, "ctl%0A", "_total", small, 1, &drops);
    struct tier_status s = {3, 2, 1, 0, 0, 0};
    tiertable_add_status(&t, &s);
    strbuf out = STRBUF_INIT;
    tiertable_format_text(&t, &HEADER, &out);
    const char *x = strbuf_cstr(&out);
    ck_assert_msg(strncmp(x, "request tiers  period hourly  bucket 2026-11-22_05  minutes 2  "
                             "requests 3  traced 2  breaker trips 1  resumes 0\n", 100) == 0,
                  "%s", x);
    /* the identity column is 8 wide ("identity"), then two spaces */
    const char *total = strstr(x, "\nheavy     _total"), *parse = strstr(x, "\nheavy     parse");
    const char *db = strstr(x, "\nheavy     db"), *light = strstr(x, "\nlight     _total");
    ck_assert_msg(total && parse && db && light, "%s", x);
    ck_assert(total < parse && parse < db && db < light);
    /* parse: 10 ms of heavy's 10 ms; db 1 of 10 */
    ck_assert_msg(strstr(parse, " 100.0%") != NULL && strstr(db, "  10.0%") != NULL, "%s", x);
    ck_assert(strstr(x, "ctl%0A") != NULL);      /* a control byte stays escaped */
    ck_assert_uint_eq(count_char(x, out.len, '\n'), 3 + 5);
    strbuf_free(&out);
    tiertable_reset(&t);
}
END_TEST


/* Identities the operator listed keep their slots: 1,000 identities of 8
 * tiers each sent first (every general slot, cell and block spent) do not
 * push a later "edit" into _other nor drop its tiers. */
START_TEST(reserved_identities_are_never_other)
{
    struct tiertable t;
    struct tier_names reserved;
    struct tier_drops drops = {0};
    char *names[] = {"edit", "api query", "edit"}; /* decoded; a repeat is one */
    static const uint64_t one[] = {1000};
    tier_names_init(&reserved, names, 3);
    ck_assert_uint_eq(reserved.n, 2);
    ck_assert(tier_names_has(&reserved, "api%20query", 11));
    ck_assert(!tier_names_has(&reserved, "api query", 9));
    tiertable_init(&t, 3);
    tiertable_reserve(&t, &reserved);
    char id[32], tier[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "junk%d", i);
        for (int k = 0; k < 8; k++) {
            snprintf(tier, sizeof tier, "t%d", k);
            add(&t, id, tier, one, 1, &drops);
        }
    }
    ck_assert_uint_eq(t.cells, t.max_cells); /* the general budget is spent */
    for (int k = 0; k < 8; k++) {
        snprintf(tier, sizeof tier, "t%d", k);
        add(&t, "edit", tier, one, 1, &drops);
    }
    add(&t, "api%20query", "_total", one, 1, &drops);
    for (int k = 0; k < 8; k++) {
        snprintf(tier, sizeof tier, "t%d", k);
        ck_assert_ptr_nonnull(cell_of(&t, "edit", tier));
        ck_assert_uint_eq(cell_of(&t, "edit", tier)->calls, 1);
    }
    ck_assert_ptr_nonnull(cell_of(&t, "api%20query", "_total"));
    /* and the limit still holds for everyone else */
    add(&t, "late", "db", one, 1, &drops);
    ck_assert_ptr_null(tiertable_find(&t, "late", 4));
    ck_assert_uint_eq(t.nids, 3 + 1 + 2); /* 3 allowed, _other, the 2 reserved */
    /* merging keeps them too: a bucket table full of junk takes a minute's edit */
    struct tiertable bucket, minute;
    tiertable_init(&bucket, 3);
    tiertable_reserve(&bucket, &reserved);
    tiertable_init(&minute, 3);
    tiertable_reserve(&minute, &reserved);
    for (int i = 0; i < 10; i++) {
        snprintf(id, sizeof id, "junk%d", i);
        add(&bucket, id, "db", one, 1, &drops);
    }
    add(&minute, "edit", "db", one, 1, &drops);
    tiertable_reset(&minute); /* reset keeps the reserved names */
    add(&minute, "edit", "db", one, 1, &drops);
    tiertable_merge(&bucket, &minute, &drops);
    ck_assert_uint_eq(cell_of(&bucket, "edit", "db")->calls, 1);
    tiertable_reset(&bucket);
    tiertable_reset(&minute);
    tiertable_reset(&t);
    tier_names_free(&reserved);
}
END_TEST

/* Counts saturate at 2^53 (TIERLINE_COUNT_MAX), the report's exact range:
 * status sums stop there, and a line that would take a cell's calls past
 * it is dropped; times saturate at INT64_MAX. */
START_TEST(counts_saturate_at_2_pow_53)
{
    struct tiertable t;
    struct tier_drops drops = {0};
    tiertable_init(&t, 10);
    struct tier_status big = {(uint64_t)TIERLINE_COUNT_MAX, 1, 2, 3, 4,
                              (uint64_t)TIERLINE_COUNT_MAX - 1};
    tiertable_add_status(&t, &big);
    tiertable_add_status(&t, &big);
    ck_assert_uint_eq(t.status.requests, (uint64_t)TIERLINE_COUNT_MAX);
    ck_assert_uint_eq(t.status.skipped, (uint64_t)TIERLINE_COUNT_MAX);
    ck_assert_uint_eq(t.status.traced, 2);
    struct tierhist h = TIERHIST_INIT;
    tierhist_add_bucket(&h, 5, (uint64_t)TIERLINE_COUNT_MAX);
    tiertable_add(&t, "view", 4, "db", 2, (uint64_t)TIERLINE_COUNT_MAX, (uint64_t)INT64_MAX, &h,
                  &drops);
    tierhist_reset(&h);
    tierhist_add_bucket(&h, 5, 1);
    tiertable_add(&t, "view", 4, "db", 2, 1, 5, &h, &drops);
    tierhist_reset(&h);
    ck_assert_uint_eq(drops.tier_limit, 1);
    ck_assert_uint_eq(cell_of(&t, "view", "db")->calls, (uint64_t)TIERLINE_COUNT_MAX);
    ck_assert_uint_eq(cell_of(&t, "view", "db")->total_ns, (uint64_t)INT64_MAX);
    /* what the table writes reads back: every figure within the parser's range */
    strbuf out = STRBUF_INIT;
    tiertable_format_lines(&t, 60, 120, &out);
    struct tiertable back;
    tiertable_init(&back, 10);
    size_t lines = 0;
    for (char *p = out.data, *nl; (nl = memchr(p, '\n', out.len - (size_t)(p - out.data)));
         p = nl + 1, lines++) {
        struct tierline tl;
        ck_assert_int_eq(tierline_parse(p, (size_t)(nl - p), &tl), TIERLINE_OK);
        tiertable_add_line(&back, &tl, &drops);
    }
    ck_assert_uint_eq(lines, 2);
    ck_assert_uint_eq(back.status.requests, (uint64_t)TIERLINE_COUNT_MAX);
    strbuf_free(&out);
    tiertable_reset(&back);
    tiertable_reset(&t);
}
END_TEST

/* --- the .tiers file read back ------------------------------------------------ */

static void add_to_table(void *arg, const struct tierline *tl)
{
    struct tier_drops drops = {0};
    tiertable_add_line(arg, tl, &drops);
}

/* A temporary file holding buf (unlinked: gone with its descriptor). */
static int temp_file_of(const strbuf *buf)
{
    char path[] = "/tmp/test-tiertable-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unlink(path);
    ck_assert_int_eq(write(fd, buf->data, buf->len), (ssize_t)buf->len);
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

START_TEST(tiers_file_reads_back_what_was_written)
{
    struct tiertable t, twice, back;
    struct tier_drops drops = {0};
    tiertable_init(&t, 4000);
    tiertable_init(&twice, 4000);
    tiertable_init(&back, 4000);
    /* enough identities that the file spans several reads */
    char name[32];
    for (int i = 0; i < 3000; i++) {
        uint64_t ns[] = {1000 + (uint64_t)i, 250000, 9000000 + 7 * (uint64_t)i};
        snprintf(name, sizeof name, "id %d%%", i);
        char esc[3 * sizeof name];
        esc[tierline_escape(name, strlen(name), esc)] = '\0';
        for (int k = 0; k < 3; k++) {
            add(k ? &twice : &t, esc, TIERLINE_TOTAL, ns, 3, &drops);
            add(k ? &twice : &t, esc, "db", ns, 2, &drops);
        }
    }
    struct tier_status s = {100, 10, 1, 1, 0, 3};
    tiertable_add_status(&t, &s);
    tiertable_add_status(&twice, &s);
    tiertable_add_status(&twice, &s);
    strbuf file = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT;
    tiertable_format_lines(&t, 600, 660, &file);
    ck_assert_uint_gt(file.len, TIERTABLE_LINE_MAX);
    /* what a reader must skip: junk, a line too long for any writer, and
     * a torn last line (no newline: a write cut short) */
    size_t valid = file.len;
    strbuf_appends(&file, "tiers/1 agg junk\n");
    for (size_t i = 0; i < TIERTABLE_LINE_MAX + 10; i++)
        strbuf_appendc(&file, 'x');
    strbuf_appendc(&file, '\n');
    char *again = malloc(valid);
    memcpy(again, file.data, valid);
    strbuf_append(&file, again, valid); /* the same minute again: adds up */
    free(again);
    strbuf_appends(&file, "tiers/1 status 600 660 * 0 1 1 0 0 0");
    int fd = temp_file_of(&file);
    ck_assert_int_eq(tiertable_read_fd(fd, add_to_table, &back), 3);
    close(fd);
    /* the table twice: each figure doubled */
    ck_assert_uint_eq(drops.tier_limit + drops.memory + drops.overflow, 0);
    tiertable_format_lines(&twice, 0, 60, &want);
    tiertable_format_lines(&back, 0, 60, &got);
    ck_assert_uint_eq(got.len, want.len);
    ck_assert(memcmp(got.data, want.data, want.len) == 0);
    ck_assert_uint_eq(back.status.requests, 200);
    /* a descriptor that cannot be read says so */
    fd = open("/", O_RDONLY | O_DIRECTORY);
    ck_assert_int_eq(tiertable_read_fd(fd, add_to_table, &back), -1);
    close(fd);
    strbuf_free(&file);
    strbuf_free(&want);
    strbuf_free(&got);
    tiertable_reset(&t);
    tiertable_reset(&twice);
    tiertable_reset(&back);
}
END_TEST

Suite *tiertable_suite(void)
{
    Suite *s = suite_create("tiertable");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, merging_two_hosts_adds_calls_time_and_histograms);
    tcase_add_test(tc, identities_past_the_limit_become_other);
    tcase_add_test(tc, tiers_past_64_and_histograms_past_the_budget_are_dropped);
    tcase_add_test(tc, reserved_identities_are_never_other);
    tcase_add_test(tc, counts_saturate_at_2_pow_53);
    tcase_add_test(tc, lines_round_trip_through_the_wire_format);
    tcase_add_test(tc, json_is_the_documented_shape);
    tcase_add_test(tc, json_escapes_hostile_identities);
    tcase_add_test(tc, cell_figures_and_order_are_the_json_views);
    tcase_add_test(tc, text_table_orders_by_time_total_first);
    tcase_add_test(tc, tiers_file_reads_back_what_was_written);
    suite_add_tcase(s, tc);
    return s;
}
