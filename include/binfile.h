/* binfile.h - the plumbing of mpseek's own binary files (ranks, citations):
 * little-endian packing, atomic replacement (temp file, fsync, rename, fsync
 * of the directory) and read-only mappings.  No format knowledge here.
 */
#ifndef MPSEEK_BINFILE_H
#define MPSEEK_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "le.h"   /* the packing: le_put32(), le_get64(), le_putd()... */

/* A file being written as `path`: the bytes go to "path.tmp.<pid>" until
 * binfile_commit() makes them durable and renames them over path. */
struct binfile {
	int fd;
	char *path, *tmp;    /* malloc'd */
	unsigned char buf[1 << 16];
	size_t len;          /* buffered bytes */
	int failed;
	int summing;         /* binfile_sum_start() was called */
	uint32_t sum;        /* CRC-32 of the bytes written since */
};
/* Returns 0 or -1 (logged). */
int binfile_create(struct binfile *f, const char *path);
int binfile_write(struct binfile *f, const void *data, size_t n);
/* Overwrite n bytes at offset `off` (after the data is written: headers
 * that need totals).  Returns 0 or -1. */
int binfile_pwrite(struct binfile *f, const void *data, size_t n, uint64_t off);
/* The data checksum every generation file carries (doc/FORMATS.md,
 * "Checksums"): call binfile_sum_start() after writing the header; every
 * binfile_write() from then on is summed, and binfile_sum() gives the CRC-32
 * to pwrite into the header before binfile_commit().  binfile_pwrite() is
 * not summed (it patches headers). */
void binfile_sum_start(struct binfile *f);
uint32_t binfile_sum(const struct binfile *f);
/* Flush, fsync, rename, fsync the directory; frees f.  Returns 0 or -1. */
int binfile_commit(struct binfile *f);
/* Remove the temp file and free f (after a failure).  Accepts a zeroed f. */
void binfile_abort(struct binfile *f);

/* Map `path` read-only: 1 with *p and *size (unmap with binfile_unmap()), 0
 * when it does not exist, -1 on another error (errno set).  An empty file
 * gives *p = NULL, *size = 0. */
int binfile_map(const char *path, const unsigned char **p, size_t *size);
void binfile_unmap(const unsigned char *p, size_t size);

struct buf;
/* Map `path` and check the header both formats share: the 8-byte magic at
 * offset 0, the u32 version at 8, and at crc_off the CRC-32 of bytes
 * [0, crc_off); the file holds at least `header` bytes.  `kind` names the
 * format in messages ("not a ranks file").  1 with the mapping, 0 when the
 * file does not exist, -1 with "path: what is wrong" in err (logged when
 * err is NULL). */
int binfile_open_checked(const char *path, const unsigned char magic[8], uint32_t version,
			 size_t crc_off, size_t header, const char *kind,
			 const unsigned char **p, size_t *size, struct buf *err);
/* The CRC-32 (zlib's) of a header's bytes [0, n): what the writers store at
 * crc_off and binfile_open_checked() compares. */
uint32_t binfile_crc(const unsigned char *p, size_t n);
/* The CRC-32 crc (0 to start) carried on over p[0..n): zlib's crc32(), by
 * libdeflate (several times faster; the same values). */
uint32_t binfile_crc_update(uint32_t crc, const void *p, size_t n);
/* Verify a mapped file's data checksum: the CRC-32 of p[from, size) against
 * `stored`, the value at header offset sum_off.  0, or -1 with
 * "path: offset <sum_off>: data crc mismatch: bytes <from>..<size> are not
 * what was written" in err (logged when err is NULL).  Reads the whole
 * range: about 0.1 s per GB here (libdeflate's CRC-32). */
int binfile_verify_sum(const unsigned char *p, size_t size, size_t from, uint32_t stored,
		       size_t sum_off, const char *path, struct buf *err);
/* "path: what" into err (reset first), or logged when err is NULL.  -1. */
int binfile_damaged(struct buf *err, const char *path, const char *what);

#endif
