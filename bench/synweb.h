/* synweb.h - what the files of bench/synweb share: the web's model (hosts,
 * sections, pages, links; synweb-page.c makes pages from it) and the HTTP
 * side (synweb-http.c parses requests and makes responses, without I/O).
 * The server loop, --list and main() are in synweb.c.
 */
#ifndef SYNWEB_H
#define SYNWEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The web's shape. */
#define SECTION_FANOUT 999 /* children per section page: with its link home, 1,000 links */
#define MAX_LEVELS 8       /* section levels above the pages (3 reach 10^9 pages) */
#define LINKS_MIN 8        /* links of a page, its two navigation links included */
#define LINKS_MAX 20
#define TEXT_MIN 5000  /* bytes of a page's text, drawn in [TEXT_MIN, TEXT_MAX] ... */
#define TEXT_MAX 28000 /* ... so that with markup and links a page stays under 30 KB */
#define VOCAB_SIZE 100000
#define SYLLABLES 640        /* 20 onsets x 8 nuclei x 4 codas */
#define SYL_SLOT 8           /* a syllable's letters (at most 5), its length in the last byte */
#define TITLE_SKIP 60        /* titles skip the most frequent words, as real titles do */
#define BASE_TIME 1704067200 /* 2024-01-01 00:00:00 UTC: the newest Last-Modified */
#define MAX_PAGES 100000000u
#define MAX_HOSTS 20000u

/* Responses. */
#define MAX_TARGET 2048            /* bytes of a request target */
#define SCRATCH_BYTES (512 * 1024) /* one response; a section page is the largest (~100 KB) */
#define HDR_ROOM 512               /* room for the header before the body in the scratch */

/* ---- a bounded writer ---- */

/* Writes into [p, end); what does not fit is dropped and sets full, so a
 * caller checks once at the end. */
struct out {
	char *p, *end;
	bool full;
};

static inline void out_mem(struct out *o, const void *s, size_t n)
{
	if ((size_t)(o->end - o->p) < n) {
		o->full = true;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

#define out_lit(o, s) out_mem(o, s, sizeof(s) - 1)

static inline void out_str(struct out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

/* Appends v in decimal. */
void out_u64(struct out *o, uint64_t v);

/* ---- the web ---- */

/* The vocabulary: how words are drawn and spelt is synweb-page.c's. */
struct vocab {
	uint32_t *guide; /* [2^GUIDE_BITS + 1]: the rank at CDF = j / 2^GUIDE_BITS */
	char syl[SYLLABLES][SYL_SLOT];
};

struct host {
	uint32_t pages;
	uint32_t levels;                /* section levels: 1 up to 999^2 pages, ... */
	uint32_t count[MAX_LEVELS + 1]; /* count[L]: sections of level L (1..levels) */
	char name[32];                  /* the site's name in titles */
};

struct web {
	uint64_t seed;
	uint32_t pages, nhosts;
	unsigned port;      /* host h answers on port + h */
	const char *name;   /* host name in absolute links, Location and listings */
	struct host *hosts; /* [nhosts], owned */
	struct vocab vocab; /* owned */
};

/* What a link points at.  A PAGE link whose id is past the host's pages is a
 * 404; a REDIRECT answers 301 to the PAGE of the same id; a PRIVATE one is
 * disallowed by robots.txt (and served, to a crawler that ignores it). */
enum link_kind { LK_ROOT, LK_SECTION, LK_PAGE, LK_REDIRECT, LK_PRIVATE };

struct link {
	uint8_t kind;
	uint8_t level; /* of a SECTION */
	uint32_t host, id;
};

/* Section k of `level` (1 and up) of host h; level 0 is page k. */
static inline struct link section_link(uint32_t h, unsigned level, uint32_t k)
{
	return (struct link){ .kind = level ? LK_SECTION : LK_PAGE, .level = (uint8_t)level,
			      .host = h, .id = k };
}

/* Makes the web of `pages` pages on `hosts` hosts (host h on port + h,
 * called `name` in absolute links, which it borrows); 0, or -1 when out of
 * memory.  Free with web_free(), also after a failed web_init(). */
int web_init(struct web *w, uint64_t seed, uint32_t pages, uint32_t hosts, unsigned port,
             const char *name);
void web_free(struct web *w);

/* The links of page (h, id) in the order it shows them, home and its
 * section first: fills l[LINKS_MAX], returns the count. */
unsigned page_links(const struct web *w, uint32_t h, uint32_t id, struct link *l);

/* The page a crawler ends on when it follows l (a redirect followed); false
 * for none: a 404, or a path robots.txt disallows. */
bool link_resolve(const struct web *w, const struct link *l, struct link *to);

/* The children of section (hs, level, k): pages for level 1, sections of
 * the level below above it; [*first, *end). */
void section_children(const struct host *hs, unsigned level, uint32_t k, uint32_t *first,
                      uint32_t *end);

void put_path(struct out *o, const struct link *l);              /* "/p/12" */
void put_origin(struct out *o, const struct web *w, uint32_t h); /* "http://NAME:PORT" */

/* The bodies of the pages that answer 200 (a full o sets o->full). */
void gen_root(struct out *o, const struct web *w, uint32_t h);
void gen_section(struct out *o, const struct web *w, uint32_t h, unsigned level, uint32_t k);
void gen_page(struct out *o, const struct web *w, uint32_t h, uint32_t id);
void gen_private(struct out *o, const struct web *w, uint32_t h, uint32_t id);
void gen_robots(struct out *o);

/* Last-Modified of page (h, id), Unix time. */
int64_t page_mtime(const struct web *w, uint32_t h, uint32_t id);

/* ---- HTTP ---- */

enum method { M_GET, M_HEAD, M_OTHER };

struct request {
	const char *target; /* borrows the caller's buffer */
	size_t target_len;
	uint8_t method;
	bool keep_alive; /* the version's default, then Connection */
	bool has_body; /* Content-Length > 0 or Transfer-Encoding: not read, so the reply closes */
	int64_t ims;   /* If-Modified-Since, -1 for none or invalid */
};

/* Parses the request head at the start of buf[0, len): returns its length
 * through the blank line that ends it, 0 when it is not complete yet, -1
 * when it is malformed.  Pure (no I/O, no allocation): fuzz it as it is.
 * rq->target borrows buf. */
long parse_request(const char *buf, size_t len, struct request *rq);

enum reply_kind {
	RP_ROOT,
	RP_SECTION,
	RP_PAGE,
	RP_PRIVATE,
	RP_ROBOTS,
	RP_REDIRECT,
	RP_NOT_FOUND,
	RP_BAD,
	RP_METHOD
};

/* What to answer: enough to make the same bytes again (a partial send is
 * resumed by making the response again and skipping what went out). */
struct reply {
	uint8_t kind, level;
	bool head, close;
	uint32_t host, id;
	int64_t ims;  /* If-Modified-Since or -1 */
	int64_t date; /* the Date header */
};

/* The reply of host h to rq. */
void route(const struct web *w, uint32_t h, const struct request *rq, struct reply *rp);

/* Makes the whole response to rp in scratch[size], returns its start and
 * sets *len; the same reply gives the same bytes.  Borrows scratch. */
const char *render(const struct web *w, const struct reply *rp, char *scratch, size_t size,
                   size_t *len);

#endif
