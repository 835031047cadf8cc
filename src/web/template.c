/* template.c - the s.htm template engine: parsing into sections and nodes
 * with an HTML context scanner, rendering with per-context escaping, and the
 * escapers themselves.  Owns no variable: s.cgi (cgi.c) names them and
 * supplies their values.  Language: doc/CGI.md, s.htm(5).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "charset.h"
#include "template.h"
#include "util.h"

#define MAX_VARS 64
#define MAX_NAME 64     /* bytes of a section name */
#define TAG_NAME 16     /* bytes of a tag or attribute name kept */
#define MAX_SECTIONS 1024

enum node_kind {
	N_TEXT,   /* s, len: literal bytes */
	N_VAR,    /* var, num, ctx */
	N_USER,   /* s, len: the section name of $Tname */
	N_SELECT, /* s: the attribute (selected|checked), var, num; value, value_len */
};

struct node {
	enum node_kind kind;
	enum tpl_ctx ctx;
	const char *s;
	size_t len;
	int var;
	long num;
	const char *value;
	size_t value_len;
	const char *file; /* borrowed from tpl.files */
	int line;
};

struct variant {
	struct node *nodes;
	size_t n, alloc;
};

struct section {
	char name[MAX_NAME + 1];
	struct variant v[TPL_MAX_VARIANTS];
	unsigned n_variants;
	const char *file;
	int line;
};

struct tpl {
	struct section *sec;
	size_t n_sec, alloc_sec;
	char **owned;   /* file texts and names: every node points into these */
	size_t n_owned, alloc_owned;
};

/* States of the HTML scanner (a small subset of the WHATWG tokenizer: what
 * decides how a value must be escaped). */
enum hstate {
	H_DATA, H_COMMENT, H_BOGUS, H_TAG_NAME, H_BEFORE_ATTR, H_ATTR_NAME, H_AFTER_ATTR,
	H_BEFORE_VALUE, H_VALUE_Q, H_VALUE_BARE, H_RAW,
};

enum akind { A_OTHER, A_URL, A_SCRIPT, A_CSS, A_SELECT, A_VALUE };

struct parser {
	struct tpl *t;
	const char *const *vars;
	size_t n_vars;
	struct buf *err;
	bool no_files;
	int depth;
	const char *file; /* current file name (owned by t) */
	int line;

	struct section *cur;
	struct variant *curv;
	int cur_line;
	const char *cur_file;

	enum hstate hs;
	char tag[TAG_NAME + 1];
	size_t tag_len;
	bool closing;
	bool raw_script;        /* H_RAW: <script> (else <style>) */
	char attr[TAG_NAME + 1];
	size_t attr_len;
	bool attr_long;
	const char *attr_start; /* first byte of the attribute name */
	char quote;
	bool value_empty;       /* only whitespace so far in the value */
	bool value_has_var;
	const char *value_start;
	/* SELECTED magic of the current tag */
	const char *tag_value;  /* the literal VALUE attribute, or NULL */
	size_t tag_value_len;
	bool tag_value_var;     /* VALUE holds a variable */
	long sel_node;          /* index of a pending N_SELECT node, or -1 */
	int sel_line;
};

/* ---- small helpers ------------------------------------------------------ */

static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static bool is_name(int c) { return is_alnum(c) || c == '_'; }
static bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err) {
		buf_reset(p->err);
		buf_printf(p->err, "%s:%d: ", p->file, p->line);
		va_start(ap, fmt);
		buf_vprintf(p->err, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static char *own(struct tpl *t, char *s)
{
	if (t->n_owned == t->alloc_owned) {
		t->alloc_owned = t->alloc_owned ? 2 * t->alloc_owned : 8;
		t->owned = xrealloc(t->owned, t->alloc_owned * sizeof(*t->owned));
	}
	t->owned[t->n_owned++] = s;
	return s;
}

static struct section *find_section(const struct tpl *t, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < t->n_sec; i++)
		if (strlen(t->sec[i].name) == len && !memcmp(t->sec[i].name, name, len))
			return &t->sec[i];
	return NULL;
}

static struct node *add_node(struct parser *p, enum node_kind kind)
{
	struct variant *v = p->curv;
	struct node *n;

	if (v->n == v->alloc) {
		v->alloc = v->alloc ? 2 * v->alloc : 16;
		v->nodes = xrealloc(v->nodes, v->alloc * sizeof(*v->nodes));
	}
	n = &v->nodes[v->n++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->num = -1;
	n->file = p->file;
	n->line = p->line;
	return n;
}

static void add_text(struct parser *p, const char *s, size_t len)
{
	struct variant *v = p->curv;
	struct node *n;

	if (!len)
		return;
	/* Extend the previous text node when contiguous ("$$" splits). */
	if (v->n && v->nodes[v->n - 1].kind == N_TEXT &&
	    v->nodes[v->n - 1].s + v->nodes[v->n - 1].len == s) {
		v->nodes[v->n - 1].len += len;
		return;
	}
	n = add_node(p, N_TEXT);
	n->s = s;
	n->len = len;
}

/* ---- the HTML context scanner ------------------------------------------ */

static enum akind attr_kind(const struct parser *p)
{
	static const char *const url_attrs[] = {
		"href", "src", "action", "formaction", "cite", "background", "poster",
		"data", "codebase", "longdesc", "usemap", "manifest", "icon", "ping",
		"xlink:href", "srcset", "archive", "classid", "profile",
	};
	size_t i;

	if (p->attr_long)
		return A_OTHER;
	for (i = 0; i < ARRAY_SIZE(url_attrs); i++)
		if (!strcmp(p->attr, url_attrs[i]))
			return A_URL;
	if (p->attr[0] == 'o' && p->attr[1] == 'n')
		return A_SCRIPT;
	if (!strcmp(p->attr, "style"))
		return A_CSS;
	if (!strcmp(p->attr, "selected") || !strcmp(p->attr, "checked"))
		return A_SELECT;
	if (!strcmp(p->attr, "value"))
		return A_VALUE;
	return A_OTHER;
}

static void begin_tag(struct parser *p, bool closing)
{
	p->hs = H_TAG_NAME;
	p->tag_len = 0;
	p->tag[0] = '\0';
	p->closing = closing;
	p->tag_value = NULL;
	p->tag_value_len = 0;
	p->tag_value_var = false;
	p->sel_node = -1;
}

static void begin_attr(struct parser *p, const char *at)
{
	p->hs = H_ATTR_NAME;
	p->attr_len = 0;
	p->attr[0] = '\0';
	p->attr_long = false;
	p->attr_start = at;
}

static void attr_char(struct parser *p, int c)
{
	if (p->attr_len < TAG_NAME) {
		p->attr[p->attr_len++] = (char)lower(c);
		p->attr[p->attr_len] = '\0';
	} else {
		p->attr_long = true;
	}
}

static void fill_select(struct parser *p)
{
	struct node *n = &p->curv->nodes[p->sel_node];

	n->value = p->tag_value;
	n->value_len = p->tag_value_len;
}

/* A value ends (at `at`, the closing quote or the byte after a bare value). */
static void end_value(struct parser *p, const char *at)
{
	if (attr_kind(p) == A_VALUE) {
		if (p->value_has_var) {
			p->tag_value_var = true;
		} else {
			p->tag_value = p->value_start;
			p->tag_value_len = (size_t)(at - p->value_start);
		}
	}
}

static int end_tag(struct parser *p)
{
	if (p->sel_node >= 0) {
		if (!p->tag_value || p->tag_value_var) {
			p->line = p->sel_line;
			return perr(p, "%s=\"$...\" needs a literal value=\"...\" in the same tag",
				    p->curv->nodes[p->sel_node].s);
		}
		fill_select(p);
		p->sel_node = -1;
	}
	if (!p->closing && (!strcmp(p->tag, "script") || !strcmp(p->tag, "style"))) {
		p->hs = H_RAW;
		p->raw_script = p->tag[1] == 'c';
	} else {
		p->hs = H_DATA;
	}
	return 0;
}

/* Advance the scanner over the literal byte at s[i] (of a text of n bytes).
 * Returns how many bytes it consumed (1, or more for "-->"), or -1. */
static int scan(struct parser *p, const char *s, size_t i, size_t n)
{
	int c = (unsigned char)s[i];

	switch (p->hs) {
	case H_DATA:
		if (c != '<' || i + 1 >= n)
			return 1;
		if (i + 3 < n && !memcmp(s + i, "<!--", 4)) {
			p->hs = H_COMMENT;
			return 4;
		}
		if (is_alpha(s[i + 1]))
			begin_tag(p, false);
		else if (s[i + 1] == '/' && i + 2 < n && is_alpha(s[i + 2])) {
			begin_tag(p, true);
			return 2;
		} else if (s[i + 1] == '!' || s[i + 1] == '?' || s[i + 1] == '/')
			p->hs = H_BOGUS;
		return 1;
	case H_COMMENT:
		if (c == '-' && i + 2 < n && s[i + 1] == '-' && s[i + 2] == '>') {
			p->hs = H_DATA;
			return 3;
		}
		return 1;
	case H_BOGUS:
		if (c == '>')
			p->hs = H_DATA;
		return 1;
	case H_RAW: {
		const char *end = p->raw_script ? "</script" : "</style";
		size_t k = strlen(end), j;

		if (c != '<' || i + k > n)
			return 1;
		for (j = 0; j < k; j++)
			if (lower((unsigned char)s[i + j]) != end[j])
				return 1;
		begin_tag(p, true);
		return 2;
	}
	case H_TAG_NAME:
		if (is_space(c) || c == '/')
			p->hs = H_BEFORE_ATTR;
		else if (c == '>')
			return end_tag(p) ? -1 : 1;
		else if (p->tag_len < TAG_NAME) {
			p->tag[p->tag_len++] = (char)lower(c);
			p->tag[p->tag_len] = '\0';
		}
		return 1;
	case H_BEFORE_ATTR:
		if (c == '>')
			return end_tag(p) ? -1 : 1;
		if (!is_space(c) && c != '/') {
			begin_attr(p, s + i);
			attr_char(p, c);
		}
		return 1;
	case H_ATTR_NAME:
		if (is_space(c))
			p->hs = H_AFTER_ATTR;
		else if (c == '=')
			p->hs = H_BEFORE_VALUE;
		else if (c == '>')
			return end_tag(p) ? -1 : 1;
		else if (c == '/')
			p->hs = H_BEFORE_ATTR;
		else
			attr_char(p, c);
		return 1;
	case H_AFTER_ATTR:
		if (c == '=')
			p->hs = H_BEFORE_VALUE;
		else if (c == '>')
			return end_tag(p) ? -1 : 1;
		else if (!is_space(c) && c != '/') {
			begin_attr(p, s + i);
			attr_char(p, c);
		}
		return 1;
	case H_BEFORE_VALUE:
		if (is_space(c))
			return 1;
		if (c == '>')
			return end_tag(p) ? -1 : 1;
		p->value_has_var = false;
		if (c == '"' || c == '\'') {
			p->hs = H_VALUE_Q;
			p->quote = (char)c;
			p->value_empty = true;
			p->value_start = s + i + 1;
		} else {
			p->hs = H_VALUE_BARE;
			p->value_empty = false;
			p->value_start = s + i;
		}
		return 1;
	case H_VALUE_Q:
		if (c == p->quote) {
			end_value(p, s + i);
			p->hs = H_BEFORE_ATTR;
		} else if (!is_space(c)) {
			p->value_empty = false;
		}
		return 1;
	case H_VALUE_BARE:
		if (is_space(c) || c == '>') {
			end_value(p, s + i);
			p->hs = H_BEFORE_ATTR;
			if (c == '>')
				return end_tag(p) ? -1 : 1;
		}
		return 1;
	}
	return 1;
}

/* The context of a variable at the scanner's position, or -1 (error set). */
static int var_ctx(struct parser *p, const char *name)
{
	enum akind k;
	int ctx;

	switch (p->hs) {
	case H_DATA:
	case H_COMMENT:
		return TPL_HTML;
	case H_BOGUS:
		return perr(p, "variable $%s inside <!...> or <?...>", name);
	case H_RAW:
		return p->raw_script ? TPL_SCRIPT : TPL_CSS;
	case H_BEFORE_VALUE:
		/* An unquoted value starts with the variable. */
		p->hs = H_VALUE_BARE;
		p->value_empty = true;
		p->value_has_var = false;
		break;
	case H_VALUE_Q:
	case H_VALUE_BARE:
		break;
	default:
		return perr(p, "variable $%s inside a tag: put it in a quoted attribute value",
			    name);
	}
	k = attr_kind(p);
	if (k == A_URL)
		ctx = p->value_empty ? TPL_URL : TPL_URL_PART;
	else if (k == A_SCRIPT)
		ctx = TPL_SCRIPT;
	else if (k == A_CSS)
		ctx = TPL_CSS;
	else
		ctx = p->hs == H_VALUE_Q ? TPL_ATTR : TPL_ATTR_BARE;
	p->value_empty = false;
	p->value_has_var = true;
	return ctx;
}

/* ---- sections, markers, files ------------------------------------------ */

enum marker { M_NONE, M_OPEN, M_CLOSE, M_INCLUDE, M_VARIABLES };

/* Classify "<!--..." at s (n bytes left).  Sets *name and *nlen (section name or
 * include file) and *mlen (bytes of the whole marker; for M_VARIABLES up to
 * the opening only). */
static enum marker classify(const char *s, size_t n, const char **name, size_t *nlen,
			    size_t *mlen)
{
	size_t i = 4, start, end;
	bool close = false;

	if (i < n && s[i] == '/') {
		close = true;
		i++;
	}
	start = i;
	while (i < n && is_name(s[i]) && i - start <= MAX_NAME)
		i++;
	end = i;
	if (end == start || !is_alpha(s[start]) || end - start > MAX_NAME)
		return M_NONE;
	if (!close && end - start == 9 && !ascii_ncasecmp(s + start, "variables", 9) &&
	    (end == n || is_space(s[end]) || s[end] == '-')) {
		*mlen = end;
		return M_VARIABLES;
	}
	if (!close && end - start == 7 && !memcmp(s + start, "include", 7) && end < n &&
	    (s[end] == ' ' || s[end] == '\t')) {
		const char *e = memmem(s + end, n - end, "-->", 3), *f = s + end, *g;
		if (!e || memchr(f, '\n', (size_t)(e - f)))
			return M_NONE;
		while (f < e && is_space(*f))
			f++;
		g = e;
		while (g > f && is_space(g[-1]))
			g--;
		*name = f;
		*nlen = (size_t)(g - f);
		*mlen = (size_t)(e + 3 - s);
		return M_INCLUDE;
	}
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i + 3 > n || memcmp(s + i, "-->", 3))
		return M_NONE;
	*name = s + start;
	*nlen = end - start;
	*mlen = i + 3;
	return close ? M_CLOSE : M_OPEN;
}

static int parse_text(struct parser *p, const char *text, size_t n);

static int read_file(const char *path, char **text, size_t *len, struct buf *why)
{
	struct buf b = BUF_INIT((size_t)TPL_MAX_FILE);
	char chunk[16384];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;

	if (fd < 0) {
		buf_printf(why, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		buf_adds(why, "not a regular file");
		close(fd);
		return -1;
	}
	while ((r = read(fd, chunk, sizeof(chunk))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			buf_printf(why, "%s", strerror(errno));
			goto fail;
		}
		if (buf_add(&b, chunk, (size_t)r)) {
			buf_printf(why, "larger than %ld bytes", TPL_MAX_FILE);
			goto fail;
		}
	}
	close(fd);
	*len = b.len;
	*text = b.ptr ? buf_detach(&b, NULL) : xstrdup("");
	return 0;
fail:
	close(fd);
	buf_free(&b);
	return -1;
}

static int do_include(struct parser *p, const char *name, size_t nlen)
{
	struct buf why = BUF_INIT(512);
	const char *slash, *saved_file = p->file;
	char *rel, *path, *text;
	size_t len;
	int saved_line = p->line, rc;

	if (!nlen)
		return perr(p, "<!--include--> without a file name");
	if (p->no_files)
		return perr(p, "<!--include--> is not allowed here");
	if (p->depth >= TPL_MAX_INCLUDE)
		return perr(p, "<!--include--> nested more than %d deep", TPL_MAX_INCLUDE);
	rel = xstrndup(name, nlen);
	slash = strrchr(p->file, '/');
	if (rel[0] == '/' || !slash)
		path = xstrdup(rel);
	else
		path = xasprintf("%.*s/%s", (int)(slash - p->file), p->file, rel);
	free(rel);
	own(p->t, path);
	if (read_file(path, &text, &len, &why)) {
		perr(p, "<!--include %s-->: %s", path, buf_str(&why));
		buf_free(&why);
		return -1;
	}
	buf_free(&why);
	own(p->t, text);
	p->depth++;
	p->file = path;
	p->line = 1;
	rc = parse_text(p, text, len);
	if (rc == 0) {
		p->file = saved_file;
		p->line = saved_line;
	}
	p->depth--;
	return rc;
}

static int open_section(struct parser *p, const char *name, size_t nlen)
{
	struct section *s;

	if (p->cur)
		return perr(p, "<!--%.*s--> inside <!--%s--> (opened at %s:%d): sections do not nest",
			    (int)nlen, name, p->cur->name, p->cur_file, p->cur_line);
	s = find_section(p->t, name, nlen);
	if (!s) {
		struct tpl *t = p->t;
		if (t->n_sec == MAX_SECTIONS)
			return perr(p, "more than %d sections", MAX_SECTIONS);
		if (t->n_sec == t->alloc_sec) {
			t->alloc_sec = t->alloc_sec ? 2 * t->alloc_sec : 32;
			t->sec = xrealloc(t->sec, t->alloc_sec * sizeof(*t->sec));
		}
		s = &t->sec[t->n_sec++];
		memset(s, 0, sizeof(*s));
		memcpy(s->name, name, nlen);
		s->file = p->file;
		s->line = p->line;
	}
	if (s->n_variants == TPL_MAX_VARIANTS)
		return perr(p, "section <!--%s--> has more than %d variants", s->name,
			    TPL_MAX_VARIANTS);
	p->cur = s;
	p->curv = &s->v[s->n_variants++];
	p->cur_line = p->line;
	p->cur_file = p->file;
	p->hs = H_DATA;
	p->sel_node = -1;
	return 0;
}

static int close_section(struct parser *p, const char *name, size_t nlen)
{
	if (!p->cur)
		return perr(p, "<!--/%.*s--> closes no section", (int)nlen, name);
	if (strlen(p->cur->name) != nlen || memcmp(p->cur->name, name, nlen))
		return perr(p, "<!--/%.*s--> closes <!--%s--> (opened at %s:%d)", (int)nlen, name,
			    p->cur->name, p->cur_file, p->cur_line);
	if (p->hs != H_DATA && p->hs != H_COMMENT)
		return perr(p, "section <!--%s--> ends inside %s", p->cur->name,
			    p->hs == H_RAW ? "<script> or <style>" : "a tag");
	p->cur = NULL;
	p->curv = NULL;
	return 0;
}

/* "$..." at s[i]: add a variable node.  Returns the bytes consumed or -1. */
static long parse_var(struct parser *p, const char *s, size_t i, size_t n)
{
	size_t best = 0, k, j, len;
	int var = -1, ctx;
	long num = -1;
	struct node *nd;
	char shown[8];

	if (s[i + 1] == 'T' && i + 2 < n && is_name(s[i + 2])) {
		j = i + 2;
		while (j < n && is_name(s[j]) && j - (i + 2) <= MAX_NAME)
			j++;
		if (j - (i + 2) > MAX_NAME)
			return perr(p, "section name after $T longer than %d bytes", MAX_NAME);
		ctx = var_ctx(p, "T");
		if (ctx < 0)
			return -1;
		if (ctx != TPL_HTML)
			return perr(p, "$T%.*s: a user section can only stand in element text",
				    (int)(j - i - 2), s + i + 2);
		nd = add_node(p, N_USER);
		nd->s = s + i + 2;
		nd->len = j - (i + 2);
		return (long)(j - i);
	}
	for (k = 0; k < p->n_vars; k++) {
		const char *v = p->vars[k];
		len = strlen(v);
		if (len && v[len - 1] == '#')
			len--;
		if (len > best && i + 1 + len <= n && !memcmp(s + i + 1, v, len)) {
			best = len;
			var = (int)k;
		}
	}
	if (var < 0) {
		snprintf(shown, sizeof(shown), "%.*s", (int)(n - i - 1 < 2 ? n - i - 1 : 2), s + i + 1);
		return perr(p, "unknown variable $%s (write $$ for a dollar sign)", shown);
	}
	j = i + 1 + best;
	len = strlen(p->vars[var]);
	if (p->vars[var][len - 1] == '#' && j < n && is_digit(s[j])) {
		num = 0;
		while (j < n && is_digit(s[j])) {
			if (num < 1000000000L)
				num = num * 10 + (s[j] - '0');
			j++;
		}
	}
	snprintf(shown, sizeof(shown), "%.*s", (int)best, s + i + 1);
	if (p->hs == H_VALUE_Q && p->value_empty && attr_kind(p) == A_SELECT) {
		/* SELECTED magic: selected="$ps" is kept only when the variable
		 * equals the tag's literal value.  The attribute and its quotes
		 * become the node. */
		struct variant *v = p->curv;
		struct node *last = v->n ? &v->nodes[v->n - 1] : NULL;
		if (j >= n || s[j] != p->quote)
			return perr(p, "%s=\"$%s...\": SELECTED magic takes one variable alone",
				    p->attr, shown);
		if (p->sel_node >= 0)
			return perr(p, "two SELECTED magic attributes in one tag");
		if (!last || last->kind != N_TEXT || p->attr_start < last->s ||
		    p->attr_start > last->s + last->len)
			return perr(p, "%s=\"$%s\": the tag must not hold other variables before it",
				    p->attr, shown);
		last->len = (size_t)(p->attr_start - last->s);
		nd = add_node(p, N_SELECT);
		nd->s = !strcmp(p->attr, "checked") ? "checked" : "selected";
		nd->var = var;
		nd->num = num;
		p->sel_node = (long)(v->n - 1);
		p->sel_line = p->line;
		p->value_has_var = true;
		if (p->tag_value && !p->tag_value_var)
			fill_select(p);
		p->hs = H_BEFORE_ATTR;
		return (long)(j + 1 - i);
	}
	ctx = var_ctx(p, shown);
	if (ctx < 0)
		return -1;
	nd = add_node(p, N_VAR);
	nd->var = var;
	nd->num = num;
	nd->ctx = (enum tpl_ctx)ctx;
	return (long)(j - i);
}

/* Strip one line break right before a closing marker. */
static void trim_before_close(struct parser *p)
{
	struct variant *v = p->curv;
	struct node *last;

	if (!v || !v->n)
		return;
	last = &v->nodes[v->n - 1];
	if (last->kind != N_TEXT || !last->len || last->s[last->len - 1] != '\n')
		return;
	last->len--;
	if (last->len && last->s[last->len - 1] == '\r')
		last->len--;
	if (!last->len)
		v->n--;
}

static int parse_text(struct parser *p, const char *s, size_t n)
{
	size_t i = 0, seg = 0;

	while (i < n) {
		int c = (unsigned char)s[i];

		if (c == '<' && i + 3 < n && !memcmp(s + i, "<!--", 4)) {
			const char *name = NULL;
			size_t nlen = 0, mlen = 0;
			enum marker m = classify(s + i, n - i, &name, &nlen, &mlen);

			if (m != M_NONE) {
				if (p->cur)
					add_text(p, s + seg, i - seg);
				switch (m) {
				case M_OPEN:
					if (open_section(p, name, nlen))
						return -1;
					i += mlen;
					/* One line break after the marker is not content. */
					if (i < n && s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
						i++;
					if (i < n && s[i] == '\n') {
						i++;
						p->line++;
					}
					break;
				case M_CLOSE:
					trim_before_close(p);
					if (close_section(p, name, nlen))
						return -1;
					i += mlen;
					break;
				case M_INCLUDE:
					if (do_include(p, name, nlen))
						return -1;
					i += mlen;
					break;
				case M_VARIABLES: {
					/* Parsed by conf.c (CONF_TEMPLATE); skipped here. */
					const char *e = memmem(s + i, n - i, "-->", 3), *q;
					if (p->cur)
						return perr(p, "<!--variables--> inside section <!--%s-->",
							    p->cur->name);
					if (!e)
						return perr(p, "<!--variables block has no closing -->");
					for (q = s + i; q < e; q++)
						if (*q == '\n')
							p->line++;
					i = (size_t)(e + 3 - s);
					break;
				}
				case M_NONE:
					break;
				}
				seg = i;
				continue;
			}
		}
		if (!p->cur) {
			if (c == '\n')
				p->line++;
			i++;
			seg = i;
			continue;
		}
		if (c == '$' && i + 1 < n) {
			if (s[i + 1] == '$') {
				add_text(p, s + seg, i + 1 - seg);
				i += 2;
				seg = i;
				continue;
			}
			if (is_alpha(s[i + 1])) {
				long used;
				add_text(p, s + seg, i - seg);
				used = parse_var(p, s, i, n);
				if (used < 0)
					return -1;
				i += (size_t)used;
				seg = i;
				continue;
			}
		}
		{
			int used = scan(p, s, i, n);
			size_t k;
			if (used < 0)
				return -1;
			for (k = 0; k < (size_t)used && i + k < n; k++)
				if (s[i + k] == '\n')
					p->line++;
			i += (size_t)used;
		}
	}
	if (p->cur)
		add_text(p, s + seg, (i > n ? n : i) - seg);
	return 0;
}

/* $Tname references must name sections and must not loop: a depth-first
 * walk over the sections (mark 1: on the current path, 2: done). */
static int check_user(struct parser *p, size_t si, unsigned char *mark)
{
	struct section *s = &p->t->sec[si];
	unsigned k;
	size_t i;

	mark[si] = 1;
	for (k = 0; k < s->n_variants; k++)
		for (i = 0; i < s->v[k].n; i++) {
			struct node *nd = &s->v[k].nodes[i];
			struct section *u;
			size_t ui;
			if (nd->kind != N_USER)
				continue;
			u = find_section(p->t, nd->s, nd->len);
			p->file = nd->file;
			p->line = nd->line;
			if (!u)
				return perr(p, "$T%.*s: no section <!--%.*s-->", (int)nd->len, nd->s,
					    (int)nd->len, nd->s);
			ui = (size_t)(u - p->t->sec);
			if (mark[ui] == 1)
				return perr(p, "$T%.*s: user sections refer to each other in a loop",
					    (int)nd->len, nd->s);
			if (mark[ui] == 0 && check_user(p, ui, mark))
				return -1;
		}
	mark[si] = 2;
	return 0;
}

int tpl_load_string(const char *name, const char *text, size_t len, const char *const *vars,
		    size_t n_vars, bool no_files, struct tpl **out, struct buf *err)
{
	struct parser p;
	struct tpl *t = xcalloc(1, sizeof(*t));
	char *copy = xmalloc(len + 1);
	unsigned char *mark = NULL;
	size_t i;

	*out = NULL;
	memcpy(copy, text, len);
	copy[len] = '\0';
	own(t, copy);
	memset(&p, 0, sizeof(p));
	p.t = t;
	p.vars = vars;
	p.n_vars = n_vars > MAX_VARS ? MAX_VARS : n_vars;
	p.err = err;
	p.no_files = no_files;
	p.file = own(t, xstrdup(name));
	p.line = 1;
	p.sel_node = -1;
	if (memchr(copy, '\0', len)) {
		p.line = 1;
		for (i = 0; copy[i]; i++)
			if (copy[i] == '\n')
				p.line++;
		perr(&p, "NUL byte in the template");
		goto fail;
	}
	if (parse_text(&p, copy, len))
		goto fail;
	if (p.cur) {
		p.file = p.cur_file;
		p.line = p.cur_line;
		perr(&p, "section <!--%s--> is never closed (<!--/%s-->)", p.cur->name, p.cur->name);
		goto fail;
	}
	if (!t->n_sec) {
		p.line = 1;
		perr(&p, "no sections: a template is made of <!--name--> ... <!--/name--> blocks");
		goto fail;
	}
	mark = xcalloc(t->n_sec, 1);
	for (i = 0; i < t->n_sec; i++)
		if (!mark[i] && check_user(&p, i, mark))
			goto fail;
	free(mark);
	*out = t;
	return 0;
fail:
	free(mark);
	tpl_free(t);
	return -1;
}

int tpl_load(const char *path, const char *const *vars, size_t n_vars, struct tpl **out,
	     struct buf *err)
{
	struct buf why = BUF_INIT(512);
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	if (read_file(path, &text, &len, &why)) {
		if (err) {
			buf_reset(err);
			buf_printf(err, "%s: %s", path, buf_str(&why));
		}
		buf_free(&why);
		return -1;
	}
	buf_free(&why);
	rc = tpl_load_string(path, text, len, vars, n_vars, false, out, err);
	free(text);
	return rc;
}

void tpl_free(struct tpl *t)
{
	size_t i;
	unsigned k;

	if (!t)
		return;
	for (i = 0; i < t->n_sec; i++)
		for (k = 0; k < t->sec[i].n_variants; k++)
			free(t->sec[i].v[k].nodes);
	free(t->sec);
	for (i = 0; i < t->n_owned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t);
}

bool tpl_has(const struct tpl *t, const char *section)
{
	return find_section(t, section, strlen(section)) != NULL;
}

unsigned tpl_variants(const struct tpl *t, const char *section)
{
	const struct section *s = find_section(t, section, strlen(section));

	return s ? s->n_variants : 0;
}

static const struct variant *pick(const struct tpl *t, const char *section, unsigned variant)
{
	const struct section *s = find_section(t, section, strlen(section));

	if (!s)
		return NULL;
	return &s->v[variant < s->n_variants ? variant : 0];
}

const char *tpl_literal(const struct tpl *t, const char *section, unsigned variant, size_t *len)
{
	const struct variant *v = pick(t, section, variant);

	*len = 0;
	if (!v || v->n > 1 || (v->n == 1 && v->nodes[0].kind != N_TEXT))
		return NULL;
	if (!v->n)
		return "";
	*len = v->nodes[0].len;
	return v->nodes[0].s;
}

/* ---- rendering ----------------------------------------------------------- */

static int render_select(struct tpl_run *r, const struct node *nd)
{
	struct buf tmp = BUF_INIT(4096), *saved = r->out;
	const char *v;
	size_t len;
	int rc;

	r->out = &tmp;
	rc = r->fn(r, nd->var, nd->num, TPL_RAW);
	r->out = saved;
	if (rc == 0) {
		v = buf_str(&tmp);
		len = tmp.len;
		while (len && is_space(v[len - 1]))
			len--;
		while (len && is_space(*v)) {
			v++;
			len--;
		}
		if (len == nd->value_len && !memcmp(v, nd->value, len))
			rc = buf_addc(r->out, ' ') || buf_adds(r->out, nd->s) ? -1 : 0;
	}
	buf_free(&tmp);
	return rc;
}

int tpl_render(struct tpl_run *r, const char *section)
{
	const struct variant *v = pick(r->t, section, r->variant);
	size_t i;
	int rc = 0;

	if (!v)
		return 0;
	if (r->depth >= TPL_MAX_DEPTH)
		return -1;
	r->depth++;
	for (i = 0; i < v->n && rc == 0; i++) {
		const struct node *nd = &v->nodes[i];
		char name[MAX_NAME + 1];

		switch (nd->kind) {
		case N_TEXT:
			rc = buf_add(r->out, nd->s, nd->len);
			break;
		case N_VAR:
			rc = r->fn(r, nd->var, nd->num, nd->ctx);
			break;
		case N_USER:
			memcpy(name, nd->s, nd->len);
			name[nd->len] = '\0';
			rc = tpl_render(r, name);
			break;
		case N_SELECT:
			rc = render_select(r, nd);
			break;
		}
	}
	r->depth--;
	return rc;
}

/* ---- escaping ------------------------------------------------------------ */

/* Decode one code point of valid UTF-8 at s (n bytes); *cp gets it.
 * Returns its length. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (s[0] < 0x80 || n < 2) {
		*cp = s[0];
		return 1;
	}
	if (s[0] < 0xE0) {
		*cp = ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
		return 2;
	}
	if (s[0] < 0xF0 || n < 4) {
		*cp = n < 3 ? 0xFFFD
			    : ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) |
				      (s[2] & 0x3F);
		return n < 3 ? n : 3;
	}
	*cp = ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
	      ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
	return 4;
}

/* A C0 control, DEL, or a C1 control (U+0080..U+009F, "\xC2\x80".."\xC2\x9F"). */
static size_t control_len(const unsigned char *s, size_t n, bool keep_lines)
{
	if (s[0] < 0x20)
		return keep_lines && (s[0] == '\n' || s[0] == '\t') ? 0 : 1;
	if (s[0] == 0x7F)
		return 1;
	if (s[0] == 0xC2 && n > 1 && s[1] >= 0x80 && s[1] <= 0x9F)
		return 2;
	return 0;
}

/* Valid UTF-8 for s: s itself or a sanitized copy in tmp. */
static const char *valid(const char *s, size_t *len, struct buf *tmp)
{
	if (utf8_valid(s, *len))
		return s;
	buf_init(tmp, *len * 3 + 16);
	utf8_sanitize(s, *len, tmp, NULL);
	*len = tmp->len;
	return buf_str(tmp);
}

static int escape_html(struct buf *b, const char *s, size_t len, bool bare)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, k;

	while (i < len) {
		const char *rep = NULL;
		char num[12];
		unsigned c = p[i];

		if ((k = control_len(p + i, len - i, !bare))) {
			rep = " ";
			if (bare)
				rep = "&#32;";
		} else {
			switch (c) {
			case '&': rep = "&amp;"; break;
			case '<': rep = "&lt;"; break;
			case '>': rep = "&gt;"; break;
			case '"': rep = "&quot;"; break;
			case '\'': rep = "&#39;"; break;
			default:
				if (bare && c < 0x80 && !is_alnum((int)c) && c != '.' && c != '-' &&
				    c != '_') {
					snprintf(num, sizeof(num), "&#%u;", c);
					rep = num;
				}
				break;
			}
			k = 1;
		}
		if (!rep) {
			i++;
			continue;
		}
		if (buf_add(b, s + run, i - run) || buf_adds(b, rep))
			return -1;
		i += k;
		run = i;
	}
	return buf_add(b, s + run, i - run);
}

int tpl_escape_html(struct buf *b, const char *s, size_t len)
{
	struct buf tmp = BUF_INIT(0);
	int rc;

	s = valid(s, &len, &tmp);
	rc = escape_html(b, s, len, false);
	buf_free(&tmp);
	return rc;
}

static bool unreserved(int c)
{
	return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Bytes allowed in a URL as they are (RFC 3986 unreserved + reserved). */
static bool url_char(int c)
{
	return unreserved(c) || (c && strchr(":/?#[]@!$&'()*+,;=", c));
}

static bool is_xdigit(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int tpl_escape_component(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char e[3] = { '%', hex[c >> 4], hex[c & 15] };
		if (unreserved(c) ? buf_addc(b, (char)c) : buf_add(b, e, 3))
			return -1;
	}
	return 0;
}

/* A URL: tabs and line breaks dropped (browsers ignore them), leading
 * spaces and controls dropped, a dangerous scheme replaced by "#", bytes not
 * allowed in a URL %-encoded ('%' kept when it starts an escape), then '&'
 * and '\'' as entities for the attribute. */
static int escape_url(struct buf *b, const char *s, size_t len, bool check_scheme)
{
	static const char hex[] = "0123456789ABCDEF";
	struct buf u = BUF_INIT(len * 3 + 16);
	size_t i;
	int rc = -1;

	while (check_scheme && len && (unsigned char)*s <= 0x20) {
		s++;
		len--;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (url_char(c) || (c == '%' && i + 2 < len && is_xdigit(s[i + 1]) &&
				    is_xdigit(s[i + 2]))) {
			if (buf_addc(&u, (char)c))
				goto out;
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			if (buf_add(&u, e, 3))
				goto out;
		}
	}
	if (check_scheme) {
		const char *v = buf_str(&u);
		size_t k = strcspn(v, ":/?#");
		if (v[k] == ':') {
			static const char *const ok[] = { "http", "https", "ftp", "mailto" };
			bool good = false;
			size_t j;
			for (j = 0; j < ARRAY_SIZE(ok); j++)
				if (strlen(ok[j]) == k && !ascii_ncasecmp(v, ok[j], k))
					good = true;
			if (!good) {
				rc = buf_addc(b, '#');
				goto out;
			}
		}
	}
	rc = escape_html(b, buf_str(&u), u.len, false);
out:
	buf_free(&u);
	return rc;
}

/* \uXXXX (JavaScript) or \HHHHHH and a space (CSS) for all but a few safe
 * ASCII bytes. */
static int escape_code(struct buf *b, const char *s, size_t len, bool css)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t k = utf8_decode(p + i, len - i, &cp);
		int c = p[i];
		int rc;

		if (c < 0x80 && (is_alnum(c) || c == ' ' || c == '_' || c == '.' || c == ',' ||
				 c == '-'))
			rc = buf_addc(b, (char)c);
		else if (css)
			rc = buf_printf(b, "\\%X ", (unsigned)cp);
		else if (cp < 0x10000)
			rc = buf_printf(b, "\\u%04X", (unsigned)cp);
		else
			rc = buf_printf(b, "\\u%04X\\u%04X", (unsigned)(0xD800 + ((cp - 0x10000) >> 10)),
					(unsigned)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
		if (rc)
			return -1;
		i += k;
	}
	return 0;
}

static int raw_text(struct buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, k;

	while (i < len) {
		if (!(k = control_len(p + i, len - i, true))) {
			i++;
			continue;
		}
		if (buf_add(b, s + run, i - run) || buf_addc(b, ' '))
			return -1;
		i += k;
		run = i;
	}
	return buf_add(b, s + run, i - run);
}

int tpl_put_text(struct tpl_run *r, enum tpl_ctx ctx, const char *s, size_t len)
{
	struct buf tmp = BUF_INIT(0);
	int rc = -1;

	s = valid(s, &len, &tmp);
	switch (ctx) {
	case TPL_HTML:
	case TPL_ATTR:
		rc = escape_html(r->out, s, len, false);
		break;
	case TPL_ATTR_BARE:
		rc = escape_html(r->out, s, len, true);
		break;
	case TPL_URL:
		rc = escape_url(r->out, s, len, true);
		break;
	case TPL_URL_PART:
		rc = tpl_escape_component(r->out, s, len);
		break;
	case TPL_SCRIPT:
		rc = escape_code(r->out, s, len, false);
		break;
	case TPL_CSS:
		rc = escape_code(r->out, s, len, true);
		break;
	case TPL_RAW:
		rc = raw_text(r->out, s, len);
		break;
	}
	buf_free(&tmp);
	return rc;
}

int tpl_put_markup(struct tpl_run *r, enum tpl_ctx ctx, const char *s, size_t len)
{
	if (ctx == TPL_HTML)
		return buf_add(r->out, s, len);
	return tpl_put_text(r, ctx, s, len);
}

int tpl_put_url(struct tpl_run *r, enum tpl_ctx ctx, const char *s, size_t len)
{
	if (ctx == TPL_URL || ctx == TPL_URL_PART)
		return escape_url(r->out, s, len, ctx == TPL_URL);
	return tpl_put_text(r, ctx, s, len);
}

int tpl_escape_json(struct buf *b, const char *s, size_t len)
{
	struct buf tmp = BUF_INIT(0);
	const unsigned char *p;
	size_t i = 0, run = 0;
	int rc = -1;

	s = valid(s, &len, &tmp);
	p = (const unsigned char *)s;
	while (i < len) {
		unsigned c = p[i];
		const char *rep = NULL;
		char u[8];
		size_t k = 1;

		switch (c) {
		case '"': rep = "\\\""; break;
		case '\\': rep = "\\\\"; break;
		case '\n': rep = "\\n"; break;
		case '\r': rep = "\\r"; break;
		case '\t': rep = "\\t"; break;
		case '<': case '>': case '&': case 0x7F:
			snprintf(u, sizeof(u), "\\u%04x", c);
			rep = u;
			break;
		default:
			if (c < 0x20) {
				snprintf(u, sizeof(u), "\\u%04x", c);
				rep = u;
			} else if (c == 0xE2 && i + 2 < len && p[i + 1] == 0x80 &&
				   (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)) {
				rep = p[i + 2] == 0xA8 ? "\\u2028" : "\\u2029";
				k = 3;
			}
			break;
		}
		if (!rep) {
			i++;
			continue;
		}
		if (buf_add(b, s + run, i - run) || buf_adds(b, rep))
			goto out;
		i += k;
		run = i;
	}
	rc = buf_add(b, s + run, i - run);
out:
	buf_free(&tmp);
	return rc;
}
