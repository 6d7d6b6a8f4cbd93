/* excimer_log: the ExcimerLog and ExcimerLogEntry classes as seen from C.
 * An ExcimerLog object owns one excimer_log_data (stack_store.h); an
 * ExcimerLogEntry holds a reference to its log object and an index. */
#ifndef EXCIMER_LOG_H
#define EXCIMER_LOG_H

#include "php.h"
#include "stack_store.h"

extern zend_class_entry *excimer_log_ce;
extern zend_class_entry *excimer_log_entry_ce;

/* A new, empty ExcimerLog object (refcount 1, owned by the caller). */
zend_object *excimer_log_create(zend_long max_depth, zend_long max_entries, double period,
                                double epoch);
/* The data of an ExcimerLog object. */
excimer_log_data *excimer_log_data_from_object(zend_object *log);

#endif
