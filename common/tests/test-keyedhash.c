/* Tests of keyedhash: SipHash-2-4 under the process's random key. */
#include <string.h>

#include "keyedhash.h"
#include "test-suites.h"

static void sequence_key(unsigned char key[KEYEDHASH_KEY_BYTES])
{
    for (int i = 0; i < KEYEDHASH_KEY_BYTES; i++)
        key[i] = (unsigned char)i;
}

/* The SipHash paper's answers (appendix A and the reference vectors): key
 * 00 01 .. 0f, messages 00 01 .. of length 0 and 15. */
START_TEST(known_answers_of_the_siphash_paper)
{
    unsigned char key[KEYEDHASH_KEY_BYTES], msg[15];
    sequence_key(key);
    for (int i = 0; i < 15; i++)
        msg[i] = (unsigned char)i;
    ck_assert_uint_eq(keyedhash_with_key(key, msg, 0), 0x726fdb47dd0e0e31ULL);
    ck_assert_uint_eq(keyedhash_with_key(key, msg, 15), 0xa129ca6149be45e5ULL);
}
END_TEST

START_TEST(one_key_gives_one_hash)
{
    unsigned char key[KEYEDHASH_KEY_BYTES];
    sequence_key(key);
    ck_assert_uint_eq(keyedhash_with_key(key, "run-1", 5), keyedhash_with_key(key, "run-1", 5));
    ck_assert_uint_eq(keyedhash("run-1", 5), keyedhash("run-1", 5));
    ck_assert_uint_eq(keyedhash_str("run-1"), keyedhash("run-1", 5));
    struct keyedhash128 a = keyedhash128("a;b;c", 5), b = keyedhash128("a;b;c", 5);
    ck_assert(keyedhash128_eq(a, b));
}
END_TEST

START_TEST(another_key_gives_another_hash)
{
    unsigned char key[KEYEDHASH_KEY_BYTES];
    sequence_key(key);
    uint64_t h = keyedhash_with_key(key, "run-1", 5);
    key[15] ^= 1;
    ck_assert_uint_ne(keyedhash_with_key(key, "run-1", 5), h);
}
END_TEST

/* The process's key is neither left at zero nor a fixed one: its hashes
 * match neither (a chance of 2^-64 each when the key is random). */
START_TEST(the_process_key_is_drawn)
{
    unsigned char zero[KEYEDHASH_KEY_BYTES] = {0}, seq[KEYEDHASH_KEY_BYTES];
    sequence_key(seq);
    keyedhash_init();
    uint64_t h = keyedhash("run-1", 5);
    ck_assert_uint_ne(h, keyedhash_with_key(zero, "run-1", 5));
    ck_assert_uint_ne(h, keyedhash_with_key(seq, "run-1", 5));
}
END_TEST

START_TEST(different_bytes_give_different_hashes)
{
    ck_assert_uint_ne(keyedhash("run-1", 5), keyedhash("run-2", 5));
    ck_assert_uint_ne(keyedhash("", 0), keyedhash("\0", 1));
    struct keyedhash128 a = keyedhash128("a;b", 3), b = keyedhash128("a;c", 3);
    ck_assert(!keyedhash128_eq(a, b));
    ck_assert_uint_ne(a.low64, a.high64);
}
END_TEST

Suite *keyedhash_suite(void)
{
    Suite *s = suite_create("keyedhash");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, known_answers_of_the_siphash_paper);
    tcase_add_test(tc, one_key_gives_one_hash);
    tcase_add_test(tc, another_key_gives_another_hash);
    tcase_add_test(tc, the_process_key_is_drawn);
    tcase_add_test(tc, different_bytes_give_different_hashes);
    suite_add_tcase(s, tc);
    return s;
}
