/* fuzz-template.c - libFuzzer target for the s.htm template engine: any
 * bytes load as a template or give a "file:line: ..." error, never a crash,
 * a leak or a hang; a loaded template renders every usual section with
 * hostile values (markup, quotes, javascript: URLs, invalid UTF-8), and no
 * value's "<" comes out unescaped in element text.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static const char *const vars[] = { "Q", "DU", "DT", "DX", "t", "f", "l", "NL", "r#" };
static const char hostile[] = "<script>fzv(1)</script>\"'&javascript:x \xff\xfe\x01";

static int put(struct tpl_run *r, int var, long num, enum tpl_ctx ctx)
{
	(void)num;
	switch (var % 3) {
	case 0: return tpl_put_text(r, ctx, hostile, sizeof(hostile) - 1);
	case 1: return tpl_put_url(r, ctx, "javascript:alert(1)", 19);
	default: return tpl_put_markup(r, ctx, "<b>x</b>", 8);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sections[] = { "top", "restop", "res", "res2", "clone",
						"navigator", "notfound", "error", "bottom" };
	struct buf err = BUF_INIT(4096);
	struct tpl *t = NULL;

	log_open("/dev/null");
	if (size > 65536)
		return 0;
	if (tpl_load_string("fuzz.htm", (const char *)data, size, vars,
			    sizeof(vars) / sizeof(vars[0]), true, &t, &err) == 0) {
		for (unsigned v = 0; v < 2; v++) {
			struct buf out = BUF_INIT(1 << 20);
			struct tpl_run r = { .t = t, .fn = put, .variant = v, .out = &out };

			for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
				(void)tpl_render(&r, sections[i]);
			/* The value's markup never arrives as markup (unless the
			 * template itself holds those bytes). */
			CHECK(!out.ptr || !strstr(out.ptr, "<script>fzv(") ||
			      memmem(data, size, "<script>fzv(", 12));
			buf_free(&out);
		}
		tpl_free(t);
	} else {
		CHECK(err.len > 0 && strstr(buf_str(&err), "fuzz.htm"));
	}
	buf_free(&err);
	return 0;
}
