/* tiers: request tiers — the wall time of a few named functions per kind
 * of request, aggregated per process and sent every few seconds.
 *
 * Two halves:
 *   tiers.c       the configuration (excimer.tiers), identities, the
 *                 aggregates and their histograms, the PHP functions, the
 *                 flush to the transport, the circuit breaker and the
 *                 on/off switch;
 *   tiers_hook.c  how a tier function's calls are seen without touching any
 *                 other call: the tier function's own opcodes are patched
 *                 (user functions) or its handler swapped (internal ones).
 * tiers_hook.c tells tiers.c about calls through tiers_call_done(); tiers.c
 * tells tiers_hook.c which functions to watch (tiers_rt.fns). */
#ifndef EXCIMER_TIERS_H
#define EXCIMER_TIERS_H

#include <stdbool.h>
#include <stdint.h>

#include "php.h"

#define TIERS_MAX 32            /* tiers a configuration may name */
#define TIERS_FN_MAX 64         /* functions it may name */
#define TIERS_TOTAL_INDEX 0     /* tier index of _total (TIERLINE_TOTAL); named tiers are 1.. */

/* A function the configuration names, lower-cased as PHP looks them up. */
struct tiers_fn {
    char *lc_class;             /* "wikimedia\rdbms\database", NULL for a function */
    size_t class_len;
    char *lc_name;              /* "query" */
    size_t name_len;
    int tier;                   /* 1..ntiers */
};

/* The process's view of the tiers, shared by the two halves. One per
 * process: PHP is built without threads here (NTS) and the aggregates
 * outlive requests by design (they are flushed every few seconds). */
struct tiers_runtime {
    int ntiers;                            /* named tiers (index 1..ntiers) */
    char names[TIERS_MAX + 1][65];         /* names[0] is "_total" */
    int nfns;
    struct tiers_fn fns[TIERS_FN_MAX];
    bool tracing;                          /* this request is being timed */
    int active[TIERS_MAX + 1];             /* calls of each tier in progress */
    uint64_t skipped;                      /* calls not recorded (bounds) */
};
extern struct tiers_runtime tiers_rt;

/* tiers.c: a call of `tier` (outermost of its tier) took `ticks`
 * (cpuclock_ticks(): the TSC where the kernel trusts it, ~10 ns a read
 * instead of clock_gettime's ~35 here). */
void tiers_call_done(int tier, uint64_t ticks);
/* tiers.c: the tier a function name belongs to, or -1. */
int tiers_tier_of_name(const char *lc_class, size_t class_len, const char *lc_name,
                       size_t name_len);

/* tiers_hook.c */
/* MINIT: the shared tables and the user opcode; false when user functions
 * cannot be tiers in this process (opcache's JIT is configured). */
bool tiers_hook_module_init(void);
void tiers_hook_module_shutdown(void);
/* Watches the functions of tiers_rt.fns: internal ones get their handler
 * swapped, user ones declared so far are patched, and from now on every
 * file compiled or loaded is looked at. With no functions, undoes it all. */
void tiers_hook_apply(void);
/* Request end: calls still open are closed now; per-request tables cleared. */
void tiers_hook_request_end(void);
/* Oplines this process patched: in shared memory (opcache's, kept), and
 * in this request's own memory. */
void tiers_hook_patched(long *shared, long *private_);
/* This process's user's share of the tables in shared memory (one per
 * user of a php-fpm master's pools): what it holds and may hold. */
struct tiers_share {
    long uid;                   /* the effective user it is keyed by */
    long ops, ops_max;          /* patched oplines in opcache's memory */
    long internals, internals_max; /* internal functions swapped */
};
/* False when the user has no share yet (or none left to have). */
bool tiers_hook_share(struct tiers_share *share);
/* Whether user functions can be tiers here; why not (for status). */
bool tiers_hook_user_functions(const char **why);

#endif
