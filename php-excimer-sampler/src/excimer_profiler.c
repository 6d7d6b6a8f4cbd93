/* PLACEHOLDER (helper B replaces): class ExcimerProfiler. */
#include "php.h"
#include "php_excimer.h"
void excimer_profiler_class_register(void) {}
