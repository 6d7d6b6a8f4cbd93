/* hprof_output.c: a closed run (hprof_run.h) read out as XHProf's raw
 * array ("parent==>child" => [ct, wt, ...], "main()" last), or as the
 * lines of the wire format (common/src/runline.h) for zero-code runs.
 *
 * Times are converted from ticks to µs with the rate measured over the
 * run, rounded down: the sum of a function's arcs then never exceeds the
 * time of the calls around them, so no function's inclusive time is above
 * main()'s (rounding each arc to the nearest µs could put a function that
 * is all of a request 1 µs above it). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "clock.h"
#include "cpuclock.h"
#include "hprof.h"
#include "hprof_run.h"
#include "strbuf.h"

static double us_per_tick(const struct hprof *h)
{
    return 1e6 / cpuclock_ticks_per_second(h->start_ticks, h->start_mono, cpuclock_ticks(),
                                           clock_mono());
}

static int64_t wt_us(const hprof_arc *a, double per_tick)
{
    return (int64_t)((double)a->wt * per_tick);
}

/* ---- XHProf's raw array ----------------------------------------------------- */

static void add_metric(zval *arr, const char *key, int64_t v)
{
    add_assoc_long_ex(arr, key, strlen(key), (zend_long)v);
}

static zend_string *level_name(const struct hprof *h, uint32_t name, uint32_t level)
{
    if (level == 0)
        return zend_string_copy(h->names[name].name);
    return zend_strpprintf(0, "%s@%u", ZSTR_VAL(h->names[name].name), level);
}

/* One arc as XHProf's array: ct, wt and what the flags asked for. */
static void arc_values(const struct hprof *h, const hprof_arc *a, double per_tick, zval *out)
{
    unsigned fl = h->flags;
    array_init(out);
    add_metric(out, "ct", a->ct);
    add_metric(out, "wt", wt_us(a, per_tick));
    if (fl & HPROF_CPU)
        add_metric(out, "cpu", a->cpu / 1000);
    if (fl & HPROF_MU)
        add_metric(out, "mu", (fl & HPROF_ALLOC_AS_MU) ? a->aa : a->mu);
    if (fl & HPROF_PMU)
        add_metric(out, "pmu", a->pmu);
    if (fl & HPROF_ALLOC) {
        add_metric(out, "mem.na", a->na);
        add_metric(out, "mem.nf", a->nf);
        add_metric(out, "mem.aa", a->aa);
    }
}

void hprof_result_array(const struct hprof *h, zval *rv)
{
    double per_tick = us_per_tick(h);
    array_init_size(rv, h->narcs);
    zval main_values;
    ZVAL_UNDEF(&main_values);
    for (uint32_t i = 0; i < h->narcs; i++) {
        const hprof_arc *a = &h->arcs[i];
        zval v;
        arc_values(h, a, per_tick, &v);
        if (a->pname == NO_NAME) {
            ZVAL_COPY_VALUE(&main_values, &v); /* main() goes last, as XHProf's */
            continue;
        }
        zend_string *p = level_name(h, a->pname, a->plevel);
        zend_string *c = level_name(h, a->cname, a->clevel);
        zend_string *key = zend_strpprintf(0, "%s==>%s", ZSTR_VAL(p), ZSTR_VAL(c));
        zend_symtable_update(Z_ARRVAL_P(rv), key, &v);
        zend_string_release(key);
        zend_string_release(p);
        zend_string_release(c);
    }
    if (Z_TYPE(main_values) != IS_UNDEF)
        zend_hash_str_update(Z_ARRVAL_P(rv), "main()", sizeof("main()") - 1, &main_values);
}
