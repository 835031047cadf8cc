/* test-boiler.c - the `boiler` file (boiler.c): a table of documents and
 * their ranges round-trips through boiler_table_write() and boiler_doc();
 * a missing file is no file; every truncation is refused at open, and
 * every byte flip is found by boiler_verify() or leaves the look-ups
 * bounded (ranges ascending and non-empty), never a crash.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boiler.h"
#include "buf.h"
#include "tap.h"
#include "util.h"

static const struct pos_range r1[] = { { 0, 4 }, { 9, 12 } }, r2[] = { { 3, 5 } },
			      r3[] = { { 0, 100 }, { 200, 201 }, { 300, 400 } };
static const struct {
	uint32_t url;
	const struct pos_range *r;
	size_t n;
} docs[] = { { 2, r1, 2 }, { 5, NULL, 0 }, { 7, r2, 1 }, { 100000, r3, 3 } };

static bool bounded(const struct boiler *b)
{
	struct pos_range got[BOILER_MAX_RANGES];

	for (uint32_t url = 0; url < 12; url++) {
		size_t n = boiler_doc(b, url == 11 ? 100000 : url, got, ARRAY_SIZE(got));

		for (size_t i = 0; i < n; i++)
			if (got[i].start >= got[i].end || (i && got[i].start < got[i - 1].end))
				return false;
	}
	return true;
}

static void write_file(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(p, 1, n, f);
		fclose(f);
	}
}

int main(void)
{
	char dir[256];
	struct boiler_table t = { 0 };
	struct buf err = BUF_INIT(4096);
	struct pos_range got[8];
	struct boiler *b = NULL;
	unsigned char *file = NULL;
	size_t size = 0;
	char *path;
	FILE *f;

	if (!tap_mkdtemp(dir, sizeof(dir), "test-boiler"))
		return 1;
	path = xasprintf("%s/%s", dir, BOILER_FILE);
	ok(boiler_open(dir, &b, &err) == 0 && !b, "no file: none");
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++)
		boiler_table_add(&t, docs[i].url, docs[i].r, docs[i].n);
	ok(!boiler_table_write(dir, &t, &err), "written: %s", buf_str(&err));
	boiler_table_free(&t);
	ok(boiler_open(dir, &b, &err) == 1, "opened");
	for (size_t i = 0; b && i < ARRAY_SIZE(docs); i++) {
		size_t n = boiler_doc(b, docs[i].url, got, ARRAY_SIZE(got));
		bool same = n == docs[i].n;

		for (size_t k = 0; same && k < n; k++)
			same = got[k].start == docs[i].r[k].start && got[k].end == docs[i].r[k].end;
		ok(same, "url %u: its %zu range(s)", docs[i].url, docs[i].n);
	}
	ok(b && boiler_doc(b, 3, got, 8) == 0 && boiler_doc(b, 1, got, 8) == 0 &&
	   boiler_doc(b, 200000, got, 8) == 0, "other urls: none");
	ok(b && boiler_doc(b, 100000, got, 2) == 2, "at most max ranges");
	boiler_close(b);
	ok(boiler_verify(dir, &err) == 1, "verifies");

	/* The file's bytes, then damage. */
	f = fopen(path, "rb");
	if (f) {
		fseek(f, 0, SEEK_END);
		size = (size_t)ftell(f);
		rewind(f);
		file = xmalloc(size);
		size = fread(file, 1, size, f);
		fclose(f);
	}
	ok(size == 32 + 8 * 3 + 8 * 6, "%zu bytes: header, 3 documents, 6 ranges", size);
	{
		bool refused = true;

		for (size_t cut = 0; cut < size; cut++) {
			write_file(path, file, cut);
			buf_reset(&err);
			refused &= boiler_open(dir, &b, &err) < 0;
			boiler_close(b);
			b = NULL;
		}
		ok(refused, "every truncation is refused");
	}
	{
		bool found = true, safe = true;

		for (size_t at = 0; at < size; at++) {
			file[at] ^= 0x5a;
			write_file(path, file, size);
			buf_reset(&err);
			found &= boiler_verify(dir, &err) < 0;
			if (boiler_open(dir, &b, &err) == 1)
				safe &= bounded(b);
			boiler_close(b);
			b = NULL;
			file[at] ^= 0x5a;
		}
		ok(found, "every byte flip fails the verification");
		ok(safe, "look-ups in a damaged file stay bounded");
	}
	unlink(path);
	rmdir(dir);
	free(path);
	free(file);
	buf_free(&err);
	return done_testing();
}
