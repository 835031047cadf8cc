/* test-template.c - the s.htm template engine, driven by tests/data/template/:
 * render.tsv (a template, a section, the output wanted, with a fixed set of
 * hostile variable values), errors.tsv (a template and the "line: message"
 * tpl_load must give), escape.tsv (the escapers alone), and include/ (files
 * that include each other).
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "template.h"
#include "tap.h"
#include "util.h"

/* The test's variables, with values that try to break out of every context. */
static const char *const vars[] = { "Q", "QF", "U", "H", "N", "M", "P", "X", "r#", "E" };
enum { V_Q, V_QF, V_U, V_H, V_N, V_M, V_P, V_X, V_R, V_E };

static int var_cb(struct tpl_run *r, int var, long num, enum tpl_ctx ctx)
{
	static const char Q[] = "<a href='x'>&\"";
	static const char U[] = " Java\tScript:alert(1)";
	static const char H[] = "http://example.com/a b?c=d&e=<f>";
	static const char x[] = "a\x01" "b\xff" "c\xc2\x85" "d\xe2\x80\xa8" "e";
	char n[32];

	switch (var) {
	case V_Q: return tpl_put_text(r, ctx, Q, strlen(Q));
	case V_QF: return tpl_put_text(r, ctx, "qf", 2);
	case V_U: return tpl_put_text(r, ctx, U, strlen(U));
	case V_H: return tpl_put_text(r, ctx, H, strlen(H));
	case V_N: return tpl_put_text(r, ctx, "10", 2);
	case V_M: return tpl_put_markup(r, ctx, "<b>x</b>", 8);
	case V_P: return tpl_put_url(r, ctx, "?q=a+b&np=2", 11);
	case V_X: return tpl_put_text(r, ctx, x, sizeof(x) - 1);
	case V_R:
		snprintf(n, sizeof(n), "[%ld]", num);
		return tpl_put_text(r, ctx, n, strlen(n));
	case V_E: return tpl_render(r, "inner");
	}
	return -1;
}

static void render_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf err = BUF_INIT(4096), out = BUF_INIT(1 << 20);
	struct tpl *t = NULL;
	struct tpl_run r;
	unsigned variant = 0;

	(void)arg;
	if (n < 3) {
		ok(0, "render.tsv:%d: needs template, section, output", lineno);
		return;
	}
	if (n > 3)
		variant = (unsigned)strtoul(f[3], NULL, 10);
	if (tpl_load_string("t.htm", f[0], len[0], vars, ARRAY_SIZE(vars), true, &t, &err)) {
		ok(0, "render.tsv:%d: loads (%s)", lineno, buf_str(&err));
	} else {
		memset(&r, 0, sizeof(r));
		r.t = t;
		r.fn = var_cb;
		r.out = &out;
		r.variant = variant;
		ok(tpl_render(&r, f[1]) == 0, "render.tsv:%d: renders", lineno);
		is_str(buf_str(&out), f[2], "render.tsv:%d: output", lineno);
	}
	tpl_free(t);
	buf_free(&err);
	buf_free(&out);
}

static void error_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf err = BUF_INIT(4096);
	struct tpl *t = NULL;
	int rc;

	(void)arg;
	if (n < 2) {
		ok(0, "errors.tsv:%d: needs template, message", lineno);
		return;
	}
	rc = tpl_load_string("t.htm", f[0], len[0], vars, ARRAY_SIZE(vars), true, &t, &err);
	ok(rc == -1 && t == NULL, "errors.tsv:%d: refused", lineno);
	is_str(buf_str(&err), f[1], "errors.tsv:%d: message", lineno);
	tpl_free(t);
	buf_free(&err);
}

static void escape_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf out = BUF_INIT(1 << 16);

	(void)arg;
	if (n < 3) {
		ok(0, "escape.tsv:%d: needs kind, input, output", lineno);
		return;
	}
	if (!strcmp(f[0], "html"))
		tpl_escape_html(&out, f[1], len[1]);
	else if (!strcmp(f[0], "component"))
		tpl_escape_component(&out, f[1], len[1]);
	else if (!strcmp(f[0], "json"))
		tpl_escape_json(&out, f[1], len[1]);
	else
		ok(0, "escape.tsv:%d: unknown kind %s", lineno, f[0]);
	is_str(buf_str(&out), f[2], "escape.tsv:%d: %s", lineno, f[0]);
	buf_free(&out);
}

/* Includes read relative to the including file, with errors naming the
 * included file and its line. */
static void test_include(void)
{
	char path[4096];
	struct buf err = BUF_INIT(4096), out = BUF_INIT(4096);
	struct tpl *t = NULL;
	struct tpl_run r;
	const char *e;

	snprintf(path, sizeof(path), "%s", tap_data("template/include/main.htm"));
	if (tpl_load(path, vars, ARRAY_SIZE(vars), &t, &err)) {
		ok(0, "include: loads (%s)", buf_str(&err));
		goto out;
	}
	memset(&r, 0, sizeof(r));
	r.t = t;
	r.fn = var_cb;
	r.out = &out;
	ok(tpl_render(&r, "top") == 0 && tpl_render(&r, "res") == 0 && tpl_render(&r, "bottom") == 0,
	   "include: renders");
	is_str(buf_str(&out), "<h1>10</h1>[inc 10][part 10]</body>", "include: spliced output");
	tpl_free(t);
	t = NULL;
	snprintf(path, sizeof(path), "%s", tap_data("template/include/bad.htm"));
	e = tpl_load(path, vars, ARRAY_SIZE(vars), &t, &err) == -1 ? "refused" : NULL;
	ok(e != NULL, "include: bad include refused");
	e = strstr(buf_str(&err), "broken.inc:3: unknown variable $Zz");
	ok(e != NULL, "include: error names the included file and line (%s)", buf_str(&err));
	snprintf(path, sizeof(path), "%s", tap_data("template/include/loop.htm"));
	e = tpl_load(path, vars, ARRAY_SIZE(vars), &t, &err) == -1 ? buf_str(&err) : "";
	ok(strstr(e, "loop.htm:2: <!--include--> nested more than 8 deep") != NULL,
	   "include: a file including itself is refused (%s)", e);
	e = tpl_load("/nonexistent/s.htm", vars, ARRAY_SIZE(vars), &t, &err) == -1 ? buf_str(&err) : "";
	is_str(e, "/nonexistent/s.htm: No such file or directory", "missing file: named");
out:
	tpl_free(t);
	buf_free(&err);
	buf_free(&out);
}

/* The output cap stops a rendering cleanly. */
static void test_cap(void)
{
	const char *src = "<!--a-->$Ta$Ta<!--/a-->";
	struct buf err = BUF_INIT(4096), out = BUF_INIT(1000);
	struct tpl *t = NULL;
	const char *big = "<!--b-->0123456789$Tc$Tc$Tc$Tc<!--/b--><!--c-->$Td$Td$Td$Td$Td$Td$Td<!--/c-->"
			  "<!--d-->0123456789012345678901234567890123456789<!--/d-->";
	struct tpl_run r;
	int rc;

	rc = tpl_load_string("t.htm", src, strlen(src), vars, ARRAY_SIZE(vars), true, &t, &err);
	is_str(rc == -1 ? buf_str(&err) : "loaded",
	       "t.htm:1: $Ta: user sections refer to each other in a loop",
	       "a self-referring user section is refused");
	ok(tpl_load_string("t.htm", big, strlen(big), vars, ARRAY_SIZE(vars), true, &t, &err) == 0,
	   "nested user sections load");
	memset(&r, 0, sizeof(r));
	r.t = t;
	r.fn = var_cb;
	r.out = &out;
	rc = tpl_render(&r, "b");
	ok(rc == -1 && out.len <= 1000 && out.len > 900, "output cap: -1 (%d), %zu bytes", rc, out.len);
	tpl_free(t);
	buf_free(&err);
	buf_free(&out);
}

int main(void)
{
	tap_lines("template/render.tsv", render_case, NULL);
	tap_lines("template/errors.tsv", error_case, NULL);
	tap_lines("template/escape.tsv", escape_case, NULL);
	test_include();
	test_cap();
	return done_testing();
}
