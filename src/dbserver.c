/* dbserver.c - see include/dbserver.h. */
#include "config.h"
#include "dbserver.h"
