/* conf.c - one directive table (conf_directives.c) drives etc/mpseek.conf,
 * etc/searchd.conf and the <!--variables--> block of etc/s.htm into one
 * immutable struct conf.  This file owns the syntax: reading files, Include,
 * continued lines, comments, quoting, finding the directive of a line, the
 * file:line errors and the checks that need the whole file; and the memory
 * of a struct conf.  Not URL normalisation (url.c), not stopword lists.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "log.h"
#include "util.h"

#include "conf_int.h"

/* Bytes of the offending line quoted in an error message. */
#define MAX_SHOWN_LINE 200

static const char *const kind_files[] = { "mpseek.conf", "searchd.conf", "s.htm" };

/* ---- the memory of a struct conf ---------------------------------------- */

void *conf_grow_array(void *arr, size_t n, size_t size)
{
	if (n == 0)
		return xrealloc(arr, 8 * size);
	if (n >= 8 && (n & (n - 1)) == 0)
		return xrealloc(arr, 2 * n * size);
	return arr;
}

char *conf_pool_take(struct conf *c, char *s)
{
	c->pool = conf_grow_array(c->pool, c->n_pool, sizeof(*c->pool));
	c->pool[c->n_pool++] = s;
	return s;
}

char *conf_pool_dup(struct conf *c, const char *s)
{
	return conf_pool_take(c, xstrdup(s));
}

void conf_push_str(char ***arr, size_t *n, char *s)
{
	*arr = conf_grow_array(*arr, *n, sizeof(**arr));
	(*arr)[(*n)++] = s;
}

char *conf_join_path(const char *dir, const char *rel)
{
	char *full = rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", dir, rel);
	char *out = xmalloc(strlen(full) + 2);
	const char *s = full;
	size_t o = 0;

	while (*s) {
		const char *e;
		size_t n;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		if (!e)
			e = s + strlen(s);
		n = (size_t)(e - s);
		if (n == 1 && s[0] == '.') {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, s, n);
			o += n;
		}
		s = e;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(full);
	return out;
}

/* The absolute directory holding `path`; NULL if the cwd is unknown. */
static char *abs_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *res;
	char cwd[PATH_MAX];

	if (!slash)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	if (dir[0] == '/') {
		res = conf_join_path("/", dir);
	} else if (getcwd(cwd, sizeof(cwd))) {
		res = conf_join_path(cwd, dir);
	} else {
		res = NULL;
	}
	free(dir);
	return res;
}

/* ---- error messages ----------------------------------------------------- */

/* The password in a line of DBAddr (between user: and the last @), DBPass
 * or AuthBasic (after user:): [*from, *to).  False when there is none. */
static bool secret_span(const char *t, size_t *from, size_t *to)
{
	size_t w = strcspn(t, " \t"), a = w + strspn(t + w, " \t");
	const char *s, *at, *colon;

	*to = strlen(t);
	if (w == 6 && !ascii_ncasecmp(t, "DBPass", 6)) {
		*from = a;
		return *from < *to;
	}
	if (w == 9 && !ascii_ncasecmp(t, "AuthBasic", 9)) {
		colon = strchr(t + a, ':');
		*from = colon ? (size_t)(colon + 1 - t) : a;
		return *from < *to;
	}
	if (w != 6 || ascii_ncasecmp(t, "DBAddr", 6) || !(s = strstr(t + a, "://")) ||
	    !(at = strrchr(s, '@')))
		return false;
	colon = memchr(s + 3, ':', (size_t)(at - s - 3));
	if (!colon)
		return false;
	*from = (size_t)(colon + 1 - t);
	*to = (size_t)(at - t);
	return true;
}

/* The current line as an error shows it: at most MAX_SHOWN_LINE bytes, a
 * password replaced by "***" (an error goes to a terminal or a log). */
static void add_shown_line(struct buf *m, const char *text)
{
	struct buf t = BUF_INIT(MAX_LOG_LINE);
	size_t from, to, n;

	if (secret_span(text, &from, &to)) {
		buf_add(&t, text, from);
		buf_adds(&t, "***");
		buf_adds(&t, text + to);
		text = buf_str(&t);
	}
	n = strlen(text);
	buf_adds(m, ": ");
	buf_add(m, text, n > MAX_SHOWN_LINE ? MAX_SHOWN_LINE : n);
	if (n > MAX_SHOWN_LINE)
		buf_adds(m, "...");
	buf_free(&t);
}

void conf_secret_note(struct parser *p)
{
	mode_t mode = p->depth > 0 ? p->open[p->depth - 1].mode : 0;

	if (!(mode & S_IROTH) || p->secret_warned)
		return;
	p->secret_warned = true;
	warning("%s:%d: this file holds a password and every user can read it (mode %04o): "
		"chmod o-r %s", p->file, p->line, (unsigned)(mode & 07777), p->file);
}

int conf_perr(struct parser *p, const char *fmt, ...)
{
	struct buf m = BUF_INIT(MAX_LOG_LINE);
	va_list ap;
	size_t i, n;

	if (p->failed)
		return -1;
	p->failed = true;
	if (!p->err)
		return -1;
	if (p->line > 0)
		buf_printf(&m, "%.512s:%d: ", p->file, p->line);
	else
		buf_printf(&m, "%.512s: ", p->file);
	va_start(ap, fmt);
	buf_vprintf(&m, fmt, ap);
	va_end(ap);
	if (p->text)
		add_shown_line(&m, p->text);
	for (i = 0; i < m.len; i++)
		if ((unsigned char)m.ptr[i] < 0x20 || m.ptr[i] == 0x7f)
			m.ptr[i] = '?';
	buf_reset(p->err);
	n = m.len;
	if (p->err->max < n)
		n = p->err->max;
	buf_add(p->err, buf_str(&m), n);
	buf_free(&m);
	return -1;
}

/* ---- lines -------------------------------------------------------------- */

/* Cut a '#' comment (at the start or after whitespace, outside quotes). */
static void strip_comment(char *s)
{
	bool quoted = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (quoted) {
			if (s[i] == '\\' && s[i + 1])
				i++;
			else if (s[i] == '"')
				quoted = false;
			continue;
		}
		if (i > 0 && !is_ws(s[i - 1]))
			continue;
		if (s[i] == '"') {
			quoted = true;
		} else if (s[i] == '#') {
			s[i] = '\0';
			return;
		}
	}
}

/* Split s into whitespace-separated arguments written to out; a "quoted
 * argument" may hold spaces, \" is a quote, other backslashes are kept for
 * the regex engine. */
static int tokenize(struct parser *p, const char *s, char *out, char **argv, int *argc)
{
	int n = 0;

	for (;;) {
		while (is_ws(*s))
			s++;
		if (!*s)
			break;
		argv[n++] = out;
		if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				if (*s == '\\' && s[1] == '"')
					s++;
				else if (*s == '\\' && s[1])
					*out++ = *s++;
				*out++ = *s;
			}
			if (!*s)
				return conf_perr(p, "unterminated quoted argument");
			s++;
			if (*s && !is_ws(*s))
				return conf_perr(p, "text after a closing quote");
		} else {
			while (*s && !is_ws(*s))
				*out++ = *s++;
		}
		*out++ = '\0';
	}
	*argc = n;
	return 0;
}

static const struct directive *lookup(const char *name, size_t n, enum conf_kind kind,
				      unsigned *other_kinds)
{
	size_t i;

	*other_kinds = 0;
	for (i = 0; i < conf_n_directives; i++) {
		const struct directive *d = &conf_directives[i];
		if (strlen(d->name) != n || ascii_ncasecmp(d->name, name, n))
			continue;
		if (d->kinds & (1u << kind))
			return d;
		*other_kinds |= d->kinds;
	}
	return NULL;
}

static void kinds_text(unsigned kinds, char *out, size_t size)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(kind_files); i++) {
		if (!(kinds & (1u << i)))
			continue;
		o += (size_t)snprintf(out + o, size - o, "%s%s", o ? " or " : "", kind_files[i]);
		if (o >= size)
			break;
	}
}

static int check_argc(struct parser *p, const struct directive *d, int argc)
{
	if (argc >= d->amin && (d->amax < 0 || argc <= d->amax))
		return 0;
	if (d->amax == 0)
		return conf_perr(p, "%s takes no argument", d->name);
	if (d->amax < 0)
		return conf_perr(p, "%s needs at least %d argument%s", d->name, d->amin,
				 d->amin == 1 ? "" : "s");
	if (d->amin == d->amax)
		return conf_perr(p, "%s takes %d argument%s, got %d", d->name, d->amin,
				 d->amin == 1 ? "" : "s", argc);
	return conf_perr(p, "%s takes %d to %d arguments, got %d", d->name, d->amin, d->amax, argc);
}

/* One logical line (continuations joined), NUL-terminated and writable. */
static int do_line(struct parser *p, char *line, int lineno)
{
	char name[64], *rest, *e, *copy = NULL, **argv = NULL;
	const struct directive *d;
	unsigned other;
	size_t nlen;
	int argc = 0, rc = -1;

	strip_comment(line);
	while (is_ws(*line))
		line++;
	for (e = line + strlen(line); e > line && is_ws(e[-1]); e--)
		;
	*e = '\0';
	if (!*line)
		return 0;
	p->line = lineno;
	p->text = line;
	for (nlen = 0; line[nlen] && !is_ws(line[nlen]); nlen++)
		;
	for (rest = line + nlen; is_ws(*rest); rest++)
		;
	d = lookup(line, nlen, p->c->kind, &other);
	if (!d) {
		snprintf(name, sizeof(name), "%.*s", (int)nlen, line);
		if (other) {
			char where[64];
			kinds_text(other, where, sizeof(where));
			rc = conf_perr(p, "%s belongs in %s, not in %s", name, where,
				       kind_files[p->c->kind]);
		} else {
			rc = conf_perr(p, "unknown directive \"%s\"", name);
		}
		goto out;
	}
	p->last[d - conf_directives].file = p->file;
	p->last[d - conf_directives].line = lineno;
	if (d->raw) {
		copy = xstrdup(rest);
		argv = xmalloc(sizeof(*argv));
		argv[0] = copy;
		argc = *copy ? 1 : 0;
	} else {
		size_t n = strlen(rest);
		copy = xmalloc(n + 2);
		argv = xmalloc((n / 2 + 2) * sizeof(*argv));
		if (tokenize(p, rest, copy, argv, &argc))
			goto out;
	}
	if (check_argc(p, d, argc))
		goto out;
	rc = conf_apply(p, d, argc, argv);
out:
	free(copy);
	free(argv);
	p->text = NULL;
	return rc;
}

/* A line ends in a continuation when it ends in an odd run of backslashes
 * ("\\" at the end is an escaped backslash of a regex). */
static bool continues(const char *s, const char *e)
{
	size_t n = 0;

	while (e > s && e[-1] == '\\') {
		e--;
		n++;
	}
	return n % 2 == 1;
}

/* Feed text line by line.  With `vars` only the lines of <!--variables ...
 * --> blocks are read (s.htm), keeping the file's real line numbers. */
static int parse_text(struct parser *p, const char *text, size_t len, bool vars)
{
	struct buf lb = BUF_INIT(MAX_CONF_LINE);
	const char *s = text, *end = text + len;
	int lineno = 0, start = 0, block_line = 0, rc = -1;
	bool cont = false, inside = !vars;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end, *next = nl ? nl + 1 : end, *q;
		bool closing = false, more;

		lineno++;
		if (e > s && e[-1] == '\r')
			e--;
		if (!inside) {
			for (q = s; q < e && is_ws(*q); q++)
				;
			if ((size_t)(e - q) < 13 || ascii_ncasecmp(q, "<!--variables", 13) ||
			    (q + 13 < e && !is_ws(q[13]) && q[13] != '-')) {
				s = next;
				continue;
			}
			inside = true;
			block_line = lineno;
			s = q + 13;
		}
		if (vars) {
			const char *close = memmem(s, (size_t)(e - s), "-->", 3);
			if (close) {
				e = close;
				closing = true;
			}
		}
		if (memchr(s, '\0', (size_t)(e - s))) {
			p->line = lineno;
			conf_perr(p, "NUL byte in line");
			goto out;
		}
		for (q = s; q < e && is_ws(*q); q++)
			;
		if (q < e && *q == '#') {
			/* A comment line is skipped, even between continued
			 * lines, and never continues whatever it ends with. */
		} else {
			if (!cont) {
				start = lineno;
				buf_reset(&lb);
			}
			more = continues(s, e);
			if (buf_add(&lb, s, (size_t)(e - s - more))) {
				char *head = xstrndup(lb.len ? buf_str(&lb) : s,
						      lb.len ? lb.len : (size_t)(e - s));
				p->line = start;
				p->text = head;
				conf_perr(p, "line longer than %d bytes", MAX_CONF_LINE);
				p->text = NULL;
				free(head);
				goto out;
			}
			cont = more;
			if (!cont && do_line(p, lb.ptr, start))
				goto out;
		}
		if (closing) {
			if (cont && do_line(p, lb.ptr, start))
				goto out;
			cont = false;
			inside = false;
		}
		s = next;
	}
	if (cont && do_line(p, lb.ptr, start))
		goto out;
	if (vars && inside) {
		p->line = block_line;
		conf_perr(p, "<!--variables block has no closing -->");
		goto out;
	}
	rc = 0;
out:
	buf_free(&lb);
	return rc;
}

/* Read a whole regular file (at most MAX_CONF_FILE bytes).  On failure
 * returns -1 with *why set. */
static int read_all(const char *path, char **text, size_t *len, struct stat *st,
		    const char **why)
{
	struct buf b = BUF_INIT((size_t)MAX_CONF_FILE);
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 || fstat(fd, st)) {
		*why = strerror(errno);
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
		goto fail;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*why = strerror(errno);
			goto fail;
		}
		if (buf_add(&b, chunk, (size_t)n)) {
			*why = "file larger than 16 MiB";
			goto fail;
		}
	}
	close(fd);
	*text = buf_detach(&b, len);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	buf_free(&b);
	return -1;
}

/* Read and parse one file, top level or Included from the current line;
 * `shown` names it in messages. */
int conf_load_file(struct parser *p, const char *path, const char *shown, bool top, bool vars)
{
	struct conf *c = p->c;
	const char *why = NULL, *saved_file = p->file, *saved_text = p->text;
	char *text = NULL, *saved_dir = p->dir, *dir = NULL, *name;
	int saved_line = p->line, rc = -1, i;
	struct stat st;
	size_t len;

	if (p->depth >= MAX_CONF_DEPTH)
		return conf_perr(p, "Include nested deeper than %d files", MAX_CONF_DEPTH);
	if (read_all(path, &text, &len, &st, &why)) {
		if (top)
			return conf_perr(p, "cannot read config: %s", why);
		return conf_perr(p, "cannot read include file \"%.200s\": %s", shown, why);
	}
	for (i = 0; i < p->depth; i++) {
		if (p->open[i].dev == st.st_dev && p->open[i].ino == st.st_ino) {
			free(text);
			return conf_perr(p, "Include loop: \"%.200s\" is already being read",
					 shown);
		}
	}
	dir = abs_dir(path);
	if (!dir) {
		free(text);
		return conf_perr(p, "cannot find the current directory: %s", strerror(errno));
	}
	name = xstrdup(shown);
	conf_push_str(&c->files, &c->n_files, name);
	p->open[p->depth].dev = st.st_dev;
	p->open[p->depth].ino = st.st_ino;
	p->open[p->depth].mode = st.st_mode;
	p->depth++;
	p->file = name;
	p->dir = dir;
	p->line = 0;
	p->text = NULL;
	rc = parse_text(p, text, len, vars);
	p->depth--;
	p->file = saved_file;
	p->dir = saved_dir;
	p->line = saved_line;
	p->text = saved_text;
	free(dir);
	free(text);
	return rc;
}

/* ---- load / free -------------------------------------------------------- */

static size_t find_directive(const char *name, unsigned kinds)
{
	size_t i;

	for (i = 0; i < conf_n_directives; i++)
		if (!strcmp(conf_directives[i].name, name) && (conf_directives[i].kinds & kinds))
			break;
	return i;
}

/* Checks that need the whole file. */
static int finish(struct parser *p)
{
	struct conf *c = p->c;

	if (c->min_word_length > c->max_word_length) {
		struct loc a = p->last[find_directive("MinWordLength", IDX)];
		struct loc b = p->last[find_directive("MaxWordLength", IDX)];
		struct loc at = (!b.file || (a.file && a.file == b.file && a.line > b.line)) ? a : b;
		p->file = at.file;
		p->line = at.line;
		return conf_perr(p, "MinWordLength %ld is larger than MaxWordLength %ld",
				 c->min_word_length, c->max_word_length);
	}
	if (c->db.set && !c->db.name) {
		p->file = p->db_split.file;
		p->line = p->db_split.line;
		return conf_perr(p, "DBHost/DBUser/DBPass/DBPort/DBSock given without DBName");
	}
	c->defaults = p->cur;
	return 0;
}

static int load(const char *name, const char *text, size_t len, enum conf_kind kind,
		unsigned flags, struct conf **out, struct buf *err)
{
	struct parser p;
	struct conf *c = xcalloc(1, sizeof(*c));
	int rc = -1;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.flags = flags;
	p.err = err;
	p.file = name ? name : "(config)";
	p.last = xcalloc(conf_n_directives, sizeof(*p.last));
	if (err)
		buf_reset(err);
	if ((unsigned)kind >= ARRAY_SIZE(kind_files)) {
		conf_perr(&p, "unknown config kind %d", (int)kind);
		goto out;
	}
	c->kind = kind;
	c->path = conf_pool_dup(c, p.file);
	if (conf_apply_defaults(&p))
		goto out;
	if (!text) {
		if (conf_load_file(&p, p.file, p.file, true, kind == CONF_TEMPLATE))
			goto out;
	} else {
		char *shown = xstrdup(p.file);
		conf_push_str(&c->files, &c->n_files, shown);
		p.file = shown;
		p.dir = abs_dir(shown);
		if (!p.dir) {
			conf_perr(&p, "cannot find the current directory: %s", strerror(errno));
			goto out;
		}
		/* no device/inode for a string: it can never be Included again */
		p.open[0].dev = (dev_t)-1;
		p.open[0].ino = (ino_t)-1;
		p.depth = 1;
		rc = parse_text(&p, text, len, kind == CONF_TEMPLATE);
		free(p.dir);
		p.dir = NULL;
		if (rc)
			goto out;
		rc = -1;
	}
	if (finish(&p))
		goto out;
	rc = 0;
out:
	free(p.last);
	if (rc) {
		conf_free(c);
		c = NULL;
	}
	*out = c;
	return rc;
}

int conf_load(const char *path, enum conf_kind kind, struct conf **out, struct buf *err)
{
	return load(path, NULL, 0, kind, 0, out, err);
}

int conf_load_string(const char *name, const char *text, size_t len, enum conf_kind kind,
		     struct conf **out, struct buf *err)
{
	return load(name, text ? text : "", text ? len : 0, kind, 0, out, err);
}

int conf_load_string_ex(const char *name, const char *text, size_t len, enum conf_kind kind,
			unsigned flags, struct conf **out, struct buf *err)
{
	return load(name, text ? text : "", text ? len : 0, kind, flags, out, err);
}

void conf_free(struct conf *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n_filters; i++)
		pcre2_code_free(c->filters[i].re);
	free(c->filters);
	free(c->servers);
	free(c->server_index);
	pcre2_match_context_free(c->match_ctx);
	free(c->stopword_files);
	free(c->stopword_langs);
	free(c->http_headers);
	free(c->bandwidth);
	free(c->allow_from);
	free(c->common_words);
	free(c->daemon_addresses);
	free(c->error_names);
	free(c->error_texts);
	for (i = 0; i < c->n_files; i++)
		free(c->files[i]);
	free(c->files);
	for (i = 0; i < c->n_pool; i++)
		free(c->pool[i]);
	free(c->pool);
	free(c);
}
