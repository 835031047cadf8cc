/* fuzz-delta.c - libFuzzer target for the delta log reader.
 *
 * Each input is read twice through delta_reader_open_mem(): as given, and
 * with the header and every frame's crc recomputed, so that the fuzzer also
 * reaches the payload checks behind the crcs (the version kept when it is
 * one this build reads, else one of them chosen by it).  Whatever the
 * bytes, the reader must not crash or leak, and what it returns must keep
 * the promises of delta.h (which this target checks, trapping otherwise).
 * Each of the two is read twice more: plain, and calling delta_text_at()
 * after every DOC (which must keep delta.h's promises for it, and must not
 * change what delta_next() returns nor where it ends).
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
	} else if (r->type == DELTA_TEXT) {
		const char *f[5] = { r->text.content_type, r->text.charset, r->text.title,
				     r->text.description, r->text.keywords };
		for (int i = 0; i < 5; i++)
			CHECK(f[i] && strlen(f[i]) <= DELTA_MAX_TEXT_FIELD);
		CHECK(r->text.blob_len <= size);
		CHECK(r->text.blob_len == 0 || r->text.blob != NULL);
	} else if (r->type == DELTA_REDIR) {
		CHECK(r->target != 0);
	} else {
		CHECK(r->type == DELTA_DEL || r->type == DELTA_LASTMOD);
	}
}

/* What one read saw: compared between the plain read and the one that
 * calls delta_text_at(). */
struct seen {
	int k;                 /* the last delta_next() */
	uint64_t count, sum;   /* records, and a hash of their types and offsets */
	int64_t torn;
	uint64_t good_end;
};

/* The TEXT after the DOC rec (delta_text_at()'s promises), then a few
 * offsets that are no DOC's. */
static void check_text_at(struct delta_reader *r, const struct delta_rec *doc, size_t size)
{
	struct delta_rec t;
	int k = delta_text_at(r, doc->offset, doc->url_id, &t);

	CHECK(k >= -1 && k <= 1);
	if (k == 1) {
		CHECK(t.type == DELTA_TEXT && t.url_id == doc->url_id && t.offset > doc->offset);
		check_rec(&t, size);
	}
	if (k < 0)
		CHECK(*delta_reader_msg(r) != '\0');
	k = delta_text_at(r, doc->offset + 1, doc->url_id, &t);
	CHECK(k >= -1 && k <= 1);
	k = delta_text_at(r, (uint64_t)size + 1, doc->url_id, &t);
	CHECK(k == 0);
}

static struct seen read_all(const uint8_t *data, size_t size, int text_at)
{
	struct delta_reader *r = delta_reader_open_mem("fuzz", data, size, NULL);
	struct delta_rec rec;
	struct seen s = { 0 };

	s.k = -2;
	if (!r)
		return s;
	while ((s.k = delta_next(r, &rec)) > 0) {
		check_rec(&rec, size);
		s.count++;
		s.sum = s.sum * 31 + rec.offset * 8 + rec.type;
		if (text_at && rec.type == DELTA_DOC)
			check_text_at(r, &rec, size);
	}
	CHECK(delta_next(r, &rec) == s.k); /* the end is sticky */
	if (s.k == 0 && delta_reader_torn(r) >= 0)
		CHECK(strstr(delta_reader_msg(r), "torn tail at offset") != NULL);
	if (s.k < 0)
		CHECK(*delta_reader_msg(r) != '\0');
	CHECK(delta_reader_good_end(r) <= size);
	s.torn = delta_reader_torn(r);
	s.good_end = delta_reader_good_end(r);
	delta_reader_close(r);
	return s;
}

/* Read plain and with delta_text_at() after each DOC: the same records
 * and the same end (delta_text_at() does not move delta_next()). */
static void read_twice(const uint8_t *data, size_t size)
{
	struct seen a = read_all(data, size, 0), b = read_all(data, size, 1);

	CHECK(a.k == b.k && a.count == b.count && a.sum == b.sum && a.torn == b.torn &&
	      a.good_end == b.good_end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	uint8_t *copy;
	size_t off = 28;
	uint32_t version;

	if (!quiet) {
		log_open("/dev/null");
		quiet = 1;
	}
	read_twice(data, size);
	if (size < 28)
		return 0;
	copy = xmalloc(size);
	memcpy(copy, data, size);
	version = rd32(copy + 8);
	memcpy(copy, "MPSDLT\0\1", 8);
	wr32(copy + 8, version >= 1 && version <= 3 ? version : version % 3 + 1);
	wr32(copy + 24, (uint32_t)crc32(0L, copy, 24));
	while (size - off >= 9) {
		uint32_t len = rd32(copy + off);
		if (len > size - off - 9)
			break;
		wr32(copy + off + 4, (uint32_t)crc32(0L, copy + off + 8, len + 1));
		off += 9 + (size_t)len;
	}
	read_twice(copy, size);
	free(copy);
	return 0;
}
