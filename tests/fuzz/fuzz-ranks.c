/* fuzz-ranks.c - libFuzzer target for the readers of the PageRank files
 * (ranks.c, citations.c), which searchd runs on files of a generation.
 *
 * Byte 0 picks the file (ranks, citations/direct, citations/reverse, links); bit 0
 * of byte 1 says whether to give the rest a valid header CRC (so that the
 * fuzzer gets past the header).  The file is opened and every lookup made:
 * whatever the bytes, no crash, no leak, values in [0, 1], lists inside the
 * file.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "citations.h"
#include "log.h"
#include "ranks.h"
#include "util.h"

#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static char *dir;

static void put(const char *rel, const uint8_t *p, size_t n, size_t crc_at)
{
	char *path = xasprintf("%s/%s", dir, rel);
	unsigned char *copy = xmalloc(n + 1);

	memcpy(copy, p, n);
	if (crc_at && n >= crc_at + 4) {
		uint32_t c = (uint32_t)crc32(0L, copy, (uInt)crc_at);

		for (int i = 0; i < 4; i++)
			copy[crc_at + i] = (unsigned char)(c >> (8 * i));
	}
	fuzz_write_file(path, copy, n);
	free(copy);
	free(path);
}

/* The scratch directory goes when the fuzzer exits. */
static void cleanup(void)
{
	static const char *const names[] = {
		RANKS_FILE, CITATIONS_DIR "/direct", CITATIONS_DIR "/reverse", CITATIONS_DIR,
		LINKS_FILE, "",
	};

	for (size_t i = 0; dir && i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);

		remove(p);  /* may not exist: this run never wrote it */
		free(p);
	}
	free(dir);
	dir = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(1024);

	if (!dir) {
		char tmpl[] = "/tmp/fuzz-ranks.XXXXXX";

		char *c;

		log_set_level(LOG_ERROR);
		if (!mkdtemp(tmpl))
			abort();
		dir = xstrdup(tmpl);
		atexit(cleanup);
		c = xasprintf("%s/%s", dir, CITATIONS_DIR);
		if (mkdir_p(c))
			abort();
		free(c);
	}
	if (size < 2)
		return 0;
	int which = data[0] % 4;
	bool fix = data[1] & 1;

	data += 2;
	size -= 2;
	if (which == 0) {
		struct ranks *r = NULL;

		put(RANKS_FILE, data, size, fix ? 60 : 0);
		if (ranks_open(dir, &r, &err) == 1) {
			uint32_t n = ranks_meta(r)->n_url_ids;

			for (uint32_t u = 0; u < n + 2 && u < 100000; u++) {
				double v = ranks_get(r, u), s = ranks_score(r, u);

				CHECK(v >= 0 && v <= 1 && s >= 0 && s <= 1);
			}
			CHECK(ranks_get(r, UINT32_MAX) == 0);
		}
		ranks_close(r);
		CHECK(ranks_verify(dir, &err) != 1 || r);
	} else {
		static const enum citations_kind kinds[] = { CITATIONS_DIRECT, CITATIONS_REVERSE,
							     CITATIONS_LINKS };
		static const char *const files[] = { CITATIONS_DIR "/direct",
						     CITATIONS_DIR "/reverse", LINKS_FILE };
		enum citations_kind kind = kinds[which - 1];
		struct citations *c = NULL;

		put(files[which - 1], data, size, fix ? 36 : 0);
		if (citations_open(dir, kind, &c, &err) == 1) {
			uint32_t n = citations_n_url_ids(c);

			for (uint32_t u = 0; u < n + 2 && u < 100000; u++) {
				const unsigned char *l;
				size_t k;
				uint64_t s = 0;

				if (citations_list(c, u, &l, &k) == 1)
					for (size_t i = 0; i < k; i++)
						s += citations_at(l, i);
				(void)s;
			}
		}
		citations_close(c);
		CHECK(citations_verify(dir, kind, &err) != 1 || c);
	}
	buf_free(&err);
	return 0;
}
