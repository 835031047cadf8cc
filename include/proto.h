/* proto.h - the searchd wire protocol, shared by searchd and s.cgi.
 *
 * Not ASPseek's native-endian structs (doc/PROTOCOL.md): every
 * message is one frame, little-endian, fixed widths, versioned, with a size
 * cap, and one connection may carry several requests.  src/search/proto.c owns the
 * encoding, decoding and the client side; searchd.c owns the server side.
 * Byte layout: doc/PROTOCOL.md.
 *
 * Frame: magic "MPSQ" (4), version u16, type u16, payload length u32, then
 * the payload.  A payload is a sequence of fields: integers u8/u32/u64 LE,
 * doubles as IEEE-754 binary64 LE, strings as u32 length + bytes (no NUL;
 * must be valid UTF-8 where noted, and at most PROTO_MAX_STRING bytes),
 * arrays as u32 count + elements.  A decoder checks every length against the
 * rest of the frame and the caps before it allocates: a truncated, oversized
 * or garbage frame is refused with a message, never a crash.
 */
#ifndef MPSEEK_PROTO_H
#define MPSEEK_PROTO_H

#include <stddef.h>
#include <stdint.h>

struct buf;

#define PROTO_MAGIC "MPSQ"
#define PROTO_VERSION 2
#define PROTO_HEADER_SIZE 12
#define PROTO_MAX_FRAME (8u << 20)     /* bytes of one payload */
#define PROTO_MAX_STRING (1u << 20)    /* bytes of one string field */
#define PROTO_MAX_QUERY 1024           /* bytes of a query string */
#define PROTO_MAX_PAGE_SIZE 100        /* results per page */
#define PROTO_MAX_PAGE 1000            /* page number */
#define PROTO_DEFAULT_PORT 12345
#define PROTO_MAX_HITS (2 * PROTO_MAX_PAGE_SIZE) /* hits of one page (2 per site) */
#define PROTO_MAX_EXCERPTS 16          /* excerpts per hit */
#define PROTO_MAX_CLONES 64            /* clones listed per hit */
#define PROTO_MAX_WORDS 64             /* per-word statistics of one query */
#define PROTO_MAX_SPACES 256           /* web spaces of one request */
#define PROTO_MAX_EXCERPT_LEN 4096     /* bytes of one excerpt asked for */

enum proto_type {
	PROTO_SEARCH = 1,     /* client -> searchd: struct proto_search */
	PROTO_RESULTS = 2,    /* searchd -> client: struct proto_results */
	PROTO_CACHED = 3,     /* client -> searchd: struct proto_cached_req */
	PROTO_CACHED_REPLY = 4, /* searchd -> client: struct proto_cached */
	PROTO_ERROR = 5,      /* searchd -> client: token + message (bad frame, busy...) */
	PROTO_PING = 6,       /* either way: empty payload; answered with PROTO_PONG */
	PROTO_PONG = 7,
};

enum proto_sort { PROTO_SORT_RATE = 0, PROTO_SORT_DATE = 1 };

/* A search request: the CGI parameters searchd needs (doc/CGI.md). */
struct proto_search {
	char *q;                 /* the query as typed, UTF-8 (PROTO_MAX_QUERY) */
	uint32_t page;           /* np, 0-based */
	uint32_t page_size;      /* ps, 1..PROTO_MAX_PAGE_SIZE */
	uint8_t sort;            /* enum proto_sort */
	uint8_t group;           /* 1: group by site (2 per site + more), 0: gr=off */
	uint8_t sections;        /* bit i = section i (0 body .. 3 title); 0 = all */
	uint32_t site_id;        /* st: only this site, 0 = all */
	char *ul;                /* URL prefixes / site masks separated by spaces, "" = none */
	uint64_t time_from;      /* unix time, 0 = open */
	uint64_t time_to;        /* unix time, 0 = open */
	uint32_t n_spaces;       /* web spaces (spN), OR-ed */
	uint32_t *spaces;
	uint32_t max_excerpts;   /* per hit */
	uint32_t excerpt_len;    /* bytes per excerpt */
	char *client;            /* the browser's address, for the stat log */
	char *referer;
};

/* Text with highlighted spans: byte ranges [span[2i], span[2i+1]) of text,
 * ascending and not overlapping, on UTF-8 boundaries. */
struct proto_text {
	char *text;
	uint32_t n_spans;
	uint32_t *spans;         /* 2 * n_spans offsets */
};

struct proto_clone {
	uint32_t url_id;
	char *url;
};

struct proto_hit {
	uint32_t url_id;
	uint32_t site_id;
	double score;            /* $DR */
	uint8_t second;          /* 1: the second hit of its site (res2) */
	uint32_t site_hits;      /* URLs of this site that match ($SC, "more from site") */
	char *url;
	char *site;              /* "scheme://host[:port]/" */
	struct proto_text title;
	struct proto_text description;
	char *keywords;
	char *content_type;
	uint32_t size;           /* bytes */
	uint64_t last_modified;  /* unix time, 0 = unknown */
	uint32_t n_excerpts;
	struct proto_text *excerpts;
	uint32_t n_clones;
	struct proto_clone *clones;
};

struct proto_word_stat {
	char *word;
	uint32_t urls;           /* URLs the word occurs in */
	uint64_t total;          /* occurrences */
	uint8_t stopword;        /* 1: dropped as a stopword */
};

struct proto_results {
	char *error;             /* "" or an ASPseek token: ER_EMPTYQUERY, ER_TOOSHORT, ... */
	char *message;           /* a sentence for people when error is set */
	uint64_t total_urls;     /* matching URLs */
	uint32_t total_sites;    /* matching sites */
	uint64_t total_results;  /* ranked entries ($t): sites when grouped, else URLs */
	uint8_t estimated;       /* 1: the counts (and site_hits) are estimates (ExactCounts no) */
	uint32_t first;          /* ordinal of hits[0], 0-based */
	double seconds;          /* search time */
	uint64_t generation;     /* index generation answered from */
	uint32_t n_words;
	struct proto_word_stat *words;
	uint32_t n_hits;
	struct proto_hit *hits;
};

/* A cached copy: by url_id, or by URL when url_id is 0. */
struct proto_cached_req {
	uint32_t url_id;
	char *url;
	char *q;                 /* terms to highlight */
};

struct proto_cached {
	char *error;             /* "" or a token (ER_NOTFOUND) */
	uint32_t url_id;
	char *url;
	char *content_type;
	char *charset;           /* of the original; text is UTF-8 */
	uint64_t last_index_time;
	struct proto_text text;  /* the stored text, terms highlighted */
};

/* ---- messages <-> payloads ----------------------------------------------
 * Encoders append a whole frame (header + payload) to out and return 0, or
 * -1 when a field breaks a cap.  Decoders parse a payload (without the
 * header) into *m, which they fill with malloc'd memory (free with the
 * matching proto_*_free(), which accepts a zeroed struct); on -1 *m is left
 * zeroed and err says why. */
int proto_encode_search(struct buf *out, const struct proto_search *m);
int proto_decode_search(const void *p, size_t len, struct proto_search *m, struct buf *err);
void proto_search_free(struct proto_search *m);
int proto_encode_results(struct buf *out, const struct proto_results *m);
int proto_decode_results(const void *p, size_t len, struct proto_results *m, struct buf *err);
void proto_results_free(struct proto_results *m);
int proto_encode_cached_req(struct buf *out, const struct proto_cached_req *m);
int proto_decode_cached_req(const void *p, size_t len, struct proto_cached_req *m,
			    struct buf *err);
void proto_cached_req_free(struct proto_cached_req *m);
int proto_encode_cached(struct buf *out, const struct proto_cached *m);
int proto_decode_cached(const void *p, size_t len, struct proto_cached *m, struct buf *err);
void proto_cached_free(struct proto_cached *m);
int proto_encode_error(struct buf *out, const char *token, const char *message);
/* A PROTO_ERROR payload: token and message appended to *token / *message
 * (reset first).  Returns 0 or -1 (err). */
int proto_decode_error(const void *p, size_t len, struct buf *token, struct buf *message,
		       struct buf *err);
int proto_encode_empty(struct buf *out, enum proto_type type);

/* Parse a frame header: 0 and *type, *len when valid, -1 (err) on a bad
 * magic, version or a length over PROTO_MAX_FRAME. */
int proto_parse_header(const uint8_t hdr[PROTO_HEADER_SIZE], enum proto_type *type,
		       uint32_t *len, struct buf *err);

/* ---- I/O on a socket ----------------------------------------------------- */
/* Read one whole frame within timeout_ms (poll): 0 with *type and the
 * payload in `payload` (reset first), 1 on a clean EOF before a header, -1
 * on a timeout, a bad frame or an I/O error (err says which). */
int proto_read_frame(int fd, int timeout_ms, enum proto_type *type, struct buf *payload,
		     struct buf *err);
/* Write all of `frame` within timeout_ms.  Returns 0 or -1. */
int proto_write_all(int fd, const void *frame, size_t len, int timeout_ms, struct buf *err);

/* ---- the client (s.cgi, mpseek-search) ----------------------------------- */
/* Connect to "host[:port]" (numeric IPv4/IPv6 or a name; port default
 * PROTO_DEFAULT_PORT) within timeout_ms.  Returns a socket or -1 (err). */
int proto_connect(const char *addr, int timeout_ms, struct buf *err);
/* One request/answer exchange on a connected socket.  Return 0 with *res
 * filled (free with proto_results_free()), or -1 (err): searchd down, slow,
 * or it answered PROTO_ERROR (then err holds "TOKEN: message"). */
int proto_search(int fd, const struct proto_search *req, int timeout_ms,
		 struct proto_results *res, struct buf *err);
int proto_cached(int fd, const struct proto_cached_req *req, int timeout_ms,
		 struct proto_cached *res, struct buf *err);

#endif
