/* Tests of strbuf: the growable byte buffer and the x* allocation helpers. */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "test-suites.h"

START_TEST(new_buffer_is_empty_and_unallocated)
{
    strbuf sb = STRBUF_INIT;
    ck_assert_ptr_null(sb.data);
    ck_assert_uint_eq(sb.len, 0);
    ck_assert_uint_eq(sb.cap, 0);
    strbuf_free(&sb);
}
END_TEST

START_TEST(append_copies_bytes_including_nul)
{
    strbuf sb = STRBUF_INIT;
    strbuf_append(&sb, "ab\0cd", 5);
    ck_assert_uint_eq(sb.len, 5);
    ck_assert_mem_eq(sb.data, "ab\0cd", 5);
    ck_assert_uint_ge(sb.cap, 6);
    strbuf_free(&sb);
}
END_TEST

START_TEST(append_of_zero_bytes_changes_nothing)
{
    strbuf sb = STRBUF_INIT;
    strbuf_append(&sb, "x", 0);
    ck_assert_uint_eq(sb.len, 0);
    ck_assert_ptr_null(sb.data);
    strbuf_free(&sb);
}
END_TEST

START_TEST(appendc_and_appends_add_at_the_end)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "hello");
    strbuf_appendc(&sb, ',');
    strbuf_appendc(&sb, ' ');
    strbuf_appends(&sb, "world");
    ck_assert_uint_eq(sb.len, 12);
    ck_assert_str_eq(strbuf_cstr(&sb), "hello, world");
    strbuf_free(&sb);
}
END_TEST

START_TEST(appendf_formats_and_appends)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "n=");
    strbuf_appendf(&sb, "%d %s %05.1f %zu", 42, "x", 2.5, (size_t)7);
    ck_assert_str_eq(strbuf_cstr(&sb), "n=42 x 002.5 7");
    ck_assert_uint_eq(sb.len, strlen("n=42 x 002.5 7"));
    strbuf_free(&sb);
}
END_TEST

START_TEST(appendf_with_empty_result_appends_nothing)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "a");
    strbuf_appendf(&sb, "%s", "");
    ck_assert_uint_eq(sb.len, 1);
    ck_assert_str_eq(strbuf_cstr(&sb), "a");
    strbuf_free(&sb);
}
END_TEST

START_TEST(appendf_grows_for_long_output)
{
    strbuf sb = STRBUF_INIT;
    char big[5000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    strbuf_appends(&sb, "<");
    strbuf_appendf(&sb, "%s>%d", big, 9);
    ck_assert_uint_eq(sb.len, 1 + 4999 + 2);
    ck_assert_uint_gt(sb.cap, sb.len);
    const char *s = strbuf_cstr(&sb);
    ck_assert_int_eq(s[0], '<');
    ck_assert_int_eq(s[1], 'q');
    ck_assert_int_eq(s[4999], 'q');
    ck_assert_str_eq(s + 5000, ">9");
    strbuf_free(&sb);
}
END_TEST

START_TEST(growth_keeps_all_bytes_in_order)
{
    strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 100000; i++)
        strbuf_appendc(&sb, (char)('a' + i % 26));
    ck_assert_uint_eq(sb.len, 100000);
    ck_assert_uint_gt(sb.cap, sb.len);
    for (int i = 0; i < 100000; i++)
        ck_assert_int_eq(sb.data[i], 'a' + i % 26);
    strbuf_free(&sb);
}
END_TEST

START_TEST(reserve_makes_room_without_changing_length)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "abc");
    strbuf_reserve(&sb, 1000);
    ck_assert_uint_eq(sb.len, 3);
    ck_assert_uint_ge(sb.cap, 1004);
    char *before = sb.data;
    size_t cap = sb.cap;
    for (int i = 0; i < 1000; i++)
        strbuf_appendc(&sb, 'x');
    ck_assert_ptr_eq(sb.data, before); /* no reallocation was needed */
    ck_assert_uint_eq(sb.cap, cap);
    ck_assert_mem_eq(sb.data, "abcxx", 5);
    strbuf_free(&sb);
}
END_TEST

START_TEST(consume_drops_leading_bytes)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "line1\nline2\n");
    strbuf_consume(&sb, 6);
    ck_assert_uint_eq(sb.len, 6);
    ck_assert_str_eq(strbuf_cstr(&sb), "line2\n");
    strbuf_consume(&sb, 0);
    ck_assert_str_eq(strbuf_cstr(&sb), "line2\n");
    strbuf_consume(&sb, 6);
    ck_assert_uint_eq(sb.len, 0);
    ck_assert_str_eq(strbuf_cstr(&sb), "");
    strbuf_free(&sb);
}
END_TEST

START_TEST(consume_more_than_length_empties_the_buffer)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "abc");
    strbuf_consume(&sb, 100);
    ck_assert_uint_eq(sb.len, 0);
    strbuf_appends(&sb, "z");
    ck_assert_str_eq(strbuf_cstr(&sb), "z");
    strbuf_free(&sb);
}
END_TEST

START_TEST(cstr_terminates_without_counting_the_nul)
{
    strbuf sb = STRBUF_INIT;
    ck_assert_str_eq(strbuf_cstr(&sb), ""); /* works before any append */
    ck_assert_uint_eq(sb.len, 0);
    strbuf_append(&sb, "abcdef", 3);
    ck_assert_str_eq(strbuf_cstr(&sb), "abc");
    ck_assert_uint_eq(sb.len, 3);
    strbuf_free(&sb);
}
END_TEST

START_TEST(cstr_after_exact_fill_still_terminates)
{
    strbuf sb = STRBUF_INIT;
    char chunk[63];
    memset(chunk, 'k', sizeof chunk);
    strbuf_append(&sb, chunk, sizeof chunk); /* 63 bytes + room for a NUL = 64 */
    ck_assert_uint_eq(strlen(strbuf_cstr(&sb)), 63);
    strbuf_appendc(&sb, 'k');
    ck_assert_uint_eq(strlen(strbuf_cstr(&sb)), 64);
    strbuf_free(&sb);
}
END_TEST

START_TEST(reset_empties_but_keeps_memory)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "some text");
    size_t cap = sb.cap;
    strbuf_reset(&sb);
    ck_assert_uint_eq(sb.len, 0);
    ck_assert_uint_eq(sb.cap, cap);
    ck_assert_ptr_nonnull(sb.data);
    ck_assert_str_eq(strbuf_cstr(&sb), "");
    strbuf_appends(&sb, "new");
    ck_assert_str_eq(strbuf_cstr(&sb), "new");
    strbuf_free(&sb);
}
END_TEST

START_TEST(free_leaves_an_empty_reusable_buffer)
{
    strbuf sb = STRBUF_INIT;
    strbuf_appends(&sb, "abc");
    strbuf_free(&sb);
    ck_assert_ptr_null(sb.data);
    ck_assert_uint_eq(sb.len, 0);
    ck_assert_uint_eq(sb.cap, 0);
    strbuf_appends(&sb, "again");
    ck_assert_str_eq(strbuf_cstr(&sb), "again");
    strbuf_free(&sb);
    strbuf_free(&sb); /* twice is harmless */
}
END_TEST

START_TEST(xstrndup_copies_a_prefix_and_terminates)
{
    char *p = xstrndup("abcdef", 3);
    ck_assert_str_eq(p, "abc");
    free(p);
    p = xstrdup("");
    ck_assert_str_eq(p, "");
    free(p);
    p = xmalloc(0); /* zero-size allocations still return memory */
    ck_assert_ptr_nonnull(p);
    free(p);
    int *z = xcalloc(4, sizeof *z);
    ck_assert_int_eq(z[0] | z[1] | z[2] | z[3], 0);
    z = xrealloc(z, 100 * sizeof *z);
    ck_assert_int_eq(z[3], 0);
    free(z);
}
END_TEST

Suite *strbuf_suite(void)
{
    Suite *s = suite_create("strbuf");
    TCase *tc = tcase_create("strbuf");
    tcase_add_test(tc, new_buffer_is_empty_and_unallocated);
    tcase_add_test(tc, append_copies_bytes_including_nul);
    tcase_add_test(tc, append_of_zero_bytes_changes_nothing);
    tcase_add_test(tc, appendc_and_appends_add_at_the_end);
    tcase_add_test(tc, appendf_formats_and_appends);
    tcase_add_test(tc, appendf_with_empty_result_appends_nothing);
    tcase_add_test(tc, appendf_grows_for_long_output);
    tcase_add_test(tc, growth_keeps_all_bytes_in_order);
    tcase_add_test(tc, reserve_makes_room_without_changing_length);
    tcase_add_test(tc, consume_drops_leading_bytes);
    tcase_add_test(tc, consume_more_than_length_empties_the_buffer);
    tcase_add_test(tc, cstr_terminates_without_counting_the_nul);
    tcase_add_test(tc, cstr_after_exact_fill_still_terminates);
    tcase_add_test(tc, reset_empties_but_keeps_memory);
    tcase_add_test(tc, free_leaves_an_empty_reusable_buffer);
    tcase_add_test(tc, xstrndup_copies_a_prefix_and_terminates);
    suite_add_tcase(s, tc);
    return s;
}
