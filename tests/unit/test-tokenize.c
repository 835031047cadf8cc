/* test-tokenize.c - words, folding, stopwords and positions, driven by
 * tests/data/tokenize/{words,fold,stopfiles}.tsv.
 *
 * words.tsv:     input <TAB> words <TAB> options
 *   words: "word:POS" each, POS prefixed by D/K/T for the description,
 *   keywords and title sections and suffixed by '*' when reported as a
 *   stopword; options: min=N max=N section=N start=N (first position)
 *   stop (load stop-good.txt) twice (run the input twice in one document).
 *   Every valid-UTF-8 row is also run in NFD and must give the same words.
 * fold.tsv:      input <TAB> tok_fold() output, or ERROR
 * stopfiles.tsv: file <TAB> "ok N" (N stopwords) or "error TEXT" (logged)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utf8proc.h>

#include "buf.h"
#include "caps.h"
#include "log.h"
#include "tokenize.h"
#include "tap.h"
#include "util.h"

struct collect {
	struct buf out;
	int section;
	bool bad; /* a word broke an invariant */
};

static int collect_word(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	static const char letters[] = "\0DKT";
	struct collect *c = arg;
	int sec = tok_pos_section(pos);

	if (len == 0 || len > MAX_WORD_LEN || strlen(word) != len || sec != c->section)
		c->bad = true;
	if (c->out.len)
		buf_addc(&c->out, ' ');
	buf_printf(&c->out, "%s:", word);
	if (sec)
		buf_addc(&c->out, letters[sec]);
	buf_printf(&c->out, "%u%s", tok_pos_position(pos), stop ? "*" : "");
	return 0;
}

struct opts {
	long min, max, start;
	int section;
	bool stop, twice;
};

static int parse_opts(const char *s, struct opts *o)
{
	char copy[256], *p, *save = NULL;

	o->min = 1;
	o->max = 32;
	o->start = 0;
	o->section = 0;
	o->stop = o->twice = false;
	strlcpy_(copy, s, sizeof(copy));
	for (p = strtok_r(copy, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		long v;
		if (!strcmp(p, "stop"))
			o->stop = true;
		else if (!strcmp(p, "twice"))
			o->twice = true;
		else if (!strncmp(p, "min=", 4) && !parse_long(p + 4, 0, 1000, &v))
			o->min = v;
		else if (!strncmp(p, "max=", 4) && !parse_long(p + 4, 0, 1000, &v))
			o->max = v;
		else if (!strncmp(p, "section=", 8) && !parse_long(p + 8, 0, 3, &v))
			o->section = (int)v;
		else if (!strncmp(p, "start=", 6) && !parse_long(p + 6, 0, 1L << 30, &v))
			o->start = v;
		else
			return -1;
	}
	return 0;
}

/* Tokenize input with the options; the words as a string (caller frees). */
static char *tokenize(const char *input, size_t len, const struct opts *o, bool *bad)
{
	struct tokenizer *t = tok_new(o->min, o->max);
	struct tok_doc *d = xmalloc(sizeof(*d));
	struct collect c = { BUF_INIT(1 << 20), o->section, false };

	if (o->stop && tok_load_stopwords(t, tap_data("tokenize/stop-good.txt")))
		c.bad = true;
	tok_doc_reset(d);
	d->next[o->section] = (uint32_t)o->start;
	if (tok_run(t, d, o->section, input, len, collect_word, &c))
		c.bad = true;
	if (o->twice && tok_run(t, d, o->section, input, len, collect_word, &c))
		c.bad = true;
	*bad = c.bad;
	free(d);
	tok_free(t);
	return buf_detach(&c.out, NULL);
}

static int words_rows;

static void words_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct opts o;
	const char *want = n > 1 ? f[1] : "";
	char *got, *nfd;
	bool bad;

	UNUSED(arg);
	words_rows++;
	if (!ok(parse_opts(n > 2 ? f[2] : "", &o) == 0, "words.tsv:%d: options", lineno))
		return;
	got = tokenize(f[0], len[0], &o, &bad);
	is_str(got, want, "words.tsv:%d", lineno);
	if (bad)
		ok(0, "words.tsv:%d: emitted words keep the invariants", lineno);
	/* NFD input must give the same words (utf8proc_NFD stops at a NUL and
	 * refuses invalid UTF-8: those rows are skipped). */
	nfd = memchr(f[0], '\0', len[0]) ? NULL : (char *)utf8proc_NFD((const uint8_t *)f[0]);
	if (nfd) {
		if (strcmp(nfd, f[0])) {
			char *got2 = tokenize(nfd, strlen(nfd), &o, &bad);
			is_str(got2, want, "words.tsv:%d in NFD", lineno);
			free(got2);
		}
		free(nfd);
	}
	free(got);
}

static void fold_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf out = BUF_INIT(4096);
	int rc = tok_fold(f[0], len[0], &out);

	UNUSED(arg);
	if (n > 1 && !strcmp(f[1], "ERROR")) {
		ok(rc == -1 && out.len == 0, "fold.tsv:%d: refused", lineno);
	} else {
		struct buf again = BUF_INIT(4096);
		ok(rc == 0, "fold.tsv:%d: folds", lineno);
		is_str(buf_str(&out), n > 1 ? f[1] : "", "fold.tsv:%d", lineno);
		ok(tok_fold(out.ptr, out.len, &again) == 0 && !strcmp(buf_str(&again), buf_str(&out)),
		   "fold.tsv:%d: folding is idempotent", lineno);
		buf_free(&again);
	}
	buf_free(&out);
}

static const char *log_path;

/* The log file's content since the last call. */
static char *read_log(void)
{
	static long seen;
	struct buf b = BUF_INIT(1 << 20);
	char chunk[4096];
	size_t k;
	FILE *fp = fopen(log_path, "r");

	if (fp) {
		fseek(fp, seen, SEEK_SET);
		while ((k = fread(chunk, 1, sizeof(chunk), fp)) > 0)
			buf_add(&b, chunk, k);
		seen = ftell(fp);
		fclose(fp);
	}
	return buf_detach(&b, NULL);
}

static void stopfile_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	char name[512];
	struct tokenizer *t = tok_new(1, 32);
	const char *want = n > 1 ? f[1] : "";
	char *logged;
	int rc;

	UNUSED(len);
	UNUSED(arg);
	snprintf(name, sizeof(name), "tokenize/%s", f[0]);
	rc = tok_load_stopwords(t, tap_data(name));
	logged = read_log();
	if (!strncmp(want, "ok ", 3)) {
		long count = -1;
		parse_long(want + 3, 0, 1000000, &count);
		ok(rc == 0, "stopfiles.tsv:%d: %s loads", lineno, f[0]);
		is_int(tok_stopword_count(t), count, "stopfiles.tsv:%d: %s count", lineno, f[0]);
	} else {
		const char *text = !strncmp(want, "error ", 6) ? want + 6 : "?";
		ok(rc == -1, "stopfiles.tsv:%d: %s is refused", lineno, f[0]);
		if (!ok(strstr(logged, text) != NULL, "stopfiles.tsv:%d: log says %s", lineno, text))
			diag("  logged: %s", logged);
	}
	free(logged);
	tok_free(t);
}

/* Files too big for the bounds are generated rather than kept in the tree. */
static void test_stopword_limits(void)
{
	char path[] = "/tmp/test-tokenize-stop.XXXXXX";
	int fd = mkstemp(path);
	struct tokenizer *t;
	char *logged;
	FILE *fp;
	long i;

	if (!ok(fd >= 0 && (fp = fdopen(fd, "w")) != NULL, "temporary stopword file"))
		return;
	/* TOK_MAX_STOPWORDS + 1 distinct words: "waaaa", "wbaaa", ... */
	for (i = 0; i <= TOK_MAX_STOPWORDS; i++)
		fprintf(fp, "w%c%c%c%c\n", 'a' + (int)(i % 26), 'a' + (int)(i / 26 % 26),
			'a' + (int)(i / 676 % 26), 'a' + (int)(i / 17576 % 26));
	fclose(fp);
	t = tok_new(1, 32);
	ok(tok_load_stopwords(t, path) == -1, "more than TOK_MAX_STOPWORDS words are refused");
	logged = read_log();
	ok(strstr(logged, ":65537: \"wqysd\": too many stopwords") != NULL,
	   "the log names the line");
	is_int(tok_stopword_count(t), TOK_MAX_STOPWORDS, "the words before it stay");
	free(logged);
	tok_free(t);

	fp = fopen(path, "w");
	for (i = 0; i <= TOK_MAX_STOPFILE_BYTES / 16; i++)
		fputs("# comment line \n", fp);
	fclose(fp);
	t = tok_new(1, 32);
	ok(tok_load_stopwords(t, path) == -1, "a file over TOK_MAX_STOPFILE_BYTES is refused");
	logged = read_log();
	ok(strstr(logged, "larger than") != NULL, "the log says it is too large");
	free(logged);
	tok_free(t);
	unlink(path);
}

struct counter {
	long n, stops;
	tok_pos_t last;
};

static int count_word(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct counter *c = arg;

	UNUSED(word);
	UNUSED(len);
	c->n++;
	c->stops += stop;
	c->last = pos;
	return 0;
}

static int stop_at_two(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	int *seen = arg;

	UNUSED(word);
	UNUSED(len);
	UNUSED(pos);
	UNUSED(stop);
	return ++*seen == 2 ? 42 : 0;
}

static void test_positions(void)
{
	is_int(tok_pos_encode(TOK_SECTION_BODY, 0), 0, "encode body 0");
	is_int(tok_pos_encode(TOK_SECTION_TITLE, 5), 0x3000005, "encode title 5");
	is_int(tok_pos_encode(TOK_SECTION_DESCRIPTION, 16383), 0x1003FFF, "encode description 16383");
	is_int(tok_pos_encode(TOK_SECTION_BODY, 16384), 0x4000, "16384 keeps its own position");
	is_int(tok_pos_encode(TOK_SECTION_BODY, 34000), 34000, "34000 keeps its own position");
	is_int(tok_pos_encode(TOK_SECTION_KEYWORDS, 16777215), 0x2FFFFFF, "encode keywords 2^24-1");
	is_int(tok_pos_encode(TOK_SECTION_KEYWORDS, 16777216), 0x2FFFFFF, "positions saturate");
	is_int(tok_pos_encode(TOK_SECTION_BODY, 4000000000UL), 0xFFFFFF, "huge positions saturate");
	is_int(tok_pos_encode(4, 7), 0x4000007, "a fifth section value has room");
	is_int(tok_pos_section(0x3000005), TOK_SECTION_TITLE, "decode section");
	is_int(tok_pos_position(0x3000005), 5, "decode position");
	is_int(tok_pos_position(0x2FFFFFF), MAX_POSITION, "decode saturated");
}

static void test_api(void)
{
	struct tokenizer *t = tok_new(3, 1000);
	struct tok_doc *d = xmalloc(sizeof(*d));
	struct counter c = { 0, 0, 0 };
	struct buf small = BUF_INIT(4);
	int seen = 0;

	tok_free(NULL);
	ok(1, "tok_free(NULL)");
	tok_doc_reset(d);
	ok(tok_add_stopword(t, "The", 3) == 0, "add a stopword in any case");
	ok(tok_is_stopword(t, "the"), "it is stored folded");
	ok(!tok_is_stopword(t, "The"), "lookups take folded words");
	ok(tok_add_stopword(t, "THE", 3) == 0 && tok_stopword_count(t) == 1, "duplicates count once");
	ok(tok_add_stopword(t, "two words", 9) == -1, "a stopword is one word");
	ok(tok_add_stopword(t, "don't", 5) == -1, "the tokenizer splits don't");
	ok(tok_add_stopword(t, "--", 2) == -1, "no word at all");
	ok(tok_add_stopword(t, "\xff", 1) == -1, "invalid UTF-8");
	ok(tok_run(t, d, 4, "x", 1, count_word, &c) == -1, "section 4 is refused");
	ok(tok_run(t, d, -1, "x", 1, count_word, &c) == -1, "section -1 is refused");
	ok(tok_run(t, d, 0, "The cat of my neighbours sat", 28, count_word, &c) == 0, "run");
	is_int(c.n, 6, "every word is reported");
	is_int(c.stops, 3, "the, of, my are not indexed (stopword, too short)");
	is_int(d->tokens, 6, "doc counts tokens");
	is_int(d->indexed, 3, "doc counts indexed words");
	is_int(d->next[0], 6, "body counter");
	ok(tok_run(t, d, 0, NULL, 0, NULL, NULL) == 0, "empty text, no callback");
	ok(tok_run(t, d, 3, "one two three", 13, NULL, NULL) == 0 && d->next[3] == 3 &&
		   d->next[0] == 6,
	   "a NULL callback only counts; sections count apart");
	ok(tok_run(t, d, 0, "a b c d", 7, stop_at_two, &seen) == 42 && seen == 2,
	   "a callback's non-zero return stops the run and is returned");
	ok(tok_fold("HELLO", 5, &small) == -1 && small.len == 0, "fold past the ceiling fails");
	ok(tok_fold("Hi", 2, &small) == 0 && !strcmp(buf_str(&small), "hi"), "fold appends");
	buf_free(&small);
	free(d);
	tok_free(t);

	/* Limits are clamped, not refused: conf.c validates the directives. */
	t = tok_new(0, 1000);
	{
		char word[200];
		struct collect col = { BUF_INIT(1024), 0, false };
		memset(word, 'x', sizeof(word));
		d = xmalloc(sizeof(*d));
		tok_doc_reset(d);
		tok_run(t, d, 0, word, sizeof(word), collect_word, &col);
		is_int(strlen(buf_str(&col.out)), MAX_WORD_LEN + 2, "max_len clamps to MAX_WORD_LEN");
		buf_free(&col.out);
		free(d);
	}
	tok_free(t);
}

/* 1 MB of ASCII prose: a sanity run (no timing assertion; it is instant). */
static void test_bulk(void)
{
	static const char *const words[] = { "The", "quick", "brown", "fox", "jumps", "over",
					     "the", "lazy", "dog,", "again", "and", "again." };
	struct buf text = BUF_INIT(2 << 20);
	struct tokenizer *t = tok_new(1, 32);
	struct tok_doc *d = xmalloc(sizeof(*d));
	struct counter c = { 0, 0, 0 };
	long expect = 0;

	while (text.len < (1 << 20)) {
		buf_adds(&text, words[expect % ARRAY_SIZE(words)]);
		buf_addc(&text, expect % 17 ? ' ' : '\n');
		expect++;
	}
	tok_add_stopword(t, "the", 3);
	tok_add_stopword(t, "and", 3);
	tok_doc_reset(d);
	ok(tok_run(t, d, 0, text.ptr, text.len, count_word, &c) == 0, "1 MB of text");
	is_int(c.n, expect, "every word of 1 MB reported");
	is_int(c.stops, expect / 12 * 3 + (expect % 12 > 0) + (expect % 12 > 6) + (expect % 12 > 10),
	       "stopwords of 1 MB");
	is_int(tok_pos_position(c.last), expect - 1, "positions past 16383 stay distinct");
	is_int(d->next[0], expect, "the counter keeps counting past 16383");
	free(d);
	tok_free(t);
	buf_free(&text);
}

static void test_default_stopwords(void)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	struct tokenizer *t = tok_new(1, 32);

	snprintf(path, sizeof(path), "%s/etc/stopwords-en.txt", srcdir ? srcdir : ".");
	ok(tok_load_stopwords(t, path) == 0, "etc/stopwords-en.txt loads");
	ok(tok_stopword_count(t) >= 150 && tok_stopword_count(t) <= 250,
	   "etc/stopwords-en.txt has a classic size (%zu)", tok_stopword_count(t));
	ok(tok_is_stopword(t, "the") && tok_is_stopword(t, "and") && tok_is_stopword(t, "of"),
	   "the, and, of are stopwords");
	ok(!tok_is_stopword(t, "search") && !tok_is_stopword(t, "years"), "search is not");
	tok_free(t);
}

int main(void)
{
	char tmpl[] = "/tmp/test-tokenize-log.XXXXXX";
	int fd = mkstemp(tmpl);

	test_positions();
	test_api();
	test_bulk();
	test_default_stopwords();

	tap_lines("tokenize/words.tsv", words_case, NULL);
	ok(words_rows >= 60, "words.tsv has %d rows", words_rows);
	tap_lines("tokenize/fold.tsv", fold_case, NULL);

	/* Stopword file errors go to the log: capture it to check file:line. */
	if (ok(fd >= 0, "temporary log file")) {
		close(fd);
		log_path = tmpl;
		log_open(log_path);
		tap_lines("tokenize/stopfiles.tsv", stopfile_case, NULL);
		test_stopword_limits();
		log_close();
		unlink(tmpl);
	}
	return done_testing();
}
