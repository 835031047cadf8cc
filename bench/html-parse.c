/* html-parse.c - CPU of html_parse() and of the tokenizer per page, and a
 * digest of everything they produced (sections, columns, links, words and
 * positions), so that a change to html.c or tokenize.c can be timed and
 * shown to keep the exact output; beside them the two other steps every
 * page takes whatever the code around them does: the MD5 of the body (the
 * crawl's crc, docblob_md5()) and the stored copy (docblob_compress()).
 *
 * Usage: html-parse [-r ROUNDS] FILE...
 * Reads every FILE (at most MAX_DOC_BYTES each), parses them all ROUNDS
 * times (default 5), then tokenizes the sections of every parse ROUNDS
 * times as the crawl does (tok_run() per section, MinWordLength 1,
 * MaxWordLength 32), then takes the MD5 and the stored copy of every file
 * ROUNDS times, and prints
 *   "pages=N bytes=B ms_per_page=M tok_ms_per_page=T digest=D
 *    md5_ms_per_page=H blob_ms_per_page=Z blob_bytes=S",
 * (one line) M, T, H and Z being the fastest rounds.  D is an FNV-1a 64 of
 * the parser's and the tokenizer's output, S the stored copies' size.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "docblob.h"
#include "html.h"
#include "tokenize.h"
#include "util.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return (h ^ 0x100) * 0x100000001b3ULL; /* end of field */
}

static uint64_t fnvs(uint64_t h, const char *s)
{
	return fnv(h, s ? s : "(null)", s ? strlen(s) : 6);
}

static uint64_t digest(uint64_t h, const struct html_doc *d)
{
	size_t i;

	h = fnvs(h, d->title);
	h = fnvs(h, d->description);
	h = fnvs(h, d->keywords);
	h = fnvs(h, d->txt);
	h = fnvs(h, d->refresh_url);
	h = fnvs(h, d->base);
	h = fnvs(h, d->canonical);
	h = fnvs(h, d->js_redirect);
	h = fnv(h, &d->robots, sizeof(d->robots));
	h = fnv(h, &d->truncated, sizeof(d->truncated));
	for (i = 0; i < SECTION_COUNT; i++)
		h = fnv(h, buf_str(&d->text[i]), d->text[i].len);
	for (i = 0; i < d->nlinks; i++) {
		h = fnvs(h, d->links[i].url);
		h = fnvs(h, d->links[i].anchor);
	}
	return h;
}

struct tok_ctx {
	const struct tokenizer *tok;
	struct tok_doc *td;
	uint64_t h;
	bool digest;
};

static int word_cb(const char *word, size_t len, tok_pos_t pos, bool stop, void *arg)
{
	struct tok_ctx *x = arg;

	if (x->digest) {
		x->h = fnv(x->h, word, len);
		x->h = fnv(x->h, &pos, sizeof(pos));
		x->h = fnv(x->h, &stop, sizeof(stop));
	}
	return 0;
}

static void section_cb(enum section sec, const char *utf8, size_t len, void *arg)
{
	struct tok_ctx *x = arg;

	tok_run(x->tok, x->td, (int)sec, utf8, len, word_cb, x);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long rounds = 5;
	int opt, r, i, n = 0;
	struct buf *pages;
	size_t bytes = 0;
	uint64_t h = 0xcbf29ce484222325ULL;
	double best = 0, tbest = 0, hbest = 0, zbest = 0;
	size_t zbytes = 0;
	uint8_t *scratch;
	struct html_doc *docs;
	struct tokenizer *tok;
	struct tok_doc *td;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		if (opt != 'r' || parse_long(optarg, 1, 1000, &rounds))
			goto usage;
	}
	if (optind >= argc)
		goto usage;
	pages = xcalloc((size_t)(argc - optind), sizeof(*pages));
	for (i = optind; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		char tmp[65536];
		size_t got;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		buf_init(&pages[n], MAX_DOC_BYTES);
		while ((got = fread(tmp, 1, sizeof(tmp), f)) > 0)
			if (buf_add(&pages[n], tmp, got))
				break;
		fclose(f);
		bytes += pages[n].len;
		n++;
	}
	docs = xcalloc((size_t)n, sizeof(*docs));
	for (r = 0; r < rounds; r++) {
		double t0 = now(), t;

		for (i = 0; i < n; i++) {
			if (r)
				html_doc_free(&docs[i]);
			html_parse(buf_str(&pages[i]), pages[i].len, &docs[i]);
		}
		t = now() - t0;
		if (r == 0 || t < best)
			best = t;
	}
	for (i = 0; i < n; i++)
		h = digest(h, &docs[i]);
	/* The words of the last parse of every page, as the crawl splits them. */
	tok = tok_new(1, 32);
	td = xcalloc(1, sizeof(*td));
	for (r = 0; r < rounds; r++) {
		struct tok_ctx x = { tok, td, h, r == 0 };
		double t0 = now(), t;

		for (i = 0; i < n; i++) {
			tok_doc_reset(td);
			html_foreach_text(&docs[i], section_cb, &x);
		}
		t = now() - t0;
		if (r == 0 || t < tbest)
			tbest = t;
		if (r == 0)
			h = x.h;
	}
	/* The crc and the stored copy, as the crawl takes them of every page. */
	scratch = xmalloc(DOCBLOB_SCRATCH);
	for (r = 0; r < rounds; r++) {
		double t0 = now(), t;
		char crc[33];

		for (i = 0; i < n; i++)
			docblob_md5(buf_str(&pages[i]), pages[i].len, crc);
		t = now() - t0;
		if (r == 0 || t < hbest)
			hbest = t;
		t0 = now();
		zbytes = 0;
		for (i = 0; i < n; i++) {
			size_t zlen = 0;

			free(docblob_compress(scratch, buf_str(&pages[i]), pages[i].len, &zlen));
			zbytes += zlen;
		}
		t = now() - t0;
		if (r == 0 || t < zbest)
			zbest = t;
	}
	free(scratch);
	printf("pages=%d bytes=%zu ms_per_page=%.4f tok_ms_per_page=%.4f digest=%016llx"
	       " md5_ms_per_page=%.4f blob_ms_per_page=%.4f blob_bytes=%zu\n", n, bytes,
	       best * 1e3 / n, tbest * 1e3 / n, (unsigned long long)h, hbest * 1e3 / n,
	       zbest * 1e3 / n, zbytes);
	for (i = 0; i < n; i++) {
		html_doc_free(&docs[i]);
		buf_free(&pages[i]);
	}
	free(docs);
	free(td);
	tok_free(tok);
	free(pages);
	return 0;
usage:
	fprintf(stderr, "usage: html-parse [-r ROUNDS] FILE...\n");
	return 2;
}
