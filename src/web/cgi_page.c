/* cgi_page.c - the page of s.cgi: the CGI parameters turned into a search
 * request, asked of every DaemonAddress (results merged by score, as
 * ASPseek's multi-daemon search does), and the answer rendered through
 * s.htm (cgi_render.c, template.c) or as JSON; cached copies; error pages.
 * Every value reaches the page through the template engine's per-context
 * escaping or tpl_escape_html/json.  Parameters and variables: doc/CGI.md.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "cgi.h"
#include "cgi_int.h"
#include "charset.h"
#include "conf.h"
#include "log.h"
#include "proto.h"
#include "template.h"
#include "util.h"

#define PAGE_MAX (8u << 20)          /* bytes of one response body */
#define BODY_TIMEOUT_MS 10000        /* to read a POST body */
#define MAX_TMPL_NAME 64
#define RETRY_AFTER 30               /* seconds, for 503 */

/* spN=on: web space N (doc/CGI.md, "Parameters"), carried over too. */
bool space_param(const char *name, uint32_t *n)
{
	long v;

	if (name[0] != 's' || name[1] != 'p' || !name[2] || strlen(name) > 12)
		return false;
	if (strspn(name + 2, "0123456789") != strlen(name + 2) ||
	    parse_long(name + 2, 0, UINT32_MAX, &v))
		return false;
	*n = (uint32_t)v;
	return true;
}

/* The request's environment variable `name`, or NULL. */
static const char *req_env(const struct page *pg, const char *name)
{
	return pg->io->get(pg->io->ctx, name);
}

const char *param(const struct page *pg, const char *name)
{
	const char *v = cgi_get(pg->p, name);
	return v ? v : "";
}

long param_long(const struct page *pg, const char *name, long dflt, long lo, long hi)
{
	const char *v = cgi_get(pg->p, name);
	long n;

	if (!v || parse_long(v, LONG_MIN / 2, LONG_MAX / 2, &n))
		return dflt;
	return n < lo ? lo : n > hi ? hi : n;
}

/* ---- responses ------------------------------------------------------------ */

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 302: return "Found";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

/* Write the whole response: the headers, then the body unless HEAD. */
static void respond(const struct page *pg, int status, const char *ctype,
		    const struct buf *body, bool head, const char *extra)
{
	struct buf h = BUF_INIT(1 << 16);

	buf_printf(&h, "Status: %d %s\r\n", status, status_text(status));
	buf_printf(&h, "Content-Type: %s\r\n", ctype);
	buf_adds(&h, "Cache-Control: no-store\r\n"
		     "X-Content-Type-Options: nosniff\r\n"
		     "Referrer-Policy: no-referrer\r\n"
		     "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; "
		     "img-src 'self' data:; form-action 'self'; base-uri 'none'; "
		     "frame-ancestors 'self'\r\n");
	if (status == 503)
		buf_printf(&h, "Retry-After: %d\r\n", RETRY_AFTER);
	if (status == 405)
		buf_adds(&h, "Allow: GET, HEAD, POST\r\n");
	if (extra)
		buf_adds(&h, extra);
	buf_printf(&h, "Content-Length: %zu\r\n\r\n", body ? body->len : 0);
	pg->io->write(pg->io->ctx, h.ptr, h.len);
	if (!head && body && body->len)
		pg->io->write(pg->io->ctx, body->ptr, body->len);
	buf_free(&h);
}

/* The page of last resort, without the template: a title and a sentence
 * (what went wrong, naming the file and line for a template error). */
static void plain_page(const struct page *pg, int status, bool head, const char *title,
		       const char *msg)
{
	struct buf b = BUF_INIT(1 << 16);

	buf_adds(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"UTF-8\">"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		     "<title>");
	tpl_escape_html(&b, title, strlen(title));
	buf_adds(&b, "</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;"
		     "margin:2em auto;padding:0 1em;color:#222}code{background:#f3f3f3;"
		     "padding:.1em .3em;word-break:break-all}</style></head><body><h1>");
	tpl_escape_html(&b, title, strlen(title));
	buf_adds(&b, "</h1><p><code>");
	tpl_escape_html(&b, msg, strlen(msg));
	buf_adds(&b, "</code></p>");
	if (status == 503)
		buf_printf(&b, "<p>Please try again in %d seconds.</p>", RETRY_AFTER);
	buf_adds(&b, "</body></html>\n");
	respond(pg, status, "text/html; charset=UTF-8", &b, head, NULL);
	buf_free(&b);
}

static void json_error(const struct page *pg, int status, bool head, const char *token,
		       const char *msg)
{
	struct buf b = BUF_INIT(1 << 16);

	buf_adds(&b, "{\"error\":{\"token\":\"");
	tpl_escape_json(&b, token, strlen(token));
	buf_adds(&b, "\",\"message\":\"");
	tpl_escape_json(&b, msg, strlen(msg));
	buf_adds(&b, "\"}");
	if (status == 503)
		buf_printf(&b, ",\"retry_after\":%d", RETRY_AFTER);
	buf_adds(&b, "}\n");
	respond(pg, status, "application/json; charset=UTF-8", &b, head, NULL);
	buf_free(&b);
}

/* ---- the template --------------------------------------------------------- */

/* The template file: MPSEEK_TEMPLATE or the default, or tmpl=NAME
 * (NAME[.htm], [A-Za-z0-9_-], from the same directory: no path reaches the
 * file system).  Returns malloc'd, or NULL for a bad name. */
static char *template_path(const struct page *pg, const char *tmpl, const char *dflt_path)
{
	const char *dflt = req_env(pg, "MPSEEK_TEMPLATE");
	const char *slash;
	size_t i, n;

	if (!dflt || !*dflt)
		dflt = getenv("MPSEEK_TEMPLATE");
	if (!dflt || !*dflt)
		dflt = dflt_path;
	if (!tmpl || !*tmpl)
		return xstrdup(dflt);
	n = strlen(tmpl);
	if (n > 4 && !strcmp(tmpl + n - 4, ".htm"))
		n -= 4;
	if (n == 0 || n > MAX_TMPL_NAME)
		return NULL;
	for (i = 0; i < n; i++) {
		char c = tmpl[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return NULL;
	}
	slash = strrchr(dflt, '/');
	if (!slash)
		return xasprintf("%.*s.htm", (int)n, tmpl);
	return xasprintf("%.*s/%.*s.htm", (int)(slash - dflt), dflt, (int)n, tmpl);
}

static const char *er_text(const struct conf *c, const char *token, const char *fallback)
{
	size_t i;

	for (i = 0; c && i < c->n_errors; i++)
		if (!strcmp(c->error_names[i], token))
			return c->error_texts[i];
	return fallback;
}

/* ---- the request to searchd ---------------------------------------------- */

/* dd/mm/yyyy, or d, m (0-based, as ASPseek's form), y: a UTC day. */
static int day_time(long d, long m, long y, uint64_t *out)
{
	struct tm tm;
	time_t t;

	if (d < 1 || d > 31 || m < 0 || m > 11 || y < 1970 || y > 9999)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_mday = (int)d;
	tm.tm_mon = (int)m;
	tm.tm_year = (int)(y - 1900);
	t = timegm(&tm);
	if (t < 0)
		return -1;
	*out = (uint64_t)t;
	return 0;
}

static int parse_date(const char *s, uint64_t *out)
{
	long d, m, y;
	char tail;

	if (sscanf(s, "%ld/%ld/%ld%c", &d, &m, &y, &tail) != 3)
		return -1;
	return day_time(d, m - 1, y, out);
}

/* Time limits (doc/CGI.md, "Parameters"): dt=back&dp=4h30M, dt=er&dx=1|-1&dd&dm&dy,
 * dt=range&db=dd/mm/yyyy&de=dd/mm/yyyy.  A bad value is ignored. */
static void time_limits(const struct page *pg, struct proto_search *s)
{
	const char *dt = param(pg, "dt");
	uint64_t t;
	long secs;

	if (!strcmp(dt, "back")) {
		if (!conf_parse_time(param(pg, "dp"), &secs) && secs > 0 &&
		    secs < (long)time(NULL))
			s->time_from = (uint64_t)(time(NULL) - secs);
	} else if (!strcmp(dt, "er")) {
		if (!day_time(param_long(pg, "dd", 0, 0, 31), param_long(pg, "dm", -1, -1, 11),
			      param_long(pg, "dy", 0, 0, 9999), &t)) {
			if (param_long(pg, "dx", 1, -1, 1) < 0)
				s->time_to = t;
			else
				s->time_from = t;
		}
	} else if (!strcmp(dt, "range")) {
		if (!parse_date(param(pg, "db"), &t))
			s->time_from = t;
		if (!parse_date(param(pg, "de"), &t))
			s->time_to = t + 86399;
	}
}

/* Append each blank-separated word of v to q as prefix+word (a phrase
 * when `phrase`). */
static void add_words(struct buf *q, const char *v, const char *prefix, bool phrase)
{
	const char *s = v, *e;

	if (phrase) {
		while (*s == ' ')
			s++;
		if (!*s)
			return;
		buf_printf(q, " %s\"", prefix);
		for (; *s; s++)
			if (*s != '"')
				buf_addc(q, *s);
		buf_addc(q, '"');
		return;
	}
	for (;;) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		e = s;
		while (*e && *e != ' ')
			e++;
		buf_printf(q, " %s%.*s", prefix, (int)(e - s), s);
		s = e;
	}
}

/* Sort entries by score descending, then daemon, then url_id (stable
 * across runs). */
static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->hit->score != y->hit->score)
		return x->hit->score > y->hit->score ? -1 : 1;
	if (x->daemon != y->daemon)
		return x->daemon < y->daemon ? -1 : 1;
	return x->hit->url_id < y->hit->url_id ? -1 : x->hit->url_id > y->hit->url_id;
}

static void add_entries(struct entry **v, size_t *n, size_t *alloc,
			const struct proto_results *res, unsigned daemon)
{
	uint32_t i;

	for (i = 0; i < res->n_hits; i++) {
		const struct proto_hit *h = &res->hits[i];
		if (h->second && *n && (*v)[*n - 1].daemon == daemon && !(*v)[*n - 1].second) {
			(*v)[*n - 1].second = h;
			continue;
		}
		if (*n == *alloc) {
			*alloc = *alloc ? 2 * *alloc : 64;
			*v = xrealloc(*v, *alloc * sizeof(**v));
		}
		(*v)[*n].hit = h;
		(*v)[*n].second = NULL;
		(*v)[*n].daemon = daemon;
		(*n)++;
	}
}

/* One exchange with searchd on a connection: 0, or -1 (err). */
typedef int (*ask_fn)(int fd, int ms, void *arg, struct buf *err);

/* ask() on the connection to addr that the process keeps; a kept
 * connection that fails (searchd closed it while it was idle, or
 * restarted) is replaced by a new one once, within the same deadline, after
 * undo() has dropped what the failed exchange left.  Returns 0, or -1 (err)
 * with the connection closed. */
static int ask_retry(struct page *pg, const char *addr, double deadline, ask_fn ask,
		     void (*undo)(void *arg), void *arg, struct buf *err)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		int left = (int)((deadline - now_monotonic()) * 1000.0);
		bool reused = false;
		int fd;

		buf_reset(err);
		fd = state_connect(pg->st, addr, left < 1 ? 1 : left, &reused, err);
		if (fd < 0)
			return -1;
		left = (int)((deadline - now_monotonic()) * 1000.0);
		if (!ask(fd, left < 1 ? 1 : left, arg, err))
			return 0;
		state_disconnect(pg->st, addr);
		if (!reused || now_monotonic() >= deadline)
			return -1;
		undo(arg);
	}
	return -1;
}

struct ask_search {
	const struct proto_search *req;
	struct proto_results *r;
};

static int do_search(int fd, int ms, void *arg, struct buf *err)
{
	struct ask_search *a = arg;

	return proto_search(fd, a->req, ms, a->r, err);
}

static void undo_search(void *arg)
{
	proto_results_free(((struct ask_search *)arg)->r);
}

/* One search, as ask_retry() says. */
static int ask_one(struct page *pg, const char *addr, double deadline,
		   const struct proto_search *req, struct proto_results *r, struct buf *err)
{
	struct ask_search a = { req, r };

	return ask_retry(pg, addr, deadline, do_search, undo_search, &a, err);
}

/* Ask every daemon; with several, each is asked pages 0..np and the entries
 * merged (ASPseek's multi-daemon search).  Returns the number of daemons
 * that answered. */
static size_t ask_daemons(struct page *pg, struct proto_search *req)
{
	const struct conf *c = pg->conf;
	size_t nd = c->n_daemon_addresses, d;
	double deadline = pg->started + c->search_timeout / 1000.0;
	struct entry *all = NULL;
	size_t n_all = 0, alloc = 0, answered = 0, skip;
	uint32_t pages = nd > 1 ? (uint32_t)pg->np + 1 : 1;
	struct buf err = BUF_INIT(4096);

	pg->res = xcalloc(nd * pages, sizeof(*pg->res));
	pg->first = xcalloc(nd, sizeof(*pg->first));
	for (d = 0; d < nd; d++) {
		const char *addr = c->daemon_addresses[d];
		uint32_t pgno;
		bool ok = false;

		for (pgno = 0; pgno < pages; pgno++) {
			struct proto_results *r = &pg->res[pg->n_res];
			req->page = nd > 1 ? pgno : (uint32_t)pg->np;
			if (ask_one(pg, addr, deadline, req, r, &err)) {
				ok = false;
				break;
			}
			pg->n_res++;
			ok = true;
			if (pgno == 0) {
				/* totals and word statistics: from each daemon's first answer */
				pg->first[pg->n_first++] = pg->n_res - 1;
				pg->total_results += r->total_results;
				pg->total_urls += r->total_urls;
				pg->total_sites += r->total_sites;
				pg->estimated |= r->estimated != 0;
			}
			if (r->seconds > pg->seconds)
				pg->seconds = r->seconds;
			if (r->error[0] || r->n_hits == 0)
				break;
			add_entries(&all, &n_all, &alloc, r, (unsigned)d);
		}
		if (ok) {
			answered++;
		} else {
			buf_printf(&pg->errors, "%s: %s\n", addr, buf_str(&err));
			warning("searchd %s: %s", addr, buf_str(&err));
		}
	}
	buf_free(&err);

	if (nd > 1) {
		qsort(all, n_all, sizeof(*all), entry_cmp);
		skip = (size_t)pg->np * (size_t)pg->ps;
		if (skip > n_all)
			skip = n_all;
		pg->n_ent = n_all - skip < (size_t)pg->ps ? n_all - skip : (size_t)pg->ps;
		pg->ent = xcalloc(pg->n_ent + 1, sizeof(*pg->ent));
		memcpy(pg->ent, all + skip, pg->n_ent * sizeof(*all));
		free(all);
	} else {
		pg->ent = all;
		pg->n_ent = n_all;
	}
	return answered;
}

/* Forget the answers of ask_daemons(), to ask again. */
static void free_answers(struct page *pg)
{
	size_t i;

	for (i = 0; i < pg->n_res; i++)
		proto_results_free(&pg->res[i]);
	free(pg->res);
	free(pg->first);
	free(pg->ent);
	pg->res = NULL;
	pg->first = NULL;
	pg->ent = NULL;
	pg->n_res = pg->n_first = pg->n_ent = 0;
	pg->total_results = pg->total_urls = pg->total_sites = 0;
	pg->estimated = false;
	pg->seconds = 0;
	buf_reset(&pg->errors);
}

/* ---- JSON ----------------------------------------------------------------- */


/* The answer in doc/CGI.md's JSON shape (cgi_json.c): the entries shown,
 * the word statistics summed over the daemons. */
static void json_results(struct page *pg, struct buf *b, const char *token, const char *msg)
{
	struct cgi_json_answer a;
	struct cgi_json_word *words = NULL;
	const struct proto_hit **hits = xcalloc(2 * pg->n_ent + 1, sizeof(*hits));
	char *cached = xasprintf("%s?ch=", pg->action);
	size_t i;

	memset(&a, 0, sizeof(a));
	a.query = buf_str(&pg->q);
	a.page = pg->np;
	a.page_size = pg->ps;
	a.total_results = pg->total_results;
	a.total_urls = pg->total_urls;
	a.total_sites = pg->total_sites;
	a.estimated = pg->estimated;
	a.seconds = pg->seconds;
	a.elapsed = now_monotonic() - pg->started;
	if (pg->n_first) {
		const struct proto_results *r0 = &pg->res[pg->first[0]];
		a.generation = r0->generation;
		a.note = r0->error[0] ? NULL : r0->message;
		words = xcalloc(r0->n_words + 1, sizeof(*words));
		for (i = 0; i < r0->n_words; i++) {
			words[i].word = r0->words[i].word;
			words[i].stopword = r0->words[i].stopword;
			word_sum(pg, (uint32_t)i, &words[i].urls, &words[i].total);
		}
		a.words = words;
		a.n_words = r0->n_words;
	}
	for (i = 0; i < pg->n_ent; i++) {
		hits[a.n_hits++] = pg->ent[i].hit;
		if (pg->ent[i].second)
			hits[a.n_hits++] = pg->ent[i].second;
	}
	a.hits = hits;
	a.cached_prefix = cached;
	a.error_token = token;
	a.error_message = msg;
	a.daemon_errors = buf_str(&pg->errors);
	cgi_json_results(b, &a);
	free(words);
	free(hits);
	free(cached);
}

/* ---- the cached copy ------------------------------------------------------ */

static const char *const secs_error[] = { "top", "error", "bottom", NULL };

/* ask_one() for a cached copy. */
struct ask_cached {
	const struct proto_cached_req *req;
	struct proto_cached *got;
};

static int do_cached(int fd, int ms, void *arg, struct buf *err)
{
	struct ask_cached *a = arg;

	return proto_cached(fd, a->req, ms, a->got, err);
}

static void undo_cached(void *arg)
{
	proto_cached_free(((struct ask_cached *)arg)->got);
}

static int ask_cached_one(struct page *pg, const char *addr, double deadline,
			  const struct proto_cached_req *req, struct proto_cached *got,
			  struct buf *err)
{
	struct ask_cached a = { req, got };

	return ask_retry(pg, addr, deadline, do_cached, undo_cached, &a, err);
}

static void cached_page(struct page *pg, bool json, bool head, const char *url)
{
	const struct conf *c = pg->conf;
	struct proto_cached_req req = { 0 };
	struct proto_cached *got = xcalloc(1, sizeof(*got));
	struct buf err = BUF_INIT(4096), out = BUF_INIT(PAGE_MAX);
	double deadline = pg->started + c->search_timeout / 1000.0;
	size_t d;
	int status = 0;
	bool down = true;

	req.url = (char *)url;
	req.q = (char *)buf_str(&pg->q);
	if (strlen(url) > MAX_URL_LEN) {
		/* no index holds it: a bad request, not a searchd failure */
		status = 400;
		pg->error = er_text(c, "ER_LONGURL", "The address of the page is too long.");
		if (json)
			json_error(pg, status, head, "ER_LONGURL", pg->error);
		else if (render(pg, &out, secs_error))
			plain_page(pg, 500, head, "Page too large", "The page hit its size cap.");
		else
			respond(pg, status, "text/html; charset=UTF-8", &out, head, NULL);
		goto out;
	}
	/* the first daemon that has the page */
	for (d = 0; d < c->n_daemon_addresses && status == 0; d++) {
		if (ask_cached_one(pg, c->daemon_addresses[d], deadline, &req, got, &err)) {
			warning("searchd %s: %s", c->daemon_addresses[d], buf_str(&err));
		} else {
			down = false;
			if (!got->error[0])
				status = 200;
			else
				proto_cached_free(got);
		}
	}
	if (status == 0) {
		const char *msg = down ? er_text(c, "ER_NOSEARCHD",
						  "The search service is not available, please "
						  "try again later.")
				       : "This page is not in the index.";
		status = down ? 503 : 404;
		pg->error = msg;
		if (json) {
			json_error(pg, status, head, down ? "ER_NOSEARCHD" : "ER_NOTFOUND", msg);
		} else {
			if (render(pg, &out, secs_error))
				plain_page(pg, 500, head, "Page too large", "The page hit its size cap.");
			else
				respond(pg, status, "text/html; charset=UTF-8", &out, head, NULL);
		}
		goto out;
	}
	pg->cached = got;
	if (json) {
		cgi_json_cached(&out, got);
		respond(pg, 200, "application/json; charset=UTF-8", &out, head, NULL);
	} else {
		static const char *const secs[] = { "top", "cachetop", "bottom", NULL };
		if (render(pg, &out, secs))
			plain_page(pg, 500, head, "Page too large", "The page hit its size cap.");
		else
			respond(pg, 200, "text/html; charset=UTF-8", &out, head, NULL);
	}
out:
	pg->cached = NULL;
	proto_cached_free(got);
	free(got);
	buf_free(&err);
	buf_free(&out);
}

/* ---- the search ----------------------------------------------------------- */

static const char *const s_noquery[] = { "top", "noquery", "bottom", NULL };
static const char *const s_results[] = { "top", "*results", "bottom", NULL };
static const char *const s_notfound[] = { "top", "notfound", "bottom", NULL };
static const char *const s_qerror[] = { "top", "queryerror", "bottom", NULL };
static const char *const s_error[] = { "top", "error", "bottom", NULL };

/* The request to searchd from the page's parameters and the environment.
 * Its strings are borrowed from pg and the environment; spaces has room
 * for PROTO_MAX_SPACES. */
static void build_request(const struct page *pg, struct proto_search *req, uint32_t *spaces)
{
	static char empty[1];
	static const char *const sec[] = { "bd", "ds", "kw", "tl" };
	const struct conf *c = pg->conf;

	req->q = (char *)buf_str(&pg->q);
	req->page_size = (uint32_t)pg->ps;
	req->sort = pg->by_date ? PROTO_SORT_DATE : PROTO_SORT_RATE;
	req->group = pg->group;
	req->site_id = (uint32_t)param_long(pg, "st", 0, 0, UINT32_MAX);
	req->ul = (char *)param(pg, "ul");
	if (strlen(req->ul) > 4096)
		req->ul = empty;
	time_limits(pg, req);
	/* section limits bd ds kw tl (body, description, keywords, title) */
	for (size_t i = 0; i < ARRAY_SIZE(sec); i++)
		if (!strcmp(param(pg, sec[i]), "on"))
			req->sections |= (uint8_t)(1u << i);
	/* web spaces, OR-ed */
	for (size_t i = 0; i < pg->p->n && req->n_spaces < PROTO_MAX_SPACES; i++)
		if (!strcmp(pg->p->v[i].value, "on") &&
		    space_param(pg->p->v[i].name, &spaces[req->n_spaces]))
			req->n_spaces++;
	req->spaces = spaces;
	req->max_excerpts = (uint32_t)(c->max_excerpts < PROTO_MAX_EXCERPTS ? c->max_excerpts
									   : PROTO_MAX_EXCERPTS);
	req->excerpt_len = (uint32_t)(c->max_excerpt_len < PROTO_MAX_EXCERPT_LEN
					      ? c->max_excerpt_len : PROTO_MAX_EXCERPT_LEN);
	req->client = (char *)(req_env(pg, "REMOTE_ADDR") ? req_env(pg, "REMOTE_ADDR") : "");
	req->referer = (char *)(req_env(pg, "HTTP_REFERER") ? req_env(pg, "HTTP_REFERER") : "");
	if (strlen(req->client) > 255 || !utf8_valid(req->client, strlen(req->client)))
		req->client = empty;
	if (strlen(req->referer) > 2048 || !utf8_valid(req->referer, strlen(req->referer)))
		req->referer = empty;
}

/* Ask every daemon; when one site matches across all of them, grouping
 * would show one entry, so ask again for its pages (ASPseek does the
 * same).  Returns the number of daemons that answered. */
static size_t ask_all(struct page *pg, struct proto_search *req)
{
	size_t answered = ask_daemons(pg, req);

	if (answered && pg->group && pg->total_sites == 1 && !pg->errors.len) {
		free_answers(pg);
		pg->group = false;
		req->group = 0;
		answered = ask_daemons(pg, req);
	}
	return answered;
}

static void empty_query_page(struct page *pg, bool json, bool head, struct buf *out)
{
	if (json) {
		json_error(pg, 200, head, "ER_EMPTYQUERY",
			   er_text(pg->conf, "ER_EMPTYQUERY", "Please type a query."));
	} else if (render(pg, out, s_noquery)) {
		plain_page(pg, 500, head, "Page too large", "The page hit its size cap.");
	} else {
		respond(pg, 200, "text/html; charset=UTF-8", out, head, NULL);
	}
}

/* No daemon answered: 503. */
static void unavailable_page(struct page *pg, bool json, bool head, struct buf *out)
{
	const char *token = "ER_NOSEARCHD";
	const char *msg = er_text(pg->conf, token,
				  "The search service is not available, please try again later.");

	pg->error = msg;
	if (json) {
		json_error(pg, 503, head, token, msg);
	} else if (render(pg, out, s_error)) {
		plain_page(pg, 503, head, "Search is not available", msg);
	} else {
		respond(pg, 503, "text/html; charset=UTF-8", out, head, NULL);
	}
}

/* t=: take me there, to the first hit (a 302), when its URL is a clean
 * http(s) URL.  Returns true when it answered. */
static bool take_me_there(const struct page *pg, bool head, struct buf *out)
{
	const char *u = pg->ent[0].hit->url;
	bool clean = !ascii_ncasecmp(u, "http://", 7) || !ascii_ncasecmp(u, "https://", 8);
	char *loc;

	for (size_t i = 0; u[i] && clean; i++)
		if ((unsigned char)u[i] <= 0x20 || u[i] == 0x7f)
			clean = false;
	if (!clean)
		return false;
	loc = xasprintf("Location: %s\r\n", u);
	buf_adds(out, "<!DOCTYPE html><title>Found</title><a href=\"");
	tpl_escape_html(out, u, strlen(u));
	buf_adds(out, "\">Continue</a>\n");
	respond(pg, 302, "text/html; charset=UTF-8", out, head, loc);
	free(loc);
	return true;
}

/* A query a daemon refused (or one too long to send): its error token and
 * text, in the page (the queryerror section, else error) or the JSON. */
static void query_error_page(struct page *pg, bool json, bool head, struct buf *out,
			     const char *token, const char *msg)
{
	pg->error = msg;
	if (json) {
		json_results(pg, out, token, msg);
		respond(pg, 200, "application/json; charset=UTF-8", out, head, NULL);
	} else if (render(pg, out, tpl_has(pg->t, "queryerror") ? s_qerror : s_error)) {
		plain_page(pg, 500, head, "Page too large", "The page hit its size cap.");
	} else {
		respond(pg, 200, "text/html; charset=UTF-8", out, head, NULL);
	}
}

static void results_page(struct page *pg, bool json, bool head, struct buf *out)
{
	if (json) {
		json_results(pg, out, NULL, NULL);
		respond(pg, 200, "application/json; charset=UTF-8", out, head, NULL);
	} else if (render(pg, out, pg->n_ent ? s_results : s_notfound)) {
		plain_page(pg, 500, head, "Page too large", "The page hit its size cap.");
	} else {
		respond(pg, 200, "text/html; charset=UTF-8", out, head, NULL);
	}
}

static void search_page(struct page *pg, bool json, bool head)
{
	const struct conf *c = pg->conf;
	struct proto_search req;
	uint32_t *spaces = NULL;
	struct buf out = BUF_INIT(PAGE_MAX);

	memset(&req, 0, sizeof(req));
	if (!buf_str(&pg->q)[strspn(buf_str(&pg->q), " ")]) {
		empty_query_page(pg, json, head, &out);
		goto out;
	}
	if (pg->q.len > PROTO_MAX_QUERY) {
		query_error_page(pg, json, head, &out, "ER_TOOLONG",
				 er_text(c, "ER_TOOLONG", "The query is too long."));
		goto out;
	}
	spaces = xcalloc(PROTO_MAX_SPACES, sizeof(*spaces));
	build_request(pg, &req, spaces);
	if (ask_all(pg, &req) == 0) {
		unavailable_page(pg, json, head, &out);
		goto out;
	}
	for (size_t i = 0; i < pg->n_res; i++) {
		if (pg->res[i].error[0]) {
			query_error_page(pg, json, head, &out, pg->res[i].error,
					 er_text(c, pg->res[i].error, pg->res[i].message));
			goto out;
		}
	}
	if (cgi_get(pg->p, "t") && pg->n_ent && !json && take_me_there(pg, head, &out))
		goto out;
	results_page(pg, json, head, &out);
out:
	free(spaces);
	buf_free(&out);
}

/* The template of the request (tmpl=, else the default), or an error page:
 * 400 for a bad or missing tmpl= (the path goes to the log only), 500 for
 * a broken template.  Returns 0 with pg->conf and pg->t set, or -1. */
static int page_template(struct page *pg, bool json, bool head)
{
	const char *v = cgi_get(pg->p, "tmpl");
	struct buf err = BUF_INIT(4096);
	char *path = template_path(pg, v, state_default_template(pg->st));
	int rc = -1, got;

	if (!path) {
		plain_page(pg, 400, head, "No such template",
			   "tmpl= names a template of the template directory: letters, digits, "
			   "'_' and '-' only.");
		goto out;
	}
	pg->tmpl = v && *v ? v : NULL;
	got = state_template(pg->st, path, &pg->conf, &pg->t, &err);
	if (got == -2) {
		/* the page names no path: the log does */
		int status = pg->tmpl ? 400 : 500;
		const char *msg = pg->tmpl ? "tmpl= names no template of the template directory."
					   : "The search template is missing; the server's log names it.";
		warning("template: %s", buf_str(&err));
		if (json)
			json_error(pg, status, head, "ER_TEMPLATE", msg);
		else
			plain_page(pg, status, head, "No such template", msg);
		goto out;
	}
	if (got) {
		warning("template: %s", buf_str(&err));
		if (json)
			json_error(pg, 500, head, "ER_TEMPLATE", buf_str(&err));
		else
			plain_page(pg, 500, head, "Template error", buf_str(&err));
		goto out;
	}
	if (pg->conf->n_daemon_addresses == 0) {
		plain_page(pg, 500, head, "Template error", "the template names no DaemonAddress");
		goto out;
	}
	rc = 0;
out:
	free(path);
	buf_free(&err);
	return rc;
}

void cgi_serve(struct cgi_state *st, const struct cgi_io *io)
{
	struct cgi_request rq;
	struct page pg;
	const struct conf *conf;
	const char *v;
	bool json;

	memset(&pg, 0, sizeof(pg));
	pg.st = st;
	pg.io = io;
	pg.started = now_monotonic();
	buf_init(&pg.q, 4 * CGI_MAX_VALUE);
	buf_init(&pg.errors, 1 << 16);
	cgi_read_request_io(&rq, io, BODY_TIMEOUT_MS);
	pg.p = &rq.params;
	json = !strcmp(param(&pg, "fmt"), "json");
	if (rq.status) {
		if (json)
			json_error(&pg, rq.status, rq.head, "ER_REQUEST", rq.why);
		else
			plain_page(&pg, rq.status, rq.head, "Bad request", rq.why);
		goto out;
	}
	if (page_template(&pg, json, rq.head))
		goto out;
	conf = pg.conf;
	v = req_env(&pg, "SCRIPT_NAME");
	pg.action = v && *v && strlen(v) < 1024 ? v : "s.cgi";

	/* the request */
	pg.q_typed = param(&pg, "q");
	buf_adds(&pg.q, pg.q_typed);
	add_words(&pg.q, param(&pg, "iq"), "", !strcmp(param(&pg, "im"), "p"));
	add_words(&pg.q, param(&pg, "xq"), "-", !strcmp(param(&pg, "xm"), "p"));
	add_words(&pg.q, param(&pg, "is"), "site:", false);
	add_words(&pg.q, param(&pg, "xs"), "-site:", false);
	pg.ps = param_long(&pg, "ps", conf->results_per_page, 1, PROTO_MAX_PAGE_SIZE);
	pg.np = param_long(&pg, "np", 0, 0,
			   conf->n_daemon_addresses > 1 ? MULTI_MAX_PAGE : PROTO_MAX_PAGE);
	pg.o = param_long(&pg, "o", 0, 0, TPL_MAX_VARIANTS - 1);
	pg.by_date = !strcmp(param(&pg, "s"), "date");
	pg.group = strcmp(param(&pg, "gr"), "off") != 0;

	v = cgi_get(pg.p, "ch");
	if (v && *v)
		cached_page(&pg, json, rq.head, v);
	else
		search_page(&pg, json, rq.head);

out:
	free_answers(&pg);
	buf_free(&pg.q);
	buf_free(&pg.errors);
	cgi_request_free(&rq);
}
