/* PLACEHOLDER (helper B replaces): classes ExcimerLog, ExcimerLogEntry. */
#include "php.h"
#include "php_excimer.h"
void excimer_log_classes_register(void) {}
