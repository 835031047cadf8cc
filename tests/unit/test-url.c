/* test-url.c - url.c against the tables in tests/data/url/: normal forms,
 * RFC 3986 §5.4 resolution, components, site keys and trap heuristics.
 *
 * Expected-result columns: a URL, or "ERR" followed by a substring of the
 * reason, or "NOCRAWL" for a well-formed URL of a scheme we do not fetch.
 * Every successful result is also checked to be a fixpoint of url_normalize.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "tap.h"
#include "url.h"
#include "util.h"

/* Check rc/out/why of one call against the expected columns f[0..n). */
static void expect(const char *what, int lineno, int rc, const struct buf *out, const char *why,
                   char **f, int n)
{
	if (n >= 1 && strcmp(f[0], "ERR") == 0) {
		const char *sub = n >= 2 ? f[1] : "";
		if (!ok(rc == -1 && why && strstr(why, sub), "%s:%d refused (%s)", what, lineno,
		        sub))
			diag("  rc %d, why \"%s\", out \"%s\"", rc, rc ? why : "", buf_str(out));
		return;
	}
	if (n >= 1 && strcmp(f[0], "NOCRAWL") == 0) {
		if (!ok(rc == URL_NOT_CRAWLABLE, "%s:%d not crawlable", what, lineno))
			diag("  rc %d, out \"%s\"", rc, buf_str(out));
		return;
	}
	if (!ok(rc == 0, "%s:%d accepted", what, lineno)) {
		diag("  rc %d, why \"%s\"", rc, why ? why : "");
		return;
	}
	is_str(buf_str(out), n >= 1 ? f[0] : "", "%s:%d result", what, lineno);
}

/* The shortcuts for URLs already in the normal form give what the general
 * functions give: url_site_len() and url_site(), url_trap_check_normal() and
 * url_trap_check() (verdict and reason). */
static void check_normal_paths(const char *what, int lineno, const char *s)
{
	struct buf site = BUF_INIT(MAX_SITE_LEN);
	const char *why1 = NULL, *why2 = NULL;
	size_t n = url_site_len(s);
	int rc1, rc2;

	ok(url_site(s, &site, NULL) == 0 && n == site.len && !strncmp(s, buf_str(&site), n),
	   "%s:%d url_site_len() is url_site()'s length (%zu)", what, lineno, n);
	rc1 = url_trap_check(s, &why1);
	rc2 = url_trap_check_normal(s, &why2);
	ok(rc1 == rc2 && (rc1 == 0 || (why1 && why2 && !strcmp(why1, why2))),
	   "%s:%d url_trap_check_normal() is url_trap_check() (%d %s)", what, lineno, rc1,
	   rc1 && why1 ? why1 : "");
	buf_free(&site);
}

/* The result must be its own normal form, bounded, without controls. */
static void check_fixpoint(const char *what, int lineno, const char *s)
{
	struct buf again = BUF_INIT(MAX_URL_LEN);
	const char *why = NULL;
	const unsigned char *p;
	int clean = 1;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f)
			clean = 0;
	ok(clean && strlen(s) <= MAX_URL_LEN, "%s:%d result is printable ASCII, bounded", what,
	   lineno);
	if (url_normalize(s, &again, &why) == 0)
		is_str(buf_str(&again), s, "%s:%d result is a fixpoint", what, lineno);
	else
		ok(0, "%s:%d result is a fixpoint (%s)", what, lineno, why);
	check_normal_paths(what, lineno, s);
	buf_free(&again);
}

/* normalize.tsv: input, expected */
static void normalize_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf out = BUF_INIT(MAX_URL_LEN);
	const char *why = NULL;
	int rc;

	UNUSED(len);
	UNUSED(arg);
	if (!ok(n >= 2, "normalize:%d has 2 fields", lineno))
		return;
	rc = url_normalize(f[0], &out, &why);
	expect("normalize", lineno, rc, &out, why, f + 1, n - 1);
	if (rc == 0)
		check_fixpoint("normalize", lineno, buf_str(&out));
	if (rc == -1)
		ok(out.len == 0, "normalize:%d output empty on failure", lineno);
	buf_free(&out);
}

/* resolve.tsv: base, reference, expected */
static void resolve_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf out = BUF_INIT(MAX_URL_LEN);
	const char *why = NULL;
	int rc;

	UNUSED(len);
	UNUSED(arg);
	if (!ok(n >= 3, "resolve:%d has 3 fields", lineno))
		return;
	rc = url_resolve(f[0], f[1], &out, &why);
	expect("resolve", lineno, rc, &out, why, f + 2, n - 2);
	if (rc == 0)
		check_fixpoint("resolve", lineno, buf_str(&out));
	buf_free(&out);
}

/* site.tsv: url, site key, request target (robots.txt matching) */
static void site_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf out = BUF_INIT(MAX_SITE_LEN), robots = BUF_INIT(MAX_URL_LEN);
	const char *why = NULL;
	int rc;

	UNUSED(len);
	UNUSED(arg);
	if (!ok(n >= 2, "site:%d has 2 fields", lineno))
		goto out;
	rc = url_site(f[0], &out, &why);
	expect("site", lineno, rc, &out, why, f + 1, n - 1);
	if (rc)
		goto out;
	ok(url_same_site(f[0], buf_str(&out)), "site:%d same site as its key", lineno);
	if (url_robots_url(f[0], &robots, &why) == 0) {
		ok(strncmp(buf_str(&robots), buf_str(&out), out.len) == 0 &&
		       strcmp(buf_str(&robots) + out.len, "robots.txt") == 0,
		   "site:%d robots.txt URL", lineno);
		ok(url_is_robots(buf_str(&robots)), "site:%d robots.txt URL is robots", lineno);
	} else {
		ok(0, "site:%d robots.txt URL (%s)", lineno, why);
	}
	if (n >= 3) {
		buf_free(&out);
		buf_init(&out, MAX_URL_LEN);
		rc = url_request_target(f[0], &out, &why);
		expect("target", lineno, rc, &out, why, f + 2, n - 2);
	}
out:
	buf_free(&out);
	buf_free(&robots);
}

/* same-site.tsv: a, b, yes|no */
static void same_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	UNUSED(len);
	UNUSED(arg);
	if (!ok(n >= 3, "same-site:%d has 3 fields", lineno))
		return;
	is_int(url_same_site(f[0], f[1]), strcmp(f[2], "yes") == 0, "same-site:%d", lineno);
	is_int(url_same_site(f[1], f[0]), strcmp(f[2], "yes") == 0, "same-site:%d symmetric",
	       lineno);
}

/* robots.tsv: url, yes|no for url_is_robots */
static void robots_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	UNUSED(len);
	UNUSED(arg);
	if (!ok(n >= 2, "robots:%d has 2 fields", lineno))
		return;
	is_int(url_is_robots(f[0]), strcmp(f[1], "yes") == 0, "robots:%d %s", lineno, f[0]);
}

/* parse.tsv: url, scheme, userinfo, host, port, path, query, fragment
 * ("-" for absent), or url, ERR, reason, or url, NOCRAWL, scheme. */
static void parse_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	static const char *const name[] = {"scheme", "userinfo", "host",    "port",
	                                   "path",   "query",    "fragment"};
	struct url u;
	const char *why = NULL, *got[7];
	char port[16];
	int rc, i;

	UNUSED(len);
	UNUSED(arg);
	rc = url_parse(f[0], &u, &why);
	if (n >= 2 && strcmp(f[1], "ERR") == 0) {
		ok(rc == -1 && why && n >= 3 && strstr(why, f[2]) && !u.scheme && !u.host,
		   "parse:%d refused (%s)", lineno, n >= 3 ? f[2] : "");
		goto out;
	}
	if (n >= 2 && strcmp(f[1], "NOCRAWL") == 0) {
		ok(rc == URL_NOT_CRAWLABLE && u.scheme && n >= 3 && strcmp(u.scheme, f[2]) == 0 &&
		       !u.host,
		   "parse:%d not crawlable, scheme %s", lineno, n >= 3 ? f[2] : "");
		goto out;
	}
	if (!ok(rc == 0 && n == 8, "parse:%d accepted, 8 fields", lineno)) {
		diag("  rc %d, why \"%s\", %d fields", rc, why ? why : "", n);
		goto out;
	}
	snprintf(port, sizeof(port), "%d", u.port);
	got[0] = u.scheme;
	got[1] = u.userinfo;
	got[2] = u.host;
	got[3] = port;
	got[4] = u.path;
	got[5] = u.query;
	got[6] = u.fragment;
	for (i = 0; i < 7; i++)
		is_str(got[i], strcmp(f[i + 1], "-") == 0 ? NULL : f[i + 1], "parse:%d %s", lineno,
		       name[i]);
	{
		struct buf b = BUF_INIT(MAX_URL_LEN);
		url_normalize(f[0], &b, NULL);
		is_str(u.href, buf_str(&b), "parse:%d href is the normal form", lineno);
		buf_free(&b);
	}
out:
	url_free(&u);
}

/* traps.tsv: url, OK | TRAP reason-substring | ERR reason-substring */
static void trap_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	const char *why = NULL;
	int rc;

	UNUSED(len);
	UNUSED(arg);
	if (!ok(n >= 2, "traps:%d has 2 fields", lineno))
		return;
	rc = url_trap_check(f[0], &why);
	{
		struct buf norm = BUF_INIT(MAX_URL_LEN);

		if (url_normalize(f[0], &norm, NULL) == 0)
			check_normal_paths("traps", lineno, buf_str(&norm));
		buf_free(&norm);
	}
	if (strcmp(f[1], "OK") == 0) {
		if (!ok(rc == 0, "traps:%d not a trap", lineno))
			diag("  why \"%s\"", why ? why : "");
		return;
	}
	if (!ok(rc == -1 && why && n >= 3 && strstr(why, f[2]), "traps:%d %s (%s)", lineno, f[1],
	        n >= 3 ? f[2] : ""))
		diag("  rc %d, why \"%s\"", rc, rc && why ? why : "");
}

/* Things a table cannot say: NUL-safe destructors, small output buffers,
 * lengths at the ceiling. */
static void edge_cases(void)
{
	struct buf out = BUF_INIT(MAX_URL_LEN), tiny = BUF_INIT(8);
	struct buf big = BUF_INIT(4 * URL_MAX_INPUT);
	const char *why = NULL;
	struct url u;

	url_free(NULL);
	ok(url_normalize("http://example.com/a/b", &tiny, &why) == -1 && tiny.len == 0,
	   "small output buffer refused and left empty");
	buf_free(&tiny);

	/* exactly MAX_URL_LEN after normalisation is fine, one more is not */
	buf_adds(&big, "http://e.com/");
	while (big.len < MAX_URL_LEN)
		buf_addc(&big, 'a');
	ok(url_normalize(buf_str(&big), &out, &why) == 0 && out.len == MAX_URL_LEN,
	   "URL of MAX_URL_LEN bytes accepted");
	buf_addc(&big, 'a');
	ok(url_normalize(buf_str(&big), &out, &why) == -1 && strstr(why, "too long"),
	   "URL of MAX_URL_LEN+1 bytes refused");
	/* long before normalisation, short after: dot segments */
	buf_reset(&big);
	buf_adds(&big, "http://e.com/");
	while (big.len < 3 * MAX_URL_LEN)
		buf_adds(&big, "a/../");
	ok(url_normalize(buf_str(&big), &out, &why) == 0 &&
	       strcmp(buf_str(&out), "http://e.com/") == 0,
	   "long input that normalises short is accepted");
	/* spaces triple in length when encoded */
	buf_reset(&big);
	buf_adds(&big, "http://e.com/");
	while (big.len < MAX_URL_LEN / 2)
		buf_addc(&big, ' ');
	buf_addc(&big, 'x');
	ok(url_normalize(buf_str(&big), &out, &why) == -1 && strstr(why, "too long"),
	   "input that grows past MAX_URL_LEN when encoded is refused");
	/* the 10 kB URL of doc/HOSTILE-INPUT.md case 10 */
	buf_reset(&big);
	buf_adds(&big, "http://e.com/");
	while (big.len < 10240)
		buf_addc(&big, 'x');
	ok(url_normalize(buf_str(&big), &out, &why) == -1 && strstr(why, "too long"),
	   "10 kB URL refused");
	ok(url_resolve("http://e.com/", buf_str(&big), &out, &why) == -1,
	   "10 kB reference refused");
	/* far past URL_MAX_INPUT */
	while (big.len < URL_MAX_INPUT + 10)
		buf_addc(&big, 'x');
	ok(url_normalize(buf_str(&big), &out, &why) == -1 && strstr(why, "too long"),
	   "input past URL_MAX_INPUT refused early");
	ok(url_trap_check(buf_str(&big), &why) == -1, "overlong URL fails the trap check");

	ok(url_parse("ftp://x/y", &u, &why) == URL_NOT_CRAWLABLE && strcmp(u.scheme, "ftp") == 0,
	   "url_parse reports the scheme of a non-crawlable URL");
	url_free(&u);
	ok(u.scheme == NULL, "url_free zeroes");
	url_free(&u);

	ok(url_resolve("mailto:a@b", "x", &out, &why) == -1 && strstr(why, "base"),
	   "relative reference against a non-http base refused");
	ok(url_resolve("not a url", "http://e.com/x", &out, &why) == 0 &&
	       strcmp(buf_str(&out), "http://e.com/x") == 0,
	   "absolute reference does not need the base");
	ok(url_normalize("http://e.com/", &out, NULL) == 0, "why may be NULL");
	ok(url_normalize("http://e.com/\x01", &out, NULL) == -1, "why may be NULL on failure");
	buf_free(&out);
	buf_free(&big);
}

int main(void)
{
	int n;

	n = tap_lines("url/normalize.tsv", normalize_case, NULL);
	ok(n >= 80, "normalize.tsv has at least 80 cases (%d)", n);
	n = tap_lines("url/resolve.tsv", resolve_case, NULL);
	ok(n >= 60, "resolve.tsv has the RFC 3986 §5.4 examples and more (%d)", n);
	tap_lines("url/parse.tsv", parse_case, NULL);
	tap_lines("url/site.tsv", site_case, NULL);
	tap_lines("url/same-site.tsv", same_case, NULL);
	tap_lines("url/robots.tsv", robots_case, NULL);
	tap_lines("url/traps.tsv", trap_case, NULL);
	edge_cases();
	return done_testing();
}
