/* citations.c - the link graph files of a generation (include/citations.h):
 * citations/direct and citations/reverse, written for pagerank.c and read,
 * bounds-checked, for searchd's link: queries, and `links`, the crawl's own
 * out-links that the merge keeps for PageRank's graph.  Layout in
 * doc/FORMATS.md, "citations": a 40-byte header, (slots+1) u64 offsets,
 * u32 url_ids.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "buf.h"
#include "citations.h"
#include "log.h"
#include "util.h"

static const unsigned char MAGIC[8] = { 'M', 'P', 'S', 'C', 'I', 'T', 'E', 0 };

enum {
	H_MAGIC = 0, H_VERSION = 8, H_KIND = 12, H_SLOTS = 16, H_RESERVED = 20, H_LINKS = 24,
	H_SUM = 32, H_CRC = 36, HEADER = 40,
};
_Static_assert(H_CRC + 4 == HEADER, "the CRC closes the header");
_Static_assert(H_MAGIC == 0 && H_VERSION == 8, "the header binfile_open_checked() reads");
_Static_assert(HEADER % 8 == 0, "the offsets start 8-aligned");

struct citations {
	const unsigned char *map;
	size_t size;
	uint32_t slots;
	uint64_t links;
	const unsigned char *off, *ids;
};

/* The file of kind in gen_dir (malloc'd). */
static char *file_path(const char *gen_dir, enum citations_kind kind)
{
	if (kind == CITATIONS_LINKS)
		return xasprintf("%s/%s", gen_dir, LINKS_FILE);
	return xasprintf("%s/%s/%s", gen_dir, CITATIONS_DIR,
			 kind == CITATIONS_DIRECT ? "direct" : "reverse");
}

/* One file: lists of url_ids for url_ids 0..slots-1; list s is
 * dst[off_of(s) ..) with the counts given by cnt (slots entries). */
static int write_one(const char *gen_dir, enum citations_kind kind, uint32_t slots,
		     const uint64_t *cnt, const uint32_t *list, uint64_t links)
{
	struct binfile f;
	unsigned char h[HEADER], b[8 * 512];
	char *path = file_path(gen_dir, kind);
	uint64_t at = 0;
	size_t k;
	uint32_t s = 0;
	int rc = -1;

	memset(h, 0, sizeof(h));
	memcpy(h + H_MAGIC, MAGIC, 8);
	le_put32(h + H_VERSION, CITATIONS_FORMAT_VERSION);
	le_put32(h + H_KIND, (uint32_t)kind);
	le_put32(h + H_SLOTS, slots);
	le_put64(h + H_LINKS, links);
	if (binfile_create(&f, path))
		goto out;
	if (binfile_write(&f, h, sizeof(h)))
		goto fail;
	binfile_sum_start(&f);
	/* slots + 1 offsets: entry s is where list s starts, the last the end. */
	for (;;) {
		for (k = 0; k < ARRAY_SIZE(b) / 8 && s <= slots; k++, s++) {
			le_put64(b + 8 * k, at);
			if (s < slots)
				at += cnt[s];
		}
		if (k && binfile_write(&f, b, 8 * k))
			goto fail;
		if (s > slots)
			break;
	}
	for (uint64_t i = 0; i < links;) {
		for (k = 0; k < ARRAY_SIZE(b) / 4 && i < links; k++, i++)
			le_put32(b + 4 * k, list[i]);
		if (binfile_write(&f, b, 4 * k))
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

int citations_write(const char *gen_dir, const uint32_t *ids, size_t n, const uint64_t *off,
		    const uint32_t *dst)
{
	char *dir = xasprintf("%s/%s", gen_dir, CITATIONS_DIR);
	uint32_t slots = 0;
	uint64_t links = n ? off[n] : 0, *cnt = NULL, *pos = NULL;
	uint32_t *rev = NULL;
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		if (ids[i] >= slots)
			slots = ids[i] + 1;
		for (uint64_t j = off[i]; j < off[i + 1]; j++)
			if (dst[j] >= slots)
				slots = dst[j] + 1;
	}
	if (slots == 0 && n) {
		error("citations: url_id out of range");
		goto out;
	}
	if (mkdir_p(dir))
		goto out;
	cnt = xcalloc((size_t)slots + 1, sizeof(*cnt));
	/* direct: the lists as given, in url_id slots */
	for (size_t i = 0; i < n; i++)
		cnt[ids[i]] = off[i + 1] - off[i];
	if (write_one(gen_dir, CITATIONS_DIRECT, slots, cnt, dst, links))
		goto out;
	/* reverse: counting sort by target; sources visited in ascending
	 * order, so every list comes out ascending */
	memset(cnt, 0, ((size_t)slots + 1) * sizeof(*cnt));
	for (uint64_t j = 0; j < links; j++)
		cnt[dst[j]]++;
	pos = xmalloc(((size_t)slots + 1) * sizeof(*pos));
	pos[0] = 0;
	for (uint32_t s = 0; s < slots; s++)
		pos[s + 1] = pos[s] + cnt[s];
	rev = xmalloc((links ? links : 1) * sizeof(*rev));
	for (size_t i = 0; i < n; i++)
		for (uint64_t j = off[i]; j < off[i + 1]; j++)
			rev[pos[dst[j]]++] = ids[i];
	rc = write_one(gen_dir, CITATIONS_REVERSE, slots, cnt, rev, links);
out:
	free(cnt);
	free(pos);
	free(rev);
	free(dir);
	return rc;
}

int citations_write_links(const char *gen_dir, uint32_t slots, const uint32_t *ids, size_t n,
			  const uint64_t *off, const uint32_t *dst)
{
	uint64_t *cnt;
	int rc;

	for (size_t i = 0; i < n; i++)
		if (ids[i] >= slots || (i && ids[i] <= ids[i - 1]))
			return error("links: url_id %u out of range or order", ids[i]);
	cnt = xcalloc((size_t)slots + 1, sizeof(*cnt));
	for (size_t i = 0; i < n; i++)
		cnt[ids[i]] = off[i + 1] - off[i];
	rc = write_one(gen_dir, CITATIONS_LINKS, slots, cnt, dst, n ? off[n] : 0);
	free(cnt);
	return rc;
}

int citations_open(const char *gen_dir, enum citations_kind kind, struct citations **out,
		   struct buf *err)
{
	char *path = file_path(gen_dir, kind);
	const unsigned char *m;
	struct citations *ci;
	uint64_t slots, links;
	size_t size;
	int rc;

	*out = NULL;
	rc = binfile_open_checked(path, MAGIC, CITATIONS_FORMAT_VERSION, H_CRC, HEADER, "citations",
				  &m, &size, err);
	if (rc <= 0) {
		free(path);
		return rc;
	}
	rc = -1;
	if (le_get32(m + H_KIND) != (uint32_t)kind) {
		binfile_damaged(err, path, "offset 12: wrong kind of citations file");
		goto fail;
	}
	slots = le_get32(m + H_SLOTS);
	links = le_get64(m + H_LINKS);
	/* 64-bit arithmetic: slots < 2^32 and links are checked against the
	 * size before they are multiplied. */
	if (links > (uint64_t)size / 4 ||
	    (uint64_t)size != HEADER + 8 * (slots + 1) + 4 * links) {
		binfile_damaged(err, path, "offset 16: the size does not match the slots and links");
		goto fail;
	}
	ci = xcalloc(1, sizeof(*ci));
	ci->map = m;
	ci->size = size;
	ci->slots = (uint32_t)slots;
	ci->links = links;
	ci->off = m + HEADER;
	ci->ids = ci->off + 8 * (slots + 1);
	free(path);
	*out = ci;
	return 1;
fail:
	binfile_unmap(m, size);
	free(path);
	return -1;
}

int citations_verify(const char *gen_dir, enum citations_kind kind, struct buf *err)
{
	struct citations *ci;
	char *path;
	int rc = citations_open(gen_dir, kind, &ci, err);

	if (rc <= 0)
		return rc;
	path = file_path(gen_dir, kind);
	if (binfile_verify_sum(ci->map, ci->size, HEADER, le_get32(ci->map + H_SUM), H_SUM, path,
			       err))
		rc = -1;
	free(path);
	citations_close(ci);
	return rc;
}

void citations_close(struct citations *ci)
{
	if (!ci)
		return;
	binfile_unmap(ci->map, ci->size);
	free(ci);
}

int citations_list(const struct citations *ci, uint32_t url_id, const unsigned char **list,
		   size_t *n)
{
	uint64_t a, b;

	*list = NULL;
	*n = 0;
	if (url_id >= ci->slots)
		return 0;
	a = le_get64(ci->off + 8 * (size_t)url_id);
	b = le_get64(ci->off + 8 * ((size_t)url_id + 1));
	if (a > b || b > ci->links)
		return -1;
	*list = ci->ids + 4 * a;
	*n = (size_t)(b - a);
	return 1;
}

uint32_t citations_at(const unsigned char *list, size_t i)
{
	return le_get32(list + 4 * i);
}

uint32_t citations_n_url_ids(const struct citations *ci)
{
	return ci->slots;
}

uint64_t citations_n_links(const struct citations *ci)
{
	return ci->links;
}

uint32_t citations_data_crc(const struct citations *ci)
{
	return le_get32(ci->map + H_SUM);
}
