/* hprof.c: the hierarchical profiler (see hprof.h).
 *
 * A run keeps:
 *   names  — one per function (keyed by its code: the op_array's opcodes or
 *            the internal function), formatted once: "Class::method",
 *            "run_init::file", "eval::file(1) : eval()'d code", "load::file"
 *   frames — the calls in progress, a pool of records linked to their
 *            caller; a Fiber's calls hang below the call that started it,
 *            and a switch swaps which chain is current (fiber observer)
 *   arcs   — (parent name, its recursion level, child name, its level) ->
 *            sums of ct, wt, cpu, mu, pmu, allocations; at most
 *            excimer.hprof_max_arcs, past which calls add to the one arc
 *            "main()==>(arcs over excimer.hprof_max_arcs)"
 * Nothing else grows with the number of calls. The tables are malloc'd,
 * not emalloc'd: the profiler's own memory stays out of the mu and pmu it
 * measures (and out of memory_limit; excimer.hprof_max_arcs bounds it).
 * Times are TSC ticks (or
 * CLOCK_MONOTONIC ns), converted to µs at stop with the rate measured over
 * the run itself. */
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
#include "hprof.h"

#define HPROF_OVERFLOW_NAME "(arcs over excimer.hprof_max_arcs)"
#define NO_FRAME 0u               /* frames[0]: the parent of main() */
#define NO_NAME UINT32_MAX        /* its name: an arc from it is "main()" itself */

typedef struct hprof_name {
    uintptr_t key;               /* opcodes / internal function / 0 for load:: */
    const void *tag;             /* function_name or filename pointer: tells reused code apart */
    zend_string *name;
    uint32_t active;             /* calls of it in progress (its recursion level) */
    bool ignored;
    /* the arc it was last the child of: most calls repeat their caller */
    uint32_t last_arc, last_pname, last_plevel, last_level;
} hprof_name;

typedef struct hprof_frame {
    const zend_execute_data *ex; /* the call observed (NULL: main(), load::) */
    uint32_t parent;             /* the caller's frame, NO_FRAME for main() */
    uint32_t name, level;
    uint32_t pname, plevel;      /* the caller's, kept: a Fiber's first call outlives
                                    the frame of the Fiber::start() that began it */
    uint64_t t0, c0;             /* ticks, CPU ns at entry */
    int64_t mu0, pmu0, na0, nf0, aa0;
} hprof_frame;

typedef struct hprof_arc {
    uint32_t pname, plevel, cname, clevel;   /* pname NO_NAME: "main()" itself */
    int64_t ct, wt, cpu, mu, pmu, na, nf, aa;
} hprof_arc;

typedef struct hprof_table {     /* open addressing: 64-bit key -> index + 1 */
    uint64_t *keys;
    uint32_t *values;
    uint32_t size, used;
} hprof_table;

typedef struct hprof_fiber {     /* a suspended chain of calls */
    zend_fiber_context *context;
    uint32_t top;
} hprof_fiber;

struct hprof {
    bool running, sampling;
    uint32_t generation;         /* tokens of an earlier run are ignored */
    uint32_t run;                /* run_number at start: tags the names cached in functions */
    unsigned flags;
    HashTable *ignored;          /* names made transparent, or NULL */
    hprof_name *names;
    uint32_t nnames, names_cap;
    hprof_table name_index;
    hprof_frame *frames;         /* frames[0] unused */
    uint32_t nframes, frames_cap, free_frame;
    uint32_t top;                /* the current call's frame */
    uint32_t main_name;
    hprof_arc *arcs;
    uint32_t narcs, arcs_cap, max_arcs, overflow_arc;
    hprof_table arc_index;
    hprof_fiber *fibers;
    uint32_t nfibers, fibers_cap;
    uint64_t start_ticks;
    double start_mono, start_wall;
    cpuclock cpu;
    int64_t na, nf, aa;          /* allocations so far (HPROF_ALLOC) */
    /* sampling mode: grid points on CLOCK_MONOTONIC, in seconds */
    double next_sample, sample_every;
    zend_long sample_depth;
    zval samples;
};


/* Our slot in every function's run-time cache (reserved at MINIT): the
 * function's name id in this run, tagged with the run's number, so that a
 * call finds its name without a lookup. Process-wide like the slot. */
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

static uint32_t name_add(struct hprof *h, uintptr_t key, const void *tag, zend_string *name)
{
    if (h->nnames == h->names_cap) {
        h->names_cap = h->names_cap ? h->names_cap * 2 : 256;
        h->names = safe_perealloc(h->names, h->names_cap, sizeof(hprof_name), 0, 1);
    }
    uint32_t id = h->nnames++;
    hprof_name *n = &h->names[id];
    n->key = key;
    n->tag = tag;
    n->name = name;
    n->active = 0;
    n->ignored = id != h->main_name && is_ignored(h, name);
    n->last_arc = UINT32_MAX;
    if (key)
        table_put(&h->name_index, key, id + 1);
    return id;
}

/* The XHProf name of a function being called. */
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

static zend_always_inline uint32_t name_of(struct hprof *h, const zend_function *func)
{
    uintptr_t key = ZEND_USER_CODE(func->type) ? (uintptr_t)func->op_array.opcodes
                                               : (uintptr_t)func;
    const void *tag = func->common.function_name ? (const void *)func->common.function_name
                                                 : (const void *)func->op_array.filename;
    uint32_t i = table_slot(key, h->name_index.size), v;
    while ((v = h->name_index.values[i])) {
        if (h->name_index.keys[i] == key && h->names[v - 1].tag == tag)
            return v - 1;
        i = (i + 1) & (h->name_index.size - 1);
    }
    return name_add(h, key, tag, function_name(func));
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
            uint32_t over = name_add(h, 0, NULL, zend_string_init(HPROF_OVERFLOW_NAME,
                                     sizeof(HPROF_OVERFLOW_NAME) - 1, 0));
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
        f->na0 = h->na;
        f->nf0 = h->nf;
        f->aa0 = h->aa;
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
        a->na += h->na - f->na0;
        a->nf += h->nf - f->nf0;
        a->aa += h->aa - f->aa0;
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
    void **slot = &ZEND_OP_ARRAY_EXTENSION(&func->common, name_slot);
    uintptr_t cached = (uintptr_t)*slot;
    uint32_t name;
    if (cached && (uint32_t)(cached >> 32) == h->run) {
        name = (uint32_t)cached - 1;
    } else {
        name = name_of(h, func);
        *slot = (void *)(((uintptr_t)h->run << 32) | (name + 1));
    }
    if (call_enter(h, name))
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

static bool observer_registered;

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

static uint32_t load_name(struct hprof *h, zend_file_handle *fh)
{
    zend_string *name = zend_strpprintf(0, "load::%s", fh->filename ? ZSTR_VAL(fh->filename) : "");
    for (uint32_t i = 0; i < h->nnames; i++) { /* few files: a scan is fine */
        if (h->names[i].key == 0 && zend_string_equals(h->names[i].name, name)) {
            zend_string_release(name);
            return i;
        }
    }
    return name_add(h, 0, NULL, name);
}

/* The engine's compile hook is a process-wide pointer: what was there
 * before ours, to call through and to put back at stop. */
static zend_op_array *(*prev_compile_file)(zend_file_handle *, int);

static zend_op_array *hprof_compile_file(zend_file_handle *fh, int type)
{
    struct hprof *h = EXCIMER_G(hprof);
    uint64_t token = 0;
    if (h && h->running && !h->sampling)
        token = call_enter(h, load_name(h, fh));
    zend_op_array *op_array = prev_compile_file(fh, type);
    if (token)
        call_leave(h, token);
    return op_array;
}

static void hooks_install(void)
{
    observe_all(true);
    if (zend_compile_file != hprof_compile_file) {
        prev_compile_file = zend_compile_file;
        zend_compile_file = hprof_compile_file;
    }
}

/* Takes our handlers off every function, and puts the compile hook back
 * unless another extension hooked on top of it meanwhile (then ours stays,
 * idle: it only calls through). */
static void hooks_remove(void)
{
    observe_all(false);
    if (zend_compile_file == hprof_compile_file)
        zend_compile_file = prev_compile_file;
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

/* ---- allocation counts -------------------------------------------------------- */

/* The heap's handlers before ours (HPROF_ALLOC), per request. */
static void *(*prev_malloc)(size_t);
static void (*prev_free)(void *);
static void *(*prev_realloc)(void *, size_t);


static void counting_free(void *p)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (p)
        h->nf++;
    if (prev_free)
        prev_free(p);
    else
        zend_mm_free(zend_mm_get_heap(), p);
}

static void *counting_realloc(void *p, size_t size)
{
    struct hprof *h = EXCIMER_G(hprof);
    h->na++;
    h->aa += (int64_t)size;
    if (p)
        h->nf++;
    return prev_realloc ? prev_realloc(p, size) : zend_mm_realloc(zend_mm_get_heap(), p, size);
}

static void *counting_malloc_plain(size_t size)
{
    struct hprof *h = EXCIMER_G(hprof);
    h->na++;
    h->aa += (int64_t)size;
    return prev_malloc ? prev_malloc(size) : zend_mm_alloc(zend_mm_get_heap(), size);
}

static bool alloc_hooked;

static void alloc_install(void)
{
    zend_mm_heap *heap = zend_mm_get_heap();
    prev_malloc = NULL;
    prev_free = NULL;
    prev_realloc = NULL;
    if (zend_mm_is_custom_heap(heap))
        zend_mm_get_custom_handlers(heap, &prev_malloc, &prev_free, &prev_realloc);
    zend_mm_set_custom_handlers(heap, counting_malloc_plain, counting_free, counting_realloc);
    alloc_hooked = true;
}

static void alloc_remove(void)
{
    if (!alloc_hooked)
        return;
    zend_mm_set_custom_handlers(zend_mm_get_heap(), prev_malloc, prev_free, prev_realloc);
    alloc_hooked = false;
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

static zend_result run_begin(unsigned flags, HashTable *ignored, bool sampling)
{
    if (!observer_registered) {
        php_error_docref(NULL, E_WARNING, "the hierarchical profiler is off (excimer.hprof = 0)");
        return FAILURE;
    }
    struct hprof *h = hprof_get();
    if (h->running)
        alloc_remove();
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
    h->main_name = name_add(h, 0, NULL, zend_string_init("main()", sizeof("main()") - 1, 0));
    if (flags & HPROF_CPU)
        cpuclock_open(&h->cpu, NULL, 0);
    if (flags & HPROF_ALLOC)
        alloc_install();
    h->start_mono = clock_mono();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    h->start_wall = (double)ts.tv_sec + ts.tv_nsec / 1e9;
    h->running = true;
    hooks_install();
    h->start_ticks = cpuclock_ticks();
    h->top = NO_FRAME;
    call_enter(h, h->main_name);
    return SUCCESS;
}

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
static void arc_values(const struct hprof *h, const hprof_arc *a, double us_per_tick, zval *out)
{
    unsigned fl = h->flags;
    array_init(out);
    add_metric(out, "ct", a->ct);
    add_metric(out, "wt", (int64_t)((double)a->wt * us_per_tick + 0.5));
    if (fl & HPROF_CPU)
        add_metric(out, "cpu", (a->cpu + 500) / 1000);
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

/* Closes every call still in progress (main() last) at this moment. */
static void close_open_calls(struct hprof *h)
{
    while (h->top != NO_FRAME)
        call_leave(h, ((uint64_t)h->generation << 32) | h->top);
}

static void hierarchical_result(struct hprof *h, zval *rv)
{
    double tps = cpuclock_ticks_per_second(h->start_ticks, h->start_mono, cpuclock_ticks(),
                                           clock_mono());
    double us_per_tick = 1e6 / tps;
    array_init_size(rv, h->narcs);
    zval main_values;
    ZVAL_UNDEF(&main_values);
    for (uint32_t i = 0; i < h->narcs; i++) {
        const hprof_arc *a = &h->arcs[i];
        zval v;
        arc_values(h, a, us_per_tick, &v);
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

static void run_end(struct hprof *h)
{
    h->running = false;
    alloc_remove();
    hooks_remove();
    hprof_reset(h);
}

zend_result excimer_hprof_start(unsigned flags, HashTable *ignored)
{
    return run_begin(flags, ignored, false);
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

void excimer_hprof_stop(zval *rv)
{
    struct hprof *h = EXCIMER_G(hprof);
    if (!h || !h->running || h->sampling) {
        ZVAL_NULL(rv);
        return;
    }
    close_open_calls(h);
    hierarchical_result(h, rv);
    run_end(h);
}

zend_result excimer_hprof_sample_start(double interval, zend_long depth)
{
    if (run_begin(0, NULL, true) == FAILURE)
        return FAILURE;
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

void excimer_hprof_register(void)
{
    if (observer_registered || !EXCIMER_G(hprof_enabled))
        return;
    zend_observer_fcall_register(observe_init);
    name_slot = zend_get_op_array_extension_handle("excimer");
    zend_observer_fiber_switch_register(fiber_switch);
    zend_observer_fiber_destroy_register(fiber_destroy);
    observer_registered = true;
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
