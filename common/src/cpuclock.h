/* cpuclock: cheap clocks for timing every function call.
 *
 * A hierarchical profiler reads a clock twice per call, so a clock that is
 * a system call (CLOCK_THREAD_CPUTIME_ID, ~300-800 ns here) costs more than
 * the call. Two cheaper readings:
 *
 *   ticks   — the CPU's invariant time-stamp counter (rdtsc, ~10 ns) where
 *             the kernel reports constant_tsc and nonstop_tsc, else
 *             CLOCK_MONOTONIC in ns (vDSO, ~20 ns). Convert with a rate
 *             measured over the caller's own span (ticks_per_second()).
 *   thread CPU time — from the kernel's perf_event self-monitoring page of
 *             a task-clock event on the calling thread, without a system
 *             call per reading:
 *             - where the page offers user time (cap_user_time), its
 *               time_enabled (which runs only while the thread is on a
 *               CPU) extended to now from the TSC, as the kernel documents;
 *             - elsewhere (most VMs: a kvm-clock guest has no cap_user_time)
 *               the page's sequence number, which the kernel bumps when it
 *               switches the thread in: while it has not moved, the thread
 *               has run without a break, so CPU time grew exactly as the
 *               TSC did; when it moved, one clock_gettime() resynchronises.
 *               A system call per context switch, not per reading.
 *             Where perf_event_open is refused (kernel.perf_event_paranoid
 *             > 2, seccomp) or there is no invariant TSC, every reading is
 *             clock_gettime(CLOCK_THREAD_CPUTIME_ID), a system call.
 *
 * Accuracy: the kernel's own accounting (user + system time, ns), exact at
 * every context switch; between switches the TSC's rate, measured over 2 ms
 * against CLOCK_MONOTONIC when the clock is opened. Over 250 ms of busy
 * thread, alone or with the machine's two cores contended, the sequence
 * reading was within 0.01% of CLOCK_THREAD_CPUTIME_ID; in a VM, time the
 * hypervisor steals between two readings is counted (the kernel's figure
 * leaves it out): once 5.4% over 50 ms on a busy host. At a switch the
 * extrapolation can run a few µs (seen: up to 40 µs) ahead of the kernel's
 * figure, and then waits for it: readings never go back. */
#ifndef ARCLAMP_CPUCLOCK_H
#define ARCLAMP_CPUCLOCK_H

#include <stdint.h>

/* ---- ticks -------------------------------------------------------------- */

/* Whether ticks are TSC cycles (1) or CLOCK_MONOTONIC ns (0). Decided once
 * per process (reads /proc/cpuinfo on the first call). `forbid_tsc` set
 * before the first call forces CLOCK_MONOTONIC. */
int cpuclock_ticks_are_tsc(void);
void cpuclock_forbid_tsc(void);

/* Inline: a profiler reads it twice per call. cpuclock_tick_mode is 1 for
 * the TSC, 0 for CLOCK_MONOTONIC, -1 until decided (the first call of
 * cpuclock_ticks_are_tsc(), which any user makes before reading ticks). */
extern int cpuclock_tick_mode;
uint64_t cpuclock_ticks_slow(void);

/* The time-stamp counter (0 where there is none: not x86). */
static inline uint64_t cpuclock_rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

static inline uint64_t cpuclock_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(cpuclock_tick_mode == 1, 1))
        return cpuclock_rdtsc();
#endif
    return cpuclock_ticks_slow();
}

/* The tick rate measured between two (ticks, clock_mono seconds) pairs;
 * 1e9 for CLOCK_MONOTONIC ticks. */
double cpuclock_ticks_per_second(uint64_t t0, double mono0, uint64_t t1, double mono1);

/* ---- thread CPU time ------------------------------------------------------ */

enum cpuclock_source {
    CPUCLOCK_NONE = 0,      /* not opened */
    CPUCLOCK_PERF_PAGE,     /* the page's user time: no system call */
    CPUCLOCK_PERF_SEQ,      /* the page's sequence + TSC: a system call per switch */
    CPUCLOCK_SYSCALL,       /* clock_gettime(CLOCK_THREAD_CPUTIME_ID) each time */
};

typedef struct cpuclock {
    enum cpuclock_source source;
    int fd;                 /* the perf event, -1 when none */
    void *page;             /* its mmap'd first page, or NULL */
    /* CPUCLOCK_PERF_SEQ: the last resynchronisation */
    uint32_t base_seq;      /* the page's lock then */
    uint64_t base_tsc;      /* the TSC then */
    uint64_t base_ns;       /* the thread's CPU time then */
    double ns_per_tick;     /* the TSC's rate */
    uint64_t last;          /* the last reading: readings never go back */
} cpuclock;

/* Opens the clock for the calling thread (only that thread may read it).
 * Returns the source chosen; `why` (may be NULL) gets the reason for a
 * fallback. */
enum cpuclock_source cpuclock_open(cpuclock *c, char *why, unsigned long whylen);
/* Nanoseconds of CPU time of the thread that opened it. */
uint64_t cpuclock_now(cpuclock *c);
void cpuclock_close(cpuclock *c);
const char *cpuclock_source_name(enum cpuclock_source s);

#endif
