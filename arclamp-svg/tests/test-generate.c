/* Tests of the generator: atomic writes, drawing only what changed, removing
 * what is stale, surviving bad logs, the lock, and the index's encoding. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "atomicfile.h"
#include "fnfilter.h"
#include "gen_config.h"
#include "generate.h"
#include "indexpage.h"
#include "clock.h"
#include "runlock.h"
#include "runstate.h"
#include "strbuf.h"
#include "test-suites.h"

#define LOG_ALL "/srv/index.php;MediaWiki\\Actions\\EditAction::show;Foo::bar 3\n" \
                "/srv/api.php;ApiMain::execute;Foo::bar 2\n"                     \
                "/srv/index.php;Skin::output 1\n"

static char err[1024];

/* --- helpers ------------------------------------------------------------ */

static char *gunzip(const char *data, size_t len, size_t *outlen)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
    strbuf out = STRBUF_INIT;
    unsigned char buf[65536];
    zs.next_in = (unsigned char *)data;
    zs.avail_in = (uInt)len;
    int rc;
    do {
        zs.next_out = buf;
        zs.avail_out = sizeof buf;
        rc = inflate(&zs, Z_NO_FLUSH);
        ck_assert_msg(rc == Z_OK || rc == Z_STREAM_END, "inflate: %d", rc);
        strbuf_append(&out, buf, sizeof buf - zs.avail_out);
    } while (rc != Z_STREAM_END);
    inflateEnd(&zs);
    *outlen = out.len;
    strbuf_cstr(&out);
    return out.data;
}

static char *read_graph(const char *root, const char *rel)
{
    char *path = path_join(root, rel);
    size_t len, plen;
    char *gz = file_read(path, &len);
    ck_assert_msg(gz != NULL, "%s missing", rel);
    char *svg = gunzip(gz, len, &plen);
    free(gz);
    free(path);
    return svg;
}

static int exists(const char *root, const char *rel)
{
    char *p = path_join(root, rel);
    int rc = path_exists(p);
    free(p);
    return rc;
}

static void put(const char *root, const char *rel, const char *text, time_t mtime)
{
    char *p = path_join(root, rel);
    file_write(p, text, strlen(text));
    if (mtime)
        file_set_mtime(p, mtime);
    free(p);
}

static void mkdirs(const char *root, const char *rel)
{
    char *p = path_join(root, rel);
    ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s", p);
    free(p);
}

static time_t mtime_of(const char *root, const char *rel)
{
    char *p = path_join(root, rel);
    struct stat st;
    ck_assert_int_eq(stat(p, &st), 0);
    free(p);
    return st.st_mtime;
}

/* A data dir with logs/hourly and logs/daily. */
static char *make_tree(void)
{
    char *root = tmpdir_make();
    mkdirs(root, "logs");
    mkdirs(root, "logs/hourly");
    mkdirs(root, "logs/daily");
    return root;
}

static void config_for(struct gen_config *cfg, const char *root, const char *yaml)
{
    ck_assert_int_eq(gen_config_load_string("test.yaml", yaml, root, cfg, err, sizeof err), 0);
}

static enum generate_status run(const char *root, const char *yaml, int force,
                                struct generate_stats *st)
{
    struct gen_config cfg;
    config_for(&cfg, root, yaml);
    struct generate_options opt = {force};
    enum generate_status rc = generate_run(&cfg, &opt, st, err, sizeof err);
    gen_config_free(&cfg);
    return rc;
}

/* --- atomicfile --------------------------------------------------------- */

START_TEST(atomic_write_replaces_the_whole_file)
{
    char *dir = tmpdir_make();
    char *path = path_join(dir, "out.svg");
    file_write(path, "old", 3);
    ck_assert_int_eq(atomic_write(path, "new contents", 12, 0, err, sizeof err), 0);
    size_t len;
    char *data = file_read(path, &len);
    ck_assert_str_eq(data, "new contents");
    ck_assert_int_eq(dir_count_entries(dir), 1); /* no temporary file left */
    free(data);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

/* Without the fsyncs (the extension's xhprof.output_dir files): still a
 * whole file or the old one, and no temporary file either way. */
START_TEST(atomic_no_sync_still_replaces_whole_or_nothing)
{
    char *dir = tmpdir_make();
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    char *path = path_join(dir, "run");
    char *busy = path_join(dir, "busy");
    file_write(path, "old", 3);
    ck_assert_int_eq(atomic_writeat(dfd, "run", "new run", 7, ATOMIC_NO_SYNC, 0, NULL, err,
                                    sizeof err), 0);
    size_t len;
    char *data = file_read(path, &len);
    ck_assert_str_eq(data, "new run");
    ck_assert_int_eq(dir_count_entries(dir), 1);
    ck_assert_int_eq(mkdir(busy, 0755), 0);
    ck_assert_int_eq(atomic_writeat(dfd, "busy", "x", 1, ATOMIC_NO_SYNC, 0, NULL, err,
                                    sizeof err), -1);
    ck_assert_int_eq(dir_count_entries(dir), 2);
    free(data);
    free(busy);
    free(path);
    close(dfd);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(atomic_write_gzip_round_trips)
{
    char *dir = tmpdir_make();
    char *path = path_join(dir, "out.svgz");
    strbuf big = STRBUF_INIT;
    for (int i = 0; i < 100000; i++)
        strbuf_appendf(&big, "line %d;frame;frame\n", i);
    ck_assert_int_eq(atomic_write(path, big.data, big.len, 1, err, sizeof err), 0);
    size_t len, plen;
    char *gz = file_read(path, &len);
    ck_assert_uint_eq((unsigned char)gz[0], 0x1f);
    ck_assert_uint_eq((unsigned char)gz[1], 0x8b);
    ck_assert_uint_lt(len, big.len / 4);
    char *plain = gunzip(gz, len, &plen);
    ck_assert_uint_eq(plen, big.len);
    ck_assert(memcmp(plain, big.data, plen) == 0);
    free(plain);
    free(gz);
    strbuf_free(&big);
    free(path);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(atomic_failure_keeps_target_and_leaves_no_temp)
{
    char *dir = tmpdir_make();
    char *target = path_join(dir, "busy");
    ck_assert_int_eq(mkdir(target, 0755), 0);
    char *inner = path_join(target, "keep");
    file_write(inner, "x", 1);
    /* A directory cannot be replaced by a file: the rename fails. */
    ck_assert_int_eq(atomic_write(target, "data", 4, 0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "rename") != NULL, "%s", err);
    ck_assert(path_exists(inner));
    ck_assert_int_eq(dir_count_entries(dir), 1);
    ck_assert_int_eq(atomic_write("/nonexistent-dir/x.svg", "d", 1, 0, err, sizeof err), -1);
    free(inner);
    free(target);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(atomic_abort_removes_the_temp)
{
    char *dir = tmpdir_make();
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    struct atomic_file *af = atomic_openat(dfd, "x.svgz", ATOMIC_GZIP, 6, err, sizeof err);
    ck_assert_ptr_nonnull(af);
    ck_assert_int_eq(atomic_append(af, "abc", 3), 0);
    ck_assert_int_eq(dir_count_entries(dir), 1);
    atomic_abort(af);
    ck_assert_int_eq(dir_count_entries(dir), 0);
    ck_assert_ptr_null(atomic_openat(dfd, "a/b", 0, 6, err, sizeof err));
    close(dfd);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(atomic_commit_sets_mtime)
{
    char *dir = tmpdir_make();
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    struct timespec when = {1700000000, 123456789};
    ck_assert_int_eq(atomic_writeat(dfd, "f", "abc", 3, 0, 6, &when, err, sizeof err), 0);
    struct stat st;
    ck_assert_int_eq(fstatat(dfd, "f", &st, 0), 0);
    ck_assert_int_eq(st.st_mtim.tv_sec, when.tv_sec);
    ck_assert_int_eq(st.st_mtim.tv_nsec, when.tv_nsec);
    close(dfd);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(clean_temps_removes_only_temp_names)
{
    char *dir = tmpdir_make();
    put(dir, ATOMIC_TMP_PREFIX "0123456789abcdef", "half", 0);
    put(dir, ".hidden", "x", 0);
    put(dir, "graph.svgz", "x", 0);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_eq(atomic_clean_temps(dfd), 1);
    ck_assert_int_eq(dir_count_entries(dir), 2);
    close(dfd);
    tmpdir_remove(dir);
}
END_TEST

/* --- generate ----------------------------------------------------------- */

START_TEST(draws_forward_reversed_and_function_graphs)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.all.log", LOG_ALL, 0);
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL, 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.logs, 2);
    ck_assert_uint_eq(st.generated, 2);
    ck_assert_uint_eq(st.graphs, 6); /* 2 + 2, and EditAction for the all log */
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.all.svgz"));
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.all.reversed.svgz"));
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.all.fn-EditAction.svgz"));
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.all.fn-EditAction.reversed.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.all.fn-Upload.svgz")); /* no samples */
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.index.fn-EditAction.svgz"));
    char *svg = read_graph(root, "svgs/hourly/2026-11-22_05.all.svgz");
    ck_assert_ptr_nonnull(strstr(svg, "MediaWiki - hourly - 2026-11-22 05 - all (6 samples)<"));
    ck_assert_ptr_nonnull(strstr(svg, "all (6 samples, 100%)"));
    free(svg);
    svg = read_graph(root, "svgs/hourly/2026-11-22_05.all.fn-EditAction.reversed.svgz");
    ck_assert_ptr_nonnull(strstr(svg, "2026-11-22 05 - all - EditAction - reversed (3 samples)<"));
    ck_assert_ptr_nonnull(strstr(svg, "all (3 samples, 100%)"));
    ck_assert_ptr_null(strstr(svg, "ApiMain"));
    free(svg);
    ck_assert(exists(root, "index.html"));
    ck_assert(exists(root, "index.json"));
    tmpdir_remove(root);
}
END_TEST

START_TEST(function_matches_whole_frames_including_the_leaf)
{
    char *root = make_tree();
    put(root, "logs/daily/2026-11-22.all.log",
        "/srv/index.php;Foo::bar 1\n"                /* leaf */
        "/srv/index.php;Foo::barbaz;x 1\n"           /* longer name: no */
        "/srv/index.php;Foo::bar;y 1\n"              /* inside */
        "/srv/index.php;Foo::bar\r 1\n", 0);         /* not a frame name */
    struct generate_stats st;
    ck_assert_int_eq(run(root, "functions: [{function: 'Foo::bar', label: Bar}]\n", 0, &st),
                     GENERATE_OK);
    char *svg = read_graph(root, "svgs/daily/2026-11-22.all.fn-Bar.svgz");
    ck_assert_ptr_nonnull(strstr(svg, "all (2 samples, 100%)"));
    free(svg);
    tmpdir_remove(root);
}
END_TEST

START_TEST(up_to_date_logs_are_skipped_and_newer_ones_redrawn)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL, 1700000000);
    put(root, "logs/daily/2026-11-22.index.log.gz", "", 0);
    char *gzpath = path_join(root, "logs/daily/2026-11-22.index.log.gz");
    ck_assert_int_eq(atomic_write(gzpath, LOG_ALL, strlen(LOG_ALL), 1, err, sizeof err), 0);
    file_set_mtime(gzpath, 1700000000);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.generated, 2);
    /* The graphs carry the log's mtime as read. */
    ck_assert_int_eq(mtime_of(root, "svgs/hourly/2026-11-22_05.index.svgz"), 1700000000);
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.generated, 0);
    ck_assert_uint_eq(st.skipped, 2);
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL "a;b 1\n", 1700000100);
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.generated, 1);
    ck_assert_uint_eq(st.skipped, 1);
    char *svg = read_graph(root, "svgs/hourly/2026-11-22_05.index.svgz");
    ck_assert_ptr_nonnull(strstr(svg, "all (7 samples, 100%)"));
    free(svg);
    ck_assert_int_eq(run(root, NULL, 1, &st), GENERATE_OK); /* --force */
    ck_assert_uint_eq(st.generated, 2);
    free(gzpath);
    tmpdir_remove(root);
}
END_TEST

START_TEST(missing_reversed_graph_means_redraw)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL, 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    char *p = path_join(root, "svgs/hourly/2026-11-22_05.index.reversed.svgz");
    ck_assert_int_eq(unlink(p), 0);
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.generated, 1);
    ck_assert(path_exists(p));
    free(p);
    tmpdir_remove(root);
}
END_TEST

START_TEST(graphs_of_removed_logs_are_deleted)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.all.log", LOG_ALL, 0);
    put(root, "logs/hourly/2026-11-22_06.all.log", LOG_ALL, 0);
    put(root, "logs/daily/2026-11-22.all.log", LOG_ALL, 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert(exists(root, "svgs/hourly/2026-11-22_06.all.diff.svgz"));
    put(root, "svgs/hourly/notes.txt", "mine", 0);
    put(root, "svgs/hourly/2026-11-22_06.all.fn-Gone.svgz", "old label", 0);
    char *p = path_join(root, "logs/hourly/2026-11-22_05.all.log");
    ck_assert_int_eq(unlink(p), 0);
    free(p);
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    /* 2 + 2 EditAction + the unknown label + the diff of 06 against 05
     * (both orientations): its bucket before is gone */
    ck_assert_uint_eq(st.removed, 7);
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_06.all.diff.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_06.all.diff.reversed.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.all.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.all.fn-EditAction.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_06.all.fn-Gone.svgz"));
    ck_assert(exists(root, "svgs/hourly/2026-11-22_06.all.svgz"));
    ck_assert(exists(root, "svgs/hourly/2026-11-22_06.all.fn-EditAction.svgz"));
    ck_assert(exists(root, "svgs/hourly/notes.txt")); /* not ours: left alone */
    tmpdir_remove(root);
}
END_TEST

START_TEST(graphs_of_a_removed_period_are_deleted)
{
    char *root = make_tree();
    put(root, "logs/daily/2026-11-22.index.log", LOG_ALL, 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    char *p = path_join(root, "logs/daily/2026-11-22.index.log");
    unlink(p);
    free(p);
    p = path_join(root, "logs/daily");
    ck_assert_int_eq(rmdir(p), 0);
    free(p);
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.removed, 2);
    ck_assert(!exists(root, "svgs/daily"));
    tmpdir_remove(root);
}
END_TEST

START_TEST(function_graph_without_samples_any_more_is_removed)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.all.log", LOG_ALL, 1700000000);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.all.fn-EditAction.svgz"));
    put(root, "logs/hourly/2026-11-22_05.all.log", "/srv/index.php;x 1\n", 1700000100);
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.all.fn-EditAction.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.all.fn-EditAction.reversed.svgz"));
    tmpdir_remove(root);
}
END_TEST

START_TEST(bad_logs_do_not_stop_the_others)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_04.index.log", LOG_ALL, 0);
    put(root, "logs/hourly/2026-11-22_05.index.log.gz", "\x1f\x8b not really gzip", 0);
    put(root, "logs/hourly/2026-11-22_06.index.log", "garbage\nmore garbage\n", 0);
    put(root, "logs/hourly/2026-11-22_07.index.log", LOG_ALL "garbage\n", 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_SOME_FAILED);
    ck_assert_uint_eq(st.failed, 2);
    ck_assert_uint_eq(st.generated, 2);
    ck_assert_uint_eq(st.ignored_lines, 1);
    ck_assert(exists(root, "svgs/hourly/2026-11-22_04.index.svgz"));
    ck_assert(exists(root, "svgs/hourly/2026-11-22_07.index.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.index.svgz"));
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_06.index.svgz"));
    size_t len;
    char *p = path_join(root, "index.json");
    char *json = file_read(p, &len);
    ck_assert_ptr_nonnull(strstr(json, "\"failed\": true"));
    free(json);
    free(p);
    tmpdir_remove(root);
}
END_TEST

START_TEST(empty_log_gets_empty_graphs)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.index.log", "", 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.index.svgz"));
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.skipped, 1);
    tmpdir_remove(root);
}
END_TEST

START_TEST(held_lock_means_busy_and_nothing_done)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL, 0);
    char *lock = path_join(root, ".arclamp-svg/run.lock");
    int fd;
    ck_assert_int_eq(runlock_acquire(lock, 0, &fd, err, sizeof err), RUNLOCK_OK);
    /* flock locks belong to the open file: another open of it conflicts,
     * even in this process. */
    struct generate_stats st;
    double start = clock_mono();
    ck_assert_int_eq(run(root, "lock_timeout: 0.3\n", 0, &st), GENERATE_BUSY);
    double took = clock_mono() - start;
    ck_assert_msg(took >= 0.29 && took < 3, "waited %.3f s", took);
    ck_assert(!exists(root, "svgs"));
    ck_assert(!exists(root, "index.html"));
    struct runstate rs;
    ck_assert_int_eq(runstate_read(root, &rs, err, sizeof err), 0);
    ck_assert_uint_eq(rs.skipped[RUNSTATE_GENERATE], 1);
    ck_assert_uint_eq(rs.skipped[RUNSTATE_COMPRESS], 0);
    ck_assert_int_ne(rs.last_skip[RUNSTATE_GENERATE], 0);
    runlock_release(fd);
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.index.svgz"));
    free(lock);
    tmpdir_remove(root);
}
END_TEST

START_TEST(temporary_files_of_a_crash_are_removed)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL, 0);
    mkdirs(root, "svgs");
    mkdirs(root, "svgs/hourly");
    put(root, "svgs/hourly/" ATOMIC_TMP_PREFIX "00000000deadbeef", "half a graph", 0);
    put(root, ATOMIC_TMP_PREFIX "00000000cafebabe", "half an index", 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.temps, 2);
    ck_assert(!exists(root, "svgs/hourly/" ATOMIC_TMP_PREFIX "00000000deadbeef"));
    ck_assert(!exists(root, ATOMIC_TMP_PREFIX "00000000cafebabe"));
    tmpdir_remove(root);
}
END_TEST

START_TEST(missing_logs_dir_is_an_error_and_removes_nothing)
{
    char *root = make_tree();
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL, 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_int_eq(run(root, "logs_dir: /nonexistent/arclamp-logs\n", 0, &st),
                     GENERATE_ERROR);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/arclamp-logs"));
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.index.svgz"));
    tmpdir_remove(root);
}
END_TEST

START_TEST(symlinked_graph_dir_is_not_followed)
{
    char *root = make_tree();
    char *outside = tmpdir_make();
    put(root, "logs/hourly/2026-11-22_05.index.log", LOG_ALL, 0);
    put(root, "logs/daily/2026-11-22.index.log", LOG_ALL, 0);
    mkdirs(root, "svgs");
    char *link = path_join(root, "svgs/hourly");
    ck_assert_int_eq(symlink(outside, link), 0);
    struct generate_stats st;
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_SOME_FAILED);
    ck_assert_uint_eq(st.failed, 1);
    ck_assert_int_eq(dir_count_entries(outside), 0);
    ck_assert(exists(root, "svgs/daily/2026-11-22.index.svgz"));
    free(link);
    tmpdir_remove(outside);
    tmpdir_remove(root);
}
END_TEST

START_TEST(hostile_names_are_drawn_and_indexed)
{
    char *root = make_tree();
    const char *name = "logs/hourly/2026-11-22_05.a \"b\" <c>&\xff.log";
    put(root, name, LOG_ALL, 0);
    struct generate_stats st;
    /* Read with the default formats, its tag is not one: refused. */
    ck_assert_int_eq(run(root, NULL, 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.refused, 1);
    ck_assert(!exists(root, "svgs/hourly/2026-11-22_05.a \"b\" <c>&\xff.svgz"));
    /* With a format that does not match it, it keeps the old reading. */
    ck_assert_int_eq(run(root, "log_formats: ['%Y%m%d']\n", 0, &st), GENERATE_OK);
    ck_assert_uint_eq(st.refused, 0);
    ck_assert(exists(root, "svgs/hourly/2026-11-22_05.a \"b\" <c>&\xff.svgz"));
    size_t len;
    char *p = path_join(root, "index.html");
    char *html = file_read(p, &len);
    ck_assert_ptr_nonnull(strstr(html, "href=\"svgs/hourly/2026-11-22_05.a%20%22b%22%20%3Cc%3E"
                                       "%26%FF.svgz\""));
    ck_assert_ptr_nonnull(strstr(html, "&lt;c&gt;&amp;\xEF\xBF\xBD"));
    ck_assert_ptr_null(strstr(html, "<c>"));
    free(html);
    free(p);
    p = path_join(root, "index.json");
    char *json = file_read(p, &len);
    ck_assert_ptr_nonnull(strstr(json, "\"name\": \"2026-11-22_05.a \\\"b\\\" <c>&\\udcff\""));
    free(json);
    free(p);
    tmpdir_remove(root);
}
END_TEST

/* --- index encoding ----------------------------------------------------- */

START_TEST(url_encoding_of_paths)
{
    strbuf sb = STRBUF_INIT;
    url_encode_path(&sb, "svgs/hourly/a b#c?d%e\"'<>&\xff.svgz");
    ck_assert_str_eq(strbuf_cstr(&sb),
                     "svgs/hourly/a%20b%23c%3Fd%25e%22%27%3C%3E%26%FF.svgz");
    strbuf_free(&sb);
}
END_TEST

START_TEST(relative_paths)
{
    const char *cases[][3] = {
        {"/srv/arclamp", "/srv/arclamp/svgs", "svgs"},
        {"/srv/arclamp", "/srv/arclamp", "."},
        {"/srv/arclamp", "/var/www/svgs", "../../var/www/svgs"},
        {"/srv/arclamp/web", "/srv/arclamp/svgs", "../svgs"},
        {"/srv/arc", "/srv/arclamp", "../arclamp"},
        {"/", "/srv/x", "srv/x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *r = relative_path(cases[i][0], cases[i][1]);
        ck_assert_str_eq(r, cases[i][2]);
        free(r);
    }
}
END_TEST

/* --- fnfilter ----------------------------------------------------------- */

START_TEST(fnfilter_matches_whole_frames_only)
{
    const char *fns[] = {"Foo::bar", "Baz"};
    struct fnfilter *ff = fnfilter_new(fns, 2);
    const struct {
        const char *stack;
        uint64_t bits;
    } cases[] = {
        {"/srv/index.php;Foo::bar;x", 1},   {"/srv/index.php;Foo::bar", 1},
        {"/srv/index.php;Foo::barx;x", 0},  {"/srv/index.php;xFoo::bar;Baz", 2},
        {"/srv/index.php;Baz;Foo::bar", 3}, {"Foo::bar;x", 0}, /* the entry point is no function */
        {"Foo::bar", 0},                    {"", 0},
    };
    for (int round = 0; round < 2; round++) { /* the second round is answered from the cache */
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
            ck_assert_msg(fnfilter_match(ff, cases[i].stack, strlen(cases[i].stack)) ==
                              cases[i].bits, "%s", cases[i].stack);
    }
    fnfilter_free(ff);
}
END_TEST

START_TEST(fnfilter_memory_follows_distinct_stacks)
{
    const char *fns[] = {"f"};
    struct fnfilter *ff = fnfilter_new(fns, 1);
    char line[64];
    for (int i = 0; i < 100; i++) {
        int n = snprintf(line, sizeof line, "e;f;g%d", i);
        ck_assert_uint_eq(fnfilter_match(ff, line, (size_t)n), 1);
    }
    size_t after = fnfilter_memory(ff);
    for (int r = 0; r < 10000; r++) {
        int n = snprintf(line, sizeof line, "e;f;g%d", r % 100);
        fnfilter_match(ff, line, (size_t)n);
    }
    ck_assert_uint_eq(fnfilter_memory(ff), after);
    fnfilter_free(ff);
}
END_TEST

Suite *generate_suite(void)
{
    Suite *s = suite_create("generate");
    TCase *tc = tcase_create("atomicfile");
    tcase_add_test(tc, atomic_write_replaces_the_whole_file);
    tcase_add_test(tc, atomic_write_gzip_round_trips);
    tcase_add_test(tc, atomic_no_sync_still_replaces_whole_or_nothing);
    tcase_add_test(tc, atomic_failure_keeps_target_and_leaves_no_temp);
    tcase_add_test(tc, atomic_abort_removes_the_temp);
    tcase_add_test(tc, atomic_commit_sets_mtime);
    tcase_add_test(tc, clean_temps_removes_only_temp_names);
    suite_add_tcase(s, tc);
    tc = tcase_create("generate");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, draws_forward_reversed_and_function_graphs);
    tcase_add_test(tc, function_matches_whole_frames_including_the_leaf);
    tcase_add_test(tc, up_to_date_logs_are_skipped_and_newer_ones_redrawn);
    tcase_add_test(tc, missing_reversed_graph_means_redraw);
    tcase_add_test(tc, graphs_of_removed_logs_are_deleted);
    tcase_add_test(tc, graphs_of_a_removed_period_are_deleted);
    tcase_add_test(tc, function_graph_without_samples_any_more_is_removed);
    tcase_add_test(tc, bad_logs_do_not_stop_the_others);
    tcase_add_test(tc, empty_log_gets_empty_graphs);
    tcase_add_test(tc, held_lock_means_busy_and_nothing_done);
    tcase_add_test(tc, temporary_files_of_a_crash_are_removed);
    tcase_add_test(tc, missing_logs_dir_is_an_error_and_removes_nothing);
    tcase_add_test(tc, symlinked_graph_dir_is_not_followed);
    tcase_add_test(tc, hostile_names_are_drawn_and_indexed);
    suite_add_tcase(s, tc);
    tc = tcase_create("index");
    tcase_add_test(tc, url_encoding_of_paths);
    tcase_add_test(tc, relative_paths);
    suite_add_tcase(s, tc);
    tc = tcase_create("fnfilter");
    tcase_add_test(tc, fnfilter_matches_whole_frames_only);
    tcase_add_test(tc, fnfilter_memory_follows_distinct_stacks);
    suite_add_tcase(s, tc);
    return s;
}
