/* charset.h - which charset a document is in, and its conversion to UTF-8.
 *
 * Owns label normalisation (WHATWG Encoding labels plus a few aliases),
 * detection (BOM, HTTP header, <meta> prescan, libuchardet, defaults), the
 * iconv conversion with U+FFFD for undecodable bytes, and the UTF-8
 * sanitiser.  It does not parse HTML beyond the <meta> prescan: that is
 * html.c, which takes the UTF-8 produced here.
 */
#ifndef MPSEEK_CHARSET_H
#define MPSEEK_CHARSET_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* How the charset was decided, in the order the rules are tried. */
enum charset_source {
	CHARSET_SRC_BOM,      /* byte order mark at the start of the body */
	CHARSET_SRC_HEADER,   /* HTTP Content-Type charset parameter */
	CHARSET_SRC_META,     /* <meta charset> / http-equiv Content-Type prescan */
	CHARSET_SRC_DETECTOR, /* libuchardet on the first MAX_CHARSET_DETECT bytes */
	CHARSET_SRC_DEFAULT,  /* the configured Charset directive */
	CHARSET_SRC_FALLBACK, /* nothing else applied: windows-1252 */
};

#define CHARSET_NAME_MAX 24
#define CHARSET_NOTE_MAX 160

struct charset_info {
	/* Canonical name (WHATWG spelling, e.g. "UTF-8", "windows-1251",
	 * "Shift_JIS"): what urlwordsNN.charset stores. */
	char name[CHARSET_NAME_MAX];
	enum charset_source source;
	size_t bom_len;   /* bytes of BOM skipped by the conversion */
	size_t replaced;  /* U+FFFD written for undecodable input */
	bool truncated;   /* the output hit its buffer's ceiling */
	/* Why a label was passed over ("header label 'visual2' unknown; ..."),
	 * for the log; "" when every rule tried agreed or was absent. */
	char note[CHARSET_NOTE_MAX];
};

/* charset_detect() / charset_to_utf8() flags. */
#define CHARSET_NO_META 1 /* not HTML: skip the <meta> prescan */

/* The canonical name for a charset label (ASCII case-insensitive, leading
 * and trailing whitespace ignored), or NULL if the label is unknown or names
 * an encoding we do not decode (WHATWG "replacement", x-user-defined).
 * Returns a static string. */
const char *charset_canonical(const char *label, size_t len);

/* "bom", "header", "meta", "detector", "default", "fallback". */
const char *charset_source_name(enum charset_source src);

/* Find the charset parameter of a Content-Type value such as
 * `text/html; Charset="utf-8"` and copy the bare label to out (NUL-terminated,
 * cut to outsz-1). Returns 0, or -1 if there is none (out is then ""). */
int charset_from_content_type(const char *ctype, char *out, size_t outsz);

/* The HTML5 prescan (WHATWG "prescan a byte stream to determine its
 * encoding", tolerant): look in the first MAX_CHARSET_PRESCAN bytes for
 * <meta charset=…> or <meta http-equiv=Content-Type content="…charset=…">
 * and copy the raw label found to out. Returns 0, or -1 if none. */
int charset_prescan(const char *in, size_t len, char *out, size_t outsz);

/* Decide the charset of a document and fill info (name, source, note, bom_len).
 * http_charset is the Content-Type header value or just its charset label
 * (NULL if none); default_charset is the configured Charset (NULL if none).
 * Order: BOM; header; <meta> prescan (unless CHARSET_NO_META); libuchardet;
 * default; windows-1252.  A UTF-8 claim (header or meta) that the bytes
 * contradict is passed over; when header and meta disagree the detector
 * decides between them (doc/HOSTILE-INPUT.md case 9).  Always succeeds. */
void charset_detect(const char *in, size_t len, const char *http_charset,
		    const char *default_charset, int flags, struct charset_info *info);

/* Convert in (len bytes, starting after info->bom_len bytes) from
 * info->name to UTF-8, appending to out.  Undecodable or truncated sequences
 * become U+FFFD (counted in info->replaced); U+0000 becomes U+FFFD so the
 * result is a safe C string.  When out reaches out->max the output is cut on
 * a character boundary and info->truncated is set.  Returns 0, or -1 if
 * iconv has no converter for the charset (nothing is appended then). */
int charset_convert(const char *in, size_t len, struct charset_info *info, struct buf *out);

/* charset_detect() then charset_convert(); on -1 from the converter it
 * retries as windows-1252 (noting it), so it only fails if that fails too.
 * info may not be NULL: the caller logs info->note and stores info->name. */
int charset_to_utf8(const char *in, size_t len, const char *http_charset,
		    const char *default_charset, int flags, struct buf *out,
		    struct charset_info *info);

/* Append in to out as valid UTF-8 (WHATWG UTF-8 decode: each maximal
 * invalid subpart, overlong form, surrogate, code point above U+10FFFF or
 * truncated sequence becomes one U+FFFD; U+0000 becomes U+FFFD).  Adds the
 * number of replacements to *replaced if not NULL.  Returns 0, or -1 if out
 * reached its ceiling (the output is then cut on a character boundary). */
int utf8_sanitize(const char *in, size_t len, struct buf *out, size_t *replaced);

/* True if s[0..len) is valid UTF-8 without NUL (utf8_sanitize() would
 * replace nothing). */
bool utf8_valid(const char *s, size_t len);

/* The largest n <= max such that s[0..n) does not end inside a UTF-8
 * sequence (s is len bytes; for cutting text to a byte cap). */
size_t utf8_cut(const char *s, size_t len, size_t max);

#endif
