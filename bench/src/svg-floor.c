/* svg-floor: the lower bound for arclamp-svg's reading of a trace log.
 *
 * A plain C pass over collapsed-stack files ("FRAME;...;LEAF COUNT" lines):
 * read(2) in large blocks, split lines, and aggregate identical stacks (the
 * bytes before the last space) in an open-addressing hash table keyed by the
 * stack bytes (XXH3 64-bit hash, byte comparison on a hit), summing the
 * integer counts. Distinct stacks are copied into a chunked arena. Nothing
 * else: no frame splitting, no sorting, no output. Any renderer has to do at
 * least this much work, so its CPU time over this one is the overhead of
 * everything else.
 *
 * The arena chunks and the table are mmap'ed 2 MB-aligned with
 * madvise(MADV_HUGEPAGE): on this project's VMs a first touch of a 4 KB page
 * costs about 20 us, so a million-line log's 95 MB of distinct stacks took
 * 0.5 s of page faults alone, half the pass. --small-pages uses malloc
 * instead, to see that cost.
 *
 * Usage: svg-floor [--small-pages] [FILE|-]...   (standard input when no file)
 * Prints one line on stdout, easy to parse from a shell:
 *   lines=1000000 distinct=41234 ignored=0 samples=1128000 bytes=2024046090
 *   seconds=1.101 cpu=1.090 mb_per_s=1838.3 table_mb=2.0 arena_mb=82.1
 * (seconds: wall time of the pass; cpu: user + system of the process.)
 * Exit status: 0 on success, 1 on a read or memory error, 64 for bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define EX_USAGE_CODE 64
#define BLOCK (1u << 20)          /* read size; lines longer than this grow the buffer */
#define ARENA_CHUNK (64u << 20)   /* distinct stack bytes are copied into chunks this big */
#define HUGE_PAGE (2u << 20)

static int small_pages;           /* --small-pages: plain malloc */

struct entry {
    uint64_t hash;                /* 0 = empty slot (a real hash of 0 is stored as 1) */
    const char *stack;
    uint64_t count;
    uint32_t len;
};

struct table {
    struct entry *slots;
    size_t nslots, used;
    char *chunk;                  /* current arena chunk */
    size_t chunk_used, chunk_cap;
    unsigned long long arena_bytes;
};

struct totals {
    unsigned long long lines, ignored, samples, bytes;
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) {
        fprintf(stderr, "svg-floor: out of memory\n");
        exit(1);
    }
    return p;
}

/* Zeroed memory, 2 MB-aligned and backed by huge pages where the kernel
 * allows (transparent huge pages in "madvise" or "always" mode); with
 * --small-pages plain calloc. Released with big_free. */
static void *big_alloc(size_t size)
{
    if (small_pages)
        return xcalloc(1, size);
    size_t len = size + HUGE_PAGE;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "svg-floor: out of memory\n");
        exit(1);
    }
    char *a = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    size_t tail = len - (size_t)(a - p) - size;
    if (tail)
        munmap(a + size, tail);
    (void)madvise(a, size, MADV_HUGEPAGE);
    return a;
}

static void big_free(void *p, size_t size)
{
    if (small_pages)
        free(p);
    else
        munmap(p, size);
}

static const char *arena_copy(struct table *t, const char *p, size_t len)
{
    if (t->chunk_used + len > t->chunk_cap) {
        t->chunk_cap = len > ARENA_CHUNK ? len : ARENA_CHUNK;
        t->chunk = big_alloc(t->chunk_cap);  /* old chunks stay referenced by entries */
        t->chunk_used = 0;
    }
    char *dst = t->chunk + t->chunk_used;
    memcpy(dst, p, len);
    t->chunk_used += len;
    t->arena_bytes += len;
    return dst;
}

static void table_grow(struct table *t)
{
    size_t n = t->nslots * 2, mask = n - 1;
    struct entry *slots = big_alloc(n * sizeof *slots);
    for (size_t i = 0; i < t->nslots; i++) {
        if (!t->slots[i].hash)
            continue;
        size_t j = (size_t)t->slots[i].hash & mask;
        while (slots[j].hash)
            j = (j + 1) & mask;
        slots[j] = t->slots[i];
    }
    big_free(t->slots, t->nslots * sizeof *t->slots);
    t->slots = slots;
    t->nslots = n;
}

static void table_add(struct table *t, const char *stack, size_t len, uint64_t count)
{
    uint64_t h = XXH3_64bits(stack, len);
    h += !h;
    size_t mask = t->nslots - 1, i = (size_t)h & mask;
    for (;; i = (i + 1) & mask) {
        struct entry *e = &t->slots[i];
        if (!e->hash)
            break;
        if (e->hash == h && e->len == len && memcmp(e->stack, stack, len) == 0) {
            e->count += count;
            return;
        }
    }
    t->slots[i] = (struct entry){h, arena_copy(t, stack, len), count, (uint32_t)len};
    if (++t->used * 2 > t->nslots)
        table_grow(t);
}

/* One line without its newline: "STACK COUNT". */
static void do_line(struct table *t, struct totals *tot, const char *p, size_t len)
{
    tot->lines++;
    const char *sp = memrchr(p, ' ', len);
    if (!sp || sp == p || sp + 1 == p + len) {
        tot->ignored++;
        return;
    }
    uint64_t count = 0;
    for (const char *q = sp + 1; q < p + len; q++) {
        unsigned d = (unsigned)(unsigned char)*q - '0';
        if (d > 9) {
            tot->ignored++;
            return;
        }
        count = count * 10 + d;
    }
    tot->samples += count;
    table_add(t, p, (size_t)(sp - p), count);
}

static int read_fd(int fd, const char *name, struct table *t, struct totals *tot)
{
    size_t cap = BLOCK, have = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fprintf(stderr, "svg-floor: out of memory\n");
        return -1;
    }
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    for (;;) {
        if (have == cap) {      /* one line fills the buffer: make room */
            char *b = realloc(buf, cap * 2);
            if (!b) {
                fprintf(stderr, "svg-floor: out of memory\n");
                free(buf);
                return -1;
            }
            buf = b;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + have, cap - have);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "svg-floor: %s: %s\n", name, strerror(errno));
            free(buf);
            return -1;
        }
        if (n == 0)
            break;
        tot->bytes += (unsigned long long)n;
        const char *p = buf, *end = buf + have + (size_t)n, *nl;
        while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            if (nl > p)
                do_line(t, tot, p, (size_t)(nl - p));
            p = nl + 1;
        }
        have = (size_t)(end - p);
        memmove(buf, p, have);
    }
    if (have)                   /* last line without a newline */
        do_line(t, tot, buf, have);
    free(buf);
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    struct table t = {NULL, 1u << 16, 0, NULL, 0, 0, 0};
    struct totals tot = {0, 0, 0, 0};
    int rc = 0;
    double t0 = now();

    int first = 1;
    if (argc > 1 && strcmp(argv[1], "--small-pages") == 0) {
        small_pages = 1;
        first = 2;
    }
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: svg-floor [--small-pages] [FILE|-]...\n"
                   "Reads collapsed-stack files, aggregates identical stacks, prints\n"
                   "lines= distinct= ignored= samples= bytes= seconds= cpu= mb_per_s=\n");
            return 0;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "usage: svg-floor [--small-pages] [FILE|-]...\n");
            return EX_USAGE_CODE;
        }
    }
    t.slots = big_alloc(t.nslots * sizeof *t.slots);
    if (argc <= first) {
        rc = read_fd(0, "-", &t, &tot);
    } else {
        for (int i = first; i < argc && rc == 0; i++) {
            if (strcmp(argv[i], "-") == 0) {
                rc = read_fd(0, "-", &t, &tot);
                continue;
            }
            int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                fprintf(stderr, "svg-floor: %s: %s\n", argv[i], strerror(errno));
                return 1;
            }
            rc = read_fd(fd, argv[i], &t, &tot);
            close(fd);
        }
    }
    if (rc < 0)
        return 1;
    double secs = now() - t0;
    printf("lines=%llu distinct=%zu ignored=%llu samples=%llu bytes=%llu seconds=%.3f cpu=%.3f "
           "mb_per_s=%.1f table_mb=%.1f arena_mb=%.1f\n",
           tot.lines, t.used, tot.ignored, tot.samples, tot.bytes, secs, cpu_seconds(),
           secs > 0 ? (double)tot.bytes / 1e6 / secs : 0.0,
           (double)(t.nslots * sizeof *t.slots) / 1e6, (double)t.arena_bytes / 1e6);
    return 0;
}
