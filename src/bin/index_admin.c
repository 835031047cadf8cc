/* index_admin.c - the administrator's targeted verbs of mpseek-index: -C
 * (delete URLs), -i (insert URLs), the selection of -a/-m -u, and the index
 * part of -S, and -T (fetch now into the real-time index).  The SQL is db_admin.c's, admission crawl_insert.c's; this
 * file reads the lists, asks for confirmation and writes the DEL records
 * that take deleted documents out of the index at the next merge.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "conf.h"
#include "crawl.h"
#include "db.h"
#include "delta.h"
#include "grams.h"
#include "log.h"
#include "neardup.h"
#include "rt.h"
#include "status.h"
#include "storage.h"
#include "url.h"
#include "util.h"
#include "index_admin.h"

#define LIST_LINE_MAX 16384 /* a line of -f FILE (a URL is at most MAX_URL_LEN) */

static void list_add(struct url_list *l, char *s, char *where)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 64;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
		l->where = xrealloc(l->where, l->alloc * sizeof(*l->where));
	}
	l->v[l->n] = s;
	l->where[l->n++] = where;
}

/* The lines of fp (named name) into l. */
static int list_read(struct url_list *l, FILE *fp, const char *name)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, fp)) >= 0) {
		char *s = line, *e;

		lineno++;
		if ((size_t)len > LIST_LINE_MAX) {
			warning("%s:%zu: a line of %zd bytes: skipped", name, lineno, len);
			continue;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		e = s + strlen(s);
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s || *s == '#')
			continue;
		list_add(l, xstrdup(s), xasprintf("%s:%zu", name, lineno));
	}
	free(line);
	return ferror(fp) ? error("%s: %s", name, strerror(errno)) : 0;
}

int url_list_load(struct url_list *l, char *const *args, size_t n, const char *file)
{
	FILE *fp;
	int rc;

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < n; i++)
		list_add(l, xstrdup(args[i]), xstrdup("-u"));
	if (!file)
		return 0;
	if (!strcmp(file, "-"))
		return list_read(l, stdin, "(stdin)");
	fp = fopen(file, "r");
	if (!fp)
		return error("-f %s: %s", file, strerror(errno));
	rc = list_read(l, fp, file);
	fclose(fp);
	return rc;
}

void url_list_free(struct url_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i]);
		free(l->where[i]);
	}
	free(l->v);
	free(l->where);
	memset(l, 0, sizeof(*l));
}

/* "delete N URLs? [y/N]" on the terminal: 1 yes, 0 no, -1 no terminal. */
static int confirm(size_t n)
{
	char answer[16];

	if (!isatty(STDIN_FILENO))
		return -1;
	fprintf(stderr, "delete %zu URL(s)? [y/N] ", n);
	fflush(stderr);
	if (!fgets(answer, sizeof(answer), stdin))
		return 0;
	return !strcmp(answer, "y\n") || !strcmp(answer, "yes\n") || !strcmp(answer, "Y\n");
}

/* The DEL records of ids, durable before any row goes: a crash after them
 * leaves rows whose documents the next merge drops; run -C again. */
static int write_dels(const struct conf *c, const uint32_t *ids, size_t n)
{
	struct buf err = BUF_INIT(1024);
	struct delta_writer *w = delta_open(c->data_dir, 0, &err);
	int rc = 0;

	if (!w) {
		rc = error("cannot write DEL records: %s", buf_str(&err));
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = delta_add_del(w, ids[i]);
	if (delta_close(w))
		rc = -1;
out:
	buf_free(&err);
	return rc;
}

int admin_clear(const struct conf *c, struct db *db, const struct url_list *l, bool no_confirm)
{
	const char *all = "%";
	const char *const *pats = l->n ? (const char *const *)l->v : &all;
	size_t np = l->n ? l->n : 1, n = 0, n_all = 0;
	uint32_t *ids = NULL, *every = NULL;
	long removed;
	int rc = -1, k;

	if (db_match_urls(db, pats, np, DB_MATCH_DELETED | DB_MATCH_NOT_BUSY, &ids, &n) ||
	    db_match_urls(db, pats, np, DB_MATCH_DELETED, &every, &n_all))
		goto out;
	if (n_all > n)
		warning("-C: %zu URL(s) are being crawled now and are left alone: run -C again "
			"after the crawl", n_all - n);
	if (!n) {
		info("-C: no URL to delete");
		rc = 0;
		goto out;
	}
	if (!no_confirm) {
		k = confirm(n);
		if (k < 0) {
			error("-C: %zu URL(s) match; standard input is not a terminal to confirm: "
			      "add -w to delete them", n);
			goto out;
		}
		if (!k) {
			info("-C: nothing deleted");
			rc = 0;
			goto out;
		}
	}
	if (write_dels(c, ids, n))
		goto out;
	removed = db_delete_urls(db, ids, n);
	if (removed < 0)
		goto out;
	info("-C: deleted %ld URL(s); their documents leave the index at the next merge "
	     "(mpseek-index -D, or the end of the next crawl)", removed);
	rc = 0;
out:
	free(ids);
	free(every);
	return rc;
}

int admin_insert(const struct conf *c, struct db *db, const struct url_list *l)
{
	struct crawl_insert st;

	if (crawl_insert_urls(c, db, (const char *const *)l->v, (const char *const *)l->where, l->n,
			      &st))
		return -1;
	info("-i: %ld new URL(s), %ld already known, %ld refused, %ld not URLs; the new ones "
	     "are crawled by the next run", st.added, st.known, st.refused, st.bad);
	return st.refused || st.bad ? 1 : 0;
}

int admin_expire(struct db *db, const struct url_list *l, bool force)
{
	uint32_t *ids = NULL;
	size_t n = 0;
	long k = -1;

	if (!db_match_urls(db, (const char *const *)l->v, l->n, 0, &ids, &n))
		k = db_expire_urls(db, ids, n, force);
	free(ids);
	if (k < 0)
		return -1;
	info("-u: %ld of %zu selected URL(s) are due now%s", k, n,
	     force ? ", fetched in full and parsed again" : "");
	return 0;
}

/* The generation's near-duplicate groups (doc/SEARCH.md, "Near-duplicates"). */
static int print_neardups(const char *dir, FILE *out)
{
	struct buf err = BUF_INIT(1024);
	struct neardup *nd = NULL;
	uint64_t groups, docs;
	unsigned bits;
	int k = neardup_open(dir, &nd, &err);

	if (k < 0) {
		error("-S: %s", buf_str(&err));
	} else if (k == 0) {
		fprintf(out, "    Near-duplicates: not grouped (NearDupBits 0, or merged before)\n");
	} else {
		neardup_counts(nd, &groups, &docs, &bits);
		fprintf(out, "    Near-duplicates: %" PRIu64 " group(s) of %" PRIu64
			" document(s) (%" PRIu64 " shown, %" PRIu64 " folded; NearDupBits %u)\n",
			groups, docs, groups, docs - groups, bits);
	}
	neardup_close(nd);
	buf_free(&err);
	return k < 0 ? -1 : 0;
}

/* The words of the generation's grams file against CommonWords. */
static int print_grams(const struct conf *c, const char *dir, FILE *out)
{
	struct buf err = BUF_INIT(1024);
	struct grams *g = NULL, *want = NULL, *both;
	int k = grams_read(dir, &g, &err);
	size_t n;

	if (k < 0 || grams_make((const char *const *)c->common_words, c->n_common_words, &want,
				&err)) {
		error("-S: %s", buf_str(&err));
		grams_free(g);
		buf_free(&err);
		return -1;
	}
	both = grams_both(want, g);
	n = grams_count(both);
	if (!grams_count(want) && !grams_count(g))
		fprintf(out, "    Common-word pairs: none (no CommonWords)\n");
	else if (n == grams_count(want))
		fprintf(out, "    Common-word pairs: of %zu word(s), searchable\n", n);
	else
		fprintf(out, "    Common-word pairs: of %zu of the %zu word(s) of CommonWords "
			"searchable; the others once every page is indexed again (-a -m)\n", n,
			grams_count(want));
	grams_free(both);
	grams_free(want);
	grams_free(g);
	buf_free(&err);
	return 0;
}

int admin_print_index(const struct conf *c, FILE *out)
{
	struct buf err = BUF_INIT(1024);
	struct storage_format f;
	uint64_t gen = 0, bytes = 0;
	int64_t written = 0;
	char *dir = NULL, date[64] = "?";
	time_t t;
	struct tm tm;
	int k = storage_current(c->data_dir, &gen, &err), rc = -1;

	if (k <= 0) {
		if (!k)
			fprintf(out, "\n    Index: none yet (%s/index has no live generation)\n",
				c->data_dir);
		else
			error("-S: %s", buf_str(&err));
		rc = k;
		goto out;
	}
	dir = storage_gen_path(c->data_dir, gen);
	if (storage_format_read(dir, &f, &err) || storage_gen_usage(dir, &bytes, &written, &err)) {
		error("-S: %s", buf_str(&err));
		goto out;
	}
	t = (time_t)written;
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(out, "\n    Index: generation %" PRIu64 ", %" PRIu64 " document(s), %" PRIu64
		" word(s), %" PRIu64 " posting(s), %" PRIu64 " bytes, written %s\n",
		gen, f.n_docs, f.live_words, f.postings, bytes, date);
	rc = print_neardups(dir, out);
	if (!rc)
		rc = print_grams(c, dir, out);
out:
	free(dir);
	buf_free(&err);
	return rc;
}

int admin_reconcile(const struct conf *c, struct db *db)
{
	struct buf err = BUF_INIT(1024);
	struct storage *s = NULL;
	struct storage_doc d;
	uint32_t *ids = NULL;
	uint64_t gen = 0;
	size_t n = 0, k = 0;
	char *dir = NULL;
	int rc = 0;

	/* No index yet, or one the merge itself will report as damaged. */
	if (storage_current(c->data_dir, &gen, &err) <= 0)
		goto out;
	dir = storage_gen_path(c->data_dir, gen);
	if (storage_open_old(dir, &s, &err))
		goto out;
	if (db_deleted_url_ids(db, &ids, &n)) {
		rc = -1;
		goto out;
	}
	/* Only those whose document the live generation still has. */
	for (size_t i = 0; i < n; i++)
		if (storage_doc(s, ids[i], &d) == 1)
			ids[k++] = ids[i];
	if (k) {
		rc = write_dels(c, ids, k);
		if (!rc)
			info("merge: %zu URL(s) marked deleted in the database leave the index", k);
	}
out:
	storage_close(s);
	free(dir);
	free(ids);
	buf_free(&err);
	return rc;
}

/* ---- -T: real-time indexing ------------------------------------------------------ */

/* The URLs of l inserted (admitted as -i admits them) and their url_ids in
 * ids (room for l->n), the URLs' texts in urls; refused ones are reported.
 * Returns the number found, or -1. */
static long now_ids(const struct conf *c, struct db *db, const struct url_list *l,
		    uint32_t *ids, char **urls, bool *refused)
{
	struct buf norm = BUF_INIT(MAX_URL_LEN + 1);
	long k = 0;

	for (size_t i = 0; i < l->n; i++) {
		struct crawl_insert st;
		const char *why = NULL;

		if (crawl_insert_urls(c, db, (const char *const *)&l->v[i],
				      (const char *const *)&l->where[i], 1, &st)) {
			k = -1;
			break;
		}
		buf_reset(&norm);
		if (st.bad || st.refused || url_normalize(l->v[i], &norm, &why) ||
		    db_url_id(db, buf_str(&norm), &ids[k]) != 1) {
			printf("%s: refused (outside the configuration's scope or not a URL)\n",
			       l->v[i]);
			*refused = true;
			continue;
		}
		urls[k++] = xstrdup(buf_str(&norm));
	}
	buf_free(&norm);
	return k;
}

/* The segments a -T run wrote under work/deltas (and any a killed one
 * left, repaired) moved to DataDir/deltas/.  0 or -1. */
static int now_move(const struct conf *c, const char *work, struct buf *err)
{
	struct delta_seg *segs = NULL;
	size_t n = 0;
	int rc = delta_list(work, &segs, &n, err);

	for (size_t i = 0; i < n && !rc; i++)
		if (delta_repair(segs[i].path, err) >= 0 && access(segs[i].path, F_OK) == 0)
			rc = rt_add_segment(c->data_dir, segs[i].path, err);
	delta_list_free(segs, n);
	return rc;
}

/* One line per URL: what the fetch made of it. */
static int now_report(struct db *db, const uint32_t *ids, char **urls, long n, time_t started)
{
	struct db_url *rows = xcalloc((size_t)n, sizeof(*rows));
	int got = db_url_rows(db, ids, (size_t)n, rows), rc = 0;

	for (long i = 0; i < n && got >= 0; i++) {
		const struct db_url *u = NULL;

		for (int k = 0; k < got; k++)
			if (rows[k].url_id == ids[i])
				u = &rows[k];
		if (u && u->status == 200 && u->last_index_time >= (long)started) {
			printf("%s: indexed\n", urls[i]);
		} else if (u && (u->status == 404 || u->status == 410)) {
			printf("%s: gone (%d %s): removed from the index\n", urls[i], u->status,
			       http_status_text(u->status));
		} else {
			printf("%s: refused: %s\n", urls[i],
			       u && u->status ? http_status_text(u->status) : "not fetched");
			rc = 1;
		}
	}
	free(rows);
	return got < 0 ? -1 : rc;
}

int admin_now(const struct conf *c, struct db *db, const struct url_list *l)
{
	struct buf err = BUF_INIT(1024);
	uint32_t *ids = xcalloc(l->n ? l->n : 1, sizeof(*ids));
	char **urls = xcalloc(l->n ? l->n : 1, sizeof(*urls));
	char *work = xasprintf("%s/index/rt-work", c->data_dir);
	time_t started = time(NULL);
	struct crawl_totals t;
	struct crawl_opts o = { .force = true, .rank = RT_RANK, .delta_dir = work };
	bool refused = false;
	long n = 0, docs = 0;
	int fd = rt_lock(c->data_dir, &err), rc = -1;

	if (fd < 0 || mkdir_p(work)) {
		error("-T: %s", fd < 0 ? buf_str(&err) : "cannot create the work directory");
		goto out;
	}
	n = now_ids(c, db, l, ids, urls, &refused);
	if (n < 0)
		goto out;
	o.given = ids;
	o.n_given = (size_t)n;
	/* The crawl's own loop (robots.txt, fetch, analysis, store, delta
	 * log) on exactly these URLs, into a segment of rank RT_RANK. */
	if (n && crawl_run(c, db, &o, &t))
		goto out;
	if (now_move(c, work, &err) || rt_rebuild(c->data_dir, &docs, &err)) {
		error("-T: %s", buf_str(&err));
		goto out;
	}
	rc = n ? now_report(db, ids, urls, n, started) : 0;
	if (rc >= 0 && fflush(stdout))
		rc = -1;
	info("-T: %ld URL(s) fetched now; the real-time index holds %ld URL(s) until the "
	     "next merge", n, docs);
	if (rc == 0 && refused)
		rc = 1;
out:
	rt_unlock(fd);
	for (long i = 0; i < n; i++)
		free(urls[i]);
	free(urls);
	free(ids);
	free(work);
	buf_free(&err);
	return rc;
}
