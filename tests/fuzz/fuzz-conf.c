/* fuzz-conf.c - libFuzzer target for the config parser: the input is parsed
 * as each kind of file (mpseek.conf, searchd.conf, s.htm), with
 * CONF_NO_FILES so that Include cannot read files; a loaded config is then
 * asked for a filter verdict and a Server on a fixed URL and on the input.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "log.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum conf_kind kinds[] = { CONF_INDEXER, CONF_SEARCHD, CONF_TEMPLATE };
	struct buf err = BUF_INIT(4096);
	char *url = xstrndup((const char *)data, size < 4096 ? size : 4096);

	log_set_level(LOG_ERROR);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct conf *c = NULL;

		if (conf_load_string_ex("fuzz.conf", (const char *)data, size, kinds[i], CONF_NO_FILES,
					&c, &err) == 0) {
			(void)conf_filter_url(c, "http://example.com/a/b.html?x=1");
			(void)conf_filter_url(c, url);
			(void)conf_server_for(c, "http://example.com/a/b.html");
			(void)conf_params_for(c, url);
		} else if (c != NULL || memchr(buf_str(&err), '\n', err.len)) {
			abort(); /* failure must free everything and give one line */
		}
		conf_free(c);
	}
	free(url);
	buf_free(&err);
	return 0;
}
