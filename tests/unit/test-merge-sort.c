/* test-merge-sort.c - the merge's k-way merge of sorted files
 * (src/index/merge_sort.c): the loser tree gives every record of the files
 * in the order of a stable sort of all of them (equal records in the order
 * of their files), with empty files and one file among them; the same
 * merge with its reading in a thread (merge_files_piped()) gives the same
 * records over many chunks, stops when the caller fails and fails on a
 * damaged file, without hanging.  Ten files are merged by two threads,
 * five each, and the caller (merge_sort.c's PIPE_SPLIT is 8); one by one.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "le.h"
#include "log.h"
#include "merge_int.h"
#include "tap.h"
#include "util.h"

#define N_FILES 10

static char tmp_root[256];

/* Records (memory layout) end to end, with their offsets. */
struct seq {
	unsigned char *b;
	size_t len, cap, n, cap_at;
	size_t *at;
	long fail_after;        /* collect() fails at this record (-1 never) */
};

static int collect(void *arg, const unsigned char *rec)
{
	struct seq *s = arg;
	size_t len = merge_k_post.head + (size_t)merge_k_post.extra(rec);

	if (s->fail_after >= 0 && (long)s->n == s->fail_after)
		return -1;
	if (s->len + len > s->cap) {
		s->cap = 2 * (s->len + len);
		s->b = xrealloc(s->b, s->cap);
	}
	/* Grown by doubling: a realloc() per record under ASan maps and
	 * copies the whole array each time past its allocator's sizes. */
	if (s->n == s->cap_at) {
		s->cap_at = s->cap_at ? 2 * s->cap_at : 1024;
		s->at = xrealloc(s->at, s->cap_at * sizeof(*s->at));
	}
	s->at[s->n++] = s->len;
	memcpy(s->b + s->len, rec, len);
	s->len += len;
	return 0;
}

static void seq_free(struct seq *s)
{
	free(s->b);
	free(s->at);
	memset(s, 0, sizeof(*s));
}

/* A posting of few words (so that files share them) and 1-3 positions; a
 * few hold 20,000 positions (~80 KB).  Allocated at its size: POST_MAX
 * each (256 KiB) made 147,004 mappings, 3 minutes under ASan. */
static unsigned char *make_post(unsigned seed)
{
	static const char *words[] = { "a", "ab", "abcdefgh", "abcdefghij", "b", "zz" };
	const char *w = words[seed % 6];
	unsigned np = seed % 499 == 0 ? 20000 : 1 + seed % 3, wl = (unsigned)strlen(w);
	unsigned char *p = xmalloc(POST_FIXED + wl + 4 * (size_t)np);

	p[0] = (unsigned char)(seed / 7 % 3);
	p[1] = (unsigned char)wl;
	le_put32(p + 2, seed / 3 % 4);
	le_put32(p + 6, seed / 11 % 50);
	le_put16(p + 10, (uint16_t)np);
	memcpy(p + POST_FIXED, w, wl);
	for (unsigned j = 0; j < np; j++)
		le_put32(p + POST_FIXED + wl + 4 * j, seed + j);
	return p;
}

struct tagged {
	const unsigned char *rec;
	int file;
	size_t i;
};

static int cmp_tagged(const void *a, const void *b)
{
	const struct tagged *x = a, *y = b;
	int c = merge_k_post.cmp(x->rec, y->rec);

	if (c)
		return c;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* N_FILES sorted files of n[f] postings each, and every record in the
 * order the merge must give (file order on ties) in *want. */
static char **write_files(const size_t *n, struct seq *want)
{
	char **paths = xcalloc(N_FILES, sizeof(*paths));
	unsigned char **recs[N_FILES];
	struct tagged *all = NULL;
	size_t total = 0, k = 0;
	unsigned seed = 1;

	for (int f = 0; f < N_FILES; f++)
		total += n[f];
	all = xcalloc(total ? total : 1, sizeof(*all));
	for (int f = 0; f < N_FILES; f++) {
		struct tagged *mine = all + k;
		struct wr w;

		recs[f] = xcalloc(n[f] ? n[f] : 1, sizeof(*recs[f]));
		for (size_t i = 0; i < n[f]; i++) {
			recs[f][i] = make_post(seed = seed * 1103515245u + 12345u);
			all[k++] = (struct tagged){ recs[f][i], f, i };
		}
		qsort(mine, n[f], sizeof(*mine), cmp_tagged);
		paths[f] = xasprintf("%s/run-%d", tmp_root, f);
		wr_open(&w, &merge_k_post, paths[f]);
		for (size_t i = 0; i < n[f]; i++)
			wr_put(&w, mine[i].rec);
		wr_close(&w);
		/* The file's order is its sorted order: ties by position in it. */
		for (size_t i = 0; i < n[f]; i++)
			mine[i].i = i;
	}
	qsort(all, total, sizeof(*all), cmp_tagged);
	for (size_t i = 0; i < total; i++)
		collect(want, all[i].rec);
	for (int f = 0; f < N_FILES; f++) {
		for (size_t i = 0; i < n[f]; i++)
			free(recs[f][i]);
		free(recs[f]);
	}
	free(all);
	return paths;
}

static bool same(const struct seq *a, const struct seq *b)
{
	return a->n == b->n && a->len == b->len && !memcmp(a->b, b->b, a->len);
}

/* The files are read with consume (their blocks released): merge copies. */
static char **copies(char **paths, size_t n, const char *tag)
{
	char **c = xcalloc(n, sizeof(*c));

	for (size_t f = 0; f < n; f++) {
		char *cmd;

		c[f] = xasprintf("%s/%s-%zu", tmp_root, tag, f);
		cmd = xasprintf("cp '%s' '%s'", paths[f], c[f]);
		if (system(cmd) != 0)
			diag("cannot copy %s", paths[f]);
		free(cmd);
	}
	return c;
}

static void drop(char **paths, size_t n)
{
	for (size_t f = 0; f < n; f++) {
		unlink(paths[f]);
		free(paths[f]);
	}
	free(paths);
}

static void orders(void)
{
	const size_t n[N_FILES] = { 40000, 0, 1, 25000, 3, 0, 60000, 7000, 0, 15000 };
	struct seq want = { .fail_after = -1 }, got = { .fail_after = -1 },
		   piped = { .fail_after = -1 }, one = { .fail_after = -1 };
	char **paths = write_files(n, &want), **c;
	int rc;

	c = copies(paths, N_FILES, "a");
	rc = merge_files(&merge_k_post, c, N_FILES, collect, &got);
	ok(rc == 0 && same(&got, &want),
	   "10 files (three empty, one of one record): every record in order, ties in "
	   "file order (%zu of %zu)", got.n, want.n);
	drop(c, N_FILES);
	c = copies(paths, N_FILES, "b");
	rc = merge_files_piped(&merge_k_post, c, N_FILES, collect, &piped);
	ok(rc == 0 && same(&piped, &want) && want.len > 4 * (1u << 20),
	   "the same merged by two threads (5 files each) and the caller: the same "
	   "records, ties in file order, over %zu MB", want.len >> 20);
	drop(c, N_FILES);
	c = copies(paths + 3, 1, "c");
	rc = merge_files_piped(&merge_k_post, c, 1, collect, &one);
	ok(rc == 0 && one.n == 25000,
	   "one file through the thread: its %zu records", one.n);
	drop(c, 1);
	seq_free(&one);
	ok(merge_files_piped(&merge_k_post, NULL, 0, collect, &one) == 0 && one.n == 0,
	   "no file: no record");

	/* The caller fails after 70,000 records: the thread stops. */
	seq_free(&got);
	got.fail_after = 70000;
	c = copies(paths, N_FILES, "d");
	rc = merge_files_piped(&merge_k_post, c, N_FILES, collect, &got);
	ok(rc == -1 && got.n == 70000,
	   "a caller that fails stops the merge (-1 after %zu records)", got.n);
	drop(c, N_FILES);

	/* A file cut in its middle: an error, after the records before it. */
	seq_free(&got);
	got.fail_after = -1;
	c = copies(paths, N_FILES, "e");
	if (truncate(c[6], 100000) != 0)
		diag("cannot truncate %s", c[6]);
	rc = merge_files_piped(&merge_k_post, c, N_FILES, collect, &got);
	ok(rc == -1 && got.n < want.n,
	   "a file cut short fails the merge (%zu records before)", got.n);
	drop(c, N_FILES);
	drop(paths, N_FILES);
	seq_free(&want);
	seq_free(&got);
	seq_free(&piped);
	seq_free(&one);
}

int main(void)
{

	if (!tap_mkdtemp(tmp_root, sizeof(tmp_root), "test-merge-sort")) {
		ok(0, "mkdtemp %s", tmp_root);
		return done_testing();
	}
	if (log_open("/dev/null") < 0)
		ok(0, "log_open");
	orders();
	log_close();
	rmdir(tmp_root);
	return done_testing();
}
