/* excimer_log.c: classes ExcimerLog and ExcimerLogEntry (see
 * stubs/ExcimerLog.stub.php and stubs/ExcimerLogEntry.stub.php).
 *
 * An ExcimerLog object embeds one excimer_log_data (stack_store.h), which
 * does the work; this file is the PHP face: iteration, array access and the
 * output methods. An ExcimerLogEntry is a (log object, index) pair created
 * on demand; it holds a reference to the log object, so it stays valid
 * after the user drops the log. Logs hold no zvals, so they take part in no
 * reference cycle.
 *
 * As in Excimer, `foreach` gets an iterator of its own (nested loops over one
 * log each see every entry, and the log's own key()/current() position is
 * not moved), and clone copies: a cloned log is independent of the
 * original, a cloned entry is the same entry of the same log. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"
#include "zend_interfaces.h"
#include "ext/spl/spl_exceptions.h"

#include "php_excimer.h"
#include "clock.h"
#include "timerlib.h"
#include "excimer_log.h"
#include "excimer_log_arginfo.h"

zend_class_entry *excimer_log_ce;
zend_class_entry *excimer_log_entry_ce;

static zend_object_handlers excimer_log_handlers;
static zend_object_handlers excimer_log_entry_handlers;

typedef struct excimer_log_obj {
    excimer_log_data data;  /* the samples; valid from create_object to free_obj */
    zend_long iter_pos;     /* Iterator position (entry index) */
    zval current;           /* current()'s entry at iter_pos, kept until the position moves
                               (current() twice is the same object, as in the original);
                               IS_UNDEF when not made */
    zend_object std;
} excimer_log_obj;

typedef struct excimer_log_entry_obj {
    zend_object *log;       /* the ExcimerLog (a counted reference), NULL if never set */
    uint32_t index;         /* entry index in it */
    zend_object std;
} excimer_log_entry_obj;

static excimer_log_obj *log_from_obj(zend_object *obj)
{
    return (excimer_log_obj *)((char *)obj - XtOffsetOf(excimer_log_obj, std));
}

static excimer_log_entry_obj *entry_from_obj(zend_object *obj)
{
    return (excimer_log_entry_obj *)((char *)obj - XtOffsetOf(excimer_log_entry_obj, std));
}

#define THIS_LOG() log_from_obj(Z_OBJ_P(ZEND_THIS))
#define THIS_ENTRY() entry_from_obj(Z_OBJ_P(ZEND_THIS))

/* ---- ExcimerLog objects -------------------------------------------------- */

static zend_long current_max_entries(void)
{
    zend_long n = EXCIMER_G(max_log_entries);
    return n < 0 ? 0 : n;
}

static zend_object *excimer_log_create_object(zend_class_entry *ce)
{
    excimer_log_obj *log = zend_object_alloc(sizeof(excimer_log_obj), ce);
    /* A valid empty log even when made without ExcimerProfiler (e.g. by
     * ReflectionClass::newInstanceWithoutConstructor). */
    stack_store_init(&log->data, EXCIMER_G(default_max_depth), current_max_entries(), 0.0,
                     clock_mono());
    log->iter_pos = 0;
    ZVAL_UNDEF(&log->current);
    zend_object_std_init(&log->std, ce);
    object_properties_init(&log->std, ce);
    log->std.handlers = &excimer_log_handlers;
    return &log->std;
}

/* The position moved: current()'s entry is another one. */
static void excimer_log_forget_current(excimer_log_obj *log)
{
    zval_ptr_dtor(&log->current);
    ZVAL_UNDEF(&log->current);
}

static void excimer_log_free_object(zend_object *obj)
{
    excimer_log_forget_current(log_from_obj(obj));
    stack_store_destroy(&log_from_obj(obj)->data);
    zend_object_std_dtor(obj);
}

/* The kept entry holds the log, and the log the entry: a cycle the
 * collector must see. */
static HashTable *excimer_log_get_gc(zend_object *obj, zval **table, int *n)
{
    excimer_log_obj *log = log_from_obj(obj);
    *table = Z_TYPE(log->current) == IS_UNDEF ? NULL : &log->current;
    *n = Z_TYPE(log->current) == IS_UNDEF ? 0 : 1;
    return zend_std_get_properties(obj);
}

zend_object *excimer_log_create(zend_long max_depth, zend_long max_entries, double period,
                                double epoch)
{
    zend_object *obj = excimer_log_create_object(excimer_log_ce);
    excimer_log_data *data = &log_from_obj(obj)->data;
    data->max_depth = max_depth;
    data->max_entries = max_entries < 0 ? 0 : max_entries;
    data->period = period;
    data->epoch = epoch;
    return obj;
}

excimer_log_data *excimer_log_data_from_object(zend_object *obj)
{
    return &log_from_obj(obj)->data;
}

/* An ExcimerLogEntry for entry `index` of `log`, or null when out of range. */
static void excimer_log_entry_make(zval *rv, zend_object *log, zend_long index)
{
    if (index < 0 || index >= (zend_long)log_from_obj(log)->data.nentries) {
        ZVAL_NULL(rv);
        return;
    }
    object_init_ex(rv, excimer_log_entry_ce);
    excimer_log_entry_obj *entry = entry_from_obj(Z_OBJ_P(rv));
    GC_ADDREF(log);
    entry->log = log;
    entry->index = (uint32_t)index;
}

/* ---- foreach: an iterator per loop ----------------------------------------- */

typedef struct excimer_log_iterator {
    zend_object_iterator it;  /* it.data holds the log (a counted reference) */
    zend_long index;
    zval current;             /* the ExcimerLogEntry at index, made on demand; IS_UNDEF when not */
} excimer_log_iterator;

static zend_long iterator_log_size(zend_object_iterator *it)
{
    return (zend_long)log_from_obj(Z_OBJ(it->data))->data.nentries;
}

static void excimer_log_iterator_forget_current(excimer_log_iterator *iter)
{
    zval_ptr_dtor(&iter->current);
    ZVAL_UNDEF(&iter->current);
}

static void excimer_log_iterator_dtor(zend_object_iterator *it)
{
    excimer_log_iterator *iter = (excimer_log_iterator *)it;
    excimer_log_iterator_forget_current(iter);
    zval_ptr_dtor(&it->data);
}

static int excimer_log_iterator_valid(zend_object_iterator *it)
{
    zend_long index = ((excimer_log_iterator *)it)->index;
    return index < iterator_log_size(it) ? SUCCESS : FAILURE;
}

static zval *excimer_log_iterator_current(zend_object_iterator *it)
{
    excimer_log_iterator *iter = (excimer_log_iterator *)it;
    if (Z_TYPE(iter->current) == IS_UNDEF) {
        excimer_log_entry_make(&iter->current, Z_OBJ(it->data), iter->index);
    }
    return &iter->current;
}

static void excimer_log_iterator_key(zend_object_iterator *it, zval *key)
{
    zend_long index = ((excimer_log_iterator *)it)->index;
    if (index < iterator_log_size(it)) {
        ZVAL_LONG(key, index);
    } else {
        ZVAL_NULL(key);
    }
}

static void excimer_log_iterator_next(zend_object_iterator *it)
{
    excimer_log_iterator *iter = (excimer_log_iterator *)it;
    excimer_log_iterator_forget_current(iter);
    if (iter->index < iterator_log_size(it)) {
        iter->index++;
    }
}

static void excimer_log_iterator_rewind(zend_object_iterator *it)
{
    excimer_log_iterator *iter = (excimer_log_iterator *)it;
    excimer_log_iterator_forget_current(iter);
    iter->index = 0;
}

static void excimer_log_iterator_invalidate(zend_object_iterator *it)
{
    excimer_log_iterator_forget_current((excimer_log_iterator *)it);
}

static const zend_object_iterator_funcs excimer_log_iterator_funcs = {
    .dtor = excimer_log_iterator_dtor,
    .valid = excimer_log_iterator_valid,
    .get_current_data = excimer_log_iterator_current,
    .get_current_key = excimer_log_iterator_key,
    .move_forward = excimer_log_iterator_next,
    .rewind = excimer_log_iterator_rewind,
    .invalidate_current = excimer_log_iterator_invalidate,
    .get_gc = NULL,
};

static zend_object_iterator *excimer_log_get_iterator(zend_class_entry *ce, zval *object,
                                                      int by_ref)
{
    (void)ce;
    if (by_ref) {
        zend_throw_exception(spl_ce_RuntimeException,
                             "An iterator cannot be used with foreach by reference", 0);
        return NULL;
    }
    excimer_log_iterator *iter = emalloc(sizeof(excimer_log_iterator));
    zend_iterator_init(&iter->it);
    ZVAL_OBJ_COPY(&iter->it.data, Z_OBJ_P(object));
    iter->it.funcs = &excimer_log_iterator_funcs;
    iter->index = 0;
    ZVAL_UNDEF(&iter->current);
    return &iter->it;
}

/* ---- clone ------------------------------------------------------------------ */

static zend_object *excimer_log_clone_object(zend_object *old)
{
    zend_object *obj = excimer_log_create_object(old->ce);
    excimer_log_obj *log = log_from_obj(obj);
    stack_store_destroy(&log->data);
    stack_store_copy(&log->data, &log_from_obj(old)->data);
    log->iter_pos = log_from_obj(old)->iter_pos;
    zend_objects_clone_members(obj, old);
    return obj;
}

static zend_object *excimer_log_entry_clone_object(zend_object *old)
{
    zend_object *obj = old->ce->create_object(old->ce);
    excimer_log_entry_obj *entry = entry_from_obj(obj), *from = entry_from_obj(old);
    if (from->log) {
        GC_ADDREF(from->log);
        entry->log = from->log;
    }
    entry->index = from->index;
    zend_objects_clone_members(obj, old);
    return obj;
}

ZEND_METHOD(ExcimerLog, __construct)
{
    ZEND_PARSE_PARAMETERS_NONE();
}

ZEND_METHOD(ExcimerLog, formatCollapsed)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_STR(stack_store_format_collapsed(&THIS_LOG()->data));
}

ZEND_METHOD(ExcimerLog, getSpeedscopeData)
{
    ZEND_PARSE_PARAMETERS_NONE();
    stack_store_speedscope(&THIS_LOG()->data, return_value);
}

ZEND_METHOD(ExcimerLog, aggregateByFunction)
{
    ZEND_PARSE_PARAMETERS_NONE();
    stack_store_aggregate_by_function(&THIS_LOG()->data, return_value);
}

ZEND_METHOD(ExcimerLog, getEventCount)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_LONG(stack_store_event_count(&THIS_LOG()->data));
}

ZEND_METHOD(ExcimerLog, current)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_log_obj *log = THIS_LOG();
    if (Z_TYPE(log->current) == IS_UNDEF)
        excimer_log_entry_make(&log->current, Z_OBJ_P(ZEND_THIS), log->iter_pos);
    RETURN_COPY(&log->current);
}

ZEND_METHOD(ExcimerLog, key)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_log_obj *log = THIS_LOG();
    if (log->iter_pos >= 0 && log->iter_pos < (zend_long)log->data.nentries) {
        RETURN_LONG(log->iter_pos);
    }
    RETURN_NULL();
}

ZEND_METHOD(ExcimerLog, next)
{
    ZEND_PARSE_PARAMETERS_NONE();
    THIS_LOG()->iter_pos++;
    excimer_log_forget_current(THIS_LOG());
}

ZEND_METHOD(ExcimerLog, rewind)
{
    ZEND_PARSE_PARAMETERS_NONE();
    THIS_LOG()->iter_pos = 0;
    excimer_log_forget_current(THIS_LOG());
}

ZEND_METHOD(ExcimerLog, valid)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_log_obj *log = THIS_LOG();
    RETURN_BOOL(log->iter_pos >= 0 && log->iter_pos < (zend_long)log->data.nentries);
}

ZEND_METHOD(ExcimerLog, count)
{
    ZEND_PARSE_PARAMETERS_NONE();
    RETURN_LONG(THIS_LOG()->data.nentries);
}

/* Offsets are parsed as an int parameter, as the original's: "abc" and []
 * are TypeErrors, null is deprecated, strict_types refuses "0" and 1.5. */
ZEND_METHOD(ExcimerLog, offsetExists)
{
    zend_long i;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_LONG(i)
    ZEND_PARSE_PARAMETERS_END();
    RETURN_BOOL(i >= 0 && i < (zend_long)THIS_LOG()->data.nentries);
}

ZEND_METHOD(ExcimerLog, offsetGet)
{
    zend_long i;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_LONG(i)
    ZEND_PARSE_PARAMETERS_END();
    excimer_log_entry_make(return_value, Z_OBJ_P(ZEND_THIS), i);
}

ZEND_METHOD(ExcimerLog, offsetSet)
{
    zval *offset, *value;
    ZEND_PARSE_PARAMETERS_START(2, 2)
        Z_PARAM_ZVAL(offset)
        Z_PARAM_ZVAL(value)
    ZEND_PARSE_PARAMETERS_END();
    php_error_docref(NULL, E_WARNING, "ExcimerLog cannot be modified");
}

ZEND_METHOD(ExcimerLog, offsetUnset)
{
    zval *offset;
    ZEND_PARSE_PARAMETERS_START(1, 1)
        Z_PARAM_ZVAL(offset)
    ZEND_PARSE_PARAMETERS_END();
    php_error_docref(NULL, E_WARNING, "ExcimerLog cannot be modified");
}

/* ---- ExcimerLogEntry objects --------------------------------------------- */

static zend_object *excimer_log_entry_create_object(zend_class_entry *ce)
{
    excimer_log_entry_obj *entry = zend_object_alloc(sizeof(excimer_log_entry_obj), ce);
    entry->log = NULL;
    entry->index = 0;
    zend_object_std_init(&entry->std, ce);
    object_properties_init(&entry->std, ce);
    entry->std.handlers = &excimer_log_entry_handlers;
    return &entry->std;
}

static void excimer_log_entry_free_object(zend_object *obj)
{
    excimer_log_entry_obj *entry = entry_from_obj(obj);
    if (entry->log) {
        OBJ_RELEASE(entry->log);
        entry->log = NULL;
    }
    zend_object_std_dtor(obj);
}

static HashTable *excimer_log_entry_get_gc(zend_object *obj, zval **table, int *n)
{
    excimer_log_entry_obj *entry = entry_from_obj(obj);
    zend_get_gc_buffer *buf = zend_get_gc_buffer_create();
    if (entry->log) {
        zend_get_gc_buffer_add_obj(buf, entry->log);
    }
    zend_get_gc_buffer_use(buf, table, n);
    return zend_std_get_properties(obj);
}

/* The entry's record, or NULL for an entry made without a log. */
static const stack_entry *entry_record(excimer_log_entry_obj *entry, const excimer_log_data **data)
{
    if (!entry->log) {
        return NULL;
    }
    *data = &log_from_obj(entry->log)->data;
    if (entry->index >= (*data)->nentries) {
        return NULL;
    }
    return &(*data)->entries[entry->index];
}

ZEND_METHOD(ExcimerLogEntry, __construct)
{
    ZEND_PARSE_PARAMETERS_NONE();
}

ZEND_METHOD(ExcimerLogEntry, getTimestamp)
{
    ZEND_PARSE_PARAMETERS_NONE();
    const excimer_log_data *data = NULL;
    const stack_entry *e = entry_record(THIS_ENTRY(), &data);
    RETURN_DOUBLE(e ? e->timestamp : 0.0);
}

ZEND_METHOD(ExcimerLogEntry, getEventCount)
{
    ZEND_PARSE_PARAMETERS_NONE();
    const excimer_log_data *data = NULL;
    const stack_entry *e = entry_record(THIS_ENTRY(), &data);
    RETURN_LONG(e ? e->event_count : 0);
}

ZEND_METHOD(ExcimerLogEntry, getTrace)
{
    ZEND_PARSE_PARAMETERS_NONE();
    excimer_log_entry_obj *entry = THIS_ENTRY();
    const excimer_log_data *data = NULL;
    if (!entry_record(entry, &data)) {
        RETURN_EMPTY_ARRAY();
    }
    stack_store_entry_trace(data, entry->index, return_value);
}

/* ---- registration ---------------------------------------------------------- */

void excimer_log_classes_register(void)
{
    excimer_log_ce = register_class_ExcimerLog(zend_ce_iterator, zend_ce_countable,
                                               zend_ce_arrayaccess);
    excimer_log_ce->create_object = excimer_log_create_object;
    memcpy(&excimer_log_handlers, zend_get_std_object_handlers(), sizeof(zend_object_handlers));
    excimer_log_handlers.offset = XtOffsetOf(excimer_log_obj, std);
    excimer_log_handlers.free_obj = excimer_log_free_object;
    excimer_log_handlers.clone_obj = excimer_log_clone_object;
    excimer_log_handlers.get_gc = excimer_log_get_gc;
    /* Set after the interfaces: Iterator would install the user-method one. */
    excimer_log_ce->get_iterator = excimer_log_get_iterator;

    excimer_log_entry_ce = register_class_ExcimerLogEntry();
    excimer_log_entry_ce->create_object = excimer_log_entry_create_object;
    memcpy(&excimer_log_entry_handlers, zend_get_std_object_handlers(),
           sizeof(zend_object_handlers));
    excimer_log_entry_handlers.offset = XtOffsetOf(excimer_log_entry_obj, std);
    excimer_log_entry_handlers.free_obj = excimer_log_entry_free_object;
    excimer_log_entry_handlers.get_gc = excimer_log_entry_get_gc;
    excimer_log_entry_handlers.clone_obj = excimer_log_entry_clone_object;
}
