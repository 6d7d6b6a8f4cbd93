/* Tests of compress: sorted, gzip'ed, mtime and mode kept, and the original
 * kept whenever anything goes wrong (sort failing, sort lying, no sort). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "atomicfile.h"
#include "compress.h"
#include "gen_config.h"
#include "strbuf.h"
#include "test-suites.h"

#define OLD 1700000000
#define UNSORTED "b;x 1\nB;x 1\n\xc3\xa9;y 2\na;y 1\na;y 1\n"
#define SORTED "B;x 1\na;y 1\na;y 1\nb;x 1\n\xc3\xa9;y 2\n"

static char err[1024];

static char *gunzip_file(const char *path)
{
    gzFile gz = gzopen(path, "rb");
    ck_assert_ptr_nonnull(gz);
    strbuf sb = STRBUF_INIT;
    char buf[4096];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        strbuf_append(&sb, buf, (size_t)n);
    ck_assert_int_ge(n, 0);
    gzclose(gz);
    return (char *)strbuf_cstr(&sb);
}

struct tree {
    char *root, *dir, *log, *gz;
};

static struct tree make_tree(const char *content, mode_t mode)
{
    struct tree t;
    t.root = tmpdir_make();
    char *logs = path_join(t.root, "logs");
    ck_assert_int_eq(mkdir(logs, 0755), 0);
    t.dir = path_join(logs, "daily");
    ck_assert_int_eq(mkdir(t.dir, 0755), 0);
    t.log = path_join(t.dir, "2026-11-20.all.log");
    t.gz = path_join(t.dir, "2026-11-20.all.log.gz");
    file_write(t.log, content, strlen(content));
    ck_assert_int_eq(chmod(t.log, mode), 0);
    file_set_mtime(t.log, OLD);
    free(logs);
    return t;
}

static void free_tree(struct tree *t)
{
    tmpdir_remove(t->root);
    free(t->dir);
    free(t->log);
    free(t->gz);
}

static int run(const struct tree *t, time_t cutoff, struct compress_stats *st)
{
    struct gen_config cfg;
    ck_assert_int_eq(gen_config_load_string("t", NULL, t->root, &cfg, err, sizeof err), 0);
    int rc = compress_run(&cfg, cutoff, st, err, sizeof err);
    gen_config_free(&cfg);
    return rc;
}

/* A directory on PATH holding a `sort` that runs `script`. */
static char *fake_sort(const char *script)
{
    char *dir = tmpdir_make();
    char *path = path_join(dir, "sort");
    strbuf sb = STRBUF_INIT;
    strbuf_appendf(&sb, "#!/bin/sh\n%s\n", script);
    file_write(path, sb.data, sb.len);
    ck_assert_int_eq(chmod(path, 0755), 0);
    strbuf_reset(&sb);
    strbuf_appendf(&sb, "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", strbuf_cstr(&sb), 1); /* this test runs in its own process */
    strbuf_free(&sb);
    free(path);
    return dir;
}

static void assert_untouched(const struct tree *t)
{
    size_t len;
    char *data = file_read(t->log, &len);
    ck_assert_ptr_nonnull(data);
    ck_assert_str_eq(data, UNSORTED);
    free(data);
    ck_assert(!path_exists(t->gz));
    ck_assert_int_eq(dir_count_entries(t->dir), 1); /* no temp file, no sort dir */
}

START_TEST(old_log_is_sorted_in_byte_order_and_gzipped_keeping_mtime_and_mode)
{
    struct tree t = make_tree(UNSORTED, 0640);
    setenv("LC_ALL", "en_US.UTF-8", 1); /* must not change the order */
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.compressed, 1);
    ck_assert_uint_eq(st.failed, 0);
    ck_assert(!path_exists(t.log));
    char *data = gunzip_file(t.gz);
    ck_assert_str_eq(data, SORTED);
    free(data);
    struct stat s;
    ck_assert_int_eq(stat(t.gz, &s), 0);
    ck_assert_int_eq(s.st_mtime, OLD);
    ck_assert_int_eq(s.st_mode & 07777, 0640);
    ck_assert_uint_eq(st.bytes_after, (unsigned long long)s.st_size);
    ck_assert_int_eq(dir_count_entries(t.dir), 1);
    free_tree(&t);
}
END_TEST

START_TEST(recent_logs_are_left_alone)
{
    struct tree t = make_tree(UNSORTED, 0644);
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD, &st), 0); /* mtime == cutoff: not older */
    ck_assert_uint_eq(st.compressed, 0);
    ck_assert_uint_eq(st.recent, 1);
    assert_untouched(&t);
    free_tree(&t);
}
END_TEST

START_TEST(last_line_without_newline_is_accepted)
{
    struct tree t = make_tree("b 1\na 1", 0644);
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.compressed, 1);
    char *data = gunzip_file(t.gz);
    ck_assert_str_eq(data, "a 1\nb 1\n");
    free(data);
    free_tree(&t);
}
END_TEST

START_TEST(failing_sort_keeps_the_original)
{
    struct tree t = make_tree(UNSORTED, 0644);
    char *bin = fake_sort("head -c 5; exit 3");
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.failed, 1);
    ck_assert_uint_eq(st.compressed, 0);
    assert_untouched(&t);
    tmpdir_remove(bin);
    free_tree(&t);
}
END_TEST

START_TEST(short_sort_output_keeps_the_original)
{
    struct tree t = make_tree(UNSORTED, 0644);
    char *bin = fake_sort("head -c 5; exit 0");
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.failed, 1);
    assert_untouched(&t);
    tmpdir_remove(bin);
    free_tree(&t);
}
END_TEST

START_TEST(missing_sort_keeps_the_original)
{
    struct tree t = make_tree(UNSORTED, 0644);
    setenv("PATH", "/nonexistent", 1);
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.failed, 1);
    assert_untouched(&t);
    free_tree(&t);
}
END_TEST

START_TEST(log_changing_meanwhile_keeps_the_original)
{
    struct tree t = make_tree(UNSORTED, 0644);
    /* The "sort" appends to the log while it runs, as a writer would. */
    strbuf script = STRBUF_INIT;
    strbuf_appendf(&script, "cat; printf 'z 1\\n' >> '%s'", t.log);
    char *bin = fake_sort(script.data);
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.failed, 1);
    ck_assert(path_exists(t.log));
    ck_assert(!path_exists(t.gz));
    strbuf_free(&script);
    tmpdir_remove(bin);
    free_tree(&t);
}
END_TEST

START_TEST(leftovers_of_an_interrupted_run_are_removed)
{
    struct tree t = make_tree(UNSORTED, 0644);
    char *tmp = path_join(t.dir, ATOMIC_TMP_PREFIX "0000000000000001");
    file_write(tmp, "half", 4);
    char *sortdir = path_join(t.dir, COMPRESS_SORT_DIR_PREFIX "abc123");
    ck_assert_int_eq(mkdir(sortdir, 0700), 0);
    char *chunk = path_join(sortdir, "sortXYZ");
    file_write(chunk, "x", 1);
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD, &st), 0);
    ck_assert_uint_eq(st.leftovers, 2);
    ck_assert(!path_exists(tmp));
    ck_assert(!path_exists(sortdir));
    ck_assert(path_exists(t.log));
    free(chunk);
    free(sortdir);
    free(tmp);
    free_tree(&t);
}
END_TEST

START_TEST(compressed_logs_are_not_compressed_again)
{
    struct tree t = make_tree(UNSORTED, 0644);
    struct compress_stats st;
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.compressed, 1);
    ck_assert_int_eq(run(&t, OLD + 1, &st), 0);
    ck_assert_uint_eq(st.compressed, 0);
    ck_assert_uint_eq(st.failed, 0);
    free_tree(&t);
}
END_TEST

Suite *compress_suite(void)
{
    Suite *s = suite_create("compress");
    TCase *tc = tcase_create("compress");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, old_log_is_sorted_in_byte_order_and_gzipped_keeping_mtime_and_mode);
    tcase_add_test(tc, recent_logs_are_left_alone);
    tcase_add_test(tc, last_line_without_newline_is_accepted);
    tcase_add_test(tc, failing_sort_keeps_the_original);
    tcase_add_test(tc, short_sort_output_keeps_the_original);
    tcase_add_test(tc, missing_sort_keeps_the_original);
    tcase_add_test(tc, log_changing_meanwhile_keeps_the_original);
    tcase_add_test(tc, leftovers_of_an_interrupted_run_are_removed);
    tcase_add_test(tc, compressed_logs_are_not_compressed_again);
    suite_add_tcase(s, tc);
    return s;
}
