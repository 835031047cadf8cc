/* test-simhash.c - simhash signatures (simhash.h) and near-duplicate groups
 * (neardup.h), table-driven: identical texts are 0 bits apart, a page whose
 * timestamp line changed at most 3, unrelated pages far apart; empty and
 * odd input gives 0 (no signature); the groups of crafted signatures and the
 * `neardup` file round trip, with damage refused.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "neardup.h"
#include "simhash.h"
#include "tap.h"
#include "util.h"

/* A page of n words drawn from a small vocabulary by a fixed generator
 * (seed picks the page), with a header line of its own. */
static char *page(unsigned seed, size_t n, const char *head)
{
	static const char *const vocab[] = {
		"index", "merge", "crawl", "search", "daemon", "query", "rank", "site",
		"page", "word", "store", "table", "delta", "file", "link", "anchor",
		"title", "body", "text", "shingle", "signature", "bucket", "block",
		"group", "clone", "origin", "server", "config", "directive", "test",
		"the", "of", "and", "a", "to", "in", "is", "for", "on", "with",
	};
	struct buf b = BUF_INIT(1 << 20);
	uint64_t x = seed * 2654435761u + 1;

	buf_printf(&b, "%s\n", head);
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		buf_printf(&b, "%s%s", vocab[(x >> 33) % ARRAY_SIZE(vocab)],
			   i % 12 == 11 ? ".\n" : " ");
	}
	return buf_detach(&b, NULL);
}

struct pair {
	const char *name;
	unsigned seed_a, seed_b;
	size_t words;
	const char *head_a, *head_b;
	unsigned min, max;         /* the distance must lie in [min, max] */
};

static const struct pair pairs[] = {
	{ "identical texts", 1, 1, 400, "Generated 2026-11-26 07:59:58",
	  "Generated 2026-11-26 07:59:58", 0, 0 },
	{ "a changed timestamp line", 1, 1, 400, "Generated 2026-11-26 07:59:58",
	  "Generated 2026-11-27 13:02:41", 0, 3 },
	{ "a changed timestamp, a short page", 7, 7, 60, "Last modified: 5.1.2026 10:00",
	  "Last modified: 16.11.2026 11:30", 0, 0 },
	{ "a changed weekday and time", 7, 7, 1500, "Last modified: Mon Jan 5 10:00",
	  "Last modified: Tue Jan 5 11:30", 0, 3 },
	{ "unrelated pages", 1, 2, 400, "Generated 2026-11-26 07:59:58",
	  "Generated 2026-11-26 07:59:58", 12, 64 },
	{ "unrelated pages, short", 3, 4, 60, "About", "About", 8, 64 },
};

static void test_pairs(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		const struct pair *p = &pairs[i];
		char *a = page(p->seed_a, p->words, p->head_a);
		char *b = page(p->seed_b, p->words, p->head_b);
		uint64_t ha = simhash_text(a, strlen(a)), hb = simhash_text(b, strlen(b));
		unsigned d = simhash_distance(ha, hb);

		ok(ha && hb && d >= p->min && d <= p->max, "%s: distance %u in [%u, %u]", p->name,
		   d, p->min, p->max);
		free(a);
		free(b);
	}
}

/* A changed word moves a few votes: over many long pages, almost always at
 * most 3 bits (Manku et al. chose 3 for 64 bits on this ground). */
static void test_spread(void)
{
	unsigned within = 0, n = 100;

	for (unsigned seed = 100; seed < 100 + n; seed++) {
		char *a = page(seed, 1500, "Posted on Monday by the editor");
		char *b = page(seed, 1500, "Posted on Tuesday by the editor");

		within += simhash_distance(simhash_text(a, strlen(a)), simhash_text(b, strlen(b))) <= 3;
		free(a);
		free(b);
	}
	ok(within >= 90 * n / 100, "one changed word: %u of %u pages within 3 bits", within, n);
}

static void test_input(void)
{
	struct simhash s;
	char *a = page(5, 300, "x");
	size_t n = strlen(a);
	uint64_t whole = simhash_text(a, n);

	ok(simhash_text("", 0) == 0, "an empty text has no signature");
	ok(simhash_text(" \n\t.,;!", 7) == 0, "a text of separators has none");
	ok(simhash_text("word", 4) != 0, "one word has one");
	ok(simhash_text("at 10:00 on 5", 13) == simhash_text("at 11:30 on 6", 13),
	   "a number is a number, whatever its digits");
	ok(simhash_text("a1 b c", 6) != simhash_text("a2 b c", 6) &&
	   simhash_text("2nd b c", 7) != simhash_text("nd b c", 6),
	   "the digits of a word with letters count");
	ok(simhash_text("Merge the INDEX", 15) == simhash_text("merge the index", 15),
	   "ASCII case is folded");
	ok(simhash_text("\xff\xfe\x80", 3) != 0, "bytes that are not UTF-8 do not crash");
	/* Pieces cut at a separator give the whole text's signature. */
	simhash_init(&s);
	for (size_t i = 0, at = 0; i <= n; i++)
		if (i == n || a[i] == ' ') {
			simhash_feed(&s, a + at, i - at);
			at = i;
		}
	ok(simhash_final(&s) == whole, "fed in pieces: the same signature");
	free(a);
}

/* Signatures as the first version computed them: the votes are counted
 * faster now, and a signature that changed would split every group of the
 * pages crawled before from those crawled after. */
static const struct known {
	unsigned seed;
	size_t words;              /* page(seed, words, "x"), or 0: text */
	const char *text;
	uint64_t sig;
} known[] = {
	{ 0, 0, "word", 0x1a940848fb0b5d04ull },
	{ 0, 0, "Merge the INDEX of 12 sites", 0x32002a260c84c990ull },
	{ 0, 0, "a b", 0xfb2c1c450830da02ull },
	{ 0, 0, "caf\xc3\xa9 na\xc3\xafve r\xc3\xa9sum\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac text", 0x63255e95db788208ull },
	{ 3, 40, NULL, 0x7962a7fc9d585742ull },
	{ 4, 254, NULL, 0x9c0c77af9c00a716ull },
	{ 5, 255, NULL, 0xe2565b68061170cdull },
	{ 6, 600, NULL, 0x76b045522e035977ull },
	{ 9, 5000, NULL, 0xb4e1246eff7a65f1ull },
};

static void test_known(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		const struct known *k = &known[i];
		char *t = k->text ? NULL : page(k->seed, k->words, "x");
		const char *text = k->text ? k->text : t;
		uint64_t got = simhash_text(text, strlen(text));

		if (!ok(got == k->sig, "known signature %zu (%zu words)", i, k->words))
			diag("got 0x%016llx", (unsigned long long)got);
		free(t);
	}
}

static const struct neardup_doc docs[] = {
	{ 10, 0x0123456789abcdefull },
	{ 11, 0x0123456789abcdefull ^ 0x8000000000000101ull }, /* 3 bits from 10, in 2 blocks */
	{ 12, 0x0123456789abcdefull ^ 0x0001000100010001ull }, /* 4 bits from 10, one per block */
	{ 20, 0xfedcba9876543210ull },
	{ 21, 0xfedcba9876543210ull },                           /* equal to 20 */
	{ 30, 0x5555555555555555ull },
	{ 31, 0x5555555555555555ull ^ 0x7ull },                  /* 3 bits from 30 */
	{ 32, 0x5555555555555555ull ^ 0x3full },                 /* 3 from 31, 6 from 30: chained */
	{ 40, 0 },                                               /* no signature */
	{ 41, 0 },
};

static void test_groups(void)
{
	static const struct { uint32_t url_id, group; } want[] = {
		{ 10, 10 }, { 11, 10 }, { 20, 20 }, { 21, 20 }, { 30, 30 }, { 31, 30 }, { 32, 30 },
	};
	struct neardup_member *m;
	size_t n, g = neardup_group(docs, ARRAY_SIZE(docs), 3, &m, &n);
	int same = n == ARRAY_SIZE(want);

	for (size_t i = 0; same && i < n; i++)
		same = m[i].url_id == want[i].url_id && m[i].group == want[i].group;
	ok(g == 3 && same, "groups at 3 bits: %zu groups of %zu documents", g, n);
	free(m);
	g = neardup_group(docs, ARRAY_SIZE(docs), 1, &m, &n);
	ok(g == 1 && n == 2 && m[0].url_id == 20 && m[1].group == 20,
	   "at 1 bit only the equal signatures: %zu groups", g);
	free(m);
	g = neardup_group(docs, 0, 3, &m, &n);
	ok(g == 0 && n == 0, "no documents, no groups");
	free(m);
}

static void test_file(void)
{
	char dir[] = "/tmp/test-simhash-XXXXXX";
	struct buf err = BUF_INIT(1024);
	struct neardup_member *m;
	struct neardup *nd;
	uint64_t groups, members;
	unsigned bits;
	size_t n;
	char *path;
	FILE *f;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	path = xasprintf("%s/%s", dir, NEARDUP_FILE);
	ok(neardup_open(dir, &nd, &err) == 0 && !nd, "no file: no grouping");
	ok(neardup_group_of(NULL, 10) == 0, "no groups: none of url 10");
	neardup_group(docs, ARRAY_SIZE(docs), 3, &m, &n);
	ok(neardup_write(dir, m, n, 3) == 0, "written");
	free(m);
	ok(neardup_open(dir, &nd, &err) == 1, "opened %s", buf_str(&err));
	neardup_counts(nd, &groups, &members, &bits);
	ok(groups == 3 && members == 7 && bits == 3, "counts %lu groups, %lu documents",
	   (unsigned long)groups, (unsigned long)members);
	ok(neardup_group_of(nd, 32) == 30 && neardup_group_of(nd, 12) == 0 &&
	   neardup_group_of(nd, 10) == 10 && neardup_group_of(nd, 99) == 0,
	   "each url's group, 0 for those alone");
	neardup_close(nd);
	/* A flipped byte in the pairs: refused, not trusted. */
	f = fopen(path, "r+b");
	if (f) {
		fseek(f, 64 + 9, SEEK_SET);
		fputc(0x7f, f);
		fclose(f);
	}
	ok(neardup_open(dir, &nd, &err) == -1 && strstr(buf_str(&err), "crc"),
	   "damage refused: %s", buf_str(&err));
	/* Truncated. */
	ok(truncate(path, 70) == 0 && neardup_open(dir, &nd, &err) == -1, "truncated: refused");
	unlink(path);
	rmdir(dir);
	free(path);
	buf_free(&err);
}

int main(void)
{
	log_set_level(LOG_ERROR);
	test_pairs();
	test_spread();
	test_input();
	test_known();
	test_groups();
	test_file();
	return done_testing();
}
