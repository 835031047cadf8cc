/* fuzz-query.c - libFuzzer target for the query parser: any bytes give a
 * tree or an error token with a message, never a crash, a leak or a hang,
 * and a tree prints.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "query.h"
#include "tokenize.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tokenizer *tok;
	struct query_opts o;
	struct query q;
	struct buf out = BUF_INIT(1 << 20);

	if (!tok) {
		log_open("/dev/null");
		tok = tok_new(1, 32);
		tok_add_stopword(tok, "the", 3);
		tok_add_stopword(tok, "of", 2);
	}
	if (size > 4096)
		return 0;
	o.tok = tok;
	o.min_fixed_pattern = 3;
	if (query_parse((const char *)data, size, &o, &q) == 0) {
		CHECK(q.root && !q.error);
		query_print(&q, &out);
		CHECK(out.len > 0);
	} else {
		CHECK(!q.root && q.error && q.message[0]);
	}
	query_free(&q);
	buf_free(&out);
	return 0;
}
