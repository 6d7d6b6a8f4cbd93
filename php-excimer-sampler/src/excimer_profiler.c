/* excimer_profiler.c: class ExcimerProfiler (see stubs/ExcimerProfiler.stub.php).
 *
 * A profiler is one timerlib timer plus the live ExcimerLog. timerlib calls
 * profiler_tick() on the PHP thread at the engine's next safe point after
 * the timer expired; it records EG(current_execute_data) in the log
 * (stack_store_add_sample) and, when a flush callback is set and the log is
 * full, hands the log to the callback and continues with a fresh one. The
 * settings live in the object and reach timerlib at start(). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"

#include "php_excimer.h"
#include "clock.h"
#include "timerlib.h"
#include "excimer_log.h"
#include "excimer_profiler_arginfo.h"

typedef struct excimer_profiler {
    timerlib_timer timer;    /* initialised with the object (id 0 once timerlib forgot it) */
    double period;           /* seconds between samples, used at the next start() */
    double initial;          /* seconds before the first sample: random in [0, period) */
    int event_type;          /* EXCIMER_REAL or EXCIMER_CPU, used at the next start() */
    zend_long max_depth;     /* levels kept above the leaf (stack_store.h); also on the live log */
    double epoch;            /* clock_mono() at creation: log timestamps count from it */
    zend_object *log;        /* the live ExcimerLog (a counted reference), never NULL */
    zval flush_callback;     /* the flush callable, IS_UNDEF when none */
    zend_long max_samples;   /* entries at which the tick flushes (with a callback), <= 0 never */
    zend_object std;
} excimer_profiler;

static zend_class_entry *excimer_profiler_ce;
static zend_object_handlers excimer_profiler_handlers;

static excimer_profiler *profiler_from_obj(zend_object *obj)
{
    return (excimer_profiler *)((char *)obj - XtOffsetOf(excimer_profiler, std));
}

#define THIS_PROFILER() profiler_from_obj(Z_OBJ_P(ZEND_THIS))

static zend_long max_log_entries(void)
{
    zend_long n = EXCIMER_G(max_log_entries);
    return n < 0 ? 0 : n;
}

/* Calls the flush callback with `log`. The profiler may lose its last
 * other reference meanwhile; callers hold one. */
static void profiler_call_flush_callback(excimer_profiler *p, zend_object *log)
{
    zval callback, arg, retval;
    /* Copied: the callback may replace itself (setFlushCallback) while running. */
    ZVAL_COPY(&callback, &p->flush_callback);
    ZVAL_OBJ_COPY(&arg, log);
    ZVAL_UNDEF(&retval);
    call_user_function(NULL, NULL, &callback, &retval, 1, &arg);
    zval_ptr_dtor(&retval);
    zval_ptr_dtor(&arg);
    zval_ptr_dtor(&callback);
}

/* Swaps in a fresh log (same max depth, period and epoch), passes the old
 * one to the flush callback if any, and returns it (a reference the caller
 * owns). */
static zend_object *profiler_flush(excimer_profiler *p)
{
    zend_object *old = p->log;
    const excimer_log_data *data = excimer_log_data_from_object(old);
    p->log = excimer_log_create(p->max_depth, max_log_entries(), data->period, p->epoch);
    if (Z_TYPE(p->flush_callback) != IS_UNDEF) {
        profiler_call_flush_callback(p, old);
    }
    return old;
}

/* timerlib callback: one sample standing for `event_count` expirations. */
static void profiler_tick(zend_long event_count, void *user_data)
{
    excimer_profiler *p = user_data;
    excimer_log_data *data = excimer_log_data_from_object(p->log);
    stack_store_add_sample(data, EG(current_execute_data), event_count,
                           clock_mono() - p->epoch);
    /* As in Excimer: 0 or a negative count never flushes by count, only at
     * destruction or flush(). */
    if (Z_TYPE(p->flush_callback) != IS_UNDEF && p->max_samples > 0
        && (zend_long)data->nentries >= p->max_samples) {
        GC_ADDREF(&p->std);
        OBJ_RELEASE(profiler_flush(p));
        OBJ_RELEASE(&p->std);
    }
}

/* ---- object handlers ------------------------------------------------------- */

static zend_object *excimer_profiler_create_object(zend_class_entry *ce)
{
    excimer_profiler *p = zend_object_alloc(sizeof(excimer_profiler), ce);
    memset(p, 0, XtOffsetOf(excimer_profiler, std));
    p->period = 0.1;
    p->initial = p->period * timerlib_random();
    p->event_type = EXCIMER_REAL;
    p->max_depth = EXCIMER_G(default_max_depth);
    p->epoch = clock_mono();
    p->log = excimer_log_create(p->max_depth, max_log_entries(), p->period, p->epoch);
    ZVAL_UNDEF(&p->flush_callback);
    p->max_samples = 0;
    timerlib_init(&p->timer, EXCIMER_REAL, profiler_tick, p);
    zend_object_std_init(&p->std, ce);
    object_properties_init(&p->std, ce);
    p->std.handlers = &excimer_profiler_handlers;
    return &p->std;
}

/* Destruction (before free): stop, and hand a non-empty log to the flush
 * callback, as Excimer does. Like a __destruct, it runs with any pending
 * exception set aside. */
static void excimer_profiler_dtor_object(zend_object *obj)
{
    zend_objects_destroy_object(obj); /* a subclass's __destruct */
    excimer_profiler *p = profiler_from_obj(obj);
    timerlib_stop(&p->timer);
    if (Z_TYPE(p->flush_callback) == IS_UNDEF
        || excimer_log_data_from_object(p->log)->nentries == 0) {
        return;
    }

    zend_object *old_exception = NULL;
    const zend_op *old_opline_before_exception = NULL;
    if (EG(exception)) {
        if (EG(current_execute_data) && EG(current_execute_data)->func
            && ZEND_USER_CODE(EG(current_execute_data)->func->common.type)) {
            zend_rethrow_exception(EG(current_execute_data));
        }
        old_exception = EG(exception);
        old_opline_before_exception = EG(opline_before_exception);
        EG(exception) = NULL;
    }
    OBJ_RELEASE(profiler_flush(p));
    if (old_exception) {
        EG(opline_before_exception) = old_opline_before_exception;
        if (EG(exception)) {
            zend_exception_set_previous(EG(exception), old_exception);
        } else {
            EG(exception) = old_exception;
        }
    }
}

static void excimer_profiler_free_object(zend_object *obj)
{
    excimer_profiler *p = profiler_from_obj(obj);
    timerlib_destroy(&p->timer);
    zval_ptr_dtor(&p->flush_callback);
    ZVAL_UNDEF(&p->flush_callback);
    if (p->log) {
        OBJ_RELEASE(p->log);
        p->log = NULL;
    }
    zend_object_std_dtor(obj);
}

/* clone: a stopped profiler with the same settings, flush callback and a
 * copy of the log so far. (Excimer's clone copies only the PHP object and
 * crashes on first use.) */
static zend_object *excimer_profiler_clone_object(zend_object *old)
{
    zend_object *obj = excimer_profiler_create_object(old->ce);
    excimer_profiler *p = profiler_from_obj(obj), *from = profiler_from_obj(old);
    p->period = from->period;
    p->initial = from->initial;
    p->event_type = from->event_type;
    p->max_depth = from->max_depth;
    p->epoch = from->epoch;
    p->max_samples = from->max_samples;
    ZVAL_COPY(&p->flush_callback, &from->flush_callback);
    OBJ_RELEASE(p->log);
    p->log = from->log->handlers->clone_obj(from->log);
    zend_objects_clone_members(obj, old);
    return obj;
}

/* The callback and the log, for the cycle collector. */
static HashTable *excimer_profiler_get_gc(zend_object *obj, zval **table, int *n)
{
    excimer_profiler *p = profiler_from_obj(obj);
    zend_get_gc_buffer *buf = zend_get_gc_buffer_create();
    zend_get_gc_buffer_add_zval(buf, &p->flush_callback);
    if (p->log) {
        zend_get_gc_buffer_add_obj(buf, p->log);
    }
    zend_get_gc_buffer_use(buf, table, n);
    return zend_std_get_properties(obj);
}

/* ---- methods --------------------------------------------------------------- */

ZEND_METHOD(ExcimerProfiler, setPeriod)
{
    double period;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_DOUBLE(period)
    ZEND_PARSE_PARAMETERS_END();
    excimer_profiler *p = THIS_PROFILER();
    if (period < 0) { /* NaN is kept: start() refuses it as the original does */
        period = 0;
    }
    p->period = period;
    p->initial = period * timerlib_random();
    excimer_log_data_from_object(p->log)->period = period;
}

ZEND_METHOD(ExcimerProfiler, setEventType)
{
    zend_long event_type;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_LONG(event_type)
    ZEND_PARSE_PARAMETERS_END();
    if (excimer_event_type_is_valid(event_type))
        THIS_PROFILER()->event_type = (int)event_type;
}

ZEND_METHOD(ExcimerProfiler, setMaxDepth)
{
    zend_long max_depth;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_LONG(max_depth)
    ZEND_PARSE_PARAMETERS_END();
    excimer_profiler *p = THIS_PROFILER();
    p->max_depth = max_depth;
    excimer_log_data_from_object(p->log)->max_depth = p->max_depth;
}

ZEND_METHOD(ExcimerProfiler, setFlushCallback)
{
    zval *callback;
    zend_long max_samples;
    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_ZVAL(callback)
        Z_PARAM_LONG(max_samples)
    ZEND_PARSE_PARAMETERS_END();
    char *error = NULL;
    if (!zend_is_callable_ex(callback, NULL, 0, NULL, NULL, &error)) {
        php_error_docref(NULL, E_WARNING, "flush callback is not callable: %s",
                         error ? error : "unknown error");
        if (error) {
            efree(error);
        }
        return;
    }
    if (error) {
        efree(error);
    }
    excimer_profiler *p = THIS_PROFILER();
    zval old;
    ZVAL_COPY_VALUE(&old, &p->flush_callback);
    ZVAL_COPY(&p->flush_callback, callback);
    p->max_samples = max_samples;
    zval_ptr_dtor(&old);
}

ZEND_METHOD(ExcimerProfiler, clearFlushCallback)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_profiler *p = THIS_PROFILER();
    zval old;
    ZVAL_COPY_VALUE(&old, &p->flush_callback);
    ZVAL_UNDEF(&p->flush_callback);
    p->max_samples = 0;
    zval_ptr_dtor(&old);
}

ZEND_METHOD(ExcimerProfiler, start)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_profiler *p = THIS_PROFILER();
    /* NaN and +INF go on to timerlib, which refuses them as the original's
     * timer_settime() did; zero and negative periods stop here. */
    if (p->period <= 0) {
        php_error_docref(NULL, E_WARNING,
                         "Unable to start timer with a value of zero duration and period");
        return;
    }
    if (!p->timer.id && timerlib_init(&p->timer, p->event_type, profiler_tick, p) == FAILURE) {
        return;
    }
    /* timerlib creates the OS timer at start, on the clock named here. */
    p->timer.event_type = p->event_type;
    timerlib_start(&p->timer, p->initial, p->period);
}

ZEND_METHOD(ExcimerProfiler, stop)
{
    ZEND_PARSE_PARAMETERS_NONE();
    timerlib_stop(&THIS_PROFILER()->timer);
}

ZEND_METHOD(ExcimerProfiler, getLog)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_OBJ_COPY(THIS_PROFILER()->log);
}

ZEND_METHOD(ExcimerProfiler, flush)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_OBJ(profiler_flush(THIS_PROFILER()));
}

/* ---- the C API of zero-code collection ------------------------------------- */

zend_object *excimer_profiler_create_started(double period, int event_type, zend_long max_depth)
{
    zval zv;
    if (object_init_ex(&zv, excimer_profiler_ce) != SUCCESS)
        return NULL;
    excimer_profiler *p = profiler_from_obj(Z_OBJ(zv));
    excimer_log_data *data = excimer_log_data_from_object(p->log);
    p->period = period > 0 ? period : 0;
    p->initial = p->period * timerlib_random();
    p->event_type = event_type;
    p->max_depth = max_depth;
    data->period = p->period;
    data->max_depth = p->max_depth;
    /* The timer was registered when the object was made: registering it
     * again would leave the first registration behind, pointing at the
     * profiler after it is freed (touched at the request's end). As
     * start(), only its clock is set here. */
    p->timer.event_type = p->event_type;
    if (!(p->period > 0) || timerlib_start(&p->timer, p->initial, p->period) == FAILURE) {
        OBJ_RELEASE(Z_OBJ(zv));
        return NULL;
    }
    return Z_OBJ(zv);
}

const excimer_log_data *excimer_profiler_stop_and_log(zend_object *obj)
{
    excimer_profiler *p = profiler_from_obj(obj);
    timerlib_stop(&p->timer);
    return excimer_log_data_from_object(p->log);
}

/* ---- registration ---------------------------------------------------------- */

void excimer_profiler_class_register(void)
{
    excimer_profiler_ce = register_class_ExcimerProfiler();
    excimer_profiler_ce->create_object = excimer_profiler_create_object;
    memcpy(&excimer_profiler_handlers, zend_get_std_object_handlers(),
           sizeof(zend_object_handlers));
    excimer_profiler_handlers.offset = XtOffsetOf(excimer_profiler, std);
    excimer_profiler_handlers.dtor_obj = excimer_profiler_dtor_object;
    excimer_profiler_handlers.free_obj = excimer_profiler_free_object;
    excimer_profiler_handlers.get_gc = excimer_profiler_get_gc;
    excimer_profiler_handlers.clone_obj = excimer_profiler_clone_object;
}
