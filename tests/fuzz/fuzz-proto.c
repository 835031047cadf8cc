/* fuzz-proto.c - libFuzzer target for the searchd protocol decoders.
 *
 * The first byte picks a decoder (search, results, cached request, cached
 * reply, error, frame header), the rest is the payload.  Whatever the bytes,
 * no crash and no leak; a message that decodes must encode again, and the
 * encoding must decode to a payload of the same bytes (the decoders accept
 * exactly what the encoders produce).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "proto.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

/* The re-encoded frame's payload must equal the input payload. */
static void same(struct buf *f, const uint8_t *p, size_t n)
{
	CHECK(f->len == PROTO_HEADER_SIZE + n);
	CHECK(n == 0 || memcmp(f->ptr + PROTO_HEADER_SIZE, p, n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf f = BUF_INIT(PROTO_HEADER_SIZE + PROTO_MAX_FRAME), err = BUF_INIT(4096);
	const uint8_t *p = data + 1;
	size_t n = size ? size - 1 : 0;

	if (!size)
		return 0;
	switch (data[0] % 6) {
	case 0: {
		struct proto_search m;
		if (proto_decode_search(p, n, &m, &err) == 0) {
			CHECK(proto_encode_search(&f, &m) == 0);
			same(&f, p, n);
		} else {
			CHECK(m.q == NULL && err.len > 0);
		}
		proto_search_free(&m);
		break;
	}
	case 1: {
		struct proto_results m;
		if (proto_decode_results(p, n, &m, &err) == 0) {
			CHECK(proto_encode_results(&f, &m) == 0);
			same(&f, p, n);
		} else {
			CHECK(m.hits == NULL && err.len > 0);
		}
		proto_results_free(&m);
		break;
	}
	case 2: {
		struct proto_cached_req m;
		if (proto_decode_cached_req(p, n, &m, &err) == 0) {
			CHECK(proto_encode_cached_req(&f, &m) == 0);
			same(&f, p, n);
		}
		proto_cached_req_free(&m);
		break;
	}
	case 3: {
		struct proto_cached m;
		if (proto_decode_cached(p, n, &m, &err) == 0) {
			CHECK(proto_encode_cached(&f, &m) == 0);
			same(&f, p, n);
		}
		proto_cached_free(&m);
		break;
	}
	case 4: {
		struct buf t = BUF_INIT(1 << 16), msg = BUF_INIT(1 << 16);
		if (proto_decode_error(p, n, &t, &msg, &err) == 0) {
			CHECK(proto_encode_error(&f, t.ptr, msg.ptr) == 0);
			same(&f, p, n);
		}
		buf_free(&t);
		buf_free(&msg);
		break;
	}
	default: {
		enum proto_type type;
		uint32_t len;
		if (n >= PROTO_HEADER_SIZE && proto_parse_header(p, &type, &len, &err) == 0)
			CHECK(len <= PROTO_MAX_FRAME && type >= PROTO_SEARCH && type <= PROTO_PONG);
		break;
	}
	}
	buf_free(&f);
	buf_free(&err);
	return 0;
}
