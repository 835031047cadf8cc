/* test-html.c - html.c against tests/data/html/.
 *
 * Every NAME.html (or NAME.txt, parsed as text/plain) has a NAME.expect of
 * key<TAB>value lines (tap.h escapes):
 *   title|description|keywords|txt|base|canonical|js-redirect  VALUE
 *   robots   noindex,nofollow | noindex | nofollow
 *   refresh  DELAY  URL
 *   link     a|area|frame|iframe  URL  ANCHOR  [nofollow]   (document order)
 *   links    N         (total count; without it the link lines are all)
 *   dropped  N
 *   text     SECTION  EXACT        has|lacks  SECTION  SUBSTRING
 *   truncated  0|1
 * Scalars not mentioned must be empty.  generated.tsv builds hostile inputs
 * too big for files (name, head, unit, count, tail, then key/value pairs with
 * the extra fields of a check joined by '|': "has	body|text"), and
 * entities.tsv checks html_decode_entities().
 *
 * `test-html FILE` prints FILE's parse in .expect form (to write new cases).
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "html.h"
#include "tap.h"

static const char *const kinds[] = { "a", "area", "frame", "iframe" };

static void print_escaped(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c == '\\')
			fputs("\\\\", stdout);
		else if (c < 0x20)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void dump_kv(const char *key, const char *v)
{
	if (!v || !*v)
		return;
	printf("%s\t", key);
	print_escaped(v);
	putchar('\n');
}

static void dump(const struct html_doc *d)
{
	size_t i;
	int s;

	dump_kv("title", d->title);
	dump_kv("description", d->description);
	dump_kv("keywords", d->keywords);
	if (d->robots)
		printf("robots\t%s%s%s\n", d->robots & HTML_ROBOTS_NOINDEX ? "noindex" : "",
		       d->robots == 3 ? "," : "",
		       d->robots & HTML_ROBOTS_NOFOLLOW ? "nofollow" : "");
	if (d->refresh_url) {
		printf("refresh\t%d\t", d->refresh_delay);
		print_escaped(d->refresh_url);
		putchar('\n');
	}
	dump_kv("base", d->base);
	dump_kv("canonical", d->canonical);
	dump_kv("js-redirect", d->js_redirect);
	for (i = 0; i < d->nlinks; i++) {
		printf("link\t%s\t", kinds[d->links[i].kind]);
		print_escaped(d->links[i].url);
		putchar('\t');
		print_escaped(d->links[i].anchor);
		printf("%s\n", d->links[i].nofollow ? "\tnofollow" : "");
	}
	if (d->links_dropped)
		printf("dropped\t%zu\n", d->links_dropped);
	for (s = SECTION_COUNT - 1; s >= 0; s--)
		if (d->text[s].len) {
			printf("text\t%s\t", html_section_name((enum section)s));
			print_escaped(buf_str(&d->text[s]));
			putchar('\n');
		}
	dump_kv("txt", d->txt);
	if (d->truncated)
		printf("truncated\t1\n");
}

/* --- checking a parse against key/value lines ------------------------------ */

struct check {
	const char *name;
	struct html_doc *doc;
	int seen_title, seen_desc, seen_kw, seen_robots, seen_refresh, seen_base;
	int seen_canon, seen_js, seen_truncated;
	size_t nlink_lines;
	long links_total; /* -1: the link lines are all */
	bool text_mode;
};

static int section_by_name(const char *s)
{
	int i;
	for (i = 0; i < SECTION_COUNT; i++)
		if (!strcmp(s, html_section_name((enum section)i)))
			return i;
	return -1;
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

static void check_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct check *c = arg;
	struct html_doc *d = c->doc;
	const char *k = f[0];
	const char *v = n > 1 ? f[1] : "";

	(void)len;
	if (!strcmp(k, "title")) {
		c->seen_title = 1;
		is_str(d->title, v, "%s: title", c->name);
	} else if (!strcmp(k, "description")) {
		c->seen_desc = 1;
		is_str(d->description, v, "%s: description", c->name);
	} else if (!strcmp(k, "keywords")) {
		c->seen_kw = 1;
		is_str(d->keywords, v, "%s: keywords", c->name);
	} else if (!strcmp(k, "txt")) {
		is_str(d->txt, v, "%s: txt", c->name);
	} else if (!strcmp(k, "robots")) {
		unsigned want = (strstr(v, "noindex") ? HTML_ROBOTS_NOINDEX : 0) |
				(strstr(v, "nofollow") ? HTML_ROBOTS_NOFOLLOW : 0);
		c->seen_robots = 1;
		is_int(d->robots, want, "%s: robots", c->name);
	} else if (!strcmp(k, "refresh")) {
		c->seen_refresh = 1;
		is_int(d->refresh_delay, strtol(v, NULL, 10), "%s: refresh delay", c->name);
		is_str(nz(d->refresh_url), n > 2 ? f[2] : "", "%s: refresh url", c->name);
	} else if (!strcmp(k, "base")) {
		c->seen_base = 1;
		is_str(nz(d->base), v, "%s: base", c->name);
	} else if (!strcmp(k, "canonical")) {
		c->seen_canon = 1;
		is_str(nz(d->canonical), v, "%s: canonical", c->name);
	} else if (!strcmp(k, "js-redirect")) {
		c->seen_js = 1;
		is_str(nz(d->js_redirect), v, "%s: js-redirect", c->name);
	} else if (!strcmp(k, "link")) {
		size_t i = c->nlink_lines++;
		if (!ok(i < d->nlinks, "%s: link %zu exists", c->name, i + 1))
			return;
		is_str(kinds[d->links[i].kind], v, "%s: link %zu kind", c->name, i + 1);
		is_str(d->links[i].url, n > 2 ? f[2] : "", "%s: link %zu url", c->name, i + 1);
		is_str(d->links[i].anchor, n > 3 ? f[3] : "", "%s: link %zu anchor", c->name,
		       i + 1);
		is_int(d->links[i].nofollow, n > 4 && !strcmp(f[4], "nofollow"),
		       "%s: link %zu nofollow", c->name, i + 1);
	} else if (!strcmp(k, "links")) {
		c->links_total = strtol(v, NULL, 10);
	} else if (!strcmp(k, "dropped")) {
		is_int(d->links_dropped, strtol(v, NULL, 10), "%s: links dropped", c->name);
	} else if (!strcmp(k, "truncated")) {
		c->seen_truncated = 1;
		is_int(d->truncated, strtol(v, NULL, 10), "%s: truncated", c->name);
	} else if (!strcmp(k, "text") || !strcmp(k, "has") || !strcmp(k, "lacks")) {
		int s = section_by_name(v);
		const char *want = n > 2 ? f[2] : "";
		const char *got;
		if (!ok(s >= 0, "%s:%d: section %s known", c->name, lineno, v))
			return;
		got = buf_str(&d->text[s]);
		if (k[0] == 't')
			is_str(got, want, "%s: text %s", c->name, v);
		else if (!ok((strstr(got, want) != NULL) == (k[0] == 'h'), "%s: %s %s \"%.60s\"",
			     c->name, v, k, want))
			diag("  %s text: \"%.300s\"", v, got);
	} else if (!strcmp(k, "mode")) {
		/* read before parsing, see run_file() */
	} else {
		ok(0, "%s:%d: unknown key %s", c->name, lineno, k);
	}
}

static void check_rest(struct check *c)
{
	struct html_doc *d = c->doc;

	if (!c->seen_title)
		is_str(d->title, "", "%s: no title", c->name);
	if (!c->seen_desc)
		is_str(d->description, "", "%s: no description", c->name);
	if (!c->seen_kw)
		is_str(d->keywords, "", "%s: no keywords", c->name);
	if (!c->seen_robots)
		is_int(d->robots, 0, "%s: no robots", c->name);
	if (!c->seen_refresh)
		ok(!d->refresh_url && d->refresh_delay == -1, "%s: no refresh", c->name);
	if (!c->seen_base)
		ok(!d->base, "%s: no base", c->name);
	if (!c->seen_canon)
		ok(!d->canonical, "%s: no canonical", c->name);
	if (!c->seen_js)
		ok(!d->js_redirect, "%s: no js-redirect", c->name);
	is_int(d->nlinks, c->links_total >= 0 ? (size_t)c->links_total : c->nlink_lines,
	       "%s: link count", c->name);
}

static void mode_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	(void)len;
	(void)lineno;
	if (!strcmp(f[0], "mode") && n > 1 && !strcmp(f[1], "text"))
		*(bool *)arg = true;
}

static void run_file(const char *dir, const char *file)
{
	char rel[512], expect[512];
	struct html_doc doc;
	struct check c;
	size_t len = 0, base = strlen(file) - 5;
	char *data;

	memset(&c, 0, sizeof(c));
	c.name = file;
	c.doc = &doc;
	c.links_total = -1;
	snprintf(rel, sizeof(rel), "%s/%s", dir, file);
	data = tap_slurp(tap_data(rel), &len);
	if (!ok(data != NULL, "%s: read", file))
		return;
	if (file[base] != '.') /* ".txt" is one byte shorter than ".html" */
		base++;
	snprintf(expect, sizeof(expect), "%s/%.*s.expect", dir, (int)base, file);
	{
		/* tap_lines would fail a point for a missing file; check first. */
		FILE *fp = fopen(tap_data(expect), "r");
		if (!ok(fp != NULL, "%s: has %s", file, expect)) {
			free(data);
			return;
		}
		fclose(fp);
	}
	tap_lines(expect, mode_line, &c.text_mode);
	if (c.text_mode || strstr(file, ".txt"))
		html_parse_text(data, len, &doc);
	else
		html_parse(data, len, &doc);
	tap_lines(expect, check_line, &c);
	check_rest(&c);
	html_doc_free(&doc);
	free(data);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(const char *dir)
{
	DIR *dp = opendir(tap_data(dir));
	struct dirent *de;
	char *names[1024];
	size_t n = 0, i;

	if (!ok(dp != NULL, "open %s", dir))
		return;
	while ((de = readdir(dp)) && n < sizeof(names) / sizeof(names[0])) {
		size_t l = strlen(de->d_name);
		if ((l > 5 && !strcmp(de->d_name + l - 5, ".html")) ||
		    (l > 4 && !strcmp(de->d_name + l - 4, ".txt")))
			names[n++] = strdup(de->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(names[0]), cmp_str);
	ok(n >= 30, "%zu documents in %s", n, dir);
	for (i = 0; i < n; i++) {
		run_file(dir, names[i]);
		free(names[i]);
	}
}

/* --- generated hostile inputs --------------------------------------------- */

static void gen_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct check c;
	struct html_doc doc;
	struct buf in = BUF_INIT((size_t)1 << 30);
	long count = n > 3 ? strtol(f[3], NULL, 10) : 0, i;
	double t0, dt;
	int k;

	(void)arg;
	if (!ok(n >= 5 && (n - 5) % 2 == 0, "generated.tsv:%d: fields", lineno))
		return;
	buf_add(&in, f[1], len[1]);
	for (i = 0; i < count; i++)
		buf_add(&in, f[2], len[2]);
	buf_add(&in, f[4], len[4]);
	t0 = (double)clock() / CLOCKS_PER_SEC;
	html_parse(in.ptr, in.len, &doc);
	dt = (double)clock() / CLOCKS_PER_SEC - t0;
	/* Linear time: 10-20 MB must not take minutes (generous for ASan). */
	ok(dt < 20.0, "%s: parsed %zu bytes in %.2fs", f[0], in.len, dt);
	memset(&c, 0, sizeof(c));
	c.name = f[0];
	c.doc = &doc;
	c.links_total = -1;
	for (k = 5; k + 1 < n; k += 2) {
		char *kv[6] = { f[k], f[k + 1] };
		size_t kl[6] = { len[k], len[k + 1] };
		char *bar;
		int nf = 2;
		/* "section|text", "a|url|anchor": the fields of one check packed
		 * into one column with '|'. */
		while (nf < 6 && (bar = strchr(kv[nf - 1], '|'))) {
			*bar = '\0';
			kv[nf] = bar + 1;
			kl[nf] = strlen(bar + 1);
			nf++;
		}
		if (!strcmp(f[k], "links"))
			is_int(doc.nlinks, strtol(f[k + 1], NULL, 10), "%s: link count", f[0]);
		else
			check_line(kv, kl, nf, lineno, &c);
	}
	html_doc_free(&doc);
	buf_free(&in);
}

/* --- entities ------------------------------------------------------------- */

static void entity_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf out = BUF_INIT(4096);

	(void)arg;
	if (!ok(n == 3, "entities.tsv:%d: 3 fields", lineno))
		return;
	html_decode_entities(f[0], len[0], f[1][0] == '1', &out);
	is_str(buf_str(&out), f[2], "entities.tsv:%d: %s%s", lineno, f[0],
	       f[1][0] == '1' ? " (attribute)" : "");
	buf_free(&out);
}

/* --- API odds and ends -------------------------------------------------------- */

static int foreach_calls;
static void count_cb(enum section sec, const char *s, size_t len, void *arg)
{
	(void)sec;
	(void)arg;
	foreach_calls += s && len == strlen(s);
}

static void api_tests(void)
{
	struct html_doc doc;
	static const char page[] =
		"<title>T</title><meta name=keywords content=k><meta name=description "
		"content=d><p>body";

	html_parse(NULL, 0, &doc);
	ok(doc.nlinks == 0 && doc.title[0] == '\0', "NULL input parses as empty");
	html_doc_free(&doc);
	html_doc_free(NULL);
	ok(1, "html_doc_free(NULL)");

	html_parse(page, sizeof(page) - 1, &doc);
	html_foreach_text(&doc, count_cb, NULL);
	is_int(foreach_calls, 4, "html_foreach_text visits the 4 sections");
	html_doc_free(&doc);
	html_doc_free(&doc); /* freeing twice is harmless: the doc is reset */
	ok(1, "double html_doc_free");
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		struct html_doc doc;
		size_t len = 0;
		char *data = tap_slurp(argv[1], &len);
		if (!data) {
			perror(argv[1]);
			return 1;
		}
		if (strstr(argv[1], ".txt"))
			html_parse_text(data, len, &doc);
		else
			html_parse(data, len, &doc);
		dump(&doc);
		html_doc_free(&doc);
		free(data);
		return 0;
	}
	api_tests();
	tap_lines("html/entities.tsv", entity_line, NULL);
	run_dir("html");
	tap_lines("html/generated.tsv", gen_line, NULL);
	return done_testing();
}
