/* storage_skip.c - the reader of the skip entries NNw/skips (storage.h,
 * "skip entries"; doc/FORMATS.md, "NNw/skips"): every STORAGE_SKIPth URL
 * record of a long list's site, by url_id and offset, so that a cursor
 * skipping to a document far ahead reads a few record headers instead of
 * every one between.  storage_sum.c writes and verifies the files in its
 * pass over the postings, and maps them for this reader.
 */
#include "config.h"

#include <stdlib.h>

#include "le.h"
#include "storage.h"
#include "storage_int.h"
#include "util.h"

int storage_skips_open(const char *gen_dir, struct storage_skips **out, struct buf *err)
{
	struct storage_skips *k = xmalloc(sizeof(*k));
	int rc = storage_sum_files_open(gen_dir, F_SKIPS, SKIP_ENTRY, &k->f, err);

	*out = rc > 0 ? k : NULL;
	if (rc <= 0)
		free(k);
	return rc;
}

void storage_skips_close(struct storage_skips *k)
{
	if (!k)
		return;
	storage_sum_files_close(&k->f);
	free(k);
}

int storage_skip_word(const struct storage_skips *k, uint32_t word_id,
		      struct storage_skip_cursor *c)
{
	return storage_sum_files_word(&k->f, word_id, SKIP_ENTRY, &c->e, &c->end);
}

uint32_t storage_skip_site(struct storage_skip_cursor *c, uint32_t site,
			   const unsigned char **first)
{
	const unsigned char *end;

	c->e = storage_gallop(c->e, c->end, SKIP_ENTRY, site);
	/* Its entries end at the next site's first (no scan of them). */
	end = site == UINT32_MAX ? c->end : storage_gallop(c->e, c->end, SKIP_ENTRY, site + 1);
	*first = c->e;
	return (uint32_t)((size_t)(end - c->e) / SKIP_ENTRY);
}

static inline uint32_t ent_url(const unsigned char *first, uint32_t i)
{
	return le_get32(first + (size_t)i * SKIP_ENTRY + 4);
}

static inline size_t ent_off(const unsigned char *first, uint32_t i)
{
	return le_get32(first + (size_t)i * SKIP_ENTRY + 8);
}

uint32_t storage_skip_entry_url(const unsigned char *first, uint32_t n, uint32_t i)
{
	return i < n ? ent_url(first, i) : UINT32_MAX;
}

/* The first of entries [lo, hi) whose record is past byte cur of the
 * site (the offsets ascend): binary search. */
static uint32_t first_past(const unsigned char *first, uint32_t lo, uint32_t hi, size_t cur)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ent_off(first, mid) <= cur)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int storage_skip_ahead(struct storage_cursor *c, const unsigned char *first, uint32_t n,
		       uint32_t target, uint32_t *hint)
{
	size_t cur, off;
	uint32_t i = *hint < n ? *hint : n, lo, hi, step;
	const unsigned char *at;

	if (!c->urls || c->err || (size_t)(c->urls_end - c->urls) < 4)
		return 0;
	cur = (size_t)(c->urls - c->urls_site);
	/* i: the first entry past the cursor.  A cursor that read on passed
	 * one (each is STORAGE_SKIP records) or more; one moved elsewhere
	 * (storage_jump()) is found by a binary search. */
	if (i && ent_off(first, i - 1) > cur)
		i = first_past(first, 0, i, cur);
	else if (i < n && ent_off(first, i) <= cur)
		i = i + 1 < n && ent_off(first, i + 1) <= cur ? first_past(first, i + 2, n, cur) :
								 i + 1;
	*hint = i;
	/* The record at the cursor is the target or past it, or the target
	 * is before the next entry's record: nothing to skip. */
	if (le_get32(c->urls) >= target || i == n || ent_url(first, i) > target)
		return 0;
	/* The last entry from i whose url_id is at most target: galloping,
	 * then a binary search in (lo, hi]. */
	lo = i;
	step = 1;
	while (lo + step < n && ent_url(first, lo + step) <= target) {
		lo += step;
		step *= 2;
	}
	hi = lo + step < n ? lo + step : n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ent_url(first, mid) <= target)
			lo = mid;
		else
			hi = mid;
	}
	off = ent_off(first, lo);
	at = c->urls_site + off;
	if (off + 4 > (size_t)(c->urls_end - c->urls_site) || le_get32(at) != ent_url(first, lo))
		return 0;
	c->urls = at;
	*hint = lo + 1;
	return 1;
}
