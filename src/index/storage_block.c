/* storage_block.c - the reader of the block summaries NNw/blocksum
 * (storage.h, "block summaries"; doc/FORMATS.md, "NNw/blocksum"): a
 * summary per window of STORAGE_BLOCK_DOCS documents of a site that a
 * word's records are in, for block-max pruning.  storage_sum.c writes and
 * verifies the files in its pass over the postings, and maps them for
 * this reader.
 */
#include "config.h"

#include <stdlib.h>

#include "le.h"
#include "storage.h"
#include "storage_int.h"
#include "util.h"

int storage_blocks_open(const char *gen_dir, struct storage_blocks **out, struct buf *err)
{
	struct storage_blocks *b = xmalloc(sizeof(*b));
	int rc = storage_sum_files_open(gen_dir, F_BLOCKSUM, BLOCK_ENTRY, &b->f, err);

	*out = rc > 0 ? b : NULL;
	if (rc <= 0)
		free(b);
	return rc;
}

void storage_blocks_close(struct storage_blocks *b)
{
	if (!b)
		return;
	storage_sum_files_close(&b->f);
	free(b);
}

int storage_block_word(const struct storage_blocks *b, uint32_t word_id,
		       struct storage_block_cursor *c)
{
	return storage_sum_files_word(&b->f, word_id, BLOCK_ENTRY, &c->e, &c->end);
}

bool storage_block_site_has(const struct storage_blocks *b, uint32_t word_id, uint32_t n)
{
	struct storage_block_cursor c;
	uint32_t run = 0, site = 0;

	if (!b || storage_block_word(b, word_id, &c) <= 0)
		return false;
	/* A site's entries are consecutive. */
	for (const unsigned char *e = c.e; e < c.end; e += BLOCK_ENTRY) {
		run = run && le_get32(e) == site ? run + 1 : 1;
		site = le_get32(e);
		if (run >= n)
			return true;
	}
	return false;
}

uint32_t storage_block_site(struct storage_block_cursor *c, uint32_t site,
			    const unsigned char **first)
{
	const unsigned char *e;
	uint32_t n = 0;
	bool bad = false;

	c->e = storage_gallop(c->e, c->end, BLOCK_ENTRY, site);
	/* The site's entries are read to be counted: a damaged one among
	 * them (a hull longer than an entry holds, a section past the four,
	 * url_ids outside its window or out of order) gives the site no
	 * blocks. */
	for (e = c->e; e < c->end && le_get32(e) == site; e += BLOCK_ENTRY, n++) {
		uint32_t lo = le_get32(e + 60), min = le_get32(e + 8), max = le_get32(e + 52);

		bad |= storage_sum_bad(e) || min < lo || max < min ||
		       (n && lo <= le_get32(e - BLOCK_ENTRY + 52));
	}
	*first = c->e;
	return bad ? 0 : n;
}

uint32_t storage_block_min_url(const unsigned char *first, uint32_t i)
{
	return le_get32(first + (size_t)i * BLOCK_ENTRY + 8);
}

uint32_t storage_block_max_url(const unsigned char *first, uint32_t i)
{
	return le_get32(first + (size_t)i * BLOCK_ENTRY + 52);
}

uint32_t storage_block_win_lo(const unsigned char *first, uint32_t i)
{
	return le_get32(first + (size_t)i * BLOCK_ENTRY + 60);
}

uint32_t storage_block_docs(const unsigned char *first, uint32_t i)
{
	return le_get32(first + (size_t)i * BLOCK_ENTRY + 4);
}

void storage_block_at(const unsigned char *first, uint32_t i, struct storage_block *out)
{
	const unsigned char *e = first + (size_t)i * BLOCK_ENTRY;

	storage_sum_unpack(e, &out->s);
	out->max_url = le_get32(e + 52);
	out->off = le_get32(e + 56);
	out->win_lo = le_get32(e + 60);
}
