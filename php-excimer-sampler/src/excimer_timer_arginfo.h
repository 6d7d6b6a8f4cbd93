/* excimer_timer_arginfo.h: written by hand; it mirrors
 * stubs/ExcimerTimer.stub.php exactly as php-src's build/gen_stub.php
 * would generate it (arginfo only: the function tables are in
 * excimer_timer.c). gen_stub.php cannot run here (it downloads
 * PHP-Parser); when it can, regenerate with
 *   php gen_stub.php stubs/ExcimerTimer.stub.php
 * and move the result here. The hash below is sha1 of the stub. */

/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: f29a3b51d5e68d58d8668e5d9363c3d95260fe42 */

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_excimer_set_timeout, 0, 2, ExcimerTimer, 1)
	ZEND_ARG_TYPE_INFO(0, callback, IS_CALLABLE, 0)
	ZEND_ARG_TYPE_INFO(0, interval, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_ExcimerTimer___construct, 0, 0, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerTimer_setEventType, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, eventType, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerTimer_setInterval, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, interval, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerTimer_setPeriod, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, period, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerTimer_setCallback, 0, 1, IS_VOID, 0)
	ZEND_ARG_TYPE_INFO(0, callback, IS_CALLABLE, 1)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerTimer_start, 0, 0, IS_VOID, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_ExcimerTimer_stop arginfo_class_ExcimerTimer_start

ZEND_BEGIN_ARG_WITH_TENTATIVE_RETURN_TYPE_INFO_EX(arginfo_class_ExcimerTimer_getTime, 0, 0, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()
