/* Tests of request tiers: the tables (tiertable.c: merge, bounds, lines,
 * JSON, text) and the minute machinery through ingest (tiers.c: minutes by
 * END, the grace, the pending limit, late lines, the files of a bucket and
 * their rebuild after a restart, retention). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/ingest.h"
#include "ingestfx.h"
#include "../src/tiers.h"
#include "../src/tiertable.h"
#include "strbuf.h"
#include "test-suites.h"

/* TEST_NOW is 05:50:01; its minute starts at 05:50:00. */
#define MINUTE_NOW (TEST_NOW - 1)

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

/* --- through ingest: minutes and files ------------------------------------------- */

#define TIER_LOGS                                                                            \
    "logs:\n"                                                                                \
    "  - {period: hourly, format: '%Y-%m-%d_%H', retain: 2}\n"                               \
    "  - {period: daily, format: '%Y-%m-%d', retain: 2}\n"

/* An agg line of one host: `calls` calls of `ms` milliseconds each. */
static void send_agg(struct fx *fx, const char *host, time_t end, const char *identity,
                     const char *tier, int calls, int ms, time_t now)
{
    unsigned idx = tierhist_index((uint64_t)ms * 1000000);
    char line[512];
    snprintf(line, sizeof line, "tiers/1 agg %lld %lld %s 42 %s %s %d %lld %u:%d",
             (long long)end - 5, (long long)end, host, identity, tier, calls,
             (long long)calls * ms * 1000000, idx, calls);
    send_msg(fx, line, 0x3, now, 0);
}

/* The calls of "identity"."tier" in a JSON file (-1: not there). */
static long json_calls(struct fx *fx, const char *rel, const char *identity, const char *tier)
{
    char *text = read_rel(fx, rel);
    ck_assert_msg(text != NULL, "%s missing", rel);
    char key[256];
    snprintf(key, sizeof key, "\"%s\":{", identity);
    const char *id = strstr(text, key);
    long calls = -1;
    if (id) {
        snprintf(key, sizeof key, "\"%s\":{\"calls\":", tier);
        const char *c = strstr(id, key);
        if (c)
            calls = strtol(c + strlen(key), NULL, 10);
    }
    free(text);
    return calls;
}

START_TEST(minutes_merge_hosts_and_wait_for_the_grace)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    send_agg(&fx, "web1", TEST_NOW, "view", "db", 3, 2, TEST_NOW);
    send_agg(&fx, "web2", TEST_NOW - 1, "view", "db", 2, 4, TEST_NOW);
    send_msg(&fx, "tiers/1 status 1795326590 1795326601 web1 42 100 10 1 0 0 0", 0x3, TEST_NOW, 0);
    ck_assert_uint_eq(fx.st.tier_lines_received, 3);
    /* 05:50's minute ends at 05:51:00; written from 05:51:10 on */
    ingest_tick_tiers(&fx.in, MINUTE_NOW + 69, 1);
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.tiers"));
    ingest_tick_tiers(&fx.in, MINUTE_NOW + 70, 1);
    char *lines = read_rel(&fx, "hourly/2026-11-22_05.tiers");
    ck_assert_ptr_nonnull(lines);
    char want[256];
    snprintf(want, sizeof want, "tiers/1 agg 1795326600 1795326660 * 0 view db 5 14000000 %u:3,%u:2\n"
             "tiers/1 status 1795326600 1795326660 * 0 100 10 1 0 0 0\n",
             tierhist_index(2000000), tierhist_index(4000000));
    ck_assert_str_eq(lines, want);
    free(lines);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 5);
    ck_assert_int_eq(json_calls(&fx, "daily/2026-11-22.tiers.json", "view", "db"), 5);
    char *txt = read_rel(&fx, "daily/2026-11-22.tiers.txt");
    ck_assert_ptr_nonnull(txt);
    ck_assert(strstr(txt, "period daily  bucket 2026-11-22  minutes 1  requests 100") != NULL);
    free(txt);
    ck_assert_uint_eq(fx.st.tier_minutes_written[0], 1);
    ck_assert_uint_eq(fx.st.tier_minutes_written[1], 1);
    fx_free(&fx);
}
END_TEST

START_TEST(end_far_from_the_clock_takes_the_clock)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    send_agg(&fx, "web1", TEST_NOW - 3600, "view", "db", 1, 1, TEST_NOW); /* an hour behind */
    send_agg(&fx, "web1", TEST_NOW - 290, "view", "db", 1, 1, TEST_NOW);  /* within 300 s */
    ck_assert_uint_eq(fx.st.tier_lines_clock_skew, 1);
    ingest_tick_tiers(&fx.in, TEST_NOW + 3600, 1);
    char *lines = read_rel(&fx, "hourly/2026-11-22_05.tiers");
    ck_assert_ptr_nonnull(lines);
    ck_assert(strstr(lines, "tiers/1 agg 1795326600 1795326660 ") != NULL); /* the clock's */
    ck_assert(strstr(lines, "tiers/1 agg 1795326300 1795326360 ") != NULL); /* 05:45 */
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_04.tiers"));
    free(lines);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 2);
    fx_free(&fx);
}
END_TEST

START_TEST(a_late_line_is_written_with_the_next_write)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    send_agg(&fx, "web1", TEST_NOW, "view", "db", 1, 1, TEST_NOW);
    ingest_tick_tiers(&fx.in, TEST_NOW + 80, 1);
    send_agg(&fx, "web2", TEST_NOW, "view", "db", 2, 1, TEST_NOW + 80); /* late */
    ck_assert_uint_eq(fx.st.tier_lines_late, 1);
    ingest_tick_tiers(&fx.in, TEST_NOW + 81, 1);
    char *lines = read_rel(&fx, "hourly/2026-11-22_05.tiers");
    ck_assert_uint_eq(count_char(lines, strlen(lines), '\n'), 2);
    ck_assert(strstr(lines, "tiers/1 agg 1795326600 1795326660 * 0 view db 2 ") != NULL);
    free(lines);
    /* the views wait for TIERS_VIEWS_INTERVAL after their last write */
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 1);
    ingest_tick_tiers(&fx.in, TEST_NOW + 82, 1 + TIERS_VIEWS_INTERVAL);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 3);
    char *json = read_rel(&fx, "hourly/2026-11-22_05.tiers.json");
    ck_assert(strstr(json, "\"minutes\":1,") != NULL); /* one minute, folded twice */
    free(json);
    fx_free(&fx);
}
END_TEST

START_TEST(too_many_pending_minutes_queue_the_oldest)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    /* minutes still open: now and up to 4 minutes ahead (a clock ahead) */
    for (int i = 0; i < TIERS_PENDING_MAX; i++)
        send_agg(&fx, "web1", TEST_NOW + 60 * i, "view", "db", 1, 1, TEST_NOW);
    send_agg(&fx, "web1", TEST_NOW + 60 * TIERS_PENDING_MAX, "view", "db", 1, 1, TEST_NOW);
    /* the oldest pending minute (05:50) was queued to make room, written on the tick */
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.tiers"));
    ingest_tick_tiers(&fx.in, TEST_NOW, 1);
    char *lines = read_rel(&fx, "hourly/2026-11-22_05.tiers");
    ck_assert_ptr_nonnull(lines);
    ck_assert_uint_eq(count_char(lines, strlen(lines), '\n'), 1);
    ck_assert(strstr(lines, "tiers/1 agg 1795326600 ") != NULL);
    free(lines);
    fx_free(&fx);
}
END_TEST

START_TEST(a_stop_writes_pending_and_a_restart_keeps_the_bucket)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    send_agg(&fx, "web1", TEST_NOW - 120, "view", "db", 4, 1, TEST_NOW);
    send_agg(&fx, "web1", TEST_NOW, "view", "db", 1, 1, TEST_NOW);
    ingest_free(&fx.in); /* a clean stop: both minutes written */
    config_free(&fx.cfg);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 5);
    memset(&fx.st, 0, sizeof fx.st);
    fx_start(&fx, TIER_LOGS); /* the restart: the table comes back from the .tiers file */
    send_agg(&fx, "web2", TEST_NOW, "view", "db", 2, 1, TEST_NOW);
    send_agg(&fx, "web2", TEST_NOW, "edit", "_total", 1, 1, TEST_NOW);
    ingest_tick_tiers(&fx.in, TEST_NOW + 80, 1);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 7);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "edit", "_total"), 1);
    ck_assert_int_eq(json_calls(&fx, "daily/2026-11-22.tiers.json", "view", "db"), 7);
    char *json = read_rel(&fx, "daily/2026-11-22.tiers.json");
    ck_assert(strstr(json, "\"minutes\":2,") != NULL);
    free(json);
    fx_free(&fx);
}
END_TEST

START_TEST(invalid_lines_are_counted_by_reason_and_the_rest_goes_on)
{
    struct fx fx;
    fx_init(&fx, "max_line_bytes: 1024\n" TIER_LOGS);
    const char *msg = "tiers/1 agg 1 2 h 1 id db 0 5 5:1\n"     /* calls 0 */
                      "tiers/1 agg 1 2 h 1 i\td db 1 5 5:1\n"   /* raw control byte */
                      "tiers/1 agg 1 2 h 1 id db 2 5 5:1\n"     /* hist != calls */
                      "tiers/1 nonsense\n"
                      "/srv/index.php;main 3\n";
    send_msg(&fx, msg, 0x3, TEST_NOW, 0);
    strbuf big = STRBUF_INIT;
    strbuf_appends(&big, "tiers/1 agg 1 2 ");
    for (int i = 0; i < 1100; i++)
        strbuf_appendc(&big, 'h');
    ingest_message(&fx.in, big.data, big.len, 0x3, INPUT_SOCKET, TEST_NOW, 0, 0);
    strbuf_free(&big);
    send_agg(&fx, "web1", TEST_NOW, "view", "db", 1, 1, TEST_NOW);
    ck_assert_uint_eq(fx.st.tier_lines_received, 6);
    ck_assert_uint_eq(fx.st.tier_lines_invalid[TIERLINE_BAD_NUMBER], 1);
    ck_assert_uint_eq(fx.st.tier_lines_invalid[TIERLINE_BAD_TEXT], 1);
    ck_assert_uint_eq(fx.st.tier_lines_invalid[TIERLINE_BAD_HIST], 1);
    ck_assert_uint_eq(fx.st.tier_lines_invalid[TIERLINE_BAD_RECORD], 1);
    ck_assert_uint_eq(fx.st.tier_lines_invalid[TIER_LINE_TOO_LONG], 1);
    ck_assert_uint_eq(fx.st.lines_received, 1); /* the sample line is no tier line */
    ingest_tick_tiers(&fx.in, TEST_NOW + 80, 1);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 1);
    fx_free(&fx);
}
END_TEST

START_TEST(identity_overflow_is_counted_per_minute_and_bucket)
{
    struct fx fx;
    fx_init(&fx, "max_tier_identities: 1\n" TIER_LOGS);
    send_agg(&fx, "web1", TEST_NOW - 60, "a", "db", 1, 1, TEST_NOW);
    send_agg(&fx, "web1", TEST_NOW, "b", "db", 1, 1, TEST_NOW);
    send_agg(&fx, "web1", TEST_NOW, "c", "db", 1, 1, TEST_NOW);
    ck_assert_uint_eq(fx.st.tier_identities_overflow, 1); /* c, in 05:50 */
    ingest_tick_tiers(&fx.in, TEST_NOW + 80, 1);
    /* in the bucket, b (and c's _other) meet a: b goes to _other too */
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "a", "db"), 1);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "_other", "db"), 2);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "b", "db"), -1);
    ck_assert_uint_eq(fx.st.tier_identities_overflow, 1 + 2); /* b for each group */
    fx_free(&fx);
}
END_TEST

START_TEST(tier_files_are_retained_apart_from_logs)
{
    struct fx fx;
    fx_prepare(&fx);
    make_dirs(&fx, "hourly");
    /* three old buckets of tier files and a trace log each */
    static const char *const old[] = {"2026-11-22_01", "2026-11-22_02", "2026-11-22_03"};
    for (int i = 0; i < 3; i++) {
        static const char *const suffixes[] = {".tiers", ".tiers.json", ".tiers.txt", ".all.log"};
        for (int k = 0; k < 4; k++) {
            char rel[64];
            snprintf(rel, sizeof rel, "hourly/%s%s", old[i], suffixes[k]);
            write_rel_at(&fx, rel, "", TEST_NOW - 3600 * (10 - i));
        }
    }
    fx_start(&fx, TIER_LOGS);
    send_agg(&fx, "web1", TEST_NOW, "view", "db", 1, 1, TEST_NOW);
    ingest_tick_tiers(&fx.in, TEST_NOW + 80, 1);
    /* retain 2: the newest old bucket and the new one, per suffix; logs untouched */
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_02.tiers"));
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_02.tiers.json"));
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_02.tiers.txt"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_03.tiers"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_03.tiers.txt"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_05.tiers.json"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_01.all.log"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_02.all.log"));
    ck_assert_uint_eq(fx.st.files_pruned, 6);
    fx_free(&fx);
}
END_TEST


/* The attack: valid lines whose END cycle over five minutes within
 * the window, one identity each. Every line used to push a pending minute
 * out and rewrite both views of both groups; now the lines are queued and
 * the tick appends them once and writes each bucket's views once, and
 * nothing is lost. */
START_TEST(cycling_minutes_write_the_views_once_per_tick)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    char id[32];
    for (int i = 0; i < 500; i++) {
        snprintf(id, sizeof id, "id%d", i);
        send_agg(&fx, "web1", TEST_NOW - 60 * (i % 5), id, "db", 1, 1, TEST_NOW);
    }
    ck_assert_uint_eq(fx.st.tier_views_written, 0);
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.tiers"));
    /* 05:46-05:48 were due: late lines, queued; 05:49 and 05:50 are pending */
    ck_assert_uint_eq(fx.st.tier_lines_late, 300);
    ingest_tick_tiers(&fx.in, TEST_NOW, 1);
    ck_assert_uint_eq(fx.st.tier_views_written, 2); /* one bucket of each group */
    ingest_tick_tiers(&fx.in, TEST_NOW, 1.5); /* nothing changed: nothing written */
    ck_assert_uint_eq(fx.st.tier_views_written, 2);
    ingest_free(&fx.in); /* the stop writes 05:49 and 05:50, and the views */
    config_free(&fx.cfg);
    ck_assert_uint_eq(fx.st.tier_views_written, 4);
    for (int i = 0; i < 500; i += 7) {
        snprintf(id, sizeof id, "id%d", i);
        ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", id, "db"), 1);
        ck_assert_int_eq(json_calls(&fx, "daily/2026-11-22.tiers.json", id, "db"), 1);
    }
    char *json = read_rel(&fx, "hourly/2026-11-22_05.tiers.json");
    ck_assert(strstr(json, "\"minutes\":5,") != NULL);
    free(json);
    fx_free(&fx);
}
END_TEST

/* Lines of a minute already due take no slot from the minutes still open:
 * with every slot taken by minutes ahead (a clock ahead), late lines of
 * any number queue no pending minute early. */
START_TEST(late_lines_take_no_pending_slot)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    for (int i = 0; i < TIERS_PENDING_MAX; i++)
        send_agg(&fx, "web1", TEST_NOW + 60 * i, "view", "db", 1, 1, TEST_NOW);
    for (int i = 0; i < 100; i++)
        send_agg(&fx, "web1", TEST_NOW - 120 - 60 * (i % 3), "view", "db", 1, 1, TEST_NOW);
    ck_assert_uint_eq(fx.st.tier_lines_late, 100);
    ingest_tick_tiers(&fx.in, TEST_NOW, 1);
    /* the 100 late lines written; no pending minute went with them */
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 100);
    ck_assert_uint_eq(fx.st.tier_minutes_written[0], 0);
    ingest_tick_tiers(&fx.in, TEST_NOW + 60 * TIERS_PENDING_MAX + 70, 1 + TIERS_VIEWS_INTERVAL);
    ck_assert_uint_eq(fx.st.tier_minutes_written[0], TIERS_PENDING_MAX);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"),
                     100 + TIERS_PENDING_MAX);
    fx_free(&fx);
}
END_TEST

/* Minutes on both sides of an hour: both buckets stay open, neither is
 * read back from its file again, and each bucket's views are written once
 * per tick however the lines alternate. */
START_TEST(minutes_across_an_hour_keep_both_buckets_open)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    time_t now = TEST_NOW + 600; /* 06:00:01 */
    for (int i = 0; i < 200; i++)
        send_agg(&fx, "web1", now - 60 * (i % 4), "view", "db", 1, 1, now); /* 05:57-06:00 */
    ingest_tick_tiers(&fx.in, now, 1);
    /* hourly: 05 and 06 (06 only pending); daily: one bucket */
    ck_assert_uint_eq(fx.st.tier_views_written, 2);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 100);
    ingest_tick_tiers(&fx.in, now + 80, 1 + TIERS_VIEWS_INTERVAL);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "view", "db"), 150);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_06.tiers.json", "view", "db"), 50);
    ck_assert_int_eq(json_calls(&fx, "daily/2026-11-22.tiers.json", "view", "db"), 200);
    fx_free(&fx);
}
END_TEST

/* A reserved identity (reserved_tier_identities) comes through the daemon
 * whole after 1,000 junk identities of the same minute. */
START_TEST(reserved_identity_survives_junk_through_ingest)
{
    struct fx fx;
    fx_init(&fx, "max_tier_identities: 10\nreserved_tier_identities: [edit]\n" TIER_LOGS);
    char id[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "junk%d", i);
        send_agg(&fx, "web1", TEST_NOW, id, "db", 1, 1, TEST_NOW);
    }
    send_agg(&fx, "web1", TEST_NOW, "edit", "db", 3, 1, TEST_NOW);
    ingest_tick_tiers(&fx.in, TEST_NOW + 80, 1);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "edit", "db"), 3);
    ck_assert_int_eq(json_calls(&fx, "daily/2026-11-22.tiers.json", "edit", "db"), 3);
    ck_assert_int_eq(json_calls(&fx, "hourly/2026-11-22_05.tiers.json", "_other", "db"), 990);
    fx_free(&fx);
}
END_TEST

START_TEST(groups_not_fed_by_the_channel_get_no_tier_table)
{
    struct fx fx;
    fx_init(&fx, TIER_LOGS);
    const char *line = "tiers/1 agg 1795326596 1795326601 web1 1 view db 1 5 5:1";
    send_msg(&fx, line, 0x2, TEST_NOW, 0);
    ingest_tick_tiers(&fx.in, TEST_NOW + 80, 1);
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.tiers"));
    ck_assert(exists_rel(&fx, "daily/2026-11-22.tiers"));
    ck_assert_uint_eq(fx.st.tier_minutes_written[0], 0);
    ck_assert_uint_eq(fx.st.tier_minutes_written[1], 1);
    fx_free(&fx);
}
END_TEST

Suite *tiers_suite(void)
{
    Suite *s = suite_create("tiers");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, merging_two_hosts_adds_calls_time_and_histograms);
    tcase_add_test(tc, identities_past_the_limit_become_other);
    tcase_add_test(tc, tiers_past_64_and_histograms_past_the_budget_are_dropped);
    tcase_add_test(tc, reserved_identities_are_never_other);
    tcase_add_test(tc, counts_saturate_at_2_pow_53);
    tcase_add_test(tc, lines_round_trip_through_the_wire_format);
    tcase_add_test(tc, json_is_the_documented_shape);
    tcase_add_test(tc, json_escapes_hostile_identities);
    tcase_add_test(tc, text_table_orders_by_time_total_first);
    tcase_add_test(tc, minutes_merge_hosts_and_wait_for_the_grace);
    tcase_add_test(tc, end_far_from_the_clock_takes_the_clock);
    tcase_add_test(tc, a_late_line_is_written_with_the_next_write);
    tcase_add_test(tc, too_many_pending_minutes_queue_the_oldest);
    tcase_add_test(tc, a_stop_writes_pending_and_a_restart_keeps_the_bucket);
    tcase_add_test(tc, invalid_lines_are_counted_by_reason_and_the_rest_goes_on);
    tcase_add_test(tc, identity_overflow_is_counted_per_minute_and_bucket);
    tcase_add_test(tc, tier_files_are_retained_apart_from_logs);
    tcase_add_test(tc, cycling_minutes_write_the_views_once_per_tick);
    tcase_add_test(tc, late_lines_take_no_pending_slot);
    tcase_add_test(tc, minutes_across_an_hour_keep_both_buckets_open);
    tcase_add_test(tc, reserved_identity_survives_junk_through_ingest);
    tcase_add_test(tc, groups_not_fed_by_the_channel_get_no_tier_table);
    suite_add_tcase(s, tc);
    return s;
}
