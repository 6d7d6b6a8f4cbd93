/* tracefile: open trace log and run log files, whole-record buffering,
 * repair of torn lines and runs, and recovery from refused writes. See
 * tracefile.h. */
#include "tracefile.h"
#include "bucket.h"
#include "keyedhash.h"
#include "layout.h"
#include "log.h"
#include "runline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a file whose write or open failed waits before the next attempt. */
#define RETRY_DELAY 1.0
/* At most one log entry about failed opens per this many seconds. */
#define OPEN_REPORT_INTERVAL 10.0
/* The longest end line of a run: "xhprof/1 " (or 2), a run id, " end " and two
 * numbers of at most 19 digits and a space. */
#define RUN_END_LINE_MAX (RUNLINE_PREFIX_LEN + RUNLINE_RUNID_MAX + 5 + 19 + 1 + 19)

/* A path holds the sender's tag: the hash is keyed (keyedhash.h). */
static size_t hash_path(const char *s)
{
    return (size_t)keyedhash_str(s);
}

void fileset_init(struct fileset *fs, struct stats *stats, size_t max_open, size_t max_buffer)
{
    memset(fs, 0, sizeof *fs);
    fs->table_size = 64;
    while (fs->table_size < max_open * 2)
        fs->table_size *= 2;
    fs->table = xcalloc(fs->table_size, sizeof *fs->table);
    fs->max_open = max_open;
    fs->max_buffer = max_buffer;
    fs->stats = stats;
}

/* The file of an LRU list node, NULL for none. */
static struct tracefile *tf_of(struct dlist_node *n)
{
    return n ? DLIST_ENTRY(n, struct tracefile, lru) : NULL;
}

static struct tracefile *lookup(struct fileset *fs, const char *path)
{
    struct tracefile *tf = fs->table[hash_path(path) & (fs->table_size - 1)];
    while (tf && strcmp(tf->path, path) != 0)
        tf = tf->hnext;
    return tf;
}

/* Writes the whole buffer or nothing: a short write is cut back off the file. */
static int write_buffer(struct fileset *fs, struct tracefile *tf, double now)
{
    if (tf->buf.len == 0)
        return 0;
    ssize_t n;
    do {
        n = write(tf->fd, tf->buf.data, tf->buf.len);
    } while (n < 0 && errno == EINTR);
    if (n == (ssize_t)tf->buf.len) {
        tf->size += n;
        fs->stats->bytes_written += (uint64_t)n;
        if (tf->kind == TRACEFILE_RUNS) /* a run is in one run log of its group */
            fs->stats->runs_written[tf->group] += tf->buf_lines;
        else if (strcmp(tf->tag, LAYOUT_TAG_ALL) == 0)
            fs->stats->lines_written[tf->group] += tf->buf_lines;
        strbuf_reset(&tf->buf);
        tf->buf_lines = 0;
        if (tf->failing)
            log_event(LOG_NOTICE, "write_resumed", LOG_FIELDS({"ARCLAMP_FILE", tf->path}),
                      "writing %s again", tf->path);
        tf->failing = 0;
        return 0;
    }
    int err = n < 0 ? errno : ENOSPC;
    if (n > 0 && ftruncate(tf->fd, tf->size) < 0)
        err = errno;
    fs->stats->write_errors++;
    tf->retry_at = now + RETRY_DELAY;
    if (!tf->failing)
        log_event(LOG_ERR, "write_failed", LOG_FIELDS({"ARCLAMP_FILE", tf->path}),
                  "cannot write %s: %s; keeping up to %zu bytes and retrying", tf->path,
                  strerror(err), fs->max_buffer);
    tf->failing = 1;
    return -1;
}

static void close_file(struct fileset *fs, struct tracefile *tf)
{
    write_buffer(fs, tf, 0);
    if (tf->buf_lines) {
        int runs = tf->kind == TRACEFILE_RUNS;
        if (runs)
            fs->stats->runs_dropped[RUN_DROP_WRITE_ERROR] += tf->buf_lines;
        else
            fs->stats->lines_dropped_write_error += tf->buf_lines;
        log_event(LOG_ERR, runs ? "runs_dropped" : "lines_dropped",
                  LOG_FIELDS({"ARCLAMP_FILE", tf->path}),
                  "dropping %zu %s for %s: the disk refused them", tf->buf_lines,
                  runs ? "runs" : "lines", tf->path);
    }
    struct tracefile **slot = &fs->table[hash_path(tf->path) & (fs->table_size - 1)];
    while (*slot != tf)
        slot = &(*slot)->hnext;
    *slot = tf->hnext;
    dlist_unlink(&fs->lru, &tf->lru);
    close(tf->fd);
    strbuf_free(&tf->buf);
    free(tf->path);
    free(tf->tag);
    free(tf);
    fs->count--;
    fs->generation++;
    fs->stats->open_files = fs->count;
}

static int mkdir_p(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return errno = ENAMETOOLONG, -1;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Cuts a file that ends inside a line back to its last newline. Returns the
 * size afterwards, or -1. */
static off_t repair_torn_tail(struct stats *stats, int fd, off_t size, const char *path)
{
    char chunk[4096];
    off_t end = size;
    while (end > 0) {
        size_t want = end < (off_t)sizeof chunk ? (size_t)end : sizeof chunk;
        ssize_t n = pread(fd, chunk, want, end - (off_t)want);
        if (n != (ssize_t)want)
            return -1;
        if (end == size && chunk[want - 1] == '\n')
            return size; /* intact */
        char *nl = memrchr(chunk, '\n', want);
        if (nl) {
            end = end - (off_t)want + (nl - chunk) + 1;
            break;
        }
        end -= (off_t)want;
    }
    if (ftruncate(fd, end) < 0)
        return -1;
    stats->torn_lines_repaired++;
    log_event(LOG_WARNING, "torn_line_repaired", LOG_FIELDS({"ARCLAMP_FILE", path}),
              "%s ended inside a line (an earlier crash?); cut %lld bytes back to the last "
              "whole line", path, (long long)(size - end));
    return end;
}

/* The offset where the line that ends (with its '\n') at `end` begins:
 * just past the '\n' before it, or 0. -1 on a read error. */
static off_t line_start(int fd, off_t end)
{
    char chunk[4096];
    off_t pos = end - 1; /* the line's own '\n' is not its start */
    while (pos > 0) {
        size_t want = pos < (off_t)sizeof chunk ? (size_t)pos : sizeof chunk;
        if (pread(fd, chunk, want, pos - (off_t)want) != (ssize_t)want)
            return -1;
        char *nl = memrchr(chunk, '\n', want);
        if (nl)
            return pos - (off_t)want + (nl - chunk) + 1;
        pos -= (off_t)want;
    }
    return 0;
}

static int is_end_line(const char *line, size_t len)
{
    struct runline rl;
    return runline_is_run(line, len) && runline_parse(line, len, &rl) == RUNLINE_OK &&
           rl.kind == RUNLINE_END;
}

/* The offset just past the last end line of a run log of `size` bytes that
 * ends with '\n' (0: none), walking back line by line; an end line is
 * short, so a longer line is skipped without being read whole. The usual
 * case (the file ends with an end line) reads only its last line. -1 on a
 * read error. */
static off_t last_run_end(int fd, off_t size)
{
    char buf[RUN_END_LINE_MAX + 2];
    off_t end = size;
    while (end > 0) {
        size_t want = end < (off_t)sizeof buf ? (size_t)end : sizeof buf;
        if (pread(fd, buf, want, end - (off_t)want) != (ssize_t)want)
            return -1;
        const char *nl = memrchr(buf, '\n', want - 1);
        off_t start;
        if (nl)
            start = end - (off_t)want + (nl - buf) + 1;
        else if ((off_t)want == end)
            start = 0;
        else
            start = -1; /* too long for an end line */
        if (start >= 0 && is_end_line(buf + (want - (size_t)(end - start)),
                                      (size_t)(end - start) - 1))
            return end;
        end = start >= 0 ? start : line_start(fd, end);
        if (end < 0)
            return -1;
    }
    return 0;
}

/* Cuts a run log (ending with '\n') that does not end with a complete run
 * back to the end of its last one: runs are written whole, so anything after
 * the last end line is the start of a run a crash cut short. Returns the
 * size afterwards, or -1. */
static off_t repair_torn_run(struct stats *stats, int fd, off_t size, const char *path)
{
    off_t keep = last_run_end(fd, size);
    if (keep < 0 || keep == size)
        return keep;
    if (ftruncate(fd, keep) < 0)
        return -1;
    stats->torn_lines_repaired++;
    log_event(LOG_WARNING, "torn_run_repaired", LOG_FIELDS({"ARCLAMP_FILE", path}),
              "%s ended inside a run (an earlier crash?); cut %lld bytes back to the end "
              "of the last complete run", path, (long long)(size - keep));
    return keep;
}

/* Both repairs that apply to a file of this kind; the size afterwards, or -1. */
static off_t repair_tail(struct stats *stats, int fd, off_t size, enum tracefile_kind kind,
                         const char *path)
{
    if (size > 0)
        size = repair_torn_tail(stats, fd, size, path);
    if (size > 0 && kind == TRACEFILE_RUNS)
        size = repair_torn_run(stats, fd, size, path);
    return size;
}

static int open_trace_file(const char *dir, const char *path, int *created)
{
    const int flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
    int fd = open(path, flags);
    *created = 0;
    if (fd < 0 && errno == ENOENT) {
        if (mkdir_p(dir) < 0)
            return -1;
        fd = open(path, flags | O_CREAT | O_EXCL, 0644);
        if (fd >= 0)
            *created = 1;
        else if (errno == EEXIST)
            fd = open(path, flags);
    }
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

/* A path whose open failed less than RETRY_DELAY ago is not tried again:
 * under load every line would otherwise cost an open() and a log entry. */
static int recently_failed(struct fileset *fs, const char *path, double now)
{
    const struct failed_open *f = &fs->failed[hash_path(path) % FILESET_FAILED_SLOTS];
    return f->hash == hash_path(path) && now < f->until;
}

/* Counts a failed open; logs it unless one was logged in the last
 * OPEN_REPORT_INTERVAL seconds (then the next report says how many more). */
static void note_open_failure(struct fileset *fs, const char *path, double now, int err)
{
    size_t h = hash_path(path);
    fs->failed[h % FILESET_FAILED_SLOTS] = (struct failed_open){h, now + RETRY_DELAY};
    fs->stats->write_errors++;
    if (now < fs->open_report_at) {
        fs->open_failures_unreported++;
        return;
    }
    char more[64] = "";
    if (fs->open_failures_unreported)
        snprintf(more, sizeof more, " (and %lu other failed opens before this one)",
                 fs->open_failures_unreported);
    log_event(LOG_ERR, "open_failed", LOG_FIELDS({"ARCLAMP_FILE", path}),
              "cannot open %s: %s%s", path, strerror(err), more);
    fs->open_failures_unreported = 0;
    fs->open_report_at = now + OPEN_REPORT_INTERVAL;
}

struct tracefile *fileset_find(struct fileset *fs, const char *path)
{
    return lookup(fs, path);
}

void fileset_touch(struct fileset *fs, struct tracefile *tf)
{
    if (fs->lru.head != &tf->lru) {
        dlist_unlink(&fs->lru, &tf->lru);
        dlist_push_front(&fs->lru, &tf->lru);
    }
}

struct tracefile *fileset_open(struct fileset *fs, const char *dir, const char *path, int group,
                               const char *tag, enum tracefile_kind kind, double now,
                               int *created)
{
    struct tracefile *tf = lookup(fs, path);
    *created = 0;
    if (tf) {
        fileset_touch(fs, tf);
        return tf;
    }
    if (recently_failed(fs, path, now))
        return NULL;
    int fd = open_trace_file(dir, path, created);
    if (fd < 0) {
        note_open_failure(fs, path, now, errno);
        return NULL;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    if (size > 0)
        size = repair_tail(fs->stats, fd, size, kind, path);
    if (size < 0) {
        fs->stats->write_errors++;
        log_event(LOG_ERR, "open_failed", LOG_FIELDS({"ARCLAMP_FILE", path}),
                  "cannot check the end of %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    while (fs->count >= fs->max_open && fs->lru.tail)
        close_file(fs, tf_of(fs->lru.tail));

    tf = xcalloc(1, sizeof *tf);
    tf->path = xstrdup(path);
    tf->tag = xstrdup(tag);
    tf->kind = kind;
    tf->fd = fd;
    tf->group = group;
    tf->size = size;
    tf->last_append = now;
    size_t slot = hash_path(path) & (fs->table_size - 1);
    tf->hnext = fs->table[slot];
    fs->table[slot] = tf;
    dlist_push_front(&fs->lru, &tf->lru);
    fs->count++;
    fs->stats->open_files = fs->count;
    return tf;
}

/* Queues one record: `len` bytes, and a '\n' when `newline`. */
static int append_record(struct fileset *fs, struct tracefile *tf, const char *data, size_t len,
                         int newline, double now)
{
    size_t need = len + (newline ? 1 : 0);
    if (tf->buf.len + need > fs->max_buffer) {
        /* Only a failing disk lets a buffer grow this far. */
        if (now >= tf->retry_at)
            write_buffer(fs, tf, now);
        if (tf->buf.len + need > fs->max_buffer)
            return -1; /* the caller counts it: dropped, or left in Redis */
    }
    strbuf_reserve(&tf->buf, need);
    memcpy(tf->buf.data + tf->buf.len, data, len);
    if (newline)
        tf->buf.data[tf->buf.len + len] = '\n';
    tf->buf.len += need;
    tf->buf_lines++;
    tf->last_append = now;
    if (tf->buf.len >= TRACEFILE_FLUSH_BYTES && !tf->failing)
        write_buffer(fs, tf, now);
    return 0;
}

int tracefile_append(struct fileset *fs, struct tracefile *tf, const char *line, size_t len,
                     double now)
{
    return append_record(fs, tf, line, len, 1, now);
}

int tracefile_append_record(struct fileset *fs, struct tracefile *tf, const char *lines,
                            size_t len, double now)
{
    return append_record(fs, tf, lines, len, 0, now);
}

size_t fileset_flush(struct fileset *fs, double now)
{
    size_t pending = 0;
    for (struct tracefile *tf = tf_of(fs->lru.head); tf; tf = tf_of(tf->lru.next)) {
        if (tf->buf.len && (!tf->failing || now >= tf->retry_at))
            write_buffer(fs, tf, now);
        pending += tf->buf.len;
    }
    return pending;
}

/* A file unlinked or replaced behind our back (an operator, a compress job)
 * would swallow our lines; such a file is closed and opened anew on the next
 * line. */
static int file_moved(const struct tracefile *tf)
{
    struct stat by_fd, by_path;
    if (fstat(tf->fd, &by_fd) < 0 || by_fd.st_nlink == 0)
        return 1;
    if (stat(tf->path, &by_path) < 0)
        return 1;
    return by_fd.st_ino != by_path.st_ino || by_fd.st_dev != by_path.st_dev;
}

void fileset_close_idle(struct fileset *fs, double now, double idle)
{
    struct tracefile *tf = tf_of(fs->lru.head);
    while (tf) {
        struct tracefile *next = tf_of(tf->lru.next);
        if (now - tf->last_append >= idle || file_moved(tf))
            close_file(fs, tf);
        tf = next;
    }
}

void fileset_close_siblings(struct fileset *fs, const struct tracefile *keep)
{
    struct tracefile *tf = tf_of(fs->lru.head);
    while (tf) {
        struct tracefile *next = tf_of(tf->lru.next);
        if (tf != keep && tf->group == keep->group && tf->kind == keep->kind &&
            strcmp(tf->tag, keep->tag) == 0)
            close_file(fs, tf);
        tf = next;
    }
}

void fileset_close_all(struct fileset *fs)
{
    while (fs->lru.head)
        close_file(fs, tf_of(fs->lru.head));
}

void fileset_free(struct fileset *fs)
{
    fileset_close_all(fs);
    free(fs->table);
    fs->table = NULL;
}

int tracefile_write_once(struct stats *stats, const char *dir, const char *path,
                         const char *data, size_t len, int *created)
{
    int fd = open_trace_file(dir, path, created);
    if (fd < 0)
        return -1;
    off_t size = lseek(fd, 0, SEEK_END);
    if (size > 0)
        size = repair_torn_tail(stats, fd, size, path);
    ssize_t n = -1;
    if (size >= 0) {
        do {
            n = write(fd, data, len);
        } while (n < 0 && errno == EINTR);
    }
    int err = n < 0 ? errno : ENOSPC;
    if (n == (ssize_t)len) {
        stats->bytes_written += len;
    } else if (size >= 0) {
        stats->write_errors++;
        if (n > 0 && ftruncate(fd, size) < 0)
            err = errno;
    }
    close(fd);
    if (n == (ssize_t)len)
        return 0;
    errno = err;
    return -1;
}

/* "<bucket of format>.<tag>.log" or ".runs" (not .gz: compressed files are
 * never written to): 1 with *kind set, else 0. */
static int written_file_kind(const char *format, const char *name, enum tracefile_kind *kind)
{
    ssize_t n = bucket_match_prefix(format, name);
    size_t len = strlen(name);
    if (n <= 0 || name[n] != '.')
        return 0;
    if (len > (size_t)n + sizeof LAYOUT_LOG_SUFFIX && layout_has_suffix(name, len, LAYOUT_LOG_SUFFIX))
        *kind = TRACEFILE_LOG;
    else if (len > (size_t)n + sizeof LAYOUT_RUNS_SUFFIX && layout_has_suffix(name, len, LAYOUT_RUNS_SUFFIX))
        *kind = TRACEFILE_RUNS;
    else
        return 0;
    return 1;
}

int tracefile_recover_dir(const char *dir, const char *format, struct stats *stats)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    int repaired = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        enum tracefile_kind kind;
        if (!written_file_kind(format, de->d_name, &kind))
            continue;
        int fd = openat(dirfd(d), de->d_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            continue;
        struct stat st;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        uint64_t before = stats->torn_lines_repaired;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            repair_tail(stats, fd, st.st_size, kind, path);
        repaired += stats->torn_lines_repaired != before;
        close(fd);
    }
    closedir(d);
    return repaired;
}
