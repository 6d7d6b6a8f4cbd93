/* input: reading collapsed stack files line by line (see input.h).
 *
 * One fixed buffer per read: lines are handed out in place, and the tail of a
 * block (a partial line) is moved to the front before the next read. A line
 * that fills the whole buffer is too long: it is skipped up to its newline. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "strbuf.h"

#define BLOCK (1u << 20)

struct source {
    gzFile gz;            /* zlib stream over the file (gzip or plain) */
    const char *name;     /* for messages */
    struct input_limit *limit; /* NULL: none */
    unsigned long long left;   /* bytes the limit still allows */
};

/* Reads up to n bytes; returns the count, 0 at the end, -1 on error. */
static long source_read(struct source *src, char *buf, size_t n, char *err, size_t errlen)
{
    int got = gzread(src->gz, buf, (unsigned)n);
    /* A truncated gzip stream is not an error to gzread: it returns the data
     * up to the cut and leaves Z_BUF_ERROR for gzerror. A log cut short
     * (disk full, a copy interrupted) must not pass for a complete one. */
    int code;
    const char *msg = gzerror(src->gz, &code);
    if (got < 0 || code == Z_BUF_ERROR) {
        snprintf(err, errlen, "%s: %s", src->name,
                 code == Z_ERRNO ? strerror(errno)
                 : code == Z_BUF_ERROR ? "truncated gzip data (unexpected end of file)" : msg);
        return -1;
    }
    return got;
}

/* source_read within the limit: at the limit, one byte more is read to
 * tell an input that ends there from one that goes on (limit->reached). */
static long limited_read(struct source *src, char *buf, size_t n, char *err, size_t errlen)
{
    if (!src->limit || !src->limit->max_bytes)
        return source_read(src, buf, n, err, errlen);
    if (src->left == 0) {
        char probe;
        long got = source_read(src, &probe, 1, err, errlen);
        if (got > 0)
            src->limit->reached = 1;
        return got > 0 ? 0 : got;
    }
    long got = source_read(src, buf, n < src->left ? n : (size_t)src->left, err, errlen);
    if (got > 0)
        src->left -= (unsigned long long)got;
    return got;
}

/* Hands every complete line of buf[0..*len) to fn; keeps the partial tail. */
static int emit_lines(char *buf, size_t *len, int *skipping, input_line_fn fn, void *arg,
                      struct input_stats *st)
{
    size_t start = 0;
    for (;;) {
        char *nl = memchr(buf + start, '\n', *len - start);
        if (!nl)
            break;
        size_t end = (size_t)(nl - buf);
        if (*skipping) {
            *skipping = 0;
        } else {
            st->lines++;
            int rc = fn(arg, buf + start, end - start);
            if (rc != 0)
                return rc;
        }
        start = end + 1;
    }
    memmove(buf, buf + start, *len - start);
    *len -= start;
    return 0;
}

static int read_all(struct source *src, input_line_fn fn, void *arg, struct input_stats *st,
                    char *err, size_t errlen)
{
    size_t cap = INPUT_MAX_LINE + BLOCK, len = 0;
    char *buf = xmalloc(cap);
    int skipping = 0, rc = 0;
    for (;;) {
        if (len >= INPUT_MAX_LINE) {   /* no newline in a whole buffer: too long */
            st->too_long++;
            len = 0;
            skipping = 1;
        }
        long got = limited_read(src, buf + len, cap - len < BLOCK ? cap - len : BLOCK, err,
                                errlen);
        if (got < 0) {
            rc = -1;
            break;
        }
        if (got == 0) {
            int cut = src->limit && src->limit->reached;
            if (len > 0 && !skipping && !cut) {   /* a last line without its newline */
                st->lines++;
                rc = fn(arg, buf, len);
            }
            break;
        }
        st->bytes += (unsigned long long)got;
        len += (size_t)got;
        rc = emit_lines(buf, &len, &skipping, fn, arg, st);
        if (rc != 0)
            break;
    }
    free(buf);
    return rc;
}

int input_read_fd(int fd, const char *name, input_line_fn fn, void *arg,
                  struct input_stats *stats, char *err, size_t errlen)
{
    return input_read_fd_limited(fd, name, NULL, fn, arg, stats, err, errlen);
}

int input_read_fd_limited(int fd, const char *name, struct input_limit *limit, input_line_fn fn,
                          void *arg, struct input_stats *stats, char *err, size_t errlen)
{
    struct input_stats local = {0};
    struct source src = {.name = name, .limit = limit, .left = limit ? limit->max_bytes : 0};
    if (limit)
        limit->reached = 0;
    /* zlib reads gzip and passes anything else through unchanged; with
     * requests larger than its buffer, plain data is read straight into ours
     * (no extra copy). It works on pipes too, so "-" may be gzip. */
    int dupfd = dup(fd);
    if (dupfd < 0 || !(src.gz = gzdopen(dupfd, "rb"))) {
        snprintf(err, errlen, "%s: %s", name, dupfd < 0 ? strerror(errno) : "out of memory");
        if (dupfd >= 0)
            close(dupfd);
        return -1;
    }
    gzbuffer(src.gz, BLOCK / 4);
    int rc = read_all(&src, fn, arg, stats ? stats : &local, err, errlen);
    gzclose(src.gz);
    return rc;
}

int input_read_path(const char *path, input_line_fn fn, void *arg, struct input_stats *stats,
                    char *err, size_t errlen)
{
    return input_read_path_limited(path, NULL, fn, arg, stats, err, errlen);
}

int input_read_path_limited(const char *path, struct input_limit *limit, input_line_fn fn,
                            void *arg, struct input_stats *stats, char *err, size_t errlen)
{
    if (strcmp(path, "-") == 0)
        return input_read_fd_limited(STDIN_FILENO, "standard input", limit, fn, arg, stats, err,
                                     errlen);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = input_read_fd_limited(fd, path, limit, fn, arg, stats, err, errlen);
    close(fd);
    return rc;
}
