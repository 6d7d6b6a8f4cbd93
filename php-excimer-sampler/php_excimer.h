/* php_excimer.h: the excimer extension (php-excimer-sampler), a drop-in for
 * php-excimer. Module entry, version, per-request globals and the INI
 * settings. The extension's parts:
 *   src/excimer.c            module: INI, constants, class registration, life cycle
 *   src/hooks.[ch]           the one place that sets the engine's hooks
 *   src/timerlib.[ch]        POSIX timers that raise a thread's vm_interrupt
 *                            from a helper thread; the interrupt dispatch
 *   src/stack_store.[ch]     the sample log's data model (frames, stack trie,
 *                            entries) and its output formats
 *   src/excimer_timer.c      class ExcimerTimer, excimer_set_timeout()
 *   src/excimer_profiler.c   class ExcimerProfiler
 *   src/excimer_log.[ch]     classes ExcimerLog and ExcimerLogEntry
 *   src/excimer_arclamp.c    zero-code collection, excimer_arclamp_send()
 *   src/transport.[ch]       targets and delivery (Redis, datagrams)
 *   src/sender.[ch]          the sender thread and its queue
 *   src/fpm_worker.[ch]      what a php-fpm worker holds, delivered before it stops
 *   src/hprof.[ch], hprof_run.h, hprof_output.c
 *                            the hierarchical profiler behind the XHProf,
 *                            tideways_xhprof and uprofiler modules
 *   src/hprof_collect.c      zero-code hierarchical runs
 *   src/xhprof_api.c, tideways_xhprof_api.c, uprofiler_api.c, hprof_module.h
 *                            the three API modules (their own .so files)
 *   src/tiers.[ch], tiers_hook.c
 *                            request tiers
 * (src/NAME_arginfo.h are generated from stubs/ by scripts/gen-arginfo.)
 * `make doc-check` (scripts/check-docs) fails when a .c file of src/ is
 * missing from this list.
 *
 * NTS only: the process-wide state of timerlib.c, sender.c, hooks.c,
 * fpm_worker.c, tiers.c, tiers_hook.c and hprof.c is file statics, one per
 * process by design (README, "Threads: NTS only"); config.m4 refuses a
 * thread-safe PHP and this header stops any other build of it. */
#ifndef PHP_EXCIMER_H
#define PHP_EXCIMER_H

#include "php.h"

#ifdef ZTS
#error "excimer supports only non-thread-safe PHP (NTS): see php-excimer-sampler/README.md, Threads: NTS only"
#endif

/* phpversion('excimer'): the php-excimer API level implemented, a plain
 * version, so that version_compare(phpversion('excimer'), '1.2.5', '>=')
 * holds as code written for the original expects. Our identity is shown by
 * phpinfo() ("implementation"). */
#define PHP_EXCIMER_VERSION "1.2.5"

extern zend_module_entry excimer_module_entry;
#define phpext_excimer_ptr &excimer_module_entry

/* EXCIMER_REAL / EXCIMER_CPU: which clock a timer or profiler uses. */
#define EXCIMER_REAL 0
#define EXCIMER_CPU 1

ZEND_BEGIN_MODULE_GLOBALS(excimer)
    zend_long default_max_depth;  /* INI excimer.default_max_depth */
    zend_long max_log_entries;    /* INI excimer.max_log_entries: cap per log, 0 = none */
    char *arclamp_target;         /* INI excimer.arclamp_target: zero-code collection target */
    double arclamp_period;        /* INI excimer.arclamp_period: seconds between samples */
    zend_long arclamp_event_type; /* INI excimer.arclamp_event_type: cpu / real */
    zend_long arclamp_max_depth;  /* INI excimer.arclamp_max_depth */
    double arclamp_timeout;       /* INI excimer.arclamp_timeout: seconds per send */
    double arclamp_timeout_max;   /* INI excimer.arclamp_timeout_max: its bound */
    double arclamp_send_delay;    /* INI excimer.arclamp_send_delay: seconds a request's
                                     samples may wait to go with others' */
    zend_object *auto_profiler;   /* zero-code mode: this request's profiler, or NULL */
    bool hprof_enabled;           /* INI excimer.hprof: the hierarchical mode may run */
    zend_long hprof_max_arcs;     /* INI excimer.hprof_max_arcs: distinct arcs per run */
    struct hprof *hprof;          /* the hierarchical run of this request, or NULL */
    zend_long hprof_sample_rate;  /* INI excimer.hprof_sample_rate: 1 in N requests, 0 off */
    char *hprof_flags;            /* INI excimer.hprof_flags: "cpu,memory", ... */
    char *hprof_target;           /* INI excimer.hprof_target: where runs go */
    zend_long hprof_max_bytes;    /* INI excimer.hprof_max_bytes: a run's lines at most */
    bool hprof_auto;              /* this request's run is the zero-code one */
    zend_string *hprof_entry;     /* its entry point */
    zend_long hprof_runs_sent;    /* runs this process handed to the sender (zero-code) */
    zend_string *auto_entry;      /* zero-code mode: the request's entry point */
    /* request tiers (src/tiers.c); excimer.tiers itself is parsed there */
    zend_long tiers_sample;       /* INI excimer.tiers_sample: trace 1 in N requests */
    char *tiers_target;           /* INI excimer.tiers_target: where aggregates go */
    char *tiers_control;          /* INI excimer.tiers_control: the on/off file */
    double tiers_flush_interval;  /* INI excimer.tiers_flush_interval: seconds */
    double tiers_breaker_cost;    /* INI excimer.tiers_breaker_cost: own cost / request time */
    double tiers_breaker_window;  /* INI excimer.tiers_breaker_window: seconds */
    double tiers_breaker_cooldown;/* INI excimer.tiers_breaker_cooldown: seconds paused */
    zend_long tiers_breaker_backlog;  /* INI: lines queued for the sender at most */
    zend_long tiers_breaker_failures; /* INI: failed lines per window at most */
ZEND_END_MODULE_GLOBALS(excimer)

ZEND_EXTERN_MODULE_GLOBALS(excimer)
#define EXCIMER_G(v) ZEND_MODULE_GLOBALS_ACCESSOR(excimer, v)

/* True for EXCIMER_REAL / EXCIMER_CPU; otherwise warns "Invalid event type"
 * as Excimer does (ExcimerProfiler and ExcimerTimer::setEventType). */
static inline bool excimer_event_type_is_valid(zend_long event_type)
{
    if (event_type == EXCIMER_REAL || event_type == EXCIMER_CPU)
        return true;
    php_error_docref(NULL, E_WARNING, "Invalid event type");
    return false;
}

/* Class registration, one per source file, called from MINIT. */
void excimer_timer_class_register(void);
const zend_function_entry *excimer_timer_functions(void);
void excimer_profiler_class_register(void);
void excimer_log_classes_register(void);

/* excimer_profiler.c, for zero-code collection: a profiler made and started
 * from C (NULL when its timer cannot start; a warning was raised), and, at
 * the end, stopped, with its log (valid while the profiler lives). */
struct excimer_log_data;
zend_object *excimer_profiler_create_started(double period, int event_type, zend_long max_depth);
const struct excimer_log_data *excimer_profiler_stop_and_log(zend_object *obj);
/* Zero-code collection (excimer.arclamp_target): start a profiler for the
 * request, and at its end send what it sampled. */
void excimer_arclamp_request_start(void);
void excimer_arclamp_request_end(void);
/* The request's entry point: the script's real path ("unknown" without one). */
zend_string *excimer_request_entry_point(void);
/* Zero-code hierarchical profiling (src/hprof_collect.c). */
void excimer_hprof_collect_request_start(void);
void excimer_hprof_collect_request_end(void);
/* Drops this request's zero-code run (excimer_arclamp_skip_request());
 * whether there was one. */
bool excimer_hprof_collect_skip(void);
unsigned excimer_hprof_flags_of_ini(const char *list);

/* Where a kind of data goes: the URI `own_uri` (INI `own_ini`) when set,
 * else excimer.arclamp_target's server with the channel (or stream) `key`.
 * 0, or -1 when there is none (a bad own URI warns, unless own_ini is NULL:
 * off the PHP thread). */
struct transport_target;
int excimer_target_for(const char *own_uri, const char *own_ini, const char *key,
                       struct transport_target *t);

/* This host's name as a field of a line (runs, tier aggregates): space,
 * control bytes and DEL become '_'. */
void excimer_host_field(char *host, size_t len);

/* Request tiers (src/tiers.c). */
ZEND_INI_MH(excimer_tiers_on_update);
const zend_function_entry *excimer_tiers_functions(void);
void excimer_tiers_module_init(void);
void excimer_tiers_module_shutdown(void);
void excimer_tiers_request_start(void);
void excimer_tiers_request_end(void);

#endif
