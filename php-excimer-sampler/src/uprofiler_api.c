/* uprofiler_api.c: module "uprofiler", uprofiler's API on Excimer's
 * hierarchical profiler (hprof.h, in excimer.so, loaded first). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "php_ini.h"
#include "ext/standard/info.h"

#include "hprof.h"

#define UPROFILER_FLAGS_NO_BUILTINS 1
#define UPROFILER_FLAGS_CPU 2
#define UPROFILER_FLAGS_MEMORY 4
#define UPROFILER_FLAGS_FUNCTION_INFO 8

#include "uprofiler_arginfo.h"

PHP_INI_BEGIN()
    PHP_INI_ENTRY("uprofiler.output_dir", "", PHP_INI_ALL, NULL)
    PHP_INI_ENTRY("uprofiler.sampling_interval", "100000", PHP_INI_ALL, NULL)
    PHP_INI_ENTRY("uprofiler.sampling_depth", "2147483647", PHP_INI_ALL, NULL)
PHP_INI_END()

static unsigned flags_of(zend_long flags)
{
    unsigned f = 0;
    if (flags & UPROFILER_FLAGS_NO_BUILTINS)
        f |= HPROF_NO_BUILTINS;
    if (flags & UPROFILER_FLAGS_CPU)
        f |= HPROF_CPU;
    if (flags & UPROFILER_FLAGS_MEMORY)
        f |= HPROF_MU | HPROF_PMU;
    return f; /* FUNCTION_INFO: accepted, adds nothing (as uprofiler's) */
}

ZEND_FUNCTION(uprofiler_enable)
{
    zend_long flags = 0;
    HashTable *options = NULL;
    ZEND_PARSE_PARAMETERS_START(0, 2)
        Z_PARAM_OPTIONAL
        Z_PARAM_LONG(flags)
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    RETURN_BOOL(excimer_hprof_start_with_options(flags_of(flags), options) == SUCCESS);
}

ZEND_FUNCTION(uprofiler_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_stop(return_value);
}

ZEND_FUNCTION(uprofiler_sample_enable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_BOOL(excimer_hprof_sample_start(INI_INT("uprofiler.sampling_interval") / 1e6,
                                           INI_INT("uprofiler.sampling_depth")) == SUCCESS);
}

ZEND_FUNCTION(uprofiler_sample_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_sample_stop(return_value);
}

static PHP_MINIT_FUNCTION(uprofiler)
{
    REGISTER_INI_ENTRIES();
    excimer_hprof_register();
    register_uprofiler_symbols(module_number);
    return SUCCESS;
}

static PHP_MSHUTDOWN_FUNCTION(uprofiler)
{
    UNREGISTER_INI_ENTRIES();
    return SUCCESS;
}

static PHP_MINFO_FUNCTION(uprofiler)
{
    php_info_print_table_start();
    php_info_print_table_row(2, "uprofiler support", "enabled");
    php_info_print_table_row(2, "implementation", "Excimer's hierarchical profiler (excimer.so)");
    php_info_print_table_end();
    DISPLAY_INI_ENTRIES();
}

static const zend_module_dep uprofiler_deps[] = {
    ZEND_MOD_REQUIRED("excimer")
    ZEND_MOD_END
};

zend_module_entry uprofiler_module_entry = {
    STANDARD_MODULE_HEADER_EX, NULL, uprofiler_deps,
    "uprofiler",
    ext_functions,
    PHP_MINIT(uprofiler),
    PHP_MSHUTDOWN(uprofiler),
    NULL,
    NULL,
    PHP_MINFO(uprofiler),
    "0.11.0", /* the uprofiler API level implemented */
    STANDARD_MODULE_PROPERTIES
};

ZEND_GET_MODULE(uprofiler)
