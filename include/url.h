/* url.h - URLs for the crawler: parse, resolve (RFC 3986 §5), normalise
 * (RFC 3986 §6 plus crawler practice), site keys and spider-trap heuristics.
 *
 * Every function is reentrant and keeps no global state.  Inputs are
 * NUL-terminated strings; outputs go to a caller's struct buf, which is reset
 * first and left empty on failure.  Reasons (`*why`) are static strings, fit
 * for a log line; `why` may be NULL.
 *
 * Return codes: 0 on success, -1 when the URL is malformed or refused (bad
 * port, control byte, too long, ...), URL_NOT_CRAWLABLE (-2) when it is a
 * well-formed URL of a scheme we do not fetch (mailto:, javascript:, data:,
 * ftp:, tel:, ...): a link extractor drops those silently and logs the -1s.
 *
 * The normal form (what url_normalize() writes, the key of urlword.url):
 *   - only http and https; scheme and host lowercase (RFC 3986 §6.2.2.1);
 *   - userinfo dropped: a crawler never sends credentials found in links;
 *   - host: percent-decoded, one trailing dot dropped, labels 1..63 bytes,
 *     [A-Za-z0-9-_] only; non-ASCII hosts are mapped with NFKC_Casefold
 *     (utf8proc, an approximation of UTS #46) and converted to punycode
 *     "xn--" labels (RFC 3492), so one host has one key; IPv6 literals are
 *     re-printed in RFC 5952 form ("[2001:db8::1]"); zone ids and IPvFuture
 *     are refused;
 *   - port dropped when it is the scheme's default (§6.2.3); 1..65535;
 *   - percent-encoding: hex digits uppercase, unreserved characters decoded
 *     (§6.2.2.2); space, controls, non-ASCII bytes and " < > \ ^ ` { | } are
 *     encoded; a '%' not followed by two hex digits becomes "%25";
 *   - path: '\' is '/' before the query (as browsers do), dot segments
 *     removed (§5.2.4, also "%2E"), empty path is "/" (§6.2.3),
 *     ";jsessionid=..." path parameters removed;
 *   - query: order kept (never sorted); session and tracking parameters
 *     removed (jsessionid, phpsessid, sessionid, utm_*, gclid, fbclid, ...:
 *     the table is in url.c); an empty query and its '?' dropped;
 *   - fragment dropped;
 *   - leading/trailing whitespace trimmed and TAB/CR/LF removed anywhere
 *     (HTML attributes wrap long URLs; browsers do the same); any other
 *     control byte (0x00-0x1F, 0x7F) refuses the URL;
 *   - at most MAX_URL_LEN bytes (caps.h); the site key at most MAX_SITE_LEN.
 * Normalising a normalised URL returns it unchanged.
 */
#ifndef MPSEEK_URL_H
#define MPSEEK_URL_H

#include <stdbool.h>

#include "buf.h"
#include "caps.h"

#define URL_NOT_CRAWLABLE (-2)

/* Raw input longer than this is refused before any work ("URL too long"):
 * dot segments may shrink a URL, but not by this much in any real page. */
#define URL_MAX_INPUT (4 * MAX_URL_LEN)

/* Spider-trap thresholds for url_trap_check() (doc/HOSTILE-INPUT.md case 11). */
#define URL_TRAP_MAX_DEPTH 16    /* path segments */
#define URL_TRAP_MAX_REPEAT 3    /* a segment, or a run of segments, this many times in a row */
#define URL_TRAP_CYCLE_SPAN 4    /* longest run of segments checked for cyclic repeats */
#define URL_TRAP_MAX_SEGMENT 255 /* bytes of one path segment */
#define URL_TRAP_MAX_QUERY 1024  /* bytes of the query */
#define URL_TRAP_MAX_PARAMS 32   /* query parameters */

/* The components of a normalised absolute URL.  All strings are malloc'd and
 * owned by the struct; release them with url_free(). */
struct url {
	char *scheme;   /* "http" or "https"; for URL_NOT_CRAWLABLE the scheme seen, lowercase */
	char *userinfo; /* as given (not part of the normal form); NULL if absent */
	char *host;     /* normalised; IPv6 literals keep their brackets: "[::1]" */
	int port;       /* effective port: explicit or the default (80, 443) */
	char *path;     /* normalised, starts with '/' */
	char *query;    /* normalised, without '?'; NULL if absent */
	char *fragment; /* percent-normalised, without '#'; NULL if absent; not in href */
	char *href;     /* the whole normal form, as url_normalize() writes it */
};

/* Parse absolute URL s into out (which need not be initialised).  Returns 0,
 * -1 or URL_NOT_CRAWLABLE (then only out->scheme is set).  Call url_free(out)
 * afterwards whatever the result. */
int url_parse(const char *s, struct url *out, const char **why);
/* Free the strings of u and zero it.  Accepts NULL. */
void url_free(struct url *u);

/* Normalise absolute URL `in` into out (see the normal form above). */
int url_normalize(const char *in, struct buf *out, const char **why);

/* Resolve reference `ref` (an href, a Location header, a <base href>)
 * against absolute URL `base` (RFC 3986 §5.2) and normalise the result.
 * `base` need not be normalised; it is not looked at when `ref` is absolute.
 * "http:g" with an http base is taken as "g" (the §5.2.2 backward-compatible
 * reading, as browsers do).  "#f" and "" give the base document. */
int url_resolve(const char *base, const char *ref, struct buf *out, const char **why);

/* The site key "scheme://host[:port]/" of URL `url` (port only when not the
 * default).  Returns 0, -1 or URL_NOT_CRAWLABLE. */
int url_site(const char *url, struct buf *out, const char **why);
/* The length of the site key at the start of `url`, which is in the normal
 * form (what url_normalize() and url_resolve() write): what url_site() would
 * give, without normalising again.  0 when url is not of that form. */
size_t url_site_len(const char *url);
/* true when both URLs are valid and have the same site key. */
bool url_same_site(const char *a, const char *b);

/* "scheme://host[:port]/robots.txt" for the site of `url`. */
int url_robots_url(const char *url, struct buf *out, const char **why);
/* The part of `url` matched against robots.txt rules: "/path" or
 * "/path?query" (RFC 9309 §2.2.2), normalised. */
int url_request_target(const char *url, struct buf *out, const char **why);
/* true when `url` is a valid URL of a site's /robots.txt (no query). */
bool url_is_robots(const char *url);

/* Spider-trap heuristics on one URL (doc/HOSTILE-INPUT.md case 11): too deep a path, a
 * segment or a run of segments repeated URL_TRAP_MAX_REPEAT times in a row
 * ("/a/a/a/", "/a/b/a/b/a/b/"), an overlong segment or query, too many or
 * repeated query parameters.  Returns 0 when the URL looks fine, -1 when it
 * looks like a trap or is not a valid URL; *why says which rule fired. */
int url_trap_check(const char *url, const char **why);
/* url_trap_check() of a URL in the normal form, not normalised again. */
int url_trap_check_normal(const char *url, const char **why);

#endif
