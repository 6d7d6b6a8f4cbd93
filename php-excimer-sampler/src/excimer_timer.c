/* excimer_timer.c: class ExcimerTimer and excimer_set_timeout(), the PHP
 * face of one timerlib timer (see stubs/ExcimerTimer.stub.php for the API).
 * The settings are kept in the object and handed to timerlib at start();
 * the callback is called from timerlib's dispatch on the PHP thread. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "php_excimer.h"
#include "timerlib.h"
#include "excimer_timer_arginfo.h"

typedef struct excimer_timer_obj {
    timerlib_timer timer; /* initialised with the object, destroyed with it */
    zval callback;        /* the callable to call on expiry, or IS_NULL */
    int event_type;       /* EXCIMER_REAL or EXCIMER_CPU, used at the next start() */
    double interval;      /* seconds before the first expiry, used at the next start() */
    double period;        /* seconds between expiries (0 = one-shot), likewise */
    zend_object std;
} excimer_timer_obj;

static zend_class_entry *excimer_timer_ce;
static zend_object_handlers excimer_timer_handlers;

static excimer_timer_obj *timer_from_obj(zend_object *obj)
{
    return (excimer_timer_obj *)((char *)obj - XtOffsetOf(excimer_timer_obj, std));
}

#define THIS_TIMER() timer_from_obj(Z_OBJ_P(ZEND_THIS))

/* timerlib callback: calls the PHP callback with the expiry count. */
static void excimer_timer_fire(zend_long event_count, void *user_data)
{
    excimer_timer_obj *t = user_data;
    if (Z_TYPE(t->callback) == IS_NULL) {
        return;
    }
    /* The callback may drop the last reference to this object (and so to
     * the callback itself): hold both until it has returned. */
    zval callback, arg, retval;
    GC_ADDREF(&t->std);
    ZVAL_COPY(&callback, &t->callback);
    ZVAL_LONG(&arg, event_count);
    ZVAL_UNDEF(&retval);
    call_user_function(NULL, NULL, &callback, &retval, 1, &arg);
    zval_ptr_dtor(&retval);
    zval_ptr_dtor(&callback);
    OBJ_RELEASE(&t->std);
}

static zend_object *excimer_timer_create_object(zend_class_entry *ce)
{
    excimer_timer_obj *t = zend_object_alloc(sizeof(excimer_timer_obj), ce);
    memset(t, 0, XtOffsetOf(excimer_timer_obj, std));
    ZVAL_NULL(&t->callback);
    t->event_type = EXCIMER_REAL;
    zend_object_std_init(&t->std, ce);
    object_properties_init(&t->std, ce);
    t->std.handlers = &excimer_timer_handlers;
    timerlib_init(&t->timer, EXCIMER_REAL, excimer_timer_fire, t);
    return &t->std;
}

static void excimer_timer_free_object(zend_object *obj)
{
    excimer_timer_obj *t = timer_from_obj(obj);
    timerlib_destroy(&t->timer);
    zval_ptr_dtor(&t->callback);
    zend_object_std_dtor(obj);
}

/* clone: an unstarted timer with the same settings and callback. (Excimer's
 * clone copies only the PHP object and crashes on first use.) */
static zend_object *excimer_timer_clone_object(zend_object *old)
{
    zend_object *obj = excimer_timer_create_object(old->ce);
    excimer_timer_obj *t = timer_from_obj(obj), *from = timer_from_obj(old);
    ZVAL_COPY(&t->callback, &from->callback);
    t->event_type = from->event_type;
    t->interval = from->interval;
    t->period = from->period;
    zend_objects_clone_members(obj, old);
    return obj;
}

/* The callback may refer back to the timer (a closure using it): report it
 * so that such cycles are collected. */
static HashTable *excimer_timer_get_gc(zend_object *obj, zval **table, int *n)
{
    excimer_timer_obj *t = timer_from_obj(obj);
    *table = &t->callback;
    *n = 1;
    return zend_std_get_properties(obj);
}

static zend_result excimer_timer_start(excimer_timer_obj *t)
{
    t->timer.event_type = t->event_type; /* timerlib reads it at each start */
    return timerlib_start(&t->timer, t->interval, t->period);
}

/* A callback that is not callable is a warning and a null return, as in
 * the original (not a TypeError): 0 then, 1 when `callback` may be used. */
static int callback_is_usable(zval *callback)
{
    char *error = NULL;
    int ok = zend_is_callable_ex(callback, NULL, 0, NULL, NULL, &error);
    if (!ok)
        php_error_docref(NULL, E_WARNING, "timer callback is not callable: %s",
                         error ? error : "unknown error");
    if (error)
        efree(error);
    return ok;
}

ZEND_METHOD(ExcimerTimer, setEventType)
{
    zend_long event_type;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_LONG(event_type)
    ZEND_PARSE_PARAMETERS_END();
    if (excimer_event_type_is_valid(event_type))
        THIS_TIMER()->event_type = (int)event_type;
}

ZEND_METHOD(ExcimerTimer, setInterval)
{
    double interval;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_DOUBLE(interval)
    ZEND_PARSE_PARAMETERS_END();
    THIS_TIMER()->interval = interval;
}

ZEND_METHOD(ExcimerTimer, setPeriod)
{
    double period;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_DOUBLE(period)
    ZEND_PARSE_PARAMETERS_END();
    THIS_TIMER()->period = period;
}

ZEND_METHOD(ExcimerTimer, setCallback)
{
    zval *callback;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_ZVAL(callback)
    ZEND_PARSE_PARAMETERS_END();
    if (Z_TYPE_P(callback) != IS_NULL && !callback_is_usable(callback))
        RETURN_NULL();
    excimer_timer_obj *t = THIS_TIMER();
    zval old;
    ZVAL_COPY_VALUE(&old, &t->callback);
    ZVAL_COPY(&t->callback, callback);
    zval_ptr_dtor(&old); /* last: releasing it may run a destructor */
}

ZEND_METHOD(ExcimerTimer, start)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_timer_start(THIS_TIMER());
}

ZEND_METHOD(ExcimerTimer, stop)
{
    ZEND_PARSE_PARAMETERS_NONE();
    timerlib_stop(&THIS_TIMER()->timer);
}

ZEND_METHOD(ExcimerTimer, getTime)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_DOUBLE(timerlib_get_time(&THIS_TIMER()->timer));
}

/* As the original: a timer that cannot start (a zero or negative interval)
 * is returned unstarted, after start()'s warning. */
ZEND_FUNCTION(excimer_set_timeout)
{
    zval *callback;
    double interval;
    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_ZVAL(callback)
        Z_PARAM_DOUBLE(interval)
    ZEND_PARSE_PARAMETERS_END();
    if (!callback_is_usable(callback))
        RETURN_NULL();

    object_init_ex(return_value, excimer_timer_ce);
    excimer_timer_obj *t = timer_from_obj(Z_OBJ_P(return_value));
    ZVAL_COPY(&t->callback, callback);
    t->interval = interval;
    excimer_timer_start(t);
}

/* The module's functions, from the stub (excimer.c registers them). */
const zend_function_entry *excimer_timer_functions(void)
{
    return ext_functions;
}

void excimer_timer_class_register(void)
{
    excimer_timer_ce = register_class_ExcimerTimer();
    excimer_timer_ce->create_object = excimer_timer_create_object;

    memcpy(&excimer_timer_handlers, zend_get_std_object_handlers(), sizeof(zend_object_handlers));
    excimer_timer_handlers.offset = XtOffsetOf(excimer_timer_obj, std);
    excimer_timer_handlers.free_obj = excimer_timer_free_object;
    excimer_timer_handlers.get_gc = excimer_timer_get_gc;
    excimer_timer_handlers.clone_obj = excimer_timer_clone_object; /* one object, one OS timer */
}
