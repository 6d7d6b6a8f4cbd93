/* hprof_module.h: what the three API modules (xhprof_api.c,
 * tideways_xhprof_api.c, uprofiler_api.c) have in common: a module that
 * needs excimer, registers its INI entries and constants, and makes
 * excimer.so register the profiler's observers. A module file defines its
 * functions, PHP_INI_BEGIN() block, generated arginfo and the rows its
 * original shows in phpinfo() (static void NAME_info_rows(void)), then says
 *   HPROF_API_MODULE(xhprof, "2.3.10")
 * (module name, the API level it implements). */
#ifndef EXCIMER_HPROF_MODULE_H
#define EXCIMER_HPROF_MODULE_H

#include "php.h"
#include "php_ini.h"
#include "ext/standard/info.h"

#include "hprof.h"

/* XHProf's flags, which uprofiler kept (and adds FUNCTION_INFO = 8, which
 * selects nothing): NO_BUILTINS 1, CPU 2, MEMORY 4 (mu and pmu). */
static inline unsigned hprof_flags_of_xhprof(zend_long flags)
{
    unsigned f = 0;
    if (flags & 1)
        f |= HPROF_NO_BUILTINS;
    if (flags & 2)
        f |= HPROF_CPU;
    if (flags & 4)
        f |= HPROF_MU | HPROF_PMU;
    return f;
}

/* `prefix`.sampling_interval (µs) and `prefix`.sampling_depth, as the
 * sampling mode of xhprof and uprofiler reads them; names as `flags` say. */
static inline zend_result hprof_sample_start_from_ini(const char *prefix, unsigned flags)
{
    char interval[64], depth[64];
    snprintf(interval, sizeof interval, "%s.sampling_interval", prefix);
    snprintf(depth, sizeof depth, "%s.sampling_depth", prefix);
    return excimer_hprof_sample_start(zend_ini_long(interval, strlen(interval), 0) / 1e6,
                                      zend_ini_long(depth, strlen(depth), 0), flags);
}

#define HPROF_API_MODULE(name, api_version)                                                   \
    static PHP_MINIT_FUNCTION(name)                                                           \
    {                                                                                         \
        REGISTER_INI_ENTRIES();                                                               \
        excimer_hprof_register();                                                             \
        register_##name##_symbols(module_number);                                             \
        return SUCCESS;                                                                       \
    }                                                                                         \
    static PHP_MSHUTDOWN_FUNCTION(name)                                                       \
    {                                                                                         \
        UNREGISTER_INI_ENTRIES();                                                             \
        return SUCCESS;                                                                       \
    }                                                                                         \
    static PHP_MINFO_FUNCTION(name)                                                           \
    {                                                                                         \
        php_info_print_table_start();                                                         \
        php_info_print_table_row(2, #name " support", "enabled");                             \
        name##_info_rows();                                                                   \
        php_info_print_table_row(2, "implementation",                                         \
                                 "Excimer's hierarchical profiler (excimer.so)");             \
        php_info_print_table_end();                                                           \
        DISPLAY_INI_ENTRIES();                                                                \
    }                                                                                         \
    static const zend_module_dep name##_deps[] = {ZEND_MOD_REQUIRED("excimer") ZEND_MOD_END}; \
    zend_module_entry name##_module_entry = {                                                 \
        STANDARD_MODULE_HEADER_EX, NULL, name##_deps, #name, ext_functions,                   \
        PHP_MINIT(name), PHP_MSHUTDOWN(name), NULL, NULL, PHP_MINFO(name),                    \
        api_version, STANDARD_MODULE_PROPERTIES};                                             \
    ZEND_GET_MODULE(name)

#endif
