/* conf.h - etc/mpseek.conf, etc/searchd.conf and the <!--variables--> part of
 * etc/s.htm, parsed from one directive table into one immutable struct.
 *
 * Syntax (ASPseek 1.2's, doc/CONFIG.md "Syntax"): one directive per line, names
 * case-insensitive, '#' comments, trailing '\' continues a line, `Include
 * file` (relative to the including file's directory), time values like
 * `7d`, `1h30M`, `1m-10d` (plain number = seconds).  Per-server parameters
 * are sticky: each `Server` line takes a copy of the values in force.  A bad
 * line makes conf_load() fail with "file:line: what is wrong: the line".
 */
#ifndef MPSEEK_CONF_H
#define MPSEEK_CONF_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* CloneTableEntries' default: 2^18 entries shared by the held sites of a
 * crawling rank, 20-40 MiB (doc/CONFIG.md). */
#define CLONE_TABLE_ENTRIES (1L << 18)
/* SeenCacheEntries' default: 4 Mi URLs in a crawling rank's exact seen-set
 * cache, at most 96 MiB; SeenBloomURLs' and SeenBloomFPRate's: a filter for
 * 10^8 URLs at 1 %, 114 MiB, made only when the cache first evicts
 * (doc/CRAWL.md, "Links and the seen-set"). */
#define SEEN_CACHE_ENTRIES (4L << 20)
#define SEEN_BLOOM_URLS 100000000L

enum conf_kind {
	CONF_INDEXER,  /* etc/mpseek.conf */
	CONF_SEARCHD,  /* etc/searchd.conf */
	CONF_TEMPLATE, /* the <!--variables ... --> section of etc/s.htm */
};

/* DBAddr mysql://[user[:pass]@]host[:port]/dbname/[?socket=/path]
 * (user and pass percent-decoded).  set == false means "no DBAddr": the
 * embedded default server under DataDir is used. */
struct conf_dbaddr {
	bool set;
	char *user;   /* NULL = current user / root for the embedded server */
	char *pass;   /* NULL = none */
	char *host;   /* NULL or "localhost" with socket = unix socket */
	int port;     /* 0 = default 3306 */
	char *socket; /* unix socket path, or NULL */
	char *name;   /* database name, never NULL when set */
};

/* The sticky per-Server parameter block (doc/CONFIG.md, "Sticky per-server
 * parameters"). */
struct conf_server_params {
	long period;              /* Period, seconds (7d) */
	long max_hops;            /* MaxHops (256) */
	bool increment_hops_on_redirect; /* (yes) */
	long redirect_loop_limit; /* RedirectLoopLimit (8, at most MAX_REDIRECTS) */
	long max_urls_per_server; /* MaxURLsPerServer (-1 = no limit) */
	long max_docs_at_once;    /* MaxDocsAtOnce: URLs claimed per site at once (0 = automatic) */
	double min_delay;         /* MinDelay, seconds (0) */
	long read_timeout;        /* ReadTimeOut, seconds (90) */
	bool robots;              /* Robots (yes) */
	bool delete_bad;          /* DeleteBad (no) */
	bool index;               /* Index (yes) */
	bool follow;              /* Follow (yes) */
	bool follow_outside;      /* FollowOutside (no) */
	bool path_scope;          /* ServerScope path (site): a Server admits only the
	                           * URLs under its directory, not its whole site */
	long tag;                 /* Tag (0): urlword.tag of the URLs, for --tag */
	bool recrawl_value;       /* RecrawlMode value (period): doc/CRAWL.md, "Recrawl
	                           * by value" */
	long min_period;          /* MinPeriod, seconds (1h): value mode's lower bound */
	double page_value;        /* PageValue (0 = from PageRank) */
	char *charset;            /* Charset (NULL = detect) */
	char *proxy;              /* Proxy host[:port] (NULL = direct) */
};

struct conf_server {
	char *url;                /* the Server URL as written */
	const char *file;         /* where it was written (borrowed from conf) */
	int line;
	struct conf_server_params p;
	char *auth_basic;         /* AuthBasic user:pass given just before this Server, or NULL */
};

enum conf_filter_kind {
	FILTER_ALLOW, FILTER_DISALLOW, FILTER_ALLOW_NOMATCH, FILTER_DISALLOW_NOMATCH,
	FILTER_CHECKONLY, FILTER_CHECKONLY_NOMATCH,
};

struct conf_filter {
	enum conf_filter_kind kind;
	char *pattern;            /* the regex as written */
	void *re;                 /* compiled pcre2_code (caseless) */
	const char *file;
	int line;
};

enum conf_verdict { VERDICT_ALLOW, VERDICT_DISALLOW, VERDICT_CHECKONLY };

struct conf_bandwidth { long bytes_per_sec; long start, end; /* seconds since midnight UTC */ };

struct conf {
	enum conf_kind kind;
	char *path;               /* the top file */

	/* common */
	struct conf_dbaddr db;    /* DBAddr */
	char *data_dir;           /* DataDir, absolute (default $MPSEEK_DATADIR or /var/lib/mpseek) */
	int debug_level;          /* DebugLevel as enum log_level (info) */

	/* indexer, global */
	long max_doc_size;        /* MaxDocSize bytes (1 MiB, at most MAX_DOC_BYTES) */
	long min_word_length;     /* MinWordLength (1) */
	long max_word_length;     /* MaxWordLength (32, at most MAX_WORD_LEN) */
	char **stopword_files;    /* StopwordFile lang file: the files, resolved */
	char **stopword_langs;    /* parallel: the lang of each file, or NULL */
	size_t n_stopword_files;
	char **http_headers;      /* HTTPHeader lines, "Name: value" (User-Agent excluded) */
	size_t n_http_headers;
	char *user_agent;         /* from HTTPHeader User-Agent, or "mpseek/<version>" */
	struct conf_bandwidth *bandwidth; /* MaxBandwidth bytes [start [end]] */
	size_t n_bandwidth;
	long delta_buffer_size;   /* DeltaBufferSize KiB (65536): the merge's sort buffer */
	double boilerplate_share; /* BoilerplateShare (0.5): a block on this share of a site's
	                           * pages is boilerplate; 0 = none found */
	long boilerplate_min_pages; /* BoilerplateMinPages (5): smaller sites have none */
	long max_anchor_words;    /* MaxAnchorWords (32): anchor words one site gives one page */
	bool clones;              /* Clones (yes) */
	bool delete_no_server;    /* DeleteNoServer (yes) */
	long address_expiry;      /* AddressExpiry seconds (1h) */
	long next_doc_limit;      /* NextDocLimit: URLs in hand per rank at most (0 = automatic) */
	double max_fetch_rate;    /* MaxFetchRate: pages/s of the crawl for the value mode
	                           * (0 = no limit) */
	/* cluster (mpseek additions) */
	long db_connections;      /* DBConnectionsPerRank (4): 2+ = a store thread, 3+ = a link thread, 4+ = a claim thread */
	long claim_batch;         /* ClaimBatchSize (0 = balance automatically) */
	long index_threads;       /* IndexThreads: analysis threads per rank (2; 0 = inline) */
	long max_transfers;       /* MaxTransfers: transfers in flight per rank, and the
	                           * sites a rank holds (512) */
	long lease_time;          /* LeaseTime seconds (15M) */
	long db_grace;            /* DBGrace seconds (3M): a lost database is waited
	                           * for this long, then the crawl stops */
	long publish_pages;       /* PublishPages: --continuous publishes after this many pages */
	long publish_interval;    /* PublishInterval seconds (10M): ... or after this long */
	long near_dup_bits;       /* NearDupBits (3): the merge groups pages whose
	                           * simhashes differ in at most this many bits
	                           * (0..MAX_NEAR_DUP_BITS; 0 = none, MD5 clones only) */
	long clone_table_entries; /* CloneTableEntries: entries of a crawling rank's
	                           * in-memory clone tables (CLONE_TABLE_ENTRIES;
	                           * 0 = none, the clone check asks the database) */
	long seen_cache_entries;  /* SeenCacheEntries: a crawling rank's exact seen-set
	                           * cache (SEEN_CACHE_ENTRIES), CLOCK when full */
	long seen_bloom_urls;     /* SeenBloomURLs: the seen-set's Bloom filter is sized for
	                           * these (SEEN_BLOOM_URLS; 0 = no filter) */
	double seen_bloom_fp;     /* SeenBloomFPRate: ... at this false-positive rate (0.01) */
	bool db_listen_tcp;       /* EmbeddedDBListen host:port given */
	char *db_listen;          /* EmbeddedDBListen 127.0.0.1:3307 (NULL = socket only) */
	long db_pool_mib;         /* EmbeddedDBBufferPool MiB (0 = an eighth of the memory) */
	/* PageRank (doc/PAGERANK.md) */
	double pagerank_damping;  /* PageRankDamping (0.85) */
	double pagerank_tolerance; /* PageRankTolerance: stop when the L1 change < this (1e-9) */
	long pagerank_max_iterations; /* PageRankMaxIterations (100) */

	struct conf_server *servers;
	size_t n_servers;
	struct conf_server_params defaults; /* globals in force at the end of the file */
	struct conf_filter *filters;
	size_t n_filters;

	/* searchd */
	long port;                /* Port (12345) */
	char *listen;             /* Listen address (127.0.0.1) */
	char **common_words;      /* CommonWords: pairs indexed (include/grams.h) */
	size_t n_common_words;
	char **allow_from;        /* AllowFrom ip|ip/cidr|host */
	size_t n_allow_from;
	long slow_query_time;     /* SlowQueryTime ms (1000, 0 = off): log slower queries */
	long max_threads;         /* MaxThreads (10) */
	long min_fixed_pattern_length; /* MinFixedPatternLength (6) */
	long query_time_limit;    /* QueryTimeLimit ms (2000) */
	/* ranking (doc/SEARCH.md, "Ranking") */
	double section_weight[4]; /* WeightBody, WeightDescription, WeightKeywords,
	                           * WeightTitle (1, 2, 3, 5): by section number */
	double bm25_k1;           /* BM25K1 (2.0) */
	double bm25_b;            /* BM25B (0.75) */
	double phrase_boost;      /* PhraseBoost (1.0) */
	double proximity_boost;   /* ProximityBoost (2.0) */
	double pagerank_weight;   /* PageRankWeight (0.5) */
	double title_match_boost; /* TitleMatchBoost (1000) */
	bool pruning;             /* Pruning (yes): top-k pruning, doc/SEARCH.md */
	bool exact_counts;        /* ExactCounts (no): count what pruning passes over */
	long max_wildcard_words;  /* MaxWildcardWords (64) */
	/* word forms (doc/SEARCH.md, "Word forms"); Stemming and StemLanguage
	 * also in mpseek.conf: the merge writes the stem map */
	bool stemming;            /* Stemming (yes) */
	char *stem_language;      /* StemLanguage (english): a libstemmer language */
	double stem_weight;       /* StemWeight (0.3): a form's occurrence, in [0, 1] */
	double boilerplate_weight; /* BoilerplateWeight (0.1): an occurrence in boilerplate,
	                            * in [0, 1] (doc/SEARCH.md, "Boilerplate") */
	double anchor_weight;     /* AnchorWeight (2): an anchor word's occurrence, of a body one's */

	/* s.htm variables */
	char **daemon_addresses;  /* DaemonAddress host[:port] */
	size_t n_daemon_addresses;
	long results_per_page;    /* ResultsPerPage (10) */
	long pages_per_screen;    /* PagesPerScreen (10) */
	long max_excerpts;        /* MaxExcerpts (2) */
	long max_excerpt_len;     /* MaxExcerptLen (200) */
	bool show_clones;         /* Clones (yes) */
	long search_timeout;      /* SearchTimeOut ms: connect + answer of searchd (10000) */
	char *local_charset;      /* LocalCharset (UTF-8) */
	char **error_names;       /* ER_* names and their texts, parallel arrays */
	char **error_texts;
	size_t n_errors;

	/* private: strings the struct points into */
	char **files;
	size_t n_files;
	char **pool;              /* every other string above; freed by conf_free() */
	size_t n_pool;
	size_t *server_index;     /* open-addressing hash by site: server index + 1 */
	size_t server_index_size;
	void *match_ctx;          /* pcre2_match_context with the match limits */
};

/* Parse `path` as a file of the given kind.  On success *out is a malloc'd
 * conf (free with conf_free()) and 0 is returned.  On failure -1 is returned,
 * *out is NULL and `err` (if not NULL) holds one line:
 * "file:line: what is wrong: the line". */
int conf_load(const char *path, enum conf_kind kind, struct conf **out, struct buf *err);
/* Same, from a string (for tests and fuzzing); `name` is used in messages. */
int conf_load_string(const char *name, const char *text, size_t len, enum conf_kind kind,
		     struct conf **out, struct buf *err);
/* Flags for conf_load_string_ex(). */
enum {
	CONF_NO_FILES = 1, /* touch no file: Include fails, StopwordFile is not checked (fuzzing) */
};
int conf_load_string_ex(const char *name, const char *text, size_t len, enum conf_kind kind,
			unsigned flags, struct conf **out, struct buf *err);
/* Free everything; accepts NULL. */
void conf_free(struct conf *c);

/* Parse an ASPseek time value ("7d", "1h30M", "1m-10d", "90") into seconds.
 * Units: s seconds, M minutes, h hours, d days, m months (30d), y years
 * (365d).  Returns 0 or -1. */
int conf_parse_time(const char *s, long *seconds);

/* The ordered Allow/Disallow chain: first match wins, default allow.  A
 * regex that hits its match limit on url counts as a Disallow: a hostile URL
 * must not get in by making a filter give up.  Thread-safe. */
enum conf_verdict conf_filter_url(const struct conf *c, const char *url);
/* The Server block whose parameters apply to url, or NULL when no Server
 * admits it (doc/CONFIG.md, "Server scope").  Among the Servers of url's
 * site (scheme, host and port, compared caseless), the one whose directory
 * (its path up to its last '/') is the longest prefix of url's path; when
 * none is, the site's Server with the shortest directory (the first written
 * on a tie), unless every Server of the site has ServerScope path: then
 * NULL.  url is expected normalised (url.c).  Borrowed from c. */
const struct conf_server *conf_server_for(const struct conf *c, const char *url);
/* Parameters for url: its Server's block, or the global defaults. */
const struct conf_server_params *conf_params_for(const struct conf *c, const char *url);
/* The scope of url's site as the Server lines give it, as text into out:
 * "/" when a Server of the site admits the whole site, else the sorted
 * directories the site's Servers admit; "" when no Server names the site.
 * legacy: as mpseek before schema version 3 scoped it (every Server admitted
 * only the URLs under its own URL, directory or not).  The crawl keeps a
 * digest of it per site and recrawls a site whose scope changed. */
struct buf;
void conf_site_scope(const struct conf *c, const char *url, bool legacy, struct buf *out);

#endif
