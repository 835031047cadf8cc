/* html.h - the tolerant HTML tokenizer/extractor (and the text/plain twin).
 *
 * Takes UTF-8 (charset.c converts first) and extracts what the crawler
 * stores and indexes: title, META description/keywords/robots/refresh,
 * <base href>, rel=canonical, links with anchor text, a JavaScript location
 * redirect candidate, and the document text split into ASPseek's sections.
 * It never resolves URLs (url.c does, against base or the page URL) and
 * never splits words (tokenize.c does, section by section).
 *
 * Any byte string is accepted: time is linear in the input, every output
 * has a ceiling from caps.h, nothing is nested on the C stack.
 */
#ifndef MPSEEK_HTML_H
#define MPSEEK_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "caps.h"

/* The 2 section bits of a word position, as ASPseek's (include/tokenize.h). */
enum section { SECTION_BODY, SECTION_DESCRIPTION, SECTION_KEYWORDS, SECTION_TITLE };
#define SECTION_COUNT 4

/* META robots (noindex, nofollow; "none" sets both, "all"/"index"/"follow"
 * set nothing).  Several robots metas add up. */
#define HTML_ROBOTS_NOINDEX  1u
#define HTML_ROBOTS_NOFOLLOW 2u

enum html_link_kind { HTML_LINK_A, HTML_LINK_AREA, HTML_LINK_FRAME, HTML_LINK_IFRAME };

struct html_link {
	/* As written: entity-decoded, leading/trailing whitespace removed, not
	 * resolved, never empty, at most MAX_URL_LEN bytes (longer ones are
	 * dropped: a cut URL is a wrong URL).  malloc'd, owned by the doc. */
	char *url;
	/* <a>: its text (and the alt of images inside), whitespace collapsed,
	 * at most MAX_ANCHOR_LEN bytes; <area>: its alt; frames: "".
	 * malloc'd, owned by the doc, never NULL. */
	char *anchor;
	enum html_link_kind kind;
	bool nofollow; /* rel="nofollow" on the element */
};

struct html_doc {
	/* Stored columns of urlwordsNN: whitespace collapsed, cut on a UTF-8
	 * boundary to the column width in bytes; "" when absent. */
	char title[MAX_TITLE_LEN + 1];             /* first <title> outside svg/math */
	char description[MAX_DESCRIPTION_LEN + 1]; /* first META description */
	char keywords[MAX_KEYWORDS_LEN + 1];       /* first META keywords */
	char txt[MAX_TXT_LEN + 1];                 /* start of the body text */

	unsigned robots;     /* HTML_ROBOTS_* */
	int refresh_delay;   /* META refresh seconds, -1 if no refresh URL */
	char *refresh_url;   /* META refresh url=…, as written; NULL if none */
	char *base;          /* first <base href>, as written; NULL if none */
	char *canonical;     /* first <link rel=canonical href>; NULL if none */
	char *js_redirect;   /* first location assignment in an inline script */

	struct html_link *links; /* document order, see struct html_link */
	size_t nlinks;
	size_t links_dropped;    /* beyond MAX_HTML_LINKS, or URL too long */

	/* The text of each section, whitespace collapsed to one space, a
	 * newline where a block-level tag (or, in text/plain, a line end) broke
	 * it.  Words never continue across runs, so tokenize.c can split each
	 * section on its own.  text[SECTION_BODY] is also the plain text stored
	 * for snippets and the cached copy.  Body is capped at MAX_DOC_BYTES,
	 * the others at MAX_HTML_META_TEXT. */
	struct buf text[SECTION_COUNT];
	bool truncated; /* some cap was hit (text, attribute, link count) */
};

/* Called once per non-empty section, in the order title, description,
 * keywords, body. utf8 is borrowed for the duration of the call. */
typedef void (*html_text_cb)(enum section sec, const char *utf8, size_t len, void *arg);

/* Parse len bytes of HTML into doc (which needs no initialisation; any
 * previous content is not freed).  The input should be valid UTF-8 without
 * NUL bytes (charset_to_utf8() output); anything else is tolerated but may
 * come out mangled.  Returns 0; the caller frees with html_doc_free(). */
int html_parse(const char *utf8, size_t len, struct html_doc *doc);

/* The same for text/plain: only the body section (lines kept as newlines),
 * and txt, are filled. Returns 0; free with html_doc_free(). */
int html_parse_text(const char *utf8, size_t len, struct html_doc *doc);

/* Free everything doc owns and leave it empty. Accepts NULL. */
void html_doc_free(struct html_doc *doc);

/* Call cb for each non-empty section (see html_text_cb). */
void html_foreach_text(const struct html_doc *doc, html_text_cb cb, void *arg);

const char *html_section_name(enum section sec); /* "body", "description", ... */

/* Decode the character references in s[0..len) (numeric, and the full HTML5
 * named table, missing ';' tolerated as browsers do) and append the result
 * to out. in_attr applies the attribute-value rule (&copy=1 stays as is).
 * Returns 0, or -1 if out reached its ceiling. */
int html_decode_entities(const char *s, size_t len, bool in_attr, struct buf *out);

#endif
