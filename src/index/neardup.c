/* neardup.c - near-duplicate groups (include/neardup.h): found from the
 * documents' simhashes by the merge, written as a generation's `neardup`
 * file, read by searchd and `-S`.  Layout in doc/FORMATS.md, "neardup": a
 * 64-byte header, then (url_id, group) u32 pairs ascending by url_id.
 *
 * Finding them: per Manku, Jain and Das Sarma (2007), the 64 bits are cut
 * into 4 blocks of 16; two signatures at most 3 bits apart agree on at least
 * one whole block.  For each block the documents are sorted by that block
 * (then by the whole signature) and compared only inside a run that shares
 * it; the pairs found join groups (union-find).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "buf.h"
#include "le.h"
#include "log.h"
#include "neardup.h"
#include "simhash.h"
#include "util.h"

static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'N', 'D', 'U', 'P', 0 };

enum {
	H_MAGIC = 0, H_VERSION = 8, H_MEMBERS = 12, H_GROUPS = 16, H_BITS = 20, H_SUM = 24,
	H_CRC = 60, HEADER = 64,
};
_Static_assert(H_CRC + 4 == HEADER, "the CRC closes the header");

struct neardup {
	const unsigned char *map;
	size_t size;
	uint32_t members, groups, bits;
	struct neardup_member *by_group; /* the members by (group, url_id) */
	uint64_t *grouped;         /* bit per url_id up to the largest: in a group */
	uint32_t max_id;
};

/* ---- grouping ------------------------------------------------------------------ */

struct sortent {
	uint64_t key;              /* the signature rotated: the block first */
	uint32_t doc;
};

static int cmp_sortent(const void *a, const void *b)
{
	const struct sortent *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->doc < y->doc ? -1 : x->doc > y->doc;
}

static uint32_t uf_find(uint32_t *parent, uint32_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

/* The root is the document with the smallest url_id (docs ascend by it
 * after the sort in neardup_group(), so the smaller index). */
static void uf_join(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

static int cmp_doc(const void *a, const void *b)
{
	const struct neardup_doc *x = a, *y = b;

	return x->url_id < y->url_id ? -1 : x->url_id > y->url_id;
}

/* The pairs of one block: runs of equal top 16 bits of the rotated keys. */
static void join_block(struct sortent *e, size_t n, unsigned bits, uint32_t *parent)
{
	size_t i = 0;

	qsort(e, n, sizeof(*e), cmp_sortent);
	while (i < n) {
		size_t j = i + 1;

		while (j < n && e[j].key >> 48 == e[i].key >> 48)
			j++;
		for (size_t a = i; a < j; a++) {
			size_t seen = 0;

			for (size_t b = a + 1; b < j && seen < NEARDUP_WINDOW; b++) {
				if (e[b].key == e[a].key) {
					/* Equal signatures: one join, and b's own
					 * comparisons cover the rest. */
					uf_join(parent, e[a].doc, e[b].doc);
					break;
				}
				seen++;
				if (simhash_distance(e[a].key, e[b].key) <= bits)
					uf_join(parent, e[a].doc, e[b].doc);
			}
		}
		i = j;
	}
}

size_t neardup_group(const struct neardup_doc *docs, size_t n, unsigned bits,
		     struct neardup_member **out, size_t *n_out)
{
	struct neardup_doc *d = xmalloc((n ? n : 1) * sizeof(*d));
	struct sortent *e = xmalloc((n ? n : 1) * sizeof(*e));
	uint32_t *parent = xmalloc((n ? n : 1) * sizeof(*parent));
	uint32_t *size = xcalloc(n ? n : 1, sizeof(*size));
	size_t m = 0, groups = 0, k = 0;

	/* Documents without a signature are never grouped. */
	for (size_t i = 0; i < n; i++)
		if (docs[i].simhash)
			d[m++] = docs[i];
	qsort(d, m, sizeof(*d), cmp_doc);
	for (size_t i = 0; i < m; i++)
		parent[i] = (uint32_t)i;
	if (bits > NEARDUP_MAX_BITS)
		bits = NEARDUP_MAX_BITS;
	for (unsigned b = 0; b < NEARDUP_BLOCKS && m > 1; b++) {
		for (size_t i = 0; i < m; i++) {
			/* Rotate block b to the top: the distance is unchanged. */
			uint64_t h = d[i].simhash;
			unsigned r = 16 * b;

			e[i].key = r ? h << r | h >> (64 - r) : h;
			e[i].doc = (uint32_t)i;
		}
		join_block(e, m, bits, parent);
	}
	for (size_t i = 0; i < m; i++)
		size[uf_find(parent, (uint32_t)i)]++;
	for (size_t i = 0; i < m; i++)
		if (size[i] > 1)
			groups++;
	*out = xmalloc((m ? m : 1) * sizeof(**out));
	for (size_t i = 0; i < m; i++) {
		uint32_t r = uf_find(parent, (uint32_t)i);

		if (size[r] > 1) {
			(*out)[k].url_id = d[i].url_id;
			(*out)[k].group = d[r].url_id;
			k++;
		}
	}
	*n_out = k;
	free(d);
	free(e);
	free(parent);
	free(size);
	return groups;
}

/* ---- the file ------------------------------------------------------------------ */

int neardup_write(const char *gen_dir, const struct neardup_member *m, size_t n, unsigned bits)
{
	struct binfile f;
	unsigned char h[HEADER], v[8 * 512];
	char *path = xasprintf("%s/%s", gen_dir, NEARDUP_FILE);
	uint32_t groups = 0;
	int rc = -1;

	if (n > UINT32_MAX) {
		error("neardup: %zu documents do not fit the file", n);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (m[i].group == m[i].url_id)
			groups++;
	memset(h, 0, sizeof(h));
	memcpy(h + H_MAGIC, MAGIC, 8);
	le_put32(h + H_VERSION, NEARDUP_FORMAT_VERSION);
	le_put32(h + H_MEMBERS, (uint32_t)n);
	le_put32(h + H_GROUPS, groups);
	le_put32(h + H_BITS, bits);
	if (binfile_create(&f, path))
		goto out;
	if (binfile_write(&f, h, sizeof(h)))
		goto fail;
	binfile_sum_start(&f);
	for (size_t i = 0; i < n;) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(v) / 8 && i < n; k++, i++) {
			le_put32(v + 8 * k, m[i].url_id);
			le_put32(v + 8 * k + 4, m[i].group);
		}
		if (binfile_write(&f, v, 8 * k))
			goto fail;
	}
	le_put32(h + H_SUM, binfile_sum(&f));
	le_put32(h + H_CRC, binfile_crc(h, H_CRC));
	if (binfile_pwrite(&f, h, sizeof(h), 0))
		goto fail;
	rc = binfile_commit(&f);
	goto out;
fail:
	binfile_abort(&f);
out:
	free(path);
	return rc;
}

static int cmp_by_group(const void *a, const void *b)
{
	const struct neardup_member *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->url_id < y->url_id ? -1 : x->url_id > y->url_id;
}

int neardup_open(const char *gen_dir, struct neardup **out, struct buf *err)
{
	char *path = xasprintf("%s/%s", gen_dir, NEARDUP_FILE);
	const unsigned char *m;
	struct neardup *nd;
	size_t size, n;
	int rc;

	*out = NULL;
	rc = binfile_open_checked(path, MAGIC, NEARDUP_FORMAT_VERSION, H_CRC, HEADER, "neardup",
				  &m, &size, err);
	if (rc <= 0)
		goto out;
	rc = -1;
	n = le_get32(m + H_MEMBERS);
	if ((size - HEADER) % 8 || (size - HEADER) / 8 != n) {
		binfile_damaged(err, path, "offset 12: the size does not match the members");
		goto unmap;
	}
	if (binfile_verify_sum(m, size, HEADER, le_get32(m + H_SUM), H_SUM, path, err))
		goto unmap;
	for (size_t i = 1; i < n; i++)
		if (le_get32(m + HEADER + 8 * i) <= le_get32(m + HEADER + 8 * (i - 1))) {
			binfile_damaged(err, path, "the url_ids are not ascending");
			goto unmap;
		}
	nd = xcalloc(1, sizeof(*nd));
	nd->map = m;
	nd->size = size;
	nd->members = (uint32_t)n;
	nd->by_group = xmalloc((n ? n : 1) * sizeof(*nd->by_group));
	for (size_t i = 0; i < n; i++) {
		nd->by_group[i].url_id = le_get32(m + HEADER + 8 * i);
		nd->by_group[i].group = le_get32(m + HEADER + 8 * i + 4);
	}
	qsort(nd->by_group, n, sizeof(*nd->by_group), cmp_by_group);
	/* Most matching documents of a query have no near-duplicate: one bit
	 * says so without the binary search (an 8-byte word per 64 url_ids). */
	nd->max_id = n ? le_get32(m + HEADER + 8 * (n - 1)) : 0;
	nd->grouped = xcalloc((size_t)nd->max_id / 64 + 1, sizeof(*nd->grouped));
	for (size_t i = 0; i < n; i++)
		nd->grouped[nd->by_group[i].url_id / 64] |= 1ull << (nd->by_group[i].url_id % 64);
	nd->groups = le_get32(m + H_GROUPS);
	nd->bits = le_get32(m + H_BITS);
	*out = nd;
	rc = 1;
	goto out;
unmap:
	binfile_unmap(m, size);
out:
	free(path);
	return rc;
}

int neardup_verify(const char *gen_dir, struct buf *err)
{
	struct neardup *nd;
	int rc = neardup_open(gen_dir, &nd, err);

	neardup_close(nd);
	return rc;
}

void neardup_close(struct neardup *nd)
{
	if (!nd)
		return;
	binfile_unmap(nd->map, nd->size);
	free(nd->by_group);
	free(nd->grouped);
	free(nd);
}

size_t neardup_by_group(const struct neardup *nd, const struct neardup_member **out)
{
	*out = nd ? nd->by_group : NULL;
	return nd ? nd->members : 0;
}

uint32_t neardup_group_of(const struct neardup *nd, uint32_t url_id)
{
	size_t lo = 0, hi;

	if (!nd || url_id > nd->max_id || !(nd->grouped[url_id / 64] >> (url_id % 64) & 1))
		return 0;
	hi = nd->members;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t id = le_get32(nd->map + HEADER + 8 * mid);

		if (id == url_id)
			return le_get32(nd->map + HEADER + 8 * mid + 4);
		if (id < url_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

size_t neardup_members(const struct neardup *nd, uint32_t group, uint32_t *out, size_t max)
{
	size_t lo = 0, hi, n = 0;

	if (!nd || !group)
		return 0;
	hi = nd->members;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nd->by_group[mid].group < group)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nd->members && nd->by_group[lo].group == group; lo++)
		if (n < max)
			out[n++] = nd->by_group[lo].url_id;
	return n;
}

void neardup_counts(const struct neardup *nd, uint64_t *groups, uint64_t *docs, unsigned *bits)
{
	*groups = nd ? nd->groups : 0;
	*docs = nd ? nd->members : 0;
	*bits = nd ? nd->bits : 0;
}
