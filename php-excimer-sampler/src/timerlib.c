/* timerlib.c: the POSIX implementation of timerlib.h (Linux).
 *
 * Four parts:
 *  - delivery of wall-clock timers (EXCIMER_REAL): one helper thread per
 *    process, created at the first start of such a timer. Their expiries
 *    are the real-time signal TIMERLIB_SIGNAL, sent to that thread alone
 *    (SIGEV_THREAD_ID); it waits in sigwaitinfo(), adds 1 + overruns to the
 *    timer's event_count and raises the owning thread's EG(vm_interrupt).
 *    The PHP thread may be blocked in a system call when such a timer
 *    expires (sleep, poll, a database read): a signal there would cut the
 *    call short with EINTR, which PHP code would see.
 *  - delivery of CPU-time timers (EXCIMER_CPU): the signal TIMERLIB_CPU_SIGNAL
 *    goes to the owning thread itself, whose handler does the same two
 *    atomic writes. A thread's CPU time advances only while it runs, and the
 *    kernel handles an expiry on the thread's way back to user space
 *    (POSIX CPU timers as task work, Linux 5.11 and later on x86), so the
 *    handler never interrupts a system call. It saves waking the helper on
 *    another CPU for every sample: measured on the development VM (nested
 *    virtualisation), 30-100 us of CPU per expiry, most of what sampling
 *    every 10 ms cost a request (README, "How fast").
 *  - the slot table, through which both find a timer from the signal's
 *    payload (slot index and generation, so a signal still queued for a
 *    deleted timer is recognised as stale and dropped). It grows in chunks
 *    that never move, so the handler reads it without a lock;
 *  - the dispatch on the PHP thread, called from the engine's interrupt
 *    hook (hooks.c): it hands each timer's counted events to its callback.
 *
 * Life cycle of the OS timer: timerlib_start() takes a slot and creates the
 * POSIX timer (on the clock of t->event_type as it is at that moment);
 * timerlib_stop() releases both. A stopped timer thus holds no kernel
 * resource, and a restart never sees a signal from its previous run. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "php.h"
#include "clock.h"
#include "hooks.h"
#include "php_excimer.h"
#include "timerlib.h"

/* The signal every timer sends to the helper thread, and only to it
 * (SIGEV_THREAD_ID). Only the helper blocks it, to wait for it: the PHP
 * thread keeps its mask, so programs it starts (proc_open, exec) do not
 * inherit a blocked signal. */
#define TIMERLIB_SIGNAL (SIGRTMIN + 3)
/* The signal a CPU-time timer sends to the thread that owns it. */
#define TIMERLIB_CPU_SIGNAL (SIGRTMIN + 4)

/* The signal payload: slot index in the low half, generation above it. */
#define SLOT_BITS (sizeof(uintptr_t) * CHAR_BIT / 2)
#define SLOT_MASK (((uintptr_t)1 << SLOT_BITS) - 1)
#define GENERATION_MASK (UINTPTR_MAX >> SLOT_BITS)
/* Slots come in chunks that never move (the signal handler reads them
 * without a lock); 4,096 chunks of 256: a million timers at once. */
#define CHUNK_BITS 8
#define CHUNK_SLOTS (1 << CHUNK_BITS)
#define MAX_CHUNKS 4096

typedef struct timerlib_slot {
    _Atomic(timerlib_timer *) timer; /* the timer using this slot, NULL when free */
    _Atomic uintptr_t generation;    /* bumped whenever the slot is released */
    int next_free;                   /* next free slot when free, -1 at the end */
} timerlib_slot;

/* Process-wide state. It has to be global: timer signals, the helper thread
 * that receives them and the fork handler belong to the process, not to a
 * request or a PHP thread, and the helper and the signal handler must find
 * any timer from nothing but a signal's payload. Everything here is written
 * under `lock`; the helper reads the table holding it, the handler reads
 * chunks and slots through their atomics alone.
 * Process-wide under a thread-safe PHP too (the per-thread parts are the
 * _Thread_local ones below), though the extension is NTS only (config.m4
 * refuses ZTS; README, "Threads: NTS only"). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t helper_ready; /* signalled once helper_tid is published */
    _Atomic(timerlib_slot *) chunks[MAX_CHUNKS]; /* calloc()ed, published once */
    int nslots;                  /* slots in the chunks made so far */
    int free_head;               /* first free slot, -1 when none */
    int helper_started;          /* the helper thread exists in this process */
    pthread_t helper;            /* valid while helper_started */
    pid_t helper_tid;            /* its kernel thread id, 0 until published */
    int handler_installed;       /* TIMERLIB_CPU_SIGNAL's handler is ours */
} g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .helper_ready = PTHREAD_COND_INITIALIZER,
    .free_head = -1,
};

/* The next timer id (process-wide, never reused). */
static _Atomic uint64_t next_timer_id = 1;

/* Per PHP thread: the timers created during the current request, id ->
 * timerlib_timer*. Request memory; created lazily, freed at request end. */
static _Thread_local HashTable *thread_timers;

/* Per PHP thread: ids of the timers whose callback is running (innermost
 * last). A timer is not dispatched again while its callback runs; its
 * events wait until the callback has returned. */
#define MAX_NESTED_CALLBACKS 32
static _Thread_local uint64_t running_ids[MAX_NESTED_CALLBACKS];
static _Thread_local int running_depth;

/* Per thread: the generator behind timerlib_random() (xoshiro256**). */
static _Thread_local uint64_t rng_state[4];
static _Thread_local int rng_seeded;

/* ---- slot table (writers hold g.lock) ----------------------------------- */

/* The slot of an index below g.nslots, or NULL (any index: the handler). */
static timerlib_slot *slot_at(size_t slot)
{
    if (slot >= (size_t)MAX_CHUNKS * CHUNK_SLOTS) {
        return NULL;
    }
    timerlib_slot *chunk =
        atomic_load_explicit(&g.chunks[slot >> CHUNK_BITS], memory_order_acquire);
    return chunk ? &chunk[slot & (CHUNK_SLOTS - 1)] : NULL;
}

/* Takes a free slot for t; -1 when the table cannot grow. */
static int slot_alloc(timerlib_timer *t)
{
    if (g.free_head < 0) {
        int c = g.nslots >> CHUNK_BITS;
        timerlib_slot *chunk = c < MAX_CHUNKS ? calloc(CHUNK_SLOTS, sizeof(*chunk)) : NULL;
        if (!chunk) {
            return -1;
        }
        for (int i = 0; i < CHUNK_SLOTS; i++) {
            chunk[i].next_free = i + 1 < CHUNK_SLOTS ? g.nslots + i + 1 : -1;
        }
        atomic_store_explicit(&g.chunks[c], chunk, memory_order_release);
        g.free_head = g.nslots;
        g.nslots += CHUNK_SLOTS;
    }
    int slot = g.free_head;
    timerlib_slot *s = slot_at((size_t)slot);
    g.free_head = s->next_free;
    atomic_store_explicit(&s->timer, t, memory_order_release);
    return slot;
}

/* Releases a slot; signals still queued for it become stale. */
static void slot_free(int slot)
{
    timerlib_slot *s = slot_at((size_t)slot);
    uintptr_t gen = atomic_load_explicit(&s->generation, memory_order_relaxed);
    atomic_store_explicit(&s->timer, NULL, memory_order_release);
    atomic_store_explicit(&s->generation, (gen + 1) & GENERATION_MASK, memory_order_release);
    s->next_free = g.free_head;
    g.free_head = slot;
}

static uintptr_t slot_payload(int slot)
{
    uintptr_t gen = atomic_load_explicit(&slot_at((size_t)slot)->generation, memory_order_relaxed);
    return gen << SLOT_BITS | (uintptr_t)slot;
}

/* One expiry: credit the timer named by the payload, if it is still the
 * one, and interrupt its thread. Lock-free, async-signal-safe. */
static void credit_expiry(uintptr_t payload, int overrun)
{
    timerlib_slot *s = slot_at(payload & SLOT_MASK);
    if (!s || atomic_load_explicit(&s->generation, memory_order_acquire) != payload >> SLOT_BITS) {
        return;
    }
    timerlib_timer *t = atomic_load_explicit(&s->timer, memory_order_acquire);
    if (t) {
        /* si_overrun is what timer_getoverrun() would return for this
         * signal, without the extra system call. */
        atomic_fetch_add_explicit(&t->event_count, 1 + (overrun > 0 ? overrun : 0),
                                  memory_order_relaxed);
        zend_atomic_bool_store_ex(t->vm_interrupt, true);
    }
}

/* TIMERLIB_CPU_SIGNAL on the thread whose CPU timer expired: that thread is
 * the one interrupted, so the timer cannot be freed while this runs (its
 * slot is released before its memory, and the release is seen here as a
 * generation or NULL timer). */
static void cpu_signal_handler(int signo, siginfo_t *si, void *context)
{
    (void)signo;
    (void)context;
    if (si->si_code == SI_TIMER) {
        int saved = errno;
        credit_expiry((uintptr_t)si->si_value.sival_ptr, si->si_overrun);
        errno = saved;
    }
}

/* ---- the helper thread ------------------------------------------------- */

/* The payload of the signal that asks the helper to exit (sent with
 * pthread_sigqueue, so its si_code is SI_QUEUE, never SI_TIMER). */
static char helper_exit_marker;

/* One expiry signal of a wall-clock timer. Under the lock: the owning
 * thread may be stopping the timer, and free it, right now. */
static void helper_deliver(uintptr_t payload, int overrun)
{
    pthread_mutex_lock(&g.lock);
    credit_expiry(payload, overrun);
    pthread_mutex_unlock(&g.lock);
}

static void *helper_main(void *arg)
{
    sigset_t wait_set;
    sigemptyset(&wait_set);
    sigaddset(&wait_set, TIMERLIB_SIGNAL);
#ifdef __GLIBC__
    pthread_setname_np(pthread_self(), "excimer-timers");
#endif
    pthread_mutex_lock(&g.lock);
    g.helper_tid = gettid();
    pthread_cond_broadcast(&g.helper_ready);
    pthread_mutex_unlock(&g.lock);

    for (;;) {
        siginfo_t si;
        if (sigwaitinfo(&wait_set, &si) < 0) {
            continue; /* EINTR */
        }
        if (si.si_code == SI_TIMER) {
            helper_deliver((uintptr_t)si.si_value.sival_ptr, si.si_overrun);
        } else if (si.si_code == SI_QUEUE && si.si_pid == getpid()
                   && si.si_value.sival_ptr == &helper_exit_marker) {
            break;
        }
    }
    return NULL;
}

/* Starts the helper unless it runs; called with g.lock held. Returns 0 or
 * an errno value. */
static int helper_ensure_started(void)
{
    if (g.helper_started) {
        return 0;
    }
    int err = timerlib_thread_create(&g.helper, helper_main, NULL);
    if (err) {
        return err;
    }
    g.helper_started = 1;
    while (!g.helper_tid) {
        pthread_cond_wait(&g.helper_ready, &g.lock);
    }
    return 0;
}

int timerlib_thread_create(pthread_t *thread, void *(*main)(void *), void *arg)
{
    /* The thread inherits a mask with every signal blocked: it must never
     * run a handler meant for the PHP thread (pcntl's, the CPU timers'). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int err = pthread_create(thread, NULL, main, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return err;
}

/* Asks the helper to exit and waits for it. */
static void helper_stop(void)
{
    pthread_mutex_lock(&g.lock);
    int started = g.helper_started;
    pthread_t helper = g.helper;
    g.helper_started = 0;
    g.helper_tid = 0;
    pthread_mutex_unlock(&g.lock);
    if (!started) {
        return;
    }
    union sigval v = {.sival_ptr = &helper_exit_marker};
    if (pthread_sigqueue(helper, TIMERLIB_SIGNAL, v) == 0) {
        pthread_join(helper, NULL);
    } else {
        pthread_detach(helper);
    }
}

/* ---- fork -------------------------------------------------------------- */

static void atfork_prepare(void)
{
    pthread_mutex_lock(&g.lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&g.lock);
}

/* In the child only the forking thread exists: the helper is gone and no
 * POSIX timer was inherited. Every timer becomes stopped, without an OS
 * timer to delete; the helper is created again when one is started. */
static void atfork_child(void)
{
    for (int i = 0; i < g.nslots; i++) {
        timerlib_timer *t = atomic_load(&slot_at((size_t)i)->timer);
        if (t) {
            t->is_running = 0;
            t->os_timer_valid = 0;
            t->slot = -1;
            atomic_store(&t->event_count, 0);
            slot_free(i);
        }
    }
    g.helper_started = 0;
    g.helper_tid = 0;
    pthread_cond_init(&g.helper_ready, NULL);
    rng_seeded = 0; /* the child must not repeat the parent's numbers */
    pthread_mutex_unlock(&g.lock);
}

/* ---- dispatch on the PHP thread ---------------------------------------- */

static int is_running_callback(uint64_t id)
{
    for (int i = 0; i < running_depth; i++) {
        if (running_ids[i] == id) {
            return 1;
        }
    }
    return 0;
}

static void raise_interrupt(void)
{
    zend_atomic_bool_store_ex(&EG(vm_interrupt), true);
}

/* Hands the counted events of this thread's timers to their callbacks. The
 * ids are taken first and each is looked up again before its call, since a
 * callback may destroy any timer, itself included. */
static void timerlib_dispatch(void)
{
    HashTable *timers = thread_timers;
    if (!timers || EG(exception) || running_depth == MAX_NESTED_CALLBACKS) {
        return;
    }
    uint64_t local[16], *ids = local;
    size_t n = 0, cap = sizeof(local) / sizeof(local[0]);
    zend_ulong id;
    timerlib_timer *t;
    ZEND_HASH_FOREACH_NUM_KEY_PTR(timers, id, t) {
        if (atomic_load_explicit(&t->event_count, memory_order_relaxed) > 0
            && !is_running_callback(id)) {
            if (n == cap) {
                cap *= 2;
                ids = ids == local ? memcpy(emalloc(cap * sizeof(*ids)), local, sizeof(local))
                                   : erealloc(ids, cap * sizeof(*ids));
            }
            ids[n++] = id;
        }
    } ZEND_HASH_FOREACH_END();

    for (size_t i = 0; i < n; i++) {
        /* Read again: a callback may have ended the request's table. */
        timers = thread_timers;
        if (!timers || !(t = zend_hash_index_find_ptr(timers, ids[i]))) {
            continue;
        }
        zend_long count = atomic_exchange(&t->event_count, 0);
        if (count <= 0 || !t->callback) {
            continue;
        }
        running_ids[running_depth++] = ids[i];
        t->callback(count, t->user_data);
        running_depth--;
        /* Events that arrived during the callback were skipped by any
         * nested dispatch: come back for them at the next safe point. */
        if (thread_timers && (t = zend_hash_index_find_ptr(thread_timers, ids[i]))
            && atomic_load_explicit(&t->event_count, memory_order_relaxed) > 0) {
            raise_interrupt();
        }
        if (EG(exception)) {
            /* The exception propagates to the interrupted code; the other
             * timers wait for the next safe point. */
            if (i + 1 < n) {
                raise_interrupt();
            }
            break;
        }
    }
    if (ids != local) {
        efree(ids);
    }
}

static void timerlib_interrupt(zend_execute_data *execute_data)
{
    (void)execute_data;
    timerlib_dispatch();
}

/* ---- module and request ------------------------------------------------ */

/* The handler of CPU-timer signals, for the whole process (SA_RESTART for
 * the record: it never interrupts a system call, see the file head). */
static void install_cpu_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = cpu_signal_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    g.handler_installed = sigaction(TIMERLIB_CPU_SIGNAL, &sa, NULL) == 0;
}

void timerlib_module_init(void)
{
    install_cpu_handler();
    excimer_hooks_on_interrupt(timerlib_interrupt);
    /* glibc unregisters these when the module is dlclose()d. */
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void timerlib_module_shutdown(void)
{
    /* Joined, not left parked: the module's code is unmapped after this. */
    helper_stop();
    if (g.handler_installed) {
        /* Ignored, not the default (which ends the process), should a
         * signal still be on its way once the handler's code is gone. */
        signal(TIMERLIB_CPU_SIGNAL, SIG_IGN);
        g.handler_installed = 0;
    }
    pthread_mutex_lock(&g.lock);
    for (int c = 0; c < g.nslots / CHUNK_SLOTS; c++) {
        free(atomic_exchange(&g.chunks[c], NULL));
    }
    g.nslots = 0;
    g.free_head = -1;
    pthread_mutex_unlock(&g.lock);
}

void timerlib_request_shutdown(void)
{
    HashTable *timers = thread_timers;
    running_depth = 0; /* a fatal error may have bailed out of a callback */
    if (!timers) {
        return;
    }
    timerlib_timer *t;
    ZEND_HASH_FOREACH_PTR(timers, t) {
        timerlib_stop(t);
        t->id = 0; /* forgotten: a later timerlib_destroy() is a no-op */
    } ZEND_HASH_FOREACH_END();
    thread_timers = NULL;
    zend_hash_destroy(timers);
    FREE_HASHTABLE(timers);
}

/* ---- timers ------------------------------------------------------------ */

static struct timespec seconds_to_timespec(double s)
{
    struct timespec ts = {0, 0};
    if (!(s > 0)) { /* also NaN */
        return ts;
    }
    if (s > 1e15) { /* some 30 million years: never */
        s = 1e15;
    }
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    /* Below 1 ns is 0, as in the original: 1e-12 alone cannot start. */
    return ts;
}

int timerlib_init(timerlib_timer *t, int event_type, timerlib_callback cb, void *user_data)
{
    if (event_type != EXCIMER_REAL && event_type != EXCIMER_CPU) {
        php_error_docref(NULL, E_WARNING, "Invalid event type");
        return FAILURE;
    }
    t->id = atomic_fetch_add(&next_timer_id, 1);
    t->event_type = event_type;
    t->os_timer_valid = 0;
    t->is_running = 0;
    t->callback = cb;
    t->user_data = user_data;
    atomic_init(&t->event_count, 0);
    t->vm_interrupt = &EG(vm_interrupt);
    t->slot = -1;
    if (!thread_timers) {
        ALLOC_HASHTABLE(thread_timers);
        zend_hash_init(thread_timers, 8, NULL, NULL, 0);
    }
    zend_hash_index_add_new_ptr(thread_timers, t->id, t);
    return SUCCESS;
}

int timerlib_start(timerlib_timer *t, double initial, double period)
{
    if (!t->id) {
        php_error_docref(NULL, E_WARNING, "Unable to start an uninitialised timer");
        return FAILURE;
    }
    /* As the original, where the kernel refuses them: NaN and +INF. */
    if (isnan(initial) || isnan(period) || initial == INFINITY || period == INFINITY) {
        php_error_docref(NULL, E_WARNING, "Error in timer_settime(): %s", strerror(EINVAL));
        return FAILURE;
    }
    struct itimerspec its = {
        .it_value = seconds_to_timespec(initial > 0 ? initial : period),
        .it_interval = period > 0 ? seconds_to_timespec(period) : (struct timespec){0, 0},
    };
    /* A profiler's random first interval, a fraction of a period of a few
     * ns, can be below 1 ns: start a period away rather than refuse (the
     * original takes setPeriod(1e-9) as 1 ns). */
    if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
        its.it_value = its.it_interval;
    if (!its.it_value.tv_sec && !its.it_value.tv_nsec) {
        php_error_docref(NULL, E_WARNING,
                         "Unable to start timer with a value of zero duration and period");
        return FAILURE;
    }
    if (t->event_type != EXCIMER_REAL && t->event_type != EXCIMER_CPU) {
        php_error_docref(NULL, E_WARNING, "Invalid event type");
        return FAILURE;
    }
    timerlib_stop(t);

    clockid_t clock = CLOCK_MONOTONIC;
    if (t->event_type == EXCIMER_CPU) {
        int err = pthread_getcpuclockid(pthread_self(), &clock);
        if (err) {
            php_error_docref(NULL, E_WARNING, "Unable to get the thread CPU clock: %s",
                             strerror(err));
            return FAILURE;
        }
    }

    /* CPU time passes only while this thread runs: its expiries go to
     * this thread itself (see the file head); wall-clock ones to the helper. */
    int direct = t->event_type == EXCIMER_CPU && g.handler_installed;
    pthread_mutex_lock(&g.lock);
    int err = direct ? 0 : helper_ensure_started();
    pid_t target_tid = direct ? gettid() : g.helper_tid;
    int slot = err ? -1 : slot_alloc(t);
    uintptr_t payload = slot >= 0 ? slot_payload(slot) : 0;
    pthread_mutex_unlock(&g.lock);
    if (err) {
        php_error_docref(NULL, E_WARNING, "Unable to start the timer thread: %s", strerror(err));
        return FAILURE;
    }
    if (slot < 0) {
        php_error_docref(NULL, E_WARNING, "Unable to create timer: too many timers");
        return FAILURE;
    }
    t->slot = slot;

    struct sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = direct ? TIMERLIB_CPU_SIGNAL : TIMERLIB_SIGNAL;
    sev.sigev_value.sival_ptr = (void *)payload;
    sev._sigev_un._tid = target_tid;
    if (timer_create(clock, &sev, &t->os_timer) != 0) {
        int e = errno;
        pthread_mutex_lock(&g.lock);
        slot_free(slot);
        pthread_mutex_unlock(&g.lock);
        t->slot = -1;
        php_error_docref(NULL, E_WARNING, "Unable to create timer: %s", strerror(e));
        return FAILURE;
    }
    t->os_timer_valid = 1;
    atomic_store(&t->event_count, 0);
    if (timer_settime(t->os_timer, 0, &its, NULL) != 0) {
        int e = errno;
        t->is_running = 1; /* so that stop() releases the timer and slot */
        timerlib_stop(t);
        php_error_docref(NULL, E_WARNING, "Unable to start timer: %s", strerror(e));
        return FAILURE;
    }
    t->is_running = 1;
    return SUCCESS;
}

void timerlib_stop(timerlib_timer *t)
{
    if (t->slot >= 0) {
        /* Released first, under the lock: once it is unlocked, the helper
         * can no longer reach t (nor the signal handler: it runs on this
         * thread, and sees the slot released before t is freed). */
        pthread_mutex_lock(&g.lock);
        slot_free(t->slot);
        pthread_mutex_unlock(&g.lock);
        t->slot = -1;
    }
    if (t->os_timer_valid) {
        t->os_timer_valid = 0;
        if (timer_delete(t->os_timer) != 0) {
            php_error_docref(NULL, E_WARNING, "Unable to delete timer: %s", strerror(errno));
        }
    }
    t->is_running = 0;
    atomic_store(&t->event_count, 0);
}

void timerlib_destroy(timerlib_timer *t)
{
    if (!t->id) {
        return;
    }
    timerlib_stop(t);
    if (thread_timers) {
        zend_hash_index_del(thread_timers, t->id);
    }
    t->id = 0;
}

double timerlib_get_time(timerlib_timer *t)
{
    struct itimerspec its;
    if (!t->is_running || !t->os_timer_valid || timer_gettime(t->os_timer, &its) != 0) {
        return 0.0;
    }
    return (double)its.it_value.tv_sec + (double)its.it_value.tv_nsec / 1e9;
}

int timerlib_is_running(const timerlib_timer *t)
{
    return t->is_running;
}

/* ---- random numbers ---------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static void rng_seed(void)
{
    uint64_t seed;
    if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed)) {
        seed = clock_mono_ns();
        seed ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&seed;
    }
    /* splitmix64 never yields an all-zero xoshiro state from any seed. */
    for (int i = 0; i < 4; i++) {
        rng_state[i] = splitmix64(&seed);
    }
    rng_seeded = 1;
}

void timerlib_random_id(char out[TIMERLIB_ID_LEN + 1])
{
    snprintf(out, TIMERLIB_ID_LEN + 1, "%08x%08x", (unsigned)(timerlib_random() * 4294967296.0),
             (unsigned)(timerlib_random() * 4294967296.0));
}

double timerlib_random(void)
{
    if (!rng_seeded) {
        rng_seed();
    }
    uint64_t *s = rng_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t tmp = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= tmp;
    s[3] = rotl(s[3], 45);
    return (double)(result >> 11) * 0x1.0p-53;
}
