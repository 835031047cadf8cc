/* fuzz-grams.c - libFuzzer target for the reader of a generation's list of
 * common words (grams.c), which searchd runs on the file `grams` of each
 * generation.
 *
 * Bit 0 of byte 0 says whether to give the rest valid CRCs (the data's at
 * 24, the header's at 28) so that the fuzzer gets past them.  The file is
 * read and its words looked up: whatever the bytes, no crash, no leak,
 * every word read back found at its place.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "caps.h"
#include "grams.h"
#include "log.h"
#include "storage.h"
#include "util.h"

#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static char *dir, *path;

static void cleanup(void)
{
	if (path)
		remove(path);
	if (dir)
		rmdir(dir);
	free(path);
	free(dir);
	path = dir = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf err = BUF_INIT(1024);
	struct grams *g = NULL;

	if (!dir) {
		log_set_level(LOG_ERROR);
		dir = xasprintf("/tmp/fuzz-grams.%ld", (long)getpid());
		path = xasprintf("%s/grams", dir);
		mkdir(dir, 0700);
		atexit(cleanup);
	}
	if (size < 1)
		return 0;
	fuzz_put_file(path, data + 1, size - 1, data[0] & 1);
	if (grams_read(dir, &g, &err) == 1) {
		CHECK(grams_count(g) > 0 && grams_count(g) <= GRAMS_MAX_WORDS);
		for (size_t i = 0; i < grams_count(g); i++) {
			size_t len;
			const char *w = grams_word(g, i, &len);
			char key[MAX_WORD_LEN];
			size_t kl = storage_gram_key(w, len, w, len, key);

			CHECK(len > 0 && len <= MAX_WORD_LEN - 2 && grams_find(g, w, len) == (int)i);
			CHECK(!kl || grams_key_in(g, key, kl));
		}
	} else {
		CHECK(g == NULL);
	}
	grams_free(g);
	buf_free(&err);
	return 0;
}
