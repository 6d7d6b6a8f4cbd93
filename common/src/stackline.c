/* stackline: parsing and validation of collapsed stack sample lines.
 * See stackline.h for the format. The byte check runs on every byte the
 * daemon receives, so it tests eight ASCII bytes at a time. */
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

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* True when all eight bytes are printable ASCII (0x20..0x7e). */
static int word_is_printable_ascii(uint64_t w)
{
    uint64_t high = w & HIGHS;
    uint64_t below_space = (w - 0x20 * ONES) & ~w & HIGHS;
    uint64_t x = w ^ (0x7f * ONES);
    uint64_t del = (x - ONES) & ~x & HIGHS;
    return (high | below_space | del) == 0;
}

enum stackline_error stackline_check_bytes(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        if (len - i >= 8) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (word_is_printable_ascii(w)) {
                i += 8;
                continue;
            }
        }
        unsigned char c = p[i];
        if (c < 0x20 || c == 0x7f)
            return STACKLINE_CONTROL_CHAR;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n = linefields_utf8_len(p + i, len - i);
        if (n == 0)
            return STACKLINE_INVALID_UTF8;
        i += n;
    }
    return STACKLINE_OK;
}

/* Per-byte flags (0x80) of the bytes of w equal to c, exact for every byte. */
static uint64_t bytes_equal(uint64_t w, unsigned char c)
{
    uint64_t x = w ^ (c * ONES);
    return ~(((x & ~HIGHS) + ~HIGHS) | x) & HIGHS;
}

/* True when a frame is empty or space-padded: ";;", "; " or " ;" occurs.
 * One SWAR pass (memmem for ";;" alone was a tenth of the daemon's CPU). */
static int has_bad_frame_boundary(const char *s, size_t len)
{
    uint64_t prev_semi = 0, prev_space = 0; /* the previous byte was ';' / ' ' */
    size_t i = 0;
    /* The carries below assume the first byte is the word's lowest. */
    const int little_endian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    for (; little_endian && i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t semi = bytes_equal(w, ';');
        uint64_t space = bytes_equal(w, ' ');
        /* Flags of the byte before each byte, across the word boundary too. */
        uint64_t semi_before = (semi << 8) | (prev_semi << 7);
        uint64_t space_before = (space << 8) | (prev_space << 7);
        if ((semi & (semi_before | space_before)) | (space & semi_before))
            return 1;
        prev_semi = semi >> 63;
        prev_space = space >> 63;
    }
    for (; i < len; i++) {
        uint64_t semi = s[i] == ';', space = s[i] == ' ';
        if ((semi && (prev_semi || prev_space)) || (space && prev_semi))
            return 1;
        prev_semi = semi;
        prev_space = space;
    }
    return 0;
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
    enum stackline_error err = stackline_check_bytes(line, len);
    if (err != STACKLINE_OK)
        return err;

    const char *space = memrchr(line, ' ', len);
    if (!space)
        return STACKLINE_NO_COUNT;
    size_t stack_len = (size_t)(space - line);
    err = parse_count(space + 1, len - stack_len - 1, &out->count);
    if (err != STACKLINE_OK)
        return err;

    if (stack_len == 0 || line[0] == ';' || line[0] == ' ' || line[stack_len - 1] == ';' ||
        line[stack_len - 1] == ' ' || has_bad_frame_boundary(line, stack_len))
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
