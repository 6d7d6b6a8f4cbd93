/* input: reading collapsed stack files line by line.
 *
 * Plain files are read in large blocks; gzip files (recognised by their magic
 * bytes, whatever their name) are inflated with zlib. Lines are handed to a
 * callback without their newline. A line longer than INPUT_MAX_LINE is
 * skipped and counted; memory use stays fixed whatever the file holds.
 * Time can be bounded too (input_limit): reading stops after a number of
 * (decompressed) bytes, so a small gzip bomb cannot keep a reader busy. */
#ifndef ARCLAMP_SVG_INPUT_H
#define ARCLAMP_SVG_INPUT_H

#include <stddef.h>

/* Longest line kept whole; longer lines are skipped (and counted). */
#define INPUT_MAX_LINE (16u << 20)

/* Called for each line; a non-zero return stops reading and is returned. */
typedef int (*input_line_fn)(void *arg, const char *line, size_t len);

struct input_stats {
    size_t lines;        /* lines handed to the callback */
    size_t too_long;     /* lines skipped for exceeding INPUT_MAX_LINE */
    unsigned long long bytes; /* bytes of (decompressed) input */
};

/* A limit on the bytes read, after decompression. */
struct input_limit {
    unsigned long long max_bytes; /* stop after this many bytes (0: no limit) */
    int reached;                  /* set when the input went on past max_bytes: reading
                                     stopped there, and the line it cut was dropped */
};

/* Reads `path` ("-" for standard input). Returns 0 at the end of the input,
 * the callback's non-zero value if it stopped, or -1 with a message in err. */
int input_read_path(const char *path, input_line_fn fn, void *arg, struct input_stats *stats,
                    char *err, size_t errlen);
/* The same from an open file descriptor (not closed); `name` for messages. */
int input_read_fd(int fd, const char *name, input_line_fn fn, void *arg,
                  struct input_stats *stats, char *err, size_t errlen);
/* The same within `limit` (NULL: none). */
int input_read_fd_limited(int fd, const char *name, struct input_limit *limit, input_line_fn fn,
                          void *arg, struct input_stats *stats, char *err, size_t errlen);
int input_read_path_limited(const char *path, struct input_limit *limit, input_line_fn fn,
                            void *arg, struct input_stats *stats, char *err, size_t errlen);

#endif
