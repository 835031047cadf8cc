/* grams.c - pairs of common words: the word set of CommonWords, the pairs
 * of one document that the merge posts beside its words, and a
 * generation's `grams` file (include/grams.h; doc/SEARCH.md, "Common-word
 * pairs"; doc/FORMATS.md, "grams").
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "buf.h"
#include "caps.h"
#include "delta.h"
#include "grams.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'G', 'R', 'M', 0, 1 };
#define GRAMS_FORMAT_VERSION 1

/* The common 32-byte header of generation files (doc/FORMATS.md); the
 * data: per word a u8 length and its bytes, in byte order. */
enum { H_MAGIC = 0, H_VERSION = 8, H_PART = 12, H_ENTRIES = 16, H_DATA_CRC = 24, H_CRC = 28,
       HEADER = 32 };
_Static_assert(H_MAGIC == 0 && H_VERSION == 8, "the header binfile_open_checked() reads");
_Static_assert(sizeof(((struct gram_post *)0)->key) == MAX_WORD_LEN, "a key is a word");

struct grams {
	char **w;
	uint8_t *len;
	size_t n;
};

/* Bytes order, a prefix first: the dictionary's and a DOC record's. */
static int word_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	return c ? c : (al > bl) - (al < bl);
}

static int str_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return word_cmp(x, strlen(x), y, strlen(y));
}

/* A word a pair can hold: the longest pair of two is MAX_WORD_LEN bytes. */
static const char *bad_word(const char *w, size_t len)
{
	if (!len || len > MAX_WORD_LEN - 2)
		return "is empty or longer than 62 bytes";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)w[i] < 0x20 || w[i] == 0x7f || w[i] == ' ')
			return "holds a space or a control character";
	for (size_t i = 0; i < len; i++)
		if (w[i] >= 'A' && w[i] <= 'Z')
			return "is not in lower case (the index folds words)";
	return NULL;
}

bool grams_word_ok(const char *word, size_t len)
{
	return bad_word(word, len) == NULL;
}

static struct grams *grams_new(size_t cap)
{
	struct grams *g = xcalloc(1, sizeof(*g));

	g->w = xcalloc(cap ? cap : 1, sizeof(*g->w));
	g->len = xcalloc(cap ? cap : 1, 1);
	return g;
}

static void grams_push(struct grams *g, const char *w, size_t len)
{
	g->w[g->n] = xstrndup(w, len);
	g->len[g->n++] = (uint8_t)len;
}

int grams_make(const char *const *words, size_t n, struct grams **out, struct buf *err)
{
	const char **v = xcalloc(n ? n : 1, sizeof(*v));
	struct grams *g;
	const char *why;

	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		if ((why = bad_word(words[i], strlen(words[i])))) {
			buf_reset(err);
			buf_printf(err, "common word \"%.80s\" %s", words[i], why);
			free(v);
			return -1;
		}
		v[i] = words[i];
	}
	if (n)
		qsort(v, n, sizeof(*v), str_cmp);
	g = grams_new(n);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			grams_push(g, v[i], strlen(v[i]));
	free(v);
	if (g->n > GRAMS_MAX_WORDS) {
		buf_reset(err);
		buf_printf(err, "%zu common words, at most %d", g->n, GRAMS_MAX_WORDS);
		grams_free(g);
		return -1;
	}
	*out = g;
	return 0;
}

void grams_free(struct grams *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->w[i]);
	free(g->w);
	free(g->len);
	free(g);
}

size_t grams_count(const struct grams *g)
{
	return g ? g->n : 0;
}

const char *grams_word(const struct grams *g, size_t i, size_t *len)
{
	*len = g->len[i];
	return g->w[i];
}

int grams_find(const struct grams *g, const char *word, size_t len)
{
	size_t lo = 0, hi = grams_count(g);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = word_cmp(g->w[mid], g->len[mid], word, len);

		if (!c)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct grams *grams_both(const struct grams *a, const struct grams *b)
{
	struct grams *g = grams_new(grams_count(a));

	for (size_t i = 0; i < grams_count(a); i++)
		if (grams_find(b, a->w[i], a->len[i]) >= 0)
			grams_push(g, a->w[i], a->len[i]);
	return g;
}

bool grams_equal(const struct grams *a, const struct grams *b)
{
	if (grams_count(a) != grams_count(b))
		return false;
	for (size_t i = 0; i < grams_count(a); i++)
		if (a->len[i] != b->len[i] || memcmp(a->w[i], b->w[i], a->len[i]))
			return false;
	return true;
}

bool grams_key_in(const struct grams *g, const char *key, size_t len)
{
	const char *mark = memchr(key, STORAGE_GRAM_MARK, len);

	if (!mark)
		return false;
	return grams_find(g, key, (size_t)(mark - key)) >= 0 &&
	       grams_find(g, mark + 1, len - (size_t)(mark - key) - 1) >= 0;
}

/* ---- the pairs of one document ---------------------------------------------- */

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void *room(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? 2 * *cap : 256;
	return xrealloc(p, *cap * size);
}

size_t grams_of_doc(const struct grams *g, const struct delta_word *w, uint32_t n,
		    struct grams_doc *d)
{
	size_t no = 0, np = 0, i = 0, j = 0;

	d->n = 0;
	if (!grams_count(g))
		return 0;
	/* The document's common words (both lists sorted): each occurrence
	 * as position << 8 | word, sorted by position. */
	while (i < n && j < g->n) {
		int c = word_cmp(w[i].word, w[i].len, g->w[j], g->len[j]);

		if (c < 0) {
			i++;
		} else if (c > 0) {
			j++;
		} else {
			d->occ = room(d->occ, &d->cap_occ, no + w[i].n_pos, sizeof(*d->occ));
			for (uint32_t k = 0; k < w[i].n_pos; k++)
				d->occ[no++] = (uint64_t)w[i].pos[k] << 8 | j;
			i++;
			j++;
		}
	}
	if (no < 2)
		return 0;
	qsort(d->occ, no, sizeof(*d->occ), u64_cmp);
	/* Touching pairs, as (x << 8 | y) << 32 | x's position. */
	for (size_t k = 0; k + 1 < no; k++) {
		uint32_t v = (uint32_t)(d->occ[k] >> 8), u = (uint32_t)(d->occ[k + 1] >> 8);

		if (u != v + 1 || tok_pos_section(u) != tok_pos_section(v))
			continue;
		d->pairs = room(d->pairs, &d->cap_pairs, np + 1, sizeof(*d->pairs));
		d->pairs[np++] = ((d->occ[k] & 0xff) << 8 | (d->occ[k + 1] & 0xff)) << 32 | v;
	}
	if (!np)
		return 0;
	qsort(d->pairs, np, sizeof(*d->pairs), u64_cmp);
	d->pos = xrealloc(d->pos, np * sizeof(*d->pos));
	for (size_t k = 0, at = 0; k < np;) {
		uint32_t key = (uint32_t)(d->pairs[k] >> 32);
		size_t x = key >> 8, y = key & 0xff, first = at, e = k;
		struct gram_post *p;

		while (e < np && (uint32_t)(d->pairs[e] >> 32) == key) {
			if (e - k < DELTA_MAX_WORD_POSITIONS)
				d->pos[at++] = (uint32_t)d->pairs[e];
			e++;
		}
		k = e;
		if ((size_t)g->len[x] + 1 + g->len[y] > MAX_WORD_LEN)
			continue;
		d->posts = room(d->posts, &d->cap, d->n + 1, sizeof(*d->posts));
		p = &d->posts[d->n++];
		p->len = (uint8_t)storage_gram_key(g->w[x], g->len[x], g->w[y], g->len[y], p->key);
		p->n_pos = (uint32_t)(at - first);
		p->pos = d->pos + first;
	}
	return d->n;
}

void grams_doc_free(struct grams_doc *d)
{
	free(d->posts);
	free(d->occ);
	free(d->pairs);
	free(d->pos);
	memset(d, 0, sizeof(*d));
}

/* ---- the generation's file ---------------------------------------------------- */

int grams_write(const char *gen_dir, const struct grams *g, struct buf *err)
{
	struct buf data = BUF_INIT(GRAMS_MAX_WORDS * MAX_WORD_LEN);
	unsigned char h[HEADER] = { 0 };
	struct binfile f;
	char *path;
	int rc = -1;

	if (!grams_count(g))
		return 0;
	path = xasprintf("%s/%s", gen_dir, GRAMS_FILE);
	for (size_t i = 0; i < g->n; i++) {
		buf_addc(&data, (char)g->len[i]);
		buf_add(&data, g->w[i], g->len[i]);
	}
	memcpy(h + H_MAGIC, MAGIC, 8);
	le_put32(h + H_VERSION, GRAMS_FORMAT_VERSION);
	le_put32(h + H_PART, UINT32_MAX);
	le_put64(h + H_ENTRIES, g->n);
	le_put32(h + H_DATA_CRC, binfile_crc_update(0, data.ptr, data.len));
	le_put32(h + H_CRC, binfile_crc(h, H_CRC));
	buf_reset(err);
	if (binfile_create(&f, path)) {
		buf_printf(err, "%s: cannot create", path);
	} else if (binfile_write(&f, h, sizeof(h)) || binfile_write(&f, data.ptr, data.len)) {
		binfile_abort(&f);
		buf_printf(err, "%s: write failed", path);
	} else if (binfile_commit(&f)) {
		buf_printf(err, "%s: cannot commit", path);
	} else {
		rc = 0;
	}
	buf_free(&data);
	free(path);
	return rc;
}

int grams_read(const char *gen_dir, struct grams **out, struct buf *err)
{
	char *path = xasprintf("%s/%s", gen_dir, GRAMS_FILE);
	const unsigned char *p, *at, *end;
	size_t size;
	uint64_t n;
	struct grams *g = NULL;
	const char *why = NULL;
	int rc;

	*out = NULL;
	rc = binfile_open_checked(path, MAGIC, GRAMS_FORMAT_VERSION, H_CRC, HEADER, "grams", &p,
				  &size, err);
	if (rc <= 0) {
		free(path);
		return rc;
	}
	n = le_get64(p + H_ENTRIES);
	if (le_get32(p + H_PART) != UINT32_MAX || !n || n > GRAMS_MAX_WORDS)
		why = "bad header";
	else if (binfile_crc_update(0, p + HEADER, size - HEADER) != le_get32(p + H_DATA_CRC))
		why = "data crc mismatch";
	at = p + HEADER;
	end = p + size;
	if (!why)
		g = grams_new((size_t)n);
	for (uint64_t i = 0; !why && i < n; i++) {
		size_t len = at < end ? *at++ : 0;

		if (len > (size_t)(end - at) || bad_word((const char *)at, len))
			why = "a bad word";
		else if (g->n && word_cmp(g->w[g->n - 1], g->len[g->n - 1], (const char *)at, len) >= 0)
			why = "words out of order";
		else
			grams_push(g, (const char *)at, len);
		at += why ? 0 : len;
	}
	if (!why && at != end)
		why = "bytes after the last word";
	binfile_unmap(p, size);
	if (why) {
		grams_free(g);
		rc = binfile_damaged(err, path, why);
	} else {
		*out = g;
		rc = 1;
	}
	free(path);
	return rc;
}

int grams_verify(const char *gen_dir, struct buf *err)
{
	struct grams *g = NULL;
	int rc = grams_read(gen_dir, &g, err);

	grams_free(g);
	return rc;
}
