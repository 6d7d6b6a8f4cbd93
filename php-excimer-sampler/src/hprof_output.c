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
#include "php_excimer.h"
#include "runline.h"
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

/* ---- the wire format --------------------------------------------------------- */

static unsigned metrics_of(unsigned flags)
{
    return 1u << RL_CT | 1u << RL_WT | (flags & HPROF_CPU ? 1u << RL_CPU : 0) |
           (flags & HPROF_MU ? 1u << RL_MU : 0) | (flags & HPROF_PMU ? 1u << RL_PMU : 0);
}

/* The run's arcs as the writer takes them (µs, rounded down as above). */
static void arcs_for_lines(const struct hprof *h, double per_tick, struct runline_arc *out)
{
    for (uint32_t i = 0; i < h->narcs; i++) {
        const hprof_arc *a = &h->arcs[i];
        struct runline_arc *o = &out[i];
        o->caller = a->pname == NO_NAME ? RUNLINE_NO_CALLER : a->pname;
        o->caller_level = a->plevel;
        o->callee = a->cname;
        o->callee_level = a->clevel;
        o->v[RL_CT] = a->ct;
        o->v[RL_WT] = wt_us(a, per_tick);
        o->v[RL_CPU] = a->cpu / 1000;
        o->v[RL_MU] = (h->flags & HPROF_ALLOC_AS_MU) ? a->aa : a->mu;
        o->v[RL_PMU] = a->pmu;
    }
}

/* The writer's tables are malloc'd: at a request's end, memory_limit may
 * have been reached by the script itself. */
size_t hprof_result_lines(const struct hprof *h, strbuf *sb, const char *runid,
                          const char *entry, size_t max_bytes, uint64_t *left_out)
{
    struct runline_name *names = safe_pemalloc(h->nnames, sizeof *names, 0, 1);
    struct runline_arc *arcs = safe_pemalloc(h->narcs, sizeof *arcs, 0, 1);
    for (uint32_t i = 0; i < h->nnames; i++)
        names[i] = (struct runline_name){ZSTR_VAL(h->names[i].name), ZSTR_LEN(h->names[i].name)};
    arcs_for_lines(h, us_per_tick(h), arcs);
    char host[256];
    excimer_host_field(host, sizeof host);
    struct runline_run run = {
        .runid = runid, .time = (int64_t)time(NULL), .host = host,
        .metrics = metrics_of(h->flags), .entry = entry, .entry_len = strlen(entry),
        .names = names, .nnames = h->nnames,
    };
    size_t lines = runline_write_run(sb, &run, arcs, h->narcs, max_bytes, left_out);
    pefree(names, 1);
    pefree(arcs, 1);
    return lines;
}
