/* hooks: the one place where excimer.so touches the engine's hooks.
 *
 * The engine keeps process-wide pointers that extensions chain: an
 * extension saves the pointer it finds, puts its own in, and calls the one
 * it saved. Two parts of this extension once did that each on its own with
 * zend_compile_file — the hierarchical profiler at every run's start, the
 * request tiers once — and each saved the other as "previous": the second
 * request of a process that had both recursed until its stack ran out. So
 * every engine hook of the extension is set here, once per process, and is
 * never taken back while the process runs: features register what they
 * want to be told at module start, and are called from here in the order
 * they registered (around a compile, the first registered is outermost).
 * A feature with nothing to do returns at once.
 *
 * Hooks, and who registers:
 *   zend_compile_file, zend_compile_string   tiers (functions declared),
 *                                            hprof (load::, eval::)
 *   zend_interrupt_function                  timerlib (timers, samples)
 *   user opcode 255, HANDLE_EXCEPTION        tiers
 *   fcall and fiber observers                hprof
 *   the heap's custom handlers               hprof (allocation counts)
 *   zend_execute_ex, zend_execute_internal   nobody: no feature needs them,
 *                                            and overriding either costs
 *                                            every call of the process
 * tests/hooks_only_in_hooks_c.phpt fails when another file sets one. */
#ifndef EXCIMER_HOOKS_H
#define EXCIMER_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

#include "php.h"
#include "zend_observer.h"

/* What a feature wants to be told around the engine's compiles. `begin`
 * runs before the compile and returns a token that `end` gets after it (a
 * compile that bails out with a fatal error never comes back: `end` is
 * not called). Either pair may be NULL. */
typedef struct excimer_compile_watcher {
    uint64_t (*file_begin)(zend_file_handle *fh);
    void (*file_end)(uint64_t token);
    uint64_t (*string_begin)(const char *filename);   /* eval()'d code */
    void (*string_end)(uint64_t token);
} excimer_compile_watcher;

/* Allocation counts of the request's heap, kept while counting. */
typedef struct excimer_alloc_counts {
    int64_t na, nf, aa;          /* allocations, frees, bytes allocated */
} excimer_alloc_counts;

/* Request start: the compile hooks go in at the first request of the
 * process, on top of opcache's (which it sets up after every module's
 * start), so that files opcache serves pass here too. */
void excimer_hooks_request_start(void);
/* Module shutdown: the pointers still ours are given back. */
void excimer_hooks_module_shutdown(void);

/* Module start only. */
void excimer_hooks_watch_compile(const excimer_compile_watcher *w);
void excimer_hooks_on_interrupt(void (*fn)(zend_execute_data *ex));
/* The fcall and fiber observers (once: later calls are ignored). */
void excimer_hooks_observe_calls(zend_observer_fcall_init init,
                                 zend_observer_fiber_switch_handler fiber_switch,
                                 zend_observer_fiber_destroy_handler fiber_destroy);
bool excimer_hooks_observing_calls(void);
/* Takes the user opcode `opcode` for `handler`; false (why in *why) when
 * another extension handles it already. */
bool excimer_hooks_own_opcode(zend_uchar opcode, user_opcode_handler_t handler, const char **why);

/* Any time (idempotent): `fn` is told of every frame an exception reaches
 * (the engine's HANDLE_EXCEPTION), before another extension's handler. */
void excimer_hooks_watch_exceptions(void (*fn)(zend_execute_data *ex));

/* Counts the request heap's allocations into *counts until called with
 * NULL (then the heap's handlers are as they were). */
void excimer_hooks_count_allocations(excimer_alloc_counts *counts);

#endif
