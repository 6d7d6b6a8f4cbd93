/* hprof.c: the hierarchical profiler (hprof.h): observing calls and
 * compiles, and keeping a run's tables (hprof_run.h). Times are TSC ticks
 * (or CLOCK_MONOTONIC ns), converted to µs at stop (hprof_output.c) with
 * the rate measured over the run itself. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_extensions.h"
#include "zend_observer.h"
#include "zend_smart_str.h"

#include "php_excimer.h"
#include "clock.h"
#include "cpuclock.h"
#include "hooks.h"
#include "hprof.h"
#include "hprof_run.h"
#include "strbuf.h"

#define HPROF_OVERFLOW_NAME "(arcs over excimer.hprof_max_arcs)"
#define HPROF_NAMES_TRANSPARENT_FILES (HPROF_NAMES_XHPROF | HPROF_NAMES_TIDEWAYS)

/* Our slot in every function's run-time cache (reserved at MINIT): the
 * function's name id in this run, tagged with the run's number, so that a
 * call finds its name without formatting it. Process-wide like the slot.
 * Per process by design, never per thread: the extension is NTS only
 * (config.m4 refuses ZTS; README, "Threads: NTS only"). */
static int name_slot = -1;
static uint32_t run_number;

/* ---- tables ----------------------------------------------------------------- */

static void table_init(hprof_table *t, uint32_t size)
{
    t->size = size;
    t->used = 0;
    t->keys = safe_pemalloc(size, sizeof(uint64_t), 0, 1);
    t->values = pecalloc(size, sizeof(uint32_t), 1);
}

static void table_free(hprof_table *t)
{
    if (t->keys) {
        pefree(t->keys, 1);
        pefree(t->values, 1);
    }
    memset(t, 0, sizeof *t);
}

static zend_always_inline uint32_t table_slot(uint64_t key, uint32_t size)
{
    key ^= key >> 29;
    key *= UINT64_C(0xBF58476D1CE4E5B9);
    return (uint32_t)(key >> 32) & (size - 1);
}

static void table_put(hprof_table *t, uint64_t key, uint32_t value);

static void table_grow(hprof_table *t)
{
    hprof_table old = *t;
    table_init(t, old.size * 2);
    for (uint32_t i = 0; i < old.size; i++) {
        if (old.values[i])
            table_put(t, old.keys[i], old.values[i]);
    }
    table_free(&old);
}

static void table_put(hprof_table *t, uint64_t key, uint32_t value)
{
    if ((t->used + 1) * 2 > t->size)
        table_grow(t);
    uint32_t i = table_slot(key, t->size);
    while (t->values[i])
        i = (i + 1) & (t->size - 1);
    t->keys[i] = key;
    t->values[i] = value;
    t->used++;
}

/* ---- names ----------------------------------------------------------------- */

static bool is_ignored(const struct hprof *h, zend_string *name)
{
    return h->ignored && zend_hash_exists(h->ignored, name);
}

static uint32_t name_add(struct hprof *h, zend_string *name, const zend_class_entry *scope)
{
    if (h->nnames == h->names_cap) {
        h->names_cap = h->names_cap ? h->names_cap * 2 : 256;
        h->names = safe_perealloc(h->names, h->names_cap, sizeof(hprof_name), 0, 1);
    }
    uint32_t id = h->nnames++;
    hprof_name *n = &h->names[id];
    n->name = name;
    n->scope = scope;
    n->active = 0;
    n->ignored = id != h->main_name && is_ignored(h, name);
    n->last_arc = UINT32_MAX;
    table_put(&h->name_index, ZSTR_HASH(name), id + 1);
    return id;
}

/* The id of a printed name (taken over: released when it is known). Names
 * are few (one per function called), and a call finds its own in the
 * function's run-time cache: a lookup here is rare. */
static uint32_t name_intern(struct hprof *h, zend_string *name, const zend_class_entry *scope)
{
    uint64_t key = ZSTR_HASH(name);
    uint32_t i = table_slot(key, h->name_index.size), v;
    while ((v = h->name_index.values[i])) {
        if (h->name_index.keys[i] == key && zend_string_equals(h->names[v - 1].name, name)) {
            zend_string_release(name);
            return v - 1;
        }
        i = (i + 1) & (h->name_index.size - 1);
    }
    return name_add(h, name, scope);
}

/* The XHProf name of a function being called: Class::method with the
 * class the method belongs to (a trait's method: the class using the trait
 * it was called through, as each using class has its own copy). */
static zend_string *function_name(const zend_function *func)
{
    if (func->common.function_name) {
        if (func->common.scope)
            return zend_strpprintf(0, "%s::%s", ZSTR_VAL(func->common.scope->name),
                                   ZSTR_VAL(func->common.function_name));
        return zend_string_copy(func->common.function_name);
    }
    const char *file = func->op_array.filename ? ZSTR_VAL(func->op_array.filename) : "";
    /* eval()'d code is named by the engine "file(line) : eval()'d code" */
    if (strstr(file, " : eval()'d code"))
        return zend_strpprintf(0, "eval::%s", file);
    return zend_strpprintf(0, "run_init::%s", file);
}

/* The name of a call, from the function's run-time cache when it was
 * named in this run. Copies of a function with another class can share the
 * cache (a closure rebound by Closure::bind()): the class is checked too. */
static zend_always_inline uint32_t name_cached(struct hprof *h, const zend_function *func)
{
    void **slot = &ZEND_OP_ARRAY_EXTENSION(&func->common, name_slot);
    uintptr_t cached = (uintptr_t)*slot;
    if (cached && (uint32_t)(cached >> 32) == h->run) {
        uint32_t name = (uint32_t)cached - 1;
        if (EXPECTED(h->names[name].scope == func->common.scope))
            return name;
    }
    uint32_t name = name_intern(h, function_name(func), func->common.scope);
    *slot = (void *)(((uintptr_t)h->run << 32) | (name + 1));
    return name;
}

/* ---- arcs ------------------------------------------------------------------- */

static uint64_t arc_hash_key(uint32_t pname, uint32_t plevel, uint32_t cname, uint32_t clevel)
{
    return ((uint64_t)pname << 40) ^ ((uint64_t)plevel << 28) ^ ((uint64_t)cname << 12)
           ^ (uint64_t)clevel ^ ((uint64_t)clevel << 52);
}

static uint32_t arc_new(struct hprof *h, uint32_t pname, uint32_t plevel, uint32_t cname,
                        uint32_t clevel, uint64_t key)
{
    if (h->narcs == h->arcs_cap) {
        h->arcs_cap = h->arcs_cap ? h->arcs_cap * 2 : 256;
        h->arcs = safe_perealloc(h->arcs, h->arcs_cap, sizeof(hprof_arc), 0, 1);
    }
    uint32_t id = h->narcs++;
    hprof_arc *a = &h->arcs[id];
    memset(a, 0, sizeof *a);
    a->pname = pname;
    a->plevel = plevel;
    a->cname = cname;
    a->clevel = clevel;
    table_put(&h->arc_index, key, id + 1);
    return id;
}

static hprof_arc *arc_of(struct hprof *h, uint32_t pname, uint32_t plevel, uint32_t cname,
                         uint32_t clevel)
{
    uint64_t key = arc_hash_key(pname, plevel, cname, clevel);
    uint32_t i = table_slot(key, h->arc_index.size), v;
    while ((v = h->arc_index.values[i])) {
        hprof_arc *a = &h->arcs[v - 1];
        if (a->pname == pname && a->cname == cname && a->plevel == plevel && a->clevel == clevel)
            return a;
        i = (i + 1) & (h->arc_index.size - 1);
    }
    if (h->narcs >= h->max_arcs) {
        if (h->overflow_arc == UINT32_MAX) {
            uint32_t over = name_intern(h, zend_string_init(HPROF_OVERFLOW_NAME,
                                        sizeof(HPROF_OVERFLOW_NAME) - 1, 0), NULL);
            h->overflow_arc = arc_new(h, h->main_name, 0, over, 0,
                                      arc_hash_key(h->main_name, 0, over, 0));
        }
        return &h->arcs[h->overflow_arc];
    }
    uint32_t id = arc_new(h, pname, plevel, cname, clevel, key); /* (may move h->arcs) */
    return &h->arcs[id];
}

/* ---- metrics -------------------------------------------------------------------- */

static zend_always_inline void read_metrics(struct hprof *h, hprof_frame *f)
{
    unsigned fl = h->flags;
    if (fl & HPROF_MU)
        f->mu0 = (int64_t)zend_memory_usage(0);
    if (fl & HPROF_PMU)
        f->pmu0 = (int64_t)zend_memory_peak_usage(0);
    if (fl & HPROF_ALLOC) {
        f->na0 = h->alloc.na;
        f->nf0 = h->alloc.nf;
        f->aa0 = h->alloc.aa;
    }
    if (fl & HPROF_CPU)
        f->c0 = cpuclock_now(&h->cpu);
    f->t0 = cpuclock_ticks(); /* last: the call's own time starts here */
}

static zend_always_inline void add_metrics(struct hprof *h, const hprof_frame *f, hprof_arc *a)
{
    uint64_t t1 = cpuclock_ticks();
    unsigned fl = h->flags;
    a->ct++;
    a->wt += (int64_t)(t1 - f->t0);
    if (fl & HPROF_CPU)
        a->cpu += (int64_t)(cpuclock_now(&h->cpu) - f->c0);
    if (fl & HPROF_MU)
        a->mu += (int64_t)zend_memory_usage(0) - f->mu0;
    if (fl & HPROF_PMU)
        a->pmu += (int64_t)zend_memory_peak_usage(0) - f->pmu0;
    if (fl & HPROF_ALLOC) {
        a->na += h->alloc.na - f->na0;
        a->nf += h->alloc.nf - f->nf0;
        a->aa += h->alloc.aa - f->aa0;
    }
}

/* ---- frames --------------------------------------------------------------------- */

static uint32_t frame_alloc(struct hprof *h)
{
    if (h->free_frame) {
        uint32_t i = h->free_frame;
        h->free_frame = h->frames[i].parent;
        return i;
    }
    if (h->nframes == h->frames_cap) {
        h->frames_cap = h->frames_cap ? h->frames_cap * 2 : 256;
        h->frames = safe_perealloc(h->frames, h->frames_cap, sizeof(hprof_frame), 0, 1);
    }
    return h->nframes++;
}

static void frame_free(struct hprof *h, uint32_t i)
{
    h->frames[i].parent = h->free_frame;
    h->free_frame = i;
}

/* Enters a call of `name`; returns its token (generation << 32 | frame),
 * 0 when it is not measured (transparent). */
static uint64_t call_enter(struct hprof *h, uint32_t name)
{
    hprof_name *n = &h->names[name];
    if (n->ignored)
        return 0;
    uint32_t i = frame_alloc(h);
    hprof_frame *f = &h->frames[i];
    f->ex = NULL;
    f->parent = h->top;
    f->pname = h->frames[h->top].name;
    f->plevel = h->frames[h->top].level;
    f->name = name;
    f->level = n->active++;
    h->top = i;
    read_metrics(h, f);
    return ((uint64_t)h->generation << 32) | i;
}

static void sample_check(struct hprof *h, double now);

/* Leaves the call of `token` (no-op for a token of an earlier run). */
static void call_leave(struct hprof *h, uint64_t token)
{
    if ((uint32_t)(token >> 32) != h->generation || !h->running)
        return;
    uint32_t i = (uint32_t)token;
    hprof_frame *f = &h->frames[i];
    if (h->sampling) {
        sample_check(h, clock_mono());
    } else {
        hprof_name *n = &h->names[f->name];
        if (n->last_arc == UINT32_MAX || n->last_pname != f->pname
            || n->last_plevel != f->plevel || n->last_level != f->level) {
            n->last_arc = (uint32_t)(arc_of(h, f->pname, f->plevel, f->name, f->level) - h->arcs);
            n = &h->names[f->name]; /* (arc_of may add a name: the overflow's) */
            n->last_pname = f->pname;
            n->last_plevel = f->plevel;
            n->last_level = f->level;
        }
        add_metrics(h, f, &h->arcs[n->last_arc]);
    }
    h->names[f->name].active--;
    h->top = f->parent;
    frame_free(h, i);
}

/* ---- sampling mode -------------------------------------------------------------- */

static void sample_record(struct hprof *h, double at)
{
    uint32_t chain[4096];
    uint32_t n = 0;
    for (uint32_t i = h->top; i != NO_FRAME && n < 4096; i = h->frames[i].parent)
        chain[n++] = i;
    if (h->sample_depth > 0 && (zend_long)n > h->sample_depth)
        n = (uint32_t)h->sample_depth; /* the innermost frames */
    smart_str s = {0};
    for (uint32_t k = n; k-- > 0;) {
        smart_str_append(&s, h->names[h->frames[chain[k]].name].name);
        if (k)
            smart_str_appends(&s, "==>");
    }
    smart_str_0(&s);
    double when = h->start_wall + (at - h->start_mono);
    char key[64];
    snprintf(key, sizeof key, "%.6f", when);
    zval v;
    ZVAL_STR(&v, s.s ? s.s : ZSTR_EMPTY_ALLOC());
    zend_symtable_str_update(Z_ARRVAL(h->samples), key, strlen(key), &v);
}

/* One sample per grid point passed since the last call (a stall of many
 * intervals is sampled at most 1000 times, as the stack was the same). */
static void sample_check(struct hprof *h, double now)
{
    for (int guard = 0; now >= h->next_sample && guard < 1000; guard++) {
        sample_record(h, h->next_sample);
        h->next_sample += h->sample_every;
    }
    if (now >= h->next_sample) /* skip to the grid point after now */
        h->next_sample += (floor((now - h->next_sample) / h->sample_every) + 1) * h->sample_every;
}

/* ---- observing calls ------------------------------------------------------------ */

static void observe_begin(zend_execute_data *ex)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!h || !h->running)
        return;
    if (h->sampling)
        sample_check(h, clock_mono());
    const zend_function *func = ex->func;
    if ((h->flags & HPROF_NO_BUILTINS) && func->type == ZEND_INTERNAL_FUNCTION)
        return;
    if (!func->common.function_name && (h->flags & HPROF_NAMES_TRANSPARENT_FILES))
        return; /* a file's top-level code, eval()'d code: the includer's */
    if (call_enter(h, name_cached(h, func)))
        h->frames[h->top].ex = ex;
}

/* Pops the call of `ex` if it is the current one: a transparent (ignored)
 * call, or one that began before the run, pushed nothing. */
static void observe_end(zend_execute_data *ex, zval *retval)
{
    (void)retval;
    struct hprof *h = EXCIMER_G(hprof);
    if (!h || !h->running || h->top == NO_FRAME || h->frames[h->top].ex != ex)
        return;
    call_leave(h, ((uint64_t)h->generation << 32) | h->top);
}

/* Decides, at a function's first call, whether it is observed: only while
 * a run is going on, so that between runs calls cost only the engine's
 * "not observed" check. Functions decided earlier are added at start. */
static zend_observer_fcall_handlers observe_init(zend_execute_data *ex)
{
    (void)ex;
    struct hprof *h = EXCIMER_G(hprof);
    if (h && h->running)
        return (zend_observer_fcall_handlers){observe_begin, observe_end};
    return (zend_observer_fcall_handlers){NULL, NULL};
}

/* Adds (or removes) our handlers on a function whose observers were
 * decided already (its first call came before this run). */
static void observe_function(zend_function *fn, bool add)
{
    if (!ZEND_MAP_PTR(fn->common.run_time_cache)
        || (fn->common.fn_flags & ZEND_ACC_CALL_VIA_TRAMPOLINE) || !RUN_TIME_CACHE(&fn->common))
        return;
    if (!ZEND_OP_ARRAY_EXTENSION(&fn->common, zend_observer_fcall_op_array_extension))
        return; /* never called: observe_init decides at its first call */
    /* remove first: a method is listed under every class that inherits it */
    zend_observer_remove_begin_handler(fn, observe_begin);
    zend_observer_remove_end_handler(fn, observe_end);
    if (add) {
        zend_observer_add_begin_handler(fn, observe_begin);
        zend_observer_add_end_handler(fn, observe_end);
    }
}

static void observe_all(bool add)
{
    zend_function *fn;
    zend_class_entry *ce;
    ZEND_HASH_FOREACH_PTR(EG(function_table), fn) {
        observe_function(fn, add);
    } ZEND_HASH_FOREACH_END();
    ZEND_HASH_FOREACH_PTR(EG(class_table), ce) {
        ZEND_HASH_FOREACH_PTR(&ce->function_table, fn) {
            observe_function(fn, add);
        } ZEND_HASH_FOREACH_END();
    } ZEND_HASH_FOREACH_END();
}

/* What PECL xhprof prints of a path: its last two components
 * ("/srv/w/includes/Setup.php" is "includes/Setup.php"), or all of it. */
static const char *last_two_components(const char *path)
{
    int slashes = 0;
    for (const char *p = path + strlen(path); p-- > path;)
        if (*p == '/' && ++slashes == 2)
            return p + 1;
    return path;
}

static bool compiles_named(const struct hprof *h)
{
    return h && h->running && !h->sampling && !(h->flags & HPROF_NAMES_TIDEWAYS);
}

/* Compiling an included file: load::FILE (the token of its call, or 0). */
static uint64_t hprof_file_begin(zend_file_handle *fh)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!compiles_named(h))
        return 0;
    const char *file = fh->filename ? ZSTR_VAL(fh->filename) : "";
    if (h->flags & HPROF_NAMES_XHPROF)
        file = last_two_components(file);
    return call_enter(h, name_intern(h, zend_strpprintf(0, "load::%s", file), NULL));
}

/* Compiling eval()'d code: PECL xhprof's eval::FILE(LINE) : eval()'d code. */
static uint64_t hprof_string_begin(const char *filename)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!compiles_named(h) || !(h->flags & HPROF_NAMES_XHPROF))
        return 0;
    return call_enter(h, name_intern(h, zend_strpprintf(0, "eval::%s", filename), NULL));
}

static void hprof_compile_end(uint64_t token)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (token && h)
        call_leave(h, token);
}

/* ---- fibers --------------------------------------------------------------------- */

static void fiber_switch(zend_fiber_context *from, zend_fiber_context *to)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!h || !h->running)
        return;
    uint32_t to_top = h->top; /* a fiber entered for the first time: below its starter */
    for (uint32_t i = 0; i < h->nfibers; i++) {
        if (h->fibers[i].context == to) {
            to_top = h->fibers[i].top;
            h->fibers[i] = h->fibers[--h->nfibers];
            break;
        }
    }
    if (h->nfibers == h->fibers_cap) {
        h->fibers_cap = h->fibers_cap ? h->fibers_cap * 2 : 8;
        h->fibers = safe_perealloc(h->fibers, h->fibers_cap, sizeof(hprof_fiber), 0, 1);
    }
    h->fibers[h->nfibers++] = (hprof_fiber){from, h->top};
    h->top = to_top;
}

static void fiber_destroy(zend_fiber_context *context)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!h)
        return;
    for (uint32_t i = 0; i < h->nfibers; i++) {
        if (h->fibers[i].context == context) {
            h->fibers[i] = h->fibers[--h->nfibers];
            return;
        }
    }
}

/* ---- runs ----------------------------------------------------------------------- */

static void hprof_reset(struct hprof *h)
{
    for (uint32_t i = 0; i < h->nnames; i++)
        zend_string_release(h->names[i].name);
    if (h->names)
        pefree(h->names, 1);
    if (h->frames)
        pefree(h->frames, 1);
    if (h->arcs)
        pefree(h->arcs, 1);
    if (h->fibers)
        pefree(h->fibers, 1);
    table_free(&h->name_index);
    table_free(&h->arc_index);
    if (h->ignored) {
        zend_hash_destroy(h->ignored);
        FREE_HASHTABLE(h->ignored);
    }
    zval_ptr_dtor(&h->samples);
    if (h->cpu.source != CPUCLOCK_NONE)
        cpuclock_close(&h->cpu);
    uint32_t generation = h->generation + 1;
    memset(h, 0, sizeof *h);
    h->generation = generation;
    ZVAL_UNDEF(&h->samples);
}

static struct hprof *hprof_get(void)
{
    if (!EXCIMER_G(hprof)) {
        struct hprof *h = ecalloc(1, sizeof *h);
        ZVAL_UNDEF(&h->samples);
        EXCIMER_G(hprof) = h;
    }
    return EXCIMER_G(hprof);
}

/* A copy of the ignored names: strings only, "main()" left out. */
static HashTable *ignored_copy(HashTable *ignored)
{
    if (!ignored || zend_hash_num_elements(ignored) == 0)
        return NULL;
    HashTable *set;
    ALLOC_HASHTABLE(set);
    zend_hash_init(set, zend_hash_num_elements(ignored), NULL, NULL, 0);
    zval *v, yes;
    ZVAL_TRUE(&yes);
    ZEND_HASH_FOREACH_VAL(ignored, v) {
        if (Z_TYPE_P(v) == IS_STRING && !zend_string_equals_literal(Z_STR_P(v), "main()"))
            zend_hash_update(set, Z_STR_P(v), &yes);
    } ZEND_HASH_FOREACH_END();
    return set;
}

/* Whether a run may start: the mode is on, and none is going on (a second
 * *_enable() changes nothing, as with the originals). */
static bool run_may_begin(void)
{
    if (!excimer_hooks_observing_calls()) {
        php_error_docref(NULL, E_WARNING, "the hierarchical profiler is off (excimer.hprof = 0)");
        return false;
    }
    return !excimer_hprof_running();
}

static void run_begin(unsigned flags, HashTable *ignored, bool sampling)
{
    struct hprof *h = hprof_get();
    hprof_reset(h);
    h->flags = flags;
    h->sampling = sampling;
    h->run = ++run_number;
    cpuclock_ticks_are_tsc(); /* decided before the first inline read */
    h->ignored = ignored_copy(ignored);
    h->max_arcs = EXCIMER_G(hprof_max_arcs) > 0 ? (uint32_t)EXCIMER_G(hprof_max_arcs) : UINT32_MAX;
    h->overflow_arc = UINT32_MAX;
    table_init(&h->name_index, 256);
    table_init(&h->arc_index, 512);
    frame_alloc(h); /* frame 0, NO_FRAME */
    h->frames[NO_FRAME].name = NO_NAME;
    h->frames[NO_FRAME].level = 0;
    h->main_name = name_add(h, zend_string_init("main()", sizeof("main()") - 1, 0), NULL);
    if (flags & HPROF_CPU)
        cpuclock_open(&h->cpu, NULL, 0);
    if (flags & HPROF_ALLOC)
        excimer_hooks_count_allocations(&h->alloc);
    h->start_mono = clock_mono();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    h->start_wall = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    h->running = true;
    observe_all(true);
    h->start_ticks = cpuclock_ticks();
    h->top = NO_FRAME;
    /* main()'s own arc first: past excimer.hprof_max_arcs the run is still
     * rooted at main() */
    arc_of(h, NO_NAME, 0, h->main_name, 0);
    call_enter(h, h->main_name);
}

void hprof_close_open_calls(struct hprof *h)
{
    while (h->top != NO_FRAME)
        call_leave(h, ((uint64_t)h->generation << 32) | h->top);
}

static void run_end(struct hprof *h)
{
    h->running = false;
    if (h->flags & HPROF_ALLOC)
        excimer_hooks_count_allocations(NULL);
    observe_all(false);
    hprof_reset(h);
}

zend_result excimer_hprof_start(unsigned flags, HashTable *ignored)
{
    if (!run_may_begin())
        return excimer_hooks_observing_calls() ? SUCCESS : FAILURE;
    run_begin(flags, ignored, false);
    return SUCCESS;
}

zend_result excimer_hprof_start_with_options(unsigned flags, HashTable *options)
{
    zval *ignored = options ? zend_hash_str_find(options, "ignored_functions",
                                                 sizeof("ignored_functions") - 1) : NULL;
    if (ignored && Z_TYPE_P(ignored) == IS_STRING) {
        HashTable one;
        zend_hash_init(&one, 1, NULL, NULL, 0);
        zend_hash_next_index_insert(&one, ignored);
        zend_result rc = excimer_hprof_start(flags, &one);
        zend_hash_destroy(&one);
        return rc;
    }
    return excimer_hprof_start(flags, ignored && Z_TYPE_P(ignored) == IS_ARRAY
                                          ? Z_ARRVAL_P(ignored) : NULL);
}

/* The hierarchical run going on, or NULL. */
static struct hprof *hierarchical_run(void)
{
    struct hprof *h = EXCIMER_G(hprof);
    return h && h->running && !h->sampling ? h : NULL;
}

void excimer_hprof_stop(zval *rv)
{
    struct hprof *h = hierarchical_run();
    if (!h) {
        ZVAL_NULL(rv);
        return;
    }
    hprof_close_open_calls(h);
    hprof_result_array(h, rv);
    run_end(h);
}

size_t excimer_hprof_stop_lines(strbuf *sb, const char *runid, const char *entry,
                                size_t max_bytes, uint64_t *left_out, zval *array)
{
    struct hprof *h = hierarchical_run();
    if (!h)
        return 0;
    hprof_close_open_calls(h);
    if (array)
        hprof_result_array(h, array);
    size_t lines = hprof_result_lines(h, sb, runid, entry, max_bytes, left_out);
    run_end(h);
    return lines;
}

zend_result excimer_hprof_sample_start(double interval, zend_long depth, unsigned flags)
{
    if (!run_may_begin())
        return excimer_hooks_observing_calls() ? SUCCESS : FAILURE;
    run_begin(flags & (HPROF_NAMES_XHPROF | HPROF_NAMES_TIDEWAYS), NULL, true);
    struct hprof *h = EXCIMER_G(hprof);
    h->sample_every = interval >= 1e-6 ? interval : 0.1;
    h->next_sample = h->start_mono + h->sample_every;
    h->sample_depth = depth;
    array_init(&h->samples);
    return SUCCESS;
}

void excimer_hprof_sample_stop(zval *rv)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!h || !h->running || !h->sampling) {
        ZVAL_NULL(rv);
        return;
    }
    ZVAL_COPY(rv, &h->samples);
    run_end(h);
}

bool excimer_hprof_running(void)
{
    struct hprof *h = EXCIMER_G(hprof);
    return h && h->running;
}

const char *excimer_hprof_clock_source(void)
{
    return cpuclock_ticks_are_tsc() ? "tsc" : "clock_gettime";
}

void excimer_hprof_register(void)
{
    if (excimer_hooks_observing_calls() || !EXCIMER_G(hprof_enabled))
        return;
    excimer_hooks_observe_calls(observe_init, fiber_switch, fiber_destroy);
    name_slot = zend_get_op_array_extension_handle("excimer");
    static const excimer_compile_watcher watcher = {
        hprof_file_begin, hprof_compile_end, hprof_string_begin, hprof_compile_end};
    excimer_hooks_watch_compile(&watcher);
}

void excimer_hprof_rshutdown(void)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!h)
        return;
    if (h->running)
        run_end(h);
    hprof_reset(h);
    efree(h);
    EXCIMER_G(hprof) = NULL;
}
