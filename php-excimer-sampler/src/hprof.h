/* hprof: the hierarchical profiler behind the XHProf, tideways_xhprof and
 * uprofiler APIs (modules xhprof.so, tideways_xhprof.so, uprofiler.so call
 * into these functions of excimer.so, as pdo_mysql calls pdo).
 *
 * Calls are seen through the engine's observer API, registered (hooks.c)
 * when an API module loads or zero-code runs are configured (excimer.so
 * alone observes nothing). A function's observers are decided at its first
 * call; ours say yes only while a run is going on, and a run adds its
 * handlers at start to the functions decided earlier (and takes them off at
 * stop), so a function first called before start is measured like any
 * other, and between runs a call costs only the engine's "not observed"
 * check. Compiles are watched through hooks.c (load::, eval::).
 *
 * Each call adds to the arc "parent==>child", names as printed by the
 * originals: arcs with the same printed key add up, and the recursion level
 * (foo@1) counts the calls of the same printed name in progress. The files
 * are hprof.c (observing, the run's tables) and hprof_output.c (the run as
 * XHProf's raw array, or as the lines of the wire format). */
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
/* How files and eval()'d code are named: as each original does on PHP 8.2.
 * Default (neither bit): uprofiler's README, also zero-code runs —
 * load::FILE for compiling an included file, run_init::FILE for its
 * top-level code, eval::FILE(LINE) : eval()'d code for running eval()'d
 * code. PECL xhprof 2.x: load:: with the path's last two components for the
 * compile, eval::FILE(LINE) : eval()'d code for the compile of eval()'d code
 * only; top-level and eval()'d code are transparent (their calls are the
 * includer's). tideways 5: none of them, all transparent. */
#define HPROF_NAMES_XHPROF   (1u << 8)
#define HPROF_NAMES_TIDEWAYS (1u << 9)

#define EXCIMER_HPROF_API __attribute__((visibility("default")))

/* Starts a hierarchical run. `ignored`: function names made transparent
 * (strings; NULL for none); "main()" never is. While a run (or a sampling
 * run) is going on nothing changes: it keeps its flags and what it has, as
 * with the originals. Returns FAILURE with a warning when the mode is off by
 * INI. */
EXCIMER_HPROF_API zend_result excimer_hprof_start(unsigned flags, HashTable *ignored);
/* excimer_hprof_start with xhprof_enable()'s $options:
 * 'ignored_functions' => a name or a list of names. */
EXCIMER_HPROF_API zend_result excimer_hprof_start_with_options(unsigned flags, HashTable *options);
/* Stops and returns the raw array in rv; NULL in rv when not running. */
EXCIMER_HPROF_API void excimer_hprof_stop(zval *rv);

/* Zero-code collection (hprof_collect.c): stops the run and appends it to
 * sb as the lines of the wire format (common/src/runline.h), at most
 * max_bytes (0: no cap); also as the raw array in *array when array is not
 * NULL. Returns the number of lines, 0 when no run was going on. */
struct strbuf;
size_t excimer_hprof_stop_lines(struct strbuf *sb, const char *runid, const char *entry,
                                size_t max_bytes, uint64_t *left_out, zval *array);
/* Sampling mode: the stack ("main()==>a==>b", the innermost `depth` frames)
 * every `interval` seconds of wall time, keyed "sec.usec"; `flags`: the
 * HPROF_NAMES_* of the module asking. */
EXCIMER_HPROF_API zend_result excimer_hprof_sample_start(double interval, zend_long depth,
                                                         unsigned flags);
EXCIMER_HPROF_API void excimer_hprof_sample_stop(zval *rv);
EXCIMER_HPROF_API bool excimer_hprof_running(void);
/* How wall time is read: "tsc" or "clock_gettime" (tideways' phpinfo()). */
EXCIMER_HPROF_API const char *excimer_hprof_clock_source(void);

/* Called from an API module's MINIT (and excimer's, for zero-code runs):
 * registers the observers and the compile watcher (once; not when
 * excimer.hprof = 0). */
EXCIMER_HPROF_API void excimer_hprof_register(void);
/* Request end, from excimer.c. */
void excimer_hprof_rshutdown(void);

#endif
