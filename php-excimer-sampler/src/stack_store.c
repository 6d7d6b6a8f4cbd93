/* PLACEHOLDER (helper B replaces): stack_store.h */
#include "stack_store.h"
