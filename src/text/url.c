/* url.c - URLs for the crawler: RFC 3986 parse and reference resolution
 * (§5.2), the normal form of url.h (§6.2 plus crawler practice), site keys and
 * spider-trap heuristics.  Keeps no global state.  Does not fetch, and knows
 * nothing of robots.txt rules or scope filters (robots.c, crawl.c).
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "buf.h"
#include "caps.h"
#include "url.h"
#include "util.h"

/* Work buffers hold a reference plus a base, percent-encoded (3 bytes each). */
#define WORK_MAX (3 * (URL_MAX_INPUT + MAX_URL_LEN) + 64)
#define MAX_HOST_LEN 253 /* RFC 1035 §2.3.4, without the trailing dot */
#define MAX_LABEL_LEN 63

#define STR_(x) #x
#define STR(x) STR_(x)

struct span {
	const char *p; /* NULL: the component is absent */
	size_t n;
};

/* A reference split as in RFC 3986 Appendix B. */
struct ref {
	struct span scheme, auth, path, query, frag;
};

/* The normal form of an absolute http(s) URL and where its parts are. */
struct norm {
	struct buf s; /* "scheme://host[:port]/path[?query]" */
	size_t host_off, host_len;
	size_t path_off, path_len;
	size_t query_off, query_len; /* query_off == 0: no query */
	int port;                    /* effective port */
	int has_userinfo, has_frag;
	struct buf userinfo; /* as given */
	struct buf frag;     /* percent-normalised */
};

/* Query parameters that only carry a session or a click id: the same page
 * under another name (doc/HOSTILE-INPUT.md case 10). Names compare case-insensitively;
 * "sid" is not here: too many sites use it for article ids. */
static const char *const drop_params[] = {
    "jsessionid", "phpsessid", "sessionid", "session_id", "cfid",
    "cftoken",    "gclid",     "fbclid",    "msclkid",
};
static const char *const drop_param_prefixes[] = {"utm_", "aspsessionid"};

static int fail(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -1;
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* RFC 3986 §2.3 */
static int is_unreserved(int c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static int span_is(struct span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.p && s.n == n && ascii_ncasecmp(s.p, lit, n) == 0;
}

/* ---- reading a reference ------------------------------------------------- */

/* Trim surrounding whitespace, drop TAB CR LF anywhere (HTML wraps long
 * href values; browsers drop them too), refuse any other control byte, and
 * read '\' as '/' before the query as browsers do for http(s). */
static int prepare(const char *s, struct buf *out, const char **why)
{
	size_t n = strlen(s), b = 0, i;
	int in_path = 1;

	buf_reset(out);
	if (n > URL_MAX_INPUT)
		return fail(why, "URL too long");
	while (b < n && is_space((unsigned char)s[b]))
		b++;
	while (n > b && is_space((unsigned char)s[n - 1]))
		n--;
	for (i = b; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c < 0x20 || c == 0x7f)
			return fail(why, "control character in URL");
		if (c == '?' || c == '#')
			in_path = 0;
		if (c == '\\' && in_path)
			c = '/';
		if (buf_addc(out, (char)c))
			return fail(why, "URL too long");
	}
	return 0;
}

/* Length of the scheme when s starts with one followed by ':' (RFC 3986
 * §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )), else 0. */
static size_t scheme_length(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !is_alpha((unsigned char)s[0]))
		return 0;
	for (i = 1; i < n; i++) {
		int c = (unsigned char)s[i];
		if (c == ':')
			return i;
		if (!is_alpha(c) && !is_digit(c) && c != '+' && c != '-' && c != '.')
			return 0;
	}
	return 0;
}

/* RFC 3986 Appendix B: ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
 * with the scheme checked against §3.1 (a bad one makes a relative path). */
static void split(const char *s, size_t n, struct ref *r)
{
	size_t i = 0, k;

	memset(r, 0, sizeof(*r));
	k = scheme_length(s, n);
	if (k) {
		r->scheme = (struct span){s, k};
		i = k + 1;
	}
	if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
		i += 2;
		k = i;
		while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#')
			i++;
		r->auth = (struct span){s + k, i - k};
	}
	k = i;
	while (i < n && s[i] != '?' && s[i] != '#')
		i++;
	r->path = (struct span){s + k, i - k};
	if (i < n && s[i] == '?') {
		k = ++i;
		while (i < n && s[i] != '#')
			i++;
		r->query = (struct span){s + k, i - k};
	}
	if (i < n && s[i] == '#') {
		i++;
		r->frag = (struct span){s + i, n - i};
	}
}

/* ---- percent-encoding (RFC 3986 §2.1, §6.2.2.1, §6.2.2.2) --------------- */

enum comp { C_PATH, C_QUERY, C_FRAG };

/* Bytes never valid in a URI (RFC 3986 §2, Appendix A) that browsers
 * nevertheless send encoded: controls, space, non-ASCII, " < > \ ^ ` { | }. */
static int must_encode(unsigned char c, enum comp comp)
{
	if (c <= 0x20 || c >= 0x7f)
		return 1;
	if (strchr("\"<>\\^`{|}", c))
		return 1;
	return comp == C_FRAG && c == '#';
}

static int add_pct(struct buf *out, unsigned v)
{
	static const char hex[] = "0123456789ABCDEF";
	char e[3] = {'%', hex[(v >> 4) & 15], hex[v & 15]};

	return buf_add(out, e, 3);
}

/* Append p[0..n) to out with uppercase hex digits, unreserved characters
 * decoded and the bytes of must_encode() encoded; a stray '%' is "%25". */
static int encode(struct buf *out, const char *p, size_t n, enum comp comp)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		int rc;

		if (c == '%' && i + 2 < n && hex_value(p[i + 1]) >= 0 && hex_value(p[i + 2]) >= 0) {
			unsigned v = (unsigned)(hex_value(p[i + 1]) * 16 + hex_value(p[i + 2]));
			rc = is_unreserved((int)v) ? buf_addc(out, (char)v) : add_pct(out, v);
			i += 2;
		} else if (c == '%' || must_encode(c, comp)) {
			rc = add_pct(out, c);
		} else {
			rc = buf_addc(out, (char)c);
		}
		if (rc)
			return -1;
	}
	return 0;
}

/* ---- path and query ------------------------------------------------------ */

/* RFC 3986 §5.2.4 remove_dot_segments, input buffer to output buffer. */
static int remove_dots(const char *in, size_t n, struct buf *out)
{
	size_t i = 0;

	buf_reset(out);
	while (i < n) {
		const char *p = in + i;
		size_t r = n - i;

		if (r >= 3 && memcmp(p, "../", 3) == 0) { /* A */
			i += 3;
		} else if (r >= 2 && memcmp(p, "./", 2) == 0) { /* A */
			i += 2;
		} else if (r >= 3 && memcmp(p, "/./", 3) == 0) { /* B */
			i += 2;
		} else if (r == 2 && memcmp(p, "/.", 2) == 0) { /* B */
			if (buf_addc(out, '/'))
				return -1;
			i = n;
		} else if ((r >= 4 && memcmp(p, "/../", 4) == 0) || /* C */
		           (r == 3 && memcmp(p, "/..", 3) == 0)) {
			const char *slash;

			slash = out->len ? memrchr(out->ptr, '/', out->len) : NULL;
			buf_truncate(out, slash ? (size_t)(slash - out->ptr) : 0);
			if (r == 3) {
				if (buf_addc(out, '/'))
					return -1;
				i = n;
			} else {
				i += 3;
			}
		} else if ((r == 1 && p[0] == '.') || (r == 2 && memcmp(p, "..", 2) == 0)) {
			i = n; /* D */
		} else {       /* E */
			size_t k = 1;
			while (k < r && p[k] != '/')
				k++;
			if (buf_add(out, p, k))
				return -1;
			i += k;
		}
	}
	return 0;
}

/* Remove ";jsessionid=..." path parameters in place, up to the next '/' or
 * ';' only: the rest of the path stays (Norconex/crawler#311). */
static void strip_path_session(struct buf *b)
{
	static const char key[] = ";jsessionid=";
	size_t r = 0, w = 0, kn = sizeof(key) - 1;

	if (!b->len)
		return;
	while (r < b->len) {
		if (b->ptr[r] == ';' && b->len - r >= kn &&
		    ascii_ncasecmp(b->ptr + r, key, kn) == 0) {
			r += kn;
			while (r < b->len && b->ptr[r] != '/' && b->ptr[r] != ';')
				r++;
			continue;
		}
		b->ptr[w++] = b->ptr[r++];
	}
	buf_truncate(b, w);
}

static int drop_param(const char *p, size_t n)
{
	const char *eq = memchr(p, '=', n);
	size_t k = eq ? (size_t)(eq - p) : n, i;

	for (i = 0; i < ARRAY_SIZE(drop_params); i++)
		if (strlen(drop_params[i]) == k && ascii_ncasecmp(p, drop_params[i], k) == 0)
			return 1;
	for (i = 0; i < ARRAY_SIZE(drop_param_prefixes); i++) {
		size_t pn = strlen(drop_param_prefixes[i]);
		if (k >= pn && ascii_ncasecmp(p, drop_param_prefixes[i], pn) == 0)
			return 1;
	}
	return 0;
}

/* Append the query q without the parameters of drop_params[], order kept. */
static int filter_query(struct buf *out, const char *q, size_t n)
{
	size_t i = 0;
	int first = 1;

	for (;;) {
		const char *amp = memchr(q + i, '&', n - i);
		size_t k = amp ? (size_t)(amp - (q + i)) : n - i;

		if (!drop_param(q + i, k)) {
			if ((!first && buf_addc(out, '&')) || buf_add(out, q + i, k))
				return -1;
			first = 0;
		}
		if (!amp)
			return 0;
		i += k + 1;
	}
}

/* ---- host (RFC 3986 §3.2.2) ---------------------------------------------- */

static int host_char_ok(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '-' || c == '.' || c == '_';
}

/* IP-literal: an IPv6 address re-printed in RFC 5952 form by inet_ntop. */
static int norm_ipv6(const char *p, size_t n, struct buf *out, const char **why)
{
	char tmp[64], txt[INET6_ADDRSTRLEN];
	struct in6_addr a;

	if (n < 2 || p[0] != '[' || p[n - 1] != ']')
		return fail(why, "bad IPv6 literal");
	p++;
	n -= 2;
	if (n && (p[0] == 'v' || p[0] == 'V'))
		return fail(why, "IPvFuture literal not supported");
	if (memchr(p, '%', n))
		return fail(why, "IPv6 zone id not supported");
	if (n >= sizeof(tmp))
		return fail(why, "bad IPv6 address");
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	if (inet_pton(AF_INET6, tmp, &a) != 1 || !inet_ntop(AF_INET6, &a, txt, sizeof(txt)))
		return fail(why, "bad IPv6 address");
	if (buf_addc(out, '[') || buf_adds(out, txt) || buf_addc(out, ']'))
		return fail(why, "URL too long");
	return 0;
}

/* RFC 3492 §6.1 */
static unsigned adapt(unsigned delta, unsigned points, int first)
{
	unsigned k = 0;

	delta = first ? delta / 700 : delta / 2;
	delta += delta / points;
	while (delta > ((36 - 1) * 26) / 2) {
		delta /= 36 - 1;
		k += 36;
	}
	return k + (36 * delta) / (delta + 38);
}

static char puny_digit(unsigned d)
{
	return (char)(d < 26 ? 'a' + d : '0' + d - 26);
}

/* RFC 3492 §6.3: punycode of one label of code points cp[0..n). */
static int punycode(const utf8proc_int32_t *cp, size_t n, struct buf *out)
{
	unsigned next = 128, delta = 0, bias = 72, h, b = 0;
	size_t j;

	for (j = 0; j < n; j++)
		if (cp[j] < 128) {
			if (buf_addc(out, (char)cp[j]))
				return -1;
			b++;
		}
	h = b;
	if (b && buf_addc(out, '-'))
		return -1;
	while (h < n) {
		unsigned m = UINT32_MAX;

		for (j = 0; j < n; j++)
			if ((unsigned)cp[j] >= next && (unsigned)cp[j] < m)
				m = (unsigned)cp[j];
		if (m - next > (UINT32_MAX - delta) / (h + 1))
			return -1;
		delta += (m - next) * (h + 1);
		next = m;
		for (j = 0; j < n; j++) {
			unsigned c = (unsigned)cp[j];
			if (c < next && ++delta == 0)
				return -1;
			if (c == next) {
				unsigned q = delta, k;
				for (k = 36;; k += 36) {
					unsigned t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
					if (q < t)
						break;
					if (buf_addc(out, puny_digit(t + (q - t) % (36 - t))))
						return -1;
					q = (q - t) / (36 - t);
				}
				if (buf_addc(out, puny_digit(q)))
					return -1;
				bias = adapt(delta, h + 1, h == b);
				delta = 0;
				h++;
			}
		}
		delta++;
		next++;
	}
	return 0;
}

/* A host with non-ASCII bytes (UTF-8) to its ASCII form: NFKC, then simple
 * lowercase (so ß and ς stay, as in UTS #46 nontransitional processing),
 * ideographic full stops as dots, then "xn--" + punycode for every label that
 * is not ASCII (RFC 5891 §4.4).  An approximation of UTS #46 without its
 * validity, bidi and contextual rules; libidn2 is not a dependency. */
static int idn_to_ascii(const char *p, size_t n, struct buf *out, const char **why)
{
	utf8proc_uint8_t *m = NULL;
	utf8proc_int32_t *cp = NULL;
	utf8proc_ssize_t mn, i, k;
	size_t ncp = 0, j, start;
	int rc = -1;

	mn = utf8proc_map((const utf8proc_uint8_t *)p, (utf8proc_ssize_t)n, &m,
	                  UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_IGNORE);
	if (mn < 0) {
		fail(why, "invalid UTF-8 in host");
		goto out;
	}
	cp = xmalloc(((size_t)mn + 1) * sizeof(*cp));
	for (i = 0; i < mn; i += k) {
		utf8proc_int32_t c;
		k = utf8proc_iterate(m + i, mn - i, &c);
		if (k <= 0) {
			fail(why, "invalid UTF-8 in host");
			goto out;
		}
		c = utf8proc_tolower(c);
		if (c == 0x3002 || c == 0xFF0E || c == 0xFF61) /* UTS #46: full stops */
			c = '.';
		if (c < 128 && !host_char_ok((unsigned char)c)) {
			fail(why, "invalid character in host");
			goto out;
		}
		cp[ncp++] = c;
	}
	for (start = 0; start <= ncp; start = j + 1) {
		size_t e, ascii = 1;

		for (j = start; j < ncp && cp[j] != '.'; j++)
			if (cp[j] >= 128)
				ascii = 0;
		if (j - start > MAX_LABEL_LEN) {
			fail(why, "host label too long");
			goto out;
		}
		if (!ascii && buf_adds(out, "xn--"))
			goto toolong;
		if (ascii) {
			for (e = start; e < j; e++)
				if (buf_addc(out, (char)cp[e]))
					goto toolong;
		} else if (punycode(cp + start, j - start, out)) {
			goto toolong;
		}
		if (j < ncp && buf_addc(out, '.'))
			goto toolong;
	}
	rc = 0;
	goto out;
toolong:
	fail(why, "host too long");
out:
	free(m);
	free(cp);
	return rc;
}

/* Append the normal form of host p[0..n) to out. */
static int norm_host(const char *p, size_t n, struct buf *out, const char **why)
{
	struct buf dec = BUF_INIT(WORK_MAX);
	size_t i, start = out->len, label = 0;
	int rc = -1, nonascii = 0;

	if (n == 0)
		return fail(why, "missing host");
	if (p[0] == '[')
		return norm_ipv6(p, n, out, why);
	/* §3.2.2: a reg-name may be percent-encoded UTF-8; DNS wants the bytes. */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '%') {
			if (i + 2 >= n || hex_value(p[i + 1]) < 0 || hex_value(p[i + 2]) < 0) {
				fail(why, "bad percent-encoding in host");
				goto out;
			}
			c = (unsigned char)(hex_value(p[i + 1]) * 16 + hex_value(p[i + 2]));
			i += 2;
		}
		if (c >= 0x80) {
			nonascii = 1;
		} else if (!host_char_ok(c)) {
			fail(why, "invalid character in host");
			goto out;
		}
		if (buf_addc(&dec, (char)lower((char)c))) {
			fail(why, "host too long");
			goto out;
		}
	}
	if (nonascii) {
		if (idn_to_ascii(dec.ptr, dec.len, out, why))
			goto out;
	} else if (buf_add(out, dec.ptr, dec.len)) {
		fail(why, "host too long");
		goto out;
	}
	/* One trailing dot names the same host (the DNS root). */
	if (out->len > start && out->ptr[out->len - 1] == '.')
		buf_truncate(out, out->len - 1);
	if (out->len == start) {
		fail(why, "missing host");
		goto out;
	}
	if (out->len - start > MAX_HOST_LEN) {
		fail(why, "host too long");
		goto out;
	}
	for (i = start; i <= out->len; i++) {
		if (i < out->len && out->ptr[i] != '.') {
			label++;
			continue;
		}
		if (label == 0) {
			fail(why, "empty label in host");
			goto out;
		}
		if (label > MAX_LABEL_LEN) {
			fail(why, "host label too long");
			goto out;
		}
		label = 0;
	}
	rc = 0;
out:
	buf_free(&dec);
	return rc;
}

/* §3.2.3: port = *DIGIT; empty means the default (§6.2.3). */
static int parse_port(struct span p, int dflt, int *port, const char **why)
{
	long v = 0;
	size_t i;

	*port = dflt;
	if (!p.p || p.n == 0)
		return 0;
	for (i = 0; i < p.n; i++) {
		if (!is_digit((unsigned char)p.p[i]))
			return fail(why, "bad port");
		v = v * 10 + (p.p[i] - '0');
		if (v > 65535)
			return fail(why, "port out of range");
	}
	if (v == 0)
		return fail(why, "port 0");
	*port = (int)v;
	return 0;
}

/* ---- the normal form ------------------------------------------------------ */

static void norm_init(struct norm *nm)
{
	memset(nm, 0, sizeof(*nm));
	buf_init(&nm->s, WORK_MAX);
	buf_init(&nm->userinfo, URL_MAX_INPUT);
	buf_init(&nm->frag, WORK_MAX);
}

static void norm_free(struct norm *nm)
{
	buf_free(&nm->s);
	buf_free(&nm->userinfo);
	buf_free(&nm->frag);
}

/* The scheme of r, lowercase, into nm->s (also when it is not crawlable:
 * the caller reports the scheme seen); *dflt is its default port. */
static int norm_scheme(const struct ref *r, struct norm *nm, int *dflt, const char **why)
{
	size_t i;
	int https;

	if (!r->scheme.p)
		return fail(why, "not an absolute URL");
	for (i = 0; i < r->scheme.n; i++)
		if (buf_addc(&nm->s, lower(r->scheme.p[i])))
			return fail(why, "URL too long");
	https = span_is(r->scheme, "https");
	if (!https && !span_is(r->scheme, "http")) {
		fail(why, "scheme not crawlable");
		return URL_NOT_CRAWLABLE;
	}
	*dflt = https ? 443 : 80;
	return 0;
}

/* "://", the host and a port other than dflt into nm->s; the userinfo
 * aside in nm->userinfo. */
static int norm_authority(const struct ref *r, struct norm *nm, int dflt, const char **why)
{
	struct span a, host, port = {NULL, 0};
	const char *at;

	if (!r->auth.p)
		return fail(why, "missing host");
	/* authority = [ userinfo "@" ] host [ ":" port ] (§3.2); the last '@'
	 * ends the userinfo, as browsers read it. */
	a = r->auth;
	at = a.n ? memrchr(a.p, '@', a.n) : NULL;
	if (at) {
		nm->has_userinfo = 1;
		if (buf_add(&nm->userinfo, a.p, (size_t)(at - a.p)))
			return fail(why, "URL too long");
		a.n -= (size_t)(at + 1 - a.p);
		a.p = at + 1;
	}
	host = a;
	if (a.n && a.p[0] == '[') {
		const char *rb = memchr(a.p, ']', a.n);
		if (!rb)
			return fail(why, "bad IPv6 literal");
		host.n = (size_t)(rb + 1 - a.p);
		if (host.n < a.n && a.p[host.n] != ':')
			return fail(why, "bad IPv6 literal");
	} else {
		const char *colon = memchr(a.p, ':', a.n);
		host.n = colon ? (size_t)(colon - a.p) : a.n;
	}
	if (host.n < a.n)
		port = (struct span){a.p + host.n + 1, a.n - host.n - 1};
	if (buf_adds(&nm->s, "://"))
		return fail(why, "URL too long");
	nm->host_off = nm->s.len;
	if (norm_host(host.p, host.n, &nm->s, why))
		return -1;
	nm->host_len = nm->s.len - nm->host_off;
	if (parse_port(port, dflt, &nm->port, why))
		return -1;
	if (nm->port != dflt && buf_printf(&nm->s, ":%d", nm->port))
		return fail(why, "URL too long");
	if (nm->s.len + 1 > MAX_SITE_LEN)
		return fail(why, "host too long");
	return 0;
}

/* The path, the filtered query into nm->s and the fragment aside in
 * nm->frag.  Fails only when the URL grows too long. */
static int norm_path_query(const struct ref *r, struct norm *nm, const char **why)
{
	struct buf t1 = BUF_INIT(WORK_MAX), t2 = BUF_INIT(WORK_MAX);
	int rc = -1;

	/* Path: §6.2.2.2 encoding first, so "%2E" segments count as dots
	 * (as browsers read them), then §5.2.4; the empty path is "/" (§6.2.3). */
	nm->path_off = nm->s.len;
	if (encode(&t1, r->path.p, r->path.n, C_PATH))
		goto out;
	strip_path_session(&t1);
	if (remove_dots(buf_str(&t1), t1.len, &t2))
		goto out;
	if (buf_add(&nm->s, t2.len ? t2.ptr : "/", t2.len ? t2.len : 1))
		goto out;
	nm->path_len = nm->s.len - nm->path_off;

	if (r->query.p) {
		buf_reset(&t1);
		buf_reset(&t2);
		if (encode(&t1, r->query.p, r->query.n, C_QUERY) ||
		    filter_query(&t2, buf_str(&t1), t1.len))
			goto out;
		if (t2.len) {
			if (buf_addc(&nm->s, '?'))
				goto out;
			nm->query_off = nm->s.len;
			nm->query_len = t2.len;
			if (buf_add(&nm->s, t2.ptr, t2.len))
				goto out;
		}
	}
	if (r->frag.p) {
		nm->has_frag = 1;
		if (encode(&nm->frag, r->frag.p, r->frag.n, C_FRAG))
			goto out;
	}
	if (nm->s.len > MAX_URL_LEN)
		goto out;
	rc = 0;
out:
	buf_free(&t1);
	buf_free(&t2);
	return rc ? fail(why, "URL too long") : 0;
}

/* Build the normal form of the absolute reference r into nm: scheme,
 * authority, then path, query and fragment. */
static int normalize_ref(const struct ref *r, struct norm *nm, const char **why)
{
	int rc, dflt;

	buf_reset(&nm->s);
	nm->query_off = nm->query_len = 0;
	nm->has_userinfo = nm->has_frag = 0;
	rc = norm_scheme(r, nm, &dflt, why);
	if (rc)
		return rc;
	if (norm_authority(r, nm, dflt, why))
		return -1;
	return norm_path_query(r, nm, why);
}

/* Normalise absolute URL s into nm (initialised by the caller). */
static int norm_string(const char *s, struct norm *nm, const char **why)
{
	struct buf c = BUF_INIT(URL_MAX_INPUT);
	struct ref r;
	int rc;

	rc = prepare(s, &c, why);
	if (rc)
		goto out;
	split(buf_str(&c), c.len, &r);
	rc = normalize_ref(&r, nm, why);
out:
	buf_free(&c);
	return rc;
}

/* Copy s[0..n) to the caller's out. */
static int emit(struct buf *out, const char *s, size_t n, const char *suffix, const char **why)
{
	buf_reset(out);
	if (buf_add(out, s, n) || (suffix && buf_adds(out, suffix))) {
		buf_reset(out);
		return fail(why, "output buffer too small");
	}
	return 0;
}

/* ---- public functions ------------------------------------------------------ */

void url_free(struct url *u)
{
	if (!u)
		return;
	free(u->scheme);
	free(u->userinfo);
	free(u->host);
	free(u->path);
	free(u->query);
	free(u->fragment);
	free(u->href);
	memset(u, 0, sizeof(*u));
}

int url_parse(const char *s, struct url *out, const char **why)
{
	struct norm nm;
	int rc;

	memset(out, 0, sizeof(*out));
	out->port = -1;
	norm_init(&nm);
	rc = norm_string(s, &nm, why);
	if (rc == URL_NOT_CRAWLABLE)
		out->scheme = xstrdup(buf_str(&nm.s));
	if (rc)
		goto out;
	out->href = xstrndup(nm.s.ptr, nm.s.len);
	out->scheme = xstrndup(nm.s.ptr, nm.host_off - 3);
	out->host = xstrndup(nm.s.ptr + nm.host_off, nm.host_len);
	out->port = nm.port;
	out->path = xstrndup(nm.s.ptr + nm.path_off, nm.path_len);
	if (nm.query_off)
		out->query = xstrndup(nm.s.ptr + nm.query_off, nm.query_len);
	if (nm.has_userinfo)
		out->userinfo = xstrdup(buf_str(&nm.userinfo));
	if (nm.has_frag)
		out->fragment = xstrdup(buf_str(&nm.frag));
out:
	norm_free(&nm);
	return rc;
}

int url_normalize(const char *in, struct buf *out, const char **why)
{
	struct norm nm;
	int rc;

	norm_init(&nm);
	buf_reset(out);
	rc = norm_string(in, &nm, why);
	if (!rc)
		rc = emit(out, nm.s.ptr, nm.s.len, NULL, why);
	norm_free(&nm);
	return rc;
}

int url_resolve(const char *base, const char *ref, struct buf *out, const char **why)
{
	struct buf rb = BUF_INIT(URL_MAX_INPUT), t = BUF_INIT(WORK_MAX);
	struct norm bn, tn;
	struct ref r, b, tr;
	struct span path, query;
	int rc;

	norm_init(&bn);
	norm_init(&tn);
	buf_reset(out);
	rc = prepare(ref, &rb, why);
	if (rc)
		goto out;
	split(buf_str(&rb), rb.len, &r);

	/* §5.2.2: an absolute reference is its own target.  "http:g" without
	 * an authority is read relative to an http base (the backward-
	 * compatible reading of §5.2.2 and §5.4.2, as browsers do). */
	if (r.scheme.p &&
	    (r.auth.p || (!span_is(r.scheme, "http") && !span_is(r.scheme, "https")))) {
		rc = normalize_ref(&r, &tn, why);
		goto done;
	}
	rc = norm_string(base, &bn, why);
	if (rc) {
		rc = fail(why, "bad base URL");
		goto out;
	}
	split(bn.s.ptr, bn.s.len, &b);
	if (r.scheme.p) {
		if (r.scheme.n != b.scheme.n ||
		    ascii_ncasecmp(r.scheme.p, b.scheme.p, b.scheme.n)) {
			rc = normalize_ref(&r, &tn, why);
			goto done;
		}
		r.scheme.p = NULL;
	}
	/* §5.2.2 with T.scheme = Base.scheme; remove_dot_segments and the rest
	 * of the normal form are applied when T is normalised below. */
	if (buf_add(&t, b.scheme.p, b.scheme.n) || buf_adds(&t, "://"))
		goto toolong;
	if (r.auth.p) {
		path = r.path;
		query = r.query;
		if (buf_add(&t, r.auth.p, r.auth.n))
			goto toolong;
	} else {
		if (buf_add(&t, b.auth.p, b.auth.n))
			goto toolong;
		query = r.query;
		if (r.path.n == 0) {
			path = b.path;
			if (!r.query.p)
				query = b.query;
		} else if (r.path.p[0] == '/') {
			path = r.path;
		} else {
			/* §5.2.3 merge: the base path (never empty in the normal
			 * form) up to its last '/', then the reference path. */
			const char *slash = memrchr(b.path.p, '/', b.path.n);
			size_t keep = slash ? (size_t)(slash + 1 - b.path.p) : 0;
			if (buf_add(&t, b.path.p, keep))
				goto toolong;
			path = r.path;
		}
	}
	if (buf_add(&t, path.p, path.n))
		goto toolong;
	if (query.p && (buf_addc(&t, '?') || buf_add(&t, query.p, query.n)))
		goto toolong;
	split(t.ptr, t.len, &tr);
	rc = normalize_ref(&tr, &tn, why);
done:
	if (!rc)
		rc = emit(out, tn.s.ptr, tn.s.len, NULL, why);
	goto out;
toolong:
	rc = fail(why, "URL too long");
out:
	buf_free(&rb);
	buf_free(&t);
	norm_free(&bn);
	norm_free(&tn);
	return rc;
}

int url_site(const char *url, struct buf *out, const char **why)
{
	struct norm nm;
	int rc;

	norm_init(&nm);
	buf_reset(out);
	rc = norm_string(url, &nm, why);
	if (!rc)
		rc = emit(out, nm.s.ptr, nm.path_off + 1, NULL, why);
	norm_free(&nm);
	return rc;
}

size_t url_site_len(const char *url)
{
	/* The normal form: scheme "://" authority (no userinfo, no '/') then
	 * the path, which starts with '/'. */
	const char *p = strstr(url, "://"), *slash;

	if (!p)
		return 0;
	slash = strchr(p + 3, '/');
	return slash ? (size_t)(slash + 1 - url) : 0;
}

bool url_same_site(const char *a, const char *b)
{
	struct buf sa = BUF_INIT(MAX_SITE_LEN), sb = BUF_INIT(MAX_SITE_LEN);
	bool same;

	same = url_site(a, &sa, NULL) == 0 && url_site(b, &sb, NULL) == 0 &&
	       strcmp(buf_str(&sa), buf_str(&sb)) == 0;
	buf_free(&sa);
	buf_free(&sb);
	return same;
}

int url_robots_url(const char *url, struct buf *out, const char **why)
{
	struct norm nm;
	int rc;

	norm_init(&nm);
	buf_reset(out);
	rc = norm_string(url, &nm, why);
	if (!rc)
		rc = emit(out, nm.s.ptr, nm.path_off + 1, "robots.txt", why);
	norm_free(&nm);
	return rc;
}

int url_request_target(const char *url, struct buf *out, const char **why)
{
	struct norm nm;
	int rc;

	norm_init(&nm);
	buf_reset(out);
	rc = norm_string(url, &nm, why);
	if (!rc)
		rc = emit(out, nm.s.ptr + nm.path_off, nm.s.len - nm.path_off, NULL, why);
	norm_free(&nm);
	return rc;
}

bool url_is_robots(const char *url)
{
	struct norm nm;
	bool yes;

	norm_init(&nm);
	yes = norm_string(url, &nm, NULL) == 0 && nm.query_off == 0 && nm.path_len == 11 &&
	      memcmp(nm.s.ptr + nm.path_off, "/robots.txt", 11) == 0;
	norm_free(&nm);
	return yes;
}

static int seg_eq(struct span a, struct span b)
{
	return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

/* Trap rules on the path of a normal form (doc/HOSTILE-INPUT.md case 11). */
static int trap_path(const char *p, size_t n, const char **why)
{
	struct span seg[URL_TRAP_MAX_DEPTH + 1];
	size_t nseg = 0, i = 1, k, s;

	/* Segments after the leading '/'; a trailing empty one does not count. */
	while (i < n) {
		const char *slash = memchr(p + i, '/', n - i);
		size_t len = slash ? (size_t)(slash - (p + i)) : n - i;

		if (nseg == ARRAY_SIZE(seg))
			return fail(why, "path deeper than " STR(URL_TRAP_MAX_DEPTH) " segments");
		if (len > URL_TRAP_MAX_SEGMENT)
			return fail(why,
			            "path segment longer than " STR(URL_TRAP_MAX_SEGMENT) " bytes");
		seg[nseg++] = (struct span){p + i, len};
		i += len + 1;
	}
	if (nseg > URL_TRAP_MAX_DEPTH)
		return fail(why, "path deeper than " STR(URL_TRAP_MAX_DEPTH) " segments");
	/* A block of k segments repeated URL_TRAP_MAX_REPEAT times in a row:
	 * "/a/a/a/" (k = 1), "/a/b/a/b/a/b/" (k = 2): links that re-append
	 * themselves (webrecorder/browsertrix-crawler#931). */
	for (k = 1; k <= URL_TRAP_CYCLE_SPAN; k++) {
		for (s = 0; s + k * URL_TRAP_MAX_REPEAT <= nseg; s++) {
			size_t rep = 1, j, e;
			for (j = s + k; j + k <= nseg; j += k) {
				for (e = 0; e < k && seg_eq(seg[s + e], seg[j + e]); e++)
					;
				if (e < k)
					break;
				rep++;
			}
			if (rep >= URL_TRAP_MAX_REPEAT)
				return fail(why, k == 1
				                     ? "path segment repeated " STR(
				                           URL_TRAP_MAX_REPEAT) " times in a row"
				                     : "run of path segments repeated " STR(
				                           URL_TRAP_MAX_REPEAT) " times in a row");
		}
	}
	return 0;
}

static int trap_query(const char *q, size_t n, const char **why)
{
	struct span par[URL_TRAP_MAX_PARAMS];
	size_t np = 0, i = 0, j, k;

	if (n > URL_TRAP_MAX_QUERY)
		return fail(why, "query longer than " STR(URL_TRAP_MAX_QUERY) " bytes");
	while (i <= n) {
		const char *amp = memchr(q + i, '&', n - i);
		size_t len = amp ? (size_t)(amp - (q + i)) : n - i;
		const char *eq = memchr(q + i, '=', len);

		if (len) {
			if (np == ARRAY_SIZE(par))
				return fail(
				    why, "more than " STR(URL_TRAP_MAX_PARAMS) " query parameters");
			par[np++] = (struct span){q + i, eq ? (size_t)(eq - (q + i)) : len};
		}
		i += len + 1;
	}
	for (i = 0; i < np; i++) {
		for (j = i + 1, k = 1; j < np; j++)
			k += seg_eq(par[i], par[j]);
		if (k >= URL_TRAP_MAX_REPEAT)
			return fail(why,
			            "query parameter repeated " STR(URL_TRAP_MAX_REPEAT) " times");
	}
	return 0;
}

int url_trap_check(const char *url, const char **why)
{
	struct norm nm;
	int rc;

	norm_init(&nm);
	rc = norm_string(url, &nm, why) ? -1 : url_trap_check_normal(buf_str(&nm.s), why);
	norm_free(&nm);
	return rc;
}

int url_trap_check_normal(const char *url, const char **why)
{
	size_t site = url_site_len(url), path_len;
	const char *path, *q;
	int rc;

	if (!site)
		return fail(why, "not a normalised URL");
	path = url + site - 1;
	q = strchr(path, '?');
	path_len = q ? (size_t)(q - path) : strlen(path);
	rc = trap_path(path, path_len, why);
	if (!rc && q)
		rc = trap_query(q + 1, strlen(q + 1), why);
	return rc;
}
