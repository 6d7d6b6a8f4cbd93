/* excimer.c: the module — INI settings, constants, class registration and
 * the request/module life cycle. The classes live one per file (see
 * php_excimer.h); the timer machinery in timerlib.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "php_ini.h"
#include "ext/standard/info.h"

#include "php_excimer.h"
#include "hooks.h"
#include "hprof.h"
#include "fpm_worker.h"
#include "sender.h"
#include "timerlib.h"

ZEND_DECLARE_MODULE_GLOBALS(excimer)

#include "excimer_arclamp_arginfo.h"

/* "cpu" / "real" (or 1 / 0) for excimer.arclamp_event_type. */
static ZEND_INI_MH(OnUpdateEventType)
{
    zend_long *p = (zend_long *)ZEND_INI_GET_ADDR();
    const char *v = ZSTR_VAL(new_value);
    if (strcmp(v, "cpu") == 0 || strcmp(v, "1") == 0)
        *p = EXCIMER_CPU;
    else if (strcmp(v, "real") == 0 || strcmp(v, "0") == 0)
        *p = EXCIMER_REAL;
    else
        return FAILURE;
    return SUCCESS;
}

/* A number of seconds in [min, max] (min excluded when `open_min`), parsed
 * whole: anything else is refused and the old value stays. */
static int update_seconds(zend_string *new_value, double *p, double min, int open_min, double max)
{
    char *end;
    double v = zend_strtod(ZSTR_VAL(new_value), (const char **)&end);
    if (end == ZSTR_VAL(new_value) || *end || !(v >= min && v <= max) || (open_min && v == min))
        return FAILURE;
    *p = v;
    return SUCCESS;
}

/* 0 to 60 seconds for excimer.arclamp_send_delay. */
static ZEND_INI_MH(OnUpdateSendDelay)
{
    return update_seconds(new_value, (double *)ZEND_INI_GET_ADDR(), 0, 0, 60);
}

/* excimer.arclamp_timeout_max: the host's bound (more than 0, at most 60
 * seconds) on excimer.arclamp_timeout. Registered before it, so php.ini
 * may raise both. */
static ZEND_INI_MH(OnUpdateArclampTimeoutMax)
{
    return update_seconds(new_value, (double *)ZEND_INI_GET_ADDR(), 0, 1, 60);
}

/* excimer.arclamp_timeout: more than 0, at most excimer.arclamp_timeout_max.
 * It is how long excimer_arclamp_send() may make a request wait and how long
 * the sender thread gives one delivery, so a script (ini_set) or a site
 * (.user.ini) can tune it but never stall a worker longer than the host
 * allows. */
static ZEND_INI_MH(OnUpdateArclampTimeout)
{
    return update_seconds(new_value, (double *)ZEND_INI_GET_ADDR(), 0, 1,
                          EXCIMER_G(arclamp_timeout_max));
}

/* excimer.default_max_depth: the leading integer of the value, 0 when there
 * is none ("abc" is 0, "2.7" is 2), without PHP 8.2's "Invalid quantity"
 * warning: as the original reads it. */
static ZEND_INI_MH(OnUpdateLeadingLong)
{
    zend_long *p = (zend_long *)ZEND_INI_GET_ADDR();
    *p = ZEND_STRTOL(ZSTR_VAL(new_value), NULL, 10);
    return SUCCESS;
}

/* Where samples go and how they are taken is the host's decision, made in
 * php.ini or the pool's php_admin_value: PHP_INI_SYSTEM, so neither a site's
 * .user.ini nor ini_set() can send its stacks (or every request's) elsewhere. */
PHP_INI_BEGIN()
    STD_PHP_INI_ENTRY("excimer.default_max_depth", "1000", PHP_INI_ALL, OnUpdateLeadingLong,
                      default_max_depth, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.max_log_entries", "1000000", PHP_INI_ALL, OnUpdateLong,
                      max_log_entries, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.arclamp_target", "", PHP_INI_SYSTEM,
                      OnUpdateString, arclamp_target, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.arclamp_period", "60", PHP_INI_SYSTEM,
                      OnUpdateReal, arclamp_period, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.arclamp_event_type", "cpu", PHP_INI_SYSTEM,
                      OnUpdateEventType, arclamp_event_type, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.arclamp_max_depth", "250", PHP_INI_SYSTEM,
                      OnUpdateLong, arclamp_max_depth, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.arclamp_timeout_max", "1", PHP_INI_SYSTEM, OnUpdateArclampTimeoutMax,
                      arclamp_timeout_max, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.arclamp_timeout", "0.1", PHP_INI_ALL, OnUpdateArclampTimeout,
                      arclamp_timeout, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.arclamp_send_delay", "1", PHP_INI_SYSTEM, OnUpdateSendDelay,
                      arclamp_send_delay, zend_excimer_globals, excimer_globals)
    /* The hierarchical mode (xhprof.so and friends): 0 makes it refuse to
     * start and leaves even the fiber observer unregistered. */
    STD_PHP_INI_BOOLEAN("excimer.hprof", "1", PHP_INI_SYSTEM, OnUpdateBool,
                        hprof_enabled, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.hprof_max_arcs", "100000", PHP_INI_SYSTEM, OnUpdateLong,
                      hprof_max_arcs, zend_excimer_globals, excimer_globals)
    /* Zero-code hierarchical profiling: the host's decision, like the sampler's. */
    STD_PHP_INI_ENTRY("excimer.hprof_sample_rate", "0", PHP_INI_SYSTEM, OnUpdateLong,
                      hprof_sample_rate, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.hprof_flags", "cpu,memory", PHP_INI_SYSTEM, OnUpdateString,
                      hprof_flags, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.hprof_target", "", PHP_INI_SYSTEM, OnUpdateString,
                      hprof_target, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.hprof_max_bytes", "2097152", PHP_INI_SYSTEM, OnUpdateLong,
                      hprof_max_bytes, zend_excimer_globals, excimer_globals)
    /* Request tiers (src/tiers.c). Which functions are tiers is the host's:
     * their patches live in memory every pool of the master shares. How
     * many requests are traced may change at run time (the breaker bounds
     * the cost); where the data goes and the bounds are the host's. */
    PHP_INI_ENTRY("excimer.tiers", "", PHP_INI_SYSTEM, excimer_tiers_on_update)
    STD_PHP_INI_ENTRY("excimer.tiers_sample", "1", PHP_INI_ALL, OnUpdateLong,
                      tiers_sample, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_target", "", PHP_INI_SYSTEM, OnUpdateString,
                      tiers_target, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_control", "", PHP_INI_SYSTEM, OnUpdateString,
                      tiers_control, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_flush_interval", "5", PHP_INI_SYSTEM, OnUpdateReal,
                      tiers_flush_interval, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_breaker_cost", "0.005", PHP_INI_SYSTEM, OnUpdateReal,
                      tiers_breaker_cost, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_breaker_window", "10", PHP_INI_SYSTEM, OnUpdateReal,
                      tiers_breaker_window, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_breaker_cooldown", "30", PHP_INI_SYSTEM, OnUpdateReal,
                      tiers_breaker_cooldown, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_breaker_backlog", "10000", PHP_INI_SYSTEM, OnUpdateLong,
                      tiers_breaker_backlog, zend_excimer_globals, excimer_globals)
    STD_PHP_INI_ENTRY("excimer.tiers_breaker_failures", "3", PHP_INI_SYSTEM, OnUpdateLong,
                      tiers_breaker_failures, zend_excimer_globals, excimer_globals)
PHP_INI_END()

/* Only zeroes: every field with an INI entry above takes its value from
 * there when REGISTER_INI_ENTRIES runs the entry's handler (on php.ini's
 * value, or on the default when there is none or it is refused), so each
 * default is written once, as the entry's string. */
static void excimer_init_globals(zend_excimer_globals *g)
{
    memset(g, 0, sizeof *g);
}

static PHP_MINIT_FUNCTION(excimer)
{
    ZEND_INIT_MODULE_GLOBALS(excimer, excimer_init_globals, NULL);
    REGISTER_INI_ENTRIES();
    REGISTER_LONG_CONSTANT("EXCIMER_REAL", EXCIMER_REAL, CONST_CS | CONST_PERSISTENT);
    REGISTER_LONG_CONSTANT("EXCIMER_CPU", EXCIMER_CPU, CONST_CS | CONST_PERSISTENT);
    /* The functions of the stubs (stubs/arclamp.stub.php here, and
     * excimer_set_timeout from stubs/ExcimerTimer.stub.php). */
    if (zend_register_functions(NULL, ext_functions, NULL, MODULE_PERSISTENT) != SUCCESS ||
        zend_register_functions(NULL, excimer_timer_functions(), NULL, MODULE_PERSISTENT) != SUCCESS ||
        zend_register_functions(NULL, excimer_tiers_functions(), NULL, MODULE_PERSISTENT) != SUCCESS)
        return FAILURE;
    excimer_log_classes_register();
    excimer_profiler_class_register();
    excimer_timer_class_register();
    timerlib_module_init();
    sender_module_init();
    excimer_tiers_module_init();
    if (EXCIMER_G(hprof_sample_rate) > 0) {
        if (!EXCIMER_G(hprof_enabled))
            php_error_docref(NULL, E_WARNING, "excimer.hprof_sample_rate needs excimer.hprof = 1: "
                             "no request will be profiled hierarchically");
        excimer_hprof_register(); /* zero-code runs need the observers */
    }
    return SUCCESS;
}

static PHP_MSHUTDOWN_FUNCTION(excimer)
{
    excimer_fpm_worker_module_shutdown();
    excimer_tiers_module_shutdown(); /* the last aggregates, to the sender */
    sender_module_shutdown(); /* what is queued is delivered first */
    timerlib_module_shutdown();
    excimer_hooks_module_shutdown();
    UNREGISTER_INI_ENTRIES();
    return SUCCESS;
}

static PHP_RINIT_FUNCTION(excimer)
{
#if defined(ZTS) && defined(COMPILE_DL_EXCIMER)
    ZEND_TSRMLS_CACHE_UPDATE();
#endif
    excimer_fpm_worker_request_start();
    excimer_hooks_request_start();
    excimer_arclamp_request_start();
    excimer_hprof_collect_request_start();
    excimer_tiers_request_start();
    return SUCCESS;
}

static PHP_RSHUTDOWN_FUNCTION(excimer)
{
    excimer_arclamp_request_end();
    excimer_hprof_collect_request_end();
    excimer_tiers_request_end();
    excimer_hprof_rshutdown();
    timerlib_request_shutdown();
    excimer_fpm_worker_request_end();
    return SUCCESS;
}

static PHP_MINFO_FUNCTION(excimer)
{
    php_info_print_table_start();
    php_info_print_table_header(2, "excimer support", "enabled");
    php_info_print_table_row(2, "excimer version", PHP_EXCIMER_VERSION);
    php_info_print_table_row(2, "implementation", "php-excimer-sampler (Arc Lamp, C edition)");
    php_info_print_table_end();
    DISPLAY_INI_ENTRIES();
}

zend_module_entry excimer_module_entry = {
    STANDARD_MODULE_HEADER,
    "excimer",
    NULL, /* functions: registered at MINIT from the stubs' tables */
    PHP_MINIT(excimer),
    PHP_MSHUTDOWN(excimer),
    PHP_RINIT(excimer),
    PHP_RSHUTDOWN(excimer),
    PHP_MINFO(excimer),
    PHP_EXCIMER_VERSION,
    STANDARD_MODULE_PROPERTIES,
};

#ifdef COMPILE_DL_EXCIMER
ZEND_GET_MODULE(excimer)
#endif
