/* test-cgi.c - s.cgi's parameter parser and request reader, driven by
 * tests/data/cgi/: parse.tsv (form-urlencoded input, the pairs and flags
 * wanted) and request.tsv (a CGI environment and stdin, the status and pairs
 * wanted); plus the caps on sizes and counts.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cgi.h"
#include "charset.h"
#include "tap.h"
#include "util.h"

/* The pairs as "[name]value[name]value". */
static void show(const struct cgi_params *p, struct buf *out)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		buf_printf(out, "[%s]%s", p->v[i].name, p->v[i].value);
}

/* A single space in a data file stands for the empty string. */
static const char *field(const char *s)
{
	return strcmp(s, " ") ? s : "";
}

static void parse_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct cgi_params p = { 0 };
	struct buf out = BUF_INIT(1 << 20);

	(void)arg;
	if (n < 3) {
		ok(0, "parse.tsv:%d: needs input, pairs, flags", lineno);
		return;
	}
	cgi_parse(f[0], len[0], &p);
	show(&p, &out);
	is_str(buf_str(&out), field(f[1]), "parse.tsv:%d: pairs", lineno);
	ok(p.flags == strtoul(f[2], NULL, 10), "parse.tsv:%d: flags %u (want %s)", lineno,
	   p.flags, f[2]);
	cgi_params_free(&p);
	buf_free(&out);
}

/* The environment of one request.tsv case. */
static char *env_vals[4];
static const char *const env_names[4] = { "REQUEST_METHOD", "QUERY_STRING", "CONTENT_TYPE",
					  "CONTENT_LENGTH" };

static const char *fake_getenv(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(env_names); i++)
		if (!strcmp(name, env_names[i]))
			return env_vals[i];
	return NULL;
}

static void request_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct cgi_request r;
	struct buf out = BUF_INIT(1 << 20);
	int fds[2] = { -1, -1 }, fd;
	int i;

	(void)arg;
	if (n < 7) {
		ok(0, "request.tsv:%d: needs 7 fields", lineno);
		return;
	}
	for (i = 0; i < 4; i++)
		env_vals[i] = strcmp(f[i], "<none>") ? f[i] : NULL;
	if (!strcmp(f[4], "<closed>")) {
		/* a descriptor that is not open */
		if (pipe(fds))
			abort();
		close(fds[0]);
		close(fds[1]);
		fd = fds[0];
		fds[0] = fds[1] = -1;
	} else {
		if (pipe(fds))
			abort();
		if (strcmp(f[4], "<none>") &&
		    write(fds[1], f[4], len[4]) != (ssize_t)len[4])
			abort();
		close(fds[1]);
		fds[1] = -1;
		fd = fds[0];
	}
	cgi_read_request(&r, fake_getenv, fd, 200);
	ok(r.status == (int)strtol(f[5], NULL, 10), "request.tsv:%d: status %d (want %s)", lineno, r.status, f[5]);
	ok(!r.status == !r.why, "request.tsv:%d: a reason with the status", lineno);
	ok(r.head == !strcmp(f[0], "HEAD"), "request.tsv:%d: head", lineno);
	show(&r.params, &out);
	is_str(buf_str(&out), field(f[6]), "request.tsv:%d: pairs", lineno);
	cgi_request_free(&r);
	if (fds[0] >= 0)
		close(fds[0]);
	buf_free(&out);
}

/* Caps: input length, pair count, value length. */
static void test_caps(void)
{
	struct cgi_params p = { 0 };
	struct buf in = BUF_INIT(4 * CGI_MAX_INPUT);
	size_t i;

	for (i = 0; i < 200; i++)
		buf_printf(&in, "p%zu=%zu&", i, i);
	cgi_parse(in.ptr, in.len, &p);
	ok(p.n == CGI_MAX_PARAMS && (p.flags & CGI_F_TOO_MANY), "at most %d pairs (%zu)",
	   CGI_MAX_PARAMS, p.n);
	is_str(cgi_get(&p, "p0"), "0", "the first pairs are kept");
	ok(cgi_get(&p, "p199") == NULL, "the last are dropped");
	cgi_params_free(&p);

	/* a value of 10000 two-byte characters: cut at CGI_MAX_VALUE on a boundary */
	buf_reset(&in);
	buf_adds(&in, "q=");
	for (i = 0; i < 10000; i++)
		buf_adds(&in, "%C3%A9");
	cgi_parse(in.ptr, in.len, &p);
	ok(p.n == 1 && p.v[0].len <= CGI_MAX_VALUE && p.v[0].len >= CGI_MAX_VALUE - 1 &&
	   (p.flags & CGI_F_CUT), "a long value is cut (%zu bytes)", p.n ? p.v[0].len : 0);
	ok(p.n == 1 && utf8_valid(p.v[0].value, p.v[0].len), "on a character boundary");
	cgi_params_free(&p);

	/* input past CGI_MAX_INPUT is not read */
	buf_reset(&in);
	buf_adds(&in, "a=1&b=");
	while (in.len < CGI_MAX_INPUT + 10)
		buf_addc(&in, 'x');
	buf_adds(&in, "&c=3");
	cgi_parse(in.ptr, in.len, &p);
	ok(cgi_get(&p, "a") && cgi_get(&p, "b") && !cgi_get(&p, "c") && (p.flags & CGI_F_CUT),
	   "input past %d bytes is ignored", CGI_MAX_INPUT);
	ok(cgi_get(&p, "zz") == NULL, "cgi_get of a missing name");
	cgi_params_free(&p);
	cgi_params_free(&p);
	cgi_params_free(NULL);
	buf_free(&in);
}

int main(void)
{
	tap_lines("cgi/parse.tsv", parse_case, NULL);
	tap_lines("cgi/request.tsv", request_case, NULL);
	test_caps();
	return done_testing();
}
