/* crawl_insert.c - `mpseek-index -i`: URLs an administrator hands in.
 *
 * Owns turning lines of a file into queue rows: each is normalised and
 * admitted as a link would be (crawl_admit.c), then inserted through the
 * link path of the database (db_add_links()).  Fetching them is the next
 * crawl's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "crawl.h"
#include "db.h"
#include "log.h"
#include "url.h"
#include "util.h"
#include "crawl_int.h"

#define INSERT_BATCH 256 /* URLs per db_add_links() */

static int insert_flush(struct db *db, struct db_link *v, size_t *n, struct crawl_insert *st)
{
	long added = *n ? db_add_links(db, v, *n) : 0;

	if (added < 0)
		return -1;
	st->added += added;
	st->known += (long)*n - added;
	for (size_t i = 0; i < *n; i++)
		free((char *)v[i].url);
	*n = 0;
	return 0;
}

/* One URL: normalised, admitted, its site's id.  1 to insert it (url in
 * norm, site id in *site_id), 0 when skipped (counted, warned), -1 on a
 * database error. */
static int insert_check(const struct conf *c, struct db *db, const char *url, const char *where,
			struct buf *norm, unsigned *site_id, struct crawl_insert *st)
{
	struct buf site = BUF_INIT(MAX_URL_LEN + 1);
	const char *why = NULL;
	int k;

	buf_reset(norm);
	if (url_normalize(url, norm, &why) || url_site(buf_str(norm), &site, &why)) {
		warning("%s: '%s' is not a URL mpseek crawls (%s): skipped", where, url,
			why ? why : "malformed");
		st->bad++;
		buf_free(&site);
		return 0;
	}
	k = admit_url(c, buf_str(norm), 0, false, true, &why);
	if (k) {
		warning("%s: %s is refused: %s", where, buf_str(norm), why ? why : "filtered");
		st->refused++;
		buf_free(&site);
		return 0;
	}
	/* The Tag of the URL's Server line, as a link under it gets. */
	k = db_site_id(db, buf_str(&site), conf_params_for(c, buf_str(norm))->tag, site_id) ? -1 : 1;
	buf_free(&site);
	return k;
}

int crawl_insert_urls(const struct conf *c, struct db *db, const char *const *urls,
		      const char *const *where, size_t n, struct crawl_insert *st)
{
	struct db_link v[INSERT_BATCH];
	struct buf norm = BUF_INIT(MAX_URL_LEN + 1);
	size_t nv = 0;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < n && !rc; i++) {
		unsigned site_id = 0;
		int k = insert_check(c, db, urls[i], where[i], &norm, &site_id, st);

		if (k < 0) {
			rc = -1;
			break;
		}
		if (!k)
			continue;
		memset(&v[nv], 0, sizeof(v[nv]));
		v[nv].url = xstrdup(buf_str(&norm));
		v[nv].site_id = site_id;
		v[nv].hops = 0;
		v[nv].referrer = 0;
		v[nv].tag = conf_params_for(c, v[nv].url)->tag;
		if (++nv == INSERT_BATCH)
			rc = insert_flush(db, v, &nv, st);
	}
	if (!rc)
		rc = insert_flush(db, v, &nv, st);
	for (size_t i = 0; i < nv; i++)
		free((char *)v[i].url);
	buf_free(&norm);
	return rc;
}
