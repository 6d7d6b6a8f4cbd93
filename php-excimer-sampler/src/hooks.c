/* hooks.c: the engine's hooks, set once per process, and the features
 * registered on them (see hooks.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_extensions.h"
#include "zend_observer.h"
#include "zend_vm.h"

#include "hooks.h"

#define WATCHERS_MAX 4
#define INTERRUPTS_MAX 2

/* The engine's hooks are process-wide pointers, so what they were before
 * ours and who is registered on them is process-wide too (PHP is NTS
 * here). Written at module start and at the first request only, except
 * the heap's handlers (per counting run) and the exception watcher (set
 * when a process first traces tiers).
 * Per process by design, never per thread: the extension is NTS only
 * (config.m4 refuses ZTS; README, "Threads: NTS only"). */
static struct {
    excimer_compile_watcher watchers[WATCHERS_MAX];
    int nwatchers;
    bool compile_hooked;
    zend_op_array *(*prev_compile_file)(zend_file_handle *, int);
    zend_op_array *(*prev_compile_string)(zend_string *, const char *, zend_compile_position);

    void (*interrupts[INTERRUPTS_MAX])(zend_execute_data *);
    int ninterrupts;
    bool interrupt_hooked;
    void (*prev_interrupt)(zend_execute_data *);

    bool observing;

    void (*exception_watcher)(zend_execute_data *);
    user_opcode_handler_t prev_exception_handler;   /* another extension's, called after */

    excimer_alloc_counts *counts;
    void *(*prev_malloc)(size_t);
    void (*prev_free)(void *);
    void *(*prev_realloc)(void *, size_t);
} hooks;

/* --- compiles --------------------------------------------------------------- */

static zend_op_array *watch_compile_file(zend_file_handle *fh, int type)
{
    uint64_t tokens[WATCHERS_MAX];
    int n = hooks.nwatchers;
    for (int i = 0; i < n; i++)
        tokens[i] = hooks.watchers[i].file_begin ? hooks.watchers[i].file_begin(fh) : 0;
    zend_op_array *oa = hooks.prev_compile_file(fh, type);
    for (int i = n; i-- > 0;)
        if (hooks.watchers[i].file_end)
            hooks.watchers[i].file_end(tokens[i]);
    return oa;
}

static zend_op_array *watch_compile_string(zend_string *source, const char *filename,
                                           zend_compile_position position)
{
    uint64_t tokens[WATCHERS_MAX];
    int n = hooks.nwatchers;
    for (int i = 0; i < n; i++)
        tokens[i] = hooks.watchers[i].string_begin ? hooks.watchers[i].string_begin(filename) : 0;
    zend_op_array *oa = hooks.prev_compile_string(source, filename, position);
    for (int i = n; i-- > 0;)
        if (hooks.watchers[i].string_end)
            hooks.watchers[i].string_end(tokens[i]);
    return oa;
}

void excimer_hooks_watch_compile(const excimer_compile_watcher *w)
{
    if (hooks.nwatchers == WATCHERS_MAX) {
        php_error_docref(NULL, E_CORE_WARNING, "excimer: too many compile watchers");
        return;
    }
    hooks.watchers[hooks.nwatchers++] = *w;
}

void excimer_hooks_request_start(void)
{
    if (hooks.compile_hooked || !hooks.nwatchers)
        return;
    hooks.prev_compile_file = zend_compile_file;
    zend_compile_file = watch_compile_file;
    hooks.prev_compile_string = zend_compile_string;
    zend_compile_string = watch_compile_string;
    hooks.compile_hooked = true;
}

/* --- interrupts ---------------------------------------------------------------- */

static void interrupt(zend_execute_data *ex)
{
    for (int i = 0; i < hooks.ninterrupts; i++)
        hooks.interrupts[i](ex);
    if (hooks.prev_interrupt)
        hooks.prev_interrupt(ex);
}

void excimer_hooks_on_interrupt(void (*fn)(zend_execute_data *))
{
    if (hooks.ninterrupts == INTERRUPTS_MAX)
        return;
    hooks.interrupts[hooks.ninterrupts++] = fn;
    if (!hooks.interrupt_hooked) {
        hooks.prev_interrupt = zend_interrupt_function;
        zend_interrupt_function = interrupt;
        hooks.interrupt_hooked = true;
    }
}

/* --- observers and user opcodes ------------------------------------------------- */

void excimer_hooks_observe_calls(zend_observer_fcall_init init,
                                 zend_observer_fiber_switch_handler fiber_switch,
                                 zend_observer_fiber_destroy_handler fiber_destroy)
{
    if (hooks.observing)
        return;
    zend_observer_fcall_register(init);
    zend_observer_fiber_switch_register(fiber_switch);
    zend_observer_fiber_destroy_register(fiber_destroy);
    hooks.observing = true;
}

bool excimer_hooks_observing_calls(void)
{
    return hooks.observing;
}

bool excimer_hooks_own_opcode(zend_uchar opcode, user_opcode_handler_t handler, const char **why)
{
    if (zend_get_user_opcode_handler(opcode)) {
        *why = "another extension handles the opcode";
        return false;
    }
    zend_set_user_opcode_handler(opcode, handler);
    return true;
}

static int exception_reached(zend_execute_data *ex)
{
    hooks.exception_watcher(ex);
    if (hooks.prev_exception_handler)
        return hooks.prev_exception_handler(ex);
    return ZEND_USER_OPCODE_DISPATCH;
}

void excimer_hooks_watch_exceptions(void (*fn)(zend_execute_data *))
{
    if (hooks.exception_watcher)
        return;
    hooks.exception_watcher = fn;
    hooks.prev_exception_handler = zend_get_user_opcode_handler(ZEND_HANDLE_EXCEPTION);
    zend_set_user_opcode_handler(ZEND_HANDLE_EXCEPTION, exception_reached);
    /* the engine's exception oplines got their handlers at its start */
    for (int i = 0; i < 3; i++)
        zend_vm_set_opcode_handler(&EG(exception_op)[i]);
}

/* --- the heap ---------------------------------------------------------------------- */

static void *counting_malloc(size_t size)
{
    hooks.counts->na++;
    hooks.counts->aa += (int64_t)size;
    return hooks.prev_malloc ? hooks.prev_malloc(size) : zend_mm_alloc(zend_mm_get_heap(), size);
}

static void counting_free(void *p)
{
    if (p)
        hooks.counts->nf++;
    if (hooks.prev_free)
        hooks.prev_free(p);
    else
        zend_mm_free(zend_mm_get_heap(), p);
}

static void *counting_realloc(void *p, size_t size)
{
    hooks.counts->na++;
    hooks.counts->aa += (int64_t)size;
    if (p)
        hooks.counts->nf++;
    return hooks.prev_realloc ? hooks.prev_realloc(p, size)
                              : zend_mm_realloc(zend_mm_get_heap(), p, size);
}

void excimer_hooks_count_allocations(excimer_alloc_counts *counts)
{
    zend_mm_heap *heap = zend_mm_get_heap();
    if (counts && !hooks.counts) {
        hooks.prev_malloc = NULL;
        hooks.prev_free = NULL;
        hooks.prev_realloc = NULL;
        if (zend_mm_is_custom_heap(heap))
            zend_mm_get_custom_handlers(heap, &hooks.prev_malloc, &hooks.prev_free,
                                        &hooks.prev_realloc);
        hooks.counts = counts;
        zend_mm_set_custom_handlers(heap, counting_malloc, counting_free, counting_realloc);
    } else if (!counts && hooks.counts) {
        zend_mm_set_custom_handlers(heap, hooks.prev_malloc, hooks.prev_free, hooks.prev_realloc);
        hooks.counts = NULL;
    } else if (counts) {
        hooks.counts = counts;
    }
}

/* --- module --------------------------------------------------------------------- */

void excimer_hooks_module_shutdown(void)
{
    if (hooks.compile_hooked) {
        /* another extension may have hooked on top of ours: then ours stays,
         * as it only calls through */
        if (zend_compile_file == watch_compile_file)
            zend_compile_file = hooks.prev_compile_file;
        if (zend_compile_string == watch_compile_string)
            zend_compile_string = hooks.prev_compile_string;
    }
    if (hooks.interrupt_hooked && zend_interrupt_function == interrupt)
        zend_interrupt_function = hooks.prev_interrupt;
}
