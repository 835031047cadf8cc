/* test-blocks.c - blocks.c: a stored page's body cut into lines at block
 * tags, each line's body positions and the hash of its words.  A table of
 * pages gives, per line, its positions ("start-end") and a letter naming
 * its hash: equal letters must be equal hashes across the whole table,
 * different letters different ones, '-' no hash (a line without words).
 * Then the ranges a snippet drops, and the range lookup.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "buf.h"
#include "caps.h"
#include "tap.h"
#include "tokenize.h"
#include "util.h"

struct row {
	const char *name, *html, *ctype;
	const char *lines; /* "start-end:letter" per line, space-separated */
};

static const struct row rows[] = {
	{ "nav, body, footer",
	  "<div class=nav><a href=1>Prev</a> <a href=2>Up</a> <a href=3>Home</a> "
	  "<a href=4>Next</a></div><p>The body text.</p><div>Copyright ACME</div>",
	  "text/html", "0-4:N 4-7:B 7-9:F" },
	{ "same navigation, other markup and case",
	  "<ul><li>PREV  up</li></ul><table><tr><td>Home</table>",
	  "text/html", "0-2:P 2-3:H" },
	{ "the same words in one block hash alike whatever the spaces",
	  "<p>prev\tUp\n home   next</p><p>copyright acme</p><p>another body</p>",
	  "text/html", "0-4:N 4-6:F 6-8:A" },
	{ "inline tags do not cut a block",
	  "<p>Pr<b>ev</b> <span>Up</span> <i>Home</i> Next</p>", "text/html", "0-4:N" },
	{ "word boundaries are part of the hash",
	  "<p>ab c</p><p>a bc</p>", "text/html", "0-2:X 2-4:Y" },
	{ "a line of symbols has no words and no hash",
	  "<h2>Title \xC2\xB6</h2><p>\xC2\xB6 | \xE2\x80\xA2</p><p>after</p>",
	  "text/html", "0-1:T 1-1:- 1-2:Q" },
	{ "stopwords and short words take positions",
	  "<p>a the of I</p><p>Prev Up Home Next</p>", "text/html", "0-4:S 4-8:N" },
	{ "text/plain: one block per line",
	  "Prev Up Home Next\nplain body\n", "text/plain", "0-4:N 4-6:W" },
	{ "no body", "<title>only a title</title>", "text/html", "" },
};

struct got {
	char s[512];
	uint64_t hash[32];
	size_t n;
};

static int put(const struct block *b, void *arg)
{
	struct got *g = arg;
	size_t l = strlen(g->s);

	snprintf(g->s + l, sizeof(g->s) - l, "%s%u-%u", l ? " " : "", b->pos_start, b->pos_end);
	if (g->n < ARRAY_SIZE(g->hash))
		g->hash[g->n++] = b->hash;
	return 0;
}

/* The letters each hash was given so far, across rows. */
struct names {
	uint64_t hash[64];
	char letter[64];
	size_t n;
};

static bool same_name(struct names *nm, uint64_t h, char letter)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->hash[i] == h || nm->letter[i] == letter)
			return nm->hash[i] == h && nm->letter[i] == letter;
	nm->hash[nm->n] = h;
	nm->letter[nm->n++] = letter;
	return true;
}

static void test_rows(const struct tokenizer *tok)
{
	struct buf text = BUF_INIT(MAX_DOC_BYTES + 1);
	struct names nm = { .n = 0 };

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct got g = { .n = 0 };
		char want[512] = "", *save = NULL, *tokn;
		char copy[512];
		size_t k = 0;
		bool hashes = true;

		ok(!blocks_body_text(rows[i].html, strlen(rows[i].html), rows[i].ctype, &text),
		   "%s: parsed", rows[i].name);
		blocks_split(tok, text.ptr ? text.ptr : "", text.len, put, &g);
		snprintf(copy, sizeof(copy), "%s", rows[i].lines);
		for (tokn = strtok_r(copy, " ", &save); tokn; tokn = strtok_r(NULL, " ", &save), k++) {
			char *colon = strchr(tokn, ':');
			size_t l = strlen(want);

			*colon = '\0';
			snprintf(want + l, sizeof(want) - l, "%s%s", l ? " " : "", tokn);
			if (k >= g.n)
				continue;
			if (colon[1] == '-')
				hashes &= g.hash[k] == 0;
			else
				hashes &= g.hash[k] != 0 && same_name(&nm, g.hash[k], colon[1]);
		}
		ok(!strcmp(g.s, want), "%s: positions %s (want %s)", rows[i].name, g.s, want);
		ok(hashes, "%s: hashes as %s", rows[i].name, rows[i].lines);
	}
	buf_free(&text);
}

static void test_drop(const struct tokenizer *tok)
{
	const char *text = "Prev Up Home Next\nThe body of it.\nCopyright ACME\n";
	struct pos_range nav[] = { { 0, 4 }, { 8, 10 } }, part[] = { { 1, 3 } };
	struct buf out = BUF_INIT(4096);

	int rc = blocks_drop(tok, text, strlen(text), nav, 2, &out);

	ok(!rc && !strcmp(buf_str(&out), "The body of it."), "the boilerplate lines dropped: \"%s\"",
	   buf_str(&out));
	rc = blocks_drop(tok, text, strlen(text), part, 1, &out);
	ok(!rc && !strcmp(buf_str(&out), "Prev Up Home Next The body of it. Copyright ACME"),
	   "a line only partly in a range stays: \"%s\"", buf_str(&out));
	ok(!blocks_drop(tok, text, strlen(text), NULL, 0, &out) &&
	   !strcmp(buf_str(&out), "Prev Up Home Next The body of it. Copyright ACME"),
	   "no ranges: the text with spaces for newlines");
	buf_free(&out);
}

static void test_covers(void)
{
	struct pos_range r[] = { { 0, 4 }, { 10, 12 }, { 20, 30 } };

	ok(blocks_range_covers(r, 3, 0, 4) && blocks_range_covers(r, 3, 11, 12) &&
	   blocks_range_covers(r, 3, 29, 30), "inside a range");
	ok(!blocks_range_covers(r, 3, 4, 5) && !blocks_range_covers(r, 3, 9, 11) &&
	   !blocks_range_covers(r, 3, 30, 31) && !blocks_range_covers(r, 3, 3, 11),
	   "outside or across ranges");
	ok(!blocks_range_covers(r, 0, 0, 1), "no ranges");
}

int main(void)
{
	struct tokenizer *tok = tok_new(2, 32);

	/* MinWordLength 2 and a stopword: the positions must not move. */
	tok_add_stopword(tok, "the", 3);
	test_rows(tok);
	test_drop(tok);
	test_covers();
	tok_free(tok);
	return done_testing();
}
