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

START_TEST(mono_ns_is_the_same_clock_in_nanoseconds)
{
    double a = clock_mono();
    unsigned long long n = clock_mono_ns();
    double b = clock_mono();
    ck_assert(n >= (unsigned long long)(a * 1e9) - 1000);
    ck_assert(n <= (unsigned long long)(b * 1e9) + 1000);
    ck_assert(clock_mono_ns() >= n);
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

/* A line received just after a second began must be filed in that second:
 * the wall clock is never behind CLOCK_REALTIME (time(NULL) is, by up to a
 * tick, right after each second begins). Runs across two second boundaries. */
START_TEST(wall_seconds_never_lag_the_realtime_clock)
{
    struct timespec before, after;
    clock_gettime(CLOCK_REALTIME, &before);
    time_t start = before.tv_sec;
    while (before.tv_sec < start + 2) {
        clock_gettime(CLOCK_REALTIME, &before);
        long long w = clock_wall_seconds();
        clock_gettime(CLOCK_REALTIME, &after);
        ck_assert_int_le(before.tv_sec, w);
        ck_assert_int_le(w, after.tv_sec);
    }
}
END_TEST

Suite *clock_suite(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("clock");
    tcase_add_test(tc, mono_never_goes_back_and_follows_sleep);
    tcase_add_test(tc, mono_ns_is_the_same_clock_in_nanoseconds);
    tcase_add_test(tc, ms_until_rounds_up_and_stops_at_zero);
    tcase_add_test(tc, wall_seconds_never_lag_the_realtime_clock);
    tcase_set_timeout(tc, 10);
    suite_add_tcase(s, tc);
    return s;
}
