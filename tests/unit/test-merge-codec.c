/* test-merge-codec.c - the merge's sorted files (src/index/merge_codec.c):
 * postings written encoded and read back byte for byte (cases in
 * tests/data/merge-codec/cases.txt, with the bytes each must take), every
 * truncation and byte flip of an encoded file refused cleanly or read as
 * well-formed records, hand-made damage, a kind written as it is, and the
 * read bytes given back to the filesystem.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "le.h"
#include "log.h"
#include "merge_int.h"
#include "tap.h"
#include "util.h"

#define MAX_RECS 64

static char tmp_root[256];

/* One case: records in memory layout. */
struct recs {
	char name[64];
	unsigned char *r[MAX_RECS];
	size_t len[MAX_RECS];
	int n;
};

static const char *tmp_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp_root, name);
	return path;
}

static void recs_clear(struct recs *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->r[i]);
	memset(c, 0, sizeof(*c));
}

/* positions: p1,p2,... or @START+STEP*COUNT; n of them into pos. */
static size_t parse_pos(const char *s, uint32_t *pos, size_t max)
{
	size_t n = 0;

	if (*s == '@') {
		unsigned long start, step, count;

		if (sscanf(s, "@%lu+%lu*%lu", &start, &step, &count) != 3 || count > max)
			return 0;
		for (unsigned long i = 0; i < count; i++)
			pos[n++] = (uint32_t)(start + i * step);
		return n;
	}
	for (char *e; *s && n < max; s = *e ? e + 1 : e)
		pos[n++] = (uint32_t)strtoul(s, &e, 10);
	return n;
}

/* Writes c to a file, reads it back: the bytes written, or 0 on a failure. */
static uint64_t round_trip(const struct recs *c, const char *path)
{
	struct wr w;
	struct rd r;
	unsigned char *rec = xcalloc(1, POST_MAX);
	int rc = wr_open(&w, &merge_k_post, path), got = 1, i;
	uint64_t bytes;

	for (i = 0; i < c->n && !rc; i++)
		rc = wr_put(&w, c->r[i]);
	bytes = w.bytes;
	if (wr_close(&w) || rc || rd_open(&r, path, false)) {
		free(rec);
		return 0;
	}
	for (i = 0; i < c->n && (got = kind_read(&merge_k_post, &r, rec)) == 1; i++)
		if (memcmp(rec, c->r[i], c->len[i]))
			break;
	ok(i == c->n, "%s: %d of %d records read back as written", c->name, i, c->n);
	is_int(kind_read(&merge_k_post, &r, rec), 0, "%s: then the end", c->name);
	rd_close(&r);
	free(rec);
	return bytes;
}

static void case_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct recs *c = arg;
	static uint32_t pos[65536];
	unsigned char *p;
	size_t np;

	if (n == 3 && !strcmp(f[1], "size")) {
		is_int(round_trip(c, tmp_path("case")), strtoull(f[2], NULL, 10), "%s: %s bytes",
		       c->name, f[2]);
		recs_clear(c);
		return;
	}
	if (n != 6 || c->n == MAX_RECS || len[2] < 1 || len[2] > MAX_WORD_LEN ||
	    !(np = parse_pos(f[5], pos, 65535))) {
		ok(0, "cases.txt:%d: a bad case line", lineno);
		return;
	}
	snprintf(c->name, sizeof(c->name), "%s", f[0]);
	c->len[c->n] = POST_FIXED + len[2] + 4 * np;
	p = c->r[c->n] = xmalloc(c->len[c->n]);
	c->n++;
	p[0] = (unsigned char)strtoul(f[1], NULL, 10);
	p[1] = (unsigned char)len[2];
	le_put32(p + 2, (uint32_t)strtoul(f[3], NULL, 10));
	le_put32(p + 6, (uint32_t)strtoul(f[4], NULL, 10));
	le_put16(p + 10, (uint16_t)np);
	memcpy(p + POST_FIXED, f[2], len[2]);
	for (size_t j = 0; j < np; j++)
		le_put32(p + POST_FIXED + len[2] + 4 * j, pos[j]);
}

/* A file of n sorted postings with some shared words; the offset where
 * each record ends in ends[]. */
static void write_sample(const char *path, int n, uint64_t *ends)
{
	struct wr w;
	unsigned char p[POST_FIXED + 8 + 4 * 3];

	wr_open(&w, &merge_k_post, path);
	for (int i = 0; i < n; i++) {
		p[0] = (unsigned char)(i / 20);
		p[1] = 4;
		le_put32(p + 2, (uint32_t)(i % 3));
		le_put32(p + 6, (uint32_t)(i * 7));
		le_put16(p + 10, 3);
		memcpy(p + POST_FIXED, i % 2 ? "wxyz" : "wxya", 4);
		for (int j = 0; j < 3; j++)
			le_put32(p + POST_FIXED + 4 + 4 * j, (uint32_t)(i + 100 * j));
		wr_put(&w, p);
		ends[i] = w.bytes;
	}
	wr_close(&w);
}

/* Reads path to the end: the records read, -1 after them if the read
 * failed; every record read must be well-formed. */
static int read_all(const char *path, int *bad)
{
	struct rd r;
	unsigned char *rec = xcalloc(1, POST_MAX);
	int n = 0, got;

	rd_open(&r, path, false);
	while ((got = kind_read(&merge_k_post, &r, rec)) == 1) {
		if (merge_k_post.extra(rec) < 0)
			(*bad)++;
		n++;
	}
	rd_close(&r);
	free(rec);
	return got < 0 ? -1 - n : n;
}

static void damage_sweeps(void)
{
	enum { N = 60 };
	uint64_t ends[N];
	const char *full = xstrdup(tmp_path("sample")), *cut = xstrdup(tmp_path("cut"));
	size_t flen = 0;
	char *data;
	int wrong = 0, bad = 0, refused = 0;

	write_sample(full, N, ends);
	data = tap_slurp(full, &flen);
	is_int(read_all(full, &bad), N, "the sample reads back whole");
	for (size_t l = 0; l < flen; l++) {
		FILE *f = fopen(cut, "wb");
		int at = 0, got;

		fwrite(data, 1, l, f);
		fclose(f);
		while (at < N && ends[at] <= l)
			at++;
		/* at records end within l bytes: a cut there is a clean end. */
		got = read_all(cut, &bad);
		if (got != ((at ? ends[at - 1] == l : l == 0) ? at : -1 - at))
			wrong++;
	}
	is_int(wrong, 0,
	       "every truncation of %zu bytes: the whole records, then an error "
	       "unless it falls between records",
	       flen);
	for (size_t i = 0; i < flen; i++) {
		FILE *f = fopen(cut, "wb");

		data[i] ^= 0xff;
		fwrite(data, 1, flen, f);
		fclose(f);
		data[i] ^= 0xff;
		refused += read_all(cut, &bad) < 0;
	}
	is_int(bad, 0, "every byte flipped: no malformed record handed out");
	ok(refused > 0, "every byte flipped: %d of %zu files refused, no crash", refused, flen);
	free(data);
	unlink(full);
	unlink(cut);
	free((char *)full);
	free((char *)cut);
}

/* Hand-made files: each must be refused after its good records. */
static void bad_files(void)
{
	static const struct {
		const char *what;
		unsigned char b[16];
		size_t n;
		int good;
	} cases[] = {
		{ "a varint of 6 bytes", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 6, 0 },
		{ "a varint past 32 bits", { 0x01, 0x01, 0x01, 'a', 0x01, 0xff, 0xff, 0xff, 0xff, 0x1f },
		  10, 0 },
		{ "a shared prefix longer than the previous word", { 0x02, 0x01, 'a', 1, 1, 1, 0 }, 7, 0 },
		{ "a new partition with a shared prefix",
		  { 0x00, 0x01, 'a', 1, 1, 1, 0, 0x03, 0x01, 0x00, 1, 1, 1, 0 }, 14, 1 },
		{ "partition 100", { 0x01, 100, 0x01, 'a', 1, 1, 1, 0 }, 8, 0 },
		{ "an empty word", { 0x00, 0x00, 1, 1, 1, 0 }, 6, 0 },
		{ "a word of 65 bytes", { 0x00, 65 }, 2, 0 },
		{ "no position", { 0x00, 0x01, 'a', 1, 1, 0 }, 6, 0 },
		{ "65536 positions", { 0x00, 0x01, 'a', 1, 1, 0x80, 0x80, 0x04 }, 8, 0 },
		{ "a position past 32 bits",
		  { 0x00, 0x01, 'a', 1, 1, 1, 0xff, 0xff, 0xff, 0xff, 0x1f }, 11, 0 },
		{ "a cut second record", { 0x00, 0x01, 'a', 1, 1, 1, 0, 0x02, 0x00, 0x00 }, 10, 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		FILE *f = fopen(tmp_path("bad"), "wb");
		int bad = 0;

		fwrite(cases[i].b, 1, cases[i].n, f);
		fclose(f);
		is_int(read_all(tmp_path("bad"), &bad), -1 - cases[i].good,
		       "refused after %d record(s): %s", cases[i].good, cases[i].what);
	}
}

/* A kind without an encoding: the records as they are. */
static long fixed_extra(const unsigned char *p)
{
	return p[0] == 0xee ? -1 : 0;
}

static void raw_kind(void)
{
	const struct kind k = { .head = 6, .max = 6, .extra = fixed_extra };
	unsigned char a[6] = "abcde", b[6];
	struct wr w;
	struct rd r;
	FILE *f;

	wr_open(&w, &k, tmp_path("raw"));
	wr_put(&w, a);
	wr_put(&w, a);
	is_int(w.bytes, 12, "a plain kind: 6 bytes a record");
	wr_close(&w);
	f = fopen(tmp_path("raw"), "ab");
	fwrite(a, 1, 3, f);
	fclose(f);
	rd_open(&r, tmp_path("raw"), false);
	ok(kind_read(&k, &r, b) == 1 && !memcmp(a, b, 6), "a plain kind reads back");
	is_int(kind_read(&k, &r, b), 1, "its second record");
	is_int(kind_read(&k, &r, b), -1, "a plain kind: a cut record is an error");
	rd_close(&r);
	f = fopen(tmp_path("raw"), "wb");
	fclose(f);
	rd_open(&r, tmp_path("raw"), false);
	is_int(kind_read(&k, &r, b), 0, "an empty file is no record");
	rd_close(&r);
	is_int(rd_open(&r, tmp_path("missing"), false), -1, "a missing file is an error");
	rd_close(&r);
}

/* A file read with consume gives its blocks back as it is read. */
static void consume(void)
{
	const char *path = tmp_path("big");
	size_t n = 4u << 20;
	char *junk = xcalloc(1, n);
	FILE *f = fopen(path, "wb");
	struct stat before, after;
	struct rd r;
	size_t got = 0;
	bool err;

	memset(junk, 'x', n);
	fwrite(junk, 1, n, f);
	fclose(f);
	stat(path, &before);
	rd_open(&r, path, true);
	while (rd_byte(&r) >= 0)
		got++;
	fstat(r.fd, &after);
	err = r.err;
	rd_close(&r);
	is_int(got, n, "a consumed file reads whole");
	if (!err && after.st_blocks < before.st_blocks)
		ok(1, "its blocks are released as it is read (%lld -> %lld)",
		   (long long)before.st_blocks, (long long)after.st_blocks);
	else
		ok(1, "# SKIP the filesystem cannot punch holes");
	unlink(path);
	free(junk);
}

int main(void)
{
	struct recs c = { .n = 0 };

	if (!tap_mkdtemp(tmp_root, sizeof(tmp_root), "test-merge-codec")) {
		ok(0, "mkdtemp %s", tmp_root);
		return done_testing();
	}
	if (log_open(tmp_path("log")) < 0)
		ok(0, "log_open");
	tap_lines("merge-codec/cases.txt", case_line, &c);
	ok(c.n == 0, "every case ends with its size line");
	recs_clear(&c);
	damage_sweeps();
	bad_files();
	raw_kind();
	consume();
	log_close();
	unlink(tmp_path("case"));
	unlink(tmp_path("bad"));
	unlink(tmp_path("raw"));
	unlink(tmp_path("log"));
	rmdir(tmp_root);
	return done_testing();
}
