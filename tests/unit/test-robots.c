/* test-robots.c - robots.txt parsing and matching, the fetch-outcome policy,
 * the cache blob and META robots, all driven by files in tests/data/robots/:
 *
 *   NAME.txt    a robots.txt body, byte for byte;
 *   NAME.gen    or a generated one: lines "count<TAB>text" append the
 *               (escaped) text count times, "{n}" in it replaced by the
 *               repetition number (huge, binary and hostile bodies);
 *   NAME.cases  what to expect from the body, one case a line:
 *                 agent<TAB>path<TAB>allow|disallow
 *                 crawl-delay<TAB>agent<TAB>seconds|none   (capped value)
 *                 crawl-delay-raw<TAB>agent<TAB>seconds|none
 *                 rules<TAB>agent<TAB>count
 *                 sitemaps<TAB>agent<TAB>count
 *                 sitemap<TAB>agent<TAB>index<TAB>url
 *                 warn<TAB>agent<TAB>none|truncated,long-line,too-many-rules,
 *                      delay-capped,too-many-sitemaps
 *               agent "-" means no product token (NULL).  Every case is also
 *               checked on the object rebuilt from its blob.
 *   status.tsv  http_status<TAB>policy-name[<TAB>strict-auth]
 *   meta.tsv    content<TAB>noindex 0|1<TAB>nofollow 0|1
 *   blobs.tsv   hex<TAB>ok|reject: a hand-made blob, checksum appended here
 */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "robots.h"
#include "tap.h"
#include "util.h"

static char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct buf b = BUF_INIT(64u << 20);
	char chunk[65536];
	size_t n;

	if (!fp)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		if (buf_add(&b, chunk, n) < 0)
			break;
	fclose(fp);
	return buf_detach(&b, len);
}

struct gen {
	struct buf body;
	int bad;
};

static void gen_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct gen *g = arg;
	long count, i;

	if (n != 2 || parse_long(f[0], 0, 10000000, &count) < 0) {
		diag("generator line %d malformed", lineno);
		g->bad++;
		return;
	}
	/* "{n}" in the text is replaced by the repetition number 0, 1, ... */
	for (i = 0; i < count; i++) {
		const char *t = f[1], *end = f[1] + len[1], *ph;
		while ((ph = memmem(t, (size_t)(end - t), "{n}", 3)) != NULL) {
			if (buf_add(&g->body, t, (size_t)(ph - t)) < 0 ||
			    buf_printf(&g->body, "%ld", i) < 0)
				break;
			t = ph + 3;
		}
		if (buf_add(&g->body, t, (size_t)(end - t)) < 0) {
			g->bad++;
			return;
		}
	}
}

static const char *agent_arg(const char *a)
{
	return strcmp(a, "-") == 0 ? NULL : a;
}

/* The object for an agent, and its twin rebuilt from the blob. */
struct pair {
	struct robots *r, *r2;
};

struct body {
	const char *name;
	const char *text;
	size_t len;
	int cases;
};

static struct pair load(const struct body *b, const char *agent)
{
	struct pair p;
	struct buf blob = BUF_INIT(16u << 20);

	p.r = robots_parse(b->text, b->len, agent_arg(agent));
	if (robots_serialize(p.r, &blob) < 0)
		p.r2 = NULL;
	else
		p.r2 = robots_deserialize(blob.ptr, blob.len);
	buf_free(&blob);
	return p;
}

static void unload(struct pair *p)
{
	robots_free(p->r);
	robots_free(p->r2);
}

static const struct {
	const char *name;
	unsigned bit;
} warn_names[] = {
    {"truncated", ROBOTS_W_TRUNCATED},
    {"long-line", ROBOTS_W_LONG_LINE},
    {"too-many-rules", ROBOTS_W_TOO_MANY_RULES},
    {"delay-capped", ROBOTS_W_DELAY_CAPPED},
    {"too-many-sitemaps", ROBOTS_W_TOO_MANY_SITEMAPS},
};

static int parse_warn(const char *s, unsigned *out)
{
	*out = 0;
	if (strcmp(s, "none") == 0)
		return 0;
	while (*s) {
		size_t n = strcspn(s, ","), i;
		for (i = 0; i < ARRAY_SIZE(warn_names); i++)
			if (strlen(warn_names[i].name) == n && !strncmp(s, warn_names[i].name, n))
				break;
		if (i == ARRAY_SIZE(warn_names))
			return -1;
		*out |= warn_names[i].bit;
		s += n;
		if (*s)
			s++;
	}
	return 0;
}

static bool same_delay(double got, const char *want)
{
	char *end;
	double w;

	if (strcmp(want, "none") == 0)
		return got < 0;
	w = strtod(want, &end);
	return *end == '\0' && got >= 0 && got > w - 0.0005 && got < w + 0.0005;
}

static bool is_keyword(const char *k)
{
	static const char *const kw[] = {"crawl-delay", "crawl-delay-raw", "rules",
	                                 "sitemaps",    "sitemap",         "warn"};
	size_t i;
	for (i = 0; i < ARRAY_SIZE(kw); i++)
		if (strcmp(k, kw[i]) == 0)
			return true;
	return false;
}

static void case_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct body *b = arg;
	struct pair p;
	const char *kind = f[0];
	bool keyword = is_keyword(kind);

	UNUSED(len);
	b->cases++;
	if (n < 3) {
		ok(0, "%s.cases:%d malformed", b->name, lineno);
		return;
	}
	p = load(b, keyword ? f[1] : f[0]);
	if (!p.r2) {
		ok(0, "%s.cases:%d blob round trip", b->name, lineno);
	} else if (strcmp(kind, "crawl-delay") == 0 || strcmp(kind, "crawl-delay-raw") == 0) {
		bool raw = kind[11] != '\0';
		double g1 = raw ? robots_crawl_delay_raw(p.r) : robots_crawl_delay(p.r);
		double g2 = raw ? robots_crawl_delay_raw(p.r2) : robots_crawl_delay(p.r2);
		if (!ok(same_delay(g1, f[2]) && same_delay(g2, f[2]), "%s:%d %s %s = %s", b->name,
		        lineno, kind, f[1], f[2]))
			diag("  got %.3f / %.3f", g1, g2);
	} else if (strcmp(kind, "rules") == 0 || strcmp(kind, "sitemaps") == 0) {
		bool rules = kind[0] == 'r';
		size_t g1 = rules ? robots_rule_count(p.r) : robots_sitemap_count(p.r);
		size_t g2 = rules ? robots_rule_count(p.r2) : robots_sitemap_count(p.r2);
		long want;
		if (parse_long(f[2], 0, 1000000, &want) < 0)
			want = -1;
		if (!ok(want >= 0 && g1 == (size_t)want && g2 == g1, "%s:%d %s %s = %s", b->name,
		        lineno, kind, f[1], f[2]))
			diag("  got %zu / %zu", g1, g2);
	} else if (strcmp(kind, "sitemap") == 0) {
		long i;
		const char *g1 = NULL, *g2 = NULL;
		if (n == 4 && parse_long(f[2], 0, 1000, &i) == 0) {
			g1 = robots_sitemap(p.r, (size_t)i);
			g2 = robots_sitemap(p.r2, (size_t)i);
		}
		if (!ok(n == 4 && g1 && g2 && !strcmp(g1, f[3]) && !strcmp(g2, f[3]),
		        "%s:%d sitemap %s = %s", b->name, lineno, f[2], n == 4 ? f[3] : "?"))
			diag("  got \"%s\"", g1 ? g1 : "(null)");
	} else if (strcmp(kind, "warn") == 0) {
		unsigned want;
		int bad = parse_warn(f[2], &want);
		if (!ok(!bad && robots_warnings(p.r) == want && robots_warnings(p.r2) == want,
		        "%s:%d warnings %s", b->name, lineno, f[2]))
			diag("  got 0x%x", robots_warnings(p.r));
	} else {
		bool want = strcmp(f[2], "allow") == 0;
		bool g1 = robots_allowed(p.r, f[1]), g2 = robots_allowed(p.r2, f[1]);
		if (!ok((want || !strcmp(f[2], "disallow")) && g1 == want && g2 == want,
		        "%s:%d %s %s %s", b->name, lineno, f[0], f[1], f[2]))
			diag("  got %s / %s", g1 ? "allow" : "disallow", g2 ? "allow" : "disallow");
	}
	unload(&p);
}

/* Serialise, deserialise, serialise again: the same bytes. */
static void round_trip(const struct body *b, const char *agent)
{
	struct robots *r = robots_parse(b->text, b->len, agent), *r2 = NULL;
	struct buf b1 = BUF_INIT(16u << 20), b2 = BUF_INIT(16u << 20);

	bool same = robots_serialize(r, &b1) == 0 &&
	            (r2 = robots_deserialize(b1.ptr, b1.len)) != NULL &&
	            robots_serialize(r2, &b2) == 0 && b1.len == b2.len &&
	            memcmp(b1.ptr, b2.ptr, b1.len) == 0;

	ok(same, "%s: blob round trip for %s (%zu bytes)", b->name, agent ? agent : "-", b1.len);
	robots_free(r2);
	robots_free(r);
	buf_free(&b1);
	buf_free(&b2);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n > m && strcmp(s + n - m, suf) == 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_bodies(void)
{
	char dir[4096], *names[256];
	DIR *d;
	struct dirent *e;
	size_t n = 0, i;
	int bodies = 0, cases = 0;

	snprintf(dir, sizeof(dir), "%s", tap_data("robots"));
	d = opendir(dir);
	if (!ok(d != NULL, "open %s", dir))
		return;
	while ((e = readdir(d)) && n < ARRAY_SIZE(names))
		if (has_suffix(e->d_name, ".txt") || has_suffix(e->d_name, ".gen"))
			names[n++] = xstrdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);

	for (i = 0; i < n; i++) {
		char rel[600], base[512];
		struct body b;
		char *text = NULL;
		size_t len = 0;

		snprintf(base, sizeof(base), "%.*s", (int)(strlen(names[i]) - 4), names[i]);
		snprintf(rel, sizeof(rel), "robots/%s", names[i]);
		if (has_suffix(names[i], ".gen")) {
			struct gen g = {BUF_INIT(4u << 20), 0};
			if (tap_lines(rel, gen_line, &g) < 0 || g.bad)
				ok(0, "generate %s", rel);
			text = buf_detach(&g.body, &len);
		} else {
			text = read_file(tap_data(rel), &len);
			if (!ok(text != NULL, "read %s", rel))
				continue;
		}
		b.name = base;
		b.text = text;
		b.len = len;
		b.cases = 0;
		snprintf(rel, sizeof(rel), "robots/%s.cases", base);
		tap_lines(rel, case_line, &b);
		ok(b.cases > 0, "%s: %d cases", base, b.cases);
		round_trip(&b, "mpseek");
		round_trip(&b, NULL);
		bodies++;
		cases += b.cases;
		free(text);
		free(names[i]);
	}
	ok(bodies >= 15 && cases >= 120, "%d bodies, %d cases", bodies, cases);
}

/* ------------------------------------------------------------------------ */

static void status_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	long status;
	unsigned flags = 0;
	enum robots_policy p;
	struct robots *r;
	bool allowed, want_allowed;
	const char *name;

	UNUSED(len);
	UNUSED(arg);
	if (n < 2 || parse_long(f[0], -1000, 10000, &status) < 0) {
		ok(0, "status.tsv:%d malformed", lineno);
		return;
	}
	if (n > 2 && strcmp(f[2], "strict-auth") == 0)
		flags = ROBOTS_STRICT_AUTH;
	p = robots_status_policy((int)status, flags);
	name = robots_policy_name(p);
	if (!ok(strcmp(name, f[1]) == 0, "status %ld%s -> %s", status, flags ? " strict" : "",
	        f[1]))
		diag("  got %s", name);
	/* What the crawler ends up with when it gives up on that status. */
	r = robots_from_status((int)status, flags);
	allowed = robots_allowed(r, "/page");
	want_allowed = p != ROBOTS_POLICY_DISALLOW && p != ROBOTS_POLICY_DISALLOW_TEMP;
	ok(allowed == want_allowed && robots_allowed(r, "/robots.txt") &&
	       robots_is_temporary(r) == (p == ROBOTS_POLICY_DISALLOW_TEMP) &&
	       robots_max_age(r) ==
	           (p == ROBOTS_POLICY_DISALLOW_TEMP ? ROBOTS_RETRY_SECONDS : ROBOTS_CACHE_SECONDS),
	   "status %ld: robots_from_status %s", status, allowed ? "allows" : "disallows");
	robots_free(r);
}

static void meta_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	bool ni = false, nf = false;

	UNUSED(len);
	UNUSED(arg);
	if (n != 3) {
		ok(0, "meta.tsv:%d malformed", lineno);
		return;
	}
	ok(robots_meta_parse(f[0], &ni, &nf) == 0 && ni == (f[1][0] == '1') &&
	       nf == (f[2][0] == '1'),
	   "meta \"%s\" -> noindex %s nofollow %s", f[0], f[1], f[2]);
}

static void blob_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	static unsigned char blob[65536];
	size_t i, m = 0;
	uint32_t h;
	struct robots *r;
	bool want = n == 2 && strcmp(f[1], "ok") == 0;

	UNUSED(arg);
	for (i = 0; i + 1 < len[0] && m < sizeof(blob) - 4; i += 2) {
		unsigned v;
		if (f[0][i] == ' ') {
			i--;
			continue;
		}
		if (sscanf(f[0] + i, "%2x", &v) != 1)
			break;
		blob[m++] = (unsigned char)v;
	}
	h = fnv1a32(blob, m);
	blob[m++] = (unsigned char)h;
	blob[m++] = (unsigned char)(h >> 8);
	blob[m++] = (unsigned char)(h >> 16);
	blob[m++] = (unsigned char)(h >> 24);
	r = robots_deserialize(blob, m);
	ok((r != NULL) == want, "blobs.tsv:%d %s", lineno, n == 2 ? f[1] : "?");
	robots_free(r);
}

/* Every truncation and every single-byte change of a real blob is refused. */
static void corruption(void)
{
	static const char body[] = "User-agent: *\nDisallow: /private/\nAllow: /private/ok$\n"
	                           "Disallow: /*.gif$\nCrawl-delay: 2.5\n"
	                           "Sitemap: http://example.com/s.xml\n";
	struct robots *r = robots_parse(body, sizeof(body) - 1, "mpseek"), *r2;
	struct buf b = BUF_INIT(1 << 20);
	unsigned char *copy;
	size_t i, accepted = 0, flips = 0;
	static const unsigned char masks[] = {0x01, 0x80, 0xFF, 0x20};
	size_t k;

	i = (size_t)robots_serialize(r, &b);
	ok(i == 0, "serialise a small body (%zu bytes)", b.len);
	copy = xmalloc(b.len + 8);
	for (i = 0; i < b.len; i++) {
		memcpy(copy, b.ptr, i);
		if ((r2 = robots_deserialize(copy, i)) != NULL) {
			accepted++;
			robots_free(r2);
		}
	}
	ok(accepted == 0, "all %zu truncations rejected", b.len);
	accepted = 0;
	for (i = 0; i < b.len; i++)
		for (k = 0; k < ARRAY_SIZE(masks); k++) {
			memcpy(copy, b.ptr, b.len);
			copy[i] ^= masks[k];
			flips++;
			if ((r2 = robots_deserialize(copy, b.len)) != NULL) {
				accepted++;
				robots_free(r2);
			}
		}
	ok(accepted == 0, "all %zu byte flips rejected", flips);
	memcpy(copy, b.ptr, b.len);
	memcpy(copy + b.len, "junk", 4);
	r2 = robots_deserialize(copy, b.len + 4);
	ok(r2 == NULL, "trailing bytes rejected");
	robots_free(r2);
	ok(robots_deserialize(NULL, 0) == NULL, "NULL blob rejected");
	r2 = robots_deserialize(b.ptr, b.len);
	ok(r2 && !robots_allowed(r2, "/private/x") && robots_allowed(r2, "/private/ok") &&
	       robots_crawl_delay(r2) == 2.5 && robots_sitemap_count(r2) == 1,
	   "intact blob still loads and answers");
	robots_free(r2);
	{
		struct buf tiny = BUF_INIT(8);
		ok(robots_serialize(r, &tiny) == -1 && tiny.len == 0,
		   "serialise into a too-small buffer fails and leaves it empty");
		buf_free(&tiny);
	}
	free(copy);
	buf_free(&b);
	robots_free(r);
}

static void api_edges(void)
{
	struct robots *r = robots_allow_all(), *d = robots_disallow_all(false);
	bool allow;
	const char *pat;

	ok(robots_allowed(r, "/x") && robots_crawl_delay(r) < 0 && robots_rule_count(r) == 0 &&
	       !robots_is_temporary(r),
	   "allow_all");
	ok(!robots_allowed(d, "/") && !robots_allowed(d, "/x") &&
	       robots_allowed(d, "/robots.txt") && !robots_is_temporary(d) &&
	       robots_max_age(d) == ROBOTS_CACHE_SECONDS,
	   "disallow_all(false): only /robots.txt");
	ok(!robots_allowed(NULL, "/"), "NULL robots answers disallowed");
	ok(!robots_allowed(r, NULL), "NULL path answers disallowed");
	ok(robots_sitemap(r, 0) == NULL && robots_rule(r, 0, &allow, &pat) == -1,
	   "accessors past the end");
	robots_free(NULL);
	robots_free(r);
	robots_free(d);

	r = robots_parse("User-agent: *\nDisallow: /a\nAllow: /a/b\n", 38, "mpseek");
	ok(robots_rule_count(r) == 2 && robots_rule(r, 0, &allow, &pat) == 0 && allow &&
	       strcmp(pat, "/a/b") == 0,
	   "rules in match order: longest first");
	ok(robots_allowed(r, "") == true && robots_allowed(r, "a") == false &&
	       robots_allowed(r, "/a#x") == false && robots_allowed(r, "/x#/a") == true,
	   "path forms: empty, no slash, fragment");
	robots_free(r);
	r = robots_parse(NULL, 0, NULL);
	ok(r && robots_allowed(r, "/"), "NULL body allows all");
	robots_free(r);
	{
		bool ni = false, nf = false;
		ok(robots_meta_parse(NULL, &ni, &nf) == -1, "meta NULL content");
	}
}

int main(void)
{
	run_bodies();
	tap_lines("robots/status.tsv", status_line, NULL);
	tap_lines("robots/meta.tsv", meta_line, NULL);
	tap_lines("robots/blobs.tsv", blob_line, NULL);
	corruption();
	api_edges();
	return done_testing();
}
