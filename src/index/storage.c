/* storage.c - the bytes of one CompactStorage generation (storage.h): the
 * partition and docinfo writers, FORMAT, the mmap reader and the partition
 * of a word.  The directories of generations are storage_gen.c's, their
 * verification storage_check.c's.  It knows neither the database nor the
 * delta log nor MPI.  Layout: doc/FORMATS.md, "CompactStorage".
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "caps.h"
#include "le.h"
#include "log.h"
#include "storage.h"
#include "storage_int.h"
#include "tokenize.h"
#include "util.h"

#define FORMAT_MAGIC "mpseek-compactstorage"

_Static_assert(HDR == 8 + 4 + 4 + 8 + 4 + 4, "header layout");
_Static_assert(IND_ENTRY == 8 + 4 + 4 + 8, "ind entry layout");
_Static_assert(SITE_ENTRY == 4 + 4 + 8, "sites entry layout");
_Static_assert(HDR % 8 == 0 && IND_ENTRY % 8 == 0 && SITE_ENTRY % 8 == 0,
	       "every u64 of ind and sites sits at a multiple of 8 in its file");
/* The fields that stay 32-bit are bounded: a word's sites and URLs by the
 * 32-bit site_id and url_id, a partition's dictionary text by its word
 * count times the longest word. */
_Static_assert((uint64_t)((UINT32_MAX - 99) / STORAGE_PARTITIONS) * MAX_WORD_LEN <= UINT32_MAX,
	       "u32 dictionary text offsets");
_Static_assert(URL_FIXED == 4 + 2, "urls record layout");
_Static_assert(DOC_ENTRY == 4 + 2 * STORAGE_SECTIONS + 8, "docinfo entry layout");
_Static_assert(STORAGE_PARTITIONS == 100, "ASPseek's 00w..99w");
_Static_assert(MAX_WORD_LEN <= 255, "word lengths fit the dictionary checks");
_Static_assert(sizeof(((struct storage_cursor *)0)->pos) / sizeof(uint32_t) >= 65535,
	       "a cursor holds the most positions a URL record can have (version 1 and 2)");
_Static_assert(STORAGE_POS_SHIFT == TOK_POSITION_BITS && TOK_SECTIONS == STORAGE_SECTIONS,
	       "storage_rec_pos() widens narrow positions to tokenize.h's layout");
_Static_assert(STORAGE_MAX_URL_POSITIONS == STORAGE_URL_WIDE - 1,
	       "a URL record's count fits below the width bit");

const char *const storage_fname[F_TYPES] = { "ind", "sites", "urls", "words", "docinfo",
					     "sitesum", "blocksum", "skips" };
static const char MAGIC[F_TYPES][9] = { "MPSIND\0\1", "MPSSIT\0\1", "MPSURL\0\1", "MPSWRD\0\1",
					 "MPSDOC\0\1", "MPSSUM\0\1", "MPSBLK\0\2",
					 "MPSSKP\0\1" };

/* Little-endian packing: le.h. */

/* ---- one output file: buffered, crc'd, header patched at the end -------- */

#define OUT_BUF (1u << 16)

struct out {
	int fd;
	char *path;
	enum ftype type;
	uint32_t part;
	uint64_t count;
	uint64_t size;          /* data bytes after the header */
	uint32_t crc;
	unsigned char buf[OUT_BUF];
	size_t n;
	int failed;
};

static int out_open(struct out *o, const char *path, enum ftype type, uint32_t part,
		    struct buf *err)
{
	unsigned char zero[HDR] = { 0 };

	memset(o, 0, sizeof(*o));
	o->type = type;
	o->part = part;
	o->crc = 0;
	o->path = xstrdup(path);
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o->fd < 0 || write_all(o->fd, zero, HDR) < 0) {
		error_into(err, "%s: cannot create: %s", path, strerror(errno));
		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		return -1;
	}
	return 0;
}

static int out_flush(struct out *o)
{
	if (o->n && !o->failed && write_all(o->fd, o->buf, o->n) < 0)
		o->failed = errno ? errno : EIO;
	o->n = 0;
	return o->failed ? -1 : 0;
}

static void out_add(struct out *o, const void *data, size_t n)
{
	const unsigned char *p = data;

	if (!n)
		return;
	o->crc = binfile_crc_update(o->crc, p, n);
	o->size += n;
	while (n) {
		size_t k = OUT_BUF - o->n;
		if (k > n)
			k = n;
		memcpy(o->buf + o->n, p, k);
		o->n += k;
		p += k;
		n -= k;
		if (o->n == OUT_BUF)
			out_flush(o);
	}
}

void storage_hdr_pack(unsigned char *h, enum ftype type, uint32_t part, uint64_t count,
		      uint32_t data_crc)
{
	memcpy(h, MAGIC[type], 8);
	le_put32(h + 8, STORAGE_FORMAT_VERSION);
	le_put32(h + 12, part);
	le_put64(h + 16, count);
	le_put32(h + 24, data_crc);
	le_put32(h + 28, binfile_crc(h, 28));
}

/* Patch the header, fsync, close.  Returns 0 or -1 (closed either way). */
static int out_close(struct out *o, struct buf *err)
{
	unsigned char h[HDR];
	int rc = 0;

	if (o->fd < 0)
		goto out;
	out_flush(o);
	storage_hdr_pack(h, o->type, o->part, o->count, o->crc);
	if (!o->failed && pwrite(o->fd, h, HDR, 0) != HDR)
		o->failed = errno ? errno : EIO;
	if (!o->failed && fsync(o->fd) < 0)
		o->failed = errno;
	if (close(o->fd) < 0 && !o->failed)
		o->failed = errno;
	o->fd = -1;
	if (o->failed)
		rc = error_into(err, "%s: cannot write: %s", o->path, strerror(o->failed));
out:
	free(o->path);
	o->path = NULL;
	return rc;
}

static void out_abort(struct out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free(o->path);
	o->path = NULL;
}

/* ---- partition writer ----------------------------------------------------- */

struct storage_part_writer {
	char *dir;
	unsigned part;
	struct out ind, sites, urls;
	/* the dictionary, in id order: word k is text[off[k] .. off[k+1]) */
	char *text;
	size_t text_len, text_cap;
	uint32_t *off;
	size_t n_words, off_cap;
	/* the current word and site */
	bool in_word, in_site;
	uint32_t site_id, url_id;
	uint32_t w_sites, w_urls;
	uint64_t w_total;
	int failed;
	char why[160];
};

static int pw_fail(struct storage_part_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int pw_fail(struct storage_part_writer *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->failed) {
		va_start(ap, fmt);
		vsnprintf(w->why, sizeof(w->why), fmt, ap);
		va_end(ap);
	}
	w->failed = 1;
	return -1;
}

int storage_part_begin(const char *gen_dir, unsigned part, struct storage_part_writer **out,
		       struct buf *err)
{
	struct storage_part_writer *w;
	char *p;
	int rc = 0;

	*out = NULL;
	if (part >= STORAGE_PARTITIONS)
		return error_into(err, "partition %u out of range", part);
	w = xcalloc(1, sizeof(*w));
	w->part = part;
	w->ind.fd = w->sites.fd = w->urls.fd = -1;
	w->dir = xasprintf("%s/%02uw", gen_dir, part);
	if (mkdir(w->dir, 0755) < 0 && errno != EEXIST) {
		rc = error_into(err, "%s: cannot create: %s", w->dir, strerror(errno));
		goto out;
	}
	p = xasprintf("%s/ind", w->dir);
	rc = out_open(&w->ind, p, F_IND, part, err);
	free(p);
	if (rc)
		goto out;
	p = xasprintf("%s/sites", w->dir);
	rc = out_open(&w->sites, p, F_SITES, part, err);
	free(p);
	if (rc)
		goto out;
	p = xasprintf("%s/urls", w->dir);
	rc = out_open(&w->urls, p, F_URLS, part, err);
	free(p);
	if (rc)
		goto out;
	w->off_cap = 1024;
	w->off = xmalloc(w->off_cap * sizeof(*w->off));
	w->off[0] = 0;
out:
	if (rc) {
		storage_part_abort(w);
		return -1;
	}
	*out = w;
	return 0;
}

static void pw_end_word(struct storage_part_writer *w)
{
	unsigned char e[IND_ENTRY];
	struct ind_entry ie = { .sites_end = w->sites.size, .n_sites = w->w_sites,
				.n_urls = w->w_urls, .total = w->w_total };

	if (!w->in_word)
		return;
	ind_entry_pack(e, &ie);
	out_add(&w->ind, e, sizeof(e));
	w->ind.count++;
	w->in_word = w->in_site = false;
}

static void pw_end_site(struct storage_part_writer *w)
{
	unsigned char e[SITE_ENTRY];
	struct site_entry se = { .site_id = w->site_id, .urls_end = w->urls.size };

	if (!w->in_site)
		return;
	site_entry_pack(e, &se);
	out_add(&w->sites, e, sizeof(e));
	w->sites.count++;
	w->in_site = false;
}

int storage_part_word(struct storage_part_writer *w, const char *word, size_t len)
{
	if (w->failed)
		return -1;
	if (len < 1 || len > MAX_WORD_LEN)
		return pw_fail(w, "word of %zu bytes", len);
	if (w->in_site && w->url_id == 0)
		return pw_fail(w, "site %u without URLs", w->site_id);
	pw_end_site(w);
	pw_end_word(w);
	if (w->n_words >= UINT32_MAX / STORAGE_PARTITIONS - 1)
		return pw_fail(w, "too many words");
	if (w->n_words + 2 > w->off_cap) {
		w->off_cap *= 2;
		w->off = xrealloc(w->off, w->off_cap * sizeof(*w->off));
	}
	if (w->text_len + len > w->text_cap) {
		w->text_cap = w->text_cap ? 2 * w->text_cap : 65536;
		w->text = xrealloc(w->text, w->text_cap);
	}
	memcpy(w->text + w->text_len, word, len);
	w->text_len += len;
	if (w->text_len > UINT32_MAX)
		return pw_fail(w, "dictionary passes 4 GiB");
	w->off[++w->n_words] = (uint32_t)w->text_len;
	w->in_word = true;
	w->w_sites = w->w_urls = 0;
	w->w_total = 0;
	w->site_id = 0;
	return 0;
}

int storage_part_site(struct storage_part_writer *w, uint32_t site_id)
{
	if (w->failed)
		return -1;
	if (!w->in_word)
		return pw_fail(w, "site before any word");
	if (w->in_site && w->url_id == 0)
		return pw_fail(w, "site %u without URLs", w->site_id);
	if (w->w_sites && site_id <= w->site_id)
		return pw_fail(w, "site %u after site %u", site_id, w->site_id);
	pw_end_site(w);
	w->site_id = site_id;
	w->url_id = 0;
	w->in_site = true;
	w->w_sites++;
	return 0;
}

/* Whether every position fits the narrow u16 form (storage.h). */
static bool url_narrow(const uint32_t *pos, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (tok_pos_section(pos[i]) >= 4 || tok_pos_position(pos[i]) > 0x3fffu)
			return false;
	return true;
}

int storage_part_url(struct storage_part_writer *w, uint32_t url_id, const uint32_t *pos,
		     uint32_t n)
{
	unsigned char f[URL_FIXED];
	unsigned char pb[4 * 256];
	bool narrow;

	if (w->failed)
		return -1;
	if (!w->in_site)
		return pw_fail(w, "URL before any site");
	if (url_id == 0 || url_id <= w->url_id)
		return pw_fail(w, "url %u after url %u", url_id, w->url_id);
	if (n < 1 || n > STORAGE_MAX_URL_POSITIONS)
		return pw_fail(w, "url %u with %u positions", url_id, n);
	for (uint32_t i = 1; i < n; i++)
		if (pos[i] <= pos[i - 1])
			return pw_fail(w, "url %u: positions not ascending", url_id);
	narrow = url_narrow(pos, n);
	le_put32(f, url_id);
	le_put16(f + 4, (uint16_t)(n | (narrow ? 0 : STORAGE_URL_WIDE)));
	out_add(&w->urls, f, sizeof(f));
	for (uint32_t i = 0; i < n; ) {
		uint32_t k = 0;

		for (; k < 256 && i < n; i++, k++)
			if (narrow)
				le_put16(pb + 2 * k, (uint16_t)(tok_pos_section(pos[i]) << 14 |
								tok_pos_position(pos[i])));
			else
				le_put32(pb + 4 * k, pos[i]);
		out_add(&w->urls, pb, (narrow ? 2 : 4) * k);
	}
	w->urls.count++;
	w->url_id = url_id;
	w->w_urls++;
	w->w_total += n;
	return 0;
}

static struct storage_part_writer *sort_ctx;

static int cmp_dict(const void *a, const void *b)
{
	const struct storage_part_writer *w = sort_ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return storage_wordcmp((const unsigned char *)w->text + w->off[x], w->off[x + 1] - w->off[x],
		       (const unsigned char *)w->text + w->off[y], w->off[y + 1] - w->off[y]);
}

int storage_part_finish(struct storage_part_writer *w, struct buf *err)
{
	struct out words;
	uint32_t *order = NULL;
	unsigned char b[4];
	char *p;
	int rc = 0;

	if (w->in_site && w->url_id == 0)
		pw_fail(w, "site %u without URLs", w->site_id);
	pw_end_site(w);
	pw_end_word(w);
	out_flush(&w->ind);
	out_flush(&w->sites);
	out_flush(&w->urls);
	if (w->failed) {
		rc = error_into(err, "%s: %s", w->dir, w->why);
		goto out;
	}
	/* The dictionary: offsets by id, ids in byte order, the text. */
	p = xasprintf("%s/words", w->dir);
	rc = out_open(&words, p, F_WORDS, w->part, err);
	free(p);
	if (rc)
		goto out;
	words.count = w->n_words;
	for (size_t k = 0; k <= w->n_words; k++) {
		le_put32(b, w->off[k]);
		out_add(&words, b, 4);
	}
	order = xmalloc((w->n_words ? w->n_words : 1) * sizeof(*order));
	for (size_t k = 0; k < w->n_words; k++)
		order[k] = (uint32_t)k;
	/* qsort is not stable, but the words are unique (checked below). */
	sort_ctx = w;
	qsort(order, w->n_words, sizeof(*order), cmp_dict);
	sort_ctx = NULL;
	for (size_t k = 0; k < w->n_words; k++) {
		if (k) {
			uint32_t x = order[k - 1], y = order[k];
			if (!storage_wordcmp((const unsigned char *)w->text + w->off[x],
				     w->off[x + 1] - w->off[x],
				     (const unsigned char *)w->text + w->off[y],
				     w->off[y + 1] - w->off[y])) {
				out_abort(&words);
				rc = error_into(err, "%s: word '%.*s' twice in the dictionary",
				                w->dir, (int)(w->off[y + 1] - w->off[y]),
				                w->text + w->off[y]);
				goto out;
			}
		}
		le_put32(b, order[k]);
		out_add(&words, b, 4);
	}
	out_add(&words, w->text, w->text_len);
	rc = out_close(&words, err);
	if (!rc)
		rc = out_close(&w->ind, err);
	if (!rc)
		rc = out_close(&w->sites, err);
	if (!rc)
		rc = out_close(&w->urls, err);
	if (!rc && fsync_dir(w->dir) < 0)
		rc = error_into(err, "%s: fsync: %s", w->dir, strerror(errno));
out:
	free(order);
	storage_part_abort(w);
	return rc;
}

void storage_part_abort(struct storage_part_writer *w)
{
	if (!w)
		return;
	out_abort(&w->ind);
	out_abort(&w->sites);
	out_abort(&w->urls);
	free(w->dir);
	free(w->text);
	free(w->off);
	free(w);
}

/* ---- docinfo writer ------------------------------------------------------- */

struct storage_docinfo_writer {
	struct out o;
	char *dir;
	uint32_t next;            /* the url_id the next entry describes */
	uint64_t n_docs, sum[STORAGE_SECTIONS];
	int failed;
};

int storage_docinfo_begin(const char *gen_dir, struct storage_docinfo_writer **out,
			  struct buf *err)
{
	struct storage_docinfo_writer *w = xcalloc(1, sizeof(*w));
	char *p = xasprintf("%s/docinfo", gen_dir);
	unsigned char zero[DOC_ENTRY] = { 0 };

	*out = NULL;
	w->dir = xstrdup(gen_dir);
	if (out_open(&w->o, p, F_DOCINFO, NO_PART, err)) {
		free(p);
		free(w->dir);
		free(w);
		return -1;
	}
	free(p);
	out_add(&w->o, zero, sizeof(zero)); /* url_id 0 is never a URL */
	w->o.count = 1;
	w->next = 1;
	*out = w;
	return 0;
}

int storage_docinfo_put(struct storage_docinfo_writer *w, uint32_t url_id,
			const struct storage_doc *d)
{
	unsigned char e[DOC_ENTRY];

	if (w->failed)
		return -1;
	if (url_id < w->next || d->site_id == 0) {
		w->failed = 1;
		return error("docinfo: url %u out of order or without a site", url_id);
	}
	memset(e, 0, sizeof(e));
	while (w->next < url_id) {
		out_add(&w->o, e, sizeof(e));
		w->o.count++;
		w->next++;
	}
	le_put32(e, d->site_id);
	for (int s = 0; s < STORAGE_SECTIONS; s++) {
		le_put16(e + 4 + 2 * s, d->len[s]);
		w->sum[s] += d->len[s];
	}
	le_put64(e + 12, d->last_modified);
	out_add(&w->o, e, sizeof(e));
	w->o.count++;
	w->n_docs++;
	if (url_id == UINT32_MAX)
		w->failed = 1; /* nothing can follow */
	else
		w->next = url_id + 1;
	return 0;
}

int storage_docinfo_finish(struct storage_docinfo_writer *w, uint64_t *n_docs,
			   uint64_t sum_len[STORAGE_SECTIONS], uint32_t *max_url_id,
			   struct buf *err)
{
	int rc;

	*n_docs = w->n_docs;
	memcpy(sum_len, w->sum, sizeof(w->sum));
	*max_url_id = w->next - 1;
	rc = out_close(&w->o, err);
	if (!rc && fsync_dir(w->dir) < 0)
		rc = error_into(err, "%s: fsync: %s", w->dir, strerror(errno));
	free(w->dir);
	free(w);
	return rc;
}

void storage_docinfo_abort(struct storage_docinfo_writer *w)
{
	if (!w)
		return;
	out_abort(&w->o);
	free(w->dir);
	free(w);
}

/* ---- FORMAT ------------------------------------------------------------- */

int storage_format_write(const char *gen_dir, const struct storage_format *f, struct buf *err)
{
	char *tmp = xasprintf("%s/FORMAT.tmp", gen_dir), *path = xasprintf("%s/FORMAT", gen_dir);
	struct buf b = BUF_INIT(4096);
	int fd = -1, rc = 0;

	buf_printf(&b,
		   "%s %d\ngeneration %" PRIu64 "\npartitions %d\nwords %" PRIu64
		   "\nlive_words %" PRIu64 "\npostings %" PRIu64 "\ndocs %" PRIu64
		   "\nmax_url_id %" PRIu32 "\nsection_lengths %" PRIu64 " %" PRIu64 " %" PRIu64
		   " %" PRIu64 "\n",
		   FORMAT_MAGIC, STORAGE_FORMAT_VERSION, f->generation, STORAGE_PARTITIONS, f->words,
		   f->live_words, f->postings, f->n_docs, f->max_url_id, f->sum_len[0],
		   f->sum_len[1], f->sum_len[2], f->sum_len[3]);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, b.ptr, b.len) < 0 || fsync(fd) < 0) {
		rc = error_into(err, "%s: cannot write: %s", tmp, strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	if (rename(tmp, path) < 0 || fsync_dir(gen_dir) < 0)
		rc = error_into(err, "%s: cannot rename: %s", path, strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	buf_free(&b);
	free(tmp);
	free(path);
	return rc;
}

static int read_small(const char *path, char *out, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;
	size_t n = 0;

	if (fd < 0)
		return -1;
	while (n < cap && (k = read(fd, out + n, cap - n)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		n += (size_t)k;
	}
	close(fd);
	*len = n;
	return 0;
}

int storage_parse_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s++ - '0');
	}
	*p = s;
	*v = x;
	return 0;
}

/* "name value...\n": the next line must start with `name `. */
static int format_field(const char **p, const char *name, uint64_t *v, int n)
{
	size_t l = strlen(name);

	if (strncmp(*p, name, l) || (*p)[l] != ' ')
		return -1;
	*p += l + 1;
	for (int i = 0; i < n; i++) {
		if (i && *(*p)++ != ' ')
			return -1;
		if (storage_parse_u64(p, &v[i]))
			return -1;
	}
	if (*(*p)++ != '\n')
		return -1;
	return 0;
}

/* Why a generation of format version ver cannot be read by this build. */
static int format_refuse(const char *path, uint64_t ver, struct buf *err)
{
	if (ver >= STORAGE_FORMAT_OLDEST && ver < STORAGE_FORMAT_VERSION)
		return error_into(err,
		                  "%s: format version %" PRIu64 ", this mpseek reads %d: run a "
		                  "merge (`mpseek-index -D`), which converts the generation",
		                  path, ver, STORAGE_FORMAT_VERSION);
	return error_into(err,
	                  "%s: format version %" PRIu64 ", this mpseek reads %d (and converts "
	                  "%d): written by another mpseek; rebuild the index with this one",
	                  path, ver, STORAGE_FORMAT_VERSION, STORAGE_FORMAT_OLDEST);
}

int storage_format_read(const char *gen_dir, struct storage_format *f, struct buf *err)
{
	return storage_format_read_from(gen_dir, STORAGE_FORMAT_VERSION, f, err);
}

int storage_format_read_from(const char *gen_dir, uint32_t oldest, struct storage_format *f,
			     struct buf *err)
{
	char *path = xasprintf("%s/FORMAT", gen_dir);
	char text[1024];
	const char *p = text;
	size_t len;
	uint64_t ver, parts, mx;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	if (read_small(path, text, sizeof(text) - 1, &len)) {
		rc = error_into(err, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	text[len] = '\0';
	if (strlen(text) != len || format_field(&p, FORMAT_MAGIC, &ver, 1)) {
		rc = error_into(err, "%s: not a CompactStorage FORMAT file", path);
		goto out;
	}
	if (ver < oldest || ver < STORAGE_FORMAT_OLDEST || ver > STORAGE_FORMAT_VERSION) {
		rc = format_refuse(path, ver, err);
		goto out;
	}
	f->version = (uint32_t)ver;
	if (format_field(&p, "generation", &f->generation, 1) ||
	    format_field(&p, "partitions", &parts, 1) || parts != STORAGE_PARTITIONS ||
	    format_field(&p, "words", &f->words, 1) ||
	    format_field(&p, "live_words", &f->live_words, 1) ||
	    format_field(&p, "postings", &f->postings, 1) ||
	    format_field(&p, "docs", &f->n_docs, 1) || format_field(&p, "max_url_id", &mx, 1) ||
	    mx > UINT32_MAX ||
	    format_field(&p, "section_lengths", f->sum_len, STORAGE_SECTIONS) || *p ||
	    f->live_words > f->words || f->n_docs > mx) {
		rc = error_into(err, "%s: malformed at byte %zu", path, (size_t)(p - text));
		goto out;
	}
	f->max_url_id = (uint32_t)mx;
out:
	free(path);
	return rc;
}

/* ---- mapping files -------------------------------------------------------- */

void storage_map_free(struct map *m)
{
	if (m->base)
		munmap((void *)m->base, m->size);
	memset(m, 0, sizeof(*m));
}

static void map_release(struct map *m)
{
	if (m->base)
		madvise((void *)m->base, m->size, MADV_DONTNEED);
}

int storage_map_file(const char *path, enum ftype type, uint32_t part, uint32_t version,
		     struct map *m, struct buf *err)
{
	struct stat st;
	int fd;
	void *p;
	const unsigned char *h;

	memset(m, 0, sizeof(*m));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error_into(err, "%s: cannot open: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return error_into(err, "%s: cannot stat: %s", path, strerror(errno));
	}
	if (st.st_size < HDR) {
		close(fd);
		return error_into(err,
		                  "%s: offset 0: file of %lld bytes is shorter than its header",
		                  path, (long long)st.st_size);
	}
	if ((uint64_t)st.st_size > SIZE_MAX / 2) {
		close(fd);
		return error_into(err, "%s: too large", path);
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return error_into(err, "%s: cannot map: %s", path, strerror(errno));
	m->base = p;
	m->size = (size_t)st.st_size;
	h = m->base;
	if (memcmp(h, MAGIC[type], 8)) {
		storage_map_free(m);
		return error_into(err, "%s: offset 0: bad magic (not a CompactStorage %s file)",
		                  path, storage_fname[type]);
	}
	if (le_get32(h + 28) != binfile_crc(h, 28)) {
		storage_map_free(m);
		return error_into(err, "%s: offset 28: header crc mismatch", path);
	}
	if (le_get32(h + 8) != version) {
		uint32_t v = le_get32(h + 8);
		storage_map_free(m);
		return error_into(err, "%s: offset 8: format version %u, the generation's is %u",
		                  path, v, version);
	}
	if (le_get32(h + 12) != part) {
		uint32_t v = le_get32(h + 12);
		storage_map_free(m);
		return error_into(err, "%s: offset 12: partition %u, expected %u", path, v, part);
	}
	m->count = le_get64(h + 16);
	m->crc = le_get32(h + 24);
	m->version = version;
	m->data = m->base + HDR;
	m->len = m->size - HDR;
	return 0;
}

/* ---- reader --------------------------------------------------------------- */

struct storage {
	char *dir;
	struct storage_format f;
	struct part part[STORAGE_PARTITIONS];
	struct map doc;
	unsigned long *faults;  /* read errors seen (atomic; the handle is const to readers) */
};

int storage_shape_part(const char *path_dir, struct part *p, struct buf *err)
{
	uint64_t n = p->ind.count;

	p->ind_entry = ind_entry_size(p->version);
	p->site_entry = site_entry_size(p->version);
	if (p->ind.len % p->ind_entry || p->ind.len / p->ind_entry != n)
		return error_into(err,
		                  "%s/ind: offset 16: %" PRIu64 " entries do not fill %zu bytes",
		                  path_dir, n, p->ind.len);
	if (p->words.count != n)
		return error_into(err, "%s/words: offset 16: %" PRIu64 " words, ind has %" PRIu64,
		                  path_dir, p->words.count, n);
	if (n > (UINT32_MAX - 99) / STORAGE_PARTITIONS)
		return error_into(err, "%s/words: offset 16: %" PRIu64 " words is too many",
		                  path_dir, n);
	if (p->sites.len % p->site_entry || p->sites.len / p->site_entry != p->sites.count)
		return error_into(err,
		                  "%s/sites: offset 16: %" PRIu64 " entries do not fill %zu bytes",
		                  path_dir, p->sites.count, p->sites.len);
	if (p->words.len < 4 * (2 * n + 1))
		return error_into(err,
		                  "%s/words: offset %d: %" PRIu64 " words need %" PRIu64
		                  " bytes of tables, the file has %zu",
		                  path_dir, HDR, n, 4 * (2 * n + 1), p->words.len);
	p->n = (uint32_t)n;
	p->offs = p->words.data;
	p->sorted = p->words.data + 4 * (n + 1);
	p->text = p->sorted + 4 * n;
	p->text_len = p->words.len - 4 * (2 * n + 1);
	if (le_get32(p->offs) != 0 || le_get32(p->offs + 4 * n) != p->text_len)
		return error_into(
		    err, "%s/words: offset %d: text offsets do not span the text (%zu bytes)",
		    path_dir, HDR, p->text_len);
	return 0;
}

static int open_part(const char *gen_dir, unsigned k, uint32_t version, struct part *p,
		     struct buf *err)
{
	char *d = xasprintf("%s/%02uw", gen_dir, k), *path;
	struct map *m[4] = { &p->ind, &p->sites, &p->urls, &p->words };
	enum ftype t[4] = { F_IND, F_SITES, F_URLS, F_WORDS };
	int rc = 0;

	p->version = version;
	for (int i = 0; i < 4 && !rc; i++) {
		path = xasprintf("%s/%s", d, storage_fname[t[i]]);
		rc = storage_map_file(path, t[i], k, version, m[i], err);
		free(path);
	}
	if (!rc)
		rc = storage_shape_part(d, p, err);
	/* Opening touched a page or two of each file, and the kernel maps up to
	 * 64 KiB of cached pages around each touch: 400 files of a generation
	 * just written would count ~25 MB in the resident set at once. */
	for (int i = 0; i < 4; i++)
		map_release(m[i]);
	free(d);
	return rc;
}

/* Open gen_dir if its format version is oldest or newer. */
static int open_gen(const char *gen_dir, uint32_t oldest, struct storage **out, struct buf *err)
{
	struct storage *s = xcalloc(1, sizeof(*s));
	char *path;
	int rc;

	*out = NULL;
	s->dir = xstrdup(gen_dir);
	s->faults = xcalloc(1, sizeof(*s->faults));
	rc = storage_format_read_from(gen_dir, oldest, &s->f, err);
	for (unsigned k = 0; k < STORAGE_PARTITIONS && !rc; k++)
		rc = open_part(gen_dir, k, s->f.version, &s->part[k], err);
	if (!rc) {
		path = xasprintf("%s/docinfo", gen_dir);
		rc = storage_map_file(path, F_DOCINFO, NO_PART, s->f.version, &s->doc, err);
		if (!rc && (s->doc.len % DOC_ENTRY || s->doc.len / DOC_ENTRY != s->doc.count ||
			    s->doc.count != (uint64_t)s->f.max_url_id + 1))
			rc = error_into(err,
			                "%s: offset 16: %" PRIu64 " entries do not fill %zu bytes "
			                "or disagree with FORMAT max_url_id %u",
			                path, s->doc.count, s->doc.len, s->f.max_url_id);
		free(path);
	}
	if (rc) {
		storage_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

int storage_open_dir(const char *gen_dir, struct storage **out, struct buf *err)
{
	return open_gen(gen_dir, STORAGE_FORMAT_VERSION, out, err);
}

int storage_open_old(const char *gen_dir, struct storage **out, struct buf *err)
{
	return open_gen(gen_dir, STORAGE_FORMAT_OLDEST, out, err);
}

int storage_open_docinfo(const char *gen_dir, struct storage **out, struct buf *err)
{
	struct storage *s = xcalloc(1, sizeof(*s));
	char *path = xasprintf("%s/docinfo", gen_dir);
	int rc;

	*out = NULL;
	s->dir = xstrdup(gen_dir);
	s->faults = xcalloc(1, sizeof(*s->faults));
	s->f.version = STORAGE_FORMAT_VERSION;
	rc = storage_map_file(path, F_DOCINFO, NO_PART, s->f.version, &s->doc, err);
	if (!rc && (s->doc.len % DOC_ENTRY || s->doc.len / DOC_ENTRY != s->doc.count))
		rc = error_into(err, "%s: offset 16: %" PRIu64 " entries do not fill %zu bytes",
		                path, s->doc.count, s->doc.len);
	free(path);
	if (rc) {
		storage_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

int storage_open(const char *data_dir, struct storage **out, struct buf *err)
{
	uint64_t gen;
	char *dir;
	int k, rc;

	*out = NULL;
	k = storage_current(data_dir, &gen, err);
	if (k < 0)
		return -1;
	if (k == 0)
		return error_into(err, "%s/index: no index generation yet (run a merge)", data_dir);
	dir = storage_gen_path(data_dir, gen);
	rc = storage_open_dir(dir, out, err);
	free(dir);
	return rc;
}

/* fn on every mapping of s. */
static void each_map(struct storage *s, void (*fn)(struct map *m))
{
	for (unsigned k = 0; k < STORAGE_PARTITIONS; k++) {
		fn(&s->part[k].ind);
		fn(&s->part[k].sites);
		fn(&s->part[k].urls);
		fn(&s->part[k].words);
	}
	fn(&s->doc);
}

void storage_close(struct storage *s)
{
	if (!s)
		return;
	each_map(s, storage_map_free);
	free(s->faults);
	free(s->dir);
	free(s);
}

/* ---- read errors: which file, which offset -------------------------------- *
 * Every file was checked when the generation was opened, so a bound check
 * failing later means its bytes changed under the mapping (or a bug): say
 * where, so that searchd's log names it (doc/SEARCHD.md, "Damage"). */

#define FAULTS_LOGGED 5 /* per open generation: the first ones locate the damage */

static void fault(const struct storage *s, const void *at, const char *what)
{
	const unsigned char *p = at;
	unsigned long n = __atomic_add_fetch(s->faults, 1, __ATOMIC_RELAXED);
	char file[16] = "?";
	size_t off = 0;

	if (n > FAULTS_LOGGED)
		return;
	for (unsigned k = 0; k < STORAGE_PARTITIONS; k++) {
		const struct map *m[4] = { &s->part[k].ind, &s->part[k].sites, &s->part[k].urls,
					   &s->part[k].words };
		static const enum ftype ty[4] = { F_IND, F_SITES, F_URLS, F_WORDS };

		for (int i = 0; i < 4; i++)
			if (m[i]->base && p >= m[i]->base && p < m[i]->base + m[i]->size) {
				snprintf(file, sizeof(file), "%02uw/%s", k, storage_fname[ty[i]]);
				off = (size_t)(p - m[i]->base);
			}
	}
	error("%s/%s: offset %zu: %s: the index is damaged%s", s->dir, file, off, what,
	      n == FAULTS_LOGGED ? " (further read errors not logged)" : "");
}

unsigned long storage_faults(const struct storage *s)
{
	return __atomic_load_n(s->faults, __ATOMIC_RELAXED);
}

uint64_t storage_generation(const struct storage *s) { return s->f.generation; }
uint32_t storage_version(const struct storage *s) { return s->f.version; }
const char *storage_dir(const struct storage *s) { return s->dir; }
uint64_t storage_n_docs(const struct storage *s) { return s->f.n_docs; }
uint32_t storage_max_url_id(const struct storage *s) { return s->f.max_url_id; }
uint64_t storage_docinfo_slots(const struct storage *s) { return s->doc.count; }

double storage_avg_len(const struct storage *s, int section)
{
	if (section < 0 || section >= STORAGE_SECTIONS || !s->f.n_docs)
		return 0;
	return (double)s->f.sum_len[section] / (double)s->f.n_docs;
}

uint32_t storage_part_words(const struct storage *s, unsigned part)
{
	return part < STORAGE_PARTITIONS ? s->part[part].n : 0;
}

int storage_dict_word(const struct part *p, uint32_t k, const unsigned char **w, size_t *len)
{
	uint32_t a, b;

	if (k >= p->n)
		return -1;
	a = le_get32(p->offs + 4 * (size_t)k);
	b = le_get32(p->offs + 4 * (size_t)k + 4);
	if (a > b || b > p->text_len || b - a < 1 || b - a > MAX_WORD_LEN)
		return -1;
	*w = p->text + a;
	*len = b - a;
	return 0;
}

const char *storage_word_text(const struct storage *s, uint32_t word_id, size_t *len)
{
	const unsigned char *w;

	if (storage_dict_word(&s->part[word_id % STORAGE_PARTITIONS], word_id / STORAGE_PARTITIONS, &w,
		      len))
		return NULL;
	return (const char *)w;
}

unsigned storage_partition(const char *word, size_t len)
{
	return fnv1a32(word, len) % STORAGE_PARTITIONS;
}

/* Word id of partition p whose dictionary entry is damaged, reported. */
static int dict_fault(const struct storage *s, const struct part *p, uint32_t id)
{
	fault(s, id < p->n ? p->offs + 4 * (size_t)id : p->words.base + 8,
	      "a word's text offsets are out of range");
	return -1;
}

/* Index in `sorted` of the first word >= (word, len): *at; -1 on damage
 * (reported). */
static int dict_lower(const struct storage *s, const struct part *p, const unsigned char *word,
		      size_t len, uint32_t *at)
{
	uint32_t lo = 0, hi = p->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2, id = le_get32(p->sorted + 4 * (size_t)mid);
		const unsigned char *w;
		size_t wl;

		if (storage_dict_word(p, id, &w, &wl)) {
			if (id >= p->n)
				fault(s, p->sorted + 4 * (size_t)mid, "a sorted word id is out of range");
			return id >= p->n ? -1 : dict_fault(s, p, id);
		}
		if (storage_wordcmp(w, wl, word, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return 0;
}

int storage_word_id(const struct storage *s, const char *word, size_t len, uint32_t *word_id)
{
	unsigned k;
	const struct part *p;
	const unsigned char *w;
	size_t wl;
	uint32_t at, id;

	if (len < 1 || len > MAX_WORD_LEN)
		return 0;
	k = storage_partition(word, len);
	p = &s->part[k];
	if (dict_lower(s, p, (const unsigned char *)word, len, &at))
		return -1;
	if (at >= p->n)
		return 0;
	id = le_get32(p->sorted + 4 * (size_t)at);
	if (storage_dict_word(p, id, &w, &wl))
		return dict_fault(s, p, id);
	if (storage_wordcmp(w, wl, (const unsigned char *)word, len))
		return 0;
	*word_id = id * STORAGE_PARTITIONS + k;
	return 1;
}

/* The ind entry k of p and its sites range start..end; -1 on damage. */
static int ind_entry(const struct part *p, uint32_t k, uint64_t *start, struct storage_word *w,
		     uint64_t *end)
{
	const unsigned char *e;
	struct ind_entry ie, prev = { 0 };

	if (k >= p->n)
		return -1;
	e = p->ind.data + (size_t)k * p->ind_entry;
	if (k)
		ind_entry_unpack(e - p->ind_entry, p->version, &prev);
	ind_entry_unpack(e, p->version, &ie);
	*start = prev.sites_end;
	*end = ie.sites_end;
	w->n_sites = ie.n_sites;
	w->n_urls = ie.n_urls;
	w->total = ie.total;
	if (*start > *end || *end > p->sites.len || (*end - *start) % p->site_entry ||
	    (*end - *start) / p->site_entry != w->n_sites)
		return -1;
	return 0;
}

int storage_word_info(const struct storage *s, uint32_t word_id, struct storage_word *w)
{
	const struct part *p = &s->part[word_id % STORAGE_PARTITIONS];
	uint32_t k = word_id / STORAGE_PARTITIONS;
	uint64_t a, b;

	if (k >= p->n)
		return 0;
	if (ind_entry(p, k, &a, w, &b)) {
		fault(s, p->ind.data + (size_t)k * p->ind_entry, "a word's sites range is out of bounds");
		return -1;
	}
	w->word_id = word_id;
	return 1;
}

int storage_word(const struct storage *s, const char *word, size_t len, struct storage_word *w)
{
	uint32_t id;
	int k = storage_word_id(s, word, len, &id);

	if (k <= 0)
		return k;
	k = storage_word_info(s, id, w);
	if (k <= 0)
		return k < 0 ? -1 : 0;
	return w->n_urls ? 1 : 0;
}

long storage_words_prefix(const struct storage *s, const char *prefix, size_t len, size_t max,
			  int (*cb)(void *arg, const char *word, size_t len,
				    const struct storage_word *w),
			  void *arg)
{
	long passed = 0;

	if (len > MAX_WORD_LEN)
		return 0;
	for (unsigned k = 0; k < STORAGE_PARTITIONS; k++) {
		const struct part *p = &s->part[k];
		uint32_t at;

		if (dict_lower(s, p, (const unsigned char *)prefix, len, &at))
			return -1;
		for (; at < p->n; at++) {
			uint32_t id = le_get32(p->sorted + 4 * (size_t)at);
			const unsigned char *w;
			size_t wl;
			struct storage_word sw;
			int r;

			if (storage_dict_word(p, id, &w, &wl))
				return dict_fault(s, p, id);
			if (wl < len || memcmp(w, prefix, len))
				break;
			r = storage_word_info(s, id * STORAGE_PARTITIONS + k, &sw);
			if (r < 0)
				return -1;
			if (!sw.n_urls)
				continue;
			if ((size_t)passed >= max)
				return passed;
			passed++;
			if (cb(arg, (const char *)w, wl, &sw))
				return passed;
		}
	}
	return passed;
}

int storage_postings(const struct storage *s, uint32_t word_id, struct storage_cursor *c)
{
	const struct part *p = &s->part[word_id % STORAGE_PARTITIONS];
	uint32_t k = word_id / STORAGE_PARTITIONS;
	uint64_t a, b;
	struct storage_word w;

	c->s = s;
	c->err = 0;
	c->sites = c->sites_end = NULL;
	c->urls = c->urls_end = c->urls_site = NULL;
	c->site_id = 0;
	if (k >= p->n)
		return 0;
	if (ind_entry(p, k, &a, &w, &b)) {
		fault(s, p->ind.data + (size_t)k * p->ind_entry, "a word's sites range is out of bounds");
		c->err = 1;
		return -1;
	}
	if (a == b)
		return 0;
	c->sites = p->sites.data + a;
	c->sites_end = p->sites.data + b;
	c->sites_base = p->sites.data;
	c->version = p->version;
	c->site_entry = p->site_entry;
	c->urls_base = p->urls.data;
	c->urls_size = p->urls.len;
	return 1;
}

const unsigned char *storage_gallop(const unsigned char *e, const unsigned char *end,
				    size_t size, uint32_t key)
{
	size_t n = (size_t)(end - e) / size, lo = 0, hi = 1;

	/* The answer is in (lo, hi]: entry lo is below key, hi is not (or
	 * is past the end). */
	if (!n)
		return end;
	if (le_get32(e) >= key)
		return e;
	while (hi < n && le_get32(e + hi * size) < key) {
		lo = hi;
		hi = 2 * hi < n ? 2 * hi : n;
	}
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (le_get32(e + mid * size) < key)
			lo = mid;
		else
			hi = mid;
	}
	return hi == n ? end : e + hi * size;
}

void storage_seek_site(struct storage_cursor *c, uint32_t site_id)
{
	if (c->sites && c->sites < c->sites_end)
		c->sites = storage_gallop(c->sites, c->sites_end, c->site_entry, site_id);
}

int storage_next_site(struct storage_cursor *c, uint32_t *site_id)
{
	uint64_t start, end;

	if (c->err)
		return -1;
	if (!c->sites || c->sites >= c->sites_end)
		return 0;
	/* The URL range of a site starts where the previous sites entry of the
	 * partition ends (0 for the first entry of the file). */
	start = c->sites > c->sites_base ? site_urls_end(c->sites - c->site_entry, c->version) : 0;
	*site_id = le_get32(c->sites);
	end = site_urls_end(c->sites, c->version);
	if (start > end || end > c->urls_size || end - start < URL_FIXED) {
		fault(c->s, c->sites, "a site's URL range is out of bounds");
		c->err = 1;
		return -1;
	}
	c->site_id = *site_id;
	c->urls = c->urls_site = c->urls_base + start;
	c->urls_end = c->urls_base + end;
	c->sites += c->site_entry;
	return 1;
}

/* The size of the URL record at c->urls and its count and width, or 0 when
 * it does not fit the site's range. */
static size_t url_rec_size(const struct storage_cursor *c, uint32_t *n, unsigned *width)
{
	size_t left = (size_t)(c->urls_end - c->urls);

	if (left < URL_FIXED)
		return 0;
	*n = url_rec_count(le_get16(c->urls + 4), c->version, width);
	if (*n == 0 || left - URL_FIXED < (size_t)*width * *n)
		return 0;
	return URL_FIXED + (size_t)*width * *n;
}

int storage_next_url(struct storage_cursor *c, uint32_t *url_id, uint32_t *n_pos)
{
	const uint8_t *p;
	uint32_t n;
	unsigned width;
	size_t size;

	if (c->err)
		return -1;
	if (!c->urls || c->urls >= c->urls_end)
		return 0;
	if (!(size = url_rec_size(c, &n, &width)))
		goto bad;
	*url_id = le_get32(c->urls);
	p = c->urls + URL_FIXED;
	if (width == 4) {
		for (uint32_t i = 0; i < n; i++)
			c->pos[i] = le_get32(p + 4 * i);
	} else {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t v = le_get16(p + 2 * i);

			c->pos[i] = tok_pos_encode((int)(v >> 14), v & 0x3fffu);
		}
	}
	*n_pos = n;
	c->urls += size;
	return 1;
bad:
	fault(c->s, c->urls, "a URL record overruns its site");
	c->err = 1;
	return -1;
}

int storage_seek_url(struct storage_cursor *c, uint32_t target, uint32_t *url_id,
		     uint32_t *n_pos)
{
	int r;

	/* Skip records by their headers without decoding positions. */
	while (c->urls && c->urls < c->urls_end) {
		uint32_t n;
		unsigned width;
		size_t size = url_rec_size(c, &n, &width);

		if (!size) {
			fault(c->s, c->urls, "a URL record overruns its site");
			c->err = 1;
			return -1;
		}
		if (le_get32(c->urls) >= target)
			break;
		c->urls += size;
	}
	r = storage_next_url(c, url_id, n_pos);
	return r;
}

int storage_skip_url(struct storage_cursor *c, uint32_t target, uint32_t *url_id,
		     uint32_t *n_pos, const uint8_t **pos)
{
	if (c->version != STORAGE_FORMAT_VERSION && !c->err) {
		fault(c->s, c->urls, "raw URL records of an older format version");
		c->err = 1;
	}
	while (c->urls && c->urls < c->urls_end && !c->err) {
		uint32_t id, n;
		unsigned width;
		size_t size = url_rec_size(c, &n, &width);

		if (!size)
			break;
		id = le_get32(c->urls);
		c->urls += size;
		if (id >= target) {
			*url_id = id;
			*n_pos = n;
			*pos = c->urls - (size_t)width * n;
			return 1;
		}
	}
	if (c->err || (c->urls && c->urls < c->urls_end)) {
		if (!c->err)
			fault(c->s, c->urls, "a URL record overruns its site");
		c->err = 1;
		return -1;
	}
	return 0;
}

int storage_jump(struct storage_cursor *c, uint64_t off)
{
	if (c->err)
		return -1;
	if (!c->urls_site || off >= (uint64_t)(c->urls_end - c->urls_site)) {
		fault(c->s, c->urls_site ? c->urls_site : c->sites,
		      "a block's offset is outside its site's records");
		c->err = 1;
		return -1;
	}
	c->urls = c->urls_site + off;
	return 0;
}

int storage_doc(const struct storage *s, uint32_t url_id, struct storage_doc *d)
{
	const unsigned char *e;

	if ((uint64_t)url_id >= s->doc.count)
		return 0;
	e = s->doc.data + (size_t)url_id * DOC_ENTRY;
	d->site_id = le_get32(e);
	if (!d->site_id)
		return 0;
	for (int k = 0; k < STORAGE_SECTIONS; k++)
		d->len[k] = le_get16(e + 4 + 2 * k);
	d->last_modified = le_get64(e + 12);
	return 1;
}

void storage_doc_prefetch(const struct storage *s, uint32_t url_id)
{
	if ((uint64_t)url_id < s->doc.count)
		__builtin_prefetch(s->doc.data + (size_t)url_id * DOC_ENTRY);
}

/* --- urlstates: bounded merge memory --- */

/* The mappings are not changed, only their pages dropped. */
void storage_release_part(const struct storage *s, unsigned part)
{
	struct part *p;

	if (!s || part >= STORAGE_PARTITIONS)
		return;
	p = (struct part *)&s->part[part];
	map_release(&p->ind);
	map_release(&p->sites);
	map_release(&p->urls);
	map_release(&p->words);
}

void storage_release_docinfo(const struct storage *s)
{
	if (s)
		map_release((struct map *)&s->doc);
}
