/* Tests of tracefile: opening, whole-line buffering, torn tail repair, LRU,
 * idle closing, O_NOFOLLOW and a disk that refuses writes (RLIMIT_FSIZE). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "test-suites.h"
#include "../src/tracefile.h"
#include "strbuf.h"

struct fx {
    char *tmp;
    struct stats st;
    struct fileset fs;
};

static void fx_init(struct fx *fx, size_t max_open, size_t max_buffer)
{
    memset(fx, 0, sizeof *fx);
    fx->tmp = tmpdir_make();
    fileset_init(&fx->fs, &fx->st, max_open, max_buffer);
}

static void fx_free(struct fx *fx)
{
    fileset_free(&fx->fs);
    tmpdir_remove(fx->tmp);
}

/* Opens tmp/<name> (directory tmp) for group/tag. */
static struct tracefile *open_name(struct fx *fx, const char *name, int group, const char *tag,
                                   double now, int *created)
{
    char *path = path_join(fx->tmp, name);
    int c;
    struct tracefile *tf = fileset_open(&fx->fs, fx->tmp, path, group, tag, TRACEFILE_LOG, now,
                                        created ? created : &c);
    free(path);
    return tf;
}

static char *read_name(struct fx *fx, const char *name, size_t *len)
{
    char *path = path_join(fx->tmp, name);
    char *text = file_read(path, len);
    free(path);
    return text;
}

static void write_name(struct fx *fx, const char *name, const char *data, size_t len)
{
    char *path = path_join(fx->tmp, name);
    file_write(path, data, len);
    free(path);
}

static int append(struct fx *fx, struct tracefile *tf, const char *line, double now)
{
    return tracefile_append(&fx->fs, tf, line, strlen(line), now);
}

static void assert_file(struct fx *fx, const char *name, const char *want)
{
    size_t len;
    char *text = read_name(fx, name, &len);
    ck_assert_msg(text != NULL, "%s missing", name);
    ck_assert_str_eq(text, want);
    ck_assert_uint_eq(len, strlen(want));
    free(text);
}

/* True if `text` is empty or only whole lines (ends with a newline). */
static int whole_lines(const char *text, size_t len)
{
    return len == 0 || text[len - 1] == '\n';
}

/* --- open ----------------------------------------------------------------------- */

START_TEST(open_creates_missing_directories_and_reports_created)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    char *dir = path_join(fx.tmp, "a/b/c");
    char *path = path_join(dir, "2026-11-22_05.all.log");
    int created = -1;
    struct tracefile *tf = fileset_open(&fx.fs, dir, path, 0, "all", TRACEFILE_LOG, 1.0, &created);
    ck_assert_ptr_nonnull(tf);
    ck_assert_int_eq(created, 1);
    ck_assert_int_eq(file_size(path), 0);
    ck_assert_str_eq(tf->path, path);
    ck_assert_str_eq(tf->tag, "all");
    ck_assert_uint_eq(fx.fs.count, 1);
    ck_assert_uint_eq(fx.st.open_files, 1);

    /* the same path again: the same open file, not created */
    struct tracefile *again =
        fileset_open(&fx.fs, dir, path, 0, "all", TRACEFILE_LOG, 2.0, &created);
    ck_assert_ptr_eq(again, tf);
    ck_assert_int_eq(created, 0);
    ck_assert_uint_eq(fx.fs.count, 1);

    /* after closing, opening the existing file does not report it created */
    fileset_close_all(&fx.fs);
    ck_assert_uint_eq(fx.fs.count, 0);
    ck_assert_uint_eq(fx.st.open_files, 0);
    tf = fileset_open(&fx.fs, dir, path, 0, "all", TRACEFILE_LOG, 3.0, &created);
    ck_assert_ptr_nonnull(tf);
    ck_assert_int_eq(created, 0);
    free(dir);
    free(path);
    fx_free(&fx);
}
END_TEST

START_TEST(open_fails_when_directory_cannot_be_made)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    write_name(&fx, "file", "x", 1);
    char *dir = path_join(fx.tmp, "file/sub");
    char *path = path_join(dir, "x.all.log");
    int created = -1;
    ck_assert_ptr_null(fileset_open(&fx.fs, dir, path, 0, "all", TRACEFILE_LOG, 1.0, &created));
    ck_assert_int_eq(created, 0);
    ck_assert_uint_eq(fx.st.write_errors, 1);
    ck_assert_uint_eq(fx.fs.count, 0);
    free(dir);
    free(path);
    fx_free(&fx);
}
END_TEST

START_TEST(open_refuses_symlink_at_target_path)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    write_name(&fx, "outside.txt", "secret\n", 7);
    char *link = path_join(fx.tmp, "x.all.log");
    ck_assert_int_eq(symlink("outside.txt", link), 0);
    int created = -1;
    ck_assert_ptr_null(open_name(&fx, "x.all.log", 0, "all", 1.0, &created));
    ck_assert_uint_eq(fx.st.write_errors, 1);
    ck_assert_uint_eq(fx.fs.count, 0);
    fileset_flush(&fx.fs, 2.0);
    assert_file(&fx, "outside.txt", "secret\n"); /* nothing written through it */
    free(link);
    fx_free(&fx);
}
END_TEST

START_TEST(open_refuses_dangling_symlink_and_creates_nothing)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    char *link = path_join(fx.tmp, "x.all.log");
    char *target = path_join(fx.tmp, "created-through-link");
    ck_assert_int_eq(symlink(target, link), 0);
    ck_assert_ptr_null(open_name(&fx, "x.all.log", 0, "all", 1.0, NULL));
    ck_assert(!path_exists(target));
    ck_assert_uint_eq(fx.st.write_errors, 1);
    free(link);
    free(target);
    fx_free(&fx);
}
END_TEST

START_TEST(open_refuses_non_regular_files)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    char *fifo = path_join(fx.tmp, "fifo.all.log");
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    ck_assert_ptr_null(open_name(&fx, "fifo.all.log", 0, "all", 1.0, NULL));
    char *sub = path_join(fx.tmp, "dir.all.log");
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_ptr_null(open_name(&fx, "dir.all.log", 0, "all", 1.0, NULL));
    ck_assert_uint_eq(fx.st.write_errors, 2);
    /* a character device (like /dev/null) opens and seeks fine: only the
     * S_ISREG check refuses it. Needs CAP_MKNOD; skipped without. */
    char *dev = path_join(fx.tmp, "null.all.log");
    if (mknod(dev, S_IFCHR | 0644, makedev(1, 3)) == 0) {
        ck_assert_ptr_null(open_name(&fx, "null.all.log", 0, "all", 1.0, NULL));
        ck_assert_uint_eq(fx.st.write_errors, 3);
    }
    ck_assert_uint_eq(fx.fs.count, 0);
    free(dev);
    free(fifo);
    free(sub);
    fx_free(&fx);
}
END_TEST

/* --- buffering ------------------------------------------------------------------- */

START_TEST(append_is_buffered_until_flush)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 1.0, NULL);
    ck_assert_int_eq(append(&fx, tf, "main;a 1", 1.0), 0);
    ck_assert_int_eq(append(&fx, tf, "main;b 2", 1.0), 0);
    assert_file(&fx, "f.all.log", ""); /* not written yet */
    ck_assert_uint_eq(tf->buf_lines, 2);
    ck_assert_uint_eq(fileset_flush(&fx.fs, 1.5), 0);
    assert_file(&fx, "f.all.log", "main;a 1\nmain;b 2\n");
    ck_assert_uint_eq(tf->buf.len, 0);
    ck_assert_uint_eq(tf->buf_lines, 0);
    ck_assert_int_eq(tf->size, 18);
    ck_assert_uint_eq(fx.st.bytes_written, 18);
    ck_assert_uint_eq(fx.st.lines_written[0], 2);
    ck_assert_uint_eq(fx.st.write_errors, 0);
    fx_free(&fx);
}
END_TEST

START_TEST(flush_of_empty_buffers_writes_nothing)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    open_name(&fx, "f.all.log", 0, "all", 1.0, NULL);
    ck_assert_uint_eq(fileset_flush(&fx.fs, 2.0), 0);
    assert_file(&fx, "f.all.log", "");
    ck_assert_uint_eq(fx.st.bytes_written, 0);
    fx_free(&fx);
}
END_TEST

START_TEST(buffer_is_written_when_it_reaches_flush_bytes)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 1.0, NULL);
    char line[1000];
    memset(line, 'f', sizeof line - 2);
    memcpy(line + sizeof line - 3, " 1", 3); /* 999 bytes + newline = 1000 */
    size_t per = strlen(line) + 1;
    size_t below = (TRACEFILE_FLUSH_BYTES - 1) / per; /* lines that stay below the threshold */
    for (size_t i = 0; i < below; i++)
        ck_assert_int_eq(append(&fx, tf, line, 1.0), 0);
    ck_assert_int_eq(file_size(tf->path), 0);
    ck_assert_uint_eq(tf->buf.len, below * per);

    ck_assert_int_eq(append(&fx, tf, line, 1.0), 0); /* crosses TRACEFILE_FLUSH_BYTES */
    ck_assert_uint_eq(tf->buf.len, 0);
    ck_assert_int_eq(file_size(tf->path), (long)((below + 1) * per));
    size_t len;
    char *text = file_read(tf->path, &len);
    ck_assert(whole_lines(text, len));
    ck_assert_uint_eq(count_char(text, len, '\n'), below + 1);
    free(text);
    fx_free(&fx);
}
END_TEST

START_TEST(lines_written_counts_only_the_all_tag)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *all = open_name(&fx, "b.all.log", 3, "all", 1.0, NULL);
    struct tracefile *tag = open_name(&fx, "b.index.log", 3, "index", 1.0, NULL);
    for (int i = 0; i < 3; i++)
        append(&fx, all, "x 1", 1.0);
    for (int i = 0; i < 2; i++)
        append(&fx, tag, "x 1", 1.0);
    fileset_flush(&fx.fs, 2.0);
    ck_assert_uint_eq(fx.st.lines_written[3], 3);
    ck_assert_uint_eq(fx.st.lines_written[0], 0);
    ck_assert_uint_eq(fx.st.bytes_written, 5 * 4);
    assert_file(&fx, "b.index.log", "x 1\nx 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(free_flushes_buffered_lines)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 1.0, NULL);
    append(&fx, tf, "a 1", 1.0);
    fileset_free(&fx.fs);
    assert_file(&fx, "f.all.log", "a 1\n");
    fileset_init(&fx.fs, &fx.st, 8, 1 << 20); /* for fx_free */
    fx_free(&fx);
}
END_TEST

/* --- torn tails ------------------------------------------------------------------ */

START_TEST(partial_last_line_is_cut_back_on_open)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    write_name(&fx, "f.all.log", "a 1\nb 2\npart", 12);
    int created = -1;
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 1.0, &created);
    ck_assert_ptr_nonnull(tf);
    ck_assert_int_eq(created, 0);
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 1);
    ck_assert_int_eq(tf->size, 8);
    assert_file(&fx, "f.all.log", "a 1\nb 2\n");
    append(&fx, tf, "c 3", 1.0);
    fileset_flush(&fx.fs, 2.0);
    assert_file(&fx, "f.all.log", "a 1\nb 2\nc 3\n");
    fx_free(&fx);
}
END_TEST

START_TEST(intact_file_is_not_touched_on_open)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    write_name(&fx, "f.all.log", "a 1\nb 2\n", 8);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 1.0, NULL);
    ck_assert_int_eq(tf->size, 8);
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 0);
    assert_file(&fx, "f.all.log", "a 1\nb 2\n");
    write_name(&fx, "empty.all.log", "", 0);
    ck_assert_ptr_nonnull(open_name(&fx, "empty.all.log", 0, "all", 1.0, NULL));
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 0);
    fx_free(&fx);
}
END_TEST

START_TEST(file_without_any_newline_is_truncated_to_zero)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    write_name(&fx, "f.all.log", "partial", 7);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 1.0, NULL);
    ck_assert_int_eq(tf->size, 0);
    ck_assert_int_eq(file_size(tf->path), 0);
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 1);

    /* the same, longer than the 4096-byte read chunk */
    char *big = malloc(10000);
    memset(big, 'p', 10000);
    write_name(&fx, "g.all.log", big, 10000);
    tf = open_name(&fx, "g.all.log", 0, "all", 1.0, NULL);
    ck_assert_int_eq(tf->size, 0);
    ck_assert_int_eq(file_size(tf->path), 0);
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 2);
    free(big);
    fx_free(&fx);
}
END_TEST

START_TEST(long_partial_line_is_cut_back_across_read_chunks)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    char *data = malloc(20000);
    memset(data, 'z', 20000);
    data[99] = '\n'; /* last newline far before the end */
    write_name(&fx, "f.all.log", data, 5100);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 1.0, NULL);
    ck_assert_int_eq(tf->size, 100);
    ck_assert_int_eq(file_size(tf->path), 100);

    /* the last newline exactly at the end of the second chunk read backwards */
    size_t size = 8192 + 10;
    memset(data, 'z', size);
    data[size - 4096 - 1] = '\n';
    write_name(&fx, "g.all.log", data, size);
    tf = open_name(&fx, "g.all.log", 0, "all", 1.0, NULL);
    ck_assert_int_eq(tf->size, (off_t)(size - 4096));
    ck_assert_int_eq(file_size(tf->path), (long)(size - 4096));
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 2);
    free(data);
    fx_free(&fx);
}
END_TEST

static void write_in(const char *dir, const char *name, const char *data)
{
    char *path = path_join(dir, name);
    file_write(path, data, strlen(data));
    free(path);
}

static char *read_in(const char *dir, const char *name)
{
    char *path = path_join(dir, name);
    char *text = file_read(path, NULL);
    free(path);
    return text;
}

static void assert_in(const char *dir, const char *name, const char *want)
{
    char *text = read_in(dir, name);
    ck_assert_msg(text != NULL, "%s missing", name);
    ck_assert_str_eq(text, want);
    free(text);
}

START_TEST(recover_dir_cuts_torn_trace_logs_of_the_format)
{
    char *dir = tmpdir_make();
    struct stats st;
    memset(&st, 0, sizeof st);
    write_in(dir, "2026-11-22_05.all.log", "a 1\nb 2\npar");
    write_in(dir, "2026-11-22_05.index.log", "torn without newline");
    write_in(dir, "2026-11-22_04.all.log", "a 1\n");     /* intact */
    write_in(dir, "2026-11-22_04.api.log", "");          /* empty */
    ck_assert_int_eq(tracefile_recover_dir(dir, "%Y-%m-%d_%H", &st), 2);
    ck_assert_uint_eq(st.torn_lines_repaired, 2);
    assert_in(dir, "2026-11-22_05.all.log", "a 1\nb 2\n");
    assert_in(dir, "2026-11-22_05.index.log", "");
    assert_in(dir, "2026-11-22_04.all.log", "a 1\n");
    ck_assert_int_eq(tracefile_recover_dir(dir, "%Y-%m-%d_%H", &st), 0); /* all whole now */
    tmpdir_remove(dir);
}
END_TEST

START_TEST(recover_dir_leaves_other_files_alone)
{
    char *dir = tmpdir_make();
    struct stats st;
    memset(&st, 0, sizeof st);
    static const char *const others[] = {
        "2026-11-22_03.all.log.gz", /* compressed: never written to */
        "2026-11-22.all.log",       /* another format (daily) */
        "2026-11-22_03.excimer-wall.log.tmp",
        "notes.txt",
        "2026-11-22_03..log",       /* no tag */
        "x2026-11-22_03.all.log",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        write_in(dir, others[i], "torn");
    write_in(dir, "target", "torn target");
    char *link = path_join(dir, "2026-11-22_02.all.log");
    ck_assert_int_eq(symlink("target", link), 0);
    char *fifo = path_join(dir, "2026-11-22_01.all.log");
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);

    ck_assert_int_eq(tracefile_recover_dir(dir, "%Y-%m-%d_%H", &st), 0);
    ck_assert_uint_eq(st.torn_lines_repaired, 0);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        assert_in(dir, others[i], "torn");
    assert_in(dir, "target", "torn target"); /* not through the symlink */
    free(link);
    free(fifo);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(recover_dir_of_missing_or_unreadable_directory)
{
    char *dir = tmpdir_make();
    struct stats st;
    memset(&st, 0, sizeof st);
    char *missing = path_join(dir, "nope");
    ck_assert_int_eq(tracefile_recover_dir(missing, "%Y", &st), 0); /* nothing written yet */
    write_in(dir, "file", "x");
    char *notdir = path_join(dir, "file");
    ck_assert_int_eq(tracefile_recover_dir(notdir, "%Y", &st), -1);
    free(missing);
    free(notdir);
    tmpdir_remove(dir);
}
END_TEST

/* --- run logs ---------------------------------------------------------------------- */

#define RUN_A                                                                                \
    "xhprof/1 a begin 1 h wt /srv/index.php\n"                                               \
    "xhprof/1 a arc 1 5 - - - main()\n"                                                      \
    "xhprof/1 a end 1 0\n"
#define RUN_B_START                                                                          \
    "xhprof/1 b begin 1 h wt /srv/index.php\n"                                               \
    "xhprof/1 b arc 1 5 - - - main()\n"

static struct tracefile *open_runs(struct fx *fx, const char *name, double now)
{
    char *path = path_join(fx->tmp, name);
    int created;
    struct tracefile *tf =
        fileset_open(&fx->fs, fx->tmp, path, 0, "all", TRACEFILE_RUNS, now, &created);
    free(path);
    return tf;
}

START_TEST(run_log_is_cut_back_to_its_last_complete_run)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    write_name(&fx, "f.all.runs", RUN_A RUN_B_START, strlen(RUN_A RUN_B_START));
    struct tracefile *tf = open_runs(&fx, "f.all.runs", 1.0);
    ck_assert_ptr_nonnull(tf);
    ck_assert_int_eq(tf->size, (off_t)strlen(RUN_A));
    assert_file(&fx, "f.all.runs", RUN_A);
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 1);

    /* a torn line too: both cuts */
    write_name(&fx, "g.all.runs", RUN_A RUN_B_START "xhprof/1 b ar", strlen(RUN_A RUN_B_START) + 13);
    ck_assert_ptr_nonnull(open_runs(&fx, "g.all.runs", 1.0));
    assert_file(&fx, "g.all.runs", RUN_A);
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 3);

    /* the same bytes in a trace log: only the torn line goes */
    write_name(&fx, "h.all.log", RUN_A RUN_B_START "xhprof/1 b ar", strlen(RUN_A RUN_B_START) + 13);
    ck_assert_ptr_nonnull(open_name(&fx, "h.all.log", 0, "all", 1.0, NULL));
    assert_file(&fx, "h.all.log", RUN_A RUN_B_START);

    /* no complete run at all: emptied */
    write_name(&fx, "i.all.runs", RUN_B_START, strlen(RUN_B_START));
    tf = open_runs(&fx, "i.all.runs", 1.0);
    ck_assert_int_eq(tf->size, 0);
    assert_file(&fx, "i.all.runs", "");
    fx_free(&fx);
}
END_TEST

START_TEST(run_log_ending_with_a_run_is_not_touched)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    write_name(&fx, "f.all.runs", RUN_A RUN_A, 2 * strlen(RUN_A));
    struct tracefile *tf = open_runs(&fx, "f.all.runs", 1.0);
    ck_assert_int_eq(tf->size, (off_t)(2 * strlen(RUN_A)));
    write_name(&fx, "g.all.runs", "", 0);
    ck_assert_ptr_nonnull(open_runs(&fx, "g.all.runs", 1.0));
    ck_assert_uint_eq(fx.st.torn_lines_repaired, 0);
    fx_free(&fx);
}
END_TEST

START_TEST(torn_run_with_long_lines_is_cut_back_across_read_chunks)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    strbuf data = STRBUF_INIT;
    strbuf_appends(&data, RUN_A);
    size_t keep = data.len;
    strbuf_appends(&data, "xhprof/1 b begin 1 h wt /srv/index.php\n");
    for (int i = 0; i < 3; i++) { /* arc lines longer than a read chunk, and than an end line */
        strbuf_appends(&data, "xhprof/1 b arc 1 5 - - - ");
        for (int k = 0; k < 5000 + 117 * i; k++)
            strbuf_appendc(&data, (char)('a' + k % 26));
        strbuf_appendc(&data, '\n');
    }
    strbuf_appends(&data, "xhprof/1 b arc 1 5 - - - end 1 0\n"); /* looks like "end" only late */
    write_name(&fx, "f.all.runs", data.data, data.len);
    struct tracefile *tf = open_runs(&fx, "f.all.runs", 1.0);
    ck_assert_int_eq(tf->size, (off_t)keep);
    assert_file(&fx, "f.all.runs", RUN_A);

    /* the first line alone, long: nothing complete */
    strbuf_reset(&data);
    for (int k = 0; k < 9000; k++)
        strbuf_appendc(&data, 'x');
    strbuf_appendc(&data, '\n');
    write_name(&fx, "g.all.runs", data.data, data.len);
    ck_assert_int_eq(open_runs(&fx, "g.all.runs", 1.0)->size, 0);
    strbuf_free(&data);
    fx_free(&fx);
}
END_TEST

START_TEST(recover_dir_cuts_torn_run_logs_too)
{
    char *dir = tmpdir_make();
    struct stats st;
    memset(&st, 0, sizeof st);
    write_in(dir, "2026-11-22_05.all.runs", RUN_A RUN_B_START);
    write_in(dir, "2026-11-22_05.index.runs", RUN_A);            /* intact */
    write_in(dir, "2026-11-22_04.all.runs.gz", RUN_B_START);     /* compressed: never written */
    write_in(dir, "2026-11-22_04.all.log", RUN_A RUN_B_START);   /* a trace log: lines are whole */
    ck_assert_int_eq(tracefile_recover_dir(dir, "%Y-%m-%d_%H", &st), 1);
    assert_in(dir, "2026-11-22_05.all.runs", RUN_A);
    assert_in(dir, "2026-11-22_05.index.runs", RUN_A);
    assert_in(dir, "2026-11-22_04.all.runs.gz", RUN_B_START);
    assert_in(dir, "2026-11-22_04.all.log", RUN_A RUN_B_START);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(close_siblings_keeps_the_other_kind)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *log = open_name(&fx, "h05.all.log", 0, "all", 1.0, NULL);
    struct tracefile *runs = open_runs(&fx, "h05.all.runs", 1.0);
    fileset_close_siblings(&fx.fs, runs);
    ck_assert_uint_eq(fx.fs.count, 2);
    fileset_close_siblings(&fx.fs, log);
    ck_assert_uint_eq(fx.fs.count, 2);
    fx_free(&fx);
}
END_TEST

/* --- LRU, idle, siblings ------------------------------------------------------------- */

START_TEST(lru_eviction_closes_least_recently_used_and_writes_it)
{
    struct fx fx;
    fx_init(&fx, 2, 1 << 20);
    struct tracefile *a = open_name(&fx, "a.all.log", 0, "all", 1.0, NULL);
    struct tracefile *b = open_name(&fx, "b.all.log", 0, "all", 2.0, NULL);
    append(&fx, a, "a 1", 1.0);
    append(&fx, b, "b 1", 2.0);
    ck_assert_ptr_eq(open_name(&fx, "a.all.log", 0, "all", 3.0, NULL), a); /* a is used again */

    struct tracefile *c = open_name(&fx, "c.all.log", 0, "all", 4.0, NULL);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(fx.fs.count, 2);
    ck_assert_uint_eq(fx.st.open_files, 2);
    ck_assert_ptr_eq(fx.fs.lru.head, &c->lru);
    ck_assert_ptr_eq(fx.fs.lru.tail, &a->lru);
    assert_file(&fx, "b.all.log", "b 1\n"); /* b was closed and its buffer written */
    assert_file(&fx, "a.all.log", "");      /* a is still open and buffered */

    open_name(&fx, "b.all.log", 0, "all", 5.0, NULL); /* now a is the oldest */
    ck_assert_uint_eq(fx.fs.count, 2);
    assert_file(&fx, "a.all.log", "a 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(many_files_beyond_max_open_keep_count_bounded)
{
    struct fx fx;
    fx_init(&fx, 4, 1 << 20);
    char name[32];
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "f%02d.all.log", i);
        struct tracefile *tf = open_name(&fx, name, 0, "all", (double)i, NULL);
        ck_assert_ptr_nonnull(tf);
        append(&fx, tf, name, (double)i);
        ck_assert_uint_le(fx.fs.count, 4);
    }
    fileset_close_all(&fx.fs);
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "f%02d.all.log", i);
        char want[40];
        snprintf(want, sizeof want, "%s\n", name);
        assert_file(&fx, name, want);
    }
    ck_assert_uint_eq(fx.st.lines_written[0], 50);
    fx_free(&fx);
}
END_TEST

START_TEST(close_idle_closes_only_files_idle_long_enough)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *a = open_name(&fx, "a.all.log", 0, "all", 0.0, NULL);
    struct tracefile *b = open_name(&fx, "b.all.log", 0, "all", 0.0, NULL);
    append(&fx, a, "a 1", 0.0);
    append(&fx, b, "b 1", 50.0);
    fileset_close_idle(&fx.fs, 60.0, 30.0);
    ck_assert_uint_eq(fx.fs.count, 1);
    ck_assert_ptr_eq(fx.fs.lru.head, &b->lru);
    assert_file(&fx, "a.all.log", "a 1\n");
    assert_file(&fx, "b.all.log", "");
    fileset_close_idle(&fx.fs, 79.0, 30.0);
    ck_assert_uint_eq(fx.fs.count, 1);
    fileset_close_idle(&fx.fs, 80.0, 30.0);
    ck_assert_uint_eq(fx.fs.count, 0);
    ck_assert_uint_eq(fx.st.open_files, 0);
    assert_file(&fx, "b.all.log", "b 1\n");
    fx_free(&fx);
}
END_TEST

START_TEST(close_idle_closes_file_unlinked_behind_our_back)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *a = open_name(&fx, "a.all.log", 0, "all", 0.0, NULL);
    append(&fx, a, "a 1", 10.0);
    char *path = path_join(fx.tmp, "a.all.log");
    ck_assert_int_eq(unlink(path), 0);
    fileset_close_idle(&fx.fs, 11.0, 60.0);
    ck_assert_uint_eq(fx.fs.count, 0);

    /* the next open makes a new file */
    int created = -1;
    a = open_name(&fx, "a.all.log", 0, "all", 12.0, &created);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(created, 1);
    free(path);
    fx_free(&fx);
}
END_TEST

START_TEST(close_idle_closes_file_renamed_away_behind_our_back)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *a = open_name(&fx, "a.all.log", 0, "all", 0.0, NULL);
    append(&fx, a, "a 1", 10.0);
    char *path = path_join(fx.tmp, "a.all.log");
    char *away = path_join(fx.tmp, "a.all.log.1");
    ck_assert_int_eq(rename(path, away), 0); /* e.g. a rotation or compress job */
    struct tracefile *b = open_name(&fx, "b.all.log", 0, "all", 10.0, NULL);
    fileset_close_idle(&fx.fs, 11.0, 60.0);
    ck_assert_uint_eq(fx.fs.count, 1);
    ck_assert_ptr_eq(fx.fs.lru.head, &b->lru);
    assert_file(&fx, "a.all.log.1", "a 1\n"); /* flushed into the renamed file */
    free(path);
    free(away);
    fx_free(&fx);
}
END_TEST

START_TEST(close_idle_closes_file_replaced_behind_our_back)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *a = open_name(&fx, "a.all.log", 0, "all", 0.0, NULL);
    append(&fx, a, "a 1", 10.0);
    char *path = path_join(fx.tmp, "a.all.log");
    char *away = path_join(fx.tmp, "a.all.log.1");
    char *from = path_join(fx.tmp, "new");
    ck_assert_int_eq(rename(path, away), 0);
    write_name(&fx, "new", "other\n", 6);
    ck_assert_int_eq(rename(from, path), 0); /* another file now has our name */
    struct tracefile *b = open_name(&fx, "b.all.log", 0, "all", 10.0, NULL);
    fileset_close_idle(&fx.fs, 11.0, 60.0);
    ck_assert_uint_eq(fx.fs.count, 1);
    ck_assert_ptr_eq(fx.fs.lru.head, &b->lru);
    assert_file(&fx, "a.all.log", "other\n"); /* the replacement is not written to */
    assert_file(&fx, "a.all.log.1", "a 1\n");
    free(path);
    free(away);
    free(from);
    fx_free(&fx);
}
END_TEST

START_TEST(generation_changes_whenever_a_file_closes)
{
    struct fx fx;
    fx_init(&fx, 2, 1 << 20);
    unsigned long g0 = fx.fs.generation;
    open_name(&fx, "a.all.log", 0, "all", 0.0, NULL);
    open_name(&fx, "b.all.log", 0, "all", 0.0, NULL);
    open_name(&fx, "a.all.log", 0, "all", 0.0, NULL); /* already open */
    fileset_flush(&fx.fs, 1.0);
    ck_assert_uint_eq(fx.fs.generation, g0); /* opening and flushing close nothing */
    open_name(&fx, "c.all.log", 0, "all", 0.0, NULL); /* evicts b */
    unsigned long g1 = fx.fs.generation;
    ck_assert_uint_ne(g1, g0);
    fileset_close_idle(&fx.fs, 100.0, 10.0);
    ck_assert_uint_ne(fx.fs.generation, g1);
    fx_free(&fx);
}
END_TEST

START_TEST(close_siblings_closes_other_buckets_of_same_group_and_tag)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *old_all = open_name(&fx, "h04.all.log", 0, "all", 1.0, NULL);
    struct tracefile *old_idx = open_name(&fx, "h04.index.log", 0, "index", 1.0, NULL);
    struct tracefile *other_group = open_name(&fx, "g1-h04.all.log", 1, "all", 1.0, NULL);
    append(&fx, old_all, "a 1", 1.0);
    append(&fx, old_idx, "i 1", 1.0);
    append(&fx, other_group, "g 1", 1.0);
    struct tracefile *new_all = open_name(&fx, "h05.all.log", 0, "all", 2.0, NULL);
    ck_assert_uint_eq(fx.fs.count, 4);

    fileset_close_siblings(&fx.fs, new_all);
    ck_assert_uint_eq(fx.fs.count, 3);
    assert_file(&fx, "h04.all.log", "a 1\n"); /* closed, so written */
    assert_file(&fx, "h04.index.log", "");    /* other tag: still open */
    assert_file(&fx, "g1-h04.all.log", "");   /* other group: still open */
    int found = 0;
    for (struct dlist_node *n = fx.fs.lru.head; n; n = n->next) {
        struct tracefile *t = DLIST_ENTRY(n, struct tracefile, lru);
        found += t == new_all || t == old_idx || t == other_group;
    }
    ck_assert_int_eq(found, 3);
    fx_free(&fx);
}
END_TEST

/* --- a disk that refuses writes ----------------------------------------------------- */

/* RLIMIT_FSIZE makes writes past `limit` bytes fail or come up short, like a
 * full disk. While it is low, Check's own message file may not grow either,
 * so the tests only record results and assert after restoring the limit. */
struct fsize_limit {
    struct rlimit old;
    void (*old_handler)(int);
};

static void limit_file_size(struct fsize_limit *l, rlim_t limit)
{
    l->old_handler = signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &l->old), 0);
    struct rlimit r = l->old;
    r.rlim_cur = limit;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &r), 0);
}

static void unlimit_file_size(struct fsize_limit *l)
{
    setrlimit(RLIMIT_FSIZE, &l->old);
    signal(SIGXFSZ, l->old_handler);
}

static const char line30[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaa 1"; /* 29 bytes + newline */

START_TEST(short_write_is_cut_back_to_whole_lines_and_retried)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 0.0, NULL);
    append(&fx, tf, line30, 0.0);
    append(&fx, tf, line30, 0.0);
    fileset_flush(&fx.fs, 0.0);
    ck_assert_int_eq(file_size(tf->path), 60);

    struct fsize_limit lim;
    limit_file_size(&lim, 100); /* room for 40 more bytes: one line and a piece */
    for (int i = 0; i < 3; i++)
        tracefile_append(&fx.fs, tf, line30, sizeof line30 - 1, 10.0);
    size_t pending1 = fileset_flush(&fx.fs, 10.0);
    long size1 = file_size(tf->path);
    uint64_t errors1 = fx.st.write_errors;
    int failing1 = tf->failing;
    size_t pending2 = fileset_flush(&fx.fs, 10.5); /* before the retry time */
    uint64_t errors2 = fx.st.write_errors;
    unlimit_file_size(&lim);

    ck_assert_uint_eq(pending1, 90);
    ck_assert_int_eq(size1, 60); /* the 40 bytes written were cut off again */
    ck_assert_uint_eq(errors1, 1);
    ck_assert_int_eq(failing1, 1);
    ck_assert_uint_eq(pending2, 90);
    ck_assert_uint_eq(errors2, 1); /* no attempt before the retry time */
    size_t len;
    char *text = file_read(tf->path, &len);
    ck_assert_uint_eq(len, 60);
    ck_assert(whole_lines(text, len));
    free(text);

    ck_assert_uint_eq(fileset_flush(&fx.fs, 11.0), 0); /* the disk has room again */
    text = file_read(tf->path, &len);
    ck_assert_uint_eq(len, 150);
    ck_assert_uint_eq(count_char(text, len, '\n'), 5);
    ck_assert(whole_lines(text, len));
    free(text);
    ck_assert_int_eq(tf->failing, 0);
    ck_assert_uint_eq(fx.st.write_errors, 1);
    ck_assert_uint_eq(fx.st.lines_written[0], 5);
    ck_assert_uint_eq(fx.st.bytes_written, 150);
    fx_free(&fx);
}
END_TEST

START_TEST(automatic_write_cut_short_keeps_whole_lines)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 0.0, NULL);
    append(&fx, tf, line30, 0.0);
    append(&fx, tf, line30, 0.0);
    fileset_flush(&fx.fs, 0.0);

    char line[1000];
    memset(line, 'q', sizeof line);
    memcpy(line + 996, " 7", 3); /* 998 bytes + newline */
    size_t per = strlen(line) + 1;
    int refused = 0;
    struct fsize_limit lim;
    limit_file_size(&lim, 60 + 30000);
    size_t n = TRACEFILE_FLUSH_BYTES / per + 1 + 10; /* crosses the threshold, then 10 more */
    for (size_t i = 0; i < n; i++)
        refused += tracefile_append(&fx.fs, tf, line, strlen(line), 5.0) != 0;
    long size1 = file_size(tf->path);
    uint64_t errors1 = fx.st.write_errors;
    size_t buffered1 = tf->buf.len;
    unlimit_file_size(&lim);

    ck_assert_int_eq(refused, 0);
    ck_assert_int_eq(size1, 60);
    ck_assert_uint_eq(errors1, 1);
    ck_assert_uint_eq(buffered1, n * per); /* every line kept for the retry */

    ck_assert_uint_eq(fileset_flush(&fx.fs, 7.0), 0);
    size_t len;
    char *text = file_read(tf->path, &len);
    ck_assert_uint_eq(len, 60 + n * per);
    ck_assert_uint_eq(count_char(text, len, '\n'), 2 + n);
    ck_assert(whole_lines(text, len));
    free(text);
    fx_free(&fx);
}
END_TEST

START_TEST(lines_beyond_max_buffer_are_refused_while_disk_refuses)
{
    struct fx fx;
    fx_init(&fx, 8, 65536);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 0.0, NULL);
    append(&fx, tf, line30, 0.0);
    fileset_flush(&fx.fs, 0.0);

    char line[1000];
    memset(line, 'd', sizeof line);
    memcpy(line + 996, " 1", 3);
    size_t per = strlen(line) + 1;
    size_t fit = 65536 / per;
    int results[80];
    struct fsize_limit lim;
    limit_file_size(&lim, 30); /* the file is full: every write fails */
    for (size_t i = 0; i < fit + 3; i++)
        results[i] = tracefile_append(&fx.fs, tf, line, strlen(line), 1.0);
    long size1 = file_size(tf->path);
    uint64_t dropped1 = fx.st.lines_dropped_write_error;
    uint64_t errors1 = fx.st.write_errors;
    unlimit_file_size(&lim);

    for (size_t i = 0; i < fit; i++)
        ck_assert_msg(results[i] == 0, "line %zu refused", i);
    for (size_t i = fit; i < fit + 3; i++)
        ck_assert_msg(results[i] == -1, "line %zu not refused", i);
    ck_assert_int_eq(size1, 30);
    ck_assert_uint_eq(dropped1, 0); /* refused, not lost: the caller decides (ingest) */
    ck_assert_uint_ge(errors1, 1);
    ck_assert_uint_le(tf->buf.len, 65536);

    ck_assert_uint_eq(fileset_flush(&fx.fs, 5.0), 0);
    size_t len;
    char *text = file_read(tf->path, &len);
    ck_assert_uint_eq(len, 30 + fit * per);
    ck_assert_uint_eq(count_char(text, len, '\n'), 1 + fit);
    ck_assert(whole_lines(text, len));
    free(text);
    fx_free(&fx);
}
END_TEST

START_TEST(close_while_disk_refuses_counts_lines_dropped)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *tf = open_name(&fx, "f.all.log", 0, "all", 0.0, NULL);
    append(&fx, tf, line30, 0.0);
    fileset_flush(&fx.fs, 0.0);
    for (int i = 0; i < 3; i++)
        append(&fx, tf, line30, 1.0);

    struct fsize_limit lim;
    limit_file_size(&lim, 30);
    fileset_close_all(&fx.fs);
    unlimit_file_size(&lim);

    ck_assert_uint_eq(fx.fs.count, 0);
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 3);
    ck_assert_uint_eq(fx.st.write_errors, 1);
    ck_assert_uint_eq(fx.st.lines_written[0], 1);
    char *path = path_join(fx.tmp, "f.all.log");
    ck_assert_int_eq(file_size(path), 30);
    free(path);
    fx_free(&fx);
}
END_TEST

START_TEST(run_records_count_as_runs_not_lines)
{
    struct fx fx;
    fx_init(&fx, 8, 1 << 20);
    struct tracefile *tf = open_runs(&fx, "f.all.runs", 1.0);
    ck_assert_int_eq(tracefile_append_record(&fx.fs, tf, RUN_A, strlen(RUN_A), 1.0), 0);
    ck_assert_int_eq(tracefile_append_record(&fx.fs, tf, RUN_A, strlen(RUN_A), 1.0), 0);
    fileset_flush(&fx.fs, 2.0);
    assert_file(&fx, "f.all.runs", RUN_A RUN_A);
    ck_assert_uint_eq(fx.st.runs_written[0], 2);
    ck_assert_uint_eq(fx.st.lines_written[0], 0);

    ck_assert_int_eq(tracefile_append_record(&fx.fs, tf, RUN_A, strlen(RUN_A), 3.0), 0);
    struct fsize_limit lim;
    limit_file_size(&lim, 10);
    fileset_close_all(&fx.fs);
    unlimit_file_size(&lim);
    ck_assert_uint_eq(fx.st.runs_dropped[RUN_DROP_WRITE_ERROR], 1);
    ck_assert_uint_eq(fx.st.lines_dropped_write_error, 0);
    assert_file(&fx, "f.all.runs", RUN_A RUN_A); /* whole runs only */
    fx_free(&fx);
}
END_TEST

Suite *tracefile_suite(void)
{
    Suite *s = suite_create("tracefile");
    TCase *tc = tcase_create("open");
    tcase_add_test(tc, open_creates_missing_directories_and_reports_created);
    tcase_add_test(tc, open_fails_when_directory_cannot_be_made);
    tcase_add_test(tc, open_refuses_symlink_at_target_path);
    tcase_add_test(tc, open_refuses_dangling_symlink_and_creates_nothing);
    tcase_add_test(tc, open_refuses_non_regular_files);
    suite_add_tcase(s, tc);

    tc = tcase_create("buffer");
    tcase_add_test(tc, append_is_buffered_until_flush);
    tcase_add_test(tc, flush_of_empty_buffers_writes_nothing);
    tcase_add_test(tc, buffer_is_written_when_it_reaches_flush_bytes);
    tcase_add_test(tc, lines_written_counts_only_the_all_tag);
    tcase_add_test(tc, free_flushes_buffered_lines);
    suite_add_tcase(s, tc);

    tc = tcase_create("torn_tail");
    tcase_add_test(tc, partial_last_line_is_cut_back_on_open);
    tcase_add_test(tc, intact_file_is_not_touched_on_open);
    tcase_add_test(tc, file_without_any_newline_is_truncated_to_zero);
    tcase_add_test(tc, long_partial_line_is_cut_back_across_read_chunks);
    tcase_add_test(tc, recover_dir_cuts_torn_trace_logs_of_the_format);
    tcase_add_test(tc, recover_dir_leaves_other_files_alone);
    tcase_add_test(tc, recover_dir_of_missing_or_unreadable_directory);
    suite_add_tcase(s, tc);

    tc = tcase_create("run_logs");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, run_log_is_cut_back_to_its_last_complete_run);
    tcase_add_test(tc, run_log_ending_with_a_run_is_not_touched);
    tcase_add_test(tc, torn_run_with_long_lines_is_cut_back_across_read_chunks);
    tcase_add_test(tc, recover_dir_cuts_torn_run_logs_too);
    tcase_add_test(tc, run_records_count_as_runs_not_lines);
    tcase_add_test(tc, close_siblings_keeps_the_other_kind);
    suite_add_tcase(s, tc);

    tc = tcase_create("closing");
    tcase_add_test(tc, lru_eviction_closes_least_recently_used_and_writes_it);
    tcase_add_test(tc, many_files_beyond_max_open_keep_count_bounded);
    tcase_add_test(tc, close_idle_closes_only_files_idle_long_enough);
    tcase_add_test(tc, close_idle_closes_file_unlinked_behind_our_back);
    tcase_add_test(tc, close_idle_closes_file_renamed_away_behind_our_back);
    tcase_add_test(tc, close_idle_closes_file_replaced_behind_our_back);
    tcase_add_test(tc, generation_changes_whenever_a_file_closes);
    tcase_add_test(tc, close_siblings_closes_other_buckets_of_same_group_and_tag);
    suite_add_tcase(s, tc);

    tc = tcase_create("disk_full");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, short_write_is_cut_back_to_whole_lines_and_retried);
    tcase_add_test(tc, automatic_write_cut_short_keeps_whole_lines);
    tcase_add_test(tc, lines_beyond_max_buffer_are_refused_while_disk_refuses);
    tcase_add_test(tc, close_while_disk_refuses_counts_lines_dropped);
    suite_add_tcase(s, tc);
    return s;
}
