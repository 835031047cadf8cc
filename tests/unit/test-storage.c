/* test-storage.c - CompactStorage: writer/reader round trip, generations,
 * the checker, and byte flips in every file (reported precisely, never a
 * crash).
 *
 * The index is built from a model generated with a fixed seed; the reader
 * must give back exactly the model.  Then every byte of one file of each
 * kind is flipped in turn: storage_check() must name that file, and the
 * reader must either refuse the generation or walk it within bounds.
 * Format version 2's 64-bit fields: the entry codec, and a sparse partition
 * whose offsets pass 4 GiB; a version-1 generation is refused by the
 * reader and the check, and read by storage_open_old() (the merge's).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "caps.h"
#include "citations.h"
#include "log.h"
#include "le.h"
#include "ranks.h"
#include "storage.h"
/* The entry codec is private to src/index/storage*.c: tested here directly. */
#include "../../src/index/storage_int.h"
#include "tap.h"
#include "util.h"

#define N_WORDS 300
#define N_URLS 60

struct posting {
	uint32_t url, site;
	uint32_t n;
	uint32_t pos[8];
};

struct mword {
	char text[24];
	unsigned part;
	uint32_t id;
	struct posting *p;      /* sorted by (site, url) */
	size_t n;
};

static struct mword words[N_WORDS];
static uint32_t url_site[N_URLS + 1];
static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static int cmp_post(const void *a, const void *b)
{
	const struct posting *x = a, *y = b;

	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->url < y->url ? -1 : x->url > y->url;
}

static void make_model(void)
{
	uint32_t next_k[STORAGE_PARTITIONS] = { 0 };

	for (uint32_t u = 1; u <= N_URLS; u++)
		url_site[u] = (u % 3 == 0) ? 0 : 1 + u % 7; /* every third URL not indexed */
	for (int i = 0; i < N_WORDS; i++) {
		struct mword *w = &words[i];

		snprintf(w->text, sizeof(w->text), "%s%d", i % 2 ? "wort" : "mot", i * 7919 % 1000);
		w->part = storage_partition(w->text, strlen(w->text));
		w->id = next_k[w->part]++ * STORAGE_PARTITIONS + w->part;
		/* Every tenth word has no postings (it left the index). */
		if (i % 10 == 9)
			continue;
		w->p = xcalloc(N_URLS, sizeof(*w->p));
		for (uint32_t u = 1; u <= N_URLS; u++) {
			/* every fifth posting past position 16383 (32-bit positions) */
			uint32_t at = rnd(50) + (u % 5 ? 0 : 30000 + 70000 * (u % 3));

			if (!url_site[u] || rnd(4))
				continue;
			struct posting *p = &w->p[w->n++];
			p->url = u;
			p->site = url_site[u];
			p->n = 1 + rnd(8);
			for (uint32_t j = 0; j < p->n; j++) {
				at = at + 1 + rnd(300);
				p->pos[j] = at;
			}
		}
		qsort(w->p, w->n, sizeof(*w->p), cmp_post);
	}
}

/* Write the model as generation `gen` into dir.  Returns 0 or -1. */
static int write_gen(const char *dir, uint64_t gen)
{
	struct buf err = BUF_INIT(4096);
	struct storage_format f = { .generation = gen };
	struct storage_docinfo_writer *dw;
	int rc = 0;

	mkdir_p(dir);
	for (unsigned part = 0; part < STORAGE_PARTITIONS && !rc; part++) {
		struct storage_part_writer *pw;

		if (storage_part_begin(dir, part, &pw, &err)) {
			rc = -1;
			break;
		}
		/* Words of this partition in id order (ids follow model order). */
		for (int i = 0; i < N_WORDS; i++) {
			struct mword *w = &words[i];

			if (w->part != part)
				continue;
			storage_part_word(pw, w->text, strlen(w->text));
			f.words++;
			if (w->n)
				f.live_words++;
			for (size_t j = 0; j < w->n; j++) {
				if (!j || w->p[j].site != w->p[j - 1].site)
					storage_part_site(pw, w->p[j].site);
				storage_part_url(pw, w->p[j].url, w->p[j].pos, w->p[j].n);
				f.postings++;
			}
		}
		rc = storage_part_finish(pw, &err);
	}
	if (!rc && storage_docinfo_begin(dir, &dw, &err) == 0) {
		for (uint32_t u = 1; u <= N_URLS; u++) {
			struct storage_doc d = { .site_id = url_site[u], .last_modified = 1000 + u };

			for (int s = 0; s < STORAGE_SECTIONS; s++)
				d.len[s] = (uint16_t)(u * (s + 1));
			if (d.site_id)
				storage_docinfo_put(dw, u, &d);
		}
		rc = storage_docinfo_finish(dw, &f.n_docs, f.sum_len, &f.max_url_id, &err);
	} else {
		rc = -1;
	}
	if (!rc)
		rc = storage_format_write(dir, &f, &err);
	if (rc)
		diag("write_gen: %s", buf_str(&err));
	buf_free(&err);
	return rc;
}

/* Compare the reader's view with the model: the number of differences. */
static int compare(const struct storage *s)
{
	int diffs = 0;

	for (int i = 0; i < N_WORDS; i++) {
		struct mword *w = &words[i];
		struct storage_word sw;
		struct storage_cursor *c = xmalloc(sizeof(*c));
		uint32_t id, site, url, n;
		size_t j = 0, len;
		const char *t;

		if (storage_word_id(s, w->text, strlen(w->text), &id) != 1 || id != w->id) {
			diag("word %s: id", w->text);
			diffs++;
		}
		t = storage_word_text(s, w->id, &len);
		if (!t || len != strlen(w->text) || memcmp(t, w->text, len))
			diffs++;
		if (storage_word(s, w->text, strlen(w->text), &sw) != (w->n ? 1 : 0)) {
			diag("word %s: storage_word", w->text);
			diffs++;
		}
		if (w->n && sw.n_urls != w->n)
			diffs++;
		if (storage_postings(s, w->id, c) != (w->n ? 1 : 0))
			diffs++;
		while (storage_next_site(c, &site) == 1) {
			while (storage_next_url(c, &url, &n) == 1) {
				if (j >= w->n || w->p[j].site != site || w->p[j].url != url ||
				    w->p[j].n != n || memcmp(w->p[j].pos, c->pos, n * sizeof(*c->pos)))
					diffs++;
				j++;
			}
		}
		if (j != w->n || c->err) {
			diag("word %s: %zu postings, want %zu", w->text, j, w->n);
			diffs++;
		}
		free(c);
	}
	for (uint32_t u = 0; u <= N_URLS + 5; u++) {
		struct storage_doc d;
		int k = storage_doc(s, u, &d);

		if (k != (u <= N_URLS && url_site[u] ? 1 : 0) ||
		    (k == 1 && (d.site_id != url_site[u] || d.len[2] != u * 3 ||
				d.last_modified != 1000 + u)))
			diffs++;
	}
	return diffs;
}

static int count_cb(void *arg, const char *word, size_t len, const struct storage_word *w)
{
	(void)word;
	(void)len;
	(void)w;
	(*(int *)arg)++;
	return 0;
}

/* Everything a reader can do, within bounds whatever the bytes: the sum of
 * what was read, so the compiler keeps the loops. */
static uint64_t walk(const struct storage *s)
{
	uint64_t sum = 0;
	struct storage_cursor *c = xmalloc(sizeof(*c));
	int n = 0;

	for (unsigned p = 0; p < STORAGE_PARTITIONS; p++) {
		for (uint32_t k = 0; k < storage_part_words(s, p); k++) {
			uint32_t id = k * STORAGE_PARTITIONS + p, site, url, np;
			struct storage_word w;
			size_t len;

			if (storage_word_text(s, id, &len))
				sum += len;
			if (storage_word_info(s, id, &w) == 1)
				sum += w.n_urls;
			if (storage_postings(s, id, c) != 1)
				continue;
			while (storage_next_site(c, &site) == 1) {
				sum += site;
				if (storage_seek_url(c, 5, &url, &np) == 1)
					sum += url + np;
				while (storage_next_url(c, &url, &np) == 1)
					sum += url + c->pos[np - 1];
			}
		}
	}
	storage_words_prefix(s, "wo", 2, 1000, count_cb, &n);
	storage_words_prefix(s, "", 0, 1000, count_cb, &n);
	for (uint32_t u = 0; u <= storage_max_url_id(s) + 1; u++) {
		struct storage_doc d;
		if (storage_doc(s, u, &d) == 1)
			sum += d.site_id;
	}
	free(c);
	return sum + (uint64_t)n;
}

static unsigned char *slurp_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *p;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	p = xmalloc((size_t)n + 1);
	*len = fread(p, 1, (size_t)n, fp);
	fclose(fp);
	return p;
}

static void spill(const char *path, const unsigned char *p, size_t len)
{
	FILE *fp = fopen(path, "wb");

	if (fp) {
		fwrite(p, 1, len, fp);
		fclose(fp);
	}
}

/* Flip every byte of gen/rel with each mask: the check must report rel (the
 * first report line names it) and the reader must not crash. */
static void flip_file(const char *gen, const char *rel)
{
	char *path = xasprintf("%s/%s", gen, rel);
	size_t len = 0, missed = 0, tries = 0, opened = 0;
	unsigned char *orig = slurp_file(path, &len);
	static const unsigned char masks[] = { 0x01, 0x80, 0xff };
	struct buf rep = BUF_INIT(1 << 20);
	char first_miss[512] = "";

	if (!ok(orig != NULL, "read %s", rel)) {
		free(path);
		return;
	}
	/* One mask per byte, in turn (every mask on every byte costs 3x the
	 * time for little more coverage). */
	for (size_t i = 0; i < len; i++) {
		for (size_t m = i % ARRAY_SIZE(masks); m == i % ARRAY_SIZE(masks); m++) {
			unsigned char *copy = xmalloc(len);
			struct storage *s;
			int k;

			memcpy(copy, orig, len);
			copy[i] ^= masks[m];
			spill(path, copy, len);
			free(copy);
			buf_reset(&rep);
			k = storage_check(gen, &rep);
			tries++;
			if (k != 1 || strncmp(buf_str(&rep), rel, strlen(rel)) ||
			    !strstr(buf_str(&rep), ": offset ")) {
				/* FORMAT is text: it is reported as "FORMAT: path: why". */
				if (!(k == 1 && !strcmp(rel, "FORMAT") &&
				      !strncmp(buf_str(&rep), "FORMAT", 6))) {
					if (!missed++)
						snprintf(first_miss, sizeof(first_miss),
							 "byte %zu ^ 0x%02x: check %d: %.300s", i, masks[m],
							 k, buf_str(&rep));
				}
			}
			if (storage_open_dir(gen, &s, NULL) == 0) {
				opened++;
				walk(s);
				storage_close(s);
			}
		}
	}
	spill(path, orig, len);
	ok(missed == 0, "%s: %zu flips of %zu bytes reported precisely (%zu opened and walked)",
	   rel, tries, len, opened);
	if (missed)
		diag("%zu missed, first: %s", missed, first_miss);
	/* A file cut short is reported too. */
	spill(path, orig, len - 1);
	buf_reset(&rep);
	ok(storage_check(gen, &rep) == 1 && !strncmp(buf_str(&rep), rel, strlen(rel)),
	   "%s cut by one byte is reported: %.120s", rel, buf_str(&rep));
	spill(path, orig, len);
	buf_free(&rep);
	free(orig);
	free(path);
}

/* This process' resident pages of mapped files, KiB: RssFile, plus RssShmem
 * for the files of a tmpfs (tests/run-all's TMPDIR); -1 if unknown. */
static long rss_mapped_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "RssFile:", 8) || !strncmp(line, "RssShmem:", 9))
			v = (v < 0 ? 0 : v) + strtol(strchr(line, ':') + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* Generations: none yet, then generation 1 written as the merge does
 * (gen-1.tmp, then publish).  Returns its path (malloc'd). */
static char *first_generation(const char *data, struct buf *err)
{
	struct storage *s = NULL;
	uint64_t g = 0;
	char *tmpdir, *gen;

	is_int(storage_current(data, &g, err), 0, "no index yet: storage_current 0");
	ok(storage_open(data, &s, err) == -1 && strstr(buf_str(err), "no index"),
	   "storage_open without an index fails clearly: %s", buf_str(err));

	tmpdir = xasprintf("%s/index/gen-%08d.tmp", data, 1);
	ok(write_gen(tmpdir, 1) == 0, "write generation 1");
	ok(storage_gen_publish(data, 1, err) == 0, "publish generation 1 %s", buf_str(err));
	is_int(storage_current(data, &g, err), 1, "current exists");
	is_int(g, 1, "current is generation 1");
	gen = storage_gen_path(data, 1);
	ok(access(tmpdir, F_OK) != 0 && access(gen, F_OK) == 0, "gen-1.tmp renamed to gen-1");
	free(tmpdir);
	return gen;
}

/* Dropping the pages read leaves the reader working. */
static void release_pages(struct storage *s)
{
	long before = rss_mapped_kib(), after;

	for (unsigned part = 0; part < STORAGE_PARTITIONS; part++)
		storage_release_part(s, part);
	storage_release_docinfo(s);
	storage_release_part(s, STORAGE_PARTITIONS); /* out of range: nothing */
	storage_release_part(NULL, 0);
	storage_release_docinfo(NULL);
	after = rss_mapped_kib();
	ok(before > 0 && after < before, "storage_release_part/_docinfo drop the mapped pages "
	   "read (RssFile+RssShmem %ld -> %ld KiB)", before, after);
	is_int(compare(s), 0, "after the release the reader still gives back the model");
}

/* FORMAT's counts and the prefix scan. */
static void counts(struct storage *s)
{
	uint64_t docs = 0, sum2 = 0;
	int n = 0;

	for (uint32_t u = 1; u <= N_URLS; u++)
		if (url_site[u])
			docs++, sum2 += u * 3;
	is_int(storage_n_docs(s), docs, "n_docs");
	ok(storage_avg_len(s, 2) == (double)sum2 / (double)docs, "avg_len of section 2");
	is_int(storage_max_url_id(s), N_URLS - (N_URLS % 3 == 0), "max_url_id");
	is_int(storage_words_prefix(s, "", 0, 100000, count_cb, &n), N_WORDS - N_WORDS / 10,
	       "prefix '' passes every live word");
	n = 0;
	is_int(storage_words_prefix(s, "", 0, 7, count_cb, &n), 7, "prefix honours max");
}

/* seek: the first URL >= target within the first site */
static void seek_url(struct storage *s)
{
	struct storage_cursor *c = xmalloc(sizeof(*c));
	struct mword *w = &words[0];
	uint32_t site, url, n;
	int got = 0;

	storage_postings(s, w->id, c);
	storage_next_site(c, &site);
	if (storage_seek_url(c, w->p[0].url + 1, &url, &n) == 1)
		got = url > w->p[0].url && (w->n < 2 || w->p[1].site != site ||
					    url == w->p[1].url);
	else
		got = w->n < 2 || w->p[1].site != site;
	ok(got, "storage_seek_url skips to the first url >= target");
	free(c);
}

/* Clone + publish generation 2; the previous stays, older ones go. */
static void clone_and_publish(const char *data, const char *gen, struct buf *err)
{
	char *dir = NULL;
	uint64_t g = 0, g2 = 0;

	ok(storage_gen_clone(data, &g2, &dir, err) == 0 && g2 == 2, "clone to gen 2");
	/* FORMAT is a hard link: rewrite it for the new generation. */
	{
		struct storage_format f;
		char *fp = xasprintf("%s/FORMAT", dir);

		storage_format_read(dir, &f, err);
		unlink(fp);
		f.generation = 2;
		storage_format_write(dir, &f, err);
		free(fp);
	}
	ok(storage_gen_publish(data, 2, err) == 0, "publish gen 2");
	free(dir);
	ok(storage_gen_clone(data, &g2, &dir, err) == 0 && g2 == 3, "clone to gen 3");
	ok(storage_gen_publish(data, 3, err) == -1, "a FORMAT saying gen 2 is not published as 3");
	ok(storage_gen_cleanup(data, err) == 0 && access(dir, F_OK) != 0,
	   "cleanup removes gen-3.tmp");
	free(dir);
	is_int(storage_current(data, &g, err), 1, "current");
	is_int(g, 2, "current is 2");
	ok(access(gen, F_OK) == 0, "gen 1 (the previous) is kept");
}

/* Byte flips in every kind of file (of generation 1, now unused), ranks and
 * citations/ included: storage_check() verifies their data checksums too. */
static void flips(const char *gen, struct buf *err)
{
	static const uint32_t ids[] = { 1, 2, 5 }, dst[] = { 2, 5, 1, 1, 2 };
	static const uint64_t off[] = { 0, 2, 3, 5 };
	static const double x[] = { 0.5, 0.3, 0.2 };
	struct ranks_meta meta = { .damping = 0.85, .iterations = 3 };

	ok(ranks_write(gen, ids, x, 3, &meta) == 0 && citations_write(gen, ids, 3, off, dst) == 0,
	   "ranks and citations written into the generation");
	flip_file(gen, "ranks");
	flip_file(gen, "citations/direct");
	flip_file(gen, "citations/reverse");
	flip_file(gen, "FORMAT");
	flip_file(gen, "docinfo");
	for (unsigned p = 0; p < STORAGE_PARTITIONS; p++) {
		int live = 0;
		for (int i = 0; i < N_WORDS; i++)
			live += words[i].part == p && words[i].n > 1;
		if (live >= 2) {
			char rel[32];
			const char *f[] = { "ind", "sites", "urls", "words" };

			for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
				snprintf(rel, sizeof(rel), "%02uw/%s", p, f[i]);
				flip_file(gen, rel);
			}
			break;
		}
	}
	buf_reset(err);
	is_int(storage_check(gen, err), 0, "restored files pass again");
}

/* ---- format version 2: fields past 32 bits ---------------------------- */

/* The ind and sites entries round trip values above 2^32, at the documented
 * offsets; version 1's entries decode as ASPseek laid them out. */
static void entry_codec(void)
{
	unsigned char b[IND_ENTRY], s[SITE_ENTRY], v1[IND_ENTRY_V1];
	struct ind_entry ie = { .sites_end = (5ull << 30) + 16, .n_sites = UINT32_MAX,
				.n_urls = 4000000000u, .total = (3ull << 32) + 7 }, got;
	struct site_entry se = { .site_id = 0xfffffffeu, .urls_end = (1ull << 40) + 6 };

	ind_entry_pack(b, &ie);
	ind_entry_unpack(b, STORAGE_FORMAT_VERSION, &got);
	ok(got.sites_end == ie.sites_end && got.n_sites == ie.n_sites && got.n_urls == ie.n_urls &&
	   got.total == ie.total, "ind entry round trip above 2^32");
	ok(le_get64(b) == ie.sites_end && le_get32(b + 8) == ie.n_sites &&
	   le_get64(b + 16) == ie.total, "ind entry: sites end u64 at 0, total u64 at 16");
	site_entry_pack(s, &se);
	ok(le_get32(s) == se.site_id && le_get32(s + 4) == 0 && le_get64(s + 8) == se.urls_end &&
	   site_urls_end(s, STORAGE_FORMAT_VERSION) == se.urls_end,
	   "sites entry: site_id u32, 0 u32, urls end u64 round trip");
	le_put32(v1, 4096);
	le_put32(v1 + 4, 3);
	le_put32(v1 + 8, 9);
	le_put32(v1 + 12, UINT32_MAX);
	ind_entry_unpack(v1, 1, &got);
	ok(got.sites_end == 4096 && got.n_sites == 3 && got.n_urls == 9 && got.total == UINT32_MAX,
	   "a version-1 ind entry decodes");
	le_put32(s + 4, 77);
	is_int(site_urls_end(s, 1), 77, "a version-1 sites entry decodes");
	is_int(ind_entry_size(1), 16, "version 1 ind entries: 16 bytes");
	is_int(site_entry_size(STORAGE_FORMAT_VERSION), 16, "version 2 sites entries: 16 bytes");
}

/* Write a whole file: a header for (type magic, part, count) and data. */
static int put_file(const char *path, const char *magic, uint32_t part, uint32_t version,
		    uint64_t count, const unsigned char *data, size_t len)
{
	unsigned char h[32];
	FILE *fp = fopen(path, "wb");
	int rc;

	if (!fp)
		return -1;
	memcpy(h, magic, 8);
	le_put32(h + 8, version);
	le_put32(h + 12, part);
	le_put64(h + 16, count);
	le_put32(h + 24, binfile_crc(data, len));
	le_put32(h + 28, binfile_crc(h, 28));
	/* fwrite() may not be given NULL, even for 0 bytes (UBSan). */
	rc = fwrite(h, 1, 32, fp) == 32 && (!len || fwrite(data, 1, len, fp) == len) ? 0 : -1;
	return fclose(fp) || rc ? -1 : 0;
}

/* Two words of partition 0 (the k-th such word of "big<i>"). */
static void big_words(char w[2][16])
{
	for (int i = 0, k = 0; k < 2; i++) {
		snprintf(w[k], sizeof(w[k]), "big%d", i);
		if (storage_partition(w[k], strlen(w[k])) == 0)
			k++;
	}
}

#define BIG ((5ull << 30) + 4) /* urls bytes before word 1's record */

/* Partition 00w by hand: word 0 has one site whose URLs fill 0..BIG of urls
 * (never read: a hole of the sparse file) and a total above 2^32; word 1
 * has site 2 with url 7 at BIG.  Returns 0, 1 to skip, -1 on error. */
static int big_part(const char *gen, char w[2][16], char *why, size_t why_len)
{
	unsigned char ind[2 * IND_ENTRY], sites[2 * SITE_ENTRY], rec[12], dict[4 * 5 + 32];
	struct ind_entry e0 = { SITE_ENTRY, 1, 3, 6000000000ull };
	struct ind_entry e1 = { 2 * SITE_ENTRY, 1, 1, 3 };
	struct site_entry s0 = { 1, BIG }, s1 = { 2, BIG + sizeof(rec) };
	size_t l0 = strlen(w[0]), l1 = strlen(w[1]);
	int first = storage_wordcmp((const unsigned char *)w[0], l0, (const unsigned char *)w[1],
				    l1) < 0 ? 0 : 1;
	char *path;
	struct statvfs vfs;
	struct stat st;
	int fd, rc = 0;

	ind_entry_pack(ind, &e0);
	ind_entry_pack(ind + IND_ENTRY, &e1);
	site_entry_pack(sites, &s0);
	site_entry_pack(sites + SITE_ENTRY, &s1);
	le_put32(dict, 0);
	le_put32(dict + 4, (uint32_t)l0);
	le_put32(dict + 8, (uint32_t)(l0 + l1));
	le_put32(dict + 12, (uint32_t)first);
	le_put32(dict + 16, (uint32_t)!first);
	memcpy(dict + 20, w[0], l0);
	memcpy(dict + 20 + l0, w[1], l1);
	path = xasprintf("%s/00w/ind", gen);
	rc |= put_file(path, "MPSIND\0\1", 0, STORAGE_FORMAT_VERSION, 2, ind, sizeof(ind));
	free(path);
	path = xasprintf("%s/00w/sites", gen);
	rc |= put_file(path, "MPSSIT\0\1", 0, STORAGE_FORMAT_VERSION, 2, sites, sizeof(sites));
	free(path);
	path = xasprintf("%s/00w/words", gen);
	rc |= put_file(path, "MPSWRD\0\1", 0, STORAGE_FORMAT_VERSION, 2, dict, 20 + l0 + l1);
	free(path);
	/* urls: the header, a hole of BIG bytes, url 7 with positions 1, 2, 3. */
	le_put32(rec, 7);
	le_put16(rec + 4, 3);
	for (int i = 0; i < 3; i++)
		le_put16(rec + 6 + 2 * i, (uint16_t)(i + 1));
	path = xasprintf("%s/00w/urls", gen);
	rc |= put_file(path, "MPSURL\0\1", 0, STORAGE_FORMAT_VERSION, 2, NULL, 0);
	if (rc || statvfs(gen, &vfs) || (uint64_t)vfs.f_bavail * vfs.f_frsize < (64u << 20)) {
		snprintf(why, why_len, "no room for a sparse file in %s", gen);
		rc = 1;
	} else if ((fd = open(path, O_WRONLY)) < 0 ||
		   pwrite(fd, rec, sizeof(rec), (off_t)(32 + BIG)) != (ssize_t)sizeof(rec) ||
		   fstat(fd, &st) || close(fd)) {
		snprintf(why, why_len, "a %llu-byte sparse file: %s", (unsigned long long)BIG,
			 strerror(errno));
		rc = 1;
	} else if ((uint64_t)st.st_blocks * 512 > (16u << 20)) {
		snprintf(why, why_len, "the filesystem of %s does not keep holes", gen);
		rc = 1;
	}
	free(path);
	return rc;
}

/* An empty generation (100 empty partitions, docinfo with url 7 on site 2),
 * then partition 0 replaced by big_part(). */
static void big_offsets(const char *root)
{
	char *gen = xasprintf("%s/big/gen-00000001", root), w[2][16], why[256] = "";
	struct storage_format f = { .generation = 1 };
	struct storage_docinfo_writer *dw;
	struct storage_doc d = { .site_id = 2 };
	struct storage *s = NULL;
	struct storage_cursor *c = xmalloc(sizeof(*c));
	struct storage_word sw;
	struct buf err = BUF_INIT(4096);
	uint32_t id, site = 0, url = 0, n = 0;
	int rc = 0, k;

	mkdir_p(gen);
	for (unsigned p = 0; p < STORAGE_PARTITIONS && !rc; p++) {
		struct storage_part_writer *pw;
		rc = storage_part_begin(gen, p, &pw, &err) || storage_part_finish(pw, &err);
	}
	rc = rc || storage_docinfo_begin(gen, &dw, &err) || storage_docinfo_put(dw, 7, &d) ||
	     storage_docinfo_finish(dw, &f.n_docs, f.sum_len, &f.max_url_id, &err) ||
	     storage_format_write(gen, &f, &err);
	big_words(w);
	k = rc ? -1 : big_part(gen, w, why, sizeof(why));
	ok(k >= 0, "write a partition with offsets past 4 GiB %s", buf_str(&err));
	if (k == 1)
		diag("skipped: %s", why);
	if (k != 0)
		goto out;
	k = storage_open_dir(gen, &s, &err);
	if (!ok(k == 0, "open it %s", buf_str(&err)))
		goto out;
	sw.total = 0;
	k = storage_word(s, w[0], strlen(w[0]), &sw);
	ok(k == 1 && sw.total == 6000000000ull, "a total above 2^32 reads back (%" PRIu64 ")",
	   sw.total);
	ok(storage_word_id(s, w[1], strlen(w[1]), &id) == 1 && id == 100 &&
	   storage_postings(s, id, c) == 1 && storage_next_site(c, &site) == 1 && site == 2 &&
	   storage_next_url(c, &url, &n) == 1 && url == 7 && n == 3 && c->pos[2] == 3 &&
	   storage_next_url(c, &url, &n) == 0 && storage_next_site(c, &site) == 0,
	   "a site whose URLs start past 4 GiB (at %llu) walks", (unsigned long long)BIG);
	storage_close(s);
	s = NULL;
	/* The bounds: word 1's site ending one byte past urls. */
	{
		char *path = xasprintf("%s/00w/sites", gen);
		unsigned char e[8];
		int fd = open(path, O_WRONLY);

		le_put64(e, BIG + 13);
		ok(fd >= 0 && pwrite(fd, e, 8, 32 + SITE_ENTRY + 8) == 8 && close(fd) == 0 &&
		   storage_open_dir(gen, &s, &err) == 0 && storage_postings(s, id, c) == 1 &&
		   storage_next_site(c, &site) == -1 && c->err,
		   "a urls end one byte past a file of more than 4 GiB is refused");
		free(path);
	}
out:
	storage_close(s);
	free(c);
	buf_free(&err);
	free(gen);
}

/* ---- format version 1: refused, or read for the merge's conversion ------ */

/* Rewrite a file's header for version v (data crc of its data, header crc). */
static void set_version(unsigned char *f, size_t len, uint32_t v)
{
	le_put32(f + 8, v);
	le_put32(f + 24, binfile_crc(f + 32, len - 32));
	le_put32(f + 28, binfile_crc(f, 28));
}

/* Rewrite the model generation in gen as mpseek of format version 1 wrote
 * it: 16-byte ind and 8-byte sites entries, version 1 everywhere. */
static int downgrade(const char *gen)
{
	const char *rel[] = { "ind", "sites", "urls", "words" };
	char *path;
	unsigned char *f, *g;
	size_t len;
	int rc = 0;

	for (unsigned p = 0; p < STORAGE_PARTITIONS && !rc; p++) {
		for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
			size_t n, out = 32;

			path = xasprintf("%s/%02uw/%s", gen, p, rel[i]);
			f = slurp_file(path, &len);
			if (!f || len < 32) {
				rc = -1;
				free(f);
				free(path);
				break;
			}
			n = i < 2 ? (len - 32) / (i ? SITE_ENTRY : IND_ENTRY) : 0;
			g = xmalloc(len);
			memcpy(g, f, 32);
			for (size_t k = 0; k < n; k++) {
				const unsigned char *e = f + 32 + k * (i ? SITE_ENTRY : IND_ENTRY);
				struct ind_entry ie;

				if (i == 0) {
					ind_entry_unpack(e, STORAGE_FORMAT_VERSION, &ie);
					le_put32(g + out, (uint32_t)(ie.sites_end / 2));
					le_put32(g + out + 4, ie.n_sites);
					le_put32(g + out + 8, ie.n_urls);
					le_put32(g + out + 12, (uint32_t)ie.total);
					out += IND_ENTRY_V1;
				} else {
					le_put32(g + out, le_get32(e));
					le_put32(g + out + 4,
						 (uint32_t)site_urls_end(e, STORAGE_FORMAT_VERSION));
					out += SITE_ENTRY_V1;
				}
			}
			if (i >= 2) {
				memcpy(g + 32, f + 32, len - 32);
				out = len;
			}
			set_version(g, out, 1);
			spill(path, g, out);
			free(g);
			free(f);
			free(path);
		}
	}
	path = xasprintf("%s/docinfo", gen);
	f = slurp_file(path, &len);
	if (f && len >= 32) {
		set_version(f, len, 1);
		spill(path, f, len);
	} else {
		rc = -1;
	}
	free(f);
	free(path);
	path = xasprintf("%s/FORMAT", gen);
	f = slurp_file(path, &len);
	if (f && len > 24 && !memcmp(f, "mpseek-compactstorage 3\n", 24)) {
		f[22] = '1';
		spill(path, f, len);
	} else {
		rc = -1;
	}
	free(f);
	free(path);
	return rc;
}

/* Versions 1 and 2 had 16-bit positions (< 16384 per section): move the
 * model's postings past 16383 down to fit them. */
static void narrow_model(void)
{
	for (int i = 0; i < N_WORDS; i++)
		for (size_t j = 0; j < words[i].n; j++) {
			struct posting *p = &words[i].p[j];
			uint32_t base = p->pos[0];

			if (p->pos[p->n - 1] > 0x3fff)
				for (uint32_t k = 0; k < p->n; k++)
					p->pos[k] -= base;
		}
}

static void old_version(const char *root)
{
	char *gen = xasprintf("%s/v1/gen-00000001", root), *path;
	struct storage *s = NULL;
	struct buf err = BUF_INIT(4096);
	unsigned char *f;
	size_t len;
	int k;

	narrow_model();
	if (!ok(write_gen(gen, 1) == 0 && downgrade(gen) == 0, "a version-1 generation"))
		goto out;
	k = storage_open_dir(gen, &s, &err);
	ok(k == -1 && strstr(buf_str(&err), "format version 1") &&
	   strstr(buf_str(&err), "mpseek-index -D"),
	   "the reader (searchd) refuses it, saying how to convert: %s", buf_str(&err));
	buf_reset(&err);
	k = storage_check(gen, &err);
	ok(k == 1 && !strncmp(buf_str(&err), "FORMAT: ", 8) &&
	   strstr(buf_str(&err), "mpseek-index -D") &&
	   strchr(buf_str(&err), '\n') == buf_str(&err) + err.len - 1,
	   "--check refuses it in one line");
	buf_reset(&err);
	k = storage_open_old(gen, &s, &err);
	ok(k == 0 && storage_version(s) == 1, "storage_open_old() opens it %s", buf_str(&err));
	if (s) {
		is_int(compare(s), 0, "version 1 reads back the model (the merge's input)");
		walk(s);
		storage_close(s);
		s = NULL;
	}
	/* A file of the other version in it is refused. */
	path = xasprintf("%s/05w/ind", gen);
	f = slurp_file(path, &len);
	if (f) {
		set_version(f, len, STORAGE_FORMAT_VERSION);
		spill(path, f, len);
	}
	buf_reset(&err);
	k = f ? storage_open_old(gen, &s, &err) : 0;
	ok(k == -1 &&
	   strstr(buf_str(&err), "offset 8: format version 3, the generation's is 1"),
	   "a version-3 file in a version-1 generation is refused: %s", buf_str(&err));
	free(f);
	free(path);
out:
	storage_close(s);
	buf_free(&err);
	free(gen);
}

/* storage_open_docinfo(): a generation being written, with its docinfo and
 * nothing else yet, gives its sites (the merge's boilerplate pass); a
 * docinfo cut short is refused. */
static void docinfo_only(const char *root)
{
	char *gen = xasprintf("%s/dionly/gen-00000001.tmp", root), *path;
	struct storage_format f = { .generation = 1 };
	struct storage_docinfo_writer *dw;
	struct storage_doc d = { .site_id = 5, .len = { 3 } }, got = { 0 };
	struct storage *s = NULL;
	struct buf err = BUF_INIT(4096);
	int rc;

	mkdir_p(gen);
	rc = storage_docinfo_begin(gen, &dw, &err) || storage_docinfo_put(dw, 3, &d) ||
	     storage_docinfo_finish(dw, &f.n_docs, f.sum_len, &f.max_url_id, &err);
	ok(rc == 0, "docinfo alone written %s", buf_str(&err));
	ok(storage_open_dir(gen, &s, &err) != 0, "the whole generation does not open yet");
	buf_reset(&err);
	rc = storage_open_docinfo(gen, &s, &err);
	ok(rc == 0, "its docinfo opens %s", buf_str(&err));
	if (rc == 0) {
		ok(storage_doc(s, 3, &got) == 1 && got.site_id == 5 && got.len[0] == 3 &&
		   storage_doc(s, 2, &got) == 0 && storage_doc(s, 4, &got) == 0,
		   "url 3 is on site 5, urls 2 and 4 are not indexed");
		storage_close(s);
	}
	path = xasprintf("%s/docinfo", gen);
	s = NULL;
	buf_reset(&err);
	ok(truncate(path, 40) == 0 && storage_open_docinfo(gen, &s, &err) != 0 && !s &&
	   strstr(buf_str(&err), "docinfo"), "a docinfo cut short is refused: %s", buf_str(&err));
	free(path);
	buf_free(&err);
	free(gen);
}

/* A document of the summary tests: its url_id and site, its positions of
 * the word (npos, the first in the body, the last in section hi; wide:
 * past 16383, so its record holds u32 positions), its body and title
 * lengths. */
struct sdoc {
	uint32_t url, site, npos, hi;
	uint16_t len0, len3;
	bool wide;
};

/* A generation in gen whose one word has the n documents d (url_ids
 * ascending, a site's consecutive): 0 or -1. */
/* A generation of word in the documents d[0..n), each in docinfo; with
 * gaps, docinfo also has a document without the word at d[u].url - 1, of
 * the same site. */
static int one_word_gen(const char *gen, const char *word, const struct sdoc *d, uint32_t n,
			bool gaps)
{
	struct storage_format f = { .generation = 1 };
	struct storage_docinfo_writer *dw;
	struct buf err = BUF_INIT(1024);
	unsigned wp = storage_partition(word, strlen(word));
	int rc = 0;

	mkdir_p(gen);
	for (unsigned part = 0; part < STORAGE_PARTITIONS && !rc; part++) {
		struct storage_part_writer *pw;

		if ((rc = storage_part_begin(gen, part, &pw, &err)))
			break;
		if (part == wp) {
			storage_part_word(pw, word, strlen(word));
			f.words = f.live_words = 1;
			for (uint32_t u = 0; u < n; u++) {
				uint32_t pos[4];

				for (uint32_t i = 0; i < d[u].npos; i++)
					pos[i] = d[u].wide ? 20000 + i : i;
				if (d[u].hi)
					pos[d[u].npos - 1] = d[u].hi << STORAGE_POS_SHIFT;
				if (!u || d[u].site != d[u - 1].site)
					storage_part_site(pw, d[u].site);
				storage_part_url(pw, d[u].url, pos, d[u].npos);
				f.postings++;
			}
		}
		rc = storage_part_finish(pw, &err);
	}
	rc = rc || storage_docinfo_begin(gen, &dw, &err);
	for (uint32_t u = 0; u < n && !rc; u++) {
		struct storage_doc doc = { .site_id = d[u].site, .len = { d[u].len0, 3, 3, d[u].len3 } };

		if (gaps)
			rc = storage_docinfo_put(dw, d[u].url - 1, &doc);
		rc = rc || storage_docinfo_put(dw, d[u].url, &doc);
	}
	rc = rc || storage_docinfo_finish(dw, &f.n_docs, f.sum_len, &f.max_url_id, &err) ||
	     storage_format_write(gen, &f, &err);
	if (rc)
		diag("one_word_gen: %s", buf_str(&err));
	buf_free(&err);
	return rc ? -1 : 0;
}

/* Random positions and lengths of d (url_id and site left to the caller). */
static void sdoc_rand(struct sdoc *d)
{
	d->len0 = (uint16_t)(1 + rnd(40));
	d->len3 = (uint16_t)(1 + rnd(9));
	d->npos = 1 + rnd(d->len0 < 4 ? d->len0 : 4);
	d->hi = rnd(10) == 0 ? 3 : rnd(10) == 0 ? 1 : 0;
}

/* The ways summary m fails to bound document d: the most occurrences and
 * shortest section of each section its positions span, or n / (lambda +
 * len) of a body-only one. */
static int sum_misses(const struct storage_sum *m, const struct sdoc *d)
{
	int bad = 0;

	if (d->hi) {
		for (uint32_t s = d->npos == 1 ? d->hi : 0; s <= d->hi; s++)
			bad += !(m->sec_mask & 1u << s) || m->sec_n[s] < d->npos ||
			       m->sec_len[s] > (s == 0 ? d->len0 : s == 3 ? d->len3 : 3);
		return bad;
	}
	for (double lambda = 0; lambda < 1000; lambda = 3 * lambda + 0.5) {
		double best = 0;

		for (uint32_t i = 0; i < m->n_hull; i++)
			if (m->hull_n[i] / (lambda + m->hull_len[i]) > best)
				best = m->hull_n[i] / (lambda + m->hull_len[i]);
		bad += d->npos / (lambda + d->len0) > best * (1 + 1e-12);
	}
	return bad;
}

/* The shortest title of d[0..n) with a position in it. */
static uint16_t sdoc_title(const struct sdoc *d, uint32_t n)
{
	uint16_t title = STORAGE_SUM_NO_TITLE;

	for (uint32_t u = 0; u < n; u++)
		if (d[u].hi == 3 && d[u].len3 < title)
			title = d[u].len3;
	return title;
}

/* Write b (n bytes of a storage file) to path, its crcs made to match
 * first when crc, and check gen: storage_check()'s answer, its report in
 * err. */
static int spill_check(const char *gen, const char *path, unsigned char *b, size_t n, bool crc,
		       struct buf *err)
{
	if (crc) {
		le_put32(b + 24, binfile_crc_update(0, b + HDR, n - HDR));
		le_put32(b + 28, binfile_crc(b, 28));
	}
	spill(path, b, n);
	buf_reset(err);
	return storage_check(gen, err);
}

/* Site summaries (storage_sum.c): a generation whose one word has 2,000
 * documents on 10 sites gets NNw/sitesum; each site's summary counts its
 * documents, dominates every body-only document's n / (lambda + len) and
 * bounds the others per section; storage_check() passes it, finds a
 * changed byte and a summary that is not the postings', and the reader
 * refuses a damaged file with a clear message. */
static void site_sums(const char *root)
{
	char *gen = xasprintf("%s/sums/gen-00000001", root), *path;
	struct storage_sums *ss = NULL;
	struct storage_sum_cursor c;
	struct storage *st = NULL;
	struct buf err = BUF_INIT(1 << 16);
	const char *word = "common";
	unsigned wp = storage_partition(word, strlen(word));
	static struct sdoc sd[2000];
	int bad = 0, rc;

	for (uint32_t u = 0; u < 2000; u++) {
		sdoc_rand(&sd[u]);
		sd[u].url = u + 1;
		sd[u].site = 1 + u / 200;
	}
	ok(one_word_gen(gen, word, sd, 2000, false) == 0, "a generation of one word on 10 sites");
	path = xasprintf("%s/%02uw/sitesum", gen, wp);
	ok(storage_sums_open(gen, &ss, &err) == 0, "a generation without sitesum files has none");
	ok(storage_sums_write(gen, &err) == 0, "storage_sums_write %s", buf_str(&err));
	ok(storage_sums_open(gen, &ss, &err) == 1 && ss, "storage_sums_open %s", buf_str(&err));
	ok(ss && storage_sum_word(ss, wp, &c) == 1, "the word has summaries");
	for (uint32_t site = 1; ss && site <= 10; site++) {
		struct storage_sum m;
		const struct sdoc *d = sd + (site - 1) * 200;

		if (storage_sum_site(&c, site, &m) != 1 || m.n_docs != 200 || m.min_url != d->url) {
			bad++;
			continue;
		}
		for (uint32_t u = 0; u < 200; u++)
			bad += sum_misses(&m, d + u);
		bad += m.title_len != sdoc_title(d, 200);
	}
	is_int(bad, 0, "each site's summary counts and bounds its documents");
	storage_sums_close(ss);
	buf_reset(&err);
	is_int(storage_check(gen, &err), 0, "storage_check passes the summaries");
	if (err.len)
		diag("%s", buf_str(&err));
	{
		size_t n;
		unsigned char *b = slurp_file(path, &n), *save = xmalloc(n);

		memcpy(save, b, n);
		/* A changed byte of an entry: the data crc. */
		b[n - 30] ^= 0x10;
		rc = spill_check(gen, path, b, n, false, &err);
		ok(rc == 1 && strstr(buf_str(&err), "sitesum: offset 24: data crc mismatch"),
		   "a changed summary byte is reported: %s", buf_str(&err));
		/* ... with a data crc to match: not the postings' summary. */
		rc = spill_check(gen, path, b, n, true, &err);
		ok(rc == 1 && strstr(buf_str(&err), "not those of the partition"),
		   "a summary that is not the postings' is reported: %s", buf_str(&err));
		/* A words table that does not fit the file: refused when opened. */
		memcpy(b, save, n);
		le_put64(b + 16, 1000);
		le_put32(b + 28, binfile_crc(b, 28));
		spill(path, b, n);
		buf_reset(&err);
		ok(storage_sums_open(gen, &ss, &err) == -1 && !ss &&
		   strstr(buf_str(&err), "sitesum: offset 16: 1000 words do not fit"),
		   "a damaged sitesum is refused: %s", buf_str(&err));
		/* A partition's file missing. */
		spill(path, save, n);
		unlink(path);
		buf_reset(&err);
		ok(storage_sums_open(gen, &ss, &err) == -1 && strstr(buf_str(&err), "cannot open"),
		   "a missing sitesum of one partition is refused: %s", buf_str(&err));
		spill(path, save, n);
		ok(storage_sums_open(gen, &ss, &err) == 1, "and opens again once it is back");
		storage_sums_close(ss);
		free(b);
		free(save);
	}
	ok(storage_open_dir(gen, &st, &err) == 0, "the generation opens");
	storage_close(st);
	buf_free(&err);
	free(path);
	free(gen);
}

/* Block b (of a site of n records) against d, its documents: 0, or the
 * number of ways it misses (its counts, first and last url_ids, its
 * window's first url_id, bounds and title; storage_jump() to its offset,
 * then the records read from there, which must be its documents). */
static int block_misses(struct storage_cursor *c, const struct storage_block *b, uint32_t site,
			const struct sdoc *d, uint32_t n_docs)
{
	uint32_t url = 0, n;
	const uint8_t *pos;
	int bad = b->s.site_id != site || b->s.n_docs != n_docs || b->s.min_url != d[0].url ||
		  b->max_url != d[n_docs - 1].url || b->win_lo != d[0].url - 1 ||
		  b->s.title_len != sdoc_title(d, n_docs);

	if (storage_jump(c, b->off))
		return bad + 1;
	for (uint32_t u = 0; u < n_docs; u++) {
		if (storage_skip_url(c, 0, &url, &n, &pos) != 1 || url != d[u].url ||
		    n != d[u].npos)
			return bad + 1;
		bad += sum_misses(&b->s, d + u);
	}
	return bad;
}

/* Block summaries (storage_block.c): one word on sites of 1, 64, 65, 200,
 * 129 and 700 records (the last two sites with ids near 2^32; some with
 * u32 positions, so records differ in
 * size), each record's document after one without the word, gets
 * NNw/blocksum: a site's windows of STORAGE_BLOCK_DOCS documents hold
 * W = STORAGE_BLOCK_DOCS / 2 of its records each, the window starting at
 * the document before the first, so the sites of more than STORAGE_BLOCK
 * records have ceil(n / W) blocks each, each block counts, bounds and
 * locates its W (or fewer) records, and storage_jump() to its offset reads
 * them, the blocks visited last first; storage_check() passes the files
 * and finds a changed byte and a block that is not the postings'; a
 * missing file of a partition and a damaged entry are refused. */
/* Site i of block_sums(): the last two have ids near 2^32, which must
 * cost the summaries no memory by their value. */
static uint32_t blk_site(uint32_t i)
{
	return i < 4 ? i + 1 : 0xffffff00u + i;
}

/* The records of block_sums() and skip_entries(): blk_sizes[i] on site
 * blk_site(i), every other url_id, one in 7 u32-wide. */
static const uint32_t blk_sizes[] = { 1, 64, 65, 200, 129, 700 };
#define BLK_DOCS 1159

static uint32_t blk_docs(struct sdoc *sd)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ARRAY_SIZE(blk_sizes); i++)
		for (uint32_t k = 0; k < blk_sizes[i]; k++, n++) {
			sdoc_rand(&sd[n]);
			sd[n].url = 2 * n + 2;
			sd[n].site = blk_site(i);
			sd[n].wide = rnd(7) == 0;
		}
	return n;
}

static void block_sums(const char *root)
{
	const uint32_t *sizes = blk_sizes;
	char *gen = xasprintf("%s/blocks/gen-00000001", root), *path;
	struct storage_blocks *bs = NULL;
	struct storage_block_cursor bc;
	struct storage_cursor *c = xmalloc(sizeof(*c));
	struct storage *st = NULL;
	struct buf err = BUF_INIT(1 << 16);
	const char *word = "common";
	unsigned wp = storage_partition(word, strlen(word));
	static struct sdoc sd[BLK_DOCS];
	enum { W = STORAGE_BLOCK_DOCS / 2 };
	const unsigned char *first0;
	uint32_t n = 0, site, at = 0, n_blocks = 0;
	int bad = 0, rc;

	n = blk_docs(sd);
	ok(n == ARRAY_SIZE(sd) && one_word_gen(gen, word, sd, n, true) == 0,
	   "a generation of one word on %zu sites", ARRAY_SIZE(blk_sizes));
	ok(storage_blocks_open(gen, &bs, &err) == 0 && !bs,
	   "a generation without blocksum files has none");
	ok(storage_sums_write(gen, &err) == 0, "storage_sums_write %s", buf_str(&err));
	ok(storage_blocks_open(gen, &bs, &err) == 1 && bs, "storage_blocks_open %s", buf_str(&err));
	ok(storage_open_dir(gen, &st, &err) == 0, "the generation opens %s", buf_str(&err));
	if (!bs || !st)
		goto out;
	ok(storage_block_word(bs, wp, &bc) == 1 && storage_block_word(bs, wp + 100, &bc) == 0 &&
	   storage_block_word(bs, wp, &bc) == 1, "the word has blocks, an id past it none");
	/* Sites asked out of the walk's order (the rounds of prune_first()):
	 * storage_seek_site() and the block cursor hop forward by binary
	 * search, to the site asked or the first after it. */
	{
		static const struct { uint32_t ask; int want; } seeks[] = {
			{ 0, 0 }, { 3, 2 }, { 4, 3 }, { 5, 4 }, { 0xffffff04u, 4 },
			{ 0xffffff05u, 5 }, { 0xffffff06u, -1 }, { 2, 1 },
		};
		int missed = 0;
		uint32_t got;

		storage_postings(st, wp, c);
		for (size_t i = 0; i < ARRAY_SIZE(seeks); i++) {
			int want = seeks[i].want;

			storage_seek_site(c, seeks[i].ask);
			rc = storage_next_site(c, &got);
			if (want < 0 ? rc != 0 : rc != 1 || got != blk_site((uint32_t)want)) {
				diag("seek to %u: rc %d site %u", seeks[i].ask, rc, got);
				missed++;
			}
			storage_postings(st, wp, c); /* each from the first site */
		}
		storage_seek_site(c, 5);
		storage_seek_site(c, 1); /* forward only: stays */
		missed += storage_next_site(c, &got) != 1 || got != blk_site(4);
		is_int(missed, 0, "storage_seek_site() finds the first site at or after the one asked");
		ok(storage_block_word(bs, wp, &bc) == 1 &&
		   storage_block_site(&bc, blk_site(5), &first0) == (sizes[5] + W - 1) / W &&
		   storage_block_site(&bc, blk_site(5) + 1, &first0) == 0 &&
		   storage_block_word(bs, wp, &bc) == 1 &&
		   storage_block_site(&bc, blk_site(3), &first0) == (sizes[3] + W - 1) / W &&
		   storage_block_site(&bc, blk_site(4), &first0) == (sizes[4] + W - 1) / W,
		   "a site's blocks asked without the sites before it");
		storage_block_word(bs, wp, &bc);
	}
	rc = storage_postings(st, wp, c);
	ok(rc == 1 && storage_jump(c, 0) == -1 && c->err, "no jump before the first site");
	storage_postings(st, wp, c);
	for (uint32_t i = 0; storage_next_site(c, &site) == 1; i++) {
		const unsigned char *first;
		uint32_t nb = storage_block_site(&bc, site, &first);
		uint32_t want = sizes[i] > STORAGE_BLOCK ? (sizes[i] + W - 1) / W : 0;

		if (site != blk_site(i) || nb != want) {
			diag("site %u: %u blocks, %u expected", site, nb, want);
			bad++;
		}
		for (uint32_t b = nb; b-- > 0;) {
			struct storage_block blk;
			uint32_t lo = b * W;

			storage_block_at(first, b, &blk);
			bad += block_misses(c, &blk, site, sd + at + lo, sizes[i] - lo < W ? sizes[i] - lo : W);
		}
		n_blocks += nb;
		at += sizes[i];
	}
	is_int(bad, 0, "every block counts, bounds and locates its records");
	{
		uint32_t want = 0;

		for (uint32_t i = 0; i < ARRAY_SIZE(blk_sizes); i++)
			want += sizes[i] > STORAGE_BLOCK ? (sizes[i] + W - 1) / W : 0;
		is_int(n_blocks, want, "sites of more than %d records have ceil(n / %d) blocks",
		       STORAGE_BLOCK, W);
	}
	storage_postings(st, wp, c);
	storage_next_site(c, &site);
	ok(storage_jump(c, 0) == 0 && storage_jump(c, (uint64_t)(c->urls_end - c->urls_site)) == -1 &&
	   c->err,
	   "a jump past the site's records is refused");
	storage_close(st);
	st = NULL;
	storage_blocks_close(bs);
	bs = NULL;
	buf_reset(&err);
	is_int(storage_check(gen, &err), 0, "storage_check passes the blocks");
	if (err.len)
		diag("%s", buf_str(&err));
	path = xasprintf("%s/%02uw/blocksum", gen, wp);
	{
		size_t len;
		unsigned char *b = slurp_file(path, &len), *save = xmalloc(len);
		const unsigned char *first;

		memcpy(save, b, len);
		b[len - 30] ^= 0x10;
		rc = spill_check(gen, path, b, len, false, &err);
		ok(rc == 1 && strstr(buf_str(&err), "blocksum: offset 24: data crc mismatch"),
		   "a changed block byte is reported: %s", buf_str(&err));
		/* The first block's hull longer than an entry holds, with a data
		 * crc to match: not the postings' block, and its site gets none. */
		memcpy(b, save, len);
		b[HDR + SUM_WORD + 12] = STORAGE_SUM_HULL + 1;
		rc = spill_check(gen, path, b, len, true, &err);
		ok(rc == 1 && strstr(buf_str(&err), "blocksum: offset 32: the summaries are not"),
		   "a block that is not the postings' is reported: %s", buf_str(&err));
		{
			/* The first site with blocks (site blk_site(i)) and the next. */
			uint32_t i = 0, j;

			while (sizes[i] <= STORAGE_BLOCK)
				i++;
			for (j = i + 1; sizes[j] <= STORAGE_BLOCK; j++)
				;
			ok(storage_blocks_open(gen, &bs, &err) == 1 &&
			   storage_block_word(bs, wp, &bc) == 1 &&
			   storage_block_site(&bc, blk_site(i), &first) == 0 &&
			   storage_block_site(&bc, blk_site(j), &first) == (sizes[j] + W - 1) / W,
			   "a site with a damaged block has none, the next all of its own");
		}
		storage_blocks_close(bs);
		bs = NULL;
		/* A partition's file missing. */
		spill(path, save, len);
		unlink(path);
		buf_reset(&err);
		ok(storage_blocks_open(gen, &bs, &err) == -1 && !bs &&
		   strstr(buf_str(&err), "blocksum: cannot open"),
		   "a missing blocksum of one partition is refused: %s", buf_str(&err));
		buf_reset(&err);
		ok(storage_check(gen, &err) == 1 && strstr(buf_str(&err), "blocksum: cannot open"),
		   "and reported by storage_check: %s", buf_str(&err));
		spill(path, save, len);
		ok(storage_blocks_open(gen, &bs, &err) == 1, "and opens again once it is back");
		storage_blocks_close(bs);
		bs = NULL;
		free(b);
		free(save);
	}
	free(path);
	/* A generation of the first format (blocks of 32 records, magic byte 1
	 * in 00w) is read as one without blocks, and --check passes it. */
	path = xasprintf("%s/00w/blocksum", gen);
	{
		size_t len;
		unsigned char *b = slurp_file(path, &len), *save = xmalloc(len);

		memcpy(save, b, len);
		b[7] = 1;
		spill(path, b, len);
		buf_reset(&err);
		ok(storage_blocks_open(gen, &bs, &err) == 0 && !bs && storage_check(gen, &err) == 0,
		   "a blocksum of the first format is read as none %s", buf_str(&err));
		spill(path, save, len);
		free(b);
		free(save);
	}
	free(path);
out:
	storage_blocks_close(bs);
	storage_close(st);
	buf_free(&err);
	free(c);
	free(gen);
}

/* Skip entries (storage_skip.c): the one word of block_sums()'s sites (1,
 * 64, 65, 200, 129 and 700 records, some u32-wide) gets NNw/skips: a site
 * of STORAGE_SKIP_MIN records or more an entry for records STORAGE_SKIP,
 * 2 * STORAGE_SKIP, ... of it; a cursor at a site's start sent by
 * storage_skip_ahead() to any of its documents (or the one without the
 * word before it) and then read on finds the document's record, as the
 * plain walk does; ascending targets with one hint jump, and a cursor sent
 * back by storage_jump() is found again; storage_check() passes the files,
 * reports a changed byte and an entry that names another record, which
 * storage_skip_ahead() does not follow. */
static int skip_misses(struct storage_cursor *c, const struct storage *st, unsigned wp,
		       uint32_t site, const unsigned char *first, uint32_t n, const struct sdoc *d,
		       uint32_t size, uint32_t *jumps)
{
	uint32_t url, np, got, hint;
	const uint8_t *pos;
	int bad = 0;

	/* Each document from the site's start, and the one before it. */
	for (uint32_t k = 0; k < size; k += 1 + k % 5) {
		for (uint32_t back = 0; back < 2; back++) {
			storage_postings(st, wp, c);
			storage_seek_site(c, site);
			hint = 0;
			if (storage_next_site(c, &got) != 1 || got != site)
				return bad + 1;
			*jumps += (uint32_t)storage_skip_ahead(c, first, n, d[k].url - back, &hint);
			if (storage_skip_url(c, d[k].url - back, &url, &np, &pos) != 1 ||
			    url != d[k].url || np != d[k].npos) {
				diag("site %u: target %u: url %u", site, d[k].url - back, url);
				bad++;
			}
		}
	}
	/* Ascending targets with one hint, then a jump back and one more. */
	storage_postings(st, wp, c);
	storage_seek_site(c, site);
	storage_next_site(c, &got);
	hint = 0;
	for (uint32_t k = 0; k < size; k += 23) {
		*jumps += (uint32_t)storage_skip_ahead(c, first, n, d[k].url, &hint);
		bad += storage_skip_url(c, d[k].url, &url, &np, &pos) != 1 || url != d[k].url;
	}
	if (storage_jump(c, 0))
		return bad + 1;
	storage_skip_ahead(c, first, n, d[size / 2].url, &hint);
	bad += storage_skip_url(c, d[size / 2].url, &url, &np, &pos) != 1 || url != d[size / 2].url;
	return bad;
}

static void skip_entries(const char *root)
{
	const uint32_t *sizes = blk_sizes;
	char *gen = xasprintf("%s/skips/gen-00000001", root), *path = NULL;
	struct storage_skips *ks = NULL;
	struct storage_skip_cursor kc;
	struct storage_cursor *c = xmalloc(sizeof(*c));
	struct storage *st = NULL;
	struct buf err = BUF_INIT(1 << 16);
	const char *word = "common";
	unsigned wp = storage_partition(word, strlen(word));
	static struct sdoc sd[BLK_DOCS];
	uint32_t n = 0, at = 0, jumps = 0;
	int bad = 0;

	n = blk_docs(sd);
	ok(one_word_gen(gen, word, sd, n, true) == 0, "a generation of one word for skips");
	ok(storage_skips_open(gen, &ks, &err) == 0 && !ks, "a generation without skips has none");
	ok(storage_sums_write(gen, &err) == 0 && storage_skips_open(gen, &ks, &err) == 1 && ks,
	   "storage_sums_write writes skips %s", buf_str(&err));
	ok(storage_open_dir(gen, &st, &err) == 0, "the generation opens %s", buf_str(&err));
	if (!ks || !st)
		goto out;
	ok(storage_skip_word(ks, wp, &kc) == 1 && storage_skip_word(ks, wp + 100, &kc) == 0,
	   "the word has skip entries, an id past it none");
	storage_skip_word(ks, wp, &kc);
	for (uint32_t i = 0; i < ARRAY_SIZE(blk_sizes); i++) {
		const unsigned char *first;
		uint32_t ne = storage_skip_site(&kc, blk_site(i), &first);
		uint32_t want = sizes[i] >= STORAGE_SKIP_MIN ? (sizes[i] - 1) / STORAGE_SKIP : 0;

		if (ne != want) {
			diag("site %u: %u entries, %u expected", blk_site(i), ne, want);
			bad++;
		}
		if (ne)
			bad += skip_misses(c, st, wp, blk_site(i), first, ne, sd + at, sizes[i], &jumps);
		at += sizes[i];
	}
	is_int(bad, 0, "each site's entries, and every target found through them");
	ok(jumps > 100, "the cursors jumped (%u times)", jumps);
	storage_close(st);
	st = NULL;
	storage_skips_close(ks);
	ks = NULL;
	buf_reset(&err);
	is_int(storage_check(gen, &err), 0, "storage_check passes the skips %s", buf_str(&err));
	path = xasprintf("%s/%02uw/skips", gen, wp);
	{
		size_t len;
		unsigned char *b = slurp_file(path, &len), *save = xmalloc(len);
		const unsigned char *first;
		uint32_t url, np, hint = 0;
		const uint8_t *pos;
		int rc;

		memcpy(save, b, len);
		b[len - 3] ^= 0x10;
		rc = spill_check(gen, path, b, len, false, &err);
		ok(rc == 1 && strstr(buf_str(&err), "skips: offset 24: data crc mismatch"),
		   "a changed skip byte is reported: %s", buf_str(&err));
		/* The first entry (of site blk_site(1)) names the record after
		 * its own, with a data crc to match. */
		memcpy(b, save, len);
		le_put32(b + HDR + SUM_WORD + 4, sd[sizes[0] + STORAGE_SKIP + 1].url);
		rc = spill_check(gen, path, b, len, true, &err);
		ok(rc == 1 && strstr(buf_str(&err), "skips: offset 32: the summaries are not"),
		   "an entry that is not the postings' is reported: %s", buf_str(&err));
		ok(storage_skips_open(gen, &ks, &err) == 1 && storage_open_dir(gen, &st, &err) == 0 &&
		   storage_skip_word(ks, wp, &kc) == 1 &&
		   storage_skip_site(&kc, blk_site(1), &first) == (sizes[1] - 1) / STORAGE_SKIP &&
		   storage_postings(st, wp, c) == 1 && storage_next_site(c, &url) == 1 &&
		   storage_next_site(c, &url) == 1 &&
		   storage_skip_ahead(c, first, 1, sd[sizes[0] + STORAGE_SKIP + 1].url, &hint) == 0 &&
		   storage_skip_url(c, sd[sizes[0] + STORAGE_SKIP + 1].url, &url, &np, &pos) == 1 &&
		   url == sd[sizes[0] + STORAGE_SKIP + 1].url,
		   "and not followed: the walk finds the record");
		spill(path, save, len);
		free(b);
		free(save);
	}
out:
	storage_skips_close(ks);
	storage_close(st);
	buf_free(&err);
	free(path);
	free(c);
	free(gen);
}

int main(void)
{
	char tmpl[256];
	char *root = tap_mkdtemp(tmpl, sizeof(tmpl), "test-storage"), *gen, *data;
	struct storage *s = NULL;
	struct buf err = BUF_INIT(1 << 20);
	int k;

	log_open("/dev/null");
	make_model();
	data = xasprintf("%s/data", root);
	mkdir_p(data);
	gen = first_generation(data, &err);

	/* Round trip. */
	ok(storage_open(data, &s, &err) == 0, "open %s", buf_str(&err));
	if (!s)
		return done_testing();
	is_int(storage_generation(s), 1, "generation from FORMAT");
	is_int(compare(s), 0, "reader gives back the model (words, postings, docinfo)");
	release_pages(s);
	counts(s);
	seek_url(s);
	buf_reset(&err);
	k = storage_check(gen, &err);
	is_int(k, 0, "storage_check passes a good generation");
	if (k)
		diag("%s", buf_str(&err));
	{
		/* No word of 1,024 documents: no summary files at all. */
		char *p = xasprintf("%s/00w/sitesum", gen), *q = xasprintf("%s/99w/skips", gen);

		ok(storage_sums_write(gen, &err) == 0 && access(p, F_OK) < 0 && access(q, F_OK) < 0 &&
		   storage_check(gen, &err) == 0,
		   "a small generation gets no sitesum, blocksum or skips files");
		free(p);
		free(q);
	}
	storage_close(s);
	s = NULL;

	clone_and_publish(data, gen, &err);
	flips(gen, &err);
	entry_codec();
	big_offsets(root);
	old_version(root);
	docinfo_only(root);
	site_sums(root);
	block_sums(root);
	skip_entries(root);

	/* The live generation opens through the current symlink. */
	{
		char *dir = xasprintf("%s/index/current", data);
		struct storage *s2;

		ok(storage_open_dir(dir, &s2, &err) == 0, "open through the current symlink");
		storage_close(s2);
		free(dir);
	}

	for (int i = 0; i < N_WORDS; i++)
		free(words[i].p);
	buf_free(&err);
	free(gen);
	if (getenv("TEST_STORAGE_KEEP")) {
		diag("kept %s", root);
	} else {
		char *cmd = xasprintf("rm -rf '%s'", root);
		if (system(cmd) != 0)
			diag("cannot remove %s", root);
		free(cmd);
	}
	free(data);
	return done_testing();
}
