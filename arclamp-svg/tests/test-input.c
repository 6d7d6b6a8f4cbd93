/* Tests of input: line splitting over block boundaries, gzip, limits. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "input.h"
#include "strbuf.h"
#include "test-suites.h"

struct collected {
    strbuf all;      /* every line followed by '|' */
    size_t lines;
    size_t longest;
};

static int collect(void *arg, const char *line, size_t len)
{
    struct collected *c = arg;
    if (len < 64)
        strbuf_append(&c->all, line, len);
    strbuf_appendc(&c->all, '|');
    c->lines++;
    if (len > c->longest)
        c->longest = len;
    return 0;
}

static int stop_at_second(void *arg, const char *line, size_t len)
{
    (void)line, (void)len;
    return ++*(int *)arg == 2 ? 42 : 0;
}

START_TEST(splits_lines_and_keeps_last_without_newline)
{
    char *dir = tmpdir_make(), *path = path_join(dir, "in.log");
    file_write(path, "a 1\nb 2\n\nc 3", 12);
    struct collected c = {STRBUF_INIT, 0, 0};
    struct input_stats st = {0};
    char err[256];
    ck_assert_int_eq(input_read_path(path, collect, &c, &st, err, sizeof(err)), 0);
    ck_assert_str_eq(strbuf_cstr(&c.all), "a 1|b 2||c 3|");
    ck_assert_uint_eq(st.lines, 4);
    ck_assert_uint_eq(st.bytes, 12);
    strbuf_free(&c.all);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(reads_gzip_by_content_not_name)
{
    char *dir = tmpdir_make(), *path = path_join(dir, "no-gz-suffix.log");
    gzFile gz = gzopen(path, "wb");
    for (int i = 0; i < 100000; i++)
        gzprintf(gz, "frame%d;leaf 1\n", i % 7);
    gzclose(gz);
    struct collected c = {STRBUF_INIT, 0, 0};
    char err[256];
    ck_assert_int_eq(input_read_path(path, collect, &c, NULL, err, sizeof(err)), 0);
    ck_assert_uint_eq(c.lines, 100000);
    strbuf_free(&c.all);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(lines_across_block_boundaries_stay_whole)
{
    /* 3 MB of lines of varying length: many straddle the 1 MiB reads. */
    char *dir = tmpdir_make(), *path = path_join(dir, "big.log");
    strbuf sb = STRBUF_INIT;
    size_t expect = 0;
    while (sb.len < 3u << 20) {
        size_t n = 1000 + (expect * 7919) % 3000;
        for (size_t i = 0; i < n; i++)
            strbuf_appendc(&sb, 'x');
        strbuf_appends(&sb, " 1\n");
        expect++;
    }
    file_write(path, sb.data, sb.len);
    struct collected c = {STRBUF_INIT, 0, 0};
    char err[256];
    ck_assert_int_eq(input_read_path(path, collect, &c, NULL, err, sizeof(err)), 0);
    ck_assert_uint_eq(c.lines, expect);
    ck_assert_uint_le(c.longest, 4002);
    strbuf_free(&sb);
    strbuf_free(&c.all);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(too_long_line_is_skipped_and_counted)
{
    char *dir = tmpdir_make(), *path = path_join(dir, "long.log");
    size_t n = INPUT_MAX_LINE + 100;
    char *data = malloc(n + 20);
    memset(data, 'y', n);
    memcpy(data + n, "\nok 1\n", 6);
    file_write(path, data, n + 6);
    struct collected c = {STRBUF_INIT, 0, 0};
    struct input_stats st = {0};
    char err[256];
    ck_assert_int_eq(input_read_path(path, collect, &c, &st, err, sizeof(err)), 0);
    ck_assert_uint_eq(st.too_long, 1);
    ck_assert_str_eq(strbuf_cstr(&c.all), "ok 1|");
    free(data);
    strbuf_free(&c.all);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(callback_can_stop_reading)
{
    char *dir = tmpdir_make(), *path = path_join(dir, "in.log");
    file_write(path, "a\nb\nc\n", 6);
    int seen = 0;
    char err[256];
    ck_assert_int_eq(input_read_path(path, stop_at_second, &seen, NULL, err, sizeof(err)), 42);
    ck_assert_int_eq(seen, 2);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(missing_file_is_an_error_with_its_name)
{
    char err[256];
    int dummy = 0;
    ck_assert_int_eq(input_read_path("/nonexistent/x.log", stop_at_second, &dummy, NULL, err,
                                     sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.log"));
}
END_TEST

START_TEST(corrupt_gzip_is_an_error)
{
    char *dir = tmpdir_make(), *path = path_join(dir, "bad.log.gz");
    file_write(path, "\x1f\x8b\x08\x00garbage-garbage-garbage", 27);
    struct collected c = {STRBUF_INIT, 0, 0};
    char err[256];
    ck_assert_int_eq(input_read_path(path, collect, &c, NULL, err, sizeof(err)), -1);
    strbuf_free(&c.all);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(truncated_gzip_is_an_error)
{
    /* A whole gzip file cut short: zlib hands out the lines before the cut
     * without complaint; the reader must still call it an error. */
    char *dir = tmpdir_make(), *path = path_join(dir, "cut.log.gz");
    gzFile gz = gzopen(path, "wb");
    for (int i = 0; i < 20000; i++)
        gzprintf(gz, "main;f%d 1\n", i);
    gzclose(gz);
    size_t len;
    char *whole = file_read(path, &len);
    file_write(path, whole, len / 2);
    struct collected c = {STRBUF_INIT, 0, 0};
    char err[256];
    ck_assert_int_eq(input_read_path(path, collect, &c, NULL, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "cut.log.gz"));
    ck_assert_ptr_nonnull(strstr(err, "truncated"));
    free(whole);
    strbuf_free(&c.all);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

/* A gzip stream of `n` copies of `line`, built in memory (a bomb: the
 * expansion is about 1000 to 1). */
static strbuf gzip_of_copies(const char *line, size_t n)
{
    strbuf out = STRBUF_INIT;
    z_stream z = {0};
    ck_assert_int_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
    size_t len = strlen(line);
    char chunk[65536];
    size_t per = sizeof chunk / len;
    for (size_t i = 0; i < per; i++)
        memcpy(chunk + i * len, line, len);
    unsigned char buf[65536];
    for (size_t done = 0; done < n;) {
        size_t k = n - done < per ? n - done : per;
        done += k;
        z.next_in = (unsigned char *)chunk;
        z.avail_in = (unsigned)(k * len);
        int flush = done == n ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = buf;
            z.avail_out = sizeof buf;
            deflate(&z, flush);
            strbuf_append(&out, buf, sizeof buf - z.avail_out);
        } while (z.avail_out == 0);
    }
    deflateEnd(&z);
    return out;
}

START_TEST(gzip_bomb_is_read_only_up_to_the_limit)
{
    /* 512 MiB of lines from a gzip file of about half a MiB: with a limit of
     * 1 MiB, reading stops there (the cut line is dropped) and says so. */
    char *dir = tmpdir_make(), *path = path_join(dir, "bomb.log.gz");
    const char line[] = "main;a;b;c 1\n";   /* 13 bytes */
    strbuf gz = gzip_of_copies(line, (512u << 20) / 13);
    ck_assert_uint_lt(gz.len, 1u << 20);
    file_write(path, gz.data, gz.len);
    struct collected c = {STRBUF_INIT, 0, 0};
    struct input_stats st = {0};
    struct input_limit limit = {1u << 20, 0};
    char err[256];
    ck_assert_int_eq(input_read_path_limited(path, &limit, collect, &c, &st, err, sizeof err), 0);
    ck_assert_int_eq(limit.reached, 1);
    ck_assert_uint_eq(st.bytes, 1u << 20);
    ck_assert_uint_eq(c.lines, (1u << 20) / 13);   /* whole lines only */
    ck_assert_uint_eq(c.longest, 12);
    strbuf_free(&c.all);
    strbuf_free(&gz);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(input_that_ends_at_the_limit_is_whole)
{
    char *dir = tmpdir_make(), *path = path_join(dir, "exact.log");
    file_write(path, "a 1\nb 2", 7);   /* the last line has no newline */
    struct collected c = {STRBUF_INIT, 0, 0};
    struct input_limit limit = {7, 1};
    char err[256];
    ck_assert_int_eq(input_read_path_limited(path, &limit, collect, &c, NULL, err, sizeof err), 0);
    ck_assert_int_eq(limit.reached, 0);
    ck_assert_str_eq(strbuf_cstr(&c.all), "a 1|b 2|");
    limit.max_bytes = 6;   /* one byte short: "b 2" is cut, so dropped */
    strbuf_reset(&c.all);
    ck_assert_int_eq(input_read_path_limited(path, &limit, collect, &c, NULL, err, sizeof err), 0);
    ck_assert_int_eq(limit.reached, 1);
    ck_assert_str_eq(strbuf_cstr(&c.all), "a 1|");
    strbuf_free(&c.all);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

Suite *input_suite(void)
{
    Suite *s = suite_create("input");
    TCase *tc = tcase_create("read");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, splits_lines_and_keeps_last_without_newline);
    tcase_add_test(tc, reads_gzip_by_content_not_name);
    tcase_add_test(tc, lines_across_block_boundaries_stay_whole);
    tcase_add_test(tc, too_long_line_is_skipped_and_counted);
    tcase_add_test(tc, callback_can_stop_reading);
    tcase_add_test(tc, missing_file_is_an_error_with_its_name);
    tcase_add_test(tc, corrupt_gzip_is_an_error);
    tcase_add_test(tc, truncated_gzip_is_an_error);
    tcase_add_test(tc, gzip_bomb_is_read_only_up_to_the_limit);
    tcase_add_test(tc, input_that_ends_at_the_limit_is_whole);
    suite_add_tcase(s, tc);
    return s;
}
