/* tracefile: the open trace log and run log files and their write buffers.
 *
 * A fileset owns every open file. Each file keeps its descriptor open
 * (O_APPEND) and a buffer that only ever holds whole records — lines of a
 * trace log, complete runs of a run log — written when it fills, on
 * fileset_flush() and at close. A write the disk cuts short is truncated
 * back to the end of the last complete write and retried later, so a reader,
 * a crash or a SIGKILL never sees half a line that we made; a file that
 * already ends in a partial line when opened (a crash inside write()) is cut
 * back to its last whole line, and a run log to the end of its last
 * complete run. At most `max_open` files are open: the least recently used
 * is closed first. */
#ifndef ARCLAMP_LOG_TRACEFILE_H
#define ARCLAMP_LOG_TRACEFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "dlist.h"
#include "stats.h"
#include "strbuf.h"

/* What a file holds, which decides its name's suffix, what its records
 * are, and what they are counted as. */
enum tracefile_kind {
    TRACEFILE_LOG,   /* "<bucket>.<tag>.log": sample lines, a record is a line */
    TRACEFILE_RUNS,  /* "<bucket>.<tag>.runs": hierarchical runs, a record is a run */
};

struct tracefile {
    char *path;               /* full path, the lookup key */
    int fd;                   /* open O_APPEND descriptor */
    int group;                /* log group index (for counters and retention) */
    char *tag;                /* "all" or the entry point tag */
    enum tracefile_kind kind;
    strbuf buf;               /* whole records waiting to be written */
    size_t buf_lines;         /* records in buf: lines (TRACEFILE_LOG) or runs */
    off_t size;               /* file size after our last complete write */
    double last_append;       /* monotonic time of the last append */
    double retry_at;          /* after a failed write: not before this time */
    int failing;              /* the last write failed (reported once) */
    struct tracefile *hnext;  /* hash chain */
    struct dlist_node lru;    /* on fileset.lru */
};

/* A recently failed open, so the path is not retried at once. */
struct failed_open {
    size_t hash;              /* hash of the path, 0 when unused */
    double until;             /* monotonic time before which it is not retried */
};
#define FILESET_FAILED_SLOTS 64

struct fileset {
    struct tracefile **table; /* hash table of open files by path */
    size_t table_size;        /* a power of two */
    size_t count;             /* files open */
    struct dlist lru;         /* open files, most recently used first */
    size_t max_open;          /* files open at most */
    size_t max_buffer;        /* bytes a buffer may hold while the disk refuses */
    struct stats *stats;      /* counters, owned by the caller */
    unsigned long generation; /* bumped whenever a file closes: pointers kept
                                 from before may dangle */
    struct failed_open failed[FILESET_FAILED_SLOTS]; /* by path hash, direct-mapped */
    double open_report_at;    /* no failed-open log entry before this time */
    unsigned long open_failures_unreported; /* failed opens not logged since */
};

/* Bytes that make a buffer worth writing right away. */
#define TRACEFILE_FLUSH_BYTES (256 * 1024)

void fileset_init(struct fileset *fs, struct stats *stats, size_t max_open, size_t max_buffer);
/* Flushes and closes every file, frees the set. */
void fileset_free(struct fileset *fs);

/* The open file for `path` (directory `dir` is created when missing), opening
 * it if needed. *created is set when the file did not exist before. NULL when
 * it cannot be opened (counted in write_errors; logged at most once per ten
 * seconds) or could not be opened less than a second ago (not tried again
 * yet, not counted). */
struct tracefile *fileset_open(struct fileset *fs, const char *dir, const char *path, int group,
                               const char *tag, enum tracefile_kind kind, double now,
                               int *created);
/* The open file for `path`, or NULL when it is not open (nothing is opened). */
struct tracefile *fileset_find(struct fileset *fs, const char *path);
/* Marks tf as just used (for LRU eviction); fileset_open does it too. */
void fileset_touch(struct fileset *fs, struct tracefile *tf);
/* Queues one line (a newline is added). Returns 0, or -1 when the buffer is
 * full of lines the disk refused: the line is not queued, and the caller
 * decides whether that is a loss (see ingest_message). */
int tracefile_append(struct fileset *fs, struct tracefile *tf, const char *line, size_t len,
                     double now);
/* Queues one record made of whole lines, each already followed by '\n'
 * (a run), in one piece: it is written whole or not at all. Returns 0 or
 * -1 as tracefile_append. */
int tracefile_append_record(struct fileset *fs, struct tracefile *tf, const char *lines,
                            size_t len, double now);
/* Writes every buffer that is due (failed files: after their retry time).
 * Returns the bytes still buffered afterwards. */
size_t fileset_flush(struct fileset *fs, double now);
/* Flushes and closes files not appended to since `now - idle`, and files
 * deleted or renamed away behind our back. */
void fileset_close_idle(struct fileset *fs, double now, double idle);
/* Flushes and closes the other open files of the same group, tag and kind
 * (a new bucket began, so they are done). */
void fileset_close_siblings(struct fileset *fs, const struct tracefile *tf);
/* Flushes and closes everything (reload, shutdown). */
void fileset_close_all(struct fileset *fs);
/* Appends `len` bytes of whole lines to `path` in one go, outside the
 * fileset (the tier tables' .tiers files, written once a minute): opened
 * as trace logs are (its directory `dir` made when missing, O_APPEND,
 * O_NOFOLLOW), a torn last line cut off first, written whole or cut back,
 * closed. *created is set when the file is new. 0, or -1 with errno (a
 * failed or short write is counted in write_errors). */
int tracefile_write_once(struct stats *stats, const char *dir, const char *path,
                         const char *data, size_t len, int *created);
/* At start: cuts every trace log of `format` in `dir` that ends inside a
 * line (the process was killed in the middle of a write) back to its last
 * whole line, and every run log that does not end with a complete run back
 * to the end of its last one. Returns how many were repaired, -1 if dir is
 * unreadable. */
int tracefile_recover_dir(const char *dir, const char *format, struct stats *stats);

#endif
