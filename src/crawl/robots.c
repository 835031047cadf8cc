/* robots.c - robots.txt (RFC 9309): parse for one product token, longest-match
 * Allow/Disallow with '*' and '$', Crawl-delay, Sitemap, the fetch-outcome
 * policy, the cache blob, and the META robots content value.  Owns no I/O and
 * no cache: fetch.c gets the bytes, the crawler keeps the objects and blobs.
 * The choices made where RFC 9309 is loose are listed in include/robots.h.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "le.h"
#include "robots.h"
#include "util.h"

#define RF_DISALLOW_ALL 0x01u /* everything but /robots.txt is disallowed */
#define RF_TEMPORARY 0x02u    /* ... because robots.txt was unreachable */
#define RF_HAS_DELAY 0x04u    /* delay_ms is meaningful */
#define RF_ALL (RF_DISALLOW_ALL | RF_TEMPORARY | RF_HAS_DELAY)

#define ROBOTS_W_ALL                                                                               \
	(ROBOTS_W_TRUNCATED | ROBOTS_W_LONG_LINE | ROBOTS_W_TOO_MANY_RULES |                       \
	 ROBOTS_W_DELAY_CAPPED | ROBOTS_W_TOO_MANY_SITEMAPS)

#define DELAY_SAT_MS 4000000000u          /* saturation of the raw Crawl-delay */
#define MAX_PATTERN (3 * ROBOTS_MAX_LINE) /* a line's value, percent-encoded */
#define POOL_MAX (8 * MAX_ROBOTS_BYTES)   /* parse-time pattern + sitemap bytes */

struct rule {
	const char *pat; /* normal form, NUL-terminated, in robots.pool */
	uint32_t len;
	bool allow;
};

struct robots {
	unsigned flags;    /* RF_* */
	unsigned warnings; /* ROBOTS_W_* */
	uint32_t delay_ms; /* raw Crawl-delay, saturated at DELAY_SAT_MS */
	size_t nrules;
	struct rule *rules; /* match order: see rule_cmp() */
	size_t nsitemaps;
	const char **sitemaps;
	char *pool; /* every pattern and sitemap, each NUL-terminated */
};

/* ------------------------------------------------------------------------ */
/* Bytes and the normal form of paths and patterns (RFC 9309 §2.2.2).        */

static bool is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static bool is_unreserved(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

/* Bytes url.h never leaves raw in a path: controls, space, non-ASCII and the
 * RFC 3986 "unwise" characters. */
static bool must_escape(unsigned char c)
{
	return c <= 0x20 || c >= 0x7F || (c && strchr("\"<>\\^`{|}", c));
}

static const char hexdig[] = "0123456789ABCDEF";

/* Write the normal form of s[0..n) to dst (room for 3n bytes), return its
 * length.  In a path (is_path), '*' and '$' are data and are encoded so that a
 * pattern's "%2A" and "%24" match them (RFC 9309 §2.2.3); in a pattern '*'
 * stays the wildcard and a final '$' the anchor, while a '$' elsewhere is a
 * literal (as in Google's matcher) and is encoded like the path's. */
static size_t normalize(char *dst, const char *s, size_t n, bool is_path)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		int hi, lo;

		if (c == '%' && i + 2 < n && (hi = hex_value(s[i + 1])) >= 0 &&
		    (lo = hex_value(s[i + 2])) >= 0) {
			int v = hi * 16 + lo;
			if (is_unreserved(v)) {
				dst[o++] = (char)v;
			} else {
				dst[o++] = '%';
				dst[o++] = hexdig[hi];
				dst[o++] = hexdig[lo];
			}
			i += 2;
		} else if (c == '%' || must_escape(c) || (is_path && c == '*') ||
		           (c == '$' && (is_path || i + 1 < n))) {
			dst[o++] = '%';
			dst[o++] = hexdig[c >> 4];
			dst[o++] = hexdig[c & 15];
		} else {
			dst[o++] = (char)c;
		}
	}
	return o;
}

/* ------------------------------------------------------------------------ */
/* Matching (RFC 9309 §2.2.2, §2.2.3).                                       */

/* Does pattern pat[0..len) match path[0..plen)?  The pattern is cut at its
 * '*'s into literal segments: the first must be a prefix of the path, each
 * later one is found leftmost after the previous (leftmost leaves the most
 * room for the rest, so no backtracking is ever needed), and with a final
 * '$' the last one must end the path.  O(plen + len) with glibc's memmem. */
static bool match(const char *path, size_t plen, const char *pat, size_t len)
{
	bool anchored = len > 0 && pat[len - 1] == '$';
	const char *star, *p, *end;
	size_t pos, sl;

	if (anchored)
		len--;
	star = memchr(pat, '*', len);
	if (!star) {
		if (anchored)
			return plen == len && memcmp(path, pat, len) == 0;
		return plen >= len && memcmp(path, pat, len) == 0;
	}
	pos = (size_t)(star - pat);
	if (plen < pos || memcmp(path, pat, pos) != 0)
		return false;
	p = star + 1;
	end = pat + len;
	for (;;) {
		const char *next = memchr(p, '*', (size_t)(end - p));
		const char *found;

		if (!next)
			break;
		sl = (size_t)(next - p);
		if (sl) {
			found = memmem(path + pos, plen - pos, p, sl);
			if (!found)
				return false;
			pos = (size_t)(found - path) + sl;
		}
		p = next + 1;
	}
	sl = (size_t)(end - p);
	if (anchored)
		return plen - pos >= sl && memcmp(path + plen - sl, p, sl) == 0;
	return sl == 0 || memmem(path + pos, plen - pos, p, sl) != NULL;
}

/* Match order: longest pattern first (§2.2.2 "most octets"), Allow before
 * Disallow on a tie (§2.2.2 "SHOULD"), then bytes, so that the first rule
 * that matches decides and the blob is canonical. */
static int rule_cmp(const struct rule *a, const struct rule *b)
{
	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	if (a->allow != b->allow)
		return a->allow ? -1 : 1;
	return memcmp(a->pat, b->pat, a->len);
}

static int rule_qsort_cmp(const void *a, const void *b)
{
	return rule_cmp(a, b);
}

bool robots_allowed(const struct robots *r, const char *path)
{
	char small[1024], *norm = small;
	size_t n, nlen, i;
	bool slash, allowed = true;

	if (!r || !path)
		return false;
	n = strcspn(path, "#");
	slash = n == 0 || path[0] != '/';
	if ((n + 1) * 3 > sizeof(small))
		norm = xmalloc((n + 1) * 3);
	nlen = 0;
	if (slash)
		norm[nlen++] = '/';
	nlen += normalize(norm + nlen, path, n, true);

	/* §2.2.2: "The /robots.txt URI is implicitly allowed." */
	if (nlen == 11 && memcmp(norm, "/robots.txt", 11) == 0)
		goto out;
	if (r->flags & RF_DISALLOW_ALL) {
		allowed = false;
		goto out;
	}
	for (i = 0; i < r->nrules; i++) {
		if (match(norm, nlen, r->rules[i].pat, r->rules[i].len)) {
			allowed = r->rules[i].allow;
			break;
		}
	}
out:
	if (norm != small)
		free(norm);
	return allowed;
}

/* ------------------------------------------------------------------------ */
/* Objects.                                                                  */

/* Build the canonical object: rules sorted and deduplicated, everything
 * copied into one pool.  `rules` is sorted in place; its patterns and the
 * sitemaps are borrowed. */
static struct robots *build(unsigned flags, unsigned warnings, uint32_t delay_ms,
                            struct rule *rules, size_t nrules, const char *const *sm,
                            const size_t *smlen, size_t nsm)
{
	struct robots *r = xcalloc(1, sizeof(*r));
	size_t i, total = 1, o = 0;

	r->flags = flags;
	r->warnings = warnings;
	r->delay_ms = delay_ms;
	if (nrules > 1)
		qsort(rules, nrules, sizeof(*rules), rule_qsort_cmp);
	for (i = 0; i < nrules; i++)
		total += rules[i].len + 1;
	for (i = 0; i < nsm; i++)
		total += smlen[i] + 1;
	r->pool = xmalloc(total);
	r->rules = xcalloc(nrules ? nrules : 1, sizeof(*r->rules));
	r->sitemaps = xcalloc(nsm ? nsm : 1, sizeof(*r->sitemaps));
	for (i = 0; i < nrules; i++) {
		/* §2.2.2: "Duplicate rules in a group MAY be deduplicated." */
		if (i && rule_cmp(&rules[i - 1], &rules[i]) == 0)
			continue;
		memcpy(r->pool + o, rules[i].pat, rules[i].len);
		r->pool[o + rules[i].len] = '\0';
		r->rules[r->nrules].pat = r->pool + o;
		r->rules[r->nrules].len = rules[i].len;
		r->rules[r->nrules].allow = rules[i].allow;
		r->nrules++;
		o += rules[i].len + 1;
	}
	for (i = 0; i < nsm; i++) {
		memcpy(r->pool + o, sm[i], smlen[i]);
		r->pool[o + smlen[i]] = '\0';
		r->sitemaps[r->nsitemaps++] = r->pool + o;
		o += smlen[i] + 1;
	}
	return r;
}

struct robots *robots_allow_all(void)
{
	return build(0, 0, 0, NULL, 0, NULL, NULL, 0);
}

struct robots *robots_disallow_all(bool temporary)
{
	return build(RF_DISALLOW_ALL | (temporary ? RF_TEMPORARY : 0), 0, 0, NULL, 0, NULL, NULL,
	             0);
}

void robots_free(struct robots *r)
{
	if (!r)
		return;
	free(r->rules);
	free(r->sitemaps);
	free(r->pool);
	free(r);
}

double robots_crawl_delay(const struct robots *r)
{
	double d = robots_crawl_delay_raw(r);
	return d > ROBOTS_MAX_CRAWL_DELAY ? ROBOTS_MAX_CRAWL_DELAY : d;
}

double robots_crawl_delay_raw(const struct robots *r)
{
	if (!r || !(r->flags & RF_HAS_DELAY))
		return -1;
	return r->delay_ms / 1000.0;
}

size_t robots_sitemap_count(const struct robots *r)
{
	return r ? r->nsitemaps : 0;
}

const char *robots_sitemap(const struct robots *r, size_t i)
{
	return r && i < r->nsitemaps ? r->sitemaps[i] : NULL;
}

size_t robots_rule_count(const struct robots *r)
{
	return r ? r->nrules : 0;
}

int robots_rule(const struct robots *r, size_t i, bool *allow, const char **pattern)
{
	if (!r || i >= r->nrules)
		return -1;
	if (allow)
		*allow = r->rules[i].allow;
	if (pattern)
		*pattern = r->rules[i].pat;
	return 0;
}

unsigned robots_warnings(const struct robots *r)
{
	return r ? r->warnings : 0;
}

bool robots_is_temporary(const struct robots *r)
{
	return r && (r->flags & RF_TEMPORARY);
}

double robots_max_age(const struct robots *r)
{
	return robots_is_temporary(r) ? ROBOTS_RETRY_SECONDS : ROBOTS_CACHE_SECONDS;
}

/* ------------------------------------------------------------------------ */
/* Fetch outcomes (RFC 9309 §2.3.1).                                         */

enum robots_policy robots_status_policy(int status, unsigned flags)
{
	if (status >= 200 && status <= 299)
		return ROBOTS_POLICY_PARSE; /* §2.3.1.1 */
	if (status >= 300 && status <= 399) {
		if (status == 304)
			return ROBOTS_POLICY_KEEP;
		if (status == 301 || status == 302 || status == 303 || status == 307 ||
		    status == 308)
			return ROBOTS_POLICY_REDIRECT; /* §2.3.1.2 */
		return ROBOTS_POLICY_ALLOW_ALL;        /* 300, 305, 306: nothing to follow */
	}
	if (status >= 400 && status <= 499) {
		/* 429 is the server asking us to slow down: not "unavailable". */
		if (status == 429)
			return ROBOTS_POLICY_DISALLOW_TEMP;
		if ((flags & ROBOTS_STRICT_AUTH) && (status == 401 || status == 403))
			return ROBOTS_POLICY_DISALLOW;
		return ROBOTS_POLICY_ALLOW_ALL; /* §2.3.1.3 */
	}
	/* 5xx (§2.3.1.4), network errors (<= 0), and statuses that make no sense
	 * for a final answer (1xx, >= 600): the file is unreachable. */
	return ROBOTS_POLICY_DISALLOW_TEMP;
}

const char *robots_policy_name(enum robots_policy p)
{
	switch (p) {
	case ROBOTS_POLICY_PARSE:
		return "parse";
	case ROBOTS_POLICY_REDIRECT:
		return "redirect";
	case ROBOTS_POLICY_KEEP:
		return "keep";
	case ROBOTS_POLICY_ALLOW_ALL:
		return "allow-all";
	case ROBOTS_POLICY_DISALLOW:
		return "disallow-all";
	case ROBOTS_POLICY_DISALLOW_TEMP:
		return "disallow-all-temporary";
	}
	return "?";
}

struct robots *robots_from_status(int status, unsigned flags)
{
	switch (robots_status_policy(status, flags)) {
	case ROBOTS_POLICY_DISALLOW:
		return robots_disallow_all(false);
	case ROBOTS_POLICY_DISALLOW_TEMP:
		return robots_disallow_all(true);
	default:
		return robots_allow_all();
	}
}

/* ------------------------------------------------------------------------ */
/* Parsing (RFC 9309 §2.1, §2.2).                                            */

enum key { K_NONE, K_AGENT, K_ALLOW, K_DISALLOW, K_DELAY, K_SITEMAP, K_OTHER };

static const struct {
	const char *name;
	enum key key;
} keys[] = {
    {"user-agent", K_AGENT},  {"useragent", K_AGENT},   {"user agent", K_AGENT},
    {"allow", K_ALLOW},       {"disallow", K_DISALLOW}, {"dissallow", K_DISALLOW},
    {"dissalow", K_DISALLOW}, {"disalow", K_DISALLOW},  {"diasllow", K_DISALLOW},
    {"disallaw", K_DISALLOW}, {"crawl-delay", K_DELAY}, {"crawldelay", K_DELAY},
    {"sitemap", K_SITEMAP},   {"site-map", K_SITEMAP},
};

/* A rule while parsing: its pattern lives at pool offset `off` (the pool may
 * move while it grows). */
struct prule {
	size_t off;
	uint32_t len;
	bool allow;
};

/* The merged rules of the groups naming us, or of the '*' groups. */
struct ruleset {
	struct prule *v;
	size_t n, alloc;
	bool dropped; /* rules past ROBOTS_MAX_RULES */
	bool has_delay;
	uint32_t delay_ms; /* the largest Crawl-delay seen */
};

struct parser {
	const char *agent; /* our product token, agent_len bytes */
	size_t agent_len;
	struct buf pool;
	struct ruleset spec, glob;
	bool in_agents;          /* the last group line was a user-agent line */
	bool cur_spec, cur_glob; /* the current group names us / '*' */
	bool seen_spec;          /* some group named us (§2.2.1: then '*' is ignored) */
	size_t *sm_off, *sm_len, nsm;
	unsigned warnings;
	char *scratch; /* MAX_PATTERN bytes */
};

static void trim(const char **s, size_t *n)
{
	while (*n && is_ws((unsigned char)**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_ws((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

static size_t token_len(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
	                 s[i] == '-' || s[i] == '_'))
		i++;
	return i;
}

/* Crawl-delay: "10", "0.5", ".5", "5."; anything else is ignored.  Milliseconds,
 * saturated at DELAY_SAT_MS; digits past the third decimal are dropped. */
static int parse_delay(const char *s, size_t n, uint32_t *ms)
{
	uint64_t whole = 0, frac = 0;
	size_t i = 0, digits = 0, fd = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		if (whole < DELAY_SAT_MS)
			whole = whole * 10 + (uint64_t)(s[i] - '0');
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			if (fd < 3) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				fd++;
			}
	}
	if (i != n || digits == 0)
		return -1;
	while (fd < 3) {
		frac *= 10;
		fd++;
	}
	whole = whole >= DELAY_SAT_MS / 1000 ? DELAY_SAT_MS : whole * 1000 + frac;
	*ms = whole > DELAY_SAT_MS ? DELAY_SAT_MS : (uint32_t)whole;
	return 0;
}

static void add_rule(struct parser *p, struct ruleset *set, bool allow, const char *v, size_t n)
{
	size_t len;

	if (set->n >= ROBOTS_MAX_RULES) {
		set->dropped = true;
		return;
	}
	len = normalize(p->scratch, v, n, false);
	if (buf_add(&p->pool, p->scratch, len) < 0 || buf_addc(&p->pool, '\0') < 0)
		return; /* cannot happen: POOL_MAX is above the worst case */
	if (set->n == set->alloc) {
		set->alloc = set->alloc ? set->alloc * 2 : 16;
		set->v = xrealloc(set->v, set->alloc * sizeof(*set->v));
	}
	set->v[set->n].off = p->pool.len - len - 1;
	set->v[set->n].len = (uint32_t)len;
	set->v[set->n].allow = allow;
	set->n++;
}

static bool sitemap_ok(const char *v, size_t n)
{
	size_t i;

	if (n == 0 || n > MAX_URL_LEN)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7F)
			return false;
	return true;
}

static void add_sitemap(struct parser *p, const char *v, size_t n)
{
	size_t i;

	if (!sitemap_ok(v, n))
		return;
	for (i = 0; i < p->nsm; i++)
		if (p->sm_len[i] == n && memcmp(p->pool.ptr + p->sm_off[i], v, n) == 0)
			return;
	if (p->nsm >= ROBOTS_MAX_SITEMAPS) {
		p->warnings |= ROBOTS_W_TOO_MANY_SITEMAPS;
		return;
	}
	if (buf_add(&p->pool, v, n) < 0 || buf_addc(&p->pool, '\0') < 0)
		return;
	if (!p->sm_off) {
		p->sm_off = xmalloc(ROBOTS_MAX_SITEMAPS * sizeof(*p->sm_off));
		p->sm_len = xmalloc(ROBOTS_MAX_SITEMAPS * sizeof(*p->sm_len));
	}
	p->sm_off[p->nsm] = p->pool.len - n - 1;
	p->sm_len[p->nsm] = n;
	p->nsm++;
}

static enum key parse_key(const char *k, size_t n)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i].name) == n && ascii_ncasecmp(k, keys[i].name, n) == 0)
			return keys[i].key;
	return K_OTHER;
}

/* Split "key: value" (or Google's colon-less "key value", exactly two words)
 * after dropping the comment and outer blanks.  K_NONE if not a record. */
static enum key split_line(const char *line, size_t n, const char **val, size_t *vlen)
{
	const char *hash = memchr(line, '#', n), *colon, *k;
	size_t klen;

	if (hash)
		n = (size_t)(hash - line);
	trim(&line, &n);
	if (!n)
		return K_NONE;
	colon = memchr(line, ':', n);
	if (colon) {
		klen = (size_t)(colon - line);
		*val = colon + 1;
		*vlen = n - klen - 1;
	} else {
		size_t i = 0, j;
		while (i < n && !is_ws((unsigned char)line[i]))
			i++;
		if (i == n)
			return K_NONE;
		klen = i;
		for (j = i; j < n && is_ws((unsigned char)line[j]); j++)
			;
		for (i = j; i < n; i++)
			if (is_ws((unsigned char)line[i]))
				return K_NONE; /* three words or more */
		*val = line + j;
		*vlen = n - j;
	}
	k = line;
	trim(&k, &klen);
	trim(val, vlen);
	if (!klen)
		return K_NONE;
	return parse_key(k, klen);
}

static void parse_line(struct parser *p, const char *line, size_t n)
{
	const char *v = NULL;
	size_t vn = 0;
	enum key key = split_line(line, n, &v, &vn);
	struct ruleset *set;

	switch (key) {
	case K_NONE:
		return;
	case K_SITEMAP:
		/* §2.2.4: other records must not end a group; Sitemap is global. */
		add_sitemap(p, v, vn);
		return;
	case K_AGENT:
		if (!p->in_agents) {
			p->cur_spec = p->cur_glob = false;
			p->in_agents = true;
		}
		if (vn >= 1 && v[0] == '*' && (vn == 1 || is_ws((unsigned char)v[1]))) {
			p->cur_glob = true;
		} else {
			size_t t = token_len(v, vn);
			if (p->agent_len && t == p->agent_len &&
			    ascii_ncasecmp(v, p->agent, t) == 0)
				p->cur_spec = p->seen_spec = true;
		}
		return;
	default:
		break;
	}

	/* Allow, Disallow, Crawl-delay and unknown records are group members:
	 * the next user-agent line starts a new group (as in Google's parser;
	 * "User-agent: *\nCrawl-delay: 5\nUser-agent: x\nDisallow: /" is two
	 * groups). Rules outside any group are ignored (§2.2.2). */
	p->in_agents = false;
	if (!p->cur_spec && !p->cur_glob)
		return;
	set = p->cur_spec ? &p->spec : &p->glob;
	switch (key) {
	case K_ALLOW:
	case K_DISALLOW:
		if (vn) /* empty-pattern: no rule (§2.2) */
			add_rule(p, set, key == K_ALLOW, v, vn);
		break;
	case K_DELAY: {
		uint32_t ms;
		if (parse_delay(v, vn, &ms) == 0 && (!set->has_delay || ms > set->delay_ms)) {
			set->has_delay = true;
			set->delay_ms = ms;
		}
		break;
	}
	default:
		break;
	}
}

static void parse_body(struct parser *p, const unsigned char *s, size_t len)
{
	static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
	size_t i = 0, start;

	if (len > MAX_ROBOTS_BYTES) {
		/* §2.5: parse at least 500 KiB; drop the line cut by the limit. */
		p->warnings |= ROBOTS_W_TRUNCATED;
		len = MAX_ROBOTS_BYTES;
		while (len && s[len - 1] != '\n' && s[len - 1] != '\r')
			len--;
	}
	/* A UTF-8 BOM (or a prefix of one, as Google's parser skips) is not text. */
	while (i < len && i < sizeof(bom) && s[i] == bom[i])
		i++;
	for (start = i; i <= len; i++) {
		if (i < len && s[i] != '\n' && s[i] != '\r')
			continue;
		/* CR, LF and CRLF all end a line (§2.2 NL); the empty "line"
		 * between CR and LF changes nothing. */
		if (i - start > ROBOTS_MAX_LINE)
			p->warnings |= ROBOTS_W_LONG_LINE;
		else if (i > start)
			parse_line(p, (const char *)s + start, i - start);
		start = i + 1;
	}
}

struct robots *robots_parse(const char *body, size_t len, const char *agent)
{
	struct parser p;
	struct ruleset *set;
	struct rule *rules = NULL;
	const char **sm = NULL;
	struct robots *r;
	unsigned flags = 0;
	size_t i;

	memset(&p, 0, sizeof(p));
	buf_init(&p.pool, POOL_MAX);
	p.scratch = xmalloc(MAX_PATTERN);
	if (agent) {
		p.agent = agent;
		p.agent_len = token_len(agent, strlen(agent));
	}
	if (body)
		parse_body(&p, (const unsigned char *)body, len);

	/* §2.2.1: the groups naming us, merged; else the '*' groups; else none. */
	set = p.seen_spec ? &p.spec : &p.glob;
	if (set->dropped)
		p.warnings |= ROBOTS_W_TOO_MANY_RULES;
	if (set->has_delay) {
		flags |= RF_HAS_DELAY;
		if (set->delay_ms > ROBOTS_MAX_CRAWL_DELAY * 1000)
			p.warnings |= ROBOTS_W_DELAY_CAPPED;
	}
	rules = xcalloc(set->n ? set->n : 1, sizeof(*rules));
	for (i = 0; i < set->n; i++) {
		rules[i].pat = p.pool.ptr + set->v[i].off;
		rules[i].len = set->v[i].len;
		rules[i].allow = set->v[i].allow;
	}
	sm = xcalloc(p.nsm ? p.nsm : 1, sizeof(*sm));
	for (i = 0; i < p.nsm; i++)
		sm[i] = p.pool.ptr + p.sm_off[i];
	r = build(flags, p.warnings, set->has_delay ? set->delay_ms : 0, rules, set->n, sm,
	          p.sm_len, p.nsm);

	free(sm);
	free(rules);
	free(p.spec.v);
	free(p.glob.v);
	free(p.sm_off);
	free(p.sm_len);
	free(p.scratch);
	buf_free(&p.pool);
	return r;
}

/* ------------------------------------------------------------------------ */
/* The blob.  Little-endian, fixed layout (version 1):                      */
/*   "MPRB" version:u8 flags:u8 warnings:u8 0:u8 delay_ms:u32               */
/*   nrules:u32 nsitemaps:u32                                               */
/*   nrules x { allow:u8 len:u16 pattern[len] }   (match order)             */
/*   nsitemaps x { len:u16 url[len] }                                       */
/*   fnv1a32 of everything before:u32                                       */

#define BLOB_MAGIC "MPRB"
#define BLOB_HEADER 20
#define BLOB_MIN (BLOB_HEADER + 4)

_Static_assert(MAX_PATTERN <= 0xFFFF, "pattern length must fit the blob's u16");
_Static_assert(MAX_URL_LEN <= 0xFFFF, "sitemap length must fit the blob's u16");

int robots_serialize(const struct robots *r, struct buf *out)
{
	unsigned char *blob = NULL;
	size_t size = BLOB_MIN, o, i, n;
	int rc = -1;

	if (!r || !out)
		return -1;
	for (i = 0; i < r->nrules; i++)
		size += 3 + r->rules[i].len;
	for (i = 0; i < r->nsitemaps; i++)
		size += 2 + strlen(r->sitemaps[i]);
	blob = xmalloc(size);
	memcpy(blob, BLOB_MAGIC, 4);
	blob[4] = ROBOTS_BLOB_VERSION;
	blob[5] = (unsigned char)r->flags;
	blob[6] = (unsigned char)r->warnings;
	blob[7] = 0;
	le_put32(blob + 8, r->delay_ms);
	le_put32(blob + 12, (uint32_t)r->nrules);
	le_put32(blob + 16, (uint32_t)r->nsitemaps);
	o = BLOB_HEADER;
	for (i = 0; i < r->nrules; i++) {
		blob[o] = r->rules[i].allow;
		le_put16(blob + o + 1, r->rules[i].len);
		memcpy(blob + o + 3, r->rules[i].pat, r->rules[i].len);
		o += 3 + r->rules[i].len;
	}
	for (i = 0; i < r->nsitemaps; i++) {
		n = strlen(r->sitemaps[i]);
		le_put16(blob + o, (uint32_t)n);
		memcpy(blob + o + 2, r->sitemaps[i], n);
		o += 2 + n;
	}
	le_put32(blob + o, fnv1a32(blob, o));
	if (buf_add(out, blob, size) < 0)
		goto out;
	rc = 0;
out:
	free(blob);
	return rc;
}

static bool is_upper_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F');
}

/* Is p[0..n) a pattern robots_parse() could have written, i.e. in normal
 * form (normalize() would leave it unchanged)? */
static bool pattern_ok(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || n > MAX_PATTERN)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '%') {
			if (i + 2 >= n || !is_upper_hex(p[i + 1]) || !is_upper_hex(p[i + 2]) ||
			    is_unreserved(hex_value(p[i + 1]) * 16 + hex_value(p[i + 2])))
				return false;
			i += 2;
		} else if (must_escape(c) || (c == '$' && i + 1 < n)) {
			return false;
		}
	}
	return true;
}

struct robots *robots_deserialize(const void *data, size_t len)
{
	const unsigned char *b = data;
	struct rule *rules = NULL;
	const char **sm = NULL;
	size_t *smlen = NULL;
	struct robots *r = NULL;
	unsigned flags, warnings;
	uint32_t delay, nrules, nsm;
	size_t o, end, i;

	if (!b || len < BLOB_MIN || memcmp(b, BLOB_MAGIC, 4) != 0 || b[4] != ROBOTS_BLOB_VERSION)
		return NULL;
	end = len - 4;
	if (fnv1a32(b, end) != le_get32(b + end))
		return NULL;
	flags = b[5];
	warnings = b[6];
	delay = le_get32(b + 8);
	nrules = le_get32(b + 12);
	nsm = le_get32(b + 16);
	if ((flags & ~RF_ALL) || (warnings & ~ROBOTS_W_ALL) || b[7] != 0 || delay > DELAY_SAT_MS ||
	    (!(flags & RF_HAS_DELAY) && delay) ||
	    ((flags & RF_TEMPORARY) && !(flags & RF_DISALLOW_ALL)) ||
	    ((flags & RF_DISALLOW_ALL) && nrules) || nrules > ROBOTS_MAX_RULES ||
	    nsm > ROBOTS_MAX_SITEMAPS)
		return NULL;

	rules = xcalloc(nrules ? nrules : 1, sizeof(*rules));
	sm = xcalloc(nsm ? nsm : 1, sizeof(*sm));
	smlen = xcalloc(nsm ? nsm : 1, sizeof(*smlen));
	o = BLOB_HEADER;
	for (i = 0; i < nrules; i++) {
		if (end - o < 3 || b[o] > 1)
			goto out;
		rules[i].allow = b[o];
		rules[i].len = le_get16(b + o + 1);
		rules[i].pat = (const char *)b + o + 3;
		o += 3;
		if (end - o < rules[i].len || !pattern_ok(rules[i].pat, rules[i].len))
			goto out;
		/* Canonical: strictly in match order, so no duplicates either. */
		if (i && rule_cmp(&rules[i - 1], &rules[i]) >= 0)
			goto out;
		o += rules[i].len;
	}
	for (i = 0; i < nsm; i++) {
		if (end - o < 2)
			goto out;
		smlen[i] = le_get16(b + o);
		sm[i] = (const char *)b + o + 2;
		o += 2;
		if (end - o < smlen[i] || !sitemap_ok(sm[i], smlen[i]))
			goto out;
		o += smlen[i];
	}
	if (o != end)
		goto out;
	r = build(flags, warnings, delay, rules, nrules, sm, smlen, nsm);
out:
	free(smlen);
	free(sm);
	free(rules);
	return r;
}

/* ------------------------------------------------------------------------ */
/* META robots (the content attribute; html.c finds the tag).               */

int robots_meta_parse(const char *content, bool *noindex, bool *nofollow)
{
	const char *s = content;

	if (!content || !noindex || !nofollow)
		return -1;
	while (*s) {
		size_t n = strcspn(s, ", ;\t\r\n\v\f");
		if (n == 7 && ascii_ncasecmp(s, "noindex", 7) == 0)
			*noindex = true;
		else if (n == 8 && ascii_ncasecmp(s, "nofollow", 8) == 0)
			*nofollow = true;
		else if (n == 4 && ascii_ncasecmp(s, "none", 4) == 0)
			*noindex = *nofollow = true;
		/* "all", "index", "follow" ask for the default; others are not ours. */
		s += n;
		if (*s)
			s++;
	}
	return 0;
}
