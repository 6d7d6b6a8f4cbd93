/* tracefile: open trace log files, whole-line buffering, repair of torn
 * lines and recovery from refused writes. See tracefile.h. */
#include "tracefile.h"
#include "bucket.h"
#include "log.h"

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

static size_t hash_path(const char *s)
{
    size_t h = 14695981039346656037ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
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

static void lru_unlink(struct fileset *fs, struct tracefile *tf)
{
    if (tf->prev)
        tf->prev->next = tf->next;
    else
        fs->head = tf->next;
    if (tf->next)
        tf->next->prev = tf->prev;
    else
        fs->tail = tf->prev;
    tf->prev = tf->next = NULL;
}

static void lru_push_front(struct fileset *fs, struct tracefile *tf)
{
    tf->next = fs->head;
    tf->prev = NULL;
    if (fs->head)
        fs->head->prev = tf;
    fs->head = tf;
    if (!fs->tail)
        fs->tail = tf;
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
        if (strcmp(tf->tag, "all") == 0)
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
        fs->stats->lines_dropped_write_error += tf->buf_lines;
        log_event(LOG_ERR, "lines_dropped", LOG_FIELDS({"ARCLAMP_FILE", tf->path}),
                  "dropping %zu lines for %s: the disk refused them", tf->buf_lines, tf->path);
    }
    struct tracefile **slot = &fs->table[hash_path(tf->path) & (fs->table_size - 1)];
    while (*slot != tf)
        slot = &(*slot)->hnext;
    *slot = tf->hnext;
    lru_unlink(fs, tf);
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

static int open_trace_file(struct fileset *fs, const char *dir, const char *path, int *created)
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
    (void)fs;
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
    if (fs->head != tf) {
        lru_unlink(fs, tf);
        lru_push_front(fs, tf);
    }
}

struct tracefile *fileset_open(struct fileset *fs, const char *dir, const char *path, int group,
                               const char *tag, double now, int *created)
{
    struct tracefile *tf = lookup(fs, path);
    *created = 0;
    if (tf) {
        fileset_touch(fs, tf);
        return tf;
    }
    if (recently_failed(fs, path, now))
        return NULL;
    int fd = open_trace_file(fs, dir, path, created);
    if (fd < 0) {
        note_open_failure(fs, path, now, errno);
        return NULL;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    if (size > 0)
        size = repair_torn_tail(fs->stats, fd, size, path);
    if (size < 0) {
        fs->stats->write_errors++;
        log_event(LOG_ERR, "open_failed", LOG_FIELDS({"ARCLAMP_FILE", path}),
                  "cannot check the end of %s: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    while (fs->count >= fs->max_open && fs->tail)
        close_file(fs, fs->tail);

    tf = xcalloc(1, sizeof *tf);
    tf->path = xstrdup(path);
    tf->tag = xstrdup(tag);
    tf->fd = fd;
    tf->group = group;
    tf->size = size;
    tf->last_append = now;
    size_t slot = hash_path(path) & (fs->table_size - 1);
    tf->hnext = fs->table[slot];
    fs->table[slot] = tf;
    lru_push_front(fs, tf);
    fs->count++;
    fs->stats->open_files = fs->count;
    return tf;
}

int tracefile_append(struct fileset *fs, struct tracefile *tf, const char *line, size_t len,
                     double now)
{
    if (tf->buf.len + len + 1 > fs->max_buffer) {
        /* Only a failing disk lets a buffer grow this far. */
        if (now >= tf->retry_at)
            write_buffer(fs, tf, now);
        if (tf->buf.len + len + 1 > fs->max_buffer)
            return -1; /* the caller counts it: dropped, or left in Redis */
    }
    strbuf_reserve(&tf->buf, len + 1);
    memcpy(tf->buf.data + tf->buf.len, line, len);
    tf->buf.data[tf->buf.len + len] = '\n';
    tf->buf.len += len + 1;
    tf->buf_lines++;
    tf->last_append = now;
    if (tf->buf.len >= TRACEFILE_FLUSH_BYTES && !tf->failing)
        write_buffer(fs, tf, now);
    return 0;
}

size_t fileset_flush(struct fileset *fs, double now)
{
    size_t pending = 0;
    for (struct tracefile *tf = fs->head; tf; tf = tf->next) {
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
    struct tracefile *tf = fs->head;
    while (tf) {
        struct tracefile *next = tf->next;
        if (now - tf->last_append >= idle || file_moved(tf))
            close_file(fs, tf);
        tf = next;
    }
}

void fileset_close_siblings(struct fileset *fs, const struct tracefile *keep)
{
    struct tracefile *tf = fs->head;
    while (tf) {
        struct tracefile *next = tf->next;
        if (tf != keep && tf->group == keep->group && strcmp(tf->tag, keep->tag) == 0)
            close_file(fs, tf);
        tf = next;
    }
}

void fileset_close_all(struct fileset *fs)
{
    while (fs->head)
        close_file(fs, fs->head);
}

void fileset_free(struct fileset *fs)
{
    fileset_close_all(fs);
    free(fs->table);
    fs->table = NULL;
}

/* True for "<bucket of format>.<tag>.log" (not .gz: compressed logs are
 * never written to). */
static int is_trace_log_name(const char *format, const char *name)
{
    ssize_t n = bucket_match_prefix(format, name);
    size_t len = strlen(name);
    return n > 0 && name[n] == '.' && len > (size_t)n + 5 &&
           strcmp(name + len - 4, ".log") == 0;
}

int tracefile_recover_dir(const char *dir, const char *format, struct stats *stats)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    int repaired = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!is_trace_log_name(format, de->d_name))
            continue;
        int fd = openat(dirfd(d), de->d_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            continue;
        struct stat st;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        uint64_t before = stats->torn_lines_repaired;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            repair_torn_tail(stats, fd, st.st_size, path);
        repaired += stats->torn_lines_repaired != before;
        close(fd);
    }
    closedir(d);
    return repaired;
}
