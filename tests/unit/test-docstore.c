/* test-docstore.c - the generation's document store (src/index/docstore.c):
 * stores described by a table of cases are written, read back document by
 * document (absent url_ids, cut texts and fields, empty and missing texts,
 * several blocks) and verified, with their texts and without
 * (docstore_get_fields()); a store as version 1 wrote it (one stream a
 * block) reads the same and is rebuilt into the current version; wrong
 * input to the writer is refused; and every truncation and byte flip of a
 * small store gives an error or a well-formed answer, never a crash (run
 * under ASan).
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "docstore.h"
#include "le.h"
#include "log.h"
#include "storage.h"
#include "tap.h"
#include "util.h"

/* A case: n documents with url_ids first, first + step, ...; each gets a
 * title, a text of text_len bytes (made of its url_id), and the flags. */
struct ds_case {
	const char *name;
	uint32_t first, step, n;
	size_t text_len, title_len;
	int flags;                 /* 1 found, 2 has_text (as the writer's doc) */
	size_t want_text;          /* what reads back */
	size_t want_title;
	int many_blocks;           /* the store must hold more than one block */
};

static const struct ds_case cases[] = {
	{ "one document", 7, 1, 1, 100, 10, 3, 100, 10, 0 },
	{ "sparse ids", 3, 1000, 50, 300, 20, 3, 300, 20, 0 },
	{ "no row", 1, 2, 10, 0, 0, 0, 0, 0, 0 },
	{ "row without text", 5, 3, 10, 0, 5, 1, 0, 5, 0 },
	{ "empty text", 9, 1, 10, 0, 5, 3, 0, 5, 0 },
	{ "many blocks", 1, 1, 400, 3000, 40, 3, 3000, 40, 1 },
	{ "text cut to 256 KiB", 2, 5, 3, 300u << 10, 12, 3, DOCSTORE_MAX_TEXT, 12, 1 },
	{ "title cut to 64 KiB", 4, 1, 2, 10, 70000, 3, 10, DOCSTORE_MAX_FIELD, 0 },
	{ "url_id near 2^32", 0xFFFFFF00u, 1, 200, 50, 8, 3, 50, 8, 0 },
};

static char dir[256];

static void fill(char *p, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + (id + i * 7) % 26);
}

static int write_case(const struct ds_case *c, char *text, char *title)
{
	struct docstore_writer *w = NULL;
	struct buf err = BUF_INIT(1024);
	uint64_t n = 0;
	int rc = docstore_writer_open(dir, &w, &err);

	for (uint32_t i = 0; !rc && i < c->n; i++) {
		uint32_t id = c->first + i * c->step;
		struct docstore_doc d = { .found = c->flags & 1, .has_text = c->flags & 2,
					  .size = id * 3, .title = title, .description = "desc",
					  .keywords = "", .content_type = "text/html",
					  .charset = "utf-8", .text = text, .text_len = c->text_len };

		fill(title, c->title_len, id);
		title[c->title_len] = '\0';
		fill(text, c->text_len, id);
		rc = docstore_writer_put(w, id, &d, &err);
	}
	if (!rc)
		rc = docstore_writer_commit(w, &n, &err);
	else
		docstore_writer_abort(w);
	if (rc)
		diag("%s: %s", c->name, buf_str(&err));
	buf_free(&err);
	return rc || n != c->n ? -1 : 0;
}

static int count_ids(void *arg, uint32_t id)
{
	(void)id;
	(*(uint64_t *)arg)++;
	return 0;
}

static void read_case(const struct ds_case *c, char *text, char *title)
{
	struct docstore *ds = NULL;
	struct docstore_cursor cur = { 0 }, cf = { 0 };
	struct docstore_doc d, f;
	struct buf err = BUF_INIT(1024);
	uint64_t seen = 0;
	int bad = 0, bad_fields = 0, rc = docstore_open(dir, &ds, &err);

	if (!ok(rc == 1, "%s: opens", c->name)) {
		diag("%s", buf_str(&err));
		return;
	}
	is_int(docstore_docs(ds), c->n, "%s: document count", c->name);
	ok(c->many_blocks ? docstore_blocks(ds) > 1 : docstore_blocks(ds) >= 1, "%s: %zu block(s)",
	   c->name, docstore_blocks(ds));
	/* backwards, so the cursor changes blocks */
	for (uint32_t k = c->n; k-- > 0;) {
		uint32_t id = c->first + k * c->step;

		fill(text, c->want_text, id);
		fill(title, c->want_title, id);
		if (docstore_get(ds, &cur, id, &d, &err) != 1 || d.found != (c->flags & 1) ||
		    d.has_text != ((c->flags & 2) != 0) || d.size != id * 3 ||
		    d.text_len != c->want_text || memcmp(d.text, text, d.text_len) ||
		    strlen(d.title) != c->want_title || memcmp(d.title, title, c->want_title) ||
		    strcmp(d.description, "desc") || strcmp(d.keywords, "") ||
		    strcmp(d.content_type, "text/html") || strcmp(d.charset, "utf-8"))
			bad++;
		/* Its fields alone, then (the same cursor, the block's texts
		 * inflated now) its text. */
		if (docstore_get_fields(ds, &cf, id, &f, &err) != 1 || f.text || f.text_len ||
		    f.found != d.found || f.has_text != d.has_text || f.size != d.size ||
		    strcmp(f.title, d.title) || strcmp(f.description, d.description) ||
		    strcmp(f.content_type, d.content_type) || strcmp(f.charset, d.charset))
			bad_fields++;
		if (c->step > 1 && docstore_get(ds, &cur, id + 1, &d, &err) != 0)
			bad++;
		if (docstore_get(ds, &cf, id, &f, &err) != 1 || f.text_len != c->want_text ||
		    memcmp(f.text, text, f.text_len))
			bad_fields++;
		if (c->step > 1 && docstore_get_fields(ds, &cf, id + 1, &f, &err) != 0)
			bad_fields++;
	}
	is_int(bad, 0, "%s: every document reads back", c->name);
	is_int(bad_fields, 0, "%s: every document's fields read back alone, then its text",
	       c->name);
	is_int(docstore_get(ds, &cur, c->first - 1, &d, &err), 0,
	       "%s: an id before the first is absent", c->name);
	is_int(docstore_verify(ds, count_ids, &seen, &err), 0, "%s: verifies", c->name);
	is_int(seen, c->n, "%s: verify walks every document", c->name);
	docstore_cursor_free(&cur);
	docstore_cursor_free(&cf);
	docstore_close(ds);
	buf_free(&err);
}

/* in[0..len) as raw deflate (RFC 1951) appended to out. */
static int raw_deflate(const void *in, size_t len, struct buf *out)
{
	z_stream z = { 0 };
	unsigned char chunk[16384];
	int rc;

	if (deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		rc = deflate(&z, Z_FINISH);
		buf_add(out, chunk, sizeof(chunk) - z.avail_out);
	} while (rc == Z_OK);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

/* Case c (no field or text cut) written as version 1 of the format did:
 * magic MPSDST\0\1, every block one stream of whole records (each
 * followed by its text), the table's last word 0 (doc/FORMATS.md). */
static int write_v1(const struct ds_case *c, char *text, char *title)
{
	static const char *const fixed[4] = { "desc", "", "text/html", "utf-8" };
	struct buf raw = BUF_INIT(DOCSTORE_MAX_RAW), data = BUF_INIT(1u << 28),
		   table = BUF_INIT(1u << 24);
	unsigned char h[32] = { 'M', 'P', 'S', 'D', 'S', 'T', 0, 1 }, v[32];
	uint32_t first = 0, docs = 0, crc;
	char *path = xasprintf("%s/%s", dir, DOCSTORE_FILE);
	FILE *fp;
	int rc = 0;

	for (uint32_t i = 0; !rc && i < c->n; i++) {
		uint32_t id = c->first + i * c->step;

		fill(title, c->title_len, id);
		fill(text, c->text_len, id);
		le_put32(v, id);
		v[4] = (unsigned char)c->flags;
		le_put32(v + 5, id * 3);
		le_put16(v + 9, (uint16_t)c->title_len);
		buf_add(&raw, v, 11);
		buf_add(&raw, title, c->title_len);
		buf_addc(&raw, '\0');
		for (int k = 0; k < 4; k++) {
			le_put16(v, (uint16_t)strlen(fixed[k]));
			buf_add(&raw, v, 2);
			buf_add(&raw, fixed[k], strlen(fixed[k]) + 1);
		}
		le_put32(v, (uint32_t)c->text_len);
		buf_add(&raw, v, 4);
		buf_add(&raw, text, c->text_len);
		if (!docs++)
			first = id;
		if (raw.len >= (64u << 10) || i + 1 == c->n) {
			size_t off = data.len;

			rc = raw_deflate(raw.ptr, raw.len, &data);
			memset(v, 0, sizeof(v));
			le_put32(v, first);
			le_put32(v + 4, id);
			le_put64(v + 8, off);
			le_put32(v + 16, (uint32_t)(data.len - off));
			le_put32(v + 20, (uint32_t)raw.len);
			le_put32(v + 24, docs);
			buf_add(&table, v, 32);
			buf_reset(&raw);
			docs = 0;
		}
	}
	buf_add(&data, table.ptr, table.len);
	crc = (uint32_t)crc32(0L, (const unsigned char *)data.ptr, (uInt)data.len);
	le_put32(h + 8, STORAGE_FORMAT_VERSION);
	le_put32(h + 12, 0xFFFFFFFFu);
	le_put64(h + 16, table.len / 32);
	le_put32(h + 24, crc);
	le_put32(h + 28, (uint32_t)crc32(0L, h, 28));
	fp = fopen(path, "wb");
	if (!fp || fwrite(h, 1, 32, fp) != 32 || fwrite(data.ptr, 1, data.len, fp) != data.len)
		rc = -1;
	if (fp && fclose(fp))
		rc = -1;
	free(path);
	buf_free(&raw);
	buf_free(&data);
	buf_free(&table);
	return rc;
}

/* Every truncation and a flip of every byte: errors or answers, no crash. */
static void damage(void)
{
	char *path = xasprintf("%s/%s", dir, DOCSTORE_FILE);
	size_t len = 0;
	unsigned char *good = (unsigned char *)tap_slurp(path, &len), *p;
	struct buf err = BUF_INIT(1024);
	int opened = 0, refused = 0, verify_failed = 0, odd = 0;

	p = xmalloc(len ? len : 1);
	for (size_t i = 0; good && i < 2 * len; i++) {
		struct docstore *ds = NULL;
		struct docstore_cursor cur = { 0 };
		struct docstore_doc d;
		size_t n = i < len ? i : len;

		memcpy(p, good, len);
		if (i >= len) {
			p[i - len] ^= 0x5a;
			/* past the header: keep its CRC right to reach the table */
			if (i - len >= 32 || i - len < 28) {
				uint32_t c = (uint32_t)crc32(0L, p, 28);

				for (int b = 0; b < 4; b++)
					p[28 + b] = (unsigned char)(c >> (8 * b));
			}
		}
		if (docstore_open_mem(p, n, &ds, &err) != 1) {
			refused++;
			continue;
		}
		opened++;
		for (uint32_t id = 0; id < 80; id++)
			if (docstore_get(ds, &cur, id, &d, &err) == 1 &&
			    (!d.title || !d.text || d.text_len > DOCSTORE_MAX_TEXT))
				odd++;
		if (docstore_verify(ds, NULL, NULL, &err))
			verify_failed++;
		docstore_cursor_free(&cur);
		docstore_close(ds);
	}
	ok(good && opened > 0 && refused > 0, "damage: %d refused at open, %d opened", refused,
	   opened);
	is_int(odd, 0, "damage: every answer is well formed");
	is_int(opened - verify_failed, 0, "damage: --check's verify finds every opened one");
	free(good);
	free(p);
	free(path);
	buf_free(&err);
}

static void wrong_input(void)
{
	struct docstore_writer *w = NULL;
	struct buf err = BUF_INIT(1024);
	struct docstore_doc d = { .found = true, .title = "t" };
	struct docstore *ds = NULL;

	ok(docstore_writer_open(dir, &w, &err) == 0, "writer opens");
	is_int(docstore_writer_put(w, 0, &d, &err), -1, "url_id 0 refused");
	is_int(docstore_writer_put(w, 5, &d, &err), 0, "url_id 5");
	is_int(docstore_writer_put(w, 5, &d, &err), -1, "a repeated url_id refused");
	is_int(docstore_writer_put(w, 4, &d, &err), -1, "a smaller url_id refused");
	docstore_writer_abort(w);
	buf_free(&err);
	{
		char *p = xasprintf("%s/%s", dir, DOCSTORE_FILE);

		unlink(p);
		free(p);
	}
	is_int(docstore_open(dir, &ds, &err), 0, "no file: the generation has none");
}

/* The database function of the builder below: counts its calls and, as a
 * refused connection, gives none. */
static int db_asked;

static struct db *no_db(void *arg, struct buf *err)
{
	(void)arg;
	db_asked++;
	buf_printf(err, "test: connection refused");
	return NULL;
}

/* The merge's builder without a database: a store rebuilt from the old
 * one with every document kept (whole blocks copied), with some left out
 * (the rest re-encoded), reads back the same without asking for the
 * database; a touched document needs it, asks once, and fails with the
 * database function's reason. */
static void rebuild(const char *old_dir, const struct ds_case *c, char *text, char *title)
{
	char sub[256];
	struct docstore *old = NULL, *nw = NULL;
	struct docstore_cursor co = { 0 }, cn = { 0 };
	struct buf err = BUF_INIT(1024);
	uint64_t copied = 0, read = 0, given = 0;
	int bad = 0;

	if (!tap_mkdtemp(sub, sizeof(sub), "test-docstore-new") || docstore_open(old_dir, &old, &err) != 1)
		return;
	for (int skip = 1; skip <= 3; skip += 2) {
		struct docstore_builder *b = NULL;
		size_t kept = 0;
		int rc;

		db_asked = 0;
		rc = docstore_build_begin(sub, old, no_db, NULL, 1 << 20, &b, &err);
		/* skip 1: all documents; skip 3: every third left out */
		for (uint32_t k = 0; !rc && k < c->n; k++)
			if (skip == 1 || k % 3 != 1) {
				rc = docstore_build_add(b, c->first + k * c->step, false, 0, &err);
				kept++;
			}
		rc = rc ? (docstore_build_abort(b), -1) :
			  docstore_build_finish(b, &copied, &read, &given, &err);
		ok(rc == 0 && copied == kept && read == 0 && db_asked == 0,
		   "rebuild (every %d): %" PRIu64 " copied, %" PRIu64 " read, the database asked "
		   "for %d time(s)", skip, copied, read, db_asked);
		if (docstore_open(sub, &nw, &err) != 1)
			bad++;
		for (uint32_t k = 0; nw && k < c->n; k++) {
			uint32_t id = c->first + k * c->step;
			struct docstore_doc a, n;
			int want = skip == 1 || k % 3 != 1;

			if (docstore_get(nw, &cn, id, &n, &err) != want)
				bad++;
			else if (want && (docstore_get(old, &co, id, &a, &err) != 1 ||
					  n.text_len != a.text_len || memcmp(n.text, a.text, a.text_len) ||
					  strcmp(n.title, a.title)))
				bad++;
		}
		ok(nw && docstore_verify(nw, NULL, NULL, &err) == 0 && docstore_docs(nw) == kept,
		   "rebuild (every %d): verifies, %zu documents", skip, kept);
		if (skip == 1) {
			char *pa = xasprintf("%s/%s", old_dir, DOCSTORE_FILE);
			char *pb = xasprintf("%s/%s", sub, DOCSTORE_FILE);
			size_t la = 0, lb = 0;
			char *fa = tap_slurp(pa, &la), *fb = tap_slurp(pb, &lb);

			/* From a version 1 store: the same blocks and table
			 * under the current header. */
			size_t from = fa && fb && la >= 32 && lb >= 32 && memcmp(fa, fb, 8) ? 32 : 0;

			ok(fa && fb && la == lb && !memcmp(fa + from, fb + from, la - from) &&
				   !memcmp(fb, "MPSDST\0\2", 8),
			   "rebuild keeping everything copies every block: the same %s",
			   from ? "blocks and table" : "file");
			free(fa);
			free(fb);
			free(pa);
			free(pb);
		}
		docstore_cursor_free(&cn);
		docstore_close(nw);
		nw = NULL;
	}
	is_int(bad, 0, "rebuilt stores read back the old documents");
	{
		struct docstore_builder *b = NULL;

		bool refused;

		/* The result first: ok()'s arguments are evaluated in no set order. */
		docstore_build_begin(sub, old, NULL, NULL, 1 << 20, &b, &err);
		refused = docstore_build_add(b, c->first, true, 0, &err) == 0 &&
			  docstore_build_finish(b, &copied, &read, &given, &err) == -1;
		ok(refused, "a touched document without a database: refused (%s)", buf_str(&err));
		b = NULL;
		buf_reset(&err);
		db_asked = 0;
		docstore_build_begin(sub, old, no_db, NULL, 1 << 20, &b, &err);
		refused = docstore_build_add(b, c->first, true, 0, &err) == 0 &&
			  docstore_build_finish(b, &copied, &read, &given, &err) == -1;
		ok(refused && db_asked == 1 && strstr(buf_str(&err), "connection refused"),
		   "a touched document whose database is refused: asked once, fails (%s)",
		   buf_str(&err));
	}
	(void)text;
	(void)title;
	docstore_cursor_free(&co);
	docstore_close(old);
	{
		char *p = xasprintf("%s/%s", sub, DOCSTORE_FILE);

		unlink(p);
		free(p);
	}
	rmdir(sub);
	buf_free(&err);
}

int main(void)
{
	char *text = xmalloc((300u << 10) + 1), *title = xmalloc(70001);

	log_set_level(LOG_ERROR);
	if (!tap_mkdtemp(dir, sizeof(dir), "test-docstore"))
		return 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!ok(write_case(&cases[i], text, title) == 0, "%s: written", cases[i].name))
			continue;
		read_case(&cases[i], text, title);
		if (cases[i].many_blocks && cases[i].n > 100)
			rebuild(dir, &cases[i], text, title);
	}
	/* A store of version 1: read as before, rebuilt into the current
	 * version with its blocks copied as they are. */
	if (ok(write_v1(&cases[5], text, title) == 0, "version 1: written")) {
		read_case(&cases[5], text, title);
		rebuild(dir, &cases[5], text, title);
	}
	wrong_input();
	/* a small store of two blocks for the damage */
	{
		static const struct ds_case small = { "small", 1, 1, 12, 9000, 6, 3, 9000, 6, 1 };

		write_case(&small, text, title);
	}
	damage();
	{
		char *p = xasprintf("%s/%s", dir, DOCSTORE_FILE);

		unlink(p);
		free(p);
	}
	rmdir(dir);
	free(text);
	free(title);
	return done_testing();
}
