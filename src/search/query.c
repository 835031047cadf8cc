/* query.c - the query parser declared in query.h: a scanner and a
 * recursive-descent parser (or > and > unary > primary) that builds the tree
 * from nodes kept in one list, so that every error path frees by walking the
 * list.  Words are made by the indexer's tokenizer.  It does not touch the
 * index (search.c evaluates the tree).
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "query.h"
#include "tokenize.h"
#include "util.h"

struct parser {
	const char *s;
	size_t len, i;
	const struct query_opts *o;
	struct query *q;
	int depth;
	int stops;       /* stopwords dropped */
	bool dropped;    /* something (operator, punctuation) was ignored */
};

static bool failed(const struct parser *p)
{
	return p->q->error != NULL;
}

static void set_error(struct parser *p, const char *token, const char *msg)
{
	if (p->q->error)
		return;
	p->q->error = token;
	snprintf(p->q->message, sizeof(p->q->message), "%s", msg);
}

static struct qnode *node(struct parser *p, enum qtype type)
{
	struct qnode *n;

	if (p->q->n_nodes >= QUERY_MAX_NODES) {
		set_error(p, "ER_TOOCOMPLEX", "The query has too many terms.");
		return NULL;
	}
	n = xcalloc(1, sizeof(*n));
	n->type = type;
	n->id = -1;
	p->q->nodes = xrealloc(p->q->nodes, (p->q->n_nodes + 1) * sizeof(*p->q->nodes));
	p->q->nodes[p->q->n_nodes++] = n;
	return n;
}

static void add_kid(struct qnode *n, struct qnode *k, uint32_t off)
{
	n->kids = xrealloc(n->kids, (n->n_kids + 1) * sizeof(*n->kids));
	n->kids[n->n_kids] = k;
	if (n->type == Q_PHRASE) {
		n->offs = xrealloc(n->offs, (n->n_kids + 1) * sizeof(*n->offs));
		n->offs[n->n_kids] = off;
	}
	n->n_kids++;
}

static void add_word(struct parser *p, const char *w, bool stop)
{
	struct query *q = p->q;

	for (size_t i = 0; i < q->n_words; i++)
		if (!strcmp(q->words[i].word, w))
			return;
	if (q->n_words >= QUERY_MAX_NODES)
		return;
	q->words = xrealloc(q->words, (q->n_words + 1) * sizeof(*q->words));
	q->words[q->n_words].word = xstrdup(w);
	q->words[q->n_words].stopword = stop;
	q->n_words++;
}

/* ---- scanning -------------------------------------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_delim(char c)
{
	return is_space(c) || c == '(' || c == ')' || c == '"' || c == '|';
}

static void skip_ws(struct parser *p)
{
	while (p->i < p->len && is_space(p->s[p->i]))
		p->i++;
}

/* The raw term at p->i (up to a delimiter), not consumed. */
static size_t raw_len(const struct parser *p, size_t at)
{
	size_t j = at;
	while (j < p->len && !is_delim(p->s[j]))
		j++;
	return j - at;
}

static bool at_keyword(const struct parser *p, const char *kw)
{
	size_t n = strlen(kw);
	return raw_len(p, p->i) == n && !memcmp(p->s + p->i, kw, n);
}

/* ---- terms ----------------------------------------------------------------- */

struct collect {
	struct parser *p;
	struct qnode *phrase;      /* words with positions */
	uint32_t base;             /* position of the first word */
	bool have_base;
	size_t n;
};

static int collect_word(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct collect *c = arg;
	struct qnode *t;
	uint32_t at = tok_pos_position(pos);

	UNUSED(len);
	add_word(c->p, word, stop);
	if (stop) {
		c->p->stops++;
		return 0;
	}
	if (c->n >= QUERY_MAX_PHRASE)
		return 0; /* a longer phrase is cut: its first words still match */
	t = node(c->p, Q_TERM);
	if (!t)
		return 1;
	t->word = xstrdup(word);
	if (!c->have_base) {
		c->base = at;
		c->have_base = true;
	}
	add_kid(c->phrase, t, at - c->base);
	c->n++;
	return 0;
}

/* A phrase node with one word is that word; with none, nothing. */
static struct qnode *phrase_done(struct qnode *ph)
{
	if (ph->n_kids == 0)
		return NULL;
	if (ph->n_kids == 1)
		return ph->kids[0];
	return ph;
}

static struct qnode *wildcard(struct parser *p, const char *s, size_t n)
{
	struct buf f = BUF_INIT(4 * MAX_WORD_LEN);
	struct qnode *w = NULL;
	size_t pre, cps = 0;

	if (tok_fold(s, n, &f) || f.len == 0) {
		set_error(p, "ER_TOOSHORT", "A wildcard pattern is too long.");
		goto out;
	}
	pre = query_wild_prefix(f.ptr);
	for (size_t k = 0; k < pre; k++)
		cps += ((uint8_t)f.ptr[k] & 0xC0) != 0x80;
	if ((long)cps < p->o->min_fixed_pattern) {
		char m[160];
		snprintf(m, sizeof(m),
			 "A wildcard needs at least %ld letters before the first * or ?.",
			 p->o->min_fixed_pattern);
		set_error(p, "ER_TOOSHORT", m);
		goto out;
	}
	w = node(p, Q_WILD);
	if (w) {
		w->word = buf_detach(&f, NULL);
		add_word(p, w->word, false);
	}
out:
	buf_free(&f);
	return w;
}

/* One typed term: a word, a phrase of the words it splits into, a
 * wildcard, or nothing (stopword, punctuation). */
static struct qnode *term(struct parser *p, const char *s, size_t n)
{
	struct tok_doc d;
	struct collect c = { p, NULL, 0, false, 0 };

	if (memchr(s, '*', n) || memchr(s, '?', n)) {
		bool only = true;
		for (size_t k = 0; k < n; k++)
			only = only && (s[k] == '*' || s[k] == '?');
		if (!only)
			return wildcard(p, s, n);
	}
	c.phrase = node(p, Q_PHRASE);
	if (!c.phrase)
		return NULL;
	tok_doc_reset(&d);
	if (tok_run(p->o->tok, &d, TOK_SECTION_BODY, s, n, collect_word, &c) < 0)
		return NULL;
	return phrase_done(c.phrase);
}

/* "..." with p->i after the opening quote. */
static struct qnode *phrase(struct parser *p)
{
	struct tok_doc d;
	struct collect c = { p, NULL, 0, false, 0 };
	size_t end = p->i;

	while (end < p->len && p->s[end] != '"')
		end++;
	if (end >= p->len) {
		set_error(p, "ER_NOQUOTED", "A quote is not closed.");
		return NULL;
	}
	c.phrase = node(p, Q_PHRASE);
	if (!c.phrase)
		return NULL;
	tok_doc_reset(&d);
	while (p->i < end && !failed(p)) {
		size_t k = p->i;
		while (k < end && !is_space(p->s[k]))
			k++;
		if (k - p->i == 1 && p->s[p->i] == '*') {
			d.next[TOK_SECTION_BODY]++; /* one word, any word */
		} else if (k > p->i) {
			tok_run(p->o->tok, &d, TOK_SECTION_BODY, p->s + p->i, k - p->i,
				collect_word, &c);
		}
		p->i = k;
		while (p->i < end && is_space(p->s[p->i]))
			p->i++;
	}
	p->i = end + 1;
	return phrase_done(c.phrase);
}

/* ---- the grammar ----------------------------------------------------------- */

static struct qnode *or_expr(struct parser *p);
static struct qnode *unary(struct parser *p);

static void apply_sections(struct qnode *n, uint8_t mask)
{
	if (!n)
		return;
	if (n->type == Q_TERM || n->type == Q_WILD || n->type == Q_PHRASE) {
		if (!n->sections)
			n->sections = mask;
		if (n->type == Q_PHRASE)
			for (size_t k = 0; k < n->n_kids; k++)
				n->kids[k]->sections = n->sections;
		return;
	}
	for (size_t k = 0; k < n->n_kids; k++)
		apply_sections(n->kids[k], mask);
}

static const struct {
	const char *name;
	uint8_t mask;
} prefixes[] = {
	{ "title:", 1 << TOK_SECTION_TITLE },
	{ "desc:", 1 << TOK_SECTION_DESCRIPTION },
	{ "description:", 1 << TOK_SECTION_DESCRIPTION },
	{ "keywords:", 1 << TOK_SECTION_KEYWORDS },
	{ "body:", 1 << TOK_SECTION_BODY },
};

static bool starts_ci(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);
	return n >= k && !ascii_ncasecmp(s, pre, k);
}

/* site:/link: argument: the rest of the raw term, or the next raw term. */
static struct qnode *filter(struct parser *p, enum qtype type, size_t skip)
{
	size_t n = raw_len(p, p->i);
	struct qnode *f;

	p->i += skip;
	n -= skip;
	if (n == 0) {
		skip_ws(p);
		n = raw_len(p, p->i);
	}
	if (n == 0) {
		p->dropped = true;
		return NULL;
	}
	f = node(p, type);
	if (f) {
		f->word = xstrndup(p->s + p->i, n);
		if (type == Q_SITE)
			for (char *c = f->word; *c; c++)
				if (*c >= 'A' && *c <= 'Z')
					*c = (char)(*c + 32);
	}
	p->i += n;
	return f;
}

static struct qnode *primary(struct parser *p)
{
	uint8_t mask = 0;
	struct qnode *n;
	size_t len;

	for (;;) {
		size_t k;
		len = raw_len(p, p->i);
		for (k = 0; k < ARRAY_SIZE(prefixes); k++)
			if (starts_ci(p->s + p->i, len, prefixes[k].name))
				break;
		if (k == ARRAY_SIZE(prefixes))
			break;
		mask |= prefixes[k].mask;
		p->i += strlen(prefixes[k].name);
		if (raw_len(p, p->i) == 0)
			skip_ws(p);
	}
	if (p->i >= p->len)
		return NULL;
	if (p->s[p->i] == '(') {
		if (++p->depth > QUERY_MAX_DEPTH) {
			set_error(p, "ER_TOOCOMPLEX", "The query nests parentheses too deeply.");
			return NULL;
		}
		p->i++;
		n = or_expr(p);
		skip_ws(p);
		if (p->i >= p->len || p->s[p->i] != ')') {
			set_error(p, "ER_NOPARENTHESIS", "A parenthesis is not closed.");
			return NULL;
		}
		p->i++;
		p->depth--;
	} else if (p->s[p->i] == '"') {
		p->i++;
		n = phrase(p);
	} else if (starts_ci(p->s + p->i, len, "site:")) {
		return filter(p, Q_SITE, 5);
	} else if (starts_ci(p->s + p->i, len, "link:")) {
		return filter(p, Q_LINK, 5);
	} else {
		n = term(p, p->s + p->i, len);
		p->i += len;
	}
	if (mask)
		apply_sections(n, mask);
	return n;
}

static struct qnode *negate(struct parser *p, struct qnode *k)
{
	struct qnode *n;

	if (!k)
		return NULL;
	n = node(p, Q_NOT);
	if (n)
		add_kid(n, k, 0);
	return n;
}

static struct qnode *unary(struct parser *p)
{
	skip_ws(p);
	if (p->i >= p->len)
		return NULL;
	if (p->s[p->i] == '-' || p->s[p->i] == '+') {
		bool neg = p->s[p->i] == '-';
		p->i++;
		if (p->i >= p->len || is_space(p->s[p->i])) {
			p->dropped = true;
			return NULL;
		}
		return neg ? negate(p, unary(p)) : unary(p);
	}
	if (at_keyword(p, "NOT")) {
		p->i += 3;
		return negate(p, unary(p));
	}
	return primary(p);
}

/* Does the tree select documents by words (not only by NOTs and filters)? */
static bool positive(const struct qnode *n)
{
	if (!n)
		return false;
	switch (n->type) {
	case Q_TERM: case Q_PHRASE: case Q_WILD: case Q_LINK:
		return true;
	case Q_NOT: case Q_SITE:
		return false;
	case Q_AND:
		for (size_t k = 0; k < n->n_kids; k++)
			if (positive(n->kids[k]))
				return true;
		return false;
	case Q_OR:
		for (size_t k = 0; k < n->n_kids; k++)
			if (!positive(n->kids[k]))
				return false;
		return true;
	}
	return false;
}

/* A NOT, or an AND of NOTs: nothing an OR can use. */
static bool only_nots(const struct qnode *n)
{
	if (n->type == Q_NOT)
		return true;
	if (n->type != Q_AND)
		return false;
	for (size_t k = 0; k < n->n_kids; k++)
		if (n->kids[k]->type != Q_NOT)
			return false;
	return true;
}

/* Flatten nested operators of the same kind and drop empty kids. */
static struct qnode *simplify(struct parser *p, struct qnode *n)
{
	struct qnode **kids;
	size_t nk;

	if (!n || (n->type != Q_AND && n->type != Q_OR))
		return n;
	kids = n->kids;
	nk = n->n_kids;
	n->kids = NULL;
	n->n_kids = 0;
	for (size_t k = 0; k < nk; k++) {
		struct qnode *c = kids[k];
		if (!c)
			continue;
		if (n->type == Q_OR && only_nots(c)) {
			p->dropped = true; /* "a | -b" means nothing more than "a" */
			continue;
		}
		if (c->type == n->type) {
			for (size_t j = 0; j < c->n_kids; j++)
				add_kid(n, c->kids[j], 0);
			continue;
		}
		add_kid(n, c, 0);
	}
	free(kids);
	if (n->n_kids == 0)
		return NULL;
	if (n->n_kids == 1 && n->kids[0]->type != Q_NOT)
		return n->kids[0];
	return n;
}

static struct qnode *and_expr(struct parser *p)
{
	struct qnode *n = node(p, Q_AND);

	while (n && !failed(p)) {
		skip_ws(p);
		if (p->i >= p->len || p->s[p->i] == '|' || at_keyword(p, "OR"))
			break;
		if (p->s[p->i] == ')') {
			if (p->depth == 0) {
				set_error(p, "ER_EXTRASYMBOL", "A closing parenthesis has no opening one.");
				return NULL;
			}
			break;
		}
		if (at_keyword(p, "AND")) {
			p->i += 3;
			continue;
		}
		add_kid(n, unary(p), 0);
	}
	return failed(p) ? NULL : simplify(p, n);
}

static struct qnode *or_expr(struct parser *p)
{
	struct qnode *n = node(p, Q_OR);

	while (n && !failed(p)) {
		add_kid(n, and_expr(p), 0);
		skip_ws(p);
		if (p->i < p->len && p->s[p->i] == '|') {
			p->i++;
			continue;
		}
		if (at_keyword(p, "OR")) {
			p->i += 2;
			continue;
		}
		break;
	}
	return failed(p) ? NULL : simplify(p, n);
}

int query_parse(const char *q, size_t len, const struct query_opts *o, struct query *out)
{
	struct parser p;
	struct buf clean = BUF_INIT(4 * (size_t)len + 16);
	struct qnode *root;

	memset(out, 0, sizeof(*out));
	memset(&p, 0, sizeof(p));
	/* Bad bytes become U+FFFD, which separates words like punctuation. */
	if (utf8_sanitize(q, len, &clean, NULL) || !clean.ptr)
		buf_add(&clean, "", 0);
	p.s = clean.ptr;
	p.len = clean.len;
	p.o = o;
	p.q = out;
	root = or_expr(&p);
	skip_ws(&p);
	if (!failed(&p) && p.i < p.len)
		set_error(&p, "ER_EXTRASYMBOL", "The query has an extra symbol.");
	if (!failed(&p) && !positive(root)) {
		if (p.stops && !root)
			set_error(&p, "ER_STOPWORDS",
				  "The query has only stopwords (words too common to search for).");
		else
			set_error(&p, "ER_EMPTYQUERY", root ? "The query needs a word to look for, "
							      "not only exclusions or site: limits."
							    : "Please type a query.");
	}
	buf_free(&clean);
	if (failed(&p))
		return -1;
	out->root = root;
	if (p.stops)
		snprintf(out->message, sizeof(out->message),
			 "Very common words were left out of the search.");
	return 0;
}

void query_free(struct query *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n_nodes; i++) {
		free(q->nodes[i]->word);
		free(q->nodes[i]->kids);
		free(q->nodes[i]->offs);
		free(q->nodes[i]);
	}
	free(q->nodes);
	for (size_t i = 0; i < q->n_words; i++)
		free(q->words[i].word);
	free(q->words);
	memset(q, 0, sizeof(*q));
}

/* ---- printing and wildcards --------------------------------------------------- */

static void print_sections(struct buf *b, uint8_t s)
{
	static const char *names[] = { "body:", "desc:", "keywords:", "title:" };
	for (int k = 3; k >= 0; k--)
		if (s & (1 << k))
			buf_adds(b, names[k]);
}

static void print_node(const struct qnode *n, struct buf *b)
{
	switch (n->type) {
	case Q_TERM:
	case Q_WILD:
		print_sections(b, n->sections);
		buf_adds(b, n->word);
		break;
	case Q_PHRASE:
		print_sections(b, n->sections);
		buf_addc(b, '"');
		for (size_t k = 0; k < n->n_kids; k++) {
			if (k) {
				for (uint32_t g = n->offs[k - 1] + 1; g < n->offs[k]; g++)
					buf_adds(b, " *");
				buf_addc(b, ' ');
			}
			buf_adds(b, n->kids[k]->word);
		}
		buf_addc(b, '"');
		break;
	case Q_SITE:
		buf_printf(b, "site:%s", n->word);
		break;
	case Q_LINK:
		buf_printf(b, "link:%s", n->word);
		break;
	default:
		buf_adds(b, n->type == Q_AND ? "(AND" : n->type == Q_OR ? "(OR" : "(NOT");
		for (size_t k = 0; k < n->n_kids; k++) {
			buf_addc(b, ' ');
			print_node(n->kids[k], b);
		}
		buf_addc(b, ')');
	}
}

void query_print(const struct query *q, struct buf *out)
{
	if (q->error) {
		buf_printf(out, "ERROR %s", q->error);
		return;
	}
	if (q->root)
		print_node(q->root, out);
}

size_t query_wild_prefix(const char *pat)
{
	return strcspn(pat, "*?");
}

bool query_wild_match(const char *pat, const char *w, size_t len)
{
	const char *star = NULL;
	size_t i = 0, back = 0;

	while (i < len) {
		if (*pat == '*') {
			star = ++pat;
			back = i;
			continue;
		}
		if (*pat == '?' || (*pat && *pat == w[i])) {
			if (*pat == '?') { /* one whole code point */
				i++;
				while (i < len && ((uint8_t)w[i] & 0xC0) == 0x80)
					i++;
			} else {
				i++;
			}
			pat++;
			continue;
		}
		if (!star)
			return false;
		pat = star;
		do
			back++;
		while (back < len && ((uint8_t)w[back] & 0xC0) == 0x80);
		i = back;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}
