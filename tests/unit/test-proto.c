/* test-proto.c - the searchd wire protocol: every message round-trips,
 * decoders refuse every case of tests/data/proto/decode.tsv that should be
 * refused (truncated, oversized, out of range, bad UTF-8, bad spans) and
 * accept the others, encoders refuse what breaks a cap, and frame I/O on a
 * socket pair handles EOF, truncation, garbage, oversize and timeouts.
 *
 * decode.tsv: message type, payload in a small notation, expectation.
 * Payload tokens, space separated: u8:N u16:N u32:N u64:N f64:X (little
 * endian), s:TEXT (u32 length + the bytes of TEXT, %HH decoded),
 * x:HEX (raw bytes), rep:N:TOKEN (TOKEN N times).  Expectation: "ok" or
 * "ok <dump>" (the decoded message printed as dump() does), or "err
 * <substring of the message>".
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "proto.h"
#include "tap.h"
#include "util.h"

/* ---- the payload notation -------------------------------------------------- */

static void le(struct buf *b, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		buf_addc(b, (char)(v >> (8 * i)));
}

static int build_token(struct buf *b, const char *tok)
{
	if (!strncmp(tok, "u8:", 3)) {
		le(b, strtoull(tok + 3, NULL, 0), 1);
	} else if (!strncmp(tok, "u16:", 4)) {
		le(b, strtoull(tok + 4, NULL, 0), 2);
	} else if (!strncmp(tok, "u32:", 4)) {
		le(b, strtoull(tok + 4, NULL, 0), 4);
	} else if (!strncmp(tok, "u64:", 4)) {
		le(b, strtoull(tok + 4, NULL, 0), 8);
	} else if (!strncmp(tok, "f64:", 4)) {
		double d = strtod(tok + 4, NULL);
		uint64_t v;
		if (!strcmp(tok + 4, "nan"))
			d = NAN;
		memcpy(&v, &d, 8);
		le(b, v, 8);
	} else if (!strncmp(tok, "s:", 2)) {
		struct buf t = BUF_INIT(1 << 20);
		for (const char *p = tok + 2; *p; p++) {
			unsigned v;
			if (*p == '%' && sscanf(p + 1, "%2x", &v) == 1) {
				buf_addc(&t, (char)v);
				p += 2;
			} else {
				buf_addc(&t, *p);
			}
		}
		le(b, t.len, 4);
		buf_add(b, t.ptr ? t.ptr : "", t.len);
		buf_free(&t);
	} else if (!strncmp(tok, "x:", 2)) {
		for (const char *p = tok + 2; p[0] && p[1]; p += 2) {
			unsigned v;
			if (sscanf(p, "%2x", &v) != 1)
				return -1;
			buf_addc(b, (char)v);
		}
	} else if (!strncmp(tok, "rep:", 4)) {
		char *end;
		unsigned long n = strtoul(tok + 4, &end, 10);
		if (*end != ':')
			return -1;
		for (unsigned long i = 0; i < n; i++)
			if (build_token(b, end + 1))
				return -1;
	} else {
		return -1;
	}
	return 0;
}

/* Spaces separate tokens; s: text may not contain a space (write %20). */
static int build(struct buf *b, const char *spec)
{
	char *copy = xstrdup(spec), *save = NULL, *tok;
	int rc = 0;

	for (tok = strtok_r(copy, " ", &save); tok && !rc; tok = strtok_r(NULL, " ", &save))
		rc = build_token(b, tok);
	free(copy);
	return rc;
}

/* ---- dumps of decoded messages --------------------------------------------- */

static void dump_text(struct buf *o, const char *name, const struct proto_text *t)
{
	buf_printf(o, " %s=%s", name, t->text ? t->text : "");
	for (uint32_t i = 0; i < t->n_spans; i++)
		buf_printf(o, "[%u,%u)", t->spans[2 * i], t->spans[2 * i + 1]);
}

static void dump_search(struct buf *o, const struct proto_search *m)
{
	buf_printf(o, "q=%s page=%u ps=%u sort=%u group=%u sections=%u site=%u ul=%s "
		   "from=%" PRIu64 " to=%" PRIu64 " spaces=%u",
		   m->q, m->page, m->page_size, m->sort, m->group, m->sections, m->site_id, m->ul,
		   m->time_from, m->time_to, m->n_spaces);
	for (uint32_t i = 0; i < m->n_spaces; i++)
		buf_printf(o, ",%u", m->spaces[i]);
	buf_printf(o, " ex=%u/%u client=%s referer=%s", m->max_excerpts, m->excerpt_len,
		   m->client, m->referer);
}

static void dump_results(struct buf *o, const struct proto_results *m)
{
	buf_printf(o, "error=%s urls=%" PRIu64 " sites=%u results=%" PRIu64 "%s first=%u gen=%" PRIu64,
		   m->error, m->total_urls, m->total_sites, m->total_results,
		   m->estimated ? " estimated" : "", m->first, m->generation);
	for (uint32_t i = 0; i < m->n_words; i++)
		buf_printf(o, " word=%s/%u/%" PRIu64 "/%u", m->words[i].word, m->words[i].urls,
			   m->words[i].total, m->words[i].stopword);
	for (uint32_t i = 0; i < m->n_hits; i++) {
		const struct proto_hit *h = &m->hits[i];
		buf_printf(o, " hit=%u/%u/%g/%u/%u url=%s", h->url_id, h->site_id, h->score,
			   h->second, h->site_hits, h->url);
		dump_text(o, "title", &h->title);
		for (uint32_t k = 0; k < h->n_excerpts; k++)
			dump_text(o, "ex", &h->excerpts[k]);
		for (uint32_t k = 0; k < h->n_clones; k++)
			buf_printf(o, " clone=%u:%s", h->clones[k].url_id, h->clones[k].url);
	}
}

static void dump_cached(struct buf *o, const struct proto_cached *m)
{
	buf_printf(o, "error=%s id=%u url=%s type=%s charset=%s", m->error, m->url_id, m->url,
		   m->content_type, m->charset);
	dump_text(o, "text", &m->text);
}

/* Decode payload as `type`; 0 with the dump in o, or -1 with the message. */
static int decode(const char *type, const struct buf *p, struct buf *o)
{
	struct buf err = BUF_INIT(4096);
	int rc = -1;

	if (!strcmp(type, "search")) {
		struct proto_search m;
		rc = proto_decode_search(p->ptr, p->len, &m, &err);
		if (!rc)
			dump_search(o, &m);
		proto_search_free(&m);
	} else if (!strcmp(type, "results")) {
		struct proto_results m;
		rc = proto_decode_results(p->ptr, p->len, &m, &err);
		if (!rc)
			dump_results(o, &m);
		proto_results_free(&m);
	} else if (!strcmp(type, "cached_req")) {
		struct proto_cached_req m;
		rc = proto_decode_cached_req(p->ptr, p->len, &m, &err);
		if (!rc)
			buf_printf(o, "id=%u url=%s q=%s", m.url_id, m.url, m.q);
		proto_cached_req_free(&m);
	} else if (!strcmp(type, "cached")) {
		struct proto_cached m;
		rc = proto_decode_cached(p->ptr, p->len, &m, &err);
		if (!rc)
			dump_cached(o, &m);
		proto_cached_free(&m);
	} else if (!strcmp(type, "error")) {
		struct buf t = BUF_INIT(100), msg = BUF_INIT(5000);
		rc = proto_decode_error(p->ptr, p->len, &t, &msg, &err);
		if (!rc)
			buf_printf(o, "%s: %s", buf_str(&t), buf_str(&msg));
		buf_free(&t);
		buf_free(&msg);
	} else if (!strcmp(type, "header")) {
		enum proto_type ty;
		uint32_t len;
		if (p->len != PROTO_HEADER_SIZE) {
			buf_adds(&err, "header case is not 12 bytes");
		} else {
			rc = proto_parse_header((const uint8_t *)p->ptr, &ty, &len, &err);
			if (!rc)
				buf_printf(o, "type=%d len=%u", (int)ty, len);
		}
	} else {
		buf_printf(&err, "unknown type %s in the data file", type);
	}
	if (rc)
		buf_adds(o, buf_str(&err));
	buf_free(&err);
	return rc;
}

static void decode_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct buf p = BUF_INIT(PROTO_MAX_FRAME + 64), o = BUF_INIT(1 << 20);
	int rc;

	UNUSED(len);
	UNUSED(arg);
	if (n < 3 || build(&p, f[1])) {
		ok(0, "decode.tsv:%d: malformed case", lineno);
		goto out;
	}
	if (!p.ptr)
		buf_add(&p, "", 0);
	rc = decode(f[0], &p, &o);
	if (!strncmp(f[2], "ok", 2)) {
		if (!ok(rc == 0, "decode.tsv:%d: %s accepted", lineno, f[0]))
			diag("  %s", buf_str(&o));
		else if (f[2][2] == ' ')
			is_str(buf_str(&o), f[2] + 3, "decode.tsv:%d: %s decoded", lineno, f[0]);
	} else if (!strncmp(f[2], "err ", 4)) {
		if (!ok(rc == -1 && strstr(buf_str(&o), f[2] + 4), "decode.tsv:%d: %s refused: %s",
			lineno, f[0], f[2] + 4))
			diag("  rc %d: %s", rc, buf_str(&o));
	} else {
		ok(0, "decode.tsv:%d: bad expectation", lineno);
	}
out:
	buf_free(&p);
	buf_free(&o);
}

/* The structs hold char *: literals cast (-Wwrite-strings). */
#define S(x) ((char *)(x))

/* ---- round trips ------------------------------------------------------------ */

/* A search request through encode, header and decode. */
static void round_trip_search(struct proto_search *s, struct buf *f, struct buf *err)
{
	struct proto_search s2;
	struct buf d1 = BUF_INIT(1 << 20), d2 = BUF_INIT(1 << 20);
	enum proto_type type;
	uint32_t len;

	ok(proto_encode_search(f, s) == 0, "encode search");
	ok(proto_parse_header((uint8_t *)f->ptr, &type, &len, err) == 0 && type == PROTO_SEARCH &&
		   len == f->len - PROTO_HEADER_SIZE, "search header");
	ok(proto_decode_search(f->ptr + PROTO_HEADER_SIZE, len, &s2, err) == 0, "decode search");
	dump_search(&d2, &s2);
	s->referer = S("");
	dump_search(&d1, s);
	is_str(buf_str(&d2), buf_str(&d1), "search round trip");
	proto_search_free(&s2);
	buf_free(&d1);
	buf_free(&d2);
}

/* Results through encode and decode, then every truncation refused. */
static void round_trip_results(struct proto_results *r, struct buf *f, struct buf *err)
{
	struct proto_results r2;
	struct buf d1 = BUF_INIT(1 << 20), d2 = BUF_INIT(1 << 20);
	size_t plen;
	int refused = 0;

	buf_reset(f);
	ok(proto_encode_results(f, r) == 0, "encode results");
	ok(proto_decode_results(f->ptr + PROTO_HEADER_SIZE, f->len - PROTO_HEADER_SIZE, &r2, err) ==
		   0, "decode results: %s", buf_str(err));
	r->message = S("");
	dump_results(&d1, r);
	dump_results(&d2, &r2);
	is_str(buf_str(&d2), buf_str(&d1), "results round trip");
	ok(r2.hits && r2.hits[0].size == 1000 && r2.hits[0].last_modified == 1700000000 &&
		   !strcmp(r2.hits[0].content_type, "text/html") && r2.seconds == 0.25,
	   "results: size, date, type, time");
	/* Every truncation of a valid frame is refused without a leak. */
	plen = f->len - PROTO_HEADER_SIZE;
	for (size_t k = 0; k < plen; k++) {
		struct proto_results r3;
		if (proto_decode_results(f->ptr + PROTO_HEADER_SIZE, k, &r3, NULL) == -1 &&
		    r3.hits == NULL && r3.error == NULL)
			refused++;
	}
	is_int(refused, plen, "every truncated results payload is refused, struct zeroed");
	proto_results_free(&r2);
	proto_results_free(&r2); /* idempotent on a zeroed struct */
	buf_free(&d1);
	buf_free(&d2);
}

/* The cached-copy request and answer. */
static void round_trip_cached(uint32_t *tspans, struct buf *f, struct buf *err)
{
	struct proto_cached_req cr = { 0, S("http://a/5"), S("title") }, cr2;
	struct proto_cached c = { S(""), 5, S("http://a/5"), S("text/html"), S("koi8-r"), 99,
				  { S("the title"), 2, tspans } }, c2;
	struct buf d1 = BUF_INIT(1 << 20), d2 = BUF_INIT(1 << 20);

	buf_reset(f);
	ok(proto_encode_cached_req(f, &cr) == 0 &&
		   proto_decode_cached_req(f->ptr + 12, f->len - 12, &cr2, err) == 0 &&
		   cr2.url_id == 0 && !strcmp(cr2.url, "http://a/5") && !strcmp(cr2.q, "title"),
	   "cached request round trip");
	proto_cached_req_free(&cr2);
	buf_reset(f);
	ok(proto_encode_cached(f, &c) == 0 &&
		   proto_decode_cached(f->ptr + 12, f->len - 12, &c2, err) == 0,
	   "cached round trip");
	dump_cached(&d1, &c);
	dump_cached(&d2, &c2);
	is_str(buf_str(&d2), buf_str(&d1), "cached copy fields");
	ok(c2.last_index_time == 99, "cached last index time");
	proto_cached_free(&c2);
	buf_free(&d1);
	buf_free(&d2);
}

/* Encoders refuse what a decoder would refuse, and leave out unchanged.
 * s, r (with hit h[0] and its excerpts ex) are put back as they were. */
static void encoders_refuse(struct proto_search *s, struct proto_results *r, struct proto_hit *h,
			    struct proto_text *ex, struct buf *f)
{
	char big[PROTO_MAX_QUERY + 2];
	uint32_t bad[] = { 0, 2 }; /* ends inside the first "é" of ex[0] */
	struct proto_text t = ex[0];

	buf_reset(f);
	buf_adds(f, "keep");
	s->page_size = 0;
	ok(proto_encode_search(f, s) == -1 && f->len == 4, "encode refuses page size 0");
	s->page_size = 10;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s->q = big;
	ok(proto_encode_search(f, s) == -1 && f->len == 4, "encode refuses a long query");
	s->q = S("\xff");
	ok(proto_encode_search(f, s) == -1, "encode refuses bad UTF-8 in the query");
	t.spans = bad;
	h[0].excerpts = &t;
	h[0].n_excerpts = 1;
	ok(proto_encode_results(f, r) == -1, "encode refuses a span inside a character");
	bad[0] = 3;
	bad[1] = 3;
	ok(proto_encode_results(f, r) == -1, "encode refuses an empty span");
	h[0].excerpts = ex;
	h[0].n_excerpts = 2;
	r->n_hits = PROTO_MAX_HITS + 1;
	ok(proto_encode_results(f, r) == -1 && f->len == 4, "encode refuses too many hits");
	r->n_hits = 2;
}

static void round_trip(void)
{
	uint32_t spaces[] = { 3, 7 };
	struct proto_search s = {
		.q = S("\"many * ago\" site:example.org -foo"), .page = 2, .page_size = 10,
		.sort = PROTO_SORT_DATE, .group = 1, .sections = 9, .site_id = 42, .ul = S("http://a/"),
		.time_from = 1, .time_to = UINT64_MAX, .n_spaces = 2, .spaces = spaces,
		.max_excerpts = 2, .excerpt_len = 200, .client = S("127.0.0.1"), .referer = NULL,
	};
	uint32_t tspans[] = { 0, 3, 4, 9 }, espans[] = { 1, 3 };
	struct proto_text ex[2] = { { S("x\xc3\xa9t\xc3\xa9 ok"), 1, espans }, { S(""), 0, NULL } };
	struct proto_clone cl[1] = { { 77, S("http://b/x") } };
	struct proto_word_stat w[2] = { { S("many"), 10, 20, 0 }, { S("the"), 0, 0, 1 } };
	struct proto_hit h[2] = {
		{ .url_id = 5, .site_id = 1, .score = 12.5, .second = 0, .site_hits = 3,
		  .url = S("http://a/5"), .site = S("http://a/"), .title = { S("the title"), 2, tspans },
		  .description = { S("d"), 0, NULL }, .keywords = S("k"), .content_type = S("text/html"),
		  .size = 1000, .last_modified = 1700000000, .n_excerpts = 2, .excerpts = ex,
		  .n_clones = 1, .clones = cl },
		{ .url_id = 6, .site_id = 1, .score = -1, .second = 1, .url = S("http://a/6") },
	};
	struct proto_results r = { .error = S(""), .message = NULL, .total_urls = 1ull << 40,
				   .total_sites = 9, .total_results = 9, .first = 20, .seconds = 0.25,
				   .generation = 7, .n_words = 2, .words = w, .n_hits = 2, .hits = h };
	struct buf f = BUF_INIT(PROTO_HEADER_SIZE + PROTO_MAX_FRAME), err = BUF_INIT(4096);
	struct buf t = BUF_INIT(100), m = BUF_INIT(100);

	round_trip_search(&s, &f, &err);
	round_trip_results(&r, &f, &err);
	round_trip_cached(tspans, &f, &err);
	encoders_refuse(&s, &r, h, ex, &f);
	ok(proto_encode_error(&f, "ER_BUSY", "all threads busy") == 0, "encode error");
	ok(proto_decode_error(f.ptr + 4 + 12, f.len - 16, &t, &m, &err) == 0 &&
		   !strcmp(t.ptr, "ER_BUSY") && !strcmp(m.ptr, "all threads busy"),
	   "error round trip");
	buf_free(&t);
	buf_free(&m);
	buf_free(&f);
	buf_free(&err);
}

/* ---- frames on a socket ----------------------------------------------------- */

static void io(void)
{
	int sv[2];
	struct buf f = BUF_INIT(1 << 20), p = BUF_INIT(PROTO_MAX_FRAME), err = BUF_INIT(4096);
	struct buf small = BUF_INIT(16);
	enum proto_type type;
	uint8_t hdr[12];

	if (!ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair"))
		return;
	/* Two requests on one connection. */
	proto_encode_empty(&f, PROTO_PING);
	proto_encode_error(&f, "ER_X", "m");
	ok(proto_write_all(sv[0], f.ptr, f.len, 1000, &err) == 0, "write two frames");
	ok(proto_read_frame(sv[1], 1000, &type, &p, &err) == 0 && type == PROTO_PING && p.len == 0,
	   "read ping");
	ok(proto_read_frame(sv[1], 1000, &type, &p, &err) == 0 && type == PROTO_ERROR &&
		   p.len == f.len - 2 * PROTO_HEADER_SIZE,
	   "read the second frame of the connection");
	/* Timeout: nothing arrives. */
	{
		double t0 = now_monotonic();
		int rc = proto_read_frame(sv[1], 100, &type, &p, &err);
		double dt = now_monotonic() - t0;
		ok(rc == -1 && strstr(buf_str(&err), "timed out") && dt >= 0.09 && dt < 2,
		   "read times out (%.3fs): %s", dt, buf_str(&err));
	}
	/* A payload bigger than the receiver allows. */
	buf_reset(&f);
	proto_encode_error(&f, "ER_X", "a longer message than sixteen bytes");
	proto_write_all(sv[0], f.ptr, f.len, 1000, &err);
	{
		int ok_ = proto_read_frame(sv[1], 1000, &type, &small, &err) == -1 &&
		   strstr(buf_str(&err), "larger");
		ok(ok_, "frame over the receiver's cap refused: %s", buf_str(&err));
	}
	close(sv[0]);
	close(sv[1]);

	/* Garbage, a lying length, truncation, EOF. */
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	ok(write(sv[0], "GET / HTTP/1.0\r\n\r\n", 18) == 18, "write garbage");
	{
		int ok_ = proto_read_frame(sv[1], 1000, &type, &p, &err) == -1 && strstr(buf_str(&err), "magic");
		ok(ok_, "garbage refused: %s", buf_str(&err));
	}
	close(sv[0]);
	close(sv[1]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	memcpy(hdr, "MPSQ\x02\x00\x01\x00\xff\xff\xff\x7f", 12);
	ok(write(sv[0], hdr, 12) == 12, "write a header claiming 2 GiB");
	{
		int ok_ = proto_read_frame(sv[1], 1000, &type, &p, &err) == -1 && strstr(buf_str(&err), "cap");
		ok(ok_, "oversized frame refused before reading: %s", buf_str(&err));
	}
	close(sv[0]);
	close(sv[1]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	memcpy(hdr, "MPSQ\x02\x00\x01\x00\x64\x00\x00\x00", 12);
	ok(write(sv[0], hdr, 12) == 12 && write(sv[0], "abc", 3) == 3, "write a truncated frame");
	close(sv[0]);
	{
		int ok_ = proto_read_frame(sv[1], 1000, &type, &p, &err) == -1 && strstr(buf_str(&err), "closed");
		ok(ok_, "truncated frame refused: %s", buf_str(&err));
	}
	close(sv[1]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	close(sv[0]);
	ok(proto_read_frame(sv[1], 1000, &type, &p, &err) == 1, "clean EOF before a header is 1");
	ok(proto_write_all(sv[1], "x", 1, 1000, &err) == -1, "write to a closed peer fails, no SIGPIPE");
	close(sv[1]);

	{
		int ok_ = proto_connect("127.0.0.1:1", 1000, &err) == -1;
		ok(ok_, "connect to a closed port fails: %s", buf_str(&err));
	}
	ok(proto_connect("127.0.0.1:99999", 1000, &err) == -1, "bad port refused");
	ok(proto_connect("[::1", 1000, &err) == -1, "bad IPv6 literal refused");
	buf_free(&f);
	buf_free(&p);
	buf_free(&err);
	buf_free(&small);
}

int main(void)
{
	round_trip();
	io();
	tap_lines("proto/decode.tsv", decode_case, NULL);
	return done_testing();
}
