/* Tests that stackline's word-at-a-time validator answers exactly what a
 * plain byte-by-byte reading of the format answers.
 *
 * Why: stackline_parse and stackline_check_bytes test eight bytes at a time
 * and look for empty frames in the same pass (stackline.c says why). A word
 * trick that is wrong in one byte position, or at a word boundary, or after
 * a multibyte sequence, would accept or refuse lines the format does not, or
 * give another reason (the reasons are metric labels). So the reference
 * below is written from the format's definition, not from the
 * implementation: it decodes UTF-8 to code points, splits the stack into
 * frames, and reads the count as a number. Every line is compared on the
 * error, and on a valid line on the stack and the count too.
 *
 * The lines: every byte value and every boundary sequence (overlong,
 * surrogate, above U+10FFFF, truncated) at every offset of lines of 0-40
 * bytes, separators at the end, and a bounded number of random lines (fixed
 * seed, so a failure repeats). Each line is copied to a buffer of its exact
 * size, so that a read past its end is caught by ASan in the asan build. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stackline.h"
#include "test-suites.h"

/* --- the reference ---------------------------------------------------------- */

/* The length of a well-formed UTF-8 sequence at p (p[0] >= 0x80), or 0:
 * decoded to a code point, refused when overlong, a surrogate or above
 * U+10FFFF (RFC 3629). */
static size_t ref_utf8_len(const unsigned char *p, size_t avail)
{
    size_t n;
    uint32_t cp, min;
    if ((p[0] & 0xe0) == 0xc0) {
        n = 2, cp = p[0] & 0x1fu, min = 0x80;
    } else if ((p[0] & 0xf0) == 0xe0) {
        n = 3, cp = p[0] & 0x0fu, min = 0x800;
    } else if ((p[0] & 0xf8) == 0xf0) {
        n = 4, cp = p[0] & 0x07u, min = 0x10000;
    } else {
        return 0; /* a continuation byte or 0xf8..0xff */
    }
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return n;
}

static enum stackline_error ref_check_bytes(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len;) {
        if (p[i] < 0x20 || p[i] == 0x7f)
            return STACKLINE_CONTROL_CHAR;
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = ref_utf8_len(p + i, len - i);
        if (n == 0)
            return STACKLINE_INVALID_UTF8;
        i += n;
    }
    return STACKLINE_OK;
}

/* The count after the last space: NO_COUNT when it does not start like a
 * number (a digit or a sign), BAD_COUNT when it is not 1..UINT32_MAX written
 * plainly (no sign, no leading zero). */
static enum stackline_error ref_count(const unsigned char *p, size_t len, uint32_t *count)
{
    if (len == 0 || !((p[0] >= '0' && p[0] <= '9') || p[0] == '+' || p[0] == '-'))
        return STACKLINE_NO_COUNT;
    if (p[0] == '0')
        return STACKLINE_BAD_COUNT;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return STACKLINE_BAD_COUNT;
        v = v * 10 + (p[i] - '0');
        if (v > UINT32_MAX)
            return STACKLINE_BAD_COUNT;
    }
    *count = (uint32_t)v;
    return STACKLINE_OK;
}

/* Every frame (the stack split at each ';') is non-empty and neither starts
 * nor ends with a space. */
static int ref_frames_ok(const unsigned char *s, size_t len)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != ';')
            continue;
        if (i == start || s[start] == ' ' || s[i - 1] == ' ')
            return 0;
        start = i + 1;
    }
    return 1;
}

static enum stackline_error ref_parse(const unsigned char *p, size_t len, size_t max_len,
                                      size_t *stack_len, uint32_t *count)
{
    if (len == 0)
        return STACKLINE_EMPTY;
    if (max_len && len > max_len)
        return STACKLINE_TOO_LONG;
    enum stackline_error err = ref_check_bytes(p, len);
    if (err != STACKLINE_OK)
        return err;
    size_t last_space = len;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == ' ')
            last_space = i;
    }
    if (last_space == len)
        return STACKLINE_NO_COUNT;
    err = ref_count(p + last_space + 1, len - last_space - 1, count);
    if (err != STACKLINE_OK)
        return err;
    if (!ref_frames_ok(p, last_space))
        return STACKLINE_EMPTY_FRAME;
    *stack_len = last_space;
    return STACKLINE_OK;
}

/* --- comparing ------------------------------------------------------------- */

static char *hex_of(const unsigned char *p, size_t len, char *buf, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 4 < size; i++) {
        static const char digits[] = "0123456789abcdef";
        buf[o++] = digits[p[i] >> 4];
        buf[o++] = digits[p[i] & 15];
        buf[o++] = ' ';
    }
    buf[o] = '\0';
    return buf;
}

/* Compares stackline with the reference on `line`, copied to a buffer of
 * exactly len bytes. */
static void compare_line(const unsigned char *line, size_t len, size_t max_len)
{
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy)
        ck_abort_msg("out of memory");
    if (len)
        memcpy(copy, line, len);
    char hex[3 * 64 + 1];

    /* ck_assert records every passing check (a write each): millions of
     * lines are compared, so only a mismatch calls into Check. */
    enum stackline_error want_bytes = ref_check_bytes(copy, len);
    enum stackline_error got_bytes = stackline_check_bytes((const char *)copy, len);
    if (got_bytes != want_bytes)
        ck_abort_msg("check_bytes(%s) = %s, reference %s", hex_of(copy, len, hex, sizeof hex),
                     stackline_error_name(got_bytes), stackline_error_name(want_bytes));

    size_t want_stack = 0;
    uint32_t want_count = 0;
    enum stackline_error want = ref_parse(copy, len, max_len, &want_stack, &want_count);
    struct stackline sl = {0};
    enum stackline_error got = stackline_parse((const char *)copy, len, max_len, &sl);
    if (got != want)
        ck_abort_msg("parse(%s, max %zu) = %s, reference %s", hex_of(copy, len, hex, sizeof hex),
                     max_len, stackline_error_name(got), stackline_error_name(want));
    if (want == STACKLINE_OK &&
        (sl.stack != (const char *)copy || sl.stack_len != want_stack || sl.count != want_count))
        ck_abort_msg("parse(%s): stack of %zu bytes, count %u; reference %zu, %u",
                     hex_of(copy, len, hex, sizeof hex), sl.stack_len, (unsigned)sl.count,
                     want_stack, (unsigned)want_count);
    free(copy);
}

/* --- the lines ---------------------------------------------------------------- */

/* Sequences at the edges of the UTF-8 rules (each given with its length, as
 * some hold NUL). */
struct seq {
    const char *bytes;
    size_t len;
};
#define SEQ(lit) {lit, sizeof(lit) - 1}

static const struct seq boundary_seqs[] = {
    /* valid: the first and last code point of each length and around the gaps */
    SEQ("\xc2\x80"), SEQ("\xdf\xbf"), SEQ("\xe0\xa0\x80"), SEQ("\xed\x9f\xbf"),
    SEQ("\xee\x80\x80"), SEQ("\xef\xbf\xbf"), SEQ("\xf0\x90\x80\x80"), SEQ("\xf4\x8f\xbf\xbf"),
    SEQ("\xc3\xa9"), SEQ("\xe2\x82\xac"), SEQ("\xf0\x9d\x84\x9e"),
    /* overlong */
    SEQ("\xc0\x80"), SEQ("\xc1\xbf"), SEQ("\xe0\x80\x80"), SEQ("\xe0\x9f\xbf"),
    SEQ("\xf0\x80\x80\x80"), SEQ("\xf0\x8f\xbf\xbf"),
    /* surrogates */
    SEQ("\xed\xa0\x80"), SEQ("\xed\xbf\xbf"), SEQ("\xed\xb0\x80"),
    /* above U+10FFFF, and lead bytes no sequence has */
    SEQ("\xf4\x90\x80\x80"), SEQ("\xf5\x80\x80\x80"), SEQ("\xf7\xbf\xbf\xbf"),
    SEQ("\xf8\x88\x80\x80\x80"), SEQ("\xfc\x84\x80\x80\x80\x80"), SEQ("\xfe"), SEQ("\xff"),
    /* truncated, and a continuation too many */
    SEQ("\xc3"), SEQ("\xe2\x82"), SEQ("\xf0\x9d\x84"), SEQ("\xe2"), SEQ("\xf0"),
    SEQ("\xf0\x9d"), SEQ("\xc3\xa9\xa9"), SEQ("\x80"), SEQ("\xbf"),
    /* a bad byte in place of a continuation */
    SEQ("\xe2\x0a\xac"), SEQ("\xe2\x82\x20"), SEQ("\xc3;"), SEQ("\xf0\x9d\x84 "),
    SEQ("\xe2\x82\x7f"), SEQ("\xc3\xc3\xa9"),
    /* the separators and pairs of them */
    SEQ(";"), SEQ(" "), SEQ(";;"), SEQ("; "), SEQ(" ;"), SEQ("  "), SEQ(" 1"), SEQ("; 1"),
};

/* The same line with `ins` written over it at `off` (clipped to the line). */
static void put(unsigned char *line, size_t len, size_t off, const char *ins, size_t ins_len)
{
    for (size_t i = 0; i < ins_len && off + i < len; i++)
        line[off + i] = (unsigned char)ins[i];
}

/* Ends a line of `len` bytes in each way a stack line can end: a count, a
 * separator before the count, a separator or sign at the very end. */
static const char *const endings[] = {"", " 1", " 42", ";", " ", "; 1", "  1", " ;", "; ",
                                      " 0", " 01", " -1", " 4294967295", " 4294967296", " 1 "};

START_TEST(every_byte_value_at_every_offset_matches_the_reference)
{
    /* One byte among frames of ASCII ("ab;ab;...") and among multibyte
     * characters and spaces, in lines of 0-40 bytes, at every offset, with
     * a count, without one, and with a separator at the end. */
    static const char *const fillers[] = {"ab;", "x\xc3\xa9 "};
    static const char *const few_endings[] = {"", " 1", ";", "; 1"};
    for (size_t f = 0; f < sizeof fillers / sizeof *fillers; f++) {
        size_t flen = strlen(fillers[f]);
        for (int c = 0; c < 256; c++) {
            for (size_t len = 0; len <= 40; len++) {
                for (size_t off = 0; off <= len; off++) {
                    for (size_t e = 0; e < sizeof few_endings / sizeof *few_endings; e++) {
                        unsigned char line[64];
                        for (size_t i = 0; i < len; i++)
                            line[i] = (unsigned char)fillers[f][i % flen];
                        if (off < len)
                            line[off] = (unsigned char)c;
                        size_t elen = strlen(few_endings[e]);
                        memcpy(line + len, few_endings[e], elen);
                        compare_line(line, len + elen, 0);
                    }
                }
            }
        }
    }
}
END_TEST

START_TEST(boundary_sequences_at_every_offset_match_the_reference)
{
    /* Each sequence at every offset 0..40 (so at every position mod 8, and
     * across word boundaries), in lines of every length to 40, alone, before
     * a count and cut at every length (a sequence truncated by the end). */
    for (size_t s = 0; s < sizeof boundary_seqs / sizeof *boundary_seqs; s++) {
        const struct seq *q = &boundary_seqs[s];
        for (size_t len = 0; len <= 40; len++) {
            for (size_t off = 0; off <= len; off++) {
                for (size_t e = 0; e < sizeof endings / sizeof *endings; e++) {
                    unsigned char line[64];
                    memset(line, 'a', len);
                    put(line, len, off, q->bytes, q->len);
                    size_t elen = strlen(endings[e]);
                    memcpy(line + len, endings[e], elen);
                    compare_line(line, len + elen, 0);
                }
                /* the sequence as the last bytes, then nothing */
                unsigned char line[64];
                memset(line, 'a', off);
                memcpy(line + off, q->bytes, q->len);
                compare_line(line, off + q->len, 0);
            }
        }
    }
}
END_TEST

START_TEST(pairs_of_boundary_sequences_match_the_reference)
{
    /* Two sequences next to each other and one byte apart, at every offset
     * mod 8 of a 24-byte line, with a count: a bad sequence right after a
     * good one, separators around multibyte sequences. */
    size_t n = sizeof boundary_seqs / sizeof *boundary_seqs;
    for (size_t a = 0; a < n; a++) {
        for (size_t b = 0; b < n; b++) {
            for (size_t off = 0; off < 16; off++) {
                for (size_t gap = 0; gap <= 1; gap++) {
                    unsigned char line[64];
                    memset(line, 'z', 24);
                    put(line, 24, off, boundary_seqs[a].bytes, boundary_seqs[a].len);
                    put(line, 24, off + boundary_seqs[a].len + gap, boundary_seqs[b].bytes,
                        boundary_seqs[b].len);
                    memcpy(line + 24, " 7", 2);
                    compare_line(line, 26, 0);
                }
            }
        }
    }
}
END_TEST

START_TEST(long_lines_with_a_sequence_at_every_offset_match_the_reference)
{
    /* Lines longer than the validator's blocks (16 and 128 bytes), with a
     * separator pair, a control byte or a boundary sequence at every offset:
     * inside a block, across two, in the overlapping last block, and at the
     * line's end. */
    static const size_t lengths[] = {17, 31, 32, 33, 127, 128, 129, 130, 143, 144, 145, 256, 257, 300};
    static const struct seq odd[] = {SEQ(";;"), SEQ("; "), SEQ(" ;"), SEQ(";"), SEQ(" "),
                                     SEQ("\0"), SEQ("\t"), SEQ("\x7f"), SEQ("\x80"), SEQ("\xff"),
                                     SEQ("\xc3\xa9"), SEQ("\xe2\x82"), SEQ("\xed\xa0\x80"),
                                     SEQ("\xf0\x9d\x84\x9e"), SEQ("\xc3\xa9;;")};
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
        for (size_t o = 0; o < sizeof odd / sizeof *odd; o++) {
            for (size_t off = 0; off <= lengths[l]; off++) {
                unsigned char line[320];
                size_t len = lengths[l];
                for (size_t k = 0; k < len; k++)
                    line[k] = k % 9 == 4 ? ';' : 'f';
                put(line, len, off, odd[o].bytes, odd[o].len);
                memcpy(line + len, " 5", 2);
                compare_line(line, len + 2, 0);
                compare_line(line, len, 0);
            }
        }
    }
}
END_TEST

/* xorshift64*: a fixed-seed generator, so that a failing line repeats. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static size_t below(uint64_t *state, size_t n)
{
    return (size_t)(next_random(state) % n);
}

/* A line made of pieces: frame text, separators, boundary sequences, any
 * byte, and a count, then possibly cut short. */
static size_t random_line(uint64_t *state, unsigned char *line, size_t cap)
{
    static const char *const words[] = {"a", "main", "Foo::bar", "{closure}", "/w/index.php",
                                        "x y", "0", "9", "-", "+"};
    static const char *const counts[] = {" 1",  " 7",         " 10",         " 4294967295",
                                         " 0",  " 01",        " 4294967296", " 99999999999",
                                         " -3", " 1x",        " ",           ""};
    size_t len = 0, pieces = below(state, 12);
    for (size_t k = 0; k < pieces && len + 8 < cap; k++) {
        size_t r = below(state, 16);
        const char *p;
        size_t plen;
        unsigned char byte;
        if (r < 6) {
            p = words[below(state, sizeof words / sizeof *words)];
            plen = strlen(p);
        } else if (r < 9) {
            p = r == 6 ? ";" : r == 7 ? " " : ";;";
            plen = strlen(p);
        } else if (r < 13) {
            const struct seq *q = &boundary_seqs[below(state, sizeof boundary_seqs / sizeof *boundary_seqs)];
            p = q->bytes;
            plen = q->len;
        } else {
            byte = (unsigned char)next_random(state);
            p = (const char *)&byte;
            plen = 1;
        }
        if (len + plen > cap)
            break;
        memcpy(line + len, p, plen);
        len += plen;
    }
    const char *c = counts[below(state, sizeof counts / sizeof *counts)];
    if (len + strlen(c) <= cap) {
        memcpy(line + len, c, strlen(c));
        len += strlen(c);
    }
    if (below(state, 4) == 0)
        len = below(state, len + 1); /* cut anywhere, mid-sequence too */
    return len;
}

START_TEST(random_lines_match_the_reference)
{
    uint64_t state = 0x9e3779b97f4a7c15ULL; /* fixed: a failure repeats */
    for (int i = 0; i < 300000; i++) {
        unsigned char line[200];
        size_t len;
        if (i % 3 == 0) {
            /* bytes from a small alphabet: separators, digits, a multibyte
             * sequence and its parts, control bytes */
            static const unsigned char alphabet[] = {'a', ';', ' ', '1', '0', 0xc3, 0xa9,
                                                     0xe2, 0x82, 0xac, 0x00, 0x7f, 0x1f, 0x80};
            len = below(&state, 41);
            for (size_t k = 0; k < len; k++)
                line[k] = alphabet[below(&state, sizeof alphabet)];
        } else {
            len = random_line(&state, line, below(&state, 4) == 0 ? sizeof line : 41);
        }
        /* no limit mostly, sometimes a limit around the length */
        size_t max_len = below(&state, 4) == 0 ? below(&state, len + 3) : 0;
        compare_line(line, len, max_len);
    }
}
END_TEST

START_TEST(long_lines_with_one_odd_byte_match_the_reference)
{
    /* Realistic lengths (many words of the fast path, then the tail), with
     * one separator pair, control byte or bad sequence far into the line. */
    uint64_t state = 42;
    for (int i = 0; i < 20000; i++) {
        unsigned char line[600];
        size_t len = 16 + below(&state, 500);
        for (size_t k = 0; k < len; k++)
            line[k] = "abcdefghij:/._"[below(&state, 14)];
        for (size_t k = below(&state, 9); k < len; k += 5 + below(&state, 40))
            line[k] = ';';
        line[0] = 'm';
        const struct seq *q = &boundary_seqs[below(&state, sizeof boundary_seqs / sizeof *boundary_seqs)];
        put(line, len, below(&state, len), q->bytes, q->len);
        if (below(&state, 2))
            line[below(&state, len)] = (unsigned char)next_random(&state);
        memcpy(line + len, " 3", 2);
        compare_line(line, len + 2, 0);
    }
}
END_TEST

START_TEST(reference_agrees_with_the_documented_examples)
{
    /* The reference itself is checked against lines whose answer the
     * format fixes, so that the comparisons above compare with something
     * right. */
    size_t sl = 0;
    uint32_t c = 0;
#define REF(lit) ref_parse((const unsigned char *)(lit), sizeof(lit) - 1, 0, &sl, &c)
    ck_assert_int_eq(REF("a;b 1"), STACKLINE_OK);
    ck_assert_uint_eq(sl, 3);
    ck_assert_uint_eq(c, 1);
    ck_assert_int_eq(REF("a b;c  d;e 12"), STACKLINE_OK);
    ck_assert_int_eq(REF("\xf4\x8f\xbf\xbf 4294967295"), STACKLINE_OK);
    ck_assert_int_eq(REF(""), STACKLINE_EMPTY);
    ck_assert_int_eq(REF("a\tb 1"), STACKLINE_CONTROL_CHAR);
    ck_assert_int_eq(REF("a\xe2\x0a\xac 1"), STACKLINE_INVALID_UTF8);
    ck_assert_int_eq(REF("a\xed\xa0\x80 1"), STACKLINE_INVALID_UTF8);
    ck_assert_int_eq(REF("a\xf0\x8f\xbf\xbf 1"), STACKLINE_INVALID_UTF8);
    ck_assert_int_eq(REF("a\xf4\x90\x80\x80 1"), STACKLINE_INVALID_UTF8);
    ck_assert_int_eq(REF("a;b"), STACKLINE_NO_COUNT);
    ck_assert_int_eq(REF("a;b x"), STACKLINE_NO_COUNT);
    ck_assert_int_eq(REF("a;b -1"), STACKLINE_BAD_COUNT);
    ck_assert_int_eq(REF("a;b 4294967296"), STACKLINE_BAD_COUNT);
    ck_assert_int_eq(REF("a;;b 1"), STACKLINE_EMPTY_FRAME);
    ck_assert_int_eq(REF("a; b 1"), STACKLINE_EMPTY_FRAME);
    ck_assert_int_eq(REF("a ;b 1"), STACKLINE_EMPTY_FRAME);
    ck_assert_int_eq(REF("a;b; 1"), STACKLINE_EMPTY_FRAME);
    ck_assert_int_eq(REF("a;b  1"), STACKLINE_EMPTY_FRAME);
    ck_assert_int_eq(REF(" 1"), STACKLINE_EMPTY_FRAME);
    ck_assert_int_eq(REF(";a 1"), STACKLINE_EMPTY_FRAME);
#undef REF
}
END_TEST

Suite *stackline_ref_suite(void)
{
    Suite *s = suite_create("stackline_ref");
    TCase *tc = tcase_create("reference");
    /* about a minute under ASan on a loaded 2-core machine; the runner
     * multiplies timeouts by CK_TIMEOUT_MULTIPLIER */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reference_agrees_with_the_documented_examples);
    tcase_add_test(tc, every_byte_value_at_every_offset_matches_the_reference);
    tcase_add_test(tc, boundary_sequences_at_every_offset_match_the_reference);
    tcase_add_test(tc, pairs_of_boundary_sequences_match_the_reference);
    tcase_add_test(tc, long_lines_with_a_sequence_at_every_offset_match_the_reference);
    tcase_add_test(tc, random_lines_match_the_reference);
    tcase_add_test(tc, long_lines_with_one_odd_byte_match_the_reference);
    suite_add_tcase(s, tc);
    return s;
}
