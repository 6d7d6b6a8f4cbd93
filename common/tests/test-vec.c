/* Tests of vec: arrays grown by doubling, their contents kept. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "vec.h"
#include "test-suites.h"

START_TEST(grows_from_the_first_size_by_doubling)
{
    int *v = NULL;
    size_t cap = 0;
    VEC_RESERVE(v, cap, 1, 4);
    ck_assert_uint_eq(cap, 4);
    VEC_RESERVE(v, cap, 4, 4);
    ck_assert_uint_eq(cap, 4); /* room enough: unchanged */
    VEC_RESERVE(v, cap, 5, 4);
    ck_assert_uint_eq(cap, 8);
    VEC_RESERVE(v, cap, 100, 4);
    ck_assert_uint_eq(cap, 128);
    free(v);
}
END_TEST

START_TEST(keeps_the_elements_while_growing)
{
    long *v = NULL;
    size_t cap = 0, n = 0;
    for (long i = 0; i < 10000; i++) {
        VEC_RESERVE(v, cap, n + 1, 1);
        v[n++] = i * 7;
    }
    ck_assert_uint_ge(cap, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(v[i], (long)i * 7);
    free(v);
}
END_TEST

START_TEST(a_first_size_of_zero_means_one)
{
    char *v = NULL;
    size_t cap = 0;
    VEC_RESERVE(v, cap, 1, 0);
    ck_assert_uint_eq(cap, 1);
    free(v);
}
END_TEST

/* A size past what memory can hold aborts (as xmalloc does), never wraps. */
START_TEST(a_size_that_would_overflow_aborts)
{
    uint64_t *v = NULL;
    size_t cap = 0;
    VEC_RESERVE(v, cap, SIZE_MAX / 4, 1);
}
END_TEST

Suite *vec_suite(void)
{
    Suite *s = suite_create("vec");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, grows_from_the_first_size_by_doubling);
    tcase_add_test(tc, keeps_the_elements_while_growing);
    tcase_add_test(tc, a_first_size_of_zero_means_one);
    tcase_add_test_raise_signal(tc, a_size_that_would_overflow_aborts, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}
