/* query.h - the query language (ASPseek's, doc/SEARCH.md) parsed
 * into a tree.
 *
 * Syntax: juxtaposed terms AND, `AND`/`+` AND, `OR`/`|` OR (keywords in
 * upper case), `-term`/`NOT term`, parentheses, "phrases" with `*` as a
 * one-word placeholder, wildcard words (`elasti*`, `colo?r`) with at least
 * MinFixedPatternLength literal characters before the first `*`/`?`,
 * `site:pattern` / `-site:pattern`, `link:URL`, and section prefixes
 * `title:`, `desc:`, `keywords:`, `body:` (combinable) before a term, a
 * phrase or a parenthesised group.  Terms go through the indexer's tokenizer
 * (tok_run/tok_fold): a term that yields several words is a phrase, a
 * stopword is dropped (and reported) but keeps its place in a phrase.
 *
 * The parser never fails on input: a query it cannot serve gets an ASPseek
 * error token (ER_EMPTYQUERY, ER_STOPWORDS, ER_TOOSHORT, ER_NOQUOTED,
 * ER_NOPARENTHESIS, ER_EXTRASYMBOL) and a sentence for people.  It does not
 * look at the index: wildcards are expanded by search.c.
 */
#ifndef MPSEEK_QUERY_H
#define MPSEEK_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct tokenizer;

#define QUERY_MAX_NODES 256       /* nodes of one tree (terms, operators) */
#define QUERY_MAX_DEPTH 32        /* parenthesis nesting */
#define QUERY_MAX_PHRASE 32       /* words of one phrase */

enum qtype {
	Q_TERM,    /* word: one folded word */
	Q_PHRASE,  /* kids: Q_TERM, at offs[i] positions after the first */
	Q_WILD,    /* word: a folded pattern with * and ? (expanded by search.c) */
	Q_AND,     /* kids: at least one not Q_NOT */
	Q_OR,
	Q_NOT,     /* one kid; only inside Q_AND */
	Q_SITE,    /* word: the site pattern as typed, lower-cased */
	Q_LINK,    /* word: the URL */
};

struct qnode {
	enum qtype type;
	uint8_t sections;          /* bit i = section i (0 body .. 3 title); 0 = all */
	char *word;
	struct qnode **kids;
	uint32_t *offs;            /* Q_PHRASE: offset of each kid */
	size_t n_kids;
	int id;                    /* leaves: index into the query's term list (search.c) */
};

/* A word of the query for the statistics line ($W): every term as folded,
 * stopwords flagged. */
struct query_word {
	char *word;
	bool stopword;
};

struct query {
	struct qnode *root;        /* NULL when error is set */
	const char *error;         /* NULL or an ER_* token (static) */
	char message[256];         /* for people, when error is set; else notes */
	struct query_word *words;
	size_t n_words;
	/* private: every node, for query_free() */
	struct qnode **nodes;
	size_t n_nodes;
};

struct query_opts {
	const struct tokenizer *tok;   /* the indexer's (same lengths and stopwords) */
	long min_fixed_pattern;        /* MinFixedPatternLength, code points */
};

/* Parse q (len bytes, any bytes: invalid UTF-8 is an ER_EXTRASYMBOL).  Fills
 * *out (free with query_free()); returns 0 when there is a tree, -1 when
 * out->error says why not. */
int query_parse(const char *q, size_t len, const struct query_opts *o, struct query *out);
void query_free(struct query *q); /* accepts a zeroed struct */

/* The tree as one line: `(AND a (OR b c) (NOT d) "many * ago" elasti* site:x
 * title:e)`, or `ERROR ER_...` (for tests and `searchd -q -v`). */
void query_print(const struct query *q, struct buf *out);

/* Does the folded word match the folded pattern (* any run, ? one code
 * point)?  For wildcard expansion. */
bool query_wild_match(const char *pat, const char *word, size_t len);
/* Bytes of the literal prefix of a pattern (before the first * or ?). */
size_t query_wild_prefix(const char *pat);

#endif
