/* timerlib: POSIX timers that interrupt the PHP VM gracefully.
 *
 * A timer is created on CLOCK_MONOTONIC (EXCIMER_REAL) or on the creating
 * thread's CPU clock (EXCIMER_CPU). Its expiry is delivered as a real-time
 * signal whose only effect is to add 1 + overruns to the timer's event
 * counter and set the owning thread's EG(vm_interrupt):
 *   - EXCIMER_REAL: to ONE helper thread per process (SIGEV_THREAD_ID),
 *     never to the PHP thread, which may be blocked in a system call that
 *     a signal would cut short;
 *   - EXCIMER_CPU: to the owning thread itself, through a handler: CPU time
 *     passes only while the thread runs, and the kernel delivers the expiry
 *     on its way back to user space, so no system call is interrupted, and
 *     no other thread has to wake up (timerlib.c explains the cost saved).
 * At its next safe point (loop back-edge, call or return) the engine calls
 * zend_interrupt_function, where timerlib_dispatch() hands each timer's
 * counted events to its callback on the PHP thread. Creating, starting and
 * stopping a timer costs a few system calls and no thread.
 *
 * Ownership: a timer struct is owned by the object that embeds it
 * (ExcimerTimer, ExcimerProfiler). It must be timerlib_destroy()ed before
 * its memory goes away; after that no callback for it is ever made.
 *
 * Fork: timers are not inherited by a child process (POSIX). In the child,
 * timers that were running are marked stopped (timerlib_is_running() false,
 * timerlib_stop() a quiet no-op); start() again works in the child. */
#ifndef EXCIMER_TIMERLIB_H
#define EXCIMER_TIMERLIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "php.h"

/* Called on the PHP thread with the number of expirations since the last
 * call (>= 1). May run PHP code, throw, and even destroy the timer. */
typedef void (*timerlib_callback)(zend_long event_count, void *user_data);

typedef struct timerlib_timer {
    uint64_t id;                     /* unique per process, 0 = never initialised */
    int event_type;                  /* EXCIMER_REAL or EXCIMER_CPU */
    int os_timer_valid;              /* os_timer exists (created in this process) */
    timer_t os_timer;                /* the POSIX timer */
    int is_running;                  /* armed and not yet stopped */
    timerlib_callback callback;      /* what dispatch calls */
    void *user_data;                 /* its argument */
    _Atomic zend_long event_count;   /* expirations not yet dispatched; written by the helper */
    zend_atomic_bool *vm_interrupt;  /* &EG(vm_interrupt) of the owning thread */
    int slot;                        /* index in the helper's slot table, -1 when none */
} timerlib_timer;

/* Module start/stop: install the zend_interrupt_function hook (chaining the
 * previous one), the fork handler and the CPU timers' signal handler. */
void timerlib_module_init(void);
void timerlib_module_shutdown(void);
/* Request end: stops and forgets every timer still registered. */
void timerlib_request_shutdown(void);

/* Prepares a timer; event_type EXCIMER_REAL or EXCIMER_CPU. Returns SUCCESS
 * or FAILURE with a PHP warning raised. */
int timerlib_init(timerlib_timer *t, int event_type, timerlib_callback cb, void *user_data);
/* Arms it: first expiry after `initial` seconds, then every `period` seconds
 * (0 = one-shot). Restarts a running timer. SUCCESS or FAILURE (warning). */
int timerlib_start(timerlib_timer *t, double initial, double period);
/* Disarms it; pending undispatched events are discarded. Quiet when not running. */
void timerlib_stop(timerlib_timer *t);
/* Stops it and releases the OS timer; the struct may be freed afterwards. */
void timerlib_destroy(timerlib_timer *t);
/* Seconds until the next expiry; 0 when not running. */
double timerlib_get_time(timerlib_timer *t);
int timerlib_is_running(const timerlib_timer *t);

/* pthread_create() for the extension's own threads (the helper, the Arc
 * Lamp sender): started with every signal blocked. 0 or an errno value. */
int timerlib_thread_create(pthread_t *thread, void *(*main)(void *), void *arg);

/* Uniform random double in [0, 1) from the extension's own generator (never
 * mt_rand(): the user's seeded sequence must not move). */
double timerlib_random(void);

/* A fresh random id for a run or a request: TIMERLIB_ID_LEN lower-case hex
 * digits and a NUL into `out`, from timerlib_random(). */
#define TIMERLIB_ID_LEN 16
void timerlib_random_id(char out[TIMERLIB_ID_LEN + 1]);

#endif
