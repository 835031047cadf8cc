/* boiler.c - a generation's `boiler` file (include/boiler.h): the writer
 * the merge fills (src/index/merge_boiler.c finds the ranges), and the
 * bounds-checked reader searchd maps and --check verifies.  Layout in
 * doc/FORMATS.md, "boiler".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "blocks.h"
#include "boiler.h"
#include "buf.h"
#include "le.h"
#include "util.h"

static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'B', 'O', 'I', 'L', 0 };

enum {
	H_MAGIC = 0, H_VERSION = 8, H_DOCS = 12, H_RANGES = 16, H_SUM = 20, H_PAD = 24,
	H_CRC = 28, HEADER = 32,
};
_Static_assert(H_CRC + 4 == HEADER, "the CRC closes the header");

/* ---- writing ---------------------------------------------------------------- */

static void put_pair(unsigned char **v, size_t *n, size_t *cap, uint32_t a, uint32_t b)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		*v = xrealloc(*v, *cap * 8);
	}
	le_put32(*v + 8 * *n, a);
	le_put32(*v + 8 * *n + 4, b);
	(*n)++;
}

void boiler_table_add(struct boiler_table *t, uint32_t url_id, const struct pos_range *r, size_t n)
{
	if (!n)
		return;
	if (n > BOILER_MAX_RANGES)
		n = BOILER_MAX_RANGES;
	put_pair(&t->docs, &t->n_docs, &t->cap_docs, url_id, (uint32_t)t->n_ranges);
	for (size_t i = 0; i < n; i++)
		put_pair(&t->ranges, &t->n_ranges, &t->cap_ranges, r[i].start, r[i].end);
}

void boiler_table_free(struct boiler_table *t)
{
	free(t->docs);
	free(t->ranges);
	memset(t, 0, sizeof(*t));
}

int boiler_table_write(const char *gen_dir, const struct boiler_table *o, struct buf *err)
{
	char *path = xasprintf("%s/%s", gen_dir, BOILER_FILE);
	unsigned char h[HEADER] = { 0 };
	struct binfile f;
	int rc = -1;

	memcpy(h + H_MAGIC, MAGIC, 8);
	le_put32(h + H_VERSION, BOILER_FORMAT_VERSION);
	le_put32(h + H_DOCS, (uint32_t)o->n_docs);
	le_put32(h + H_RANGES, (uint32_t)o->n_ranges);
	if (binfile_create(&f, path)) {
		buf_printf(err, "%s: cannot create", path);
		goto out;
	}
	if (binfile_write(&f, h, sizeof(h)))
		goto fail;
	binfile_sum_start(&f);
	if ((o->n_docs && binfile_write(&f, o->docs, 8 * o->n_docs)) ||
	    (o->n_ranges && binfile_write(&f, o->ranges, 8 * o->n_ranges)))
		goto fail;
	le_put32(h + H_SUM, binfile_sum(&f));
	le_put32(h + H_CRC, binfile_crc(h, H_CRC));
	if (binfile_pwrite(&f, h, sizeof(h), 0))
		goto fail;
	if (binfile_commit(&f))
		buf_printf(err, "%s: cannot commit", path);
	else
		rc = 0;
	goto out;
fail:
	buf_printf(err, "%s: cannot write", path);
	binfile_abort(&f);
out:
	free(path);
	return rc;
}

/* ---- reading ------------------------------------------------------------------ */

struct boiler {
	const unsigned char *map;
	size_t size;
	uint32_t n_docs, n_ranges;
};

int boiler_open(const char *gen_dir, struct boiler **out, struct buf *err)
{
	char *path = xasprintf("%s/%s", gen_dir, BOILER_FILE);
	const unsigned char *m;
	struct boiler *b;
	size_t size;
	int rc;

	*out = NULL;
	rc = binfile_open_checked(path, MAGIC, BOILER_FORMAT_VERSION, H_CRC, HEADER, "boiler", &m,
				  &size, err);
	if (rc <= 0) {
		free(path);
		return rc;
	}
	if (size != HEADER + 8 * ((uint64_t)le_get32(m + H_DOCS) + le_get32(m + H_RANGES))) {
		binfile_damaged(err, path, "offset 12: the size does not match the counts");
		binfile_unmap(m, size);
		free(path);
		return -1;
	}
	free(path);
	b = xcalloc(1, sizeof(*b));
	b->map = m;
	b->size = size;
	b->n_docs = le_get32(m + H_DOCS);
	b->n_ranges = le_get32(m + H_RANGES);
	*out = b;
	return 1;
}

int boiler_verify(const char *gen_dir, struct buf *err)
{
	char *path = xasprintf("%s/%s", gen_dir, BOILER_FILE);
	struct boiler *b;
	int rc = boiler_open(gen_dir, &b, err);
	const unsigned char *docs, *ranges;
	uint32_t prev_url = 0, prev_first = 0;

	if (rc <= 0)
		goto out;
	docs = b->map + HEADER;
	ranges = docs + 8 * (size_t)b->n_docs;
	if (binfile_verify_sum(b->map, b->size, HEADER, le_get32(b->map + H_SUM), H_SUM, path, err))
		rc = -1;
	for (uint32_t i = 0; rc > 0 && i < b->n_docs; i++) {
		uint32_t url = le_get32(docs + 8 * (size_t)i), first = le_get32(docs + 8 * (size_t)i + 4);
		uint32_t last = i + 1 < b->n_docs ? le_get32(docs + 8 * ((size_t)i + 1) + 4)
						  : b->n_ranges;

		if (url <= prev_url || first < prev_first || first >= last || last > b->n_ranges ||
		    last - first > BOILER_MAX_RANGES)
			rc = binfile_damaged(err, path, "the document table is out of order");
		for (uint32_t k = first; rc > 0 && k < last; k++) {
			uint32_t s = le_get32(ranges + 8 * (size_t)k), e = le_get32(ranges + 8 * (size_t)k + 4);

			if (s >= e || (k > first && s < le_get32(ranges + 8 * (size_t)k - 4)))
				rc = binfile_damaged(err, path, "a range is empty or out of order");
		}
		prev_url = url;
		prev_first = first;
	}
	boiler_close(b);
out:
	free(path);
	return rc;
}

void boiler_close(struct boiler *b)
{
	if (!b)
		return;
	binfile_unmap(b->map, b->size);
	free(b);
}

size_t boiler_doc(const struct boiler *b, uint32_t url_id, struct pos_range *out, size_t max)
{
	const unsigned char *docs = b->map + HEADER, *ranges = docs + 8 * (size_t)b->n_docs;
	size_t lo = 0, hi = b->n_docs, first, last, n = 0;
	uint32_t prev_end = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (le_get32(docs + 8 * mid) < url_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->n_docs || le_get32(docs + 8 * lo) != url_id)
		return 0;
	first = le_get32(docs + 8 * lo + 4);
	last = lo + 1 < b->n_docs ? le_get32(docs + 8 * (lo + 1) + 4) : b->n_ranges;
	if (first > last || last > b->n_ranges)
		return 0;
	/* Damage gives fewer ranges, never unsorted ones. */
	for (size_t i = first; i < last && n < max && n < BOILER_MAX_RANGES; i++) {
		uint32_t s = le_get32(ranges + 8 * i), e = le_get32(ranges + 8 * i + 4);

		if (s >= e || (n && s < prev_end))
			break;
		out[n].start = s;
		out[n].end = e;
		prev_end = e;
		n++;
	}
	return n;
}
