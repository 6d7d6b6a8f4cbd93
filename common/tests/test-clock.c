/* Tests of clock: monotonic seconds and poll() timeouts. */
#include <limits.h>
#include <time.h>

#include "clock.h"
#include "test-suites.h"

START_TEST(mono_never_goes_back_and_follows_sleep)
{
    double a = clock_mono();
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double b = clock_mono();
    ck_assert(b - a >= 0.019);
    ck_assert(b - a < 5);
}
END_TEST

START_TEST(ms_until_rounds_up_and_stops_at_zero)
{
    double now = clock_mono();
    ck_assert_int_eq(clock_ms_until(now - 1), 0);
    int ms = clock_ms_until(now + 0.0101);
    ck_assert_int_ge(ms, 1);
    ck_assert_int_le(ms, 11);
    ck_assert_int_eq(clock_ms_until(now + 1e12), INT_MAX);
}
END_TEST

Suite *clock_suite(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("clock");
    tcase_add_test(tc, mono_never_goes_back_and_follows_sleep);
    tcase_add_test(tc, ms_until_rounds_up_and_stops_at_zero);
    suite_add_tcase(s, tc);
    return s;
}
