/* PLACEHOLDER (helper A replaces): timerlib.h */
#include "timerlib.h"
void timerlib_module_init(void) {}
void timerlib_module_shutdown(void) {}
void timerlib_request_shutdown(void) {}
