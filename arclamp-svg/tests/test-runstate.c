/* Tests of runstate: the one file of counters kept across runs, in the
 * private directory, rewritten atomically through its descriptor. */
#include <fcntl.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_config.h"
#include "runstate.h"
#include "test-suites.h"

static char err[1024];

static char *state_path(const char *root)
{
    return path_join(root, GEN_PRIVATE_DIR "/" RUNSTATE_FILE);
}

/* <root>/GEN_PRIVATE_DIR made 0700 as a run would; its path, malloc'd. */
static char *make_private_dir(const char *root)
{
    char *dir = path_join(root, GEN_PRIVATE_DIR);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    return dir;
}

/* A runstate with only truncated_graphs set. */
static struct runstate truncated(unsigned long long graphs)
{
    struct runstate add = {0};
    add.truncated_graphs = graphs;
    return add;
}

START_TEST(counts_add_up_in_one_private_file)
{
    char *root = tmpdir_make();
    struct runstate st, add = {0};
    ck_assert_int_eq(runstate_read(root, &st, err, sizeof err), 0); /* nothing yet: all 0 */
    ck_assert_uint_eq(st.skipped[RUNSTATE_GENERATE] + st.truncated_graphs, 0);
    add.skipped[RUNSTATE_COMPRESS] = 1;
    add.last_skip[RUNSTATE_COMPRESS] = 1000;
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    memset(&add, 0, sizeof add);
    add.truncated_graphs = 2;
    add.truncated_lines = 70;
    add.log_read_limit = 1;
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    memset(&add, 0, sizeof add);
    add.skipped[RUNSTATE_COMPRESS] = 1;
    add.last_skip[RUNSTATE_COMPRESS] = 2000;
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    ck_assert_int_eq(runstate_read(root, &st, err, sizeof err), 0);
    ck_assert_uint_eq(st.skipped[RUNSTATE_COMPRESS], 2);
    ck_assert_uint_eq(st.last_skip[RUNSTATE_COMPRESS], 2000); /* the latest, not a sum */
    ck_assert_uint_eq(st.skipped[RUNSTATE_GENERATE], 0);
    ck_assert_uint_eq(st.last_skip[RUNSTATE_GENERATE], 0);
    ck_assert_uint_eq(st.truncated_graphs, 4);
    ck_assert_uint_eq(st.truncated_lines, 140);
    ck_assert_uint_eq(st.log_read_limit, 2);
    /* one file, 0600, in the 0700 private directory; nothing in data_dir */
    char *path = state_path(root);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 0777, 0600);
    char *dir = path_join(root, GEN_PRIVATE_DIR);
    ck_assert_int_eq(stat(dir, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 0777, 0700);
    char *old = path_join(root, ".arclamp-svg.counters");
    ck_assert(!path_exists(old));
    free(old);
    free(dir);
    free(path);
    tmpdir_remove(root);
}
END_TEST

START_TEST(nothing_to_add_writes_nothing)
{
    char *root = tmpdir_make();
    struct runstate add = {0};
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    char *dir = path_join(root, GEN_PRIVATE_DIR);
    ck_assert(!path_exists(dir));
    free(dir);
    tmpdir_remove(root);
}
END_TEST

/* A symlink in the file's place is neither followed when read nor written
 * through: its target stays as it was. */
START_TEST(a_symlink_in_place_of_the_file_is_not_followed)
{
    char *root = tmpdir_make();
    char *dir = make_private_dir(root);
    char *target = path_join(root, "target");
    file_write(target, "precious\n", 9);
    char *path = state_path(root);
    ck_assert_int_eq(symlink(target, path), 0);
    struct runstate st, add = truncated(1);
    ck_assert_int_eq(runstate_read(root, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
    size_t len;
    char *text = file_read(target, &len);
    ck_assert_str_eq(text, "precious\n");
    free(text);
    free(path);
    free(target);
    free(dir);
    tmpdir_remove(root);
}
END_TEST

/* The private directory itself replaced by a symlink (to a directory the
 * writer could write) is refused, not followed. */
START_TEST(a_symlinked_private_directory_is_refused)
{
    char *root = tmpdir_make();
    char *elsewhere = path_join(root, "elsewhere");
    ck_assert_int_eq(mkdir(elsewhere, 0700), 0);
    char *dir = path_join(root, GEN_PRIVATE_DIR);
    ck_assert_int_eq(symlink(elsewhere, dir), 0);
    struct runstate st, add = {0};
    add.log_read_limit = 1;
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), -1);
    ck_assert_int_eq(runstate_read(root, &st, err, sizeof err), -1);
    char *inside = path_join(elsewhere, RUNSTATE_FILE);
    ck_assert(!path_exists(inside));
    free(inside);
    free(dir);
    free(elsewhere);
    tmpdir_remove(root);
}
END_TEST

/* A private directory others may write to is refused (a file of theirs
 * could take the state's name between two runs). */
START_TEST(a_private_directory_open_to_others_is_refused)
{
    char *root = tmpdir_make();
    char *dir = make_private_dir(root);
    ck_assert_int_eq(chmod(dir, 0777), 0);
    struct runstate add = {0};
    add.truncated_lines = 3;
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "writable by other users"));
    char *path = state_path(root);
    ck_assert(!path_exists(path));
    free(path);
    free(dir);
    tmpdir_remove(root);
}
END_TEST

/* The files of the two layouts before (data_dir/.arclamp-svg.counters,
 * <lock_file>.skips) are ignored; unknown lines in the file too. */
START_TEST(files_of_the_old_layout_and_unknown_lines_are_ignored)
{
    char *root = tmpdir_make();
    char *dir = make_private_dir(root);
    char *old = path_join(root, ".arclamp-svg.counters");
    file_write(old, "truncated_graphs 7\n", 19);
    char *skips = path_join(dir, "run.lock.skips");
    file_write(skips, "generate 5 1000\n", 16);
    char *path = state_path(root);
    const char *text = "truncated_lines 9\nfuture_counter 4\ngarbage\nlog_read_limit x\n";
    file_write(path, text, strlen(text));
    struct runstate st, add = {0};
    ck_assert_int_eq(runstate_read(root, &st, err, sizeof err), 0);
    ck_assert_uint_eq(st.truncated_lines, 9);
    ck_assert_uint_eq(st.truncated_graphs, 0);
    ck_assert_uint_eq(st.skipped[RUNSTATE_GENERATE], 0);
    ck_assert_uint_eq(st.log_read_limit, 0);
    add.truncated_graphs = 1;
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    ck_assert_int_eq(runstate_read(root, &st, err, sizeof err), 0);
    ck_assert_uint_eq(st.truncated_graphs, 1);
    ck_assert_uint_eq(st.truncated_lines, 9);
    size_t len;
    char *kept = file_read(old, &len);
    ck_assert_str_eq(kept, "truncated_graphs 7\n"); /* left as it was */
    free(kept);
    free(path);
    free(skips);
    free(old);
    free(dir);
    tmpdir_remove(root);
}
END_TEST

/* A writer that held the directory's flock while dying left a temporary
 * file: the next writer removes it. */
START_TEST(an_interrupted_writers_temporary_file_is_removed)
{
    char *root = tmpdir_make();
    char *dir = make_private_dir(root);
    char *tmp = path_join(dir, ".arclamp-tmp-00000000deadbeef");
    file_write(tmp, "half", 4);
    struct runstate add = truncated(1);
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    ck_assert(!path_exists(tmp));
    free(tmp);
    free(dir);
    tmpdir_remove(root);
}
END_TEST

/* Writers are serialised by a flock on the private directory: one held
 * elsewhere makes a writer give up after RUNSTATE_LOCK_TIMEOUT, not wait
 * forever, and not write behind the holder's back. */
START_TEST(a_held_directory_lock_bounds_the_wait)
{
    char *root = tmpdir_make();
    char *dir = make_private_dir(root);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0);
    struct runstate add = truncated(1);
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "locked"));
    close(fd);
    ck_assert_int_eq(runstate_add(root, &add, err, sizeof err), 0);
    free(dir);
    tmpdir_remove(root);
}
END_TEST

Suite *runstate_suite(void)
{
    Suite *s = suite_create("runstate");
    TCase *tc = tcase_create("runstate");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, counts_add_up_in_one_private_file);
    tcase_add_test(tc, nothing_to_add_writes_nothing);
    tcase_add_test(tc, a_symlink_in_place_of_the_file_is_not_followed);
    tcase_add_test(tc, a_symlinked_private_directory_is_refused);
    tcase_add_test(tc, a_private_directory_open_to_others_is_refused);
    tcase_add_test(tc, files_of_the_old_layout_and_unknown_lines_are_ignored);
    tcase_add_test(tc, an_interrupted_writers_temporary_file_is_removed);
    tcase_add_test(tc, a_held_directory_lock_bounds_the_wait);
    suite_add_tcase(s, tc);
    return s;
}
