/* fuzz-delta.c - libFuzzer target for the delta log reader.
 *
 * Each input is read twice through delta_reader_open_mem(): as given, and
 * with the header and every frame's crc recomputed, so that the fuzzer also
 * reaches the payload checks behind the crcs.  Whatever the bytes, the
 * reader must not crash or leak, and what it returns must keep the promises
 * of delta.h (which this target checks, trapping otherwise).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "caps.h"
#include "delta.h"
#include "log.h"
#include "storage.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void check_rec(const struct delta_rec *r, size_t size)
{
	CHECK(r->url_id != 0);
	CHECK(r->offset >= 28 && r->offset < size);
	if (r->type == DELTA_DOC) {
		for (uint32_t i = 0; i < r->n_words; i++) {
			const struct delta_word *w = &r->words[i];
			CHECK(w->len >= 1 && w->len <= MAX_WORD_LEN && strlen(w->word) == w->len);
			CHECK(w->n_pos >= 1);
			for (uint32_t j = 1; j < w->n_pos; j++)
				CHECK(w->pos[j] > w->pos[j - 1]);
			if (i) {
				const struct delta_word *p = &r->words[i - 1];
				size_t m = p->len < w->len ? p->len : w->len;
				int c = memcmp(p->word, w->word, m);
				CHECK(c < 0 || (c == 0 && p->len < w->len));
			}
			CHECK(storage_partition(w->word, w->len) < STORAGE_PARTITIONS);
		}
	} else if (r->type == DELTA_HREFS) {
		for (uint32_t i = 0; i < r->n_hrefs; i++)
			CHECK(r->hrefs[i] > (i ? r->hrefs[i - 1] : 0));
	} else if (r->type == DELTA_REDIR) {
		CHECK(r->target != 0);
	} else {
		CHECK(r->type == DELTA_DEL || r->type == DELTA_LASTMOD);
	}
}

static void read_all(const uint8_t *data, size_t size)
{
	struct delta_reader *r = delta_reader_open_mem("fuzz", data, size, NULL);
	struct delta_rec rec;
	int k;

	if (!r)
		return;
	while ((k = delta_next(r, &rec)) > 0)
		check_rec(&rec, size);
	CHECK(delta_next(r, &rec) == k); /* the end is sticky */
	if (k == 0 && delta_reader_torn(r) >= 0)
		CHECK(strstr(delta_reader_msg(r), "torn tail at offset") != NULL);
	if (k < 0)
		CHECK(*delta_reader_msg(r) != '\0');
	CHECK(delta_reader_good_end(r) <= size);
	delta_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	uint8_t *copy;
	size_t off = 28;

	if (!quiet) {
		log_open("/dev/null");
		quiet = 1;
	}
	read_all(data, size);
	if (size < 28)
		return 0;
	copy = xmalloc(size);
	memcpy(copy, data, size);
	memcpy(copy, "MPSDLT\0\1\1\0\0\0", 12);
	wr32(copy + 24, (uint32_t)crc32(0L, copy, 24));
	while (size - off >= 9) {
		uint32_t len = rd32(copy + off);
		if (len > size - off - 9)
			break;
		wr32(copy + off + 4, (uint32_t)crc32(0L, copy + off + 8, len + 1));
		off += 9 + (size_t)len;
	}
	read_all(copy, size);
	free(copy);
	return 0;
}
