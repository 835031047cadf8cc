/* fuzz-stems.c - libFuzzer target for the reader of a generation's stem map
 * (stems.c), which searchd runs on the file `stems` of each generation.
 *
 * Bit 0 of byte 0 says whether to give the rest valid CRCs (the data's at
 * 24, the header's at 28) so that the fuzzer gets past them.  The file is
 * opened and looked up: whatever the bytes, no crash, no leak, every form
 * inside the file and not empty.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binfile.h"
#include "buf.h"
#include "log.h"
#include "stems.h"
#include "util.h"

#include "fuzz-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static char *path;

static void cleanup(void)
{
	if (path)
		remove(path);
	free(path);
	path = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const q[] = { "", "a", "connect", "cat", "\xff\xff", "zz" };
	struct buf err = BUF_INIT(1024);
	struct stems *s = NULL;
	struct stems_form f[STEMS_MAX_FORMS];

	if (!path) {
		log_set_level(LOG_ERROR);
		path = xasprintf("/tmp/fuzz-stems.%ld", (long)getpid());
		atexit(cleanup);
	}
	if (size < 1)
		return 0;
	fuzz_put_file(path, data + 1, size - 1, data[0] & 1);
	if (stems_open_file(path, &s, &err) == 1) {
		CHECK(strlen(stems_language(s)) < STEMS_LANG_LEN);
		for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
			size_t n = stems_forms(s, q[i], strlen(q[i]), f, STEMS_MAX_FORMS);

			for (size_t k = 0; k < n && k < STEMS_MAX_FORMS; k++)
				CHECK(f[k].len > 0 && f[k].word);
		}
	}
	stems_close(s);
	buf_free(&err);
	return 0;
}
