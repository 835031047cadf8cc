/* url.c - see include/url.h. */
#include "config.h"
#include "url.h"
