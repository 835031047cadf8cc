/* merge_docinfo.c - docinfo and the docstore of a new generation (rank 0),
 * written in a thread beside the postings' sort and the partitions
 * (merge_int.h): the old entries merged with the URL states of all ranks,
 * each fresh document's text taken from the TEXT record after its winning
 * DOC in the delta logs (or, when rank 0 cannot read that, from the
 * database) into the docstore, then the boilerplate found in that docstore
 * (merge_boiler.c).  Inflating and deflating those texts is CPU work of its
 * own: on two cores it overlaps the postings' pass (doc/MERGE.md, step 8).
 * In the same pass, `links`: each document's out-links, from the HREFS
 * record after its DOC or the old generation's `links`, for PageRank.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "citations.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "delta.h"
#include "docstore.h"
#include "le.h"
#include "log.h"
#include "storage.h"
#include "util.h"
#include "merge_int.h"

/* The TEXT records of the winning DOCs (delta.h), read from the segments
 * rank 0 sees: with one host all of them.  A segment it does not see (a
 * worker's, on another host), a log of an older version or a TEXT it cannot
 * read leaves the document to the database, as before TEXT records. */
struct texts {
	const char *data_dir;
	const unsigned char *keys;  /* per segment: created u64, rank u32, seq u32 */
	size_t n;
	struct delta_reader **r;
	signed char *state;         /* 0 not opened yet, 1 open, -1 not here */
};

static struct delta_reader *texts_segment(struct texts *t, size_t seg)
{
	const unsigned char *k = t->keys + 16 * seg;
	struct buf err = BUF_INIT(1024);
	struct delta_reader *r;
	char *path;

	if (t->state[seg])
		return t->state[seg] > 0 ? t->r[seg] : NULL;
	path = delta_seg_path(t->data_dir, (int)le_get32(k + 8), le_get32(k + 12));
	r = delta_reader_open(path, &err);
	/* The same name on another host is another file: its header says. */
	if (r && (delta_reader_created(r) != le_get64(k) || delta_reader_rank(r) != le_get32(k + 8))) {
		delta_reader_close(r);
		r = NULL;
	}
	t->r[seg] = r;
	t->state[seg] = r ? 1 : -1;
	free(path);
	buf_free(&err);
	return r;
}

static int text_row(void *arg, uint32_t url_id, uint64_t ord, struct db_hit_doc *row,
		    struct buf *err)
{
	struct texts *t = arg;
	size_t seg = (size_t)(ord >> ORD_SEG_SHIFT);
	struct delta_reader *r = seg < t->n ? texts_segment(t, seg) : NULL;
	struct delta_rec rec;
	const struct delta_text *x = &rec.text;
	int k;

	(void)err;
	if (!r)
		return 0;
	k = delta_text_at(r, ord & ((UINT64_C(1) << ORD_SEG_SHIFT) - 1), url_id, &rec);
	if (k < 0) {
		warning("merge: %s: its documents' texts are read from the database",
			delta_reader_msg(r));
		delta_reader_close(r);
		t->r[seg] = NULL;
		t->state[seg] = -1;
	}
	if (k <= 0)
		return 0;
	memset(row, 0, sizeof(*row));
	row->url_id = url_id;
	row->found = true;
	row->size = x->size;
	row->title = xstrdup(x->title);
	row->description = xstrdup(x->description);
	row->keywords = xstrdup(x->keywords);
	row->content_type = xstrdup(x->content_type);
	row->charset = xstrdup(x->charset);
	/* As db_hit_docs() gives a row's text: none of 4 bytes or fewer. */
	if (x->blob_len > 4) {
		row->text = xmalloc(x->blob_len);
		memcpy(row->text, x->blob, x->blob_len);
		row->text_len = x->blob_len;
	}
	return 1;
}

static void texts_close(struct texts *t)
{
	for (size_t i = 0; i < t->n; i++)
		delta_reader_close(t->r[i]);
	free(t->r);
	free(t->state);
}

/* The out-links of the generation's documents, in url_id order, for the
 * file `links` (citations.h): a fresh document's from the HREFS record
 * after its winning DOC (none: no links), an untouched one's from the old
 * generation's `links`.  One list that cannot be known (a segment rank 0
 * does not see, an old generation without the file, a read error) and the
 * file is not written: PageRank then reads the graph from the database
 * (doc/PAGERANK.md, "The graph"). */
struct links {
	const char *why;            /* NULL while every list is known */
	struct citations *old;
	bool old_tried;
	uint32_t *ids, *dst;
	uint64_t *off;              /* n + 1 */
	size_t n, cap, n_dst, cap_dst;
};

static void links_give_up(struct links *l, const char *why)
{
	if (l->why)
		return;
	l->why = why;
	free(l->ids);
	free(l->dst);
	free(l->off);
	l->ids = l->dst = NULL;
	l->off = NULL;
}

static void links_add(struct links *l, struct texts *t, const struct storage *old, uint32_t url,
		      bool fresh, uint64_t ord)
{
	const unsigned char *list = NULL;
	const uint32_t *v = NULL;
	size_t k = 0;

	if (l->why)
		return;
	if (fresh) {
		size_t seg = (size_t)(ord >> ORD_SEG_SHIFT);
		struct delta_reader *r = seg < t->n ? texts_segment(t, seg) : NULL;
		struct delta_rec rec;
		int rc;

		if (!r) {
			links_give_up(l, "a delta log this rank does not see");
			return;
		}
		rc = delta_hrefs_at(r, ord & ((UINT64_C(1) << ORD_SEG_SHIFT) - 1), url, &rec);
		if (rc < 0) {
			links_give_up(l, "a delta log that cannot be read");
			return;
		}
		if (rc > 0) {
			v = rec.hrefs;
			k = rec.n_hrefs;
		}
	} else {
		if (!l->old_tried) {
			struct buf err = BUF_INIT(1024);

			/* Verified whole first: a damaged list copied into the new
			 * generation would get a good CRC there. */
			l->old_tried = true;
			if (citations_verify(storage_dir(old), CITATIONS_LINKS, &err) < 0 ||
			    citations_open(storage_dir(old), CITATIONS_LINKS, &l->old, &err) < 0)
				warning("merge: %s", buf_str(&err));
			buf_free(&err);
		}
		if (!l->old) {
			links_give_up(l, "the live generation has no readable links");
			return;
		}
		if (citations_list(l->old, url, &list, &k) < 0) {
			links_give_up(l, "the live generation's links are damaged");
			return;
		}
	}
	if (l->n + 1 >= l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->ids = xrealloc(l->ids, l->cap * sizeof(*l->ids));
		l->off = xrealloc(l->off, (l->cap + 1) * sizeof(*l->off));
	}
	if (l->n_dst + k > l->cap_dst) {
		l->cap_dst = 2 * (l->n_dst + k) + 4096;
		l->dst = xrealloc(l->dst, l->cap_dst * sizeof(*l->dst));
	}
	for (size_t i = 0; i < k; i++)
		l->dst[l->n_dst + i] = v ? v[i] : citations_at(list, i);
	l->ids[l->n] = url;
	l->off[l->n] = l->n_dst;
	l->n_dst += k;
	l->n++;
}

/* Write `links`, or say why the generation has none. */
static void links_write(struct links *l, const char *gen_dir)
{
	if (l->why) {
		info("merge: no links file (%s): PageRank reads its graph from the database",
		     l->why);
	} else {
		if (!l->off)
			l->off = xcalloc(1, sizeof(*l->off));
		l->off[l->n] = l->n_dst;
		if (citations_write_links(gen_dir, l->n ? l->ids[l->n - 1] + 1 : 0, l->ids, l->n,
					  l->off, l->dst))
			warning("merge: %s/%s cannot be written: PageRank reads its graph from "
				"the database", gen_dir, LINKS_FILE);
	}
	citations_close(l->old);
	free(l->ids);
	free(l->dst);
	free(l->off);
}

/* The next document of the docstore.  A failure (a read of the texts that
 * failed, a full disk) fails the merge: a generation whose docstore lacks
 * texts is never published (doc/MERGE.md, step 8). */
static int docstore_add(struct docstore_builder *ds, uint32_t url, bool fresh, uint64_t ord,
			struct buf *err)
{
	buf_reset(err);
	if (docstore_build_add(ds, url, fresh, ord, err))
		return error("merge: the docstore cannot be written: %s", buf_str(err));
	return 0;
}

/* docinfo: the old entries merged with the URL states (files from every
 * rank, each in url order); the docstore's documents are the same. */
static int write_docinfo(const char *gen_dir, const struct storage *old, char **st_files,
			 size_t n_files, struct storage_format *f, struct docstore_builder *ds,
			 struct texts *t, struct links *l)
{
	struct storage_docinfo_writer *w = NULL;
	struct buf err = BUF_INIT(4096);
	uint32_t old_max = old ? storage_max_url_id(old) : 0;
	struct merger m;
	const unsigned char *rec;
	struct urec u = { 0 };
	int rc = merger_open(&m, &merge_k_urec, st_files, n_files), h = 0;

	if (!rc && storage_docinfo_begin(gen_dir, &w, &err))
		rc = error("%s", buf_str(&err));
	if (!rc && (h = merger_next(&m, &rec)) > 0)
		merge_urec_unpack(rec, &u);
	for (uint64_t url = 1; !rc && h >= 0; url++) {
		struct storage_doc d = { 0 };
		bool fresh = false;
		uint64_t ord = 0;
		int have;

		if (url > old_max) {
			if (h == 0)
				break;
			url = u.url; /* nothing old in between */
		}
		if (h == 1 && u.url < url) {
			rc = error("merge: the URL states are out of order at url %u", u.url);
			break;
		}
		have = old && url <= old_max ? storage_doc(old, (uint32_t)url, &d) : 0;
		if (h == 1 && u.url == url) {
			if (u.type & ST_INDEXED) {
				d.site_id = u.site;
				memcpy(d.len, u.len, sizeof(d.len));
				d.last_modified = u.val;
				have = 1;
				fresh = true;
				ord = u.ord;
			} else if (u.type & ST_TOUCHED) {
				have = 0;
			} else if (have) {
				d.last_modified = u.val;
			}
			if ((h = merger_next(&m, &rec)) > 0)
				merge_urec_unpack(rec, &u);
		}
		if (have > 0 && d.site_id)
			rc = storage_docinfo_put(w, (uint32_t)url, &d);
		if (!rc && have > 0 && d.site_id) {
			rc = docstore_add(ds, (uint32_t)url, fresh, ord, &err);
			links_add(l, t, old, (uint32_t)url, fresh, ord);
		}
		if ((url & 0xffff) == 0)
			storage_release_docinfo(old); /* read once: not kept resident */
	}
	if (!rc && h < 0)
		rc = -1;
	merger_close(&m);
	if (rc) {
		storage_docinfo_abort(w);
		goto out;
	}
	if (storage_docinfo_finish(w, &f->n_docs, f->sum_len, &f->max_url_id, &err))
		rc = error("%s", buf_str(&err));
out:
	buf_free(&err);
	return rc;
}

/* The thread's own connection (a MYSQL handle serves one thread at a
 * time), opened when the docstore first needs a text that neither the old
 * docstore nor the delta logs hold: a merge whose texts are all in the
 * logs runs without it.  db_open() retries what waiting may cure (a server
 * starting or restarting, too many connections) for 30 s with back-off, a
 * line every 5 s; a server lost later is waited for DBGrace, as by the
 * job's own connection (doc/DATABASE.md, "Connections").  Without it those
 * texts cannot be read: the merge fails and the live generation stays
 * (doc/MERGE.md, step 8). */
struct docinfo_conn {
	const struct merge_docinfo *j;
	struct db *db;
};

static struct db *docinfo_db(void *arg, struct buf *err)
{
	struct docinfo_conn *k = arg;
	char *sock;

	/* Asked again only after a success: a refusal fails the build. */
	if (k->db || !k->j->use_db)
		goto out;
	sock = dbserver_socket_path(k->j->c->data_dir);
	if (db_open(k->j->c, sock, 30, &k->db)) {
		k->db = NULL;
		error("merge: the docinfo thread cannot connect to the database, which the "
		      "docstore's texts come from: the merge fails, the live generation stays "
		      "and the deltas are kept (rerun -D)");
	} else {
		db_set_grace(k->db, (double)k->j->c->db_grace);
	}
	free(sock);
out:
	if (!k->db)
		buf_printf(err, "docstore: no database connection for the texts to read");
	return k->db;
}

/* The thread: docinfo and the docstore, then the boilerplate. */
static void *docinfo_main(void *arg)
{
	struct merge_docinfo *j = arg;
	struct storage_format f;
	struct docinfo_conn conn = { .j = j };
	struct docstore *old_ds = NULL;
	struct docstore_builder *ds = NULL;
	struct texts t = { .data_dir = j->c->data_dir, .keys = j->seg_keys, .n = j->n_segs };
	struct links l = { 0 };
	const char *how = getenv("MPSEEK_MERGE_TEXTS");

	memset(&f, 0, sizeof(f));
	t.r = xcalloc(t.n ? t.n : 1, sizeof(*t.r));
	t.state = xcalloc(t.n ? t.n : 1, 1);
	j->rc = merge_docstore_start(j->gen_dir, j->old, docinfo_db, &conn, j->cap, &ds, &old_ds);
	/* MPSEEK_MERGE_TEXTS=db: every text from the database, as before TEXT
	 * records (a test compares the two docstores; doc/MERGE.md, step 8). */
	if (!j->rc && !(how && !strcmp(how, "db")))
		docstore_build_rows(ds, text_row, &t);
	if (!j->rc) {
		j->rc = write_docinfo(j->gen_dir, j->old, j->st_files, j->n_files, &f, ds, &t, &l);
		info("merge: docinfo written (%.2f s)", now_monotonic() - j->t0);
	}
	/* A generation without links is whole (PageRank falls back to the
	 * database): a failure to write it is a warning, not the merge's. */
	if (!j->rc) {
		links_write(&l, j->gen_dir);
	} else {
		links_give_up(&l, "the merge failed");
		citations_close(l.old);
	}
	if (j->rc) {
		docstore_build_abort(ds);
		docstore_close(old_ds);
	} else {
		j->rc = merge_docstore_end(ds, old_ds, j->t0);
	}
	texts_close(&t);
	/* It reads only docinfo and the docstore, both done: beside the
	 * partitions rather than after them (3.3 of a 34.8 s merge).  Its
	 * failure fails the merge like the docstore's: without the file the
	 * generation would score navigation as body text. */
	if (!j->rc)
		j->rc = merge_write_boiler(j->c, j->gen_dir, j->cap);
	j->n_docs = f.n_docs;
	memcpy(j->sum_len, f.sum_len, sizeof(j->sum_len));
	j->max_url_id = f.max_url_id;
	db_close(conn.db);
	return NULL;
}

int merge_docinfo_start(struct merge_docinfo *j)
{
	int e = thread_start(&j->th, docinfo_main, j);

	if (e) {
		warning("merge: no thread for docinfo (%s): written after the partitions",
			strerror(e));
		docinfo_main(j);
		return 0;
	}
	j->started = true;
	return 0;
}

int merge_docinfo_join(struct merge_docinfo *j, struct storage_format *f)
{
	if (j->started) {
		pthread_join(j->th, NULL);
		j->started = false;
	}
	f->n_docs = j->n_docs;
	memcpy(f->sum_len, j->sum_len, sizeof(f->sum_len));
	f->max_url_id = j->max_url_id;
	return j->rc;
}
