/* Tests of run.c's loading: runs summed file after file into one table,
 * with the prediction that the next key is the one that followed the
 * previous key last time. Whatever the order of the keys (the same, another,
 * one key replaced, one key twice), the sums are those of the keys, and a
 * hostile or truncated file read through the guessed paths is refused
 * cleanly (inputs are copied to buffers of their exact size: the ASan build
 * catches any read past the end). A file cut short while it is mapped
 * gives an error, not SIGBUS. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "run.h"
#include "runlog.h"
#include "strbuf.h"
#include "test-suites.h"
#include "testutil.h"

/* A serialize()d run of the keys given, each arc {ct: ct, wt: wt * (i + 1)}
 * (i its place), main() {ct 1, wt 1000} first. */
static void serialized(strbuf *out, const char *const *keys, size_t n, int ct, int wt)
{
    strbuf_reset(out);
    strbuf_appendf(out, "a:%zu:{s:6:\"main()\";a:2:{s:2:\"ct\";i:1;s:2:\"wt\";i:1000;}", n + 1);
    for (size_t i = 0; i < n; i++) {
        strbuf_appendf(out, "s:%zu:\"%s\";a:2:{s:2:\"ct\";i:%d;s:2:\"wt\";i:%d;}", strlen(keys[i]),
                       keys[i], ct, wt * (int)(i + 1));
    }
    strbuf_appends(out, "}");
}

/* run_load_bytes() on a copy of exactly len bytes. */
static int load(run *r, const char *text, size_t len, double weight, char *err)
{
    char *buf = malloc(len ? len : 1);
    memcpy(buf, text, len);
    int rc = run_load_bytes(r, buf, len, weight, err, 300);
    free(buf);
    return rc;
}

static int load_keys(run *r, const char *const *keys, size_t n, int ct, int wt, double weight)
{
    strbuf text = STRBUF_INIT;
    char err[300];
    serialized(&text, keys, n, ct, wt);
    int rc = load(r, text.data, text.len, weight, err);
    ck_assert_msg(rc == 0, "refused: %s", err);
    strbuf_free(&text);
    return rc;
}

static const arc *get(run *r, const char *key)
{
    const arc *a = run_arc(r, key, strlen(key), 0);
    ck_assert_msg(a != NULL, "no arc %s", key);
    return a;
}

static const char *const abc[] = {"main()==>a", "a==>b", "b==>c", "c==>d"};

START_TEST(the_same_keys_in_another_order_sum_by_key)
{
    static const char *const dcba[] = {"c==>d", "b==>c", "a==>b", "main()==>a"};
    run r;
    run_init(&r, 100);
    load_keys(&r, abc, 4, 1, 10, 1.0);
    load_keys(&r, dcba, 4, 2, 100, 1.0);
    load_keys(&r, abc, 4, 4, 1000, 1.0);
    ck_assert_uint_eq(r.n, 5);
    ck_assert_double_eq(get(&r, "main()==>a")->v[M_CT], 7);
    ck_assert_double_eq(get(&r, "main()==>a")->v[M_WT], 10 + 400 + 1000);
    ck_assert_double_eq(get(&r, "c==>d")->v[M_WT], 40 + 100 + 4000);
    ck_assert_double_eq(get(&r, "main()")->v[M_WT], 3000);
    ck_assert_uint_eq(r.metrics, (1u << M_CT) | (1u << M_WT));
    run_free(&r);
}
END_TEST

START_TEST(a_key_other_than_the_predicted_one_is_looked_up)
{
    static const char *const axc[] = {"main()==>a", "a==>x", "b==>c", "c==>d"};
    static const char *const shorter[] = {"main()==>a", "c==>d"};
    run r;
    run_init(&r, 100);
    load_keys(&r, abc, 4, 1, 10, 1.0);
    load_keys(&r, axc, 4, 1, 10, 1.0);      /* a==>x new, then b==>c not where predicted */
    load_keys(&r, abc, 4, 1, 10, 1.0);      /* and back */
    load_keys(&r, shorter, 2, 1, 10, 1.0);  /* arcs missing */
    ck_assert_uint_eq(r.n, 6);
    ck_assert_double_eq(get(&r, "a==>x")->v[M_WT], 20);
    ck_assert_double_eq(get(&r, "a==>b")->v[M_WT], 40);
    ck_assert_double_eq(get(&r, "b==>c")->v[M_WT], 90);
    ck_assert_double_eq(get(&r, "c==>d")->v[M_WT], 40 + 40 + 40 + 20);
    ck_assert_double_eq(get(&r, "main()==>a")->v[M_CT], 4);
    run_free(&r);
}
END_TEST

START_TEST(a_key_twice_in_one_file_adds_both)
{
    /* as before the prediction: the second entry of a key adds to its arc */
    static const char *const twice[] = {"main()==>a", "a==>b", "main()==>a", "main()"};
    run r;
    run_init(&r, 100);
    load_keys(&r, twice, 4, 1, 10, 1.0);
    load_keys(&r, twice, 4, 1, 10, 1.0);
    ck_assert_uint_eq(r.n, 3);
    ck_assert_double_eq(get(&r, "main()==>a")->v[M_WT], 2 * (10 + 30));
    ck_assert_double_eq(get(&r, "main()==>a")->v[M_CT], 4);
    ck_assert_double_eq(get(&r, "main()")->v[M_WT], 2 * (1000 + 40));
    run_free(&r);
}
END_TEST

START_TEST(weights_multiply_every_value)
{
    run r;
    run_init(&r, 100);
    load_keys(&r, abc, 4, 2, 10, 2.5);
    load_keys(&r, abc, 4, 1, 10, -1.0); /* diff's A */
    ck_assert_double_eq(get(&r, "a==>b")->v[M_WT], 2.5 * 20 - 20);
    ck_assert_double_eq(get(&r, "a==>b")->v[M_CT], 4);
    run_free(&r);
}
END_TEST

START_TEST(metrics_in_another_order_or_type_are_read_all_the_same)
{
    const char *text = "a:4:{s:6:\"main()\";a:3:{s:2:\"ct\";i:1;s:2:\"wt\";i:100;s:3:\"cpu\";i:90;}"
                       "s:1:\"a\";a:3:{s:3:\"cpu\";i:-5;s:2:\"wt\";d:2.5;s:2:\"ct\";i:2;}"
                       "s:1:\"b\";a:4:{s:2:\"ct\";i:3;s:2:\"wt\";d:7;s:3:\"pmu\";i:12345678901;"
                       "s:2:\"zz\";i:1;}"
                       "s:1:\"c\";a:3:{s:2:\"ct\";i:4;s:2:\"wt\";d:-0;s:3:\"cpu\";i:-12345678;}}";
    run r;
    char err[300];
    run_init(&r, 100);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(load(&r, text, strlen(text), 1.0, err) == 0, "%s", err);
    ck_assert_double_eq(get(&r, "a")->v[M_CPU], -15);
    ck_assert_double_eq(get(&r, "a")->v[M_WT], 7.5);
    ck_assert_double_eq(get(&r, "b")->v[M_PMU], 3 * 12345678901.0);
    ck_assert_double_eq(get(&r, "c")->v[M_CPU], -3 * 12345678.0);
    ck_assert_uint_eq(get(&r, "b")->present, (1u << M_CT) | (1u << M_WT) | (1u << M_PMU));
    ck_assert_uint_eq(r.unknown_metrics, 3);
    ck_assert_uint_eq(r.metrics, (1u << M_CT) | (1u << M_WT) | (1u << M_CPU));
    run_free(&r);
}
END_TEST

START_TEST(json_runs_share_the_prediction)
{
    const char *a = "{\"main()\": {\"ct\": 1, \"wt\": 9}, \"main()==>f\": {\"ct\": 2, \"wt\": 5}}";
    const char *b = "{\"main()==>f\": {\"ct\": 1, \"wt\": 1}, \"main()\": {\"ct\": 1, \"wt\": 1}}";
    run r;
    char err[300];
    run_init(&r, 100);
    ck_assert_int_eq(load(&r, a, strlen(a), 1.0, err), 0);
    ck_assert_int_eq(load(&r, b, strlen(b), 1.0, err), 0);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_double_eq(get(&r, "main()==>f")->v[M_WT], 6);
    ck_assert_double_eq(get(&r, "main()")->v[M_CT], 2);
    run_free(&r);
}
END_TEST

/* Every prefix of a run, and the run with each byte changed, loaded after
 * the whole run (its guesses in place): refused or summed, never a crash. */
START_TEST(truncated_and_changed_runs_through_the_guesses_are_refused)
{
    static const char *const keys[] = {"main()==>a", "a==>b", "b==>c", "c==>d", "d==>e",
                                       "e==>f", "f==>g", "g==>h"};
    strbuf text = STRBUF_INIT;
    serialized(&text, keys, 8, 3, 12345);
    run r;
    char err[300];
    run_init(&r, 100);
    ck_assert_int_eq(load(&r, text.data, text.len, 1.0, err), 0);
    for (size_t len = 0; len < text.len; len++) {
        ck_assert_int_eq(load(&r, text.data, len, 1.0, err), -1);
        ck_assert_msg(strncmp(err, "byte ", 5) == 0, "at %zu: %s", len, err);
    }
    char *changed = xmalloc(text.len);
    static const char bytes[] = "0-;:\"{}ai\xff";
    for (size_t at = 0; at < text.len; at++) {
        for (const char *c = bytes; *c; c++) {
            memcpy(changed, text.data, text.len);
            changed[at] = *c;
            load(&r, changed, text.len, 1.0, err);
        }
    }
    free(changed);
    ck_assert_uint_le(r.n, 100);
    strbuf_free(&text);
    run_free(&r);
}
END_TEST

START_TEST(a_file_cut_short_while_mapped_is_an_error_not_sigbus)
{
    strbuf text = STRBUF_INIT;
    for (int i = 0; i < 2000; i++) { /* a run of several pages, without main() */
        char key[32];
        int kl = snprintf(key, sizeof key, "main()==>f%04d", i);
        strbuf_appendf(&text, "s:%d:\"%s\";a:1:{s:2:\"ct\";i:1;}", kl, key);
    }
    char head[32];
    int hl = snprintf(head, sizeof head, "a:%d:{", 2000);
    char *dir = tmpdir_make(), *path = path_join(dir, "run.xhprof");
    strbuf file = STRBUF_INIT;
    strbuf_append(&file, head, (size_t)hl);
    strbuf_append(&file, text.data, text.len);
    strbuf_appends(&file, "}");
    file_write(path, file.data, file.len);
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    char *map = mmap(NULL, file.len, PROT_READ, MAP_SHARED, fd, 0);
    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(ftruncate(fd, 4096), 0); /* the pages after the first are gone */
    run r;
    char err[300];
    run_init(&r, 10000);
    ck_assert_int_eq(run_load_bytes(&r, map, file.len, 1.0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "cut short") != NULL, "%s", err);
    /* and the next load works */
    ck_assert_int_eq(run_load_bytes(&r, file.data, file.len, 1.0, err, sizeof err), -1); /* no main() */
    ck_assert_str_eq(err, "no main()");
    munmap(map, file.len);
    close(fd);
    run_free(&r);
    strbuf_free(&text);
    strbuf_free(&file);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(files_are_read_whole_or_refused_with_their_name)
{
    char *dir = tmpdir_make(), *path = path_join(dir, "r.xhprof"), *empty = path_join(dir, "e");
    const char *text = "a:1:{s:6:\"main()\";a:2:{s:2:\"ct\";i:1;s:2:\"wt\";i:7;}}";
    file_write(path, text, strlen(text));
    file_write(empty, "", 0);
    run r;
    char err[600];
    run_init(&r, 10);
    ck_assert_int_eq(run_load(&r, path, 1000, err, sizeof err), 0);
    ck_assert_double_eq(get(&r, "main()")->v[M_WT], 7);
    ck_assert_int_eq(run_load(&r, path, 10, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "larger than 10 bytes"));
    ck_assert_int_eq(run_load(&r, empty, 1000, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "byte 0"));
    ck_assert_int_eq(run_load(&r, dir, 1000, err, sizeof err), -1); /* a directory */
    ck_assert_int_eq(strncmp(err, dir, strlen(dir)), 0);
    run_free(&r);
    free(path);
    free(empty);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(no_arc_is_made_past_the_key_budget)
{
    run r;
    run_init(&r, 100);
    r.max_key_bytes = 10;
    ck_assert_ptr_nonnull(run_arc(&r, "abcdef", 6, 1));
    ck_assert_ptr_null(run_arc(&r, "ghijk", 5, 1)); /* 11 bytes of keys */
    ck_assert_ptr_nonnull(run_arc(&r, "ghij", 4, 1));  /* exactly 10 */
    ck_assert_ptr_nonnull(run_arc(&r, "abcdef", 6, 1)); /* there already: found */
    ck_assert_ptr_null(run_arc(&r, "x", 1, 1));
    ck_assert_uint_eq(r.key_bytes, 10);
    ck_assert_uint_eq(r.n, 2);
    run_free(&r);
}
END_TEST

/* A view counts each run id once and at most `max` of them: a log of
 * empty runs cannot make the table of ids grow with the log's bytes. */
START_TEST(a_view_counts_each_run_once_and_no_more_runs_than_its_cap)
{
    char *dir = tmpdir_make();
    char *path = path_join(dir, "h.all.runs");
    strbuf text = STRBUF_INIT;
    const char *ids[] = {"r1", "r2", "r1", "r3", "r4", "r5"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        strbuf_appendf(&text,
                       "xhprof/1 %s begin 1764126000 web1 wt /srv/w/index.php\n"
                       "xhprof/1 %s arc 1 100 - - - main()\n"
                       "xhprof/1 %s end 1 0\n", ids[i], ids[i], ids[i]);
    file_write(path, text.data, text.len);
    run agg;
    run_init(&agg, 100);
    struct runlog_seen seen;
    runlog_seen_init(&seen);
    ck_assert_uint_eq(seen.max, RUNLOG_MAX_SEEN);
    seen.max = 3;
    struct runlog_stats st = {0};
    char err[256];
    ck_assert_int_eq(runlog_add(&agg, path, 1 << 20, &seen, &st, err, sizeof err), 0);
    ck_assert_uint_eq(st.runs, 3);       /* r1 r2 r3 */
    ck_assert_uint_eq(st.duplicates, 1); /* r1 again */
    ck_assert_uint_eq(st.too_many, 2);   /* r4 r5 */
    ck_assert_uint_eq(st.incomplete, 2);
    ck_assert_uint_eq(seen.n, 3);
    runlog_seen_free(&seen);
    run_free(&agg);
    strbuf_free(&text);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

Suite *run_suite(void)
{
    Suite *s = suite_create("run");
    TCase *tc = tcase_create("run");
    tcase_add_test(tc, the_same_keys_in_another_order_sum_by_key);
    tcase_add_test(tc, a_key_other_than_the_predicted_one_is_looked_up);
    tcase_add_test(tc, a_key_twice_in_one_file_adds_both);
    tcase_add_test(tc, weights_multiply_every_value);
    tcase_add_test(tc, no_arc_is_made_past_the_key_budget);
    tcase_add_test(tc, metrics_in_another_order_or_type_are_read_all_the_same);
    tcase_add_test(tc, json_runs_share_the_prediction);
    tcase_add_test(tc, truncated_and_changed_runs_through_the_guesses_are_refused);
    tcase_add_test(tc, a_file_cut_short_while_mapped_is_an_error_not_sigbus);
    tcase_add_test(tc, files_are_read_whole_or_refused_with_their_name);
    tcase_add_test(tc, a_view_counts_each_run_once_and_no_more_runs_than_its_cap);
    suite_add_tcase(s, tc);
    return s;
}
