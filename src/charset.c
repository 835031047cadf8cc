/* charset.c - see include/charset.h. */
#include "config.h"
#include "charset.h"
