/* search.h - answering a query from one index generation: the engine that
 * searchd runs in each of its threads (src/search.c evaluates and ranks,
 * src/excerpt.c makes snippets and the cached copy).
 *
 * A struct search_index is one opened generation (CompactStorage, docinfo,
 * ranks, citations), checked when opened and read-only afterwards: any
 * number of threads may search it at once.  searchd swaps in a new one
 * between queries (hot reload) and closes the old one when its last query
 * is done (search_index_ref/unref).  Everything a result page shows that
 * the index does not hold (URL, title, description, stored text, clones)
 * comes from the database through the caller's connection (one per thread).
 * Formula and behaviour: doc/SEARCH.md.
 */
#ifndef MPSEEK_SEARCH_H
#define MPSEEK_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

struct buf;
struct conf;
struct db;
struct tokenizer;

struct search_index;

/* Open the live generation of data_dir (index/current), or gen_dir when not
 * NULL.  verify: run storage_check() first and refuse a damaged generation
 * (searchd does; tests of damage rely on it).  Returns 0 and *out (one
 * reference), or -1 with the reason in err. */
int search_index_open(const struct conf *c, const char *data_dir, const char *gen_dir,
		      bool verify, struct search_index **out, struct buf *err);
/* References: searchd's current pointer holds one, each running query one. */
void search_index_ref(struct search_index *ix);
void search_index_unref(struct search_index *ix);   /* closes at zero; accepts NULL */
uint64_t search_index_generation(const struct search_index *ix);
/* The generation directory's name, e.g. ".../index/gen-00000003". */
const char *search_index_dir(const struct search_index *ix);

/* What a search may use besides the index: the tokenizer of the indexer
 * (same word lengths and stopwords), the limits of searchd.conf. */
struct search_env {
	const struct conf *c;
	const struct tokenizer *tok;
	struct db *db;            /* this thread's connection; NULL: no titles, excerpts */
	double deadline;          /* now_monotonic() value after which to stop, 0 = none */
};

/* Answer one request.  Always fills *res (free with proto_results_free()):
 * a query that cannot be served gets res->error (ER_* token) and a message;
 * a query past the deadline gets ER_TIMEOUT.  Returns 0, or -1 only when
 * the index or the database failed (res->error is then set too). */
int search_run(struct search_index *ix, const struct search_env *env,
	       const struct proto_search *req, struct proto_results *res);

/* The cached copy of a document (stored text, query terms highlighted). */
int search_cached(struct search_index *ix, const struct search_env *env,
		  const struct proto_cached_req *req, struct proto_cached *res);

#endif
