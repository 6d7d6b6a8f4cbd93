/* excimer_log_arginfo.h: written by hand; it is what php-src's
 * build/gen_stub.php generates from stubs/ExcimerLog.stub.php (first part)
 * and stubs/ExcimerLogEntry.stub.php (second part), one after the other.
 * gen_stub.php cannot run here (it downloads PHP-Parser); when it can,
 * regenerate with
 *   php gen_stub.php stubs/ExcimerLog.stub.php
 *   php gen_stub.php stubs/ExcimerLogEntry.stub.php
 * and concatenate the results here. The hashes are sha1 of the stubs. */

/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: 3a40f84faa2f8b2b6076172e585f0750f35d3f1d */

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_ExcimerLog___construct, 0, 0, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_formatCollapsed, 0, 0, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_getSpeedscopeData, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_aggregateByFunction, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_getEventCount, 0, 0, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_current, 0, 0, IS_MIXED, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_ExcimerLog_key arginfo_class_ExcimerLog_current

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_next, 0, 0, IS_VOID, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_ExcimerLog_rewind arginfo_class_ExcimerLog_next

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_valid, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_ExcimerLog_count arginfo_class_ExcimerLog_getEventCount

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_offsetExists, 0, 1, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, offset, IS_MIXED, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_offsetGet, 0, 1, IS_MIXED, 0)
	ZEND_ARG_TYPE_INFO(0, offset, IS_MIXED, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_offsetSet, 0, 2, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, offset, IS_MIXED, 0)
	ZEND_ARG_TYPE_INFO(0, value, IS_MIXED, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLog_offsetUnset, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, offset, IS_MIXED, 0)
ZEND_END_ARG_INFO()


ZEND_METHOD(ExcimerLog, __construct);
ZEND_METHOD(ExcimerLog, formatCollapsed);
ZEND_METHOD(ExcimerLog, getSpeedscopeData);
ZEND_METHOD(ExcimerLog, aggregateByFunction);
ZEND_METHOD(ExcimerLog, getEventCount);
ZEND_METHOD(ExcimerLog, current);
ZEND_METHOD(ExcimerLog, key);
ZEND_METHOD(ExcimerLog, next);
ZEND_METHOD(ExcimerLog, rewind);
ZEND_METHOD(ExcimerLog, valid);
ZEND_METHOD(ExcimerLog, count);
ZEND_METHOD(ExcimerLog, offsetExists);
ZEND_METHOD(ExcimerLog, offsetGet);
ZEND_METHOD(ExcimerLog, offsetSet);
ZEND_METHOD(ExcimerLog, offsetUnset);


static const zend_function_entry class_ExcimerLog_methods[] = {
	ZEND_ME(ExcimerLog, __construct, arginfo_class_ExcimerLog___construct, ZEND_ACC_PRIVATE|ZEND_ACC_FINAL)
	ZEND_ME(ExcimerLog, formatCollapsed, arginfo_class_ExcimerLog_formatCollapsed, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, getSpeedscopeData, arginfo_class_ExcimerLog_getSpeedscopeData, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, aggregateByFunction, arginfo_class_ExcimerLog_aggregateByFunction, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, getEventCount, arginfo_class_ExcimerLog_getEventCount, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, current, arginfo_class_ExcimerLog_current, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, key, arginfo_class_ExcimerLog_key, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, next, arginfo_class_ExcimerLog_next, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, rewind, arginfo_class_ExcimerLog_rewind, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, valid, arginfo_class_ExcimerLog_valid, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, count, arginfo_class_ExcimerLog_count, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, offsetExists, arginfo_class_ExcimerLog_offsetExists, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, offsetGet, arginfo_class_ExcimerLog_offsetGet, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, offsetSet, arginfo_class_ExcimerLog_offsetSet, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLog, offsetUnset, arginfo_class_ExcimerLog_offsetUnset, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};

static zend_class_entry *register_class_ExcimerLog(zend_class_entry *class_entry_Iterator, zend_class_entry *class_entry_Countable, zend_class_entry *class_entry_ArrayAccess)
{
	zend_class_entry ce, *class_entry;

	INIT_CLASS_ENTRY(ce, "ExcimerLog", class_ExcimerLog_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_NOT_SERIALIZABLE;
	zend_class_implements(class_entry, 3, class_entry_Iterator, class_entry_Countable, class_entry_ArrayAccess);

	return class_entry;
}

/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: b654c63d3b1020c1ace03d293af19faa5f41defb */

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_ExcimerLogEntry___construct, 0, 0, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLogEntry_getTimestamp, 0, 0, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLogEntry_getEventCount, 0, 0, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerLogEntry_getTrace, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()


ZEND_METHOD(ExcimerLogEntry, __construct);
ZEND_METHOD(ExcimerLogEntry, getTimestamp);
ZEND_METHOD(ExcimerLogEntry, getEventCount);
ZEND_METHOD(ExcimerLogEntry, getTrace);


static const zend_function_entry class_ExcimerLogEntry_methods[] = {
	ZEND_ME(ExcimerLogEntry, __construct, arginfo_class_ExcimerLogEntry___construct, ZEND_ACC_PRIVATE|ZEND_ACC_FINAL)
	ZEND_ME(ExcimerLogEntry, getTimestamp, arginfo_class_ExcimerLogEntry_getTimestamp, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLogEntry, getEventCount, arginfo_class_ExcimerLogEntry_getEventCount, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerLogEntry, getTrace, arginfo_class_ExcimerLogEntry_getTrace, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};

static zend_class_entry *register_class_ExcimerLogEntry(void)
{
	zend_class_entry ce, *class_entry;

	INIT_CLASS_ENTRY(ce, "ExcimerLogEntry", class_ExcimerLogEntry_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_NOT_SERIALIZABLE;

	return class_entry;
}
