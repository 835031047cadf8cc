/* ranks.c - the `ranks` file of a generation (include/ranks.h): writing it
 * for pagerank.c and reading it, bounds-checked, for searchd.  Layout in
 * doc/FORMATS.md, "ranks": a 56-byte header, then one f64 per url_id.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "buf.h"
#include "log.h"
#include "ranks.h"
#include "util.h"

static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'R', 'A', 'N', 'K', 0 };

enum {
	H_MAGIC = 0, H_VERSION = 8, H_SLOTS = 12, H_NODES = 16, H_ITER = 20, H_DAMPING = 24,
	H_DELTA = 32, H_MAX = 40, H_FLAGS = 48, H_SUM = 52, H_PAD = 56, H_CRC = 60, HEADER = 64,
};
_Static_assert(H_MAGIC == 0 && H_VERSION == 8, "the header binfile_open_checked() reads");
_Static_assert(HEADER % 8 == 0, "the values start 8-aligned");
_Static_assert(H_CRC + 4 == HEADER, "the CRC closes the header");

struct ranks {
	const unsigned char *map;
	size_t size;
	struct ranks_meta meta;
	double log_top;            /* log1p(max_rank * n_nodes), > 0 */
};

int ranks_write(const char *gen_dir, const uint32_t *ids, const double *x, size_t n,
		const struct ranks_meta *meta)
{
	struct binfile f;
	unsigned char h[HEADER], v[8 * 512];
	char *path = xasprintf("%s/%s", gen_dir, RANKS_FILE);
	uint32_t slots = n ? ids[n - 1] + 1 : 0, id = 0;
	double max = 0;
	size_t i = 0, k;
	int rc = -1;

	if (n && ids[n - 1] == UINT32_MAX) {
		error("ranks: url_id %u is out of range", ids[n - 1]);
		goto out;
	}
	for (k = 0; k < n; k++)
		if (x[k] > max)
			max = x[k];
	memset(h, 0, sizeof(h));
	memcpy(h + H_MAGIC, MAGIC, 8);
	le_put32(h + H_VERSION, RANKS_FORMAT_VERSION);
	le_put32(h + H_SLOTS, slots);
	le_put32(h + H_NODES, (uint32_t)n);
	le_put32(h + H_ITER, meta->iterations);
	le_putd(h + H_DAMPING, meta->damping);
	le_putd(h + H_DELTA, meta->delta);
	le_putd(h + H_MAX, max);
	le_put32(h + H_FLAGS, meta->flags);
	if (binfile_create(&f, path))
		goto out;
	if (binfile_write(&f, h, sizeof(h)))
		goto fail;
	binfile_sum_start(&f);
	/* One value per url_id: the nodes' ranks, 0 in the gaps. */
	while (id < slots) {
		for (k = 0; k < ARRAY_SIZE(v) / 8 && id < slots; k++, id++) {
			double r = 0;

			if (i < n && ids[i] == id)
				r = x[i++];
			le_putd(v + 8 * k, r);
		}
		if (binfile_write(&f, v, 8 * k))
			goto fail;
	}
	if (i != n) {
		error("ranks: the url_ids are not ascending");
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

int ranks_open(const char *gen_dir, struct ranks **out, struct buf *err)
{
	char *path = xasprintf("%s/%s", gen_dir, RANKS_FILE);
	const unsigned char *m;
	struct ranks *r;
	size_t size;
	int rc;

	*out = NULL;
	rc = binfile_open_checked(path, MAGIC, RANKS_FORMAT_VERSION, H_CRC, HEADER, "ranks", &m,
				  &size, err);
	if (rc <= 0) {
		free(path);
		return rc;
	}
	rc = -1;
	if ((size - HEADER) / 8 != le_get32(m + H_SLOTS) || (size - HEADER) % 8)
		binfile_damaged(err, path, "offset 12: the size does not match the slots");
	else
		rc = 1;
	if (rc < 0) {
		binfile_unmap(m, size);
		free(path);
		return -1;
	}
	r = xcalloc(1, sizeof(*r));
	r->map = m;
	r->size = size;
	r->meta.n_url_ids = le_get32(m + H_SLOTS);
	r->meta.n_nodes = le_get32(m + H_NODES);
	r->meta.iterations = le_get32(m + H_ITER);
	r->meta.flags = le_get32(m + H_FLAGS);
	r->meta.damping = le_getd(m + H_DAMPING);
	r->meta.delta = le_getd(m + H_DELTA);
	r->meta.max_rank = le_getd(m + H_MAX);
	r->log_top = log1p(r->meta.max_rank * r->meta.n_nodes);
	if (!(r->log_top > 0) || !isfinite(r->log_top))
		r->log_top = 0;
	free(path);
	*out = r;
	return 1;
}

int ranks_verify(const char *gen_dir, struct buf *err)
{
	struct ranks *r;
	char *path;
	int rc = ranks_open(gen_dir, &r, err);

	if (rc <= 0)
		return rc;
	path = xasprintf("%s/%s", gen_dir, RANKS_FILE);
	if (binfile_verify_sum(r->map, r->size, HEADER, le_get32(r->map + H_SUM), H_SUM, path, err))
		rc = -1;
	free(path);
	ranks_close(r);
	return rc;
}

void ranks_close(struct ranks *r)
{
	if (!r)
		return;
	binfile_unmap(r->map, r->size);
	free(r);
}

const struct ranks_meta *ranks_meta(const struct ranks *r)
{
	return &r->meta;
}

double ranks_get(const struct ranks *r, uint32_t url_id)
{
	double v;

	if (url_id >= r->meta.n_url_ids)
		return 0;
	v = le_getd(r->map + HEADER + 8 * (size_t)url_id);
	/* A damaged value must not poison a score. */
	if (!isfinite(v) || v < 0 || v > 1)
		return 0;
	return v;
}

double ranks_score(const struct ranks *r, uint32_t url_id)
{
	double v = ranks_get(r, url_id), s;

	if (v <= 0 || r->log_top <= 0)
		return 0;
	s = log1p(v * r->meta.n_nodes) / r->log_top;
	return s > 1 ? 1 : s;
}
