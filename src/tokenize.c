/* tokenize.c - see include/tokenize.h. */
#include "config.h"
#include "tokenize.h"
