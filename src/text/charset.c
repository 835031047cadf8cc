/* charset.c - charset labels, detection and conversion to UTF-8 (see charset.h).
 *
 * Owns the WHATWG label table, the detection order, the glibc iconv loop that
 * turns undecodable bytes into U+FFFD, and the UTF-8 sanitiser that every
 * converted byte passes through.  HTML proper is html.c's business.
 */
#include "config.h"

#include <errno.h>
#include <iconv.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <uchardet.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "util.h"

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* One decodable encoding: its canonical (WHATWG) name, the glibc iconv name
 * of a converter that decodes it as browsers do, its code unit size (how
 * many bytes to skip after an undecodable one: a UTF-16 unit must not be
 * split, or everything after would be misaligned), and its labels, space
 * separated, lowercase.  The labels are the WHATWG Encoding Standard's
 * (https://encoding.spec.whatwg.org/#names-and-labels) plus a few aliases
 * seen in the wild (ASPseek FAQ: cp-1251, 1251) and the names libuchardet
 * returns.  WHATWG decodes GBK with the gb18030 decoder, Shift_JIS as
 * windows-31j, EUC-KR as windows-949 and Big5 as Big5-HKSCS: the iconv names
 * follow that. */
struct encoding {
	const char *name;
	const char *iconv;
	unsigned char unit;
	const char *labels;
};

static const struct encoding encodings[] = {
	{ "UTF-8", "UTF-8", 1,
	  "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8" },
	{ "windows-1252", "CP1252", 1,
	  "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 "
	  "iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 "
	  "x-cp1252 win1252 1252" },
	{ "IBM866", "IBM866", 1, "866 cp866 csibm866 ibm866" },
	{ "ISO-8859-2", "ISO-8859-2", 1,
	  "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 "
	  "iso_8859-2:1987 l2 latin2" },
	{ "ISO-8859-3", "ISO-8859-3", 1,
	  "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 "
	  "iso_8859-3:1988 l3 latin3" },
	{ "ISO-8859-4", "ISO-8859-4", 1,
	  "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 "
	  "iso_8859-4:1988 l4 latin4" },
	{ "ISO-8859-5", "ISO-8859-5", 1,
	  "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 "
	  "iso_8859-5 iso_8859-5:1988" },
	{ "ISO-8859-6", "ISO-8859-6", 1,
	  "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 "
	  "iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 "
	  "iso_8859-6:1987" },
	{ "ISO-8859-7", "ISO-8859-7", 1,
	  "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 "
	  "iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek" },
	/* "visual" is a WHATWG label of ISO-8859-8 (visual-order Hebrew). */
	{ "ISO-8859-8", "ISO-8859-8", 1,
	  "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 "
	  "iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual" },
	/* Same bytes as ISO-8859-8, logical order; detectors return this name
	 * (apache/stormcrawler#438), so it must be known. */
	{ "ISO-8859-8-I", "ISO-8859-8", 1, "csiso88598i iso-8859-8-i logical" },
	{ "ISO-8859-10", "ISO-8859-10", 1,
	  "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6" },
	{ "ISO-8859-13", "ISO-8859-13", 1, "iso-8859-13 iso8859-13 iso885913" },
	{ "ISO-8859-14", "ISO-8859-14", 1, "iso-8859-14 iso8859-14 iso885914" },
	{ "ISO-8859-15", "ISO-8859-15", 1,
	  "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9" },
	{ "ISO-8859-16", "ISO-8859-16", 1, "iso-8859-16" },
	{ "KOI8-R", "KOI8-R", 1, "cskoi8r koi koi8 koi8-r koi8_r" },
	{ "KOI8-U", "KOI8-U", 1, "koi8-ru koi8-u" },
	{ "macintosh", "MACINTOSH", 1, "csmacintosh mac macintosh x-mac-roman" },
	{ "windows-874", "CP874", 1,
	  "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874" },
	{ "windows-1250", "CP1250", 1, "cp1250 windows-1250 x-cp1250 win1250 1250" },
	{ "windows-1251", "CP1251", 1, "cp1251 windows-1251 x-cp1251 win1251 1251" },
	{ "windows-1253", "CP1253", 1, "cp1253 windows-1253 x-cp1253 win1253 1253" },
	{ "windows-1254", "CP1254", 1,
	  "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 "
	  "iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254 win1254 1254" },
	{ "windows-1255", "CP1255", 1, "cp1255 windows-1255 x-cp1255 win1255 1255" },
	{ "windows-1256", "CP1256", 1, "cp1256 windows-1256 x-cp1256 win1256 1256" },
	{ "windows-1257", "CP1257", 1, "cp1257 windows-1257 x-cp1257 win1257 1257" },
	{ "windows-1258", "CP1258", 1, "cp1258 windows-1258 x-cp1258 win1258 1258" },
	{ "x-mac-cyrillic", "MAC-CYRILLIC", 1, "x-mac-cyrillic x-mac-ukrainian mac-cyrillic" },
	{ "GBK", "GB18030", 1,
	  "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk" },
	{ "gb18030", "GB18030", 1, "gb18030" },
	{ "Big5", "BIG5-HKSCS", 1, "big5 big5-hkscs cn-big5 csbig5 x-x-big5" },
	{ "EUC-JP", "EUC-JP", 1, "cseucpkdfmtjapanese euc-jp x-euc-jp" },
	{ "ISO-2022-JP", "ISO-2022-JP", 1, "csiso2022jp iso-2022-jp" },
	{ "Shift_JIS", "CP932", 1,
	  "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis" },
	{ "EUC-KR", "CP949", 1,
	  "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 "
	  "ksc5601 ksc_5601 windows-949 uhc cp949" },
	{ "UTF-16BE", "UTF-16BE", 2, "unicodefffe utf-16be" },
	{ "UTF-16LE", "UTF-16LE", 2,
	  "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le" },
	/* Not WHATWG encodings, but libuchardet can name them and glibc
	 * decodes them: better than throwing the detector's answer away. */
	{ "UTF-32LE", "UTF-32LE", 4, "utf-32 utf-32le" },
	{ "UTF-32BE", "UTF-32BE", 4, "utf-32be" },
	{ "IBM852", "IBM852", 1, "ibm852 cp852 852" },
	{ "EUC-TW", "EUC-TW", 1, "euc-tw" },
	{ "VISCII", "VISCII", 1, "viscii" },
	{ "x-mac-ce", "MAC-CENTRALEUROPE", 1, "x-mac-ce mac-centraleurope" },
};

#define ENC_UTF8 (&encodings[0])
#define ENC_1252 (&encodings[1])

/* Compare a label with a space-separated list; loose drops the punctuation
 * that label spellings disagree on ("windows1251", "UTF_8", "Latin-1"). */
static bool is_punct(int c)
{
	return c == '-' || c == '_' || c == '.' || c == ':' || c == ' ';
}

static bool list_has(const char *list, const char *label, bool loose)
{
	const char *p = list;

	while (*p) {
		const char *w = p, *l = label;
		size_t n = strcspn(p, " ");

		for (;;) {
			if (loose) {
				while (w < p + n && is_punct((unsigned char)*w))
					w++;
				while (*l && is_punct((unsigned char)*l))
					l++;
			}
			if (w == p + n || !*l || *w != *l)
				break;
			w++;
			l++;
		}
		if (w == p + n && !*l)
			return true;
		p += n;
		while (*p == ' ')
			p++;
	}
	return false;
}

static const struct encoding *find_label(const char *label, size_t len)
{
	char low[48];
	size_t i, n = 0;

	while (len && (unsigned char)*label <= ' ') {
		label++;
		len--;
	}
	while (len && (unsigned char)label[len - 1] <= ' ')
		len--;
	if (!len || len >= sizeof(low))
		return NULL;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)label[i];
		if (!c)
			return NULL;
		low[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	low[n] = '\0';
	for (i = 0; i < ARRAY_SIZE(encodings); i++)
		if (list_has(encodings[i].labels, low, false))
			return &encodings[i];
	for (i = 0; i < ARRAY_SIZE(encodings); i++)
		if (list_has(encodings[i].labels, low, true))
			return &encodings[i];
	return NULL;
}

static const struct encoding *find_name(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(encodings); i++)
		if (!strcmp(encodings[i].name, name))
			return &encodings[i];
	return NULL;
}

const char *charset_canonical(const char *label, size_t len)
{
	const struct encoding *e = label ? find_label(label, len) : NULL;
	return e ? e->name : NULL;
}

const char *charset_source_name(enum charset_source src)
{
	switch (src) {
	case CHARSET_SRC_BOM: return "bom";
	case CHARSET_SRC_HEADER: return "header";
	case CHARSET_SRC_META: return "meta";
	case CHARSET_SRC_DETECTOR: return "detector";
	case CHARSET_SRC_DEFAULT: return "default";
	case CHARSET_SRC_FALLBACK: return "fallback";
	}
	return "?";
}

/* --- UTF-8 ---------------------------------------------------------------- */

size_t utf8_cut(const char *s, size_t len, size_t max)
{
	size_t n, k;

	if (len <= max)
		return len;
	/* s[max] is the first byte left out: if it continues a sequence, back
	 * up to that sequence's lead byte (at most 3 steps in valid UTF-8). */
	for (n = max, k = 0; n > 0 && k < 3 && ((unsigned char)s[n] & 0xC0) == 0x80; k++)
		n--;
	if (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		return max; /* not UTF-8 anyway: cut where asked */
	return n;
}

/* Append, or append the longest prefix that fits on a character boundary. */
static int add_capped(struct buf *out, const char *s, size_t n)
{
	size_t room;

	if (!buf_add(out, s, n))
		return 0;
	room = out->max > out->len ? out->max - out->len : 0;
	(void)buf_add(out, s, utf8_cut(s, n, room));
	return -1;
}

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 with *bad set
 * to the length of its maximal invalid subpart (WHATWG UTF-8 decoder:
 * "bytes needed" and the lower/upper boundaries). */
static size_t utf8_seq(const unsigned char *s, size_t len, size_t *bad)
{
	unsigned char b = s[0], lo = 0x80, hi = 0xBF;
	size_t need, i;

	if (b < 0x80)
		return 1;
	if (b >= 0xC2 && b <= 0xDF)
		need = 1;
	else if (b >= 0xE0 && b <= 0xEF) {
		need = 2;
		if (b == 0xE0)
			lo = 0xA0; /* overlong */
		else if (b == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (b >= 0xF0 && b <= 0xF4) {
		need = 3;
		if (b == 0xF0)
			lo = 0x90; /* overlong */
		else if (b == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		*bad = 1;
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= len || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

/* The number of bytes at p[0..n) before the first one that is not ASCII
 * (or is NUL, with stop_at_nul): sixteen at a time with SSE2 (x86-64 has
 * it), else eight, the rest one by one.  The scans below spend most of
 * their time in ASCII markup. */
static size_t ascii_run(const unsigned char *p, size_t n, bool stop_at_nul)
{
	const uint64_t hi = 0x8080808080808080ull, ones = 0x0101010101010101ull;
	size_t i = 0;

#ifdef __SSE2__
	const __m128i zero = _mm_setzero_si128();

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		/* The high bits, and with stop_at_nul the zero bytes. */
		unsigned m = (unsigned)_mm_movemask_epi8(v);

		if (stop_at_nul)
			m |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		/* A high bit set, or (the classic test) a zero byte. */
		if ((w & hi) || (stop_at_nul && ((w - ones) & ~w & hi)))
			break;
	}
	while (i < n && p[i] < 0x80 && (p[i] || !stop_at_nul))
		i++;
	return i;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, bad;

	while (i < len) {
		size_t n;
		if (p[i] < 0x80 && p[i]) {
			i += ascii_run(p + i, len - i, true);
			continue;
		}
		n = p[i] ? utf8_seq(p + i, len - i, &bad) : 0;
		if (!n)
			return false;
		i += n;
	}
	return true;
}

int utf8_sanitize(const char *in, size_t len, struct buf *out, size_t *replaced)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0, run = 0, bad, nrep = 0;
	int rc = 0;

	while (i < len) {
		size_t n;
		if (p[i] >= 0x01 && p[i] < 0x80) {
			i += ascii_run(p + i, len - i, true);
			continue;
		}
		n = p[i] ? utf8_seq(p + i, len - i, &bad) : (bad = 1, 0);
		if (n) {
			i += n;
			continue;
		}
		/* Flush the good run, then one U+FFFD for the bad subpart. */
		if (add_capped(out, in + run, i - run) || add_capped(out, REPLACEMENT, 3)) {
			rc = -1;
			goto out;
		}
		nrep++;
		i += bad;
		run = i;
	}
	if (add_capped(out, in + run, i - run))
		rc = -1;
out:
	if (replaced)
		*replaced += nrep;
	return rc;
}

/* A UTF-8 claim is believed unless the bytes contradict it: any invalid
 * sequence in pure-ASCII-plus-garbage text, or more than one invalid
 * sequence per 8 valid multibyte ones (a stray byte in a real UTF-8 page
 * should not turn the whole page into mojibake).  A sequence cut by the
 * sampling cap does not count. */
static bool utf8_plausible(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, multi = 0, invalid = 0, bad;

	while (i < len) {
		size_t n;
		if (p[i] < 0x80) {
			i += ascii_run(p + i, len - i, false);
			continue;
		}
		n = utf8_seq(p + i, len - i, &bad);
		if (n) {
			multi++;
			i += n;
			continue;
		}
		if (i + bad >= len)
			break;
		invalid++;
		i += bad;
	}
	return invalid == 0 || multi >= 8 * invalid;
}

/* --- labels inside headers and <meta> -------------------------------------- */

static bool is_ws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static void copy_label(const char *s, size_t n, char *out, size_t outsz)
{
	if (!outsz)
		return;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* WHATWG "algorithm for extracting a character encoding from a meta
 * element", also good for a Content-Type header: find "charset", optional
 * spaces, "=", optional spaces, then a quoted or bare value.  An unmatched
 * quote yields nothing (that is what browsers do). */
static int extract_charset(const char *s, size_t len, char *out, size_t outsz)
{
	size_t pos = 0;

	if (outsz)
		out[0] = '\0';
	for (;;) {
		size_t start;
		while (pos + 7 <= len && ascii_ncasecmp(s + pos, "charset", 7))
			pos++;
		if (pos + 7 > len)
			return -1;
		pos += 7;
		while (pos < len && is_ws((unsigned char)s[pos]))
			pos++;
		if (pos >= len || s[pos] != '=')
			continue;
		pos++;
		while (pos < len && is_ws((unsigned char)s[pos]))
			pos++;
		if (pos >= len)
			return -1;
		if (s[pos] == '"' || s[pos] == '\'') {
			const char *q = memchr(s + pos + 1, s[pos], len - pos - 1);
			if (!q || q == s + pos + 1)
				return -1;
			copy_label(s + pos + 1, (size_t)(q - s - pos - 1), out, outsz);
			return 0;
		}
		start = pos;
		while (pos < len && !is_ws((unsigned char)s[pos]) && s[pos] != ';' && s[pos] != ',')
			pos++;
		if (pos == start)
			return -1;
		copy_label(s + start, pos - start, out, outsz);
		return 0;
	}
}

int charset_from_content_type(const char *ctype, char *out, size_t outsz)
{
	if (!ctype) {
		if (outsz)
			out[0] = '\0';
		return -1;
	}
	return extract_charset(ctype, strlen(ctype), out, outsz);
}

/* --- the HTML5 prescan ------------------------------------------------------ */

struct attr {
	char name[16];
	char value[128];
};

static void attr_put(char *dst, size_t dstsz, size_t *n, unsigned char c)
{
	if (*n + 1 < dstsz) {
		dst[(*n)++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		dst[*n] = '\0';
	}
}

/* WHATWG "get an attribute": 1 with a->name/value filled (lowercased, cut
 * to their buffers), 0 at '>' or at the end. */
static int get_attr(const char *s, size_t end, size_t *posp, struct attr *a)
{
	size_t pos = *posp, nn = 0, nv = 0;
	unsigned char c;

	a->name[0] = a->value[0] = '\0';
	while (pos < end && (is_ws((unsigned char)s[pos]) || s[pos] == '/'))
		pos++;
	if (pos >= end || s[pos] == '>')
		goto none;
	/* Name: a leading '=' is part of it. */
	if (s[pos] == '=') {
		attr_put(a->name, sizeof(a->name), &nn, '=');
		pos++;
	}
	for (;;) {
		if (pos >= end)
			goto none;
		c = (unsigned char)s[pos];
		if (c == '=' && nn) {
			pos++;
			goto value;
		}
		if (is_ws(c))
			break;
		if (c == '/' || c == '>')
			goto done;
		attr_put(a->name, sizeof(a->name), &nn, c);
		pos++;
	}
	while (pos < end && is_ws((unsigned char)s[pos]))
		pos++;
	if (pos >= end || s[pos] != '=')
		goto done;
	pos++;
value:
	while (pos < end && is_ws((unsigned char)s[pos]))
		pos++;
	if (pos >= end)
		goto none;
	c = (unsigned char)s[pos];
	if (c == '"' || c == '\'') {
		unsigned char q = c;
		for (pos++; pos < end; pos++) {
			if ((unsigned char)s[pos] == q) {
				pos++;
				goto done;
			}
			attr_put(a->value, sizeof(a->value), &nv, (unsigned char)s[pos]);
		}
		goto none;
	}
	if (c == '>')
		goto done;
	while (pos < end && !is_ws((unsigned char)s[pos]) && s[pos] != '>')
		attr_put(a->value, sizeof(a->value), &nv, (unsigned char)s[pos++]);
	if (pos >= end)
		goto none;
done:
	*posp = pos;
	return 1;
none:
	*posp = pos;
	return 0;
}

/* A label from one <meta>: "charset" wins; a Content-Type pragma only
 * counts with http-equiv=content-type (a "charset=" inside a description
 * is not a declaration).  1 if found, with the label in out. */
static int meta_label(const char *s, size_t end, size_t *pos, char *out, size_t outsz)
{
	struct attr a;
	bool got_pragma = false, seen_he = false, seen_content = false, seen_charset = false;
	int need_pragma = -1; /* -1 null, 0 false, 1 true (WHATWG) */

	out[0] = '\0';
	while (get_attr(s, end, pos, &a)) {
		if (!strcmp(a.name, "http-equiv") && !seen_he) {
			seen_he = true;
			if (!strcmp(a.value, "content-type"))
				got_pragma = true;
		} else if (!strcmp(a.name, "content") && !seen_content) {
			seen_content = true;
			if (!out[0] && !extract_charset(a.value, strlen(a.value), out, outsz))
				need_pragma = 1;
		} else if (!strcmp(a.name, "charset") && !seen_charset) {
			seen_charset = true;
			copy_label(a.value, strlen(a.value), out, outsz);
			/* <meta charset="text/html; charset=utf-8"> (nokogiri#1340). */
			if (!find_label(out, strlen(out)) && strstr(a.value, "charset"))
				(void)extract_charset(a.value, strlen(a.value), out, outsz);
			need_pragma = 0;
		}
	}
	if (need_pragma < 0 || (need_pragma == 1 && !got_pragma) || !out[0])
		return 0;
	return 1;
}

/* The prescan proper: the first label that names a known encoding goes to
 * out; the first one that does not goes to unknown (for the log). */
static int prescan(const char *s, size_t len, char *out, size_t outsz, char *unknown,
		   size_t unknownsz)
{
	size_t end = len < MAX_CHARSET_PRESCAN ? len : MAX_CHARSET_PRESCAN, pos = 0;
	char label[128];
	struct attr a;

	if (unknownsz)
		unknown[0] = '\0';
	while (pos < end) {
		if (end - pos >= 4 && !memcmp(s + pos, "<!--", 4)) {
			/* The "--" of "<!--" may end it too: "<!-->" is a comment. */
			const char *q = memmem(s + pos + 2, end - pos - 2, "-->", 3);
			if (!q)
				break;
			pos = (size_t)(q - s) + 3;
			continue;
		}
		if (end - pos >= 6 && !ascii_ncasecmp(s + pos, "<meta", 5) &&
		    (is_ws((unsigned char)s[pos + 5]) || s[pos + 5] == '/')) {
			pos += 6;
			if (meta_label(s, end, &pos, label, sizeof(label))) {
				if (find_label(label, strlen(label))) {
					copy_label(label, strlen(label), out, outsz);
					return 0;
				}
				if (unknownsz && !unknown[0])
					copy_label(label, strlen(label), unknown, unknownsz);
			}
		} else if (end - pos >= 2 && s[pos] == '<' &&
			   (((s[pos + 1] | 32) >= 'a' && (s[pos + 1] | 32) <= 'z') ||
			    (s[pos + 1] == '/' && end - pos >= 3 && (s[pos + 2] | 32) >= 'a' &&
			     (s[pos + 2] | 32) <= 'z'))) {
			while (pos < end && !is_ws((unsigned char)s[pos]) && s[pos] != '>')
				pos++;
			while (get_attr(s, end, &pos, &a))
				;
		} else if (end - pos >= 2 && s[pos] == '<' &&
			   (s[pos + 1] == '!' || s[pos + 1] == '/' || s[pos + 1] == '?')) {
			const char *q = memchr(s + pos, '>', end - pos);
			if (!q)
				break;
			pos = (size_t)(q - s);
		}
		pos++;
	}
	return -1;
}

int charset_prescan(const char *in, size_t len, char *out, size_t outsz)
{
	if (outsz)
		out[0] = '\0';
	return prescan(in, len, out, outsz, NULL, 0);
}

/* --- detection ------------------------------------------------------------- */

static void note(struct charset_info *info, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct charset_info *info, const char *fmt, ...)
{
	size_t n = strlen(info->note);
	va_list ap;

	if (n && n + 2 < sizeof(info->note)) {
		memcpy(info->note + n, "; ", 3);
		n += 2;
	}
	if (n + 1 >= sizeof(info->note))
		return;
	va_start(ap, fmt);
	vsnprintf(info->note + n, sizeof(info->note) - n, fmt, ap);
	va_end(ap);
}

/* Labels quoted in notes come from the network: keep them short and
 * printable so a log line stays one line. */
static const char *printable(const char *s, char *tmp, size_t tmpsz)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < tmpsz && i < 32; i++)
		tmp[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7F ? s[i] : '?';
	tmp[i] = '\0';
	return tmp;
}

static const struct encoding *detect_bom(const unsigned char *p, size_t len, size_t *bom)
{
	if (len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
		*bom = 3;
		return ENC_UTF8;
	}
	/* UTF-32LE before UTF-16LE: its BOM starts with the UTF-16LE one. */
	if (len >= 4 && p[0] == 0xFF && p[1] == 0xFE && p[2] == 0 && p[3] == 0) {
		*bom = 4;
		return find_name("UTF-32LE");
	}
	if (len >= 4 && p[0] == 0 && p[1] == 0 && p[2] == 0xFE && p[3] == 0xFF) {
		*bom = 4;
		return find_name("UTF-32BE");
	}
	if (len >= 2 && p[0] == 0xFE && p[1] == 0xFF) {
		*bom = 2;
		return find_name("UTF-16BE");
	}
	if (len >= 2 && p[0] == 0xFF && p[1] == 0xFE) {
		*bom = 2;
		return find_name("UTF-16LE");
	}
	return NULL;
}

/* libuchardet on a bounded prefix.  "ASCII" and "" decide nothing. */
static const struct encoding *run_detector(const char *in, size_t len, struct charset_info *info)
{
	const struct encoding *e = NULL;
	uchardet_t ud = uchardet_new();
	const char *name;
	char tmp[40];

	if (!ud)
		return NULL;
	if (uchardet_handle_data(ud, in, len < MAX_CHARSET_DETECT ? len : MAX_CHARSET_DETECT))
		goto out;
	uchardet_data_end(ud);
	name = uchardet_get_charset(ud);
	if (!name || !*name || !ascii_casecmp(name, "ASCII"))
		goto out;
	e = find_label(name, strlen(name));
	if (!e)
		note(info, "detector answer '%s' not decodable", printable(name, tmp, sizeof(tmp)));
out:
	uchardet_delete(ud);
	return e;
}

/* A label claiming a wide encoding for bytes without a single NUL in the
 * first KiB is wrong: ASCII markup in UTF-16 is half NULs. */
static bool wide_plausible(const char *in, size_t len)
{
	return memchr(in, 0, len < 1024 ? len : 1024) != NULL;
}

static void set_result(struct charset_info *info, const struct encoding *e,
		       enum charset_source src)
{
	strlcpy_(info->name, e->name, sizeof(info->name));
	info->source = src;
}

void charset_detect(const char *in, size_t len, const char *http_charset,
		    const char *default_charset, int flags, struct charset_info *info)
{
	const struct encoding *bom, *h = NULL, *m = NULL, *d;
	size_t sample;
	char label[128], unknown[128], tmp[40];

	memset(info, 0, sizeof(*info));
	if (!in) {
		in = "";
		len = 0;
	}
	sample = len < MAX_CHARSET_DETECT ? len : MAX_CHARSET_DETECT;
	if (http_charset && *http_charset) {
		const char *lab = http_charset;
		/* A whole Content-Type value, or just the label. */
		if (strpbrk(http_charset, ";/=")) {
			lab = extract_charset(http_charset, strlen(http_charset), label,
					      sizeof(label)) ? "" : label;
		}
		if (*lab && !(h = find_label(lab, strlen(lab))))
			note(info, "header label '%s' unknown", printable(lab, tmp, sizeof(tmp)));
	}

	/* A BOM is part of the bytes and cannot be a server-wide default, so it
	 * beats the header (the WHATWG Encoding Standard's "decode"). */
	bom = detect_bom((const unsigned char *)in, len, &info->bom_len);
	if (bom) {
		if (h && h != bom)
			note(info, "BOM overrides header %s", h->name);
		set_result(info, bom, CHARSET_SRC_BOM);
		return;
	}

	if (h == ENC_UTF8 && !utf8_plausible(in, sample)) {
		note(info, "header says UTF-8 but the bytes are not");
		h = NULL;
	} else if (h && h->unit > 1 && !wide_plausible(in, len)) {
		note(info, "header says %s but there are no NUL bytes", h->name);
		h = NULL;
	}

	if (!(flags & CHARSET_NO_META) &&
	    !prescan(in, len, label, sizeof(label), unknown, sizeof(unknown))) {
		m = find_label(label, strlen(label));
		/* The prescan read ASCII markup, so the bytes are not UTF-16:
		 * WHATWG turns a UTF-16 meta into UTF-8 (internetarchive/wayback#47). */
		if (m && m->unit > 1) {
			note(info, "meta %s on ASCII-compatible bytes read as UTF-8", m->name);
			m = ENC_UTF8;
		}
		if (m == ENC_UTF8 && !utf8_plausible(in, sample)) {
			note(info, "meta says UTF-8 but the bytes are not");
			m = NULL;
		}
	} else if (!(flags & CHARSET_NO_META) && unknown[0]) {
		note(info, "meta label '%s' unknown", printable(unknown, tmp, sizeof(tmp)));
	}

	if (h && m && h != m) {
		/* Servers send one header for a whole site; pages say what they
		 * are.  Believe the header unless the detector sides with the meta. */
		d = run_detector(in, len, info);
		if (d == m) {
			note(info, "header %s overruled: meta and detector say %s", h->name,
			     m->name);
			set_result(info, m, CHARSET_SRC_META);
		} else {
			note(info, "meta %s ignored: header says %s", m->name, h->name);
			set_result(info, h, CHARSET_SRC_HEADER);
		}
		return;
	}
	if (h) {
		set_result(info, h, CHARSET_SRC_HEADER);
		return;
	}
	if (m) {
		set_result(info, m, CHARSET_SRC_META);
		return;
	}
	d = run_detector(in, len, info);
	if (d) {
		set_result(info, d, CHARSET_SRC_DETECTOR);
		return;
	}
	if (default_charset && *default_charset) {
		const struct encoding *e = find_label(default_charset, strlen(default_charset));
		if (e) {
			set_result(info, e, CHARSET_SRC_DEFAULT);
			return;
		}
		note(info, "default charset '%s' unknown",
		     printable(default_charset, tmp, sizeof(tmp)));
	}
	set_result(info, ENC_1252, CHARSET_SRC_FALLBACK);
}

/* --- conversion ------------------------------------------------------------ */

int charset_convert(const char *in, size_t len, struct charset_info *info, struct buf *out)
{
	const struct encoding *e = find_name(info->name);
	char tmp[8192], *ip;
	size_t left;
	iconv_t cd;
	int rc = 0;

	if (!e)
		e = find_label(info->name, strlen(info->name));
	if (!e)
		return -1;
	if (!in) {
		in = "";
		len = 0;
	}
	if (info->bom_len > len)
		info->bom_len = len;
	ip = (char *)in + info->bom_len;
	left = len - info->bom_len;
	if (e == ENC_UTF8) {
		if (utf8_sanitize(ip, left, out, &info->replaced))
			info->truncated = true;
		return 0;
	}
	cd = iconv_open("UTF-8", e->iconv);
	if (cd == (iconv_t)-1)
		return -1;
	while (left > 0) {
		char *op = tmp;
		size_t ol = sizeof(tmp), r, skip;
		int err;

		r = iconv(cd, &ip, &left, &op, &ol);
		err = errno;
		/* iconv writes whole characters; the sanitiser still checks
		 * them, and turns U+0000 into U+FFFD. */
		if (utf8_sanitize(tmp, (size_t)(op - tmp), out, &info->replaced))
			goto full;
		if (r != (size_t)-1 || err == E2BIG)
			continue;
		/* EILSEQ: skip one code unit; EINVAL: a sequence cut by the end
		 * of the input; anything else: treat like EILSEQ. */
		skip = err == EINVAL ? left : (left < e->unit ? left : e->unit);
		ip += skip;
		left -= skip;
		info->replaced++;
		if (add_capped(out, REPLACEMENT, 3))
			goto full;
	}
	{
		/* Flush a stateful decoder (ISO-2022-JP). */
		char *op = tmp;
		size_t ol = sizeof(tmp);
		(void)iconv(cd, NULL, NULL, &op, &ol);
		if (utf8_sanitize(tmp, (size_t)(op - tmp), out, &info->replaced))
			goto full;
	}
	goto out;
full:
	info->truncated = true;
out:
	iconv_close(cd);
	return rc;
}

int charset_to_utf8(const char *in, size_t len, const char *http_charset,
		    const char *default_charset, int flags, struct buf *out,
		    struct charset_info *info)
{
	charset_detect(in, len, http_charset, default_charset, flags, info);
	if (!charset_convert(in, len, info, out))
		return 0;
	note(info, "no converter for %s, read as windows-1252", info->name);
	set_result(info, ENC_1252, CHARSET_SRC_FALLBACK);
	return charset_convert(in, len, info, out);
}
