/* html.c - the tolerant HTML tokenizer and extractor (see html.h).
 *
 * Owns tokenizing (HTML5 tokenizer rules, simplified: no tree is built, so
 * nesting costs nothing), character references, the choice of what text
 * goes to which section, links, META handling and the JavaScript redirect
 * patterns.  Charsets are charset.c's, URL resolution url.c's, words
 * tokenize.c's.
 *
 * Choices, where browsers and ASPseek leave room:
 *  - Text inside <script>, <style>, <iframe> (fallback content) and the
 *    second and later <title> is not indexed; <noscript>, <noframes> and
 *    <noembed> are, because a crawler runs no scripts and shows no frames,
 *    so their text is what such a client gets.  <textarea>/<xmp> text is body.
 *  - <!--UdmComment-->…<!--/UdmComment--> and <!--noindex-->…<!--/noindex-->
 *    (ASPseek, Yandex) drop body and anchor text; tags inside still count
 *    (title, META, links are still seen).
 *  - <![CDATA[…]]> is text (what XHTML authors mean), not a bogus comment.
 *  - An unclosed first <title> ends at the next '<' (browsers would eat the
 *    whole page into the title); unclosed <script>/<style> run to the end as
 *    in browsers.
 *  - Inline tags (b, span, a, font, …) do not break words, block tags break
 *    with a newline, every other tag with a space.
 *  - Only svg/math nesting is tracked (a <title> inside an icon is not the
 *    page title), saturating at MAX_HTML_DEPTH.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "html.h"
#include "log.h"
#include "util.h"

#define NONE SIZE_MAX

static bool is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Byte classes of the tag scanner (one load per byte instead of a chain of
 * compares): whitespace, and the bytes that end a tag name, an attribute
 * name and an unquoted value. */
enum { CC_WS = 1, CC_NAME_END = 2, CC_ATTR_END = 4, CC_VALUE_END = 8 };
#define CC_WS_ALL (CC_WS | CC_NAME_END | CC_ATTR_END | CC_VALUE_END)
static const unsigned char cclass[256] = {
	[' '] = CC_WS_ALL, ['\t'] = CC_WS_ALL, ['\n'] = CC_WS_ALL, ['\f'] = CC_WS_ALL,
	['\r'] = CC_WS_ALL, ['/'] = CC_NAME_END | CC_ATTR_END,
	['>'] = CC_NAME_END | CC_ATTR_END | CC_VALUE_END, ['='] = CC_ATTR_END,
};

static bool is_alpha(unsigned char c)
{
	return (c | 32) >= 'a' && (c | 32) <= 'z';
}

static bool is_alnum(unsigned char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

/* --- character references ------------------------------------------------- */

/* The WHATWG HTML named character references, 2231 names with the 106
 * legacy ones browsers accept without ';'.  The list is data,
 * src/text/html-entities.txt; src/text/html-entities.awk turns it at build
 * time into html_entities.c (in the build directory), sorted by strcmp for
 * bsearch() and checked against what entity_decode() assumes: names of at
 * most 32 letters and digits, legacy names of 2-6, UTF-8 of at most 8 bytes. */
struct entity {
	const char *name; /* with its ';', or without for the legacy forms */
	const char *utf8;
};
extern const struct entity html_entities[];
extern const size_t html_entities_count;

static int entity_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct entity *)elem)->name);
}

static const char *entity_find(const char *name)
{
	const struct entity *e = bsearch(name, html_entities, html_entities_count,
					 sizeof(html_entities[0]), entity_cmp);
	return e ? e->utf8 : NULL;
}

/* HTML5 "numeric character reference end state": C1 bytes are read as
 * windows-1252 (what pages mean by &#150;), 0x80/0x8D/… stay. */
static const uint16_t c1_1252[32] = {
	0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
	0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
};

static size_t utf8_put(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Decode the reference at s[0] == '&'.  Returns the bytes consumed (0: not
 * a reference, the '&' is literal) and puts the UTF-8 in out (<= 8 bytes). */
static size_t entity_decode(const char *s, size_t len, bool in_attr, char *out, size_t *outlen)
{
	size_t i = 1, k;

	if (len < 2)
		return 0;
	if (s[1] == '#') {
		uint32_t cp = 0;
		bool hex = false, any = false;
		i = 2;
		if (i < len && (s[i] | 32) == 'x') {
			hex = true;
			i++;
		}
		for (; i < len; i++) {
			unsigned char c = (unsigned char)s[i];
			unsigned d;
			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (hex && (c | 32) >= 'a' && (c | 32) <= 'f')
				d = (c | 32) - 'a' + 10;
			else
				break;
			any = true;
			/* Saturate: &#3000000000; must not wrap into range
			 * (google/gumbo-parser#328). */
			if (cp <= 0x10FFFF)
				cp = cp * (hex ? 16 : 10) + d;
		}
		if (!any)
			return 0;
		if (i < len && s[i] == ';')
			i++;
		if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			cp = 0xFFFD;
		else if (cp >= 0x80 && cp <= 0x9F)
			cp = c1_1252[cp - 0x80];
		*outlen = utf8_put(cp, out);
		return i;
	}
	{
		char name[40];
		const char *v;
		size_t n;

		while (i < len && i < 33 && is_alnum((unsigned char)s[i]))
			i++;
		n = i - 1;
		if (!n)
			return 0;
		if (i < len && s[i] == ';') {
			memcpy(name, s + 1, n);
			name[n] = ';';
			name[n + 1] = '\0';
			if ((v = entity_find(name))) {
				*outlen = strlen(v);
				memcpy(out, v, *outlen);
				return i + 1;
			}
		}
		/* No ';': the longest legacy name that prefixes the run (&copy2024,
		 * &notit).  Legacy names are at most 6 letters. */
		for (k = n < 6 ? n : 6; k >= 2; k--) {
			memcpy(name, s + 1, k);
			name[k] = '\0';
			if (!(v = entity_find(name)))
				continue;
			/* In attributes "&copy=2" and "&copyx" stay literal: they
			 * are usually query strings (HTML5 §13.2.5.73). */
			if (in_attr && 1 + k < len &&
			    (s[1 + k] == '=' || is_alnum((unsigned char)s[1 + k])))
				return 0;
			*outlen = strlen(v);
			memcpy(out, v, *outlen);
			return 1 + k;
		}
		return 0;
	}
}

/* Stream s through the decoder to emit(); stops when emit returns -1. */
typedef int (*emit_fn)(void *ctx, const char *s, size_t n);

static int decode_stream(const char *s, size_t len, bool in_attr, emit_fn emit, void *ctx)
{
	size_t i = 0, run = 0;

	while (i < len) {
		const char *amp = memchr(s + i, '&', len - i);
		char tmp[8];
		size_t used, tlen = 0;

		if (!amp)
			break;
		i = (size_t)(amp - s);
		used = entity_decode(s + i, len - i, in_attr, tmp, &tlen);
		if (!used) {
			i++;
			continue;
		}
		if (emit(ctx, s + run, i - run) || emit(ctx, tmp, tlen))
			return -1;
		i += used;
		run = i;
	}
	return emit(ctx, s + run, len - run);
}

/* Append to a buf, cut on a UTF-8 boundary at its ceiling. */
static int add_capped(struct buf *b, const char *s, size_t n)
{
	size_t room;

	if (!buf_add(b, s, n))
		return 0;
	room = b->max > b->len ? b->max - b->len : 0;
	(void)buf_add(b, s, utf8_cut(s, n, room));
	return -1;
}

/* Decoded attribute values: NUL becomes U+FFFD as in HTML5, so that the
 * value survives as a C string. */
static int emit_buf(void *ctx, const char *s, size_t n)
{
	struct buf *b = ctx;
	const char *z;

	while ((z = memchr(s, '\0', n))) {
		if (add_capped(b, s, (size_t)(z - s)) || add_capped(b, "\xEF\xBF\xBD", 3))
			return -1;
		n -= (size_t)(z - s) + 1;
		s = z + 1;
	}
	return add_capped(b, s, n);
}

int html_decode_entities(const char *s, size_t len, bool in_attr, struct buf *out)
{
	return decode_stream(s, len, in_attr, emit_buf, out);
}

/* --- text sinks: whitespace collapsing, breaks, caps ------------------------ */

enum brk { BRK_NONE, BRK_SPACE, BRK_LINE };

struct sink {
	struct buf *b;
	enum brk pending; /* separator owed before the next visible byte */
	bool full;
	bool *truncated;  /* the doc's flag */
};

static void sink_break(struct sink *k, enum brk brk)
{
	if (brk > k->pending)
		k->pending = brk;
}

/* A byte that is part of a word: not ASCII whitespace, a C0 control or DEL.
 * (0xC2 may start U+00A0, which the caller checks with is_nbsp().) */
static inline bool is_word_byte(unsigned char c)
{
	return c > ' ' && c != 0x7F;
}

/* 1 for the bytes that end a run of word bytes in sink_add(): not
 * is_word_byte(), and 0xC2 (which may start U+00A0).  Built once. */
static unsigned char text_stop[256];
/* The byte, A-Z lowered (tag names).  Built once. */
static unsigned char ascii_lower[256];

/* U+00A0 (UTF-8 C2 A0) at p[i] of n bytes. */
static inline bool is_nbsp(const unsigned char *p, size_t i, size_t n)
{
	return p[i] == 0xC2 && i + 1 < n && p[i + 1] == 0xA0;
}

#ifdef __SSE2__
/* The bytes of x that text_stop[] marks, as 0xFF lanes. */
static inline __m128i stop_lanes(__m128i x)
{
	const __m128i sp = _mm_set1_epi8(' '), del = _mm_set1_epi8(0x7F);
	const __m128i c2 = _mm_set1_epi8((char)0xC2);

	return _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, sp), x),
			    _mm_or_si128(_mm_cmpeq_epi8(x, del), _mm_cmpeq_epi8(x, c2)));
}
#endif

/* The end of the run of word bytes at p[i] (the first byte text_stop[]
 * marks, or n).  With SSE2, 16 bytes at a time, and a space followed by a
 * byte text_stop[] does not mark is taken as sink_add() would take it. */
static inline size_t word_run(const unsigned char *p, size_t i, size_t n)
{
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' ');

	for (; i + 17 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i next = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
		/* A space before a word byte continues the run. */
		__m128i ok_space = _mm_andnot_si128(stop_lanes(next), _mm_cmpeq_epi8(v, sp));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(ok_space, stop_lanes(v)));

		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	while (i < n && !text_stop[p[i]])
		i++;
	return i;
}

/* Append text, collapsing whitespace (ASCII, U+00A0, C0 controls) to one
 * separator; newline_breaks makes a line end a BRK_LINE (text/plain).  Cuts
 * on a UTF-8 boundary at the ceiling.  A run of words separated by single
 * ASCII spaces is already collapsed: it goes in with one append. */
static void sink_add(struct sink *k, const char *s, size_t n, bool newline_breaks)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n && !k->full) {
		size_t run;
		unsigned char c = p[i];

		if (!is_word_byte(c)) {
			/* NUL is dropped (HTML5 ignores it in text); other controls
			 * separate words like spaces. */
			if (c)
				sink_break(k, c == '\n' && newline_breaks ? BRK_LINE : BRK_SPACE);
			i++;
			continue;
		}
		if (is_nbsp(p, i, n)) {
			sink_break(k, BRK_SPACE);
			i += 2;
			continue;
		}
		run = i;
		for (;;) {
			/* Word bytes; a 0xC2 is one unless it starts U+00A0. */
			i = word_run(p, i, n);
			if (i < n && p[i] == 0xC2 && !is_nbsp(p, i, n)) {
				i++;
				continue;
			}
			/* One space before another word: what collapsing writes. */
			if (i + 1 < n && p[i] == ' ' && is_word_byte(p[i + 1]) &&
			    !is_nbsp(p, i + 1, n))
				i++;
			else
				break;
		}
		if (k->pending && k->b->len) {
			if (buf_addc(k->b, k->pending == BRK_LINE ? '\n' : ' ')) {
				k->full = true;
				break;
			}
		}
		k->pending = BRK_NONE;
		if (add_capped(k->b, s + run, i - run))
			k->full = true;
	}
	if (k->full && k->truncated)
		*k->truncated = true;
}

struct text_ctx {
	struct sink *k[2]; /* body (or title) and anchor; either may be NULL */
	bool newline_breaks;
};

static int emit_text(void *ctx, const char *s, size_t n)
{
	struct text_ctx *t = ctx;
	int j;

	for (j = 0; j < 2; j++)
		if (t->k[j])
			sink_add(t->k[j], s, n, t->newline_breaks);
	return 0;
}

/* --- tags ------------------------------------------------------------------ */

enum tag_id {
	T_OTHER,  /* unknown: breaks words with a space */
	T_INLINE, /* no word break */
	T_BLOCK,  /* breaks with a newline */
	T_A, T_AREA, T_BASE, T_BR, T_FRAME, T_IFRAME, T_IMG, T_LINK, T_MATH, T_META,
	T_PLAINTEXT, T_SCRIPT, T_STYLE, T_SVG, T_TEXTAREA, T_TITLE, T_XMP,
};

struct tag_def {
	const char *name;
	enum tag_id id;
};

/* Sorted by strcmp for bsearch. */
static const struct tag_def tag_defs[] = {
	{ "a", T_A }, { "abbr", T_INLINE }, { "acronym", T_INLINE }, { "address", T_BLOCK },
	{ "area", T_AREA }, { "article", T_BLOCK }, { "aside", T_BLOCK }, { "b", T_INLINE },
	{ "base", T_BASE }, { "bdi", T_INLINE }, { "bdo", T_INLINE }, { "big", T_INLINE },
	{ "blink", T_INLINE }, { "blockquote", T_BLOCK }, { "body", T_BLOCK }, { "br", T_BR },
	{ "caption", T_BLOCK }, { "center", T_BLOCK }, { "cite", T_INLINE }, { "code", T_INLINE },
	{ "data", T_INLINE }, { "dd", T_BLOCK }, { "del", T_INLINE }, { "details", T_BLOCK },
	{ "dfn", T_INLINE }, { "dialog", T_BLOCK }, { "dir", T_BLOCK }, { "div", T_BLOCK },
	{ "dl", T_BLOCK }, { "dt", T_BLOCK }, { "em", T_INLINE }, { "fieldset", T_BLOCK },
	{ "figcaption", T_BLOCK }, { "figure", T_BLOCK }, { "font", T_INLINE },
	{ "footer", T_BLOCK }, { "form", T_BLOCK }, { "frame", T_FRAME }, { "frameset", T_BLOCK },
	{ "h1", T_BLOCK }, { "h2", T_BLOCK }, { "h3", T_BLOCK }, { "h4", T_BLOCK },
	{ "h5", T_BLOCK }, { "h6", T_BLOCK }, { "head", T_BLOCK }, { "header", T_BLOCK },
	{ "hgroup", T_BLOCK }, { "hr", T_BLOCK }, { "html", T_BLOCK }, { "i", T_INLINE },
	{ "iframe", T_IFRAME }, { "img", T_IMG }, { "ins", T_INLINE }, { "kbd", T_INLINE },
	{ "label", T_INLINE }, { "legend", T_BLOCK }, { "li", T_BLOCK }, { "link", T_LINK },
	{ "main", T_BLOCK }, { "mark", T_INLINE }, { "math", T_MATH }, { "menu", T_BLOCK },
	{ "meta", T_META }, { "nav", T_BLOCK }, { "nobr", T_INLINE }, { "ol", T_BLOCK },
	{ "optgroup", T_BLOCK }, { "option", T_BLOCK }, { "p", T_BLOCK },
	{ "plaintext", T_PLAINTEXT }, { "pre", T_BLOCK }, { "q", T_INLINE }, { "rb", T_INLINE },
	{ "rp", T_INLINE }, { "rt", T_INLINE }, { "rtc", T_INLINE }, { "ruby", T_INLINE },
	{ "s", T_INLINE }, { "samp", T_INLINE }, { "script", T_SCRIPT }, { "section", T_BLOCK },
	{ "small", T_INLINE }, { "span", T_INLINE }, { "strike", T_INLINE },
	{ "strong", T_INLINE }, { "style", T_STYLE }, { "sub", T_INLINE }, { "summary", T_BLOCK },
	{ "sup", T_INLINE }, { "svg", T_SVG }, { "table", T_BLOCK }, { "tbody", T_BLOCK },
	{ "td", T_OTHER }, { "textarea", T_TEXTAREA }, { "tfoot", T_BLOCK }, { "th", T_OTHER },
	{ "thead", T_BLOCK }, { "time", T_INLINE }, { "title", T_TITLE }, { "tr", T_BLOCK },
	{ "tt", T_INLINE }, { "u", T_INLINE }, { "ul", T_BLOCK }, { "var", T_INLINE },
	{ "wbr", T_INLINE }, { "xmp", T_XMP },
};

/* The tags by name: names (at most 15 bytes, lower case) packed into two
 * 64-bit words, zero-padded, in an open-addressing table built once
 * (tables_build()).  A tag is looked up per '<'. */
#define TAG_SLOTS 256
static struct tag_slot {
	uint64_t k0, k1;
	const struct tag_def *def;   /* NULL: empty */
} tag_tab[TAG_SLOTS];
static pthread_once_t tag_once = PTHREAD_ONCE_INIT;

static size_t tag_hash(uint64_t k0, uint64_t k1)
{
	return (size_t)(((k0 ^ (k1 * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull) >> 56);
}

/* The slot of the tag whose name (16 bytes: lower case, zero-padded) is k,
 * or the empty slot where it would go.  Read-only: the threads share it. */
static size_t tag_probe(const uint64_t k[2])
{
	size_t h;

	for (h = tag_hash(k[0], k[1]); tag_tab[h].def; h = (h + 1) % TAG_SLOTS)
		if (tag_tab[h].k0 == k[0] && tag_tab[h].k1 == k[1])
			break;
	return h;
}

static void tables_build(void)
{
	for (unsigned c = 0; c < 256; c++) {
		text_stop[c] = !is_word_byte((unsigned char)c) || c == 0xC2;
		ascii_lower[c] = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	for (size_t i = 0; i < ARRAY_SIZE(tag_defs); i++) {
		uint64_t k[2] = { 0, 0 };

		memcpy(k, tag_defs[i].name, strlen(tag_defs[i].name));
		tag_tab[tag_probe(k)] = (struct tag_slot){ k[0], k[1], &tag_defs[i] };
	}
}

/* The tag named name (16 bytes: lower case, zero-padded), or NULL. */
static const struct tag_def *tag_find(const char name[16])
{
	uint64_t k[2];

	memcpy(k, name, sizeof(k));
	return tag_tab[tag_probe(k)].def;
}

/* The attributes anything here looks at; the rest are skipped unread. */
enum attr_id { A_HREF, A_SRC, A_NAME, A_CONTENT, A_HTTP_EQUIV, A_REL, A_ALT, A_TYPE, A_COUNT };
#define ATTR_NAME(s) { s, sizeof(s) - 1 }
static const struct {
	const char *name;
	size_t len;
} attr_names[A_COUNT] = {
	ATTR_NAME("href"), ATTR_NAME("src"), ATTR_NAME("name"), ATTR_NAME("content"),
	ATTR_NAME("http-equiv"), ATTR_NAME("rel"), ATTR_NAME("alt"), ATTR_NAME("type"),
};
#undef ATTR_NAME
/* Bit n set: some attribute of attr_names is n bytes long. */
#define ATTR_LENGTHS (1u << 3 | 1u << 4 | 1u << 7 | 1u << 10)

struct span {
	const char *p; /* raw value in the input; NULL if the attribute is absent */
	size_t n;
};

struct tag {
	enum tag_id id;
	bool end;
	bool self_closing;
	struct span attr[A_COUNT];
};

/* Raw text end tags searched for (script, style, title, …): the answer of
 * the last search is remembered so that a page of a million unclosed
 * <title>s is not searched a million times (linear time). */
enum raw_kind { R_SCRIPT, R_STYLE, R_TITLE, R_TEXTAREA, R_XMP, R_IFRAME, R_COUNT };
static const char *const raw_names[R_COUNT] = {
	"script", "style", "title", "textarea", "xmp", "iframe",
};

struct raw_cache {
	bool valid;
	size_t from, at; /* a search from `from` found `at` (NONE: nothing) */
};

struct parser {
	const char *s;
	size_t len, pos;
	struct html_doc *doc;
	struct sink sec[SECTION_COUNT];
	struct sink anchor;
	struct buf anchor_buf;
	size_t anchor_link;  /* index of the open <a>'s link, NONE if none */
	bool in_anchor;
	bool noindex_udm;    /* inside <!--UdmComment--> */
	bool noindex_yandex; /* inside <!--noindex--> */
	int foreign;         /* open svg/math, saturating at MAX_HTML_DEPTH */
	bool title_seen;
	bool desc_seen, kw_seen, refresh_seen;
	size_t links_cap;    /* allocated doc->links */
	size_t js_budget;    /* bytes of inline script still to search */
	struct buf attr;     /* one decoded attribute value */
	struct raw_cache raw[R_COUNT];
};

/* Parse the tag at ps->pos ('<' then a letter, or "</" then a letter).
 * HTML5 tag states: unquoted, quoted and missing values, '/' between
 * attributes, `href="x"; target=_new"` (an attribute named ";"), a '='
 * starting a name.  Returns 0 with ps->pos after '>', or -1 if the input
 * ends inside the tag (which HTML5 drops). */
static int parse_tag(struct parser *ps, struct tag *t)
{
	const char *s = ps->s;
	size_t len = ps->len, pos = ps->pos + 1, n = 0;
	char name[16] = { 0 };
	const struct tag_def *def;

	/* What the code reads: every attribute's pointer (a value's length
	 * only with its pointer). */
	t->id = T_OTHER;
	t->end = t->self_closing = false;
	for (size_t a = 0; a < A_COUNT; a++)
		t->attr[a].p = NULL;
	if (s[pos] == '/') {
		t->end = true;
		pos++;
	}
	while (pos < len && !(cclass[(unsigned char)s[pos]] & CC_NAME_END)) {
		unsigned char c = (unsigned char)s[pos++];
		if (n < sizeof(name) - 1)
			name[n++] = (char)ascii_lower[c];
		else
			n = sizeof(name); /* too long for any tag we know */
	}
	if (n < sizeof(name)) {
		def = n ? tag_find(name) : NULL;
		t->id = def ? def->id : T_OTHER;
	} else {
		t->id = T_OTHER;
	}
	for (;;) {
		size_t nstart, nlen, i;
		struct span v = { NULL, 0 };

		while (pos < len && (cclass[(unsigned char)s[pos]] & CC_WS))
			pos++;
		if (pos >= len)
			return -1;
		if (s[pos] == '>') {
			ps->pos = pos + 1;
			return 0;
		}
		if (s[pos] == '/') {
			pos++;
			if (pos < len && s[pos] == '>')
				t->self_closing = true;
			continue;
		}
		nstart = pos++;
		while (pos < len && !(cclass[(unsigned char)s[pos]] & CC_ATTR_END))
			pos++;
		nlen = pos - nstart;
		while (pos < len && (cclass[(unsigned char)s[pos]] & CC_WS))
			pos++;
		v.p = s + pos;
		if (pos < len && s[pos] == '=') {
			pos++;
			while (pos < len && (cclass[(unsigned char)s[pos]] & CC_WS))
				pos++;
			if (pos >= len)
				return -1;
			if (s[pos] == '"' || s[pos] == '\'') {
				const char *q = memchr(s + pos + 1, s[pos], len - pos - 1);
				if (!q)
					return -1;
				v.p = s + pos + 1;
				v.n = (size_t)(q - v.p);
				pos = (size_t)(q - s) + 1;
			} else {
				v.p = s + pos;
				while (pos < len && !(cclass[(unsigned char)s[pos]] & CC_VALUE_END))
					pos++;
				v.n = (size_t)(s + pos - v.p);
			}
		}
		/* Only names of the lengths of attr_names (3, 4, 7, 10) can
		 * match: class, id, title, ... cost one test. */
		if (t->end || nlen > 10 || !(ATTR_LENGTHS >> nlen & 1))
			continue;
		for (i = 0; i < A_COUNT; i++) {
			/* First occurrence wins (HTML5 drops duplicates). */
			if (!t->attr[i].p && attr_names[i].len == nlen &&
			    !ascii_ncasecmp(s + nstart, attr_names[i].name, nlen)) {
				t->attr[i] = v;
				break;
			}
		}
	}
}

/* The decoded value of an attribute, in ps->attr (borrowed until the next
 * call); NULL if absent.  Values are capped at MAX_HTML_ATTR_LEN. */
static const char *attr_value(struct parser *ps, const struct tag *t, enum attr_id id)
{
	const struct span *v = &t->attr[id];

	if (!v->p)
		return NULL;
	buf_reset(&ps->attr);
	if (html_decode_entities(v->p, v->n, true, &ps->attr))
		ps->doc->truncated = true;
	return buf_str(&ps->attr);
}

/* Trimmed copy of a decoded value; NULL if absent or empty. */
static char *attr_dup_trimmed(struct parser *ps, const struct tag *t, enum attr_id id)
{
	const char *v = attr_value(ps, t, id);
	size_t n;

	if (!v)
		return NULL;
	while (is_ws((unsigned char)*v))
		v++;
	n = strlen(v);
	while (n && is_ws((unsigned char)v[n - 1]))
		n--;
	return n ? xstrndup(v, n) : NULL;
}

/* Does a space-separated token list (rel, robots) hold word? */
static bool has_token(const char *list, const char *word, const char *seps)
{
	size_t wl = strlen(word);

	while (*list) {
		size_t n;
		list += strspn(list, seps);
		n = strcspn(list, seps);
		if (n == wl && !ascii_ncasecmp(list, word, n))
			return true;
		list += n;
	}
	return false;
}

static bool noindex(const struct parser *ps)
{
	return ps->noindex_udm || ps->noindex_yandex;
}

/* Body text, plus anchor text while an <a> is open. */
static void body_text(struct parser *ps, const char *s, size_t n, bool decode)
{
	struct text_ctx t = { { NULL, NULL }, false };

	if (noindex(ps))
		return;
	t.k[0] = &ps->sec[SECTION_BODY];
	if (ps->in_anchor)
		t.k[1] = &ps->anchor;
	if (decode)
		(void)decode_stream(s, n, false, emit_text, &t);
	else
		(void)emit_text(&t, s, n);
}

static void text_break(struct parser *ps, enum brk brk)
{
	sink_break(&ps->sec[SECTION_BODY], brk);
	/* Anchor text is one line. */
	if (ps->in_anchor)
		sink_break(&ps->anchor, brk == BRK_NONE ? BRK_NONE : BRK_SPACE);
}

/* --- links ------------------------------------------------------------------ */

/* A link URL as written: decoded, trimmed, with tabs and newlines removed
 * (the URL parser removes them anyway; hrefs wrapped over lines are common). */
static struct html_link *add_link(struct parser *ps, const struct tag *t, enum attr_id id,
				  enum html_link_kind kind)
{
	struct html_doc *doc = ps->doc;
	const char *v = attr_value(ps, t, id);
	struct html_link *l;
	size_t i, n = 0;
	char *url;

	if (!v)
		return NULL;
	url = xmalloc(strlen(v) + 1);
	while (is_ws((unsigned char)*v))
		v++;
	for (i = 0; v[i]; i++)
		if (v[i] != '\t' && v[i] != '\n' && v[i] != '\r')
			url[n++] = v[i];
	while (n && is_ws((unsigned char)url[n - 1]))
		n--;
	url[n] = '\0';
	if (!n) {
		free(url);
		return NULL;
	}
	if (n > MAX_URL_LEN || doc->nlinks >= MAX_HTML_LINKS) {
		free(url);
		doc->links_dropped++;
		doc->truncated = true;
		return NULL;
	}
	if (doc->nlinks == ps->links_cap) {
		ps->links_cap = ps->links_cap ? ps->links_cap * 2 : 16;
		if (ps->links_cap > MAX_HTML_LINKS)
			ps->links_cap = MAX_HTML_LINKS;
		doc->links = xrealloc(doc->links, ps->links_cap * sizeof(*doc->links));
	}
	l = &doc->links[doc->nlinks++];
	l->url = url;
	l->anchor = NULL;
	l->kind = kind;
	v = attr_value(ps, t, A_REL);
	l->nofollow = v && has_token(v, "nofollow", " \t\n\r\f");
	return l;
}

static void anchor_close(struct parser *ps)
{
	if (!ps->in_anchor)
		return;
	if (ps->anchor_link != NONE)
		ps->doc->links[ps->anchor_link].anchor = xstrdup(buf_str(&ps->anchor_buf));
	ps->in_anchor = false;
	ps->anchor_link = NONE;
}

static void anchor_open(struct parser *ps, const struct tag *t)
{
	anchor_close(ps);
	if (!add_link(ps, t, A_HREF, HTML_LINK_A))
		return;
	ps->in_anchor = true;
	ps->anchor_link = ps->doc->nlinks - 1;
	buf_reset(&ps->anchor_buf);
	ps->anchor.pending = BRK_NONE;
	ps->anchor.full = false;
}

/* --- META ------------------------------------------------------------------ */

/* HTML "shared declarative refresh steps", tolerant: `5; url=…`, `0;URL='…'`,
 * `5 , URL = "…"`, `url=…` without a delay (read as 0). */
static void parse_refresh(struct html_doc *doc, const char *c)
{
	const char *u;
	long delay = 0;
	size_t n;
	char q = 0;

	while (is_ws((unsigned char)*c))
		c++;
	while (*c >= '0' && *c <= '9') {
		if (delay < 100000000)
			delay = delay * 10 + (*c - '0');
		c++;
	}
	while (*c == '.' || (*c >= '0' && *c <= '9'))
		c++;
	while (is_ws((unsigned char)*c))
		c++;
	if (*c == ';' || *c == ',')
		c++;
	while (is_ws((unsigned char)*c))
		c++;
	u = c;
	if (!ascii_ncasecmp(c, "url", 3)) {
		const char *e = c + 3;
		while (is_ws((unsigned char)*e))
			e++;
		if (*e == '=') {
			u = e + 1;
			while (is_ws((unsigned char)*u))
				u++;
		}
	}
	if (*u == '"' || *u == '\'')
		q = *u++;
	n = q && strchr(u, q) ? (size_t)(strchr(u, q) - u) : strlen(u);
	while (n && is_ws((unsigned char)u[n - 1]))
		n--;
	if (!n || n > MAX_URL_LEN)
		return; /* a refresh of the page itself, or nonsense */
	doc->refresh_url = xstrndup(u, n);
	doc->refresh_delay = (int)delay;
}

/* Collapse whitespace of s into dst (capped at dstsz-1 on a UTF-8 boundary). */
static void collapse_into(char *dst, size_t dstsz, const char *s)
{
	struct buf b = BUF_INIT(dstsz - 1);
	struct sink k = { &b, BRK_NONE, false, NULL };

	sink_add(&k, s, strlen(s), false);
	strlcpy_(dst, buf_str(&b), dstsz);
	buf_free(&b);
}

static void do_meta(struct parser *ps, const struct tag *t)
{
	struct html_doc *doc = ps->doc;
	const char *v;
	char key[16];
	size_t n;
	char *content;

	if ((v = attr_value(ps, t, A_HTTP_EQUIV))) {
		while (is_ws((unsigned char)*v))
			v++;
		if (!ascii_ncasecmp(v, "refresh", 7) && !ps->refresh_seen) {
			ps->refresh_seen = true;
			if ((v = attr_value(ps, t, A_CONTENT)))
				parse_refresh(doc, v);
		}
		return;
	}
	if (!(v = attr_value(ps, t, A_NAME)))
		return;
	while (is_ws((unsigned char)*v))
		v++;
	for (n = 0; n < sizeof(key) - 1 && v[n] && !is_ws((unsigned char)v[n]); n++) {
		unsigned char c = (unsigned char)v[n];
		key[n] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	key[n] = '\0';
	if (!(v = attr_value(ps, t, A_CONTENT)))
		return;
	content = xstrdup(v);
	if (!strcmp(key, "robots")) {
		const char *seps = ", \t\n\r\f";
		if (has_token(content, "noindex", seps) || has_token(content, "none", seps))
			doc->robots |= HTML_ROBOTS_NOINDEX;
		if (has_token(content, "nofollow", seps) || has_token(content, "none", seps))
			doc->robots |= HTML_ROBOTS_NOFOLLOW;
	} else if (!strcmp(key, "description") || !strcmp(key, "keywords")) {
		bool desc = key[0] == 'd';
		struct sink *k = &ps->sec[desc ? SECTION_DESCRIPTION : SECTION_KEYWORDS];
		bool *seen = desc ? &ps->desc_seen : &ps->kw_seen;

		sink_break(k, BRK_LINE);
		sink_add(k, content, strlen(content), false);
		if (!*seen) {
			*seen = true;
			if (desc)
				collapse_into(doc->description, sizeof(doc->description), content);
			else
				collapse_into(doc->keywords, sizeof(doc->keywords), content);
		}
	}
	free(content);
}

/* --- JavaScript redirects ----------------------------------------------------- */

/* Some pages move by script alone: no 30x, no META refresh, only a
 * `location = "…"` in a <script>.  A crawler that runs no scripts would see
 * a dead end, so the first such assignment to a literal URL is taken as the
 * page's redirect, and the crawl follows it like a 30x (doc/CRAWL.md). */

/* location = "…", location.href='…', window.location.assign("…"),
 * location.replace('…'), top/self/parent/document.location …; a string
 * literal only, not followed by '+' (a computed URL is not a redirect we
 * can follow).  `x.location = …` for other objects, `location.href ==`,
 * `location.href.replace(…)` do not match. */
static const char js_pattern[] =
	"(?:(?<![\\w$.])|\\b(?:window|self|top|parent|document)\\s*\\.\\s*)location"
	"(?:(?:\\s*\\.\\s*href)?\\s*=(?!=)|\\s*\\.\\s*(?:replace|assign)\\s*\\()\\s*"
	"(?:\"((?:[^\"\\\\\\r\\n]++|\\\\.)*+)\"|'((?:[^'\\\\\\r\\n]++|\\\\.)*+)')"
	"(?!\\s*\\+)";

static pthread_once_t js_once = PTHREAD_ONCE_INIT;
static pcre2_code *js_re; /* compiled once, kept for the process */

static void js_compile(void)
{
	int err;
	PCRE2_SIZE off;

	js_re = pcre2_compile((PCRE2_SPTR)js_pattern, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	if (!js_re)
		warning("html: JavaScript redirect pattern does not compile (error %d at %zu)", err,
			(size_t)off);
}

static void js_scan(struct parser *ps, const char *s, size_t n)
{
	pcre2_match_data *md = NULL;
	pcre2_match_context *mc = NULL;
	PCRE2_SIZE *ov;
	const char *v;
	size_t vn, i, k = 0;
	char *url;
	int g;

	if (ps->doc->js_redirect || !ps->js_budget)
		return;
	if (n > ps->js_budget)
		n = ps->js_budget;
	ps->js_budget -= n;
	/* Every match has "location" in it: most scripts are skipped at
	 * memmem() speed (the regex took 165,000 instructions per script). */
	if (!memmem(s, n, "location", 8))
		return;
	pthread_once(&js_once, js_compile);
	if (!js_re)
		return;
	md = pcre2_match_data_create_from_pattern(js_re, NULL);
	mc = pcre2_match_context_create(NULL);
	if (!md || !mc)
		goto out;
	pcre2_set_match_limit(mc, 100000);
	/* Byte mode (no PCRE2_UTF): the pattern is ASCII and the script may be
	 * any bytes, which UTF mode without its check would not survive. */
	if (pcre2_match(js_re, (PCRE2_SPTR)s, n, 0, 0, md, mc) < 0)
		goto out;
	ov = pcre2_get_ovector_pointer(md);
	g = ov[2] != PCRE2_UNSET ? 1 : 2;
	v = s + ov[2 * g];
	vn = ov[2 * g + 1] - ov[2 * g];
	/* Undo the JS escapes a URL needs: \/ \\ \' \". */
	url = xmalloc(vn + 1);
	for (i = 0; i < vn; i++) {
		if (v[i] == '\\' && i + 1 < vn && strchr("/\\'\"", v[i + 1]))
			i++;
		url[k++] = v[i];
	}
	while (k && is_ws((unsigned char)url[k - 1]))
		k--;
	url[k] = '\0';
	for (i = 0; is_ws((unsigned char)url[i]); i++)
		;
	if (url[i] && k - i <= MAX_URL_LEN)
		ps->doc->js_redirect = xstrdup(url + i);
	free(url);
out:
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
}

static bool script_is_js(struct parser *ps, const struct tag *t)
{
	const char *type;

	if (t->attr[A_SRC].p)
		return false;
	type = attr_value(ps, t, A_TYPE);
	if (!type || !*type)
		return true;
	return strstr(type, "javascript") || strstr(type, "ecmascript") ||
	       strstr(type, "jscript") || !ascii_casecmp(type, "module");
}

/* --- raw text, comments ------------------------------------------------------ */

/* Position of the "</name" that ends a raw text element (followed by
 * whitespace, '/', '>' or the end), searching from `from`; NONE if none. */
static size_t find_close(struct parser *ps, enum raw_kind kind, size_t from)
{
	struct raw_cache *c = &ps->raw[kind];
	const char *name = raw_names[kind];
	size_t nl = strlen(name), p = from, at = NONE;
	const char *q;

	if (c->valid && from >= c->from && (c->at == NONE || c->at >= from))
		return c->at;
	while (p < ps->len && (q = memchr(ps->s + p, '<', ps->len - p))) {
		size_t i = (size_t)(q - ps->s), e = i + 2 + nl;
		if (e <= ps->len && q[1] == '/' && !ascii_ncasecmp(q + 2, name, nl) &&
		    (e == ps->len || is_ws((unsigned char)ps->s[e]) || ps->s[e] == '/' ||
		     ps->s[e] == '>')) {
			at = i;
			break;
		}
		p = i + 1;
	}
	c->valid = true;
	c->from = from;
	c->at = at;
	return at;
}

/* ASPseek/Yandex markers: the trimmed comment text, case-insensitive. */
static void comment_marker(struct parser *ps, const char *s, size_t n)
{
	bool close;

	while (n && is_ws((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && is_ws((unsigned char)s[n - 1]))
		n--;
	close = n && *s == '/';
	if (close) {
		s++;
		n--;
	}
	if (n == 10 && !ascii_ncasecmp(s, "udmcomment", 10))
		ps->noindex_udm = !close;
	else if (n == 7 && !ascii_ncasecmp(s, "noindex", 7))
		ps->noindex_yandex = !close;
}

/* Skip "<!--…-->" at ps->pos; false if it runs to the end of the input. */
static bool skip_comment(struct parser *ps)
{
	const char *s = ps->s + ps->pos, *q, *bang;
	size_t left = ps->len - ps->pos;

	/* "<!-->" and "<!--->" are complete (empty) comments in HTML5. */
	if (left >= 5 && s[4] == '>') {
		ps->pos += 5;
		return true;
	}
	if (left >= 6 && s[4] == '-' && s[5] == '>') {
		ps->pos += 6;
		return true;
	}
	q = memmem(s + 4, left - 4, "-->", 3);
	/* "--!>" ends a comment too, if it comes first. */
	bang = memmem(s + 4, (q ? (size_t)(q - s) : left) - 4, "--!>", 4);
	if (bang) {
		comment_marker(ps, s + 4, (size_t)(bang - s - 4));
		ps->pos += (size_t)(bang - s) + 4;
		return true;
	}
	if (!q)
		return false;
	comment_marker(ps, s + 4, (size_t)(q - s - 4));
	ps->pos += (size_t)(q - s) + 3;
	return true;
}

/* --- the tokenizer loop ---------------------------------------------------------- */

static enum brk tag_break(enum tag_id id)
{
	switch (id) {
	case T_INLINE: case T_A: return BRK_NONE;
	case T_BLOCK: case T_BR: case T_TITLE: case T_TEXTAREA: case T_XMP: case T_PLAINTEXT:
		return BRK_LINE;
	default: return BRK_SPACE;
	}
}

/* Content of a raw text element starting at ps->pos: returns its end (the
 * "</name" or the end of input) and leaves ps->pos there. */
static size_t raw_content(struct parser *ps, enum raw_kind kind, size_t *start)
{
	size_t at = find_close(ps, kind, ps->pos);

	*start = ps->pos;
	ps->pos = at == NONE ? ps->len : at;
	return ps->pos;
}

static void start_tag(struct parser *ps, const struct tag *t)
{
	struct html_doc *doc = ps->doc;
	size_t start, end;
	const char *v;

	text_break(ps, tag_break(t->id));
	switch (t->id) {
	case T_A:
		anchor_open(ps, t);
		break;
	case T_AREA: {
		struct html_link *l = add_link(ps, t, A_HREF, HTML_LINK_AREA);
		if (l) {
			struct buf b = BUF_INIT(MAX_ANCHOR_LEN);
			struct sink k = { &b, BRK_NONE, false, NULL };
			if ((v = attr_value(ps, t, A_ALT)))
				sink_add(&k, v, strlen(v), false);
			l->anchor = buf_detach(&b, NULL);
		}
		break;
	}
	case T_FRAME:
	case T_IFRAME: {
		enum html_link_kind kind = t->id == T_FRAME ? HTML_LINK_FRAME : HTML_LINK_IFRAME;
		struct html_link *l = add_link(ps, t, A_SRC, kind);
		if (l)
			l->anchor = xstrdup("");
		if (t->id == T_IFRAME) /* its content is fallback markup for old browsers */
			(void)raw_content(ps, R_IFRAME, &start);
		break;
	}
	case T_BASE:
		if (!doc->base)
			doc->base = attr_dup_trimmed(ps, t, A_HREF);
		break;
	case T_LINK:
		if (!doc->canonical && (v = attr_value(ps, t, A_REL)) &&
		    has_token(v, "canonical", " \t\n\r\f"))
			doc->canonical = attr_dup_trimmed(ps, t, A_HREF);
		break;
	case T_META:
		do_meta(ps, t);
		break;
	case T_IMG:
		if (ps->in_anchor && !noindex(ps) && (v = attr_value(ps, t, A_ALT))) {
			sink_break(&ps->anchor, BRK_SPACE);
			sink_add(&ps->anchor, v, strlen(v), false);
			sink_break(&ps->anchor, BRK_SPACE);
		}
		break;
	case T_SVG:
	case T_MATH:
		if (!t->self_closing && ps->foreign < MAX_HTML_DEPTH)
			ps->foreign++;
		break;
	case T_SCRIPT: {
		bool js = script_is_js(ps, t);
		end = raw_content(ps, R_SCRIPT, &start);
		if (js)
			js_scan(ps, ps->s + start, end - start);
		break;
	}
	case T_STYLE:
		(void)raw_content(ps, R_STYLE, &start);
		break;
	case T_TEXTAREA:
	case T_XMP:
		end = raw_content(ps, t->id == T_XMP ? R_XMP : R_TEXTAREA, &start);
		body_text(ps, ps->s + start, end - start, t->id == T_TEXTAREA);
		break;
	case T_PLAINTEXT:
		body_text(ps, ps->s + ps->pos, ps->len - ps->pos, false);
		ps->pos = ps->len;
		break;
	case T_TITLE:
		if (ps->foreign)
			break; /* an svg <title> is a tooltip, parsed as markup */
		if (ps->title_seen) {
			/* Later titles are RCDATA nobody shows. */
			if (find_close(ps, R_TITLE, ps->pos) != NONE)
				(void)raw_content(ps, R_TITLE, &start);
			break;
		}
		ps->title_seen = true;
		start = ps->pos;
		end = find_close(ps, R_TITLE, ps->pos);
		if (end == NONE) {
			const char *lt = memchr(ps->s + start, '<', ps->len - start);
			end = lt ? (size_t)(lt - ps->s) : ps->len;
		}
		ps->pos = end;
		{
			struct text_ctx tc = { { &ps->sec[SECTION_TITLE], NULL }, false };
			(void)decode_stream(ps->s + start, end - start, false, emit_text, &tc);
		}
		break;
	default:
		break;
	}
}

static void end_tag(struct parser *ps, const struct tag *t)
{
	text_break(ps, tag_break(t->id));
	if (t->id == T_A)
		anchor_close(ps);
	else if ((t->id == T_SVG || t->id == T_MATH) && ps->foreign > 0)
		ps->foreign--;
}

/* Everything after a '<' at ps->pos. Returns false when the rest of the
 * input is consumed (an unclosed comment or tag). */
static bool markup(struct parser *ps)
{
	const char *s = ps->s + ps->pos, *q;
	size_t left = ps->len - ps->pos;
	struct tag t;

	if (left >= 4 && !memcmp(s, "<!--", 4))
		return skip_comment(ps);
	if (left >= 9 && !memcmp(s, "<![CDATA[", 9)) {
		q = memmem(s + 9, left - 9, "]]>", 3);
		body_text(ps, s + 9, q ? (size_t)(q - s - 9) : left - 9, false);
		if (!q)
			return false;
		ps->pos += (size_t)(q - s) + 3;
		return true;
	}
	if (left >= 2 && (is_alpha((unsigned char)s[1]) ||
			  (s[1] == '/' && left >= 3 && is_alpha((unsigned char)s[2])))) {
		if (parse_tag(ps, &t))
			return false; /* EOF inside a tag: HTML5 drops it */
		if (t.end)
			end_tag(ps, &t);
		else
			start_tag(ps, &t);
		return true;
	}
	if (left >= 3 && s[1] == '/' && s[2] == '>') {
		ps->pos += 3; /* "</>" is nothing */
		return true;
	}
	if (left >= 2 && (s[1] == '!' || s[1] == '/' || s[1] == '?')) {
		/* DOCTYPE, processing instruction, "</ x>": bogus comments. */
		q = memchr(s, '>', left);
		if (!q)
			return false;
		ps->pos += (size_t)(q - s) + 1;
		return true;
	}
	body_text(ps, "<", 1, false); /* a lone '<' is text */
	ps->pos++;
	return true;
}

static void doc_init(struct html_doc *doc)
{
	int i;

	memset(doc, 0, sizeof(*doc));
	doc->refresh_delay = -1;
	for (i = 0; i < SECTION_COUNT; i++)
		buf_init(&doc->text[i],
			 i == SECTION_BODY ? (size_t)MAX_DOC_BYTES : MAX_HTML_META_TEXT);
}

static void parser_init(struct parser *ps, const char *s, size_t len, struct html_doc *doc)
{
	int i;

	pthread_once(&tag_once, tables_build);
	memset(ps, 0, sizeof(*ps));
	ps->s = s ? s : "";
	ps->len = s ? len : 0;
	ps->doc = doc;
	for (i = 0; i < SECTION_COUNT; i++) {
		ps->sec[i].b = &doc->text[i];
		ps->sec[i].truncated = &doc->truncated;
	}
	buf_init(&ps->anchor_buf, MAX_ANCHOR_LEN);
	ps->anchor.b = &ps->anchor_buf;
	ps->anchor_link = NONE;
	buf_init(&ps->attr, MAX_HTML_ATTR_LEN);
	ps->js_budget = MAX_JS_SCAN;
}

/* The derived stored columns: title and txt. */
static void finish(struct parser *ps)
{
	struct html_doc *doc = ps->doc;
	const struct buf *body = &doc->text[SECTION_BODY], *title = &doc->text[SECTION_TITLE];
	size_t n, i;

	anchor_close(ps);
	n = utf8_cut(buf_str(title), title->len, MAX_TITLE_LEN);
	memcpy(doc->title, buf_str(title), n);
	doc->title[n] = '\0';
	n = utf8_cut(buf_str(body), body->len, MAX_TXT_LEN);
	memcpy(doc->txt, buf_str(body), n);
	for (i = 0; i < n; i++)
		if (doc->txt[i] == '\n')
			doc->txt[i] = ' ';
	doc->txt[n] = '\0';
	buf_free(&ps->anchor_buf);
	buf_free(&ps->attr);
}

int html_parse(const char *utf8, size_t len, struct html_doc *doc)
{
	struct parser ps;

	doc_init(doc);
	parser_init(&ps, utf8, len, doc);
	while (ps.pos < ps.len) {
		const char *lt = memchr(ps.s + ps.pos, '<', ps.len - ps.pos);
		size_t end = lt ? (size_t)(lt - ps.s) : ps.len;

		if (end > ps.pos)
			body_text(&ps, ps.s + ps.pos, end - ps.pos, true);
		ps.pos = end;
		if (lt && !markup(&ps))
			break;
	}
	finish(&ps);
	return 0;
}

int html_parse_text(const char *utf8, size_t len, struct html_doc *doc)
{
	struct parser ps;

	doc_init(doc);
	parser_init(&ps, utf8, len, doc);
	sink_add(&ps.sec[SECTION_BODY], ps.s, ps.len, true);
	finish(&ps);
	return 0;
}

void html_doc_free(struct html_doc *doc)
{
	size_t i;

	if (!doc)
		return;
	for (i = 0; i < doc->nlinks; i++) {
		free(doc->links[i].url);
		free(doc->links[i].anchor);
	}
	free(doc->links);
	free(doc->refresh_url);
	free(doc->base);
	free(doc->canonical);
	free(doc->js_redirect);
	for (i = 0; i < SECTION_COUNT; i++)
		buf_free(&doc->text[i]);
	doc_init(doc);
}

void html_foreach_text(const struct html_doc *doc, html_text_cb cb, void *arg)
{
	static const enum section order[] = {
		SECTION_TITLE, SECTION_DESCRIPTION, SECTION_KEYWORDS, SECTION_BODY,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (doc->text[order[i]].len)
			cb(order[i], buf_str(&doc->text[order[i]]), doc->text[order[i]].len, arg);
}

const char *html_section_name(enum section sec)
{
	switch (sec) {
	case SECTION_BODY: return "body";
	case SECTION_DESCRIPTION: return "description";
	case SECTION_KEYWORDS: return "keywords";
	case SECTION_TITLE: return "title";
	}
	return "?";
}
