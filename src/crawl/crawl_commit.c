/* crawl_commit.c - a fetch result into the outcome of its URL.
 *
 * Owns what each response means for the URL's row and the delta log: a
 * network error, an HTTP error, a 304, a page body (page_commit(): clone
 * check, links, refresh redirect, DOC / HREFS / LASTMOD / DEL records, the
 * pending outcome).  The body's analysis is crawl_analyse.c's, robots.txt
 * and 3xx crawl_robots.c's, storing the outcome crawl_store.c's.
 */
#include "config.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "delta.h"
#include "fetch.h"
#include "le.h"
#include "log.h"
#include "robots.h"
#include "util.h"
#include "crawl_int.h"

/* Retry a URL after a network error (or a paused host) this much later,
 * at most its Period. */
#define RETRY_NET_ERROR 3600

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A body that is no document to store: a type not indexed, or the MD5
 * stored before. */
static void commit_no_doc(struct crawl *cr, struct job *j, const struct fetch_result *r,
			  const struct analysis *a)
{
	struct pending *p;

	if (a->kind == AN_TYPE) {
		/* Not a page: known as a URL, not as a document. */
		info("%s: %ld %s not indexed, %zu bytes", j->row.url, r->status, a->mt, a->blen);
		p = pending_new(cr, j);
		p->d.status = CST_TYPE;
		p->d.doc_op = j->row.status == 200 ? DB_DOC_DELETE : DB_DOC_KEEP;
		if (j->row.status == 200 && delta_add_del(cr->dw, j->row.url_id))
			cr->failed = true;
	} else {
		info("%s: %ld unchanged (same MD5), %zu bytes", j->row.url, r->status, a->blen);
		cr->t->unchanged++;
		p = pending_new(cr, j);
		p->d.status = 200;
		rv_note(p, j, r, false);
	}
	job_done(cr, j);
}

/* The page's META refresh or script redirect (admitted by the analysis),
 * followed unless the chain is too long: the target's url_id, or 0. */
static unsigned commit_refresh(struct crawl *cr, struct job *j, const struct analysis *a)
{
	const char *why;
	unsigned redir = 0;

	if (a->ref_url && redirect_allowed(cr, j, &why))
		redir = redirect_to(cr, j, a->ref_url);
	if (redir) {
		note_redirect(cr, j, redir);
		info("%s: %s redirect to url %u (%.200s)", j->row.url,
		     a->ref_meta ? "META refresh" : "script", redir, a->ref);
		cr->t->redirects++;
		if (delta_add_redir(cr->dw, j->row.url_id, redir))
			cr->failed = true;
	}
	return redir;
}

/* The pending outcome of a page with a body: the document row, its columns
 * and compressed text taken from a. */
static struct pending *commit_doc_row(struct crawl *cr, struct job *j,
				      const struct fetch_result *r, struct analysis *a,
				      unsigned origin, unsigned redir)
{
	struct pending *p = pending_new(cr, j);

	strlcpy_(p->crc, a->crc, sizeof(p->crc));
	copy_header(p->last_modified, sizeof(p->last_modified), r->last_modified);
	copy_header(p->etag, sizeof(p->etag), r->etag);
	p->d.status = 200;
	p->d.redir = redir;
	p->d.origin = origin ? 0 : 1;
	p->d.simhash = a->simhash;
	p->d.has_simhash = true;
	p->cols = a->cols;
	memset(&a->cols, 0, sizeof(a->cols));
	p->doc.content_type = p->cols.content_type;
	p->doc.charset = p->cols.charset;
	p->doc.title = p->cols.title;
	p->doc.txt = p->cols.txt;
	p->doc.keywords = p->cols.keywords;
	p->doc.description = p->cols.description;
	p->doc.docsize = (unsigned)(r->content_length > 0 && !r->truncated ?
				    (uint64_t)r->content_length : a->blen);
	p->words = a->z;
	p->doc.words_len = a->zlen;
	a->z = NULL;
	a->zlen = 0;
	p->doc.words = p->words;
	p->d.doc_op = DB_DOC_PUT;
	p->d.doc = NULL;
	rv_note(p, j, r, !j->row.crc[0] || strcmp(j->row.crc, a->crc) != 0);
	return p;
}

/* How many of the page's admitted links robots.txt of its own site, known
 * now, disallows: they are stored all the same and dropped (600) when
 * claimed, but the page's log line says so. */
static size_t links_robots_disallowed(struct crawl *cr, const struct job *j,
				      const struct analysis *a)
{
	size_t n = 0;

	if (!j->site || !j->site->robots)
		return 0;
	for (size_t i = 0; i < a->links.n; i++) {
		const char *u = linklist_url(&a->links, i), *site = linklist_site(&a->links, i);
		size_t sl = strlen(site);

		if (!strcmp(site, j->site->key) && sl && conf_params_for(cr->c, u)->robots &&
		    !robots_allowed(j->site->robots, u + sl - 1))
			n++;
	}
	return n;
}

/* "188 links: 150 admitted, 30 repeated, 8 off-site": what became of the
 * page's links, the reasons that count none left out (doc/CRAWL.md, "The
 * log line of a page"). */
static void links_summary(struct crawl *cr, const struct job *j, const struct analysis *a,
			  char *out, size_t size)
{
	static const char *const name[LINK_N] = {
		[LINK_REPEATED] = "repeated", [LINK_OFFSITE] = "off-site",
		[LINK_FILTERED] = "Allow/Disallow", [LINK_HOPS] = "MaxHops",
		[LINK_TRAP] = "trap", [LINK_BAD] = "not crawlable", [LINK_NOFOLLOW] = "nofollow",
	};
	const struct link_counts *lc = &a->lcount;
	size_t robots = links_robots_disallowed(cr, j, a), k;

	k = (size_t)snprintf(out, size, "%zu links", lc->found);
	if (!lc->found || k >= size)
		return;
	k += (size_t)snprintf(out + k, size - k, ": %zu admitted", lc->n[LINK_ADMITTED]);
	if (robots && k < size)
		k += (size_t)snprintf(out + k, size - k, " (%zu disallowed by robots.txt)",
				      robots);
	for (int v = LINK_ADMITTED + 1; v < LINK_N && k < size; v++)
		if (lc->n[v])
			k += (size_t)snprintf(out + k, size - k, ", %zu %s", lc->n[v], name[v]);
}

/* A clone or a noindex page keeps no words: a DEL record. */
static void commit_no_words(struct crawl *cr, struct job *j, const struct analysis *a,
			    struct pending *p, unsigned origin)
{
	char links[256];

	if (delta_add_del(cr->dw, j->row.url_id))
		cr->failed = true;
	if (origin) {
		info("%s: 200 clone of url %u, %zu bytes", j->row.url, origin, a->blen);
		cr->t->clones++;
	} else {
		links_summary(cr, j, a, links, sizeof(links));
		info("%s: 200 META robots noindex: not indexed, %s", j->row.url, links);
		p->d.status = CST_ROBOTS;
		p->d.deleted = true;
		p->d.doc_op = DB_DOC_DELETE;
		cr->t->dropped++;
	}
}

/* The url_ids the page links to, sorted: the HREFS record, and the row's
 * hrefs column (little-endian).  Returns their number. */
static size_t commit_hrefs(struct crawl *cr, struct job *j, struct pending *p,
			   const struct linkset *ls)
{
	size_t nh = 0;

	p->hrefs = xmalloc((ls->n ? ls->n : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < ls->n; i++)
		if (ls->v[i].url_id)
			p->hrefs[nh++] = ls->v[i].url_id;
	qsort(p->hrefs, nh, sizeof(uint32_t), cmp_u32);
	if (nh && delta_add_hrefs(cr->dw, j->row.url_id, p->hrefs, nh))
		cr->failed = true;
	for (size_t i = 0; i < nh; i++) { /* little-endian on disk */
		uint32_t v = p->hrefs[i];
		unsigned char *b = (unsigned char *)&p->hrefs[i];

		b[0] = (unsigned char)v;
		b[1] = (unsigned char)(v >> 8);
		b[2] = (unsigned char)(v >> 16);
		b[3] = (unsigned char)(v >> 24);
	}
	p->doc.hrefs = p->hrefs;
	p->doc.hrefs_len = nh * sizeof(uint32_t);
	return nh;
}

/* The anchor text of the page's links for the anchors table (doc/SEARCH.md,
 * "Anchor text"): per resolved link with text, target url_id, its site_id,
 * the text's length (u16, all LE) and the text.  A link to the page itself
 * adds nothing; past DB_MAX_ANCHORS_BYTES the rest is left out. */
static void commit_anchors(const struct job *j, struct pending *p, const struct linkset *ls)
{
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < ls->n; i++) {
		const struct db_link *l = &ls->v[i];
		const char *t = linklist_anchor_of(l->url);
		size_t len = strlen(t);

		if (!l->url_id || l->url_id == j->row.url_id || !len)
			continue;
		if (len > 0xffff)
			len = 0xffff;
		if (n + 10 + len > DB_MAX_ANCHORS_BYTES)
			break;
		if (n + 10 + len > cap) {
			cap = 2 * (n + 10 + len);
			p->anchors = xrealloc(p->anchors, cap);
		}
		le_put32(p->anchors + n, l->url_id);
		le_put32(p->anchors + n + 4, l->site_id);
		le_put16(p->anchors + n + 8, (uint16_t)len);
		memcpy(p->anchors + n + 10, t, len);
		n += 10 + len;
	}
	p->doc.anchors = p->anchors;
	p->doc.anchors_len = n;
}

/* An indexed page: its words, links and Last-Modified into the delta log. */
static void commit_words(struct crawl *cr, struct job *j, const struct fetch_result *r,
			 struct analysis *a, struct pending *p, const struct linkset *ls)
{
	char links[256];
	time_t lm;

	if (a->words_bad) {
		error("%s: url %u: %s", delta_writer_path(cr->dw), j->row.url_id, a->dw.err);
		cr->failed = true;
	} else if (delta_add_words(cr->dw, j->row.url_id, j->row.site_id, (uint64_t)time(NULL),
				   &a->dw)) {
		cr->failed = true;
	} else {
		/* The row's columns beside the DOC: the merge's docstore reads
		 * them from here, not from the database (doc/MERGE.md, step 8). */
		struct delta_text t = { .size = p->doc.docsize,
					.content_type = p->doc.content_type,
					.charset = p->doc.charset, .title = p->doc.title,
					.description = p->doc.description,
					.keywords = p->doc.keywords, .blob = p->doc.words,
					.blob_len = p->doc.words ? p->doc.words_len : 0 };

		if (delta_add_text(cr->dw, j->row.url_id, &t))
			cr->failed = true;
	}
	p->doc.wordcount = (unsigned)a->nwords;
	p->doc.totalcount = (unsigned)(a->total > 0xffffff ? 0xffffff : a->total);
	commit_hrefs(cr, j, p, ls);
	commit_anchors(j, p, ls);
	lm = r->last_modified ? curl_getdate(r->last_modified, NULL) : -1;
	if (lm > 0 && delta_add_lastmod(cr->dw, j->row.url_id, (uint64_t)lm))
		cr->failed = true;
	cr->t->indexed++;
	links_summary(cr, j, a, links, sizeof(links));
	info("%s: %ld indexed, %zu bytes, %s, %zu words, %s%s%s", j->row.url, r->status, a->blen,
	     a->mt, a->nwords, links, r->truncated ? ", truncated" : "",
	     job_params(cr->c, j)->index ? "" : " (Index no: words not indexed)");
}

/* Store the analysis a of page j: clone check, links, redirect, delta
 * records, the pending outcome.  Takes the strings of a it stores. */
static void page_commit(struct crawl *cr, struct job *j, const struct fetch_result *r,
			struct analysis *a)
{
	struct linkset ls = { 0 };
	struct pending *p;
	unsigned origin = 0, redir = 0;

	cr->t->bytes += a->blen;
	if (a->kind != AN_DOC) {
		commit_no_doc(cr, j, r, a);
		return;
	}
	if (r->truncated)
		warning("%s: body truncated at %zu bytes (MaxDocSize): the prefix is indexed",
			j->row.url, a->blen);
	/* Exact duplicates: the first origin keeps the words. */
	if (cr->c->clones)
		origin = clone_origin(cr, j, a->crc);
	if (!origin)
		for (size_t i = 0; i < a->links.n; i++)
			link_collect_site(cr, &ls, linklist_url(&a->links, i),
					  linklist_site(&a->links, i), j->row.hops + 1,
					  j->row.url_id);
	if (links_resolve(cr, &ls))
		cr->failed = true;
	if (a->ref)
		redir = commit_refresh(cr, j, a);
	p = commit_doc_row(cr, j, r, a, origin, redir);
	if (origin || a->noindex)
		commit_no_words(cr, j, a, p, origin);
	else
		commit_words(cr, j, r, a, p, &ls);
	job_done(cr, j);
	linkset_free(&ls);
}

static int net_status(enum fetch_err e)
{
	switch (e) {
	case FETCH_ERR_DNS: return CST_DNS;
	case FETCH_ERR_CONNECT: return CST_CONNECT;
	case FETCH_ERR_TIMEOUT: return CST_TIMEOUT;
	case FETCH_ERR_DEFERRED: return CST_DEFERRED;
	case FETCH_ERR_URL: return CST_BAD_URL;
	default: return CST_PROTOCOL;
	}
}

/* The outcome of page j from response r; a is the analysis of its body
 * when an analysis thread made it, NULL to analyse it here if needed. */
static void page_result(struct crawl *cr, struct job *j, struct fetch_result *r,
			struct analysis *a)
{
	const struct conf_server_params *sp = job_params(cr->c, j);
	long period = job_period(cr->c, j);
	long retry = period < RETRY_NET_ERROR ? period : RETRY_NET_ERROR;
	long st = r->status;

	cr->docs++;
	cr->t->wire_bytes += r->wire_bytes;
	if (r->err == FETCH_ERR_URL) {
		finish_dropped(cr, j, CST_BAD_URL, r->reason);
		return;
	}
	if (r->err != FETCH_ERR_NONE && r->err != FETCH_ERR_TOO_BIG) {
		long next = r->err == FETCH_ERR_DEFERRED ? (long)r->retry_in + 1 : retry;

		warning("%s: %s (%s): retried in %ld s", j->row.url, fetch_err_name(r->err),
			r->reason, next);
		cr->t->errors++;
		cr->t->errors_net++;
		finish_status(cr, j, net_status(r->err), next);
		return;
	}
	cr->t->fetched++;
	if (st == 304) {
		struct pending *p;

		info("%s: 304 not modified", j->row.url);
		cr->t->unchanged++;
		p = pending_new(cr, j);
		p->d.status = j->row.status == 200 ? 200 : 304;
		rv_note(p, j, r, false);
		job_done(cr, j);
		return;
	}
	if (st == 301 || st == 302 || st == 303 || st == 307 || st == 308) {
		page_redirect(cr, j, r);
		return;
	}
	if (st >= 200 && st < 300) {
		if (j->head) {
			info("%s: %ld (CheckOnly: HEAD)", j->row.url, st);
			finish_status(cr, j, (int)st, 0);
			return;
		}
		if (!a) {
			a = &cr->ia;
			analyse_page(cr->c, cr->tok, cr->o->force, j, r, a, &cr->an);
		}
		page_commit(cr, j, r, a);
		return;
	}
	cr->t->errors++;
	if (st >= 500)
		cr->t->errors_5xx++;
	else
		cr->t->errors_4xx++;
	/* A page that is gone leaves the index at the next merge whatever
	 * DeleteBad says; DeleteBad decides only whether its URL leaves the
	 * queue too (deleted) or is fetched again after Period, and indexed
	 * again should it come back. */
	if (st == 404 || st == 410) {
		if (sp->delete_bad)
			finish_dropped(cr, j, (int)st, "DeleteBad");
		else
			finish_gone(cr, j, (int)st);
		return;
	}
	if (st == 429 || st == 503) {
		long next = r->retry_after > 0 ? r->retry_after : retry;

		warning("%s: %ld %s: retried in %ld s", j->row.url, st, http_status_text((int)st),
			next);
		rv_refused(cr, j, sp, r->retry_after);
		finish_status(cr, j, (int)st, next);
		return;
	}
	info("%s: %ld %s", j->row.url, st, http_status_text((int)st));
	finish_status(cr, j, (int)st, 0);
}

/* Turn result r of the fetcher into the outcome of its job (a as for
 * page_result()). */
void result_commit(struct crawl *cr, struct fetch_result *r, struct analysis *a)
{
	struct job *j = r->user;

	if (r->err == FETCH_ERR_ABORTED) {
		/* Stopping: the claim is released at the end. */
		if (j->kind == JOB_ROBOTS_FETCH)
			free(j);
		else
			job_done(cr, j);
		return;
	}
	if (j->kind != JOB_PAGE)
		robots_txt_result(cr, j, r);
	else
		page_result(cr, j, r, a);
}

/* Does result r of job j carry a body for analyse_page()?  The same test as
 * page_result()'s way to page_commit(). */
bool needs_analysis(const struct job *j, const struct fetch_result *r)
{
	return j->kind == JOB_PAGE && !j->head &&
	       (r->err == FETCH_ERR_NONE || r->err == FETCH_ERR_TOO_BIG) &&
	       r->status >= 200 && r->status < 300;
}
