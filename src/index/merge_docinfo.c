/* merge_docinfo.c - docinfo and the docstore of a new generation (rank 0),
 * written in a thread beside the postings' sort and the partitions
 * (merge_int.h): the old entries merged with the URL states of all ranks,
 * each fresh document's text read from the database into the docstore,
 * then the boilerplate found in that docstore (merge_boiler.c).
 * Reading those texts waits on MariaDB, and inflating and deflating them
 * is CPU work of its own (at 10^6 pages more than the postings' pass
 * beside it): on two cores the two overlap (doc/MERGE.md, step 8).
 */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "docstore.h"
#include "log.h"
#include "storage.h"
#include "util.h"
#include "merge_int.h"

/* The next document of the docstore.  A failure (a read of the texts that
 * failed, a full disk) fails the merge: a generation whose docstore lacks
 * texts is never published (doc/MERGE.md, step 8). */
static int docstore_add(struct docstore_builder *ds, uint32_t url, bool fresh, struct buf *err)
{
	buf_reset(err);
	if (docstore_build_add(ds, url, fresh, err))
		return error("merge: the docstore cannot be written: %s", buf_str(err));
	return 0;
}

/* docinfo: the old entries merged with the URL states (files from every
 * rank, each in url order); the docstore's documents are the same. */
static int write_docinfo(const char *gen_dir, const struct storage *old, char **st_files,
			 size_t n_files, struct storage_format *f, struct docstore_builder *ds)
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
		if (!rc && have > 0 && d.site_id)
			rc = docstore_add(ds, (uint32_t)url, fresh, &err);
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
 * time).  db_open() retries what waiting may cure (a server starting or
 * restarting, too many connections) for 30 s with back-off, a line every
 * 5 s; a server lost later is waited for DBGrace, as by the job's own
 * connection (doc/DATABASE.md, "Connections").  Without it the fresh
 * documents' texts cannot be read: the merge fails and the live
 * generation stays (doc/MERGE.md, step 8). */
static int docinfo_db(const struct merge_docinfo *j, struct db **db)
{
	char *sock;
	int rc;

	*db = NULL;
	if (!j->use_db)
		return 0;
	sock = dbserver_socket_path(j->c->data_dir);
	rc = db_open(j->c, sock, 30, db);
	free(sock);
	if (rc)
		return error("merge: the docinfo thread cannot connect to the database, which "
			     "the docstore's texts come from: the merge fails, the live "
			     "generation stays and the deltas are kept (rerun -D)");
	db_set_grace(*db, (double)j->c->db_grace);
	return 0;
}

/* The thread: docinfo and the docstore, then the boilerplate. */
static void *docinfo_main(void *arg)
{
	struct merge_docinfo *j = arg;
	struct storage_format f;
	struct db *db = NULL;
	struct docstore *old_ds = NULL;
	struct docstore_builder *ds = NULL;

	memset(&f, 0, sizeof(f));
	j->rc = docinfo_db(j, &db);
	if (!j->rc)
		j->rc = merge_docstore_start(j->gen_dir, j->old, db, j->cap, &ds, &old_ds);
	if (!j->rc) {
		j->rc = write_docinfo(j->gen_dir, j->old, j->st_files, j->n_files, &f, ds);
		info("merge: docinfo written (%.2f s)", now_monotonic() - j->t0);
	}
	if (j->rc) {
		docstore_build_abort(ds);
		docstore_close(old_ds);
	} else {
		j->rc = merge_docstore_end(ds, old_ds, j->t0);
	}
	/* It reads only docinfo and the docstore, both done: beside the
	 * partitions rather than after them (3.3 of a 34.8 s merge).  Its
	 * failure fails the merge like the docstore's: without the file the
	 * generation would score navigation as body text. */
	if (!j->rc)
		j->rc = merge_write_boiler(j->c, j->gen_dir, j->cap);
	j->n_docs = f.n_docs;
	memcpy(j->sum_len, f.sum_len, sizeof(j->sum_len));
	j->max_url_id = f.max_url_id;
	db_close(db);
	return NULL;
}

int merge_docinfo_start(struct merge_docinfo *j)
{
	sigset_t all, old;
	int e;

	/* Signals stay with the main thread (the stop handlers, MPI's). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&j->th, NULL, docinfo_main, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
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
