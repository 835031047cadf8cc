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
};
/* Returns 0 or -1 (logged). */
int binfile_create(struct binfile *f, const char *path);
int binfile_write(struct binfile *f, const void *data, size_t n);
/* Overwrite n bytes at offset `off` (after the data is written: headers
 * that need totals).  Returns 0 or -1. */
int binfile_pwrite(struct binfile *f, const void *data, size_t n, uint64_t off);
/* Flush, fsync, rename, fsync the directory; frees f.  Returns 0 or -1. */
int binfile_commit(struct binfile *f);
/* Remove the temp file and free f (after a failure).  Accepts a zeroed f. */
void binfile_abort(struct binfile *f);

/* Map `path` read-only: 1 with *p and *size (unmap with binfile_unmap()), 0
 * when it does not exist, -1 on another error (errno set).  An empty file
 * gives *p = NULL, *size = 0. */
int binfile_map(const char *path, const unsigned char **p, size_t *size);
void binfile_unmap(const unsigned char *p, size_t size);

#endif
