/* Tests of retention: which names belong to a group and tag, and pruning the
 * oldest of them by mtime without touching anything else. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/retention.h"
#include "layout.h"
#include "test-suites.h"

#define HOURLY "%Y-%m-%d_%H"
#define DAILY "%Y-%m-%d"
#define LOG LAYOUT_LOG_SUFFIX
#define RUNS LAYOUT_RUNS_SUFFIX

static void make_file(const char *dir, const char *name, time_t mtime)
{
    char *path = path_join(dir, name);
    file_write(path, "x 1\n", 4);
    file_set_mtime(path, mtime);
    free(path);
}

static int exists_in(const char *dir, const char *name)
{
    char *path = path_join(dir, name);
    int rc = path_exists(path);
    free(path);
    return rc;
}

START_TEST(name_matches_format_and_tag_with_log_or_log_gz)
{
    ck_assert(retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.log"));
    ck_assert(retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.log.gz"));
    ck_assert(retention_name_matches(HOURLY, "all", LOG, "2026-11-22_05.all.log"));
    ck_assert(retention_name_matches(DAILY, "a.b_c-1", LOG, "2026-11-22.a.b_c-1.log"));
}
END_TEST

START_TEST(name_with_other_suffix_does_not_match)
{
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.log.bz2"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.log.tmp"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.log.gz.1"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.logx"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.gz"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "x2026-11-22_05.index.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05index.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05xindex.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05_index.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05-index.log.gz"));
}
END_TEST

START_TEST(name_of_other_tag_does_not_match)
{
    ck_assert(!retention_name_matches(HOURLY, "all", LOG, "2026-11-22_05.index.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.all.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index2.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.inde.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.api.index.log"));
    ck_assert(!retention_name_matches(HOURLY, "api", LOG, "2026-11-22_05.api.index.log"));
}
END_TEST

START_TEST(name_of_other_format_prefix_does_not_match)
{
    const char *cpu = HOURLY ".excimer";
    const char *wall = HOURLY ".excimer-wall";
    ck_assert(retention_name_matches(cpu, "index", LOG, "2026-11-22_05.excimer.index.log"));
    ck_assert(!retention_name_matches(cpu, "index", LOG, "2026-11-22_05.excimer-wall.index.log"));
    ck_assert(retention_name_matches(wall, "index", LOG, "2026-11-22_05.excimer-wall.index.log"));
    ck_assert(!retention_name_matches(wall, "index", LOG, "2026-11-22_05.excimer.index.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.excimer.index.log"));
}
END_TEST

START_TEST(hourly_and_daily_names_are_told_apart)
{
    ck_assert(!retention_name_matches(DAILY, "all", LOG, "2026-11-22_05.all.log"));
    ck_assert(!retention_name_matches(HOURLY, "all", LOG, "2026-11-22.all.log"));
    ck_assert(retention_name_matches(DAILY, "all", LOG, "2026-11-22.all.log"));
    ck_assert(retention_name_matches(HOURLY, "all", LOG, "2026-11-22_05.all.log"));
}
END_TEST

START_TEST(prune_keeps_newest_by_mtime_and_returns_count)
{
    char *dir = tmpdir_make();
    /* names in a different order than their mtimes */
    make_file(dir, "2026-11-22_09.index.log", 1000);
    make_file(dir, "2026-11-22_01.index.log.gz", 2000);
    make_file(dir, "2026-11-22_05.index.log", 3000);
    make_file(dir, "2026-11-22_02.index.log", 4000);
    make_file(dir, "2026-11-22_03.index.log.gz", 5000);

    ck_assert_int_eq(retention_prune(dir, HOURLY, "index", LOG, 3), 2);
    ck_assert(!exists_in(dir, "2026-11-22_09.index.log"));
    ck_assert(!exists_in(dir, "2026-11-22_01.index.log.gz"));
    ck_assert(exists_in(dir, "2026-11-22_05.index.log"));
    ck_assert(exists_in(dir, "2026-11-22_02.index.log"));
    ck_assert(exists_in(dir, "2026-11-22_03.index.log.gz"));

    ck_assert_int_eq(retention_prune(dir, HOURLY, "index", LOG, 3), 0); /* nothing more to do */
    ck_assert_int_eq(retention_prune(dir, HOURLY, "index", LOG, 1), 2);
    ck_assert(exists_in(dir, "2026-11-22_03.index.log.gz"));
    ck_assert_int_eq(dir_count_entries(dir), 1);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_leaves_other_tags_formats_and_names_alone)
{
    char *dir = tmpdir_make();
    make_file(dir, "2026-11-22_01.index.log", 5000);
    make_file(dir, "2026-11-22_02.index.log", 6000);
    /* very old, but not ours */
    static const char *const others[] = {
        "2026-11-22_01.all.log",      "2026-11-22_01.api.log",
        "2026-11-22.index.log",       "2026-11-22_01.excimer-wall.index.log",
        "README",                     "2026-11-22_01.index.log.tmp",
        "2026-11-22_01.index.log.1",  "index.log",
        "2026-11-22_1.index.log",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        make_file(dir, others[i], 1);

    ck_assert_int_eq(retention_prune(dir, HOURLY, "index", LOG, 1), 1);
    ck_assert(!exists_in(dir, "2026-11-22_01.index.log"));
    ck_assert(exists_in(dir, "2026-11-22_02.index.log"));
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        ck_assert_msg(exists_in(dir, others[i]), "%s was removed", others[i]);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_leaves_directories_and_symlinks_alone)
{
    char *dir = tmpdir_make();
    make_file(dir, "2026-11-22_05.index.log", 5000);
    make_file(dir, "target.txt", 1);

    char *sub = path_join(dir, "2026-11-22_00.index.log");
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    file_set_mtime(sub, 1);
    char *link = path_join(dir, "2026-11-21_23.index.log");
    ck_assert_int_eq(symlink("target.txt", link), 0);
    file_set_mtime(link, 1);
    char *dangling = path_join(dir, "2026-11-21_22.index.log");
    ck_assert_int_eq(symlink("missing.txt", dangling), 0);

    ck_assert_int_eq(retention_prune(dir, HOURLY, "index", LOG, 1), 0);
    struct stat st;
    ck_assert_int_eq(lstat(sub, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(lstat(dangling, &st), 0);
    ck_assert(exists_in(dir, "target.txt"));
    ck_assert(exists_in(dir, "2026-11-22_05.index.log"));
    free(sub);
    free(link);
    free(dangling);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_counts_log_and_log_gz_together)
{
    char *dir = tmpdir_make();
    make_file(dir, "2026-11-22_01.all.log.gz", 100);
    make_file(dir, "2026-11-22_02.all.log.gz", 200);
    make_file(dir, "2026-11-22_03.all.log", 300);
    ck_assert_int_eq(retention_prune(dir, HOURLY, "all", LOG, 2), 1);
    ck_assert(!exists_in(dir, "2026-11-22_01.all.log.gz"));
    ck_assert(exists_in(dir, "2026-11-22_02.all.log.gz"));
    ck_assert(exists_in(dir, "2026-11-22_03.all.log"));
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_of_hourly_and_daily_groups_sharing_a_directory)
{
    char *dir = tmpdir_make();
    make_file(dir, "2026-11-20.all.log", 10);
    make_file(dir, "2026-11-21.all.log", 20);
    make_file(dir, "2026-11-22_04.all.log", 30);
    make_file(dir, "2026-11-22_05.all.log", 40);
    ck_assert_int_eq(retention_prune(dir, HOURLY, "all", LOG, 1), 1);
    ck_assert(!exists_in(dir, "2026-11-22_04.all.log"));
    ck_assert(exists_in(dir, "2026-11-20.all.log")); /* older, but daily */
    ck_assert_int_eq(retention_prune(dir, DAILY, "all", LOG, 1), 1);
    ck_assert(!exists_in(dir, "2026-11-20.all.log"));
    ck_assert(exists_in(dir, "2026-11-21.all.log"));
    ck_assert(exists_in(dir, "2026-11-22_05.all.log"));
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_orders_by_nanoseconds_then_name)
{
    char *dir = tmpdir_make();
    static const char *const names[] = {"2026-11-22_01.all.log", "2026-11-22_02.all.log",
                                        "2026-11-22_03.all.log", "2026-11-22_04.all.log"};
    /* _01 newest by nanoseconds; _02 and _03 tie; _04 oldest */
    static const long nsec[] = {900, 500, 500, 100};
    for (size_t i = 0; i < 4; i++) {
        char *path = path_join(dir, names[i]);
        file_write(path, "", 0);
        struct timespec ts[2] = {{1000, nsec[i]}, {1000, nsec[i]}};
        ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
        free(path);
    }
    ck_assert_int_eq(retention_prune(dir, HOURLY, "all", LOG, 2), 2);
    ck_assert(exists_in(dir, names[0]));
    ck_assert(!exists_in(dir, names[1])); /* the tie goes by name: _02 before _03 */
    ck_assert(exists_in(dir, names[2]));
    ck_assert(!exists_in(dir, names[3]));
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_with_fewer_files_than_retain_removes_nothing)
{
    char *dir = tmpdir_make();
    make_file(dir, "2026-11-22_01.all.log", 100);
    ck_assert_int_eq(retention_prune(dir, HOURLY, "all", LOG, 5), 0);
    ck_assert_int_eq(retention_prune(dir, HOURLY, "all", LOG, 1), 0);
    ck_assert(exists_in(dir, "2026-11-22_01.all.log"));
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_of_missing_directory_returns_minus_one)
{
    char *dir = tmpdir_make();
    char *missing = path_join(dir, "nope");
    ck_assert_int_eq(retention_prune(missing, HOURLY, "all", LOG, 1), -1);
    free(missing);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(prune_handles_many_files)
{
    char *dir = tmpdir_make();
    char name[64];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "2026-%02d-%02d_%02d.all.log", 1 + i / 24 / 28,
                 1 + (i / 24) % 28, i % 24);
        make_file(dir, name, 1000 + i);
    }
    ck_assert_int_eq(retention_prune(dir, HOURLY, "all", LOG, 50), 150);
    ck_assert_int_eq(dir_count_entries(dir), 50);
    /* the newest 50 (i = 150..199) are the ones left */
    snprintf(name, sizeof name, "2026-%02d-%02d_%02d.all.log", 1 + 150 / 24 / 28,
             1 + (150 / 24) % 28, 150 % 24);
    ck_assert(exists_in(dir, name));
    snprintf(name, sizeof name, "2026-%02d-%02d_%02d.all.log", 1 + 149 / 24 / 28,
             1 + (149 / 24) % 28, 149 % 24);
    ck_assert(!exists_in(dir, name));
    tmpdir_remove(dir);
}
END_TEST

START_TEST(run_logs_match_their_own_suffix_only)
{
    ck_assert(retention_name_matches(HOURLY, "index", RUNS, "2026-11-22_05.index.runs"));
    ck_assert(retention_name_matches(HOURLY, "index", RUNS, "2026-11-22_05.index.runs.gz"));
    ck_assert(!retention_name_matches(HOURLY, "index", RUNS, "2026-11-22_05.index.log"));
    ck_assert(!retention_name_matches(HOURLY, "index", RUNS, "2026-11-22_05.index.log.gz"));
    ck_assert(!retention_name_matches(HOURLY, "index", LOG, "2026-11-22_05.index.runs"));
    ck_assert(!retention_name_matches(HOURLY, "index", RUNS, "2026-11-22_05.index.runsx"));
    ck_assert(!retention_name_matches(HOURLY, "index", RUNS, "2026-11-22_05.index.runs.tmp"));
    ck_assert(!retention_name_matches(HOURLY, "all", RUNS, "2026-11-22_05.index.runs"));
}
END_TEST

START_TEST(prune_counts_run_logs_and_trace_logs_apart)
{
    char *dir = tmpdir_make();
    for (int h = 0; h < 5; h++) {
        char name[64];
        snprintf(name, sizeof name, "2026-11-22_%02d.index.log", h);
        make_file(dir, name, 1000 + h);
        snprintf(name, sizeof name, "2026-11-22_%02d.index.runs%s", h, h == 0 ? ".gz" : "");
        make_file(dir, name, 1000 + h);
    }
    ck_assert_int_eq(retention_prune(dir, HOURLY, "index", RUNS, 2), 3);
    ck_assert(!exists_in(dir, "2026-11-22_00.index.runs.gz"));
    ck_assert(!exists_in(dir, "2026-11-22_02.index.runs"));
    ck_assert(exists_in(dir, "2026-11-22_03.index.runs"));
    ck_assert(exists_in(dir, "2026-11-22_04.index.runs"));
    for (int h = 0; h < 5; h++) {
        char name[64];
        snprintf(name, sizeof name, "2026-11-22_%02d.index.log", h);
        ck_assert_msg(exists_in(dir, name), "%s pruned", name);
    }
    ck_assert_int_eq(retention_prune(dir, HOURLY, "index", LOG, 4), 1);
    ck_assert(exists_in(dir, "2026-11-22_03.index.runs"));
    tmpdir_remove(dir);
}
END_TEST

Suite *retention_suite(void)
{
    Suite *s = suite_create("retention");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, name_matches_format_and_tag_with_log_or_log_gz);
    tcase_add_test(tc, name_with_other_suffix_does_not_match);
    tcase_add_test(tc, name_of_other_tag_does_not_match);
    tcase_add_test(tc, name_of_other_format_prefix_does_not_match);
    tcase_add_test(tc, hourly_and_daily_names_are_told_apart);
    suite_add_tcase(s, tc);

    tc = tcase_create("prune");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, prune_keeps_newest_by_mtime_and_returns_count);
    tcase_add_test(tc, prune_leaves_other_tags_formats_and_names_alone);
    tcase_add_test(tc, prune_leaves_directories_and_symlinks_alone);
    tcase_add_test(tc, prune_counts_log_and_log_gz_together);
    tcase_add_test(tc, prune_of_hourly_and_daily_groups_sharing_a_directory);
    tcase_add_test(tc, prune_orders_by_nanoseconds_then_name);
    tcase_add_test(tc, prune_with_fewer_files_than_retain_removes_nothing);
    tcase_add_test(tc, prune_of_missing_directory_returns_minus_one);
    tcase_add_test(tc, prune_handles_many_files);
    tcase_add_test(tc, run_logs_match_their_own_suffix_only);
    tcase_add_test(tc, prune_counts_run_logs_and_trace_logs_apart);
    suite_add_tcase(s, tc);
    return s;
}
