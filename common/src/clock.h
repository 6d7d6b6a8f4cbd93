/* clock: the one clock helper of Arc Lamp.
 *
 * Deadlines, backoffs and buffer ages are measured on CLOCK_MONOTONIC in
 * seconds as a double (microsecond resolution for centuries): wall-clock
 * jumps (NTP, an operator's `date`) must never stretch or shorten a timeout.
 * Used by the daemons, the extension and the Redis client alike. Wall time
 * is only for naming things (time buckets), never for measuring. */
#ifndef ARCLAMP_CLOCK_H
#define ARCLAMP_CLOCK_H

/* Seconds on CLOCK_MONOTONIC (since boot; only differences mean anything). */
double clock_mono(void);

/* Nanoseconds on CLOCK_MONOTONIC, for timing calls (request tiers): the
 * same clock as clock_mono(), without a double's rounding. */
unsigned long long clock_mono_ns(void);

/* Milliseconds from now until `deadline` (a clock_mono() reading), rounded
 * up, for poll(): 0 once it has passed, at most INT_MAX. */
int clock_ms_until(double deadline);

/* The current UTC second, read from CLOCK_REALTIME itself. Not time(NULL):
 * glibc serves that from the coarse clock, which lags by up to a tick (4 ms
 * at HZ=250), so a line received just after a second (or an hour) began
 * would be filed in the bucket before it. */
long long clock_wall_seconds(void);

#endif
