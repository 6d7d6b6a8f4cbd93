/* excimer_profiler_arginfo.h: written by hand; it is what php-src's
 * build/gen_stub.php generates from stubs/ExcimerProfiler.stub.php.
 * gen_stub.php cannot run here (it downloads PHP-Parser); when it can,
 * regenerate with
 *   php gen_stub.php stubs/ExcimerProfiler.stub.php
 * and move the result here. The hash below is sha1 of the stub. */

/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: b4ecdfda9f839920659442dc939c263ac81cee54 */

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerProfiler_setPeriod, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, period, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerProfiler_setEventType, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, eventType, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerProfiler_setMaxDepth, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, maxDepth, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerProfiler_setFlushCallback, 0, 2, IS_VOID, 0)
	ZEND_ARG_INFO(0, callback)
	ZEND_ARG_TYPE_INFO(0, maxSamples, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerProfiler_clearFlushCallback, 0, 0, IS_VOID, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_ExcimerProfiler_start arginfo_class_ExcimerProfiler_clearFlushCallback

#define arginfo_class_ExcimerProfiler_stop arginfo_class_ExcimerProfiler_clearFlushCallback

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_ExcimerProfiler_getLog, 0, 0, ExcimerLog, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_OBJ_INFO_EX(arginfo_class_ExcimerProfiler_flush, 0, 0, ExcimerLog, 0)
ZEND_END_ARG_INFO()


ZEND_METHOD(ExcimerProfiler, setPeriod);
ZEND_METHOD(ExcimerProfiler, setEventType);
ZEND_METHOD(ExcimerProfiler, setMaxDepth);
ZEND_METHOD(ExcimerProfiler, setFlushCallback);
ZEND_METHOD(ExcimerProfiler, clearFlushCallback);
ZEND_METHOD(ExcimerProfiler, start);
ZEND_METHOD(ExcimerProfiler, stop);
ZEND_METHOD(ExcimerProfiler, getLog);
ZEND_METHOD(ExcimerProfiler, flush);


static const zend_function_entry class_ExcimerProfiler_methods[] = {
	ZEND_ME(ExcimerProfiler, setPeriod, arginfo_class_ExcimerProfiler_setPeriod, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, setEventType, arginfo_class_ExcimerProfiler_setEventType, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, setMaxDepth, arginfo_class_ExcimerProfiler_setMaxDepth, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, setFlushCallback, arginfo_class_ExcimerProfiler_setFlushCallback, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, clearFlushCallback, arginfo_class_ExcimerProfiler_clearFlushCallback, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, start, arginfo_class_ExcimerProfiler_start, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, stop, arginfo_class_ExcimerProfiler_stop, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, getLog, arginfo_class_ExcimerProfiler_getLog, ZEND_ACC_PUBLIC)
	ZEND_ME(ExcimerProfiler, flush, arginfo_class_ExcimerProfiler_flush, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};

static zend_class_entry *register_class_ExcimerProfiler(void)
{
	zend_class_entry ce, *class_entry;

	INIT_CLASS_ENTRY(ce, "ExcimerProfiler", class_ExcimerProfiler_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_NOT_SERIALIZABLE;

	return class_entry;
}
