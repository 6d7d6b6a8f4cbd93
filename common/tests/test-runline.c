/* Tests of runline: the xhprof/1 lines of a hierarchical run are split into
 * their fields, and every malformed field is refused with its reason. */
#include "runline.h"
#include "stackline.h"
#include "test-suites.h"

#include <check.h>
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

Suite *runline_suite(void)
{
    Suite *s = suite_create("runline");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, begin_line_fields);
    tcase_add_test(tc, arc_line_fields);
    tcase_add_test(tc, end_line_fields);
    tcase_add_test(tc, malformed_lines_refused);
    tcase_add_test(tc, entry_tags);
    suite_add_tcase(s, tc);
    return s;
}
