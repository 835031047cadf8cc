/* fuzz-cgi.c - libFuzzer target for s.cgi's parameter parser: any bytes give
 * pairs with clean names and values (valid UTF-8, no control character,
 * within the caps), never a crash, a leak or a hang.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgi.h"
#include "charset.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgi_params p = { 0 };
	size_t i, k;

	cgi_parse((const char *)data, size, &p);
	CHECK(p.n <= CGI_MAX_PARAMS);
	for (i = 0; i < p.n; i++) {
		const struct cgi_param *c = &p.v[i];
		size_t nl = strlen(c->name);
		CHECK(nl > 0 && nl <= CGI_MAX_NAME);
		CHECK(strlen(c->value) == c->len && c->len <= CGI_MAX_VALUE);
		CHECK(utf8_valid(c->value, c->len));
		for (k = 0; k < c->len; k++) {
			unsigned char b = (unsigned char)c->value[k];
			CHECK(b >= 0x20 && b != 0x7f);
			CHECK(!(b == 0xc2 && k + 1 < c->len &&
				(unsigned char)c->value[k + 1] >= 0x80 &&
				(unsigned char)c->value[k + 1] <= 0x9f));
		}
		CHECK(cgi_get(&p, c->name) != NULL);
	}
	cgi_params_free(&p);
	return 0;
}
