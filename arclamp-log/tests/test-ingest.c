/* Tests of ingest: from messages to trace log files, with a real config
 * pointing base_path at a temporary directory. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/ingest.h"
#include "ingestfx.h"
#include "strbuf.h"
#include "test-suites.h"

#define HOURLY_LOGS                                                                          \
    "logs:\n"                                                                                \
    "  - period: hourly\n"                                                                   \
    "    format: '%Y-%m-%d_%H'\n"                                                            \
    "    retain: 5\n"

START_TEST(writes_valid_lines_to_all_and_tag_files)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx,
             "/srv/mediawiki/index.php;main;Foo::bar 3\n"
             "main;x 2\n"
             "/srv/mediawiki/api.php;ApiMain::execute 1\n"
             "/srv/mediawiki/index.php;main 4\n",
             1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log",
               "/srv/mediawiki/index.php;main;Foo::bar 3\n"
               "main;x 2\n"
               "/srv/mediawiki/api.php;ApiMain::execute 1\n"
               "/srv/mediawiki/index.php;main 4\n");
    assert_rel(&fx, "hourly/2026-11-22_05.index.log",
               "/srv/mediawiki/index.php;main;Foo::bar 3\n"
               "/srv/mediawiki/index.php;main 4\n");
    assert_rel(&fx, "hourly/2026-11-22_05.api.log", "/srv/mediawiki/api.php;ApiMain::execute 1\n");
    ck_assert_int_eq(count_rel(&fx, "hourly"), 3);
    ck_assert_uint_eq(fx.st.messages_received[INPUT_SOCKET], 1);
    ck_assert_uint_eq(fx.st.messages_received[INPUT_REDIS], 0);
    ck_assert_uint_eq(fx.st.lines_received, 4);
    ck_assert_uint_eq(fx.st.lines_written[0], 4);
    fx_free(&fx);
}
END_TEST

START_TEST(invalid_lines_are_dropped_and_counted_per_reason)
{
    struct fx fx;
    fx_init(&fx, "max_line_bytes: 64\n" HOURLY_LOGS);
    char msg[1024];
    snprintf(msg, sizeof msg,
             "good;a 1\n"
             "%0100d 1\n"  /* too_long */
             "a\tb 1\n"    /* control_char */
             "a\rb 1\n"    /* control_char */
             "caf\xc3 1\n" /* invalid_utf8 */
             "nocount\n"   /* no_count */
             "a b\n"       /* no_count */
             "a 0\n"       /* bad_count */
             "a 01\n"      /* bad_count */
             "a 4294967296\n" /* bad_count */
             "a;;b 1\n"    /* empty_frame */
             ";a 1\n"      /* empty_frame */
             "a  1\n"      /* empty_frame */
             "\n"          /* empty */
             "good;b 2\n",
             0);
    send_msg(&fx, msg, 1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "good;a 1\ngood;b 2\n");
    ck_assert_uint_eq(fx.st.lines_received, 15);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_OK], 0);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_TOO_LONG], 1);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_CONTROL_CHAR], 2);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_INVALID_UTF8], 1);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_NO_COUNT], 2);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_BAD_COUNT], 3);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_EMPTY_FRAME], 3);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_EMPTY], 1);
    ck_assert_uint_eq(fx.st.lines_written[0], 2);
    fx_free(&fx);
}
END_TEST

START_TEST(nul_byte_inside_message_is_a_control_char)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    static const char msg[] = "a 1\nb\0c 1\nd 2\n";
    ingest_message(&fx.in, msg, sizeof msg - 1, 1, INPUT_REDIS, TEST_NOW, 1.0, 0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "a 1\nd 2\n");
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_CONTROL_CHAR], 1);
    ck_assert_uint_eq(fx.st.messages_received[INPUT_REDIS], 1);
    fx_free(&fx);
}
END_TEST

START_TEST(trailing_newline_is_accepted)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx, "a 1\n", 1, TEST_NOW, 1.0);
    send_msg(&fx, "b 2", 1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "a 1\nb 2\n");
    ck_assert_uint_eq(fx.st.lines_received, 2);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_EMPTY], 0);
    fx_free(&fx);
}
END_TEST

START_TEST(blank_lines_count_as_empty)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx, "a 1\n\nb 2\n", 1, TEST_NOW, 1.0);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_EMPTY], 1);
    /* "\n\n": one trailing newline ends the last line, leaving two empty lines */
    send_msg(&fx, "\n\n", 1, TEST_NOW, 1.0);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_EMPTY], 3);
    ingest_message(&fx.in, "", 0, 1, INPUT_SOCKET, TEST_NOW, 1.0, 0); /* an empty message */
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_EMPTY], 4);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "a 1\nb 2\n");
    fx_free(&fx);
}
END_TEST

START_TEST(message_longer_than_max_message_bytes_is_refused_whole)
{
    struct fx fx;
    fx_init(&fx, "max_message_bytes: 64\n" HOURLY_LOGS);
    char msg[256];
    /* 7 lines of "line;nn 1\n" is 70 bytes: given as 65 bytes, then as 6 lines */
    size_t n = 0;
    for (int i = 0; i < 7; i++)
        n += (size_t)snprintf(msg + n, sizeof msg - n, "line;%02d 1\n", i);
    ingest_message(&fx.in, msg, 65, 1, INPUT_SOCKET, TEST_NOW, 1.0, 0); /* "...line;06 " */
    fileset_flush(&fx.in.files, 1.0);
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.all.log"));
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_TOO_LONG], 1);
    ck_assert_uint_eq(fx.st.lines_received, 1);
    ck_assert_uint_eq(fx.st.messages_received[INPUT_SOCKET], 1);

    msg[60] = '\0'; /* six whole lines: accepted */
    send_msg(&fx, msg, 1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    char *text = read_rel(&fx, "hourly/2026-11-22_05.all.log");
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(count_char(text, strlen(text), '\n'), 6);
    free(text);

    /* exactly max_message_bytes is still accepted */
    char exact[65];
    memset(exact, 'x', 64);
    memcpy(exact + 61, " 9", 3); /* 63 bytes + "\n" = 64 */
    exact[63] = '\n';
    exact[64] = '\0';
    ingest_message(&fx.in, exact, 64, 1, INPUT_SOCKET, TEST_NOW, 1.0, 0);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_TOO_LONG], 1);
    fileset_flush(&fx.in.files, 1.0);
    text = read_rel(&fx, "hourly/2026-11-22_05.all.log");
    ck_assert_uint_eq(count_char(text, strlen(text), '\n'), 7);
    free(text);
    fx_free(&fx);
}
END_TEST

START_TEST(sample_pop_keeps_every_nth_line_starting_with_the_first)
{
    struct fx fx;
    fx_init(&fx, "logs:\n"
                 "  - period: sampled\n"
                 "    format: '%Y-%m-%d'\n"
                 "    retain: 5\n"
                 "    sample_pop: 3\n"
                 "  - period: full\n"
                 "    format: '%Y-%m-%d'\n"
                 "    retain: 5\n");
    send_msg(&fx, "f 1\nf 2\nf 3\nf 4\n", 3, TEST_NOW, 1.0);
    send_msg(&fx, "f 5\nf 6\nf 7\n", 3, TEST_NOW, 1.0); /* the count goes on across messages */
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "sampled/2026-11-22.all.log", "f 1\nf 4\nf 7\n");
    assert_rel(&fx, "full/2026-11-22.all.log", "f 1\nf 2\nf 3\nf 4\nf 5\nf 6\nf 7\n");
    ck_assert_uint_eq(fx.st.lines_written[0], 3);
    ck_assert_uint_eq(fx.st.lines_written[1], 7);
    fx_free(&fx);
}
END_TEST

START_TEST(invalid_lines_do_not_advance_sample_pop)
{
    struct fx fx;
    fx_init(&fx, "logs:\n  - {period: s, format: '%Y', retain: 1, sample_pop: 2}\n");
    send_msg(&fx, "f 1\nbad\nf 2\nbad\nf 3\n", 1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "s/2026.all.log", "f 1\nf 3\n");
    fx_free(&fx);
}
END_TEST

START_TEST(lines_go_only_to_groups_in_the_channel_mask)
{
    struct fx fx;
    fx_init(&fx, "redis_channels: [excimer-wall]\n"
                 "logs:\n"
                 "  - {period: cpu, format: '%Y-%m-%d', retain: 5, channels: [excimer]}\n"
                 "  - {period: wall, format: '%Y-%m-%d', retain: 5, channels: [excimer-wall]}\n"
                 "  - {period: both, format: '%Y-%m-%d', retain: 5}\n");
    send_msg(&fx, "cpu;a 1\n", config_groups_for_channel(&fx.cfg, "excimer"), TEST_NOW, 1.0);
    send_msg(&fx, "wall;b 2\n", config_groups_for_channel(&fx.cfg, "excimer-wall"), TEST_NOW,
             1.0);
    send_msg(&fx, "none;c 3\n", 0, TEST_NOW, 1.0); /* a channel no group takes */
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "cpu/2026-11-22.all.log", "cpu;a 1\n");
    assert_rel(&fx, "wall/2026-11-22.all.log", "wall;b 2\n");
    assert_rel(&fx, "both/2026-11-22.all.log", "cpu;a 1\nwall;b 2\n");
    ck_assert_uint_eq(fx.st.lines_received, 3);
    ck_assert_uint_eq(fx.st.lines_written[0], 1);
    ck_assert_uint_eq(fx.st.lines_written[1], 1);
    ck_assert_uint_eq(fx.st.lines_written[2], 2);
    fx_free(&fx);
}
END_TEST

START_TEST(all_tag_is_never_written_twice)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx, "/srv/all.php;main 1\nall.php 2\n", 1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "/srv/all.php;main 1\nall.php 2\n");
    ck_assert_int_eq(count_rel(&fx, "hourly"), 1);
    ck_assert_uint_eq(fx.st.lines_written[0], 2);
    fx_free(&fx);
}
END_TEST

START_TEST(each_group_uses_its_own_format)
{
    struct fx fx;
    fx_init(&fx, "logs:\n"
                 "  - {period: hourly, format: '%Y-%m-%d_%H.excimer', retain: 5}\n"
                 "  - {period: daily, format: '%Y-%m-%d.excimer', retain: 5}\n");
    send_msg(&fx, "/w/index.php;a 1\n", 3, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.excimer.all.log", "/w/index.php;a 1\n");
    assert_rel(&fx, "hourly/2026-11-22_05.excimer.index.log", "/w/index.php;a 1\n");
    assert_rel(&fx, "daily/2026-11-22.excimer.all.log", "/w/index.php;a 1\n");
    assert_rel(&fx, "daily/2026-11-22.excimer.index.log", "/w/index.php;a 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(new_bucket_closes_the_previous_bucket_file)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx, "/w/index.php;a 1\n", 1, TEST_NOW, 1.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", ""); /* still buffered */
    send_msg(&fx, "/w/index.php;b 2\n", 1, TEST_NOW + 3600, 2.0);
    /* the 05 files were closed (and so written) when the 06 files were created */
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "/w/index.php;a 1\n");
    assert_rel(&fx, "hourly/2026-11-22_05.index.log", "/w/index.php;a 1\n");
    ck_assert_uint_eq(fx.in.files.count, 2);
    fileset_flush(&fx.in.files, 2.0);
    assert_rel(&fx, "hourly/2026-11-22_06.all.log", "/w/index.php;b 2\n");
    assert_rel(&fx, "hourly/2026-11-22_06.index.log", "/w/index.php;b 2\n");
    fx_free(&fx);
}
END_TEST

START_TEST(creating_a_file_prunes_the_group_and_tag_to_retain)
{
    struct fx fx;
    fx_init(&fx, "logs:\n  - {period: hourly, format: '%Y-%m-%d_%H', retain: 3}\n");
    char *dir = path_join(fx.base, "hourly");
    make_dirs(&fx, "hourly");
    /* mtimes before the real clock: the file created now must be the newest */
    time_t wall = time(NULL);
    static const char *const old[] = {"2026-11-22_01.all.log", "2026-11-22_02.all.log.gz",
                                      "2026-11-22_03.all.log", "2026-11-22_04.all.log"};
    for (int i = 0; i < 4; i++) {
        char *p = path_join(dir, old[i]);
        file_write(p, "o 1\n", 4);
        file_set_mtime(p, wall - 3600 * (5 - i));
        free(p);
    }
    char *other = path_join(dir, "2026-11-22_01.index.log");
    file_write(other, "o 1\n", 4);
    file_set_mtime(other, 1);

    send_msg(&fx, "main;a 1\n", 1, TEST_NOW, 1.0);
    ck_assert_uint_eq(fx.st.files_pruned, 2);
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_01.all.log"));
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_02.all.log.gz"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_03.all.log"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_04.all.log"));
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_05.all.log"));
    ck_assert(path_exists(other)); /* another tag */

    send_msg(&fx, "main;b 1\n", 1, TEST_NOW, 1.0); /* no new file: no pruning */
    ck_assert_uint_eq(fx.st.files_pruned, 2);
    free(other);
    free(dir);
    fx_free(&fx);
}
END_TEST

START_TEST(start_repairs_torn_trace_logs_of_every_group)
{
    struct fx fx;
    fx_prepare(&fx);
    make_dirs(&fx, "hourly");
    make_dirs(&fx, "daily");
    write_rel(&fx, "hourly/2026-11-22_04.all.log", "a 1\nb 1\ntorn");
    write_rel(&fx, "hourly/2026-11-22_04.index.log", "/w/index.php 1\n/w/ind");
    write_rel(&fx, "daily/2026-11-21.all.log", "c 1\ntorn");
    write_rel(&fx, "daily/2026-11-21_09.all.log", "not daily: left\ntorn");
    fx_start(&fx, "logs:\n"
                  "  - {period: hourly, format: '%Y-%m-%d_%H', retain: 5}\n"
                  "  - {period: daily, format: '%Y-%m-%d', retain: 5}\n");
    /* before any message arrives */
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 3);
    assert_rel(&fx, "hourly/2026-11-22_04.all.log", "a 1\nb 1\n");
    assert_rel(&fx, "hourly/2026-11-22_04.index.log", "/w/index.php 1\n");
    assert_rel(&fx, "daily/2026-11-21.all.log", "c 1\n");
    assert_rel(&fx, "daily/2026-11-21_09.all.log", "not daily: left\ntorn");
    fx_free(&fx);
}
END_TEST

START_TEST(same_bucket_keeps_writing_to_the_same_files)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx, "/w/index.php;a 1\n", 1, TEST_NOW, 1.0);
    ck_assert_uint_eq(fx.in.files.count, 2);
    unsigned long generation = fx.in.files.generation;
    send_msg(&fx, "/w/index.php;b 1\n", 1, TEST_NOW + 1, 2.0);
    send_msg(&fx, "/w/index.php;c 1\n", 1, TEST_NOW + 500, 3.0);
    ck_assert_uint_eq(fx.in.files.count, 2);
    ck_assert_uint_eq(fx.in.files.generation, generation); /* nothing closed */
    fileset_flush(&fx.in.files, 3.0);
    assert_rel(&fx, "hourly/2026-11-22_05.index.log",
               "/w/index.php;a 1\n/w/index.php;b 1\n/w/index.php;c 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(late_line_for_previous_bucket_goes_to_its_file)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx, "a 1\n", 1, TEST_NOW, 1.0);
    send_msg(&fx, "b 1\n", 1, TEST_NOW + 3600, 2.0);
    send_msg(&fx, "c 1\n", 1, TEST_NOW, 3.0); /* a sample from just before the hour */
    send_msg(&fx, "d 1\n", 1, TEST_NOW + 3600, 4.0);
    fileset_close_all(&fx.in.files);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "a 1\nc 1\n");
    assert_rel(&fx, "hourly/2026-11-22_06.all.log", "b 1\nd 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(many_tags_beyond_the_file_cache_are_all_written)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    char line[64];
    for (int round = 0; round < 3; round++) {
        for (int t = 0; t < 40; t++) {
            snprintf(line, sizeof line, "/w/tag%02d.php;f %d\n", t, round + 1);
            send_msg(&fx, line, 1, TEST_NOW, 1.0 + round);
        }
    }
    fileset_flush(&fx.in.files, 5.0);
    for (int t = 0; t < 40; t++) {
        char rel[64], want[128];
        snprintf(rel, sizeof rel, "hourly/2026-11-22_05.tag%02d.log", t);
        snprintf(want, sizeof want, "/w/tag%02d.php;f 1\n/w/tag%02d.php;f 2\n/w/tag%02d.php;f 3\n",
                 t, t, t);
        assert_rel(&fx, rel, want);
    }
    ck_assert_uint_eq(fx.st.lines_written[0], 120);
    ck_assert_int_eq(count_rel(&fx, "hourly"), 41);
    fx_free(&fx);
}
END_TEST

/* With max_open_files at its minimum every few lines evict a file that the
 * per-group cache may point to; every line must still land in its own file
 * (under ASan this also catches a cached pointer used after its close). */
START_TEST(lines_land_in_their_files_while_files_are_evicted)
{
    struct fx fx;
    fx_init(&fx, "max_open_files: 4\n"
                 "logs:\n"
                 "  - {period: hourly, format: '%Y-%m-%d_%H', retain: 100}\n"
                 "  - {period: daily, format: '%Y-%m-%d', retain: 100}\n");
    char line[64];
    for (int round = 0; round < 4; round++) {
        for (int t = 0; t < 7; t++) {
            snprintf(line, sizeof line, "/w/e%d.php;r %d\n", t, round + 1);
            send_msg(&fx, line, 3, TEST_NOW, 1.0 + round);
            ck_assert_uint_le(fx.in.files.count, 4);
        }
    }
    fileset_close_all(&fx.in.files);
    for (int t = 0; t < 7; t++) {
        char rel[64], want[160];
        snprintf(want, sizeof want,
                 "/w/e%d.php;r 1\n/w/e%d.php;r 2\n/w/e%d.php;r 3\n/w/e%d.php;r 4\n", t, t, t, t);
        snprintf(rel, sizeof rel, "hourly/2026-11-22_05.e%d.log", t);
        assert_rel(&fx, rel, want);
        snprintf(rel, sizeof rel, "daily/2026-11-22.e%d.log", t);
        assert_rel(&fx, rel, want);
    }
    ck_assert_uint_eq(fx.st.lines_written[0], 28);
    ck_assert_uint_eq(fx.st.lines_written[1], 28);
    fx_free(&fx);
}
END_TEST

/* Lines served from the per-group file cache still count as uses: with
 * max_open_files: 4 and lines for a, b, a, c, d, opening d closes b (used
 * once, long ago, so its line is written), not the all file every line uses. */
START_TEST(eviction_closes_least_recently_used_file_even_when_cached)
{
    struct fx fx;
    fx_init(&fx, "max_open_files: 4\n" HOURLY_LOGS);
    static const char *const msgs[] = {"/w/a.php;x 1\n", "/w/b.php;x 1\n", "/w/a.php;x 1\n",
                                       "/w/c.php;x 1\n", "/w/d.php;x 1\n"};
    for (size_t i = 0; i < 5; i++)
        send_msg(&fx, msgs[i], 1, TEST_NOW, 1.0 + (double)i);
    ck_assert_uint_eq(fx.in.files.count, 4);
    /* what eviction wrote so far (nothing was flushed) */
    assert_rel(&fx, "hourly/2026-11-22_05.b.log", "/w/b.php;x 1\n");
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "");
    fx_free(&fx);
}
END_TEST


/* Every regular file under `dir`, recursively, must be below `base` and named
 * "<bucket>.<tag>.log" with a tag of [A-Za-z0-9_.-]. */
static void check_tree(const char *dir, const char *base, const char *bucket, int *files)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *path = path_join(dir, de->d_name);
        struct stat st;
        ck_assert_int_eq(lstat(path, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            check_tree(path, base, bucket, files);
        } else {
            ck_assert_msg(S_ISREG(st.st_mode), "%s is not a regular file", path);
            ck_assert_msg(strncmp(path, base, strlen(base)) == 0 && path[strlen(base)] == '/',
                          "%s written outside base_path", path);
            size_t blen = strlen(bucket), nlen = strlen(de->d_name);
            ck_assert_msg(strncmp(de->d_name, bucket, blen) == 0 && de->d_name[blen] == '.' &&
                              nlen > blen + 5 && strcmp(de->d_name + nlen - 4, ".log") == 0,
                          "unexpected name %s", de->d_name);
            (*files)++;
        }
        free(path);
    }
    closedir(d);
}

START_TEST(hostile_entry_points_write_nothing_outside_base_path)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    send_msg(&fx,
             "../../etc/passwd 1\n"
             "../../../../../../../../tmp/evil;x 1\n"
             "/etc/passwd;x 1\n"
             "..php 1\n"
             "...php;x 1\n"
             "../..php;x 1\n"
             "/x/../evil.php 2\n"
             "x/y/../../../../../z.php 1\n"
             "a/b.php/c.php 1\n"
             "/srv/..\\..\\win.php 1\n"
             "/srv/%2e%2e%2fenc.php 1\n"
             "/srv/\xe2\x80\xa8sep.php 1\n"
             "/srv/all.php/../x.php 1\n",
             1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    /* the temporary directory holds only a/b/base/hourly/<files> */
    ck_assert_int_eq(dir_count_entries(fx.tmp), 1);
    char *a = path_join(fx.tmp, "a");
    ck_assert_int_eq(dir_count_entries(a), 1);
    char *b = path_join(a, "b");
    ck_assert_int_eq(dir_count_entries(b), 1);
    ck_assert_int_eq(count_rel(&fx, ""), 1);
    int files = 0;
    check_tree(fx.tmp, fx.base, "2026-11-22_05", &files);
    ck_assert_int_ge(files, 1);
    char *all = read_rel(&fx, "hourly/2026-11-22_05.all.log");
    ck_assert_ptr_nonnull(all);
    ck_assert_uint_eq(count_char(all, strlen(all), '\n'), 13);
    free(all);
    /* the tags that are allowed are plain names in the period directory */
    assert_rel(&fx, "hourly/2026-11-22_05.evil.log", "/x/../evil.php 2\n");
    assert_rel(&fx, "hourly/2026-11-22_05.z.log", "x/y/../../../../../z.php 1\n");
    ck_assert(!path_exists("/tmp/evil;x"));
    free(a);
    free(b);
    fx_free(&fx);
}
END_TEST

START_TEST(refused_message_is_counted_with_its_reason)
{
    struct fx fx;
    fx_init(&fx, HOURLY_LOGS);
    ingest_refuse_message(&fx.in, STACKLINE_TOO_LONG, INPUT_SOCKET, 1.0);
    ck_assert_uint_eq(fx.st.messages_received[INPUT_SOCKET], 1);
    ck_assert_uint_eq(fx.st.lines_received, 1);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_TOO_LONG], 1);
    fx_free(&fx);
}
END_TEST

START_TEST(invalid_line_reports_are_rate_limited)
{
    struct fx fx;
    fx_init(&fx, "invalid_report_interval: 10\n" HOURLY_LOGS);
    send_msg(&fx, "bad\n", 1, TEST_NOW, 100.0); /* first one: reported at once */
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_NO_COUNT], 0);
    ck_assert_str_eq(fx.in.example, "");
    ck_assert_double_eq_tol(fx.in.last_report, 100.0, 1e-9);

    send_msg(&fx, "a\tb 1\nc 0\n", 1, TEST_NOW, 105.0); /* within the interval: held */
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_CONTROL_CHAR], 1);
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_BAD_COUNT], 1);
    ck_assert_str_eq(fx.in.example, "a\\x09b 1"); /* the first held line, quoted */

    ingest_report_invalid(&fx.in, 109.0, 0); /* still too early */
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_CONTROL_CHAR], 1);
    ingest_report_invalid(&fx.in, 110.0, 0);
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_CONTROL_CHAR], 0);
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_BAD_COUNT], 0);
    ck_assert_str_eq(fx.in.example, "");
    ck_assert_double_eq_tol(fx.in.last_report, 110.0, 1e-9);

    send_msg(&fx, "x 01\n", 1, TEST_NOW, 111.0);
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_BAD_COUNT], 1);
    ingest_report_invalid(&fx.in, 111.5, 1); /* forced */
    ck_assert_uint_eq(fx.in.unreported[STACKLINE_BAD_COUNT], 0);
    /* the counters for metrics are not reset by reports */
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_BAD_COUNT], 2);
    fx_free(&fx);
}
END_TEST

START_TEST(example_of_invalid_line_is_quoted_and_truncated)
{
    struct fx fx;
    fx_init(&fx, "invalid_report_interval: 1000\n" HOURLY_LOGS);
    send_msg(&fx, "first bad\n", 1, TEST_NOW, 1.0); /* reported at once */
    char msg[300];
    memset(msg, 'x', 200);
    msg[0] = '\x01';
    memcpy(msg + 200, "\n", 2);
    send_msg(&fx, msg, 1, TEST_NOW, 2.0);
    ck_assert_uint_eq(strlen(fx.in.example), 4 + 59 + 3);
    ck_assert_int_eq(strncmp(fx.in.example, "\\x01xxx", 7), 0);
    ck_assert_str_eq(fx.in.example + 4 + 59, "...");
    fx_free(&fx);
}
END_TEST

/* The period directory is a regular file: no trace log can be opened. */
static void block_period(struct fx *fx, const char *period)
{
    char *a = path_join(fx->tmp, "a");
    char *b = path_join(fx->tmp, "a/b");
    mkdir(a, 0755);
    mkdir(b, 0755);
    mkdir(fx->base, 0755);
    free(a);
    free(b);
    write_rel(fx, period, "not a directory\n");
}

START_TEST(lines_no_file_can_take_are_dropped_and_counted)
{
    struct fx fx;
    fx_prepare(&fx);
    block_period(&fx, "hourly");
    fx_start(&fx, HOURLY_LOGS);
    size_t deferred = ingest_message(&fx.in, "/w/index.php;a 1\nb 1\nbad\n", 25, 1,
                                     INPUT_SOCKET, TEST_NOW, 1.0, 0);
    ck_assert_uint_eq(deferred, 0);
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 2);
    ck_assert_uint_eq(fx.st.lines_deferred, 0);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_NO_COUNT], 1);
    ck_assert_uint_eq(ingest_lines_lost(&fx.in), 2);
    fx_free(&fx);
}
END_TEST

START_TEST(lines_of_a_redeliverable_message_are_deferred_not_lost)
{
    struct fx fx;
    fx_prepare(&fx);
    block_period(&fx, "hourly");
    fx_start(&fx, HOURLY_LOGS);
    size_t deferred = ingest_message(&fx.in, "/w/index.php;a 1\nb 1\nbad\n", 25, 1,
                                     INPUT_REDIS, TEST_NOW, 1.0, 1);
    ck_assert_uint_eq(deferred, 2);
    ck_assert_uint_eq(fx.st.lines_deferred, 2);
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 0);
    ck_assert_uint_eq(ingest_lines_lost(&fx.in), 0);
    ck_assert_uint_eq(fx.st.lines_invalid[STACKLINE_NO_COUNT], 1);
    /* once the directory can be made, the same message goes through */
    char *blocker = path_join(fx.base, "hourly");
    ck_assert_int_eq(unlink(blocker), 0);
    free(blocker);
    deferred = ingest_message(&fx.in, "/w/index.php;a 1\nb 1\n", 22, 1, INPUT_REDIS, TEST_NOW,
                              3.0, 1);
    ck_assert_uint_eq(deferred, 0);
    ck_assert_uint_eq(ingest_flush(&fx.in, 3.0), 0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "/w/index.php;a 1\nb 1\n");
    assert_rel(&fx, "hourly/2026-11-22_05.index.log", "/w/index.php;a 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(a_failed_open_is_not_retried_within_a_second)
{
    struct fx fx;
    fx_prepare(&fx);
    block_period(&fx, "hourly");
    fx_start(&fx, HOURLY_LOGS);
    ingest_message(&fx.in, "a 1\n", 4, 1, INPUT_SOCKET, TEST_NOW, 1.0, 0);
    uint64_t errors = fx.st.write_errors;
    ck_assert_uint_eq(errors, 1);
    for (int i = 0; i < 100; i++)
        ingest_message(&fx.in, "a 1\n", 4, 1, INPUT_SOCKET, TEST_NOW, 1.5, 0);
    ck_assert_uint_eq(fx.st.write_errors, errors); /* no open() tried: nothing new counted */
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 101);
    ingest_message(&fx.in, "a 1\n", 4, 1, INPUT_SOCKET, TEST_NOW, 2.1, 0);
    ck_assert_uint_eq(fx.st.write_errors, errors + 1); /* tried again after a second */
    fx_free(&fx);
}
END_TEST

/* Item 1 of issue 14: one sender made 5,000 entry points, 10,002 files. */
START_TEST(new_tags_beyond_max_tags_per_bucket_go_to_the_all_log_only)
{
    struct fx fx;
    fx_init(&fx, "max_tags_per_bucket: 3\n" HOURLY_LOGS);
    char line[64];
    for (int i = 0; i < 10; i++) {
        snprintf(line, sizeof line, "/x/t%d.php;f 1\n", i);
        send_msg(&fx, line, 1, TEST_NOW, 1.0);
    }
    send_msg(&fx, "/x/t0.php;g 1\n", 1, TEST_NOW, 1.0); /* a tag it has: written */
    fileset_flush(&fx.in.files, 1.0);
    ck_assert_int_eq(count_rel(&fx, "hourly"), 4); /* all + t0..t2 */
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.t3.log"));
    assert_rel(&fx, "hourly/2026-11-22_05.t0.log", "/x/t0.php;f 1\n/x/t0.php;g 1\n");
    ck_assert_uint_eq(fx.st.lines_written[0], 11); /* every line is in the all log */
    ck_assert_uint_eq(fx.st.lines_refused[REFUSED_TAG_LIMIT], 7);
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 0);
    /* the first refusal was logged, the other six wait for the bucket's end */
    ck_assert_uint_eq(fx.in.groups[0].admission.refused[REFUSED_LINES][REFUSED_TAG_LIMIT], 6);

    /* the next bucket takes three tags again; the summary was logged */
    send_msg(&fx, "/x/t9.php;f 1\n", 1, TEST_NOW + 3600, 2.0);
    ck_assert_uint_eq(fx.in.groups[0].admission.refused[REFUSED_LINES][REFUSED_TAG_LIMIT], 0);
    fileset_flush(&fx.in.files, 2.0);
    assert_rel(&fx, "hourly/2026-11-22_06.t9.log", "/x/t9.php;f 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(tag_files_count_once_per_bucket_even_when_closed_and_reopened)
{
    struct fx fx;
    fx_init(&fx, "max_tags_per_bucket: 2\nmax_open_files: 4\n" HOURLY_LOGS);
    /* more tags than open files: t0 and t1 are closed and opened again */
    for (int round = 0; round < 3; round++) {
        send_msg(&fx, "/x/t0.php;f 1\n/x/t1.php;f 1\n/x/t2.php;f 1\n", 1, TEST_NOW, 1.0);
        fileset_close_all(&fx.in.files);
    }
    assert_rel(&fx, "hourly/2026-11-22_05.t1.log", "/x/t1.php;f 1\n/x/t1.php;f 1\n/x/t1.php;f 1\n");
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.t2.log"));
    ck_assert_uint_eq(fx.st.lines_refused[REFUSED_TAG_LIMIT], 3);
    fx_free(&fx);
}
END_TEST

START_TEST(tag_files_beyond_max_files_per_period_are_refused_until_room_returns)
{
    struct fx fx;
    fx_prepare(&fx);
    make_dirs(&fx, "hourly");
    char name[64];
    for (int i = 0; i < 14; i++) {
        snprintf(name, sizeof name, "hourly/other-%d", i);
        write_rel(&fx, name, "x");
    }
    fx_start(&fx, "max_files_per_period: 16\n" HOURLY_LOGS);
    send_msg(&fx, "/x/a.php;f 1\n/x/b.php;f 1\n/x/c.php;f 1\n", 1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    ck_assert_int_eq(count_rel(&fx, "hourly"), 16); /* 14 + all + a */
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_05.b.log"));
    ck_assert_uint_eq(fx.st.lines_refused[REFUSED_FILE_LIMIT], 2);
    ck_assert_uint_eq(fx.st.lines_written[0], 3);

    /* the all file of a new bucket is never refused (retention bounds it) */
    send_msg(&fx, "/x/a.php;f 1\n", 1, TEST_NOW + 3600, 2.0);
    fileset_flush(&fx.in.files, 2.0);
    assert_rel(&fx, "hourly/2026-11-22_06.all.log", "/x/a.php;f 1\n");
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_06.a.log"));

    /* others remove files: counted again at most every 10 s */
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "%s/hourly/other-%d", fx.base, i);
        ck_assert_int_eq(unlink(name), 0);
    }
    send_msg(&fx, "/x/b.php;f 1\n", 1, TEST_NOW + 3600, 5.0);
    ck_assert(!exists_rel(&fx, "hourly/2026-11-22_06.b.log"));
    send_msg(&fx, "/x/b.php;f 1\n", 1, TEST_NOW + 3600, 13.0);
    ck_assert(exists_rel(&fx, "hourly/2026-11-22_06.b.log"));
    fx_free(&fx);
}
END_TEST

START_TEST(below_the_disk_floor_lines_are_refused_counted_and_final)
{
    struct fx fx;
    fx_init(&fx, "min_free_disk_bytes: 1000000000000000000\n" HOURLY_LOGS);
    /* a stream entry: refused by policy, so not deferred (it is acknowledged) */
    ck_assert_uint_eq(ingest_message(&fx.in, "/x/a.php;f 1\nb 1\n", 17, 1, INPUT_REDIS,
                                     TEST_NOW, 1.0, 1), 0);
    ck_assert_uint_eq(fx.st.lines_refused[REFUSED_DISK_FLOOR], 2);
    ck_assert_uint_eq(fx.st.lines_deferred, 0);
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 0);
    ck_assert_int_eq(count_rel(&fx, "hourly"), -1); /* not even the directory */
    ck_assert(strstr(fx.in.groups[0].admission.floor_text, "below the floor") != NULL);

    /* space returns: seen within a second, not at every line */
    fx.cfg.min_free_disk_bytes = 0;
    send_msg(&fx, "c 1\n", 1, TEST_NOW, 1.5);
    ck_assert_uint_eq(fx.st.lines_refused[REFUSED_DISK_FLOOR], 3);
    send_msg(&fx, "d 1\n", 1, TEST_NOW, 2.0);
    fileset_flush(&fx.in.files, 2.0);
    assert_rel(&fx, "hourly/2026-11-22_05.all.log", "d 1\n");
    ck_assert_uint_eq(fx.st.lines_refused[REFUSED_DISK_FLOOR], 3);
    fx_free(&fx);
}
END_TEST

/* Item 5 of issue 14: names that would make another log's or graph's name. */
START_TEST(entry_points_that_could_collide_get_no_tag_file)
{
    struct fx fx;
    fx_init(&fx, "invalid_report_interval: 1000\n" HOURLY_LOGS);
    send_msg(&fx,
             "/w/index.reversed.php;f 1\n"
             "/w/all.fn-EditAction.php;f 1\n"
             "/w/evil.all.php;f 1\n"
             "/w/index.php;f 1\n",
             1, TEST_NOW, 1.0);
    fileset_flush(&fx.in.files, 1.0);
    ck_assert_int_eq(count_rel(&fx, "hourly"), 2); /* all + index */
    assert_rel(&fx, "hourly/2026-11-22_05.all.log",
               "/w/index.reversed.php;f 1\n/w/all.fn-EditAction.php;f 1\n"
               "/w/evil.all.php;f 1\n/w/index.php;f 1\n");
    assert_rel(&fx, "hourly/2026-11-22_05.index.log", "/w/index.php;f 1\n");
    ck_assert_uint_eq(fx.st.tags_refused, 3);
    /* the first was logged at once; the next two wait for the interval */
    ck_assert_uint_eq(fx.in.tags_unreported, 2);
    ck_assert_str_eq(fx.in.tag_example, "/w/all.fn-EditAction.php");
    ingest_report_invalid(&fx.in, 2.0, 1);
    ck_assert_uint_eq(fx.in.tags_unreported, 0);
    fx_free(&fx);
}
END_TEST

Suite *ingest_suite(void)
{
    Suite *s = suite_create("ingest");
    TCase *tc = tcase_create("lines");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, writes_valid_lines_to_all_and_tag_files);
    tcase_add_test(tc, invalid_lines_are_dropped_and_counted_per_reason);
    tcase_add_test(tc, nul_byte_inside_message_is_a_control_char);
    tcase_add_test(tc, trailing_newline_is_accepted);
    tcase_add_test(tc, blank_lines_count_as_empty);
    tcase_add_test(tc, message_longer_than_max_message_bytes_is_refused_whole);
    tcase_add_test(tc, refused_message_is_counted_with_its_reason);
    tcase_add_test(tc, lines_no_file_can_take_are_dropped_and_counted);
    tcase_add_test(tc, lines_of_a_redeliverable_message_are_deferred_not_lost);
    tcase_add_test(tc, a_failed_open_is_not_retried_within_a_second);
    suite_add_tcase(s, tc);

    tc = tcase_create("routing");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, sample_pop_keeps_every_nth_line_starting_with_the_first);
    tcase_add_test(tc, invalid_lines_do_not_advance_sample_pop);
    tcase_add_test(tc, lines_go_only_to_groups_in_the_channel_mask);
    tcase_add_test(tc, all_tag_is_never_written_twice);
    tcase_add_test(tc, each_group_uses_its_own_format);
    tcase_add_test(tc, new_bucket_closes_the_previous_bucket_file);
    tcase_add_test(tc, same_bucket_keeps_writing_to_the_same_files);
    tcase_add_test(tc, late_line_for_previous_bucket_goes_to_its_file);
    tcase_add_test(tc, many_tags_beyond_the_file_cache_are_all_written);
    tcase_add_test(tc, lines_land_in_their_files_while_files_are_evicted);
    tcase_add_test(tc, eviction_closes_least_recently_used_file_even_when_cached);
    tcase_add_test(tc, start_repairs_torn_trace_logs_of_every_group);
    tcase_add_test(tc, creating_a_file_prunes_the_group_and_tag_to_retain);
    tcase_add_test(tc, hostile_entry_points_write_nothing_outside_base_path);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, new_tags_beyond_max_tags_per_bucket_go_to_the_all_log_only);
    tcase_add_test(tc, tag_files_count_once_per_bucket_even_when_closed_and_reopened);
    tcase_add_test(tc, tag_files_beyond_max_files_per_period_are_refused_until_room_returns);
    tcase_add_test(tc, below_the_disk_floor_lines_are_refused_counted_and_final);
    tcase_add_test(tc, entry_points_that_could_collide_get_no_tag_file);
    suite_add_tcase(s, tc);

    tc = tcase_create("reports");
    tcase_add_test(tc, invalid_line_reports_are_rate_limited);
    tcase_add_test(tc, example_of_invalid_line_is_quoted_and_truncated);
    suite_add_tcase(s, tc);

    return s;
}
