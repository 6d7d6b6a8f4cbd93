/* atomicfile: temp file + fsync + rename, optionally gzip'ed. See atomicfile.h. */
#include "atomicfile.h"
#include "fdio.h"
#include "dirstream.h"
#include "strbuf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define ZBUF_SIZE (64u * 1024)
/* zlib counts input in uInt; larger appends are fed in pieces of this. */
#define ZCHUNK (1u << 30)

struct atomic_file {
    int dirfd;            /* the target's directory (our own descriptor) */
    int fd;               /* the temporary file, -1 once closed */
    char *name;           /* the target's name in dirfd */
    char *display;        /* the target as given, for messages */
    char tmp[64];         /* the temporary file's name in dirfd */
    int gzip;             /* compressing through zs */
    int no_sync;          /* ATOMIC_NO_SYNC: rename without fsync */
    z_stream zs;
    unsigned char *zbuf;  /* deflate output, ZBUF_SIZE bytes */
    int error;            /* first errno, 0 while all is well */
    const char *what;     /* the operation that failed */
    unsigned long long bytes_in;
};

static int fail(struct atomic_file *af, const char *what, int error)
{
    if (!af->error) {
        af->error = error ? error : EIO;
        af->what = what;
    }
    return -1;
}

/* A name nobody else uses: the prefix and 16 random hex digits. */
static void temp_name(char *out, size_t len, unsigned attempt)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)attempt << 48);
    }
    snprintf(out, len, ATOMIC_TMP_PREFIX "%016llx", (unsigned long long)r);
}

static int start_gzip(struct atomic_file *af, int level)
{
    memset(&af->zs, 0, sizeof af->zs);
    /* windowBits 15 + 16: gzip wrapper; the header has no name and mtime 0. */
    if (deflateInit2(&af->zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    af->zbuf = xmalloc(ZBUF_SIZE);
    af->gzip = 1;
    return 0;
}

static void release(struct atomic_file *af)
{
    if (af->fd >= 0)
        close(af->fd);
    if (af->gzip)
        deflateEnd(&af->zs);
    close(af->dirfd);
    free(af->zbuf);
    free(af->name);
    free(af->display);
    free(af);
}

/* Takes ownership of dirfd. */
static struct atomic_file *open_in(int dirfd, const char *name, const char *display,
                                   unsigned flags, int level, char *err, size_t errlen)
{
    struct atomic_file *af = xcalloc(1, sizeof *af);
    af->dirfd = dirfd;
    af->fd = -1;
    af->name = xstrdup(name);
    af->display = xstrdup(display);
    af->no_sync = (flags & ATOMIC_NO_SYNC) != 0;
    for (unsigned attempt = 0; attempt < 32 && af->fd < 0; attempt++) {
        temp_name(af->tmp, sizeof af->tmp, attempt);
        af->fd = openat(dirfd, af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0666);
        if (af->fd < 0 && errno != EEXIST)
            break;
    }
    if (af->fd < 0) {
        snprintf(err, errlen, "%s: cannot create a temporary file: %s", display,
                 strerror(errno));
        release(af);
        return NULL;
    }
    if ((flags & ATOMIC_GZIP) && start_gzip(af, level) < 0) {
        snprintf(err, errlen, "%s: zlib initialisation failed", display);
        atomic_abort(af);
        return NULL;
    }
    return af;
}

struct atomic_file *atomic_openat(int dirfd, const char *name, unsigned flags, int level,
                                  char *err, size_t errlen)
{
    if (!name[0] || strchr(name, '/')) {
        snprintf(err, errlen, "%s: not a plain file name", name);
        return NULL;
    }
    int own = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        snprintf(err, errlen, "%s: %s", name, strerror(errno));
        return NULL;
    }
    return open_in(own, name, name, flags, level, err, errlen);
}

struct atomic_file *atomic_open(const char *path, unsigned flags, int level, char *err,
                                size_t errlen)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!name[0]) {
        snprintf(err, errlen, "%s: not a file name", path);
        return NULL;
    }
    char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path))
                      : xstrdup(".");
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int saved = errno;
    free(dir);
    if (dirfd < 0) {
        snprintf(err, errlen, "%s: directory: %s", path, strerror(saved));
        return NULL;
    }
    return open_in(dirfd, name, path, flags, level, err, errlen);
}

/* Runs deflate with `flush` until it has taken all input (and, for Z_FINISH,
 * ended the stream), writing what it produces. */
static int pump(struct atomic_file *af, int flush)
{
    for (;;) {
        af->zs.next_out = af->zbuf;
        af->zs.avail_out = ZBUF_SIZE;
        int rc = deflate(&af->zs, flush);
        if (rc == Z_STREAM_ERROR)
            return fail(af, "deflate", EIO);
        size_t have = ZBUF_SIZE - af->zs.avail_out;
        if (have && fd_write_all(af->fd, af->zbuf, have) < 0)
            return fail(af, "write", errno);
        if (flush == Z_FINISH ? rc == Z_STREAM_END
                              : af->zs.avail_in == 0 && af->zs.avail_out != 0)
            return 0;
    }
}

int atomic_append(struct atomic_file *af, const void *data, size_t len)
{
    if (af->error)
        return -1;
    af->bytes_in += len;
    if (!af->gzip)
        return fd_write_all(af->fd, data, len) < 0 ? fail(af, "write", errno) : 0;
    const unsigned char *p = data;
    while (len > 0) {
        size_t n = len < ZCHUNK ? len : ZCHUNK;
        af->zs.next_in = (unsigned char *)p;
        af->zs.avail_in = (uInt)n;
        if (pump(af, Z_NO_FLUSH) < 0)
            return -1;
        p += n;
        len -= n;
    }
    return 0;
}

int atomic_fd(const struct atomic_file *af)
{
    return af->fd;
}

unsigned long long atomic_bytes_in(const struct atomic_file *af)
{
    return af->bytes_in;
}

/* Everything before the rename. */
static int finish_temp(struct atomic_file *af, const struct timespec *mtime)
{
    if (af->gzip && !af->error) {
        af->zs.next_in = NULL;
        af->zs.avail_in = 0;
        pump(af, Z_FINISH);
    }
    if (af->error)
        return -1;
    if (mtime) {
        struct timespec ts[2] = {{0, UTIME_OMIT}, *mtime};
        if (futimens(af->fd, ts) < 0)
            return fail(af, "futimens", errno);
    }
    if (!af->no_sync && fsync(af->fd) < 0)
        return fail(af, "fsync", errno);
    int fd = af->fd;
    af->fd = -1;
    if (close(fd) < 0)
        return fail(af, "close", errno);
    return 0;
}

int atomic_commit(struct atomic_file *af, const struct timespec *mtime, char *err,
                  size_t errlen)
{
    if (finish_temp(af, mtime) == 0 && renameat(af->dirfd, af->tmp, af->dirfd, af->name) < 0)
        fail(af, "rename", errno);
    if (af->error) {
        snprintf(err, errlen, "%s: %s: %s", af->display, af->what, strerror(af->error));
        atomic_abort(af);
        return -1;
    }
    /* The file is in place; the directory fsync only makes the rename durable
     * sooner, and some file systems refuse fsync on directories. */
    if (!af->no_sync)
        (void)fsync(af->dirfd);
    release(af);
    return 0;
}

void atomic_abort(struct atomic_file *af)
{
    if (!af)
        return;
    if (af->fd >= 0) {
        close(af->fd);
        af->fd = -1;
    }
    unlinkat(af->dirfd, af->tmp, 0);
    release(af);
}

int atomic_writeat(int dirfd, const char *name, const void *data, size_t len, unsigned flags,
                   int level, const struct timespec *mtime, char *err, size_t errlen)
{
    struct atomic_file *af = atomic_openat(dirfd, name, flags, level, err, errlen);
    if (!af)
        return -1;
    atomic_append(af, data, len);
    return atomic_commit(af, mtime, err, errlen);
}

int atomic_write(const char *path, const void *data, size_t len, int gzip, char *err,
                 size_t errlen)
{
    struct atomic_file *af = atomic_open(path, gzip ? ATOMIC_GZIP : 0, 6, err, errlen);
    if (!af)
        return -1;
    atomic_append(af, data, len);
    return atomic_commit(af, NULL, err, errlen);
}

int atomic_is_temp_name(const char *name)
{
    return strncmp(name, ATOMIC_TMP_PREFIX, sizeof ATOMIC_TMP_PREFIX - 1) == 0;
}

int atomic_clean_temps(int dirfd)
{
    DIR *d = dir_stream(dirfd);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (atomic_is_temp_name(de->d_name) &&
            fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            unlinkat(dirfd, de->d_name, 0) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}
