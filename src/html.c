/* html.c - see include/html.h. */
#include "config.h"
#include "html.h"
