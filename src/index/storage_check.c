/* storage_check.c - storage_check(): every byte of a generation verified
 * against the layout (headers, crcs, dictionaries, postings, docinfo and
 * FORMAT's counts), each problem reported with its file and offset.  It
 * only reads: writing and mapping are storage.c's.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binfile.h"
#include "boiler.h"
#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "citations.h"
#include "le.h"
#include "neardup.h"
#include "ranks.h"
#include "storage.h"
#include "storage_int.h"
#include "util.h"

#define CHECK_MAX_PER_FILE 20

struct checker {
	struct buf *out;
	long problems;
	long in_file;           /* problems reported for the current file */
	char file[32];          /* "07w/urls" */
};

static void bad(struct checker *k, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void bad(struct checker *k, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	k->problems++;
	if (++k->in_file > CHECK_MAX_PER_FILE) {
		if (k->in_file == CHECK_MAX_PER_FILE + 1)
			buf_printf(k->out, "%s: more problems not listed\n", k->file);
		return;
	}
	buf_printf(k->out, "%s: offset %" PRIu64 ": ", k->file, off);
	va_start(ap, fmt);
	buf_vprintf(k->out, fmt, ap);
	va_end(ap);
	buf_addc(k->out, '\n');
}

static void check_file(struct checker *k, const char *file)
{
	if (!strcmp(k->file, file))
		return;
	snprintf(k->file, sizeof(k->file), "%s", file);
	k->in_file = 0;
}

/* Map with the header checks; a failure is reported as one problem. */
static int check_map(struct checker *k, const char *gen_dir, const char *rel, enum ftype t,
		     uint32_t part, struct map *m)
{
	char *path = xasprintf("%s/%s", gen_dir, rel);
	struct buf why = BUF_INIT(1024);
	int rc;

	check_file(k, rel);
	rc = storage_map_file(path, t, part, STORAGE_FORMAT_VERSION, m, &why);
	if (rc) {
		/* storage_map_file says "path: offset N: why"; report it relative to the
		 * generation. */
		const char *w = buf_str(&why);
		size_t pl = strlen(path);

		if (!strncmp(w, path, pl) && w[pl] == ':')
			w += pl + 2;
		k->problems++;
		buf_printf(k->out, "%s: %s\n", rel, w);
	} else {
		uint32_t c = binfile_crc_update(0, m->data, m->len);

		if (c != m->crc)
			bad(k, 24, "data crc mismatch: bytes %d..%zu are not what was written", HDR,
			    m->size);
	}
	buf_free(&why);
	free(path);
	return rc;
}

struct check_totals {
	uint64_t words, live_words, postings;
	bool complete;          /* every partition was walked to its end */
};

/* The dictionary of partition pn.  Returns false if it cannot be trusted. */
static bool check_words(struct checker *k, const struct part *p, unsigned pn)
{
	char file[16];
	bool good = true;

	snprintf(file, sizeof(file), "%02uw/words", pn);
	check_file(k, file);
	for (uint32_t i = 0; i < p->n; i++) {
		uint32_t a = le_get32(p->offs + 4 * (size_t)i), b = le_get32(p->offs + 4 * (size_t)i + 4);
		uint64_t at = HDR + 4 * (uint64_t)i;

		if (a > b || b > p->text_len) {
			bad(k, at, "word %u: text range %u..%u outside the text (%zu bytes)", i, a, b,
			    p->text_len);
			good = false;
			continue;
		}
		if (b - a < 1 || b - a > MAX_WORD_LEN) {
			bad(k, at, "word %u: length %u", i, b - a);
			good = false;
			continue;
		}
		if (!utf8_valid((const char *)p->text + a, b - a))
			bad(k, (uint64_t)(p->text - p->words.base) + a, "word %u: not UTF-8", i);
		else if (storage_partition((const char *)p->text + a, b - a) != pn)
			bad(k, (uint64_t)(p->text - p->words.base) + a,
			    "word %u '%.*s' belongs to partition %02u", i, (int)(b - a),
			    (const char *)p->text + a, storage_partition((const char *)p->text + a, b - a));
	}
	if (!good)
		return false;
	for (uint32_t i = 0; i < p->n; i++) {
		uint64_t at = (uint64_t)(p->sorted - p->words.base) + 4 * (uint64_t)i;
		uint32_t id = le_get32(p->sorted + 4 * (size_t)i);
		const unsigned char *w, *v;
		size_t wl, vl;

		if (id >= p->n) {
			bad(k, at, "sorted entry %u: word %u of %u", i, id, p->n);
			good = false;
			continue;
		}
		if (i == 0)
			continue;
		uint32_t prev = le_get32(p->sorted + 4 * (size_t)i - 4);
		if (prev >= p->n)
			continue;
		storage_dict_word(p, prev, &v, &vl);
		storage_dict_word(p, id, &w, &wl);
		if (storage_wordcmp(v, vl, w, wl) >= 0) {
			bad(k, at, "sorted entry %u: word %u '%.*s' is not after word %u '%.*s'", i, id,
			    (int)wl, (const char *)w, prev, (int)vl, (const char *)v);
			good = false;
		}
	}
	return good;
}

/* Where check_postings() is in partition pn. */
struct post_walk {
	const struct part *p;
	unsigned pn;
	const struct map *doc;
	bool doc_ok;            /* docinfo can be trusted: URLs are checked against it */
	char fi[16], fs[16], fu[16];
	uint64_t prev_urls;     /* end of the last site's URLs */
	uint64_t url_records;
};

/* What the sites of one word hold. */
struct word_sums {
	uint64_t urls, tot;
};

/* The URL records of one site of word w, u..ue in urls. */
static void check_site_urls(struct checker *k, struct post_walk *pw, uint32_t w, uint32_t site,
			    const unsigned char *u, const unsigned char *ue, struct word_sums *ws)
{
	const struct part *p = pw->p;
	uint32_t word_id = w * STORAGE_PARTITIONS + pw->pn, url_prev = 0;

	while (u < ue) {
		uint64_t uo = HDR + (uint64_t)(u - p->urls.data);
		uint32_t id, n;
		unsigned wd;

		if (ue - u < URL_FIXED) {
			bad(k, uo, "word_id %u site %u: record cut short by the site end", word_id,
			    site);
			break;
		}
		id = le_get32(u);
		n = url_rec_count(le_get16(u + 4), STORAGE_FORMAT_VERSION, &wd);
		if (n == 0 || (size_t)(ue - u - URL_FIXED) < wd * (size_t)n) {
			bad(k, uo + 4, "word_id %u url %u: %u positions do not fit the site", word_id,
			    id, n);
			break;
		}
		if (id == 0 || id <= url_prev)
			bad(k, uo, "word_id %u site %u: url_id %u after %u", word_id, site, id,
			    url_prev);
		url_prev = id;
		for (uint32_t i = 1; i < n; i++) {
			const unsigned char *q = u + URL_FIXED + wd * i;
			uint32_t a = wd == 4 ? le_get32(q - 4) : le_get16(q - 2),
				 b = wd == 4 ? le_get32(q) : le_get16(q);

			if (b <= a) {
				bad(k, uo + URL_FIXED + wd * i,
				    "word_id %u url %u: position %u not after %u", word_id, id, b, a);
				break;
			}
		}
		if (pw->doc_ok) {
			uint32_t ds = (uint64_t)id < pw->doc->count ?
				le_get32(pw->doc->data + (size_t)id * DOC_ENTRY) : 0;
			if (ds != site)
				bad(k, uo, "word_id %u url %u: site %u, docinfo says %u", word_id, id,
				    site, ds);
		}
		ws->urls++;
		ws->tot += n;
		pw->url_records++;
		u += URL_FIXED + wd * (size_t)n;
	}
}

/* The sites of word w, from..end in sites, and their URLs.  Returns false
 * when a site's URL range cannot be trusted (the walk stops there). */
static bool check_word_sites(struct checker *k, struct post_walk *pw, uint32_t w, uint64_t from,
			     uint64_t end, struct word_sums *ws)
{
	const struct part *p = pw->p;
	uint32_t word_id = w * STORAGE_PARTITIONS + pw->pn, site_prev = 0;

	for (uint64_t so = from; so < end; so += SITE_ENTRY) {
		const unsigned char *s = p->sites.data + so;
		uint32_t site = le_get32(s);
		uint64_t uend = site_urls_end(s, STORAGE_FORMAT_VERSION);

		check_file(k, pw->fs);
		if (site == 0 || (so > from && site <= site_prev))
			bad(k, HDR + so, "word_id %u: site_id %u after %u", word_id, site, site_prev);
		site_prev = site;
		if (le_get32(s + 4))
			bad(k, HDR + so + 4, "word_id %u site %u: reserved field is %u, not 0",
			    word_id, site, le_get32(s + 4));
		if (uend < pw->prev_urls + URL_FIXED || uend > p->urls.len) {
			bad(k, HDR + so + 8,
			    "word_id %u site %u: urls end %" PRIu64 " after %" PRIu64
			    " (urls has %zu bytes)", word_id, site, uend, pw->prev_urls, p->urls.len);
			return false;
		}
		check_file(k, pw->fu);
		check_site_urls(k, pw, w, site, p->urls.data + pw->prev_urls, p->urls.data + uend,
				ws);
		pw->prev_urls = uend;
	}
	return true;
}

/* After the last word: nothing left over in sites and urls, and the URL
 * records the header of urls counts. */
static void check_part_ends(struct checker *k, const struct post_walk *pw, uint64_t prev_end)
{
	const struct part *p = pw->p;

	check_file(k, pw->fi);
	if (prev_end != p->sites.len) {
		check_file(k, pw->fs);
		bad(k, HDR + prev_end, "%" PRIu64 " bytes after the last word's sites",
		    (uint64_t)p->sites.len - prev_end);
	}
	if (pw->prev_urls != p->urls.len) {
		check_file(k, pw->fu);
		bad(k, HDR + pw->prev_urls, "%" PRIu64 " bytes after the last site's URLs",
		    (uint64_t)p->urls.len - pw->prev_urls);
	}
	if (pw->url_records != p->urls.count) {
		check_file(k, pw->fu);
		bad(k, 16, "header counts %" PRIu64 " URL records, the file holds %" PRIu64,
		    p->urls.count, pw->url_records);
	}
}

/* ind, sites and urls of partition pn, against docinfo. */
static void check_postings(struct checker *k, const struct part *p, unsigned pn,
			   const struct map *doc, bool doc_ok, struct check_totals *t)
{
	struct post_walk pw = { .p = p, .pn = pn, .doc = doc, .doc_ok = doc_ok };
	uint64_t prev_end = 0;

	snprintf(pw.fi, sizeof(pw.fi), "%02uw/ind", pn);
	snprintf(pw.fs, sizeof(pw.fs), "%02uw/sites", pn);
	snprintf(pw.fu, sizeof(pw.fu), "%02uw/urls", pn);
	for (uint32_t w = 0; w < p->n; w++) {
		uint64_t eo = HDR + (uint64_t)w * IND_ENTRY;
		uint32_t word_id = w * STORAGE_PARTITIONS + pn;
		struct ind_entry e;
		struct word_sums ws = { 0 };

		ind_entry_unpack(p->ind.data + (size_t)w * IND_ENTRY, STORAGE_FORMAT_VERSION, &e);
		check_file(k, pw.fi);
		if (e.sites_end < prev_end || e.sites_end > p->sites.len ||
		    (e.sites_end - prev_end) % SITE_ENTRY) {
			bad(k, eo, "word_id %u: sites end %" PRIu64 " after %" PRIu64
			    " (sites has %zu bytes)", word_id, e.sites_end, prev_end, p->sites.len);
			t->complete = false;
			return;
		}
		if ((e.sites_end - prev_end) / SITE_ENTRY != e.n_sites)
			bad(k, eo + 8, "word_id %u: site count %u, its range holds %" PRIu64, word_id,
			    e.n_sites, (e.sites_end - prev_end) / SITE_ENTRY);
		t->words++;
		if (!check_word_sites(k, &pw, w, prev_end, e.sites_end, &ws)) {
			t->complete = false;
			return;
		}
		check_file(k, pw.fi);
		if (ws.urls != e.n_urls)
			bad(k, eo + 12, "word_id %u: URL count %u, its sites hold %" PRIu64, word_id,
			    e.n_urls, ws.urls);
		if (ws.tot != e.total)
			bad(k, eo + 16, "word_id %u: total count %" PRIu64 ", its URLs hold %" PRIu64,
			    word_id, e.total, ws.tot);
		if (e.n_urls)
			t->live_words++;
		t->postings += ws.urls;
		prev_end = e.sites_end;
	}
	check_part_ends(k, &pw, prev_end);
}

static int verify_direct(const char *gen_dir, struct buf *err)
{
	return citations_verify(gen_dir, CITATIONS_DIRECT, err);
}

static int verify_reverse(const char *gen_dir, struct buf *err)
{
	return citations_verify(gen_dir, CITATIONS_REVERSE, err);
}

static int verify_links(const char *gen_dir, struct buf *err)
{
	return citations_verify(gen_dir, CITATIONS_LINKS, err);
}

/* The other files of a generation, each verified whole by its own module
 * (header, size, and the data checksum written through binfile_sum_start()):
 * a new kind of file adds its line here.  A file that does not exist is not
 * damage: they are optional. */
static const struct {
	const char *rel;
	int (*verify)(const char *gen_dir, struct buf *err); /* 1 good, 0 absent, -1 */
} gen_files[] = {
	{ RANKS_FILE, ranks_verify },
	{ BOILER_FILE, boiler_verify },
	{ CITATIONS_DIR "/direct", verify_direct },
	{ CITATIONS_DIR "/reverse", verify_reverse },
	{ LINKS_FILE, verify_links },
	{ NEARDUP_FILE, neardup_verify },
	{ "NNw/sitesum", storage_sums_verify },
};

static void check_gen_files(struct checker *k, const char *gen_dir)
{
	struct buf why = BUF_INIT(1024);
	size_t dl = strlen(gen_dir);

	for (size_t i = 0; i < ARRAY_SIZE(gen_files); i++) {
		const char *w;
		size_t rl = strlen(gen_files[i].rel);

		buf_reset(&why);
		if (gen_files[i].verify(gen_dir, &why) >= 0)
			continue;
		/* "gen_dir/rel: what" reported as "rel: what", as the others (a
		 * file of a partition, "gen_dir/07w/sitesum: what", as
		 * "07w/sitesum: what"). */
		w = buf_str(&why);
		k->problems++;
		if (!strncmp(w, gen_dir, dl) && w[dl] == '/' &&
		    strncmp(w + dl + 1, gen_files[i].rel, rl)) {
			buf_printf(k->out, "%s\n", w + dl + 1);
			continue;
		}
		if (!strncmp(w, gen_dir, dl) && w[dl] == '/' &&
		    !strncmp(w + dl + 1, gen_files[i].rel, rl) && w[dl + 1 + rl] == ':')
			w += dl + 1 + rl + 2;
		buf_printf(k->out, "%s: %s\n", gen_files[i].rel, w);
	}
	buf_free(&why);
}

int storage_check(const char *gen_dir, struct buf *report)
{
	struct checker k = { .out = report };
	struct storage_format f;
	struct buf why = BUF_INIT(1024);
	struct map doc;
	struct check_totals t = { .complete = true };
	bool format_ok, doc_ok;
	uint64_t n_docs = 0, sum[STORAGE_SECTIONS] = { 0 };

	format_ok = storage_format_read(gen_dir, &f, &why) == 0;
	if (!format_ok) {
		k.problems++;
		buf_printf(report, "FORMAT: %s\n", buf_str(&why));
		/* An older version is not damage: the one line says how to convert
		 * it, not 401 files each "format version 1". */
		buf_reset(&why);
		if (storage_format_read_from(gen_dir, STORAGE_FORMAT_OLDEST, &f, &why) == 0) {
			buf_free(&why);
			return 1;
		}
	} else {
		/* The directory name says which generation it is. */
		const char *base = strrchr(gen_dir, '/');
		uint64_t g;

		base = base ? base + 1 : gen_dir;
		if ((storage_parse_gen_name(base, false, &g) == 0 || storage_parse_gen_name(base, true, &g) == 0) &&
		    g != f.generation) {
			check_file(&k, "FORMAT");
			bad(&k, 0, "generation %" PRIu64 " in directory %s", f.generation, base);
		}
	}
	doc_ok = check_map(&k, gen_dir, "docinfo", F_DOCINFO, NO_PART, &doc) == 0;
	if (doc_ok && (doc.len % DOC_ENTRY || doc.len / DOC_ENTRY != doc.count || !doc.count)) {
		bad(&k, 16, "%" PRIu64 " entries do not fill %zu bytes", doc.count, doc.len);
		doc_ok = false;
	}
	if (doc_ok) {
		for (uint64_t u = 0; u < doc.count; u++) {
			const unsigned char *e = doc.data + u * DOC_ENTRY;
			uint32_t site = le_get32(e);

			if (!site) {
				static const unsigned char zero[DOC_ENTRY];
				if (memcmp(e, zero, DOC_ENTRY))
					bad(&k, HDR + u * DOC_ENTRY,
					    "url %" PRIu64 ": not indexed but the entry is not zero", u);
				continue;
			}
			if (u == 0)
				bad(&k, HDR, "url_id 0 has an entry");
			n_docs++;
			for (int s = 0; s < STORAGE_SECTIONS; s++)
				sum[s] += le_get16(e + 4 + 2 * s);
		}
		if (format_ok && (doc.count != (uint64_t)f.max_url_id + 1 || n_docs != f.n_docs ||
				  memcmp(sum, f.sum_len, sizeof(sum)))) {
			check_file(&k, "FORMAT");
			bad(&k, 0, "docs %" PRIu64 " / max_url_id %u / section lengths disagree with "
			    "docinfo (%" PRIu64 " docs, %" PRIu64 " entries)", f.n_docs, f.max_url_id,
			    n_docs, doc.count);
		}
	}
	for (unsigned pn = 0; pn < STORAGE_PARTITIONS; pn++) {
		struct part p;
		char rel[16], dir[16];
		struct map *m[4] = { &p.ind, &p.sites, &p.urls, &p.words };
		enum ftype ty[4] = { F_IND, F_SITES, F_URLS, F_WORDS };
		bool ok = true;

		memset(&p, 0, sizeof(p));
		for (int i = 0; i < 4; i++) {
			snprintf(rel, sizeof(rel), "%02uw/%s", pn, storage_fname[ty[i]]);
			if (check_map(&k, gen_dir, rel, ty[i], pn, m[i]))
				ok = false;
		}
		if (ok) {
			snprintf(dir, sizeof(dir), "%02uw", pn);
			buf_reset(&why);
			if (storage_shape_part(dir, &p, &why)) {
				k.problems++;
				buf_printf(report, "%s\n", buf_str(&why));
				ok = false;
			}
		}
		if (ok && check_words(&k, &p, pn))
			check_postings(&k, &p, pn, &doc, doc_ok, &t);
		else
			t.complete = false;
		for (int i = 0; i < 4; i++)
			storage_map_free(m[i]);
	}
	if (format_ok && t.complete && (t.words != f.words || t.live_words != f.live_words ||
			  t.postings != f.postings)) {
		check_file(&k, "FORMAT");
		bad(&k, 0, "words %" PRIu64 " / live_words %" PRIu64 " / postings %" PRIu64
		    " disagree with the partitions (%" PRIu64 " / %" PRIu64 " / %" PRIu64 ")",
		    f.words, f.live_words, f.postings, t.words, t.live_words, t.postings);
	}
	if (doc_ok)
		storage_map_free(&doc);
	check_gen_files(&k, gen_dir);
	buf_free(&why);
	return k.problems ? 1 : 0;
}
