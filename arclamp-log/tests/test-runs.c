/* Tests of hierarchical runs: reassembly and its bounds (runs.c, with an
 * injected monotonic clock: every call takes the time), the checks of a
 * version 2 run's names, and their way through ingest into run logs next
 * to the trace logs, once per log group. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../src/ingest.h"
#include "fixedhash.h"
#include "ingestfx.h"
#include "../src/runs.h"
#include "../src/tracefile.h"
#include "strbuf.h"
#include "test-suites.h"

/* --- run lines ---------------------------------------------------------------- */

#define ENTRY "/srv/mediawiki/index.php"

static char *begin_line(const char *runid, const char *entry)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appendf(&sb, "xhprof/1 %s begin 1795326601 web1 wt,cpu,mu,pmu %s", runid, entry);
    return (char *)strbuf_cstr(&sb);
}

static char *arc_line(const char *runid, int i)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appendf(&sb, "xhprof/1 %s arc %d %d 90 -10 20 main()==>f%d", runid, i + 1,
                   100 * (i + 1), i);
    return (char *)strbuf_cstr(&sb);
}

static char *end_line(const char *runid, long sent)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appendf(&sb, "xhprof/1 %s end %ld 0", runid, sent);
    return (char *)strbuf_cstr(&sb);
}

/* Version 2 lines: a line of any shape, formatted. */
static char *v2_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *v2_line(const char *fmt, ...)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "xhprof/2 ");
    va_list ap;
    va_start(ap, fmt);
    strbuf_vappendf(&sb, fmt, ap);
    va_end(ap);
    return (char *)strbuf_cstr(&sb);
}

/* --- the runs module alone ---------------------------------------------------- */

struct rfx {
    struct stats st;
    struct runs runs;
    strbuf expect[4];  /* the lines each of up to four runs should come out with */
};

static const struct runs_limits DEFAULT_LIMITS = {
    .max_pending = 1000,
    .max_run_bytes = 4 << 20,
    .max_pending_bytes = 64 << 20,
    .timeout = 60,
    .report_interval = 10,
};

static void rfx_init(struct rfx *fx, const struct runs_limits *lim)
{
    memset(fx, 0, sizeof *fx);
    runs_init(&fx->runs, lim ? lim : &DEFAULT_LIMITS, &fx->st);
}

static void rfx_free(struct rfx *fx)
{
    runs_free(&fx->runs, 0);
    for (size_t i = 0; i < sizeof fx->expect / sizeof fx->expect[0]; i++)
        strbuf_free(&fx->expect[i]);
}

/* Feeds one line (freed here); returns the run it completed, or NULL. When
 * `expect` is given the line is added to what that run should hold. */
static struct run *feed(struct rfx *fx, char *line, double mono, strbuf *expect)
{
    struct runline rl;
    size_t len = strlen(line);
    ck_assert_msg(runline_parse(line, len, &rl) == RUNLINE_OK, "test line refused: %s", line);
    struct run *done = runs_take(&fx->runs, line, len, &rl, 0x5, mono);
    if (expect) {
        strbuf_appends(expect, line);
        strbuf_appendc(expect, '\n');
    }
    free(line);
    return done;
}

/* Checks a completed run against what it should hold, and releases it. */
static void check_done(struct rfx *fx, struct run *done, const char *runid, strbuf *expect)
{
    ck_assert_ptr_nonnull(done);
    ck_assert_str_eq(done->runid, runid);
    ck_assert_uint_eq(done->groups, 0x5);
    ck_assert_uint_eq(done->lines.len, expect->len);
    ck_assert(memcmp(done->lines.data, expect->data, expect->len) == 0);
    runs_release(&fx->runs, done);
}

static uint64_t dropped_total(const struct stats *st)
{
    uint64_t n = 0;
    for (int r = 0; r < RUN_DROP_NREASONS; r++)
        n += st->runs_dropped[r];
    return n;
}

/* The hash arclamp-log gave run ids before it was keyed (64-bit FNV-1a,
 * fixedhash.h): what a sender could compute to craft ids sharing one bucket. */
static uint64_t unkeyed_fnv1a(const char *s)
{
    return fixedhash_fnv1a64(s, strlen(s));
}

/* 999 run ids that all fell into bucket 0 of the former hash, each line of
 * a run walking a chain of 999: under the keyed hash no bucket holds more
 * than a few of them. */
START_TEST(run_ids_crafted_to_share_a_bucket_spread)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    uint64_t mask = fx.runs.table_size - 1;
    int crafted = 0;
    for (unsigned long i = 0; crafted < 999; i++) {
        char id[32];
        snprintf(id, sizeof id, "c%lx", i);
        if ((unkeyed_fnv1a(id) & mask) != 0)
            continue;
        ck_assert_ptr_null(feed(&fx, begin_line(id, ENTRY), 1, NULL));
        crafted++;
    }
    ck_assert_uint_eq(fx.st.runs_pending, 999);
    /* 999 ids in 2048 buckets: a random bucket seldom holds more than 6 */
    ck_assert_uint_le(runs_longest_chain(&fx.runs), 16);
    rfx_free(&fx);
}
END_TEST

START_TEST(run_is_put_together_from_its_lines)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    ck_assert_ptr_null(feed(&fx, begin_line("r1", ENTRY), 1, &fx.expect[0]));
    ck_assert_uint_eq(fx.st.runs_received, 1);
    ck_assert_uint_eq(fx.st.runs_pending, 1);
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_null(feed(&fx, arc_line("r1", i), 1, &fx.expect[0]));
    struct run *done = feed(&fx, end_line("r1", 3), 1, &fx.expect[0]);
    ck_assert_str_eq(done->tag, "index");
    ck_assert_uint_eq(done->arcs, 3);
    check_done(&fx, done, "r1", &fx.expect[0]);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    ck_assert_uint_eq(fx.runs.count, 0);
    ck_assert_uint_eq(fx.runs.bytes, 0);
    ck_assert_uint_eq(dropped_total(&fx.st), 0);
    rfx_free(&fx);
}
END_TEST

START_TEST(entry_without_a_tag_leaves_the_tag_empty)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    feed(&fx, begin_line("r1", "/srv/run.sh"), 1, &fx.expect[0]);
    feed(&fx, begin_line("r2", "/srv/all.php"), 1, &fx.expect[1]); /* a name refused as a tag */
    struct run *done = feed(&fx, end_line("r1", 0), 1, &fx.expect[0]);
    ck_assert_str_eq(done->tag, "");
    check_done(&fx, done, "r1", &fx.expect[0]);
    done = feed(&fx, end_line("r2", 0), 1, &fx.expect[1]);
    ck_assert_str_eq(done->tag, "");
    check_done(&fx, done, "r2", &fx.expect[1]);
    rfx_free(&fx);
}
END_TEST

START_TEST(interleaved_runs_come_out_whole_and_apart)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    feed(&fx, begin_line("a", ENTRY), 1, &fx.expect[0]);
    feed(&fx, begin_line("b", "/srv/api.php"), 1, &fx.expect[1]);
    feed(&fx, arc_line("a", 0), 1, &fx.expect[0]);
    feed(&fx, arc_line("b", 0), 1, &fx.expect[1]);
    feed(&fx, begin_line("c", ENTRY), 1, &fx.expect[2]);
    feed(&fx, arc_line("a", 1), 1, &fx.expect[0]);
    check_done(&fx, feed(&fx, end_line("b", 1), 1, &fx.expect[1]), "b", &fx.expect[1]);
    feed(&fx, arc_line("c", 0), 1, &fx.expect[2]);
    check_done(&fx, feed(&fx, end_line("a", 2), 1, &fx.expect[0]), "a", &fx.expect[0]);
    ck_assert_uint_eq(fx.st.runs_pending, 1);
    check_done(&fx, feed(&fx, end_line("c", 1), 1, &fx.expect[2]), "c", &fx.expect[2]);
    ck_assert_uint_eq(fx.st.runs_received, 3);
    ck_assert_uint_eq(dropped_total(&fx.st), 0);
    rfx_free(&fx);
}
END_TEST

START_TEST(second_begin_drops_the_first_as_duplicate)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    feed(&fx, begin_line("r1", ENTRY), 1, NULL);
    feed(&fx, arc_line("r1", 0), 1, NULL);
    feed(&fx, begin_line("r1", "/srv/api.php"), 2, &fx.expect[0]);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_DUPLICATE], 1);
    ck_assert_uint_eq(fx.st.runs_pending, 1);
    feed(&fx, arc_line("r1", 5), 2, &fx.expect[0]);
    struct run *done = feed(&fx, end_line("r1", 1), 2, &fx.expect[0]);
    ck_assert_str_eq(done->tag, "api");
    check_done(&fx, done, "r1", &fx.expect[0]);
    ck_assert_uint_eq(dropped_total(&fx.st), 1);
    rfx_free(&fx);
}
END_TEST

START_TEST(lines_without_a_begin_count_once_per_run)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    for (int i = 0; i < 5; i++)
        ck_assert_ptr_null(feed(&fx, arc_line("orphan", i), 1, NULL));
    ck_assert_ptr_null(feed(&fx, end_line("orphan", 5), 1, NULL));
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_NO_BEGIN], 1);
    ck_assert_uint_eq(fx.runs.count, 0); /* the end line took the marker away */
    ck_assert_ptr_null(feed(&fx, end_line("lonely", 0), 1, NULL)); /* an end line alone */
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_NO_BEGIN], 2);
    ck_assert_uint_eq(fx.runs.count, 0);
    ck_assert_uint_eq(fx.st.runs_received, 0);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    rfx_free(&fx);
}
END_TEST

START_TEST(end_with_another_arc_count_drops_the_run)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    feed(&fx, begin_line("few", ENTRY), 1, NULL);
    feed(&fx, arc_line("few", 0), 1, NULL);
    ck_assert_ptr_null(feed(&fx, end_line("few", 2), 1, NULL)); /* one arc line was lost */
    feed(&fx, begin_line("many", ENTRY), 1, NULL);
    feed(&fx, arc_line("many", 0), 1, NULL);
    feed(&fx, arc_line("many", 1), 1, NULL);
    ck_assert_ptr_null(feed(&fx, end_line("many", 1), 1, NULL));
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_ARCS_MISSING], 2);
    ck_assert_uint_eq(fx.runs.count, 0);
    ck_assert_uint_eq(fx.runs.bytes, 0);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    rfx_free(&fx);
}
END_TEST

/* A version 2 run: fn lines are kept with it but are no arc lines; the run
 * comes out as it was sent. */
START_TEST(v2_run_is_put_together_and_its_fn_lines_are_no_arcs)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    strbuf *x = &fx.expect[0];
    feed(&fx, v2_line("r2 begin 1795326601 web1 wt,cpu /srv/w/api.php"), 1, x);
    feed(&fx, v2_line("r2 fn 0 main()"), 1, x);
    feed(&fx, v2_line("r2 arc 1 900 800 - - - 0"), 1, x);
    feed(&fx, v2_line("r2 fn 1 Foo::bar"), 1, x);
    feed(&fx, v2_line("r2 arc 2 500 400 - - 0 1"), 1, x);
    feed(&fx, v2_line("r2 arc 1 100 90 - - 1 1@1"), 1, x);
    struct run *done = feed(&fx, v2_line("r2 end 3 0"), 1, x);
    ck_assert_ptr_nonnull(done);
    ck_assert_str_eq(done->tag, "api");
    ck_assert_uint_eq(done->arcs, 3);
    check_done(&fx, done, "r2", x);
    ck_assert_uint_eq(dropped_total(&fx.st), 0);
    rfx_free(&fx);
}
END_TEST

/* Feeds a version 2 run of the given body lines (after its begin) and
 * returns what became of it. */
static struct run *feed_v2(struct rfx *fx, const char *runid, const char *const *body, int n,
                           int sent)
{
    feed(fx, v2_line("%s begin 1795326601 web1 wt /srv/index.php", runid), 1, NULL);
    for (int i = 0; i < n; i++)
        feed(fx, v2_line("%s %s", runid, body[i]), 1, NULL);
    return feed(fx, v2_line("%s end %d 0", runid, sent), 1, NULL);
}

START_TEST(v2_run_with_bad_ids_is_refused_whole_when_it_completes)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    static const char *const undefined[] = {"fn 0 main()", "arc 1 9 - - - - 0", "arc 1 5 - - - 0 1"};
    static const char *const used_first[] = {"fn 0 main()", "arc 1 5 - - - 0 1", "fn 1 f"};
    static const char *const root_first[] = {"arc 1 9 - - - - 0", "fn 0 main()"};
    static const char *const redefined[] = {"fn 0 main()", "arc 1 9 - - - - 0", "fn 1 f",
                                            "fn 1 g", "arc 1 5 - - - 0 1"};
    static const char *const caller_undefined[] = {"fn 1 f", "arc 1 5 - - - 0 1"};
    static const char *const fine[] = {"fn 7 main()", "arc 1 9 - - - - 7", "fn 3 f",
                                       "arc 1 5 - - - 7@2 3@1"};
    ck_assert_ptr_null(feed_v2(&fx, "u1", undefined, 3, 2));
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_BAD_IDS], 1);
    /* the lines went in (still pending, in bounds) until the end came */
    ck_assert_ptr_null(feed_v2(&fx, "u2", used_first, 3, 1));
    ck_assert_ptr_null(feed_v2(&fx, "u3", root_first, 2, 1));
    ck_assert_ptr_null(feed_v2(&fx, "u4", redefined, 5, 2));
    ck_assert_ptr_null(feed_v2(&fx, "u5", caller_undefined, 2, 1));
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_BAD_IDS], 5);
    struct run *done = feed_v2(&fx, "ok", fine, 4, 2);
    ck_assert_ptr_nonnull(done);
    runs_release(&fx.runs, done);
    ck_assert_uint_eq(dropped_total(&fx.st), 5);
    ck_assert_uint_eq(fx.runs.count, 0);
    ck_assert_uint_eq(fx.runs.bytes, 0);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    rfx_free(&fx);
}
END_TEST

START_TEST(run_of_two_versions_is_refused)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    feed(&fx, begin_line("m1", ENTRY), 1, NULL);
    feed(&fx, v2_line("m1 fn 0 main()"), 1, NULL);
    feed(&fx, arc_line("m1", 0), 1, NULL);
    ck_assert_ptr_null(feed(&fx, end_line("m1", 1), 1, NULL));
    feed(&fx, v2_line("m2 begin 1795326601 web1 wt /srv/index.php"), 1, NULL);
    feed(&fx, v2_line("m2 fn 0 main()"), 1, NULL);
    feed(&fx, v2_line("m2 arc 1 9 - - - - 0"), 1, NULL);
    ck_assert_ptr_null(feed(&fx, end_line("m2", 1), 1, NULL)); /* a version 1 end */
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_BAD_IDS], 2);
    ck_assert_uint_eq(dropped_total(&fx.st), 2);
    rfx_free(&fx);
}
END_TEST

START_TEST(fn_lines_without_a_begin_count_once_per_run)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    feed(&fx, v2_line("o fn 0 main()"), 1, NULL);
    feed(&fx, v2_line("o arc 1 9 - - - - 0"), 1, NULL);
    feed(&fx, v2_line("o fn 1 f"), 1, NULL);
    ck_assert_ptr_null(feed(&fx, v2_line("o end 1 0"), 1, NULL));
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_NO_BEGIN], 1);
    ck_assert_uint_eq(dropped_total(&fx.st), 1);
    ck_assert_uint_eq(fx.runs.count, 0);
    rfx_free(&fx);
}
END_TEST

START_TEST(run_past_max_run_bytes_is_dropped_once)
{
    struct runs_limits lim = DEFAULT_LIMITS;
    lim.max_run_bytes = 4096;
    struct rfx fx;
    rfx_init(&fx, &lim);
    feed(&fx, begin_line("big", ENTRY), 1, NULL);
    int i = 0;
    while (fx.st.runs_dropped[RUN_DROP_TOO_BIG] == 0 && i < 1000) {
        ck_assert_uint_le(fx.runs.bytes, 4096);
        feed(&fx, arc_line("big", i++), 1, NULL);
    }
    ck_assert_int_lt(i, 1000);
    ck_assert_uint_eq(fx.runs.bytes, 0);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    for (int j = 0; j < 50; j++) /* the rest of the run is on its way: ignored */
        feed(&fx, arc_line("big", i + j), 1, NULL);
    ck_assert_ptr_null(feed(&fx, end_line("big", i + 50), 1, NULL));
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_TOO_BIG], 1);
    ck_assert_uint_eq(dropped_total(&fx.st), 1);
    ck_assert_uint_eq(fx.runs.count, 0);

    /* a run of exactly max_run_bytes is fine */
    feed(&fx, begin_line("fits", ENTRY), 1, &fx.expect[0]);
    int arcs = 0;
    for (;;) {
        char *next = arc_line("fits", arcs);
        char *end = end_line("fits", arcs + 1);
        size_t after = fx.expect[0].len + strlen(next) + 1 + strlen(end) + 1;
        free(end);
        if (after + 100 > 4096) { /* leave room for the pad arc below */
            free(next);
            break;
        }
        feed(&fx, next, 1, &fx.expect[0]);
        arcs++;
    }
    /* pad the end line's run to exactly 4096 bytes with one arc of the right size */
    char *end = end_line("fits", arcs + 1);
    size_t room = 4096 - fx.expect[0].len - (strlen(end) + 1) - 1;
    free(end);
    strbuf pad = STRBUF_INIT;
    strbuf_appendf(&pad, "xhprof/1 fits arc 1 1 - - - ");
    while (pad.len < room)
        strbuf_appendc(&pad, 'k');
    feed(&fx, xstrdup(strbuf_cstr(&pad)), 1, &fx.expect[0]);
    strbuf_free(&pad);
    struct run *done = feed(&fx, end_line("fits", arcs + 1), 1, &fx.expect[0]);
    ck_assert_uint_eq(fx.expect[0].len, 4096);
    check_done(&fx, done, "fits", &fx.expect[0]);
    ck_assert_uint_eq(dropped_total(&fx.st), 1);
    rfx_free(&fx);
}
END_TEST

START_TEST(max_pending_runs_pushes_out_the_oldest)
{
    struct runs_limits lim = DEFAULT_LIMITS;
    lim.max_pending = 3;
    struct rfx fx;
    rfx_init(&fx, &lim);
    feed(&fx, begin_line("r0", ENTRY), 1, NULL);
    feed(&fx, begin_line("r1", ENTRY), 2, &fx.expect[0]);
    feed(&fx, begin_line("r2", ENTRY), 3, &fx.expect[1]);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_PENDING_LIMIT], 0);
    feed(&fx, begin_line("r3", ENTRY), 4, &fx.expect[2]);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_PENDING_LIMIT], 1);
    ck_assert_uint_eq(fx.runs.count, 3);
    ck_assert_uint_eq(fx.st.runs_pending, 3);
    /* a line of no known run leaves no marker when only runs fill the table */
    feed(&fx, arc_line("stray", 0), 5, NULL);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_NO_BEGIN], 1);
    ck_assert_uint_eq(fx.runs.count, 3);
    check_done(&fx, feed(&fx, end_line("r1", 0), 6, &fx.expect[0]), "r1", &fx.expect[0]);
    check_done(&fx, feed(&fx, end_line("r2", 0), 6, &fx.expect[1]), "r2", &fx.expect[1]);
    check_done(&fx, feed(&fx, end_line("r3", 0), 6, &fx.expect[2]), "r3", &fx.expect[2]);
    rfx_free(&fx);
}
END_TEST

START_TEST(markers_give_way_to_new_runs)
{
    struct runs_limits lim = DEFAULT_LIMITS;
    lim.max_pending = 2;
    struct rfx fx;
    rfx_init(&fx, &lim);
    feed(&fx, arc_line("x", 0), 1, NULL); /* two markers fill the table */
    feed(&fx, arc_line("y", 0), 1, NULL);
    ck_assert_uint_eq(fx.runs.count, 2);
    feed(&fx, begin_line("r", ENTRY), 2, &fx.expect[0]);
    ck_assert_uint_eq(fx.runs.count, 2); /* the older marker went */
    feed(&fx, begin_line("s", ENTRY), 2, &fx.expect[1]);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_PENDING_LIMIT], 0);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_NO_BEGIN], 2);
    check_done(&fx, feed(&fx, end_line("r", 0), 3, &fx.expect[0]), "r", &fx.expect[0]);
    check_done(&fx, feed(&fx, end_line("s", 0), 3, &fx.expect[1]), "s", &fx.expect[1]);
    rfx_free(&fx);
}
END_TEST

START_TEST(max_pending_bytes_drops_the_oldest_runs)
{
    struct runs_limits lim = DEFAULT_LIMITS;
    lim.max_run_bytes = 8192;
    lim.max_pending_bytes = 8192;
    struct rfx fx;
    rfx_init(&fx, &lim);
    feed(&fx, begin_line("old", ENTRY), 1, NULL);
    for (int i = 0; i < 40; i++)
        feed(&fx, arc_line("old", i), 1, NULL);
    size_t old_bytes = fx.runs.bytes;
    feed(&fx, begin_line("new", ENTRY), 2, &fx.expect[0]);
    int i = 0;
    while (fx.st.runs_dropped[RUN_DROP_PENDING_LIMIT] == 0 && i < 1000)
        feed(&fx, arc_line("new", i++), 2, &fx.expect[0]);
    ck_assert_int_lt(i, 1000);
    ck_assert_uint_gt(old_bytes + fx.expect[0].len, 8192); /* it dropped when it had to */
    ck_assert_uint_eq(fx.runs.bytes, fx.expect[0].len);
    ck_assert_uint_eq(fx.st.runs_pending, 1);
    for (int j = 40; j < 45; j++) /* the old run's rest: swallowed by its marker */
        feed(&fx, arc_line("old", j), 3, NULL);
    feed(&fx, end_line("old", 45), 3, NULL);
    check_done(&fx, feed(&fx, end_line("new", i), 3, &fx.expect[0]), "new", &fx.expect[0]);
    ck_assert_uint_eq(dropped_total(&fx.st), 1);
    ck_assert_uint_eq(fx.runs.count, 0);

    /* the oldest is dropped even when it is the run growing */
    feed(&fx, begin_line("first", ENTRY), 4, NULL);
    feed(&fx, begin_line("second", ENTRY), 4, &fx.expect[1]);
    feed(&fx, arc_line("second", 0), 4, &fx.expect[1]);
    i = 0;
    while (fx.st.runs_dropped[RUN_DROP_PENDING_LIMIT] == 1 && i < 1000)
        feed(&fx, arc_line("first", i++), 4, NULL);
    ck_assert_int_lt(i, 1000);
    ck_assert_uint_eq(fx.st.runs_pending, 1);
    ck_assert_uint_le(fx.runs.bytes, 8192);
    feed(&fx, end_line("first", i), 5, NULL); /* its marker takes the end */
    check_done(&fx, feed(&fx, end_line("second", 1), 5, &fx.expect[1]), "second",
               &fx.expect[1]);
    ck_assert_uint_eq(dropped_total(&fx.st), 2);
    rfx_free(&fx);
}
END_TEST

START_TEST(run_without_its_end_times_out)
{
    struct runs_limits lim = DEFAULT_LIMITS;
    lim.timeout = 5;
    struct rfx fx;
    rfx_init(&fx, &lim);
    feed(&fx, begin_line("slow", ENTRY), 100, NULL);
    feed(&fx, arc_line("slow", 0), 101, NULL);
    feed(&fx, begin_line("later", ENTRY), 103, &fx.expect[0]);
    runs_expire(&fx.runs, 104.9);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_TIMEOUT], 0);
    runs_expire(&fx.runs, 105);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_TIMEOUT], 1);
    ck_assert_uint_eq(fx.st.runs_pending, 1);
    feed(&fx, arc_line("slow", 1), 106, NULL); /* late lines of the dropped run: ignored */
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_NO_BEGIN], 0);
    runs_expire(&fx.runs, 108);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_TIMEOUT], 2); /* "later" too */
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    runs_expire(&fx.runs, 113); /* the markers are forgotten after one more timeout */
    ck_assert_uint_eq(fx.runs.count, 0);
    ck_assert_uint_eq(dropped_total(&fx.st), 2);
    rfx_free(&fx);
}
END_TEST

START_TEST(pending_runs_at_free_count_as_stopped)
{
    struct rfx fx;
    rfx_init(&fx, NULL);
    feed(&fx, begin_line("a", ENTRY), 1, NULL);
    feed(&fx, begin_line("b", ENTRY), 1, NULL);
    feed(&fx, arc_line("c", 0), 1, NULL); /* a marker: not counted again */
    rfx_free(&fx);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_STOPPED], 2);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
}
END_TEST

START_TEST(many_runs_stay_within_the_table)
{
    struct runs_limits lim = DEFAULT_LIMITS;
    lim.max_pending = 100;
    struct rfx fx;
    rfx_init(&fx, &lim);
    char id[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(id, sizeof id, "run-%d", i);
        feed(&fx, begin_line(id, ENTRY), 1, NULL);
        feed(&fx, arc_line(id, 0), 1, NULL);
        ck_assert_uint_le(fx.runs.count, 100);
    }
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_PENDING_LIMIT], 4900);
    for (int i = 4900; i < 5000; i++) {
        snprintf(id, sizeof id, "run-%d", i);
        struct run *done = feed(&fx, end_line(id, 1), 2, NULL);
        ck_assert_ptr_nonnull(done);
        runs_release(&fx.runs, done);
    }
    ck_assert_uint_eq(fx.runs.count, 0);
    rfx_free(&fx);
}
END_TEST

/* --- through ingest into run logs ----------------------------------------------- */

#define RUN_LOGS                                                                             \
    "logs:\n"                                                                                \
    "  - {period: hourly, format: '%Y-%m-%d_%H', retain: 2}\n"                               \
    "  - {period: daily, format: '%Y-%m-%d', retain: 2}\n"

/* Sends the message, which is freed. */
static void send_text(struct fx *fx, strbuf *msg, unsigned long long groups, double mono)
{
    ingest_message(&fx->in, msg->data, msg->len, groups, INPUT_SOCKET, TEST_NOW, mono, 0);
    strbuf_free(msg);
}

static void add_line(strbuf *msg, strbuf *expect, char *line)
{
    strbuf_appends(msg, line);
    strbuf_appendc(msg, '\n');
    if (expect) {
        strbuf_appends(expect, line);
        strbuf_appendc(expect, '\n');
    }
    free(line);
}

START_TEST(runs_split_over_messages_are_written_whole_next_to_samples)
{
    struct fx fx;
    fx_init(&fx, RUN_LOGS);
    strbuf a = STRBUF_INIT, b = STRBUF_INIT, m1 = STRBUF_INIT, m2 = STRBUF_INIT,
           m3 = STRBUF_INIT;
    add_line(&m1, &a, begin_line("aaa", ENTRY));
    add_line(&m1, NULL, xstrdup("/srv/mediawiki/index.php;main 3"));
    add_line(&m1, &a, arc_line("aaa", 0));
    add_line(&m1, &b, begin_line("bbb", "/srv/api.php"));
    send_text(&fx, &m1, 3, 1.0);
    add_line(&m2, &b, arc_line("bbb", 0));
    add_line(&m2, &a, arc_line("aaa", 1));
    add_line(&m2, NULL, xstrdup("main;x 2"));
    add_line(&m2, &b, end_line("bbb", 1));
    send_text(&fx, &m2, 3, 1.0);
    add_line(&m3, &a, end_line("aaa", 2));
    strbuf_appends(&m3, "xhprof/1 aaa end"); /* a broken line after it: counted only */
    send_text(&fx, &m3, 3, 1.0);
    fileset_flush(&fx.in.files, 1.0);

    /* once per group: each run in its entry point's run log only */
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.all.runs"));
    ck_assert(!exists_rel(&fx, "daily/2026-11-22.all.runs"));
    assert_rel(&fx, "hourly/2026-11-22_05.index.runs", strbuf_cstr(&a));
    assert_rel(&fx, "hourly/2026-11-22_05.api.runs", strbuf_cstr(&b));
    assert_rel(&fx, "daily/2026-11-22.index.runs", strbuf_cstr(&a));
    assert_rel(&fx, "daily/2026-11-22.api.runs", strbuf_cstr(&b));
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "/srv/mediawiki/index.php;main 3\nmain;x 2\n");
    assert_rel(&fx, "hourly/2026-11-22_05.index.log", "/srv/mediawiki/index.php;main 3\n");
    ck_assert_uint_eq(fx.st.lines_received, 2); /* sample lines only */
    ck_assert_uint_eq(fx.st.lines_written[0], 2);
    ck_assert_uint_eq(fx.st.runs_received, 2);
    ck_assert_uint_eq(fx.st.runs_written[0], 2);
    ck_assert_uint_eq(fx.st.runs_written[1], 2);
    ck_assert_uint_eq(fx.st.run_lines_invalid[RUNLINE_BAD_RECORD], 1);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_NO_COUNT], 0);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    /* and nothing more: the runs once and the samples per group */
    size_t samples = 2 * strlen("/srv/mediawiki/index.php;main 3\n") + strlen("main;x 2\n");
    ck_assert_uint_eq(fx.st.bytes_written, 2 * (a.len + b.len) + 2 * samples);
    strbuf_free(&a);
    strbuf_free(&b);
    fx_free(&fx);
}
END_TEST

START_TEST(runs_go_only_to_the_groups_of_their_channel_without_sample_pop)
{
    struct fx fx;
    fx_init(&fx, "redis_channels: [excimer, xhprof]\n"
                  "logs:\n"
                  "  - {period: cpu, format: '%Y', retain: 2, channels: [excimer], sample_pop: 5}\n"
                  "  - {period: runs, format: '%Y', retain: 2, channels: [xhprof], sample_pop: 5}\n");
    unsigned long long xhprof = config_groups_for_channel(&fx.cfg, "xhprof");
    strbuf want = STRBUF_INIT;
    for (int r = 0; r < 3; r++) {
        char id[16];
        snprintf(id, sizeof id, "r%d", r);
        strbuf m = STRBUF_INIT;
        add_line(&m, &want, begin_line(id, ENTRY));
        add_line(&m, &want, end_line(id, 0));
        send_text(&fx, &m, xhprof, 1.0);
    }
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "runs/2026.index.runs", strbuf_cstr(&want));
    ck_assert_int_eq(count_rel(&fx, "runs"), 1);
    ck_assert(!exists_rel(&fx, "cpu"));
    ck_assert_uint_eq(fx.st.runs_written[1], 3);
    strbuf_free(&want);
    fx_free(&fx);
}
END_TEST

/* Version 2 runs through ingest, next to version 1 ones: written once per
 * group as sent; one with an undefined id is counted and written nowhere. */
START_TEST(v2_runs_are_written_once_per_group_and_bad_ones_nowhere)
{
    struct fx fx;
    fx_init(&fx, RUN_LOGS);
    strbuf m = STRBUF_INIT, good = STRBUF_INIT, old = STRBUF_INIT;
    add_line(&m, &good, v2_line("v2 begin 1795326601 web1 wt,mu /srv/w/index.php"));
    add_line(&m, &good, v2_line("v2 fn 0 main()"));
    add_line(&m, &good, v2_line("v2 arc 1 900 - 10 - - 0"));
    add_line(&m, NULL, v2_line("bad begin 1795326601 web1 wt /srv/w/index.php"));
    add_line(&m, &good, v2_line("v2 fn 1 A%%0Ab"));
    add_line(&m, NULL, v2_line("bad fn 0 main()"));
    add_line(&m, &good, v2_line("v2 arc 1 800 - -10 - 0 1"));
    add_line(&m, NULL, v2_line("bad arc 1 800 - - - 0 1"));
    add_line(&m, &good, v2_line("v2 end 2 5"));
    add_line(&m, NULL, v2_line("bad end 1 0"));
    add_line(&m, &old, begin_line("v1", ENTRY));
    add_line(&m, &old, arc_line("v1", 0));
    add_line(&m, &old, end_line("v1", 1));
    add_line(&m, NULL, v2_line("v2x fn 00 main()")); /* a bad line: counted as such */
    send_text(&fx, &m, 3, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    strbuf_append(&good, old.data, old.len);
    assert_rel(&fx, "hourly/2026-11-22_05.index.runs", strbuf_cstr(&good));
    assert_rel(&fx, "daily/2026-11-22.index.runs", strbuf_cstr(&good));
    ck_assert_int_eq(count_rel(&fx, "hourly"), 1);
    ck_assert_uint_eq(fx.st.runs_received, 3);
    ck_assert_uint_eq(fx.st.runs_written[0], 2);
    ck_assert_uint_eq(fx.st.runs_written[1], 2);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_BAD_IDS], 1);
    ck_assert_uint_eq(fx.st.run_lines_invalid[RUNLINE_BAD_NUMBER], 1);
    strbuf_free(&good);
    strbuf_free(&old);
    fx_free(&fx);
}
END_TEST

START_TEST(hostile_run_lines_are_counted_and_written_nowhere)
{
    struct fx fx;
    fx_init(&fx, "max_line_bytes: 1024\n" RUN_LOGS);
    static const char msg[] =
        "xhprof/1 ../x begin 1 h wt /srv/index.php\n"            /* bad_runid */
        "xhprof/1 a/b arc 1 1 - - - k\n"                         /* bad_runid */
        "xhprof/1 r1 begin 1 h wt /srv/<script>\x01.php\n"        /* bad_text */
        "xhprof/1 r1 begin 1 h wt /srv/a%zz.php\n"               /* bad_text */
        "xhprof/1 r1 arc 99999999999999999999 1 - - - k\n"       /* bad_number */
        "xhprof/1 r1 arc 1 1 - - -\n"                            /* bad_record */
        "xhprof/1 r1 fin 1 0\n"                                  /* bad_record */
        "xhprof/1 r1 begin 1 h wt /srv/ind\0ex.php\n"            /* bad_text (a NUL) */
        "xhprof/1 \n"                                            /* bad_runid */
        "xhprof/1 ok begin 1 h wt /srv/%00%0A.php\n"             /* valid: escapes */
        "xhprof/1 ok end 0 0\n"
        "xhprof/1 js begin 1 h wt /srv/<script>alert(1)</script>.php\n" /* valid, no tag */
        "xhprof/1 js end 0 0\n";
    ingest_message(&fx.in, msg, sizeof msg - 1, 3, INPUT_REDIS, TEST_NOW, 1.0, 0);
    strbuf long_line = STRBUF_INIT;
    strbuf_appends(&long_line, "xhprof/1 ok2 arc 1 1 - - - ");
    while (long_line.len <= 1024)
        strbuf_appendc(&long_line, 'k');
    ingest_message(&fx.in, long_line.data, long_line.len, 3, INPUT_REDIS, TEST_NOW, 1.0, 0);
    strbuf_free(&long_line);
    fileset_flush(&fx.in.files, 1.0);
    ck_assert_uint_eq(fx.st.run_lines_invalid[RUNLINE_BAD_RUNID], 3);
    ck_assert_uint_eq(fx.st.run_lines_invalid[RUNLINE_BAD_TEXT], 3);
    ck_assert_uint_eq(fx.st.run_lines_invalid[RUNLINE_BAD_NUMBER], 1);
    ck_assert_uint_eq(fx.st.run_lines_invalid[RUNLINE_BAD_RECORD], 2);
    ck_assert_uint_eq(fx.st.run_lines_invalid[RUN_LINE_TOO_LONG], 1);
    ck_assert_uint_eq(fx.st.runs_received, 2);
    ck_assert_uint_eq(fx.st.lines_received, 0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.runs",
                "xhprof/1 ok begin 1 h wt /srv/%00%0A.php\nxhprof/1 ok end 0 0\n"
                "xhprof/1 js begin 1 h wt /srv/<script>alert(1)</script>.php\n"
                "xhprof/1 js end 0 0\n");
    ck_assert_int_eq(count_rel(&fx, "hourly"), 1); /* no tag file, nothing else */
    fx_free(&fx);
}
END_TEST

/* A run whose tag file is refused goes to `all` instead: still once. */
START_TEST(tag_limit_refuses_run_tag_files_not_the_all_file)
{
    struct fx fx;
    fx_init(&fx, "max_tags_per_bucket: 0\n" RUN_LOGS);
    strbuf m = STRBUF_INIT, want = STRBUF_INIT;
    add_line(&m, &want, begin_line("r", ENTRY));
    add_line(&m, &want, end_line("r", 0));
    send_text(&fx, &m, 1, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.runs", strbuf_cstr(&want));
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.index.runs"));
    ck_assert_uint_eq(fx.st.runs_refused[REFUSED_TAG_LIMIT], 1);
    ck_assert_uint_eq(fx.st.lines_refused[REFUSED_TAG_LIMIT], 0);
    ck_assert_uint_eq(fx.st.runs_written[0], 1);
    ck_assert_int_eq(count_rel(&fx, "hourly"), 1);
    strbuf_free(&want);
    fx_free(&fx);
}
END_TEST

START_TEST(run_that_no_file_can_take_is_dropped_as_write_error)
{
    struct fx fx;
    fx_init(&fx, RUN_LOGS);
    /* a directory where the all run log should be: it cannot be opened */
    make_dirs(&fx, "hourly");
    make_dirs(&fx, "hourly/2026-11-22_05.all.runs");
    strbuf m = STRBUF_INIT;
    add_line(&m, NULL, begin_line("r", "/srv/run.sh"));
    add_line(&m, NULL, end_line("r", 0));
    send_text(&fx, &m, 1, 1.0);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_WRITE_ERROR], 1);
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 0);
    fx_free(&fx);
}
END_TEST

START_TEST(ingest_expires_runs_on_its_timer)
{
    struct fx fx;
    fx_init(&fx, "run_timeout: 2\n" RUN_LOGS);
    strbuf m = STRBUF_INIT;
    add_line(&m, NULL, begin_line("r", ENTRY));
    add_line(&m, NULL, arc_line("r", 0));
    send_text(&fx, &m, 1, 10.0);
    ingest_expire_runs(&fx.in, 11.0);
    ck_assert_uint_eq(fx.st.runs_pending, 1);
    ingest_expire_runs(&fx.in, 12.0);
    ck_assert_uint_eq(fx.st.runs_pending, 0);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_TIMEOUT], 1);
    fileset_flush(&fx.in.files, 12.0);
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.all.runs"));
    fx_free(&fx);
}
END_TEST

START_TEST(runs_pending_at_reload_or_stop_are_counted)
{
    struct fx fx;
    fx_init(&fx, RUN_LOGS);
    strbuf m = STRBUF_INIT;
    add_line(&m, NULL, begin_line("r", ENTRY));
    send_text(&fx, &m, 1, 1.0);
    ingest_free(&fx.in);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_STOPPED], 1);
    ingest_init(&fx.in, &fx.cfg, &fx.st);
    fx_free(&fx);
}
END_TEST

/* Run logs are pruned per tag to `retain` like trace logs, but counted
 * apart: the .log files of the same tag neither count nor go. */
START_TEST(run_logs_are_retained_apart_from_trace_logs)
{
    struct fx fx;
    fx_prepare(&fx);
    make_dirs(&fx, "hourly");
    static const char *const old[] = {"2026-11-22_01", "2026-11-22_02", "2026-11-22_03"};
    for (int i = 0; i < 3; i++) {
        static const char *const kinds[] = {"all.runs", "index.runs", "index.log", "all.log"};
        for (int k = 0; k < 4; k++) {
            char rel[64];
            snprintf(rel, sizeof rel, "hourly/%s.%s", old[i], kinds[k]);
            write_rel_at(&fx, rel, "", TEST_NOW - 3600 * (10 - i));
        }
    }
    fx_start(&fx, RUN_LOGS);
    strbuf m = STRBUF_INIT;
    add_line(&m, NULL, begin_line("r", ENTRY));
    add_line(&m, NULL, end_line("r", 0));
    add_line(&m, NULL, begin_line("s", "/srv/run.sh")); /* no tag: to all */
    add_line(&m, NULL, end_line("s", 0));
    send_text(&fx, &m, 1, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    /* retain 2: the new bucket's and the newest old one, per tag, of .runs only */
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_05.all.runs"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_05.index.runs"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_03.all.runs"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_03.index.runs"));
    for (int i = 0; i < 2; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "hourly/%s.all.runs", old[i]);
        ck_assert_msg(!exists_rel(&fx, rel), "%s kept", rel);
        snprintf(rel, sizeof rel, "hourly/%s.index.runs", old[i]);
        ck_assert_msg(!exists_rel(&fx, rel), "%s kept", rel);
    }
    for (int i = 0; i < 3; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "hourly/%s.index.log", old[i]);
        ck_assert_msg(exists_rel(&fx, rel), "%s pruned", rel);
        snprintf(rel, sizeof rel, "hourly/%s.all.log", old[i]);
        ck_assert_msg(exists_rel(&fx, rel), "%s pruned", rel);
    }
    ck_assert_uint_eq(fx.st.files_pruned, 4);
    fx_free(&fx);
}
END_TEST

Suite *runs_suite(void)
{
    Suite *s = suite_create("runs");
    TCase *tc = tcase_create("reassembly");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, run_is_put_together_from_its_lines);
    tcase_add_test(tc, entry_without_a_tag_leaves_the_tag_empty);
    tcase_add_test(tc, interleaved_runs_come_out_whole_and_apart);
    tcase_add_test(tc, second_begin_drops_the_first_as_duplicate);
    tcase_add_test(tc, lines_without_a_begin_count_once_per_run);
    tcase_add_test(tc, end_with_another_arc_count_drops_the_run);
    tcase_add_test(tc, v2_run_is_put_together_and_its_fn_lines_are_no_arcs);
    tcase_add_test(tc, v2_run_with_bad_ids_is_refused_whole_when_it_completes);
    tcase_add_test(tc, run_of_two_versions_is_refused);
    tcase_add_test(tc, fn_lines_without_a_begin_count_once_per_run);
    suite_add_tcase(s, tc);

    tc = tcase_create("bounds");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, run_past_max_run_bytes_is_dropped_once);
    tcase_add_test(tc, max_pending_runs_pushes_out_the_oldest);
    tcase_add_test(tc, markers_give_way_to_new_runs);
    tcase_add_test(tc, max_pending_bytes_drops_the_oldest_runs);
    tcase_add_test(tc, run_without_its_end_times_out);
    tcase_add_test(tc, pending_runs_at_free_count_as_stopped);
    tcase_add_test(tc, many_runs_stay_within_the_table);
    suite_add_tcase(s, tc);

    tc = tcase_create("run logs");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, runs_split_over_messages_are_written_whole_next_to_samples);
    tcase_add_test(tc, runs_go_only_to_the_groups_of_their_channel_without_sample_pop);
    tcase_add_test(tc, v2_runs_are_written_once_per_group_and_bad_ones_nowhere);
    tcase_add_test(tc, hostile_run_lines_are_counted_and_written_nowhere);
    tcase_add_test(tc, tag_limit_refuses_run_tag_files_not_the_all_file);
    tcase_add_test(tc, run_that_no_file_can_take_is_dropped_as_write_error);
    tcase_add_test(tc, ingest_expires_runs_on_its_timer);
    tcase_add_test(tc, runs_pending_at_reload_or_stop_are_counted);
    tcase_add_test(tc, run_logs_are_retained_apart_from_trace_logs);
    tcase_add_test(tc, run_ids_crafted_to_share_a_bucket_spread);
    suite_add_tcase(s, tc);
    return s;
}
