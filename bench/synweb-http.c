/* synweb-http.c - the HTTP side of bench/synweb without I/O: the request
 * parser (RFC 9112), the routes of a host, and the responses with their
 * headers (Date, Last-Modified, If-Modified-Since, Location).  The pages'
 * bodies come from synweb-page.c; sockets are synweb.c's.
 */
#include "config.h"

#include <strings.h>

#include "synweb.h"
#include "banned.h"

/* ---- HTTP dates (RFC 9110 §5.6.7, IMF-fixdate only) ---------------------------- */

static const char wdays[7][4] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* Days since 1970-01-01 of a proleptic Gregorian date, and back (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms"). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static void put_2d(struct out *o, unsigned v)
{
	char c[2] = {(char)('0' + v / 10 % 10), (char)('0' + v % 10)};

	out_mem(o, c, 2);
}

static void put_http_date(struct out *o, int64_t t)
{
	int64_t days = (t >= 0 ? t : t - 86399) / 86400, y;
	unsigned sec = (unsigned)(t - days * 86400), m, d;

	civil_from_days(days, &y, &m, &d);
	out_mem(o, wdays[((days % 7) + 7) % 7], 3);
	out_lit(o, ", ");
	put_2d(o, d);
	out_lit(o, " ");
	out_mem(o, months[m - 1], 3);
	out_lit(o, " ");
	out_u64(o, (uint64_t)y);
	out_lit(o, " ");
	put_2d(o, sec / 3600);
	out_lit(o, ":");
	put_2d(o, sec / 60 % 60);
	out_lit(o, ":");
	put_2d(o, sec % 60);
	out_lit(o, " GMT");
}

static bool digits(const char *p, size_t n, unsigned *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(p[i] - '0');
	}
	return true;
}

/* "Sun, 06 Nov 1994 08:49:37 GMT" -> Unix time, or -1 (the obsolete forms
 * too: RFC 9110 §13.1.3 has an invalid date ignored). */
static int64_t parse_http_date(const char *p, size_t n)
{
	unsigned d, y, hh, mm, ss, m;

	if (n != 29 || p[3] != ',' || p[4] != ' ' || p[7] != ' ' || p[11] != ' ' || p[16] != ' ' ||
	    p[19] != ':' || p[22] != ':' || memcmp(p + 25, " GMT", 4) != 0)
		return -1;
	if (!digits(p + 5, 2, &d) || !digits(p + 12, 4, &y) || !digits(p + 17, 2, &hh) ||
	    !digits(p + 20, 2, &mm) || !digits(p + 23, 2, &ss))
		return -1;
	for (m = 0; m < 12 && memcmp(p + 8, months[m], 3) != 0; m++)
		;
	if (m == 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60)
		return -1;
	return days_from_civil(y, m + 1, d) * 86400 + hh * 3600 + mm * 60 + ss;
}

/* ---- the request parser (pure: no I/O, no allocation; fuzz it as it is) --------- */

static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool name_is(const char *p, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(p, name, n) == 0;
}

/* The tokens of a Connection value: "close" and "keep-alive" matter. */
static void parse_connection(const char *v, size_t n, struct request *rq)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j] != ',')
			j++;
		size_t a = i, b = j;
		while (a < b && (v[a] == ' ' || v[a] == '\t'))
			a++;
		while (b > a && (v[b - 1] == ' ' || v[b - 1] == '\t'))
			b--;
		if (name_is(v + a, b - a, "close"))
			rq->keep_alive = false;
		else if (name_is(v + a, b - a, "keep-alive"))
			rq->keep_alive = true;
		i = j + 1;
	}
}

/* One header field line [p, p+n) without its line end. Returns -1 if malformed. */
static int parse_field(const char *p, size_t n, struct request *rq, bool *host)
{
	size_t colon = 0, a, b;
	unsigned cl;

	while (colon < n && is_tchar((unsigned char)p[colon]))
		colon++;
	if (colon == 0 || colon == n || p[colon] != ':')
		return -1; /* also a space before the colon (RFC 9112 §5.1) */
	for (size_t i = colon + 1; i < n; i++)
		if (((unsigned char)p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)
			return -1;
	for (a = colon + 1; a < n && (p[a] == ' ' || p[a] == '\t'); a++)
		;
	for (b = n; b > a && (p[b - 1] == ' ' || p[b - 1] == '\t'); b--)
		;
	if (name_is(p, colon, "host")) {
		*host = true;
	} else if (name_is(p, colon, "connection")) {
		parse_connection(p + a, b - a, rq);
	} else if (name_is(p, colon, "if-modified-since")) {
		rq->ims = parse_http_date(p + a, b - a);
	} else if (name_is(p, colon, "transfer-encoding")) {
		rq->has_body = true;
	} else if (name_is(p, colon, "content-length")) {
		if (b == a || b - a > 9 || !digits(p + a, b - a, &cl))
			return -1;
		if (cl)
			rq->has_body = true;
	}
	return 0;
}

/* "METHOD SP target SP HTTP/1.x" (RFC 9112 §3). Returns -1 if malformed. */
static int parse_request_line(const char *p, size_t n, struct request *rq, unsigned *minor)
{
	size_t i = 0, t;

	while (i < n && i < 20 && p[i] >= 'A' && p[i] <= 'Z')
		i++;
	if (i == 0 || i == n || p[i] != ' ')
		return -1;
	rq->method = name_is(p, i, "GET") && p[0] == 'G'    ? M_GET
	             : name_is(p, i, "HEAD") && p[0] == 'H' ? M_HEAD
	                                                    : M_OTHER;
	t = ++i;
	while (i < n && (unsigned char)p[i] > 0x20 && p[i] != 0x7f)
		i++;
	if (i == t || i - t > MAX_TARGET || i == n || p[i] != ' ')
		return -1;
	rq->target = p + t;
	rq->target_len = i - t;
	if (p[t] != '/' && p[t] != '*' && !(i - t >= 7 && strncasecmp(p + t, "http://", 7) == 0))
		return -1;
	i++;
	if (n - i != 8 || memcmp(p + i, "HTTP/1.", 7) != 0 || p[i + 7] < '0' || p[i + 7] > '9')
		return -1;
	*minor = (unsigned)(p[i + 7] - '0');
	return 0;
}

/* Parses the request head at the start of buf[0, len): returns its length
 * through the blank line that ends it, 0 when it is not complete yet, -1
 * when it is malformed (then the reply is 400 and the connection closes).
 * Lines end in CRLF or a bare LF (RFC 9112 §2.2); empty lines before the
 * request line are skipped. */
long parse_request(const char *buf, size_t len, struct request *rq)
{
	size_t pos = 0, end;
	unsigned minor = 0, line_no = 0;
	bool host = false;

	*rq = (struct request){ .ims = -1 };
	for (;;) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n;

		if (!nl)
			return 0;
		n = (size_t)(nl - (buf + pos));
		if (n && buf[pos + n - 1] == '\r')
			n--;
		if (n == 0 && line_no == 0 && pos < 8) {
			pos = (size_t)(nl - buf) + 1; /* a stray CRLF before the request line */
			continue;
		}
		if (n == 0) {
			end = (size_t)(nl - buf) + 1;
			break;
		}
		if (memchr(buf + pos, '\r', n) || memchr(buf + pos, 0, n))
			return -1;
		if (line_no++ == 0) {
			if (parse_request_line(buf + pos, n, rq, &minor) < 0)
				return -1;
			rq->keep_alive = minor >= 1;
		} else if (buf[pos] == ' ' || buf[pos] == '\t') {
			return -1; /* obsolete line folding */
		} else if (parse_field(buf + pos, n, rq, &host) < 0) {
			return -1;
		}
		pos = (size_t)(nl - buf) + 1;
	}
	if (line_no == 0 || (minor >= 1 && !host))
		return -1; /* RFC 9112 §3.2: a 1.1 request without Host is a 400 */
	return (long)end;
}

/* ---- routing and responses ------------------------------------------------------ */

/* A decimal id in the one form links use: no sign, no leading zero. */
static bool parse_id(const char *p, size_t n, uint32_t *id)
{
	unsigned v;

	if (n == 0 || n > 9 || (n > 1 && p[0] == '0') || !digits(p, n, &v))
		return false;
	*id = v;
	return true;
}

static bool has_prefix(const char *p, size_t n, const char *pre, size_t *plen)
{
	*plen = strlen(pre);
	return n >= *plen && memcmp(p, pre, *plen) == 0;
}

/* The reply of host h to rq.  Only the forms links use answer 200: a query,
 * a trailing slash or a leading zero is a 404 (one URL per page). */
void route(const struct web *w, uint32_t h, const struct request *rq, struct reply *rp)
{
	const struct host *hs = &w->hosts[h];
	const char *p = rq->target;
	size_t n = rq->target_len, k;
	uint32_t id = 0;

	*rp = (struct reply){ .kind = RP_NOT_FOUND, .host = h, .head = rq->method == M_HEAD,
			      .close = !rq->keep_alive || rq->has_body, .ims = rq->ims };
	if (rq->method == M_OTHER) {
		rp->kind = RP_METHOD;
		rp->close = true; /* its body, if any, is not read */
		return;
	}
	if (n >= 7 && strncasecmp(p, "http://", 7) == 0) { /* absolute form: the path */
		const char *slash = memchr(p + 7, '/', n - 7);

		n = slash ? n - (size_t)(slash - p) : 1;
		p = slash ? slash : "/";
	}
	if (n == 1 && p[0] == '/') {
		rp->kind = RP_ROOT;
	} else if (n == 11 && memcmp(p, "/robots.txt", 11) == 0) {
		rp->kind = RP_ROBOTS;
	} else if (has_prefix(p, n, "/p/", &k) && parse_id(p + k, n - k, &id) && id < hs->pages) {
		rp->kind = RP_PAGE;
	} else if (has_prefix(p, n, "/r/", &k) && parse_id(p + k, n - k, &id) && id < hs->pages) {
		rp->kind = RP_REDIRECT;
	} else if (has_prefix(p, n, "/private/", &k) && parse_id(p + k, n - k, &id) &&
	           id < hs->pages) {
		rp->kind = RP_PRIVATE;
	} else if (n >= 5 && p[0] == '/' && p[1] == 's' && p[2] >= '1' && p[2] <= '9' &&
	           p[3] == '/' && (unsigned)(p[2] - '0') <= hs->levels &&
	           parse_id(p + 4, n - 4, &id) && id < hs->count[p[2] - '0']) {
		rp->kind = RP_SECTION;
		rp->level = (uint8_t)(p[2] - '0');
	}
	rp->id = id;
}

/* The status of a reply, and the body it carries (Last-Modified in *mtime,
 * -1 for none). */
static unsigned reply_status(const struct web *w, const struct reply *rp, int64_t *mtime)
{
	*mtime = -1;
	switch (rp->kind) {
	case RP_PAGE:
		*mtime = page_mtime(w, rp->host, rp->id);
		break;
	case RP_ROOT:
	case RP_SECTION:
	case RP_PRIVATE:
	case RP_ROBOTS:
		*mtime = BASE_TIME;
		break;
	case RP_REDIRECT:
		return 301;
	case RP_NOT_FOUND:
		return 404;
	case RP_BAD:
		return 400;
	default:
		return 405;
	}
	return rp->ims >= *mtime ? 304 : 200;
}

static const char *reason(unsigned status)
{
	switch (status) {
	case 200:
		return "OK";
	case 301:
		return "Moved Permanently";
	case 304:
		return "Not Modified";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 500:
		return "Internal Server Error";
	default:
		return "Bad Request";
	}
}

static void gen_body(struct out *o, const struct web *w, const struct reply *rp, unsigned status)
{
	struct link to = { .kind = LK_PAGE, .host = rp->host, .id = rp->id };

	if (status == 200 && rp->kind == RP_ROOT)
		gen_root(o, w, rp->host);
	else if (status == 200 && rp->kind == RP_SECTION)
		gen_section(o, w, rp->host, rp->level, rp->id);
	else if (status == 200 && rp->kind == RP_PAGE)
		gen_page(o, w, rp->host, rp->id);
	else if (status == 200 && rp->kind == RP_PRIVATE)
		gen_private(o, w, rp->host, rp->id);
	else if (status == 200)
		gen_robots(o);
	if (status == 200 || status == 304)
		return;
	out_lit(o, "<!DOCTYPE html>\n<html><head><title>");
	out_str(o, reason(status));
	out_lit(o, "</title></head><body>");
	out_str(o, reason(status));
	if (status == 301) {
		out_lit(o, ": ");
		put_origin(o, w, rp->host);
		put_path(o, &to);
	}
	out_lit(o, "</body></html>\n");
}

static void put_header(struct out *o, const struct web *w, const struct reply *rp, unsigned status,
                       int64_t mtime, size_t body_len)
{
	struct link to = { .kind = LK_PAGE, .host = rp->host, .id = rp->id };

	out_lit(o, "HTTP/1.1 ");
	out_u64(o, status);
	out_lit(o, " ");
	out_str(o, reason(status));
	out_lit(o, "\r\nServer: synweb\r\nDate: ");
	put_http_date(o, rp->date);
	if (status != 304) {
		if (rp->kind == RP_ROBOTS && status == 200)
			out_lit(o, "\r\nContent-Type: text/plain; charset=utf-8");
		else
			out_lit(o, "\r\nContent-Type: text/html; charset=utf-8");
		out_lit(o, "\r\nContent-Length: ");
		out_u64(o, body_len);
	}
	if (mtime >= 0 && (status == 200 || status == 304)) {
		out_lit(o, "\r\nLast-Modified: ");
		put_http_date(o, mtime);
	}
	if (status == 301) {
		out_lit(o, "\r\nLocation: ");
		put_origin(o, w, rp->host);
		put_path(o, &to);
	}
	if (status == 405)
		out_lit(o, "\r\nAllow: GET, HEAD");
	if (rp->close)
		out_lit(o, "\r\nConnection: close\r\n\r\n");
	else
		out_lit(o, "\r\nConnection: keep-alive\r\n\r\n");
}

/* Makes the whole response to rp in scratch[size] (the body first, after
 * HDR_ROOM bytes, then the header just before it): returns its start and
 * sets *len.  The same reply gives the same bytes. */
const char *render(const struct web *w, const struct reply *rp, char *scratch, size_t size,
                   size_t *len)
{
	struct out body = {scratch + HDR_ROOM, scratch + size, false};
	char hdr[HDR_ROOM];
	struct out ho = {hdr, hdr + sizeof(hdr), false};
	int64_t mtime;
	unsigned status = reply_status(w, rp, &mtime);
	size_t blen;

	gen_body(&body, w, rp, status);
	if (body.full) { /* cannot happen with these caps; say so rather than cut a page */
		status = 500;
		body = (struct out){scratch + HDR_ROOM, scratch + size, false};
	}
	blen = (size_t)(body.p - (scratch + HDR_ROOM));
	put_header(&ho, w, rp, status, mtime, blen);
	*len = (size_t)(ho.p - hdr) + (rp->head ? 0 : blen);
	memcpy(scratch + HDR_ROOM - (ho.p - hdr), hdr, (size_t)(ho.p - hdr));
	return scratch + HDR_ROOM - (ho.p - hdr);
}
