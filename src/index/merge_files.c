/* merge_files.c - the files of a new generation besides the partitions and
 * docinfo, made by rank 0 in the merge's step 5 (doc/MERGE.md): the
 * docstore's builder, the stem map, the near-duplicate groups, and whether
 * the live generation's ranks and citations may be kept.  The steps themselves are in merge.c.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "buf.h"
#include "citations.h"
#include "conf.h"
#include "docstore.h"
#include "db.h"
#include "log.h"
#include "neardup.h"
#include "ranks.h"
#include "stems.h"
#include "storage.h"
#include "util.h"
#include "merge_int.h"

/* The stem map of the new generation's dictionary (stems.h), rebuilt whole:
 * new words come with every merge, and stemming the dictionary is cheap
 * beside the merge (doc/MERGE.md).  Stemming no: no map, no expansion. */
int merge_write_stems(const struct conf *c, const char *dir)
{
	struct buf err = BUF_INIT(4096);
	struct storage *st = NULL;
	double t = now_monotonic();
	int rc = 0;

	if (!c->stemming)
		return 0;
	if (storage_open_dir(dir, &st, &err) || stems_write(dir, st, c->stem_language, &err))
		rc = error("merge: stem map: %s", buf_str(&err));
	else
		info("merge: stem map written (%.2f s)", now_monotonic() - t);
	storage_close(st);
	buf_free(&err);
	return rc;
}

struct simhash_rows {
	struct neardup_doc *v;
	size_t n, cap;
};

static int simhash_row(void *arg, uint32_t url_id, uint64_t simhash)
{
	struct simhash_rows *r = arg;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 4096;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n].url_id = url_id;
	r->v[r->n].simhash = simhash;
	r->n++;
	return 0;
}

/* The near-duplicate groups of every live page (neardup.h), found anew at
 * each merge from urlword.simhash: a page's near-duplicates may be on any
 * rank and in any partition, and 12 bytes a page fit in memory (doc/SEARCH.md,
 * "Near-duplicates").  NearDupBits 0: none (the generation has no file). */
int merge_write_neardup(const struct conf *c, struct db *db, const char *dir)
{
	struct simhash_rows r = { NULL, 0, 0 };
	struct neardup_member *m = NULL;
	double t = now_monotonic();
	size_t n = 0, groups;
	int rc;

	if (!c->near_dup_bits || !db)
		return 0;
	rc = db_simhashes(db, simhash_row, &r);
	if (!rc) {
		groups = neardup_group(r.v, r.n, (unsigned)c->near_dup_bits, &m, &n);
		rc = neardup_write(dir, m, n, (unsigned)c->near_dup_bits);
		if (!rc)
			info("merge: near-duplicates: %zu groups of %zu pages among %zu (%.2f s)",
			     groups, n, r.n, now_monotonic() - t);
	}
	if (rc)
		rc = error("merge: near-duplicate groups not written");
	free(m);
	free(r.v);
	return rc;
}

/* May the new generation keep the old one's ranks and citations?  Not when
 * they are of an older format version or damaged: searchd would refuse the
 * whole generation for them, while one without them serves (unranked, no
 * link:) until `mpseek-index -K` writes them anew. */
bool merge_keep_pagerank(const char *old_dir)
{
	struct buf err = BUF_INIT(1024);
	struct ranks *r = NULL;
	struct citations *d = NULL, *v = NULL;
	bool ok = ranks_open(old_dir, &r, &err) >= 0 &&
		  citations_open(old_dir, CITATIONS_DIRECT, &d, &err) >= 0 &&
		  citations_open(old_dir, CITATIONS_REVERSE, &v, &err) >= 0;

	if (!ok)
		warning("merge: not keeping ranks and citations: %s; run mpseek-index -K",
			buf_str(&err));
	ranks_close(r);
	citations_close(d);
	citations_close(v);
	buf_free(&err);
	return ok;
}

/* The docstore's builder, from the live generation's docstore (when it
 * has a good one: else its documents are read from the database) and the
 * database, connected through db_fn when a batch first needs it. */
int merge_docstore_start(const char *dir, const struct storage *old_gen, docstore_db_fn db_fn,
			 void *db_arg, size_t cap, struct docstore_builder **b,
			 struct docstore **old)
{
	struct buf err = BUF_INIT(4096);
	int rc = 0;

	*b = NULL;
	*old = NULL;
	if (old_gen && docstore_open(storage_dir(old_gen), old, &err) < 0) {
		warning("merge: the live generation's docstore is not used: %s", buf_str(&err));
		buf_reset(&err);
	}
	if (docstore_build_begin(dir, *old, db_fn, db_arg, cap, b, &err)) {
		rc = error("merge: the docstore cannot be written: %s", buf_str(&err));
		docstore_close(*old);
		*old = NULL;
	}
	buf_free(&err);
	return rc;
}

/* Commit the docstore (a failure fails the merge) and close the old one. */
int merge_docstore_end(struct docstore_builder *b, struct docstore *old, double t0)
{
	struct buf err = BUF_INIT(4096);
	uint64_t copied = 0, read = 0, logged = 0;
	int rc = 0;

	if (docstore_build_finish(b, &copied, &read, &logged, &err))
		rc = error("merge: the docstore cannot be written: %s", buf_str(&err));
	else
		info("merge: docstore written: %" PRIu64 " document(s) copied, %" PRIu64
		     " from the delta logs, %" PRIu64 " read from the database (%.2f s)", copied,
		     logged, read, now_monotonic() - t0);
	docstore_close(old);
	buf_free(&err);
	return rc;
}
