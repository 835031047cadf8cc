/* synweb-page.c - the pages of bench/synweb: the pseudo-word vocabulary, the
 * hosts and their sections, each page's links and its HTML, all made from
 * the seed and the page's id (nothing per page is stored).  No I/O here: the
 * server and --list are in synweb.c, HTTP in synweb-http.c.
 */
#include "config.h"

#include <stdlib.h>

#include "synweb.h"
#include "banned.h"

/* ---- random numbers -------------------------------------------------------- */

/* splitmix64's finaliser: a fast bijective hash of 64 bits. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* splitmix64: the same sequence on every machine, ~1 ns a number. */
static inline uint64_t rng_next(uint64_t *s)
{
	return mix64(*s += 0x9e3779b97f4a7c15ull);
}

/* Independent streams per page: its links can be listed without making its
 * text, and its title can be made alone for the anchors that point at it. */
enum stream { STREAM_LINKS = 1, STREAM_TEXT, STREAM_TITLE, STREAM_SITE, STREAM_TIME };

static inline uint64_t rng_for(uint64_t seed, uint32_t host, uint32_t id, enum stream st)
{
	return mix64(seed ^ mix64(((uint64_t)host << 40) ^ ((uint64_t)st << 32) ^ id));
}

/* Uniform in [0, n) from the high bits (n < 2^32). */
static inline uint32_t below(uint64_t r, uint32_t n)
{
	return (uint32_t)(((r >> 32) * n) >> 32);
}

/* ---- the vocabulary ---------------------------------------------------------- */

/* Pseudo-words of one or two syllables, so that a tokenizer meets words that
 * look real; word k (0-based by frequency) is drawn with P ~ 1/(k+1) (Zipf,
 * s = 1).  The 640 most frequent words have one syllable, as the frequent
 * words of real text are short. */
static const char *const onsets[] = {"b", "c", "d", "f", "g", "h", "k",  "l",  "m",  "n",
                                     "p", "r", "s", "t", "v", "w", "br", "st", "tr", "ch"};
static const char *const nuclei[] = {"a", "e", "i", "o", "u", "ai", "ea", "ou"};
static const char *const codas[] = {"", "n", "r", "s"};
#define N_ONSETS (sizeof(onsets) / sizeof(onsets[0]))
#define N_NUCLEI (sizeof(nuclei) / sizeof(nuclei[0]))
#define N_CODAS (sizeof(codas) / sizeof(codas[0]))
_Static_assert(SYLLABLES == N_ONSETS * N_NUCLEI * N_CODAS, "SYLLABLES in synweb.h");
#define WORD_SCRAMBLE 7919u /* a prime: scatters word ranks over syllable combinations */
#define GUIDE_BITS 14
_Static_assert(VOCAB_SIZE <= SYLLABLES + SYLLABLES * SYLLABLES, "words have at most two syllables");

/* Sampling and spelling are what a page costs, so both stay in the cache: an
 * inverse-CDF guide table of 2^GUIDE_BITS buckets (64 KB) gives the rank
 * exactly for the frequent words, which fill a bucket or more each, and
 * uniformly between the bucket's bounds in the tail, where neighbouring
 * ranks are nearly equally likely; a word is spelt from its rank with the
 * 5 KB syllable table, two 8-byte copies, rather than read from a word
 * list of megabytes whose tail would miss the cache. */
static int vocab_build(struct vocab *v)
{
	const uint32_t buckets = 1u << GUIDE_BITS;
	double sum = 0, cdf = 0;
	uint32_t k = 0;

	v->guide = malloc((buckets + 1) * sizeof(*v->guide));
	if (!v->guide)
		return -1;
	for (uint32_t i = 0; i < VOCAB_SIZE; i++)
		sum += 1.0 / (i + 1);
	for (uint32_t j = 0; j <= buckets; j++) {
		while (k + 1 < VOCAB_SIZE && cdf + 1.0 / (k + 1) / sum <= (double)j / buckets)
			cdf += 1.0 / (++k) / sum;
		v->guide[j] = k;
	}
	for (uint32_t i = 0; i < SYLLABLES; i++) { /* scattered, not in alphabetical order */
		uint32_t c = (uint32_t)((uint64_t)i * WORD_SCRAMBLE % SYLLABLES);
		const char *parts[3] = {onsets[c / (N_NUCLEI * N_CODAS)],
		                        nuclei[c / N_CODAS % N_NUCLEI], codas[c % N_CODAS]};
		size_t n = 0;

		memset(v->syl[i], 0, SYL_SLOT);
		for (int j = 0; j < 3; j++)
			for (const char *p = parts[j]; *p; p++)
				v->syl[i][n++] = *p;
		v->syl[i][SYL_SLOT - 1] = (char)n;
	}
	return 0;
}

static void vocab_free(struct vocab *v)
{
	free(v->guide);
}

static inline uint32_t vocab_draw(const struct vocab *v, uint64_t r)
{
	uint32_t j = (uint32_t)(r >> (64 - GUIDE_BITS)), a = v->guide[j], b = v->guide[j + 1];

	return a == b ? a : a + below(r << GUIDE_BITS, b - a + 1);
}

/* Spells word k at p (which has 16 bytes of room): one syllable for the
 * SYLLABLES most frequent words, two for the others, their ranks scattered
 * over the combinations by a multiplication.  Returns its length. */
static inline size_t vocab_spell(const struct vocab *v, uint32_t k, char *p)
{
	const char *a, *b;

	if (k < SYLLABLES) {
		memcpy(p, v->syl[k], SYL_SLOT);
		return (size_t)v->syl[k][SYL_SLOT - 1];
	}
	k = (uint32_t)((uint64_t)(k - SYLLABLES) * WORD_SCRAMBLE % (SYLLABLES * SYLLABLES));
	a = v->syl[k / SYLLABLES];
	b = v->syl[k % SYLLABLES];
	memcpy(p, a, SYL_SLOT);
	memcpy(p + a[SYL_SLOT - 1], b, SYL_SLOT);
	return (size_t)(a[SYL_SLOT - 1] + b[SYL_SLOT - 1]);
}

/* ---- writing words and numbers ------------------------------------------------ */

void out_u64(struct out *o, uint64_t v)
{
	char tmp[20];
	size_t n = sizeof(tmp);

	do
		tmp[--n] = (char)('0' + v % 10);
	while (v /= 10);
	out_mem(o, tmp + n, sizeof(tmp) - n);
}

/* Word k, its first letter capitalised if cap. */
static inline void out_word(struct out *o, const struct vocab *v, uint32_t k, bool cap)
{
	size_t n;

	if (o->end - o->p < 2 * SYL_SLOT) {
		o->full = true;
		return;
	}
	n = vocab_spell(v, k, o->p);
	if (cap)
		*o->p = (char)(*o->p - 'a' + 'A');
	o->p += n;
}

/* ---- the web: hosts, sections, pages and their links ------------------------- */

static void host_init(const struct web *w, uint32_t h, struct host *hs)
{
	uint64_t r = rng_for(w->seed, h, 0, STREAM_SITE);
	uint32_t n, k;
	char *p = hs->name;

	hs->pages = w->pages / w->nhosts + (h < w->pages % w->nhosts);
	hs->levels = 0;
	n = hs->pages;
	do {
		n = (n + SECTION_FANOUT - 1) / SECTION_FANOUT;
		hs->count[++hs->levels] = n;
	} while (n > SECTION_FANOUT && hs->levels < MAX_LEVELS);
	/* Two or three syllables, capitalised: "Brousteamar". */
	for (int i = 0, syl = 2 + (int)(rng_next(&r) % 2); i < syl; i++) {
		k = below(rng_next(&r), SYLLABLES);
		memcpy(p, w->vocab.syl[k], SYL_SLOT);
		p += w->vocab.syl[k][SYL_SLOT - 1];
	}
	*p = 0;
	hs->name[0] = (char)(hs->name[0] - 'a' + 'A');
}

/* Links of a page concentrate on a few pages, as the in-degrees of the web
 * do: u^3 for u uniform gives page rank x a share ~ x^(-2/3) of the links (a
 * power law of in-degree), and a multiplication by a prime above MAX_PAGES
 * scatters the popular pages over the sections. */
#define POPULAR_SCRAMBLE 2654435761ull
_Static_assert(POPULAR_SCRAMBLE > MAX_PAGES, "the scramble is a bijection mod any page count");

static uint32_t pick_popular(uint64_t r, uint32_t n)
{
	double u = (double)(r >> 11) * (1.0 / 9007199254740992.0);
	uint64_t t = (uint64_t)(u * u * u * n);

	if (t >= n)
		t = n - 1;
	return (uint32_t)((t * POPULAR_SCRAMBLE + 12345) % n);
}

/* The links of page (h, id) in the order the page shows them: home, its
 * section, then LINKS_MIN-2 .. LINKS_MAX-2 content links: per mille, 10 to
 * missing pages, 10 through redirects, 10 to robots-disallowed paths, 20 to
 * other hosts, 300 to nearby pages and the rest to popular pages of the host.
 * Fills l[LINKS_MAX], returns the count. */
unsigned page_links(const struct web *w, uint32_t h, uint32_t id, struct link *l)
{
	uint64_t s = rng_for(w->seed, h, id, STREAM_LINKS);
	uint32_t n = w->hosts[h].pages;
	unsigned total = LINKS_MIN + (unsigned)(rng_next(&s) % (LINKS_MAX - LINKS_MIN + 1));

	l[0] = (struct link){ .kind = LK_ROOT, .host = h };
	l[1] = (struct link){ .kind = LK_SECTION, .level = 1, .host = h, .id = id / SECTION_FANOUT };
	for (unsigned i = 2; i < total; i++) {
		unsigned pm = (unsigned)(rng_next(&s) % 1000);
		uint64_t r = rng_next(&s);
		struct link *x = &l[i];

		*x = (struct link){ .kind = LK_PAGE, .host = h };
		if (pm < 10) {
			x->id = n + below(r, 1000);
		} else if (pm < 20) {
			x->kind = LK_REDIRECT;
			x->id = pick_popular(r, n);
		} else if (pm < 30) {
			x->kind = LK_PRIVATE;
			x->id = below(r, n);
		} else if (pm < 50 && w->nhosts > 1) {
			x->host = (h + 1 + below(r, w->nhosts - 1)) % w->nhosts;
			x->id = pick_popular(rng_next(&s), w->hosts[x->host].pages);
		} else if (pm < 350) {
			uint32_t off = 1 + below(r, 50) % n;

			x->id = (r & 1) ? (id + off) % n : (id + n - off) % n;
		} else {
			x->id = pick_popular(r, n);
		}
	}
	return total;
}

/* The page a crawler ends on when it follows l: false for none (a 404 or a
 * path robots.txt disallows); a redirect is followed. */
bool link_resolve(const struct web *w, const struct link *l, struct link *to)
{
	*to = *l;
	switch (l->kind) {
	case LK_ROOT:
	case LK_SECTION:
		return true;
	case LK_REDIRECT:
		to->kind = LK_PAGE;
		/* fall through */
	case LK_PAGE:
		return l->id < w->hosts[l->host].pages;
	default:
		return false;
	}
}

void put_path(struct out *o, const struct link *l)
{
	switch (l->kind) {
	case LK_ROOT:
		out_lit(o, "/");
		return;
	case LK_SECTION:
		out_lit(o, "/s");
		out_u64(o, l->level);
		out_lit(o, "/");
		break;
	case LK_PAGE:
		out_lit(o, "/p/");
		break;
	case LK_REDIRECT:
		out_lit(o, "/r/");
		break;
	default:
		out_lit(o, "/private/");
		break;
	}
	out_u64(o, l->id);
}

void put_origin(struct out *o, const struct web *w, uint32_t h)
{
	out_lit(o, "http://");
	out_str(o, w->name);
	out_lit(o, ":");
	out_u64(o, w->port + h);
}

/* An href as the page of host `from` writes it: a path on its own host, an
 * absolute URL to another. */
static void put_href(struct out *o, const struct web *w, uint32_t from, const struct link *l)
{
	if (l->host != from)
		put_origin(o, w, l->host);
	put_path(o, l);
}

/* ---- page text ------------------------------------------------------------------ */

/* The title of page (h, id): 2-6 words, without the site's name. */
static void put_title(struct out *o, const struct web *w, uint32_t h, uint32_t id)
{
	uint64_t s = rng_for(w->seed, h, id, STREAM_TITLE);
	unsigned n = 2 + (unsigned)(rng_next(&s) % 5);

	for (unsigned i = 0; i < n; i++) {
		uint32_t k = vocab_draw(&w->vocab, rng_next(&s));

		for (int tries = 0; k < TITLE_SKIP && tries < 4; tries++)
			k = vocab_draw(&w->vocab, rng_next(&s));
		if (i)
			out_lit(o, " ");
		out_word(o, &w->vocab, k, true);
	}
}

/* Anchor text: a page's title, else (a 404, a private page) two words. */
static void put_anchor(struct out *o, const struct web *w, const struct link *l, uint64_t *s)
{
	if ((l->kind == LK_PAGE || l->kind == LK_REDIRECT) && l->id < w->hosts[l->host].pages) {
		put_title(o, w, l->host, l->id);
		return;
	}
	out_word(o, &w->vocab, vocab_draw(&w->vocab, rng_next(s)), true);
	out_lit(o, " ");
	out_word(o, &w->vocab, vocab_draw(&w->vocab, rng_next(s)), false);
}

static void put_link(struct out *o, const struct web *w, uint32_t from, const struct link *l,
                     uint64_t *s)
{
	out_lit(o, "<a href=\"");
	put_href(o, w, from, l);
	out_lit(o, "\">");
	put_anchor(o, w, l, s);
	out_lit(o, "</a>");
}

static void put_head(struct out *o)
{
	out_lit(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	           "<title>");
}

/* A sentence of n words, the first capitalised, and ". ": the inner loop of
 * every page, so the room is checked once for all its words. */
static void put_sentence(struct out *o, const struct vocab *v, unsigned n, uint64_t *s)
{
	char *p = o->p;

	if ((size_t)(o->end - p) < (size_t)n * 2 * SYL_SLOT + 2) {
		o->full = true;
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		size_t len = vocab_spell(v, vocab_draw(v, rng_next(s)), p);

		if (i == 0)
			*p = (char)(*p - 'a' + 'A');
		p += len;
		*p++ = ' ';
	}
	p[-1] = '.';
	*p++ = ' ';
	o->p = p;
}

/* The body text: sentences of 6-20 words in paragraphs of 3-8 sentences under
 * a heading now and then, until `bytes` are written; links[] go in between
 * sentences at even intervals, and any left when the text ends go in a list
 * after it. */
static void put_text(struct out *o, const struct web *w, uint32_t h, const struct link *links,
                     unsigned nlinks, size_t bytes, uint64_t *s)
{
	const struct vocab *v = &w->vocab;
	const char *start = o->p;
	unsigned words = 0, li = 0, every = (unsigned)(bytes / 8 / (nlinks + 1)) + 1;

	while ((size_t)(o->p - start) < bytes && !o->full) {
		unsigned sentences = 3 + (unsigned)(rng_next(s) % 6);

		if (rng_next(s) % 5 == 0) {
			out_lit(o, "<h2>");
			out_word(o, v, vocab_draw(v, rng_next(s)), true);
			out_lit(o, " ");
			out_word(o, v, vocab_draw(v, rng_next(s)), false);
			out_lit(o, "</h2>\n");
		}
		out_lit(o, "<p>");
		for (unsigned j = 0; j < sentences; j++) {
			unsigned n = 6 + (unsigned)(rng_next(s) % 15);

			if (li < nlinks && words >= every * (li + 1)) {
				put_link(o, w, h, &links[li++], s);
				out_lit(o, " ");
			}
			put_sentence(o, v, n, s);
			words += n;
		}
		out_lit(o, "</p>\n");
	}
	if (li < nlinks) {
		out_lit(o, "<h2>See also</h2>\n<ul>\n");
		for (; li < nlinks; li++) {
			out_lit(o, "<li>");
			put_link(o, w, h, &links[li], s);
			out_lit(o, "</li>\n");
		}
		out_lit(o, "</ul>\n");
	}
}

void gen_page(struct out *o, const struct web *w, uint32_t h, uint32_t id)
{
	const struct host *hs = &w->hosts[h];
	struct link links[LINKS_MAX];
	unsigned n = page_links(w, h, id, links);
	uint64_t s = rng_for(w->seed, h, id, STREAM_TEXT);
	double u = (double)(rng_next(&s) >> 11) * (1.0 / 9007199254740992.0);
	/* Skewed towards small pages, as real page sizes are. */
	size_t bytes = TEXT_MIN + (size_t)(u * u * (TEXT_MAX - TEXT_MIN));

	put_head(o);
	put_title(o, w, h, id);
	out_lit(o, " - ");
	out_str(o, hs->name);
	out_lit(o, "</title>\n</head>\n<body>\n<nav><a href=\"/\">");
	out_str(o, hs->name);
	out_lit(o, "</a> &gt; <a href=\"");
	put_path(o, &links[1]);
	out_lit(o, "\">Section ");
	out_u64(o, links[1].id);
	out_lit(o, "</a></nav>\n<h1>");
	put_title(o, w, h, id);
	out_lit(o, "</h1>\n");
	put_text(o, w, h, links + 2, n - 2, bytes, &s);
	out_lit(o, "<footer>Page ");
	out_u64(o, id);
	out_lit(o, " of ");
	out_str(o, hs->name);
	out_lit(o, "</footer>\n</body>\n</html>\n");
}

/* The children of section (h, level, k): pages for level 1, sections of the
 * level below above it; [*first, *end). */
void section_children(const struct host *hs, unsigned level, uint32_t k, uint32_t *first,
                      uint32_t *end)
{
	uint32_t n = level == 1 ? hs->pages : hs->count[level - 1];

	*first = k * SECTION_FANOUT;
	*end = *first + SECTION_FANOUT < n ? *first + SECTION_FANOUT : n;
}

void gen_section(struct out *o, const struct web *w, uint32_t h, unsigned level, uint32_t k)
{
	const struct host *hs = &w->hosts[h];
	uint32_t first, end;

	section_children(hs, level, k, &first, &end);
	put_head(o);
	out_str(o, hs->name);
	out_lit(o, ": section ");
	out_u64(o, k);
	out_lit(o, "</title>\n</head>\n<body>\n<nav><a href=\"/\">");
	out_str(o, hs->name);
	out_lit(o, "</a></nav>\n<h1>Section ");
	out_u64(o, k);
	out_lit(o, "</h1>\n<ul>\n");
	for (uint32_t c = first; c < end; c++) {
		struct link l = section_link(h, level - 1, c);

		out_lit(o, "<li><a href=\"");
		put_path(o, &l);
		out_lit(o, "\">");
		if (level == 1) {
			put_title(o, w, h, c);
		} else {
			out_lit(o, "Section ");
			out_u64(o, c);
		}
		out_lit(o, "</a></li>\n");
	}
	out_lit(o, "</ul>\n</body>\n</html>\n");
}

void gen_root(struct out *o, const struct web *w, uint32_t h)
{
	const struct host *hs = &w->hosts[h];
	uint64_t s = rng_for(w->seed, h, UINT32_MAX, STREAM_TEXT);

	put_head(o);
	out_str(o, hs->name);
	out_lit(o, "</title>\n</head>\n<body>\n<h1>");
	out_str(o, hs->name);
	out_lit(o, "</h1>\n");
	put_text(o, w, h, NULL, 0, 600, &s);
	out_lit(o, "<ul>\n");
	for (uint32_t k = 0; k < hs->count[hs->levels]; k++) {
		struct link l = section_link(h, hs->levels, k);

		out_lit(o, "<li><a href=\"");
		put_path(o, &l);
		out_lit(o, "\">Section ");
		out_u64(o, k);
		out_lit(o, "</a></li>\n");
	}
	out_lit(o, "</ul>\n</body>\n</html>\n");
}

/* A page under /private/: served, so that a crawler ignoring robots.txt is
 * seen to fetch it, and without links. */
void gen_private(struct out *o, const struct web *w, uint32_t h, uint32_t id)
{
	uint64_t s = rng_for(w->seed, h, id ^ 0x80000000u, STREAM_TEXT);

	put_head(o);
	out_lit(o, "Private ");
	out_u64(o, id);
	out_lit(o, "</title>\n</head>\n<body>\n");
	put_text(o, w, h, NULL, 0, 300, &s);
	out_lit(o, "</body>\n</html>\n");
}

void gen_robots(struct out *o)
{
	out_lit(o, "# synweb: pages under /private/ are linked but disallowed\n"
	           "User-agent: *\nDisallow: /private/\n");
}

/* Last-Modified of a page: up to a year before BASE_TIME; the rest of the
 * site changed last at BASE_TIME. */
int64_t page_mtime(const struct web *w, uint32_t h, uint32_t id)
{
	return BASE_TIME - (int64_t)(rng_for(w->seed, h, id, STREAM_TIME) % (365 * 86400));
}

int web_init(struct web *w, uint64_t seed, uint32_t pages, uint32_t hosts, unsigned port,
             const char *name)
{
	*w = (struct web){ .seed = seed, .pages = pages, .nhosts = hosts, .port = port, .name = name };
	w->hosts = malloc(w->nhosts * sizeof(*w->hosts));
	if (!w->hosts || vocab_build(&w->vocab) < 0) {
		free(w->hosts);
		w->hosts = NULL;
		return -1;
	}
	for (uint32_t h = 0; h < w->nhosts; h++)
		host_init(w, h, &w->hosts[h]);
	return 0;
}

void web_free(struct web *w)
{
	vocab_free(&w->vocab);
	free(w->hosts);
}
