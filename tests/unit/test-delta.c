/* test-delta.c - the delta log: partition function, round trip against a
 * golden file made by an independent encoder, writer refusals, and crash
 * safety (every truncation, every byte flip, holes in the unsynced tail,
 * failed writes, repair).  Cases live in tests/data/delta/.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "caps.h"
#include "delta.h"
#include "log.h"
#include "storage.h"
#include "tap.h"
#include "util.h"

#define HDR 28
#define FRAME 9
#define COMMIT_REC (FRAME + 12)

static char tmp_root[256];
static char log_path[300];

/* ---- small file helpers -------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len)
{
	struct buf b = BUF_INIT(1u << 30);
	char chunk[65536];
	size_t k;
	FILE *fp = fopen(path, "rb");

	*len = 0;
	if (!fp)
		return NULL;
	while ((k = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_add(&b, chunk, k);
	fclose(fp);
	if (!b.ptr)
		buf_add(&b, "", 0);
	return (unsigned char *)buf_detach(&b, len);
}

static int spit(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");
	int rc = 0;

	if (!fp)
		return -1;
	if (len && fwrite(data, 1, len, fp) != len)
		rc = -1;
	if (fclose(fp))
		rc = -1;
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	UNUSED(st);
	UNUSED(flag);
	UNUSED(ftw);
	return remove(path);
}

static void rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh directory under the test's root; returns a static buffer. */
static const char *fresh_dir(const char *name)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmp_root, name);
	rm_rf(path);
	mkdir(path, 0755);
	return path;
}

/* What the library logged since the last call. */
static char *take_log(void)
{
	size_t n;
	char *s = (char *)slurp(log_path, &n);
	if (truncate(log_path, 0) < 0)
		diag("cannot truncate %s", log_path);
	return s ? s : xstrdup("");
}

/* ---- the format, written independently of src/store/delta.c -------------- */

static void le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void make_header(unsigned char *h, uint32_t version, uint32_t rank, uint64_t created)
{
	memcpy(h, "MPSDLT\0\1", 8);
	le32(h + 8, version);
	le32(h + 12, rank);
	le32(h + 16, (uint32_t)created);
	le32(h + 20, (uint32_t)(created >> 32));
	le32(h + 24, (uint32_t)crc32(0L, h, 24));
}

static void add_frame(struct buf *b, unsigned type, const unsigned char *payload, size_t len)
{
	unsigned char f[FRAME];
	uLong c = crc32(0L, Z_NULL, 0);
	unsigned char t = (unsigned char)type;

	c = crc32(c, &t, 1);
	if (len)
		c = crc32(c, payload, (uInt)len);
	le32(f, (uint32_t)len);
	le32(f + 4, (uint32_t)c);
	f[8] = t;
	buf_add(b, f, FRAME);
	buf_add(b, payload, len);
}

struct frame {
	size_t off, end;
	unsigned type;
};

/* Split a well-formed log into frames; returns the count. */
static size_t frames_of(const unsigned char *d, size_t len, struct frame *out, size_t max)
{
	size_t off = HDR, n = 0;

	while (off + FRAME <= len && n < max) {
		size_t plen = rd32(d + off);
		out[n].off = off;
		out[n].end = off + FRAME + plen;
		out[n].type = d[off + 8];
		off = out[n++].end;
	}
	return n;
}

/* ---- records as text ------------------------------------------------------ */

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || end == s || *end || *s == '-') ? -1 : 0;
}

/* Apply one line of records.txt / bad-writes.txt to the writer. */
static unsigned doc_lines; /* DOC lines written by write_line() */

/* A DOC line's "word:p1,p2,...": tok cut at the last colon, the positions
 * (at most 256) into pos.  Returns their number. */
static size_t word_positions(char *tok, uint32_t *pos)
{
	char *colon = strrchr(tok, ':'), *save = NULL;
	size_t n = 0;

	*colon = '\0';
	for (char *t = strtok_r(colon + 1, ",", &save); t && n < 256; t = strtok_r(NULL, ",", &save)) {
		uint64_t x;

		parse_u64(t, &x);
		pos[n++] = (uint32_t)x;
	}
	return n;
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
}

/* A TEXT line "TEXT url size ct|cs|title|desc|kw blob": the fields run from
 * the third space to the last (they may hold spaces), the blob is hex, "-"
 * for none.  -1 on a malformed line or when the writer refuses. */
static int write_text_line(struct delta_writer *w, const char *line)
{
	char *copy = xstrdup(line), *p = copy + 5, *sp, *last, *f[5];
	uint64_t url, size;
	unsigned char blob[256];
	size_t blob_len = 0;
	int rc = -1;

	if (!(sp = strchr(p, ' ')))
		goto out;
	*sp = '\0';
	if (parse_u64(p, &url) || !(p = sp + 1, sp = strchr(p, ' ')))
		goto out;
	*sp = '\0';
	if (parse_u64(p, &size) || !(last = strrchr(sp + 1, ' ')))
		goto out;
	*last = '\0';
	f[0] = sp + 1;
	for (int i = 1; i < 5; i++) {
		char *bar = strchr(f[i - 1], '|');
		if (!bar)
			goto out;
		*bar = '\0';
		f[i] = bar + 1;
	}
	if (strchr(f[4], '|'))
		goto out;
	if (strcmp(last + 1, "-"))
		for (const char *h = last + 1; h[0] && h[1] && blob_len < sizeof(blob); h += 2)
			blob[blob_len++] = (unsigned char)(hexval(h[0]) << 4 | hexval(h[1]));
	{
		struct delta_text t = { .size = (uint32_t)size, .content_type = f[0],
					.charset = f[1], .title = f[2], .description = f[3],
					.keywords = f[4], .blob = blob, .blob_len = blob_len };
		rc = delta_add_text(w, (uint32_t)url, &t);
	}
out:
	free(copy);
	return rc;
}

static int write_line(struct delta_writer *w, const char *line)
{
	char *copy, *save = NULL, *tok[4096];
	uint64_t v[3] = { 0, 0, 0 };
	int nt = 0, rc = -1;

	if (!strncmp(line, "TEXT ", 5))
		return write_text_line(w, line);
	copy = xstrdup(line);
	for (char *t = strtok_r(copy, " ", &save); t && nt < 4096; t = strtok_r(NULL, " ", &save))
		tok[nt++] = t;
	if (nt == 1 && !strcmp(tok[0], "SYNC")) {
		rc = delta_sync(w);
		goto out;
	}
	if (nt < 2 || parse_u64(tok[1], &v[0]))
		goto out;
	if (nt > 2 && strcmp(tok[0], "HREFS"))
		parse_u64(tok[2], &v[1]);
	if (!strcmp(tok[0], "DEL")) {
		rc = delta_add_del(w, (uint32_t)v[0]);
	} else if (!strcmp(tok[0], "REDIR") && nt == 3) {
		rc = delta_add_redir(w, (uint32_t)v[0], (uint32_t)v[1]);
	} else if (!strcmp(tok[0], "LASTMOD") && nt == 3) {
		rc = delta_add_lastmod(w, (uint32_t)v[0], v[1]);
	} else if (!strcmp(tok[0], "HREFS") && nt == 3) {
		uint32_t ids[256];
		size_t n = 0;
		char *s2 = NULL;
		if (strcmp(tok[2], "-"))
			for (char *t = strtok_r(tok[2], ",", &s2); t && n < 256;
			     t = strtok_r(NULL, ",", &s2)) {
				uint64_t x;
				parse_u64(t, &x);
				ids[n++] = (uint32_t)x;
			}
		rc = delta_add_hrefs(w, (uint32_t)v[0], ids, n);
	} else if (!strcmp(tok[0], "DOC") && nt >= 4) {
		/* Every other DOC through delta_words (the crawl's way): the
		 * frames must be the same. */
		bool apart = doc_lines++ & 1;
		struct delta_words d;

		parse_u64(tok[3], &v[2]);
		delta_words_init(&d);
		if (!apart && delta_doc_begin(w, (uint32_t)v[0], (uint32_t)v[1], v[2]))
			goto doc_out;
		for (int i = 4; i < nt; i++) {
			uint32_t pos[256];
			size_t n = word_positions(tok[i], pos);

			if (apart ? delta_words_add(&d, tok[i], strlen(tok[i]), pos, n)
				  : delta_doc_word(w, tok[i], strlen(tok[i]), pos, n)) {
				if (apart)
					error("words: %s", d.err);
				else
					delta_doc_abort(w);
				goto doc_out;
			}
		}
		rc = apart ? delta_add_words(w, (uint32_t)v[0], (uint32_t)v[1], v[2], &d)
			   : delta_doc_end(w);
doc_out:
		delta_words_free(&d);
	}
out:
	free(copy);
	return rc;
}

static void dump(const struct delta_rec *r, struct buf *b)
{
	switch (r->type) {
	case DELTA_DOC:
		buf_printf(b, "DOC %" PRIu32 " %" PRIu32 " %" PRIu64, r->url_id, r->site_id, r->time);
		for (uint32_t i = 0; i < r->n_words; i++) {
			buf_printf(b, " %s:", r->words[i].word);
			for (uint32_t j = 0; j < r->words[i].n_pos; j++)
				buf_printf(b, "%s%u", j ? "," : "", (unsigned)r->words[i].pos[j]);
		}
		break;
	case DELTA_DEL:
		buf_printf(b, "DEL %" PRIu32, r->url_id);
		break;
	case DELTA_HREFS:
		buf_printf(b, "HREFS %" PRIu32 " ", r->url_id);
		if (!r->n_hrefs)
			buf_adds(b, "-");
		for (uint32_t i = 0; i < r->n_hrefs; i++)
			buf_printf(b, "%s%" PRIu32, i ? "," : "", r->hrefs[i]);
		break;
	case DELTA_REDIR:
		buf_printf(b, "REDIR %" PRIu32 " %" PRIu32, r->url_id, r->target);
		break;
	case DELTA_LASTMOD:
		buf_printf(b, "LASTMOD %" PRIu32 " %" PRIu64, r->url_id, r->time);
		break;
	case DELTA_TEXT:
		/* the blob in hex, as records.txt writes it */
		buf_printf(b, "TEXT %" PRIu32 " %" PRIu32 " %s|%s|%s|%s|%s ", r->url_id,
			   r->text.size, r->text.content_type, r->text.charset, r->text.title,
			   r->text.description, r->text.keywords);
		if (!r->text.blob_len)
			buf_adds(b, "-");
		for (size_t i = 0; i < r->text.blob_len; i++)
			buf_printf(b, "%02x", ((const unsigned char *)r->text.blob)[i]);
		break;
	}
	buf_addc(b, '\n');
}

struct readout {
	int rc;           /* of the last delta_next() */
	int count;        /* records */
	int64_t torn;
	uint64_t good_end;
	char *text;       /* dump, one line per record */
	char *msg;
	uint64_t last_off;
};

static void readout_free(struct readout *o)
{
	free(o->text);
	free(o->msg);
}

/* Read every record; r is closed. */
static struct readout read_all(struct delta_reader *r)
{
	struct readout o = { 0 };
	struct buf b = BUF_INIT(1u << 28);
	struct delta_rec rec;

	while ((o.rc = delta_next(r, &rec)) > 0) {
		dump(&rec, &b);
		o.count++;
		o.last_off = rec.offset;
	}
	o.torn = delta_reader_torn(r);
	o.good_end = delta_reader_good_end(r);
	o.msg = xstrdup(delta_reader_msg(r));
	o.text = b.ptr ? buf_detach(&b, NULL) : xstrdup("");
	delta_reader_close(r);
	return o;
}

static struct readout read_mem(const unsigned char *d, size_t len)
{
	struct buf err = BUF_INIT(4096);
	struct delta_reader *r = delta_reader_open_mem("mem", d, len, &err);
	struct readout o = { 0 };

	if (!r) {
		o.rc = -2;
		o.msg = buf_detach(&err, NULL);
		o.text = xstrdup("");
		return o;
	}
	buf_free(&err);
	return read_all(r);
}

/* ---- the cases ------------------------------------------------------------- */

static void partition_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	long want;
	UNUSED(arg);
	if (n < 2 || parse_long(f[1], 0, 99, &want)) {
		ok(0, "partition.txt:%d: malformed", lineno);
		return;
	}
	is_int(storage_partition(f[0], len[0]), want, "partition of \"%s\"", f[0]);
}

struct records {
	char *in[256];    /* lines to write, SYNC included */
	char *want[256];  /* expected dump lines, SYNC excluded */
	int n_in, n_want;
};

static void record_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct records *rs = arg;
	UNUSED(len);
	UNUSED(lineno);
	if (rs->n_in == 256)
		return;
	rs->in[rs->n_in++] = xstrdup(f[0]);
	if (strcmp(f[0], "SYNC"))
		rs->want[rs->n_want++] = xstrdup(n > 1 ? f[1] : f[0]);
}

/* The expected dump; without the TEXT lines for a log of version 1 or 2,
 * which cannot hold them. */
static char *join_want(const struct records *rs, bool text)
{
	struct buf b = BUF_INIT(1u << 20);
	for (int i = 0; i < rs->n_want; i++)
		if (text || strncmp(rs->want[i], "TEXT ", 5))
			buf_printf(&b, "%s\n", rs->want[i]);
	return buf_detach(&b, NULL);
}

/* Compare dumps line by line so that a failure names the record. */
static void compare_dump(const char *got, const char *want, const char *what)
{
	const char *g = got, *w = want;
	int line = 1;

	while (*g || *w) {
		size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");
		if (gl != wl || memcmp(g, w, gl)) {
			ok(0, "%s: line %d", what, line);
			diag("  got  \"%.*s\"", (int)gl, g);
			diag("  want \"%.*s\"", (int)wl, w);
			return;
		}
		g += gl + (g[gl] == '\n');
		w += wl + (w[wl] == '\n');
		line++;
	}
	ok(1, "%s: %d lines equal", what, line - 1);
}

static char *golden_path, *golden_v2_path, *golden_v1_path;

/* want as a version-1 log reads: its 16-bit positions (section << 14 |
 * position) widened to tokenize.h's (section << 24 | position).  Malloc'd. */
static char *want_v1(const char *want)
{
	struct buf b = BUF_INIT(1 << 20);
	char *out;

	for (const char *p = want; *p; p++) {
		bool doc = !strncmp(p, "DOC ", 4);

		if (!doc) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

			buf_add(&b, p, n);
			p += n - 1;
			continue;
		}
		/* one DOC line: each number after ':' or ',' */
		for (; *p && *p != '\n'; p++) {
			buf_addc(&b, *p);
			if (*p != ':' && *p != ',')
				continue;
		if (*p == ':' && (p[1] < '0' || p[1] > '9'))
			continue;
		{
			char *end;
			unsigned long v = strtoul(p + 1, &end, 10);

			if (end == p + 1)
				continue;
			buf_printf(&b, "%lu", (v >> 14) << 24 | (v & 0x3fff));
			p = end - 1;
		}
		}
		if (*p)
			buf_addc(&b, '\n');
		else
			break;
	}
	out = xstrdup(buf_str(&b));
	buf_free(&b);
	return out;
}

/* Write records.txt, read it back, and compare with the golden file. */
static char *round_trip(const struct records *rs, size_t *out_len)
{
	const char *dir = fresh_dir("roundtrip");
	struct buf err = BUF_INIT(4096);
	struct delta_writer *w = delta_open(dir, 7, &err);
	struct delta_stats st;
	char *want = join_want(rs, true), *want_old = join_want(rs, false), *path;
	unsigned char *mine, *gold;
	size_t mine_len, gold_len;
	int failed = 0, data = 0;

	if (!ok(w != NULL, "delta_open: %s", buf_str(&err)))
		exit(done_testing());
	path = xstrdup(delta_writer_path(w));
	ok(strstr(path, "/deltas/r7-000001.dlt") != NULL, "first segment is r7-000001.dlt (%s)",
	   path);
	for (int i = 0; i < rs->n_in; i++) {
		if (write_line(w, rs->in[i])) {
			diag("cannot write \"%s\"", rs->in[i]);
			failed++;
		}
		data += strcmp(rs->in[i], "SYNC") != 0;
	}
	ok(!failed, "writer accepts every line of records.txt");
	delta_writer_stats(w, &st);
	is_int(st.records, data, "stats: records");
	ok(st.durable > 0 && st.durable < st.records, "stats: only synced records durable (%" PRIu64
	   ")", st.durable);
	is_int(delta_sync(w), 0, "delta_sync");
	delta_writer_stats(w, &st);
	is_int(st.durable, data, "stats: all durable after sync");
	is_int(delta_sync(w), 0, "delta_sync with nothing new");
	is_int(delta_close(w), 0, "delta_close");

	{
		struct delta_reader *r = delta_reader_open(path, &err);
		struct readout o;
		ok(r != NULL, "reader opens the written log");
		if (r) {
			is_int(delta_reader_rank(r), 7, "header rank");
			ok(delta_reader_created(r) > 1600000000, "header created time");
			o = read_all(r);
			is_int(o.rc, 0, "read to the end");
			is_int(o.torn, -1, "no torn tail");
			is_str(o.msg, "", "no message");
			compare_dump(o.text, want, "round trip");
			readout_free(&o);
		}
	}
	{
		struct delta_reader *r = delta_reader_open(golden_path, &err);
		struct readout o;
		if (ok(r != NULL, "reader opens golden-v3.dlt: %s", buf_str(&err))) {
			is_int(delta_reader_rank(r), 7, "golden rank");
			is_int(delta_reader_created(r), 1700000000, "golden created");
			o = read_all(r);
			is_int(o.rc, 0, "golden read to the end");
			compare_dump(o.text, want, "golden-v3.dlt dump");
			readout_free(&o);
		}
	}
	{
		/* The previous version, without TEXT records: still read. */
		struct delta_reader *r = delta_reader_open(golden_v2_path, &err);
		struct readout o;
		if (ok(r != NULL, "reader opens golden-v2.dlt: %s", buf_str(&err))) {
			o = read_all(r);
			is_int(o.rc, 0, "golden-v2 read to the end");
			compare_dump(o.text, want_old, "golden-v2.dlt dump, no TEXT");
			readout_free(&o);
		}
	}
	{
		/* A log an older build left: read, its positions converted. */
		struct delta_reader *r = delta_reader_open(golden_v1_path, &err);
		struct readout o;
		char *w1 = want_v1(want_old);

		if (ok(r != NULL, "reader opens golden-v1.dlt: %s", buf_str(&err))) {
			o = read_all(r);
			is_int(o.rc, 0, "golden-v1 read to the end");
			compare_dump(o.text, w1, "golden-v1.dlt dump, positions widened");
			readout_free(&o);
		}
		free(w1);
	}

	/* Same frames as the independent encoder; commit records may differ
	 * only in the header crc they carry (the created time differs). */
	mine = slurp(path, &mine_len);
	gold = slurp(golden_path, &gold_len);
	if (ok(mine && gold, "read both logs")) {
		struct frame a[256], b[256];
		size_t na = frames_of(mine, mine_len, a, 256), nb = frames_of(gold, gold_len, b, 256);
		int same = na == nb && mine_len == gold_len;
		for (size_t i = 0; same && i < na; i++) {
			size_t cmp = a[i].end - a[i].off;
			if (a[i].type == 6)
				cmp = FRAME + 8, same = !memcmp(mine + a[i].off + 8, gold + b[i].off + 8, 9);
			else
				same = !memcmp(mine + a[i].off, gold + b[i].off, cmp);
			if (!same)
				diag("frame %zu at offset %zu differs", i, a[i].off);
		}
		ok(same, "writer output equals golden-v3.dlt frame by frame (%zu frames)", na);
	}
	free(gold);
	free(want);
	free(want_old);
	free(path);
	buf_free(&err);
	*out_len = mine_len;
	return (char *)mine;
}

static void bad_write_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	struct delta_writer *w = arg;
	struct delta_stats before, after;
	char *log;
	int rc;
	UNUSED(len);

	if (n < 2) {
		ok(0, "bad-writes.txt:%d: malformed", lineno);
		return;
	}
	delta_writer_stats(w, &before);
	rc = write_line(w, f[0]);
	delta_writer_stats(w, &after);
	log = take_log();
	ok(rc == -1 && after.records == before.records && after.bytes == before.bytes &&
	   strstr(log, f[1]), "writer refuses \"%s\" (%s)", f[0], f[1]);
	if (!strstr(log, f[1]))
		diag("  log: %s", log);
	free(log);
}

static void bad_payload_case(char **f, size_t *len, int n, int lineno, void *arg)
{
	unsigned char h[HDR], payload[4096];
	struct buf file = BUF_INIT(4096);
	size_t k = 0;
	long type;
	struct readout o;
	char want[64];
	UNUSED(len);
	UNUSED(arg);

	if (n < 3 || parse_long(f[0], 0, 255, &type)) {
		ok(0, "bad-payloads.txt:%d: malformed", lineno);
		return;
	}
	/* a 4th column "v2" or "v3": the file is of that format version
	 * (positions LEB128; TEXT records in 3), else of version 1 */
	make_header(h, n > 3 && !strcmp(f[3], "v3") ? 3 : n > 3 && !strcmp(f[3], "v2") ? 2 : 1, 1,
		    2);
	for (const char *p = f[1]; *p && k < sizeof(payload) - 4;) {
		if (*p == ' ') {
			p++;
		} else if (p[1] && p[2] == '*') {
			/* XX*N: the byte XX N times */
			unsigned char x = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
			char *end;
			unsigned long rep = strtoul(p + 3, &end, 10);

			for (; rep && k < sizeof(payload) - 4; rep--)
				payload[k++] = x;
			p = end;
		} else if (!strncmp(p, "HCRC", 4)) {
			memcpy(payload + k, h + 24, 4);
			k += 4;
			p += 4;
		} else if (p[1]) {
			payload[k++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
			p += 2;
		} else {
			break;
		}
	}
	buf_add(&file, h, HDR);
	add_frame(&file, (unsigned)type, payload, k);
	o = read_mem((const unsigned char *)file.ptr, file.len);
	snprintf(want, sizeof(want), "corrupt record at offset %d: ", HDR);
	ok(o.rc == -1 && o.count == 0 && strstr(o.msg, want) && strstr(o.msg, f[2]),
	   "bad-payloads.txt:%d: type %ld: %s", lineno, type, f[2]);
	if (o.rc != -1 || !strstr(o.msg, f[2]))
		diag("  rc %d, msg \"%s\"", o.rc, o.msg);
	readout_free(&o);
	buf_free(&file);
}

/* Truncate the log at every offset: never an error, the records that end
 * before the cut, and a torn tail unless the cut is on a record boundary. */
static void truncation_sweep(const unsigned char *d, size_t len, int n_data)
{
	struct frame fr[256];
	size_t nf = frames_of(d, len, fr, 256);
	int bad = 0;

	for (size_t t = 0; t <= len && bad < 5; t++) {
		struct readout o = read_mem(d, t);
		int want_count = 0;
		int64_t want_torn = t < HDR ? 0 : -1;
		for (size_t i = 0; i < nf; i++) {
			if (fr[i].end <= t)
				want_count += fr[i].type != 6;
			else if (fr[i].off < t)
				want_torn = (int64_t)fr[i].off;
		}
		if (o.rc != 0 || o.count != want_count || o.torn != want_torn ||
		    (want_torn >= 0 && !strstr(o.msg, "torn tail at offset"))) {
			diag("cut at %zu: rc %d count %d (want %d) torn %" PRId64 " (want %" PRId64
			     "): %s", t, o.rc, o.count, want_count, o.torn, want_torn, o.msg);
			bad++;
		}
		readout_free(&o);
	}
	ok(!bad, "cut at each of %zu offsets: a torn tail, never an error", len + 1);
	ok(n_data > 0, "sweep covered %d data records", n_data);
}

/* Cut the last data record and the final commit at every byte, repair the
 * file, check it, and start a new segment beside it. */
static void repair_sweep(const unsigned char *d, size_t len, const char *want_text)
{
	struct frame fr[256];
	size_t nf = frames_of(d, len, fr, 256), last = 0;
	const char *dir = fresh_dir("repair");
	char path[600], *want_prefix = xstrdup(want_text), *nl;
	struct buf err = BUF_INIT(4096);
	int bad = 0, repaired = 0;

	for (size_t i = 0; i < nf; i++)
		if (fr[i].type != 6)
			last = i;
	/* the expected dump without the last record */
	nl = want_prefix + strlen(want_prefix) - 1;
	while (nl > want_prefix && nl[-1] != '\n')
		nl--;
	*nl = '\0';
	snprintf(path, sizeof(path), "%s/deltas", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/deltas/r7-000001.dlt", dir);
	for (size_t t = fr[last].off; t < len && bad < 5; t++) {
		struct delta_reader *r;
		struct readout o;
		int rc, torn = t != fr[last].off && t != fr[last].end;
		size_t after_len;
		unsigned char *after;

		spit(path, d, t);
		rc = delta_repair(path, &err);
		after = slurp(path, &after_len);
		r = delta_reader_open(path, &err);
		o = r ? read_all(r) : (struct readout){ .rc = -2 };
		if (rc != torn || o.rc != 0 || o.torn != -1 ||
		    after_len != (t < fr[last].end ? fr[last].off : fr[last].end) ||
		    strcmp(o.text ? o.text : "", t < fr[last].end ? want_prefix : want_text)) {
			diag("repair of a cut at %zu: rc %d, size %zu, reread %d: %s", t, rc,
			     after_len, o.rc, buf_str(&err));
			bad++;
		}
		repaired += rc == 1;
		free(after);
		readout_free(&o);
	}
	ok(!bad, "repair at each of %zu cuts of the last record: cut back to the last good "
		 "record (%d repaired)", len - fr[last].off, repaired);
	free(take_log());

	/* The crawl resumes in a new segment beside the repaired one. */
	{
		struct delta_writer *w = delta_open(dir, 7, &err);
		struct delta_seg *segs = NULL;
		size_t n = 0;
		ok(w && strstr(delta_writer_path(w), "r7-000002.dlt"), "next run writes r7-000002");
		if (w) {
			delta_add_del(w, 12345);
			is_int(delta_close(w), 0, "close the new segment");
		}
		is_int(delta_list(dir, &segs, &n, &err), 0, "delta_list");
		is_int(n, 2, "two segments");
		if (n == 2) {
			struct readout o = read_all(delta_reader_open(segs[1].path, &err));
			is_str(o.text, "DEL 12345\n", "new segment reads back");
			readout_free(&o);
		}
		delta_list_free(segs, n);
	}
	free(want_prefix);
	buf_free(&err);
}

/* Flip bytes of every record: a frame that a later commit vouches for is
 * corruption at its own offset; damage to the final commit is a torn tail. */
static void flip_sweep(const unsigned char *d, size_t len, int n_data)
{
	struct frame fr[256];
	size_t nf = frames_of(d, len, fr, 256);
	static const unsigned char masks[] = { 0x01, 0x80, 0xff };
	unsigned char *c = xmalloc(len);
	int bad = 0, flips = 0;

	for (size_t i = 0; i < nf && bad < 5; i++) {
		int before = 0;
		for (size_t j = 0; j < i; j++)
			before += fr[j].type != 6;
		for (size_t b = fr[i].off; b < fr[i].end && bad < 5; b++) {
			for (size_t m = 0; m < sizeof(masks); m++) {
				struct readout o;
				char want[64];
				int good;
				memcpy(c, d, len);
				c[b] ^= masks[m];
				o = read_mem(c, len);
				flips++;
				if (i == nf - 1) {
					good = o.rc == 0 && o.count == n_data &&
					       o.torn == (int64_t)fr[i].off;
				} else {
					snprintf(want, sizeof(want), "corrupt record at offset %zu:",
						 fr[i].off);
					good = o.rc == -1 && o.count == before && strstr(o.msg, want);
				}
				if (!good) {
					diag("flip %02x at %zu (frame at %zu): rc %d count %d torn %"
					     PRId64 ": %s", masks[m], b, fr[i].off, o.rc, o.count,
					     o.torn, o.msg);
					bad++;
				}
				readout_free(&o);
			}
		}
	}
	ok(!bad, "%d byte flips in %zu frames: corruption at the frame's offset, torn tail in "
		 "the final commit", flips, nf);
	free(c);
}

static void header_flips(const unsigned char *d, size_t len)
{
	unsigned char *c = xmalloc(len);
	int bad = 0;

	for (size_t b = 0; b < HDR; b++) {
		struct readout o;
		const char *want = b < 8 ? "bad magic" : b < 12 ? "format version" : "header crc";
		uint32_t v;

		memcpy(c, d, len);
		c[b] ^= 0x01;
		/* A flipped version that is another readable one (3 ^ 1 = 2)
		 * passes the version check; the header crc catches it. */
		v = rd32(c + 8);
		if (b >= 8 && b < 12 && v >= 1 && v <= 3)
			want = "header crc";
		o = read_mem(c, len);
		if (o.rc != -2 || !strstr(o.msg, want)) {
			diag("header flip at %zu: rc %d: %s", b, o.rc, o.msg);
			bad++;
		}
		readout_free(&o);
	}
	ok(!bad, "every header byte flipped: the open fails with a clear reason");
	free(c);
}


/* Damage in data that was written but never vouched for by a commit (the
 * pages of an unsynced batch reach the disk in any order) is a torn tail;
 * once the final commit exists, the same damage is corruption. */
static void hole_test(void)
{
	const char *dir = fresh_dir("hole");
	struct buf err = BUF_INIT(4096);
	struct delta_writer *w = delta_open(dir, 1, &err);
	unsigned char *unsynced = NULL, *closed = NULL;
	size_t ulen, clen, nf;
	struct frame fr[32];
	struct readout o;
	char *path, want[64];

	if (!ok(w != NULL, "hole: open"))
		return;
	path = xstrdup(delta_writer_path(w));
	for (uint32_t i = 1; i <= 3; i++)
		delta_add_del(w, i);
	delta_sync(w);
	for (uint32_t i = 4; i <= 6; i++)
		delta_add_lastmod(w, i, 1000 + i);
	delta_sync(w);
	unsynced = slurp(path, &ulen); /* what a crash right now could leave */
	is_int(delta_close(w), 0, "hole: close");
	closed = slurp(path, &clen);
	nf = frames_of(unsynced, ulen, fr, 32);
	/* DEL DEL DEL COMMIT LASTMOD LASTMOD LASTMOD */
	if (!ok(nf == 7 && fr[3].type == 6 && clen == ulen + COMMIT_REC, "hole: layout"))
		goto out;
	memset(unsynced + fr[4].off, 0, fr[4].end - fr[4].off);
	o = read_mem(unsynced, ulen);
	ok(o.rc == 0 && o.count == 3 && o.torn == (int64_t)fr[4].off,
	   "hole in the unsynced batch: torn tail at its offset, good records after it ignored");
	readout_free(&o);
	memset(closed + fr[4].off, 0, fr[4].end - fr[4].off);
	o = read_mem(closed, clen);
	snprintf(want, sizeof(want), "corrupt record at offset %zu:", fr[4].off);
	ok(o.rc == -1 && o.count == 3 && strstr(o.msg, want) && strstr(o.msg, "shows these bytes"),
	   "the same hole under a commit: %s", o.msg);
	readout_free(&o);

	/* A commit frame of another file in a torn tail vouches for nothing. */
	{
		struct buf b = BUF_INIT(1 << 20);
		unsigned char c[12], other[HDR];
		struct readout o2;
		make_header(other, 1, 1, 99);
		buf_add(&b, unsynced, fr[4].off + 5);
		memset(c, 0, sizeof(c));
		le32(c, (uint32_t)fr[4].off + 1); /* X beyond the damage */
		memcpy(c + 8, other + 24, 4);
		add_frame(&b, 6, c, sizeof(c));
		o2 = read_mem((unsigned char *)b.ptr, b.len);
		ok(o2.rc == 0 && o2.count == 3 && o2.torn == (int64_t)fr[4].off,
		   "a foreign commit frame in the tail is ignored");
		readout_free(&o2);
		/* ... while this file's own commit after the damage proves it */
		memcpy(c + 8, unsynced + 24, 4);
		buf_truncate(&b, fr[4].off + 5);
		add_frame(&b, 6, c, sizeof(c));
		o2 = read_mem((unsigned char *)b.ptr, b.len);
		ok(o2.rc == -1 && o2.count == 3, "this file's commit after the damage: corruption");
		readout_free(&o2);
		buf_free(&b);
	}
out:
	free(unsynced);
	free(closed);
	free(path);
	buf_free(&err);
}

static void edge_files(void)
{
	const char *dir = fresh_dir("edges");
	unsigned char h[HDR], z[HDR];
	struct buf err = BUF_INIT(4096), b = BUF_INIT(1 << 26);
	struct readout o;
	char path[600];

	make_header(h, 1, 3, 4);
	memset(z, 0, sizeof(z));

	o = read_mem(h, 0);
	ok(o.rc == 0 && o.count == 0 && o.torn == 0 && strstr(o.msg, "torn tail at offset 0"),
	   "zero-length file: torn tail at 0 (%s)", o.msg);
	readout_free(&o);
	o = read_mem(h, 11);
	ok(o.rc == 0 && o.torn == 0, "header cut short: torn tail at 0");
	readout_free(&o);
	o = read_mem(z, HDR);
	ok(o.rc == 0 && o.torn == 0, "all-zero header (size extended, data lost): torn tail at 0");
	readout_free(&o);
	o = read_mem((const unsigned char *)"GIF89a", 6);
	ok(o.rc == -2 && strstr(o.msg, "bad magic"), "short file of something else: bad magic");
	readout_free(&o);
	o = read_mem(h, HDR);
	ok(o.rc == 0 && o.count == 0 && o.torn == -1 && !*o.msg,
	   "header-only file: a valid empty log");
	readout_free(&o);
	make_header(z, 4, 3, 4);
	o = read_mem(z, HDR);
	ok(o.rc == -2 && strstr(o.msg, "format version 4 (this build reads 1 to 3)"),
	   "version 4: %s", o.msg);
	readout_free(&o);
	make_header(z, 0, 3, 4);
	o = read_mem(z, HDR);
	ok(o.rc == -2 && strstr(o.msg, "format version 0 (this build reads 1 to 3)"),
	   "version 0: %s", o.msg);
	readout_free(&o);
	for (uint32_t v = 1; v <= 3; v++) {
		make_header(z, v, 3, 4);
		o = read_mem(z, HDR);
		ok(o.rc == 0 && o.count == 0 && o.torn == -1, "version %u: a valid empty log",
		   (unsigned)v);
		readout_free(&o);
	}

	/* a commit-only log, and a record just over / at the cap */
	{
		unsigned char c[12] = { HDR };
		unsigned char f[FRAME];
		buf_add(&b, h, HDR);
		memcpy(c + 8, h + 24, 4);
		add_frame(&b, 6, c, sizeof(c));
		o = read_mem((unsigned char *)b.ptr, b.len);
		ok(o.rc == 0 && o.count == 0 && o.torn == -1, "commit-only log reads as empty");
		readout_free(&o);

		buf_truncate(&b, HDR);
		le32(f, DELTA_MAX_PAYLOAD + 1);
		le32(f + 4, 0);
		f[8] = 1;
		buf_add(&b, f, FRAME);
		o = read_mem((unsigned char *)b.ptr, b.len);
		ok(o.rc == 0 && o.torn == HDR && strstr(o.msg, "over the cap"),
		   "length over the cap at the end: torn tail (%s)", o.msg);
		readout_free(&o);
		c[0] = HDR + 9; /* a commit after the bad frame vouching for it */
		add_frame(&b, 6, c, sizeof(c));
		o = read_mem((unsigned char *)b.ptr, b.len);
		ok(o.rc == -1 && strstr(o.msg, "corrupt record at offset 28: record length"),
		   "length over the cap before a commit: corruption (%s)", o.msg);
		readout_free(&o);
	}

	/* files on disk: missing, directory, torn header removed by repair */
	snprintf(path, sizeof(path), "%s/missing.dlt", dir);
	ok(!delta_reader_open(path, &err), "missing file refused");
	ok(strstr(buf_str(&err), "cannot open") != NULL, "  ... %s", buf_str(&err));
	ok(!delta_reader_open(dir, &err), "directory refused");
	ok(strstr(buf_str(&err), "not a regular file") != NULL, "  ... %s", buf_str(&err));
	is_int(delta_repair(path, &err), -1, "repair of a missing file fails");
	snprintf(path, sizeof(path), "%s/r1-000001.dlt", dir);
	spit(path, h, 5);
	is_int(delta_repair(path, &err), 1, "repair of a torn header: removed");
	ok(access(path, F_OK) < 0, "torn-header file is gone");
	spit(path, h, HDR);
	is_int(delta_repair(path, &err), 0, "repair of a header-only file: nothing to do");
	spit(path, "GIF89a-and-more-bytes-than-a-header", 35);
	is_int(delta_repair(path, &err), -1, "repair refuses a file that is not a delta log");
	ok(strstr(buf_str(&err), "bad magic") != NULL, "  ... saying why: %s", buf_str(&err));
	free(take_log());
	buf_free(&b);
	buf_free(&err);
}

/* delta_words_add() refuses what a word may not be and positions out of
 * order, saying why, and adds nothing then. */
static void words_refused(struct delta_words *d)
{
	uint32_t pos[2] = { 1, 2 }, bad[2] = { 5, 5 };

	is_int(delta_words_add(d, "", 0, pos, 1), -1, "words: empty word refused");
	ok(strstr(d->err, "word of 0 bytes") != NULL, "  ... %s", d->err);
	is_int(delta_words_add(d, "\xff", 1, pos, 1), -1, "words: invalid UTF-8 refused");
	ok(strstr(d->err, "not UTF-8") != NULL, "  ... %s", d->err);
	{
		/* Strict UTF-8, as charset.c's utf8_valid(): what a
		 * word may not hold. */
		static const struct {
			const char *s;
			size_t len;
			const char *what;
		} refused[] = {
		    {"a\0b", 3, "a NUL"},
		    {"\xc0\xaf", 2, "an overlong '/'"},
		    {"\xe0\x80\xaf", 3, "an overlong 3-byte form"},
		    {"\xed\xa0\x80", 3, "a surrogate"},
		    {"\xf4\x90\x80\x80", 4, "a code point above U+10FFFF"},
		    {"ab\xe2\x82", 4, "a sequence cut by the word's end"},
		    {"\x80z", 2, "a lone continuation byte"},
		    {"caf\xc3", 4, "a lead byte at the end"},
		};
		for (size_t k = 0; k < sizeof refused / sizeof *refused; k++)
			is_int(delta_words_add(d, refused[k].s, refused[k].len, pos, 1),
			       -1, "words: %s refused", refused[k].what);
	}
	is_int(delta_words_add(d, "b", 1, bad, 2), -1, "words: positions not ascending");
	ok(strstr(d->err, "not ascending (5 after 5)") != NULL, "  ... %s", d->err);
	is_int((int)d->n, 0, "words: refused words are not added");
}

/* The words of a DOC built apart from the writer (struct delta_words). */
static void words_apart(const char *dir, struct buf *err)
{
	struct delta_writer *w2;
	struct delta_words d;
	uint32_t pos[2] = { 1, 2 }, p3[3] = { 1, 2, 3 };
	struct delta_seg *segs;
	size_t n;
	struct readout o;
	struct delta_stats st;
	char *log;

	delta_words_init(&d);
	words_refused(&d);
	is_int(delta_words_add(&d, "zeta", 4, p3, 3), 0, "words: zeta");
	is_int(delta_words_add(&d, "alpha", 5, pos, 2), 0, "words: alpha, out of order");
	is_int(delta_words_add(&d, "\xc3\xa9t\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e", 12, pos,
	                       1),
	       0, "words: 2-, 3- and 4-byte UTF-8 accepted");
	w2 = delta_open(dir, 3, err);
	ok(w2 != NULL, "words: open rank 3");
	is_int(delta_add_words(w2, 0, 1, 1, &d), -1, "words: url 0 refused");
	is_int(delta_doc_begin(w2, 20, 1, 1), 0, "words: a DOC open ...");
	is_int(delta_add_words(w2, 21, 1, 1, &d), -1, "  ... refuses delta_add_words");
	delta_doc_abort(w2);
	is_int(delta_add_words(w2, 22, 4, 9, &d), 0, "words: appended");
	delta_writer_stats(w2, &st);
	is_int((int)st.resorted, 1, "words: the unsorted DOC counted in resorted");
	delta_words_reset(&d);
	is_int(delta_words_add(&d, "x", 1, pos, 1), 0, "words: reset, x");
	is_int(delta_words_add(&d, "x", 1, pos, 1), 0, "words: x again (found at the append)");
	is_int(delta_add_words(w2, 23, 4, 9, &d), -1, "words: a word added twice refused");
	is_int(delta_close(w2), 0, "words: close");
	log = take_log();
	ok(strstr(log, "url 23: word \"x\" added twice") != NULL, "  ... logged");
	free(log);
	delta_list(dir, &segs, &n, err);
	o = (struct readout){ 0 };
	for (size_t i = 0; i < n; i++)
		if (segs[i].rank == 3)
			o = read_all(delta_reader_open(segs[i].path, err));
	is_str(o.text,
	       "DOC 22 4 9 alpha:1,2 zeta:1,2,3 "
	       "\xc3\xa9t\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e:1\n",
	       "words: the log has the sorted DOC, the multibyte word read back");
	readout_free(&o);
	delta_list_free(segs, n);
	delta_words_free(&d);
	delta_words_free(&d);
}

/* delta_open() refuses a negative rank and a DataDir that is a file. */
static void open_refused(const char *dir, struct buf *err)
{
	ok(delta_open(dir, -1, err) == NULL, "negative rank refused");
	{
		char file[600];
		snprintf(file, sizeof(file), "%s/plainfile", dir);
		spit(file, "x", 1);
		ok(delta_open(file, 0, err) == NULL, "DataDir that is a file refused");
		ok(strstr(buf_str(err), "cannot create") != NULL, "  ... %s", buf_str(err));
	}
}

static void writer_misuse(void)
{
	const char *dir = fresh_dir("misuse");
	struct buf err = BUF_INIT(4096);
	struct delta_writer *w = delta_open(dir, 2, &err);
	uint32_t pos[2] = { 1, 2 };
	struct delta_stats st;
	char *log;

	if (!ok(w != NULL, "misuse: open"))
		return;
	is_int(delta_doc_word(w, "a", 1, pos, 1), -1, "word outside a DOC");
	is_int(delta_doc_end(w), -1, "end without begin");
	is_int(delta_doc_begin(w, 5, 1, 1), 0, "begin");
	is_int(delta_add_del(w, 6), -1, "DEL while a DOC is open");
	is_int(delta_doc_begin(w, 7, 1, 1), -1, "begin while a DOC is open");
	is_int(delta_doc_word(w, "a\0b", 3, pos, 1), -1, "word with a NUL");
	is_int(delta_doc_word(w, "a", 1, pos, 2), 0, "a good word after a refused one");
	is_int(delta_doc_end(w), 0, "the DOC still ends well");
	is_int(delta_doc_begin(w, 8, 1, 1), 0, "begin another");
	delta_doc_abort(w);
	is_int(delta_add_del(w, 9), 0, "abort closes the DOC");
	is_int(delta_doc_begin(w, 10, 1, 1), 0, "a DOC left open at close");
	delta_writer_stats(w, &st);
	is_int(st.records, 2, "refused and aborted records are not counted");
	is_int(delta_close(w), 0, "close with an open DOC drops it");
	log = take_log();
	ok(strstr(log, "unfinished; dropped") != NULL, "  ... with a warning");
	free(log);
	{
		struct delta_seg *segs;
		size_t n;
		struct readout o;
		delta_list(dir, &segs, &n, &err);
		o = n ? read_all(delta_reader_open(segs[0].path, &err)) : (struct readout){ 0 };
		is_str(o.text, "DOC 5 1 1 a:1,2\nDEL 9\n", "only the finished records are in the log");
		readout_free(&o);
		delta_list_free(segs, n);
	}
	words_apart(dir, &err);
	open_refused(dir, &err);
	is_int(delta_close(NULL), 0, "delta_close(NULL)");
	delta_reader_close(NULL);
	delta_list_free(NULL, 0);
	delta_doc_abort(NULL);
	ok(1, "destructors accept NULL");
	free(take_log());
	buf_free(&err);
}

/* Pages at the caps: a word with DELTA_MAX_WORD_POSITIONS positions, many
 * words, many links. */
static void caps_test(void)
{
	const char *dir = fresh_dir("caps");
	struct buf err = BUF_INIT(4096);
	struct delta_writer *w = delta_open(dir, 3, &err);
	uint32_t *pos = xmalloc(65536 * sizeof(*pos));
	uint32_t *ids = xmalloc(200000 * sizeof(*ids));
	unsigned char *d;
	size_t len;
	int words_ok = 1, rc;
	char *path;

	if (!ok(w != NULL, "caps: open"))
		return;
	path = xstrdup(delta_writer_path(w));
	for (size_t i = 0; i < 65536; i++)
		pos[i] = (uint32_t)i * 300; /* up to 19,660,500: past MAX_POSITION too */
	delta_doc_begin(w, 1, 1, 1);
	is_int(delta_doc_word(w, "all", 3, pos, DELTA_MAX_WORD_POSITIONS), 0,
	       "a word with 32767 positions");
	is_int(delta_doc_word(w, "toomany", 7, pos, DELTA_MAX_WORD_POSITIONS + 1), -1,
	       "32768 positions refused");
	/* the writer sorts: add 20000 words in reverse order */
	for (int i = 19999; i >= 0 && words_ok; i--) {
		char word[16];
		int n = snprintf(word, sizeof(word), "w%05d", i);
		words_ok = delta_doc_word(w, word, (size_t)n, pos + i % 100, 3) == 0;
	}
	ok(words_ok, "20000 more words");
	is_int(delta_doc_end(w), 0, "big DOC ends");
	/* DELTA_MAX_DOC_WORDS distinct words fit; one more does not */
	delta_doc_begin(w, 2, 1, 1);
	rc = 0;
	for (uint32_t i = 0; i < DELTA_MAX_DOC_WORDS && !rc; i++) {
		char word[16];
		int n = snprintf(word, sizeof(word), "%" PRIx32, i);
		rc = delta_doc_word(w, word, (size_t)n, pos, 1);
	}
	ok(!rc, "%u words fit", DELTA_MAX_DOC_WORDS);
	is_int(delta_doc_word(w, "one-more", 8, pos, 1), -1, "one word over the cap refused");
	delta_doc_abort(w);
	for (uint32_t i = 0; i < 200000; i++)
		ids[i] = 200000 - i;
	is_int(delta_add_hrefs(w, 3, ids, 200000), 0, "200000 links");
	is_int(delta_close(w), 0, "caps: close");

	d = slurp(path, &len);
	{
		struct buf e2 = BUF_INIT(4096);
		struct delta_reader *r = delta_reader_open_mem("caps", d, len, &e2);
		struct delta_rec rec;
		int good = r && delta_next(r, &rec) == 1 && rec.type == DELTA_DOC &&
			   rec.n_words == 20001 && !strcmp(rec.words[0].word, "all") &&
			   rec.words[0].n_pos == DELTA_MAX_WORD_POSITIONS &&
			   rec.words[0].pos[32766] == 32766u * 300 &&
			   !strcmp(rec.words[1].word, "w00000") &&
			   !strcmp(rec.words[20000].word, "w19999") &&
			   rec.words[20000].pos[0] == 99 * 300;
		ok(good, "big DOC reads back sorted");
		good = r && delta_next(r, &rec) == 1 && rec.type == DELTA_HREFS &&
		       rec.n_hrefs == 200000 && rec.hrefs[0] == 1 && rec.hrefs[199999] == 200000;
		ok(good, "200000 links read back sorted");
		ok(r && delta_next(r, &rec) == 0 && delta_reader_torn(r) == -1, "then the end");
		delta_reader_close(r);
		/* the file reader, whose window must grow for the big record */
		r = delta_reader_open(path, &e2);
		{
			struct readout o = read_all(r);
			is_int(o.count, 2, "file reader: both records");
			readout_free(&o);
		}
		buf_free(&e2);
	}
	free(d);
	free(path);
	free(pos);
	free(ids);
	free(take_log());
	buf_free(&err);
}

static void list_test(void)
{
	static const char *const names[] = {
		"r10-000001.dlt", "r2-000010.dlt", "r2-000003.dlt", "r0-7.dlt",
		/* not segments */
		"r2-1.dlt.tmp", "x.dlt", "r-1.dlt", "r2-.dlt", "r2_1.dlt", "R2-1.dlt",
		"r99999999999-1.dlt", "r1-99999999999.dlt", "r1-1.DLT",
	};
	static const char *const want[] = {
		"r0-7.dlt", "r2-000003.dlt", "r2-000010.dlt", "r3-000001.dlt", "r10-000001.dlt",
	};
	const char *dir = fresh_dir("list");
	struct buf err = BUF_INIT(4096);
	struct delta_seg *segs = NULL;
	struct delta_writer *w;
	char path[600];
	size_t n = 99;
	int order = 1;

	is_int(delta_list(dir, &segs, &n, &err), 0, "list without deltas/");
	ok(n == 0 && segs == NULL, "  ... is empty");
	snprintf(path, sizeof(path), "%s/deltas", dir);
	mkdir(path, 0755);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/deltas/%s", dir, names[i]);
		spit(path, "", 0);
	}
	w = delta_open(dir, 3, &err);
	delta_close(w);
	is_int(delta_list(dir, &segs, &n, &err), 0, "delta_list");
	is_int(n, ARRAY_SIZE(want), "only segment names are listed");
	for (size_t i = 0; i < n && i < ARRAY_SIZE(want); i++) {
		const char *slash = strrchr(segs[i].path, '/');
		if (!slash || strcmp(slash + 1, want[i])) {
			diag("  %zu: %s, want %s", i, segs[i].path, want[i]);
			order = 0;
		}
	}
	ok(order, "sorted by (rank, seq)");
	ok(n == 5 && segs[1].rank == 2 && segs[1].seq == 3 && segs[4].rank == 10,
	   "rank and seq parsed");
	ok(n == 5 && segs[3].created > 1600000000 && segs[0].created == 0,
	   "created from the header, 0 when unreadable");
	delta_list_free(segs, n);
	snprintf(path, sizeof(path), "%s/file", dir);
	spit(path, "", 0);
	is_int(delta_list(path, &segs, &n, &err), -1, "list of a DataDir that is a file fails");
	ok(strstr(buf_str(&err), "cannot read") != NULL, "  ... %s", buf_str(&err));
	buf_free(&err);
}

/* A write that fails half-way (here: RLIMIT_FSIZE) leaves the file on a
 * record boundary and the writer dead. */
static void write_failure_test(void)
{
	const char *dir = fresh_dir("efbig");
	struct buf err = BUF_INIT(4096);
	struct delta_writer *w = delta_open(dir, 4, &err);
	struct rlimit old, lim;
	struct stat st;
	struct delta_stats ds;
	uint32_t pos[1000];
	char *path, *log;
	int rc;

	if (!ok(w != NULL, "efbig: open"))
		return;
	path = xstrdup(delta_writer_path(w));
	for (int i = 0; i < 1000; i++)
		pos[i] = (uint32_t)i;
	delta_add_del(w, 1);
	delta_add_redir(w, 2, 3);
	/* The limit binds the log file too: a first batch of some kilobytes
	 * leaves room for the error line whatever the temp dir's path. */
	delta_doc_begin(w, 5, 1, 1);
	delta_doc_word(w, "small", 5, pos, 1000);
	delta_doc_end(w);
	is_int(delta_sync(w), 0, "efbig: first batch durable");
	free(take_log());
	stat(path, &st);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)st.st_size + 100;
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &lim) < 0) {
		ok(1, "# SKIP cannot set RLIMIT_FSIZE");
		delta_close(w);
		free(path);
		buf_free(&err);
		return;
	}
	delta_doc_begin(w, 4, 1, 1);
	delta_doc_word(w, "big", 3, pos, 1000);
	delta_doc_end(w);
	rc = delta_sync(w);
	setrlimit(RLIMIT_FSIZE, &old);
	is_int(rc, -1, "sync fails when the write fails half-way");
	log = take_log();
	ok(strstr(log, "records since the last sync are lost") != NULL, "  ... and says so");
	free(log);
	stat(path, &st);
	delta_writer_stats(w, &ds);
	{
		struct buf e2 = BUF_INIT(4096);
		struct readout o = read_all(delta_reader_open(path, &e2));
		ok(o.rc == 0 && o.torn == -1 && o.count == 3 && o.good_end == (uint64_t)st.st_size,
		   "file cut back to the last record boundary: clean, 3 records");
		readout_free(&o);
		buf_free(&e2);
	}
	is_int(ds.durable, 3, "durable count unchanged");
	is_int(delta_add_del(w, 5), -1, "a dead writer refuses records");
	is_int(delta_sync(w), -1, "  ... and syncs");
	is_int(delta_close(w), -1, "close of a dead writer reports the loss");
	free(take_log());
	free(path);
	buf_free(&err);
}

/* delta_add_text() refuses a field over DELTA_MAX_TEXT_FIELD (each of the
 * five), url_id 0 and a TEXT while a DOC is open, and leaves a text too big
 * for one record out without an error; a refused or left-out TEXT writes
 * nothing. */
static void text_writes(void)
{
	const char *dir = fresh_dir("textw");
	struct buf err = BUF_INIT(4096);
	struct delta_writer *w = delta_open(dir, 6, &err);
	char *big = xmalloc(DELTA_MAX_TEXT_FIELD + 2), *path, *log;
	struct delta_stats before, after;
	struct delta_text t = { .size = 1 };
	const char **field[5] = { &t.content_type, &t.charset, &t.title, &t.description,
				  &t.keywords };
	unsigned char *huge;

	if (!ok(w != NULL, "text: open"))
		goto out;
	path = xstrdup(delta_writer_path(w));
	memset(big, 'x', DELTA_MAX_TEXT_FIELD + 1);
	big[DELTA_MAX_TEXT_FIELD + 1] = '\0';
	free(take_log());
	for (int i = 0; i < 5; i++) {
		t.content_type = t.charset = t.title = t.description = t.keywords = "";
		*field[i] = big;
		delta_writer_stats(w, &before);
		is_int(delta_add_text(w, 1, &t), -1, "text: field %d of 1025 bytes refused", i);
		delta_writer_stats(w, &after);
		log = take_log();
		if (!ok(after.records == before.records && after.bytes == before.bytes &&
			strstr(log, "a field of 1025 bytes (at most 1024)"),
			"  ... nothing written, the reason logged"))
			diag("  log: %s", log);
		free(log);
	}
	big[DELTA_MAX_TEXT_FIELD] = '\0';
	t.content_type = t.charset = t.title = t.description = t.keywords = big;
	is_int(delta_add_text(w, 2, &t), 0, "text: five fields of 1024 bytes accepted");
	t.content_type = t.charset = t.title = t.description = t.keywords = NULL;
	is_int(delta_add_text(w, 3, &t), 0, "text: NULL fields are empty ones");
	is_int(delta_add_text(w, 0, &t), -1, "text: url_id 0 refused");
	log = take_log();
	if (!ok(strstr(log, "TEXT with url_id 0") != NULL, "  ... logged"))
		diag("  log: %s", log);
	free(log);
	is_int(delta_doc_begin(w, 4, 1, 1), 0, "text: a DOC open ...");
	is_int(delta_add_text(w, 4, &t), -1, "  ... refuses a TEXT");
	log = take_log();
	if (!ok(strstr(log, "TEXT for url 4 while the DOC of url 4 is open") != NULL,
		"  ... logged"))
		diag("  log: %s", log);
	free(log);
	is_int(delta_doc_end(w), 0, "  ... the DOC ends");
	/* one byte over DELTA_MAX_PAYLOAD with its 22 fixed bytes: left out */
	huge = xcalloc(1, DELTA_MAX_PAYLOAD);
	t.blob = huge;
	t.blob_len = DELTA_MAX_PAYLOAD - 22 + 1;
	delta_writer_stats(w, &before);
	is_int(delta_add_text(w, 4, &t), 0, "text: a text over the record cap: 0 ...");
	delta_writer_stats(w, &after);
	ok(after.records == before.records && after.bytes == before.bytes,
	   "  ... and nothing written");
	t.content_type = "a";
	t.blob_len = DELTA_MAX_PAYLOAD - 22;
	is_int(delta_add_text(w, 4, &t), 0, "text: at the cap, with a 1-byte field: 0 ...");
	delta_writer_stats(w, &after);
	ok(after.records == before.records && after.bytes == before.bytes,
	   "  ... and nothing written");
	t.content_type = NULL;
	t.blob_len = 100000;
	is_int(delta_add_text(w, 4, &t), 0, "text: 100000 bytes of text written");
	free(huge);
	is_int(delta_close(w), 0, "text: close");
	{
		struct readout o = read_all(delta_reader_open(path, &err));
		struct buf want = BUF_INIT(1 << 20);
		char *b = xmalloc(4 * (DELTA_MAX_TEXT_FIELD + 1) + 1);

		for (int i = 0; i < 4; i++) {
			memcpy(b + i * (DELTA_MAX_TEXT_FIELD + 1), big, DELTA_MAX_TEXT_FIELD);
			b[i * (DELTA_MAX_TEXT_FIELD + 1) + DELTA_MAX_TEXT_FIELD] = '|';
		}
		b[4 * (DELTA_MAX_TEXT_FIELD + 1)] = '\0';
		buf_printf(&want, "TEXT 2 1 %s%s -\nTEXT 3 1 |||| -\nDOC 4 1 1\nTEXT 4 1 |||| ", b,
			   big);
		for (int i = 0; i < 100000; i++)
			buf_adds(&want, "00");
		buf_addc(&want, '\n');
		ok(o.rc == 0, "text: the log reads back");
		compare_dump(o.text, buf_str(&want), "text: only the accepted records");
		readout_free(&o);
		buf_free(&want);
		free(b);
	}
	free(path);
out:
	free(take_log());
	free(big);
	buf_free(&err);
}

/* The DOC and TEXT records of text_at_test()'s log. */
struct text_log {
	uint64_t doc[6], text[6], hrefs, size; /* offsets of url 100 + i */
};

/* delta_hrefs_at() on the same log: the HREFS right after a DOC, or after
 * its TEXT and a COMMIT; none after a DOC whose records end first. */
static void hrefs_at_check(struct delta_reader *r, const struct text_log *L, const char *kind)
{
	struct delta_rec t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = delta_hrefs_at(r, L->doc[1], 101, &t);
	ok(rc == 1 && t.type == DELTA_HREFS && t.url_id == 101 && t.offset == L->hrefs &&
	   t.n_hrefs == 1 && t.hrefs[0] == 5, "%s: DOC then HREFS: 1 and its target (rc %d)", kind,
	   rc);
	memset(&t, 0, sizeof(t));
	rc = delta_hrefs_at(r, L->doc[5], 106, &t);
	ok(rc == 1 && t.type == DELTA_HREFS && t.url_id == 106 && t.n_hrefs == 2 &&
	   t.hrefs[0] == 7 && t.hrefs[1] == 9,
	   "%s: DOC, TEXT, COMMIT, HREFS: 1, the TEXT and the commit skipped (rc %d)", kind, rc);
	is_int(delta_hrefs_at(r, L->doc[0], 100, &t), 0, "%s: DOC, TEXT, another DOC: 0", kind);
	is_int(delta_hrefs_at(r, L->doc[2], 102, &t), 0, "%s: DOC, COMMIT, TEXT, DOC: 0", kind);
	is_int(delta_hrefs_at(r, L->doc[3], 103, &t), 0, "%s: DOC then another url's TEXT: 0",
	       kind);
	is_int(delta_hrefs_at(r, L->doc[4], 105, &t), 0, "%s: the last DOC: 0", kind);
	is_int(delta_hrefs_at(r, L->doc[1], 100, &t), 0, "%s: url other than the DOC's: 0", kind);
	is_int(delta_hrefs_at(r, L->hrefs, 101, &t), 0, "%s: doc_off at a HREFS: 0", kind);
	is_int(delta_hrefs_at(r, L->size, 101, &t), 0, "%s: doc_off at the end: 0", kind);
	is_int(delta_hrefs_at(r, UINT64_MAX, 101, &t), 0, "%s: doc_off UINT64_MAX: 0", kind);
}

static void text_at_check(struct delta_reader *r, const struct text_log *L, const char *kind)
{
	struct delta_rec t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = delta_text_at(r, L->doc[0], 100, &t);
	ok(rc == 1 && t.type == DELTA_TEXT && t.url_id == 100 && t.offset == L->text[0] &&
	   t.text.size == 4321 && !strcmp(t.text.content_type, "text/html") &&
	   !strcmp(t.text.charset, "utf-8") && !strcmp(t.text.title, "A title") &&
	   !strcmp(t.text.description, "its description") &&
	   !strcmp(t.text.keywords, "key, words") && t.text.blob_len == 3 &&
	   !memcmp(t.text.blob, "\x01\x00\xff", 3),
	   "%s: DOC then its TEXT: 1 and the fields (rc %d)", kind, rc);
	is_int(delta_text_at(r, L->doc[1], 101, &t), 0, "%s: DOC then HREFS: 0", kind);
	memset(&t, 0, sizeof(t));
	rc = delta_text_at(r, L->doc[2], 102, &t);
	ok(rc == 1 && t.type == DELTA_TEXT && t.url_id == 102 && t.offset == L->text[2] &&
	   t.text.size == 0 && t.text.content_type && !*t.text.content_type && t.text.charset &&
	   !*t.text.charset && t.text.title && !*t.text.title && t.text.description &&
	   !*t.text.description && t.text.keywords && !*t.text.keywords && !t.text.blob_len,
	   "%s: DOC, COMMIT, TEXT: 1, the commit skipped, empty fields (rc %d)", kind, rc);
	is_int(delta_text_at(r, L->doc[3], 103, &t), 0, "%s: DOC then another url's TEXT: 0",
	       kind);
	is_int(delta_text_at(r, L->doc[3], 104, &t), 0, "%s: the DOC at doc_off is not 104's: 0",
	       kind);
	is_int(delta_text_at(r, L->doc[4], 105, &t), 0, "%s: the last DOC (a COMMIT, the end): 0",
	       kind);
	is_int(delta_text_at(r, L->doc[0], 101, &t), 0, "%s: url other than the DOC's: 0", kind);
	is_int(delta_text_at(r, L->text[0], 100, &t), 0, "%s: doc_off at a TEXT: 0", kind);
	is_int(delta_text_at(r, L->hrefs, 101, &t), 0, "%s: doc_off at a HREFS: 0", kind);
	is_int(delta_text_at(r, L->size, 100, &t), 0, "%s: doc_off at the end: 0", kind);
	is_int(delta_text_at(r, L->size + 5, 100, &t), 0, "%s: doc_off past the end: 0", kind);
	is_int(delta_text_at(r, UINT64_MAX, 100, &t), 0, "%s: doc_off UINT64_MAX: 0", kind);
	is_int(delta_text_at(r, 0, 100, &t), 0, "%s: doc_off in the header: 0", kind);
	is_int(delta_text_at(r, L->size - 3, 100, &t), 0, "%s: doc_off 3 bytes before the end: 0",
	       kind);
}

/* delta_text_at(): which TEXT follows which DOC, on a file and a memory
 * reader, and that it leaves delta_next()'s sequence alone. */
static void text_at_test(void)
{
	const char *dir = fresh_dir("textat");
	struct buf err = BUF_INIT(4096);
	struct delta_writer *w = delta_open(dir, 6, &err);
	struct delta_text t = { .size = 4321, .content_type = "text/html", .charset = "utf-8",
				.title = "A title", .description = "its description",
				.keywords = "key, words", .blob = "\x01\x00\xff", .blob_len = 3 };
	struct delta_text empty = { .content_type = "", .charset = "", .title = "",
				    .description = "", .keywords = "" };
	struct text_log L;
	struct frame fr[32];
	uint32_t pos[1] = { 1 }, to[1] = { 5 }, to2[2] = { 7, 9 };
	unsigned char *d;
	size_t len, nf;
	char *path, *plain;
	int good;

	if (!ok(w != NULL, "text_at: open"))
		return;
	path = xstrdup(delta_writer_path(w));
	good = !delta_doc_begin(w, 100, 1, 1) && !delta_doc_word(w, "a", 1, pos, 1) &&
	       !delta_doc_end(w) && !delta_add_text(w, 100, &t);
	good = good && !delta_doc_begin(w, 101, 1, 1) && !delta_doc_end(w) &&
	       !delta_add_hrefs(w, 101, to, 1);
	good = good && !delta_doc_begin(w, 102, 1, 1) && !delta_doc_end(w) && !delta_sync(w) &&
	       !delta_add_text(w, 102, &empty);
	good = good && !delta_doc_begin(w, 103, 1, 1) && !delta_doc_end(w) &&
	       !delta_add_text(w, 104, &t);
	good = good && !delta_doc_begin(w, 106, 1, 1) && !delta_doc_end(w) &&
	       !delta_add_text(w, 106, &t) && !delta_sync(w) && !delta_add_hrefs(w, 106, to2, 2);
	good = good && !delta_doc_begin(w, 105, 1, 1) && !delta_doc_end(w);
	ok(good && !delta_close(w), "text_at: log written");
	d = slurp(path, &len);
	nf = frames_of(d, len, fr, 32);
	/* DOC TEXT DOC HREFS DOC COMMIT TEXT DOC TEXT DOC TEXT COMMIT HREFS DOC
	 * COMMIT */
	if (!ok(nf == 15 && fr[5].type == 6 && fr[11].type == 6 && fr[14].type == 6 &&
		fr[6].type == DELTA_TEXT && fr[12].type == DELTA_HREFS,
		"text_at: layout (%zu frames)", nf))
		goto out;
	memset(&L, 0, sizeof(L));
	L.doc[0] = fr[0].off, L.text[0] = fr[1].off;
	L.doc[1] = fr[2].off, L.hrefs = fr[3].off;
	L.doc[2] = fr[4].off, L.text[2] = fr[6].off;
	L.doc[3] = fr[7].off, L.text[3] = fr[8].off;
	L.doc[4] = fr[13].off, L.doc[5] = fr[9].off;
	L.size = len;
	{
		struct delta_reader *r = delta_reader_open(path, &err);
		if (ok(r != NULL, "text_at: file reader")) {
			text_at_check(r, &L, "file");
			hrefs_at_check(r, &L, "file");
		}
		delta_reader_close(r);
		r = delta_reader_open_mem("mem", d, len, &err);
		if (ok(r != NULL, "text_at: memory reader")) {
			text_at_check(r, &L, "mem");
			hrefs_at_check(r, &L, "mem");
		}
		delta_reader_close(r);
	}
	/* Called after each DOC delta_next() returns, it does not move the
	 * sequence: the same records as a plain read, to the same end. */
	{
		struct readout o = read_mem(d, len);
		plain = o.text;
		o.text = NULL;
		readout_free(&o);
	}
	for (int file = 0; file < 2; file++) {
		struct delta_reader *r = file ? delta_reader_open(path, &err)
					      : delta_reader_open_mem("mem", d, len, &err);
		struct buf b = BUF_INIT(1 << 20);
		struct delta_rec rec, tr;
		int k, found = 0;

		while (r && (k = delta_next(r, &rec)) > 0) {
			dump(&rec, &b);
			if (rec.type == DELTA_DOC)
				found += delta_text_at(r, rec.offset, rec.url_id, &tr) == 1;
		}
		ok(r && k == 0 && delta_reader_torn(r) == -1 && found == 3 &&
		   !strcmp(buf_str(&b), plain),
		   "text_at: %s reader, delta_next() unmoved by it (%d found)",
		   file ? "file" : "mem", found);
		delta_reader_close(r);
		buf_free(&b);
	}
	free(plain);

	/* A TEXT whose crc does not match (a torn tail after a synced DOC):
	 * none, on both readers. */
	{
		unsigned char *c = xmalloc(len);
		char bad_path[600];
		struct delta_reader *r;
		struct delta_rec tr;

		memcpy(c, d, len);
		c[fr[1].off + FRAME + 10] ^= 0x20; /* a byte of the content type */
		r = delta_reader_open_mem("mem", c, len, &err);
		is_int(r ? delta_text_at(r, L.doc[0], 100, &tr) : -2, 0,
		       "text_at: mem: TEXT with a bad crc: 0");
		is_int(r ? delta_text_at(r, L.doc[2], 102, &tr) : -2, 1,
		       "  ... the next one still found");
		delta_reader_close(r);
		snprintf(bad_path, sizeof(bad_path), "%s/badcrc.dlt", dir);
		spit(bad_path, c, len);
		r = delta_reader_open(bad_path, &err);
		is_int(r ? delta_text_at(r, L.doc[0], 100, &tr) : -2, 0,
		       "text_at: file: TEXT with a bad crc: 0");
		delta_reader_close(r);
		free(c);
	}

	/* A TEXT with a good crc but impossible content: -1, saying why. */
	{
		struct buf b = BUF_INIT(1 << 20);
		unsigned char h[HDR], doc[20], text[32];
		struct delta_reader *r;
		struct delta_rec tr;
		size_t k = 0;

		make_header(h, 3, 6, 1);
		buf_add(&b, h, HDR);
		memset(doc, 0, sizeof(doc));
		le32(doc, 100);
		add_frame(&b, DELTA_DOC, doc, sizeof(doc));
		memset(text, 0, sizeof(text));
		le32(text, 100);
		k = 8;
		text[k++] = 3; /* content type "a\0b" */
		text[k++] = 0;
		memcpy(text + k, "a\0b", 3);
		k += 3 + 4 * 2 + 4;
		add_frame(&b, DELTA_TEXT, text, k);
		r = delta_reader_open_mem("mem", b.ptr, b.len, &err);
		is_int(r ? delta_text_at(r, HDR, 100, &tr) : -2, -1,
		       "text_at: a TEXT with a NUL in a field: -1");
		ok(r && strstr(delta_reader_msg(r), "corrupt record at offset 57: TEXT field 0 "
						    "holds a NUL"), "  ... %s",
		   r ? delta_reader_msg(r) : "");
		delta_reader_close(r);
		/* the same in a log of version 2: no TEXT can be there */
		make_header(h, 2, 6, 1);
		memcpy(b.ptr, h, HDR);
		r = delta_reader_open_mem("mem", b.ptr, b.len, &err);
		is_int(r ? delta_text_at(r, HDR, 100, &tr) : -2, -1,
		       "text_at: a TEXT in a log of version 2: -1");
		ok(r && strstr(delta_reader_msg(r), "TEXT record in a log of version 2"),
		   "  ... %s", r ? delta_reader_msg(r) : "");
		delta_reader_close(r);
		buf_free(&b);
	}
out:
	free(d);
	free(path);
	free(take_log());
	buf_free(&err);
}

/* [DOC 100][COMMIT][TEXT 100] by hand: the COMMIT's crc broken or not, the
 * TEXT good or holding a NUL.  Read with delta_next() alone and with
 * delta_text_at() after the DOC: the same end, the same good_end. */
static void text_at_state_case(bool commit_ok, bool text_ok)
{
	struct buf b = BUF_INIT(1 << 20);
	unsigned char h[HDR], doc[20], c[12], text[32];
	struct delta_reader *r;
	struct delta_rec rec, tr;
	struct readout plain;
	size_t k = 8, commit_at;
	int rc, tk = -2;

	make_header(h, 3, 6, 1);
	buf_add(&b, h, HDR);
	memset(doc, 0, sizeof(doc));
	le32(doc, 100);
	add_frame(&b, DELTA_DOC, doc, sizeof(doc));
	commit_at = b.len;
	memset(c, 0, sizeof(c));
	le32(c, (uint32_t)commit_at);
	memcpy(c + 8, h + 24, 4);
	add_frame(&b, 6, c, sizeof(c));
	if (!commit_ok)
		b.ptr[commit_at + 4] ^= 1; /* its crc */
	memset(text, 0, sizeof(text));
	le32(text, 100);
	text[k++] = 3;
	text[k++] = 0;
	memcpy(text + k, text_ok ? "abc" : "a\0b", 3);
	k += 3 + 4 * 2 + 4;
	add_frame(&b, DELTA_TEXT, text, k);

	plain = read_mem((const unsigned char *)b.ptr, b.len);
	r = delta_reader_open_mem("mem", b.ptr, b.len, NULL);
	rc = r ? delta_next(r, &rec) : -2;
	if (rc == 1)
		tk = delta_text_at(r, rec.offset, 100, &tr);
	while (rc == 1)
		rc = delta_next(r, &rec);
	ok(rc == plain.rc && r && delta_reader_torn(r) == plain.torn &&
	   delta_reader_good_end(r) == plain.good_end,
	   "text_at: COMMIT %s, TEXT %s: delta_next() ends as without it (rc %d/%d, "
	   "good_end %" PRIu64 "/%" PRIu64 ")", commit_ok ? "good" : "with a bad crc",
	   text_ok ? "good" : "with a NUL", rc, plain.rc, r ? delta_reader_good_end(r) : 0,
	   plain.good_end);
	/* past a damaged COMMIT delta_next() sees no TEXT: neither does it */
	is_int(tk, !commit_ok ? 0 : text_ok ? 1 : -1, "  ... delta_text_at() gives %d",
	       !commit_ok ? 0 : text_ok ? 1 : -1);
	delta_reader_close(r);
	readout_free(&plain);
	buf_free(&b);
}

int main(void)
{
	struct records rs = { .n_in = 0 };
	unsigned char *log_data;
	size_t log_len;

	if (!tap_mkdtemp(tmp_root, sizeof(tmp_root), "test-delta")) {
		ok(0, "mkdtemp %s", tmp_root);
		return done_testing();
	}
	/* The library logs refusals and repairs; keep them to check them. */
	snprintf(log_path, sizeof(log_path), "%s/log", tmp_root);
	if (log_open(log_path) < 0)
		ok(0, "log_open");

	tap_lines("delta/partition.txt", partition_case, NULL);
	is_int(storage_partition("", 0), 2166136261u % 100, "partition of the empty string");

	tap_lines("delta/records.txt", record_case, &rs);
	golden_path = xstrdup(tap_data("delta/golden-v3.dlt"));
	golden_v2_path = xstrdup(tap_data("delta/golden-v2.dlt"));
	golden_v1_path = xstrdup(tap_data("delta/golden-v1.dlt"));
	log_data = (unsigned char *)round_trip(&rs, &log_len);
	{
		char *want = join_want(&rs, true);
		int n_data = rs.n_want;
		truncation_sweep(log_data, log_len, n_data);
		repair_sweep(log_data, log_len, want);
		flip_sweep(log_data, log_len, n_data);
		header_flips(log_data, log_len);
		free(want);
	}
	{
		const char *dir = fresh_dir("badwrites");
		struct buf err = BUF_INIT(4096);
		struct delta_writer *w = delta_open(dir, 5, &err);
		free(take_log());
		if (w) {
			tap_lines("delta/bad-writes.txt", bad_write_case, w);
			is_int(delta_close(w), 0, "writer still works after refusals");
		}
		buf_free(&err);
	}
	tap_lines("delta/bad-payloads.txt", bad_payload_case, NULL);
	hole_test();
	edge_files();
	writer_misuse();
	caps_test();
	list_test();
	write_failure_test();
	text_writes();
	text_at_test();
	for (int i = 0; i < 4; i++)
		text_at_state_case(i & 1, i & 2);

	free(log_data);
	free(golden_path);
	free(golden_v2_path);
	free(golden_v1_path);
	for (int i = 0; i < rs.n_in; i++)
		free(rs.in[i]);
	for (int i = 0; i < rs.n_want; i++)
		free(rs.want[i]);
	log_close();
	rm_rf(tmp_root);
	return done_testing();
}
