/* xhprof_api.c: module "xhprof", PECL xhprof's API on Excimer's hierarchical
 * profiler (hprof.h, in excimer.so, which must be loaded first). Code that
 * looks for the profiler as collectors do (extension_loaded('xhprof'),
 * function_exists('xhprof_enable')) finds this one. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "php_ini.h"
#include "ext/standard/info.h"

#include "hprof.h"

#define XHPROF_FLAGS_NO_BUILTINS 1
#define XHPROF_FLAGS_CPU 2
#define XHPROF_FLAGS_MEMORY 4

#include "xhprof_arginfo.h"

PHP_INI_BEGIN()
    PHP_INI_ENTRY("xhprof.output_dir", "", PHP_INI_ALL, NULL)
    PHP_INI_ENTRY("xhprof.sampling_interval", "100000", PHP_INI_ALL, NULL)
    PHP_INI_ENTRY("xhprof.sampling_depth", "2147483647", PHP_INI_ALL, NULL)
PHP_INI_END()

static unsigned flags_of(zend_long flags)
{
    unsigned f = 0;
    if (flags & XHPROF_FLAGS_NO_BUILTINS)
        f |= HPROF_NO_BUILTINS;
    if (flags & XHPROF_FLAGS_CPU)
        f |= HPROF_CPU;
    if (flags & XHPROF_FLAGS_MEMORY)
        f |= HPROF_MU | HPROF_PMU;
    return f;
}

ZEND_FUNCTION(xhprof_enable)
{
    zend_long flags = 0;
    HashTable *options = NULL;
    ZEND_PARSE_PARAMETERS_START(0, 2)
        Z_PARAM_OPTIONAL
        Z_PARAM_LONG(flags)
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    excimer_hprof_start_with_options(flags_of(flags), options);
}

ZEND_FUNCTION(xhprof_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_stop(return_value);
}

ZEND_FUNCTION(xhprof_sample_enable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_sample_start(INI_INT("xhprof.sampling_interval") / 1e6,
                               INI_INT("xhprof.sampling_depth"));
}

ZEND_FUNCTION(xhprof_sample_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_sample_stop(return_value);
}

static PHP_MINIT_FUNCTION(xhprof)
{
    REGISTER_INI_ENTRIES();
    excimer_hprof_register();
    register_xhprof_symbols(module_number);
    return SUCCESS;
}

static PHP_MSHUTDOWN_FUNCTION(xhprof)
{
    UNREGISTER_INI_ENTRIES();
    return SUCCESS;
}

static PHP_MINFO_FUNCTION(xhprof)
{
    php_info_print_table_start();
    php_info_print_table_row(2, "xhprof support", "enabled");
    php_info_print_table_row(2, "implementation", "Excimer's hierarchical profiler (excimer.so)");
    php_info_print_table_end();
    DISPLAY_INI_ENTRIES();
}

static const zend_module_dep xhprof_deps[] = {
    ZEND_MOD_REQUIRED("excimer")
    ZEND_MOD_END
};

zend_module_entry xhprof_module_entry = {
    STANDARD_MODULE_HEADER_EX, NULL, xhprof_deps,
    "xhprof",
    ext_functions,
    PHP_MINIT(xhprof),
    PHP_MSHUTDOWN(xhprof),
    NULL,
    NULL,
    PHP_MINFO(xhprof),
    "2.3.10", /* the PECL xhprof API level implemented */
    STANDARD_MODULE_PROPERTIES
};

ZEND_GET_MODULE(xhprof)
