/* Tests of storeup.c's pure parts: a file gzip'ed up to its last whole
 * line (what a log still being written is published as), and the
 * retention as seconds. Uploads are tested against a real Swift
 * (arclamp-svg/tests/test_store.py, arclamp-report/tests/test_store.py). */
#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "storeup.h"
#include "strbuf.h"
#include "test-suites.h"
#include "testutil.h"

/* What storeup_gzip_lines makes of `text`, unpacked. */
static char *gzip_lines_of(const char *text, size_t len, size_t *outlen)
{
    char *dir = tmpdir_make();
    char *in = path_join(dir, "in"), *out = path_join(dir, "out.gz");
    file_write(in, text, len);
    int fd = open(in, O_RDONLY), ofd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
    char err[256];
    ck_assert_int_eq(storeup_gzip_lines(fd, (off_t)len, ofd, 6, err, sizeof err), 0);
    close(fd);
    close(ofd);
    gzFile gz = gzopen(out, "rb");
    strbuf got = STRBUF_INIT;
    char buf[65536];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        strbuf_append(&got, buf, (size_t)n);
    gzclose(gz);
    free(in);
    free(out);
    tmpdir_remove(dir);
    *outlen = got.len;
    return (char *)strbuf_cstr(&got);
}

START_TEST(test_up_to_the_last_whole_line)
{
    size_t n;
    char *got = gzip_lines_of("a 1\nb 2\nc 3", 11, &n);
    ck_assert_uint_eq(n, 8);
    ck_assert_str_eq(got, "a 1\nb 2\n");
    free(got);
    got = gzip_lines_of("no newline yet", 14, &n);
    ck_assert_uint_eq(n, 0);
    free(got);
    got = gzip_lines_of("whole\n", 6, &n);
    ck_assert_str_eq(got, "whole\n");
    free(got);
}
END_TEST

START_TEST(test_a_line_past_the_bound_is_sent)
{
    /* 2 MiB without a newline: not held back for ever */
    size_t len = 2u << 20, n;
    char *text = malloc(len);
    memset(text, 'x', len);
    char *got = gzip_lines_of(text, len, &n);
    ck_assert_uint_ge(n, 1u << 20);
    ck_assert_uint_le(n, len);
    free(got);
    /* a newline after many blocks: everything before it, nothing after */
    text[len - 10] = '\n';
    got = gzip_lines_of(text, len, &n);
    ck_assert_uint_eq(n, len - 9);
    free(got);
    free(text);
}
END_TEST

START_TEST(test_retention_seconds)
{
    ck_assert_int_eq(storeup_retention_seconds(1095), 94608000);
    ck_assert_int_eq(storeup_retention_seconds(0.0002), 17);
}
END_TEST

Suite *storeup_suite(void)
{
    Suite *s = suite_create("storeup");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_up_to_the_last_whole_line);
    tcase_add_test(tc, test_a_line_past_the_bound_is_sent);
    tcase_add_test(tc, test_retention_seconds);
    suite_add_tcase(s, tc);
    return s;
}
