/* search-tool.c - runs search_run()/search_cached() directly (no searchd)
 * for tests/integration/search.sh and by hand.
 *
 * Usage: search-tool [options] CONFIG QUERY
 *   CONFIG is an mpseek.conf (DataDir, DBAddr, word lengths, stopwords);
 *   -S FILE     a searchd.conf for the ranking parameters
 *   -p N        page (0-based)          -n N   page size (10)
 *   -d          sort by date            -G     ungrouped (gr=off)
 *   -t N        st: only site_id N      -u S   ul: URL prefixes / site masks
 *   -f T, -T T  time_from, time_to      -m M   sections mask
 *   -x N        N excerpts per hit (0)  -l N   excerpt length (200)
 *   -s N        web space N (repeatable: OR-ed)
 *   -g DIR      search the generation directory DIR, without the database
 *               (no URLs, titles, excerpts, site:, link:)
 *   -v          verbose: score, site_hits, second, title, excerpts with [spans]
 *   -c          QUERY is "URL_OR_ID<TAB>terms": print the cached copy
 *   -r N        run the query N times; print the time of the last (ms) and
 *               the result-page cache's hits, misses and rows on stderr
 *   -D          a deadline already past (ER_TIMEOUT)
 *   -b          QUERY is a file of queries, one a line: run each (-r times,
 *               default 1) and print "queries N p50 P95 p99 max" in ms; with
 *               -v each query's answer first ("query: Q", then as below)
 *   -j N        with -b: N threads at once, each with its own connection and
 *               arena, each asking every query (-r times) in its own order;
 *               each answer must equal the one asked alone before: prints
 *               "threads N answers M differ K" (exit 1 when K > 0)
 *   -C N        keep at most N rows and N docstore entries in the
 *               generation's caches (so that they are emptied under pages)
 *   -W          print the work of the queries on stderr: "work queries N
 *               pruned N matched N postings N scored N" (struct search_work)
 *               and "walked lists N phrase-docs N summarized N" (pruned
 *               queries' posting lists, documents searched for a phrase,
 *               queries that bounded sites by their summaries) and "sites N
 *               passed-over N visited-docs N" (the driving word's sites
 *               pruned queries came to, those passed over by their site
 *               summaries, the documents read) "blocks-read N
 *               blocks-passed N" (ranges of visited sites read and passed
 *               over by their block summaries)
 * Every answer is also encoded and decoded as searchd would send it
 * ("ERROR WIRE ..." when that fails).
 * Output: "ERROR token message" or one line "total_urls total_results
 * total_sites" (then " estimated" when they are), a line "words: w:urls:total[:stop] ...", then one URL per
 * hit (a second hit of its site starts with "  ").
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "buf.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "proto.h"
#include "search.h"
#include "tokenize.h"
#include "util.h"

static void print_text(const char *label, const struct proto_text *t)
{
	const char *s = t->text ? t->text : "";
	size_t at = 0;

	printf("    %s: ", label);
	for (uint32_t i = 0; i < t->n_spans; i++) {
		printf("%.*s[%.*s]", (int)(t->spans[2 * i] - at), s + at,
		       (int)(t->spans[2 * i + 1] - t->spans[2 * i]), s + t->spans[2 * i]);
		at = t->spans[2 * i + 1];
	}
	printf("%s\n", s + at);
}

/* The answer must go over the wire as searchd sends it: encode, decode,
 * and the decoded hits match.  Prints "ERROR WIRE ..." when not. */
static bool wire_ok(const struct proto_results *res)
{
	struct buf frame = BUF_INIT(PROTO_MAX_FRAME + PROTO_HEADER_SIZE), err = BUF_INIT(1024);
	struct proto_results back;
	bool good = false;

	if (proto_encode_results(&frame, res)) {
		printf("ERROR WIRE the answer does not encode\n");
	} else if (proto_decode_results(frame.ptr + PROTO_HEADER_SIZE, frame.len - PROTO_HEADER_SIZE,
					&back, &err)) {
		printf("ERROR WIRE the answer does not decode: %s\n", buf_str(&err));
	} else {
		good = back.n_hits == res->n_hits && back.total_urls == res->total_urls;
		if (!good)
			printf("ERROR WIRE the decoded answer differs\n");
		proto_results_free(&back);
	}
	buf_free(&frame);
	buf_free(&err);
	return good;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void print_results(const struct proto_results *res, bool verbose);
static void print_hits(const struct proto_results *res, bool verbose);

static int run_bench(struct search_index *ix, const struct search_env *env,
		     struct proto_search *req, const char *file, long repeat, bool verbose)
{
	FILE *fp = fopen(file, "r");
	char line[PROTO_MAX_QUERY + 2];
	double *t = NULL;
	size_t n = 0, cap = 0;

	if (!fp) {
		fprintf(stderr, "search-tool: cannot open %s\n", file);
		return 1;
	}
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		req->q = line;
		for (long i = 0; i < repeat; i++) {
			struct proto_results res;
			double t0 = now_monotonic();

			search_run(ix, env, req, &res);
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				t = xrealloc(t, cap * sizeof(*t));
			}
			t[n++] = 1000 * (now_monotonic() - t0);
			if (verbose && i == 0) {
				printf("query: %s\n", line);
				if (res.error && res.error[0])
					printf("ERROR %s %s\n", res.error, res.message);
				else {
					print_results(&res, false);
					print_hits(&res, true);
				}
			}
			proto_results_free(&res);
		}
	}
	fclose(fp);
	if (n) {
		qsort(t, n, sizeof(*t), cmp_double);
		printf("queries %zu p50 %.3f p95 %.3f p99 %.3f max %.3f\n", n, t[n / 2],
		       t[(size_t)(0.95 * (double)(n - 1))], t[(size_t)(0.99 * (double)(n - 1))],
		       t[n - 1]);
	}
	free(t);
	return 0;
}

#define MAX_SPACES 16 /* -s given at most */

/* The command line besides the request it fills. */
struct opts {
	const char *sconf, *gen_dir;
	bool verbose, cached, expired, bench, work;
	long repeat, threads, cache_limit;
};

/* ---- -j: threads asking at once -------------------------------------------- */

/* The answer's bytes as searchd would send them, its time left out. */
static void answer_bytes(struct proto_results *res, struct buf *out)
{
	buf_reset(out);
	res->seconds = 0;
	if (proto_encode_results(out, res))
		buf_adds(out, "(does not encode)");
}

struct par {
	struct search_index *ix;
	const struct conf *c, *sc;
	const struct tokenizer *tok;
	const char *sock;
	const struct proto_search *req;
	char **q;                  /* the queries */
	struct buf *want;          /* the answer of each, asked alone */
	size_t nq, first;          /* this thread starts at query first */
	long repeat;
	size_t asked, differ;
	bool failed;
};

static void *par_thread(void *arg)
{
	struct par *p = arg;
	struct db *db = NULL;
	struct arena ar = ARENA_INIT;
	struct buf got = BUF_INIT(PROTO_MAX_FRAME + PROTO_HEADER_SIZE);

	if (db_open(p->c, p->sock, 10, &db)) {
		p->failed = true;
		return NULL;
	}
	struct search_env env = { .c = p->sc ? p->sc : p->c, .tok = p->tok, .db = db, .arena = &ar };
	struct proto_search req = *p->req;

	for (long r = 0; r < p->repeat; r++)
		for (size_t k = 0; k < p->nq; k++) {
			size_t i = (p->first + k) % p->nq;
			struct proto_results res;

			req.q = p->q[i];
			search_run(p->ix, &env, &req, &res);
			answer_bytes(&res, &got);
			proto_results_free(&res);
			p->asked++;
			if (got.len != p->want[i].len || memcmp(got.ptr, p->want[i].ptr, got.len))
				p->differ++;
		}
	buf_free(&got);
	arena_free(&ar);
	db_close(db);
	return NULL;
}

/* -b -j: the queries of file in o->threads threads at once.  Returns the
 * exit code. */
static int run_threads(struct search_index *ix, const struct search_env *env,
		       const struct conf *c, const char *sock, struct proto_search *req,
		       const char *file, const struct opts *o)
{
	FILE *fp = fopen(file, "r");
	char line[PROTO_MAX_QUERY + 2];
	char **q = NULL;
	struct buf *want = NULL;
	size_t nq = 0, asked = 0, differ = 0;
	long nt = o->threads < 1 ? 1 : o->threads > 64 ? 64 : o->threads;
	struct par *p = xcalloc((size_t)nt, sizeof(*p));
	pthread_t *tid = xcalloc((size_t)nt, sizeof(*tid));
	bool failed = false;

	if (!fp) {
		fprintf(stderr, "search-tool: cannot open %s\n", file);
		return 1;
	}
	while (fgets(line, sizeof(line), fp)) {
		struct proto_results res;

		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		q = xrealloc(q, (nq + 1) * sizeof(*q));
		want = xrealloc(want, (nq + 1) * sizeof(*want));
		q[nq] = xstrdup(line);
		buf_init(&want[nq], PROTO_MAX_FRAME + PROTO_HEADER_SIZE);
		req->q = q[nq];
		search_run(ix, env, req, &res);
		answer_bytes(&res, &want[nq]);
		proto_results_free(&res);
		nq++;
	}
	fclose(fp);
	for (long t = 0; t < nt; t++) {
		p[t] = (struct par){ ix, c, env->c, env->tok, sock, req, q, want, nq,
				     nq ? (size_t)t * nq / (size_t)nt : 0, o->repeat > 0 ? o->repeat : 1,
				     0, 0, false };
		if (pthread_create(&tid[t], NULL, par_thread, &p[t])) {
			nt = t;
			failed = true;
		}
	}
	for (long t = 0; t < nt; t++) {
		pthread_join(tid[t], NULL);
		asked += p[t].asked;
		differ += p[t].differ;
		failed |= p[t].failed;
	}
	printf("threads %ld answers %zu differ %zu%s\n", nt, asked, differ,
	       failed ? " (a thread failed)" : "");
	for (size_t i = 0; i < nq; i++) {
		free(q[i]);
		buf_free(&want[i]);
	}
	free(q);
	free(want);
	free(p);
	free(tid);
	return differ || failed ? 1 : 0;
}

/* Options into *o and *req (spaces: room for MAX_SPACES); 0, or 2 (usage). */
static int parse_options(int argc, char **argv, struct opts *o, struct proto_search *req,
			 uint32_t *spaces)
{
	int opt;

	while ((opt = getopt(argc, argv, "S:p:n:dGt:u:f:T:m:x:l:vcr:Dbs:g:Wj:C:")) != -1) {
		switch (opt) {
		case 'S': o->sconf = optarg; break;
		case 'p': req->page = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'n': req->page_size = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'd': req->sort = PROTO_SORT_DATE; break;
		case 'G': req->group = 0; break;
		case 't': req->site_id = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'u': req->ul = optarg; break;
		case 'f': req->time_from = strtoull(optarg, NULL, 10); break;
		case 'T': req->time_to = strtoull(optarg, NULL, 10); break;
		case 'm': req->sections = (uint8_t)strtoul(optarg, NULL, 0); break;
		case 'x': req->max_excerpts = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'l': req->excerpt_len = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'v': o->verbose = true; break;
		case 'c': o->cached = true; break;
		case 'r': o->repeat = strtol(optarg, NULL, 10); break;
		case 'D': o->expired = true; break;
		case 'b': o->bench = true; break;
		case 'W': o->work = true; break;
		case 'j': o->threads = strtol(optarg, NULL, 10); break;
		case 'C': o->cache_limit = strtol(optarg, NULL, 10); break;
		case 'g': o->gen_dir = optarg; break;
		case 's':
			if (req->n_spaces < MAX_SPACES)
				spaces[req->n_spaces++] = (uint32_t)strtoul(optarg, NULL, 10);
			req->spaces = spaces;
			break;
		default:
			fprintf(stderr, "usage: search-tool [options] CONFIG QUERY\n");
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: search-tool [options] CONFIG QUERY\n");
		return 2;
	}
	return 0;
}

/* -c: q is "URL_OR_ID<TAB>terms"; print the cached copy.  Returns the exit
 * code. */
static int run_cached(struct search_index *ix, const struct search_env *env, const char *q,
		      struct buf *err)
{
	struct proto_cached_req cr = { 0 };
	struct proto_cached res;
	const char *tab = strchr(q, '\t');
	char *first = xstrndup(q, tab ? (size_t)(tab - q) : strlen(q));
	struct buf frame = BUF_INIT(PROTO_MAX_FRAME + PROTO_HEADER_SIZE);
	struct proto_cached back;
	int rc;

	if (strstr(first, "://"))
		cr.url = first;
	else
		cr.url_id = (uint32_t)strtoul(first, NULL, 10);
	cr.q = (char *)(tab ? tab + 1 : "");
	rc = search_cached(ix, env, &cr, &res) ? 1 : 0;
	/* What searchd would send must encode and decode. */
	if (proto_encode_cached(&frame, &res) ||
	    proto_decode_cached(frame.ptr + PROTO_HEADER_SIZE, frame.len - PROTO_HEADER_SIZE,
				&back, err)) {
		printf("ERROR WIRE the cached copy does not encode: %s\n", buf_str(err));
		rc = 1;
	} else {
		proto_cached_free(&back);
	}
	buf_free(&frame);
	if (res.error && res.error[0])
		printf("ERROR %s\n", res.error);
	else {
		printf("%u %s %s %s\n", res.url_id, res.url, res.content_type, res.charset);
		print_text("text", &res.text);
	}
	proto_cached_free(&res);
	free(first);
	return rc;
}

/* The answer as the tests read it (see the top of the file). */
static void print_results(const struct proto_results *res, bool verbose)
{
	printf("%" PRIu64 " %" PRIu64 " %u%s\n", res->total_urls, res->total_results,
	       res->total_sites, res->estimated ? " estimated" : "");
	printf("words:");
	for (uint32_t i = 0; i < res->n_words; i++)
		printf(" %s:%u:%" PRIu64 "%s", res->words[i].word, res->words[i].urls,
		       res->words[i].total, res->words[i].stopword ? ":stop" : "");
	printf("\n");
	if (verbose && res->message && res->message[0])
		printf("note: %s\n", res->message);
}

static void print_hits(const struct proto_results *res, bool verbose)
{
	for (uint32_t i = 0; i < res->n_hits; i++) {
		const struct proto_hit *h = &res->hits[i];

		if (h->url)
			printf("%s%s\n", h->second ? "  " : "", h->url);
		else
			printf("%s%u\n", h->second ? "  " : "", h->url_id);
		if (!verbose)
			continue;
		printf("    score %.4f site_hits %u url_id %u lastmod %" PRIu64 "\n", h->score,
		       h->site_hits, h->url_id, h->last_modified);
		print_text("title", &h->title);
		for (uint32_t k = 0; k < h->n_excerpts; k++)
			print_text("excerpt", &h->excerpts[k]);
		for (uint32_t k = 0; k < h->n_clones; k++)
			printf("    clone: %s\n", h->clones[k].url);
	}
}

/* Run the query (-r times, timing the last) and print it.  Returns the
 * exit code. */
static int run_query(struct search_index *ix, const struct search_env *env,
		     struct proto_search *req, const struct opts *o)
{
	struct proto_results res;
	double t0;
	int rc;

	for (long i = 1; i < o->repeat; i++) {
		search_run(ix, env, req, &res);
		proto_results_free(&res);
	}
	t0 = now_monotonic();
	rc = search_run(ix, env, req, &res) ? 1 : 0;
	if (o->repeat > 0)
		fprintf(stderr, "time %.3f ms\n", 1000 * (now_monotonic() - t0));
	if (!wire_ok(&res))
		rc = 1;
	if (res.error && res.error[0]) {
		printf("ERROR %s %s\n", res.error, res.message);
	} else {
		print_results(&res, o->verbose);
		if (o->repeat > 0) {
			uint64_t ch, cm, cr;

			search_index_cache_stats(ix, &ch, &cm, &cr);
			fprintf(stderr, "cache %" PRIu64 " hits %" PRIu64 " misses %" PRIu64 " rows\n",
				ch, cm, cr);
			search_index_text_stats(ix, &ch, &cm, &cr);
			fprintf(stderr, "texts %" PRIu64 " hits %" PRIu64 " misses %" PRIu64 " kept\n",
				ch, cm, cr);
		}
		print_hits(&res, o->verbose);
	}
	proto_results_free(&res);
	return rc;
}

int main(int argc, char **argv)
{
	struct proto_search req = { 0 };
	uint32_t spaces[MAX_SPACES];
	struct opts o = { 0 };
	struct buf err = BUF_INIT(4096);
	struct conf *c = NULL, *sc = NULL;
	struct tokenizer *tok = NULL;
	struct search_index *ix = NULL;
	struct db *db = NULL;
	char *sock = NULL; /* the embedded server's, used when there is no DBAddr */
	int rc = 1;

	log_set_prog("search-tool");
	log_set_level(LOG_WARN);
	req.page_size = 10;
	req.group = 1;
	req.excerpt_len = 200;
	req.ul = (char *)"";
	if (parse_options(argc, argv, &o, &req, spaces))
		return 2;
	if (conf_load(argv[optind], CONF_INDEXER, &c, &err)) {
		fprintf(stderr, "search-tool: %s\n", buf_str(&err));
		goto out;
	}
	if (o.sconf && conf_load(o.sconf, CONF_SEARCHD, &sc, &err)) {
		fprintf(stderr, "search-tool: %s\n", buf_str(&err));
		goto out;
	}
	tok = tok_new(c->min_word_length, c->max_word_length);
	for (size_t i = 0; i < c->n_stopword_files; i++)
		if (tok_load_stopwords(tok, c->stopword_files[i]))
			goto out;
	if (search_index_open(sc ? sc : c, c->data_dir, o.gen_dir, !o.gen_dir, &ix, &err)) {
		fprintf(stderr, "search-tool: %s\n", buf_str(&err));
		goto out;
	}
	sock = dbserver_socket_path(c->data_dir);
	if (!o.gen_dir && db_open(c, sock, 10, &db))
		goto out;
	{
		struct search_work work = { 0 };
		/* An arena kept from query to query, as a searchd thread's. */
		struct arena ar = ARENA_INIT;
		struct search_env env = { sc ? sc : c, tok, db, o.expired ? now_monotonic() - 1 : 0,
					  &work, NULL, &ar };
		const char *q = argv[optind + 1];

		if (o.cache_limit > 0)
			search_index_cache_limit(ix, (size_t)o.cache_limit, (size_t)o.cache_limit);
		if (o.bench && o.threads > 0) {
			rc = run_threads(ix, &env, c, sock, &req, q, &o);
		} else if (o.bench) {
			rc = run_bench(ix, &env, &req, q, o.repeat > 0 ? o.repeat : 1, o.verbose);
		} else if (o.cached) {
			rc = run_cached(ix, &env, q, &err);
		} else {
			req.q = (char *)q;
			rc = run_query(ix, &env, &req, &o);
		}
		if (o.work)
			fprintf(stderr,
				"work queries %" PRIu64 " pruned %" PRIu64 " matched %" PRIu64
				" postings %" PRIu64 " scored %" PRIu64 "\n",
				work.queries, work.pruned, work.matched, work.postings, work.scored);
		if (o.work)
			fprintf(stderr, "walked lists %" PRIu64 " phrase-docs %" PRIu64
				" summarized %" PRIu64 " paired %" PRIu64 "\n",
				work.lists, work.phrase_docs, work.sum_queries, work.paired);
		if (o.work)
			fprintf(stderr, "sites %" PRIu64 " passed-over %" PRIu64 " visited-docs %" PRIu64
				" blocks-read %" PRIu64 " blocks-passed %" PRIu64 " skips %" PRIu64 "\n",
				work.sites, work.sum_sites, work.visited, work.blocks, work.sum_blocks,
				work.skips);
		arena_free(&ar);
	}
out:
	db_close(db);
	free(sock);
	search_index_unref(ix);
	tok_free(tok);
	conf_free(c);
	conf_free(sc);
	buf_free(&err);
	return rc;
}
