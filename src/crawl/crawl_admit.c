/* crawl_admit.c - may a URL be crawled: Server scope, Allow/Disallow, MaxHops, traps.
 *
 * Owns the config's verdict on a URL or a link, and the link cache that
 * remembers it per analysing thread.  Pure: reads the config, touches no
 * database, robots.txt (crawl_robots.c) or rank state; runs on any thread.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "log.h"
#include "url.h"
#include "crawl_int.h"

#define LINKCACHE_MAX 8192
#define LINKCACHE_POOL (4u << 20)

/* admit_url() as a link verdict, LINK_ADMITTED or the reason. */
static enum link_verdict url_verdict(const struct conf *c, const char *url, int hops,
				     bool from_outside_ok, bool normal, const char **why)
{
	const struct conf_server *sv = conf_server_for(c, url);
	const struct conf_server_params *p = sv ? &sv->p : &c->defaults;

	if (!sv && !url_is_robots(url) && !from_outside_ok && c->delete_no_server) {
		*why = "no Server covers it";
		return LINK_OFFSITE;
	}
	if (hops > p->max_hops) {
		*why = "more than MaxHops";
		return LINK_HOPS;
	}
	switch (conf_filter_url(c, url)) {
	case VERDICT_DISALLOW:
		*why = "disallowed by the Allow/Disallow chain";
		return LINK_FILTERED;
	default:
		break;
	}
	if (normal ? url_trap_check_normal(url, why) : url_trap_check(url, why))
		return LINK_TRAP;
	return LINK_ADMITTED;
}

int admit_url(const struct conf *c, const char *url, int hops, bool from_outside_ok, bool normal,
	      const char **why)
{
	switch (url_verdict(c, url, hops, from_outside_ok, normal, why)) {
	case LINK_ADMITTED:
		return 0;
	case LINK_TRAP:
		return CST_TRAP;
	default:
		return CST_FILTERED;
	}
}

/* Resolve ref against base and admit it as a link at depth hops of the page
 * `from`, whose parameters are fp and whose site key is from_site.  The
 * normalised URL goes to out, its site key to site (compared with from_site
 * instead of parsing both URLs again).  LINK_ADMITTED or the reason. */
static enum link_verdict admit_page_link(const struct conf *c,
					 const struct conf_server_params *fp, const char *from,
					 const char *from_site, const char *base, const char *ref,
					 int hops, struct buf *out, struct buf *site)
{
	const char *why = NULL;
	enum link_verdict v;
	int rc = url_resolve(base, ref, out, &why);

	if (rc) {
		if (rc != URL_NOT_CRAWLABLE)
			debug("%s: link %.200s dropped: %s", from, ref, why ? why : "bad URL");
		return LINK_BAD;
	}
	/* out is in the normal form: its site key is its head. */
	buf_reset(site);
	if (buf_add(site, buf_str(out), url_site_len(buf_str(out))) || !site->len)
		return LINK_BAD;
	if (!fp->follow_outside && strcmp(buf_str(site), from_site) &&
	    !conf_server_for(c, buf_str(out))) {
		debug("%s: link %s dropped: outside every Server", from, buf_str(out));
		return LINK_OFFSITE;
	}
	v = url_verdict(c, buf_str(out), hops, fp->follow_outside, true, &why);
	if (v != LINK_ADMITTED)
		debug("%s: link %s dropped: %s", from, buf_str(out), why);
	return v;
}

/* admit_page_link() for one reference (a redirect): from's site key is
 * worked out here. */
int admit_link(const struct conf *c, const struct conf_server_params *fp, const char *from,
	       const char *base, const char *ref, int hops, struct buf *out)
{
	struct buf from_site = BUF_INIT(MAX_SITE_LEN), site = BUF_INIT(MAX_SITE_LEN);
	int rc = url_site(from, &from_site, NULL) ? -1 :
		 admit_page_link(c, fp, from, buf_str(&from_site), base, ref, hops, out, &site) ?
		 -1 : 0;

	buf_free(&from_site);
	buf_free(&site);
	return rc;
}

void linkcache_init(struct linkcache *lc)
{
	memset(lc, 0, sizeof(*lc));
	buf_init(&lc->pool, LINKCACHE_POOL);
	buf_init(&lc->key, 3 * (MAX_URL_LEN + 1) + 64);
	lc->v = xmalloc(LINKCACHE_MAX * sizeof(*lc->v));
	lc->slots = xcalloc(2 * LINKCACHE_MAX, sizeof(*lc->slots));
}

void linkcache_free(struct linkcache *lc)
{
	buf_free(&lc->pool);
	buf_free(&lc->key);
	free(lc->v);
	free(lc->slots);
	memset(lc, 0, sizeof(*lc));
}

/* The slot of the key in lc->key: a free one or the one holding it. */
static uint32_t *linkcache_slot(struct linkcache *lc)
{
	const char *k = lc->key.ptr;
	size_t len = lc->key.len, mask = 2 * LINKCACHE_MAX - 1;
	size_t h = (size_t)hash64(k, len) & mask;

	for (; lc->slots[h]; h = (h + 1) & mask) {
		const struct lcent *e = &lc->v[lc->slots[h] - 1];

		if (e->key_len == len && !memcmp(lc->pool.ptr + e->key, k, len))
			break;
	}
	return &lc->slots[h];
}

/* Keep the outcome for the key in lc->key: url and site when admitted,
 * NULL when not.  Empties the cache first when it is full. */
static void linkcache_put(struct linkcache *lc, uint32_t *slot, const char *url, const char *site,
			  int max_hops, int verdict)
{
	size_t need = lc->key.len + (url ? strlen(url) + strlen(site) + 2 : 0);
	struct lcent *e;

	if (lc->n == LINKCACHE_MAX || lc->pool.len + need + 1 > LINKCACHE_POOL) {
		lc->n = 0;
		buf_reset(&lc->pool);
		memset(lc->slots, 0, 2 * LINKCACHE_MAX * sizeof(*lc->slots));
		slot = linkcache_slot(lc);
	}
	e = &lc->v[lc->n];
	e->key = (uint32_t)lc->pool.len;
	e->key_len = (uint32_t)lc->key.len;
	if (buf_add(&lc->pool, lc->key.ptr, lc->key.len))
		return;
	e->val = UINT32_MAX;
	e->max_hops = max_hops;
	e->verdict = verdict;
	if (url) {
		e->val = (uint32_t)lc->pool.len;
		if (buf_add(&lc->pool, url, strlen(url) + 1) ||
		    buf_add(&lc->pool, site, strlen(site) + 1)) {
			buf_truncate(&lc->pool, e->key);
			return;
		}
	}
	*slot = (uint32_t)++lc->n;
}

/* admit_page_link() through the cache of the analysis thread (struct
 * linkcache).  base_dir: the length of base up to its last '/'.  On 0,
 * *url and *site are the admitted URL and its site key, valid until the
 * next call.  Not used when debug lines are logged: those say why each
 * link was dropped. */
int admit_page_link_cached(struct linkcache *lc, const struct conf *c,
			   const struct conf_server_params *fp, const char *from,
			   const char *from_site, const char *base, size_t base_dir,
			   const char *ref, int hops, struct buf *lk, struct buf *sitebuf,
			   const char **url, const char **site)
{
	uint32_t *slot = NULL;
	int rc;

	if ((unsigned char)ref[0] > ' ' && ref[0] != '?' && ref[0] != '#' &&
	    log_get_level() < LOG_DEBUG) {
		buf_reset(&lc->key);
		if (!buf_add(&lc->key, (const char *)&fp, sizeof(fp)) &&
		    !buf_add(&lc->key, from_site, strlen(from_site) + 1) &&
		    !buf_add(&lc->key, base, base_dir) && !buf_addc(&lc->key, '\0') &&
		    !buf_add(&lc->key, ref, strcspn(ref, "#"))) {
			slot = linkcache_slot(lc);
			if (*slot) {
				const struct lcent *e = &lc->v[*slot - 1];

				if (e->val == UINT32_MAX)
					return e->verdict;
				if (hops > e->max_hops)
					return LINK_HOPS;
				*url = lc->pool.ptr + e->val;
				*site = *url + strlen(*url) + 1;
				return LINK_ADMITTED;
			}
		}
	}
	/* Kept: admitted at depth 0, the depth checked below. */
	rc = admit_page_link(c, fp, from, from_site, base, ref, slot ? 0 : hops, lk, sitebuf);
	*url = buf_str(lk);
	*site = buf_str(sitebuf);
	if (slot) {
		const struct conf_server *sv = rc ? NULL : conf_server_for(c, *url);
		int max_hops = sv ? sv->p.max_hops : c->defaults.max_hops;

		linkcache_put(lc, slot, rc ? NULL : *url, *site, max_hops, rc);
		if (!rc && hops > max_hops)
			rc = LINK_HOPS;
	}
	return rc;
}
