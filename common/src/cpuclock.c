/* cpuclock: cheap clocks for timing every function call (see cpuclock.h). */
#include "cpuclock.h"
#include "clock.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- ticks ---------------------------------------------------------------- */

/* -1 undecided, 0 CLOCK_MONOTONIC, 1 TSC. Process-wide because the CPU's
 * features are: decided once, then only read (a benign race at worst reads
 * /proc/cpuinfo twice with the same answer). */
int cpuclock_tick_mode = -1;

#if defined(__x86_64__) || defined(__i386__)
static int cpu_has_invariant_tsc(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0)
            found = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc") ? 1 : -1;
    }
    fclose(f);
    return found == 1;
}
#else
static int cpu_has_invariant_tsc(void) { return 0; }
#endif

void cpuclock_forbid_tsc(void)
{
    cpuclock_tick_mode = 0;
}

int cpuclock_ticks_are_tsc(void)
{
    if (cpuclock_tick_mode < 0)
        cpuclock_tick_mode = cpu_has_invariant_tsc();
    return cpuclock_tick_mode;
}

uint64_t cpuclock_ticks_slow(void)
{
    return cpuclock_ticks_are_tsc() ? cpuclock_rdtsc() : (uint64_t)clock_mono_ns();
}

double cpuclock_ticks_per_second(uint64_t t0, double mono0, uint64_t t1, double mono1)
{
    if (!cpuclock_ticks_are_tsc() || t1 <= t0 || mono1 <= mono0)
        return 1e9;
    return (double)(t1 - t0) / (mono1 - mono0);
}

/* ---- thread CPU time -------------------------------------------------------- */

static uint64_t thread_cputime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void say(char *why, unsigned long whylen, const char *what)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", what);
}

/* The page's time_enabled extended to now, or UINT64_MAX when the page
 * cannot say (the kernel cleared cap_user_time, e.g. an unstable TSC). */
static uint64_t page_time(const struct perf_event_mmap_page *pc)
{
    uint32_t seq;
    uint64_t enabled, cyc, quot, rem, delta;
    do {
        seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
        if (!pc->cap_user_time)
            return UINT64_MAX;
        enabled = pc->time_enabled;
        cyc = cpuclock_rdtsc();
        uint16_t shift = pc->time_shift;
        uint32_t mult = pc->time_mult;
        uint64_t offset = pc->time_offset;
        quot = cyc >> shift;
        rem = cyc & (((uint64_t)1 << shift) - 1);
        delta = offset + quot * mult + ((rem * mult) >> shift);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    } while (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq);
    return enabled + delta;
}

/* The TSC's rate in ns per tick, measured over ~2 ms of CLOCK_MONOTONIC. */
static double measure_ns_per_tick(void)
{
    uint64_t m0 = clock_mono_ns(), t0 = cpuclock_rdtsc(), m1, t1;
    do {
        m1 = clock_mono_ns();
        t1 = cpuclock_rdtsc();
    } while (m1 - m0 < 2000000);
    return t1 > t0 ? (double)(m1 - m0) / (double)(t1 - t0) : 0;
}

static void seq_resync(cpuclock *c)
{
    const volatile struct perf_event_mmap_page *pc = c->page;
    uint32_t seq;
    do {
        seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
        c->base_tsc = cpuclock_rdtsc();
        c->base_ns = thread_cputime_ns();
    } while (__atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE) != seq);
    c->base_seq = seq;
}

static int open_perf_page(cpuclock *c, char *why, unsigned long whylen)
{
#if defined(__x86_64__) || defined(__i386__)
    if (!cpuclock_ticks_are_tsc()) {
        say(why, whylen, "no invariant TSC to extend the page's time with");
        return -1;
    }
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = 1; /* what perf_event_paranoid 2 allows; time_enabled is unaffected */
    attr.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "perf_event_open: %s (kernel.perf_event_paranoid)",
                 strerror(errno));
        say(why, whylen, msg);
        return -1;
    }
    void *page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
    if (page == MAP_FAILED) {
        say(why, whylen, "mmap of the perf page failed");
        close(fd);
        return -1;
    }
    c->fd = fd;
    c->page = page;
    if (page_time(page) != UINT64_MAX)
        return CPUCLOCK_PERF_PAGE;
    c->ns_per_tick = measure_ns_per_tick();
    if (c->ns_per_tick <= 0) {
        say(why, whylen, "the TSC did not advance");
        cpuclock_close(c);
        return -1;
    }
    seq_resync(c);
    return CPUCLOCK_PERF_SEQ;
#else
    (void)c;
    say(why, whylen, "the perf page is read with rdtsc, x86 only");
    return -1;
#endif
}

enum cpuclock_source cpuclock_open(cpuclock *c, char *why, unsigned long whylen)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    say(why, whylen, "");
    int source = open_perf_page(c, why, whylen);
    c->source = source < 0 ? CPUCLOCK_SYSCALL : (enum cpuclock_source)source;
    return c->source;
}

uint64_t cpuclock_now(cpuclock *c)
{
    if (c->source == CPUCLOCK_PERF_SEQ) {
        const volatile struct perf_event_mmap_page *pc = c->page;
        uint64_t tsc = cpuclock_rdtsc(), now;
        if (__atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE) == c->base_seq && tsc >= c->base_tsc) {
            now = c->base_ns + (uint64_t)((double)(tsc - c->base_tsc) * c->ns_per_tick);
        } else {
            seq_resync(c);
            now = c->base_ns;
        }
        if (now < c->last)
            now = c->last; /* the extrapolation ran ahead of the kernel: wait for it */
        c->last = now;
        return now;
    }
    if (c->source == CPUCLOCK_PERF_PAGE) {
        uint64_t t = page_time(c->page);
        if (t != UINT64_MAX)
            return t;
    }
    return thread_cputime_ns();
}

void cpuclock_close(cpuclock *c)
{
    if (c->page)
        munmap(c->page, (size_t)sysconf(_SC_PAGESIZE));
    if (c->fd >= 0)
        close(c->fd);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

const char *cpuclock_source_name(enum cpuclock_source s)
{
    switch (s) {
    case CPUCLOCK_PERF_PAGE:
        return "perf_page";
    case CPUCLOCK_PERF_SEQ:
        return "perf_page_sequence";
    case CPUCLOCK_SYSCALL:
        return "clock_gettime";
    default:
        return "none";
    }
}
