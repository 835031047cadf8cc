/* status.h - the codes of urlword.status and their texts.
 *
 * A URL's status is the HTTP status of its last response, or one of the
 * outcomes below when none arrived.  The crawl writes them (fetch.c,
 * src/crawl), the store counts them (-S), the admin reads them in the
 * tables: a leaf of src/common, so that none of those depends on another.
 */
#ifndef MPSEEK_STATUS_H
#define MPSEEK_STATUS_H

/* urlword.status: the HTTP status when a response arrived, otherwise one of
 * these (ASPseek kept the row untouched on network errors; we record why,
 * so -S and the admin see it).  Stable: stored in the database. */
enum url_status {
	CST_NEVER = 0,             /* not fetched yet */
	CST_ROBOTS = 600,          /* disallowed by robots.txt or META robots noindex */
	CST_FILTERED = 601,        /* outside every Server, Allow/Disallow chain, MaxHops */
	CST_TRAP = 602,            /* looks like a spider trap (url_trap_check) */
	CST_BAD_URL = 603,         /* malformed, too long or not http(s) */
	CST_REDIRECT_LIMIT = 604,  /* RedirectLoopLimit passed or redirect to itself */
	CST_TYPE = 605,            /* a content type that is not indexed (images, archives...);
	                            * clones keep status 200 with origin = 0 */
	CST_DNS = 610,             /* host name did not resolve */
	CST_CONNECT = 611,         /* refused, unreachable, TLS */
	CST_TIMEOUT = 612,         /* too slow or silent */
	CST_PROTOCOL = 613,        /* bad reply, reset, bad encoding */
	CST_DEFERRED = 614,        /* host paused (Retry-After / back-off): retried later */
	CST_ROBOTS_UNAVAILABLE = 615, /* robots.txt 5xx/unreachable: site retried later */
};

/* Text for a urlword.status in logs and -S ("OK", "Not found", "Disallowed
 * by robots", ...); "" for a code it does not know.  Static storage. */
const char *http_status_text(int status);

#endif
