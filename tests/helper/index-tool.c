/* index-tool.c - the brute-force oracle of the merge tests: tokenize stored
 * document texts the way the crawler does (src/crawl/crawl.c: html_parse or
 * html_parse_text, html_foreach_text, tok_run with the config's word lengths
 * and stopwords, positions sorted and unique, capped at 65535 per word).
 *
 * Usage: index-tool tokens CONFIG < lines
 * Each input line is "url_id<TAB>content_type<TAB>HEX" where HEX is the
 * urlwordsNN.words column (4-byte LE length + zlib data).  Output: one line
 * per (word, document), "word<TAB>url_id<TAB>pos,pos,...", as
 * `mpseek-index --dump-index` prints them (unsorted).
 *
 * Usage: index-tool docstore GENDIR
 * Prints every document of GENDIR/docstore (doc/FORMATS.md, "docstore"),
 * one line each in url_id order: url_id, flags, docsize, the five fields
 * and the text, tab-separated, bytes outside printable ASCII (and tab and
 * backslash) as \xHH.  Two docstores hold the same documents when these
 * lines are equal, whatever bytes their deflate streams are.
 *
 * Usage: index-tool grams GENDIR
 * The common words of GENDIR/grams (include/grams.h), "words: w w ...",
 * then every pair word of the dictionary with documents, "x>y<TAB>N" (N
 * documents), in the dictionary's order of ids.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "conf.h"
#include "delta.h"
#include "docstore.h"
#include "grams.h"
#include "html.h"
#include "log.h"
#include "storage.h"
#include "tokenize.h"
#include "util.h"

struct ent {
	char word[MAX_WORD_LEN + 1];
	tok_pos_t *pos;
	size_t n, cap;
};

struct doc_words {
	struct ent *e;
	size_t n, cap;
};

static int emit(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct doc_words *d = arg;
	struct ent *e = NULL;

	if (stop || len > MAX_WORD_LEN)
		return 0;
	for (size_t i = 0; i < d->n; i++)
		if (strlen(d->e[i].word) == len && !memcmp(d->e[i].word, word, len)) {
			e = &d->e[i];
			break;
		}
	if (!e) {
		if (d->n == d->cap) {
			d->cap = d->cap ? 2 * d->cap : 64;
			d->e = xrealloc(d->e, d->cap * sizeof(*d->e));
		}
		e = &d->e[d->n++];
		memset(e, 0, sizeof(*e));
		memcpy(e->word, word, len);
	}
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 8;
		e->pos = xrealloc(e->pos, e->cap * sizeof(*e->pos));
	}
	e->pos[e->n++] = pos;
	return 0;
}

struct text_ctx {
	const struct tokenizer *t;
	struct tok_doc td;
	struct doc_words *d;
};

static void text_cb(enum section sec, const char *utf8, size_t len, void *arg)
{
	struct text_ctx *x = arg;

	tok_run(x->t, &x->td, (int)sec, utf8, len, emit, x->d);
}

static int cmp16(const void *a, const void *b)
{
	tok_pos_t x = *(const tok_pos_t *)a, y = *(const tok_pos_t *)b;
	return x < y ? -1 : x > y;
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
}

static void put_escaped(const char *p, size_t n)
{
	putchar('\t');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '\\')
			printf("\\x%02x", ch);
		else
			putchar(ch);
	}
}

static int print_doc(void *arg, uint32_t url_id, const struct docstore_doc *d)
{
	const char *f[] = { d->title, d->description, d->keywords, d->content_type, d->charset };

	(void)arg;
	printf("%u\t%d%d\t%u", url_id, d->found, d->has_text, d->size);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		put_escaped(f[i] ? f[i] : "", f[i] ? strlen(f[i]) : 0);
	put_escaped(d->text ? d->text : "", d->has_text ? d->text_len : 0);
	putchar('\n');
	return 0;
}

/* index-tool docstore GENDIR */
static int dump_docstore(const char *gen_dir)
{
	struct buf err = BUF_INIT(4096);
	struct docstore *ds = NULL;
	int rc = docstore_open(gen_dir, &ds, &err);

	if (rc == 0)
		buf_printf(&err, "%s: no docstore", gen_dir);
	rc = rc == 1 && docstore_each(ds, print_doc, NULL, &err) == 0 ? 0 : 1;
	if (rc)
		fprintf(stderr, "index-tool: %s\n", buf_str(&err));
	docstore_close(ds);
	buf_free(&err);
	return rc;
}

/* index-tool grams GENDIR */
static int dump_grams(const char *gen_dir)
{
	struct buf err = BUF_INIT(4096);
	struct grams *g = NULL;
	struct storage *st = NULL;
	int rc = grams_read(gen_dir, &g, &err);

	if (rc < 0 || storage_open_dir(gen_dir, &st, &err)) {
		fprintf(stderr, "index-tool: %s\n", buf_str(&err));
		grams_free(g);
		buf_free(&err);
		return 1;
	}
	fputs("words:", stdout);
	for (size_t i = 0; i < grams_count(g); i++) {
		size_t len;
		const char *w = grams_word(g, i, &len);

		printf(" %.*s", (int)len, w);
	}
	putchar('\n');
	for (unsigned p = 0; p < STORAGE_PARTITIONS; p++)
		for (uint32_t k = 0; k < storage_part_words(st, p); k++) {
			uint32_t id = k * STORAGE_PARTITIONS + p;
			struct storage_word w;
			size_t len;
			const char *t = storage_word_text(st, id, &len);
			const char *mark = t ? memchr(t, STORAGE_GRAM_MARK, len) : NULL;

			if (!mark || storage_word_info(st, id, &w) != 1 || !w.n_urls)
				continue;
			printf("%.*s>%.*s\t%u\n", (int)(mark - t), t, (int)(len - (size_t)(mark - t) - 1),
			       mark + 1, (unsigned)w.n_urls);
		}
	storage_close(st);
	grams_free(g);
	buf_free(&err);
	return 0;
}

int main(int argc, char **argv)
{
	struct conf *c = NULL;
	struct buf err = BUF_INIT(4096);
	struct tokenizer *t;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "docstore"))
		return dump_docstore(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "grams"))
		return dump_grams(argv[2]);
	if (argc != 3 || strcmp(argv[1], "tokens")) {
		fprintf(stderr, "usage: index-tool tokens CONFIG < lines\n"
				"       index-tool docstore GENDIR\n"
				"       index-tool grams GENDIR\n");
		return 2;
	}
	if (conf_load(argv[2], CONF_INDEXER, &c, &err)) {
		fprintf(stderr, "%s\n", buf_str(&err));
		return 2;
	}
	t = tok_new(c->min_word_length, c->max_word_length);
	for (size_t i = 0; i < c->n_stopword_files; i++)
		tok_load_stopwords(t, c->stopword_files[i]);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		char *f1 = strchr(line, '\t'), *f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
		unsigned long url = strtoul(line, NULL, 10);
		size_t hl, bl;
		unsigned char *bin;
		uLongf tl;
		char *text;
		struct html_doc doc;
		struct doc_words d = { 0 };
		struct text_ctx x = { .t = t, .d = &d };

		if (!f2)
			continue;
		*f1 = *f2 = '\0';
		f2++;
		hl = strcspn(f2, "\r\n");
		bl = hl / 2;
		if (bl < 4)
			continue;
		bin = xmalloc(bl);
		for (size_t i = 0; i < bl; i++)
			bin[i] = (unsigned char)(hexval(f2[2 * i]) << 4 | hexval(f2[2 * i + 1]));
		tl = (uLongf)bin[0] | (uLongf)bin[1] << 8 | (uLongf)bin[2] << 16 | (uLongf)bin[3] << 24;
		text = xmalloc(tl + 1);
		if (uncompress((Bytef *)text, &tl, bin + 4, (uLong)(bl - 4)) != Z_OK) {
			fprintf(stderr, "url %lu: bad zlib data\n", url);
			free(bin);
			free(text);
			continue;
		}
		text[tl] = '\0';
		memset(&doc, 0, sizeof(doc));
		if (!strcmp(f1 + 1, "text/html") || !strcmp(f1 + 1, "application/xhtml+xml"))
			html_parse(text, tl, &doc);
		else
			html_parse_text(text, tl, &doc);
		tok_doc_reset(&x.td);
		html_foreach_text(&doc, text_cb, &x);
		for (size_t i = 0; i < d.n; i++) {
			struct ent *e = &d.e[i];
			size_t k = 0;

			qsort(e->pos, e->n, sizeof(*e->pos), cmp16);
			for (size_t m = 0; m < e->n; m++)
				if (!k || e->pos[k - 1] != e->pos[m])
					e->pos[k++] = e->pos[m];
			if (k > DELTA_MAX_WORD_POSITIONS)
				k = DELTA_MAX_WORD_POSITIONS;
			printf("%s\t%lu\t", e->word, url);
			for (size_t m = 0; m < k; m++)
				printf(m ? ",%u" : "%u", e->pos[m]);
			putchar('\n');
			free(e->pos);
		}
		free(d.e);
		html_doc_free(&doc);
		free(bin);
		free(text);
	}
	free(line);
	tok_free(t);
	conf_free(c);
	buf_free(&err);
	return 0;
}
