/* PLACEHOLDER (helper A replaces): class ExcimerTimer, excimer_set_timeout(). */
#include "php.h"
#include "php_excimer.h"
const zend_function_entry excimer_functions[] = {ZEND_FE_END};
void excimer_timer_class_register(void) {}
