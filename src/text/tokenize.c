/* tokenize.c - the word splitter, folder and stopword set declared in tokenize.h.
 *
 * Owns character classes, folding (utf8proc), truncation, the stopword hash
 * set and position counting.  Runs on every crawled page, so the common case
 * (an ASCII word followed by an ASCII separator) never touches utf8proc, and
 * no path allocates per word: words are folded into struct tok_doc's scratch.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <utf8proc.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "log.h"
#include "tokenize.h"
#include "util.h"

struct tokenizer {
	long min_len, max_len;
	struct buf pool; /* the stopwords, each a length byte and the word */
	uint32_t *slots; /* open addressing: pool offset + 1; 0 = empty */
	size_t nslots;   /* a power of two, or 0 */
	size_t count;
};

_Static_assert(MAX_WORD_LEN <= 255, "stopword lengths are stored in one byte");

/* Character classes of the scanner. */
enum cclass {
	C_SEP,  /* ends a word */
	C_IGN,  /* default-ignorable: dropped, does not end a word */
	C_MARK, /* combining mark: stays with the word before it */
	C_WORD, /* letter or digit */
	C_ONE,  /* letter of a script indexed one character per word */
	C_VT    /* Hangul medial/final jamo: composes with the syllable before */
};

/* One word found by next_word(); s points into the tok_doc scratch. */
struct word {
	const char *s;
	size_t len;    /* bytes */
	size_t nchars; /* code points */
	bool one;      /* a one-character-per-word script: MinWordLength exempt */
	bool truncated;
};

static const utf8proc_option_t FOLD_OPTS = UTF8PROC_CASEFOLD | UTF8PROC_DECOMPOSE | UTF8PROC_STABLE;
static const utf8proc_option_t COMPOSE_OPTS = UTF8PROC_COMPOSE | UTF8PROC_STABLE;

static inline char ascii_lower(unsigned c)
{
	return (char)((c - 'A') < 26 ? c + 32 : c);
}

/* ASCII letters and digits, lower-cased; 0 for the other bytes, ASCII or
 * not (the fast path's one lookup per byte). */
#define AW(c) ((unsigned char)(((c) >= '0' && (c) <= '9') || ((c) >= 'a' && (c) <= 'z') ? (c) : \
			       ((c) >= 'A' && (c) <= 'Z') ? (c) + 32 : 0))
#define AW4(c) AW(c), AW((c) + 1), AW((c) + 2), AW((c) + 3)
#define AW16(c) AW4(c), AW4((c) + 4), AW4((c) + 8), AW4((c) + 12)
static const unsigned char ascii_word[256] = {
	AW16(0), AW16(16), AW16(32), AW16(48), AW16(64), AW16(80), AW16(96), AW16(112),
};
#undef AW16
#undef AW4
#undef AW

#ifdef __SSE2__
_Static_assert(TOK_SCRATCH * sizeof(int32_t) >= MAX_WORD_LEN + 16,
	       "next_word() stores 16 folded bytes at a time into the scratch");

/* The lanes of v that ascii_word[] keeps (bit i: v[i] is a letter or
 * digit), and in *folded v with A-Z lowered.  x + (0x80 - lo) < 0x80 + n,
 * compared as signed bytes, is lo <= x < lo + n for every byte x. */
static inline unsigned ascii_word_lanes(__m128i v, __m128i *folded)
{
#define IN_RANGE(lo, n) _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - (lo)))), \
				       _mm_set1_epi8((char)(0x80 + (n))))
	__m128i up = IN_RANGE('A', 26), low = IN_RANGE('a', 26), digit = IN_RANGE('0', 10);
#undef IN_RANGE

	*folded = _mm_add_epi8(v, _mm_and_si128(up, _mm_set1_epi8(0x20)));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(up, low), digit));
}
#endif

/* Scripts written without spaces between words, and the CJK scripts: each
 * letter becomes a word of its own (tokenize.h).  Sorted, for bsearch. */
static const struct range {
	int32_t lo, hi;
} one_char_ranges[] = {
	{ 0x0E00, 0x0EFF },   /* Thai, Lao */
	{ 0x1000, 0x109F },   /* Myanmar */
	{ 0x1100, 0x11FF },   /* Hangul Jamo */
	{ 0x1780, 0x17FF },   /* Khmer */
	{ 0x19E0, 0x19FF },   /* Khmer Symbols */
	{ 0x2E80, 0x2FDF },   /* CJK and Kangxi radicals */
	{ 0x3005, 0x3007 },   /* ideographic iteration mark, closing mark, zero */
	{ 0x3021, 0x3029 },   /* Hangzhou numerals */
	{ 0x3031, 0x3035 },   /* kana repeat marks */
	{ 0x3038, 0x303C },
	{ 0x3040, 0x31FF },   /* Hiragana, Katakana, Bopomofo, Hangul Compatibility Jamo, ... */
	{ 0x3400, 0x4DBF },   /* CJK Extension A */
	{ 0x4E00, 0x9FFF },   /* CJK Unified Ideographs */
	{ 0xA960, 0xA97F },   /* Hangul Jamo Extended-A */
	{ 0xA9E0, 0xA9FF },   /* Myanmar Extended-B */
	{ 0xAA60, 0xAA7F },   /* Myanmar Extended-A */
	{ 0xAC00, 0xD7FF },   /* Hangul Syllables, Jamo Extended-B */
	{ 0xF900, 0xFAFF },   /* CJK Compatibility Ideographs */
	{ 0xFF66, 0xFFDC },   /* halfwidth Katakana and Hangul */
	{ 0x16FE0, 0x18CFF }, /* ideographic symbols, Tangut, Khitan */
	{ 0x1AFF0, 0x1B2FF }, /* Kana Extended/Supplement, Nushu */
	{ 0x20000, 0x323AF }, /* CJK Extensions B..H, Compatibility Supplement */
};

static bool one_char_script(int32_t cp)
{
	size_t lo = 0, hi = ARRAY_SIZE(one_char_ranges);

	if (cp < one_char_ranges[0].lo)
		return false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < one_char_ranges[mid].lo)
			hi = mid;
		else if (cp > one_char_ranges[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

static enum cclass classify(int32_t cp)
{
	const utf8proc_property_t *p;

	if (cp < 0x80)
		return ascii_word[cp] ? C_WORD : C_SEP;
	/* ZERO WIDTH SPACE is default-ignorable, but it is written precisely
	 * to mark a word break (Thai, Khmer, long URLs). */
	if (cp == 0x200B)
		return C_SEP;
	p = utf8proc_get_property(cp);
	if (p->ignorable)
		return C_IGN;
	switch (p->category) {
	case UTF8PROC_CATEGORY_LU:
	case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_ND:
	case UTF8PROC_CATEGORY_NL:
	case UTF8PROC_CATEGORY_NO:
		if (!one_char_script(cp))
			return C_WORD;
		if ((cp >= 0x1160 && cp <= 0x11FF) || (cp >= 0xD7B0 && cp <= 0xD7FF))
			return C_VT;
		return C_ONE;
	case UTF8PROC_CATEGORY_MN:
	case UTF8PROC_CATEGORY_MC:
		return C_MARK;
	default:
		/* Enclosing marks (Me) separate: a keycap or circle around a
		 * digit is decoration, not part of a word. */
		return C_SEP;
	}
}

/* Decode one code point at s[0..len); *cp = -1 for an invalid sequence.
 * Returns the bytes consumed (1 for an invalid byte: it becomes a separator). */
static inline size_t decode(const uint8_t *s, size_t len, int32_t *cp)
{
	utf8proc_ssize_t n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	n = utf8proc_iterate(s, (utf8proc_ssize_t)(len < 8 ? len : 8), cp);
	if (n <= 0) {
		*cp = -1;
		return 1;
	}
	return (size_t)n;
}

/* Write the folded canonical decomposition of cp to dst when it fits in room
 * code points; return how many it takes either way. */
static size_t fold_cp(int32_t cp, int32_t *dst, size_t room)
{
	utf8proc_ssize_t n;
	int boundclass = 0;

	/* Fullwidth ASCII variants are the same words as ASCII ones (Japanese
	 * and Chinese pages use them); full NFKC would also flatten ligatures
	 * and superscripts, which we keep. */
	if (cp >= 0xFF01 && cp <= 0xFF5E)
		cp -= 0xFEE0;
	if (cp < 0x80) {
		if (room >= 1)
			dst[0] = ascii_lower((unsigned)cp);
		return 1;
	}
	n = utf8proc_decompose_char(cp, dst, (utf8proc_ssize_t)room, FOLD_OPTS, &boundclass);
	return n < 0 ? 0 : (size_t)n;
}

static inline int ccc(int32_t cp)
{
	return cp < 0x300 ? 0 : utf8proc_get_property(cp)->combining_class;
}

/* Finish folding n decomposed code points in cps[] (which has room for one
 * more): canonical ordering, the dotted-i rule, NFC composition, UTF-8.
 * Returns the byte length of the NUL-terminated UTF-8 now in cps. */
static size_t finish(int32_t *cps, size_t n)
{
	size_t i, w;
	utf8proc_ssize_t r;

	/* Canonical ordering, as utf8proc_decompose_custom() does it: we fold
	 * character by character, so it is ours to do. */
	for (i = 0; i + 1 < n;) {
		int c1 = ccc(cps[i]), c2 = ccc(cps[i + 1]);
		if (c1 > c2 && c2 > 0) {
			int32_t tmp = cps[i];
			cps[i] = cps[i + 1];
			cps[i + 1] = tmp;
			if (i > 0)
				i--;
			else
				i++;
		} else {
			i++;
		}
	}
	/* Full case folding turns Turkish U+0130 into i + U+0307; a dot above
	 * an i or j is the dot it already has, so drop it (unless another
	 * above-mark sits between them, ccc 230 blocks). */
	for (i = w = 0; i < n; i++) {
		if (cps[i] == 0x307) {
			size_t j = w;
			while (j > 0 && ccc(cps[j - 1]) > 0 && ccc(cps[j - 1]) < 230)
				j--;
			if (j > 0 && (cps[j - 1] == 'i' || cps[j - 1] == 'j'))
				continue;
		}
		cps[w++] = cps[i];
	}
	r = utf8proc_reencode(cps, (utf8proc_ssize_t)w, COMPOSE_OPTS);
	if (r < 0) {
		((char *)cps)[0] = '\0';
		return 0;
	}
	return (size_t)r;
}

static inline size_t utf8_seqlen(uint8_t b)
{
	return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

/* Cut the folded word to max_len code points and MAX_WORD_LEN bytes. */
static void cut(const struct tokenizer *t, char *s, size_t len, struct word *w)
{
	size_t k = 0, nchars = 0;

	while (k < len) {
		size_t c = utf8_seqlen((uint8_t)s[k]);
		if ((long)nchars == t->max_len || k + c > MAX_WORD_LEN) {
			w->truncated = true;
			break;
		}
		k += c;
		nchars++;
	}
	s[k] = '\0';
	w->s = s;
	w->len = k;
	w->nchars = nchars;
}

/* The fast path, for the word at s[i] that starts with an ASCII letter or
 * digit: scan and fold it in one pass (ascii_word is 0 past ASCII) into out,
 * a tok_doc's scratch with room for max_len + 16 bytes, keeping max_len
 * bytes.  True with *end past the word if it is pure ASCII; false if a
 * non-ASCII character continues it (a letter, an accent, an ignorable),
 * which leaves the word to fold_word(). */
static inline bool ascii_word_fast(const struct tokenizer *t, char *out, const uint8_t *s,
				   size_t len, size_t i, size_t *end, struct word *w)
{
	size_t j = i, m, lim, max = (size_t)t->max_len;
	unsigned char c;
	enum cclass cls;
	int32_t cp;
	bool ends;

	lim = len - i > max ? i + max : len;
#ifdef __SSE2__
	/* 16 at a time while they lie before len: all 16 go to out (room for
	 * max + 16), the word ends at the first byte that is not a letter or
	 * digit; j may pass lim. */
	while (j < lim && j + 16 <= len) {
		__m128i folded;
		unsigned nonword = ~ascii_word_lanes(
			_mm_loadu_si128((const __m128i *)(const void *)(s + j)), &folded) & 0xFFFFu;

		_mm_storeu_si128((__m128i *)(void *)(out + (j - i)), folded);
		if (nonword) {
			j += (size_t)__builtin_ctz(nonword);
			break;
		}
		j += 16;
	}
#endif
	for (; j < lim && (c = ascii_word[s[j]]); j++)
		out[j - i] = (char)c;
	m = (j < lim ? j : lim) - i;
	while (j < len && ascii_word[s[j]])
		j++;
	ends = j == len || s[j] < 0x80;
	if (!ends) {
		/* A non-ASCII character after the letters sends the word down
		 * the general path only if it continues it. */
		decode(s + j, len - j, &cp);
		cls = cp < 0 ? C_SEP : classify(cp);
		ends = cls == C_SEP || cls == C_ONE || cls == C_VT;
	}
	if (!ends)
		return false;
	out[m] = '\0';
	w->truncated = j - i > max;
	w->s = out;
	w->len = w->nchars = m;
	w->one = false;
	*end = j;
	return true;
}

/* The general path, for the character at s[*ip]: collect the run it starts,
 * code point by code point folded and decomposed into cps (a tok_doc's
 * scratch of TOK_SCRATCH code points), then compose it and cut it to size.
 * Advances *ip past what it read (a separator, a stray mark or ignorable, or
 * the run); returns false when that left no word. */
static inline bool fold_word(const struct tokenizer *t, int32_t *cps, const uint8_t *s,
			     size_t len, size_t *ip, struct word *w)
{
	size_t i = *ip, step, n, nraw;
	enum cclass cls, kind;
	int32_t cp;
	bool raw_cut;

	step = decode(s + i, len - i, &cp);
	cls = cp < 0 ? C_SEP : classify(cp);
	if (cls == C_SEP || cls == C_IGN || cls == C_MARK) {
		/* A mark with no letter before it has nothing to stay with. */
		*ip = i + step;
		return false;
	}
	kind = cls == C_WORD ? C_WORD : C_ONE;
	w->one = kind == C_ONE;
	w->truncated = false;
	n = fold_cp(cp, cps, TOK_SCRATCH);
	nraw = 1;
	for (i += step; i < len; i += step) {
		size_t need;
		step = decode(s + i, len - i, &cp);
		cls = cp < 0 ? C_SEP : classify(cp);
		if (cls == C_IGN)
			continue;
		if (cls == C_SEP || cls == C_ONE || (cls == C_WORD && kind == C_ONE) ||
		    (cls == C_VT && kind == C_WORD))
			break;
		/* C_MARK, C_VT after a one-character letter, C_WORD in a word. */
		if (nraw >= TOK_MAX_RAW) {
			w->truncated = true;
			continue;
		}
		need = fold_cp(cp, cps + n, TOK_SCRATCH - n);
		if (need > TOK_SCRATCH - n) {
			/* Only pathological runs of marks get here; the word is
			 * cut anyway. */
			nraw = TOK_MAX_RAW;
			w->truncated = true;
			continue;
		}
		n += need;
		nraw++;
	}
	*ip = i;
	n = finish(cps, n);
	if (n == 0)
		return false;
	raw_cut = w->truncated;
	cut(t, (char *)cps, n, w);
	w->truncated = w->truncated || raw_cut;
	return true;
}

/* Find the next word of s[*ip..len), fold it into d's scratch and advance
 * *ip past it.  Returns false at the end of the text. */
static bool next_word(const struct tokenizer *t, struct tok_doc *d, const uint8_t *s, size_t len,
		      size_t *ip, struct word *w)
{
	size_t i = *ip;
	int32_t *cps = d->scratch;

	while (i < len) {
		if (s[i] < 0x80) {
			if (!ascii_word[s[i]]) {
				/* ASCII separators: skipped in one go. */
				do
					i++;
				while (i < len && s[i] < 0x80 && !ascii_word[s[i]]);
				continue;
			}
			if (ascii_word_fast(t, (char *)cps, s, len, i, ip, w))
				return true;
		}
		if (fold_word(t, cps, s, len, &i, w)) {
			*ip = i;
			return true;
		}
	}
	*ip = i;
	return false;
}

void tok_doc_reset(struct tok_doc *d)
{
	memset(d->next, 0, sizeof(d->next));
	d->tokens = d->indexed = 0;
}

struct tokenizer *tok_new(long min_len, long max_len)
{
	struct tokenizer *t = xcalloc(1, sizeof(*t));

	if (max_len > MAX_WORD_LEN)
		max_len = MAX_WORD_LEN;
	if (max_len < 1)
		max_len = 1;
	if (min_len > max_len)
		min_len = max_len;
	if (min_len < 1)
		min_len = 1;
	t->min_len = min_len;
	t->max_len = max_len;
	buf_init(&t->pool, (size_t)TOK_MAX_STOPWORDS * (MAX_WORD_LEN + 1));
	return t;
}

void tok_free(struct tokenizer *t)
{
	if (!t)
		return;
	buf_free(&t->pool);
	free(t->slots);
	free(t);
}

static bool lookup(const struct tokenizer *t, const char *s, size_t len)
{
	size_t mask, h;

	if (!t->count)
		return false;
	mask = t->nslots - 1;
	for (h = fnv1a32(s, len) & mask; t->slots[h]; h = (h + 1) & mask) {
		const char *p = t->pool.ptr + t->slots[h] - 1;
		if ((uint8_t)p[0] == len && !memcmp(p + 1, s, len))
			return true;
	}
	return false;
}

static void place(uint32_t *slots, size_t nslots, const char *pool, uint32_t off)
{
	size_t h = fnv1a32(pool + off + 1, (uint8_t)pool[off]) & (nslots - 1);

	while (slots[h])
		h = (h + 1) & (nslots - 1);
	slots[h] = off + 1;
}

/* Insert a folded word; 0, or -1 when the set is full. */
static int insert(struct tokenizer *t, const char *s, size_t len)
{
	uint32_t off;

	if (lookup(t, s, len))
		return 0;
	if (t->count >= TOK_MAX_STOPWORDS)
		return -1;
	/* Keep the load factor at most 1/2 so probes stay short. */
	if ((t->count + 1) * 2 > t->nslots) {
		size_t n = t->nslots ? t->nslots * 2 : 256;
		uint32_t *slots = xcalloc(n, sizeof(*slots));
		for (size_t i = 0; i < t->nslots; i++)
			if (t->slots[i])
				place(slots, n, t->pool.ptr, t->slots[i] - 1);
		free(t->slots);
		t->slots = slots;
		t->nslots = n;
	}
	off = (uint32_t)t->pool.len;
	if (buf_addc(&t->pool, (char)len) || buf_add(&t->pool, s, len)) {
		buf_truncate(&t->pool, off);
		return -1;
	}
	place(t->slots, t->nslots, t->pool.ptr, off);
	t->count++;
	return 0;
}

/* Fold s into exactly one word and add it; on failure *why says why. */
static int add_word(struct tokenizer *t, struct tok_doc *d, const char *s, size_t len,
		    const char **why)
{
	char word[MAX_WORD_LEN + 1];
	struct word w;
	size_t i = 0, wlen;

	if (!utf8_valid(s, len)) {
		*why = "invalid UTF-8";
		return -1;
	}
	if (!next_word(t, d, (const uint8_t *)s, len, &i, &w)) {
		*why = "no word in it";
		return -1;
	}
	if (w.truncated) {
		*why = "longer than MaxWordLength";
		return -1;
	}
	wlen = w.len;
	memcpy(word, w.s, wlen + 1);
	if (next_word(t, d, (const uint8_t *)s, len, &i, &w)) {
		*why = "not one word (the tokenizer splits it)";
		return -1;
	}
	if (insert(t, word, wlen)) {
		*why = "too many stopwords";
		return -1;
	}
	return 0;
}

int tok_add_stopword(struct tokenizer *t, const char *word, size_t len)
{
	struct tok_doc *d = xmalloc(sizeof(*d));
	const char *why;
	int rc = add_word(t, d, word, len, &why);

	free(d);
	return rc;
}

static int read_file(const char *path, struct buf *b)
{
	char chunk[8192];
	FILE *fp = fopen(path, "r");
	int rc = -1;
	size_t n;

	if (!fp)
		return error_errno("cannot open stopword file %s", path);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (buf_add(b, chunk, n)) {
			error("%s: larger than %ld bytes", path, (long)TOK_MAX_STOPFILE_BYTES);
			goto out;
		}
	}
	if (ferror(fp)) {
		error_errno("%s: read error", path);
		goto out;
	}
	rc = 0;
out:
	fclose(fp);
	return rc;
}

int tok_load_stopwords(struct tokenizer *t, const char *path)
{
	struct buf file = BUF_INIT(TOK_MAX_STOPFILE_BYTES);
	struct tok_doc *d = xmalloc(sizeof(*d));
	const char *p, *end;
	int lineno = 0, rc = -1;

	if (read_file(path, &file))
		goto out;
	p = buf_str(&file);
	end = p + file.len;
	if (file.len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *hash_mark, *why;

		lineno++;
		hash_mark = memchr(p, '#', (size_t)(e - p));
		if (hash_mark)
			e = hash_mark;
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (p < e && add_word(t, d, p, (size_t)(e - p), &why)) {
			error("%s:%d: \"%.*s\": %s", path, lineno, (int)(e - p), p, why);
			goto out;
		}
		p = nl ? nl + 1 : end;
	}
	rc = 0;
out:
	free(d);
	buf_free(&file);
	return rc;
}

bool tok_is_stopword(const struct tokenizer *t, const char *folded)
{
	return lookup(t, folded, strlen(folded));
}

size_t tok_stopword_count(const struct tokenizer *t)
{
	return t->count;
}

int tok_run(const struct tokenizer *t, struct tok_doc *d, int section, const char *utf8,
	    size_t len, tok_emit_fn emit, void *arg)
{
	struct word w;
	size_t i = 0;

	if (section < 0 || section >= TOK_SECTIONS)
		return error("tok_run: section %d out of range", section);
	while (next_word(t, d, (const uint8_t *)utf8, len, &i, &w)) {
		uint32_t p = d->next[section];
		bool stop = (!w.one && (long)w.nchars < t->min_len) || lookup(t, w.s, w.len);

		if (p < UINT32_MAX)
			d->next[section] = p + 1;
		d->tokens++;
		if (!stop)
			d->indexed++;
		if (emit) {
			int rc = emit(w.s, w.len, tok_pos_encode(section, p), stop, arg);
			if (rc)
				return rc;
		}
	}
	return 0;
}

int tok_fold(const char *in, size_t len, struct buf *out)
{
	const uint8_t *s = (const uint8_t *)in;
	size_t cap = len + 16, n = 0, i = 0, blen;
	int32_t *cps = xmalloc((cap + 1) * sizeof(*cps));
	int rc = -1;

	while (i < len) {
		int32_t cp;
		size_t need;

		i += decode(s + i, len - i, &cp);
		if (cp < 0)
			goto out;
		if (cp >= 0x80 && utf8proc_get_property(cp)->ignorable)
			continue;
		need = fold_cp(cp, cps + n, cap - n);
		if (need > cap - n) {
			cap = 2 * cap + need;
			cps = xrealloc(cps, (cap + 1) * sizeof(*cps));
			fold_cp(cp, cps + n, cap - n);
		}
		n += need;
	}
	blen = finish(cps, n);
	rc = buf_add(out, cps, blen);
out:
	free(cps);
	return rc;
}
