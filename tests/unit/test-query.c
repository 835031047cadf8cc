/* test-query.c - the query parser: every line of tests/data/query/parse.tsv
 * is a query and the tree query_print() must give (or ERROR ER_...), with
 * MinWordLength 1, MaxWordLength 32, tests/data/query/stopwords.txt and
 * MinFixedPatternLength 4; wild.tsv pins the wildcard matcher.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "query.h"
#include "tap.h"
#include "tokenize.h"
#include "util.h"

static struct query_opts opts;

static void parse_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct query q;
	struct buf out = BUF_INIT(1 << 16);

	UNUSED(arg);
	if (n < 2) {
		ok(0, "parse.tsv:%d: needs query and tree", lineno);
		return;
	}
	query_parse(f[0], len[0], &opts, &q);
	query_print(&q, &out);
	if (n >= 3 && q.error == NULL) {
		/* Third column: the word statistics, stopwords marked with '!'. */
		struct buf w = BUF_INIT(1 << 16);
		for (size_t i = 0; i < q.n_words; i++)
			buf_printf(&w, "%s%s%s", i ? " " : "", q.words[i].word,
				   q.words[i].stopword ? "!" : "");
		is_str(buf_str(&w), f[2], "parse.tsv:%d: words of %s", lineno, f[0]);
		buf_free(&w);
	}
	is_str(buf_str(&out), f[1], "parse.tsv:%d: %s", lineno, f[0]);
	if (q.error)
		ok(q.root == NULL && q.message[0], "parse.tsv:%d: error has a message", lineno);
	query_free(&q);
	buf_free(&out);
}

static void wild_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	UNUSED(arg);
	if (n < 3) {
		ok(0, "wild.tsv:%d: needs pattern, word, 0/1", lineno);
		return;
	}
	is_int(query_wild_match(f[0], f[1], len[1]), f[2][0] == '1', "wild.tsv:%d: %s ~ %s",
	       lineno, f[0], f[1]);
}

int main(void)
{
	struct tokenizer *t = tok_new(1, 32);

	log_set_level(LOG_ERROR);
	ok(tok_load_stopwords(t, tap_data("query/stopwords.txt")) == 0, "stopwords load");
	opts.tok = t;
	opts.min_fixed_pattern = 4;
	tap_lines("query/parse.tsv", parse_case, NULL);
	tap_lines("query/wild.tsv", wild_case, NULL);
	{
		/* Long hostile inputs end in a tree or an error, quickly. */
		struct buf big = BUF_INIT(1 << 20);
		struct query q;
		for (int i = 0; i < 5000; i++)
			buf_adds(&big, "(");
		query_parse(big.ptr, big.len, &opts, &q);
		is_str(q.error, "ER_TOOCOMPLEX", "5000 open parentheses");
		query_free(&q);
		buf_reset(&big);
		for (int i = 0; i < 2000; i++)
			buf_printf(&big, "w%d ", i);
		query_parse(big.ptr, big.len, &opts, &q);
		is_str(q.error, "ER_TOOCOMPLEX", "2000 words");
		query_free(&q);
		buf_free(&big);
	}
	tok_free(t);
	return done_testing();
}
