/* clock: monotonic seconds, poll() timeouts and the wall-clock second. See clock.h. */
#include "clock.h"

#include <limits.h>
#include <math.h>
#include <time.h>

double clock_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

unsigned long long clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int clock_ms_until(double deadline)
{
    double left = deadline - clock_mono();
    if (!(left > 0))
        return 0;
    double ms = ceil(left * 1000);
    return ms >= INT_MAX ? INT_MAX : (int)ms;
}

long long clock_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec;
}
