/* merge_check.c - `mpseek-index --check` and `--dump-index` (merge.h): the
 * live generation verified (storage_check(), the docstore against docinfo)
 * and wordurl against its dictionary; every posting printed in a stable
 * order.  Only reads: the merge itself is merge.c's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "db.h"
#include "delta.h"
#include "docstore.h"
#include "grams.h"
#include "log.h"
#include "merge.h"
#include "merge_int.h"
#include "storage.h"
#include "util.h"

struct wcheck {
	const struct storage *s;
	FILE *out;
	long problems;
	uint64_t rows;
};

static int wordurl_row(void *arg, uint32_t word_id, const char *word, size_t len,
		       uint32_t urlcount, uint32_t totalcount)
{
	struct wcheck *w = arg;
	struct storage_word sw;
	size_t tl;
	const char *t = storage_word_text(w->s, word_id, &tl);

	w->rows++;
	if (!t || tl != len || memcmp(t, word, len)) {
		fprintf(w->out, "wordurl: word_id %u '%.*s' (partition %u): the index has %s'%.*s'"
			" (%u words in partition %u)\n", word_id, (int)len, word,
			storage_partition(word, len), t ? "" : "no such id ", t ? (int)tl : 0,
			t ? t : "", storage_part_words(w->s, word_id % STORAGE_PARTITIONS),
			word_id % STORAGE_PARTITIONS);
		w->problems++;
	} else if (storage_word_info(w->s, word_id, &sw) != 1 || sw.n_urls != urlcount ||
		   wordurl_totalcount(sw.total) != totalcount) {
		fprintf(w->out, "wordurl: word_id %u '%.*s': urlcount %u totalcount %u, the index "
			"has %u and %" PRIu64 "\n", word_id, (int)len, word, urlcount, totalcount,
			sw.n_urls, sw.total);
		w->problems++;
	}
	return w->problems > 100;
}

/* The docstore (optional) against docinfo: every block decompresses and
 * parses, the data CRC holds, and it has exactly docinfo's documents. */
struct ds_walk {
	const struct storage *s;
	FILE *out;
	long problems;
	uint64_t next;             /* the next url_id to compare */
};

static bool doc_indexed(const struct storage *s, uint64_t u)
{
	struct storage_doc d;

	return u <= storage_max_url_id(s) && storage_doc(s, (uint32_t)u, &d) == 1;
}

static void ds_missing_until(struct ds_walk *w, uint64_t end)
{
	for (; w->next < end; w->next++)
		if (doc_indexed(w->s, w->next) && w->problems++ < 20)
			fprintf(w->out, "docstore: url %" PRIu64 ": indexed but not in the docstore\n",
				w->next);
}

static int ds_each(void *arg, uint32_t url_id)
{
	struct ds_walk *w = arg;

	ds_missing_until(w, url_id);
	if (!doc_indexed(w->s, url_id) && w->problems++ < 20)
		fprintf(w->out, "docstore: url %u: in the docstore but not indexed\n", url_id);
	w->next = (uint64_t)url_id + 1;
	return 0;
}

/* 0 (good or absent), 1 (damaged, reported), -1. */
static int check_docstore(const char *dir, FILE *out)
{
	struct buf err = BUF_INIT(4096);
	struct docstore *ds = NULL;
	struct storage *st = NULL;
	struct ds_walk w = { .out = out, .next = 1 };
	int rc = docstore_open(dir, &ds, &err);

	if (rc <= 0) {
		if (rc < 0)
			fprintf(out, "%s\n", buf_str(&err));
		buf_free(&err);
		return rc < 0 ? 1 : 0;
	}
	rc = 0;
	if (storage_open_dir(dir, &st, &err)) {
		fprintf(out, "%s\n", buf_str(&err));
		rc = -1;
	} else if ((w.s = st), docstore_verify(ds, ds_each, &w, &err)) {
		fprintf(out, "%s\n", buf_str(&err));
		rc = 1;
	} else {
		ds_missing_until(&w, (uint64_t)storage_max_url_id(w.s) + 1);
		rc = w.problems ? 1 : 0;
	}
	storage_close(st);
	docstore_close(ds);
	buf_free(&err);
	return rc;
}

int merge_check(const struct conf *c, struct db *db, FILE *out)
{
	struct buf rep = BUF_INIT(16u << 20), err = BUF_INIT(4096);
	struct storage *s = NULL;
	uint64_t g, live = 0, db_gen = 0;
	char *dir;
	int k = storage_current(c->data_dir, &g, &err), rc;

	if (k <= 0) {
		fprintf(out, "%s\n", k < 0 ? buf_str(&err) : "no index generation yet");
		buf_free(&err);
		buf_free(&rep);
		return k < 0 ? -1 : 1;
	}
	dir = storage_gen_path(c->data_dir, g);
	rc = storage_check(dir, &rep);
	fputs(buf_str(&rep), out);
	if (rc == 0)
		rc = check_docstore(dir, out);
	/* The common words (grams.c reads the whole file; storage_check()
	 * cannot: grams uses storage). */
	if (rc == 0 && grams_verify(dir, &err) < 0) {
		const char *w = buf_str(&err);
		size_t dl = strlen(dir);

		fprintf(out, "%s\n", !strncmp(w, dir, dl) && w[dl] == '/' ? w + dl + 1 : w);
		rc = 1;
	}
	if (rc == 0 && db) {
		struct wcheck w = { .out = out };

		if (storage_open_dir(dir, &s, &err)) {
			fprintf(out, "%s\n", buf_str(&err));
			rc = 1;
		} else if (db_wordurl_gen(db, &db_gen) == 0 && db_gen != g) {
			fprintf(out, "wordurl: describes generation %" PRIu64 ", the index is %" PRIu64
				"\n", db_gen, g);
			rc = 1;
		} else {
			struct storage_format f;

			w.s = s;
			if (db_wordurl_each(db, wordurl_row, &w) < 0)
				rc = -1;
			storage_format_read(dir, &f, &err);
			live = f.live_words;
			if (rc >= 0 && w.rows != live) {
				fprintf(out, "wordurl: %" PRIu64 " rows, the index has %" PRIu64
					" words with postings\n", w.rows, live);
				w.problems++;
			}
			if (rc >= 0 && w.problems)
				rc = 1;
		}
	}
	if (rc == 0)
		fprintf(out, "%s: ok\n", dir);
	storage_close(s);
	free(dir);
	buf_free(&rep);
	buf_free(&err);
	return rc;
}

struct dump_word {
	uint32_t id;
	const char *text;
	size_t len;
};

static int cmp_dump(const void *a, const void *b)
{
	const struct dump_word *x = a, *y = b;

	return delta_wordcmp((const unsigned char *)x->text, x->len, (const unsigned char *)y->text,
		       y->len);
}

struct dump_post {
	uint32_t url;
	uint32_t n;
	uint64_t off;           /* into the positions buffer */
};

static int cmp_post(const void *a, const void *b)
{
	const struct dump_post *x = a, *y = b;

	return x->url < y->url ? -1 : x->url > y->url;
}

int merge_dump(const struct conf *c, FILE *out)
{
	struct storage *s = NULL;
	struct buf err = BUF_INIT(4096);
	struct dump_word *w = NULL;
	struct storage_cursor *cur = xmalloc(sizeof(*cur));
	struct dump_post *p = NULL;
	uint32_t *pos = NULL;
	size_t nw = 0, pcap = 0, poscap = 0;
	int rc = 0;

	if (storage_open(c->data_dir, &s, &err)) {
		rc = error("%s", buf_str(&err));
		goto out;
	}
	for (unsigned part = 0; part < STORAGE_PARTITIONS; part++)
		nw += storage_part_words(s, part);
	w = xcalloc(nw ? nw : 1, sizeof(*w));
	nw = 0;
	for (unsigned part = 0; part < STORAGE_PARTITIONS; part++)
		for (uint32_t k = 0; k < storage_part_words(s, part); k++) {
			w[nw].id = k * STORAGE_PARTITIONS + part;
			w[nw].text = storage_word_text(s, w[nw].id, &w[nw].len);
			if (!w[nw].text) {
				rc = error("dump: word %u is damaged", w[nw].id);
				goto out;
			}
			nw++;
		}
	qsort(w, nw, sizeof(*w), cmp_dump);
	for (size_t i = 0; i < nw && !rc; i++) {
		uint32_t site, url, n;
		size_t np = 0, used = 0;

		if (storage_postings(s, w[i].id, cur) < 0) {
			rc = error("dump: word %u is damaged", w[i].id);
			break;
		}
		while (storage_next_site(cur, &site) == 1)
			while (storage_next_url(cur, &url, &n) == 1) {
				if (np == pcap) {
					pcap = pcap ? 2 * pcap : 1024;
					p = xrealloc(p, pcap * sizeof(*p));
				}
				if (used + n > poscap) {
					poscap = 2 * (used + n);
					pos = xrealloc(pos, poscap * sizeof(*pos));
				}
				memcpy(pos + used, cur->pos, n * sizeof(*pos));
				p[np].url = url;
				p[np].n = n;
				p[np].off = used;
				used += n;
				np++;
			}
		if (cur->err) {
			rc = error("dump: word %u is damaged", w[i].id);
			break;
		}
		qsort(p, np, sizeof(*p), cmp_post);
		for (size_t j = 0; j < np; j++) {
			fprintf(out, "%.*s\t%u\t", (int)w[i].len, w[i].text, p[j].url);
			for (uint32_t q = 0; q < p[j].n; q++)
				fprintf(out, q ? ",%u" : "%u", pos[p[j].off + q]);
			fputc('\n', out);
		}
	}
	if (fflush(out) != 0)
		rc = error_errno("dump: write");
out:
	free(w);
	free(p);
	free(pos);
	free(cur);
	storage_close(s);
	buf_free(&err);
	return rc;
}
