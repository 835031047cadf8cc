/* db.c - see include/db.h. */
#include "config.h"
#include "db.h"
