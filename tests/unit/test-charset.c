/* test-charset.c - charset.c against the tables in tests/data/charset/.
 *
 *   labels.tsv        label  canonical|-
 *   content-type.tsv  header-value  label|-
 *   prescan.tsv       bytes  label|-
 *   utf8.tsv          bytes  sanitised  replacements
 *   detect.tsv        bytes  header|-  default|-  html|text  name  source
 *   convert.tsv       charset|auto  bytes  utf-8  replacements|-
 * Byte fields use tap.h escapes; "@NAME" reads tests/data/charset/NAME.
 *
 * `test-charset FILE [HEADER [DEFAULT]]` prints the decision for FILE.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "charset.h"
#include "tap.h"
#include "util.h"

/* A byte field: inline (already unescaped) or "@file". Caller frees *tofree. */
static const char *field_bytes(const char *f, size_t flen, size_t *len, char **tofree)
{
	*tofree = NULL;
	if (f[0] == '@') {
		char rel[512];
		snprintf(rel, sizeof(rel), "charset/%s", f + 1);
		*tofree = tap_slurp(tap_data(rel), len);
		if (!ok(*tofree != NULL, "read %s", rel)) {
			*len = 0;
			return "";
		}
		return *tofree;
	}
	*len = flen;
	return f;
}

static const char *opt(const char *f)
{
	return strcmp(f, "-") ? f : NULL;
}

static void label_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	const char *got;

	(void)arg;
	if (!ok(n == 2, "labels.tsv:%d: 2 fields", lineno))
		return;
	got = charset_canonical(f[0], len[0]);
	is_str(got ? got : "-", f[1], "label \"%s\"", f[0]);
}

static void ctype_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	char out[64];
	int rc;

	(void)arg;
	(void)len;
	if (!ok(n == 2, "content-type.tsv:%d: 2 fields", lineno))
		return;
	rc = charset_from_content_type(f[0], out, sizeof(out));
	is_str(rc ? "-" : out, f[1], "Content-Type \"%s\"", f[0]);
}

static void prescan_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	char out[64], *tofree;
	const char *in;
	size_t inlen;
	int rc;

	(void)arg;
	if (!ok(n == 2, "prescan.tsv:%d: 2 fields", lineno))
		return;
	in = field_bytes(f[0], len[0], &inlen, &tofree);
	rc = charset_prescan(in, inlen, out, sizeof(out));
	is_str(rc ? "-" : out, f[1], "prescan.tsv:%d: %.50s", lineno, f[0]);
	free(tofree);
}

static void utf8_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf out = BUF_INIT(1 << 20);
	size_t rep = 0;
	int rc;

	(void)arg;
	if (!ok(n == 3, "utf8.tsv:%d: 3 fields", lineno))
		return;
	rc = utf8_sanitize(f[0], len[0], &out, &rep);
	ok(rc == 0 && out.len == len[1] && !memcmp(buf_str(&out), f[1], len[1]),
	   "utf8.tsv:%d: sanitised", lineno);
	is_int(rep, strtol(f[2], NULL, 10), "utf8.tsv:%d: replacements", lineno);
	ok(utf8_valid(buf_str(&out), out.len), "utf8.tsv:%d: output valid", lineno);
	is_int(utf8_valid(f[0], len[0]), rep == 0, "utf8.tsv:%d: utf8_valid(input)", lineno);
	/* The same bytes behind 0..15 bytes of ASCII and before 11 more: the
	 * scans take ASCII eight bytes at a time, so every case also lands
	 * across such a word, at every alignment. */
	size_t pad;

	for (pad = 0; pad < 16; pad++) {
		struct buf in = BUF_INIT(1 << 20), got = BUF_INIT(1 << 20), want = BUF_INIT(1 << 20);
		size_t rep2 = 0;
		bool same;

		for (size_t k = 0; k < pad; k++)
			buf_addc(&in, (char)('a' + k));
		buf_add(&in, f[0], len[0]);
		buf_adds(&in, "tail text.");
		buf_add(&want, in.ptr, pad);
		buf_add(&want, f[1], len[1]);
		buf_adds(&want, "tail text.");
		utf8_sanitize(in.ptr, in.len, &got, &rep2);
		same = got.len == want.len && !memcmp(got.ptr, want.ptr, got.len) &&
		       rep2 == (size_t)strtol(f[2], NULL, 10) &&
		       utf8_valid(in.ptr, in.len) == (rep2 == 0);
		buf_free(&in);
		buf_free(&got);
		buf_free(&want);
		if (!same)
			break;
	}
	ok(pad == 16, "utf8.tsv:%d: the same behind 0..15 bytes of ASCII (%zu)", lineno, pad);
	buf_free(&out);
}

static void detect_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct charset_info info;
	char *tofree;
	const char *in;
	size_t inlen;

	(void)arg;
	if (!ok(n == 6, "detect.tsv:%d: 6 fields", lineno))
		return;
	in = field_bytes(f[0], len[0], &inlen, &tofree);
	charset_detect(in, inlen, opt(f[1]), opt(f[2]), strcmp(f[3], "html") ? CHARSET_NO_META : 0,
		       &info);
	is_str(info.name, f[4], "detect.tsv:%d: charset (%s)", lineno, info.note);
	is_str(charset_source_name(info.source), f[5], "detect.tsv:%d: source", lineno);
	free(tofree);
}

static void convert_line(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct charset_info info;
	struct buf out = BUF_INIT(64 << 20);
	char *free_in, *free_want;
	const char *in, *want;
	size_t inlen, wantlen;
	int rc;

	(void)arg;
	if (!ok(n == 4, "convert.tsv:%d: 4 fields", lineno))
		return;
	in = field_bytes(f[1], len[1], &inlen, &free_in);
	want = field_bytes(f[2], len[2], &wantlen, &free_want);
	if (!strcmp(f[0], "auto")) {
		rc = charset_to_utf8(in, inlen, NULL, NULL, 0, &out, &info);
	} else {
		memset(&info, 0, sizeof(info));
		strlcpy_(info.name, f[0], sizeof(info.name));
		rc = charset_convert(in, inlen, &info, &out);
	}
	is_int(rc, 0, "convert.tsv:%d: %s converts", lineno, f[0]);
	if (!ok(out.len == wantlen && !memcmp(buf_str(&out), want, wantlen),
		"convert.tsv:%d: %s output", lineno, f[0]))
		diag("  got %zu bytes \"%.200s\"", out.len, buf_str(&out));
	if (strcmp(f[3], "-"))
		is_int(info.replaced, strtol(f[3], NULL, 10), "convert.tsv:%d: replacements",
		       lineno);
	ok(utf8_valid(buf_str(&out), out.len) && !memchr(buf_str(&out), 0, out.len),
	   "convert.tsv:%d: valid UTF-8 without NUL", lineno);
	buf_free(&out);
	free(free_in);
	free(free_want);
}

/* End to end: detection and conversion, and the output ceiling. */
static void api_tests(void)
{
	struct charset_info info;
	struct buf out = BUF_INIT(10);
	static const char cyr[] = "\xcf\xf0\xe8\xe2\xe5\xf2"; /* "Привет" in cp1251 */
	size_t i;
	int rc;

	rc = charset_to_utf8(cyr, 6, "text/html; charset=windows-1251", NULL, 0, &out, &info);
	ok(rc == 0 && info.truncated && out.len == 10 && utf8_valid(out.ptr, out.len),
	   "output cut at the ceiling on a character boundary (%zu bytes)", out.len);
	is_str(buf_str(&out), "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5", "cut output");
	buf_free(&out);

	buf_init(&out, 1 << 20);
	rc = charset_to_utf8(NULL, 0, NULL, NULL, 0, &out, &info);
	ok(rc == 0 && out.len == 0 && !strcmp(info.name, "windows-1252"), "empty input");
	buf_free(&out);

	/* A name iconv does not know falls back to windows-1252. */
	buf_init(&out, 1 << 20);
	memset(&info, 0, sizeof(info));
	strlcpy_(info.name, "no-such-charset", sizeof(info.name));
	is_int(charset_convert("abc", 3, &info, &out), -1, "unknown charset: -1");
	is_int(out.len, 0, "unknown charset: nothing appended");
	buf_free(&out);

	/* Source names. */
	for (i = 0; i <= CHARSET_SRC_FALLBACK; i++)
		ok(strcmp(charset_source_name((enum charset_source)i), "?") != 0,
		   "source %zu has a name", i);

	/* The utf8_cut helper. */
	is_int(utf8_cut("a\xc3\xa9", 3, 2), 1, "utf8_cut backs off a split sequence");
	is_int(utf8_cut("a\xc3\xa9", 3, 3), 3, "utf8_cut keeps a whole string");
	is_int(utf8_cut("ab", 2, 0), 0, "utf8_cut to 0");
	is_int(utf8_cut("\x80\x80\x80\x80\x80", 5, 4), 4, "utf8_cut on junk cuts where asked");
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		struct charset_info info;
		struct buf out = BUF_INIT(64 << 20);
		size_t len = 0;
		char *data = tap_slurp(argv[1], &len);
		if (!data) {
			perror(argv[1]);
			return 1;
		}
		charset_to_utf8(data, len, argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : NULL, 0,
				&out, &info);
		printf("%s\t%s\treplaced=%zu\t%s\n", info.name, charset_source_name(info.source),
		       info.replaced, info.note);
		fwrite(buf_str(&out), 1, out.len, stdout);
		buf_free(&out);
		free(data);
		return 0;
	}
	api_tests();
	tap_lines("charset/labels.tsv", label_line, NULL);
	tap_lines("charset/content-type.tsv", ctype_line, NULL);
	tap_lines("charset/prescan.tsv", prescan_line, NULL);
	tap_lines("charset/utf8.tsv", utf8_line, NULL);
	tap_lines("charset/detect.tsv", detect_line, NULL);
	tap_lines("charset/convert.tsv", convert_line, NULL);
	return done_testing();
}
