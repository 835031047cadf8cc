/* test-conf.c - the config parser, driven by tests/data/conf/: time.tsv,
 * good/<case>.{conf,htm} checked against good/<case>.expect, bad/<case>
 * files that name their error in "# expect:" headers, filters.tsv against
 * filters.conf, and the shipped etc/ samples.
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "tap.h"
#include "util.h"

/* ---- a dumper: struct conf as "key\tvalue" lines ------------------------- */

static void kv(struct buf *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kv(struct buf *b, const char *key, const char *fmt, ...)
{
	va_list ap;
	buf_printf(b, "%s\t", key);
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
	buf_addc(b, '\n');
}

static const char *S(const char *s)
{
	return s ? s : "(null)";
}

static const char *B(bool v)
{
	return v ? "yes" : "no";
}

static void dump_params(struct buf *b, const char *pre, const struct conf_server_params *p)
{
	char k[256];
#define K(name) (snprintf(k, sizeof(k), "%s%s", pre, name), k)
	kv(b, K("period"), "%ld", p->period);
	kv(b, K("max_hops"), "%ld", p->max_hops);
	kv(b, K("increment_hops_on_redirect"), "%s", B(p->increment_hops_on_redirect));
	kv(b, K("redirect_loop_limit"), "%ld", p->redirect_loop_limit);
	kv(b, K("max_urls_per_server"), "%ld", p->max_urls_per_server);
	kv(b, K("max_docs_at_once"), "%ld", p->max_docs_at_once);
	kv(b, K("min_delay"), "%g", p->min_delay);
	kv(b, K("read_timeout"), "%ld", p->read_timeout);
	kv(b, K("robots"), "%s", B(p->robots));
	kv(b, K("delete_bad"), "%s", B(p->delete_bad));
	kv(b, K("index"), "%s", B(p->index));
	kv(b, K("follow"), "%s", B(p->follow));
	kv(b, K("follow_outside"), "%s", B(p->follow_outside));
	kv(b, K("scope"), "%s", p->path_scope ? "path" : "site");
	kv(b, K("tag"), "%ld", p->tag);
	kv(b, K("charset"), "%s", S(p->charset));
	kv(b, K("proxy"), "%s", S(p->proxy));
#undef K
}

static const char *const filter_kinds[] = {
	"Allow", "Disallow", "AllowNoMatch", "DisallowNoMatch", "CheckOnly", "CheckOnlyNoMatch",
};
static const char *const verdicts[] = { "allow", "disallow", "checkonly" };
static const char *const kinds[] = { "indexer", "searchd", "template" };

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void dump(struct buf *b, const struct conf *c)
{
	char k[128];
	size_t i;

	buf_addc(b, '\n'); /* so that every key can be found as "\nkey\t" */
	kv(b, "kind", "%s", kinds[c->kind]);
	kv(b, "db.set", "%s", B(c->db.set));
	kv(b, "db.user", "%s", S(c->db.user));
	kv(b, "db.pass", "%s", S(c->db.pass));
	kv(b, "db.host", "%s", S(c->db.host));
	kv(b, "db.port", "%d", c->db.port);
	kv(b, "db.socket", "%s", S(c->db.socket));
	kv(b, "db.name", "%s", S(c->db.name));
	kv(b, "data_dir", "%s", S(c->data_dir));
	kv(b, "debug_level", "%d", c->debug_level);
	kv(b, "max_doc_size", "%ld", c->max_doc_size);
	kv(b, "min_word_length", "%ld", c->min_word_length);
	kv(b, "max_word_length", "%ld", c->max_word_length);
	kv(b, "n_stopword_files", "%zu", c->n_stopword_files);
	for (i = 0; i < c->n_stopword_files; i++) {
		snprintf(k, sizeof(k), "stopword_file[%zu]", i);
		kv(b, k, "%s %s", S(c->stopword_langs[i]), c->stopword_files[i]);
	}
	kv(b, "n_http_headers", "%zu", c->n_http_headers);
	for (i = 0; i < c->n_http_headers; i++) {
		snprintf(k, sizeof(k), "http_header[%zu]", i);
		kv(b, k, "%s", c->http_headers[i]);
	}
	kv(b, "user_agent", "%s", S(c->user_agent));
	kv(b, "n_bandwidth", "%zu", c->n_bandwidth);
	for (i = 0; i < c->n_bandwidth; i++) {
		snprintf(k, sizeof(k), "bandwidth[%zu]", i);
		kv(b, k, "%ld %ld %ld", c->bandwidth[i].bytes_per_sec, c->bandwidth[i].start,
		   c->bandwidth[i].end);
	}
	kv(b, "delta_buffer_size", "%ld", c->delta_buffer_size);
	kv(b, "clones", "%s", B(c->clones));
	kv(b, "delete_no_server", "%s", B(c->delete_no_server));
	kv(b, "address_expiry", "%ld", c->address_expiry);
	kv(b, "next_doc_limit", "%ld", c->next_doc_limit);
	kv(b, "db_connections", "%ld", c->db_connections);
	kv(b, "claim_batch", "%ld", c->claim_batch);
	kv(b, "max_transfers", "%ld", c->max_transfers);
	kv(b, "lease_time", "%ld", c->lease_time);
	kv(b, "clone_table_entries", "%ld", c->clone_table_entries);
	kv(b, "pagerank_damping", "%.17g", c->pagerank_damping);
	kv(b, "pagerank_tolerance", "%.17g", c->pagerank_tolerance);
	kv(b, "pagerank_max_iterations", "%ld", c->pagerank_max_iterations);
	kv(b, "db_listen_tcp", "%s", B(c->db_listen_tcp));
	kv(b, "db_listen", "%s", S(c->db_listen));
	kv(b, "db_pool_mib", "%ld", c->db_pool_mib);
	kv(b, "n_servers", "%zu", c->n_servers);
	for (i = 0; i < c->n_servers; i++) {
		const struct conf_server *s = &c->servers[i];
		snprintf(k, sizeof(k), "server[%zu]", i);
		kv(b, k, "%s", s->url);
		snprintf(k, sizeof(k), "server[%zu].where", i);
		kv(b, k, "%s:%d", base(s->file), s->line);
		snprintf(k, sizeof(k), "server[%zu].auth_basic", i);
		kv(b, k, "%s", S(s->auth_basic));
		snprintf(k, sizeof(k), "server[%zu].", i);
		dump_params(b, k, &s->p);
	}
	dump_params(b, "defaults.", &c->defaults);
	kv(b, "n_filters", "%zu", c->n_filters);
	for (i = 0; i < c->n_filters; i++) {
		const struct conf_filter *f = &c->filters[i];
		snprintf(k, sizeof(k), "filter[%zu]", i);
		kv(b, k, "%s %s", filter_kinds[f->kind], f->pattern);
		snprintf(k, sizeof(k), "filter[%zu].where", i);
		kv(b, k, "%s:%d", base(f->file), f->line);
	}
	kv(b, "port", "%ld", c->port);
	kv(b, "listen", "%s", S(c->listen));
	kv(b, "n_allow_from", "%zu", c->n_allow_from);
	for (i = 0; i < c->n_allow_from; i++) {
		snprintf(k, sizeof(k), "allow_from[%zu]", i);
		kv(b, k, "%s", c->allow_from[i]);
	}
	kv(b, "max_threads", "%ld", c->max_threads);
	kv(b, "min_fixed_pattern_length", "%ld", c->min_fixed_pattern_length);
	kv(b, "query_time_limit", "%ld", c->query_time_limit);
	kv(b, "slow_query_time", "%ld", c->slow_query_time);
	kv(b, "n_daemon_addresses", "%zu", c->n_daemon_addresses);
	for (i = 0; i < c->n_daemon_addresses; i++) {
		snprintf(k, sizeof(k), "daemon_address[%zu]", i);
		kv(b, k, "%s", c->daemon_addresses[i]);
	}
	kv(b, "results_per_page", "%ld", c->results_per_page);
	kv(b, "pages_per_screen", "%ld", c->pages_per_screen);
	kv(b, "max_excerpts", "%ld", c->max_excerpts);
	kv(b, "max_excerpt_len", "%ld", c->max_excerpt_len);
	kv(b, "show_clones", "%s", B(c->show_clones));
	kv(b, "local_charset", "%s", S(c->local_charset));
	kv(b, "n_errors", "%zu", c->n_errors);
	for (i = 0; i < c->n_errors; i++)
		kv(b, c->error_names[i], "%s", c->error_texts[i]);
}

/* The value of key in a dump, copied into out; false if absent. */
static bool lookup(const struct buf *d, const char *key, char *out, size_t size)
{
	char pat[512];
	const char *s, *e;

	snprintf(pat, sizeof(pat), "\n%s\t", key);
	s = strstr(buf_str(d), pat);
	if (!s)
		return false;
	s += strlen(pat);
	e = strchr(s, '\n');
	snprintf(out, size, "%.*s", (int)(e - s), s);
	return true;
}

/* ---- time.tsv ------------------------------------------------------------ */

static void time_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	long got = 0;
	int rc;

	(void)len;
	(void)arg;
	if (n < 2) {
		ok(0, "time.tsv:%d: needs two fields", lineno);
		return;
	}
	rc = conf_parse_time(f[0], &got);
	if (!strcmp(f[1], "ERR")) {
		ok(rc == -1, "time \"%s\" is an error", f[0]);
	} else {
		long want = strtol(f[1], NULL, 10);
		ok(rc == 0 && got == want, "time \"%s\" = %s", f[0], f[1]);
		if (rc || got != want)
			diag("  rc %d, got %ld", rc, got);
	}
}

/* ---- case files ---------------------------------------------------------- */

struct header {
	char expect[1024];
	char file[256];
	int line;
	enum conf_kind kind;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* "# expect: ...", "# line: N", "# kind: ...", "# file: ..." lines. */
static void read_header(const char *path, struct header *h)
{
	char line[4096];
	FILE *fp = fopen(path, "r");

	memset(h, 0, sizeof(*h));
	h->kind = ends_with(path, ".htm") ? CONF_TEMPLATE : CONF_INDEXER;
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *v;
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "# ", 2))
			continue;
		v = strchr(line, ':');
		if (!v)
			continue;
		for (v++; *v == ' '; v++)
			;
		if (!strncmp(line, "# expect:", 9))
			snprintf(h->expect, sizeof(h->expect), "%s", v);
		else if (!strncmp(line, "# line:", 7))
			h->line = (int)strtol(v, NULL, 10);
		else if (!strncmp(line, "# file:", 7))
			snprintf(h->file, sizeof(h->file), "%s", v);
		else if (!strncmp(line, "# kind:", 7))
			h->kind = !strcmp(v, "searchd") ? CONF_SEARCHD
				: !strcmp(v, "template") ? CONF_TEMPLATE : CONF_INDEXER;
	}
	fclose(fp);
}

static int is_case(const struct dirent *e)
{
	return e->d_name[0] != '.' && (ends_with(e->d_name, ".conf") || ends_with(e->d_name, ".htm"));
}

struct expect_ctx {
	const struct conf *c;
	const struct buf *dump;
	const char *name;
	const char *dir;
};

static void expect_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct expect_ctx *x = arg;
	char got[4096], *want;
	const char *key = f[0], *at;

	(void)len;
	/* @DIR@ is the case file's directory, absolute; @VERSION@ the package's */
	if (n > 1 && (at = strstr(f[1], "@DIR@")) != NULL)
		want = xasprintf("%.*s%s%s", (int)(at - f[1]), f[1], x->dir, at + 5);
	else if (n > 1 && (at = strstr(f[1], "@VERSION@")) != NULL)
		want = xasprintf("%.*s%s%s", (int)(at - f[1]), f[1], PACKAGE_VERSION, at + 9);
	else
		want = xstrdup(n > 1 ? f[1] : "");

	if (!strncmp(key, "verdict ", 8)) {
		snprintf(got, sizeof(got), "%s", verdicts[conf_filter_url(x->c, key + 8)]);
	} else if (!strncmp(key, "server_for ", 11)) {
		const struct conf_server *s = conf_server_for(x->c, key + 11);
		snprintf(got, sizeof(got), "%s", s ? s->url : "(none)");
	} else if (!strncmp(key, "site_scope ", 11) || !strncmp(key, "legacy_scope ", 13)) {
		/* "site_scope URL": conf_site_scope(), "-" for empty */
		bool legacy = key[0] == 'l';
		struct buf d = BUF_INIT(1 << 16);
		conf_site_scope(x->c, key + (legacy ? 13 : 11), legacy, &d);
		snprintf(got, sizeof(got), "%s", d.len ? buf_str(&d) : "-");
		buf_free(&d);
	} else if (!strncmp(key, "params_for ", 11)) {
		/* "params_for URL field" */
		char url[2048];
		const char *sp = strrchr(key, ' ');
		struct buf d = BUF_INIT(1 << 20);
		snprintf(url, sizeof(url), "%.*s", (int)(sp - key - 11), key + 11);
		buf_addc(&d, '\n');
		dump_params(&d, "", conf_params_for(x->c, url));
		if (!lookup(&d, sp + 1, got, sizeof(got)))
			snprintf(got, sizeof(got), "(no such field)");
		buf_free(&d);
	} else if (!lookup(x->dump, key, got, sizeof(got))) {
		snprintf(got, sizeof(got), "(missing)");
	}
	is_str(got, want, "%s:%d: %s", x->name, lineno, key);
	free(want);
}

static void good_cases(void)
{
	struct dirent **list;
	char dir[PATH_MAX], absdir[PATH_MAX];
	int n, i;

	snprintf(dir, sizeof(dir), "%s", tap_data("conf/good"));
	n = scandir(dir, &list, is_case, alphasort);
	if (!ok(n > 0, "good cases found in %s", dir))
		return;
	if (!realpath(dir, absdir))
		snprintf(absdir, sizeof(absdir), "%s", dir);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX + 256], expect[512];
		struct buf err = BUF_INIT(4096), d = BUF_INIT(1 << 20);
		struct conf *c = NULL;
		struct header h;
		size_t stem;

		snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
		read_header(path, &h);
		if (ok(conf_load(path, h.kind, &c, &err) == 0, "good/%s loads", list[i]->d_name)) {
			struct expect_ctx x = { c, &d, list[i]->d_name, absdir };
			dump(&d, c);
			stem = strlen(list[i]->d_name) - (ends_with(list[i]->d_name, ".htm") ? 4 : 5);
			snprintf(expect, sizeof(expect), "conf/good/%.*s.expect", (int)stem,
				 list[i]->d_name);
			tap_lines(expect, expect_line, &x);
		} else {
			diag("  %s", buf_str(&err));
		}
		conf_free(c);
		buf_free(&err);
		buf_free(&d);
		free(list[i]);
	}
	free(list);
}

static void bad_cases(void)
{
	struct dirent **list;
	char dir[PATH_MAX];
	int n, i;

	snprintf(dir, sizeof(dir), "%s", tap_data("conf/bad"));
	n = scandir(dir, &list, is_case, alphasort);
	ok(n >= 25, "at least 25 bad cases (%d)", n);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX + 256], where[PATH_MAX + 300];
		struct buf err = BUF_INIT(4096);
		struct conf *c = (struct conf *)&err; /* must come back NULL */
		struct header h;
		const char *e;
		int rc;

		snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
		read_header(path, &h);
		rc = conf_load(path, h.kind, &c, &err);
		e = buf_str(&err);
		ok(rc == -1 && c == NULL, "bad/%s fails with *out NULL", list[i]->d_name);
		if (!h.expect[0] || !h.line)
			ok(0, "bad/%s has # expect: and # line: headers", list[i]->d_name);
		if (!ok(strstr(e, h.expect) != NULL, "bad/%s: error says \"%s\"", list[i]->d_name,
			h.expect))
			diag("  got: %s", e);
		if (h.file[0]) {
			/* an Included file: named by its path, before the first space */
			const char *at;
			snprintf(where, sizeof(where), "/%s:%d: ", h.file, h.line);
			at = strstr(e, where);
			if (!ok(at && at < strchr(e, ' '), "bad/%s: error at %s:%d",
				list[i]->d_name, h.file, h.line))
				diag("  got: %s", e);
		} else {
			snprintf(where, sizeof(where), "%s:%d: ", path, h.line);
			if (!ok(!strncmp(e, where, strlen(where)), "bad/%s: error at line %d",
				list[i]->d_name, h.line))
				diag("  got: %s", e);
		}
		ok(strchr(e, '\n') == NULL && err.len > 0, "bad/%s: one line", list[i]->d_name);
		if (rc == 0)
			conf_free(c);
		buf_free(&err);
		free(list[i]);
	}
	free(list);
}

/* ---- filters.tsv --------------------------------------------------------- */

static void filter_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	const struct conf *c = arg;
	(void)len;
	if (n < 2) {
		ok(0, "filters.tsv:%d: needs two fields", lineno);
		return;
	}
	is_str(verdicts[conf_filter_url(c, f[0])], f[1], "filter %s", f[0]);
}

/* ---- the rest ------------------------------------------------------------ */

static void sample(const char *name, enum conf_kind kind)
{
	char path[PATH_MAX];
	const char *srcdir = getenv("srcdir");
	struct buf err = BUF_INIT(4096);
	struct conf *c = NULL;

	snprintf(path, sizeof(path), "%s/etc/%s", srcdir ? srcdir : ".", name);
	if (!ok(conf_load(path, kind, &c, &err) == 0, "sample etc/%s loads", name))
		diag("  %s", buf_str(&err));
	conf_free(c);
	buf_free(&err);
}

static void misc(void)
{
	struct buf err = BUF_INIT(4096);
	struct conf *c = NULL;
	static const char inc[] = "Include /etc/passwd\n";

	conf_free(NULL);
	ok(1, "conf_free(NULL)");

	ok(conf_load("/nonexistent/mpseek.conf", CONF_INDEXER, &c, &err) == -1 && !c,
	   "missing config fails");
	is_str(buf_str(&err), "/nonexistent/mpseek.conf: cannot read config: No such file or directory",
	       "missing config message");

	ok(conf_load_string_ex("fuzz", inc, sizeof(inc) - 1, CONF_INDEXER, CONF_NO_FILES, &c,
			       &err) == -1 && !c, "CONF_NO_FILES refuses Include");
	is_str(buf_str(&err), "fuzz:1: Include is disabled here: Include /etc/passwd",
	       "CONF_NO_FILES message");

	ok(conf_load_string("s", "Period 1d\n", 10, CONF_INDEXER, &c, NULL) == 0,
	   "conf_load_string without an err buffer");
	is_int(c ? c->defaults.period : 0, 86400, "conf_load_string parses");
	conf_free(c);

	setenv("MPSEEK_DATADIR", "/srv/mpseek/./data/", 1);
	ok(conf_load_string("s", "", 0, CONF_SEARCHD, &c, &err) == 0, "empty searchd config");
	is_str(c ? c->data_dir : NULL, "/srv/mpseek/data", "MPSEEK_DATADIR is the default DataDir");
	conf_free(c);
	unsetenv("MPSEEK_DATADIR");
	ok(conf_load_string("s", "", 0, CONF_SEARCHD, &c, &err) == 0, "empty searchd config");
	is_str(c ? c->data_dir : NULL, "/var/lib/mpseek", "compiled-in default DataDir");
	ok(c && conf_filter_url(c, "http://x/") == VERDICT_ALLOW, "no filters: allow");
	ok(c && conf_server_for(c, "http://x/") == NULL, "no servers: no server");
	conf_free(c);

	/* a NUL inside a string config is an error, not a silent cut */
	ok(conf_load_string("s", "Period 1d\0x\n", 12, CONF_INDEXER, &c, &err) == -1,
	   "NUL byte refused");
	buf_free(&err);
}

int main(void)
{
	struct buf err = BUF_INIT(4096);
	struct conf *c = NULL;

	unsetenv("MPSEEK_DATADIR"); /* the defaults below are the compiled-in ones */
	tap_lines("conf/time.tsv", time_case, NULL);
	good_cases();
	bad_cases();
	if (ok(conf_load(tap_data("conf/filters.conf"), CONF_INDEXER, &c, &err) == 0,
	       "filters.conf loads"))
		tap_lines("conf/filters.tsv", filter_case, c);
	else
		diag("  %s", buf_str(&err));
	conf_free(c);
	buf_free(&err);
	sample("mpseek.conf", CONF_INDEXER);
	sample("searchd.conf", CONF_SEARCHD);
	sample("s.htm", CONF_TEMPLATE);
	misc();
	return done_testing();
}
