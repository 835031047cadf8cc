/* template.h - the s.htm template engine (ASPseek's template
 * language; the language itself: doc/CGI.md, s.htm(5)).
 *
 * tpl_load() parses a template file once into named sections (a repeated
 * name gives variants, chosen with o=).  Each section is a list of nodes:
 * literal text, $variables, $Tname user-section references and SELECTED
 * magic.  While parsing, a small HTML scanner notes where each variable
 * stands (element text, a quoted or bare attribute value, the start or the
 * inside of a URL attribute, a script or a style), and tpl_render() escapes
 * every value for that context: no value reaches the page unescaped.  The
 * engine knows no variable: the caller names them at load time and supplies
 * their values through a callback while rendering.
 */
#ifndef MPSEEK_TEMPLATE_H
#define MPSEEK_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct tpl;

/* Where a variable stands, hence how its value is escaped. */
enum tpl_ctx {
	TPL_HTML,     /* element text (also HTML comments): & < > " ' as entities */
	TPL_ATTR,     /* a quoted attribute value: the same */
	TPL_ATTR_BARE,/* an unquoted attribute value: every byte but [A-Za-z0-9._-] as &#N; */
	TPL_URL,      /* the start of a URL attribute (href, src, action...): the value is a
		       * URL; a scheme other than http, https, ftp or mailto becomes "#",
		       * bytes not allowed in a URL are %-encoded, then attribute-escaped */
	TPL_URL_PART, /* inside a URL attribute after its start: the value is one
		       * component, %-encoded (all but RFC 3986 unreserved), then escaped */
	TPL_SCRIPT,   /* in <script> or an on* attribute: all but [A-Za-z0-9 _.,-] as \uXXXX */
	TPL_CSS,      /* in <style> or a style attribute: all but [A-Za-z0-9 _.,-] as \HH */
	TPL_RAW,      /* internal: the plain value, for comparisons (SELECTED magic) */
};

/* One rendering: the template, the caller's callback and its output.  The
 * callback writes the value of variable `var` (its index in the names given
 * to tpl_load; `num` is the number after a name declared with a trailing '#',
 * else -1) with tpl_put_text/markup/url, and may render sections itself with
 * tpl_render() (they nest up to TPL_MAX_DEPTH).  It returns 0, or -1 to stop
 * the rendering. */
struct tpl_run;
typedef int (*tpl_var_fn)(struct tpl_run *r, int var, long num, enum tpl_ctx ctx);

struct tpl_run {
	const struct tpl *t;
	tpl_var_fn fn;
	void *arg;              /* the caller's */
	unsigned variant;       /* o=: the variant of each section, falling back to the first */
	struct buf *out;        /* appended to; its cap bounds the page */
	int depth;              /* sections being rendered */
};

#define TPL_MAX_DEPTH 16        /* nested section renderings */
#define TPL_MAX_INCLUDE 8       /* <!--include--> nesting */
#define TPL_MAX_FILE (1L << 20) /* bytes of one template file */
#define TPL_MAX_VARIANTS 16     /* variants of one section */

/* Parse the template file `path`.  `vars` names the variables ("DU", "Q",
 * ...; a trailing '#' lets a number follow the name: "r#" matches $r5), at
 * most 64.  A $ followed by a letter must start a known name (the longest
 * match wins) or $T<section>; "$$" is a literal $.  Returns 0 and a malloc'd
 * *out (free with tpl_free()), or -1 with err holding "file:line: what is
 * wrong". */
int tpl_load(const char *path, const char *const *vars, size_t n_vars, struct tpl **out,
	     struct buf *err);
/* The same from a string; `name` stands for the file in messages and
 * includes are read relative to its directory (none when `no_files`). */
int tpl_load_string(const char *name, const char *text, size_t len, const char *const *vars,
		    size_t n_vars, bool no_files, struct tpl **out, struct buf *err);
void tpl_free(struct tpl *t);

/* Is there a section of this name (any variant)? */
bool tpl_has(const struct tpl *t, const char *section);
/* Number of variants of a section (0 when absent). */
unsigned tpl_variants(const struct tpl *t, const char *section);
/* The literal text of a section without variables (its variant r->variant,
 * else the first), or NULL: for sections that hold data, like hicolors.
 * Borrowed from t. */
const char *tpl_literal(const struct tpl *t, const char *section, unsigned variant,
			size_t *len);

/* Append section `section` (variant r->variant, else the first) to r->out.
 * A missing section renders nothing.  Returns 0, or -1 when the output cap
 * is hit, the nesting is too deep or the callback failed. */
int tpl_render(struct tpl_run *r, const char *section);

/* For callbacks.  Each returns 0 or -1 (output cap).  Invalid UTF-8 comes
 * out as U+FFFD and control bytes as spaces, whatever the context.
 *   text:   a plain value, escaped for ctx;
 *   markup: HTML the caller built (from escaped values and template
 *           sections): as is in TPL_HTML, as text elsewhere;
 *   url:    a URL or a query string the caller %-encoded ("?q=a+b&np=2"):
 *           in URL contexts only bytes not allowed in a URL are encoded
 *           (and the scheme checked at the start), elsewhere it is text. */
int tpl_put_text(struct tpl_run *r, enum tpl_ctx ctx, const char *s, size_t len);
int tpl_put_markup(struct tpl_run *r, enum tpl_ctx ctx, const char *s, size_t len);
int tpl_put_url(struct tpl_run *r, enum tpl_ctx ctx, const char *s, size_t len);

/* Escapers, usable alone.  Each appends to b and returns 0 or -1 (cap). */
int tpl_escape_html(struct buf *b, const char *s, size_t len);
/* %-encode all but RFC 3986 unreserved bytes (a query component; space as %20). */
int tpl_escape_component(struct buf *b, const char *s, size_t len);
/* A JSON string body (no quotes): \" \\ \n..., \u00XX for controls, and
 * < > & U+2028 U+2029 as \uXXXX so the result is safe inside HTML too. */
int tpl_escape_json(struct buf *b, const char *s, size_t len);

#endif
