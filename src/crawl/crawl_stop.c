/* crawl_stop.c - the crawl's stop flag: set by a signal handler, read by the loop.
 *
 * Owns the one flag every stop request goes through (crawl_run()'s handler
 * and the coordinator's in cluster.c); not what a stop does (crawl.c).
 */
#include "config.h"

#include <stdatomic.h>

#include "crawl.h"

/* Lock-free, so that setting it is async-signal-safe (C11 7.14.1.1). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag must be lock-free");

static atomic_int stop_requested;

void crawl_request_stop(void)
{
	atomic_store(&stop_requested, 1);
}

bool crawl_stop_requested(void)
{
	return atomic_load(&stop_requested) != 0;
}
