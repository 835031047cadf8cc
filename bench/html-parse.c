/* html-parse.c - CPU of html_parse() per page, and a digest of everything it
 * produced (sections, columns, links), so that a change to html.c can be
 * timed and shown to keep the exact output.
 *
 * Usage: html-parse [-r ROUNDS] FILE...
 * Reads every FILE (at most MAX_DOC_BYTES each), parses them all ROUNDS
 * times (default 5) and prints "pages=N bytes=B ms_per_page=M digest=D",
 * M being the fastest round.  D is an FNV-1a 64 of the output.
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
#include "html.h"
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
	double best = 0;

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
	for (r = 0; r < rounds; r++) {
		double t0 = now(), t;

		for (i = 0; i < n; i++) {
			struct html_doc d;

			html_parse(buf_str(&pages[i]), pages[i].len, &d);
			if (r == 0)
				h = digest(h, &d);
			html_doc_free(&d);
		}
		t = now() - t0;
		if (r == 0 || t < best)
			best = t;
	}
	printf("pages=%d bytes=%zu ms_per_page=%.4f digest=%016llx\n", n, bytes,
	       best * 1e3 / n, (unsigned long long)h);
	for (i = 0; i < n; i++)
		buf_free(&pages[i]);
	free(pages);
	return 0;
usage:
	fprintf(stderr, "usage: html-parse [-r ROUNDS] FILE...\n");
	return 2;
}
