/* gen-deltas.c - a synthetic collection for bench/merge: documents whose
 * words follow a Zipf law, written straight as delta logs (include/delta.h,
 * the crawler's own writer) under DATADIR/deltas/, one segment per rank,
 * and, optionally, the same documents as text in scriptindex's dump format
 * ("id=N", "text=w w w ...", blank line) for Xapian.
 *
 * Usage: gen-deltas [-n DOCS] [-l MEAN] [-v VOCAB] [-s EXPONENT] [-r RANKS]
 *                   [-S SITES] [-B BASE] [-x SEED] DATADIR [TEXTFILE]
 * Defaults: 1,000,000 documents of 1..2*MEAN-1 words (uniform, MEAN 50),
 * a vocabulary of 1,000,000 words drawn with P(k) ~ 1/k^1.0, 4 ranks (doc i
 * goes to rank i mod RANKS), 1,000 sites of consecutive url_ids (site ids
 * BASE + 1 .. BASE + SITES, BASE 0: a large BASE makes the sparse sites
 * table of a long-lived database), seed 1.
 * Word k (1-based by popularity) is k written in bijective base 26 with the
 * letters a..z ("a", "b", ... "z", "aa", ...): frequent words are short, and
 * every word is one token for Xapian's TermGenerator too.  All words are in
 * the body section, positions 0, 1, 2... in document order.  Prints
 * "docs=N tokens=T postings=P" (P = distinct words per document, summed).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "delta.h"
#include "log.h"
#include "util.h"

#define MAX_RANKS 64

static uint64_t rng_state;

/* splitmix64: fast, and the same sequence on every machine. */
static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rng_unit(void) { return (double)(rng() >> 11) * (1.0 / 9007199254740992.0); }

/* Walker's alias table over the Zipf weights 1/k^s, k = 1..v: a sample is
 * one uniform number and at most two table reads. */
struct alias {
	double *prob;
	uint32_t *other;
	uint32_t n;
};

static void alias_build(struct alias *a, uint32_t n, double s)
{
	double *w = xmalloc(n * sizeof(*w)), sum = 0;
	uint32_t *small = xmalloc(n * sizeof(*small)), *large = xmalloc(n * sizeof(*large));
	size_t ns = 0, nl = 0;

	a->n = n;
	a->prob = xmalloc(n * sizeof(*a->prob));
	a->other = xmalloc(n * sizeof(*a->other));
	for (uint32_t k = 0; k < n; k++)
		sum += w[k] = pow((double)k + 1, -s);
	for (uint32_t k = 0; k < n; k++) {
		w[k] *= n / sum;
		if (w[k] < 1)
			small[ns++] = k;
		else
			large[nl++] = k;
	}
	while (ns && nl) {
		uint32_t l = small[--ns], g = large[nl - 1];

		a->prob[l] = w[l];
		a->other[l] = g;
		w[g] -= 1 - w[l];
		if (w[g] < 1) {
			nl--;
			small[ns++] = g;
		}
	}
	while (nl) {
		uint32_t g = large[--nl];

		a->prob[g] = 1;
		a->other[g] = g;
	}
	while (ns) { /* rounding leftovers */
		uint32_t l = small[--ns];

		a->prob[l] = 1;
		a->other[l] = l;
	}
	free(w);
	free(small);
	free(large);
}

static uint32_t alias_draw(const struct alias *a)
{
	double u = rng_unit() * a->n;
	uint32_t k = (uint32_t)u;

	if (k >= a->n)
		k = a->n - 1;
	return u - k < a->prob[k] ? k : a->other[k];
}

/* Word k (0-based): k+1 in bijective base 26.  Returns the length. */
static size_t word_of(uint32_t k, char *out)
{
	char tmp[16];
	size_t n = 0;
	uint64_t v = (uint64_t)k + 1;

	while (v) {
		v--;
		tmp[n++] = (char)('a' + v % 26);
		v /= 26;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = 0;
	return n;
}

struct tok {
	uint32_t word;
	uint32_t pos;
};

static int cmp_tok(const void *a, const void *b)
{
	const struct tok *x = a, *y = b;

	if (x->word != y->word)
		return x->word < y->word ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static int arg_long(const char *opt, const char *s, long min, long max, long *out)
{
	if (parse_long(s, min, max, out))
		return error("gen-deltas: %s wants a number in %ld..%ld, not \"%s\"", opt, min, max, s);
	return 0;
}

int main(int argc, char **argv)
{
	long docs = 1000000, mean = 50, vocab = 1000000, ranks = 4, sites = 1000, seed = 1;
	long base = 0;
	double expo = 1.0;
	struct delta_writer *w[MAX_RANKS] = { 0 };
	struct buf err = BUF_INIT(4096), line = BUF_INIT(1u << 20);
	struct alias a = { 0 };
	struct tok *t = NULL;
	uint32_t *pos = NULL;
	FILE *text = NULL;
	uint64_t tokens = 0, postings = 0;
	char word[16];
	int opt, rc = 0;

	log_set_prog("gen-deltas");
	while ((opt = getopt(argc, argv, "n:l:v:s:r:S:B:x:")) != -1) {
		switch (opt) {
		case 'n': rc = arg_long("-n", optarg, 1, 100000000, &docs); break;
		case 'l': rc = arg_long("-l", optarg, 1, (MAX_POSITION + 1) / 2, &mean); break;
		case 'v': rc = arg_long("-v", optarg, 1, 100000000, &vocab); break;
		case 'r': rc = arg_long("-r", optarg, 1, MAX_RANKS, &ranks); break;
		case 'S': rc = arg_long("-S", optarg, 1, 100000000, &sites); break;
		case 'B': rc = arg_long("-B", optarg, 0, 4294967293L, &base); break;
		case 'x': rc = arg_long("-x", optarg, 0, 1000000000, &seed); break;
		case 's': {
			char *end;

			errno = 0;
			expo = strtod(optarg, &end);
			if (errno || *end || end == optarg || expo < 0 || expo > 10)
				rc = error("gen-deltas: -s wants an exponent in 0..10, not \"%s\"", optarg);
			break;
		}
		default: rc = -1; break;
		}
		if (rc)
			break;
	}
	if (rc || optind >= argc || argc - optind > 2) {
		fprintf(stderr, "usage: gen-deltas [-n DOCS] [-l MEAN] [-v VOCAB] [-s EXPONENT] [-r RANKS]"
			" [-S SITES] [-B BASE] [-x SEED] DATADIR [TEXTFILE]\n");
		return 2;
	}
	if (sites > docs)
		sites = docs;
	/* Site id 2^32 - 1 is no site's: searchd's walks end there. */
	if (base + sites > 4294967294L) {
		error("gen-deltas: -B %ld leaves no room for %ld sites below 2^32 - 1", base, sites);
		return 2;
	}
	rng_state = (uint64_t)seed;
	if (argc - optind == 2 && !(text = fopen(argv[optind + 1], "w"))) {
		error_errno("gen-deltas: cannot create %s", argv[optind + 1]);
		return 1;
	}
	if (mkdir_p(argv[optind]))
		rc = -1;
	for (long r = 0; r < ranks && !rc; r++)
		if (!(w[r] = delta_open(argv[optind], (int)r, &err)))
			rc = error("gen-deltas: %s", buf_str(&err));
	alias_build(&a, (uint32_t)vocab, expo);
	t = xmalloc((size_t)(2 * mean) * sizeof(*t));
	pos = xmalloc((size_t)(2 * mean) * sizeof(*pos));

	for (long d = 0; d < docs && !rc; d++) {
		struct delta_writer *dw = w[d % ranks];
		uint32_t url = (uint32_t)d + 1;
		uint32_t site = (uint32_t)((uint64_t)d * (uint64_t)sites / (uint64_t)docs + (uint64_t)base) + 1;
		size_t n = 1 + (size_t)(rng() % (uint64_t)(2 * mean - 1)), i = 0;

		if (text) {
			buf_reset(&line);
			rc = buf_printf(&line, "id=%u\ntext=", url);
		}
		for (size_t k = 0; k < n; k++) {
			t[k].word = alias_draw(&a);
			t[k].pos = (uint32_t)k; /* section 0 (body) */
			if (text && !rc) {
				size_t len = word_of(t[k].word, word);

				if ((k && buf_addc(&line, ' ')) || buf_add(&line, word, len))
					rc = -1;
			}
		}
		if (text && !rc && (buf_adds(&line, "\n\n") ||
				    fwrite(line.ptr, 1, line.len, text) != line.len))
			rc = error("gen-deltas: cannot write %s", argv[optind + 1]);
		qsort(t, n, sizeof(*t), cmp_tok);
		if (!rc && delta_doc_begin(dw, url, site, 1700000000))
			rc = -1;
		while (i < n && !rc) {
			size_t j = i, len = word_of(t[i].word, word);

			for (; j < n && t[j].word == t[i].word; j++)
				pos[j - i] = t[j].pos;
			rc = delta_doc_word(dw, word, len, pos, j - i);
			postings++;
			i = j;
		}
		if (!rc)
			rc = delta_doc_end(dw);
		else
			delta_doc_abort(dw);
		tokens += n;
	}
	for (long r = 0; r < ranks; r++)
		if (w[r] && delta_close(w[r]))
			rc = -1;
	if (text && fclose(text) != 0)
		rc = error_errno("gen-deltas: cannot write %s", argv[optind + 1]);
	if (!rc)
		printf("docs=%ld tokens=%llu postings=%llu\n", docs, (unsigned long long)tokens,
		       (unsigned long long)postings);
	free(t);
	free(pos);
	free(a.prob);
	free(a.other);
	buf_free(&err);
	buf_free(&line);
	return rc ? 1 : 0;
}
