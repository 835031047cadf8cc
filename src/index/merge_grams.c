/* merge_grams.c - the merge's part of the common-word pairs
 * (include/grams.h; doc/MERGE.md, "Common-word pairs"): each winning
 * DOC's pairs of CommonWords posted beside its words, and the generation's
 * `grams` file, the words whose pairs every document of it has.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "delta.h"
#include "grams.h"
#include "le.h"
#include "log.h"
#include "merge.h"
#include "merge_int.h"
#include "storage.h"
#include "util.h"

int merge_post(struct sorter *s, const char *word, size_t len, uint32_t site, uint32_t url,
	       const uint32_t *pos, uint32_t n)
{
	unsigned char *p = sorter_room(s, POST_FIXED + len + 4 * (size_t)n);

	if (!p)
		return -1;
	p[0] = (unsigned char)storage_partition(word, len);
	p[1] = (unsigned char)len;
	le_put32(p + 2, site);
	le_put32(p + 6, url);
	le_put16(p + 10, (uint16_t)n);
	memcpy(p + POST_FIXED, word, len);
	for (uint32_t j = 0; j < n; j++)
		le_put32(p + POST_FIXED + len + 4 * j, pos[j]);
	return 0;
}

int merge_grams_conf(const struct conf *c, struct grams **out)
{
	struct buf err = BUF_INIT(256);
	int rc = 0;

	*out = NULL;
	if (c->n_common_words &&
	    grams_make((const char *const *)c->common_words, c->n_common_words, out, &err))
		rc = error("merge: CommonWords: %s", buf_str(&err));
	buf_free(&err);
	return rc;
}

int merge_grams_post(struct sorter *s, const struct grams *g, struct grams_doc *d,
		     const struct delta_rec *rec)
{
	size_t n = grams_of_doc(g, rec->words, rec->n_words, d);

	for (size_t i = 0; i < n; i++) {
		const struct gram_post *p = &d->posts[i];

		if (merge_post(s, p->key, p->len, rec->site_id, rec->url_id, p->pos, p->n_pos))
			return -1;
	}
	return 0;
}

/* Whether a document of the old generation stays in the new one: one it
 * has that the deltas do not touch. */
static bool old_docs_kept(const struct storage *old, const uint8_t *touched, uint64_t max_url)
{
	uint32_t top = old ? storage_max_url_id(old) : 0;

	for (uint32_t url = 1; url && url <= top; url++) {
		struct storage_doc d;

		if (url <= max_url && touched[url >> 3] >> (url & 7) & 1)
			continue;
		if (storage_doc(old, url, &d) == 1 && d.site_id)
			return true;
	}
	return false;
}

int merge_grams_finish(const struct grams *conf_words, const struct storage *old,
		       const uint8_t *touched, uint64_t max_url, const char *gen_dir)
{
	struct buf err = BUF_INIT(4096);
	struct grams *had = NULL, *both = NULL;
	const struct grams *w = conf_words;
	int rc = 0;

	/* The documents kept from the live generation have the pairs of its
	 * words only: a word new to CommonWords joins once every page has
	 * been indexed again (mpseek-index -a -m, then a merge). */
	if (old_docs_kept(old, touched, max_url)) {
		if (grams_read(storage_dir(old), &had, &err) < 0)
			warning("merge: %s (its pairs are not counted on)", buf_str(&err));
		both = grams_both(conf_words, had);
		w = both;
		if (grams_count(both) < grams_count(conf_words))
			info("merge: CommonWords: %zu of %zu word(s) have their pairs in every "
			     "page; the others once every page is indexed again (-a -m)",
			     grams_count(both), grams_count(conf_words));
	}
	if (grams_write(gen_dir, w, &err))
		rc = error("merge: %s", buf_str(&err));
	else if (grams_count(w))
		info("merge: pairs of %zu common word(s) searchable", grams_count(w));
	grams_free(had);
	grams_free(both);
	buf_free(&err);
	return rc;
}

/* ---- --common-words ---------------------------------------------------------- */

struct common {
	uint32_t id;
	uint32_t n_urls;
};

/* Most documents first; ties by word id (the dictionary's order). */
static int common_cmp(const void *a, const void *b)
{
	const struct common *x = a, *y = b;

	if (x->n_urls != y->n_urls)
		return x->n_urls > y->n_urls ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

int merge_common_words(const struct conf *c, size_t n, FILE *out)
{
	struct buf err = BUF_INIT(4096);
	struct storage *st = NULL;
	struct common *v = NULL;
	size_t nv = 0, cap = 0;
	int rc = 0;

	if (storage_open(c->data_dir, &st, &err)) {
		rc = error("%s", buf_str(&err));
		goto out;
	}
	for (unsigned p = 0; p < STORAGE_PARTITIONS; p++) {
		for (uint32_t k = 0; k < storage_part_words(st, p); k++) {
			uint32_t id = k * STORAGE_PARTITIONS + p;
			struct storage_word w;
			size_t len;
			const char *t = storage_word_text(st, id, &len);

			if (!t || storage_word_info(st, id, &w) != 1) {
				rc = error("%s: word %u cannot be read", storage_dir(st), id);
				goto out;
			}
			if (!w.n_urls || storage_is_anchor_word(t, len) ||
			    storage_is_gram_word(t, len) || !grams_word_ok(t, len))
				continue;
			if (nv == cap) {
				cap = cap ? 2 * cap : 4096;
				v = xrealloc(v, cap * sizeof(*v));
			}
			v[nv++] = (struct common){ id, (uint32_t)w.n_urls };
		}
		storage_release_part(st, p);
	}
	if (nv)
		qsort(v, nv, sizeof(*v), common_cmp);
	fputs("CommonWords", out);
	for (size_t i = 0; i < nv && i < n; i++) {
		size_t len;
		const char *t = storage_word_text(st, v[i].id, &len);

		fprintf(out, " %.*s", (int)len, t);
	}
	fputc('\n', out);
out:
	free(v);
	storage_close(st);
	buf_free(&err);
	return rc;
}
