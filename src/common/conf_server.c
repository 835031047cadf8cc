/* conf_server.c - the per-Server rules of a struct conf and their matching:
 * the Server list with its hash index by site (conf_server_for(), the
 * longest path prefix wins) and the Allow/Disallow/CheckOnly chain
 * (conf_filter_url()).  Not the syntax (conf.c) nor the other directives
 * (conf_directives.c).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "buf.h"
#include "conf.h"
#include "util.h"

#include "conf_int.h"

/* PCRE2 limits per URL match: a pathological filter must not stall a rank. */
#define FILTER_MATCH_LIMIT 1000000
#define FILTER_DEPTH_LIMIT 10000

static char lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
}

/* ---- the Server index --------------------------------------------------- */

/* Length of "scheme://authority" in url; 0 if it has no "://". */
static size_t site_len(const char *url)
{
	const char *s = strstr(url, "://");

	if (!s)
		return 0;
	s += 3;
	s += strcspn(s, "/?#");
	return (size_t)(s - url);
}

static size_t site_hash(const char *url, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)lower(url[i]);
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

static bool same_site(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && !ascii_ncasecmp(a, b, an);
}

static void index_insert(size_t *tab, size_t size, const struct conf_server *servers, size_t i)
{
	const char *u = servers[i].url;
	size_t h = site_hash(u, site_len(u)) & (size - 1);

	while (tab[h])
		h = (h + 1) & (size - 1);
	tab[h] = i + 1;
}


/* Keep the load factor under 1/2 so a probe always ends on an empty slot. */
static void index_add(struct conf *c, size_t i)
{
	if ((i + 1) * 2 > c->server_index_size) {
		size_t size = c->server_index_size ? c->server_index_size * 2 : 16;
		size_t *tab = xcalloc(size, sizeof(*tab));

		for (size_t k = 0; k < i; k++)
			index_insert(tab, size, c->servers, k);
		free(c->server_index);
		c->server_index = tab;
		c->server_index_size = size;
	}
	index_insert(c->server_index, c->server_index_size, c->servers, i);
}

int conf_add_server(struct parser *p, const char *url)
{
	struct conf *c = p->c;
	const char *host;
	struct conf_server *s;
	size_t n, sn;

	if (!ascii_ncasecmp(url, "http://", 7))
		host = url + 7;
	else if (!ascii_ncasecmp(url, "https://", 8))
		host = url + 8;
	else
		return conf_perr(p, "Server URL must start with http:// or https://");
	if (strlen(url) > MAX_URL_LEN)
		return conf_perr(p, "Server URL longer than %d bytes", MAX_URL_LEN);
	for (const char *q = url; *q; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return conf_perr(p, "Server URL holds a blank or a control character");
	n = strcspn(host, "/?#");
	if (n == 0 || host[0] == ':' || host[0] == '@')
		return conf_perr(p, "Server URL has no host");
	sn = site_len(url);
	if (c->server_index) {
		size_t h = site_hash(url, sn) & (c->server_index_size - 1);
		for (; c->server_index[h]; h = (h + 1) & (c->server_index_size - 1)) {
			const struct conf_server *o = &c->servers[c->server_index[h] - 1];
			size_t on = site_len(o->url);
			if (same_site(o->url, on, url, sn) && !strcmp(o->url + on, url + sn))
				return conf_perr(p, "duplicate Server (first at %s:%d)", o->file,
						 o->line);
		}
	}
	c->servers = conf_grow_array(c->servers, c->n_servers, sizeof(*c->servers));
	s = &c->servers[c->n_servers];
	s->url = conf_pool_dup(c, url);
	s->file = p->file;
	s->line = p->line;
	s->p = p->cur;
	s->auth_basic = p->auth_next;
	p->auth_next = NULL;
	index_add(c, c->n_servers);
	c->n_servers++;
	return 0;
}

/* Length of the directory of a Server URL's path: up to and with its last
 * '/' before any query ("/a/b.html" -> "/a/", "/a" -> "/", "" -> "/" which
 * the caller reads as the root). */
static size_t dir_len(const char *path)
{
	size_t n = strcspn(path, "?#");

	while (n && path[n - 1] != '/')
		n--;
	return n;
}

/* Does path (a URL's, from its first '/') start with the directory
 * srest[0..dn)?  An empty directory (a Server URL without a path) is the
 * root. */
static bool under_dir(const char *path, const char *srest, size_t dn)
{
	return !dn || !strncmp(path, srest, dn);
}

/* ASPseek's rule (doc/CONFIG.md, "Server scope"): a Server admits its whole
 * site, and the longest directory prefix picks the parameters. */
const struct conf_server *conf_server_for(const struct conf *c, const char *url)
{
	const struct conf_server *best = NULL, *general = NULL;
	size_t n, h, best_len = 0, general_len = 0;
	const char *rest;

	if (!c || !c->server_index || !url)
		return NULL;
	n = site_len(url);
	if (!n)
		return NULL;
	rest = url[n] ? url + n : "/";
	h = site_hash(url, n) & (c->server_index_size - 1);
	for (; c->server_index[h]; h = (h + 1) & (c->server_index_size - 1)) {
		const struct conf_server *s = &c->servers[c->server_index[h] - 1];
		size_t sn = site_len(s->url), dn;
		const char *srest = s->url + sn;

		if (!same_site(s->url, sn, url, n))
			continue;
		dn = dir_len(srest);
		/* The index holds a site's Servers in file order along the probe
		 * sequence only by accident: compare positions for the ties. */
		if (under_dir(rest, srest, dn) &&
		    (!best || dn > best_len || (dn == best_len && s < best))) {
			best = s;
			best_len = dn;
		}
		if (!s->p.path_scope && (!general || dn < general_len ||
					 (dn == general_len && s < general))) {
			general = s;
			general_len = dn;
		}
	}
	return best ? best : general;
}

const struct conf_server_params *conf_params_for(const struct conf *c, const char *url)
{
	const struct conf_server *s = conf_server_for(c, url);
	return s ? &s->p : &c->defaults;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void conf_site_scope(const struct conf *c, const char *url, bool legacy, struct buf *out)
{
	const char **dirs = NULL;
	size_t n, h, nd = 0, cap = 0;
	bool whole = false;

	buf_reset(out);
	if (!c || !c->server_index || !url || !(n = site_len(url)))
		return;
	h = site_hash(url, n) & (c->server_index_size - 1);
	for (; c->server_index[h]; h = (h + 1) & (c->server_index_size - 1)) {
		const struct conf_server *s = &c->servers[c->server_index[h] - 1];
		size_t sn = site_len(s->url);

		if (!same_site(s->url, sn, url, n))
			continue;
		if (nd == cap) {
			cap = cap ? 2 * cap : 8;
			dirs = xrealloc(dirs, cap * sizeof(*dirs));
		}
		dirs[nd++] = s->url + sn;
		if (!legacy && !s->p.path_scope)
			whole = true;
	}
	if (whole) {
		buf_adds(out, "/");
	} else if (nd) {
		qsort(dirs, nd, sizeof(*dirs), cmp_str);
		for (size_t i = 0; i < nd; i++) {
			const char *d = dirs[i];
			size_t len = legacy ? strcspn(d, "?#") : dir_len(d);

			if (i)
				buf_addc(out, ' ');
			if (!len || (len == 1 && d[0] == '/'))
				buf_addc(out, '/');
			else
				buf_add(out, d, len);
		}
	}
	free(dirs);
}

/* ---- filters ------------------------------------------------------------ */

enum conf_verdict conf_filter_url(const struct conf *c, const char *url)
{
	enum conf_verdict v = VERDICT_ALLOW;
	pcre2_match_data *md;
	size_t len, i;

	if (!url)
		return VERDICT_DISALLOW;
	if (!c || !c->n_filters)
		return VERDICT_ALLOW;
	md = pcre2_match_data_create(1, NULL);
	if (!md)
		return VERDICT_DISALLOW;
	len = strlen(url);
	for (i = 0; i < c->n_filters; i++) {
		const struct conf_filter *f = &c->filters[i];
		int rc = pcre2_match(f->re, (PCRE2_SPTR)url, len, 0, 0, md, c->match_ctx);
		bool hit;

		if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
			v = VERDICT_DISALLOW; /* match limit: refuse rather than guess */
			break;
		}
		hit = rc >= 0;
		switch (f->kind) {
		case FILTER_ALLOW_NOMATCH:
		case FILTER_DISALLOW_NOMATCH:
		case FILTER_CHECKONLY_NOMATCH:
			hit = !hit;
			break;
		default:
			break;
		}
		if (!hit)
			continue;
		switch (f->kind) {
		case FILTER_ALLOW:
		case FILTER_ALLOW_NOMATCH:
			v = VERDICT_ALLOW;
			break;
		case FILTER_DISALLOW:
		case FILTER_DISALLOW_NOMATCH:
			v = VERDICT_DISALLOW;
			break;
		case FILTER_CHECKONLY:
		case FILTER_CHECKONLY_NOMATCH:
			v = VERDICT_CHECKONLY;
			break;
		}
		break;
	}
	pcre2_match_data_free(md);
	return v;
}

int conf_add_filter(struct parser *p, enum conf_filter_kind kind, const char *pattern)
{
	struct conf *c = p->c;
	struct conf_filter *f;
	pcre2_code *re;
	PCRE2_SIZE eoff;
	int ecode;

	if (!c->match_ctx) {
		pcre2_match_context *mc = pcre2_match_context_create(NULL);
		if (!mc)
			return conf_perr(p, "out of memory");
		pcre2_set_match_limit(mc, FILTER_MATCH_LIMIT);
		pcre2_set_depth_limit(mc, FILTER_DEPTH_LIMIT);
		c->match_ctx = mc;
	}
	/* Bytes, not UTF: URLs are percent-encoded ASCII in practice, and a
	 * stray byte must not make the pattern fail to match. */
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS, &ecode,
			   &eoff, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ecode, msg, sizeof(msg));
		return conf_perr(p, "bad regex \"%.80s\": %s at offset %zu", pattern, (char *)msg,
				 (size_t)eoff);
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* best effort: the interpreter also works */
	c->filters = conf_grow_array(c->filters, c->n_filters, sizeof(*c->filters));
	f = &c->filters[c->n_filters++];
	f->kind = kind;
	f->pattern = conf_pool_dup(c, pattern);
	f->re = re;
	f->file = p->file;
	f->line = p->line;
	return 0;
}
