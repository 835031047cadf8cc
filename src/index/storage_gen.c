/* storage_gen.c - the generations of CompactStorage under DataDir/index
 * (storage.h): which one is `current`, cleaning up after a crash, publishing
 * with one rename, hard-linked copies.  What is inside a generation belongs
 * to storage.c.  Semantics: storage.h and doc/FORMATS.md, "CompactStorage".
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "storage.h"
#include "storage_int.h"
#include "util.h"

char *storage_gen_path(const char *data_dir, uint64_t gen)
{
	return xasprintf("%s/index/gen-%08" PRIu64, data_dir, gen);
}

int storage_parse_gen_name(const char *name, bool tmp, uint64_t *gen)
{
	const char *p = name + 4;
	uint64_t v;

	if (strncmp(name, "gen-", 4) || storage_parse_u64(&p, &v))
		return -1;
	if (tmp ? strcmp(p, ".tmp") : *p)
		return -1;
	*gen = v;
	return 0;
}

int storage_current(const char *data_dir, uint64_t *gen, struct buf *err)
{
	char *path = xasprintf("%s/index/current", data_dir);
	char target[256];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	int rc = 1;

	if (n < 0) {
		if (errno == ENOENT)
			rc = 0;
		else
			rc = error_into(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	target[n] = '\0';
	if (storage_parse_gen_name(target, false, gen))
		rc = error_into(err, "%s: points to '%s', not a generation", path, target);
out:
	free(path);
	return rc;
}

/* Remove a directory tree (a generation: files and one level of
 * subdirectories, plus citations/ whatever its depth). */
static int rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = xasprintf("%s/%s", path, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rc |= rm_tree(p);
		else if (unlink(p) < 0 && errno != ENOENT)
			rc = -1;
		free(p);
	}
	closedir(d);
	if (rmdir(path) < 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

int storage_gen_cleanup(const char *data_dir, struct buf *err)
{
	char *dir = xasprintf("%s/index", data_dir);
	DIR *d;
	struct dirent *e;
	uint64_t cur = 0, g;
	int have, rc = 0;

	have = storage_current(data_dir, &cur, err);
	if (have < 0) {
		free(dir);
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		rc = errno == ENOENT ? 0 : error_into(err, "%s: %s", dir, strerror(errno));
		free(dir);
		return rc;
	}
	while ((e = readdir(d))) {
		bool tmp = storage_parse_gen_name(e->d_name, true, &g) == 0;

		/* Unpublished work: .tmp directories, and finished generations
		 * newer than `current` (a crash between the two renames). */
		if (tmp || (storage_parse_gen_name(e->d_name, false, &g) == 0 && (!have || g > cur))) {
			char *p = xasprintf("%s/%s", dir, e->d_name);

			info("removing %s (left by an interrupted merge)", p);
			if (rm_tree(p) < 0)
				rc = error_into(err, "%s: cannot remove: %s", p, strerror(errno));
			free(p);
		}
		if (!strcmp(e->d_name, "current.tmp")) {
			char *p = xasprintf("%s/%s", dir, e->d_name);
			unlink(p);
			free(p);
		}
	}
	closedir(d);
	free(dir);
	return rc;
}

int storage_gen_previous(const char *data_dir, uint64_t before, uint64_t *gen)
{
	char *dir = xasprintf("%s/index", data_dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t g, best = 0;
	int rc = 0;

	free(dir);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)))
		if (storage_parse_gen_name(e->d_name, false, &g) == 0 && g < before &&
		    (!rc || g > best)) {
			best = g;
			rc = 1;
		}
	closedir(d);
	*gen = best;
	return rc;
}

int storage_gen_publish(const char *data_dir, uint64_t gen, struct buf *err)
{
	char *dir = xasprintf("%s/index", data_dir);
	char *final = storage_gen_path(data_dir, gen);
	char *tmp = xasprintf("%s.tmp", final);
	char *link = xasprintf("%s/current.tmp", dir), *cur = xasprintf("%s/current", dir);
	char target[64];
	struct storage_format f;
	DIR *d = NULL;
	struct dirent *e;
	int rc = 0;

	/* Never publish a directory whose FORMAT is not complete and right. */
	if (storage_format_read(tmp, &f, err)) {
		rc = -1;
		goto out;
	}
	if (f.generation != gen) {
		rc = error_into(err, "%s: FORMAT says generation %" PRIu64, tmp, f.generation);
		goto out;
	}
	if (fsync_dir(tmp) < 0 || rename(tmp, final) < 0 || fsync_dir(dir) < 0) {
		rc = error_into(err, "%s: cannot rename to %s: %s", tmp, final, strerror(errno));
		goto out;
	}
	snprintf(target, sizeof(target), "gen-%08" PRIu64, gen);
	unlink(link);
	if (symlink(target, link) < 0 || rename(link, cur) < 0 || fsync_dir(dir) < 0) {
		rc = error_into(err, "%s: cannot switch to %s: %s", cur, target, strerror(errno));
		goto out;
	}
	/* Keep the previous generation (searchd may still read it). */
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		uint64_t g;

		if (storage_parse_gen_name(e->d_name, false, &g) == 0 && g + 1 < gen) {
			char *p = xasprintf("%s/%s", dir, e->d_name);
			if (rm_tree(p) < 0)
				warning("%s: cannot remove an old generation: %s", p, strerror(errno));
			free(p);
		}
	}
	if (d)
		closedir(d);
out:
	free(dir);
	free(final);
	free(tmp);
	free(link);
	free(cur);
	return rc;
}

/* Hard-link every file of src into dst (created), recursively. */
static int link_tree(const char *src, const char *dst, struct buf *err)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return error_into(err, "%s: %s", src, strerror(errno));
	if (mkdir(dst, 0755) < 0 && errno != EEXIST) {
		closedir(d);
		return error_into(err, "%s: cannot create: %s", dst, strerror(errno));
	}
	while (!rc && (e = readdir(d))) {
		char *s, *t;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		s = xasprintf("%s/%s", src, e->d_name);
		t = xasprintf("%s/%s", dst, e->d_name);
		if (lstat(s, &st) < 0)
			rc = error_into(err, "%s: %s", s, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = link_tree(s, t, err);
		else if (S_ISREG(st.st_mode) && link(s, t) < 0)
			rc = error_into(err, "cannot link %s to %s: %s", s, t, strerror(errno));
		free(s);
		free(t);
	}
	closedir(d);
	if (!rc && fsync_dir(dst) < 0)
		rc = error_into(err, "%s: fsync: %s", dst, strerror(errno));
	return rc;
}

int storage_gen_clone(const char *data_dir, uint64_t *gen, char **dir, struct buf *err)
{
	uint64_t cur;
	char *src, *dst;
	int k = storage_current(data_dir, &cur, err);

	*dir = NULL;
	if (k <= 0)
		return k < 0 ? -1 : error_into(err, "%s/index: no generation to copy", data_dir);
	src = storage_gen_path(data_dir, cur);
	dst = xasprintf("%s/index/gen-%08" PRIu64 ".tmp", data_dir, cur + 1);
	rm_tree(dst);
	if (link_tree(src, dst, err)) {
		free(src);
		free(dst);
		return -1;
	}
	free(src);
	*gen = cur + 1;
	*dir = dst;
	return 0;
}

/* Link one file of the generation `from` into `to` (the merge keeps the
 * files it does not rewrite).  Missing files are not an error. */
int storage_gen_link(const char *from, const char *to, const char *name, struct buf *err)
{
	char *s = xasprintf("%s/%s", from, name), *t = xasprintf("%s/%s", to, name);
	struct stat st;
	int rc = 0;

	if (lstat(s, &st) < 0) {
		if (errno != ENOENT)
			rc = error_into(err, "%s: %s", s, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		rc = link_tree(s, t, err);
	} else {
		unlink(t);
		if (link(s, t) < 0)
			rc = error_into(err, "cannot link %s to %s: %s", s, t, strerror(errno));
	}
	free(s);
	free(t);
	return rc;
}

/* The bytes of the regular files under dir, depth levels down. */
static int dir_bytes(const char *dir, int depth, uint64_t *bytes, struct buf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return error_into(err, "%s: %s", dir, strerror(errno));
	while (!rc && (e = readdir(d))) {
		char *path;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			rc = error_into(err, "%s: %s", path, strerror(errno));
		else if (S_ISREG(st.st_mode))
			*bytes += (uint64_t)st.st_size;
		else if (S_ISDIR(st.st_mode) && depth > 0)
			rc = dir_bytes(path, depth - 1, bytes, err);
		free(path);
	}
	closedir(d);
	return rc;
}

int storage_gen_usage(const char *gen_dir, uint64_t *bytes, int64_t *written, struct buf *err)
{
	char *format = xasprintf("%s/FORMAT", gen_dir);
	struct stat st;
	int rc = 0;

	*bytes = 0;
	if (stat(format, &st))
		rc = error_into(err, "%s: %s", format, strerror(errno));
	else
		*written = (int64_t)st.st_mtime;
	free(format);
	/* A generation is flat but for citations/. */
	return rc ? rc : dir_bytes(gen_dir, 2, bytes, err);
}
