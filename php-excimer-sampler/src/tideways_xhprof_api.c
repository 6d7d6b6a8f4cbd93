/* tideways_xhprof_api.c: module "tideways_xhprof", the tideways_xhprof API on
 * Excimer's hierarchical profiler (hprof.h, in excimer.so, loaded first). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "hprof_module.h"

#define TIDEWAYS_XHPROF_FLAGS_CPU 1
#define TIDEWAYS_XHPROF_FLAGS_MEMORY_MU 2
#define TIDEWAYS_XHPROF_FLAGS_MEMORY_PMU 4
#define TIDEWAYS_XHPROF_FLAGS_MEMORY 6
#define TIDEWAYS_XHPROF_FLAGS_NO_BUILTINS 8
#define TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC 16
#define TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU 48

#include "tideways_xhprof_arginfo.h"

/* clock_use_rdtsc: 1 asks for the TSC, which we use anyway where it is
 * invariant; 0 (tideways' default) leaves our choice (see the README). */
PHP_INI_BEGIN()
    PHP_INI_ENTRY("tideways_xhprof.clock_use_rdtsc", "0", PHP_INI_SYSTEM, NULL)
PHP_INI_END()

static unsigned flags_of(zend_long flags)
{
    unsigned f = 0;
    if (flags & TIDEWAYS_XHPROF_FLAGS_CPU)
        f |= HPROF_CPU;
    if (flags & TIDEWAYS_XHPROF_FLAGS_MEMORY_MU)
        f |= HPROF_MU;
    if (flags & TIDEWAYS_XHPROF_FLAGS_MEMORY_PMU)
        f |= HPROF_PMU;
    if (flags & TIDEWAYS_XHPROF_FLAGS_NO_BUILTINS)
        f |= HPROF_NO_BUILTINS;
    if (flags & TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC)
        f |= HPROF_ALLOC;
    if ((flags & TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU) == TIDEWAYS_XHPROF_FLAGS_MEMORY_ALLOC_AS_MU)
        f |= HPROF_ALLOC | HPROF_ALLOC_AS_MU | HPROF_MU;
    return f;
}

ZEND_FUNCTION(tideways_xhprof_enable)
{
    zend_long flags = 0;
    ZEND_PARSE_PARAMETERS_START(0, 1)
        Z_PARAM_OPTIONAL
        Z_PARAM_LONG(flags)
    ZEND_PARSE_PARAMETERS_END();
    excimer_hprof_start_with_options(flags_of(flags) | HPROF_NAMES_TIDEWAYS, NULL);
}

ZEND_FUNCTION(tideways_xhprof_disable)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_hprof_stop(return_value);
    if (Z_TYPE_P(return_value) == IS_NULL)
        array_init(return_value); /* tideways: an empty array when never enabled */
}

/* the tideways_xhprof API level implemented */
/* tideways' own rows: scripts look for "Clock Source" */
static void tideways_xhprof_info_rows(void)
{
    php_info_print_table_row(2, "Version", "5.0.4");
    php_info_print_table_row(2, "Clock Source", excimer_hprof_clock_source());
}

HPROF_API_MODULE(tideways_xhprof, "5.0.4")
