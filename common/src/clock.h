/* clock: the one clock helper of Arc Lamp.
 *
 * Deadlines, backoffs and buffer ages are measured on CLOCK_MONOTONIC in
 * seconds as a double (microsecond resolution for centuries): wall-clock
 * jumps (NTP, an operator's `date`) must never stretch or shorten a timeout.
 * Used by the daemons, the extension and the Redis client alike. */
#ifndef ARCLAMP_CLOCK_H
#define ARCLAMP_CLOCK_H

/* Seconds on CLOCK_MONOTONIC (since boot; only differences mean anything). */
double clock_mono(void);

/* Milliseconds from now until `deadline` (a clock_mono() reading), rounded
 * up, for poll(): 0 once it has passed, at most INT_MAX. */
int clock_ms_until(double deadline);

#endif
