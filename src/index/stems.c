/* stems.c - word forms: libstemmer behind a small API, and the writer and
 * reader of a generation's stem map (doc/FORMATS.md, "stems").  The merge
 * writes the map from the dictionary; searchd maps it read-only and looks
 * up the stem of each query word.  Not the expansion of a query (that is
 * search_match.c) nor the scoring of forms (search_score.c).
 */
#include "config.h"

#include <libstemmer.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "buf.h"
#include "log.h"
#include "stems.h"
#include "storage.h"
#include "util.h"

static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'S', 'T', 'M', 0, 1 };

/* The common 32-byte header of generation files (doc/FORMATS.md), then the
 * language; the data: one u64 offset per stem into the records, then the
 * records (u16 stem length, stem, u16 word count, per word u16 length and
 * bytes), stems in byte order, each stem's words in byte order. */
enum {
	H_MAGIC = 0, H_VERSION = 8, H_PART = 12, H_ENTRIES = 16, H_DATA_CRC = 24, H_CRC = 28,
	HEADER = 32, LANG = HEADER, OFFSETS = HEADER + STEMS_LANG_LEN,
};
_Static_assert(H_MAGIC == 0 && H_VERSION == 8, "the header binfile_open_checked() reads");
_Static_assert(OFFSETS % 8 == 0, "the offsets start 8-aligned");

/* ---- the stemmer ------------------------------------------------------------- */

struct stemmer {
	struct sb_stemmer *sb;
};

bool stemmer_known(const char *lang)
{
	for (const char **l = sb_stemmer_list(); *l; l++)
		if (!strcmp(*l, lang))
			return true;
	return false;
}

int stemmer_new(const char *lang, struct stemmer **out)
{
	struct sb_stemmer *sb;

	*out = NULL;
	if (!stemmer_known(lang) || !(sb = sb_stemmer_new(lang, "UTF_8")))
		return -1;
	*out = xmalloc(sizeof(**out));
	(*out)->sb = sb;
	return 0;
}

void stemmer_free(struct stemmer *s)
{
	if (!s)
		return;
	sb_stemmer_delete(s->sb);
	free(s);
}

const char *stemmer_stem(struct stemmer *s, const char *word, size_t len, size_t *out_len)
{
	const sb_symbol *st = sb_stemmer_stem(s->sb, (const sb_symbol *)word, (int)len);

	if (!st)
		return NULL;
	*out_len = (size_t)sb_stemmer_length(s->sb);
	return (const char *)st;
}

/* ---- the writer -------------------------------------------------------------- */

struct pair {
	char *stem, *word;
	uint16_t slen, wlen;
};

struct pairs {
	struct stemmer *sm;
	struct pair *v;
	size_t n, cap;
};

static int bytes_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);
	return c ? c : (na > nb) - (na < nb);
}

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c = bytes_cmp(x->stem, x->slen, y->stem, y->slen);
	return c ? c : bytes_cmp(x->word, x->wlen, y->word, y->wlen);
}

static int add_word(struct pairs *ps, const char *word, size_t len)
{
	size_t sl;
	const char *st;

	/* Anchor words are looked up through the query word, not its forms;
	 * pairs of common words are no word's form. */
	if (!len || len > UINT16_MAX || storage_is_anchor_word(word, len) ||
	    storage_is_gram_word(word, len))
		return 0;
	st = stemmer_stem(ps->sm, word, len, &sl);
	if (!st || !sl || sl > UINT16_MAX)
		return 0;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 1024;
		ps->v = xrealloc(ps->v, ps->cap * sizeof(*ps->v));
	}
	ps->v[ps->n].stem = xstrndup(st, sl);
	ps->v[ps->n].slen = (uint16_t)sl;
	ps->v[ps->n].word = xstrndup(word, len);
	ps->v[ps->n].wlen = (uint16_t)len;
	ps->n++;
	return 0;
}

static void pairs_free(struct pairs *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].stem);
		free(ps->v[i].word);
	}
	free(ps->v);
	stemmer_free(ps->sm);
}

static void put_bytes(struct buf *b, const char *p, size_t n)
{
	unsigned char l[2];

	le_put16(l, (uint16_t)n);
	buf_add(b, l, 2);
	buf_add(b, p, n);
}

/* The records of the sorted pairs into rec, their offsets into off. */
static size_t build_records(const struct pairs *ps, struct buf *rec, struct buf *off)
{
	size_t n_stems = 0;

	for (size_t i = 0; i < ps->n;) {
		size_t j = i, k = 0;
		unsigned char o[8], c[2];

		le_put64(o, rec->len);
		buf_add(off, o, 8);
		put_bytes(rec, ps->v[i].stem, ps->v[i].slen);
		while (j < ps->n && !bytes_cmp(ps->v[j].stem, ps->v[j].slen, ps->v[i].stem, ps->v[i].slen))
			j++;
		/* Duplicates (a test's list) once; at most UINT16_MAX words. */
		for (size_t m = i; m < j; m++)
			if ((m == i || pair_cmp(&ps->v[m - 1], &ps->v[m])) && k < UINT16_MAX)
				k++;
		le_put16(c, (uint16_t)k);
		buf_add(rec, c, 2);
		k = 0;
		for (size_t m = i; m < j; m++)
			if ((m == i || pair_cmp(&ps->v[m - 1], &ps->v[m])) && k++ < UINT16_MAX)
				put_bytes(rec, ps->v[m].word, ps->v[m].wlen);
		n_stems++;
		i = j;
	}
	return n_stems;
}

static int write_pairs(const char *path, const char *lang, struct pairs *ps, struct buf *err)
{
	struct buf rec = BUF_INIT(SIZE_MAX - 1), off = BUF_INIT(SIZE_MAX - 1);
	struct binfile f = { .fd = -1 };
	unsigned char h[OFFSETS] = { 0 };
	uint32_t crc;
	size_t n;
	int rc = -1;

	if (ps->n) /* qsort() wants a non-NULL base even for no element */
		qsort(ps->v, ps->n, sizeof(*ps->v), pair_cmp);
	n = build_records(ps, &rec, &off);
	memcpy(h + H_MAGIC, MAGIC, 8);
	le_put32(h + H_VERSION, STEMS_FORMAT_VERSION);
	le_put32(h + H_PART, UINT32_MAX);
	le_put64(h + H_ENTRIES, n);
	memcpy(h + LANG, lang, strnlen(lang, STEMS_LANG_LEN - 1));
	crc = binfile_crc_update(0, h + LANG, STEMS_LANG_LEN);
	crc = binfile_crc_update(crc, off.ptr, off.len);
	crc = binfile_crc_update(crc, rec.ptr, rec.len);
	le_put32(h + H_DATA_CRC, crc);
	le_put32(h + H_CRC, binfile_crc(h, H_CRC));
	if (binfile_create(&f, path)) {
		buf_reset(err);
		buf_printf(err, "%s: cannot create", path);
		goto out;
	}
	if (binfile_write(&f, h, sizeof(h)) || binfile_write(&f, off.ptr, off.len) ||
	    binfile_write(&f, rec.ptr, rec.len)) {
		binfile_abort(&f);
		buf_reset(err);
		buf_printf(err, "%s: write failed", path);
		goto out;
	}
	if (binfile_commit(&f)) {
		buf_reset(err);
		buf_printf(err, "%s: cannot commit", path);
		goto out;
	}
	rc = 0;
out:
	buf_free(&rec);
	buf_free(&off);
	return rc;
}

static int start_pairs(struct pairs *ps, const char *lang, struct buf *err)
{
	memset(ps, 0, sizeof(*ps));
	if (strlen(lang) >= STEMS_LANG_LEN || stemmer_new(lang, &ps->sm)) {
		buf_reset(err);
		buf_printf(err, "no stemmer for the language \"%.40s\"", lang);
		return -1;
	}
	return 0;
}

int stems_write_words(const char *path, const char *lang, const char *const *words, size_t n,
		      struct buf *err)
{
	struct pairs ps;
	int rc;

	if (start_pairs(&ps, lang, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		add_word(&ps, words[i], strlen(words[i]));
	rc = write_pairs(path, lang, &ps, err);
	pairs_free(&ps);
	return rc;
}

static int live_word(void *arg, const char *word, size_t len, const struct storage_word *w)
{
	return w->n_urls ? add_word(arg, word, len) : 0;
}

int stems_write(const char *gen_dir, const struct storage *st, const char *lang,
		struct buf *err)
{
	struct pairs ps;
	char *path;
	int rc = -1;

	if (start_pairs(&ps, lang, err))
		return -1;
	path = xasprintf("%s/%s", gen_dir, STEMS_FILE);
	if (storage_words_prefix(st, "", 0, SIZE_MAX, live_word, &ps) < 0) {
		buf_reset(err);
		buf_printf(err, "%s: cannot read the dictionary", gen_dir);
	} else {
		rc = write_pairs(path, lang, &ps, err);
	}
	free(path);
	pairs_free(&ps);
	return rc;
}

/* ---- the reader -------------------------------------------------------------- */

struct stems {
	const unsigned char *map;
	size_t size;
	char lang[STEMS_LANG_LEN];
	const unsigned char *off, *rec;  /* the offsets, the records */
	size_t n, rec_len;
};

/* The u16-prefixed bytes at rec + *at (below end): 0 and the bytes, or -1. */
static int get_bytes(const unsigned char *rec, size_t *at, size_t end, const char **p, size_t *n)
{
	if (end - *at < 2)
		return -1;
	*n = le_get16(rec + *at);
	*at += 2;
	if (end - *at < *n)
		return -1;
	*p = (const char *)rec + *at;
	*at += *n;
	return 0;
}

static size_t rec_end(const struct stems *s, size_t k)
{
	return k + 1 < s->n ? le_get64(s->off + 8 * (k + 1)) : s->rec_len;
}

/* Record k: within the file, its stem after the one before, its words
 * ascending, nothing left over. */
static const char *check_record(const struct stems *s, size_t k, const char **prev, size_t *plen)
{
	size_t at = le_get64(s->off + 8 * k), end = rec_end(s, k), n, wl = 0;
	const char *stem, *w = NULL;

	if (at > end || end > s->rec_len || (k == 0 && at != 0))
		return "a record's offset is out of order";
	if (get_bytes(s->rec, &at, end, &stem, &n) || !n || end - at < 2)
		return "a record is cut short";
	if (*prev && bytes_cmp(*prev, *plen, stem, n) >= 0)
		return "stems are not in order";
	*prev = stem;
	*plen = n;
	n = le_get16(s->rec + at);
	at += 2;
	if (!n)
		return "a stem has no words";
	for (size_t i = 0; i < n; i++) {
		const char *p;
		size_t l;

		if (get_bytes(s->rec, &at, end, &p, &l) || !l)
			return "a word is cut short";
		if (w && bytes_cmp(w, wl, p, l) >= 0)
			return "a stem's words are not in order";
		w = p;
		wl = l;
	}
	return at == end ? NULL : "a record has bytes left over";
}

static int stems_check(struct stems *s, const char *path, struct buf *err)
{
	const char *prev = NULL, *why;
	size_t plen = 0;
	uint64_t n = le_get64(s->map + H_ENTRIES);
	uint32_t crc;

	if (s->size < OFFSETS || le_get32(s->map + H_PART) != UINT32_MAX)
		return binfile_damaged(err, path, "bad header");
	if (n > (s->size - OFFSETS) / 8)
		return binfile_damaged(err, path, "more stems than the file holds");
	crc = binfile_crc_update(0, s->map + HEADER, s->size - HEADER);
	if (crc != le_get32(s->map + H_DATA_CRC))
		return binfile_damaged(err, path, "data crc mismatch");
	memcpy(s->lang, s->map + LANG, STEMS_LANG_LEN);
	if (s->lang[STEMS_LANG_LEN - 1] || !s->lang[0])
		return binfile_damaged(err, path, "bad language");
	s->n = (size_t)n;
	s->off = s->map + OFFSETS;
	s->rec = s->off + 8 * s->n;
	s->rec_len = s->size - OFFSETS - 8 * s->n;
	if (!s->n && s->rec_len)
		return binfile_damaged(err, path, "records without stems");
	for (size_t k = 0; k < s->n; k++)
		if ((why = check_record(s, k, &prev, &plen)))
			return binfile_damaged(err, path, why);
	return 0;
}

int stems_open_file(const char *path, struct stems **out, struct buf *err)
{
	struct stems *s = xcalloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	rc = binfile_open_checked(path, MAGIC, STEMS_FORMAT_VERSION, H_CRC, OFFSETS, "stems",
				  &s->map, &s->size, err);
	if (rc <= 0) {
		free(s);
		return rc;
	}
	if (stems_check(s, path, err)) {
		stems_close(s);
		return -1;
	}
	*out = s;
	return 1;
}

int stems_open(const char *gen_dir, struct stems **out, struct buf *err)
{
	char *path = xasprintf("%s/%s", gen_dir, STEMS_FILE);
	int rc = stems_open_file(path, out, err);

	free(path);
	return rc;
}

void stems_close(struct stems *s)
{
	if (!s)
		return;
	if (s->map)
		binfile_unmap(s->map, s->size);
	free(s);
}

const char *stems_language(const struct stems *s)
{
	return s->lang;
}

size_t stems_count(const struct stems *s)
{
	return s->n;
}

size_t stems_forms(const struct stems *s, const char *stem, size_t len, struct stems_form *out,
		   size_t max)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, at = le_get64(s->off + 8 * mid), n = 0;
		const char *p = "";
		int c;

		get_bytes(s->rec, &at, rec_end(s, mid), &p, &n);  /* checked at open */
		c = bytes_cmp(p, n, stem, len);
		if (c < 0) {
			lo = mid + 1;
		} else if (c > 0) {
			hi = mid;
		} else {
			size_t nw = le_get16(s->rec + at), end = rec_end(s, mid);

			at += 2;
			for (size_t i = 0; i < nw && i < max; i++) {
				get_bytes(s->rec, &at, end, &out[i].word, &out[i].len);
			}
			return nw;
		}
	}
	return 0;
}
