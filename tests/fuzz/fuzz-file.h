/* fuzz-file.h - what the fuzz targets of generation files share: the
 * bytes written as the file a reader opens, with the common 32-byte
 * header's checksums (doc/FORMATS.md: the data's CRC-32 at 24, the
 * header's at 28) made right on request, so that the fuzzer gets past
 * them.  Included by each target that needs it (they are linked alone).
 */
#ifndef MPSEEK_FUZZ_FILE_H
#define MPSEEK_FUZZ_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "util.h"

/* n bytes as the file path (an error leaves it as it is). */
static inline void fuzz_write_file(const char *path, const unsigned char *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	if (fp) {
		if (n)
			fwrite(p, 1, n, fp);
		fclose(fp);
	}
}

static inline void fuzz_put_file(const char *path, const uint8_t *p, size_t n, bool fix)
{
	unsigned char *copy = xmalloc(n + 1);

	memcpy(copy, p, n);
	if (fix && n >= 32) {
		le_put32(copy + 24, binfile_crc_update(0, copy + 32, n - 32));
		le_put32(copy + 28, binfile_crc(copy, 28));
	}
	fuzz_write_file(path, copy, n);
	free(copy);
}

#endif
