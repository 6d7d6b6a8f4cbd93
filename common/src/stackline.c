/* stackline: parsing and validation of collapsed stack sample lines.
 * See stackline.h for the format. The byte check runs on every byte the
 * daemon receives and every byte export reads, so it is one pass over
 * blocks of ASCII bytes (see "Why the byte checks" below). */
#include "stackline.h"
#include "linefields.h"

#include <string.h>

static const char *const error_names[STACKLINE_NERRORS] = {
    [STACKLINE_OK] = "ok",
    [STACKLINE_EMPTY] = "empty",
    [STACKLINE_TOO_LONG] = "too_long",
    [STACKLINE_CONTROL_CHAR] = "control_char",
    [STACKLINE_INVALID_UTF8] = "invalid_utf8",
    [STACKLINE_NO_COUNT] = "no_count",
    [STACKLINE_BAD_COUNT] = "bad_count",
    [STACKLINE_EMPTY_FRAME] = "empty_frame",
};

const char *stackline_error_name(enum stackline_error err)
{
    if ((unsigned)err >= STACKLINE_NERRORS)
        return "unknown";
    return error_names[err];
}

/* Why the byte checks are shaped as they are: they run on every byte the
 * daemon receives and every byte `arclamp-svg export` reads (a day's log is
 * gigabytes), and perf put them at a third of export's CPU when they were
 * two passes of eight bytes at a time (stackline_parse then ran at about
 * 2.7 GB/s; this shape at about 10 GB/s on the same lines, bench/README.md).
 * So a line is read once, in blocks of printable ASCII (almost all of a
 * stack line), and that one pass also looks for the empty frame pairs ";;",
 * "; " and " ;".
 *
 * The block loop is plain C over a constant number of bytes, with no early
 * exit and only bitwise operators, because that is the shape compilers turn
 * into vector instructions (GCC does at -O2, and clang): no intrinsics, and
 * the same answer where they do not. A pair is a byte and the byte before it
 * in memory, so no state crosses from block to block: the loop reads the
 * byte before the block, which is why the first byte of a line never goes
 * through it.
 *
 * Bytes that are not printable ASCII go one at a time (a UTF-8 sequence at a
 * time) through the same rules, as do short lines and the first byte; after
 * a block that had such a byte, the next SMALL_BLOCK bytes go that way too,
 * so that a line full of multibyte characters costs about a byte loop, not
 * a failed block per character (such lines are rare in PHP stacks, and this
 * path is slower than the old word loop on them). The end of a longer line
 * is one more block overlapping the one before: bytes read twice give the
 * same answer. The unit tests compare all of this with a plain byte-by-byte
 * reference at every offset (test-stackline-ref.c). */

/* The block sizes: big blocks for the bulk of a line (the larger, the less
 * the per-block reduction and branch cost), small ones for short lines, the
 * ends of lines and the stretches between non-ASCII bytes. */
enum { BIG_BLOCK = 128, SMALL_BLOCK = 16 };

/* Whether `c`, after `before`, makes an empty or space-padded frame. */
static inline unsigned char bad_pair(unsigned char before, unsigned char c)
{
    return (unsigned char)(((c == ';') & ((before == ';') | (before == ' '))) |
                           ((c == ' ') & (before == ';')));
}

static inline unsigned char not_printable_ascii(unsigned char c)
{
    return (unsigned char)((c < 0x20) | (c > 0x7e));
}

/* Whether the `size` bytes at p are all printable ASCII. `size` is a
 * constant at every call, so the loop has a fixed count. */
static inline int block_is_printable(const unsigned char *p, size_t size)
{
    /* bytes, not ints: eight-bit lanes, sixteen to a vector */
    unsigned char odd = 0;
    for (size_t k = 0; k < size; k++)
        odd |= not_printable_ascii(p[k]);
    return odd == 0;
}

/* The same, and ORs into *pairs whether any of the bytes makes a bad pair
 * with the byte before it (p - 1 must be a byte of the line). */
static inline int block_is_printable_pairs(const unsigned char *p, size_t size, unsigned *pairs)
{
    const unsigned char *before = p - 1;
    unsigned char odd = 0, bad = 0;
    for (size_t k = 0; k < size; k++) {
        odd |= not_printable_ascii(p[k]);
        bad |= bad_pair(before[k], p[k]);
    }
    *pairs |= bad;
    return odd == 0;
}

/* Past the block of `size` bytes at i (the line's last `size` bytes when
 * fewer are left) when it is all printable ASCII; else i. Never at i == 0,
 * where there is no byte before, nor on lines of `size` bytes or fewer. */
static inline size_t skip_block(const unsigned char *p, size_t len, size_t i, size_t size,
                                int want_pairs, unsigned *pairs)
{
    if (i == 0 || len <= size)
        return i;
    size_t at = len - i >= size ? i : len - size;
    int ok = want_pairs ? block_is_printable_pairs(p + at, size, pairs)
                        : block_is_printable(p + at, size);
    return ok ? at + size : i;
}

/* What one pass over a line found. */
struct byte_scan {
    enum stackline_error err; /* the first bad byte: CONTROL_CHAR or INVALID_UTF8 */
    int bad_pair;             /* ";;", "; " or " ;" occurs (when asked for) */
};

/* The byte rules (see stackline_check_bytes) and, with want_pairs, whether a
 * ';' touches another ';' or a space. A byte error wins: the pair answer is
 * meaningful only when err is STACKLINE_OK. */
static inline struct byte_scan scan_bytes(const unsigned char *p, size_t len, int want_pairs)
{
    unsigned pairs = 0;
    size_t i = 0;
    size_t slow_until = 1;       /* bytes one at a time up to here */
    size_t no_big_until = 0;     /* a big block failed: not again before here */
    while (i < len) {
        if (i >= slow_until) {
            size_t next = i;
            if (i >= no_big_until) {
                next = skip_block(p, len, i, BIG_BLOCK, want_pairs, &pairs);
                if (next == i)
                    no_big_until = i + BIG_BLOCK;
            }
            if (next == i)
                next = skip_block(p, len, i, SMALL_BLOCK, want_pairs, &pairs);
            if (next != i) {
                i = next;
                continue;
            }
            slow_until = i + SMALL_BLOCK;
        }
        unsigned char c = p[i];
        if (!not_printable_ascii(c)) {
            if (want_pairs && i > 0)
                pairs |= bad_pair(p[i - 1], c);
            i++;
            continue;
        }
        if (c < 0x20 || c == 0x7f)
            return (struct byte_scan){STACKLINE_CONTROL_CHAR, 0};
        size_t n = linefields_utf8_len(p + i, len - i);
        if (n == 0)
            return (struct byte_scan){STACKLINE_INVALID_UTF8, 0};
        i += n;
    }
    return (struct byte_scan){STACKLINE_OK, pairs != 0};
}

enum stackline_error stackline_check_bytes(const char *s, size_t len)
{
    return scan_bytes((const unsigned char *)s, len, 0).err;
}

static enum stackline_error parse_count(const char *p, size_t len, uint32_t *count)
{
    if (len == 0 || !strchr("+-0123456789", p[0]))
        return STACKLINE_NO_COUNT;
    if (p[0] == '0' || len > 10)
        return STACKLINE_BAD_COUNT;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return STACKLINE_BAD_COUNT;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    if (v == 0 || v > UINT32_MAX)
        return STACKLINE_BAD_COUNT;
    *count = (uint32_t)v;
    return STACKLINE_OK;
}

enum stackline_error stackline_parse(const char *line, size_t len, size_t max_len,
                                     struct stackline *out)
{
    if (len == 0)
        return STACKLINE_EMPTY;
    if (max_len && len > max_len)
        return STACKLINE_TOO_LONG;
    struct byte_scan scan = scan_bytes((const unsigned char *)line, len, 1);
    if (scan.err != STACKLINE_OK)
        return scan.err;

    const char *space = memrchr(line, ' ', len);
    if (!space)
        return STACKLINE_NO_COUNT;
    size_t stack_len = (size_t)(space - line);
    enum stackline_error err = parse_count(space + 1, len - stack_len - 1, &out->count);
    if (err != STACKLINE_OK)
        return err;

    /* The pairs were looked for in the whole line, count included. With a
     * valid count that is the same as in the stack alone: after the stack
     * come one space and digits, so the only pair that is not wholly in the
     * stack is "; " where the stack ends in ';', refused here anyway. */
    if (stack_len == 0 || line[0] == ';' || line[0] == ' ' || line[stack_len - 1] == ';' ||
        line[stack_len - 1] == ' ' || scan.bad_pair)
        return STACKLINE_EMPTY_FRAME;
    out->stack = line;
    out->stack_len = stack_len;
    return STACKLINE_OK;
}

static int is_tag_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

static int is_reserved_component(const char *c, size_t len)
{
    return (len == 3 && memcmp(c, "all", 3) == 0) ||
           (len == 8 && memcmp(c, "reversed", 8) == 0) ||
           (len == 4 && memcmp(c, "diff", 4) == 0) ||
           (len >= 3 && memcmp(c, "fn-", 3) == 0);
}

int stackline_tag_name_ok(const char *name, size_t len)
{
    if (len == 0 || len > STACKLINE_TAG_MAX)
        return 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && name[i] != '.') {
            if (!is_tag_char((unsigned char)name[i]))
                return 0;
            continue;
        }
        if (i == start || is_reserved_component(name + start, i - start))
            return 0;
        start = i + 1;
    }
    return 1;
}

size_t stackline_tag(const char *stack, size_t stack_len, char *tag,
                     enum stackline_tag_result *why)
{
    const char *end = memchr(stack, ';', stack_len);
    size_t first_len = end ? (size_t)(end - stack) : stack_len;
    const char *slash = memrchr(stack, '/', first_len);
    const char *name = slash ? slash + 1 : stack;
    size_t name_len = first_len - (size_t)(name - stack);

    if (why)
        *why = STACKLINE_TAG_NONE;
    if (name_len <= 4 || memcmp(name + name_len - 4, ".php", 4) != 0)
        return 0;
    name_len -= 4;
    if (!stackline_tag_name_ok(name, name_len)) {
        if (why)
            *why = STACKLINE_TAG_REFUSED;
        return 0;
    }
    memcpy(tag, name, name_len);
    tag[name_len] = '\0';
    if (why)
        *why = STACKLINE_TAG_OK;
    return name_len;
}
