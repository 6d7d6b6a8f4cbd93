/* Tests of cpuclock: the thread CPU clock follows CLOCK_THREAD_CPUTIME_ID
 * whatever source it chose, stops while the thread sleeps, and ticks
 * convert at the rate they were measured at. */
#include "cpuclock.h"
#include "test-suites.h"

#include <check.h>
#include <time.h>

static uint64_t thread_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void spin_ms(double ms)
{
    uint64_t end = thread_ns() + (uint64_t)(ms * 1e6);
    while (thread_ns() < end) {
    }
}

START_TEST(cpu_time_follows_the_kernel_s_and_stops_in_sleep)
{
    cpuclock c;
    char why[200];
    enum cpuclock_source s = cpuclock_open(&c, why, sizeof why);
    ck_assert_int_ne(s, CPUCLOCK_NONE);
    uint64_t k0 = thread_ns(), c0 = cpuclock_now(&c);
    spin_ms(50);
    uint64_t k1 = thread_ns(), c1 = cpuclock_now(&c);
    double kernel = (double)(k1 - k0), ours = (double)(c1 - c0);
    /* (10%: a VM's steal time, which the kernel leaves out, counts here) */
    ck_assert_msg(ours > kernel * 0.97 && ours < kernel * 1.10,
                  "%s: %.0f ns against the kernel's %.0f", cpuclock_source_name(s), ours, kernel);
    struct timespec nap = {0, 100000000};
    uint64_t before = cpuclock_now(&c);
    nanosleep(&nap, NULL);
    ck_assert_uint_lt(cpuclock_now(&c) - before, 20000000); /* not the 100 ms asleep */
    /* readings never go back */
    uint64_t last = cpuclock_now(&c);
    for (int i = 0; i < 100000; i++) {
        uint64_t now = cpuclock_now(&c);
        ck_assert_uint_ge(now, last);
        last = now;
    }
    cpuclock_close(&c);
    ck_assert_int_eq(c.source, CPUCLOCK_NONE);
}
END_TEST

START_TEST(ticks_convert_at_their_measured_rate)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double m0 = ts.tv_sec + ts.tv_nsec / 1e9;
    uint64_t t0 = cpuclock_ticks();
    spin_ms(20);
    uint64_t t1 = cpuclock_ticks();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double m1 = ts.tv_sec + ts.tv_nsec / 1e9;
    double tps = cpuclock_ticks_per_second(t0, m0, t1, m1);
    ck_assert(t1 > t0);
    ck_assert_double_eq_tol((double)(t1 - t0) / tps, m1 - m0, 1e-6);
    if (!cpuclock_ticks_are_tsc())
        ck_assert_double_eq(tps, 1e9);
}
END_TEST

Suite *cpuclock_suite(void)
{
    Suite *s = suite_create("cpuclock");
    TCase *tc = tcase_create("cpuclock");
    tcase_add_test(tc, cpu_time_follows_the_kernel_s_and_stops_in_sleep);
    tcase_add_test(tc, ticks_convert_at_their_measured_rate);
    suite_add_tcase(s, tc);
    return s;
}
