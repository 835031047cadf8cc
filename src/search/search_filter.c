/* search_filter.c - the parts of a query only the database can resolve
 * (search_int.h): the sites of site: patterns, the pages citing a link:
 * URL (the generation's reverse citations), the ul URL prefixes and the
 * web spaces of the request, each as a sorted list the evaluation and the
 * scoring consult.  The SQL itself is db.c's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "citations.h"
#include "db.h"
#include "query.h"
#include "search.h"
#include "search_int.h"
#include "storage.h"
#include "url.h"
#include "util.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Does site key "scheme://host[:port]/" match the site: pattern?  The
 * pattern's host labels must end the site's host ("example.org" matches
 * "www.example.org", not "badexample.org"); a pattern with a port compares
 * host:port, one with a scheme the whole key. */
bool search_site_match(const char *site, const char *pat)
{
	const char *hp = strstr(site, "://"), *end;
	size_t plen = strlen(pat), hlen;
	char host[MAX_SITE_LEN + 1];
	bool with_port;

	if (!hp)
		return false;
	if (strstr(pat, "://")) {
		size_t sl = strlen(site);
		/* The key without its trailing '/' or with it. */
		return (plen == sl && !memcmp(site, pat, plen)) ||
		       (plen + 1 == sl && !memcmp(site, pat, plen) && site[plen] == '/');
	}
	while (plen && pat[plen - 1] == '/')
		plen--;
	hp += 3;
	end = strchr(hp, '/');
	hlen = end ? (size_t)(end - hp) : strlen(hp);
	with_port = memchr(pat, ':', plen) != NULL;
	if (!with_port || (pat[0] == '[' && pat[plen - 1] == ']')) {
		/* The host without its port ("[v6]" keeps its brackets). */
		const char *colon = hp[0] == '[' ? memchr(hp, ']', hlen) : memchr(hp, ':', hlen);

		if (colon && hp[0] == '[')
			colon++;
		if (colon && colon < hp + hlen && *colon == ':')
			hlen = (size_t)(colon - hp);
	}
	if (hlen > MAX_SITE_LEN || plen == 0)
		return false;
	for (size_t i = 0; i < hlen; i++)
		host[i] = (hp[i] >= 'A' && hp[i] <= 'Z') ? (char)(hp[i] + 32) : hp[i];
	if (hlen == plen)
		return !memcmp(host, pat, plen);
	return hlen > plen && host[hlen - plen - 1] == '.' && !memcmp(host + hlen - plen, pat, plen);
}

struct sites_ctx {
	const char *pat;
	uint32_t *v;
	size_t n, cap;
};

static void u32_push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

static int site_row(void *arg, uint32_t site_id, const char *site)
{
	struct sites_ctx *s = arg;

	if (search_site_match(site, s->pat))
		u32_push(&s->v, &s->n, &s->cap, site_id);
	return 0;
}

static int sites_matching(struct run *r, const char *pat, uint32_t **out, size_t *n)
{
	struct sites_ctx s = { pat, NULL, 0, 0 };

	if (db_sites_each(r->env->db, site_row, &s)) {
		free(s.v);
		return -1;
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_u32);
	*out = s.v;
	*n = s.n;
	return 0;
}

static int resolve_link(struct run *r, struct filter *f)
{
	struct buf norm = BUF_INIT(MAX_URL_LEN + 1);
	const unsigned char *list;
	uint32_t id;
	size_t n;
	int rc;

	if (url_normalize(f->node->word, &norm, NULL)) {
		buf_free(&norm);
		return 0; /* not a URL: no page links to it */
	}
	rc = db_url_id(r->env->db, buf_str(&norm), &id);
	buf_free(&norm);
	if (rc <= 0 || !r->ix->rev)
		return rc;
	if (citations_list(r->ix->rev, id, &list, &n) != 1)
		return 0;
	f->docs.k = arena_alloc(r->ar, n * sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		struct storage_doc d;
		uint32_t src = citations_at(list, i);

		rc = run_doc(r, src, &d);
		if (rc < 0)
			return -1;
		if (rc == 1 && d.site_id)
			f->docs.k[f->docs.n++] = (uint64_t)d.site_id << 32 | src;
	}
	qsort(f->docs.k, f->docs.n, sizeof(uint64_t), cmp_u64);
	return 0;
}

static int url_row(void *arg, uint32_t url_id)
{
	struct run *r = arg;
	size_t cap = r->n_ul_urls;

	/* grow by doubling: cap is tracked as the next power of two */
	if ((r->n_ul_urls & (r->n_ul_urls - 1)) == 0)
		r->ul_urls = xrealloc(r->ul_urls, (cap ? 2 * cap : 1) * sizeof(uint32_t));
	r->ul_urls[r->n_ul_urls++] = url_id;
	return 0;
}

static int space_row(void *arg, uint32_t site_id)
{
	struct run *r = arg;

	if ((r->n_space_sites & (r->n_space_sites - 1)) == 0)
		r->space_sites = xrealloc(r->space_sites,
					  (r->n_space_sites ? 2 * r->n_space_sites : 1) *
					  sizeof(uint32_t));
	r->space_sites[r->n_space_sites++] = site_id;
	return 0;
}

/* One ul entry with "://": the URLs under that prefix.  Only the URLs of
 * the prefix's site are read. */
static int ul_url_prefix(struct run *r, const char *tok)
{
	struct buf site = BUF_INIT(MAX_URL_LEN + 1);
	uint32_t sid = 0;
	int found = 0;

	if (url_site(tok, &site, NULL) == 0) {
		found = db_site_lookup(r->env->db, buf_str(&site), &sid);
		if (found < 0) {
			buf_free(&site);
			return -1;
		}
	}
	buf_free(&site);
	/* A site nobody crawled has no URLs; a prefix that is no URL is
	 * looked for everywhere. */
	if (found || url_site(tok, &site, NULL) != 0) {
		if (db_url_ids_prefix(r->env->db, found ? sid : 0, tok, url_row, r))
			return -1;
	}
	buf_free(&site);
	return 0;
}

/* One ul entry without "://": a site pattern, as site: takes it. */
static int ul_site_pattern(struct run *r, char *tok)
{
	uint32_t *v;
	size_t nv;

	for (char *c = tok; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c + 32);
	if (sites_matching(r, tok, &v, &nv))
		return -1;
	for (size_t k = 0; k < nv; k++) {
		if ((r->n_ul_sites & (r->n_ul_sites - 1)) == 0)
			r->ul_sites = xrealloc(r->ul_sites,
					       (r->n_ul_sites ? 2 * r->n_ul_sites : 1) *
					       sizeof(uint32_t));
		r->ul_sites[r->n_ul_sites++] = v[k];
	}
	free(v);
	return 0;
}

/* The request's ul: space-separated URL prefixes and site patterns (an
 * entry longer than a URL can be selects nothing, yet sets the filter). */
static int resolve_ul(struct run *r, const char *ul)
{
	while (*ul) {
		size_t n;
		char tok[MAX_URL_LEN + 1];

		while (*ul == ' ')
			ul++;
		n = strcspn(ul, " ");
		if (!n)
			break;
		r->ul_set = true;
		if (n <= MAX_URL_LEN) {
			memcpy(tok, ul, n);
			tok[n] = '\0';
			if (strstr(tok, "://") ? ul_url_prefix(r, tok) : ul_site_pattern(r, tok))
				return -1;
		}
		ul += n;
	}
	if (r->n_ul_urls)
		qsort(r->ul_urls, r->n_ul_urls, sizeof(uint32_t), cmp_u32);
	if (r->n_ul_sites)
		qsort(r->ul_sites, r->n_ul_sites, sizeof(uint32_t), cmp_u32);
	return 0;
}

/* site:, link:, ul and spaces need the database. */
int run_resolve_filters(struct run *r)
{
	const char *ul = r->req->ul ? r->req->ul : "";

	if (!r->env->db && (r->n_filters || *ul || r->req->n_spaces)) {
		run_fail(r, "ER_NOSEARCHD", "site:, link:, ul and web spaces need the database.");
		return 0;
	}
	for (size_t i = 0; i < r->n_filters; i++) {
		struct filter *f = &r->filters[i];

		if (f->node->type == Q_SITE) {
			if (sites_matching(r, f->node->word, &f->sites, &f->n_sites))
				return -1;
		} else if (resolve_link(r, f)) {
			return -1;
		}
	}
	if (resolve_ul(r, ul))
		return -1;
	if (r->req->n_spaces) {
		if (db_space_sites(r->env->db, r->req->spaces, r->req->n_spaces, space_row, r))
			return -1;
		if (r->n_space_sites)
			qsort(r->space_sites, r->n_space_sites, sizeof(uint32_t), cmp_u32);
	}
	return 0;
}
