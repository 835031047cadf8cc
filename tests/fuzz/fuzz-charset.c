/* fuzz-charset.c - libFuzzer target for charset.c.
 *
 * Byte 0 picks the declared (header) charset, byte 1 the configured default
 * and the flags, byte 2 the output ceiling; the rest is the document.  It is
 * detected and converted, and also converted from one named charset picked
 * by byte 0; the result must be valid UTF-8 without NUL, within the ceiling.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "charset.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const headers[] = {
	NULL, "utf-8", "text/html; charset=windows-1251", "shift_jis", "utf-16",
	"iso-2022-jp", "gb18030", "text/html; charset='koi8-r'", "bogus", "big5",
	"euc-kr", "UTF-16BE", "latin1", "text/html", "visual", "euc-jp",
};
static const char *const names[] = {
	"UTF-8", "windows-1252", "windows-1251", "KOI8-R", "Shift_JIS", "EUC-JP",
	"ISO-2022-JP", "GBK", "gb18030", "Big5", "EUC-KR", "UTF-16LE", "UTF-16BE",
	"UTF-32LE", "IBM866", "x-mac-cyrillic",
};

static void check(const struct buf *out, const struct charset_info *info)
{
	if (out->len > out->max || !utf8_valid(buf_str(out), out->len))
		abort();
	if (!charset_canonical(info->name, strlen(info->name)) ||
	    strlen(info->note) >= sizeof(info->note))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct charset_info info;
	struct buf out;
	const char *doc, *hdr, *dflt;
	size_t len, max;
	char label[64], *str;

	if (size < 3)
		return 0;
	hdr = headers[data[0] % ARRAY_SIZE(headers)];
	dflt = (data[1] & 1) ? "koi8-r" : NULL;
	max = data[2] < 200 ? (size_t)1 << 22 : (size_t)(data[2] - 200) * 3;
	doc = (const char *)data + 3;
	len = size - 3;

	buf_init(&out, max);
	if (charset_to_utf8(doc, len, hdr, dflt, (data[1] & 2) ? CHARSET_NO_META : 0, &out, &info))
		abort();
	check(&out, &info);
	buf_free(&out);

	memset(&info, 0, sizeof(info));
	strlcpy_(info.name, names[(data[0] >> 4) % ARRAY_SIZE(names)], sizeof(info.name));
	buf_init(&out, max);
	if (charset_convert(doc, len, &info, &out))
		abort();
	check(&out, &info);
	buf_free(&out);

	/* The label parsers on the raw bytes as a string. */
	str = xstrndup(doc, len);
	(void)charset_from_content_type(str, label, sizeof(label));
	(void)charset_canonical(str, strlen(str));
	(void)charset_prescan(doc, len, label, sizeof(label));
	free(str);
	return 0;
}
