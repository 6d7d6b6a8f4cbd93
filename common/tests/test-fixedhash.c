/* Tests of fixedhash: FNV-1a 64 gives the published values. */
#include "fixedhash.h"
#include "test-suites.h"

START_TEST(published_values_of_fnv1a_64)
{
    ck_assert_uint_eq(fixedhash_fnv1a64("", 0), 0xcbf29ce484222325u);
    ck_assert_uint_eq(fixedhash_fnv1a64("a", 1), 0xaf63dc4c8601ec8cu);
    ck_assert_uint_eq(fixedhash_fnv1a64("foobar", 6), 0x85944171f73967e8u);
}
END_TEST

Suite *fixedhash_suite(void)
{
    Suite *s = suite_create("fixedhash");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, published_values_of_fnv1a_64);
    suite_add_tcase(s, tc);
    return s;
}
