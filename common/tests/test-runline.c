/* Tests of runline: the xhprof/1 and xhprof/2 lines of a hierarchical run
 * are split into their fields, every malformed field is refused with its
 * reason; a version 2 run's ids resolve through the name table; and what
 * the writer makes reads back as the same keys and metrics. */
#include "fixedhash.h"
#include "runline.h"
#include "stackline.h"
#include "test-suites.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum runline_error parse(const char *line, struct runline *rl)
{
    return runline_parse(line, strlen(line), rl);
}

START_TEST(begin_line_fields)
{
    struct runline rl;
    const char *line = "xhprof/1 0a1b2c3d4e5f6789 begin 1764126000 web-7 wt,cpu,mu,pmu "
                       "/srv/mediawiki/my dir/index.php";
    ck_assert_int_eq(parse(line, &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.kind, RUNLINE_BEGIN);
    ck_assert_int_eq((int)rl.runid_len, 16);
    ck_assert(memcmp(rl.runid, "0a1b2c3d4e5f6789", 16) == 0);
    ck_assert_int_eq(rl.time, 1764126000);
    ck_assert_int_eq((int)rl.host_len, 5);
    ck_assert_uint_eq(rl.metrics, 0x1f);
    ck_assert_int_eq((int)rl.text_len, (int)strlen("/srv/mediawiki/my dir/index.php"));
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_int_eq((int)runline_entry_tag(rl.text, rl.text_len, tag), 5);
    ck_assert_str_eq(tag, "index");
    ck_assert_int_eq(parse("xhprof/1 r begin 1 h wt x.php", &rl), RUNLINE_OK);
    ck_assert_uint_eq(rl.metrics, 0x3);
}
END_TEST

START_TEST(arc_line_fields)
{
    struct runline rl;
    ck_assert_int_eq(parse("xhprof/1 r1 arc 3 120 - -64 4096 main()==>strlen", &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.kind, RUNLINE_ARC);
    ck_assert_int_eq(rl.v[RL_CT], 3);
    ck_assert_int_eq(rl.v[RL_WT], 120);
    ck_assert_int_eq(rl.v[RL_MU], -64);
    ck_assert_int_eq(rl.v[RL_PMU], 4096);
    ck_assert_uint_eq(rl.present, (1u << RL_CT) | (1u << RL_WT) | (1u << RL_MU) | (1u << RL_PMU));
    ck_assert_int_eq((int)rl.text_len, (int)strlen("main()==>strlen"));
    /* a key with spaces and escapes: the rest of the line */
    ck_assert_int_eq(parse("xhprof/1 r1 arc 1 2 - - - a b==>class@anonymous%00/x.php%0A%25", &rl),
                     RUNLINE_OK);
    char out[64];
    size_t n = runline_unescape(rl.text, rl.text_len, out);
    ck_assert_int_eq((int)n, (int)sizeof "a b==>class@anonymous\0/x.php\n%" - 1);
    ck_assert(memcmp(out, "a b==>class@anonymous\0/x.php\n%", n) == 0);
}
END_TEST

START_TEST(end_line_fields)
{
    struct runline rl;
    ck_assert_int_eq(parse("xhprof/1 r1 end 812 3", &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.kind, RUNLINE_END);
    ck_assert_int_eq(rl.sent, 812);
    ck_assert_int_eq(rl.left_out, 3);
    ck_assert_int_eq(parse("xhprof/1 r1 end 812 3 4", &rl), RUNLINE_BAD_RECORD);
    ck_assert_int_eq(parse("xhprof/1 r1 end 812", &rl), RUNLINE_BAD_RECORD);
}
END_TEST

START_TEST(malformed_lines_refused)
{
    static const struct {
        const char *line;
        enum runline_error want;
    } cases[] = {
        {"xhprof/1  begin 1 h wt x.php", RUNLINE_BAD_RUNID},
        {"xhprof/1 ../x begin 1 h wt x.php", RUNLINE_BAD_RUNID},
        {"xhprof/1 r<b> arc 1 1 - - - main()", RUNLINE_BAD_RUNID},
        {"xhprof/1 0123456789012345678901234567890123456789012345678901234567890123456789 end 0 0",
         RUNLINE_BAD_RUNID},
        {"xhprof/1 r start 1 h wt x.php", RUNLINE_BAD_RECORD},
        {"xhprof/1 r", RUNLINE_BAD_RECORD},
        {"xhprof/1 r begin 1 h wt ", RUNLINE_BAD_RECORD},
        {"xhprof/1 r begin -1 h wt x.php", RUNLINE_BAD_NUMBER},
        {"xhprof/1 r begin 1 h cpu x.php", RUNLINE_BAD_TEXT},
        {"xhprof/1 r begin 1 h wt,gpu x.php", RUNLINE_BAD_TEXT},
        {"xhprof/1 r begin 1 h wt, x.php", RUNLINE_BAD_TEXT},
        {"xhprof/1 r arc 1 - - - - main()", RUNLINE_BAD_NUMBER},
        {"xhprof/1 r arc -1 5 - - - main()", RUNLINE_BAD_NUMBER},
        {"xhprof/1 r arc 01 5 - - - main()", RUNLINE_BAD_NUMBER},
        {"xhprof/1 r arc 1 99999999999999999999 - - - main()", RUNLINE_BAD_NUMBER},
        {"xhprof/1 r arc 1 5 1e3 - - main()", RUNLINE_BAD_NUMBER},
        {"xhprof/1 r arc 1 5 - - -", RUNLINE_BAD_RECORD},
        {"xhprof/1 r arc 1 5 - - - main()%2", RUNLINE_BAD_TEXT},
        {"xhprof/1 r arc 1 5 - - - main()%zz", RUNLINE_BAD_TEXT},
        {"xhprof/1 r arc 1 5 - - - a\tb", RUNLINE_BAD_TEXT},
        {"xhprof/1 r arc 1 5 - - - \xff\xfe", RUNLINE_BAD_TEXT},
        {"xhprof/1 r end x 0", RUNLINE_BAD_NUMBER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct runline rl;
        enum runline_error got = parse(cases[i].line, &rl);
        ck_assert_msg(got == cases[i].want, "%s: got %s, want %s", cases[i].line,
                      runline_error_name(got), runline_error_name(cases[i].want));
    }
    ck_assert(!runline_is_run("main;foo 1", 10));
    ck_assert(!runline_is_run("xhprof/1", 8));
    ck_assert(!runline_is_run("xhprof/3 r end 0 0", 18));
}
END_TEST

/* --- version 2 ------------------------------------------------------------- */

START_TEST(v2_lines_fields)
{
    struct runline rl;
    ck_assert_int_eq(parse("xhprof/2 r1 begin 1764126000 web-7 wt,cpu /w/api.php", &rl),
                     RUNLINE_OK);
    ck_assert_int_eq(rl.version, 2);
    ck_assert_int_eq(rl.kind, RUNLINE_BEGIN);
    ck_assert_uint_eq(rl.metrics, (1u << RL_CT) | (1u << RL_WT) | (1u << RL_CPU));
    ck_assert_int_eq((int)rl.text_len, 10);

    ck_assert_int_eq(parse("xhprof/2 r1 fn 2147483647 Foo::bar baz%0A", &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.kind, RUNLINE_FN);
    ck_assert_uint_eq(rl.id, 2147483647u);
    ck_assert_int_eq((int)rl.text_len, (int)strlen("Foo::bar baz%0A"));

    ck_assert_int_eq(parse("xhprof/2 r1 arc 1 500 - - - - 0", &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.kind, RUNLINE_ARC);
    ck_assert_uint_eq(rl.caller, RUNLINE_NO_CALLER);
    ck_assert_uint_eq(rl.callee, 0);
    ck_assert_uint_eq(rl.callee_level, 0);
    ck_assert_ptr_null(rl.text);
    ck_assert_int_eq(parse("xhprof/2 r1 arc 3 120 100 -64 4096 7@2 12@1", &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.v[RL_MU], -64);
    ck_assert_uint_eq(rl.present, 0x1f);
    ck_assert_uint_eq(rl.caller, 7);
    ck_assert_uint_eq(rl.caller_level, 2);
    ck_assert_uint_eq(rl.callee, 12);
    ck_assert_uint_eq(rl.callee_level, 1);

    ck_assert_int_eq(parse("xhprof/2 r1 end 812 3", &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.kind, RUNLINE_END);
    ck_assert_int_eq(rl.sent, 812);
    /* a version 1 line keeps version 1's shape */
    ck_assert_int_eq(parse("xhprof/1 r1 arc 1 2 - - - main()", &rl), RUNLINE_OK);
    ck_assert_int_eq(rl.version, 1);
}
END_TEST

START_TEST(v2_malformed_lines_refused)
{
    static const struct {
        const char *line;
        enum runline_error want;
    } cases[] = {
        {"xhprof/2 r fn 1", RUNLINE_BAD_RECORD},
        {"xhprof/2 r fn 1 ", RUNLINE_BAD_RECORD},
        {"xhprof/2 r fn", RUNLINE_BAD_RECORD},
        {"xhprof/2 r fn 2147483648 f", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r fn -1 f", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r fn 01 f", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r fn x f", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r fn 1 a\x01" "b", RUNLINE_BAD_TEXT},
        {"xhprof/2 r fn 1 a\tb", RUNLINE_BAD_TEXT},
        {"xhprof/2 r fn 1 a%0", RUNLINE_BAD_TEXT},
        {"xhprof/2 r fn 1 \xc3\x28", RUNLINE_BAD_TEXT},
        {"xhprof/1 r fn 1 f", RUNLINE_BAD_RECORD},
        {"xhprof/2 r arc 1 5 - - - - ", RUNLINE_BAD_RECORD},
        {"xhprof/2 r arc 1 5 - - - -", RUNLINE_BAD_RECORD},
        {"xhprof/2 r arc 1 5 - - - 1 2 3", RUNLINE_BAD_RECORD},
        {"xhprof/2 r arc 1 5 - - - 1  2", RUNLINE_BAD_RECORD},
        {"xhprof/2 r arc 1 5 - - - 1 -", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - x 2", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - 1 2@0", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - 1 2@", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - 1 @1", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - 1 2@1@1", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - 1@-1 2", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - 2147483648 2", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - 1 2@2147483648", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 - - - - - 2", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc -1 5 - - - - 2", RUNLINE_BAD_NUMBER},
        {"xhprof/2 r arc 1 5 - - - main()==>f", RUNLINE_BAD_NUMBER},
        {"xhprof/2 ../x fn 1 f", RUNLINE_BAD_RUNID},
        {"xhprof/2 r begin 1 h wt ", RUNLINE_BAD_RECORD},
        {"xhprof/2 r end 1 0 0", RUNLINE_BAD_RECORD},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct runline rl;
        enum runline_error got = parse(cases[i].line, &rl);
        ck_assert_msg(got == cases[i].want, "%s: got %s, want %s", cases[i].line,
                      runline_error_name(got), runline_error_name(cases[i].want));
    }
}
END_TEST

/* Parses a line the test knows is valid. */
static struct runline must_parse(const char *line)
{
    struct runline rl;
    ck_assert_msg(parse(line, &rl) == RUNLINE_OK, "refused: %s", line);
    return rl;
}

START_TEST(names_resolve_arcs_to_v1_keys)
{
    struct runline_names t;
    runline_names_init(&t, 1);
    strbuf key = STRBUF_INIT;
    struct runline fn0 = must_parse("xhprof/2 r fn 0 main()");
    struct runline fn1 = must_parse("xhprof/2 r fn 1 A%0Ab==>c%25");
    struct runline root = must_parse("xhprof/2 r arc 1 9 - - - - 0");
    struct runline arc = must_parse("xhprof/2 r arc 1 9 - - - 0 1@3");
    struct runline rec = must_parse("xhprof/2 r arc 1 9 - - - 1@2 1@3");
    struct runline undef = must_parse("xhprof/2 r arc 1 9 - - - 0 7");
    struct runline undef_caller = must_parse("xhprof/2 r arc 1 9 - - - 7 0");
    ck_assert_int_eq(runline_names_resolves(&t, &root), 0);
    ck_assert_int_eq(runline_names_key(&t, &root, &key), -1);
    ck_assert_int_eq(runline_names_define(&t, &fn0), 0);
    ck_assert_int_eq(runline_names_define(&t, &fn1), 0);
    ck_assert_int_eq(runline_names_define(&t, &fn1), -1); /* redefined */
    ck_assert_int_eq(runline_names_resolves(&t, &root), 1);
    ck_assert_int_eq(runline_names_key(&t, &root, &key), 0);
    ck_assert_int_eq((int)key.len, 6);
    ck_assert(memcmp(key.data, "main()", 6) == 0);
    ck_assert_int_eq(runline_names_key(&t, &arc, &key), 0);
    static const char want[] = "main()==>A\nb==>c%@3";
    ck_assert_int_eq((int)key.len, (int)sizeof want - 1);
    ck_assert(memcmp(key.data, want, key.len) == 0);
    ck_assert_int_eq(runline_names_key(&t, &rec, &key), 0);
    static const char want_rec[] = "A\nb==>c%@2==>A\nb==>c%@3";
    ck_assert(key.len == sizeof want_rec - 1 && memcmp(key.data, want_rec, key.len) == 0);
    ck_assert_int_eq(runline_names_resolves(&t, &undef), 0);
    ck_assert_int_eq(runline_names_resolves(&t, &undef_caller), 0);
    ck_assert_int_eq(runline_names_key(&t, &undef_caller, &key), -1);
    /* a version 1 arc needs no table */
    struct runline v1 = must_parse("xhprof/1 r arc 1 9 - - - a%00==>b");
    ck_assert_int_eq(runline_names_resolves(&t, &v1), 1);
    ck_assert_int_eq(runline_names_key(&t, &v1, &key), 0);
    ck_assert(key.len == 6 && memcmp(key.data, "a\0==>b", 6) == 0);
    /* a new run forgets the names */
    runline_names_clear(&t);
    ck_assert_int_eq(runline_names_resolves(&t, &root), 0);
    ck_assert_int_eq(runline_names_define(&t, &fn1), 0);
    /* many ids, sparse and at the ends of the range */
    for (uint32_t i = 0; i < 40000; i++) {
        struct runline fn = fn1;
        fn.id = i * 53681u % 2147483647u;
        if (fn.id == 1)
            continue;
        ck_assert_int_eq(runline_names_define(&t, &fn), 0);
    }
    struct runline fn = fn1;
    fn.id = 39999u * 53681u;
    ck_assert_int_eq(runline_names_define(&t, &fn), -1);
    struct runline far = arc;
    far.callee = 39999u * 53681u;
    far.callee_level = 0;
    ck_assert_int_eq(runline_names_key(&t, &far, &key), 0); /* 0 ==> the last one */
    far.callee = 2;
    ck_assert_int_eq(runline_names_resolves(&t, &far), 0);
    runline_names_free(&t);
    strbuf_free(&key);
}
END_TEST

START_TEST(entry_tags)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_int_eq((int)runline_entry_tag("/w/api.php", 10, tag), 3);
    ck_assert_str_eq(tag, "api");
    ck_assert_int_eq((int)runline_entry_tag("/w/api.phpx", 11, tag), 0);
    ck_assert_int_eq((int)runline_entry_tag("/w/.php", 7, tag), 0);
    ck_assert_int_eq((int)runline_entry_tag("/w/all.php", 10, tag), 0);
    ck_assert_int_eq((int)runline_entry_tag("/w/<x>.php", 10, tag), 0);
    ck_assert_int_eq((int)runline_entry_tag("unknown", 7, tag), 0);
}
END_TEST

/* --- the writer ------------------------------------------------------------ */

/* One arc as read back: its key and values. */
struct read_arc {
    char *key;
    size_t klen;
    int64_t v[RL_NMETRICS];
    unsigned present;
};

struct read_run {
    struct read_arc *arcs;
    size_t n;
    size_t lines;
    int64_t sent, left_out;
    struct runline begin;
};

/* Reads a written run back as a reader would: every line must parse, the
 * begin first, the end last, every name defined once before its use. */
static void read_back(const char *text, size_t len, struct read_run *out)
{
    memset(out, 0, sizeof *out);
    struct runline_names t;
    runline_names_init(&t, 1);
    strbuf key = STRBUF_INIT;
    out->arcs = calloc(len / 20 + 1, sizeof *out->arcs);
    const char *p = text, *end = text + len;
    int ended = 0;
    while (p <= end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        struct runline rl;
        enum runline_error err = runline_parse(p, n, &rl);
        ck_assert_msg(err == RUNLINE_OK, "line %zu refused (%s): %.80s", out->lines,
                      runline_error_name(err), p);
        ck_assert_int_eq(rl.version, 2);
        ck_assert(!ended);
        ck_assert_int_eq(rl.kind == RUNLINE_BEGIN, out->lines == 0);
        if (rl.kind == RUNLINE_BEGIN) {
            out->begin = rl;
        } else if (rl.kind == RUNLINE_FN) {
            ck_assert_msg(runline_names_define(&t, &rl) == 0, "id %u defined twice", rl.id);
        } else if (rl.kind == RUNLINE_ARC) {
            ck_assert_msg(runline_names_key(&t, &rl, &key) == 0, "arc before its names");
            struct read_arc *a = &out->arcs[out->n++];
            a->key = malloc(key.len + 1);
            memcpy(a->key, key.data, key.len);
            a->klen = key.len;
            memcpy(a->v, rl.v, sizeof a->v);
            a->present = rl.present;
        } else {
            out->sent = rl.sent;
            out->left_out = rl.left_out;
            ended = 1;
        }
        out->lines++;
        if (!nl)
            break;
        p = nl + 1;
    }
    ck_assert(ended);
    ck_assert_int_eq(out->sent, (int64_t)out->n);
    runline_names_free(&t);
    strbuf_free(&key);
}

static void read_free(struct read_run *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->arcs[i].key);
    free(r->arcs);
}

/* A raw name as a reader gets it back: whole, or shortened past the cap
 * (runline_shorten_name, tested on its own below). */
static void append_read_name(strbuf *out, const struct runline_name *name)
{
    if (name->len <= RUNLINE_MAX_NAME_BYTES) {
        strbuf_append(out, name->s, name->len);
        return;
    }
    char cut[RUNLINE_MAX_NAME_BYTES];
    strbuf_append(out, cut, runline_shorten_name(name->s, name->len, cut));
}

/* The version 1 key of an arc, from the raw names. */
static void v1_key(const struct runline_run *run, const struct runline_arc *a, strbuf *out)
{
    strbuf_reset(out);
    if (a->caller != RUNLINE_NO_CALLER) {
        append_read_name(out, &run->names[a->caller]);
        if (a->caller_level)
            strbuf_appendf(out, "@%u", a->caller_level);
        strbuf_appends(out, "==>");
    }
    append_read_name(out, &run->names[a->callee]);
    if (a->callee_level)
        strbuf_appendf(out, "@%u", a->callee_level);
}

#define HUGE_NAME 300000
/* A literal and its length (it may hold NULs). */
#define N(lit) {lit, sizeof lit - 1}

/* Hostile names: NUL, CR, LF, '%', "==>", tab, DEL, invalid UTF-8, real
 * UTF-8, a huge one. Index 0 is main(). */
static size_t hostile_names(struct runline_name *names, char *huge)
{
    static const struct { const char *s; size_t len; } fixed[] = {
        N("main()"),
        N("MediaWiki\\Revision\\RevisionStore::newRevisionFromRowAndSlots"),
        N("a\0b"),
        N("line\nbreak\r"),
        N("100%25%"),
        N("x==>y"),
        N("tab\there del\x7f"),
        N("bad\xff\xfe utf8 \xc3"),
        N("\xc3\xbc" "n" "\xc3\xaf" "c" "\xc3\xb6" "d" "\xc3\xa9 \xe2\x82\xac"),
        N("{closure}"),
        N("class@anonymous\0/srv/x.php:3$0"),
        N(" "),
        N("-"),
        N("7@1"),
    };
    size_t n = sizeof fixed / sizeof fixed[0];
    for (size_t i = 0; i < n; i++)
        names[i] = (struct runline_name){fixed[i].s, fixed[i].len};
    memset(huge, 'N', HUGE_NAME);
    huge[HUGE_NAME / 2] = '\n';
    names[n] = (struct runline_name){huge, HUGE_NAME};
    return n + 1;
}

static const struct runline_run RUN = {
    .runid = "0a1b2c3d4e5f6789", .time = 1764126000, .host = "web-7",
    .metrics = 0x1f, .entry = "/srv/w/index.php", .entry_len = 16,
};

/* The arcs of the hostile names: the root, main() to each, each to the
 * next, a recursion, at levels. */
static size_t hostile_arcs(size_t nnames, struct runline_arc *arcs)
{
    size_t n = 0;
    arcs[n++] = (struct runline_arc){RUNLINE_NO_CALLER, 0, 0, 0, {1, 100000, 90000, 512, 4096}};
    for (uint32_t i = 1; i < nnames; i++) {
        arcs[n++] = (struct runline_arc){0, 0, i, 0, {i, 5000 + i * 37 % 1000, 40, -64, 0}};
        if (i + 1 < nnames)
            arcs[n++] = (struct runline_arc){i, 0, i + 1, i % 3, {2, 300 + i, 20, 8, 16}};
    }
    arcs[n++] = (struct runline_arc){9, 0, 9, 1, {4, 700, 600, 0, 0}};
    arcs[n++] = (struct runline_arc){9, 1, 9, 2, {3, 700, 500, 0, 0}}; /* a tie */
    return n;
}

START_TEST(written_run_reads_back_as_the_same_keys_and_metrics)
{
    struct runline_name names[32];
    char *huge = malloc(HUGE_NAME);
    struct runline_run run = RUN;
    run.names = names;
    run.nnames = hostile_names(names, huge);
    struct runline_arc arcs[64];
    size_t narcs = hostile_arcs(run.nnames, arcs);
    strbuf sb = STRBUF_INIT;
    uint64_t left = 99;
    size_t lines = runline_write_run(&sb, &run, arcs, narcs, 0, &left);
    ck_assert_uint_eq(left, 0);
    struct read_run got;
    read_back(sb.data, sb.len, &got);
    ck_assert_uint_eq(got.lines, lines);
    ck_assert_uint_eq(got.n, narcs);
    ck_assert_uint_eq(lines, 1 + run.nnames + narcs + 1); /* every name once */
    ck_assert_int_eq(got.left_out, 0);
    ck_assert(sb.data[sb.len - 1] != '\n');
    ck_assert(got.begin.text_len == 16 && memcmp(got.begin.text, "/srv/w/index.php", 16) == 0);
    ck_assert(got.begin.host_len == 5 && got.begin.metrics == 0x1f);
    strbuf want = STRBUF_INIT;
    for (size_t i = 0; i < narcs; i++) {
        /* in the order written: heaviest first, `arcs` sorted to match */
        if (i)
            ck_assert(arcs[i - 1].v[RL_WT] >= arcs[i].v[RL_WT]);
        v1_key(&run, &arcs[i], &want);
        ck_assert_msg(got.arcs[i].klen == want.len &&
                          memcmp(got.arcs[i].key, want.data, want.len) == 0,
                      "arc %zu: key differs", i);
        ck_assert(memcmp(got.arcs[i].v, arcs[i].v, sizeof arcs[i].v) == 0);
        ck_assert_uint_eq(got.arcs[i].present, 0x1f);
    }
    /* the tie kept its order: level 1 before level 2 */
    for (size_t i = 0; i + 1 < narcs; i++) {
        if (arcs[i].callee == 9 && arcs[i].caller == 9) {
            ck_assert_uint_eq(arcs[i].callee_level, 1);
            ck_assert_uint_eq(arcs[i + 1].callee_level, 2);
            break;
        }
    }
    read_free(&got);
    strbuf_free(&want);
    strbuf_free(&sb);
    free(huge);
}
END_TEST

START_TEST(cap_leaves_out_what_does_not_fit_and_keeps_room_for_the_end)
{
    struct runline_name names[32];
    char *huge = malloc(HUGE_NAME);
    struct runline_run run = RUN;
    run.names = names;
    run.nnames = hostile_names(names, huge);
    struct runline_arc arcs[64], work[64];
    size_t narcs = hostile_arcs(run.nnames, arcs);
    /* the huge name's arcs are the heaviest after the root: they cannot
     * fit a small cap, the lighter ones after them still do */
    for (size_t i = 0; i < narcs; i++) {
        if (arcs[i].callee == run.nnames - 1 || arcs[i].caller == run.nnames - 1)
            arcs[i].v[RL_WT] = 99999;
    }
    strbuf sb = STRBUF_INIT;
    uint64_t left;
    memcpy(work, arcs, sizeof arcs);
    runline_write_run(&sb, &run, work, narcs, 0, &left);
    size_t full = sb.len;
    ck_assert_uint_gt(full, RUNLINE_MAX_NAME_BYTES); /* the huge name, shortened */
    /* caps from nothing to more than enough */
    size_t caps[] = {1, 200, 1000, 4000, HUGE_NAME, full - 1, full + 2};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        strbuf_reset(&sb);
        strbuf_appends(&sb, "before\n"); /* the run's bytes are its own */
        memcpy(work, arcs, sizeof arcs);
        size_t lines = runline_write_run(&sb, &run, work, narcs, caps[c], &left);
        struct read_run got;
        read_back(sb.data + 7, sb.len - 7, &got);
        ck_assert_uint_eq(got.lines, lines);
        ck_assert_int_eq(got.left_out, (int64_t)left);
        ck_assert_uint_eq(got.n + left, narcs);
        if (caps[c] >= 200) /* room for begin and end: the cap holds */
            ck_assert_msg(sb.len - 7 <= caps[c], "cap %zu: %zu bytes", caps[c], sb.len - 7);
        if (caps[c] == 1000 || caps[c] == 4000) {
            ck_assert_uint_ge(left, 2);       /* the huge name's arcs */
            ck_assert_uint_gt(got.n, 2);      /* lighter arcs after them did fit */
            ck_assert(memmem(sb.data, sb.len, "NNNN", 4) == NULL);
        }
        if (caps[c] == full - 1)
            ck_assert_uint_ge(left, 1);
        if (caps[c] == full + 2)
            ck_assert_uint_eq(left, 0);
        read_free(&got);
    }
    strbuf_free(&sb);
    free(huge);
}
END_TEST

START_TEST(arcs_the_format_cannot_carry_are_left_out)
{
    struct runline_name names[] = {{"main()", 6}, {"", 0}, {"f", 1}};
    struct runline_run run = RUN;
    run.names = names;
    run.nnames = 3;
    run.metrics = (1u << RL_CT) | (1u << RL_WT);
    run.host = "";
    run.entry_len = 0;
    struct runline_arc arcs[] = {
        {RUNLINE_NO_CALLER, 0, 0, 0, {1, 50, 7, 7, 7}},
        {0, 0, 1, 0, {1, 40, 0, 0, 0}},          /* an empty name */
        {0, 0, 3, 0, {1, 30, 0, 0, 0}},          /* past nnames */
        {7, 0, 2, 0, {1, 20, 0, 0, 0}},          /* a caller past nnames */
        {0, 0, 2, 0x80000000u, {1, 10, 0, 0, 0}}, /* a level past the format's */
        {0, 0, 2, 0, {-5, -10, -3, -1, -2}},      /* negative: 0, memory as it is */
    };
    strbuf sb = STRBUF_INIT;
    uint64_t left;
    runline_write_run(&sb, &run, arcs, 6, 0, &left);
    ck_assert_uint_eq(left, 4);
    struct read_run got;
    read_back(sb.data, sb.len, &got);
    ck_assert_uint_eq(got.n, 2);
    ck_assert_uint_eq(got.begin.metrics, 0x3);
    ck_assert(got.begin.host_len == 1 && got.begin.host[0] == '-');
    ck_assert(got.begin.text_len == 7 && memcmp(got.begin.text, "unknown", 7) == 0);
    ck_assert_uint_eq(got.arcs[0].present, 0x3);     /* cpu, mu, pmu: "-" */
    ck_assert_int_eq(got.arcs[1].v[RL_CT], 0);
    ck_assert_int_eq(got.arcs[1].v[RL_WT], 0);
    ck_assert(got.arcs[1].klen == 10 && memcmp(got.arcs[1].key, "main()==>f", 10) == 0);
    ck_assert(strstr(strbuf_cstr(&sb), "\nxhprof/2 0a1b2c3d4e5f6789 end 2 4") != NULL);
    read_free(&got);
    strbuf_free(&sb);
}
END_TEST

START_TEST(writer_escapes_exactly_what_the_format_says)
{
    struct runline_name names[] = {N("a%b\r\n\0c"), N("d\te\x7f\xff\xc3\xa9")};
    struct runline_run run = RUN;
    run.names = names;
    run.nnames = 2;
    run.entry = "/srv/my dir/in%dex.php";
    run.entry_len = strlen(run.entry);
    struct runline_arc arcs[] = {{RUNLINE_NO_CALLER, 0, 0, 0, {1, 5, 1, 1, 1}},
                                 {0, 0, 1, 2, {1, 4, 1, 1, 1}}};
    strbuf sb = STRBUF_INIT;
    uint64_t left;
    runline_write_run(&sb, &run, arcs, 2, 0, &left);
    ck_assert_str_eq(strbuf_cstr(&sb),
                     "xhprof/2 0a1b2c3d4e5f6789 begin 1764126000 web-7 wt,cpu,mu,pmu "
                     "/srv/my dir/in%25dex.php\n"
                     "xhprof/2 0a1b2c3d4e5f6789 fn 0 a%25b%0D%0A%00c\n"
                     "xhprof/2 0a1b2c3d4e5f6789 arc 1 5 1 1 1 - 0\n"
                     "xhprof/2 0a1b2c3d4e5f6789 fn 1 d%09e%7F%FF\xc3\xa9\n"
                     "xhprof/2 0a1b2c3d4e5f6789 arc 1 4 1 1 1 0 1@2\n"
                     "xhprof/2 0a1b2c3d4e5f6789 end 2 0");
    strbuf_free(&sb);
}
END_TEST

/* Ids that are multiples of 2^16 all took slot 0 of the table's former
 * multiplicative hash (at every size up to 2^16 slots), so each define
 * probed past every id before it. Under the keyed hash they spread. */
START_TEST(name_ids_crafted_to_share_a_slot_spread)
{
    struct runline_names t;
    runline_names_init(&t, 0);
    for (uint32_t j = 1; j <= 999; j++) {
        char line[64];
        snprintf(line, sizeof line, "xhprof/2 r1 fn %u f%u", j << 16, j);
        struct runline rl;
        ck_assert_int_eq(runline_parse(line, strlen(line), &rl), RUNLINE_OK);
        ck_assert_int_eq(runline_names_define(&t, &rl), 0);
    }
    /* 999 ids in 2048 slots: random stretches stay a few dozen long */
    ck_assert_uint_le(runline_names_longest_probe(&t), 100);
    runline_names_free(&t);
}
END_TEST

/* The text of the fn line of a run of one name (index 1; 0 is main()),
 * as written: into out, NUL-terminated (names here hold no NUL once
 * escaped). Asserts that the run reads back whole. */
static void written_name(const char *name, size_t len, char *out, size_t outlen)
{
    struct runline_name names[] = {{"main()", 6}, {name, len}};
    struct runline_run run = RUN;
    run.names = names;
    run.nnames = 2;
    struct runline_arc arcs[] = {{RUNLINE_NO_CALLER, 0, 0, 0, {1, 5, 1, 1, 1}},
                                 {0, 0, 1, 0, {1, 4, 1, 1, 1}}};
    strbuf sb = STRBUF_INIT;
    uint64_t left;
    runline_write_run(&sb, &run, arcs, 2, 0, &left);
    ck_assert_uint_eq(left, 0);
    struct read_run got;
    read_back(sb.data, sb.len, &got);
    ck_assert_uint_eq(got.n, 2);
    read_free(&got);
    const char *fn = strstr(strbuf_cstr(&sb), " fn 1 ");
    ck_assert_ptr_nonnull(fn);
    fn += 6;
    size_t n = strcspn(fn, "\n");
    ck_assert_uint_lt(n, outlen);
    memcpy(out, fn, n);
    out[n] = '\0';
    strbuf_free(&sb);
}

START_TEST(writer_escapes_every_byte_outside_printable_utf8)
{
    /* each byte alone between two letters: a byte >= 0x80 alone is never
     * valid UTF-8 */
    for (unsigned b = 0; b < 256; b++) {
        char name[3] = {'x', (char)b, 'y'}, got[64], want[8];
        int escaped = b < 0x20 || b == 0x7f || b == '%' || b >= 0x80;
        if (escaped)
            snprintf(want, sizeof want, "x%%%02Xy", b);
        else
            snprintf(want, sizeof want, "x%cy", (char)b);
        written_name(name, 3, got, sizeof got);
        ck_assert_msg(strcmp(got, want) == 0, "byte 0x%02x: %s, want %s", b, got, want);
    }
    /* valid UTF-8 of every length, at the edges of the ranges, as it is */
    static const char *const valid[] = {
        "\xc2\x80", "caf\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xe2\x82\xac", "\xed\x9f\xbf",
        "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf0\x9f\x98\x80",
        "\xf4\x8f\xbf\xbf", "\xe6\x97\xa5\xe6\x9c\xac::\xe9\xa7\x85",
    };
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        char got[64];
        written_name(valid[i], strlen(valid[i]), got, sizeof got);
        ck_assert_msg(strcmp(got, valid[i]) == 0, "valid UTF-8 %zu escaped: %s", i, got);
    }
}
END_TEST

START_TEST(invalid_utf8_sequences_escape_byte_by_byte)
{
    static const struct { const char *raw, *want; } cases[] = {
        {"\xc0\xaf", "%C0%AF"},                          /* overlong '/' */
        {"\xc1\xbf", "%C1%BF"},                          /* overlong, 2 bytes */
        {"\xe0\x80\xaf", "%E0%80%AF"},                   /* overlong, 3 bytes */
        {"\xe0\x9f\xbf", "%E0%9F%BF"},
        {"\xf0\x80\x80\xaf", "%F0%80%80%AF"},            /* overlong, 4 bytes */
        {"\xf0\x8f\xbf\xbf", "%F0%8F%BF%BF"},
        {"\xed\xa0\x80", "%ED%A0%80"},                   /* surrogates */
        {"\xed\xbf\xbf", "%ED%BF%BF"},
        {"\xf4\x90\x80\x80", "%F4%90%80%80"},            /* past U+10FFFF */
        {"\xf5\x80\x80\x80", "%F5%80%80%80"},
        {"\xfe\xff", "%FE%FF"},
        {"a\xe2\x82", "a%E2%82"},                        /* cut at the end */
        {"\xf0\x9f\x98", "%F0%9F%98"},
        {"\xe2\x82" "A", "%E2%82A"},                     /* cut in the middle */
        {"\xc3\xc3\xa9", "%C3\xc3\xa9"},                 /* then a valid one */
        {"\x80\xbf", "%80%BF"},                          /* lone continuations */
        {"Caf\xe9::na\xefve", "Caf%E9::na%EFve"},        /* Latin-1 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[64];
        written_name(cases[i].raw, strlen(cases[i].raw), got, sizeof got);
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: %s, want %s", i, got,
                      cases[i].want);
    }
}
END_TEST

/* Bytes a name is made of in the round trip: the ones that need care more
 * often than the rest. */
static unsigned char odd_byte(unsigned r)
{
    static const unsigned char some[] = {0, '\t', '\n', '\r', ' ', '%', '=', '>', '@', 0x7f,
                                         0x80, 0xbf, 0xc0, 0xc3, 0xa9, 0xe2, 0x82, 0xac,
                                         0xed, 0xa0, 0xf0, 0x9f, 0xf4, 0x90, 0xff};
    return r % 3 ? some[r / 3 % sizeof some] : (unsigned char)(r / 3);
}

START_TEST(any_bytes_round_trip_through_the_writer_and_parser)
{
    enum { NAMES = 400 };
    struct runline_name names[NAMES];
    char *store = malloc(NAMES * 48);
    unsigned seed = 24;
    names[0] = (struct runline_name){"main()", 6};
    for (size_t i = 1; i < NAMES; i++) {
        char *p = store + i * 48;
        size_t len = 1 + i % 47;
        for (size_t j = 0; j < len; j++) {
            seed = seed * 1103515245u + 12345u;
            p[j] = (char)odd_byte(seed >> 8);
        }
        names[i] = (struct runline_name){p, len};
    }
    struct runline_run run = RUN;
    run.names = names;
    run.nnames = NAMES;
    run.entry = names[7].s; /* a path of odd bytes too */
    run.entry_len = names[7].len;
    struct runline_arc arcs[NAMES];
    arcs[0] = (struct runline_arc){RUNLINE_NO_CALLER, 0, 0, 0, {1, 100000, 0, 0, 0}};
    for (uint32_t i = 1; i < NAMES; i++)
        arcs[i] = (struct runline_arc){i - 1, 0, i, 0, {1, 100000 - i, 0, 0, 0}};
    strbuf sb = STRBUF_INIT;
    uint64_t left;
    runline_write_run(&sb, &run, arcs, NAMES, 0, &left);
    ck_assert_uint_eq(left, 0);
    struct read_run got;
    read_back(sb.data, sb.len, &got); /* every line parses */
    ck_assert_uint_eq(got.n, NAMES);
    char *entry = malloc(got.begin.text_len);
    size_t elen = runline_unescape(got.begin.text, got.begin.text_len, entry);
    ck_assert(elen == names[7].len && memcmp(entry, names[7].s, elen) == 0);
    strbuf want = STRBUF_INIT;
    for (size_t i = 0; i < NAMES; i++) {
        v1_key(&run, &arcs[i], &want);
        ck_assert_msg(got.arcs[i].klen == want.len &&
                          memcmp(got.arcs[i].key, want.data, want.len) == 0,
                      "arc %zu: key differs", i);
    }
    strbuf_free(&want);
    read_free(&got);
    free(entry);
    strbuf_free(&sb);
    free(store);
}
END_TEST

START_TEST(host_field_carries_only_what_the_parser_takes)
{
    char longhost[400];
    memset(longhost, 'h', sizeof longhost - 3);
    memcpy(longhost + RUNLINE_HOST_MAX - 1, "\xc3\xa9", 2); /* straddles the cut */
    longhost[sizeof longhost - 1] = '\0';
    static const struct { const char *host, *want; } cases[] = {
        {"web-7", "web-7"},
        {"we b\x01\x7f\xff" "caf\xc3\xa9", "we_b___caf\xc3\xa9"},
        {"\xe9t\xe9", "_t_"},
    };
    struct runline_name names[] = {{"main()", 6}};
    struct runline_arc arc = {RUNLINE_NO_CALLER, 0, 0, 0, {1, 5, 1, 1, 1}};
    for (size_t i = 0; i < 4; i++) {
        struct runline_run run = RUN;
        run.names = names;
        run.nnames = 1;
        run.host = i < 3 ? cases[i].host : longhost;
        strbuf sb = STRBUF_INIT;
        uint64_t left;
        runline_write_run(&sb, &run, &arc, 1, 0, &left);
        struct read_run got;
        read_back(sb.data, sb.len, &got); /* the begin line is taken */
        if (i < 3) {
            ck_assert_uint_eq(got.begin.host_len, strlen(cases[i].want));
            ck_assert(memcmp(got.begin.host, cases[i].want, got.begin.host_len) == 0);
        } else {
            ck_assert_uint_eq(got.begin.host_len, RUNLINE_HOST_MAX);
            ck_assert_int_eq(got.begin.host[RUNLINE_HOST_MAX - 1], '_');
        }
        read_free(&got);
        strbuf_free(&sb);
    }
}
END_TEST

/* Checks a shortened name: `keep` bytes of the raw name, the mark, the hash. */
static void assert_cut(const char *raw, size_t len, const char *cut, size_t n, size_t keep)
{
    char tail[64];
    snprintf(tail, sizeof tail, "%s%016llx]", RUNLINE_CUT_MARK,
             (unsigned long long)fixedhash_fnv1a64(raw, len));
    ck_assert_uint_le(n, RUNLINE_MAX_NAME_BYTES);
    ck_assert_uint_eq(n, keep + strlen(tail));
    ck_assert(memcmp(cut, raw, keep) == 0);
    ck_assert(memcmp(cut + keep, tail, strlen(tail)) == 0);
}

START_TEST(long_names_are_cut_at_a_utf8_boundary_and_marked)
{
    size_t keep = RUNLINE_MAX_NAME_BYTES - RUNLINE_CUT_SUFFIX_LEN;
    size_t len = RUNLINE_MAX_NAME_BYTES + 500;
    char *a = malloc(len), *b = malloc(len);
    char cut_a[RUNLINE_MAX_NAME_BYTES], cut_b[RUNLINE_MAX_NAME_BYTES];
    memset(a, 'a', len);
    memcpy(b, a, len);
    b[len - 1] = 'b'; /* differs past the cut only */
    size_t na = runline_shorten_name(a, len, cut_a);
    size_t nb = runline_shorten_name(b, len, cut_b);
    assert_cut(a, len, cut_a, na, keep);
    assert_cut(b, len, cut_b, nb, keep);
    ck_assert_uint_eq(na, RUNLINE_MAX_NAME_BYTES);
    ck_assert(memcmp(cut_a, cut_b, na) != 0); /* still two names */
    ck_assert_uint_eq(runline_shorten_name(a, len, cut_b), na); /* the same, every time */
    ck_assert(memcmp(cut_a, cut_b, na) == 0);
    /* a sequence across the cut goes whole or not at all */
    static const char *const seqs[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    for (size_t s = 0; s < 3; s++) {
        size_t sl = strlen(seqs[s]);
        for (size_t at = keep - sl + 1; at < keep; at++) {
            memset(a, 'a', len);
            memcpy(a + at, seqs[s], sl);
            na = runline_shorten_name(a, len, cut_a);
            assert_cut(a, len, cut_a, na, at);
        }
        memset(a, 'a', len);
        memcpy(a + keep - sl, seqs[s], sl); /* ends exactly at the cut: kept */
        assert_cut(a, len, cut_a, runline_shorten_name(a, len, cut_a), keep);
    }
    /* invalid bytes are units of one: cut right at the limit */
    memset(a, '\xff', len);
    assert_cut(a, len, cut_a, runline_shorten_name(a, len, cut_a), keep);
    free(a);
    free(b);
}
END_TEST

START_TEST(writer_shortens_long_names_and_entry)
{
    size_t len = RUNLINE_MAX_NAME_BYTES + 1;
    char *exact = malloc(len), *over = malloc(len), *path = malloc(len);
    memset(exact, '\x7f', RUNLINE_MAX_NAME_BYTES);   /* at the cap, all escaped: whole */
    memset(over, 'o', len);                          /* one past: shortened */
    memset(path, 'p', len);
    struct runline_name names[] = {{"main()", 6}, {exact, RUNLINE_MAX_NAME_BYTES}, {over, len}};
    struct runline_run run = RUN;
    run.names = names;
    run.nnames = 3;
    run.entry = path;
    run.entry_len = len;
    struct runline_arc arcs[] = {{RUNLINE_NO_CALLER, 0, 0, 0, {1, 5, 1, 1, 1}},
                                 {0, 0, 1, 0, {1, 4, 1, 1, 1}},
                                 {1, 0, 2, 0, {1, 3, 1, 1, 1}}};
    strbuf sb = STRBUF_INIT;
    uint64_t left;
    runline_write_run(&sb, &run, arcs, 3, 0, &left);
    struct read_run got;
    read_back(sb.data, sb.len, &got);
    ck_assert_uint_eq(got.n, 3);
    char cut[RUNLINE_MAX_NAME_BYTES], *entry = malloc(got.begin.text_len);
    size_t n = runline_shorten_name(path, len, cut);
    ck_assert_uint_eq(runline_unescape(got.begin.text, got.begin.text_len, entry), n);
    ck_assert(memcmp(entry, cut, n) == 0);
    ck_assert_uint_eq(got.arcs[1].klen, 6 + 3 + RUNLINE_MAX_NAME_BYTES);
    ck_assert(memcmp(got.arcs[1].key + 9, exact, RUNLINE_MAX_NAME_BYTES) == 0);
    n = runline_shorten_name(over, len, cut);
    ck_assert_uint_eq(got.arcs[2].klen, RUNLINE_MAX_NAME_BYTES + 3 + n);
    ck_assert(memcmp(got.arcs[2].key + RUNLINE_MAX_NAME_BYTES + 3, cut, n) == 0);
    read_free(&got);
    strbuf_free(&sb);
    free(entry);
    free(exact);
    free(over);
    free(path);
}
END_TEST

/* A line: head, then `n` copies of unit. */
static char *repeated(const char *head, const char *unit, size_t n, size_t *len)
{
    size_t hl = strlen(head), ul = strlen(unit);
    char *s = malloc(hl + n * ul + 1);
    memcpy(s, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(s + hl + i * ul, unit, ul);
    *len = hl + n * ul;
    s[*len] = '\0';
    return s;
}

START_TEST(parser_refuses_names_past_the_cap)
{
    static const struct { const char *head, *unit; size_t max; } cases[] = {
        {"xhprof/2 r fn 1 ", "n", RUNLINE_MAX_NAME_BYTES},
        {"xhprof/2 r fn 1 ", "%41", RUNLINE_MAX_NAME_BYTES},   /* counted decoded */
        {"xhprof/2 r fn 1 ", "\xc3\xa9", RUNLINE_MAX_NAME_BYTES / 2},
        {"xhprof/2 r begin 1 h wt /", "p", RUNLINE_MAX_NAME_BYTES - 1},
        {"xhprof/1 r begin 1 h wt /", "%09", RUNLINE_MAX_NAME_BYTES - 1},
        {"xhprof/1 r arc 1 1 - - - ", "k", RUNLINE_MAX_KEY_BYTES},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct runline rl;
        size_t len;
        char *at = repeated(cases[i].head, cases[i].unit, cases[i].max, &len);
        ck_assert_msg(runline_parse(at, len, &rl) == RUNLINE_OK, "case %zu at the cap", i);
        free(at);
        char *past = repeated(cases[i].head, cases[i].unit, cases[i].max + 1, &len);
        enum runline_error err = runline_parse(past, len, &rl);
        ck_assert_msg(err == RUNLINE_LONG_NAME, "case %zu past the cap: %s", i,
                      runline_error_name(err));
        free(past);
    }
    ck_assert_str_eq(runline_error_name(RUNLINE_LONG_NAME), "long_name");
}
END_TEST

Suite *runline_suite(void)
{
    Suite *s = suite_create("runline");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, begin_line_fields);
    tcase_add_test(tc, arc_line_fields);
    tcase_add_test(tc, end_line_fields);
    tcase_add_test(tc, malformed_lines_refused);
    tcase_add_test(tc, entry_tags);
    tcase_add_test(tc, v2_lines_fields);
    tcase_add_test(tc, v2_malformed_lines_refused);
    tcase_add_test(tc, names_resolve_arcs_to_v1_keys);
    tcase_add_test(tc, written_run_reads_back_as_the_same_keys_and_metrics);
    tcase_add_test(tc, cap_leaves_out_what_does_not_fit_and_keeps_room_for_the_end);
    tcase_add_test(tc, arcs_the_format_cannot_carry_are_left_out);
    tcase_add_test(tc, writer_escapes_exactly_what_the_format_says);
    tcase_add_test(tc, name_ids_crafted_to_share_a_slot_spread);
    tcase_add_test(tc, writer_escapes_every_byte_outside_printable_utf8);
    tcase_add_test(tc, invalid_utf8_sequences_escape_byte_by_byte);
    tcase_add_test(tc, any_bytes_round_trip_through_the_writer_and_parser);
    tcase_add_test(tc, host_field_carries_only_what_the_parser_takes);
    tcase_add_test(tc, long_names_are_cut_at_a_utf8_boundary_and_marked);
    tcase_add_test(tc, writer_shortens_long_names_and_entry);
    tcase_add_test(tc, parser_refuses_names_past_the_cap);
    suite_add_tcase(s, tc);
    return s;
}
