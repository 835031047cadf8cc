/* conf.c - see include/conf.h. */
#include "config.h"
#include "conf.h"
