/* Tests of tierline: agg and status lines are split into their fields,
 * every malformed field is refused with its reason, identities survive
 * escaping whatever bytes they hold, and the writer's lines read back as
 * written (write -> parse -> same fields, parse -> write -> same bytes). */
#include "tierhist.h"
#include "tierline.h"
#include "test-suites.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

static enum tierline_error parse(const char *line, struct tierline *tl)
{
    return tierline_parse(line, strlen(line), tl);
}

START_TEST(agg_line_fields)
{
    struct tierline tl;
    const char *line = "tiers/1 agg 1764126000 1764126005 web-7 1234 api:query%20x db 3 "
                       "4500000 5:1,700:2";
    ck_assert_int_eq(parse(line, &tl), TIERLINE_OK);
    ck_assert_int_eq(tl.kind, TIERLINE_AGG);
    ck_assert_int_eq(tl.start, 1764126000);
    ck_assert_int_eq(tl.end, 1764126005);
    ck_assert_int_eq((int)tl.host_len, 5);
    ck_assert(memcmp(tl.host, "web-7", 5) == 0);
    ck_assert_int_eq(tl.pid, 1234);
    ck_assert_int_eq((int)tl.identity_len, (int)strlen("api:query%20x"));
    ck_assert(memcmp(tl.identity, "api:query%20x", tl.identity_len) == 0);
    ck_assert_int_eq((int)tl.tier_len, 2);
    ck_assert(memcmp(tl.tier, "db", 2) == 0);
    ck_assert_int_eq(tl.calls, 3);
    ck_assert_int_eq(tl.total_ns, 4500000);
    ck_assert_int_eq((int)tl.hist_len, (int)strlen("5:1,700:2"));
    struct tierhist h = TIERHIST_INIT;
    ck_assert_int_eq(tierhist_parse(&h, tl.hist, tl.hist_len), 0);
    ck_assert_uint_eq(h.count, 3);
    tierhist_reset(&h);
    char id[64];
    size_t n = tierline_unescape(tl.identity, tl.identity_len, id);
    ck_assert_int_eq((int)n, 11);
    ck_assert(memcmp(id, "api:query x", 11) == 0);
    /* merged lines: HOST "*", PID 0; a window of one second */
    ck_assert_int_eq(parse("tiers/1 agg 60 60 * 0 undefined _total 1 0 0:1", &tl), TIERLINE_OK);
    ck_assert_int_eq(tl.pid, 0);
    ck_assert_int_eq(tl.total_ns, 0);
}
END_TEST

START_TEST(status_line_fields)
{
    struct tierline tl;
    ck_assert_int_eq(parse("tiers/1 status 100 105 web-7 99 1000 10 2 1 1 17", &tl), TIERLINE_OK);
    ck_assert_int_eq(tl.kind, TIERLINE_STATUS);
    ck_assert_int_eq(tl.start, 100);
    ck_assert_int_eq(tl.end, 105);
    ck_assert_int_eq(tl.pid, 99);
    ck_assert_int_eq(tl.requests, 1000);
    ck_assert_int_eq(tl.traced, 10);
    ck_assert_int_eq(tl.trips, 2);
    ck_assert_int_eq(tl.resumes, 1);
    ck_assert_int_eq(tl.paused, 1);
    ck_assert_int_eq(tl.skipped, 17);
    ck_assert_int_eq(parse("tiers/1 status 0 0 h 0 0 0 0 0 0 0", &tl), TIERLINE_OK);
}
END_TEST

START_TEST(malformed_lines_refused)
{
    static const struct {
        const char *line;
        enum tierline_error want;
    } cases[] = {
        {"tiers/1 ", TIERLINE_BAD_RECORD},
        {"tiers/2 agg 1 2 h 1 id db 1 5 5:1", TIERLINE_BAD_RECORD},
        {"tiers/1 sum 1 2 h 1 id db 1 5 5:1", TIERLINE_BAD_RECORD},
        {"tiers/1 agg 1 2 h 1 id db 1 5", TIERLINE_BAD_RECORD},
        {"tiers/1 agg 1 2 h 1 id db 1 5 5:1 x", TIERLINE_BAD_RECORD},
        {"tiers/1 agg 1 2 h 1 id db 1 5 5:1 ", TIERLINE_BAD_RECORD},
        {"tiers/1 agg 1 2 h 1 id  db 1 5 5:1", TIERLINE_BAD_RECORD},
        {"tiers/1 agg 1 2 h", TIERLINE_BAD_RECORD},
        {"tiers/1 status 1 2 h 1 1 1 1 1 1", TIERLINE_BAD_RECORD},
        {"tiers/1 status 1 2 h 1 1 1 1 1 1 1 1", TIERLINE_BAD_RECORD},
        {"tiers/1 agg 2 1 h 1 id db 1 5 5:1", TIERLINE_BAD_NUMBER},   /* START > END */
        {"tiers/1 agg -1 2 h 1 id db 1 5 5:1", TIERLINE_BAD_NUMBER},
        {"tiers/1 agg 01 2 h 1 id db 1 5 5:1", TIERLINE_BAD_NUMBER},
        {"tiers/1 agg 1 2 h x id db 1 5 5:1", TIERLINE_BAD_NUMBER},
        {"tiers/1 agg 1 2 h 1 id db 0 5 5:1", TIERLINE_BAD_NUMBER},    /* CALLS 0 */
        {"tiers/1 agg 1 2 h 1 id db 1 9223372036854775808 5:1", TIERLINE_BAD_NUMBER},
        {"tiers/1 agg 1 2 h 1 id db 1 +5 5:1", TIERLINE_BAD_NUMBER},
        {"tiers/1 status 1 2 h 1 1 1 1 1 -1 1", TIERLINE_BAD_NUMBER},
        {"tiers/1 agg 1 2 h\x01 1 id db 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h\x7f 1 id db 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 i%d db 1 5 5:1", TIERLINE_BAD_TEXT},     /* bad escape */
        {"tiers/1 agg 1 2 h 1 id% db 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 id%2 db 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 id%0a db 1 5 5:1", TIERLINE_BAD_TEXT},   /* lower-case hex */
        {"tiers/1 agg 1 2 h 1 %41 db 1 5 5:1", TIERLINE_BAD_TEXT},     /* 'A' needs no escape */
        {"tiers/1 agg 1 2 h 1 %C3%A9 db 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 a\tb db 1 5 5:1", TIERLINE_BAD_TEXT},    /* raw control byte */
        {"tiers/1 agg 1 2 h 1 a\x7f db 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 \xc3\x28 db 1 5 5:1", TIERLINE_BAD_TEXT}, /* broken UTF-8 */
        {"tiers/1 agg 1 2 h 1 \xc0\xaf db 1 5 5:1", TIERLINE_BAD_TEXT}, /* overlong */
        {"tiers/1 agg 1 2 h 1 \xed\xa0\x80 db 1 5 5:1", TIERLINE_BAD_TEXT}, /* surrogate */
        {"tiers/1 agg 1 2 h 1 \xf4\x90\x80\x80 db 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 \xe2\x82 db 1 5 5:1", TIERLINE_BAD_TEXT}, /* cut short */
        {"tiers/1 agg 1 2 h 1 id d/b 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 id d%20b 1 5 5:1", TIERLINE_BAD_TEXT},
        {"tiers/1 agg 1 2 h 1 id 12345678901234567890123456789012345678901234567890123456789012345"
         " 1 5 5:1", TIERLINE_BAD_TEXT},                               /* 65-byte tier */
        {"tiers/1 agg 1 2 h 1 id db 2 5 5:1", TIERLINE_BAD_HIST},      /* counts != CALLS */
        {"tiers/1 agg 1 2 h 1 id db 1 5 5:1,6:1", TIERLINE_BAD_HIST},
        {"tiers/1 agg 1 2 h 1 id db 2 5 6:1,5:1", TIERLINE_BAD_HIST},
        {"tiers/1 agg 1 2 h 1 id db 1 5 5:0,6:1", TIERLINE_BAD_HIST},
        {"tiers/1 agg 1 2 h 1 id db 1 5 4000:1", TIERLINE_BAD_HIST},
        {"tiers/1 agg 1 2 h 1 id db 1 5 garbage", TIERLINE_BAD_HIST},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tierline tl;
        enum tierline_error got = parse(cases[i].line, &tl);
        ck_assert_msg(got == cases[i].want, "'%s': %s, want %s", cases[i].line,
                      tierline_error_name(got), tierline_error_name(cases[i].want));
    }
    /* not a tier line at all */
    struct tierline tl;
    ck_assert_int_eq(tierline_parse("xhprof/1 r end 1 1", 18, &tl), TIERLINE_BAD_RECORD);
    ck_assert_int_eq(tierline_parse("", 0, &tl), TIERLINE_BAD_RECORD);
    ck_assert(!tierline_is_tier("tiers/1", 7));
    ck_assert(tierline_is_tier("tiers/1 x", 9));
}
END_TEST

/* One range for every count (2^53, exact in the report's JSON doubles):
 * 2^53 itself passes, 2^53 + 1 and more are refused in every count field;
 * TOTAL_NS, a time, goes up to INT64_MAX. */
START_TEST(counts_at_most_2_pow_53)
{
    struct tierline tl;
    ck_assert_int_eq(parse("tiers/1 status 1 2 h 1 9007199254740992 0 0 0 0 0", &tl),
                     TIERLINE_OK);
    ck_assert_int_eq(tl.requests, TIERLINE_COUNT_MAX);
    static const char *const over[] = {
        "tiers/1 status 1 2 h 1 9007199254740994 0 0 0 0 0",
        "tiers/1 status 1 2 h 1 0 9007199254740993 0 0 0 0",
        "tiers/1 status 1 2 h 1 0 0 0 0 0 9223372036854775807",
        "tiers/1 status 1 9007199254740993 h 1 0 0 0 0 0 0",
        "tiers/1 status 1 2 h 9007199254740993 0 0 0 0 0 0",
        "tiers/1 agg 1 2 h 1 view db 9007199254740993 5 5:9007199254740993",
    };
    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++)
        ck_assert_msg(parse(over[i], &tl) == TIERLINE_BAD_NUMBER, "%s", over[i]);
    ck_assert_int_eq(parse("tiers/1 agg 1 2 h 1 view db 9007199254740992 "
                           "9223372036854775807 5:9007199254740992", &tl), TIERLINE_OK);
    ck_assert_int_eq(tl.total_ns, INT64_MAX);
    ck_assert_int_eq(parse("tiers/1 agg 1 2 h 1 view db 1 9223372036854775808 5:1", &tl),
                     TIERLINE_BAD_NUMBER);
}
END_TEST

START_TEST(error_names)
{
    ck_assert_str_eq(tierline_error_name(TIERLINE_OK), "ok");
    ck_assert_str_eq(tierline_error_name(TIERLINE_BAD_RECORD), "bad_record");
    ck_assert_str_eq(tierline_error_name(TIERLINE_BAD_NUMBER), "bad_number");
    ck_assert_str_eq(tierline_error_name(TIERLINE_BAD_TEXT), "bad_text");
    ck_assert_str_eq(tierline_error_name(TIERLINE_BAD_HIST), "bad_hist");
    ck_assert_str_eq(tierline_error_name(TIERLINE_NERRORS), "unknown");
}
END_TEST

/* Escapes id, puts it in an agg line and parses it back. */
static enum tierline_error line_with_identity(const char *id, size_t len, char *escaped,
                                              size_t *esc_len, struct tierline *tl,
                                              char *line)
{
    *esc_len = tierline_escape(id, len, escaped);
    int n = sprintf(line, "tiers/1 agg 1 2 h 1 %.*s db 1 5 5:1", (int)*esc_len, escaped);
    return tierline_parse(line, (size_t)n, tl);
}

START_TEST(hostile_identities_round_trip)
{
    static const struct {
        const char *id;
        size_t len;
    } ids[] = {
        {"view", 4},
        {"a b", 3},
        {"100% done", 9},
        {"nul\0byte", 8},
        {"cr\r\nlf", 6},
        {"\x01\x1f\x7f", 3},
        {"<script>alert(1)</script>", 25},
        {"../../etc/passwd", 16},
        {"\"quoted\" 'x' \\", 14},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14},
        {"%25", 3},
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char escaped[3 * 64], line[256], back[64];
        size_t esc_len;
        struct tierline tl;
        ck_assert_msg(line_with_identity(ids[i].id, ids[i].len, escaped, &esc_len, &tl, line) ==
                      TIERLINE_OK, "refused identity %zu: %s", i, line);
        ck_assert(memchr(escaped, ' ', esc_len) == NULL);
        size_t n = tierline_unescape(tl.identity, tl.identity_len, back);
        ck_assert_int_eq((int)n, (int)ids[i].len);
        ck_assert(memcmp(back, ids[i].id, n) == 0);
    }
    char escaped[64];
    ck_assert_int_eq((int)tierline_escape("a %\n\x7f", 5, escaped), 13);
    ck_assert(memcmp(escaped, "a%20%25%0A%7F", 13) == 0);
}
END_TEST

START_TEST(identity_limits)
{
    char id[300], escaped[900], line[1100];
    size_t esc_len;
    struct tierline tl;
    /* invalid UTF-8 is not made valid by escaping */
    ck_assert_int_eq(line_with_identity("\xff", 1, escaped, &esc_len, &tl, line), TIERLINE_BAD_TEXT);
    ck_assert_int_eq(line_with_identity("a\xc3", 2, escaped, &esc_len, &tl, line), TIERLINE_BAD_TEXT);
    /* 255 decoded bytes pass, however long the escaped form; 256 do not */
    memset(id, '%', sizeof id);
    ck_assert_int_eq(line_with_identity(id, 255, escaped, &esc_len, &tl, line), TIERLINE_OK);
    ck_assert_int_eq((int)esc_len, 765);
    ck_assert_int_eq(line_with_identity(id, 256, escaped, &esc_len, &tl, line), TIERLINE_BAD_TEXT);
    memset(id, 'x', sizeof id);
    ck_assert_int_eq(line_with_identity(id, 255, escaped, &esc_len, &tl, line), TIERLINE_OK);
    ck_assert_int_eq(line_with_identity(id, 256, escaped, &esc_len, &tl, line), TIERLINE_BAD_TEXT);
    /* multibyte characters count their bytes */
    for (int i = 0; i < 85; i++)
        memcpy(id + 3 * i, "\xe2\x82\xac", 3);
    ck_assert_int_eq(line_with_identity(id, 255, escaped, &esc_len, &tl, line), TIERLINE_OK);
    memcpy(id + 255, "\xe2\x82\xac", 3);
    ck_assert_int_eq(line_with_identity(id, 258, escaped, &esc_len, &tl, line), TIERLINE_BAD_TEXT);
    /* what the extension checks before it takes an identity agrees */
    ck_assert(tierline_identity_valid(id, 255));
    ck_assert(!tierline_identity_valid(id, 258));
    ck_assert(!tierline_identity_valid("", 0));
    ck_assert(!tierline_identity_valid("a\xc3", 2));
    ck_assert(!tierline_identity_valid("\xed\xa0\x80", 3)); /* a surrogate */
    ck_assert(tierline_identity_valid("nul\0 ok", 7));
    /* host: 255 bytes at most */
    memset(id, 'h', 256);
    int n = sprintf(line, "tiers/1 status 1 2 %.255s 1 0 0 0 0 0 0", id);
    ck_assert_int_eq(tierline_parse(line, (size_t)n, &tl), TIERLINE_OK);
    n = sprintf(line, "tiers/1 status 1 2 %.256s 1 0 0 0 0 0 0", id);
    ck_assert_int_eq(tierline_parse(line, (size_t)n, &tl), TIERLINE_BAD_TEXT);
}
END_TEST

START_TEST(tier_names)
{
    ck_assert(tierline_tier_ok("_total", 6));
    ck_assert(tierline_tier_ok("db.replica-1", 12));
    ck_assert(!tierline_tier_ok("", 0));
    ck_assert(!tierline_tier_ok("a b", 3));
    ck_assert(!tierline_tier_ok("<b>", 3));
    ck_assert(!tierline_tier_ok("a/b", 3));
    char t[65];
    memset(t, 'a', sizeof t);
    ck_assert(tierline_tier_ok(t, 64));
    ck_assert(!tierline_tier_ok(t, 65));
}
END_TEST

static int same_text(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* The fields both records share, and each record's own. */
static void assert_same_fields(const struct tierline *a, const struct tierline *b)
{
    ck_assert_int_eq(a->kind, b->kind);
    ck_assert_int_eq(a->start, b->start);
    ck_assert_int_eq(a->end, b->end);
    ck_assert(same_text(a->host, a->host_len, b->host, b->host_len));
    ck_assert_int_eq(a->pid, b->pid);
    if (a->kind == TIERLINE_STATUS) {
        ck_assert_int_eq(a->requests, b->requests);
        ck_assert_int_eq(a->traced, b->traced);
        ck_assert_int_eq(a->trips, b->trips);
        ck_assert_int_eq(a->resumes, b->resumes);
        ck_assert_int_eq(a->paused, b->paused);
        ck_assert_int_eq(a->skipped, b->skipped);
        return;
    }
    ck_assert(same_text(a->identity, a->identity_len, b->identity, b->identity_len));
    ck_assert(same_text(a->tier, a->tier_len, b->tier, b->tier_len));
    ck_assert_int_eq(a->calls, b->calls);
    ck_assert_int_eq(a->total_ns, b->total_ns);
}

START_TEST(written_lines_parse_to_the_same_fields)
{
    /* every byte an identity may hold, escaped by the one function */
    char id[TIERLINE_IDENTITY_MAX], esc[3 * TIERLINE_IDENTITY_MAX];
    size_t n = 0;
    for (int c = 0; c < 0x80; c++)
        id[n++] = (char)c;
    memcpy(id + n, "caf\xc3\xa9 \xf0\x9f\x98\x80", 10);
    n += 10;
    struct tierhist h = TIERHIST_INIT;
    uint64_t ns[] = {0, 1, 999, 1000, 123456789, 9999999999ULL, (uint64_t)INT64_MAX};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        tierhist_add(&h, ns[i]);
    struct tierline in = {
        .kind = TIERLINE_AGG, .start = 0, .end = TIERLINE_COUNT_MAX, .host = "web-7.eqiad",
        .host_len = 11, .pid = 4194304, .identity = esc,
        .identity_len = tierline_escape(id, n, esc), .tier = "db.replica-1", .tier_len = 12,
        .calls = (int64_t)h.count, .total_ns = INT64_MAX};
    strbuf sb = STRBUF_INIT, again = STRBUF_INIT;
    tierline_write(&sb, &in, &h);
    ck_assert_int_eq(sb.data[sb.len - 1], '\n');
    ck_assert(memchr(sb.data, '\n', sb.len - 1) == NULL);
    struct tierline out;
    ck_assert_int_eq(tierline_parse(sb.data, sb.len - 1, &out), TIERLINE_OK);
    assert_same_fields(&in, &out);
    char back[TIERLINE_IDENTITY_MAX];
    ck_assert(same_text(back, tierline_unescape(out.identity, out.identity_len, back), id, n));
    /* the histogram reads back to the same counts: it formats alike */
    struct tierhist h2 = TIERHIST_INIT;
    ck_assert_int_eq(tierhist_parse(&h2, out.hist, out.hist_len), 0);
    tierhist_format(&h2, &again);
    ck_assert(same_text(out.hist, out.hist_len, again.data, again.len));
    /* a status line, every figure at the top of its range */
    struct tierline st = {.kind = TIERLINE_STATUS, .start = 60, .end = 120,
                          .host = TIERLINE_HOST_MERGED, .host_len = 1, .pid = 0,
                          .requests = TIERLINE_COUNT_MAX, .traced = 7, .trips = 0,
                          .resumes = 1, .paused = 3, .skipped = TIERLINE_COUNT_MAX};
    strbuf_reset(&sb);
    tierline_write(&sb, &st, NULL);
    ck_assert_int_eq(tierline_parse(sb.data, sb.len - 1, &out), TIERLINE_OK);
    assert_same_fields(&st, &out);
    tierhist_reset(&h);
    tierhist_reset(&h2);
    strbuf_free(&sb);
    strbuf_free(&again);
}
END_TEST

START_TEST(parsed_lines_write_back_to_the_same_bytes)
{
    static const char *const lines[] = {
        "tiers/1 agg 1764126000 1764126005 web-7 1234 api:query%20x db 3 4500000 5:1,700:2",
        "tiers/1 agg 60 120 * 0 %25%00%0A%7F%1F%20caf\xc3\xa9 _total 1 0 0:1",
        "tiers/1 agg 0 9007199254740992 h 9007199254740992 x t 9007199254740992 "
        "9223372036854775807 0:9007199254740992",
        "tiers/1 status 100 105 web-7 99 1000 10 2 1 1 17",
        "tiers/1 status 60 120 * 0 0 0 0 0 0 0",
    };
    strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct tierline tl;
        ck_assert_msg(tierline_parse(lines[i], strlen(lines[i]), &tl) == TIERLINE_OK,
                      "refused %s", lines[i]);
        strbuf_reset(&sb);
        tierline_write(&sb, &tl, NULL);
        ck_assert_msg(same_text(sb.data, sb.len - 1, lines[i], strlen(lines[i])),
                      "%s written back as %.*s", lines[i], (int)sb.len, sb.data);
        /* with the histogram as counts, the same bytes too */
        if (tl.kind == TIERLINE_AGG) {
            struct tierhist h = TIERHIST_INIT;
            ck_assert_int_eq(tierhist_parse(&h, tl.hist, tl.hist_len), 0);
            strbuf_reset(&sb);
            tierline_write(&sb, &tl, &h);
            ck_assert(same_text(sb.data, sb.len - 1, lines[i], strlen(lines[i])));
            tierhist_reset(&h);
        }
    }
    strbuf_free(&sb);
}
END_TEST

Suite *tierline_suite(void)
{
    Suite *s = suite_create("tierline");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, agg_line_fields);
    tcase_add_test(tc, status_line_fields);
    tcase_add_test(tc, malformed_lines_refused);
    tcase_add_test(tc, counts_at_most_2_pow_53);
    tcase_add_test(tc, error_names);
    tcase_add_test(tc, hostile_identities_round_trip);
    tcase_add_test(tc, identity_limits);
    tcase_add_test(tc, tier_names);
    tcase_add_test(tc, written_lines_parse_to_the_same_fields);
    tcase_add_test(tc, parsed_lines_write_back_to_the_same_bytes);
    suite_add_tcase(s, tc);
    return s;
}
