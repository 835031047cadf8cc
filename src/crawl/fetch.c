/* fetch.c - the fetching stage of one rank: libcurl multi, politeness, caps.
 *
 * Owns the multi handle, the rank's shared DNS cache, the per-host queues
 * and politeness clocks, the caps on body and header bytes, and the
 * classification of outcomes (include/fetch.h, doc/FETCH.md).  It does not
 * follow redirects, read robots.txt or look inside documents.
 */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "buf.h"
#include "caps.h"
#include "fetch.h"
#include "fetch_int.h"
#include "log.h"
#include "util.h"

#define DEF_MAX_TRANSFERS   64
#define DEF_CONNECT_TIMEOUT 15.0
#define DEF_READ_TIMEOUT    90.0    /* ASPseek ReadTimeOut */
#define DEF_LOW_SPEED       100L    /* bytes/s; doc/FETCH.md "Caps" */
#define DEF_TOTAL_FACTOR    3.0     /* total cap = 3 × ReadTimeOut */
#define DEF_MAX_DOC         (1024 * 1024)
#define DEF_DNS_TIMEOUT     3600L   /* AddressExpiry */
#define DEF_BACKOFF_BASE    10.0
#define DEF_MAX_QUEUE_WAIT  300.0
#define MAX_STRIKES         30      /* 2^30 × base is far past any cap */
#define HOST_IDLE_TTL       600.0   /* forget idle hosts after this long... */
#define HOST_SOFT_CAP       65536   /* ...even with a custom delay past this many */
#define SWEEP_EVERY         60.0
#define HEAP_NONE           SIZE_MAX
/* Descriptors kept for what is not a transfer: the database, delta logs,
 * the MPI runtime, log files. */
#define FD_RESERVE          256

/* The response headers a result carries (fetch.h struct fetch_result). */
enum { HV_CTYPE, HV_LASTMOD, HV_ETAG, HV_LOCATION, HV_CENC, HV_RETRY, HV_CLEN, HV_EXPIRES,
       HV_CACHECTL, HV_N };
static const char *const hv_names[HV_N] = {
	"Content-Type", "Last-Modified", "ETag", "Location", "Content-Encoding",
	"Retry-After", "Content-Length", "Expires", "Cache-Control",
};

struct host;

/* One request from fetcher_add() to its delivery. */
struct xfer {
	struct xfer *next;          /* in its host's queue or the done list */
	struct host *host;          /* NULL for requests refused at fetcher_add() */
	CURL *easy;                 /* non-NULL while running */
	struct curl_slist *hdrs;
	char *url, *ims, *inm, *proxy;
	char *userpwd;              /* AuthBasic user:pass, or NULL (never logged) */
	bool head;
	size_t max_size;
	double read_timeout;
	double queued_at, started_at;
	size_t header_bytes;
	bool header_overflow;
	char *hv[HV_N];             /* header values of the last response */
	char errbuf[CURL_ERROR_SIZE];
	char reason[CURL_ERROR_SIZE + 160];
	struct fetch_result res;
};

struct host {
	struct host *hnext;         /* hash chain */
	char *key;                  /* scheme://host:port */
	struct xfer *qhead, *qtail; /* waiting requests, FIFO */
	struct xfer *cur;           /* the one running request, or NULL */
	double delay;               /* set by the caller (MinDelay/Crawl-delay) */
	double last_end;            /* monotonic end of the last transfer, 0 = never */
	double pause_until;         /* Retry-After / back-off */
	unsigned strikes;           /* consecutive 429/503/network failures */
	double touched;
	double due;                 /* heap key: earliest start of the next request */
	size_t heap_idx;            /* HEAP_NONE unless waiting with a queue */
};

struct fetcher {
	struct fetch_opts o;        /* defaults applied; strings below */
	char *user_agent, *proxy;
	char **headers;
	size_t n_headers;
	CURLM *multi;
	struct fetch_events ev;     /* its sockets and timer (fetch_events.c) */
	CURLSH *share;
	bool curl_inited;
	struct host **buckets;
	size_t nbuckets, nhosts;
	struct host **heap;         /* idle hosts with a queue, by due time */
	size_t heap_len, heap_alloc;
	struct xfer *done_head, *done_tail;
	size_t running, queued, ndone;
	uint64_t rng;
	double next_sweep;
	atomic_int woken;           /* fetcher_wakeup() was called */
	/* fetcher_stats(): the integral of `running` over time since created. */
	double born, busy_since, busy_sum;
	size_t peak_running;
	uint64_t started;
	/* MaxBandwidth (fetcher_set_bandwidth()): a token bucket of body
	 * bytes, refilled at bw_rate per second up to one second's worth;
	 * no transfer starts while it is below zero. */
	double bw_rate, bw_tokens, bw_last;
};

const char *fetch_err_name(enum fetch_err e)
{
	static const char *const names[] = {
		"none", "dns", "connect", "timeout", "too_big", "protocol",
		"aborted", "url", "deferred",
	};
	return (size_t)e < ARRAY_SIZE(names) ? names[e] : "unknown";
}

static double dmax(double a, double b) { return a > b ? a : b; }
static double dmin(double a, double b) { return a < b ? a : b; }

static double clamp_pause(double s)
{
	return s > 0 ? dmin(s, FETCH_MAX_PAUSE) : 0;  /* also maps NaN to 0 */
}

/* ---- URLs and host keys ------------------------------------------------ */

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* Fill key from url, or write why into why[] and return -1.  The scheme is
 * checked before libcurl sees the URL, so that "ftp:", "file:", "mailto:"
 * and "javascript:" get a clear reason rather than a parser error. */
static int host_key_of(const char *url, char *key, size_t keylen, char *why, size_t whylen)
{
	CURLU *cu = NULL;
	CURLUcode uc;
	char *host = NULL, *port = NULL;
	size_t i, n;
	int rc = -1;

	n = strlen(url);
	if (n > MAX_URL_LEN) {
		snprintf(why, whylen, "URL longer than %d bytes", MAX_URL_LEN);
		goto out;
	}
	for (i = 0; i < n; i++) {
		char c = url[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))))
			break;
	}
	if (i == 0 || i >= n || url[i] != ':') {
		snprintf(why, whylen, "not an absolute URL");
		goto out;
	}
	if (!((i == 4 && !ascii_ncasecmp(url, "http", 4)) ||
	      (i == 5 && !ascii_ncasecmp(url, "https", 5)))) {
		snprintf(why, whylen, "scheme '%.*s' refused: only http and https are fetched",
			 (int)(i < 32 ? i : 32), url);
		goto out;
	}
	if (!(cu = curl_url())) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	if ((uc = curl_url_set(cu, CURLUPART_URL, url, 0)) != CURLUE_OK) {
		snprintf(why, whylen, "malformed URL: %s", curl_url_strerror(uc));
		goto out;
	}
	if ((uc = curl_url_get(cu, CURLUPART_HOST, &host, 0)) != CURLUE_OK ||
	    (uc = curl_url_get(cu, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT)) != CURLUE_OK) {
		snprintf(why, whylen, "malformed URL: %s", curl_url_strerror(uc));
		goto out;
	}
	if ((size_t)snprintf(key, keylen, "%.*s://%s:%s", (int)i, url, host, port) >= keylen) {
		snprintf(why, whylen, "host name too long");
		goto out;
	}
	for (char *p = key; *p; p++)
		*p = ascii_lower(*p);
	rc = 0;
out:
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(cu);
	return rc;
}

int fetch_host_key(const char *url, char *out, size_t outlen)
{
	char why[128];
	if (!url || !out || !outlen)
		return -1;
	return host_key_of(url, out, outlen, why, sizeof why);
}

/* ---- hosts: hash table and the heap of waiting hosts -------------------- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void hash_grow(struct fetcher *f)
{
	size_t nb = f->nbuckets * 2;
	struct host **b = xcalloc(nb, sizeof(*b));

	for (size_t i = 0; i < f->nbuckets; i++) {
		struct host *h = f->buckets[i], *next;
		for (; h; h = next) {
			size_t j = hash_str(h->key) & (nb - 1);
			next = h->hnext;
			h->hnext = b[j];
			b[j] = h;
		}
	}
	free(f->buckets);
	f->buckets = b;
	f->nbuckets = nb;
}

static struct host *host_get(struct fetcher *f, const char *key, bool create)
{
	size_t i = hash_str(key) & (f->nbuckets - 1);
	struct host *h;

	for (h = f->buckets[i]; h; h = h->hnext)
		if (!strcmp(h->key, key))
			return h;
	if (!create)
		return NULL;
	h = xcalloc(1, sizeof(*h));
	h->key = xstrdup(key);
	h->heap_idx = HEAP_NONE;
	h->touched = now_monotonic();
	h->hnext = f->buckets[i];
	f->buckets[i] = h;
	if (++f->nhosts > f->nbuckets)
		hash_grow(f);
	return h;
}

static void heap_set(struct fetcher *f, size_t i, struct host *h)
{
	f->heap[i] = h;
	h->heap_idx = i;
}

static void heap_up(struct fetcher *f, size_t i)
{
	struct host *h = f->heap[i];
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (f->heap[p]->due <= h->due)
			break;
		heap_set(f, i, f->heap[p]);
		i = p;
	}
	heap_set(f, i, h);
}

static void heap_down(struct fetcher *f, size_t i)
{
	struct host *h = f->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= f->heap_len)
			break;
		if (c + 1 < f->heap_len && f->heap[c + 1]->due < f->heap[c]->due)
			c++;
		if (h->due <= f->heap[c]->due)
			break;
		heap_set(f, i, f->heap[c]);
		i = c;
	}
	heap_set(f, i, h);
}

static void heap_remove(struct fetcher *f, struct host *h)
{
	size_t i = h->heap_idx;
	struct host *last;

	if (i == HEAP_NONE)
		return;
	h->heap_idx = HEAP_NONE;
	last = f->heap[--f->heap_len];
	if (last == h)
		return;
	heap_set(f, i, last);
	heap_up(f, i);
	heap_down(f, last->heap_idx);
}

static void heap_update(struct fetcher *f, struct host *h)
{
	if (h->heap_idx == HEAP_NONE) {
		if (f->heap_len == f->heap_alloc) {
			f->heap_alloc = f->heap_alloc ? f->heap_alloc * 2 : 64;
			f->heap = xrealloc(f->heap, f->heap_alloc * sizeof(*f->heap));
		}
		heap_set(f, f->heap_len++, h);
	}
	heap_up(f, h->heap_idx);
	heap_down(f, h->heap_idx);
}

static double host_due(const struct fetcher *f, const struct host *h)
{
	double delay = dmax(f->o.min_delay, h->delay);
	double d = h->last_end > 0 ? h->last_end + delay : 0;
	return dmax(d, h->pause_until);
}

/* ---- requests ------------------------------------------------------------ */

static void xfer_free(struct xfer *x)
{
	if (!x)
		return;
	if (x->easy)
		curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->hdrs);
	free(x->url);
	free(x->ims);
	free(x->inm);
	free(x->proxy);
	if (x->userpwd)
		memset(x->userpwd, 0, strlen(x->userpwd));
	free(x->userpwd);
	for (int i = 0; i < HV_N; i++)
		free(x->hv[i]);
	buf_free(&x->res.body);
	free(x);
}

static void clear_headers(struct xfer *x)
{
	for (int i = 0; i < HV_N; i++) {
		free(x->hv[i]);
		x->hv[i] = NULL;
	}
}

static void push_done(struct fetcher *f, struct xfer *x)
{
	x->next = NULL;
	if (f->done_tail)
		f->done_tail->next = x;
	else
		f->done_head = x;
	f->done_tail = x;
	f->ndone++;
}

/* Finish a request that never reached libcurl (bad URL, deferred, aborted
 * while queued). */
static void finish_local(struct fetcher *f, struct xfer *x, enum fetch_err err,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void finish_local(struct fetcher *f, struct xfer *x, enum fetch_err err,
			 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->reason, sizeof x->reason, fmt, ap);
	va_end(ap);
	x->res.err = err;
	x->res.reason = x->reason;
	x->res.queue_time = x->queued_at > 0 ? now_monotonic() - x->queued_at : 0;
	push_done(f, x);
}

/* Return every queued request of h as FETCH_ERR_DEFERRED: the host will not
 * be due for longer than a claim should wait in memory: the crawler gives
 * the claims back and reschedules them (doc/FETCH.md, "Host key and
 * politeness"). */
static void defer_queue(struct fetcher *f, struct host *h, double now)
{
	double in = h->due - now;
	struct xfer *x;

	while ((x = h->qhead)) {
		h->qhead = x->next;
		f->queued--;
		x->res.retry_in = in;
		finish_local(f, x, FETCH_ERR_DEFERRED,
			     "host %s paused for %.0f s (Retry-After, back-off or delay)",
			     h->key, in);
	}
	h->qtail = NULL;
}

/* Put h where its state says: in the heap when idle with a queue and due
 * soon enough, deferred when not, nowhere when busy or empty. */
static void host_schedule(struct fetcher *f, struct host *h, double now)
{
	if (h->cur || !h->qhead) {
		heap_remove(f, h);
		return;
	}
	h->due = host_due(f, h);
	if (h->due - now > f->o.max_queue_wait) {
		heap_remove(f, h);
		defer_queue(f, h, now);
		return;
	}
	heap_update(f, h);
}

int fetcher_add(struct fetcher *f, const struct fetch_req *r)
{
	char key[FETCH_HOST_KEY_LEN], why[160];
	struct xfer *x;
	struct host *h;
	double now = now_monotonic();

	if (!f || !r || !r->url)
		return error("fetcher_add: no request or URL");
	x = xcalloc(1, sizeof(*x));
	x->url = xstrdup(r->url);
	x->ims = r->if_modified_since ? xstrdup(r->if_modified_since) : NULL;
	x->inm = r->if_none_match ? xstrdup(r->if_none_match) : NULL;
	x->proxy = r->proxy ? xstrdup(r->proxy) : NULL;
	x->userpwd = r->userpwd ? xstrdup(r->userpwd) : NULL;
	x->head = r->head;
	x->max_size = r->max_size ? r->max_size : f->o.max_doc_size;
	if (x->max_size > (size_t)MAX_DOC_BYTES)
		x->max_size = MAX_DOC_BYTES;
	x->read_timeout = r->read_timeout > 0 ? r->read_timeout : f->o.read_timeout;
	x->queued_at = now;
	buf_init(&x->res.body, x->max_size);
	x->res.url = x->url;
	x->res.user = r->user;
	x->res.host_key = "";
	x->res.head = r->head;
	x->res.reason = "";
	x->res.retry_after = -1;
	x->res.fresh_for = -1;
	x->res.content_length = -1;

	if (host_key_of(x->url, key, sizeof key, why, sizeof why)) {
		debug("fetch: refused %s: %s", x->url, why);
		finish_local(f, x, FETCH_ERR_URL, "%s", why);
		return 0;
	}
	h = host_get(f, key, true);
	x->host = h;
	x->res.host_key = h->key;
	if (r->host_delay > 0)
		h->delay = clamp_pause(r->host_delay);
	h->touched = now;
	if (h->qtail)
		h->qtail->next = x;
	else
		h->qhead = x;
	h->qtail = x;
	f->queued++;
	host_schedule(f, h, now);
	return 0;
}

int fetcher_set_host_delay(struct fetcher *f, const char *host_key, double seconds)
{
	struct host *h;
	double now = now_monotonic();

	if (!f || !host_key || !*host_key || strlen(host_key) >= FETCH_HOST_KEY_LEN)
		return error("fetcher_set_host_delay: bad host key");
	h = host_get(f, host_key, true);
	h->delay = clamp_pause(seconds);
	h->touched = now;
	host_schedule(f, h, now);
	return 0;
}

size_t fetcher_pending(const struct fetcher *f)
{
	return f ? f->queued + f->running + f->ndone : 0;
}

/* ---- libcurl callbacks ----------------------------------------------------- */

/* The body arrives here already decoded (gzip, deflate, br, zstd), so the
 * cap counts what we store and a decompression bomb stops at max_size with
 * bounded memory; libcurl 7.88 cannot do this itself (doc/FETCH.md "Caps").
 * Returning a short count makes libcurl abort with CURLE_WRITE_ERROR. */
static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb, room = x->max_size - x->res.body.len;

	x->res.decoded_bytes += n;
	if (!x->res.body.alloc) {
		/* The whole body at once where the length is announced, rather
		 * than doubling from 64 bytes (every byte copied once more). */
		curl_off_t cl = -1;

		if (curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK &&
		    cl > 0)
			buf_reserve(&x->res.body, (size_t)cl < x->max_size ? (size_t)cl : x->max_size);
	}
	if (n <= room) {
		if (buf_add(&x->res.body, p, n))
			return 0;
		return n;
	}
	buf_add(&x->res.body, p, room);
	x->res.truncated = true;
	return 0;
}

static const char *trim(const char *s, const char *end, size_t *len)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
		end--;
	*len = (size_t)(end - s);
	return s;
}

/* One header line per call, status lines included.  A status line starts a
 * new response (1xx, or a proxy's CONNECT answer), so earlier values go. */
static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	struct xfer *x = ud;
	size_t n = size * nmemb, nlen, vlen;
	const char *colon, *v;

	x->header_bytes += n;
	if (x->header_bytes > FETCH_MAX_HEADER_BYTES) {
		x->header_overflow = true;
		return 0;
	}
	if (n >= 5 && !memcmp(p, "HTTP/", 5)) {
		clear_headers(x);
		return n;
	}
	if (n > MAX_HTTP_HEADER || !(colon = memchr(p, ':', n)))
		return n;
	nlen = (size_t)(colon - p);
	for (int i = 0; i < HV_N; i++) {
		if (strlen(hv_names[i]) != nlen || ascii_ncasecmp(p, hv_names[i], nlen))
			continue;
		if (!x->hv[i]) {   /* a repeated header: the first one counts */
			v = trim(colon + 1, p + n, &vlen);
			x->hv[i] = xstrndup(v, vlen);
		}
		break;
	}
	return n;
}

/* ---- starting and finishing transfers ------------------------------------ */

/* Retry-After (RFC 9110 §10.2.3): delta-seconds or an HTTP-date. */
static long parse_retry_after(const char *v)
{
	long secs;
	time_t t;

	if (!v || !*v)
		return -1;
	if (*v >= '0' && *v <= '9') {
		size_t n = strspn(v, "0123456789");
		if (v[n])
			return -1;
		if (n > 9)        /* more than 31 years: clamp, never overflow */
			return 999999999L;
		return parse_long(v, 0, 999999999L, &secs) ? -1 : secs;
	}
	t = curl_getdate(v, NULL);
	if (t == (time_t)-1)
		return -1;
	t -= time(NULL);
	return t < 0 ? 0 : t > 999999999L ? 999999999L : (long)t;
}

/* How long the response says it stays fresh (RFC 9111 §4.2.1): the
 * max-age of Cache-Control when there is one (it overrides Expires), else
 * Expires less now; -1 when neither is given or parses. */
static long parse_fresh_for(const char *cache_control, const char *expires)
{
	const char *p = cache_control;
	time_t t;

	while (p && *p) {
		p += strspn(p, " \t,");
		if (!ascii_ncasecmp(p, "max-age=", 8)) {
			long v = 0;
			size_t n;

			p += 8;
			p += *p == '"';
			n = strspn(p, "0123456789");
			for (size_t i = 0; i < n && v < 999999999L; i++)
				v = v * 10 + (p[i] - '0');
			if (n)
				return v < 999999999L ? v : 999999999L;
		}
		p += strcspn(p, ",");
	}
	if (!expires || !*expires)
		return -1;
	t = curl_getdate(expires, NULL);
	if (t == (time_t)-1)
		return 0; /* RFC 9111 §5.3: an invalid date means already expired */
	t -= time(NULL);
	return t < 0 ? 0 : t > 999999999L ? 999999999L : (long)t;
}

static bool header_value_ok(const char *s)
{
	return strlen(s) < MAX_HTTP_HEADER && !strpbrk(s, "\r\n");
}

#define SETOPT(e, opt, val) do { \
		if (curl_easy_setopt((e), (opt), (val)) != CURLE_OK) { \
			what = #opt; \
			goto out; \
		} \
	} while (0)

/* Configure one easy handle for x.  Returns 0, or -1 with x->reason set. */
static int setup_easy(struct fetcher *f, struct xfer *x)
{
	const char *what = "curl_easy_init";
	const char *proxy = x->proxy ? x->proxy : f->proxy ? f->proxy : "";
	double rt = x->read_timeout;
	double total = f->o.total_timeout > 0 ? f->o.total_timeout : DEF_TOTAL_FACTOR * rt;
	double conn = dmin(f->o.connect_timeout, total);
	CURL *e;
	int rc = -1;

	if (!(e = x->easy = curl_easy_init()))
		goto out;
	for (size_t i = 0; i < f->n_headers; i++)
		x->hdrs = curl_slist_append(x->hdrs, f->headers[i]);
	if (x->ims && header_value_ok(x->ims)) {
		char *h = xasprintf("If-Modified-Since: %s", x->ims);
		x->hdrs = curl_slist_append(x->hdrs, h);
		free(h);
	}
	if (x->inm && header_value_ok(x->inm)) {
		char *h = xasprintf("If-None-Match: %s", x->inm);
		x->hdrs = curl_slist_append(x->hdrs, h);
		free(h);
	}
	SETOPT(e, CURLOPT_URL, x->url);
	SETOPT(e, CURLOPT_PRIVATE, (void *)x);
	SETOPT(e, CURLOPT_ERRORBUFFER, x->errbuf);
	/* One thread, no alarm(): the threaded resolver keeps DNS bounded. */
	SETOPT(e, CURLOPT_NOSIGNAL, 1L);
	SETOPT(e, CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	/* Each hop must pass robots, filters and the normaliser: the crawler
	 * follows Location itself (doc/HOSTILE-INPUT.md case 5). */
	SETOPT(e, CURLOPT_FOLLOWLOCATION, 0L);
	/* HTTP/1.1 only: no h2 multiplexing, one request per connection at a
	 * time is exactly the politeness we promise. */
	SETOPT(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	SETOPT(e, CURLOPT_ACCEPT_ENCODING, "");
	SETOPT(e, CURLOPT_WRITEFUNCTION, on_body);
	SETOPT(e, CURLOPT_WRITEDATA, (void *)x);
	SETOPT(e, CURLOPT_HEADERFUNCTION, on_header);
	SETOPT(e, CURLOPT_HEADERDATA, (void *)x);
	SETOPT(e, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
	if (x->head)
		SETOPT(e, CURLOPT_NOBODY, 1L);
	SETOPT(e, CURLOPT_USERAGENT, f->user_agent);
	if (x->hdrs)
		SETOPT(e, CURLOPT_HTTPHEADER, x->hdrs);
	/* "" also keeps libcurl from reading http_proxy from the environment. */
	SETOPT(e, CURLOPT_PROXY, proxy);
	/* AuthBasic: sent with the first request (no 401 round trip), and
	 * only to this URL's host, since Location is never followed here. */
	if (x->userpwd) {
		SETOPT(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SETOPT(e, CURLOPT_USERPWD, x->userpwd);
	}
	SETOPT(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(conn * 1000));
	SETOPT(e, CURLOPT_LOW_SPEED_LIMIT, f->o.low_speed_limit);
	SETOPT(e, CURLOPT_LOW_SPEED_TIME, (long)(rt < 1 ? 1 : rt + 0.5));
	SETOPT(e, CURLOPT_TIMEOUT_MS, (long)(total * 1000));
	SETOPT(e, CURLOPT_SHARE, f->share);
	SETOPT(e, CURLOPT_DNS_CACHE_TIMEOUT, f->o.dns_cache_timeout);
	/* One transfer alone never goes faster than the rank may. */
	if (f->bw_rate > 0)
		SETOPT(e, CURLOPT_MAX_RECV_SPEED_LARGE, (curl_off_t)(f->bw_rate < 1 ? 1 : f->bw_rate));
	if (f->o.insecure_tls) {
		SETOPT(e, CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	rc = 0;
out:
	if (rc)
		snprintf(x->reason, sizeof x->reason, "cannot set up libcurl (%s)", what);
	return rc;
}

/* Change the number of running transfers, keeping the time integral of it
 * for fetcher_stats(). */
static void running_add(struct fetcher *f, int d, double now)
{
	f->busy_sum += (double)f->running * (now - f->busy_since);
	f->busy_since = now;
	f->running = d < 0 ? f->running - 1 : f->running + 1;
	if (f->running > f->peak_running)
		f->peak_running = f->running;
}

void fetcher_stats(const struct fetcher *f, struct fetch_stats *s)
{
	double now = now_monotonic(), span = now - f->born;

	s->started = f->started;
	s->peak_running = f->peak_running;
	s->mean_running = span > 0 ? (f->busy_sum + (double)f->running * (now - f->busy_since)) / span
				   : 0;
}

static void start(struct fetcher *f, struct host *h, double now)
{
	struct xfer *x = h->qhead;
	CURLMcode mc;

	h->qhead = x->next;
	if (!h->qhead)
		h->qtail = NULL;
	x->next = NULL;
	f->queued--;
	x->started_at = now;
	x->res.queue_time = now - x->queued_at;
	if (setup_easy(f, x)) {
		warning("fetch %s: %s", x->url, x->reason);
		curl_easy_cleanup(x->easy);
		x->easy = NULL;
		finish_local(f, x, FETCH_ERR_PROTOCOL, "%s", x->reason);
		return;
	}
	if ((mc = curl_multi_add_handle(f->multi, x->easy)) != CURLM_OK) {
		warning("fetch %s: curl_multi_add_handle: %s", x->url, curl_multi_strerror(mc));
		curl_easy_cleanup(x->easy);
		x->easy = NULL;
		finish_local(f, x, FETCH_ERR_PROTOCOL, "curl_multi_add_handle: %s",
			     curl_multi_strerror(mc));
		return;
	}
	h->cur = x;
	running_add(f, 1, now);
	f->started++;
	debug("fetch: start %s (waited %.3f s)", x->url, x->res.queue_time);
}

/* Seconds until the bandwidth bucket allows a transfer to start (0: now). */
static double bw_wait(struct fetcher *f, double now)
{
	if (f->bw_rate <= 0)
		return 0;
	f->bw_tokens = dmin(f->bw_tokens + (now - f->bw_last) * f->bw_rate, f->bw_rate);
	f->bw_last = now;
	return f->bw_tokens >= 0 ? 0 : -f->bw_tokens / f->bw_rate;
}

void fetcher_set_bandwidth(struct fetcher *f, double bytes_per_sec)
{
	double now = now_monotonic();

	bw_wait(f, now);
	if (bytes_per_sec > 0 && f->bw_rate <= 0) {
		f->bw_tokens = 0;
		f->bw_last = now;
	}
	f->bw_rate = bytes_per_sec > 0 ? bytes_per_sec : 0;
}

/* Start requests of due hosts, earliest first, up to the global cap. */
static void start_due(struct fetcher *f)
{
	double now = now_monotonic();

	while (f->running < f->o.max_transfers && f->heap_len && f->heap[0]->due <= now &&
	       bw_wait(f, now) == 0) {
		struct host *h = f->heap[0];
		heap_remove(f, h);
		start(f, h, now);
		h->touched = now;
		host_schedule(f, h, now);   /* back in the heap only if start failed */
	}
}

static enum fetch_err classify(struct xfer *x, CURLcode cc)
{
	curl_off_t ns = 0, ct = 0;

	if (cc == CURLE_OK)
		return FETCH_ERR_NONE;
	if (x->res.truncated)
		return FETCH_ERR_TOO_BIG;
	if (x->header_overflow)
		return FETCH_ERR_PROTOCOL;
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return FETCH_ERR_DNS;
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
		return FETCH_ERR_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		/* The same code for every phase: tell them apart by what finished. */
		curl_easy_getinfo(x->easy, CURLINFO_NAMELOOKUP_TIME_T, &ns);
		curl_easy_getinfo(x->easy, CURLINFO_CONNECT_TIME_T, &ct);
		{
			/* A kept-alive connection has no DNS or connect phase
			 * (both times 0): a timeout there is a slow server. */
			long conns = -1, hdr = 0;

			curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &conns);
			curl_easy_getinfo(x->easy, CURLINFO_HEADER_SIZE, &hdr);
			if (conns == 0 || hdr > 0)
				return FETCH_ERR_TIMEOUT;
		}
		if (ns == 0)
			return FETCH_ERR_DNS;
		if (ct == 0)
			return FETCH_ERR_CONNECT;
		return FETCH_ERR_TIMEOUT;
	default:
		return FETCH_ERR_PROTOCOL;
	}
}

/* Fill the result from the finished (or aborted) easy handle. */
static void collect_info(struct xfer *x)
{
	struct fetch_result *r = &x->res;
	long code = 0, nconn = 0;
	curl_off_t v = 0;
	char *ip = NULL;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &code);
	r->status = code;
	if (curl_easy_getinfo(x->easy, CURLINFO_SIZE_DOWNLOAD_T, &v) == CURLE_OK && v > 0)
		r->wire_bytes = (uint64_t)v;
	v = 0;
	curl_easy_getinfo(x->easy, CURLINFO_TOTAL_TIME_T, &v);
	r->total_time = (double)v / 1e6;
	if (curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK && ip)
		strlcpy_(r->primary_ip, ip, sizeof r->primary_ip);
	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &nconn);
	r->reused = code > 0 && nconn == 0;
	r->content_type = x->hv[HV_CTYPE];
	r->last_modified = x->hv[HV_LASTMOD];
	r->etag = x->hv[HV_ETAG];
	r->location = x->hv[HV_LOCATION];
	r->content_encoding = x->hv[HV_CENC];
	r->retry_after = parse_retry_after(x->hv[HV_RETRY]);
	r->fresh_for = parse_fresh_for(x->hv[HV_CACHECTL], x->hv[HV_EXPIRES]);
	if (x->hv[HV_CLEN]) {
		long cl;
		if (!parse_long(x->hv[HV_CLEN], 0, LONG_MAX, &cl))
			r->content_length = cl;
	}
}

static uint64_t rng_next(struct fetcher *f)
{
	uint64_t x = f->rng;   /* xorshift64: jitter only, not security */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return f->rng = x;
}

/* Politeness after a transfer: the clock restarts at its end; 429/503 and
 * network failures pause the host (Retry-After when given, else exponential
 * back-off with ±10% jitter, capped; doc/HOSTILE-INPUT.md case 7). */
static void host_after(struct fetcher *f, struct host *h, const struct fetch_result *r, double now)
{
	bool slow_down = r->status == 429 || r->status == 503;
	bool net = r->err == FETCH_ERR_DNS || r->err == FETCH_ERR_CONNECT || r->err == FETCH_ERR_TIMEOUT;
	double pause;

	h->cur = NULL;
	h->last_end = now;
	h->touched = now;
	if (!slow_down && !net) {
		if (r->err == FETCH_ERR_NONE || r->err == FETCH_ERR_TOO_BIG)
			h->strikes = 0;
		return;
	}
	if (h->strikes < MAX_STRIKES)
		h->strikes++;
	if (slow_down && r->retry_after >= 0) {
		pause = (double)r->retry_after;
	} else {
		double j = 0.9 + 0.2 * (double)(rng_next(f) >> 11) / (double)(1ULL << 53);
		pause = f->o.backoff_base * (double)(1UL << (h->strikes - 1)) * j;
	}
	pause = dmin(pause, f->o.max_backoff);
	h->pause_until = dmax(h->pause_until, now + pause);
	info("fetch: host %s paused %.1f s after %s (strike %u)", h->key, pause,
	     slow_down ? (r->status == 429 ? "429" : "503") : fetch_err_name(r->err), h->strikes);
}

static void finish(struct fetcher *f, struct xfer *x, CURLcode cc, bool aborted)
{
	struct fetch_result *r = &x->res;
	struct host *h = x->host;
	double now = now_monotonic();

	collect_info(x);
	if (f->bw_rate > 0)
		f->bw_tokens -= (double)r->wire_bytes;
	if (aborted) {
		r->err = FETCH_ERR_ABORTED;
		snprintf(x->reason, sizeof x->reason, "aborted: fetcher cancelled (shutdown)");
	} else {
		r->err = classify(x, cc);
		if (r->err == FETCH_ERR_NONE)
			x->reason[0] = '\0';
		else if (r->truncated)
			snprintf(x->reason, sizeof x->reason,
				 "document larger than %zu bytes: truncated", x->max_size);
		else if (x->header_overflow)
			snprintf(x->reason, sizeof x->reason,
				 "response headers larger than %d bytes", FETCH_MAX_HEADER_BYTES);
		else if (x->errbuf[0])
			snprintf(x->reason, sizeof x->reason, "%s: %s",
				 curl_easy_strerror(cc), x->errbuf);
		else
			snprintf(x->reason, sizeof x->reason, "%s", curl_easy_strerror(cc));
	}
	r->reason = x->reason;
	curl_multi_remove_handle(f->multi, x->easy);
	curl_easy_cleanup(x->easy);
	x->easy = NULL;
	curl_slist_free_all(x->hdrs);
	x->hdrs = NULL;
	running_add(f, -1, now);
	debug("fetch: done %s status %ld %s %.3f s%s", x->url, r->status,
	      fetch_err_name(r->err), r->total_time, r->reused ? " (reused)" : "");
	host_after(f, h, r, now);
	push_done(f, x);
	if (!aborted)
		host_schedule(f, h, now);
}

static void collect_done(struct fetcher *f)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(f->multi, &left))) {
		char *priv = NULL;
		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &priv);
		if (priv)
			finish(f, (struct xfer *)priv, m->data.result, false);
	}
}

static size_t deliver(struct fetcher *f, fetch_done_fn cb, void *arg)
{
	size_t n = 0, todo = f->ndone;   /* not those the callback adds */

	while (n < todo && f->done_head) {
		struct xfer *x = f->done_head;
		f->done_head = x->next;
		if (!f->done_head)
			f->done_tail = NULL;
		f->ndone--;
		if (cb)
			cb(&x->res, arg);
		xfer_free(x);
		n++;
	}
	return n;
}

/* Forget hosts that have been idle long enough that their clock cannot
 * matter; keep those with a caller-set delay or a pause unless the table is
 * huge: a long crawl meets ever more hosts, and the table must not grow with
 * them (doc/FETCH.md, "Host key and politeness"). */
static void sweep_hosts(struct fetcher *f, double now)
{
	if (now < f->next_sweep)
		return;
	f->next_sweep = now + SWEEP_EVERY;
	for (size_t i = 0; i < f->nbuckets; i++) {
		struct host **pp = &f->buckets[i];
		while (*pp) {
			struct host *h = *pp;
			bool plain = h->delay <= f->o.min_delay && h->strikes == 0;
			if (!h->cur && !h->qhead && now - h->touched > HOST_IDLE_TTL &&
			    now >= host_due(f, h) && (plain || f->nhosts > HOST_SOFT_CAP)) {
				*pp = h->hnext;
				free(h->key);
				free(h);
				f->nhosts--;
			} else {
				pp = &h->hnext;
			}
		}
	}
}

/* Start the requests of the hosts that are due and let libcurl send them
 * (a transfer just added is due on libcurl's timer at once). */
static CURLMcode send_due(struct fetcher *f)
{
	start_due(f);
	return f->running ? fetch_events_timeout(&f->ev) : CURLM_OK;
}

/* Let libcurl act on the sockets that are ready (waiting at most
 * timeout_ms for one) and take the transfers that ended. */
static CURLMcode drive(struct fetcher *f, int timeout_ms)
{
	CURLMcode mc = fetch_events_drive(&f->ev, timeout_ms);

	if (mc != CURLM_OK)
		error("libcurl: %s", curl_multi_strerror(mc));
	collect_done(f);
	return mc;
}

int fetcher_run(struct fetcher *f, double max_wait_s, fetch_done_fn cb, void *arg)
{
	double deadline, now;
	size_t n = 0;
	CURLMcode mc;

	if (!f)
		return error("fetcher_run: no fetcher");
	now = now_monotonic();
	deadline = now + (max_wait_s > 0 ? max_wait_s : 0);
	sweep_hosts(f, now);
	for (;;) {
		double wait;

		start_due(f);
		if (f->running && drive(f, 0) != CURLM_OK)
			return -1;
		if (f->ndone) {
			/* The hosts of these results are free: their next
			 * requests go out before the callback spends time on
			 * the results (it may wait for a page's analysis and
			 * the database). */
			if ((mc = send_due(f)) != CURLM_OK)
				return error("libcurl: %s", curl_multi_strerror(mc));
			n += deliver(f, cb, arg);
		}
		if (n) {
			/* And what the callback queued goes out before the
			 * caller spends time on the results. */
			if ((mc = send_due(f)) != CURLM_OK)
				return error("libcurl: %s", curl_multi_strerror(mc));
			break;
		}
		if (atomic_exchange(&f->woken, 0))
			break;
		now = now_monotonic();
		if (now >= deadline || (!f->running && !f->heap_len))
			break;
		wait = deadline - now;
		if (f->heap_len && f->running < f->o.max_transfers)
			wait = dmin(wait, dmax(f->heap[0]->due - now, bw_wait(f, now)));
		/* +1 ms: never wake just before a host is due and spin.  The
		 * wait ends early for a ready socket, libcurl's timeout or a
		 * wake-up. */
		if (drive(f, wait <= 0 ? 0 : wait > INT_MAX / 1000 ? INT_MAX : (int)(wait * 1000) + 1) !=
		    CURLM_OK)
			return -1;
	}
	return n > INT_MAX ? INT_MAX : (int)n;
}

void fetcher_kick(struct fetcher *f)
{
	if (!f || !f->running)
		return;
	if (drive(f, 0) == CURLM_OK)
		send_due(f);
}

void fetcher_wakeup(struct fetcher *f)
{
	atomic_store(&f->woken, 1);
	fetch_events_wake(&f->ev);
}

/* Empty every host's queue: each request is delivered as aborted. */
static void drop_queues(struct fetcher *f, const char *why)
{
	for (size_t i = 0; i < f->nbuckets; i++) {
		for (struct host *h = f->buckets[i]; h; h = h->hnext) {
			struct xfer *x;

			while ((x = h->qhead)) {
				h->qhead = x->next;
				f->queued--;
				finish_local(f, x, FETCH_ERR_ABORTED, "%s", why);
			}
			h->qtail = NULL;
			h->heap_idx = HEAP_NONE;
		}
	}
	f->heap_len = 0;   /* the heap holds idle hosts with a queue: none left */
}

size_t fetcher_cancel_all(struct fetcher *f, fetch_done_fn cb, void *arg)
{
	if (!f)
		return 0;
	for (size_t i = 0; i < f->nbuckets; i++)
		for (struct host *h = f->buckets[i]; h; h = h->hnext)
			if (h->cur)
				finish(f, h->cur, CURLE_OK, true);
	drop_queues(f, "aborted: fetcher cancelled (shutdown)");
	return deliver(f, cb, arg);
}

size_t fetcher_cancel_queued(struct fetcher *f, fetch_done_fn cb, void *arg)
{
	if (!f)
		return 0;
	drop_queues(f, "aborted: not started (stop)");
	return deliver(f, cb, arg);
}

/* ---- life cycle ------------------------------------------------------------ */

/* The connections the fetcher may keep open: max_transfers running plus an
 * idle cache twice that size, so that a host's next request reuses its
 * connection even at a width of hundreds of hosts.  They must fit the
 * descriptor limit: the soft limit is raised towards the hard one (often
 * 1024 against 4096 or more), and what still does not fit shrinks the idle
 * cache first, then the transfers (logged).  Returns the idle cache size. */
static long fit_descriptors(struct fetch_opts *o)
{
	rlim_t need = (rlim_t)o->max_transfers * 3 + FD_RESERVE, have;
	struct rlimit rl;
	long idle = (long)o->max_transfers * 2;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return idle;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rlim_t old = rl.rlim_cur;

		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) || getrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = old;
	}
	have = rl.rlim_cur;
	if (have == RLIM_INFINITY || have >= need)
		return idle;
	if (have < (rlim_t)o->max_transfers + FD_RESERVE + 16) {
		size_t fit = have > FD_RESERVE + 32 ? (size_t)(have - FD_RESERVE) / 2 : 16;

		warning("fetch: %llu file descriptors allowed: %zu transfers at once, not %zu",
			(unsigned long long)have, fit, o->max_transfers);
		o->max_transfers = fit;
		return (long)fit;
	}
	idle = (long)(have - FD_RESERVE - o->max_transfers);
	warning("fetch: %llu file descriptors allowed: %ld idle connections kept, not %zu",
		(unsigned long long)have, idle, o->max_transfers * 2);
	return idle;
}

struct fetcher *fetcher_new(const struct fetch_opts *opts)
{
	struct fetch_opts o = opts ? *opts : (struct fetch_opts){ 0 };
	const curl_version_info_data *vi;
	struct fetcher *f = xcalloc(1, sizeof(*f));
	CURLMcode mc = CURLM_OK;
	long idle;

	f->ev.epfd = f->ev.wakefd = -1;   /* fetcher_free() before fetch_events_init() */
	if (!o.max_transfers)
		o.max_transfers = DEF_MAX_TRANSFERS;
	idle = fit_descriptors(&o);
	o.min_delay = clamp_pause(o.min_delay);
	if (!(o.connect_timeout > 0))
		o.connect_timeout = DEF_CONNECT_TIMEOUT;
	if (!(o.read_timeout > 0))
		o.read_timeout = DEF_READ_TIMEOUT;
	if (o.low_speed_limit <= 0)
		o.low_speed_limit = DEF_LOW_SPEED;
	if (!(o.total_timeout > 0))
		o.total_timeout = 0;   /* 3 × each request's read timeout */
	if (!o.max_doc_size)
		o.max_doc_size = DEF_MAX_DOC;
	if (o.max_doc_size > (size_t)MAX_DOC_BYTES)
		o.max_doc_size = MAX_DOC_BYTES;
	if (o.dns_cache_timeout <= 0)
		o.dns_cache_timeout = DEF_DNS_TIMEOUT;
	if (!(o.backoff_base > 0))
		o.backoff_base = DEF_BACKOFF_BASE;
	o.max_backoff = o.max_backoff > 0 ? clamp_pause(o.max_backoff) : FETCH_MAX_PAUSE;
	if (!(o.max_queue_wait > 0))
		o.max_queue_wait = DEF_MAX_QUEUE_WAIT;
	f->o = o;
	f->user_agent = xstrdup(o.user_agent ? o.user_agent : PACKAGE_NAME "/" PACKAGE_VERSION);
	f->proxy = o.proxy && *o.proxy ? xstrdup(o.proxy) : NULL;
	f->o.user_agent = f->user_agent;
	f->o.proxy = f->proxy;
	f->headers = xcalloc(o.n_headers ? o.n_headers : 1, sizeof(*f->headers));
	for (size_t i = 0; i < o.n_headers; i++) {
		if (!o.headers[i] || !header_value_ok(o.headers[i]) || !strchr(o.headers[i], ':')) {
			warning("fetch: ignoring bad HTTPHeader line");
			continue;
		}
		f->headers[f->n_headers++] = xstrdup(o.headers[i]);
	}
	f->o.headers = NULL;
	f->o.n_headers = 0;
	f->nbuckets = 256;
	f->buckets = xcalloc(f->nbuckets, sizeof(*f->buckets));
	f->born = f->busy_since = now_monotonic();
	f->rng = (uint64_t)time(NULL) * 2654435761ULL ^ (uint64_t)getpid() ^ 0x9e3779b97f4a7c15ULL;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		error("fetch: curl_global_init failed");
		goto fail;
	}
	f->curl_inited = true;
	vi = curl_version_info(CURLVERSION_NOW);
	if (vi->version_num < 0x075500) {   /* CURLOPT_PROTOCOLS_STR */
		error("fetch: libcurl %s is too old (7.85.0 or later needed)", vi->version);
		goto fail;
	}
	/* One DNS cache for every transfer of the rank (doc/FETCH.md, "DNS and
	 * addresses").  One thread: no lock callbacks needed. */
	if (!(f->share = curl_share_init()) ||
	    curl_share_setopt(f->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK) {
		error("fetch: cannot create the shared DNS cache");
		goto fail;
	}
	if (!(f->multi = curl_multi_init())) {
		error("fetch: curl_multi_init failed");
		goto fail;
	}
	if (fetch_events_init(&f->ev, f->multi))
		goto fail;
	/* Our per-host queue already keeps one transfer per host; libcurl's cap
	 * is a second guard.  Through a proxy libcurl counts the proxy as the
	 * host, which would serialise every site, so it is lifted then. */
	if (!f->proxy)
		mc = curl_multi_setopt(f->multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
	if (mc == CURLM_OK)
		mc = curl_multi_setopt(f->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)o.max_transfers);
	/* Keep idle connections of recently used hosts for reuse. */
	if (mc == CURLM_OK)
		mc = curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS, idle);
	if (mc == CURLM_OK)
		mc = curl_multi_setopt(f->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_NOTHING);
	if (mc != CURLM_OK) {
		error("fetch: curl_multi_setopt: %s", curl_multi_strerror(mc));
		goto fail;
	}
	return f;
fail:
	fetcher_free(f);
	return NULL;
}

void fetcher_free(struct fetcher *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nbuckets; i++) {
		struct host *h = f->buckets[i], *next;
		for (; h; h = next) {
			struct xfer *x, *xn;
			next = h->hnext;
			if (h->cur) {
				curl_multi_remove_handle(f->multi, h->cur->easy);
				xfer_free(h->cur);
			}
			for (x = h->qhead; x; x = xn) {
				xn = x->next;
				xfer_free(x);
			}
			free(h->key);
			free(h);
		}
	}
	while (f->done_head) {
		struct xfer *x = f->done_head;
		f->done_head = x->next;
		xfer_free(x);
	}
	free(f->buckets);
	free(f->heap);
	if (f->multi)
		curl_multi_cleanup(f->multi);
	fetch_events_free(&f->ev);
	if (f->share)
		curl_share_cleanup(f->share);
	for (size_t i = 0; i < f->n_headers; i++)
		free(f->headers[i]);
	free(f->headers);
	free(f->user_agent);
	free(f->proxy);
	if (f->curl_inited)
		curl_global_cleanup();
	free(f);
}
