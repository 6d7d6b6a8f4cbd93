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

/* the PECL xhprof API level implemented */
HPROF_API_MODULE(xhprof, "2.3.10")
