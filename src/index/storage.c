/* storage.c - the CompactStorage index declared in storage.h: generations,
 * the partition and docinfo writers, the mmap reader and the checker.
 *
 * Every byte of DataDir/index/ goes through here; it knows neither the
 * database nor the delta log nor MPI.  Layout: doc/FORMATS.md,
 * "CompactStorage".
 */
#include "config.h"

#include <dirent.h>
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
#include "charset.h"
#include "le.h"
#include "log.h"
#include "storage.h"
#include "util.h"

/* Common file header: magic[8], version u32, partition u32, count u64,
 * crc32 of the data after the header u32, crc32 of bytes 0..27 u32. */
#define HDR 32
#define IND_ENTRY 16  /* sites end u32, site count u32, URL count u32, total u32 */
#define SITE_ENTRY 8  /* site_id u32, urls end u32 */
#define URL_FIXED 6   /* url_id u32, count u16, then count x position u16 */
#define DOC_ENTRY 20  /* site_id u32, len[4] u16, last_modified u64 */
#define NO_PART 0xffffffffu
#define FORMAT_MAGIC "mpseek-compactstorage"

_Static_assert(HDR == 8 + 4 + 4 + 8 + 4 + 4, "header layout");
_Static_assert(IND_ENTRY == 4 * 4, "ind entry layout");
_Static_assert(SITE_ENTRY == 4 + 4, "sites entry layout");
_Static_assert(URL_FIXED == 4 + 2, "urls record layout");
_Static_assert(DOC_ENTRY == 4 + 2 * STORAGE_SECTIONS + 8, "docinfo entry layout");
_Static_assert(STORAGE_PARTITIONS == 100, "ASPseek's 00w..99w");
_Static_assert(MAX_WORD_LEN <= 255, "word lengths fit the dictionary checks");
_Static_assert(sizeof(((struct storage_cursor *)0)->pos) / sizeof(uint16_t) >= 65535,
	       "a cursor holds the most positions a URL record can have");

enum ftype { F_IND, F_SITES, F_URLS, F_WORDS, F_DOCINFO, F_TYPES };
static const char *const FNAME[F_TYPES] = { "ind", "sites", "urls", "words", "docinfo" };
static const char MAGIC[F_TYPES][9] = { "MPSIND\0\1", "MPSSIT\0\1", "MPSURL\0\1", "MPSWRD\0\1",
					 "MPSDOC\0\1" };

/* Little-endian packing: le.h. */

static int parse_gen_name(const char *name, bool tmp, uint64_t *gen);

static int wordcmp(const unsigned char *a, size_t al, const unsigned char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}



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

static void hdr_pack(unsigned char *h, enum ftype type, uint32_t part, uint64_t count,
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
	hdr_pack(h, o->type, o->part, o->count, o->crc);
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

	if (!w->in_word)
		return;
	if (w->sites.size > UINT32_MAX || w->w_total > UINT32_MAX)
		pw_fail(w, "partition %02u: a file passes 4 GiB or a count 2^32 (format 1)", w->part);
	le_put32(e, (uint32_t)w->sites.size);
	le_put32(e + 4, w->w_sites);
	le_put32(e + 8, w->w_urls);
	le_put32(e + 12, (uint32_t)w->w_total);
	out_add(&w->ind, e, sizeof(e));
	w->ind.count++;
	w->in_word = w->in_site = false;
}

static void pw_end_site(struct storage_part_writer *w)
{
	unsigned char e[SITE_ENTRY];

	if (!w->in_site)
		return;
	if (w->urls.size > UINT32_MAX)
		pw_fail(w, "partition %02u: urls passes 4 GiB (format 1)", w->part);
	le_put32(e, w->site_id);
	le_put32(e + 4, (uint32_t)w->urls.size);
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

int storage_part_url(struct storage_part_writer *w, uint32_t url_id, const uint16_t *pos,
		     uint32_t n)
{
	unsigned char f[URL_FIXED];
	unsigned char pb[2 * 256];

	if (w->failed)
		return -1;
	if (!w->in_site)
		return pw_fail(w, "URL before any site");
	if (url_id == 0 || url_id <= w->url_id)
		return pw_fail(w, "url %u after url %u", url_id, w->url_id);
	if (n < 1 || n > 65535)
		return pw_fail(w, "url %u with %u positions", url_id, n);
	for (uint32_t i = 1; i < n; i++)
		if (pos[i] <= pos[i - 1])
			return pw_fail(w, "url %u: positions not ascending", url_id);
	le_put32(f, url_id);
	le_put16(f + 4, (uint16_t)n);
	out_add(&w->urls, f, sizeof(f));
	for (uint32_t i = 0; i < n; ) {
		uint32_t k = 0;
		while (k < 256 && i < n)
			le_put16(pb + 2 * k++, pos[i++]);
		out_add(&w->urls, pb, 2 * k);
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

	return wordcmp((const unsigned char *)w->text + w->off[x], w->off[x + 1] - w->off[x],
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
			if (!wordcmp((const unsigned char *)w->text + w->off[x],
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

static int parse_u64(const char **p, uint64_t *v)
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
		if (parse_u64(p, &v[i]))
			return -1;
	}
	if (*(*p)++ != '\n')
		return -1;
	return 0;
}

int storage_format_read(const char *gen_dir, struct storage_format *f, struct buf *err)
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
	if (ver != STORAGE_FORMAT_VERSION) {
		rc = error_into(err, "%s: format version %" PRIu64 " (this build reads %d)", path,
		                ver, STORAGE_FORMAT_VERSION);
		goto out;
	}
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

struct map {
	const unsigned char *base; /* whole file */
	size_t size;
	const unsigned char *data; /* after the header */
	size_t len;
	uint64_t count;
	uint32_t crc;
};

static void map_free(struct map *m)
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

/* Map a file and check its header.  Returns 0, or -1 with "path: why". */
static int map_file(const char *path, enum ftype type, uint32_t part, struct map *m,
		    struct buf *err)
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
		map_free(m);
		return error_into(err, "%s: offset 0: bad magic (not a CompactStorage %s file)",
		                  path, FNAME[type]);
	}
	if (le_get32(h + 28) != binfile_crc(h, 28)) {
		map_free(m);
		return error_into(err, "%s: offset 28: header crc mismatch", path);
	}
	if (le_get32(h + 8) != STORAGE_FORMAT_VERSION) {
		uint32_t v = le_get32(h + 8);
		map_free(m);
		return error_into(err, "%s: offset 8: format version %u (this build reads %d)",
		                  path, v, STORAGE_FORMAT_VERSION);
	}
	if (le_get32(h + 12) != part) {
		uint32_t v = le_get32(h + 12);
		map_free(m);
		return error_into(err, "%s: offset 12: partition %u, expected %u", path, v, part);
	}
	m->count = le_get64(h + 16);
	m->crc = le_get32(h + 24);
	m->data = m->base + HDR;
	m->len = m->size - HDR;
	return 0;
}

/* ---- reader --------------------------------------------------------------- */

struct part {
	struct map ind, sites, urls, words;
	uint32_t n;                    /* words */
	const unsigned char *offs;     /* (n+1) x u32 */
	const unsigned char *sorted;   /* n x u32 */
	const unsigned char *text;
	size_t text_len;
};

struct storage {
	char *dir;
	struct storage_format f;
	struct part part[STORAGE_PARTITIONS];
	struct map doc;
};

/* Size and count checks that make every later bound check meaningful. */
static int part_shape(const char *path_dir, struct part *p, struct buf *err)
{
	uint64_t n = p->ind.count;

	if (p->ind.len % IND_ENTRY || p->ind.len / IND_ENTRY != n)
		return error_into(err,
		                  "%s/ind: offset 16: %" PRIu64 " entries do not fill %zu bytes",
		                  path_dir, n, p->ind.len);
	if (p->words.count != n)
		return error_into(err, "%s/words: offset 16: %" PRIu64 " words, ind has %" PRIu64,
		                  path_dir, p->words.count, n);
	if (n > (UINT32_MAX - 99) / STORAGE_PARTITIONS)
		return error_into(err, "%s/words: offset 16: %" PRIu64 " words is too many",
		                  path_dir, n);
	if (p->sites.len % SITE_ENTRY || p->sites.len / SITE_ENTRY != p->sites.count)
		return error_into(err,
		                  "%s/sites: offset 16: %" PRIu64 " entries do not fill %zu bytes",
		                  path_dir, p->sites.count, p->sites.len);
	if (p->sites.len > UINT32_MAX || p->urls.len > UINT32_MAX)
		return error_into(err, "%s: a file passes 4 GiB", path_dir);
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

static int open_part(const char *gen_dir, unsigned k, struct part *p, struct buf *err)
{
	char *d = xasprintf("%s/%02uw", gen_dir, k), *path;
	struct map *m[4] = { &p->ind, &p->sites, &p->urls, &p->words };
	enum ftype t[4] = { F_IND, F_SITES, F_URLS, F_WORDS };
	int rc = 0;

	for (int i = 0; i < 4 && !rc; i++) {
		path = xasprintf("%s/%s", d, FNAME[t[i]]);
		rc = map_file(path, t[i], k, m[i], err);
		free(path);
	}
	if (!rc)
		rc = part_shape(d, p, err);
	/* Opening touched a page or two of each file, and the kernel maps up to
	 * 64 KiB of cached pages around each touch: 400 files of a generation
	 * just written would count ~25 MB in the resident set at once. */
	for (int i = 0; i < 4; i++)
		map_release(m[i]);
	free(d);
	return rc;
}

int storage_open_dir(const char *gen_dir, struct storage **out, struct buf *err)
{
	struct storage *s = xcalloc(1, sizeof(*s));
	char *path;
	int rc;

	*out = NULL;
	s->dir = xstrdup(gen_dir);
	rc = storage_format_read(gen_dir, &s->f, err);
	for (unsigned k = 0; k < STORAGE_PARTITIONS && !rc; k++)
		rc = open_part(gen_dir, k, &s->part[k], err);
	if (!rc) {
		path = xasprintf("%s/docinfo", gen_dir);
		rc = map_file(path, F_DOCINFO, NO_PART, &s->doc, err);
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
	each_map(s, map_free);
	free(s->dir);
	free(s);
}

uint64_t storage_generation(const struct storage *s) { return s->f.generation; }
const char *storage_dir(const struct storage *s) { return s->dir; }
uint64_t storage_n_docs(const struct storage *s) { return s->f.n_docs; }
uint32_t storage_max_url_id(const struct storage *s) { return s->f.max_url_id; }

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

/* The text of word k of partition p: 0, or -1 when the offsets are bad. */
static int dict_word(const struct part *p, uint32_t k, const unsigned char **w, size_t *len)
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

	if (dict_word(&s->part[word_id % STORAGE_PARTITIONS], word_id / STORAGE_PARTITIONS, &w,
		      len))
		return NULL;
	return (const char *)w;
}

unsigned storage_partition(const char *word, size_t len)
{
	return fnv1a32(word, len) % STORAGE_PARTITIONS;
}

/* Index in `sorted` of the first word >= (word, len): *at; -1 on damage. */
static int dict_lower(const struct part *p, const unsigned char *word, size_t len, uint32_t *at)
{
	uint32_t lo = 0, hi = p->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const unsigned char *w;
		size_t wl;

		if (dict_word(p, le_get32(p->sorted + 4 * (size_t)mid), &w, &wl))
			return -1;
		if (wordcmp(w, wl, word, len) < 0)
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
	if (dict_lower(p, (const unsigned char *)word, len, &at))
		return -1;
	if (at >= p->n)
		return 0;
	id = le_get32(p->sorted + 4 * (size_t)at);
	if (dict_word(p, id, &w, &wl))
		return -1;
	if (wordcmp(w, wl, (const unsigned char *)word, len))
		return 0;
	*word_id = id * STORAGE_PARTITIONS + k;
	return 1;
}

/* The ind entry k of p and the start of its sites range; -1 on damage. */
static int ind_entry(const struct part *p, uint32_t k, uint32_t *start, struct storage_word *w,
		     uint32_t *end)
{
	const unsigned char *e;

	if (k >= p->n)
		return -1;
	e = p->ind.data + (size_t)k * IND_ENTRY;
	*start = k ? le_get32(e - IND_ENTRY) : 0;
	*end = le_get32(e);
	w->n_sites = le_get32(e + 4);
	w->n_urls = le_get32(e + 8);
	w->total = le_get32(e + 12);
	if (*start > *end || *end > p->sites.len || (*end - *start) % SITE_ENTRY ||
	    (*end - *start) / SITE_ENTRY != w->n_sites)
		return -1;
	return 0;
}

int storage_word_info(const struct storage *s, uint32_t word_id, struct storage_word *w)
{
	const struct part *p = &s->part[word_id % STORAGE_PARTITIONS];
	uint32_t k = word_id / STORAGE_PARTITIONS, a, b;

	if (k >= p->n)
		return 0;
	if (ind_entry(p, k, &a, w, &b))
		return -1;
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

		if (dict_lower(p, (const unsigned char *)prefix, len, &at))
			return -1;
		for (; at < p->n; at++) {
			uint32_t id = le_get32(p->sorted + 4 * (size_t)at);
			const unsigned char *w;
			size_t wl;
			struct storage_word sw;
			int r;

			if (dict_word(p, id, &w, &wl))
				return -1;
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
	uint32_t k = word_id / STORAGE_PARTITIONS, a, b;
	struct storage_word w;

	c->s = s;
	c->err = 0;
	c->sites = c->sites_end = NULL;
	c->urls = c->urls_end = NULL;
	c->site_id = 0;
	if (k >= p->n)
		return 0;
	if (ind_entry(p, k, &a, &w, &b)) {
		c->err = 1;
		return -1;
	}
	if (a == b)
		return 0;
	c->sites = p->sites.data + a;
	c->sites_end = p->sites.data + b;
	c->sites_base = p->sites.data;
	c->urls_base = p->urls.data;
	c->urls_size = p->urls.len;
	return 1;
}

int storage_next_site(struct storage_cursor *c, uint32_t *site_id)
{
	uint32_t start, end;

	if (c->err)
		return -1;
	if (!c->sites || c->sites >= c->sites_end)
		return 0;
	/* The URL range of a site starts where the previous sites entry of the
	 * partition ends (0 for the first entry of the file). */
	start = c->sites > c->sites_base ? le_get32(c->sites - 4) : 0;
	*site_id = le_get32(c->sites);
	end = le_get32(c->sites + 4);
	if (start > end || end > c->urls_size || end - start < URL_FIXED) {
		c->err = 1;
		return -1;
	}
	c->site_id = *site_id;
	c->urls = c->urls_base + start;
	c->urls_end = c->urls_base + end;
	c->sites += SITE_ENTRY;
	return 1;
}

int storage_next_url(struct storage_cursor *c, uint32_t *url_id, uint32_t *n_pos)
{
	uint32_t n;

	if (c->err)
		return -1;
	if (!c->urls || c->urls >= c->urls_end)
		return 0;
	if ((size_t)(c->urls_end - c->urls) < URL_FIXED)
		goto bad;
	n = le_get16(c->urls + 4);
	if (n == 0 || (size_t)(c->urls_end - c->urls - URL_FIXED) < 2 * (size_t)n)
		goto bad;
	*url_id = le_get32(c->urls);
	for (uint32_t i = 0; i < n; i++)
		c->pos[i] = le_get16(c->urls + URL_FIXED + 2 * i);
	*n_pos = n;
	c->urls += URL_FIXED + 2 * (size_t)n;
	return 1;
bad:
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

		if ((size_t)(c->urls_end - c->urls) < URL_FIXED) {
			c->err = 1;
			return -1;
		}
		if (le_get32(c->urls) >= target)
			break;
		n = le_get16(c->urls + 4);
		if (n == 0 || (size_t)(c->urls_end - c->urls - URL_FIXED) < 2 * (size_t)n) {
			c->err = 1;
			return -1;
		}
		c->urls += URL_FIXED + 2 * (size_t)n;
	}
	r = storage_next_url(c, url_id, n_pos);
	return r;
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

/* ---- generations ----------------------------------------------------------- */

char *storage_gen_path(const char *data_dir, uint64_t gen)
{
	return xasprintf("%s/index/gen-%08" PRIu64, data_dir, gen);
}

/* "gen-<digits>" (exactly): 0 and *gen; with tmp, "gen-<digits>.tmp". */
static int parse_gen_name(const char *name, bool tmp, uint64_t *gen)
{
	const char *p = name + 4;
	uint64_t v;

	if (strncmp(name, "gen-", 4) || parse_u64(&p, &v))
		return -1;
	if (tmp ? strcmp(p, ".tmp") : *p)
		return -1;
	*gen = v;
	return 0;
}

int storage_current(const char *data_dir, uint64_t *gen, struct buf *err)
{
	char *path = xasprintf("%s/index/current", data_dir);
	char target[256];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	int rc = 1;

	if (n < 0) {
		if (errno == ENOENT)
			rc = 0;
		else
			rc = error_into(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	target[n] = '\0';
	if (parse_gen_name(target, false, gen))
		rc = error_into(err, "%s: points to '%s', not a generation", path, target);
out:
	free(path);
	return rc;
}

/* Remove a directory tree (a generation: files and one level of
 * subdirectories, plus citations/ whatever its depth). */
static int rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", path, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rc |= rm_tree(p);
		else if (unlink(p) < 0 && errno != ENOENT)
			rc = -1;
		free(p);
	}
	closedir(d);
	if (rmdir(path) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

int storage_gen_cleanup(const char *data_dir, struct buf *err)
{
	char *dir = xasprintf("%s/index", data_dir);
	DIR *d;
	struct dirent *e;
	uint64_t cur = 0, g;
	int have, rc = 0;

	have = storage_current(data_dir, &cur, err);
	if (have < 0) {
		free(dir);
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		rc = errno == ENOENT ? 0 : error_into(err, "%s: %s", dir, strerror(errno));
		free(dir);
		return rc;
	}
	while ((e = readdir(d))) {
		bool tmp = parse_gen_name(e->d_name, true, &g) == 0;

		/* Unpublished work: .tmp directories, and finished generations
		 * newer than `current` (a crash between the two renames). */
		if (tmp || (parse_gen_name(e->d_name, false, &g) == 0 && (!have || g > cur))) {
			char *p = xasprintf("%s/%s", dir, e->d_name);

			info("removing %s (left by an interrupted merge)", p);
			if (rm_tree(p) < 0)
				rc = error_into(err, "%s: cannot remove: %s", p, strerror(errno));
			free(p);
		}
		if (!strcmp(e->d_name, "current.tmp")) {
			char *p = xasprintf("%s/%s", dir, e->d_name);
			unlink(p);
			free(p);
		}
	}
	closedir(d);
	free(dir);
	return rc;
}

int storage_gen_publish(const char *data_dir, uint64_t gen, struct buf *err)
{
	char *dir = xasprintf("%s/index", data_dir);
	char *final = storage_gen_path(data_dir, gen);
	char *tmp = xasprintf("%s.tmp", final);
	char *link = xasprintf("%s/current.tmp", dir), *cur = xasprintf("%s/current", dir);
	char target[64];
	struct storage_format f;
	DIR *d = NULL;
	struct dirent *e;
	int rc = 0;

	/* Never publish a directory whose FORMAT is not complete and right. */
	if (storage_format_read(tmp, &f, err)) {
		rc = -1;
		goto out;
	}
	if (f.generation != gen) {
		rc = error_into(err, "%s: FORMAT says generation %" PRIu64, tmp, f.generation);
		goto out;
	}
	if (fsync_dir(tmp) < 0 || rename(tmp, final) < 0 || fsync_dir(dir) < 0) {
		rc = error_into(err, "%s: cannot rename to %s: %s", tmp, final, strerror(errno));
		goto out;
	}
	snprintf(target, sizeof(target), "gen-%08" PRIu64, gen);
	unlink(link);
	if (symlink(target, link) < 0 || rename(link, cur) < 0 || fsync_dir(dir) < 0) {
		rc = error_into(err, "%s: cannot switch to %s: %s", cur, target, strerror(errno));
		goto out;
	}
	/* Keep the previous generation (searchd may still read it). */
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		uint64_t g;

		if (parse_gen_name(e->d_name, false, &g) == 0 && g + 1 < gen) {
			char *p = xasprintf("%s/%s", dir, e->d_name);
			if (rm_tree(p) < 0)
				warning("%s: cannot remove an old generation: %s", p, strerror(errno));
			free(p);
		}
	}
	if (d)
		closedir(d);
out:
	free(dir);
	free(final);
	free(tmp);
	free(link);
	free(cur);
	return rc;
}

/* Hard-link every file of src into dst (created), recursively. */
static int link_tree(const char *src, const char *dst, struct buf *err)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return error_into(err, "%s: %s", src, strerror(errno));
	if (mkdir(dst, 0755) < 0 && errno != EEXIST) {
		closedir(d);
		return error_into(err, "%s: cannot create: %s", dst, strerror(errno));
	}
	while (!rc && (e = readdir(d))) {
		char *s, *t;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		s = xasprintf("%s/%s", src, e->d_name);
		t = xasprintf("%s/%s", dst, e->d_name);
		if (lstat(s, &st) < 0)
			rc = error_into(err, "%s: %s", s, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = link_tree(s, t, err);
		else if (S_ISREG(st.st_mode) && link(s, t) < 0)
			rc = error_into(err, "cannot link %s to %s: %s", s, t, strerror(errno));
		free(s);
		free(t);
	}
	closedir(d);
	if (!rc && fsync_dir(dst) < 0)
		rc = error_into(err, "%s: fsync: %s", dst, strerror(errno));
	return rc;
}

int storage_gen_clone(const char *data_dir, uint64_t *gen, char **dir, struct buf *err)
{
	uint64_t cur;
	char *src, *dst;
	int k = storage_current(data_dir, &cur, err);

	*dir = NULL;
	if (k <= 0)
		return k < 0 ? -1 : error_into(err, "%s/index: no generation to copy", data_dir);
	src = storage_gen_path(data_dir, cur);
	dst = xasprintf("%s/index/gen-%08" PRIu64 ".tmp", data_dir, cur + 1);
	rm_tree(dst);
	if (link_tree(src, dst, err)) {
		free(src);
		free(dst);
		return -1;
	}
	free(src);
	*gen = cur + 1;
	*dir = dst;
	return 0;
}

/* Link one file of the generation `from` into `to` (the merge keeps the
 * files it does not rewrite).  Missing files are not an error. */
int storage_gen_link(const char *from, const char *to, const char *name, struct buf *err)
{
	char *s = xasprintf("%s/%s", from, name), *t = xasprintf("%s/%s", to, name);
	struct stat st;
	int rc = 0;

	if (lstat(s, &st) < 0) {
		if (errno != ENOENT)
			rc = error_into(err, "%s: %s", s, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		rc = link_tree(s, t, err);
	} else {
		unlink(t);
		if (link(s, t) < 0)
			rc = error_into(err, "cannot link %s to %s: %s", s, t, strerror(errno));
	}
	free(s);
	free(t);
	return rc;
}

/* ---- check ---------------------------------------------------------------- */

#define CHECK_MAX_PER_FILE 20

struct checker {
	struct buf *out;
	long problems;
	long in_file;           /* problems reported for the current file */
	char file[32];          /* "07w/urls" */
};

static void bad(struct checker *k, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void bad(struct checker *k, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	k->problems++;
	if (++k->in_file > CHECK_MAX_PER_FILE) {
		if (k->in_file == CHECK_MAX_PER_FILE + 1)
			buf_printf(k->out, "%s: more problems not listed\n", k->file);
		return;
	}
	buf_printf(k->out, "%s: offset %" PRIu64 ": ", k->file, off);
	va_start(ap, fmt);
	buf_vprintf(k->out, fmt, ap);
	va_end(ap);
	buf_addc(k->out, '\n');
}

static void check_file(struct checker *k, const char *file)
{
	if (!strcmp(k->file, file))
		return;
	snprintf(k->file, sizeof(k->file), "%s", file);
	k->in_file = 0;
}

/* Map with the header checks; a failure is reported as one problem. */
static int check_map(struct checker *k, const char *gen_dir, const char *rel, enum ftype t,
		     uint32_t part, struct map *m)
{
	char *path = xasprintf("%s/%s", gen_dir, rel);
	struct buf why = BUF_INIT(1024);
	int rc;

	check_file(k, rel);
	rc = map_file(path, t, part, m, &why);
	if (rc) {
		/* map_file says "path: offset N: why"; report it relative to the
		 * generation. */
		const char *w = buf_str(&why);
		size_t pl = strlen(path);

		if (!strncmp(w, path, pl) && w[pl] == ':')
			w += pl + 2;
		k->problems++;
		buf_printf(k->out, "%s: %s\n", rel, w);
	} else {
		uint32_t c = binfile_crc_update(0, m->data, m->len);

		if (c != m->crc)
			bad(k, 24, "data crc mismatch: bytes %d..%zu are not what was written", HDR,
			    m->size);
	}
	buf_free(&why);
	free(path);
	return rc;
}

struct check_totals {
	uint64_t words, live_words, postings;
	bool complete;          /* every partition was walked to its end */
};

/* The dictionary of partition pn.  Returns false if it cannot be trusted. */
static bool check_words(struct checker *k, const struct part *p, unsigned pn)
{
	char file[16];
	bool good = true;

	snprintf(file, sizeof(file), "%02uw/words", pn);
	check_file(k, file);
	for (uint32_t i = 0; i < p->n; i++) {
		uint32_t a = le_get32(p->offs + 4 * (size_t)i), b = le_get32(p->offs + 4 * (size_t)i + 4);
		uint64_t at = HDR + 4 * (uint64_t)i;

		if (a > b || b > p->text_len) {
			bad(k, at, "word %u: text range %u..%u outside the text (%zu bytes)", i, a, b,
			    p->text_len);
			good = false;
			continue;
		}
		if (b - a < 1 || b - a > MAX_WORD_LEN) {
			bad(k, at, "word %u: length %u", i, b - a);
			good = false;
			continue;
		}
		if (!utf8_valid((const char *)p->text + a, b - a))
			bad(k, (uint64_t)(p->text - p->words.base) + a, "word %u: not UTF-8", i);
		else if (storage_partition((const char *)p->text + a, b - a) != pn)
			bad(k, (uint64_t)(p->text - p->words.base) + a,
			    "word %u '%.*s' belongs to partition %02u", i, (int)(b - a),
			    (const char *)p->text + a, storage_partition((const char *)p->text + a, b - a));
	}
	if (!good)
		return false;
	for (uint32_t i = 0; i < p->n; i++) {
		uint64_t at = (uint64_t)(p->sorted - p->words.base) + 4 * (uint64_t)i;
		uint32_t id = le_get32(p->sorted + 4 * (size_t)i);
		const unsigned char *w, *v;
		size_t wl, vl;

		if (id >= p->n) {
			bad(k, at, "sorted entry %u: word %u of %u", i, id, p->n);
			good = false;
			continue;
		}
		if (i == 0)
			continue;
		uint32_t prev = le_get32(p->sorted + 4 * (size_t)i - 4);
		if (prev >= p->n)
			continue;
		dict_word(p, prev, &v, &vl);
		dict_word(p, id, &w, &wl);
		if (wordcmp(v, vl, w, wl) >= 0) {
			bad(k, at, "sorted entry %u: word %u '%.*s' is not after word %u '%.*s'", i, id,
			    (int)wl, (const char *)w, prev, (int)vl, (const char *)v);
			good = false;
		}
	}
	return good;
}

/* ind, sites and urls of partition pn, against docinfo. */
static void check_postings(struct checker *k, const struct part *p, unsigned pn,
			   const struct map *doc, bool doc_ok, struct check_totals *t)
{
	char fi[16], fs[16], fu[16];
	uint32_t prev_end = 0, prev_urls = 0;
	uint64_t url_records = 0;
	bool sites_ok = true;

	snprintf(fi, sizeof(fi), "%02uw/ind", pn);
	snprintf(fs, sizeof(fs), "%02uw/sites", pn);
	snprintf(fu, sizeof(fu), "%02uw/urls", pn);
	for (uint32_t w = 0; w < p->n; w++) {
		const unsigned char *e = p->ind.data + (size_t)w * IND_ENTRY;
		uint64_t eo = HDR + (uint64_t)w * IND_ENTRY;
		uint32_t end = le_get32(e), n_sites = le_get32(e + 4), n_urls = le_get32(e + 8);
		uint32_t total = le_get32(e + 12), site_prev = 0;
		uint64_t urls = 0, tot = 0;

		check_file(k, fi);
		if (end < prev_end || end > p->sites.len || (end - prev_end) % SITE_ENTRY) {
			bad(k, eo, "word_id %u: sites end %u after %u (sites has %zu bytes)",
			    w * STORAGE_PARTITIONS + pn, end, prev_end, p->sites.len);
			sites_ok = false;
			break;
		}
		if ((end - prev_end) / SITE_ENTRY != n_sites)
			bad(k, eo + 4, "word_id %u: site count %u, its range holds %u",
			    w * STORAGE_PARTITIONS + pn, n_sites, (end - prev_end) / SITE_ENTRY);
		t->words++;
		for (uint32_t so = prev_end; so < end; so += SITE_ENTRY) {
			const unsigned char *s = p->sites.data + so;
			uint32_t site = le_get32(s), uend = le_get32(s + 4), url_prev = 0;
			const unsigned char *u, *ue;

			check_file(k, fs);
			if (site == 0 || (so > prev_end && site <= site_prev))
				bad(k, HDR + (uint64_t)so, "word_id %u: site_id %u after %u",
				    w * STORAGE_PARTITIONS + pn, site, site_prev);
			site_prev = site;
			if (uend < prev_urls + URL_FIXED || uend > p->urls.len) {
				bad(k, HDR + (uint64_t)so + 4,
				    "word_id %u site %u: urls end %u after %u (urls has %zu bytes)",
				    w * STORAGE_PARTITIONS + pn, site, uend, prev_urls, p->urls.len);
				sites_ok = false;
				goto out;
			}
			u = p->urls.data + prev_urls;
			ue = p->urls.data + uend;
			check_file(k, fu);
			while (u < ue) {
				uint64_t uo = HDR + (uint64_t)(u - p->urls.data);
				uint32_t id, n;

				if (ue - u < URL_FIXED) {
					bad(k, uo, "word_id %u site %u: record cut short by the site end",
					    w * STORAGE_PARTITIONS + pn, site);
					break;
				}
				id = le_get32(u);
				n = le_get16(u + 4);
				if (n == 0 || (size_t)(ue - u - URL_FIXED) < 2 * (size_t)n) {
					bad(k, uo + 4, "word_id %u url %u: %u positions do not fit the site",
					    w * STORAGE_PARTITIONS + pn, id, n);
					break;
				}
				if (id == 0 || id <= url_prev)
					bad(k, uo, "word_id %u site %u: url_id %u after %u",
					    w * STORAGE_PARTITIONS + pn, site, id, url_prev);
				url_prev = id;
				for (uint32_t i = 1; i < n; i++)
					if (le_get16(u + URL_FIXED + 2 * i) <= le_get16(u + URL_FIXED + 2 * i - 2)) {
						bad(k, uo + URL_FIXED + 2 * i,
						    "word_id %u url %u: position %u not after %u",
						    w * STORAGE_PARTITIONS + pn, id,
						    le_get16(u + URL_FIXED + 2 * i),
						    le_get16(u + URL_FIXED + 2 * i - 2));
						break;
					}
				if (doc_ok) {
					uint32_t ds = (uint64_t)id < doc->count ?
						le_get32(doc->data + (size_t)id * DOC_ENTRY) : 0;
					if (ds != site)
						bad(k, uo, "word_id %u url %u: site %u, docinfo says %u",
						    w * STORAGE_PARTITIONS + pn, id, site, ds);
				}
				urls++;
				tot += n;
				url_records++;
				u += URL_FIXED + 2 * (size_t)n;
			}
			prev_urls = uend;
		}
		check_file(k, fi);
		if (urls != n_urls)
			bad(k, eo + 8, "word_id %u: URL count %u, its sites hold %" PRIu64,
			    w * STORAGE_PARTITIONS + pn, n_urls, urls);
		if (tot != total)
			bad(k, eo + 12, "word_id %u: total count %u, its URLs hold %" PRIu64,
			    w * STORAGE_PARTITIONS + pn, total, tot);
		if (n_urls)
			t->live_words++;
		t->postings += urls;
		prev_end = end;
	}
out:
	if (!sites_ok) {
		t->complete = false;
		return;
	}
	check_file(k, fi);
	if (prev_end != p->sites.len) {
		check_file(k, fs);
		bad(k, HDR + (uint64_t)prev_end, "%zu bytes after the last word's sites",
		    p->sites.len - prev_end);
	}
	if (prev_urls != p->urls.len) {
		check_file(k, fu);
		bad(k, HDR + (uint64_t)prev_urls, "%zu bytes after the last site's URLs",
		    p->urls.len - prev_urls);
	}
	if (url_records != p->urls.count) {
		check_file(k, fu);
		bad(k, 16, "header counts %" PRIu64 " URL records, the file holds %" PRIu64,
		    p->urls.count, url_records);
	}
}

int storage_check(const char *gen_dir, struct buf *report)
{
	struct checker k = { .out = report };
	struct storage_format f;
	struct buf why = BUF_INIT(1024);
	struct map doc;
	struct check_totals t = { .complete = true };
	bool format_ok, doc_ok;
	uint64_t n_docs = 0, sum[STORAGE_SECTIONS] = { 0 };

	format_ok = storage_format_read(gen_dir, &f, &why) == 0;
	if (!format_ok) {
		k.problems++;
		buf_printf(report, "FORMAT: %s\n", buf_str(&why));
	} else {
		/* The directory name says which generation it is. */
		const char *base = strrchr(gen_dir, '/');
		uint64_t g;

		base = base ? base + 1 : gen_dir;
		if ((parse_gen_name(base, false, &g) == 0 || parse_gen_name(base, true, &g) == 0) &&
		    g != f.generation) {
			check_file(&k, "FORMAT");
			bad(&k, 0, "generation %" PRIu64 " in directory %s", f.generation, base);
		}
	}
	doc_ok = check_map(&k, gen_dir, "docinfo", F_DOCINFO, NO_PART, &doc) == 0;
	if (doc_ok && (doc.len % DOC_ENTRY || doc.len / DOC_ENTRY != doc.count || !doc.count)) {
		bad(&k, 16, "%" PRIu64 " entries do not fill %zu bytes", doc.count, doc.len);
		doc_ok = false;
	}
	if (doc_ok) {
		for (uint64_t u = 0; u < doc.count; u++) {
			const unsigned char *e = doc.data + u * DOC_ENTRY;
			uint32_t site = le_get32(e);

			if (!site) {
				static const unsigned char zero[DOC_ENTRY];
				if (memcmp(e, zero, DOC_ENTRY))
					bad(&k, HDR + u * DOC_ENTRY,
					    "url %" PRIu64 ": not indexed but the entry is not zero", u);
				continue;
			}
			if (u == 0)
				bad(&k, HDR, "url_id 0 has an entry");
			n_docs++;
			for (int s = 0; s < STORAGE_SECTIONS; s++)
				sum[s] += le_get16(e + 4 + 2 * s);
		}
		if (format_ok && (doc.count != (uint64_t)f.max_url_id + 1 || n_docs != f.n_docs ||
				  memcmp(sum, f.sum_len, sizeof(sum)))) {
			check_file(&k, "FORMAT");
			bad(&k, 0, "docs %" PRIu64 " / max_url_id %u / section lengths disagree with "
			    "docinfo (%" PRIu64 " docs, %" PRIu64 " entries)", f.n_docs, f.max_url_id,
			    n_docs, doc.count);
		}
	}
	for (unsigned pn = 0; pn < STORAGE_PARTITIONS; pn++) {
		struct part p;
		char rel[16], dir[16];
		struct map *m[4] = { &p.ind, &p.sites, &p.urls, &p.words };
		enum ftype ty[4] = { F_IND, F_SITES, F_URLS, F_WORDS };
		bool ok = true;

		memset(&p, 0, sizeof(p));
		for (int i = 0; i < 4; i++) {
			snprintf(rel, sizeof(rel), "%02uw/%s", pn, FNAME[ty[i]]);
			if (check_map(&k, gen_dir, rel, ty[i], pn, m[i]))
				ok = false;
		}
		if (ok) {
			snprintf(dir, sizeof(dir), "%02uw", pn);
			buf_reset(&why);
			if (part_shape(dir, &p, &why)) {
				k.problems++;
				buf_printf(report, "%s\n", buf_str(&why));
				ok = false;
			}
		}
		if (ok && check_words(&k, &p, pn))
			check_postings(&k, &p, pn, &doc, doc_ok, &t);
		else
			t.complete = false;
		for (int i = 0; i < 4; i++)
			map_free(m[i]);
	}
	if (format_ok && t.complete && (t.words != f.words || t.live_words != f.live_words ||
			  t.postings != f.postings)) {
		check_file(&k, "FORMAT");
		bad(&k, 0, "words %" PRIu64 " / live_words %" PRIu64 " / postings %" PRIu64
		    " disagree with the partitions (%" PRIu64 " / %" PRIu64 " / %" PRIu64 ")",
		    f.words, f.live_words, f.postings, t.words, t.live_words, t.postings);
	}
	if (doc_ok)
		map_free(&doc);
	buf_free(&why);
	return k.problems ? 1 : 0;
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
