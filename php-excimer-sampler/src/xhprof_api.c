/* xhprof_api.c: module "xhprof", PECL xhprof's API on Excimer's hierarchical
 * profiler (hprof.h, in excimer.so, which must be loaded first). Code that
 * looks for the profiler as collectors do (extension_loaded('xhprof'),
 * function_exists('xhprof_enable')) finds this one. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "hprof_module.h"

#define XHPROF_FLAGS_NO_BUILTINS 1
#define XHPROF_FLAGS_CPU 2
#define XHPROF_FLAGS_MEMORY 4

#include "xhprof_arginfo.h"

PHP_INI_BEGIN()
    PHP_INI_ENTRY("xhprof.output_dir", "", PHP_INI_ALL, NULL)
    PHP_INI_ENTRY("xhprof.sampling_interval", "100000", PHP_INI_ALL, NULL)
    PHP_INI_ENTRY("xhprof.sampling_depth", "2147483647", PHP_INI_ALL, NULL)
PHP_INI_END()

ZEND_FUNCTION(xhprof_enable)
{
    zend_long flags = 0;
    HashTable *options = NULL;
    ZEND_PARSE_PARAMETERS_START(0, 2)
        Z_PARAM_OPTIONAL
        Z_PARAM_LONG(flags)
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    excimer_hprof_start_with_options(hprof_flags_of_xhprof(flags) | HPROF_NAMES_XHPROF, options);
}

ZEND_FUNCTION(xhprof_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_stop(return_value);
}

ZEND_FUNCTION(xhprof_sample_enable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    hprof_sample_start_from_ini("xhprof", HPROF_NAMES_XHPROF);
}

ZEND_FUNCTION(xhprof_sample_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_sample_stop(return_value);
}

/* the PECL xhprof API level implemented */
static void xhprof_info_rows(void)
{
}

HPROF_API_MODULE(xhprof, "2.3.10")
