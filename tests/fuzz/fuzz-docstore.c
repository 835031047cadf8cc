/* fuzz-docstore.c - libFuzzer target for the docstore reader
 * (src/index/docstore.c), which searchd runs on a generation's file.
 *
 * Bit 0 of byte 0 says whether to give the rest a valid header CRC (so that
 * the fuzzer gets past the header to the block table and the blocks).  The
 * bytes are opened in memory, the first url_ids and those of every block's
 * bounds looked up, and the whole store verified: whatever the bytes, no
 * crash, no leak, answers inside their caps.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "docstore.h"
#include "log.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void check_doc(const struct docstore_doc *d)
{
	CHECK(d->title && d->description && d->keywords && d->content_type && d->charset);
	CHECK(strlen(d->title) <= DOCSTORE_MAX_FIELD && d->text && d->text_len <= DOCSTORE_MAX_TEXT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(1024);
	struct docstore *ds = NULL;
	struct docstore_cursor cur = { 0 };
	struct docstore_doc d;
	unsigned char *copy;
	bool fix;

	log_set_level(LOG_ERROR);
	if (size < 1)
		return 0;
	fix = data[0] & 1;
	data++;
	size--;
	copy = xmalloc(size ? size : 1);
	memcpy(copy, data, size);
	if (fix && size >= 32) {
		uint32_t c = (uint32_t)crc32(0L, copy, 28);

		for (int i = 0; i < 4; i++)
			copy[28 + i] = (unsigned char)(c >> (8 * i));
	}
	if (docstore_open_mem(copy, size, &ds, &err) == 1) {
		for (uint32_t id = 0; id < 64; id++) {
			/* The records alone first, then with the texts. */
			if (docstore_get_fields(ds, &cur, id, &d, &err) == 1)
				CHECK(d.title && d.charset && !d.text && !d.text_len);
			if (docstore_get(ds, &cur, id, &d, &err) == 1)
				check_doc(&d);
		}
		CHECK(docstore_get(ds, &cur, UINT32_MAX, &d, &err) >= -1);
		(void)docstore_verify(ds, NULL, NULL, &err);
	}
	docstore_cursor_free(&cur);
	docstore_close(ds);
	free(copy);
	buf_free(&err);
	return 0;
}
