/* test-grams.c - pairs of common words (grams.h), table-driven: the word
 * set CommonWords makes (order, repeats, bad words refused), the pairs of
 * one document (words that touch in one section, the positions of the
 * first, section ends, saturated positions, long keys left out), and the
 * generation's `grams` file (round trip, damage refused).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "delta.h"
#include "grams.h"
#include "storage.h"
#include "tap.h"
#include "tokenize.h"
#include "util.h"

/* ---- the word set ------------------------------------------------------------ */

struct set_case {
	const char *name;
	const char *words;         /* space-separated; "\t" inside a word */
	const char *want;          /* the set, space-separated; NULL: refused */
};

static const struct set_case set_cases[] = {
	{ "sorted, repeats dropped", "of the a the an", "a an of the" },
	{ "a prefix first", "ab a abc", "a ab abc" },
	{ "UTF-8 words", "für über die", "die für über" },
	{ "one word", "x", "x" },
	{ "upper case refused", "The", NULL },
	{ "a control character refused", "a\tb", NULL },
	{ "not UTF-8: taken (it never meets an index word)", "\xff", "\xff" },
	{ "63 bytes refused",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL },
	{ "62 bytes taken",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
};

/* Split s at spaces into v (at most max): the count. */
static size_t split(char *s, char **v, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		while (*s == ' ')
			*s++ = '\0';
		if (!*s)
			break;
		v[n++] = s;
		while (*s && *s != ' ')
			s++;
	}
	return n;
}

static char *set_text(const struct grams *g)
{
	struct buf b = BUF_INIT(1 << 16);

	for (size_t i = 0; i < grams_count(g); i++) {
		size_t len;
		const char *w = grams_word(g, i, &len);

		buf_printf(&b, "%s%.*s", i ? " " : "", (int)len, w);
	}
	char *s;

	buf_adds(&b, "");
	s = buf_detach(&b, NULL);
	return s ? s : xstrdup("");
}

static struct grams *make(const char *words)
{
	char *s = xstrdup(words), *v[300];
	size_t n = split(s, v, 300);
	struct buf err = BUF_INIT(512);
	struct grams *g = NULL;

	if (grams_make((const char *const *)v, n, &g, &err))
		g = NULL;
	buf_free(&err);
	free(s);
	return g;
}

static void test_sets(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(set_cases); i++) {
		const struct set_case *c = &set_cases[i];
		struct grams *g = make(c->words);

		if (!c->want) {
			ok(g == NULL, "set: %s", c->name);
		} else {
			char *got = g ? set_text(g) : NULL;

			is_str(got, c->want, "set: %s", c->name);
			free(got);
		}
		grams_free(g);
	}
	/* GRAMS_MAX_WORDS words, then one more. */
	{
		struct buf b = BUF_INIT(1 << 16);
		struct grams *g;

		for (int i = 0; i < GRAMS_MAX_WORDS; i++)
			buf_printf(&b, "w%d ", i);
		g = make(b.ptr);
		ok(g && grams_count(g) == GRAMS_MAX_WORDS, "set: %d words taken", GRAMS_MAX_WORDS);
		grams_free(g);
		buf_adds(&b, "one-more");
		g = make(b.ptr);
		ok(g == NULL, "set: %d words refused", GRAMS_MAX_WORDS + 1);
		grams_free(g);
		buf_free(&b);
	}
	{
		struct grams *a = make("a b c of"), *b = make("b of the"), *both = grams_both(a, b);
		struct grams *same = make("of b");
		char key[MAX_WORD_LEN];
		size_t kl = storage_gram_key("of", 2, "b", 1, key);

		ok(grams_equal(both, same), "both: the words of the two sets");
		ok(!grams_equal(a, b), "equal: two sets differ");
		ok(grams_find(a, "of", 2) == 3 && grams_find(a, "o", 1) < 0, "find: by bytes");
		ok(grams_key_in(both, key, kl), "key_in: a pair of two words of the set");
		kl = storage_gram_key("of", 2, "a", 1, key);
		ok(!grams_key_in(both, key, kl) && grams_key_in(a, key, kl),
		   "key_in: a pair with a word outside the set");
		ok(!grams_key_in(a, "of", 2), "key_in: a plain word is no pair");
		ok(storage_is_gram_word(key, kl) && !storage_is_gram_word("of", 2),
		   "is_gram_word: the mark");
		grams_free(a);
		grams_free(b);
		grams_free(both);
		grams_free(same);
	}
}

/* ---- the pairs of one document --------------------------------------------- */

struct doc_case {
	const char *name;
	const char *common;
	/* Words in position order; "_" takes a position and is no word (a
	 * stopword), "|" starts the next section at position 0, "@N" moves
	 * to position N. */
	const char *text;
	/* The pairs, in the set's order: "x>y:p,p" separated by "; ", where
	 * p is section.position of x. */
	const char *want;
};

static const struct doc_case doc_cases[] = {
	{ "no common words", "a b", "x y z", "" },
	{ "one common word", "a b", "x a y a", "" },
	{ "a pair", "a b", "x a b y", "a>b:0.1" },
	{ "both orders", "a b", "a b a", "a>b:0.0; b>a:0.1" },
	{ "a word after itself", "a b", "a a a", "a>a:0.0,0.1" },
	{ "three in a row", "a b c", "c a b c", "a>b:0.1; b>c:0.2; c>a:0.0" },
	{ "a stopword between", "a b", "a _ b", "" },
	{ "another word between", "a b", "a x b", "" },
	{ "not across sections", "a b", "x a | b y", "" },
	{ "in a later section", "a b", "x | a b", "a>b:1.0" },
	{ "title and body", "a b", "a b | | | a b", "a>b:0.0,3.0" },
	{ "the last two positions", "a b", "@16777214 a b", "a>b:0.16777214" },
	{ "words at the saturated position", "a b", "@16777215 a b", "" },
	{ "a key over 64 bytes left out",
	  "a aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa "
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa a",
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa>a:0.1" },
};

struct dw {
	char *word;
	uint32_t pos[64];
	uint32_t n;
};

static int dw_cmp(const void *a, const void *b)
{
	const struct dw *x = a, *y = b;

	return strcmp(x->word, y->word);
}

/* The DOC words of text, sorted by bytes: the count. */
static size_t doc_words(const char *text, struct dw *v, size_t max)
{
	char *s = xstrdup(text), *t[64];
	size_t nt = split(s, t, 64), n = 0;
	int sec = 0;
	unsigned long at = 0;

	for (size_t i = 0; i < nt; i++) {
		size_t k;

		if (!strcmp(t[i], "|")) {
			sec++;
			at = 0;
			continue;
		}
		if (t[i][0] == '@') {
			at = strtoul(t[i] + 1, NULL, 10);
			continue;
		}
		if (strcmp(t[i], "_")) {
			for (k = 0; k < n && strcmp(v[k].word, t[i]); k++)
				;
			if (k == n && n < max)
				v[n++] = (struct dw){ .word = xstrdup(t[i]) };
			if (k < n && v[k].n < 64)
				v[k].pos[v[k].n++] = tok_pos_encode(sec, at);
		}
		at++;
	}
	free(s);
	qsort(v, n, sizeof(*v), dw_cmp);
	return n;
}

static char *pairs_text(const struct grams_doc *d)
{
	struct buf b = BUF_INIT(1 << 16);

	buf_adds(&b, "");
	for (size_t i = 0; i < d->n; i++) {
		const struct gram_post *p = &d->posts[i];
		const char *mark = memchr(p->key, STORAGE_GRAM_MARK, p->len);
		int xl = mark ? (int)(mark - p->key) : 0;

		buf_printf(&b, "%s%.*s>%.*s:", i ? "; " : "", xl, p->key, (int)p->len - xl - 1,
			   mark ? mark + 1 : "");
		for (uint32_t j = 0; j < p->n_pos; j++)
			buf_printf(&b, "%s%d.%u", j ? "," : "", tok_pos_section(p->pos[j]),
				   tok_pos_position(p->pos[j]));
	}
	return buf_detach(&b, NULL);
}

static void test_docs(void)
{
	struct grams_doc d = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(doc_cases); i++) {
		const struct doc_case *c = &doc_cases[i];
		struct grams *g = make(c->common);
		struct dw v[64];
		struct delta_word w[64];
		size_t n = doc_words(c->text, v, 64);
		char *got;

		for (size_t k = 0; k < n; k++)
			w[k] = (struct delta_word){ .word = v[k].word, .len = strlen(v[k].word),
						    .pos = v[k].pos, .n_pos = v[k].n };
		grams_of_doc(g, w, (uint32_t)n, &d);
		got = pairs_text(&d);
		is_str(got, c->want, "doc: %s", c->name);
		free(got);
		for (size_t k = 0; k < n; k++)
			free(v[k].word);
		grams_free(g);
	}
	/* No set: nothing, whatever the document. */
	{
		struct delta_word w = { .word = "a", .len = 1, .pos = (const uint32_t[]){ 0, 1 },
					.n_pos = 2 };

		ok(grams_of_doc(NULL, &w, 1, &d) == 0 && d.n == 0, "doc: no common words set");
	}
	/* A pair more often than a DOC keeps a word's positions: the first. */
	{
		static uint32_t pa[DELTA_MAX_WORD_POSITIONS], pb[DELTA_MAX_WORD_POSITIONS];
		struct grams *g = make("a b");
		struct delta_word w[2];

		for (uint32_t k = 0; k < DELTA_MAX_WORD_POSITIONS; k++) {
			pa[k] = 2 * k;
			pb[k] = 2 * k + 1;
		}
		w[0] = (struct delta_word){ .word = "a", .len = 1, .pos = pa,
					    .n_pos = DELTA_MAX_WORD_POSITIONS };
		w[1] = (struct delta_word){ .word = "b", .len = 1, .pos = pb,
					    .n_pos = DELTA_MAX_WORD_POSITIONS };
		grams_of_doc(g, w, 2, &d);
		/* a>b at every a, b>a at every b but the last. */
		ok(d.n == 2 && d.posts[0].n_pos == DELTA_MAX_WORD_POSITIONS &&
		   d.posts[1].n_pos == DELTA_MAX_WORD_POSITIONS - 1 && d.posts[1].pos[0] == 1,
		   "doc: %u positions of a pair", DELTA_MAX_WORD_POSITIONS);
		grams_free(g);
	}
	grams_doc_free(&d);
}

/* ---- the file ------------------------------------------------------------------ */

/* n bytes written as dir's grams file: 1 when grams_read() refuses it. */
static int refused(const char *dir, const char *path, const unsigned char *bytes, size_t n)
{
	struct buf err = BUF_INIT(4096);
	struct grams *back = NULL;
	FILE *f = fopen(path, "wb");
	int rc;

	if (f) {
		fwrite(bytes, 1, n, f);
		fclose(f);
	}
	rc = grams_read(dir, &back, &err) < 0 && !back;
	grams_free(back);
	buf_free(&err);
	return rc;
}

static void test_file(void)
{
	char dir[4096], *path;
	struct grams *g = make("of the a"), *back = NULL, *none = make("");
	struct buf err = BUF_INIT(4096);
	FILE *f;
	long size;
	unsigned char *bytes;

	if (!tap_mkdtemp(dir, sizeof(dir), "test-grams")) {
		ok(0, "file: a temporary directory");
		return;
	}
	path = xasprintf("%s/grams", dir);
	ok(grams_read(dir, &back, &err) == 0 && !back, "file: none is 0");
	ok(grams_write(dir, none, &err) == 0 && access(path, F_OK) != 0,
	   "file: an empty set writes none");
	ok(grams_write(dir, g, &err) == 0, "file: written");
	ok(grams_read(dir, &back, &err) == 1 && grams_equal(g, back), "file: read back");
	grams_free(back);
	back = NULL;
	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	bytes = xmalloc((size_t)size);
	ok(fread(bytes, 1, (size_t)size, f) == (size_t)size, "file: its bytes");
	fclose(f);
	/* Every byte flipped, one at a time, and the file cut short
	 * anywhere: refused, never read wrong. */
	{
		int flipped = 0, cut = 0;

		for (long i = 0; i < size; i++) {
			bytes[i] ^= 0x10;
			flipped += refused(dir, path, bytes, (size_t)size);
			bytes[i] ^= 0x10;
			cut += refused(dir, path, bytes, (size_t)i);
		}
		ok(flipped == size, "file: each of %ld flipped bytes refused (%d)", size, flipped);
		ok(cut == size, "file: each of %ld shorter files refused (%d)", size, cut);
	}
	unlink(path);
	rmdir(dir);
	free(bytes);
	free(path);
	grams_free(g);
	grams_free(none);
	buf_free(&err);
}

int main(void)
{
	test_sets();
	test_docs();
	test_file();
	return done_testing();
}
