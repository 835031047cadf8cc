/* cgi.h - s.cgi: the CGI parameters (a pure parser, src/web/cgi.c) and the
 * request handler (src/web/cgi_page.c: ask searchd, render s.htm or JSON).
 *
 * The parser takes application/x-www-form-urlencoded bytes (a QUERY_STRING
 * or a POST body; WHATWG URL §5.1) and never fails on input: a pair without
 * '=' has an empty value, '+' is a space, a bad %-escape stays literal, a
 * value is made valid UTF-8 (U+FFFD) with control characters as spaces, a
 * name that is not [A-Za-z0-9_.-] is dropped, and the caps below cut what is
 * too long or too many (flags say so).  Parameters: doc/CGI.md, s.cgi(1).
 */
#ifndef MPSEEK_CGI_H
#define MPSEEK_CGI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct proto_hit;

#define CGI_MAX_INPUT (64 * 1024)  /* bytes of a QUERY_STRING or of a POST body */
#define CGI_MAX_PARAMS 64          /* pairs kept; more are dropped */
#define CGI_MAX_NAME 32            /* bytes of a parameter name */
#define CGI_MAX_VALUE 4096         /* bytes of a decoded value (cut on a UTF-8 boundary) */

enum {
	CGI_F_TOO_MANY = 1,     /* pairs past CGI_MAX_PARAMS were dropped */
	CGI_F_BAD_NAME = 2,     /* a pair with an empty, long or odd name was dropped */
	CGI_F_CUT = 4,          /* a value was cut at CGI_MAX_VALUE */
	CGI_F_REPAIRED = 8,     /* invalid UTF-8 or control characters were replaced */
};

struct cgi_param {
	char *name;             /* NUL-terminated, [A-Za-z0-9_.-] */
	char *value;            /* NUL-terminated valid UTF-8 without controls */
	size_t len;             /* bytes of value */
};

struct cgi_params {
	struct cgi_param *v;    /* in input order; a name may repeat */
	size_t n;
	unsigned flags;         /* CGI_F_* of every parse into this set */
};

/* Append the pairs of s[0..len) (any bytes; at most CGI_MAX_INPUT are read,
 * the rest sets CGI_F_CUT) to p.  Always succeeds; p starts zeroed and is
 * freed with cgi_params_free(). */
void cgi_parse(const char *s, size_t len, struct cgi_params *p);
void cgi_params_free(struct cgi_params *p); /* accepts a zeroed struct */
/* The value of the first parameter called name, or NULL.  Borrowed from p. */
const char *cgi_get(const struct cgi_params *p, const char *name);

/* ---- the request -------------------------------------------------------
 * What cgi_read_request() found wrong, as an HTTP status (0 = fine). */
struct cgi_request {
	struct cgi_params params;
	bool head;              /* REQUEST_METHOD HEAD: headers only */
	int status;             /* 0, or 400 / 405 / 413 / 414 / 415 with `why` */
	const char *why;        /* static text for people */
};

/* One request's environment and streams: the process's own (plain CGI:
 * getenv, stdin, stdout) or one FastCGI request's (cgi_fcgi.c).  get
 * returns NULL for an unset name (borrowed until the request ends); read
 * returns the body bytes read within timeout_ms (fewer on EOF, a timeout
 * or an error); write sends all of p or drops it (a gone client). */
struct cgi_io {
	const char *(*get)(void *ctx, const char *name);
	size_t (*read)(void *ctx, char *p, size_t want, int timeout_ms);
	void (*write)(void *ctx, const void *p, size_t n);
	void *ctx;
};

/* Read exactly want bytes from fd within timeout_ms.  Returns the bytes
 * read (fewer on EOF, a timeout or an error: a closed stdin reads nothing). */
size_t cgi_read_fd(int fd, char *p, size_t want, int timeout_ms);

/* Read the parameters of the request: QUERY_STRING always, and for POST
 * the body (CONTENT_LENGTH bytes, at most CGI_MAX_INPUT, within
 * timeout_ms; a short body, a bad length, a content type other than
 * application/x-www-form-urlencoded or more than CGI_MAX_PARAMS pairs sets
 * status).  Free with cgi_request_free(). */
void cgi_read_request_io(struct cgi_request *r, const struct cgi_io *io, int timeout_ms);
/* The same for a plain CGI request: get is the environment lookup (getenv
 * itself, or a test's), the body is read from fd. */
void cgi_read_request(struct cgi_request *r, const char *(*get)(const char *name), int fd,
		      int timeout_ms);
void cgi_request_free(struct cgi_request *r);

/* ---- the JSON answer (doc/CGI.md, "JSON") -------------------------------
 * One shape for s.cgi fmt=json and mpseek-search --json. */
struct cgi_json_word {
	const char *word;
	uint64_t urls, total;   /* summed over the searchds asked */
	bool stopword;
};

struct cgi_json_answer {
	const char *query;
	long page, page_size;           /* page 0-based */
	uint64_t total_results, total_urls, total_sites;
	bool estimated;            /* the counts are estimates (searchd's ExactCounts no) */
	double seconds;                 /* searchd's time (the slowest one's) */
	double elapsed;                 /* the client's, request to answer */
	uint64_t generation;            /* of the (first) searchd's answer */
	const struct cgi_json_word *words;
	size_t n_words;
	const struct proto_hit *const *hits; /* in rank order, a site's second after its first */
	size_t n_hits;
	const char *cached_prefix;      /* "ACTION?ch=", or NULL: "cached": null */
	const char *note;               /* searchd's note, or NULL */
	const char *error_token;        /* NULL or "": "error": null */
	const char *error_message;
	const char *daemon_errors;      /* "addr: why\n" lines, or NULL */
};

/* Append the answer a as one JSON object and a newline to b. */
void cgi_json_results(struct buf *b, const struct cgi_json_answer *a);
/* A cached copy: {"url", "content_type", "charset", "url_id",
 * "last_index_time", "text", "highlights"} and a newline. */
struct proto_cached;
void cgi_json_cached(struct buf *b, const struct proto_cached *c);
/* {"error": {"token", "message"}} and a newline. */
void cgi_json_error(struct buf *b, const char *token, const char *message);

/* What one s.cgi process keeps between requests (cgi_fcgi.c): the
 * templates it loaded (reloaded when the file changes) and its searchd
 * connections (re-established on error). */
struct cgi_state;
/* default_template: the template when neither MPSEEK_TEMPLATE nor tmpl=
 * names one (borrowed for the state's life).  Free with cgi_state_free(). */
struct cgi_state *cgi_state_new(const char *default_template);
void cgi_state_free(struct cgi_state *st); /* accepts NULL */

/* Answer one request read through io (CGI response: Status and headers,
 * then the body).  The template is MPSEEK_TEMPLATE (the request's, else
 * the process's), else the state's default; tmpl=NAME picks NAME.htm
 * beside it.  Nothing of the request outlives the call but what st keeps. */
void cgi_serve(struct cgi_state *st, const struct cgi_io *io);

/* s.cgi itself: a plain CGI request (one, from the environment and stdin),
 * or a FastCGI responder's loop when stdin is a listening socket (as a
 * FastCGI server starts it) or with --fastcgi SOCKET (s.cgi listens on
 * SOCKET itself); --cgi forces plain CGI.  Returns the process exit code,
 * 0 also after error pages (the web server shows them). */
int cgi_main(int argc, char **argv, const char *default_template);

#endif
