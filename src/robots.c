/* robots.c - see include/robots.h. */
#include "config.h"
#include "robots.h"
