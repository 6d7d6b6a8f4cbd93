/* Tests of request tiers: the minute machinery through ingest (tiers.c:
 * minutes by END, the grace, the pending limit, late lines, the files of a
 * bucket and their rebuild after a restart, retention). The tables
 * themselves (common/src/tiertable.c) are tested in common/tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/ingest.h"
#include "ingestfx.h"
#include "../src/tiers.h"
#include "tiertable.h"
#include "strbuf.h"
#include "test-suites.h"

/* TEST_NOW is 05:50:01; its minute starts at 05:50:00. */
#define MINUTE_NOW (TEST_NOW - 1)

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
