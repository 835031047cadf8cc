/* cgi.c - the CGI parameters of s.cgi: the form-urlencoded parser and the
 * reading of the request (QUERY_STRING, a POST body on stdin).  Pure: no
 * searchd, no template; the page is cgi_page.c's.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cgi.h"
#include "charset.h"
#include "util.h"

/* Decode one form-urlencoded component into out (at least len bytes):
 * '+' is a space, %XX a byte, a '%' not followed by two hex digits stays as
 * it is (WHATWG percent-decode).  Returns the decoded length. */
static size_t form_decode(const char *s, size_t len, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '+') {
			out[n++] = ' ';
		} else if (c == '%' && i + 2 < len && hex_value((unsigned char)s[i + 1]) >= 0 &&
			   hex_value((unsigned char)s[i + 2]) >= 0) {
			out[n++] = (char)(hex_value((unsigned char)s[i + 1]) * 16 +
					  hex_value((unsigned char)s[i + 2]));
			i += 2;
		} else {
			out[n++] = (char)c;
		}
	}
	return n;
}

static bool good_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > CGI_MAX_NAME)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

/* The decoded value made clean: C0 controls and DEL as spaces, invalid
 * UTF-8 as U+FFFD, C1 controls (U+0080..U+009F) as spaces, cut at
 * CGI_MAX_VALUE on a character boundary.  Returns malloc'd, *len set. */
static char *clean_value(char *raw, size_t rawlen, size_t *len, unsigned *flags)
{
	struct buf b = BUF_INIT(3 * rawlen + 4);
	size_t i, n, replaced = 0;
	char *s;

	for (i = 0; i < rawlen; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c < 0x20 || c == 0x7f) {
			raw[i] = ' ';
			replaced++;
		}
	}
	utf8_sanitize(raw, rawlen, &b, &replaced);
	s = buf_detach(&b, &n);
	if (!s) {
		s = xstrdup("");
		n = 0;
	}
	for (i = 0; i + 1 < n; i++) {
		if ((unsigned char)s[i] == 0xc2 && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			/* two bytes become one space */
			s[i] = ' ';
			memmove(s + i + 1, s + i + 2, n - i - 2);
			n--;
			s[n] = '\0';
			replaced++;
		}
	}
	if (replaced)
		*flags |= CGI_F_REPAIRED;
	if (n > CGI_MAX_VALUE) {
		n = utf8_cut(s, n, CGI_MAX_VALUE);
		s[n] = '\0';
		*flags |= CGI_F_CUT;
	}
	*len = n;
	return s;
}

static void add_pair(struct cgi_params *p, const char *s, size_t len, char *tmp)
{
	const char *eq = memchr(s, '=', len);
	size_t nlen = eq ? (size_t)(eq - s) : len;
	size_t dn, vlen;
	struct cgi_param *np;

	if (len == 0)
		return; /* "a=1&&b=2": an empty pair is nothing */
	if (p->n >= CGI_MAX_PARAMS) {
		p->flags |= CGI_F_TOO_MANY;
		return;
	}
	dn = form_decode(s, nlen, tmp);
	if (!good_name(tmp, dn)) {
		p->flags |= CGI_F_BAD_NAME;
		return;
	}
	np = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v = np;
	np = &p->v[p->n++];
	np->name = xstrndup(tmp, dn);
	if (eq) {
		dn = form_decode(eq + 1, len - nlen - 1, tmp);
		np->value = clean_value(tmp, dn, &vlen, &p->flags);
	} else {
		np->value = xstrdup("");
		vlen = 0;
	}
	np->len = vlen;
}

void cgi_parse(const char *s, size_t len, struct cgi_params *p)
{
	size_t start = 0, i;
	char *tmp;

	if (len > CGI_MAX_INPUT) {
		len = CGI_MAX_INPUT;
		p->flags |= CGI_F_CUT;
	}
	tmp = xmalloc(len + 1);
	for (i = 0; i <= len; i++) {
		if (i == len || s[i] == '&') {
			add_pair(p, s + start, i - start, tmp);
			start = i + 1;
		}
	}
	free(tmp);
}

void cgi_params_free(struct cgi_params *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].value);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

const char *cgi_get(const struct cgi_params *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].name, name))
			return p->v[i].value;
	return NULL;
}

/* ---- the request ---------------------------------------------------------- */

static void refuse(struct cgi_request *r, int status, const char *why)
{
	if (!r->status) {
		r->status = status;
		r->why = why;
	}
}

/* Read exactly want bytes from fd within timeout_ms.  Returns the bytes
 * read (fewer on EOF, a timeout or an error: a closed stdin reads nothing). */
size_t cgi_read_fd(int fd, char *p, size_t want, int timeout_ms)
{
	double deadline = now_monotonic() + timeout_ms / 1000.0;
	size_t got = 0;

	while (got < want) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int left = (int)((deadline - now_monotonic()) * 1000.0);
		ssize_t n;

		if (left <= 0)
			break;
		n = poll(&pfd, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (pfd.revents & POLLNVAL))
			break;
		n = read(fd, p + got, want - got);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/* cgi_read_request()'s io: a getenv-like lookup and a file descriptor. */
struct plain_io {
	const char *(*get)(const char *name);
	int fd;
};

static const char *plain_get(void *ctx, const char *name)
{
	return ((struct plain_io *)ctx)->get(name);
}

static size_t plain_read(void *ctx, char *p, size_t want, int timeout_ms)
{
	return cgi_read_fd(((struct plain_io *)ctx)->fd, p, want, timeout_ms);
}

void cgi_read_request(struct cgi_request *r, const char *(*get)(const char *name), int fd,
		      int timeout_ms)
{
	struct plain_io pi = { get, fd };
	struct cgi_io io = { plain_get, plain_read, NULL, &pi };

	cgi_read_request_io(r, &io, timeout_ms);
}

void cgi_read_request_io(struct cgi_request *r, const struct cgi_io *io, int timeout_ms)
{
	const char *method = io->get(io->ctx, "REQUEST_METHOD");
	const char *qs = io->get(io->ctx, "QUERY_STRING");
	const char *ctype, *clen;
	long want;
	char *body;
	size_t got;

	memset(r, 0, sizeof(*r));
	if (!method || !*method)
		method = "GET"; /* run by hand */
	if (qs) {
		size_t n = strlen(qs);
		if (n > CGI_MAX_INPUT)
			refuse(r, 414, "The address of the request is too long.");
		cgi_parse(qs, n, &r->params);
	}
	if (!strcmp(method, "GET"))
		goto out;
	if (!strcmp(method, "HEAD")) {
		r->head = true;
		goto out;
	}
	if (strcmp(method, "POST")) {
		refuse(r, 405, "Only GET, HEAD and POST are supported.");
		return;
	}
	ctype = io->get(io->ctx, "CONTENT_TYPE");
	if (ctype && *ctype &&
	    ascii_ncasecmp(ctype, "application/x-www-form-urlencoded", 33) != 0) {
		refuse(r, 415, "The form must be sent as application/x-www-form-urlencoded.");
		return;
	}
	clen = io->get(io->ctx, "CONTENT_LENGTH");
	if (!clen || !*clen) {
		want = 0;
	} else if (parse_long(clen, 0, 1L << 40, &want)) {
		refuse(r, 400, "The request has a bad Content-Length.");
		return;
	}
	if (want > CGI_MAX_INPUT) {
		refuse(r, 413, "The request is too large.");
		return;
	}
	if (want > 0) {
		body = xmalloc((size_t)want + 1);
		got = io->read(io->ctx, body, (size_t)want, timeout_ms);
		if (got < (size_t)want)
			refuse(r, 400, "The request body is shorter than its Content-Length.");
		else
			cgi_parse(body, got, &r->params);
		free(body);
	}
out:
	/* silently dropping pairs could drop the query itself */
	if (r->params.flags & CGI_F_TOO_MANY)
		refuse(r, 400, "The request has too many parameters.");
}

void cgi_request_free(struct cgi_request *r)
{
	if (!r)
		return;
	cgi_params_free(&r->params);
}
