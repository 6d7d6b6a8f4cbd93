/* Tests of phpser: serialize()d XHProf runs are read whole, and every way a
 * hostile file can lie (lengths, counts, types, nesting, numbers, trailing
 * bytes, size) is refused with the byte where it went wrong. */
#include "phpser.h"
#include "test-suites.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

struct seen {
    int entries, metrics;
    double sum;
};

static int count(void *arg, const char *key, size_t klen, const char *metric, size_t mlen,
                 double value)
{
    (void)key;
    (void)klen;
    (void)mlen;
    struct seen *s = arg;
    if (!metric)
        s->entries++;
    else {
        s->metrics++;
        s->sum += value;
    }
    return 0;
}

static long read_str(const char *text, struct seen *s, char *err)
{
    memset(s, 0, sizeof *s);
    return phpser_read_run(text, strlen(text), 100, count, s, err, 200);
}

START_TEST(a_run_is_read_whole)
{
    struct seen s;
    char err[200];
    const char *run = "a:2:{s:6:\"main()\";a:2:{s:2:\"ct\";i:1;s:2:\"wt\";i:100;}"
                      "s:10:\"main()==>a\";a:2:{s:2:\"ct\";i:2;s:2:\"wt\";d:60.5;}}";
    ck_assert_int_eq(read_str(run, &s, err), 2);
    ck_assert_int_eq(s.entries, 2);
    ck_assert_int_eq(s.metrics, 4);
    ck_assert_double_eq(s.sum, 163.5);
    ck_assert_int_eq(read_str("a:0:{}", &s, err), 0);
}
END_TEST

START_TEST(hostile_runs_are_refused_with_where)
{
    static const char *const bad[] = {
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";i:1;}",            /* truncated */
        "a:1:{s:60:\"main()\";a:0:{}}",                          /* length past the end */
        "a:1:{s:3:\"main()\";a:0:{}}",                           /* wrong length */
        "a:2:{s:6:\"main()\";a:0:{}}",                           /* fewer entries than said */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";a:0:{}}}",           /* nested deeper */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";s:1:\"x\";}}",       /* a string value */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";i:99999999999999999999;}}", /* overflow */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";d:1e300;}}",         /* out of range */
        "a:1:{s:6:\"main()\";a:1:{s:2:\"ct\";d:NAN;}}",           /* not finite */
        "a:1:{s:6:\"main()\";a:0:{}}trailing",                    /* trailing bytes */
        "a:99999999999:{}",                                       /* a count of 11 digits */
        "a:101:{}",                                               /* over max_entries */
        "O:8:\"stdClass\":0:{}",                                  /* an object */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct seen s;
        char err[200] = "";
        ck_assert_msg(read_str(bad[i], &s, err) == -1, "accepted: %s", bad[i]);
        ck_assert_msg(strncmp(err, "byte ", 5) == 0, "no offset for %s: %s", bad[i], err);
    }
}
END_TEST

START_TEST(keys_may_hold_any_bytes)
{
    struct seen s;
    char err[200];
    const char run[] = "a:1:{s:5:\"a\0\"\n;\";a:0:{}}";
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(phpser_read_run(run, sizeof run - 1, 10, count, &s, err, sizeof err), 1);
}
END_TEST

Suite *phpser_suite(void)
{
    Suite *s = suite_create("phpser");
    TCase *tc = tcase_create("phpser");
    tcase_add_test(tc, a_run_is_read_whole);
    tcase_add_test(tc, hostile_runs_are_refused_with_where);
    tcase_add_test(tc, keys_may_hold_any_bytes);
    suite_add_tcase(s, tc);
    return s;
}
