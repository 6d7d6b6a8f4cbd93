/* Arginfo of the functions in stubs/arclamp.stub.php, written by hand in
 * the format php-src's gen_stub.php produces (gen_stub downloads PHP-Parser,
 * which this offline build cannot). Keep in step with the stub. */

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_excimer_arclamp_send, 0, 2, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, target, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, collapsed, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, entryPoint, IS_STRING, 1, "null")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_excimer_arclamp_stats, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_excimer_arclamp_skip_request, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

static const zend_function_entry excimer_arclamp_functions[] = {
	ZEND_FE(excimer_arclamp_send, arginfo_excimer_arclamp_send)
	ZEND_FE(excimer_arclamp_stats, arginfo_excimer_arclamp_stats)
	ZEND_FE(excimer_arclamp_skip_request, arginfo_excimer_arclamp_skip_request)
	ZEND_FE_END
};
