/* merge.c - deltas + the live generation -> a new CompactStorage generation
 * (merge.h), spread over the ranks: the run and its steps.
 *
 * Owns the merge's records and their order, which record of a URL wins,
 * URL and partition ownership, the building of partitions, docinfo and
 * wordurl's counts.  The external sorts and the files moved between ranks
 * are merge_sort.c's, --check and --dump-index merge_check.c's; the bytes
 * of the index belong to storage.c, the delta format to delta.c, MPI to
 * cluster.c.  Design and crash behaviour: doc/MERGE.md.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "citations.h"
#include "cluster.h"
#include "conf.h"
#include "db.h"
#include "delta.h"
#include "docstore.h"
#include "grams.h"
#include "le.h"
#include "log.h"
#include "merge.h"
#include "rt.h"
#include "merge_int.h"
#include "ranks.h"
#include "stems.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

#define MIN_SORT_BUFFER (64u << 10) /* DeltaBufferSize below this is raised */
#define WIN_SIZE 12                 /* ord u64, url u32 */

_Static_assert(UREC_SIZE == 4 + 1 + 3 + 8 + 8 + 4 + 8, "url record layout");
_Static_assert(WIN_SIZE == 8 + 4, "winner record layout");

void merge_crash_point(const char *point)
{
	const char *at = getenv("MPSEEK_MERGE_CRASH_AT");

	if (at && !strcmp(at, point)) {
		warning("MPSEEK_MERGE_CRASH_AT=%s: exiting here", point);
		_exit(99);
	}
}

/* ---- segments and their global order ------------------------------------ */

struct seg {
	char *path;
	uint64_t created;
	uint32_t rank, seq;
	uint32_t gidx;          /* place in the global (created, rank, seq) order */
};

static int cmp_key(const void *a, const void *b)
{
	const unsigned char *x = a, *y = b;
	uint64_t cx = le_get64(x), cy = le_get64(y);
	uint32_t rx = le_get32(x + 8), ry = le_get32(y + 8), sx = le_get32(x + 12), sy = le_get32(y + 12);

	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return sx < sy ? -1 : sx > sy;
}

/* The segments this rank reads (those of ranks r with r mod size == me),
 * each with its index in the order of all ranks' segments; *reader (malloc'd,
 * *n_all entries) the rank that reads each segment, by that index. */
static int list_segments(const struct conf *c, struct seg **out, size_t *n_out, uint32_t **reader,
			 size_t *n_all, unsigned char **all_keys)
{
	struct delta_seg *ds = NULL;
	size_t nd = 0, n = 0, total = 0, *lens = NULL;
	struct seg *s = NULL;
	unsigned char *keys = NULL, *all = NULL;
	struct buf err = BUF_INIT(4096);
	int me = cluster_rank(), size = cluster_size(), rc = 0;

	*out = NULL;
	*n_out = 0;
	if (delta_list(c->data_dir, &ds, &nd, &err)) {
		rc = error("%s", buf_str(&err));
		nd = 0;
	}
	s = xcalloc(nd ? nd : 1, sizeof(*s));
	keys = xmalloc(16 * (nd ? nd : 1));
	for (size_t i = 0; i < nd; i++) {
		struct delta_reader *r;

		/* Real-time segments (mpseek-index -T) on rank 0, whose DataDir
		 * holds index/rt: it rebuilds that after removing them. */
		if ((ds[i].rank == RT_RANK ? 0 : ds[i].rank % size) != me)
			continue;
		/* The header's creation time (delta_list() gives 0 when unreadable). */
		r = delta_reader_open(ds[i].path, &err);
		if (!r) {
			rc = error("%s", buf_str(&err));
			continue;
		}
		s[n].created = delta_reader_created(r);
		delta_reader_close(r);
		s[n].path = xstrdup(ds[i].path);
		s[n].rank = (uint32_t)ds[i].rank;
		s[n].seq = ds[i].seq;
		le_put64(keys + 16 * n, s[n].created);
		le_put32(keys + 16 * n + 8, s[n].rank);
		le_put32(keys + 16 * n + 12, s[n].seq);
		n++;
	}
	delta_list_free(ds, nd);
	if (cluster_allgather_bytes(keys, 16 * n, &all, &lens))
		rc = -1;
	for (int r = 0; r < size; r++)
		total += lens[r];
	total /= 16;
	qsort(all, total, 16, cmp_key);
	*reader = xmalloc((total ? total : 1) * sizeof(**reader));
	*n_all = total;
	for (size_t i = 0; i < total; i++) {
		uint32_t r = le_get32(all + 16 * i + 8);

		(*reader)[i] = r == RT_RANK ? 0 : r % (uint32_t)size;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char *hit = bsearch(keys + 16 * i, all, total, 16, cmp_key);
		s[i].gidx = hit ? (uint32_t)((size_t)(hit - all) / 16) : 0;
	}
	/* Read in global order (the fold below needs no more than that). */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && s[j].gidx < s[j - 1].gidx; j--) {
			struct seg t = s[j];
			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	if (total >= (1u << (64 - ORD_SEG_SHIFT)))
		rc = error("merge: %zu delta segments (at most %u)", total, 1u << (64 - ORD_SEG_SHIFT));
	free(keys);
	*all_keys = all;
	free(lens);
	buf_free(&err);
	*out = s;
	*n_out = n;
	return rc;
}

static void segs_free(struct seg *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i].path);
	free(s);
}

/* ---- the kinds of records sorted ------------------------------------------
 *
 * Three kinds of records are sorted in runs of DeltaBufferSize, merged from
 * disk and moved between ranks as files (merge_sort.c): postings (their
 * order and file form are merge_codec.c's), URL records (and the URL states
 * made of them) and the winning DOCs' places. */

static long no_extra(const unsigned char *p)
{
	(void)p;
	return 0;
}

/* URL records and states: (url, ord). */
static int cmp_urec(const unsigned char *a, const unsigned char *b)
{
	uint32_t x = le_get32(a), y = le_get32(b);
	uint64_t ox = le_get64(a + 8), oy = le_get64(b + 8);

	if (x != y)
		return x < y ? -1 : 1;
	return ox < oy ? -1 : ox > oy;
}

/* Winners: ord u64, url u32, by ord (= segment, offset). */
static int cmp_win(const unsigned char *a, const unsigned char *b)
{
	uint64_t x = le_get64(a), y = le_get64(b);

	return x < y ? -1 : x > y;
}

static bool key_urec(const unsigned char *p, uint64_t k[2])
{
	k[0] = le_get32(p);
	k[1] = le_get64(p + 8);
	return true;
}

static bool key_win(const unsigned char *p, uint64_t k[2])
{
	k[0] = le_get64(p);
	k[1] = 0;
	return true;
}

const struct kind merge_k_urec = { .head = UREC_SIZE, .max = UREC_SIZE, .extra = no_extra,
				    .cmp = cmp_urec, .key = key_urec };
static const struct kind K_WIN = { .head = WIN_SIZE, .max = WIN_SIZE, .extra = no_extra,
				   .cmp = cmp_win, .key = key_win };


/* ---- URL states: which record of each URL wins -------------------------- */

enum { U_DOC = 1, U_DEL = 2, U_LASTMOD = 3 };


struct ust {
	uint32_t url;
	uint8_t flags;
	uint64_t win_ord;
	uint64_t win_time;
	uint32_t site;
	uint16_t len[STORAGE_SECTIONS];
	uint64_t lastmod;
};

_Static_assert(DELTA_MAX_WORD_POSITIONS <= STORAGE_MAX_URL_POSITIONS,
	       "a page's positions of one word fit a URL record");

static void urec_pack(unsigned char *p, const struct urec *u)
{
	memset(p, 0, UREC_SIZE);
	le_put32(p, u->url);
	p[4] = u->type;
	le_put64(p + 8, u->ord);
	le_put64(p + 16, u->val);
	le_put32(p + 24, u->site);
	for (int s = 0; s < STORAGE_SECTIONS; s++)
		le_put16(p + 28 + 2 * s, u->len[s]);
}

void merge_urec_unpack(const unsigned char *p, struct urec *u)
{
	u->url = le_get32(p);
	u->type = p[4];
	u->ord = le_get64(p + 8);
	u->val = le_get64(p + 16);
	u->site = le_get32(p + 24);
	for (int s = 0; s < STORAGE_SECTIONS; s++)
		u->len[s] = le_get16(p + 28 + 2 * s);
}

/* One record of a URL, in (created, rank, seq, offset) order: the newest
 * DOC or DEL wins; between DOCs of different segments a later DOC time wins
 * (two ranks indexed the URL after a lease expired: FORMATS.md). */
static void fold_one(struct ust *s, const struct urec *r)
{
	switch (r->type) {
	case U_DOC:
		if ((s->flags & ST_INDEXED) &&
		    (s->win_ord >> ORD_SEG_SHIFT) != (r->ord >> ORD_SEG_SHIFT) &&
		    s->win_time > r->val)
			break;
		s->flags = ST_TOUCHED | ST_INDEXED;
		s->win_ord = r->ord;
		s->win_time = r->val;
		s->site = r->site;
		memcpy(s->len, r->len, sizeof(s->len));
		s->lastmod = 0;
		break;
	case U_DEL:
		s->flags = ST_TOUCHED;
		s->win_ord = r->ord;
		s->lastmod = 0;
		break;
	case U_LASTMOD:
		s->flags |= ST_LASTMOD;
		s->lastmod = r->val;
		break;
	}
}

/* Pass 1: the URL records of this rank's segments into the sorter; *max_url
 * the highest url_id among them. */
static int read_urecs(struct seg *s, size_t n, struct sorter *so, uint64_t *max_url)
{
	struct buf err = BUF_INIT(4096);
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct delta_reader *d = delta_reader_open(s[i].path, &err);
		struct delta_rec rec;
		int got;

		if (!d) {
			rc = error("%s", buf_str(&err));
			break;
		}
		while (!rc && (got = delta_next(d, &rec)) > 0) {
			struct urec u = { .url = rec.url_id,
					  .ord = (uint64_t)s[i].gidx << ORD_SEG_SHIFT | rec.offset };
			unsigned char *p;

			if (rec.type == DELTA_DOC) {
				u.type = U_DOC;
				u.val = rec.time;
				u.site = rec.site_id;
				for (uint32_t w = 0; w < rec.n_words; w++)
					for (uint32_t j = 0; j < rec.words[w].n_pos; j++) {
						uint32_t q = rec.words[w].pos[j];
						unsigned sec = (unsigned)tok_pos_section(q);
						uint32_t at = tok_pos_position(q) + 1;

						/* docinfo's lengths saturate at 65535 */
						if (at > UINT16_MAX)
							at = UINT16_MAX;
						if (sec < STORAGE_SECTIONS && u.len[sec] < at)
							u.len[sec] = (uint16_t)at;
					}
			} else if (rec.type == DELTA_DEL) {
				u.type = U_DEL;
			} else if (rec.type == DELTA_LASTMOD) {
				u.type = U_LASTMOD;
				u.val = rec.time;
			} else {
				continue; /* HREFS, REDIR: the link graph's (pagerank) */
			}
			if (u.url > *max_url)
				*max_url = u.url;
			p = sorter_room(so, UREC_SIZE);
			if (!p)
				rc = -1;
			else
				urec_pack(p, &u);
		}
		if (!rc && got < 0)
			rc = error("merge: %s", delta_reader_msg(d));
		else if (!rc && delta_reader_torn(d) >= 0)
			warning("merge: %s", delta_reader_msg(d));
		delta_reader_close(d);
	}
	buf_free(&err);
	return rc;
}

static int url_owner(const void *arg, const unsigned char *rec)
{
	(void)arg;
	return (int)(le_get32(rec) % (uint32_t)cluster_size());
}

/* Pass 1b, on the owner of each URL (url_id mod size): its records come in
 * (url, ord) order and are folded one URL at a time into its state. */
struct fold_ctx {
	struct ust cur;
	bool has;
	FILE **win;                 /* per rank: the winners of the segments it reads */
	FILE *st;                   /* the states, in url order, for rank 0 */
	const uint32_t *reader;     /* per segment (global index): the rank reading it */
	size_t n_all;               /* segments of all ranks */
	uint8_t *touched;           /* bit per url_id <= max_url */
	uint64_t max_url;
	uint64_t states;
};

static int fold_emit(struct fold_ctx *x)
{
	const struct ust *s = &x->cur;
	struct urec st = { .url = s->url, .type = s->flags, .ord = s->win_ord, .val = s->lastmod,
			   .site = s->site };
	unsigned char p[UREC_SIZE];

	x->states++;
	if (s->flags & ST_TOUCHED)
		x->touched[s->url >> 3] |= (uint8_t)(1u << (s->url & 7));
	if (s->flags & ST_INDEXED) {
		uint64_t seg = s->win_ord >> ORD_SEG_SHIFT;

		if (seg >= x->n_all)
			return error("merge: a URL record names segment %" PRIu64 " of %zu", seg,
				     x->n_all);
		le_put64(p, s->win_ord);
		le_put32(p + 8, s->url);
		if (fwrite(p, 1, WIN_SIZE, x->win[x->reader[seg]]) != WIN_SIZE)
			return error_errno("merge: cannot write the winners");
	}
	memcpy(st.len, s->len, sizeof(st.len));
	urec_pack(p, &st);
	if (fwrite(p, 1, UREC_SIZE, x->st) != UREC_SIZE)
		return error_errno("merge: cannot write the URL states");
	return 0;
}

static int fold_rec(void *arg, const unsigned char *rec)
{
	struct fold_ctx *x = arg;
	struct urec u;

	merge_urec_unpack(rec, &u);
	if (u.url == 0 || u.url > x->max_url || u.type < U_DOC || u.type > U_LASTMOD)
		return error("merge: a URL record file is damaged (url %u, type %u)", u.url, u.type);
	if (!x->has || x->cur.url != u.url) {
		if (x->has && fold_emit(x))
			return -1;
		memset(&x->cur, 0, sizeof(x->cur));
		x->cur.url = u.url;
		x->has = true;
	}
	fold_one(&x->cur, &u);
	return 0;
}

/* ---- the postings of the winning DOCs ----------------------------------- */

/* Pass 2: the postings of the winning DOCs of this rank's segments.  The
 * winners come sorted by (segment, offset), as the segments are read. */
static int read_postings(struct seg *segs, size_t n, struct merger *win, struct sorter *s,
			 const struct grams *g)
{
	struct grams_doc gd = { 0 };
	struct buf err = BUF_INIT(4096);
	const unsigned char *w = NULL;
	int rc = 0, hw = merger_next(win, &w);

	for (size_t i = 0; i < n && !rc && hw >= 0; i++) {
		struct delta_reader *d = delta_reader_open(segs[i].path, &err);
		struct delta_rec rec;
		int got = 0;

		if (!d) {
			rc = error("%s", buf_str(&err));
			break;
		}
		while (!rc && hw == 1 && (got = delta_next(d, &rec)) > 0) {
			uint64_t ord = (uint64_t)segs[i].gidx << ORD_SEG_SHIFT | rec.offset;

			if (le_get64(w) < ord) {
				rc = error("merge: the winning record at %" PRIu64 " of segment %" PRIu64
					   " is not a record of it", le_get64(w) & (((uint64_t)1 << ORD_SEG_SHIFT) - 1),
					   le_get64(w) >> ORD_SEG_SHIFT);
				break;
			}
			if (rec.type != DELTA_DOC || le_get64(w) != ord)
				continue;
			if (le_get32(w + 8) != rec.url_id) {
				rc = error("merge: %s: offset %" PRIu64 ": url %u, the winner says %u",
					   segs[i].path, rec.offset, rec.url_id, le_get32(w + 8));
				break;
			}
			for (uint32_t k = 0; k < rec.n_words && !rc; k++) {
				const struct delta_word *dw = &rec.words[k];

				rc = merge_post(s, dw->word, dw->len, rec.site_id, rec.url_id,
						dw->pos, dw->n_pos);
			}
			if (!rc && g)
				rc = merge_grams_post(s, g, &gd, &rec);
			hw = merger_next(win, &w);
		}
		if (!rc && hw == 1 && got < 0)
			rc = error("merge: %s", delta_reader_msg(d));
		delta_reader_close(d);
	}
	if (!rc && hw < 0)
		rc = -1;
	if (!rc && hw == 1)
		rc = error("merge: the winning record at %" PRIu64 " of segment %" PRIu64
			   " was not found", le_get64(w) & (((uint64_t)1 << ORD_SEG_SHIFT) - 1),
			   le_get64(w) >> ORD_SEG_SHIFT);
	grams_doc_free(&gd);
	buf_free(&err);
	return rc;
}

/* ---- building one partition ---------------------------------------------- */

struct new_word {
	char word[MAX_WORD_LEN];
	uint8_t len;
	uint32_t id;            /* k within the partition */
	uint64_t off;           /* first posting in the partition's temp file */
	uint32_t n;             /* postings */
};

struct part_build {
	unsigned part;
	FILE *tmp;              /* (site u32, url u32, npos u16, pos u32...) per posting */
	char *tmp_path;
	struct new_word *w;
	size_t n, cap;
	uint64_t off;
	/* A partition without old words takes its postings straight (its word
	 * ids are in byte order, the postings' order): no tmp, no w[]. */
	struct storage_part_writer *direct;
	char last[MAX_WORD_LEN];  /* its current word, site */
	uint8_t last_len;
	bool site_open;
	uint32_t site;
	/* stats */
	uint64_t words, live, postings;
};

/* One record of the partition being collected. */
static int collect(struct part_build *b, const unsigned char *rec)
{
	size_t wl = rec[1], np = le_get16(rec + 10);
	struct new_word *w;

	if (!b->n || delta_wordcmp((const unsigned char *)b->w[b->n - 1].word, b->w[b->n - 1].len,
			     rec + POST_FIXED, wl)) {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 1024;
			b->w = xrealloc(b->w, b->cap * sizeof(*b->w));
		}
		w = &b->w[b->n++];
		memcpy(w->word, rec + POST_FIXED, wl);
		w->len = (uint8_t)wl;
		w->off = b->off;
		w->n = 0;
	}
	w = &b->w[b->n - 1];
	w->n++;
	/* Unlocked: the stream is this thread's, and the lock of every call
	 * was ~4% of a merge's CPU (here and in write_word()'s reads). */
	if (fwrite_unlocked(rec + 2, 1, 10, b->tmp) != 10 ||
	    fwrite_unlocked(rec + POST_FIXED + wl, 1, 4 * np, b->tmp) != 4 * np)
		return error_errno("merge: cannot write %s", b->tmp_path);
	b->off += 10 + 4 * np;
	return 0;
}

/* Sites and URLs of one word: the old postings without the URLs the deltas
 * touched, merged with the new ones, in (site, url) order. */
static int write_word(struct storage_part_writer *pw, const struct storage *old, uint32_t old_id,
		      bool has_old, const struct new_word *nw, FILE *tmp, off_t *tmp_at,
		      const uint8_t *touched, uint32_t touched_max, struct storage_cursor *c,
		      uint32_t *npos_buf, uint32_t *urls, uint64_t *total)
{
	uint32_t o_site = 0, o_url = 0, o_n = 0, cur_site = 0;
	int o_has = 0, rc = 0;
	uint32_t left = nw ? nw->n : 0;
	unsigned char h[10];
	uint32_t n_site = 0, n_url = 0, n_n = 0;
	int n_has = 0;
	bool site_open = false;

	if (has_old && storage_postings(old, old_id, c) < 0)
		return error("merge: the old index is damaged (word_id %u)", old_id);
	/* *tmp_at is where tmp's reads are (-1: unknown).  The words' records
	 * are read in the order they were written when no old word has new
	 * postings (a first merge): no seek then.  fseeko() costs an lseek()
	 * even within the buffer (40,000 per merge of the corpus). */
	if (nw && (off_t)nw->off != *tmp_at) {
		if (fseeko(tmp, (off_t)nw->off, SEEK_SET) < 0)
			return error_errno("merge: seek");
		*tmp_at = (off_t)nw->off;
	}

	/* Next old posting that survives. */
#define OLD_NEXT()                                                                          \
	do {                                                                                \
		int k_;                                                                     \
		o_has = 0;                                                                  \
		if (!has_old)                                                               \
			break;                                                              \
		for (;;) {                                                                  \
			k_ = storage_next_url(c, &o_url, &o_n);                             \
			if (k_ < 0)                                                         \
				return error("merge: the old index is damaged (word_id %u)", \
					     old_id);                                       \
			if (k_ == 0) {                                                      \
				k_ = storage_next_site(c, &o_site);                         \
				if (k_ < 0)                                                 \
					return error("merge: the old index is damaged "     \
						     "(word_id %u)", old_id);               \
				if (k_ == 0)                                                \
					break;                                              \
				continue;                                                   \
			}                                                                   \
			if (o_url <= touched_max && (touched[o_url >> 3] & (1u << (o_url & 7)))) \
				continue;                                                   \
			o_has = 1;                                                          \
			break;                                                              \
		}                                                                           \
	} while (0)
#define NEW_NEXT()                                                                          \
	do {                                                                                \
		n_has = 0;                                                                  \
		if (!left)                                                                  \
			break;                                                              \
		if (fread_unlocked(h, 1, 10, tmp) != 10)                                    \
			return error("merge: temp file short");                             \
		n_site = le_get32(h);                                                          \
		n_url = le_get32(h + 4);                                                       \
		n_n = le_get16(h + 8);                                                         \
		if (fread_unlocked(npos_buf, 4, n_n, tmp) != n_n)                           \
			return error("merge: temp file short");                             \
		for (uint32_t i_ = 0; i_ < n_n; i_++)                                       \
			npos_buf[i_] = le_get32((const unsigned char *)&npos_buf[i_]);         \
		*tmp_at += 10 + 4 * (off_t)n_n;                                             \
		if (n_n > STORAGE_MAX_URL_POSITIONS)                                        \
			n_n = STORAGE_MAX_URL_POSITIONS;                                    \
		left--;                                                                     \
		n_has = 1;                                                                  \
	} while (0)

	OLD_NEXT();
	NEW_NEXT();
	while (!rc && (o_has || n_has)) {
		bool take_new = n_has && (!o_has || n_site < o_site ||
					  (n_site == o_site && n_url <= o_url));
		uint32_t site = take_new ? n_site : o_site;

		if (!site_open || site != cur_site) {
			rc = storage_part_site(pw, site);
			cur_site = site;
			site_open = true;
		}
		if (rc)
			break;
		if (take_new) {
			if (o_has && n_site == o_site && n_url == o_url)
				OLD_NEXT(); /* cannot happen: touched URLs are filtered */
			rc = storage_part_url(pw, n_url, npos_buf, n_n);
			*total += n_n;
			NEW_NEXT();
		} else {
			/* an older generation's record may hold more */
			if (o_n > STORAGE_MAX_URL_POSITIONS)
				o_n = STORAGE_MAX_URL_POSITIONS;
			rc = storage_part_url(pw, o_url, c->pos, o_n);
			*total += o_n;
			OLD_NEXT();
		}
		(*urls)++;
	}
#undef OLD_NEXT
#undef NEW_NEXT
	return rc;
}

/* One record into b->direct.  A first merge writes every partition so,
 * without the round trip through the scratch file (1.2 GB for 40,064
 * synweb pages); the bytes are what build_part() would write. */
static int collect_direct(struct part_build *b, const unsigned char *rec, uint32_t *pos)
{
	size_t wl = rec[1], np = le_get16(rec + 10);
	const unsigned char *w = rec + POST_FIXED, *p = w + wl;
	uint32_t site = le_get32(rec + 2);
	int rc = 0;

	if (!b->words || delta_wordcmp((const unsigned char *)b->last, b->last_len, w, wl)) {
		rc = storage_part_word(b->direct, (const char *)w, wl);
		memcpy(b->last, w, wl);
		b->last_len = (uint8_t)wl;
		b->words++;
		b->live++;
		b->site_open = false;
	}
	if (!rc && (!b->site_open || site != b->site)) {
		rc = storage_part_site(b->direct, site);
		b->site = site;
		b->site_open = true;
	}
	if (np > STORAGE_MAX_URL_POSITIONS)
		np = STORAGE_MAX_URL_POSITIONS;
	for (size_t i = 0; i < np; i++)
		pos[i] = le_get32(p + 4 * i);
	if (!rc)
		rc = storage_part_url(b->direct, le_get32(rec + 6), pos, (uint32_t)np);
	b->postings++;
	return rc;
}

struct build_ctx {
	const char *gen_dir;
	const char *scratch;
	const struct storage *old;
	const uint8_t *touched;
	uint32_t touched_max;
	struct storage_cursor *cursor;
	uint32_t *pos;
	int me;
	const int *owner;          /* per partition */
	struct part_build b;
	int cur;                /* partition being collected, -1 none */
	int next;               /* next partition this rank must build */
	uint64_t stats[3];      /* words, live words, postings */
	int anchors_rebuilt;    /* drop the old postings of anchor words */
	const struct grams *grams; /* CommonWords: old pairs of other words go */
};

static int build_part(struct build_ctx *x)
{
	struct part_build *b = &x->b;
	struct storage_part_writer *pw = NULL;
	struct buf err = BUF_INIT(4096);
	uint32_t n_old = x->old ? storage_part_words(x->old, b->part) : 0, n_new = 0;
	int32_t *by_k = NULL;
	off_t tmp_at = -1;  /* the first read seeks: the stream is at its end */
	int rc = 0;

	if (b->direct) {
		pw = b->direct;
		b->direct = NULL; /* freed by storage_part_finish() either way */
		goto finish;
	}
	if (b->tmp && fflush(b->tmp) != 0)
		return error_errno("merge: %s", b->tmp_path);
	/* Ids: old words keep theirs; new words get the next ones in byte order. */
	for (size_t i = 0; i < b->n; i++) {
		uint32_t id;
		int k = x->old ? storage_word_id(x->old, b->w[i].word, b->w[i].len, &id) : 0;

		if (k < 0)
			return error("merge: the old dictionary of %02uw is damaged", b->part);
		b->w[i].id = k ? id / STORAGE_PARTITIONS : n_old + n_new++;
	}
	by_k = xmalloc(((size_t)n_old + n_new + 1) * sizeof(*by_k));
	for (size_t k = 0; k < (size_t)n_old + n_new; k++)
		by_k[k] = -1;
	for (size_t i = 0; i < b->n; i++)
		by_k[b->w[i].id] = (int32_t)i;
	if (storage_part_begin(x->gen_dir, b->part, &pw, &err)) {
		rc = error("%s", buf_str(&err));
		goto out;
	}
	for (uint32_t k = 0; k < n_old + n_new && !rc; k++) {
		const struct new_word *nw = by_k[k] >= 0 ? &b->w[by_k[k]] : NULL;
		uint32_t old_id = k * STORAGE_PARTITIONS + b->part, urls = 0;
		uint64_t total = 0;
		const char *text;
		size_t len;

		if (k < n_old) {
			text = storage_word_text(x->old, old_id, &len);
			if (!text) {
				rc = error("merge: the old dictionary of %02uw is damaged", b->part);
				break;
			}
		} else {
			text = nw->word;
			len = nw->len;
		}
		rc = storage_part_word(pw, text, len);
		/* Anchor postings are made anew from the database each merge. */
		if (!rc)
			rc = write_word(pw, x->old, old_id,
					k < n_old && !(x->anchors_rebuilt && storage_is_anchor_word(text, len)) &&
					!(storage_is_gram_word(text, len) && !grams_key_in(x->grams, text, len)),
					nw, b->tmp, &tmp_at,
					x->touched, x->touched_max, x->cursor, x->pos, &urls, &total);
		b->words++;
		if (urls)
			b->live++;
		b->postings += urls;
	}
	if (rc) {
		storage_part_abort(pw);
		goto out;
	}
finish:
	if (storage_part_finish(pw, &err))
		rc = error("%s", buf_str(&err));
	x->stats[0] += b->words;
	x->stats[1] += b->live;
	x->stats[2] += b->postings;
out:
	storage_release_part(x->old, b->part); /* the old partition was read once */
	free(by_k);
	buf_free(&err);
	return rc;
}

static void part_reset(struct build_ctx *x, unsigned part)
{
	struct part_build *b = &x->b;

	if (b->tmp)
		fclose(b->tmp);
	storage_part_abort(b->direct); /* a failed merge */
	b->direct = NULL;
	b->site_open = false;
	if (b->tmp_path)
		unlink(b->tmp_path);
	free(b->tmp_path);
	b->tmp = NULL;
	b->tmp_path = NULL;
	b->n = 0;
	b->off = 0;
	b->words = b->live = b->postings = 0;
	b->part = part;
}

static int part_open(struct build_ctx *x, unsigned part)
{
	part_reset(x, part);
	if (!x->old || !storage_part_words(x->old, part)) {
		struct buf err = BUF_INIT(4096);
		int rc = 0;

		if (storage_part_begin(x->gen_dir, part, &x->b.direct, &err))
			rc = error("%s", buf_str(&err));
		buf_free(&err);
		x->cur = (int)part;
		return rc;
	}
	x->b.tmp_path = xasprintf("%s/part-%02u", x->scratch, part);
	x->b.tmp = fopen(x->b.tmp_path, "w+b");
	if (!x->b.tmp)
		return error_errno("merge: cannot create %s", x->b.tmp_path);
	x->cur = (int)part;
	return 0;
}

/* Build every owned partition up to (not including) `upto` that has not
 * been built: the ones without new postings still carry the old ones. */
static int build_until(struct build_ctx *x, int upto)
{
	int rc = 0;

	while (!rc && x->next < upto) {
		if (x->owner[x->next] == x->me) {
			if (x->cur != x->next)
				rc = part_open(x, (unsigned)x->next);
			if (!rc)
				rc = build_part(x);
			x->cur = -1;
		}
		x->next++;
	}
	return rc;
}

static int on_rec(void *arg, const unsigned char *rec)
{
	struct build_ctx *x = arg;
	int part = rec[0];

	if (part != x->cur) {
		if (build_until(x, part))
			return -1;
		if (part_open(x, (unsigned)part))
			return -1;
		x->next = part; /* built when the next partition (or the end) comes */
	}
	return x->b.direct ? collect_direct(&x->b, rec, x->pos) : collect(&x->b, rec);
}

/* ---- docinfo and wordurl (rank 0) ---------------------------------------- */

/* The rows of wordurl, produced for db_wordurl_apply() partition by
 * partition: a diff against the old generation when wordurl describes it,
 * else the whole table. */
struct wordurl_gen {
	const struct storage *s, *old;
	bool full;
	uint64_t rows;
};

static int wordurl_rows(void *arg, int (*put)(void *ctx, const struct db_wordurl *row), void *ctx)
{
	struct wordurl_gen *g = arg;
	int rc = 0;

	g->rows = 0;
	for (unsigned p = 0; p < STORAGE_PARTITIONS && !rc; p++) {
		uint32_t nw = storage_part_words(g->s, p);

		for (uint32_t k = 0; k < nw && !rc; k++) {
			uint32_t id = k * STORAGE_PARTITIONS + p;
			struct storage_word w, o = { 0 };
			struct db_wordurl v = { .word_id = id };
			int had = !g->full && k < storage_part_words(g->old, p) ?
				storage_word_info(g->old, id, &o) : 0;

			if (storage_word_info(g->s, id, &w) != 1 || had < 0)
				return error("merge: cannot read word %u back", id);
			if (g->full ? !w.n_urls :
			    (had == 1 && o.n_urls == w.n_urls && o.total == w.total) ||
			    (had != 1 && !w.n_urls))
				continue;
			v.word = storage_word_text(g->s, id, &v.len);
			v.urlcount = w.n_urls;
			v.totalcount = wordurl_totalcount(w.total);
			if (!v.word)
				return error("merge: cannot read word %u back", id);
			rc = put(ctx, &v);
			g->rows++;
		}
		storage_release_part(g->s, p);
		storage_release_part(g->old, p);
	}
	return rc;
}

/* wordurl := the dictionary's live words, streamed in one transaction. */
static int update_wordurl(struct db *db, const struct storage *old, const char *gen_dir,
			  uint64_t gen, uint64_t old_gen)
{
	struct storage *s = NULL;
	struct buf err = BUF_INIT(4096);
	struct wordurl_gen g = { .old = old };
	uint64_t db_gen;
	int rc = 0;

	if (db_wordurl_gen(db, &db_gen))
		return -1;
	g.full = !old || db_gen != old_gen;
	if (storage_open_dir(gen_dir, &s, &err)) {
		rc = error("%s", buf_str(&err));
		goto out;
	}
	g.s = s;
	rc = db_wordurl_apply(db, wordurl_rows, &g, g.full, gen);
	if (!rc)
		info("merge: wordurl: %" PRIu64 " row(s) written (%s)", g.rows,
		     g.full ? "whole table" : "changes");
out:
	storage_close(s);
	buf_free(&err);
	return rc;
}

/* ---- the run ------------------------------------------------------------- */

/* Postings go to the owner of their partition. */
static int post_owner(const void *arg, const unsigned char *rec)
{
	return ((const int *)arg)[rec[0]];
}

/* Does this rank see the directory rank 0 created?  Rank 0 leaves a token
 * in it (a stale directory of the same name on another host's disk has
 * another one or none). */
static bool sees_rank0_dir(const char *dir, int me)
{
	char *path = xasprintf("%s/.token", dir);
	int token = me == 0 ? (int)(((unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL)) & 0x7fffffff) : 0;
	int seen = -1;
	FILE *f;

	if (me == 0) {
		/* A full disk fails here first: say so, not only that no rank
		 * sees the directory. */
		if (!(f = fopen(path, "w")) || (fprintf(f, "%d\n", token), fclose(f) != 0)) {
			error("merge: cannot write %s: %s", path, strerror(errno));
			token = -2;
		}
	}
	cluster_bcast_int(&token);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "%d", &seen) != 1)
			seen = -1;
		fclose(f);
	}
	cluster_agree(0);  /* everyone has read it before rank 0 removes it */
	if (me == 0)
		unlink(path);
	free(path);
	return seen == token && access(dir, W_OK) == 0;
}

/* Partition owners: the ranks that see rank 0's generation directory (a
 * shared DataDir, or the same host), round robin; the others only read and
 * sort their deltas and send the postings on.  Without a shared filesystem
 * the index is thus written on rank 0's host, where searchd runs. */
static int owners(bool sees_dir, int owner[STORAGE_PARTITIONS], int *n_owners)
{
	unsigned char mine = sees_dir, *all = NULL;
	size_t *lens = NULL;
	int ok[1024], n = 0, size = cluster_size();

	if (cluster_allgather_bytes(&mine, 1, &all, &lens))
		return -1;
	for (int r = 0; r < size && n < (int)ARRAY_SIZE(ok); r++)
		if (all[r])
			ok[n++] = r;
	free(all);
	free(lens);
	if (!n)
		return error("merge: no rank sees the generation directory");
	for (int p = 0; p < STORAGE_PARTITIONS; p++)
		owner[p] = ok[p % n];
	*n_owners = n;
	return 0;
}

static int rm_scratch(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		unlink(p);
		free(p);
	}
	closedir(d);
	return rmdir(dir);
}

/* One merge on this rank, from merge_run() to merge_finish(): what each
 * step leaves for the next.  After merge_run() only the segments remain
 * (merge_release()): merge_finish() removes them once the generation is
 * live. */
struct merge {
	const struct conf *c;       /* borrowed until merge_finish() */
	struct db *db;              /* borrowed by merge_run(); rank 0 only */
	int me, size;
	double t0;                  /* the start, for the log */
	uint64_t gen, cur;          /* the generation written; the live one (0: none) */
	char *index_dir;            /* DataDir/index */
	char *dir;                  /* DataDir/index/gen-<gen>.tmp */
	char *scratch;              /* DataDir/index/merge-r<me>: runs and files moved */
	size_t cap;                 /* bytes of a sorter's arena */
	struct storage *old;        /* the live generation, when this rank sees it */
	int owner[STORAGE_PARTITIONS], n_owners;
	struct seg *segs;           /* this rank's delta segments, in global order */
	size_t n_segs, n_all;       /* n_all: the segments of all ranks */
	uint32_t *reader;           /* per segment of all ranks: the rank reading it */
	unsigned char *keys;        /* per segment of all ranks: created, rank, seq (16 B) */
	uint64_t max_url;           /* the highest url_id of all ranks' deltas */
	uint64_t n_states;          /* URLs the deltas change, all ranks */
	uint8_t *touched;           /* bit per url_id <= max_url: its old postings go */
	struct sorter sorter;       /* the sort under way */
	struct merger win;          /* the winners this rank reads, by (segment, offset) */
	char **ufrom, **wfrom;      /* files received: URL records, winners */
	char **sfrom, **pfrom;      /* URL states (rank 0), postings of owned partitions */
	size_t n_ufrom, n_pfrom;    /* files in ufrom, pfrom */
	uint64_t stats[3];          /* words, live words, postings (all ranks after step 5) */
	int anchors_rebuilt;        /* the old anchor postings go (merge_anchors()) */
	struct grams *grams;        /* CommonWords, NULL: none */
	struct merge_docinfo di;    /* rank 0: docinfo and the docstore, beside step 5 */
};

/* Rank 0 decides the generation (the next after `current`) and creates its
 * directory; every rank learns which ranks write partitions, opens the live
 * generation if it sees it and makes its scratch directory. */
static int merge_begin(struct merge *m)
{
	const struct conf *c = m->c;
	struct buf err = BUF_INIT(4096);
	uint64_t cur = 0, g = 0;
	int rc = 0, k, igen;
	bool sees;

	if (m->me == 0) {
		if (mkdir_p(m->index_dir) || storage_gen_cleanup(c->data_dir, &err)) {
			rc = error("merge: %s", buf_str(&err));
		} else {
			k = storage_current(c->data_dir, &cur, &err);
			if (k < 0)
				rc = error("merge: %s", buf_str(&err));
			g = k > 0 ? cur + 1 : 1;
		}
	}
	igen = (int)(g & 0x7fffffff);
	cluster_bcast_int(&igen);
	m->gen = (uint64_t)igen;
	m->cur = m->gen - 1;
	if (cluster_agree(rc))
		goto fail;
	m->dir = xasprintf("%s/gen-%08" PRIu64 ".tmp", m->index_dir, m->gen);
	if (m->me == 0 && mkdir(m->dir, 0755) < 0 && errno != EEXIST)
		rc = error_errno("merge: cannot create %s", m->dir);
	if (cluster_agree(rc))
		goto fail;
	sees = sees_rank0_dir(m->dir, m->me);
	if (owners(sees, m->owner, &m->n_owners))
		rc = -1;
	if (m->me == 0)
		info("merge: %d of %d rank(s) write partitions%s", m->n_owners, m->size,
		     m->n_owners < m->size ? " (the others do not share DataDir with rank 0)" : "");
	if (m->cur > 0 && sees) {
		char *od = storage_gen_path(c->data_dir, m->cur);

		/* An older format version is read and the new generation written
		 * in the current one: the merge is the conversion. */
		if (storage_open_old(od, &m->old, &err))
			rc = error("merge: the live index cannot be read: %s", buf_str(&err));
		else if (m->me == 0 && storage_version(m->old) != STORAGE_FORMAT_VERSION)
			info("merge: generation %" PRIu64 " has format version %u: generation %" PRIu64
			     " converts it to version %d", m->cur, storage_version(m->old), m->gen,
			     STORAGE_FORMAT_VERSION);
		free(od);
	}
	if (!rc && mkdir_p(m->index_dir))
		rc = -1;
	m->scratch = xasprintf("%s/merge-r%d", m->index_dir, m->me);
	rm_scratch(m->scratch);
	if (!rc && mkdir(m->scratch, 0755) < 0)
		rc = error_errno("merge: cannot create %s", m->scratch);
	if (cluster_agree(rc))
		goto fail;
	m->cap = (size_t)c->delta_buffer_size * 1024;
	if (m->cap < MIN_SORT_BUFFER)
		m->cap = MIN_SORT_BUFFER;
	buf_free(&err);
	return 0;
fail:
	buf_free(&err);
	return -1;
}

/* 1. The URL records of this rank's segments, sorted by (url, ord) in runs
 * of DeltaBufferSize, go to the owner of each URL (url mod size). */
static int sort_url_records(struct merge *m)
{
	int rc = list_segments(m->c, &m->segs, &m->n_segs, &m->reader, &m->n_all, &m->keys);

	sorter_init(&m->sorter, &merge_k_urec, m->scratch, "u", m->cap);
	if (!rc)
		rc = read_urecs(m->segs, m->n_segs, &m->sorter, &m->max_url);
	if (!rc)
		rc = sorter_finish(&m->sorter);
	info("merge: %" PRIu64 " URL record(s) sorted in %zu run(s) of %zu KiB (%.2f s)",
	     m->sorter.records, m->sorter.spills, m->cap / 1024, now_monotonic() - m->t0);
	if (cluster_agree(rc) || cluster_max_u64(&m->max_url))
		return -1;
	return sort_exchange(&m->sorter, m->scratch, "u", url_owner, NULL, &m->ufrom, &m->n_ufrom);
}

/* 2. Each owner folds its URLs' records into states: the winning DOCs to
 * the ranks that read their segments, the states to rank 0, the touched
 * URLs into a bitmap every rank gets. */
static int fold_url_states(struct merge *m)
{
	char **wto = xfer_paths(m->scratch, "w", "to"), **sto = xfer_paths(m->scratch, "s", "to");
	FILE **wf = xcalloc((size_t)m->size, sizeof(*wf)), **sf = xcalloc((size_t)m->size, sizeof(*sf));
	struct fold_ctx fx = { .win = wf, .reader = m->reader, .n_all = m->n_all,
			       .max_url = m->max_url };
	int rc;

	m->touched = xcalloc((size_t)(m->max_url / 8 + 1), 1);
	fx.touched = m->touched;
	rc = xfer_open(wto, wf);
	if (xfer_open(sto, sf))
		rc = -1;
	if (!rc) {
		fx.st = sf[0];
		rc = merge_files(&merge_k_urec, m->ufrom, m->n_ufrom, fold_rec, &fx);
		if (!rc && fx.has)
			rc = fold_emit(&fx);
	}
	m->n_states = fx.states;
	if (xfer_close(wto, wf))
		rc = -1;
	if (xfer_close(sto, sf))
		rc = -1;
	free(wf);
	free(sf);
	files_free(m->ufrom, m->n_ufrom);
	m->ufrom = NULL;
	merge_crash_point("after-url-states");
	if (xfer_exchange(m->scratch, "w", wto, rc, &m->wfrom))
		rc = -1;
	if (xfer_exchange(m->scratch, "s", sto, rc, &m->sfrom))
		rc = -1;
	xfer_free(wto);
	xfer_free(sto);
	if (cluster_agree(rc) || cluster_or_bytes(m->touched, (size_t)(m->max_url / 8 + 1)) ||
	    cluster_sum_u64(&m->n_states, 1))
		return -1;
	info("merge: %zu segment(s) here, %" PRIu64 " URL(s) changed in all (%.2f s)", m->n_segs,
	     m->n_states, now_monotonic() - m->t0);
	return 0;
}

/* 3a. The winners this rank reads, sorted by (segment, offset), opened as
 * one stream in m->win. */
static int sort_winners(struct merge *m)
{
	int rc = 0;

	sorter_init(&m->sorter, &K_WIN, m->scratch, "w", m->cap);
	for (int r = 0; r < m->size && !rc; r++) {
		FILE *f = fopen(m->wfrom[r], "rb");
		unsigned char *p, b[WIN_SIZE];
		size_t got = 0;

		if (!f) {
			rc = error_errno("merge: cannot open %s", m->wfrom[r]);
			break;
		}
		while (!rc && (got = fread(b, 1, WIN_SIZE, f)) == WIN_SIZE) {
			p = sorter_room(&m->sorter, WIN_SIZE);
			if (p)
				memcpy(p, b, WIN_SIZE);
			else
				rc = -1;
		}
		if (!rc && (ferror(f) || got))
			rc = error("merge: %s is damaged", m->wfrom[r]);
		fclose(f);
		unlink(m->wfrom[r]);
	}
	if (!rc)
		rc = sorter_finish(&m->sorter);
	if (!rc)
		rc = merger_open(&m->win, &K_WIN, m->sorter.runs, m->sorter.n_runs);
	return cluster_agree(rc);
}

/* 3b. The postings of the winning DOCs, sorted in runs of DeltaBufferSize
 * (they replace the winners in m->sorter). */
static int sort_postings(struct merge *m)
{
	struct sorter post;
	int rc;

	sorter_init(&post, &merge_k_post, m->scratch, "p", m->cap);
	rc = read_postings(m->segs, m->n_segs, &m->win, &post, m->grams);
	if (!rc && m->me == 0)
		rc = merge_anchors(m->c, m->db, m->scratch, m->cap, &post, &m->anchors_rebuilt);
	if (!rc)
		rc = sorter_finish(&post);
	merger_close(&m->win);
	sorter_free(&m->sorter);
	m->sorter = post;
	info("merge: %" PRIu64 " posting(s) sorted in %zu run(s), %.1f MB of them in %.1f MB "
	     "of runs (%.2f s)", m->sorter.records, m->sorter.spills,
	     (double)m->sorter.in_bytes / 1e6, (double)m->sorter.spilled / 1e6,
	     now_monotonic() - m->t0);
	if (cluster_agree(rc))
		return -1;
	cluster_bcast_int(&m->anchors_rebuilt);
	merge_crash_point("after-runs");
	return 0;
}

/* 4. The postings of each partition to its owner, which builds it from the
 * merged streams; m->stats gets this rank's counts. */
static int build_partitions(struct merge *m)
{
	struct build_ctx x = { .cur = -1 };
	int rc;

	if (sort_exchange(&m->sorter, m->scratch, "p", post_owner, m->owner, &m->pfrom, &m->n_pfrom))
		return -1;
	x.gen_dir = m->dir;
	x.scratch = m->scratch;
	x.old = m->old;
	x.touched = m->touched;
	x.touched_max = (uint32_t)m->max_url;
	x.anchors_rebuilt = m->anchors_rebuilt;
	x.grams = m->grams;
	x.cursor = xmalloc(sizeof(*x.cursor));
	x.pos = xmalloc(65536 * sizeof(*x.pos));
	x.me = m->me;
	x.owner = m->owner;
	rc = merge_files_piped(&merge_k_post, m->pfrom, m->n_pfrom, on_rec, &x);
	if (!rc && x.cur >= 0) {
		x.next = x.cur;
		rc = build_until(&x, x.cur + 1);
	}
	if (!rc)
		rc = build_until(&x, STORAGE_PARTITIONS);
	part_reset(&x, 0);
	free(x.b.w);
	free(x.cursor);
	free(x.pos);
	files_free(m->pfrom, m->n_pfrom);
	m->pfrom = NULL;
	memcpy(m->stats, x.stats, sizeof(m->stats));
	if (cluster_agree(rc))
		return -1;
	info("merge: partitions written (%.2f s)", now_monotonic() - m->t0);
	merge_crash_point("after-partitions");
	return 0;
}

/* 5. Rank 0: docinfo, the files kept from the live generation, FORMAT,
 * the stem map, wordurl. */
static int write_generation(struct merge *m)
{
	struct buf err = BUF_INIT(4096);
	int rc = 0;

	cluster_sum_u64(m->stats, 3);
	if (m->me == 0) {
		struct storage_format f = { .generation = m->gen, .words = m->stats[0],
					    .live_words = m->stats[1], .postings = m->stats[2] };

		rc = merge_docinfo_join(&m->di, &f);
		merge_crash_point("after-docinfo");
		if (!rc && m->old && merge_keep_pagerank(storage_dir(m->old))) {
			const char *keep[] = { "ranks", "citations" };

			for (size_t i = 0; i < ARRAY_SIZE(keep) && !rc; i++)
				if (storage_gen_link(storage_dir(m->old), m->dir, keep[i], &err))
					rc = error("merge: %s", buf_str(&err));
		}
		if (!rc && storage_format_write(m->dir, &f, &err))
			rc = error("merge: %s", buf_str(&err));
		/* The site and block summaries need the partitions and docinfo both. */
		if (!rc && storage_sums_write(m->dir, &err))
			rc = error("merge: %s", buf_str(&err));
		if (!rc)
			info("merge: site and block summaries written (%.2f s)",
			     now_monotonic() - m->t0);
		merge_crash_point("after-format");
		if (!rc)
			rc = merge_write_stems(m->c, m->dir);
		if (!rc)
			rc = merge_grams_finish(m->grams, m->old, m->touched, m->max_url, m->dir);
		if (!rc)
			rc = merge_write_neardup(m->c, m->db, m->dir);
		if (!rc && m->db)
			rc = update_wordurl(m->db, m->old, m->dir, m->gen, m->cur);
		merge_crash_point("after-wordurl");
		if (!rc)
			info("merge: generation %" PRIu64 ": %" PRIu64 " docs, %" PRIu64 " words (%"
			     PRIu64 " live), %" PRIu64 " postings, %.2f s", m->gen, f.n_docs, f.words,
			     f.live_words, f.postings, now_monotonic() - m->t0);
	}
	buf_free(&err);
	return cluster_agree(rc);
}

/* Everything of m but the segments (and conf): the scratch directory
 * removed, the live generation closed. */
static void merge_release(struct merge *m)
{
	merger_close(&m->win);
	sorter_free(&m->sorter);
	files_free(m->ufrom, m->n_ufrom);
	xfer_free(m->wfrom);
	xfer_free(m->sfrom);
	files_free(m->pfrom, m->n_pfrom);
	m->ufrom = m->wfrom = m->sfrom = m->pfrom = NULL;
	if (m->scratch)
		rm_scratch(m->scratch);
	free(m->scratch);
	m->scratch = NULL;
	free(m->touched);
	m->touched = NULL;
	grams_free(m->grams);
	m->grams = NULL;
	free(m->reader);
	m->reader = NULL;
	free(m->keys);
	m->keys = NULL;
	storage_close(m->old);
	m->old = NULL;
	free(m->dir);
	m->dir = NULL;
	free(m->index_dir);
	m->index_dir = NULL;
}

static void merge_free(struct merge *m)
{
	if (!m)
		return;
	merge_release(m);
	segs_free(m->segs, m->n_segs);
	free(m);
}

/* A merge that failed (a full disk, most often) removes its unpublished
 * generation at once, rather than leaving the next merge to: the partial
 * files would hold the room that ran out.  The segments stay. */
static void merge_failed(struct merge *m)
{
	struct buf err = BUF_INIT(256);
	struct storage_format f;

	merge_docinfo_join(&m->di, &f); /* it writes into m->dir: first */
	if (m->me == 0 && m->dir && storage_gen_cleanup(m->c->data_dir, &err))
		warning("merge: %s", buf_str(&err));
	buf_free(&err);
	merge_free(m);
}

int merge_run(const struct conf *c, struct db *db, struct merge **out, uint64_t *gen,
	      char **gen_dir)
{
	struct merge *m = xcalloc(1, sizeof(*m));
	int rc;

	*out = NULL;
	*gen = 0;
	*gen_dir = NULL;
	m->c = c;
	m->db = db;
	m->me = cluster_rank();
	m->size = cluster_size();
	m->t0 = now_monotonic();
	m->index_dir = xasprintf("%s/index", c->data_dir);
	rc = merge_grams_conf(c, &m->grams);
	if (!rc)
		rc = merge_begin(m);
	if (!rc)
		rc = sort_url_records(m);
	if (!rc)
		rc = fold_url_states(m);
	if (!rc)
		rc = sort_winners(m);
	if (!rc && m->me == 0) {
		m->di = (struct merge_docinfo){ .c = c, .use_db = db != NULL, .gen_dir = m->dir,
						.old = m->old, .st_files = m->sfrom,
						.n_files = (size_t)m->size, .cap = m->cap, .t0 = m->t0,
						.seg_keys = m->keys, .n_segs = m->n_all };
		rc = merge_docinfo_start(&m->di);
	}
	if (!rc)
		rc = sort_postings(m);
	if (!rc)
		rc = build_partitions(m);
	if (!rc)
		rc = write_generation(m);
	if (rc) {
		merge_failed(m);
		return -1;
	}
	*gen = m->gen;
	*gen_dir = m->dir;
	m->dir = NULL;
	merge_release(m);
	*out = m;
	return 0;
}

int merge_finish(struct merge *m, int published)
{
	int rc = 0;

	if (!m)
		return 0;
	for (size_t i = 0; published && i < m->n_segs; i++)
		if (unlink(m->segs[i].path) < 0 && errno != ENOENT)
			rc = error_errno("merge: cannot remove %s", m->segs[i].path);
	if (published && m->n_segs) {
		char *dir = xasprintf("%s/deltas", m->c->data_dir);
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
		free(dir);
	}
	/* The real-time index keeps only what this merge did not fold in: the
	 * pages it held are in the published generation now (searchd lets
	 * index/rt override a URL, so it shows once meanwhile). */
	for (size_t i = 0; published && i < m->n_segs; i++)
		if (m->segs[i].rank == RT_RANK) {
			if (rt_refresh(m->c->data_dir))
				rc = -1;
			break;
		}
	merge_free(m);
	return rc;
}
