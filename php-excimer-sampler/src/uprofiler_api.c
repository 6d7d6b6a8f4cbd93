/* uprofiler_api.c: module "uprofiler", uprofiler's API on Excimer's
 * hierarchical profiler (hprof.h, in excimer.so, loaded first). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "hprof_module.h"

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

ZEND_FUNCTION(uprofiler_enable)
{
    zend_long flags = 0;
    HashTable *options = NULL;
    ZEND_PARSE_PARAMETERS_START(0, 2)
        Z_PARAM_OPTIONAL
        Z_PARAM_LONG(flags)
        Z_PARAM_ARRAY_HT(options)
    ZEND_PARSE_PARAMETERS_END();
    RETURN_BOOL(excimer_hprof_start_with_options(hprof_flags_of_xhprof(flags), options) == SUCCESS);
}

ZEND_FUNCTION(uprofiler_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_stop(return_value);
}

ZEND_FUNCTION(uprofiler_sample_enable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_BOOL(hprof_sample_start_from_ini("uprofiler", 0) == SUCCESS);
}

ZEND_FUNCTION(uprofiler_sample_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_sample_stop(return_value);
}

static void uprofiler_info_rows(void)
{
}

/* the uprofiler API level implemented */
HPROF_API_MODULE(uprofiler, "0.11.0")
