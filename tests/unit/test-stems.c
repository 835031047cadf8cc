/* test-stems.c - word forms (src/index/stems.c): the stem map of each
 * dictionary of tests/data/stems/cases.tsv, written and read back, gives the
 * words of a query word's stem; a missing map is no map, an unknown language
 * is refused, and every truncation and byte flip of a map is an error or a
 * map that still answers within itself (run under ASan), never a crash.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "stems.h"
#include "tap.h"
#include "util.h"

static char dir[256];

static char *path_of(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* The forms of word's stem as one space-separated line ("-": none). */
static void forms_line(const struct stems *s, struct stemmer *sm, const char *word, struct buf *out)
{
	struct stems_form f[STEMS_MAX_FORMS];
	size_t sl, n;
	const char *st = stemmer_stem(sm, word, strlen(word), &sl);

	buf_reset(out);
	n = st ? stems_forms(s, st, sl, f, STEMS_MAX_FORMS) : 0;
	for (size_t i = 0; i < n && i < STEMS_MAX_FORMS; i++)
		buf_printf(out, "%s%.*s", i ? " " : "", (int)f[i].len, f[i].word);
	if (!n)
		buf_adds(out, "-");
}

static void one_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf err = BUF_INIT(4096), got = BUF_INIT(4096);
	const char *words[64];
	size_t nw = 0;
	char *path = path_of("stems"), *save = NULL;
	struct stems *s = NULL;
	struct stemmer *sm = NULL;

	UNUSED(len);
	UNUSED(arg);
	if (!ok(n == 4, "line %d: four fields", lineno))
		goto out;
	for (char *w = strtok_r(f[1], " ", &save); w && nw < 64; w = strtok_r(NULL, " ", &save))
		words[nw++] = w;
	if (!ok(stems_write_words(path, f[0], words, nw, &err) == 0, "line %d: written (%s)", lineno,
		buf_str(&err)))
		goto out;
	if (!ok(stems_open_file(path, &s, &err) == 1, "line %d: opened (%s)", lineno, buf_str(&err)))
		goto out;
	is_str(stems_language(s), f[0], "line %d: language", lineno);
	stemmer_new(f[0], &sm);
	if (!ok(sm != NULL, "line %d: a stemmer of %s", lineno, f[0]))
		goto out;
	forms_line(s, sm, f[2], &got);
	is_str(buf_str(&got), f[3], "line %d: forms of %s", lineno, f[2]);
out:
	stemmer_free(sm);
	stems_close(s);
	free(path);
	buf_free(&err);
	buf_free(&got);
}

/* Every look-up of an opened map stays inside it (ASan says otherwise). */
static void probe(const struct stems *s)
{
	static const char *const q[] = { "", "a", "connect", "cat", "zzzz", "\xff" };
	struct stems_form f[STEMS_MAX_FORMS];

	for (size_t i = 0; i < ARRAY_SIZE(q); i++) {
		size_t n = stems_forms(s, q[i], strlen(q[i]), f, STEMS_MAX_FORMS);

		for (size_t k = 0; k < n && k < STEMS_MAX_FORMS; k++)
			if (!f[k].len)
				abort();
	}
}

static int reopen(const char *path, const unsigned char *p, size_t n)
{
	struct buf err = BUF_INIT(4096);
	struct stems *s = NULL;
	FILE *fp = fopen(path, "wb");
	int rc;

	if (!fp || fwrite(p, 1, n, fp) != n || fclose(fp))
		return -2;
	rc = stems_open_file(path, &s, &err);
	if (rc == 1)
		probe(s);
	stems_close(s);
	buf_free(&err);
	return rc;
}

static void damage(void)
{
	static const char *const words[] = { "connection", "connections", "cat", "cats", "dog" };
	struct buf err = BUF_INIT(4096);
	char *path = path_of("good"), *bad = path_of("bad");
	unsigned char *img = NULL;
	size_t size = 0;
	FILE *fp;
	int refused = 0, cut = 0;

	ok(stems_write_words(path, "english", words, ARRAY_SIZE(words), &err) == 0, "map written");
	fp = fopen(path, "rb");
	if (fp) {
		img = xmalloc(4096);
		size = fread(img, 1, 4096, fp);
		fclose(fp);
	}
	ok(size > 48, "map read (%zu bytes)", size);
	for (size_t n = 0; n < size; n++)
		cut += reopen(bad, img, n) < 0;
	is_int(cut, (long)size, "every truncation refused");
	for (size_t i = 0; i < size; i++) {
		img[i] ^= 0x5a;
		refused += reopen(bad, img, size) < 0;
		img[i] ^= 0x5a;
	}
	is_int(refused, (long)size, "every byte flip refused (the CRCs)");
	free(img);
	free(path);
	free(bad);
	buf_free(&err);
}

int main(void)
{
	struct buf err = BUF_INIT(4096);
	struct stems *s = NULL;
	struct stemmer *sm = NULL;
	char *none;

	log_set_level(LOG_ERROR);
	snprintf(dir, sizeof(dir), "/tmp/mpseek-test-stems.%ld", (long)getpid());
	if (mkdir(dir, 0700) && !ok(0, "mkdir %s", dir))
		return done_testing();
	tap_lines("stems/cases.tsv", one_case, NULL);
	none = path_of("nothing");
	is_int(stems_open_file(none, &s, &err), 0, "no map: 0");
	ok(s == NULL, "no map: nothing opened");
	ok(stemmer_new("klingon", &sm) == -1 && !sm, "an unknown language is refused");
	ok(stemmer_known("english") && !stemmer_known(""), "stemmer_known");
	ok(stems_write_words(none, "klingon", NULL, 0, &err) == -1, "no map in an unknown language");
	ok(stems_write_words(none, "english", NULL, 0, &err) == 0 &&
		   stems_open_file(none, &s, &err) == 1 && stems_count(s) == 0,
	   "an empty dictionary: an empty map");
	stems_close(s);
	damage();
	free(none);
	buf_free(&err);
	if (system(NULL)) {
		char *rm = xasprintf("rm -rf '%s'", dir);
		if (system(rm) != 0)
			diag("could not remove %s", dir);
		free(rm);
	}
	return done_testing();
}
