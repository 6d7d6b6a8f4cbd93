/* Tests of stackline: sample line validation, the block fast path and the
 * entry point tag rules. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stackline.h"
#include "test-suites.h"

/* Parses a string literal (embedded NULs allowed) with no length limit. */
#define PARSE_LIT(lit, out) stackline_parse((lit), sizeof(lit) - 1, 0, (out))

#define ASSERT_PARSE_ERR(lit, expected)                                                     \
    do {                                                                                    \
        struct stackline sl_;                                                               \
        enum stackline_error e_ = PARSE_LIT(lit, &sl_);                                     \
        ck_assert_msg(e_ == (expected), "parse(%s) = %s, expected %s", #lit,                \
                      stackline_error_name(e_), stackline_error_name(expected));            \
    } while (0)

static size_t tag_of(const char *stack, char *tag)
{
    return stackline_tag(stack, strlen(stack), tag, NULL);
}

/* --- valid lines -------------------------------------------------------- */

START_TEST(accepts_simple_line_and_splits_stack_and_count)
{
    static const char line[] = "/srv/mediawiki/index.php;main;Foo::bar 7";
    struct stackline sl;
    ck_assert_int_eq(PARSE_LIT(line, &sl), STACKLINE_OK);
    ck_assert_ptr_eq(sl.stack, line);
    ck_assert_uint_eq(sl.stack_len, strlen("/srv/mediawiki/index.php;main;Foo::bar"));
    ck_assert_uint_eq(sl.count, 7);
}
END_TEST

START_TEST(accepts_single_frame_line)
{
    struct stackline sl;
    ck_assert_int_eq(PARSE_LIT("main 1", &sl), STACKLINE_OK);
    ck_assert_uint_eq(sl.stack_len, 4);
    ck_assert_uint_eq(sl.count, 1);
}
END_TEST

START_TEST(accepts_spaces_inside_frames_and_uses_last_space_for_count)
{
    struct stackline sl;
    ck_assert_int_eq(PARSE_LIT("a b;{closure} c 12", &sl), STACKLINE_OK);
    ck_assert_uint_eq(sl.stack_len, strlen("a b;{closure} c"));
    ck_assert_uint_eq(sl.count, 12);
}
END_TEST

START_TEST(accepts_max_count_4294967295)
{
    struct stackline sl;
    ck_assert_int_eq(PARSE_LIT("a;b 4294967295", &sl), STACKLINE_OK);
    ck_assert_uint_eq(sl.count, UINT32_MAX);
}
END_TEST

START_TEST(accepts_valid_multibyte_utf8)
{
    struct stackline sl;
    /* U+0080, U+00E9, U+07FF, U+0800, U+20AC, U+D7FF, U+E000, U+FFFD,
     * U+10000, U+1D11E, U+10FFFF */
    ck_assert_int_eq(PARSE_LIT("\xc2\x80;\xc3\xa9;\xdf\xbf;\xe0\xa0\x80;\xe2\x82\xac;"
                               "\xed\x9f\xbf;\xee\x80\x80;\xef\xbf\xbd;\xf0\x90\x80\x80;"
                               "\xf0\x9d\x84\x9e;\xf4\x8f\xbf\xbf 3",
                               &sl),
                     STACKLINE_OK);
    ck_assert_uint_eq(sl.count, 3);
}
END_TEST

START_TEST(accepts_every_printable_ascii_byte)
{
    char buf[128];
    size_t n = 0;
    for (int c = 0x20; c < 0x7f; c++)
        buf[n++] = (char)c;
    ck_assert_int_eq(stackline_check_bytes(buf, n), STACKLINE_OK);
}
END_TEST

START_TEST(error_names_are_the_metric_labels)
{
    ck_assert_str_eq(stackline_error_name(STACKLINE_OK), "ok");
    ck_assert_str_eq(stackline_error_name(STACKLINE_EMPTY), "empty");
    ck_assert_str_eq(stackline_error_name(STACKLINE_TOO_LONG), "too_long");
    ck_assert_str_eq(stackline_error_name(STACKLINE_CONTROL_CHAR), "control_char");
    ck_assert_str_eq(stackline_error_name(STACKLINE_INVALID_UTF8), "invalid_utf8");
    ck_assert_str_eq(stackline_error_name(STACKLINE_NO_COUNT), "no_count");
    ck_assert_str_eq(stackline_error_name(STACKLINE_BAD_COUNT), "bad_count");
    ck_assert_str_eq(stackline_error_name(STACKLINE_EMPTY_FRAME), "empty_frame");
    ck_assert_str_eq(stackline_error_name(STACKLINE_NERRORS), "unknown");
    ck_assert_str_eq(stackline_error_name((enum stackline_error)-1), "unknown");
}
END_TEST

/* --- empty / too long ----------------------------------------------------- */

START_TEST(rejects_empty_line)
{
    struct stackline sl;
    ck_assert_int_eq(stackline_parse("", 0, 0, &sl), STACKLINE_EMPTY);
    ck_assert_int_eq(stackline_parse("", 0, 10, &sl), STACKLINE_EMPTY);
}
END_TEST

START_TEST(rejects_line_longer_than_max_len)
{
    struct stackline sl;
    const char *line = "abcdef 1"; /* 8 bytes */
    ck_assert_int_eq(stackline_parse(line, 8, 8, &sl), STACKLINE_OK);
    ck_assert_int_eq(stackline_parse(line, 8, 7, &sl), STACKLINE_TOO_LONG);
    ck_assert_int_eq(stackline_parse(line, 8, 1, &sl), STACKLINE_TOO_LONG);
}
END_TEST

START_TEST(max_len_zero_means_no_limit)
{
    static char line[300000];
    memset(line, 'a', sizeof line);
    memcpy(line + sizeof line - 2, " 1", 2);
    struct stackline sl;
    ck_assert_int_eq(stackline_parse(line, sizeof line, 0, &sl), STACKLINE_OK);
    ck_assert_uint_eq(sl.stack_len, sizeof line - 2);
}
END_TEST

START_TEST(too_long_wins_over_other_errors)
{
    struct stackline sl;
    ck_assert_int_eq(stackline_parse("a\tb;;c", 6, 5, &sl), STACKLINE_TOO_LONG);
}
END_TEST

/* --- control characters --------------------------------------------------- */

START_TEST(rejects_line_with_nul)
{
    ASSERT_PARSE_ERR("a\0b 1", STACKLINE_CONTROL_CHAR);
}
END_TEST

START_TEST(rejects_line_with_carriage_return)
{
    ASSERT_PARSE_ERR("a;b 1\r", STACKLINE_CONTROL_CHAR);
}
END_TEST

START_TEST(rejects_line_with_embedded_newline)
{
    ASSERT_PARSE_ERR("a;b\nc 1", STACKLINE_CONTROL_CHAR);
}
END_TEST

START_TEST(rejects_line_with_tab)
{
    ASSERT_PARSE_ERR("a;b\t1", STACKLINE_CONTROL_CHAR);
}
END_TEST

START_TEST(rejects_line_with_del)
{
    ASSERT_PARSE_ERR("a;b\x7f 1", STACKLINE_CONTROL_CHAR);
}
END_TEST

START_TEST(rejects_every_c0_byte_and_del)
{
    for (int c = 0; c < 0x20; c++) {
        char line[] = "abc;X 1";
        line[4] = (char)c;
        struct stackline sl;
        ck_assert_msg(stackline_parse(line, 7, 0, &sl) == STACKLINE_CONTROL_CHAR,
                      "byte 0x%02x not refused", c);
    }
    ASSERT_PARSE_ERR("abc;\x7f 1", STACKLINE_CONTROL_CHAR);
}
END_TEST

/* --- UTF-8 ---------------------------------------------------------------- */

START_TEST(rejects_overlong_utf8)
{
    ASSERT_PARSE_ERR("a\xc0\x80 1", STACKLINE_INVALID_UTF8);         /* NUL as 2 bytes */
    ASSERT_PARSE_ERR("a\xc1\xbf 1", STACKLINE_INVALID_UTF8);         /* U+007F as 2 bytes */
    ASSERT_PARSE_ERR("a\xe0\x80\xaf 1", STACKLINE_INVALID_UTF8);     /* '/' as 3 bytes */
    ASSERT_PARSE_ERR("a\xe0\x9f\xbf 1", STACKLINE_INVALID_UTF8);     /* U+07FF as 3 bytes */
    ASSERT_PARSE_ERR("a\xf0\x80\x80\xaf 1", STACKLINE_INVALID_UTF8); /* '/' as 4 bytes */
    ASSERT_PARSE_ERR("a\xf0\x8f\xbf\xbf 1", STACKLINE_INVALID_UTF8); /* U+FFFF as 4 bytes */
}
END_TEST

START_TEST(rejects_utf16_surrogates)
{
    ASSERT_PARSE_ERR("a\xed\xa0\x80 1", STACKLINE_INVALID_UTF8); /* U+D800 */
    ASSERT_PARSE_ERR("a\xed\xbf\xbf 1", STACKLINE_INVALID_UTF8); /* U+DFFF */
}
END_TEST

START_TEST(rejects_code_points_above_10ffff)
{
    ASSERT_PARSE_ERR("a\xf4\x90\x80\x80 1", STACKLINE_INVALID_UTF8); /* U+110000 */
    ASSERT_PARSE_ERR("a\xf5\x80\x80\x80 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xf7\xbf\xbf\xbf 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xf8\x88\x80\x80\x80 1", STACKLINE_INVALID_UTF8);
}
END_TEST

START_TEST(rejects_truncated_utf8_sequences)
{
    ASSERT_PARSE_ERR("a\xc3 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xe2\x82 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xf0\x9d\x84 1", STACKLINE_INVALID_UTF8);
    /* at the very end of the input, where a read past it would be the bug */
    ck_assert_int_eq(stackline_check_bytes("abc\xc3", 4), STACKLINE_INVALID_UTF8);
    ck_assert_int_eq(stackline_check_bytes("abc\xe2\x82", 5), STACKLINE_INVALID_UTF8);
    ck_assert_int_eq(stackline_check_bytes("abc\xf0\x9d\x84", 6), STACKLINE_INVALID_UTF8);
    /* a valid sequence cut by the given length */
    ck_assert_int_eq(stackline_check_bytes("\xe2\x82\xac", 2), STACKLINE_INVALID_UTF8);
    ck_assert_int_eq(stackline_check_bytes("\xe2\x82\xac", 3), STACKLINE_OK);
}
END_TEST

START_TEST(rejects_lone_continuation_and_invalid_lead_bytes)
{
    ASSERT_PARSE_ERR("a\x80 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xbf 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xfe 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xff 1", STACKLINE_INVALID_UTF8);
    ASSERT_PARSE_ERR("a\xc3\xa9\xa9 1", STACKLINE_INVALID_UTF8); /* one continuation too many */
}
END_TEST

START_TEST(rejects_control_byte_inside_multibyte_sequence_as_invalid_utf8)
{
    ASSERT_PARSE_ERR("a\xe2\x0a\xac 1", STACKLINE_INVALID_UTF8);
}
END_TEST

/* --- count ------------------------------------------------------------------ */

START_TEST(rejects_line_without_space_as_no_count)
{
    ASSERT_PARSE_ERR("a;b;c", STACKLINE_NO_COUNT);
    ASSERT_PARSE_ERR("12", STACKLINE_NO_COUNT);
}
END_TEST

START_TEST(rejects_missing_count_after_space_as_no_count)
{
    ASSERT_PARSE_ERR("a;b ", STACKLINE_NO_COUNT);
    ASSERT_PARSE_ERR("a;b c", STACKLINE_NO_COUNT);
    ASSERT_PARSE_ERR("a;b x1", STACKLINE_NO_COUNT);
}
END_TEST

START_TEST(rejects_zero_count)
{
    ASSERT_PARSE_ERR("a;b 0", STACKLINE_BAD_COUNT);
}
END_TEST

START_TEST(rejects_signed_counts)
{
    ASSERT_PARSE_ERR("a;b -1", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b +1", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b -", STACKLINE_BAD_COUNT);
}
END_TEST

START_TEST(rejects_leading_zero_count)
{
    ASSERT_PARSE_ERR("a;b 01", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b 00", STACKLINE_BAD_COUNT);
}
END_TEST

START_TEST(rejects_count_above_uint32_max)
{
    ASSERT_PARSE_ERR("a;b 4294967296", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b 9999999999", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b 18446744073709551617", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b 99999999999999999999999999999999999999", STACKLINE_BAD_COUNT);
}
END_TEST

START_TEST(rejects_count_with_trailing_garbage)
{
    ASSERT_PARSE_ERR("a;b 1x", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b 1.5", STACKLINE_BAD_COUNT);
    ASSERT_PARSE_ERR("a;b 1;", STACKLINE_BAD_COUNT);
}
END_TEST

/* --- empty frames ----------------------------------------------------------- */

START_TEST(rejects_double_semicolon_as_empty_frame)
{
    ASSERT_PARSE_ERR("a;;b 1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(rejects_leading_semicolon_as_empty_frame)
{
    ASSERT_PARSE_ERR(";a;b 1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(rejects_trailing_semicolon_before_count_as_empty_frame)
{
    ASSERT_PARSE_ERR("a;b; 1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(rejects_double_space_before_count_as_empty_frame)
{
    ASSERT_PARSE_ERR("a;b  1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(rejects_space_after_semicolon_as_empty_frame)
{
    ASSERT_PARSE_ERR("a; b 1", STACKLINE_EMPTY_FRAME);
    ASSERT_PARSE_ERR("/w/index.php; main;x 1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(rejects_space_before_semicolon_as_empty_frame)
{
    ASSERT_PARSE_ERR("a ;b 1", STACKLINE_EMPTY_FRAME);
    ASSERT_PARSE_ERR("/w/index.php;main ;x 1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(rejects_leading_space_as_empty_frame)
{
    ASSERT_PARSE_ERR(" a;b 1", STACKLINE_EMPTY_FRAME);
    ASSERT_PARSE_ERR("  a 1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(accepts_spaces_inside_frame_names)
{
    struct stackline sl;
    ck_assert_int_eq(PARSE_LIT("a b;c  d;e 1", &sl), STACKLINE_OK);
    ck_assert_uint_eq(sl.stack_len, strlen("a b;c  d;e"));
    ck_assert_int_eq(PARSE_LIT("Foo::{closure} x;y!;z\xc2\xa0;w 2", &sl), STACKLINE_OK);
}
END_TEST

START_TEST(rejects_count_without_stack_as_empty_frame)
{
    ASSERT_PARSE_ERR(" 1", STACKLINE_EMPTY_FRAME);
    ASSERT_PARSE_ERR("; 1", STACKLINE_EMPTY_FRAME);
}
END_TEST

START_TEST(finds_bad_frame_boundary_at_every_offset_and_length)
{
    /* "x...x;;x...x 1" (and "; ", " ;") at every position of stacks of 3..40
     * bytes: inside a word, across two words and in the tail. */
    static const char *const pairs[] = {";;", "; ", " ;"};
    for (size_t p = 0; p < 3; p++) {
        for (size_t slen = 3; slen <= 40; slen++) {
            for (size_t off = 1; off + 2 < slen; off++) {
                char line[64];
                memset(line, 'x', slen);
                memcpy(line + off, pairs[p], 2);
                memcpy(line + slen, " 1", 2);
                struct stackline sl;
                enum stackline_error e = stackline_parse(line, slen + 2, 0, &sl);
                ck_assert_msg(e == STACKLINE_EMPTY_FRAME, "\"%s\" at %zu of %zu: %s", pairs[p],
                              off, slen, stackline_error_name(e));
            }
        }
    }
}
END_TEST

START_TEST(separated_semicolons_and_spaces_at_every_offset_are_valid)
{
    /* ';' at every second byte, and pairs of ';' one byte apart, at every
     * phase of 8- and 16-byte blocks: never two in a row, so always valid. */
    for (size_t slen = 3; slen <= 40; slen++) {
        for (size_t phase = 1; phase <= 2; phase++) {
            char line[64];
            memset(line, 'x', slen);
            for (size_t i = phase; i + 1 < slen; i += 2)
                line[i] = ';';
            memcpy(line + slen, " 1", 2);
            struct stackline sl;
            enum stackline_error e = stackline_parse(line, slen + 2, 0, &sl);
            ck_assert_msg(e == STACKLINE_OK, "alternating ';' (phase %zu) in %zu bytes: %s", phase,
                          slen, stackline_error_name(e));
        }
        /* ";x;", "; x", " x;" and "  " (a double space inside a name) */
        static const char *const triples[] = {";x;", ";x ", " x;", "x  "};
        for (size_t t = 0; t < 4; t++) {
            for (size_t off = 1; off + 3 < slen; off++) {
                char line[64];
                memset(line, 'x', slen);
                memcpy(line + off, triples[t], 3);
                memcpy(line + slen, " 1", 2);
                struct stackline sl;
                ck_assert_msg(stackline_parse(line, slen + 2, 0, &sl) == STACKLINE_OK,
                              "\"%s\" at %zu of %zu refused", triples[t], off, slen);
            }
        }
    }
}
END_TEST

START_TEST(bytes_next_to_semicolon_are_not_taken_for_it)
{
    /* ':' (0x3a) and '<' (0x3c) differ from ';' (0x3b) in one bit */
    ck_assert_int_eq(PARSE_LIT("a;:b:;c;<d<;e 1", &(struct stackline){0}), STACKLINE_OK);
    ck_assert_int_eq(PARSE_LIT("abcdefg;:;:;:;:;<;<;<;< 1", &(struct stackline){0}), STACKLINE_OK);
    ck_assert_int_eq(PARSE_LIT("a\xc2\xbb;\xc2\xbb;b 1", &(struct stackline){0}), STACKLINE_OK);
    ck_assert_int_eq(PARSE_LIT("abcdefg;;abcdefg 1", &(struct stackline){0}),
                     STACKLINE_EMPTY_FRAME);
}
END_TEST

/* --- the fast path (blocks of ASCII bytes) ------------------------------------- */

/* A 40-byte printable line "aaaa...a 1" with `bad` at `offset`. */
static enum stackline_error parse_with_byte_at(const char *bad, size_t badlen, size_t offset)
{
    char line[64];
    memset(line, 'a', 38);
    memcpy(line + 38, " 1", 2);
    memcpy(line + offset, bad, badlen);
    struct stackline sl;
    return stackline_parse(line, 40, 0, &sl);
}

START_TEST(finds_control_byte_at_every_offset_of_a_long_line)
{
    static const char bads[] = {'\0', '\x01', '\t', '\n', '\r', '\x1f', '\x7f'};
    for (size_t b = 0; b < sizeof bads; b++) {
        for (size_t off = 0; off <= 20; off++) {
            enum stackline_error e = parse_with_byte_at(&bads[b], 1, off);
            ck_assert_msg(e == STACKLINE_CONTROL_CHAR, "byte 0x%02x at offset %zu: %s",
                          (unsigned char)bads[b], off, stackline_error_name(e));
        }
    }
}
END_TEST

START_TEST(finds_invalid_utf8_at_every_offset_of_a_long_line)
{
    static const char *const bads[] = {"\x80", "\xff", "\xc0\x80", "\xed\xa0\x80",
                                       "\xf4\x90\x80\x80"};
    for (size_t b = 0; b < sizeof bads / sizeof bads[0]; b++) {
        for (size_t off = 0; off <= 20; off++) {
            enum stackline_error e = parse_with_byte_at(bads[b], strlen(bads[b]), off);
            ck_assert_msg(e == STACKLINE_INVALID_UTF8, "bad sequence %zu at offset %zu: %s", b,
                          off, stackline_error_name(e));
        }
    }
}
END_TEST

START_TEST(accepts_multibyte_utf8_at_every_offset_of_a_long_line)
{
    static const char *const goods[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e"};
    for (size_t g = 0; g < sizeof goods / sizeof goods[0]; g++) {
        for (size_t off = 0; off <= 20; off++) {
            enum stackline_error e = parse_with_byte_at(goods[g], strlen(goods[g]), off);
            ck_assert_msg(e == STACKLINE_OK, "sequence %zu at offset %zu: %s", g, off,
                          stackline_error_name(e));
        }
    }
}
END_TEST

START_TEST(check_bytes_classifies_every_byte_value_at_every_word_position)
{
    /* One odd byte among 'a's, at each position of a 16-byte block and the
     * tail; lengths 1..24 so the slow path at the end is covered too. */
    for (int c = 0; c < 256; c++) {
        enum stackline_error want = c < 0x20 || c == 0x7f ? STACKLINE_CONTROL_CHAR
                                    : c < 0x80            ? STACKLINE_OK
                                                          : STACKLINE_INVALID_UTF8;
        for (size_t len = 1; len <= 24; len++) {
            for (size_t off = 0; off < len; off++) {
                char buf[24];
                memset(buf, 'a', sizeof buf);
                buf[off] = (char)c;
                enum stackline_error e = stackline_check_bytes(buf, len);
                ck_assert_msg(e == want, "byte 0x%02x at %zu of %zu: %s, expected %s", c, off,
                              len, stackline_error_name(e), stackline_error_name(want));
            }
        }
    }
}
END_TEST

START_TEST(check_bytes_does_not_confuse_bytes_next_to_space_and_tilde)
{
    /* Around the fast path's thresholds: 0x1f/0x20 and 0x7e/0x7f, in one word. */
    ck_assert_int_eq(stackline_check_bytes("        ", 8), STACKLINE_OK);
    ck_assert_int_eq(stackline_check_bytes("~~~~~~~~", 8), STACKLINE_OK);
    ck_assert_int_eq(stackline_check_bytes(" ~ ~ ~ ~", 8), STACKLINE_OK);
    ck_assert_int_eq(stackline_check_bytes("       \x1f", 8), STACKLINE_CONTROL_CHAR);
    ck_assert_int_eq(stackline_check_bytes("~~~~~~~\x7f", 8), STACKLINE_CONTROL_CHAR);
    ck_assert_int_eq(stackline_check_bytes("\x1f       ", 8), STACKLINE_CONTROL_CHAR);
    ck_assert_int_eq(stackline_check_bytes("\x7f~~~~~~~", 8), STACKLINE_CONTROL_CHAR);
    ck_assert_int_eq(stackline_check_bytes("", 0), STACKLINE_OK);
}
END_TEST

/* A buffer whose last byte is the last byte before an inaccessible page, so
 * a read past the given length faults (in every build, not only ASan). */
static char *guarded(const char *data, size_t len, void **map, size_t *maplen)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *maplen = 2 * page;
    *map = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(*map != MAP_FAILED);
    ck_assert_int_eq(mprotect((char *)*map + page, page, PROT_NONE), 0);
    char *p = (char *)*map + page - len;
    memcpy(p, data, len);
    return p;
}

START_TEST(never_reads_past_the_given_length)
{
    static const char *const lines[] = {
        "a 1", "abcdefg 1", "/srv/w/index.php;main;Foo::bar 4294967295",
        "abcdefghijklmno;\xe2\x82\xac 7", "x;;y 1", "abcdefgh", "abcdefg\xc3", "abc\xf0\x9d\x84",
        "/x/a.php", "a;b;", "a;b;c;d;e;f;g;h;;",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        size_t len = strlen(lines[i]);
        for (size_t cut = 0; cut <= len; cut++) {
            void *map;
            size_t maplen;
            char *p = guarded(lines[i], cut, &map, &maplen);
            struct stackline sl;
            char tag[STACKLINE_TAG_MAX + 1];
            stackline_check_bytes(p, cut);
            stackline_parse(p, cut, 0, &sl);
            stackline_tag(p, cut, tag, NULL);
            munmap(map, maplen);
        }
    }
}
END_TEST

/* --- tags --------------------------------------------------------------------- */

START_TEST(tag_is_file_name_without_php)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("/srv/mediawiki/index.php;main;Foo::bar", tag), 5);
    ck_assert_str_eq(tag, "index");
}
END_TEST

START_TEST(tag_of_bare_php_file_name)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("index.php", tag), 5);
    ck_assert_str_eq(tag, "index");
}
END_TEST

START_TEST(tag_allows_dash_dot_underscore_and_digits)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("/w/foo-bar.php;x", tag), 7);
    ck_assert_str_eq(tag, "foo-bar");
    ck_assert_uint_eq(tag_of("a.b_c-1.php;x;y", tag), 7);
    ck_assert_str_eq(tag, "a.b_c-1");
    ck_assert_uint_eq(tag_of("/srv/RunJobs.php", tag), 7);
    ck_assert_str_eq(tag, "RunJobs");
}
END_TEST

START_TEST(no_tag_when_first_frame_is_not_php)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("main;Foo::bar", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/index.phpx;a", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/index.PHP;a", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/index.php5;a", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/index.html", tag), 0);
    ck_assert_uint_eq(tag_of("php", tag), 0);
}
END_TEST

START_TEST(no_tag_for_bare_dot_php)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of(".php", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/.php;x", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/x/.php", tag), 0);
}
END_TEST

START_TEST(no_tag_all_because_it_is_the_all_file)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("all.php", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/all.php;main", tag), 0);
    /* only exactly "all" is reserved */
    ck_assert_uint_eq(tag_of("/srv/all2.php", tag), 4);
    ck_assert_str_eq(tag, "all2");
    ck_assert_uint_eq(tag_of("/srv/xall.php", tag), 4);
    ck_assert_str_eq(tag, "xall");
}
END_TEST

START_TEST(no_tag_for_names_with_characters_outside_the_set)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("/srv/a$b.php;x", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/a b.php;x", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/<x>.php;x", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/caf\xc3\xa9.php;x", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/a:b.php", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/a\\b.php", tag), 0);
    ck_assert_uint_eq(tag_of("/srv/a*b.php", tag), 0);
}
END_TEST

START_TEST(tag_of_100_bytes_is_kept_and_101_is_refused)
{
    char stack[256], tag[STACKLINE_TAG_MAX + 1];
    memset(stack, 'n', 100);
    memcpy(stack + 100, ".php;x", 7);
    ck_assert_uint_eq(tag_of(stack, tag), 100);
    ck_assert_uint_eq(strlen(tag), 100);
    ck_assert_int_eq(memcmp(tag, stack, 100), 0);

    memset(stack, 'n', 101);
    memcpy(stack + 101, ".php;x", 7);
    ck_assert_uint_eq(tag_of(stack, tag), 0);
}
END_TEST

START_TEST(no_tag_when_only_a_later_frame_is_php)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("main;/srv/index.php;Foo::bar", tag), 0);
    ck_assert_uint_eq(tag_of("{closure};index.php", tag), 0);
}
END_TEST

START_TEST(tag_uses_only_the_stack_length_given)
{
    char tag[STACKLINE_TAG_MAX + 1];
    /* the bytes after stack_len are not part of the first frame */
    ck_assert_uint_eq(stackline_tag("index.php", 5, tag, NULL), 0);
    ck_assert_uint_eq(stackline_tag("/x/index.php;a", 12, tag, NULL), 5);
    ck_assert_str_eq(tag, "index");
}
END_TEST

START_TEST(no_tag_for_path_traversal_entry_points)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("../../etc/passwd", tag), 0);
    ck_assert_uint_eq(tag_of("../../etc/passwd;x", tag), 0);
    ck_assert_uint_eq(tag_of("/etc/passwd", tag), 0);
}
END_TEST

START_TEST(tag_of_dotdot_path_is_only_the_last_component)
{
    char tag[STACKLINE_TAG_MAX + 1];
    ck_assert_uint_eq(tag_of("/x/../evil.php", tag), 4);
    ck_assert_str_eq(tag, "evil");
    ck_assert_uint_eq(tag_of("../../../../tmp/evil.php;a", tag), 4);
    ck_assert_str_eq(tag, "evil");
    ck_assert_ptr_null(strchr(tag, '/'));
}
END_TEST

/* Issue 14, item 5: a tag made of the words around it in file names could
 * name another log's graph: index.reversed.php would be index's reversed
 * graph, all.fn-EditAction.php a per-function graph, evil.all.php an "all"
 * log to `top`. */
START_TEST(no_tag_that_could_name_another_file)
{
    char tag[STACKLINE_TAG_MAX + 1];
    enum stackline_tag_result why;
    const char *refused[] = {"/w/index.reversed.php", "/w/all.fn-EditAction.php",
                             "/w/evil.all.php", "/w/reversed.php", "/w/fn-x.php",
                             "/w/a..b.php", "/w/.hidden.php", "/w/trail..php",
                             "/w/x.fn-.php", "/w/all.php", "/w/diff.php", "/w/x.diff.php"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        ck_assert_msg(stackline_tag(refused[i], strlen(refused[i]), tag, &why) == 0,
                      "%s got a tag", refused[i]);
        ck_assert_int_eq(why, STACKLINE_TAG_REFUSED);
    }
    ck_assert_uint_eq(stackline_tag("main;x", 6, tag, &why), 0);
    ck_assert_int_eq(why, STACKLINE_TAG_NONE);
}
END_TEST

START_TEST(tag_components_that_only_look_like_reserved_words_are_kept)
{
    char tag[STACKLINE_TAG_MAX + 1];
    enum stackline_tag_result why;
    const char *kept[] = {"/w/reversed2.php", "/w/all_pages.php", "/w/fn.php",
                          "/w/fnx-y.php", "/w/x.allx.php", "/w/un-reversed.php",
                          "/w/a.fn.php"};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        ck_assert_msg(stackline_tag(kept[i], strlen(kept[i]), tag, &why) > 0,
                      "%s got no tag", kept[i]);
        ck_assert_int_eq(why, STACKLINE_TAG_OK);
    }
    ck_assert(stackline_tag_name_ok("load", 4));
    ck_assert(!stackline_tag_name_ok("load.reversed", 13));
    /* <bucket>.load.diff.svgz is load's differential graph */
    ck_assert(!stackline_tag_name_ok("load.diff", 9));
    ck_assert(!stackline_tag_name_ok("diff", 4));
    ck_assert(stackline_tag_name_ok("diffs.differ", 12));
    ck_assert(!stackline_tag_name_ok("", 0));
}
END_TEST

Suite *stackline_suite(void)
{
    Suite *s = suite_create("stackline");

    TCase *tc = tcase_create("valid");
    tcase_add_test(tc, accepts_simple_line_and_splits_stack_and_count);
    tcase_add_test(tc, accepts_single_frame_line);
    tcase_add_test(tc, accepts_spaces_inside_frames_and_uses_last_space_for_count);
    tcase_add_test(tc, accepts_max_count_4294967295);
    tcase_add_test(tc, accepts_valid_multibyte_utf8);
    tcase_add_test(tc, accepts_every_printable_ascii_byte);
    tcase_add_test(tc, error_names_are_the_metric_labels);
    suite_add_tcase(s, tc);

    tc = tcase_create("length");
    tcase_add_test(tc, rejects_empty_line);
    tcase_add_test(tc, rejects_line_longer_than_max_len);
    tcase_add_test(tc, max_len_zero_means_no_limit);
    tcase_add_test(tc, too_long_wins_over_other_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("control_char");
    tcase_add_test(tc, rejects_line_with_nul);
    tcase_add_test(tc, rejects_line_with_carriage_return);
    tcase_add_test(tc, rejects_line_with_embedded_newline);
    tcase_add_test(tc, rejects_line_with_tab);
    tcase_add_test(tc, rejects_line_with_del);
    tcase_add_test(tc, rejects_every_c0_byte_and_del);
    suite_add_tcase(s, tc);

    tc = tcase_create("utf8");
    tcase_add_test(tc, rejects_overlong_utf8);
    tcase_add_test(tc, rejects_utf16_surrogates);
    tcase_add_test(tc, rejects_code_points_above_10ffff);
    tcase_add_test(tc, rejects_truncated_utf8_sequences);
    tcase_add_test(tc, rejects_lone_continuation_and_invalid_lead_bytes);
    tcase_add_test(tc, rejects_control_byte_inside_multibyte_sequence_as_invalid_utf8);
    suite_add_tcase(s, tc);

    tc = tcase_create("count");
    tcase_add_test(tc, rejects_line_without_space_as_no_count);
    tcase_add_test(tc, rejects_missing_count_after_space_as_no_count);
    tcase_add_test(tc, rejects_zero_count);
    tcase_add_test(tc, rejects_signed_counts);
    tcase_add_test(tc, rejects_leading_zero_count);
    tcase_add_test(tc, rejects_count_above_uint32_max);
    tcase_add_test(tc, rejects_count_with_trailing_garbage);
    suite_add_tcase(s, tc);

    tc = tcase_create("empty_frame");
    tcase_add_test(tc, rejects_double_semicolon_as_empty_frame);
    tcase_add_test(tc, rejects_leading_semicolon_as_empty_frame);
    tcase_add_test(tc, rejects_trailing_semicolon_before_count_as_empty_frame);
    tcase_add_test(tc, rejects_double_space_before_count_as_empty_frame);
    tcase_add_test(tc, rejects_count_without_stack_as_empty_frame);
    tcase_add_test(tc, rejects_space_after_semicolon_as_empty_frame);
    tcase_add_test(tc, rejects_space_before_semicolon_as_empty_frame);
    tcase_add_test(tc, rejects_leading_space_as_empty_frame);
    tcase_add_test(tc, accepts_spaces_inside_frame_names);
    tcase_add_test(tc, finds_bad_frame_boundary_at_every_offset_and_length);
    tcase_add_test(tc, separated_semicolons_and_spaces_at_every_offset_are_valid);
    tcase_add_test(tc, bytes_next_to_semicolon_are_not_taken_for_it);
    suite_add_tcase(s, tc);

    tc = tcase_create("fast_path");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, finds_control_byte_at_every_offset_of_a_long_line);
    tcase_add_test(tc, finds_invalid_utf8_at_every_offset_of_a_long_line);
    tcase_add_test(tc, accepts_multibyte_utf8_at_every_offset_of_a_long_line);
    tcase_add_test(tc, check_bytes_classifies_every_byte_value_at_every_word_position);
    tcase_add_test(tc, check_bytes_does_not_confuse_bytes_next_to_space_and_tilde);
    tcase_add_test(tc, never_reads_past_the_given_length);
    suite_add_tcase(s, tc);

    tc = tcase_create("tag");
    tcase_add_test(tc, tag_is_file_name_without_php);
    tcase_add_test(tc, tag_of_bare_php_file_name);
    tcase_add_test(tc, tag_allows_dash_dot_underscore_and_digits);
    tcase_add_test(tc, no_tag_when_first_frame_is_not_php);
    tcase_add_test(tc, no_tag_for_bare_dot_php);
    tcase_add_test(tc, no_tag_all_because_it_is_the_all_file);
    tcase_add_test(tc, no_tag_for_names_with_characters_outside_the_set);
    tcase_add_test(tc, tag_of_100_bytes_is_kept_and_101_is_refused);
    tcase_add_test(tc, no_tag_when_only_a_later_frame_is_php);
    tcase_add_test(tc, tag_uses_only_the_stack_length_given);
    tcase_add_test(tc, no_tag_for_path_traversal_entry_points);
    tcase_add_test(tc, tag_of_dotdot_path_is_only_the_last_component);
    tcase_add_test(tc, no_tag_that_could_name_another_file);
    tcase_add_test(tc, tag_components_that_only_look_like_reserved_words_are_kept);
    suite_add_tcase(s, tc);
    return s;
}
