/* fuzz-tokenize.c - libFuzzer target for the tokenizer (src/text/tokenize.c).
 *
 * Tokenizes arbitrary bytes in every section, with length limits taken from
 * the first two bytes, and checks the invariants of tokenize.h: every word is
 * valid UTF-8, non-empty, at most MAX_WORD_LEN bytes and max_len code points,
 * NUL-terminated, its own fold; positions count up by one per word within the
 * section (saturating at MAX_POSITION).  Folding valid input is idempotent.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "buf.h"
#include "caps.h"
#include "log.h"
#include "tokenize.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	int section;
	long max_len;
	unsigned long count;
	struct buf fold;
};

static void fail(const char *what, const char *word, size_t len)
{
	fprintf(stderr, "invariant broken: %s: \"", what);
	for (size_t i = 0; i < len; i++)
		fprintf(stderr, "\\x%02x", (uint8_t)word[i]);
	fprintf(stderr, "\"\n");
	abort();
}

static int check_word(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct check *c = arg;
	size_t i = 0, nchars = 0;
	unsigned long want = c->count < MAX_POSITION ? c->count : MAX_POSITION;

	UNUSED(stop);
	if (len == 0 || len > MAX_WORD_LEN || word[len] != '\0' || strlen(word) != len)
		fail("length", word, len);
	while (i < len) {
		int32_t cp;
		utf8proc_ssize_t n = utf8proc_iterate((const uint8_t *)word + i,
						      (utf8proc_ssize_t)(len - i), &cp);
		if (n <= 0)
			fail("valid UTF-8", word, len);
		i += (size_t)n;
		nchars++;
	}
	if ((long)nchars > c->max_len)
		fail("max_len", word, len);
	if (tok_pos_section(pos) != c->section || tok_pos_position(pos) != want)
		fail("position", word, len);
	c->count++;
	buf_reset(&c->fold);
	if (tok_fold(word, len, &c->fold) || c->fold.len != len || memcmp(c->fold.ptr, word, len))
		fail("its own fold", word, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tok_doc doc;
	static bool quiet;
	struct check c = { 0, 0, 0, BUF_INIT(4 * MAX_WORD_LEN) };
	struct buf once = BUF_INIT(1 << 24), twice = BUF_INIT(1 << 24);
	struct tokenizer *t;
	long min_len = 1, max_len = 32;

	if (!quiet) {
		log_set_level(LOG_ERROR);
		quiet = true;
	}
	if (size >= 2) {
		min_len = data[0] % 8;
		max_len = data[1] % (MAX_WORD_LEN + 8);
		data += 2;
		size -= 2;
	}
	t = tok_new(min_len, max_len);
	tok_add_stopword(t, "the", 3);
	tok_add_stopword(t, "\xc3\xa9t\xc3\xa9", 6); /* été */
	tok_add_stopword(t, "\xe7\x9a\x84", 3);      /* 的 */
	c.max_len = max_len < 1 ? 1 : max_len > MAX_WORD_LEN ? MAX_WORD_LEN : max_len;
	tok_doc_reset(&doc);
	for (c.section = 0; c.section < TOK_SECTIONS; c.section++) {
		c.count = 0;
		if (tok_run(t, &doc, c.section, (const char *)data, size, check_word, &c))
			abort();
		if (doc.next[c.section] != c.count)
			abort();
	}
	if (tok_fold((const char *)data, size, &once) == 0) {
		if (tok_fold(once.ptr ? once.ptr : "", once.len, &twice) || once.len != twice.len ||
		    memcmp(buf_str(&once), buf_str(&twice), once.len))
			fail("fold is idempotent", buf_str(&once), once.len);
	}
	buf_free(&once);
	buf_free(&twice);
	buf_free(&c.fold);
	tok_free(t);
	return 0;
}
