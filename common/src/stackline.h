/* stackline: parsing and validation of collapsed stack sample lines.
 *
 * A sample line is one line of ExcimerLog::formatCollapsed() without its
 * newline: "FRAME;FRAME;...;LEAF COUNT" — frames root first, one space, and a
 * positive decimal count. This is the format every Arc Lamp program reads and
 * writes, so its rules live here once. */
#ifndef ARCLAMP_STACKLINE_H
#define ARCLAMP_STACKLINE_H

#include <stddef.h>
#include <stdint.h>

/* Why a line was refused. The names (stackline_error_name) are used in
 * metrics labels and logs, so they are part of the interface. */
enum stackline_error {
    STACKLINE_OK = 0,
    STACKLINE_EMPTY,          /* no bytes at all */
    STACKLINE_TOO_LONG,       /* longer than the caller's limit */
    STACKLINE_CONTROL_CHAR,   /* NUL, CR, LF, tab or another C0/DEL byte */
    STACKLINE_INVALID_UTF8,   /* not well-formed UTF-8 */
    STACKLINE_NO_COUNT,       /* no " COUNT" at the end */
    STACKLINE_BAD_COUNT,      /* count not an integer in [1, UINT32_MAX] */
    STACKLINE_EMPTY_FRAME,    /* an empty or space-padded frame: ";;", "; ", " ;",
                                 a leading/trailing ';' or space in the stack */
    STACKLINE_NERRORS
};

struct stackline {
    const char *stack;   /* first byte of the frames (points into the line) */
    size_t stack_len;    /* bytes of the frames, without the count separator */
    uint32_t count;      /* the sample count, >= 1 */
};

/* Largest tag: longer entry point names get no tag of their own. */
#define STACKLINE_TAG_MAX 100

const char *stackline_error_name(enum stackline_error err);

/* Validates `line` (len bytes, no newline) and splits it into stack and count.
 * `max_len` of 0 means no length limit. */
enum stackline_error stackline_parse(const char *line, size_t len, size_t max_len,
                                     struct stackline *out);

/* Checks that bytes are printable: no C0 control bytes or DEL, and valid
 * UTF-8. Returns STACKLINE_OK, STACKLINE_CONTROL_CHAR or STACKLINE_INVALID_UTF8. */
enum stackline_error stackline_check_bytes(const char *p, size_t len);

/* Whether `name` (len bytes) may be a tag: 1..STACKLINE_TAG_MAX bytes of
 * dot-separated, non-empty components of [A-Za-z0-9_-], none of them "all",
 * "reversed" or "diff" and none starting with "fn-". Those are the words the
 * file names around a tag are made of (<bucket>.all.log,
 * <bucket>.<tag>.reversed.svgz, <bucket>.all.fn-<Label>.svgz,
 * <bucket>.<tag>.diff[.reversed].svgz): a tag made of
 * them could name another log's file or graph. The writer (arclamp-log) and
 * the readers (arclamp-svg) apply this one rule, so names stay injective. */
int stackline_tag_name_ok(const char *name, size_t len);

/* Why a first frame ending in ".php" got no tag, for the caller's counters. */
enum stackline_tag_result {
    STACKLINE_TAG_NONE = 0,     /* no ".php" file name: the line is "all" only */
    STACKLINE_TAG_OK,           /* `tag` holds the tag */
    STACKLINE_TAG_REFUSED,      /* a ".php" name that is not a valid tag */
};

/* The entry point tag of a stack: the first frame's file name without ".php"
 * when the first frame ends in ".php" and stackline_tag_name_ok() accepts the
 * name. Writes it NUL-terminated to `tag` (size at least STACKLINE_TAG_MAX + 1)
 * and returns its length, or returns 0 for no tag; `why`, when not NULL, says
 * which. */
size_t stackline_tag(const char *stack, size_t stack_len, char *tag,
                     enum stackline_tag_result *why);

#endif
