/* test-search.c - the pure parts of the search engine, table-driven from
 * tests/data/search/: idf.tsv and bm25.tsv (the ranking formula),
 * phrase.tsv and distance.tsv (position lists), title-chain.tsv (the
 * order of the query's words in a title), site.tsv (site: patterns),
 * select.tsv (grouping,
 * sorting, paging), excerpt.tsv (passages and highlights), plus the stored
 * text round trip of docblob_inflate().
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "docblob.h"
#include "excerpt.h"
#include "log.h"
#include "search.h"
#include "tap.h"
#include "tokenize.h"
#include "util.h"

static struct search_rank_params rp;
static struct tokenizer *tok;

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (1 + fabs(b));
}

static void idf_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	double got;

	UNUSED(len);
	UNUSED(arg);
	if (n < 3) {
		ok(0, "idf.tsv:%d: needs N, df, expected", lineno);
		return;
	}
	got = search_idf(strtoull(f[0], NULL, 10), strtoull(f[1], NULL, 10));
	ok(near(got, strtod(f[2], NULL)), "idf.tsv:%d: idf(%s, %s) = %.9f, want %s", lineno, f[0],
	   f[1], got, f[2]);
}

/* "a,b,c,d" into 4 numbers. */
static void four(const char *s, double v[4])
{
	char *end;

	for (int i = 0; i < 4; i++) {
		v[i] = strtod(s, &end);
		s = *end == ',' ? end + 1 : end;
	}
}

static void bm25_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	double tfv[4], lenv[4], avg[4], got;
	uint32_t tf[4];
	uint16_t ln[4];

	UNUSED(len);
	UNUSED(arg);
	if (n < 5) {
		ok(0, "bm25.tsv:%d: needs 5 columns", lineno);
		return;
	}
	four(f[1], tfv);
	four(f[2], lenv);
	four(f[3], avg);
	for (int i = 0; i < 4; i++) {
		tf[i] = (uint32_t)tfv[i];
		ln[i] = (uint16_t)lenv[i];
	}
	got = search_bm25f(&rp, strtod(f[0], NULL), tf, ln, avg);
	ok(near(got, strtod(f[4], NULL)), "bm25.tsv:%d: %.9f, want %s", lineno, got, f[4]);
}

/* "s:p,s:p" into encoded positions (at most max). */
static uint32_t positions(const char *s, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	while (*s && n < max) {
		char *end;
		unsigned long sec, pos;

		while (*s == ' ' || *s == ',')
			s++;
		if (!*s)
			break;
		sec = strtoul(s, &end, 10);
		if (*end != ':')
			break;
		pos = strtoul(end + 1, &end, 10);
		out[n++] = tok_pos_encode((int)sec, pos);
		s = end;
	}
	return n;
}

static void phrase_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	uint32_t pos[8][64];
	const uint32_t *pp[8];
	uint32_t np[8], offs[8], per[4], total;
	size_t k = 0;
	char *w = f[0], *bar;
	char got[64], want[64];

	UNUSED(len);
	UNUSED(arg);
	if (n < 4) {
		ok(0, "phrase.tsv:%d: needs 4 columns", lineno);
		return;
	}
	for (;;) {
		bar = strchr(w, '|');
		if (bar)
			*bar = '\0';
		np[k] = positions(w, pos[k], 64);
		pp[k] = pos[k];
		k++;
		if (!bar || k == 8)
			break;
		w = bar + 1;
	}
	{
		char *s = f[1];
		for (size_t i = 0; i < k; i++) {
			offs[i] = (uint32_t)strtoul(s, &s, 10);
			if (*s == ',')
				s++;
		}
	}
	total = search_phrase_count(pp, np, offs, k, per);
	snprintf(got, sizeof(got), "%u %u,%u,%u,%u", total, per[0], per[1], per[2], per[3]);
	snprintf(want, sizeof(want), "%s %s", f[2], f[3]);
	is_str(got, want, "phrase.tsv:%d", lineno);
}

static void distance_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	uint32_t a[64], b[64];
	uint32_t na, nb, d;
	char got[32];

	UNUSED(len);
	UNUSED(arg);
	if (n < 3) {
		ok(0, "distance.tsv:%d: needs 3 columns", lineno);
		return;
	}
	na = positions(f[0], a, 64);
	nb = positions(f[1], b, 64);
	d = search_min_distance(a, na, b, nb);
	if (d == UINT32_MAX)
		snprintf(got, sizeof(got), "-");
	else
		snprintf(got, sizeof(got), "%u", d);
	is_str(got, f[2], "distance.tsv:%d", lineno);
}

static void chain_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	uint64_t masks[16];
	size_t k = 0;
	char *w = f[0];

	UNUSED(len);
	UNUSED(arg);
	if (n < 2) {
		ok(0, "title-chain.tsv:%d: needs 2 columns", lineno);
		return;
	}
	while (*w && k < 16) {
		char *bar = strchr(w, '|');

		masks[k] = 0;
		if (bar)
			*bar = '\0';
		for (char *p = w; *p;) {
			char *end;
			unsigned long v = strtoul(p, &end, 10);

			if (end == p) {
				p++;
				continue;
			}
			if (v < 64)
				masks[k] |= 1ull << v;
			p = end;
		}
		k++;
		if (!bar)
			break;
		w = bar + 1;
	}
	is_int(search_title_chain(masks, k, n > 2 ? (unsigned)strtoul(f[2], NULL, 10) : 2),
	       f[1][0] == '1', "title-chain.tsv:%d: %s", lineno, f[0]);
}

static void site_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	UNUSED(len);
	UNUSED(arg);
	if (n < 3) {
		ok(0, "site.tsv:%d: needs 3 columns", lineno);
		return;
	}
	is_int(search_site_match(f[0], f[1]), f[2][0] == '1', "site.tsv:%d: %s ~ %s", lineno, f[0],
	       f[1]);
}

static void select_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct search_doc docs[64];
	struct search_pick picks[256];
	size_t nd = 0, np;
	uint64_t total;
	uint32_t sites, page, ps;
	struct buf got = BUF_INIT(4096);
	char *s = f[0];
	char tot[64];

	UNUSED(len);
	UNUSED(arg);
	if (n < 8) {
		ok(0, "select.tsv:%d: needs 8 columns", lineno);
		return;
	}
	while (*s && nd < 64) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		docs[nd].site_id = (uint32_t)strtoul(s, &s, 10);
		docs[nd].url_id = (uint32_t)strtoul(s + 1, &s, 10);
		docs[nd].score = strtod(s + 1, &s);
		docs[nd].last_modified = strtoull(s + 1, &s, 10);
		nd++;
	}
	page = (uint32_t)strtoul(f[3], NULL, 10);
	ps = (uint32_t)strtoul(f[4], NULL, 10);
	if (ps > 128) {
		ok(0, "select.tsv:%d: page size too big for the test", lineno);
		return;
	}
	np = search_select(docs, nd, f[1][0] == '1',
			   strcmp(f[2], "date") ? PROTO_SORT_RATE : PROTO_SORT_DATE, page, ps, picks,
			   &total, &sites);
	for (size_t i = 0; i < np; i++)
		buf_printf(&got, "%s%s%u/%u", i ? " " : "", picks[i].second ? "~" : "",
			   docs[picks[i].doc].url_id, picks[i].site_hits);
	is_str(buf_str(&got), f[5], "select.tsv:%d: picks", lineno);
	snprintf(tot, sizeof(tot), "%llu %u", (unsigned long long)total, sites);
	buf_reset(&got);
	buf_printf(&got, "%s %s", f[6], f[7]);
	is_str(tot, buf_str(&got), "select.tsv:%d: totals", lineno);
	buf_free(&got);
}

static void show(struct buf *b, const struct proto_text *t)
{
	uint32_t at = 0;

	for (uint32_t i = 0; i < t->n_spans; i++) {
		buf_add(b, t->text + at, t->spans[2 * i] - at);
		buf_addc(b, '[');
		buf_add(b, t->text + t->spans[2 * i], t->spans[2 * i + 1] - t->spans[2 * i]);
		buf_addc(b, ']');
		at = t->spans[2 * i + 1];
	}
	buf_adds(b, t->text + at);
}

static void excerpt_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	const char *words[16];
	size_t nw = 0;
	char *s = f[2];
	struct excerpt_terms terms;
	struct buf got = BUF_INIT(1 << 16);

	UNUSED(arg);
	if (n < 6) {
		ok(0, "excerpt.tsv:%d: needs 6 columns", lineno);
		return;
	}
	while (*s && nw < 16) {
		char *sp = strchr(s, ' ');
		words[nw++] = s;
		if (!sp)
			break;
		*sp = '\0';
		s = sp + 1;
	}
	terms.words = words;
	terms.n = nw;
	if (f[0][0] == 'p') {
		struct proto_text *ex;
		uint32_t nex;

		excerpt_passages(tok, f[1], len[1], &terms, (uint32_t)strtoul(f[3], NULL, 10),
				 (uint32_t)strtoul(f[4], NULL, 10), &ex, &nex);
		for (uint32_t i = 0; i < nex; i++) {
			if (i)
				buf_adds(&got, " || ");
			show(&got, &ex[i]);
			excerpt_text_free(&ex[i]);
		}
		free(ex);
	} else {
		struct proto_text t;

		excerpt_highlight(tok, f[1], len[1], &terms, 64, &t);
		show(&got, &t);
		excerpt_text_free(&t);
	}
	is_str(buf_str(&got), f[5], "excerpt.tsv:%d", lineno);
	buf_free(&got);
}

/* Passages stay within their length, on UTF-8 boundaries, spans inside. */
static void passages_bounded(void)
{
	struct buf text = BUF_INIT(1 << 20);
	const char *words[] = { "needle", "thread" };
	struct excerpt_terms terms = { words, 2 };
	struct proto_text *ex;
	uint32_t nex;
	bool good = true;

	for (int i = 0; i < 2000; i++)
		buf_printf(&text, "%s ", i % 97 == 0 ? "needle" : i % 131 == 0 ? "thread" : "ñandú");
	excerpt_passages(tok, text.ptr, text.len, &terms, 5, 64, &ex, &nex);
	is_int(nex, 5, "five passages from a long text");
	for (uint32_t i = 0; i < nex; i++) {
		size_t l = strlen(ex[i].text);

		if (l > 64 || ((unsigned char)ex[i].text[0] & 0xC0) == 0x80 || !ex[i].n_spans)
			good = false;
		for (uint32_t k = 0; k < 2 * ex[i].n_spans; k++)
			if (ex[i].spans[k] > l)
				good = false;
		excerpt_text_free(&ex[i]);
	}
	free(ex);
	ok(good, "each within 64 bytes, starting on a character, with a highlight");
	buf_free(&text);
}

static void inflate_round_trip(void)
{
	const char *page = "<html><title>T</title><body><p>Hello, world.</p></body></html>";
	size_t n = strlen(page);
	uLongf clen = compressBound((uLong)n);
	unsigned char *blob = xmalloc(clen + 4);
	struct buf out = BUF_INIT(1 << 20), err = BUF_INIT(256), plain = BUF_INIT(1 << 20);

	compress2(blob + 4, &clen, (const Bytef *)page, (uLong)n, 1);
	blob[0] = (unsigned char)n;
	blob[1] = (unsigned char)(n >> 8);
	blob[2] = blob[3] = 0;
	is_int(docblob_inflate(blob, clen + 4, MAX_DOC_BYTES, &out, &err), 0, "stored text inflates");
	is_str(buf_str(&out), page, "to the page");
	is_int(excerpt_plain_text(out.ptr, out.len, "text/html", false, &plain), 0, "plain text");
	is_str(buf_str(&plain), "Hello, world.", "is the body");
	is_int(docblob_inflate(blob, clen + 4, 10, &out, &err), 0, "a prefix inflates");
	is_str(buf_str(&out), "<html><tit", "to the first 10 bytes");
	blob[0]++;
	ok(docblob_inflate(blob, clen + 4, MAX_DOC_BYTES, &out, &err) == -1 && err.len,
	   "a wrong length is refused");
	ok(docblob_inflate(blob, 3, MAX_DOC_BYTES, &out, &err) == -1, "a short value is refused");
	blob[0] = blob[1] = blob[2] = 0xff;
	blob[3] = 0x7f;
	ok(docblob_inflate(blob, clen + 4, MAX_DOC_BYTES, &out, &err) == -1,
	   "a huge length is refused");
	blob[3] = 0xff;
	ok(docblob_inflate(blob, clen + 4, MAX_DOC_BYTES, &out, &err) == 0 && out.len == clen,
	   "0xFFFFFFFF: raw");
	free(blob);
	buf_free(&out);
	buf_free(&err);
	buf_free(&plain);
}

int main(void)
{
	log_set_level(LOG_ERROR);
	search_rank_params(NULL, &rp);
	tok = tok_new(1, 32);
	tap_lines("search/idf.tsv", idf_case, NULL);
	tap_lines("search/bm25.tsv", bm25_case, NULL);
	tap_lines("search/phrase.tsv", phrase_case, NULL);
	tap_lines("search/distance.tsv", distance_case, NULL);
	tap_lines("search/select.tsv", select_case, NULL);
	tap_lines("search/title-chain.tsv", chain_case, NULL);
	tap_lines("search/site.tsv", site_case, NULL);
	tap_lines("search/excerpt.tsv", excerpt_case, NULL);
	passages_bounded();
	inflate_round_trip();
	tok_free(tok);
	return done_testing();
}
