/* search.c - answering a query from one index generation (search.h): the
 * generation opened and refcounted, and one query taken through its phases
 * (search_int.h): parse, match (search_match.c), the database's filters
 * (search_filter.c), scoring (search_score.c), the page (search_hits.c),
 * plus the word statistics and the cached copy.  It owns no SQL (db.c)
 * and no socket (searchd).  The formula: doc/SEARCH.md, "Ranking".
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boiler.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "citations.h"
#include "conf.h"
#include "db.h"
#include "docblob.h"
#include "docstore.h"
#include "excerpt.h"
#include "grams.h"
#include "log.h"
#include "neardup.h"
#include "query.h"
#include "ranks.h"
#include "search.h"
#include "search_int.h"
#include "stems.h"
#include "storage.h"
#include "tokenize.h"
#include "url.h"
#include "util.h"

#define SEARCH_MAX_CACHED_SPANS 100000 /* highlights of one cached copy */

/* ---- the generation --------------------------------------------------------- */

static void index_close(struct search_index *ix)
{
	if (!ix)
		return;
	hit_cache_free(ix);
	pthread_mutex_destroy(&ix->cache_mu);
	storage_close(ix->st);
	ranks_close(ix->rk);
	citations_close(ix->rev);
	stems_close(ix->stems);
	docstore_close(ix->ds);
	boiler_close(ix->bp);
	neardup_close(ix->nd);
	grams_free(ix->grams);
	free(ix->nd_split);
	search_norms_free(ix);
	search_sums_free(ix);
	free(ix->dir);
	free(ix);
}

/* ix->nd_split: the members of the near-duplicate groups that span sites.
 * Folding keeps a group's best; where the group's documents are in one
 * site, which one it keeps changes no count and a left-out one is not on
 * the page, but across sites it decides the sites' counts.  0 or -1. */
static int split_groups(struct search_index *ix)
{
	const struct neardup_member *m;
	size_t n = neardup_by_group(ix->nd, &m);

	for (size_t i = 0, j; i < n; i = j) {
		uint32_t site = 0;
		bool split = false;

		for (j = i; j < n && m[j].group == m[i].group; j++) {
			struct storage_doc d;
			int rc = storage_doc(ix->st, m[j].url_id, &d);

			if (rc < 0)
				return -1;
			if (rc == 0)
				continue;
			split |= site && d.site_id != site;
			site = d.site_id;
		}
		if (!split)
			continue;
		if (!ix->nd_split) {
			/* A bit per url_id up to the largest member of any group. */
			for (size_t k = 0; k < n; k++)
				if (m[k].url_id > ix->nd_split_max)
					ix->nd_split_max = m[k].url_id;
			ix->nd_split = xcalloc(ix->nd_split_max / 64 + 1, sizeof(uint64_t));
		}
		for (size_t k = i; k < j; k++)
			ix->nd_split[m[k].url_id / 64] |= 1ull << (m[k].url_id % 64);
	}
	return 0;
}

/* The generation's stem map when Stemming is on: none (an older
 * generation, or one merged with Stemming no) means no word forms; a map of
 * another language is not used (its stems are not the query's). */
static int open_stems(const struct conf *c, struct search_index *ix, struct buf *err)
{
	if (!stemmer_known(c->stem_language)) {
		if (err)
			buf_printf(err, "StemLanguage %.40s: not a language of libstemmer",
				   c->stem_language);
		return -1;
	}
	if (stems_open(ix->dir, &ix->stems, err) < 0)
		return -1;
	if (ix->stems && strcmp(stems_language(ix->stems), c->stem_language)) {
		warning("%s: the stem map is in %s, StemLanguage is %s: no word forms", ix->dir,
			stems_language(ix->stems), c->stem_language);
		stems_close(ix->stems);
		ix->stems = NULL;
	}
	return 0;
}

int search_index_open(const struct conf *c, const char *data_dir, const char *gen_dir,
		      bool verify, struct search_index **out, struct buf *err)
{
	struct search_index *ix = xcalloc(1, sizeof(*ix));
	struct buf report = BUF_INIT(64 * 1024);
	uint64_t gen;
	int rc;

	*out = NULL;
	pthread_mutex_init(&ix->cache_mu, NULL);
	if (gen_dir) {
		ix->dir = xstrdup(gen_dir);
	} else {
		rc = storage_current(data_dir, &gen, err);
		if (rc < 0)
			goto fail;
		if (rc == 0) {
			if (err)
				buf_printf(err, "%s has no index yet (run mpseek-index)", data_dir);
			goto fail;
		}
		ix->dir = storage_gen_path(data_dir, gen);
	}
	if (verify) {
		struct storage_format f;

		/* A generation of an older format version is not damaged: FORMAT
		 * alone says so, and how to convert it. */
		if (storage_format_read(ix->dir, &f, err))
			goto fail;
		rc = storage_check(ix->dir, &report);
		if (rc) {
			if (err)
				buf_printf(err, "%s: %s: %.300s", ix->dir,
					   rc > 0 ? "the index is damaged" : "cannot check the index",
					   buf_str(&report));
			goto fail;
		}
	}
	if (storage_open_dir(ix->dir, &ix->st, err))
		goto fail;
	if (ranks_open(ix->dir, &ix->rk, err) < 0)
		goto fail;
	if (citations_open(ix->dir, CITATIONS_REVERSE, &ix->rev, err) < 0)
		goto fail;
	if (c && c->stemming && open_stems(c, ix, err))
		goto fail;
	/* The docstore is optional: without a good one the hits' texts come
	 * from the database, as in generations written before it. */
	if (docstore_open(ix->dir, &ix->ds, &report) < 0)
		warning("%s (snippets are read from the database)", buf_str(&report));
	/* Optional too: without it no text is boilerplate. */
	buf_reset(&report);
	if (boiler_open(ix->dir, &ix->bp, &report) < 0)
		warning("%s (no boilerplate is known)", buf_str(&report));
	/* So are the near-duplicate groups: without them every page shows. */
	buf_reset(&report);
	if (neardup_open(ix->dir, &ix->nd, &report) < 0)
		warning("%s (near-duplicates are not grouped)", buf_str(&report));
	if (ix->nd && split_groups(ix))
		goto fail;
	/* And the common-word pairs: without them a phrase is walked by its
	 * words alone. */
	buf_reset(&report);
	if (grams_read(ix->dir, &ix->grams, &report) < 0)
		warning("%s (phrases are searched without common-word pairs)", buf_str(&report));
	ix->gen = storage_generation(ix->st);
	for (int s = 0; s < STORAGE_SECTIONS; s++)
		ix->avg_len[s] = storage_avg_len(ix->st, s);
	search_norms_make(ix, c);
	if (search_sums_make(ix)) {
		if (err)
			buf_printf(err, "%s: the index is damaged (docinfo)", ix->dir);
		goto fail;
	}
	ix->refs = 1;
	buf_free(&report);
	*out = ix;
	return 0;
fail:
	buf_free(&report);
	index_close(ix);
	return -1;
}

void search_index_ref(struct search_index *ix)
{
	__atomic_add_fetch(&ix->refs, 1, __ATOMIC_RELAXED);
}

void search_index_unref(struct search_index *ix)
{
	if (ix && __atomic_sub_fetch(&ix->refs, 1, __ATOMIC_ACQ_REL) == 0)
		index_close(ix);
}

uint64_t search_index_generation(const struct search_index *ix)
{
	return ix->gen;
}

unsigned long search_index_faults(const struct search_index *ix)
{
	return storage_faults(ix->st);
}

void search_index_set_damaged(struct search_index *ix)
{
	__atomic_store_n(&ix->damaged, 1, __ATOMIC_RELAXED);
}

bool search_index_damaged(const struct search_index *ix)
{
	return __atomic_load_n(&ix->damaged, __ATOMIC_RELAXED);
}

const char *search_index_dir(const struct search_index *ix)
{
	return ix->dir;
}

void search_index_cache_stats(struct search_index *ix, uint64_t *hits, uint64_t *misses,
			      uint64_t *rows)
{
	pthread_mutex_lock(&ix->cache_mu);
	*hits = ix->cache_hits;
	*misses = ix->cache_misses;
	*rows = ix->cache_rows;
	pthread_mutex_unlock(&ix->cache_mu);
}

void search_index_text_stats(struct search_index *ix, uint64_t *hits, uint64_t *misses,
			     uint64_t *texts)
{
	pthread_mutex_lock(&ix->cache_mu);
	*hits = ix->text_hits;
	*misses = ix->text_misses;
	*texts = ix->text_rows;
	pthread_mutex_unlock(&ix->cache_mu);
}

/* ---- one query ------------------------------------------------------------------- */

void run_fail(struct run *r, const char *token, const char *fmt, ...)
{
	va_list ap;

	if (r->err_token)
		return;
	r->err_token = token;
	va_start(ap, fmt);
	vsnprintf(r->err_msg, sizeof(r->err_msg), fmt, ap);
	va_end(ap);
}

static void word_stats(struct run *r)
{
	struct proto_results *res = r->res;
	size_t n = r->q.n_words < PROTO_MAX_WORDS ? r->q.n_words : PROTO_MAX_WORDS;

	res->words = xcalloc(n ? n : 1, sizeof(*res->words));
	res->n_words = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct proto_word_stat *w = &res->words[i];
		struct storage_word sw;
		const char *word = r->q.words[i].word;

		w->word = valid_dup(word);
		w->stopword = r->q.words[i].stopword;
		if (w->stopword)
			continue;
		if (strpbrk(word, "*?")) {
			/* A wildcard: the sums over its expansion. */
			for (size_t l = 0; l < r->n_leaves; l++) {
				if (r->leaves[l].node->type != Q_WILD ||
				    strcmp(r->leaves[l].node->word, word))
					continue;
				for (size_t j = 0; j < r->leaves[l].n_words; j++) {
					const char *x = r->leaves[l].words[j];
					if (storage_word(r->ix->st, x, strlen(x), &sw) == 1) {
						w->urls += sw.n_urls;
						w->total += sw.total;
					}
				}
				break;
			}
		} else if (storage_word(r->ix->st, word, strlen(word), &sw) == 1) {
			w->urls = sw.n_urls;
			w->total = sw.total;
		}
	}
}

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->n_leaves; i++) {
		plist_free(&r->leaves[i].pl);
		plist_free(&r->leaves[i].xpl);
		plist_free(&r->leaves[i].fpl);
		plist_free(&r->leaves[i].apl);
		for (size_t j = 0; j < r->leaves[i].n_words; j++)
			free(r->leaves[i].words[j]);
		free(r->leaves[i].words);
	}
	free(r->leaves);
	stemmer_free(r->stemmer);
	free(r->phrases);
	for (size_t i = 0; i < r->n_filters; i++)
		free(r->filters[i].sites);
	free(r->filters);
	free(r->space_sites);
	free(r->ul_sites);
	free(r->ul_urls);
	buf_free(&r->notes);
	query_free(&r->q);
	/* The thread's arena keeps its memory for the next query. */
	if (r->ar == &r->own_ar)
		arena_free(&r->own_ar);
	else if (r->ar)
		arena_reset(r->ar);
}

static void set_error(struct proto_results *res, const char *token, const char *msg)
{
	free(res->error);
	free(res->message);
	res->error = xstrdup(token);
	res->message = xstrdup(msg);
}

/* Every leaf's postings (the words all answers have first, rarest first)
 * and its idf: 0, or -1 when the index could not be read. */
static int load_leaves(struct run *r)
{
	int rc = 0;

	if (run_load_driven(r)) {
		run_fail(r, "ER_INDEX", "The index could not be read.");
		rc = -1;
	}
	for (size_t i = 0; i < r->n_leaves && !run_past_deadline(r); i++) {
		struct leaf *l = &r->leaves[i];

		if (!l->loaded && run_load_leaf(r, l)) {
			if (!r->err_token)
				run_fail(r, "ER_INDEX", "The index could not be read.");
			rc = -1;
			break;
		}
		/* Loaded for the AND's documents only: the dictionary's count.  A
		 * word with forms keeps its own idf (the forms' documents score
		 * below its own); with none of its own, that of all forms. */
		l->idf = search_idf(storage_n_docs(r->ix->st),
				    l->loaded ? l->df : l->exact_df ? l->exact_df : l->pl.n);
	}
	return rc;
}

/* What top-k pruning passed over in the sites it visited, and estimated
 * (search_block.c): into *urls and *sites, the matches and sites to add
 * to the counts, and each pick's site_hits.  The units it counted give
 * the rate of matches per driving document, and of matching sites. */
static void est_apply(const struct run *r, const struct search_doc *docs,
		      struct search_pick *picks, size_t n_picks, uint64_t *urls, uint64_t *sites)
{
	const struct run_est *e = &r->est;
	double rate = e->docs ? (double)e->hits / (double)e->docs : 0;
	double srate = e->sites ? (double)e->sites_hit / (double)e->sites : rate > 0;

	*urls = (uint64_t)llround(rate * (double)e->est_docs);
	*sites = (uint64_t)llround(srate * (double)e->est_sites);
	for (size_t i = 0; i < e->nx; i++) {
		const struct run_est_site *x = &e->x[i];
		uint64_t n = x->hits + (uint64_t)llround(rate * (double)x->est_docs);

		*urls += x->hits;
		*sites += !x->listed && n > 0;
		for (size_t k = 0; k < n_picks; k++)
			if (docs[picks[k].doc].site_id == x->site)
				picks[k].site_hits += (uint32_t)n;
	}
}

/* Group, order and cut the scored documents into the page asked for, and
 * fill its hits: 0, or -1 when the database failed. */
static int make_page(struct run *r, const struct search_doc *docs, size_t n_docs, uint32_t ps)
{
	const struct proto_search *req = r->req;
	struct proto_results *res = r->res;
	struct search_pick *picks = xmalloc(2 * (size_t)ps * sizeof(*picks));
	size_t n_picks;
	uint64_t urls, sites;
	int rc;

	n_picks = search_select(docs, n_docs, req->group, req->sort,
				req->page < PROTO_MAX_PAGE ? req->page : PROTO_MAX_PAGE, ps, picks,
				&res->total_results, &res->total_sites);
	/* The sites top-k pruning counted from their summaries (none on the
	 * page, none with near-duplicates), and what it passed over and
	 * estimated. */
	est_apply(r, docs, picks, n_picks, &urls, &sites);
	res->total_urls = n_docs + r->sum_urls + urls;
	res->total_sites += (uint32_t)(r->sum_sites + sites);
	res->total_results += req->group ? r->sum_sites + sites : r->sum_urls + urls;
	res->estimated = r->est.est_docs || r->est.est_sites;
	res->first = req->page * ps;
	rc = run_fill_hits(r, docs, picks, n_picks);
	free(picks);
	return rc;
}

int search_run(struct search_index *ix, const struct search_env *env,
	       const struct proto_search *req, struct proto_results *res)
{
	struct run r;
	struct query_opts qo = { env->tok, env->c->min_fixed_pattern_length };
	struct search_doc *docs = NULL;
	size_t n_docs = 0;
	struct kset set = { NULL, 0 };
	double t0 = now_monotonic();
	uint32_t ps = req->page_size ? req->page_size : 10;
	int rc = 0, scored;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.ar = env->arena ? env->arena : &r.own_ar;
	res->generation = ix->gen;
	r.ix = ix;
	r.env = env;
	r.rt = search_rt_urls(env->rt) ? env->rt : NULL;
	r.req = req;
	r.res = res;
	buf_init(&r.notes, 1024);
	search_rank_params(env->c, &r.rp);
	run_norms(&r);
	if (ps > PROTO_MAX_PAGE_SIZE)
		ps = PROTO_MAX_PAGE_SIZE;

	query_parse(req->q ? req->q : "", req->q ? strlen(req->q) : 0, &qo, &r.q);
	if (r.q.error) {
		set_error(res, r.q.error, r.q.message);
		word_stats(&r);
		goto done;
	}
	if (r.q.message[0])
		buf_adds(&r.notes, r.q.message);
	/* 256 KiB of decoded positions: from the arena, which a searchd
	 * thread keeps mapped from one query to the next. */
	r.cur = arena_alloc(r.ar, sizeof(*r.cur));
	run_collect(&r, r.q.root, true, false);
	if (run_resolve_filters(&r)) {
		r.db_failed = true;
		goto done;
	}
	/* Pruning reads the generation's postings alone: not with a
	 * real-time index to merge in. */
	if (!r.rt && run_prune_eligible(&r)) {
		run_title_prepare(&r);
		scored = run_prune(&r, ps, &docs, &n_docs);
		word_stats(&r);
	} else {
		if (load_leaves(&r))
			rc = -1;
		word_stats(&r);
		if (r.err_token)
			goto done;
		for (size_t i = 0; i < r.n_leaves; i++)
			r.work.postings += r.leaves[i].pl.n;
		run_title_prepare(&r);
		set = run_eval(&r, r.q.root);
		scored = run_score(&r, &set, &docs, &n_docs);
	}
	/* Folding keeps each near-duplicate group's best: pruning's threshold
	 * counted a group once (search_prune.c), so no document the folded
	 * page needs was left unscored. */
	if (!scored)
		n_docs = run_fold_neardups(&r, docs, n_docs);
	r.work.matched = n_docs + r.sum_urls;
	if (scored) {
		if (scored < 0)
			rc = -1;
		goto done;
	}
	if (make_page(&r, docs, n_docs, ps))
		rc = -1;
	r.work.matched = res->total_urls;
done:
	if (r.db_failed) {
		run_fail(&r, "ER_DATABASE", "The database did not answer.");
		rc = -1;
	}
	if (!res->error) {
		if (r.err_token) {
			set_error(res, r.err_token, r.err_msg);
		} else {
			res->error = xstrdup("");
			res->message = xstrdup(buf_str(&r.notes));
		}
	}
	res->seconds = now_monotonic() - t0;
	if (env->work) {
		env->work->queries++;
		env->work->pruned += r.work.pruned;
		env->work->matched += r.work.matched;
		env->work->postings += r.work.postings;
		env->work->scored += r.work.scored;
		env->work->lists += r.work.lists;
		env->work->phrase_docs += r.work.phrase_docs;
		env->work->sum_queries += r.work.sum_queries;
		env->work->paired += r.work.paired;
		env->work->sites += r.work.sites;
		env->work->sum_sites += r.work.sum_sites;
		env->work->visited += r.work.visited;
		env->work->blocks += r.work.blocks;
		env->work->sum_blocks += r.work.sum_blocks;
		env->work->skips += r.work.skips;
	}
	run_free(&r);
	return rc;
}

/* ---- the cached copy ------------------------------------------------------------ */

int search_cached(struct search_index *ix, const struct search_env *env,
		  const struct proto_cached_req *req, struct proto_cached *res)
{
	struct run r;
	struct query_opts qo = { env->tok, env->c->min_fixed_pattern_length };
	struct proto_search sreq = { 0 };
	struct db_hit_doc d = { 0 };
	struct buf raw = BUF_INIT(MAX_DOC_BYTES), plain = BUF_INIT(MAX_DOC_BYTES + 1),
		   err = BUF_INIT(256), norm = BUF_INIT(MAX_URL_LEN + 1);
	const char **words = NULL;
	struct excerpt_terms terms = { NULL, 0 };
	uint32_t id = req->url_id;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.ar = env->arena ? env->arena : &r.own_ar;
	r.ix = ix;
	r.env = env;
	r.req = &sreq;
	buf_init(&r.notes, 1024);
	if (!env->db) {
		res->error = xstrdup("ER_NOSEARCHD");
		goto out;
	}
	if (!id && req->url) {
		if (url_normalize(req->url, &norm, NULL) == 0) {
			rc = db_url_id(env->db, buf_str(&norm), &id);
			if (rc < 0)
				goto dberr;
			rc = 0;
		}
	}
	if (id && db_hit_docs(env->db, &id, 1, true, &d))
		goto dberr;
	if (!id || !d.found || !d.text) {
		res->error = xstrdup("ER_NOTFOUND");
		goto out;
	}
	/* The words to highlight: the query's terms and wildcard expansions. */
	if (req->q && query_parse(req->q, strlen(req->q), &qo, &r.q) == 0) {
		r.cur = NULL;
		run_collect(&r, r.q.root, true, false);
		for (size_t i = 0; i < r.n_leaves; i++)
			run_leaf_words(&r, &r.leaves[i]);
		run_highlight_words(&r, &words, &terms.n);
		terms.words = words;
	}
	if (docblob_inflate(d.text, d.text_len, MAX_DOC_BYTES, &raw, &err)) {
		warning("url %u: stored text: %s", id, buf_str(&err));
		res->error = xstrdup("ER_NOTFOUND");
		goto out;
	}
	excerpt_plain_text(buf_str(&raw), raw.len, d.content_type, true, &plain);
	/* One protocol string holds at most PROTO_MAX_STRING bytes. */
	if (plain.len > PROTO_MAX_STRING)
		buf_truncate(&plain, utf8_cut(plain.ptr, plain.len, PROTO_MAX_STRING));
	excerpt_highlight(env->tok, buf_str(&plain), plain.len, &terms, SEARCH_MAX_CACHED_SPANS,
			  &res->text);
	res->error = xstrdup("");
	res->url_id = id;
	res->url = valid_dup(d.url);
	res->content_type = valid_dup(d.content_type);
	res->charset = valid_dup(d.charset);
	res->last_index_time = d.last_index_time;
	goto out;
dberr:
	res->error = xstrdup("ER_DATABASE");
	rc = -1;
out:
	db_hit_doc_free(&d);
	buf_free(&raw);
	buf_free(&plain);
	buf_free(&err);
	buf_free(&norm);
	run_free(&r);
	return rc;
}
