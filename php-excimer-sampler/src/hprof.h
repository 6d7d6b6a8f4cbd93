/* hprof: the hierarchical profiler behind the XHProf, tideways_xhprof and
 * uprofiler APIs (modules xhprof.so, tideways_xhprof.so, uprofiler.so call
 * into these functions of excimer.so, as pdo_mysql calls pdo).
 *
 * Calls are seen through the engine's observer API, registered when an API
 * module loads (excimer.so alone observes nothing). A function's observers
 * are decided at its first call; ours say yes only while a run is going on,
 * and a run adds its handlers at start to the functions decided earlier
 * (and takes them off at stop), so a function first called before start is
 * measured like any other, and between runs a call costs only the engine's
 * "not observed" check. zend_compile_file is wrapped during a run (load::).
 * Each call adds to the arc "parent==>child" (XHProf's recursion names:
 * foo@1); the run is returned as XHProf's raw array. */
#ifndef EXCIMER_HPROF_H
#define EXCIMER_HPROF_H

#include "php.h"

/* What to measure besides ct and wt (our own bits; the API modules map
 * their flags onto these). */
#define HPROF_CPU          (1u << 0)  /* cpu: thread CPU µs */
#define HPROF_MU           (1u << 1)  /* mu: change of memory_get_usage() */
#define HPROF_PMU          (1u << 2)  /* pmu: change of memory_get_peak_usage() */
#define HPROF_NO_BUILTINS  (1u << 3)  /* internal functions are transparent */
#define HPROF_ALLOC        (1u << 4)  /* mem.na, mem.nf, mem.aa (allocator hooks) */
#define HPROF_ALLOC_AS_MU  (1u << 5)  /* mu is mem.aa (tideways MEMORY_ALLOC_AS_MU) */

#define EXCIMER_HPROF_API __attribute__((visibility("default")))

/* Starts a hierarchical run (a running one is discarded first). `ignored`:
 * function names made transparent (strings; NULL for none); "main()" never
 * is. Returns FAILURE with a warning when the mode is off by INI. */
EXCIMER_HPROF_API zend_result excimer_hprof_start(unsigned flags, HashTable *ignored);
/* excimer_hprof_start with xhprof_enable()'s $options:
 * 'ignored_functions' => a name or a list of names. */
EXCIMER_HPROF_API zend_result excimer_hprof_start_with_options(unsigned flags, HashTable *options);
/* Stops and returns the raw array in rv; NULL in rv when not running. */
EXCIMER_HPROF_API void excimer_hprof_stop(zval *rv);
/* Sampling mode: the stack ("main()==>a==>b", the innermost `depth` frames)
 * every `interval` seconds of wall time, keyed "sec.usec". */
EXCIMER_HPROF_API zend_result excimer_hprof_sample_start(double interval, zend_long depth);
EXCIMER_HPROF_API void excimer_hprof_sample_stop(zval *rv);
EXCIMER_HPROF_API bool excimer_hprof_running(void);

/* Called from an API module's MINIT: registers the observers (once; not
 * when excimer.hprof = 0). */
EXCIMER_HPROF_API void excimer_hprof_register(void);
/* Request end, from excimer.c. */
void excimer_hprof_rshutdown(void);

#endif
