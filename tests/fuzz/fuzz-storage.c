/* fuzz-storage.c - libFuzzer target for the CompactStorage reader and
 * checker.
 *
 * A small valid generation is written once (one word of partition 0 with
 * enough URLs for site and block summaries); each input replaces one of its
 * files (byte 0 picks which, bit 0 of byte 1 says whether to give the bytes
 * a valid header crc so the fuzzer gets past the header) and the generation
 * is opened, walked through every reader call (the blocks' jumps and the
 * skip entries' too), and
 * checked.  Whatever the bytes: no crash, no leak, and storage_check()
 * reports damage it finds with a non-empty report.  FUZZ_STORAGE_SEEDS=DIR
 * writes the generation's files into DIR as seeds (tests/fuzz/corpus/storage).
 */
#include "config.h"

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "log.h"
#include "storage.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static char *gen;
static char top[] = "/tmp/fuzz-storage-XXXXXX";
static const char *const files[] = {
	"FORMAT", "docinfo", "00w/ind", "00w/sites", "00w/urls", "00w/words",
	"01w/ind", "01w/sites", "01w/urls", "01w/words", "00w/sitesum", "01w/sitesum",
	"00w/blocksum", "01w/blocksum", "00w/skips", "01w/skips",
};
#define N_FILES (sizeof(files) / sizeof(files[0]))
static unsigned char *orig[N_FILES];
static size_t orig_len[N_FILES];

static void spill(const char *rel, const void *p, size_t n)
{
	char *path = xasprintf("%s/%s", gen, rel);
	FILE *fp = fopen(path, "wb");

	if (fp) {
		if (n)
			fwrite(p, 1, n, fp);
		fclose(fp);
	}
	free(path);
}

static unsigned char *slurp(const char *rel, size_t *n)
{
	char *path = xasprintf("%s/%s", gen, rel);
	FILE *fp = fopen(path, "rb");
	unsigned char *p = xmalloc(1 << 20);

	*n = fp ? fread(p, 1, 1 << 20, fp) : 0;
	if (fp)
		fclose(fp);
	free(path);
	return p;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The generation's directory goes when the fuzzer exits (its runs end in
 * exit()). */
static void cleanup(void)
{
	nftw(top, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The big word: the first "b<i>" of partition 0. */
static void big_word(char word[16])
{
	for (int i = 0;; i++) {
		snprintf(word, 16, "b%d", i);
		if (storage_partition(word, strlen(word)) == 0)
			return;
	}
}

/* Each file as a seed of DIR (byte 0 its index, byte 1 zero). */
static void write_seeds(const char *dir)
{
	for (size_t i = 0; i < N_FILES; i++) {
		char *path = xasprintf("%s/seed-%02zu-%s", dir, i, files[i]);
		char *sl = strchr(path + strlen(dir) + 1, '/');
		FILE *fp;

		if (sl)
			*sl = '-';
		if ((fp = fopen(path, "wb"))) {
			fputc((int)i, fp);
			fputc(0, fp);
			fwrite(orig[i], 1, orig_len[i], fp);
			fclose(fp);
		}
		free(path);
	}
}

/* Words "a0".."a399": enough for both partitions 0 and 1 to have some; the
 * big word last in partition 0, on sites 5 (200 URLs: four blocks) and 6
 * (1,000: sixteen). */
static void setup(void)
{
	struct storage_format f = { .generation = 1 };
	struct storage_docinfo_writer *dw;
	char big[16];

	log_open("/dev/null");
	CHECK(mkdtemp(top) != NULL);
	atexit(cleanup);
	gen = xasprintf("%s/gen-00000001", top);
	mkdir_p(gen);
	big_word(big);
	for (unsigned p = 0; p < 100; p++) {
		struct storage_part_writer *w;

		CHECK(storage_part_begin(gen, p, &w, NULL) == 0);
		for (int i = 0; i < 400; i++) {
			char word[16];
			uint32_t pos[3] = { 1, 5 + i, 0x3000000u + i };

			snprintf(word, sizeof(word), "a%d", i);
			if (storage_partition(word, strlen(word)) != p)
				continue;
			storage_part_word(w, word, strlen(word));
			f.words++;
			if (i % 5 == 4)
				continue;
			f.live_words++;
			for (uint32_t s = 1 + i % 3; s < 4; s++) {
				storage_part_site(w, s);
				for (uint32_t u = s; u < 20; u += 4) {
					storage_part_url(w, u, pos, 1 + (u + i) % 3);
					f.postings++;
				}
			}
		}
		if (p == 0) {
			uint32_t pos[3] = { 1, 20000, 0x3000000u };

			storage_part_word(w, big, strlen(big));
			f.words++;
			f.live_words++;
			for (uint32_t u = 20; u < 1220; u++, f.postings++) {
				if (u == 20 || u == 220)
					storage_part_site(w, u == 20 ? 5 : 6);
				storage_part_url(w, u, pos + u % 2, 1 + u % 2);
			}
		}
		CHECK(storage_part_finish(w, NULL) == 0);
	}
	CHECK(storage_docinfo_begin(gen, &dw, NULL) == 0);
	for (uint32_t u = 1; u < 1220; u++) {
		struct storage_doc d = { .site_id = 1 + (u - 1) % 4, .len = { 10, 2, 3, 4 } };
		if (d.site_id == 4)
			d.site_id = 0;
		if (u >= 20)
			d.site_id = u < 220 ? 5 : 6;
		if (d.site_id)
			storage_docinfo_put(dw, u, &d);
	}
	CHECK(storage_docinfo_finish(dw, &f.n_docs, f.sum_len, &f.max_url_id, NULL) == 0);
	CHECK(storage_format_write(gen, &f, NULL) == 0);
	CHECK(storage_sums_write(gen, NULL) == 0);
	for (size_t i = 0; i < N_FILES; i++)
		orig[i] = slurp(files[i], &orig_len[i]);
	if (getenv("FUZZ_STORAGE_SEEDS"))
		write_seeds(getenv("FUZZ_STORAGE_SEEDS"));
}

static int cb(void *arg, const char *w, size_t len, const struct storage_word *sw)
{
	(void)w;
	*(uint64_t *)arg += len + sw->n_urls;
	return 0;
}

static uint64_t walk(const struct storage *s)
{
	static struct storage_cursor c;
	uint64_t sum = 0;

	for (unsigned p = 0; p < 100; p++)
		for (uint32_t k = 0; k < storage_part_words(s, p); k++) {
			uint32_t id = k * 100 + p, site, url, n;
			size_t len;
			const char *t = storage_word_text(s, id, &len);
			struct storage_word w;

			if (t) {
				CHECK(len >= 1 && len <= 64);
				sum += (unsigned char)t[len - 1];
				storage_word(s, t, len, &w);
			}
			if (storage_postings(s, id, &c) != 1)
				continue;
			while (storage_next_site(&c, &site) == 1) {
				if (storage_seek_url(&c, 7, &url, &n) == 1)
					sum += c.pos[n - 1];
				while (storage_next_url(&c, &url, &n) == 1) {
					CHECK(n >= 1 && n <= 65535);
					sum += url + c.pos[n - 1];
				}
			}
		}
	storage_words_prefix(s, "a1", 2, 50, cb, &sum);
	for (uint32_t u = 0; u < 30; u++) {
		struct storage_doc d;
		if (storage_doc(s, u, &d) == 1)
			sum += d.len[0];
	}
	return sum;
}

/* Every block of every word, each jumped to in s (NULL: not opened). */
static uint64_t walk_blocks(const struct storage *s, const struct storage_blocks *b)
{
	static struct storage_cursor c;
	uint64_t sum = 0;

	for (uint32_t id = 0; id < 1000; id++) {
		struct storage_block_cursor bc;
		uint32_t site = 0;
		int more = 1;

		if (storage_block_word(b, id, &bc) != 1)
			continue;
		if (s)
			more = storage_postings(s, id, &c) == 1 &&
			       storage_next_site(&c, &site) == 1;
		for (uint32_t ask = 0; ask < 8; ask++) {
			const unsigned char *first;
			uint32_t n = storage_block_site(&bc, ask, &first);

			while (s && more && site < ask)
				more = storage_next_site(&c, &site) == 1;
			for (uint32_t i = 0; i < n; i++) {
				struct storage_block blk;
				uint32_t url, np;
				const uint8_t *pos;

				storage_block_at(first, i, &blk);
				CHECK(blk.s.n_hull <= STORAGE_SUM_HULL);
				CHECK(blk.win_lo <= blk.s.min_url && blk.s.min_url <= blk.max_url);
				sum += blk.max_url + blk.off + blk.win_lo;
				if (s && more && site == ask && storage_jump(&c, blk.off) == 0 &&
				    storage_skip_url(&c, 0, &url, &np, &pos) == 1)
					sum += url + storage_rec_pos(pos, np - 1);
				c.err = 0; /* a bad jump: the next block's may be good */
			}
		}
	}
	return sum;
}

/* Every word's skip entries, each site's cursor sent ahead by them to
 * targets 1, 40, 80, ... and read on (s NULL: the entries alone). */
static uint64_t walk_skips(const struct storage *s, const struct storage_skips *k)
{
	static struct storage_cursor c;
	uint64_t sum = 0;

	for (uint32_t id = 0; id < 1000; id++) {
		struct storage_skip_cursor kc;
		uint32_t site;

		if (storage_skip_word(k, id, &kc) != 1)
			continue;
		if (!s) {
			for (uint32_t ask = 0; ask < 8; ask++) {
				const unsigned char *first;
				uint32_t n = storage_skip_site(&kc, ask, &first);

				for (uint32_t i = 0; i <= n; i++)
					sum += storage_skip_entry_url(first, n, i);
			}
			continue;
		}
		if (storage_postings(s, id, &c) != 1)
			continue;
		while (storage_next_site(&c, &site) == 1) {
			const unsigned char *first;
			uint32_t n = storage_skip_site(&kc, site, &first), hint = 0, url, np;
			const uint8_t *pos;

			for (uint32_t t = 1; t < 2000 && n; t += 39) {
				sum += (uint64_t)storage_skip_ahead(&c, first, n, t, &hint);
				if (storage_skip_url(&c, t, &url, &np, &pos) != 1)
					break;
				CHECK(url >= t);
				sum += url + storage_rec_pos(pos, np - 1);
			}
			c.err = 0;
		}
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct storage *s;
	struct storage_sums *ss;
	struct storage_blocks *bs;
	struct storage_skips *ks;
	struct buf rep = BUF_INIT(1 << 20);
	size_t which;
	unsigned char *copy;

	if (!gen)
		setup();
	if (size < 2)
		return 0;
	which = data[0] % N_FILES;
	copy = xmalloc(size);
	memcpy(copy, data + 2, size - 2);
	if ((data[1] & 1) && size - 2 >= 32 && which > 0) {
		uint32_t c = (uint32_t)crc32(0L, copy, 28);
		for (int i = 0; i < 4; i++)
			copy[28 + i] = (unsigned char)(c >> (8 * i));
	}
	spill(files[which], copy, size - 2);
	if (storage_open_dir(gen, &s, NULL) == 0)
		walk(s);
	else
		s = NULL;
	if (storage_blocks_open(gen, &bs, NULL) == 1) {
		walk_blocks(s, bs);
		storage_blocks_close(bs);
	}
	if (storage_skips_open(gen, &ks, NULL) == 1) {
		walk_skips(s, ks);
		storage_skips_close(ks);
	}
	storage_close(s);
	if (storage_sums_open(gen, &ss, NULL) == 1) {
		for (uint32_t id = 0; id < 1000; id++) {
			struct storage_sum_cursor c;
			struct storage_sum m;

			for (uint32_t site = 0; site < 6 && storage_sum_word(ss, id, &c) == 1; site++)
				if (storage_sum_site(&c, site, &m) == 1)
					CHECK(m.n_hull <= STORAGE_SUM_HULL);
		}
		storage_sums_close(ss);
	}
	if (storage_check(gen, &rep) == 1)
		CHECK(rep.len > 0);
	spill(files[which], orig[which], orig_len[which]);
	buf_free(&rep);
	free(copy);
	return 0;
}
