/* merge_boiler.c - the merge's search for boilerplate (doc/SEARCH.md,
 * "Boilerplate"): two passes over the new generation's docstore that find
 * each site's repeated blocks and write the `boiler` file (boiler.h).
 *
 * Pass 1 reads every stored text once: its blocks (blocks.h) go to a
 * scratch file, and each distinct block hash of a page adds one to a
 * (site, hash) count, (site, 0) counting the site's pages.  Pass 2 reads
 * the scratch file back and keeps, per page, the position ranges of the
 * blocks found on enough of its site's pages.  Counting in the merge, not
 * the crawl, is what sees a whole site: a rank crawls only part of one.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blocks.h"
#include "boiler.h"
#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "docstore.h"
#include "log.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"
#include "merge_int.h"

/* ---- counting ------------------------------------------------------------- */
struct slot {
	uint64_t hash;             /* 0 with count > 0: the site's page count */
	uint32_t site;             /* 0: empty slot */
	uint32_t count;
};

struct counts {
	struct slot *s;
	size_t cap, used, max_blocks; /* cap a power of two */
	uint64_t dropped;
};

static void counts_init(struct counts *c, size_t mem)
{
	size_t cap = 1024;

	while (cap * 2 * sizeof(struct slot) <= mem && cap < ((size_t)1 << 40))
		cap *= 2;
	c->s = xcalloc(cap, sizeof(*c->s));
	c->cap = cap;
	c->used = 0;
	/* Sites still fit when blocks fill the table to here. */
	c->max_blocks = cap / 10 * 7;
	c->dropped = 0;
}

static struct slot *counts_find(const struct counts *c, uint32_t site, uint64_t hash)
{
	size_t i = (size_t)((hash ^ (uint64_t)site * 0x9e3779b97f4a7c15ull) & (c->cap - 1));

	while (c->s[i].site && (c->s[i].site != site || c->s[i].hash != hash))
		i = (i + 1) & (c->cap - 1);
	return &c->s[i];
}

/* One more page of site with this block (hash 0: one more page). */
static void counts_add(struct counts *c, uint32_t site, uint64_t hash)
{
	struct slot *s = counts_find(c, site, hash);

	if (!s->site) {
		if (c->used >= (hash ? c->max_blocks : c->cap - c->cap / 16)) {
			c->dropped++;
			return;
		}
		s->site = site;
		s->hash = hash;
		c->used++;
	}
	if (s->count < UINT32_MAX)
		s->count++;
}

static uint32_t counts_get(const struct counts *c, uint32_t site, uint64_t hash)
{
	const struct slot *s = counts_find(c, site, hash);

	return s->site ? s->count : 0;
}

/* ---- pass 1: the texts ------------------------------------------------------ */

/* A block of the scratch file: hash, positions. */
struct sblock {
	uint64_t hash;
	uint32_t start, end;
};

struct pass1 {
	const struct storage *st;
	const struct tokenizer *tok;
	FILE *tmp;
	struct counts cnt;
	struct buf text;
	struct sblock *b;          /* BOILER_MAX_BLOCKS */
	uint64_t *h;               /* the same hashes, sorted */
	uint32_t n;
	int write_errno;           /* a write to the scratch file failed: its errno */
	struct boiler_stats *stats;
};

static int keep_block(const struct block *b, void *arg)
{
	struct pass1 *x = arg;

	if (!b->hash)
		return 0;
	x->b[x->n].hash = b->hash;
	x->b[x->n].start = b->pos_start;
	x->b[x->n].end = b->pos_end;
	return ++x->n == BOILER_MAX_BLOCKS;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int pass1_doc(void *arg, uint32_t url_id, const struct docstore_doc *d)
{
	struct pass1 *x = arg;
	struct storage_doc sd;
	uint32_t head[3];

	if (!d->found || !d->has_text || storage_doc(x->st, url_id, &sd) != 1 || !sd.site_id)
		return 0;
	if (blocks_body_text(d->text, d->text_len, d->content_type, &x->text))
		return 0;
	x->n = 0;
	blocks_split(x->tok, x->text.ptr ? x->text.ptr : "", x->text.len, keep_block, x);
	x->stats->docs++;
	x->stats->blocks += x->n;
	head[0] = url_id;
	head[1] = sd.site_id;
	head[2] = x->n;
	if (fwrite(head, sizeof(head), 1, x->tmp) != 1 ||
	    (x->n && fwrite(x->b, sizeof(*x->b), x->n, x->tmp) != x->n)) {
		x->write_errno = errno ? errno : EIO;
		return -1;
	}
	/* A block repeated on one page counts once for it. */
	for (uint32_t i = 0; i < x->n; i++)
		x->h[i] = x->b[i].hash;
	qsort(x->h, x->n, sizeof(*x->h), cmp_u64);
	counts_add(&x->cnt, sd.site_id, 0);
	for (uint32_t i = 0; i < x->n; i++)
		if (!i || x->h[i] != x->h[i - 1])
			counts_add(&x->cnt, sd.site_id, x->h[i]);
	return 0;
}

/* ---- pass 2: the ranges ---------------------------------------------------------- */

/* The ranges of one page: its blocks at or above the threshold, adjacent
 * ones joined. */
static void pass2_doc(struct boiler_table *o, uint32_t url_id, const struct sblock *b, uint32_t n,
		      uint32_t site, const struct counts *cnt, const struct boiler_params *p)
{
	uint32_t pages = counts_get(cnt, site, 0), need;
	struct pos_range r[BOILER_MAX_RANGES];
	size_t nr = 0;

	if (pages < (uint32_t)p->min_pages || pages < 2)
		return;
	need = (uint32_t)ceil(p->share * pages);
	if (need < 2)
		need = 2;
	for (uint32_t i = 0; i < n; i++) {
		if (counts_get(cnt, site, b[i].hash) < need)
			continue;
		if (nr && b[i].start <= r[nr - 1].end) /* the next line: one range */
			r[nr - 1].end = b[i].end;
		else if (nr < BOILER_MAX_RANGES)
			r[nr++] = (struct pos_range){ b[i].start, b[i].end };
		else
			break;
	}
	boiler_table_add(o, url_id, r, nr);
}

/* Pass 2 over the scratch file, which must give back every one of the
 * docs pages pass 1 wrote: fewer would publish a generation that misses
 * their boilerplate. */
static int pass2_read(FILE *tmp, const char *gen_dir, uint64_t docs, struct boiler_table *o,
		      const struct counts *cnt, const struct boiler_params *p, struct sblock *b,
		      struct buf *err)
{
	uint32_t head[3];
	uint64_t n = 0;

	/* The flush is checked here: rewind() would clear the error of the
	 * last buffered write, and the pages in it would be missing. */
	if (fflush(tmp) || fseek(tmp, 0, SEEK_SET)) {
		buf_printf(err, "%s/boiler.scratch: cannot write: %s", gen_dir, strerror(errno));
		return -1;
	}
	while (fread(head, sizeof(head), 1, tmp) == 1) {
		if (head[2] > BOILER_MAX_BLOCKS ||
		    (head[2] && fread(b, sizeof(*b), head[2], tmp) != head[2]))
			break;
		pass2_doc(o, head[0], b, head[2], head[1], cnt, p);
		n++;
	}
	if (ferror(tmp)) {
		buf_printf(err, "%s/boiler.scratch: cannot read back: %s", gen_dir, strerror(errno));
		return -1;
	}
	if (n != docs) {
		buf_printf(err, "%s/boiler.scratch: %" PRIu64 " of the %" PRIu64
			   " page(s) written read back", gen_dir, n, docs);
		return -1;
	}
	return 0;
}

static FILE *scratch(const char *gen_dir)
{
	char *path = xasprintf("%s/boiler.scratch", gen_dir);
	FILE *f = fopen(path, "w+b");
	int e = errno;

	/* Gone with the process, whatever happens to it. */
	if (f)
		unlink(path);
	free(path);
	errno = e;
	return f;
}

int merge_boiler_build(const char *gen_dir, const struct tokenizer *tok,
		       const struct boiler_params *p, struct boiler_stats *stats, struct buf *err)
{
	struct pass1 x = { .tok = tok, .stats = stats, .text = BUF_INIT(MAX_DOC_BYTES + 1) };
	struct boiler_table o = { 0 };
	struct storage *st = NULL;
	struct docstore *ds = NULL;
	int rc = -1;

	memset(stats, 0, sizeof(*stats));
	if (!(p->share > 0))
		return 0;
	/* The generation is still being written (the partitions, FORMAT):
	 * its docinfo, finished, gives the sites. */
	if (storage_open_docinfo(gen_dir, &st, err))
		return -1;
	/* The merge has just written the docstore: absent, it is lost. */
	rc = docstore_open(gen_dir, &ds, err);
	if (rc <= 0) {
		if (rc == 0)
			buf_printf(err, "%s/docstore: missing", gen_dir);
		storage_close(st);
		return -1;
	}
	x.st = st;
	x.b = xmalloc(BOILER_MAX_BLOCKS * sizeof(*x.b));
	x.h = xmalloc(BOILER_MAX_BLOCKS * sizeof(*x.h));
	counts_init(&x.cnt, p->mem);
	rc = -1;
	if (!(x.tmp = scratch(gen_dir)))
		buf_printf(err, "%s/boiler.scratch: cannot create: %s", gen_dir, strerror(errno));
	else if (docstore_each(ds, pass1_doc, &x, err)) {
		if (x.write_errno)
			buf_printf(err, "%s/boiler.scratch: cannot write: %s", gen_dir,
				   strerror(x.write_errno));
	} else if (!pass2_read(x.tmp, gen_dir, stats->docs, &o, &x.cnt, p, x.b, err) &&
		   !boiler_table_write(gen_dir, &o, err))
		rc = 0;
	stats->boiler_docs = o.n_docs;
	stats->ranges = o.n_ranges;
	stats->dropped = x.cnt.dropped;
	if (x.tmp)
		fclose(x.tmp);
	free(x.cnt.s);
	free(x.b);
	free(x.h);
	boiler_table_free(&o);
	buf_free(&x.text);
	docstore_close(ds);
	storage_close(st);
	return rc;
}

int merge_write_boiler(const struct conf *c, const char *dir, size_t mem)
{
	struct boiler_params p = { c->boilerplate_share, c->boilerplate_min_pages, mem };
	struct tokenizer *tok = tok_new(c->min_word_length, c->max_word_length);
	struct buf err = BUF_INIT(4096);
	struct boiler_stats st;
	double t = now_monotonic();
	int rc = 0;

	/* Positions do not depend on the stopwords or the length limits (every
	 * word takes one), so a bare tokenizer gives the crawler's. */
	if (merge_boiler_build(dir, tok, &p, &st, &err))
		rc = error("merge: the boilerplate cannot be written: %s; the merge fails, the "
			   "live generation stays and the deltas are kept (rerun -D)", buf_str(&err));
	else if (p.share > 0)
		info("merge: boilerplate: %" PRIu64 " of %" PRIu64 " document(s), %" PRIu64
		     " range(s) from %" PRIu64 " block(s), %" PRIu64 " not counted (%.2f s)",
		     st.boiler_docs, st.docs, st.ranges, st.blocks, st.dropped, now_monotonic() - t);
	tok_free(tok);
	buf_free(&err);
	return rc;
}
