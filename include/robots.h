/* robots.h - robots.txt (RFC 9309) for one product token: parse, match, the
 * fetch-outcome policy, and a compact versioned blob for the robots cache;
 * plus the META robots content attribute.  Pure logic: no network, no
 * database, no global state, every function reentrant.
 *
 * Parsing (robots_parse):
 *   - only the first MAX_ROBOTS_BYTES (caps.h) are read (RFC 9309 §2.5); when
 *     the body is longer, the line cut at the limit is dropped too, so a rule
 *     is never truncated into a different rule;
 *   - a UTF-8 BOM is skipped; lines end at CR, LF or CRLF; '#' starts a
 *     comment; a line longer than ROBOTS_MAX_LINE bytes is ignored;
 *   - keys are case-insensitive; accepted as Google's parser does: the typos
 *     "useragent", "user agent", "dissallow", "dissalow", "disalow",
 *     "diasllow", "disallaw", "site-map", and a missing colon when the line is
 *     exactly two words ("disallow /").  Unlike Google, keys must match whole
 *     ("disallowed:" is not "disallow:");
 *   - groups (§2.1, §2.2.1): user-agent lines followed by rules; a user-agent
 *     line after any other record (Allow, Disallow, Crawl-delay, unknown keys:
 *     they are group members, as in Google's parser) starts a new group, but
 *     Sitemap lines are neutral (§2.2.4: they must not end a group); lines
 *     that are not "key: value" are skipped (§2.3.1.5); rules before any
 *     user-agent line are ignored (§2.2.2).  The value's product token is
 *     its leading [A-Za-z_-] run ("Googlebot/2.1" -> "Googlebot";
 *     "FOO BAR" -> "FOO"), compared with ours
 *     case-insensitively; '*' (alone or followed by a space) is the global
 *     group.  Every group naming us is merged; only if none does are the '*'
 *     groups merged and used; a group naming us with no rules allows all;
 *   - Allow/Disallow values are patterns; an empty value is no rule.  A
 *     pattern not starting with '/' or '*' is kept (it can only match through
 *     a wildcard), as Google does.  Google's "index.html means /" rewrite is
 *     not done;
 *   - Crawl-delay (not in RFC 9309): seconds, decimal with optional fraction;
 *     the largest value among the selected groups; capped by
 *     ROBOTS_MAX_CRAWL_DELAY (robots_crawl_delay_raw() gives the uncapped
 *     value so the crawler can log the cap);
 *   - Sitemap lines are global (not group-bound): kept as written, at most
 *     ROBOTS_MAX_SITEMAPS of at most MAX_URL_LEN bytes, duplicates dropped;
 *   - at most ROBOTS_MAX_RULES rules are kept for the selected agent (later
 *     ones are dropped and ROBOTS_W_TOO_MANY_RULES is set).
 *
 * Matching (robots_allowed, RFC 9309 §2.2.2, §2.2.3):
 *   - patterns and the path are first put in one normal form (as url.h
 *     writes paths): "%xx" hex uppercased, an escaped unreserved character
 *     (ALPHA DIGIT - . _ ~) decoded ("%62" -> "b", RFC 9309 §2.2.2 table;
 *     Google's parser does not decode), a '%' without two hex digits becomes
 *     "%25", and bytes >= 0x80, controls, space and " < > \ ^ ` { | } are
 *     percent-encoded.  Reserved characters keep their form, so "%2F" never
 *     matches "/" and "%3A" never matches ":" (RFC 3986 §6.2.2.2; Google
 *     behaves the same); a pattern writes a literal '*' or '$' as %2A, %24,
 *     which match a '*' or '$' in the path (§2.2.3);
 *   - matching starts at the first octet of the path and is case-sensitive;
 *     '*' matches any run of octets; '$' at the end of a pattern anchors it
 *     (elsewhere it is a literal '$', as in Google's matcher);
 *   - the matching rule with the longest pattern (octets of the normal form,
 *     '*' and '$' included) wins; on a tie Allow wins; no match allows;
 *   - "/robots.txt" is always allowed;
 *   - cost: each rule is matched segment by segment with memmem(), O(path +
 *     pattern) per rule, so wildcard-heavy patterns ("/x*a*a*a...") cannot
 *     backtrack.
 */
#ifndef MPSEEK_ROBOTS_H
#define MPSEEK_ROBOTS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "caps.h"

#define ROBOTS_MAX_LINE 16384       /* bytes of one line; longer lines are ignored */
#define ROBOTS_MAX_RULES 10000      /* rules kept for the selected agent */
#define ROBOTS_MAX_SITEMAPS 256     /* Sitemap URLs kept */
#define ROBOTS_MAX_CRAWL_DELAY 60.0 /* seconds: robots_crawl_delay() never exceeds it */
#define ROBOTS_MAX_REDIRECTS 5      /* RFC 9309 §2.3.1.2: follow at least five */
#define ROBOTS_CACHE_SECONDS 86400  /* RFC 9309 §2.4: refetch after 24 hours */
#define ROBOTS_RETRY_SECONDS 3600   /* refetch a temporary disallow (5xx, network) */
#define ROBOTS_BLOB_VERSION 1

/* What was noticed while parsing, for the crawler's log (robots_warnings()). */
#define ROBOTS_W_TRUNCATED 0x01u         /* body longer than MAX_ROBOTS_BYTES */
#define ROBOTS_W_LONG_LINE 0x02u         /* a line longer than ROBOTS_MAX_LINE was ignored */
#define ROBOTS_W_TOO_MANY_RULES 0x04u    /* rules past ROBOTS_MAX_RULES were dropped */
#define ROBOTS_W_DELAY_CAPPED 0x08u      /* Crawl-delay above ROBOTS_MAX_CRAWL_DELAY */
#define ROBOTS_W_TOO_MANY_SITEMAPS 0x10u /* sitemaps past ROBOTS_MAX_SITEMAPS dropped */

struct robots;

/* Parse a robots.txt body (any bytes, len may exceed MAX_ROBOTS_BYTES) for
 * the product token `agent` (its leading [A-Za-z_-] run is used: "mpseek/1.2"
 * is "mpseek"; NULL or no token means only the '*' groups apply).  The result
 * is bound to that agent.  Returns malloc'd, caller frees with robots_free();
 * never NULL (a body with nothing parseable allows everything). */
struct robots *robots_parse(const char *body, size_t len, const char *agent);

/* Everything allowed (RFC 9309 §2.3.1.3 "unavailable"). Caller frees. */
struct robots *robots_allow_all(void);
/* Everything disallowed but /robots.txt; `temporary` marks an unreachable
 * robots.txt (§2.3.1.4) that should be fetched again after
 * ROBOTS_RETRY_SECONDS. Caller frees. */
struct robots *robots_disallow_all(bool temporary);

/* The fetch-outcome policy (RFC 9309 §2.3.1) as data. */
enum robots_policy {
	ROBOTS_POLICY_PARSE,         /* 2xx: parse the body (§2.3.1.1) */
	ROBOTS_POLICY_REDIRECT,      /* 301/302/303/307/308: follow, up to
	                              * ROBOTS_MAX_REDIRECTS hops (§2.3.1.2) */
	ROBOTS_POLICY_KEEP,          /* 304: the cached copy is still valid */
	ROBOTS_POLICY_ALLOW_ALL,     /* 4xx but 429 (§2.3.1.3), other 3xx */
	ROBOTS_POLICY_DISALLOW,      /* 401/403 with ROBOTS_STRICT_AUTH only */
	ROBOTS_POLICY_DISALLOW_TEMP, /* 429, 5xx, status <= 0 (network error,
	                              * timeout), 1xx, >= 600 (§2.3.1.4) */
};
/* Flag for robots_status_policy()/robots_from_status(): treat 401 and 403 as
 * "disallow all" (the 1996 draft, some crawlers) instead of RFC 9309's
 * "unavailable = allow all" (doc/HOSTILE-INPUT.md case 6). */
#define ROBOTS_STRICT_AUTH 0x1u

enum robots_policy robots_status_policy(int http_status, unsigned flags);
/* Name of a policy ("parse", "redirect", "keep", "allow-all", "disallow-all",
 * "disallow-all-temporary"); static string. */
const char *robots_policy_name(enum robots_policy p);
/* The rules to use when no body will be parsed: the crawler gave up on this
 * status (a 3xx here means the redirect limit was exceeded or the Location
 * was unusable: "unavailable" as §2.3.1.2 allows; a 2xx or 304 without a
 * usable body also means unavailable). status <= 0 = network error.
 * Caller frees. */
struct robots *robots_from_status(int http_status, unsigned flags);

/* Whether `path` (the URL's path and query, as url.h writes it: "/a/b?c";
 * a fragment is ignored, "" means "/", a missing leading '/' is added) may be
 * fetched.  r must not be NULL (NULL answers false). */
bool robots_allowed(const struct robots *r, const char *path);

/* Crawl-delay in seconds, at most ROBOTS_MAX_CRAWL_DELAY; < 0 when none. */
double robots_crawl_delay(const struct robots *r);
/* Crawl-delay as written (saturated at ~4e6 s); < 0 when none. */
double robots_crawl_delay_raw(const struct robots *r);

/* Sitemap URLs in file order; robots_sitemap() borrows from r (NULL past the
 * end). */
size_t robots_sitemap_count(const struct robots *r);
const char *robots_sitemap(const struct robots *r, size_t i);

/* The kept rules in match order (longest first, Allow before Disallow);
 * *pattern borrows from r, in normal form. 0, or -1 past the end. */
size_t robots_rule_count(const struct robots *r);
int robots_rule(const struct robots *r, size_t i, bool *allow, const char **pattern);

/* ROBOTS_W_* bits noticed by robots_parse() (kept through serialisation). */
unsigned robots_warnings(const struct robots *r);
/* True for robots_disallow_all(true) and robots_from_status(5xx...). */
bool robots_is_temporary(const struct robots *r);
/* Seconds the object may be used before robots.txt is fetched again:
 * ROBOTS_RETRY_SECONDS when temporary, else ROBOTS_CACHE_SECONDS. */
double robots_max_age(const struct robots *r);

/* Append a compact, versioned, checksummed blob of r to out (for the robots
 * table and in-memory caches). 0, or -1 if out's ceiling is reached (out is
 * then left as it was). */
int robots_serialize(const struct robots *r, struct buf *out);
/* Rebuild from a blob; NULL if it is truncated, corrupt (checksum, bounds,
 * order, characters) or of another version. Never reads past len.
 * Caller frees. */
struct robots *robots_deserialize(const void *blob, size_t len);

void robots_free(struct robots *r);

/* Parse a META robots content value ("noindex, nofollow", "NONE", "all",
 * comma or whitespace separated, case-insensitive).  Sets *noindex and/or
 * *nofollow to true when asked for ("none" sets both) and never clears them,
 * so several tags (and X-Robots-Tag) accumulate, most restrictive wins; the
 * caller starts them at false.  Unknown tokens (noarchive, max-snippet:...)
 * are ignored.  Returns 0, or -1 if an argument is NULL. */
int robots_meta_parse(const char *content, bool *noindex, bool *nofollow);

#endif
