/* fetch.h - the fetching stage of one rank: libcurl multi, one thread.
 *
 * Owns: concurrent HTTP(S) transfers to many hosts, at most one at a time
 * per host key (scheme://host:port), the per-host politeness clock (MinDelay
 * raised by robots Crawl-delay, pushed forward by Retry-After and back-off on
 * 429/503 and network errors), the rank's DNS cache, the MaxDocSize cap on
 * decoded bytes (so gzip bombs stop) and the timeouts.  Does not own: robots
 * rules, redirect following (the Location is returned, never followed), URL
 * normalisation, parsing, the database.  See doc/FETCH.md.
 *
 * Not thread-safe: one fetcher is driven by one thread (fetcher_wakeup()
 * excepted).  A fetcher may not be
 * used from inside its own completion callback except for fetcher_add() and
 * fetcher_set_host_delay().
 */
#ifndef MPSEEK_FETCH_H
#define MPSEEK_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "status.h"

/* Every byte of response headers counts toward this; past it the transfer
 * is aborted as FETCH_ERR_PROTOCOL (a server cannot make us store megabytes
 * of headers).  Single lines longer than MAX_HTTP_HEADER (caps.h) are
 * ignored. */
#define FETCH_MAX_HEADER_BYTES (64 * 1024)
/* Upper bound for any pause of a host (Retry-After, back-off) and for a
 * host delay: one day (doc/FETCH.md, "Host key and politeness"). */
#define FETCH_MAX_PAUSE 86400.0
/* Longest host key: "https://" + 255-byte host + ":65535" + NUL. */
#define FETCH_HOST_KEY_LEN 300

struct fetch_opts {
	size_t max_transfers;      /* concurrent transfers over all hosts (64) */
	double min_delay;          /* MinDelay floor for every host, seconds (0) */
	double connect_timeout;    /* DNS + TCP + TLS, seconds (15) */
	double read_timeout;       /* ReadTimeOut: abort below low_speed_limit for
	                            * this long, seconds (90) */
	long low_speed_limit;      /* bytes/s (100) */
	double total_timeout;      /* whole transfer, seconds (3 × read_timeout) */
	size_t max_doc_size;       /* MaxDocSize, decoded bytes (1 MiB, at most
	                            * MAX_DOC_BYTES) */
	long dns_cache_timeout;    /* AddressExpiry, seconds (3600) */
	double backoff_base;       /* first back-off on 429/503 without
	                            * Retry-After or on a network error, doubled
	                            * per strike up to max_backoff (10) */
	double max_backoff;        /* cap for back-off and Retry-After (86400) */
	double max_queue_wait;     /* a queued request whose host is not due
	                            * within this many seconds is returned as
	                            * FETCH_ERR_DEFERRED instead of waiting (300) */
	const char *user_agent;    /* NULL = "mpseek/<version>"; copied */
	const char *proxy;         /* default proxy "host[:port]", NULL = direct
	                            * (the environment's http_proxy is ignored);
	                            * copied */
	const char *const *headers; /* extra "Name: value" lines (HTTPHeader);
	                             * copied */
	size_t n_headers;
	bool insecure_tls;         /* do not verify TLS peers (false) */
};

/* Zero means "the default" for every numeric field above. */

struct fetch_req {
	const char *url;           /* absolute http:// or https:// URL; copied */
	void *user;                /* the caller's pointer, handed back as is */
	const char *if_modified_since; /* raw Last-Modified value, or NULL */
	const char *if_none_match; /* raw ETag value, or NULL */
	bool head;                 /* HEAD instead of GET (CheckOnly) */
	const char *proxy;         /* NULL = fetch_opts.proxy */
	const char *userpwd;       /* "user:pass" for HTTP Basic (AuthBasic), NULL =
	                            * none; copied, never logged */
	size_t max_size;           /* 0 = fetch_opts.max_doc_size */
	double read_timeout;       /* 0 = fetch_opts.read_timeout (per Server) */
	double host_delay;         /* > 0: set this host's delay (per-Server
	                            * MinDelay raised by Crawl-delay) before
	                            * queueing; 0 = keep the host's delay */
};

enum fetch_err {
	FETCH_ERR_NONE = 0,        /* a response arrived (any status code) */
	FETCH_ERR_DNS,             /* host name did not resolve (or timed out) */
	FETCH_ERR_CONNECT,         /* refused, unreachable, connect/TLS failure */
	FETCH_ERR_TIMEOUT,         /* too slow, silent or over the total cap */
	FETCH_ERR_TOO_BIG,         /* body cut at max_size: truncated, prefix kept */
	FETCH_ERR_PROTOCOL,        /* bad reply, reset, bad encoding, huge headers */
	FETCH_ERR_ABORTED,         /* cancelled by fetcher_cancel_all() */
	FETCH_ERR_URL,             /* not fetched: bad URL or scheme not http(s) */
	FETCH_ERR_DEFERRED,        /* not fetched: host paused beyond
	                            * max_queue_wait; retry_in says how long */
};

/* Static name of a class: "none", "dns", "connect", "timeout", "too_big",
 * "protocol", "aborted", "url", "deferred". */
const char *fetch_err_name(enum fetch_err e);

struct fetch_result {
	const char *url;           /* the request's URL */
	void *user;                /* the request's pointer */
	const char *host_key;      /* "scheme://host:port", "" for FETCH_ERR_URL */
	long status;               /* final HTTP status, 0 when none arrived */
	enum fetch_err err;
	const char *reason;        /* human text, "" when err is NONE */
	bool truncated;            /* body holds the first max_size bytes only */
	bool head;                 /* it was a HEAD request */
	/* Headers of the final response, raw and trimmed; NULL when absent. */
	const char *content_type;  /* with its charset parameter */
	const char *last_modified;
	const char *etag;
	const char *location;      /* as sent: resolve it against url */
	const char *content_encoding;
	long retry_after;          /* seconds (delta or HTTP-date), -1 absent or
	                            * unparsable */
	long fresh_for;            /* seconds the response stays fresh: Cache-Control
	                            * max-age, else Expires - now (0 if past or
	                            * invalid); -1 when neither is given */
	int64_t content_length;    /* -1 absent */
	/* The decoded body, NUL-terminated, at most max_size bytes.  The callback
	 * may keep it: buf_detach(&r->body, &len) hands over the malloc'd bytes. */
	struct buf body;
	uint64_t wire_bytes;       /* body bytes received, before decoding */
	uint64_t decoded_bytes;    /* decoded bytes libcurl delivered (can exceed
	                            * body.len by one chunk when truncated) */
	double total_time;         /* seconds, from the start of the transfer */
	double queue_time;         /* seconds waited in the per-host queue */
	double retry_in;           /* FETCH_ERR_DEFERRED: seconds until the host is
	                            * due again; otherwise 0 */
	char primary_ip[64];       /* "" when no connection was made */
	bool reused;               /* the connection was kept alive from before */
};

/* The result and everything it points to is valid until the callback
 * returns (except a body taken with buf_detach). */
typedef void (*fetch_done_fn)(struct fetch_result *r, void *arg);

/* Returns a new fetcher (free with fetcher_free()) or NULL after logging. */
struct fetcher *fetcher_new(const struct fetch_opts *o);

/* Frees everything; in-flight and queued requests are dropped without a
 * callback (call fetcher_cancel_all() first to get them back).  NULL-safe. */
void fetcher_free(struct fetcher *f);

/* Queue one request; r and its strings are copied.  Every request accepted
 * (return 0) yields exactly one result through fetcher_run() or
 * fetcher_cancel_all(); a URL that cannot be fetched (malformed, too long, a
 * scheme other than http/https) yields a FETCH_ERR_URL result.  Returns -1
 * only when r or r->url is NULL. */
int fetcher_add(struct fetcher *f, const struct fetch_req *r);

/* Set the politeness delay of a host (seconds between the end of one
 * request and the start of the next), e.g. from robots Crawl-delay.  The
 * effective delay is max(fetch_opts.min_delay, this); it is clamped to
 * [0, FETCH_MAX_PAUSE].  Creates the host if unknown.  Hosts idle for some
 * minutes are forgotten with their delay: pass fetch_req.host_delay with
 * each request when that matters.  Returns 0, or -1 for a bad key. */
int fetcher_set_host_delay(struct fetcher *f, const char *host_key, double seconds);

/* Drive the transfers: start those whose host is due, wait (without busy
 * looping: epoll_wait until a socket is ready, libcurl's timeout or the next
 * host is due), and call
 * cb once per finished request.  Returns as soon as at least one result was
 * delivered, or after max_wait_s seconds, or at once when nothing is queued
 * or running.  Returns the number of results delivered, or -1 on a libcurl
 * failure. */
int fetcher_run(struct fetcher *f, double max_wait_s, fetch_done_fn cb, void *arg);

/* Make a fetcher_run() that waits (or the next one) return at once, with
 * whatever it delivered.  The one function that may be called from another
 * thread (an analysis thread telling the crawl loop that a page is ready). */
void fetcher_wakeup(struct fetcher *f);
/* For a caller busy between fetcher_run() calls: take the transfers that
 * ended (they wait to be delivered by the next fetcher_run()) and send the
 * next requests of the hosts that are due, so that the servers work
 * meanwhile.  Never calls back; cheap when nothing ended. */
void fetcher_kick(struct fetcher *f);

/* MaxBandwidth: body bytes per second over all transfers of this fetcher
 * (0 = no limit).  No transfer starts while the bytes received exceed the
 * rate times the time (one second's burst allowed) and none receives
 * faster than the rate: the average holds, a moment may exceed it
 * (doc/FETCH.md). */
void fetcher_set_bandwidth(struct fetcher *f, double bytes_per_sec);

/* Requests accepted and not yet delivered (queued, running or finished). */
size_t fetcher_pending(const struct fetcher *f);

/* The width of a fetcher since fetcher_new(): transfers in flight on
 * average over time and at most, and transfers started. */
struct fetch_stats {
	double mean_running;
	size_t peak_running;
	uint64_t started;
};
void fetcher_stats(const struct fetcher *f, struct fetch_stats *s);

/* For SIGTERM: abort every transfer and empty every queue; each of those
 * requests is delivered to cb as FETCH_ERR_ABORTED (results that had already
 * finished are delivered as they are), so the crawler can release its
 * claims.  Returns the number delivered. */
size_t fetcher_cancel_all(struct fetcher *f, fetch_done_fn cb, void *arg);
/* For a graceful stop: empty every queue (delivered as FETCH_ERR_ABORTED)
 * but let the running transfers go on; fetcher_run() then delivers them.
 * Returns the number delivered. */
size_t fetcher_cancel_queued(struct fetcher *f, fetch_done_fn cb, void *arg);

/* Write the host key "scheme://host:port" of url (lower-case scheme and host,
 * default port filled in) into out.  Returns 0, or -1 when url cannot be
 * parsed or is not http/https (quietly: the caller decides what to log). */
int fetch_host_key(const char *url, char *out, size_t outlen);

#endif
