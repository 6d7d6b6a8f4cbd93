/* Unit tests of diffmerge: two logs merged into "STACK BEFORE AFTER" lines
 * as difffolded.pl -n merges them, within bounded memory. */
#include <stdlib.h>
#include <string.h>

#include "diffmerge.h"
#include "flame.h"
#include "strbuf.h"
#include "test-suites.h"

static int collect(void *arg, const char *line, size_t len)
{
    strbuf_append(arg, line, len);
    strbuf_appendc(arg, '\n');
    return 0;
}

static void add(struct diffmerge *dm, enum diffmerge_side side, const char *line)
{
    diffmerge_add_line(dm, side, line, strlen(line));
}

START_TEST(merges_sums_and_normalises_as_difffolded_n)
{
    struct diffmerge *dm = diffmerge_new(0, 0);
    add(dm, DIFFMERGE_BEFORE, "m;b 3");
    add(dm, DIFFMERGE_BEFORE, "m;a 4");
    add(dm, DIFFMERGE_BEFORE, "m;a 3\r");   /* summed; CR ignored */
    add(dm, DIFFMERGE_AFTER, "m;a 20");
    add(dm, DIFFMERGE_AFTER, "m;c 5");
    ck_assert_int_eq(diffmerge_add_line(dm, DIFFMERGE_AFTER, "junk", 4), -1);
    ck_assert_uint_eq(diffmerge_ignored(dm, DIFFMERGE_AFTER), 1);
    ck_assert_uint_eq(diffmerge_total(dm, DIFFMERGE_BEFORE), 10);
    ck_assert_uint_eq(diffmerge_total(dm, DIFFMERGE_AFTER), 25);
    strbuf out = STRBUF_INIT;
    diffmerge_emit(dm, 1, collect, &out);
    /* a: int(7 * 25 / 10) = 17; b: int(3 * 2.5) = 7; c: absent before */
    ck_assert_str_eq(strbuf_cstr(&out), "m;a 17 20\nm;b 7 0\nm;c 0 5\n");
    strbuf_reset(&out);
    diffmerge_emit(dm, 0, collect, &out);
    ck_assert_str_eq(strbuf_cstr(&out), "m;a 7 20\nm;b 3 0\nm;c 0 5\n");
    strbuf_free(&out);
    diffmerge_free(dm);
    ck_assert_uint_eq(diffmerge_normalised(5, 0, 9), 5);    /* nothing before: as it is */
    ck_assert_uint_eq(diffmerge_normalised(5, 9, 9), 5);    /* equal totals: as it is */
    ck_assert_uint_eq(diffmerge_normalised(1, 3, 2), 0);    /* truncated, as int() */
}
END_TEST

START_TEST(stacks_past_the_limit_go_to_truncated_with_their_samples)
{
    struct diffmerge *dm = diffmerge_new(2, 0);
    add(dm, DIFFMERGE_BEFORE, "a 1");
    add(dm, DIFFMERGE_BEFORE, "b 1");
    add(dm, DIFFMERGE_BEFORE, "c 4");
    add(dm, DIFFMERGE_AFTER, "d 2");
    add(dm, DIFFMERGE_AFTER, "a 3");   /* stored before the limit: itself */
    ck_assert_uint_eq(diffmerge_truncated_lines(dm), 2);
    strbuf out = STRBUF_INIT;
    diffmerge_emit(dm, 0, collect, &out);
    ck_assert_str_eq(strbuf_cstr(&out), "[truncated] 4 2\na 1 3\nb 1 0\n");
    strbuf_free(&out);
    diffmerge_free(dm);
    /* a byte budget too: a long stack does not fit 4 KiB */
    dm = diffmerge_new(0, 4096);
    char *big = malloc(8192);
    memset(big, 'x', 8190);
    memcpy(big + 8190, " 1", 2);
    diffmerge_add_line(dm, DIFFMERGE_AFTER, big, 8192);
    ck_assert_uint_eq(diffmerge_truncated_lines(dm), 1);
    ck_assert_uint_eq(diffmerge_total(dm, DIFFMERGE_AFTER), 1);
    free(big);
    diffmerge_free(dm);
}
END_TEST

/* diff --before/--after RANGE: a side's several logs are read one after
 * the other into the same side, and their counts add up. */
START_TEST(several_logs_of_a_side_add_up)
{
    char *dir = tmpdir_make();
    char *a = path_join(dir, "a.log"), *b = path_join(dir, "b.log"), *c = path_join(dir, "c.log");
    file_write(a, "m;x 2\nm;y 1\n", 12);
    file_write(b, "m;x 3\nm;z 4\n", 12);
    file_write(c, "m;x 9\n", 6);
    struct diffmerge *dm = diffmerge_new(0, 0);
    char err[256];
    ck_assert_int_eq(diffmerge_read_path(dm, DIFFMERGE_BEFORE, a, NULL, err, sizeof err), 0);
    ck_assert_int_eq(diffmerge_read_path(dm, DIFFMERGE_BEFORE, b, NULL, err, sizeof err), 0);
    ck_assert_int_eq(diffmerge_read_path(dm, DIFFMERGE_AFTER, c, NULL, err, sizeof err), 0);
    ck_assert_int_eq(diffmerge_read_path(dm, DIFFMERGE_AFTER, b, NULL, err, sizeof err), 0);
    ck_assert_uint_eq(diffmerge_total(dm, DIFFMERGE_BEFORE), 10);
    ck_assert_uint_eq(diffmerge_total(dm, DIFFMERGE_AFTER), 16);
    ck_assert_uint_eq(diffmerge_lines(dm, DIFFMERGE_BEFORE), 4);
    strbuf out = STRBUF_INIT;
    diffmerge_emit(dm, 0, collect, &out);
    ck_assert_str_eq(strbuf_cstr(&out), "m;x 5 12\nm;y 1 0\nm;z 4 4\n");
    strbuf_free(&out);
    diffmerge_free(dm);
    free(a);
    free(b);
    free(c);
    tmpdir_remove(dir);
}
END_TEST

Suite *diffmerge_suite(void)
{
    Suite *s = suite_create("diffmerge");
    TCase *tc = tcase_create("merge");
    tcase_add_test(tc, merges_sums_and_normalises_as_difffolded_n);
    tcase_add_test(tc, stacks_past_the_limit_go_to_truncated_with_their_samples);
    tcase_add_test(tc, several_logs_of_a_side_add_up);
    suite_add_tcase(s, tc);
    return s;
}
