/* binfile.c - little-endian packing, atomic file replacement and read-only
 * mappings for mpseek's own binary files (include/binfile.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include "binfile.h"
#include "buf.h"
#include "log.h"
#include "util.h"

int binfile_create(struct binfile *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = xstrdup(path);
	f->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		error_errno("cannot create %s", f->tmp);
		free(f->path);
		free(f->tmp);
		f->path = f->tmp = NULL;
		return -1;
	}
	return 0;
}


static int flush(struct binfile *f)
{
	if (f->len && write_all(f->fd, f->buf, f->len)) {
		f->failed = 1;
		return error_errno("cannot write %s", f->tmp);
	}
	f->len = 0;
	return 0;
}

int binfile_write(struct binfile *f, const void *data, size_t n)
{
	if (f->failed)
		return -1;
	if (!n) /* an empty buffer may be NULL, which memcpy() may not get */
		return 0;
	if (f->summing)
		f->sum = binfile_crc_update(f->sum, data, n);
	if (f->len + n > sizeof(f->buf) && flush(f))
		return -1;
	if (n >= sizeof(f->buf)) {
		if (write_all(f->fd, data, n)) {
			f->failed = 1;
			return error_errno("cannot write %s", f->tmp);
		}
		return 0;
	}
	memcpy(f->buf + f->len, data, n);
	f->len += n;
	return 0;
}

void binfile_sum_start(struct binfile *f)
{
	f->summing = 1;
	f->sum = 0;
}

uint32_t binfile_sum(const struct binfile *f)
{
	return f->sum;
}

int binfile_pwrite(struct binfile *f, const void *data, size_t n, uint64_t off)
{
	if (f->failed || flush(f))
		return -1;
	if (pwrite(f->fd, data, n, (off_t)off) != (ssize_t)n) {
		f->failed = 1;
		return error_errno("cannot write %s", f->tmp);
	}
	return 0;
}

static int fsync_dir_of(const char *path)
{
	char *copy = xstrdup(path);
	int rc = fsync_dir(dirname(copy));

	free(copy);
	return rc;
}

int binfile_commit(struct binfile *f)
{
	int rc = -1;

	if (f->failed || flush(f))
		goto out;
	if (fsync(f->fd) < 0) {
		error_errno("cannot fsync %s", f->tmp);
		goto out;
	}
	if (close(f->fd) < 0) {
		f->fd = -1;
		error_errno("cannot close %s", f->tmp);
		goto out;
	}
	f->fd = -1;
	/* rename(2) replaces path atomically; a hard link of the old file in
	 * another generation keeps the old bytes. */
	if (rename(f->tmp, f->path) < 0) {
		error_errno("cannot rename %s to %s", f->tmp, f->path);
		goto out;
	}
	if (fsync_dir_of(f->path) < 0) {
		error_errno("cannot fsync the directory of %s", f->path);
		goto out;
	}
	free(f->tmp);
	f->tmp = NULL;
	rc = 0;
out:
	binfile_abort(f);
	return rc;
}

void binfile_abort(struct binfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	f->tmp = f->path = NULL;
}

int binfile_map(const char *path, const unsigned char **p, size_t *size)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*p = NULL;
	*size = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		return 1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	*p = m;
	*size = (size_t)st.st_size;
	return 1;
}

void binfile_unmap(const unsigned char *p, size_t size)
{
	if (p && size)
		munmap((void *)p, size);
}

uint32_t binfile_crc(const unsigned char *p, size_t n)
{
	return binfile_crc_update(0, p, n);
}

uint32_t binfile_crc_update(uint32_t crc, const void *p, size_t n)
{
	return n ? libdeflate_crc32(crc, p, n) : crc;
}

int binfile_verify_sum(const unsigned char *p, size_t size, size_t from, uint32_t stored,
		       size_t sum_off, const char *path, struct buf *err)
{
	char what[160];

	if (from <= size && binfile_crc_update(0, p + from, size - from) == stored)
		return 0;
	snprintf(what, sizeof(what), "offset %zu: data crc mismatch: bytes %zu..%zu are not "
		 "what was written", sum_off, from, size);
	return binfile_damaged(err, path, what);
}

int binfile_damaged(struct buf *err, const char *path, const char *what)
{
	if (err) {
		buf_reset(err);
		buf_printf(err, "%s: %s", path, what);
		return -1;
	}
	return error("%s: %s", path, what);
}

int binfile_open_checked(const char *path, const unsigned char magic[8], uint32_t version,
			 size_t crc_off, size_t header, const char *kind,
			 const unsigned char **p, size_t *size, struct buf *err)
{
	const unsigned char *m;
	const char *bad = NULL;
	char msg[256];
	int rc = binfile_map(path, &m, size);

	*p = NULL;
	if (rc <= 0) {
		if (rc < 0) {
			snprintf(msg, sizeof(msg), "cannot read: %s", strerror(errno));
			return binfile_damaged(err, path, msg);
		}
		return 0;
	}
	/* Each reason names its offset, as storage_check()'s lines do. */
	if (*size < header || memcmp(m, magic, 8)) {
		snprintf(msg, sizeof(msg), "offset 0: not a %s file", kind);
		bad = msg;
	} else if (le_get32(m + 8) != version) {
		snprintf(msg, sizeof(msg), "offset 8: format version %u, this mpseek reads %u "
			 "(`mpseek-index -K` writes ranks and citations anew)", le_get32(m + 8),
			 version);
		bad = msg;
	} else if (le_get32(m + crc_off) != binfile_crc(m, crc_off)) {
		snprintf(msg, sizeof(msg), "offset %zu: header checksum mismatch", crc_off);
		bad = msg;
	}
	if (bad) {
		binfile_unmap(m, *size);
		return binfile_damaged(err, path, bad);
	}
	*p = m;
	return 1;
}
