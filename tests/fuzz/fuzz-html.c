/* fuzz-html.c - libFuzzer target for html.c.
 *
 * The bytes go through the UTF-8 sanitiser (as the crawler feeds the
 * parser) and are parsed as HTML and as text/plain; the raw bytes are
 * parsed too, since html_parse() promises not to crash on anything.  The
 * outputs must respect their caps and be valid UTF-8 when the input was.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n > max || !utf8_valid(s, n))
		abort();
}

static void check(const struct html_doc *d, int valid)
{
	size_t i;
	int s;

	if (strlen(d->title) > MAX_TITLE_LEN || strlen(d->description) > MAX_DESCRIPTION_LEN ||
	    strlen(d->keywords) > MAX_KEYWORDS_LEN || strlen(d->txt) > MAX_TXT_LEN)
		abort();
	if (d->nlinks > MAX_HTML_LINKS)
		abort();
	for (i = 0; i < d->nlinks; i++) {
		if (!d->links[i].url || !d->links[i].url[0] || !d->links[i].anchor)
			abort();
		if (strlen(d->links[i].url) > MAX_URL_LEN ||
		    strlen(d->links[i].anchor) > MAX_ANCHOR_LEN)
			abort();
	}
	for (s = 0; s < SECTION_COUNT; s++)
		if (d->text[s].len != strlen(buf_str(&d->text[s])))
			abort(); /* no NUL inside */
	if (!valid)
		return;
	check_str(d->title, MAX_TITLE_LEN);
	check_str(d->description, MAX_DESCRIPTION_LEN);
	check_str(d->keywords, MAX_KEYWORDS_LEN);
	check_str(d->txt, MAX_TXT_LEN);
	for (i = 0; i < d->nlinks; i++) {
		check_str(d->links[i].url, MAX_URL_LEN);
		check_str(d->links[i].anchor, MAX_ANCHOR_LEN);
	}
	for (s = 0; s < SECTION_COUNT; s++)
		check_str(buf_str(&d->text[s]), (size_t)MAX_DOC_BYTES);
	if (d->refresh_url)
		check_str(d->refresh_url, MAX_URL_LEN);
	if (d->js_redirect)
		check_str(d->js_redirect, MAX_URL_LEN);
	if (d->base)
		check_str(d->base, MAX_HTML_ATTR_LEN);
	if (d->canonical)
		check_str(d->canonical, MAX_HTML_ATTR_LEN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf in = BUF_INIT(4 << 20);
	struct html_doc doc;

	if (utf8_sanitize((const char *)data, size, &in, NULL) == 0) {
		html_parse(buf_str(&in), in.len, &doc);
		check(&doc, 1);
		html_doc_free(&doc);
		html_parse_text(buf_str(&in), in.len, &doc);
		check(&doc, 1);
		html_doc_free(&doc);
	}
	html_parse((const char *)data, size, &doc);
	check(&doc, 0);
	html_doc_free(&doc);
	buf_free(&in);
	return 0;
}
