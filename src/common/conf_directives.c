/* conf_directives.c - the directive table of mpseek.conf, searchd.conf and
 * s.htm and what each directive does to a struct conf: value parsers (time
 * values, host:port, DBAddr), the setters of the table's types and the
 * special handlers, and the defaults.  Not the syntax of lines and files
 * (conf.c), not the Server list and filters (conf_server.c).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "util.h"

#include "conf_int.h"

#define MINUTE 60L
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)
#define MONTH (30 * DAY)
#define YEAR (365 * DAY)

#define DEFAULT_DATA_DIR "/var/lib/mpseek"
#define DEFAULT_SEARCHD_PORT 12345
#define DEFAULT_PROXY_PORT 3128

#define C(f) W_CONF, offsetof(struct conf, f)
#define P(f) W_PARAMS, offsetof(struct conf_server_params, f)
#define NOWHERE W_NONE, 0
#define MANY (-1)

#define BOOL(n, k, w, d)          { n, k, T_BOOL, w, d, 0, 1, 1, 1, NULL, false, NULL }
#define LONG(n, k, w, d, lo, hi)  { n, k, T_LONG, w, d, lo, hi, 1, 1, NULL, false, NULL }
#define TIME(n, k, w, d, lo, hi)  { n, k, T_TIME, w, d, lo, hi, 1, 1, NULL, false, NULL }
#define DELAY(n, k, w, d, lo, hi) { n, k, T_DELAY, w, d, lo, hi, 1, 1, NULL, false, NULL }
#define STR(n, k, w, sd)          { n, k, T_STR, w, 0, 0, 0, 1, 1, NULL, false, sd }
#define PATH(n, k, w)             { n, k, T_PATH, w, 0, 0, 0, 1, 1, NULL, false, NULL }
#define FILTER(n, fk)             { n, IDX, T_FILTER, NOWHERE, fk, 0, 0, 1, MANY, NULL, false, NULL }
#define FIXED(n, k, v)            { n, k, T_FIXED, NOWHERE, v, 0, 1, 1, 1, NULL, false, NULL }
#define IGNORE(n, k)              { n, k, T_IGNORE, NOWHERE, 0, 0, 0, 1, 1, NULL, false, NULL }
#define UNSUP(n, why)             { n, IDX | SRD, T_UNSUPPORTED, NOWHERE, 0, 0, 0, 0, MANY, NULL, false, why }
#define FN(n, k, lo, hi, fn)      { n, k, T_FN, NOWHERE, 0, 0, 0, lo, hi, fn, false, NULL }
#define FNW(n, k, w, sel, fn, sd) { n, k, T_FN, w, sel, 0, 0, 1, 1, fn, false, sd }
#define RAW(n, k, fn)             { n, k, T_FN, NOWHERE, 0, 0, 0, 1, 1, fn, true, NULL }

enum { DB_HOST, DB_NAME, DB_USER, DB_PASS, DB_PORT, DB_SOCK, DB_TYPE };

static int d_include(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_dbaddr(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_dbsplit(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_debuglevel(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_server(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_clear(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_seen_fp(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_proxy(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_authbasic(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_scope(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_stopword(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_httpheader(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_bandwidth(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_dblisten(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_listen(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_allowfrom(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_common(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_daemon(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_errtext(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_pagerank(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_ranking(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_recrawl(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_rate(struct parser *p, const struct directive *d, int argc, char **argv);

/* The vocabulary, ASPseek's names with mpseek's own.  A name may appear twice
 * with different kinds (Clones is a crawl switch in mpseek.conf and a display
 * switch in s.htm).  Documented one by one in doc/CONFIG.md. */
const struct directive conf_directives[] = {
	FN("Include", ANY, 1, 1, d_include),

	/* storage: mpseek.conf and searchd.conf */
	FN("DBAddr", IDX | SRD, 1, 1, d_dbaddr),
	FNW("DBHost", IDX | SRD, NOWHERE, DB_HOST, d_dbsplit, NULL),
	FNW("DBName", IDX | SRD, NOWHERE, DB_NAME, d_dbsplit, NULL),
	FNW("DBUser", IDX | SRD, NOWHERE, DB_USER, d_dbsplit, NULL),
	FNW("DBPass", IDX | SRD, NOWHERE, DB_PASS, d_dbsplit, NULL),
	FNW("DBPort", IDX | SRD, NOWHERE, DB_PORT, d_dbsplit, NULL),
	FNW("DBSock", IDX | SRD, NOWHERE, DB_SOCK, d_dbsplit, NULL),
	FNW("DBType", IDX | SRD, NOWHERE, DB_TYPE, d_dbsplit, NULL),
	PATH("DataDir", IDX | SRD, C(data_dir)),
	FN("DebugLevel", IDX | SRD, 1, 1, d_debuglevel),
	/* ASPseek's storage-format flags: mpseek has one format, so only the
	 * value describing it is accepted (a config written for another format
	 * must not silently run against this one). */
	FIXED("CompactStorage", IDX | SRD, 1),
	FIXED("IncrementalCitations", IDX | SRD, 1),
	FIXED("UtfStorage", IDX | SRD, 1),
	FIXED("HiByteFirst", IDX | SRD, 0),
	IGNORE("DBLibDir", IDX | SRD),

	/* indexer, global */
	LONG("MaxDocSize", IDX, C(max_doc_size), 1L << 20, 1, MAX_DOC_BYTES),
	/* searchd tokenizes queries as the indexer tokenized pages: the word
	 * lengths and stopwords are read by both, as in ASPseek 1.2: doc/CONFIG.md). */
	LONG("MinWordLength", IDX | SRD, C(min_word_length), 1, 1, MAX_WORD_LEN),
	LONG("MaxWordLength", IDX | SRD, C(max_word_length), 32, 1, MAX_WORD_LEN),
	FN("StopwordFile", IDX | SRD, 1, 2, d_stopword),
	RAW("HTTPHeader", IDX, d_httpheader),
	FN("MaxBandwidth", IDX, 1, 3, d_bandwidth),
	LONG("DeltaBufferSize", IDX, C(delta_buffer_size), 65536, 4, 4194303),
	FNW("BoilerplateShare", IDX, NOWHERE, 21, d_ranking, NULL),
	LONG("BoilerplateMinPages", IDX, C(boilerplate_min_pages), 5, 2, 1000000000),
	LONG("MaxAnchorWords", IDX, C(max_anchor_words), 32, 0, 4096),
	FN("CommonWords", IDX, 1, MANY, d_common),
	BOOL("Clones", IDX, C(clones), 1),
	BOOL("DeleteNoServer", IDX, C(delete_no_server), 1),
	TIME("AddressExpiry", IDX, C(address_expiry), HOUR, 0, 30 * DAY),
	LONG("NextDocLimit", IDX, C(next_doc_limit), 0, 0, 1000000),
	FNW("MaxFetchRate", IDX, NOWHERE, 0, d_rate, NULL),
	LONG("DBConnectionsPerRank", IDX, C(db_connections), 4, 1, 64),
	LONG("ClaimBatchSize", IDX, C(claim_batch), 0, 0, 100000),
	LONG("IndexThreads", IDX, C(index_threads), 2, 0, 64),
	LONG("MaxTransfers", IDX, C(max_transfers), 512, 1, 4096),
	TIME("LeaseTime", IDX, C(lease_time), 15 * MINUTE, MINUTE, 30 * DAY),
	TIME("DBGrace", IDX, C(db_grace), 3 * MINUTE, 1, 30 * DAY),
	LONG("PublishPages", IDX, C(publish_pages), 10000, 1, 100000000),
	TIME("PublishInterval", IDX, C(publish_interval), 10 * MINUTE, 1, 30 * DAY),
	LONG("CloneTableEntries", IDX, C(clone_table_entries), CLONE_TABLE_ENTRIES, 0,
	     MAX_CLONE_TABLE_ENTRIES),
	LONG("SeenCacheEntries", IDX, C(seen_cache_entries), SEEN_CACHE_ENTRIES, 1,
	     MAX_SEEN_CACHE_ENTRIES),
	LONG("NearDupBits", IDX, C(near_dup_bits), 3, 0, MAX_NEAR_DUP_BITS),
	LONG("SeenBloomURLs", IDX, C(seen_bloom_urls), SEEN_BLOOM_URLS, 0, MAX_SEEN_BLOOM_URLS),
	FNW("SeenBloomFPRate", IDX, NOWHERE, 0, d_seen_fp, NULL),
	FN("EmbeddedDBListen", IDX, 1, 1, d_dblisten),
	LONG("EmbeddedDBBufferPool", IDX, C(db_pool_mib), 0, 0, 1048576),
	FNW("PageRankDamping", IDX, NOWHERE, 0, d_pagerank, NULL),
	FNW("PageRankTolerance", IDX, NOWHERE, 1, d_pagerank, NULL),
	LONG("PageRankMaxIterations", IDX, C(pagerank_max_iterations), 100, 1, 100000),
	IGNORE("WordCacheSize", IDX),
	IGNORE("HrefCacheSize", IDX),
	IGNORE("UrlBufferSize", IDX),
	IGNORE("MaxNetErrors", IDX),
	IGNORE("IspellCorrectFactor", IDX),
	IGNORE("IspellIncorrectFactor", IDX),
	IGNORE("NumberFactor", IDX),
	IGNORE("AlnumFactor", IDX),

	/* URL filters, in file order */
	FILTER("Allow", FILTER_ALLOW),
	FILTER("Disallow", FILTER_DISALLOW),
	FILTER("AllowNoMatch", FILTER_ALLOW_NOMATCH),
	FILTER("DisallowNoMatch", FILTER_DISALLOW_NOMATCH),
	FILTER("CheckOnly", FILTER_CHECKONLY),
	FILTER("CheckOnlyNoMatch", FILTER_CHECKONLY_NOMATCH),

	/* sticky per-Server parameters */
	FN("Server", IDX, 1, 1, d_server),
	TIME("Period", IDX, P(period), 7 * DAY, 0, 10 * YEAR),
	LONG("Tag", IDX, P(tag), 0, 0, INT32_MAX),
	LONG("MaxHops", IDX, P(max_hops), 256, 0, 65535),
	BOOL("IncrementHopsOnRedirect", IDX, P(increment_hops_on_redirect), 1),
	LONG("RedirectLoopLimit", IDX, P(redirect_loop_limit), 8, 0, MAX_REDIRECTS),
	LONG("MaxURLsPerServer", IDX, P(max_urls_per_server), -1, -1, LONG_MAX),
	LONG("MaxDocsAtOnce", IDX, P(max_docs_at_once), 0, 0, 1000),
	DELAY("MinDelay", IDX, P(min_delay), 0, 0, DAY),
	TIME("ReadTimeOut", IDX, P(read_timeout), 90, 1, HOUR),
	BOOL("Robots", IDX, P(robots), 1),
	BOOL("DeleteBad", IDX, P(delete_bad), 0),
	BOOL("Index", IDX, P(index), 1),
	{ "NoIndex", IDX, T_FN, P(index), 0, 0, 0, 0, 0, d_clear, false, NULL },
	BOOL("Follow", IDX, P(follow), 1),
	{ "NoFollow", IDX, T_FN, P(follow), 0, 0, 0, 0, 0, d_clear, false, NULL },
	BOOL("FollowOutside", IDX, P(follow_outside), 0),
	STR("Charset", IDX, P(charset), NULL),
	FN("Proxy", IDX, 0, 1, d_proxy),
	FN("AuthBasic", IDX, 1, 1, d_authbasic),
	FN("ServerScope", IDX, 1, 1, d_scope),
	FN("RecrawlMode", IDX, 1, 1, d_recrawl),
	TIME("MinPeriod", IDX, P(min_period), HOUR, 0, 10 * YEAR),
	FNW("PageValue", IDX, NOWHERE, 1, d_rate, NULL),

	/* searchd.conf */
	LONG("Port", SRD, C(port), DEFAULT_SEARCHD_PORT, 1, 65535),
	FNW("Listen", SRD, C(listen), 0, d_listen, "127.0.0.1"),
	FN("AllowFrom", SRD, 1, MANY, d_allowfrom),
	LONG("SlowQueryTime", SRD, C(slow_query_time), 1000, 0, 3600000),
	LONG("MaxThreads", SRD, C(max_threads), 10, 1, 1024),
	LONG("MinFixedPatternLength", SRD, C(min_fixed_pattern_length), 6, 0, MAX_WORD_LEN),
	LONG("QueryTimeLimit", SRD, C(query_time_limit), 2000, 0, 3600000),
	IGNORE("MultipleDBConnections", SRD),
	FNW("WeightBody", SRD, NOWHERE, 0, d_ranking, NULL),
	FNW("WeightDescription", SRD, NOWHERE, 1, d_ranking, NULL),
	FNW("WeightKeywords", SRD, NOWHERE, 2, d_ranking, NULL),
	FNW("WeightTitle", SRD, NOWHERE, 3, d_ranking, NULL),
	FNW("BM25K1", SRD, NOWHERE, 4, d_ranking, NULL),
	FNW("BM25B", SRD, NOWHERE, 5, d_ranking, NULL),
	FNW("PhraseBoost", SRD, NOWHERE, 6, d_ranking, NULL),
	FNW("ProximityBoost", SRD, NOWHERE, 7, d_ranking, NULL),
	FNW("PageRankWeight", SRD, NOWHERE, 8, d_ranking, NULL),
	FNW("TitleMatchBoost", SRD, NOWHERE, 9, d_ranking, NULL),
	LONG("MaxWildcardWords", SRD, C(max_wildcard_words), 64, 1, 10000),
	BOOL("Pruning", SRD, C(pruning), 1),
	BOOL("ExactCounts", SRD, C(exact_counts), 0),
	BOOL("Stemming", IDX | SRD, C(stemming), 1),
	STR("StemLanguage", IDX | SRD, C(stem_language), "english"),
	FNW("StemWeight", SRD, NOWHERE, 10, d_ranking, NULL),
	FNW("BoilerplateWeight", SRD, NOWHERE, 20, d_ranking, NULL),
	FNW("AnchorWeight", SRD, NOWHERE, 22, d_ranking, NULL),

	/* s.htm <!--variables--> */
	FN("DaemonAddress", TPL, 1, 1, d_daemon),
	LONG("ResultsPerPage", TPL, C(results_per_page), 10, 1, 100),
	LONG("PagesPerScreen", TPL, C(pages_per_screen), 10, 1, 100),
	LONG("MaxExcerpts", TPL, C(max_excerpts), 2, 0, 100),
	LONG("MaxExcerptLen", TPL, C(max_excerpt_len), 200, 10, 10000),
	BOOL("Clones", TPL, C(show_clones), 1),
	LONG("SearchTimeOut", TPL, C(search_timeout), 10000, 100, 600000),
	STR("LocalCharset", TPL, C(local_charset), "UTF-8"),
	RAW("ER_STOPWORDS", TPL, d_errtext),
	RAW("ER_EXTRASYMBOL", TPL, d_errtext),
	RAW("ER_EMPTYQUERY", TPL, d_errtext),
	RAW("ER_TOOSHORT", TPL, d_errtext),
	RAW("ER_NOQUOTED", TPL, d_errtext),
	RAW("ER_NOPARENTHESIS", TPL, d_errtext),
	RAW("ER_NOSEARCHD", TPL, d_errtext),
	RAW("ER_TOOLONG", TPL, d_errtext),
	RAW("ER_TOOCOMPLEX", TPL, d_errtext),
	RAW("ER_TIMEOUT", TPL, d_errtext),
	RAW("ER_LONGURL", TPL, d_errtext),

	/* ASPseek directives with no mpseek meaning: refused with a reason
	 * rather than dropped, so an old config does not half-work. */
	UNSUP("Replace", "URL rewriting is not supported"),
	UNSUP("Converter", "external converters are not supported"),
	UNSUP("AddType", "types come from the Content-Type header"),
	UNSUP("Countries", "country filters are not supported"),
	UNSUP("AllowCountries", "country filters are not supported"),
	UNSUP("OnlineGeo", "country filters are not supported"),
	UNSUP("CharsetTable", "charsets are converted to UTF-8 by iconv"),
	UNSUP("CharsetTableU1", "charsets are converted to UTF-8 by iconv"),
	UNSUP("CharsetTableU2", "charsets are converted to UTF-8 by iconv"),
	UNSUP("CharsetAlias", "charsets are converted to UTF-8 by iconv"),
	UNSUP("LocalCharset", "words are stored as UTF-8"),
	UNSUP("Dictionary2", "CJK dictionary segmentation is not supported"),
	UNSUP("HTDBList", "HTDB is not supported"),
	UNSUP("HTDBDoc", "HTDB is not supported"),
	UNSUP("Alias", "mirrors and aliases are not supported"),
	UNSUP("MirrorRoot", "mirrors and aliases are not supported"),
	UNSUP("MirrorHeadersRoot", "mirrors and aliases are not supported"),
	UNSUP("MirrorPeriod", "mirrors and aliases are not supported"),
	UNSUP("DBWordDir", "the index lives under DataDir"),
	UNSUP("MaxURLsPerServerPerIndex", "use MaxURLsPerServer"),
	UNSUP("MaxDocsPerServer", "use MaxURLsPerServer"),
	UNSUP("Affix", "ispell forms are not supported"),
	UNSUP("Spell", "ispell forms are not supported"),
	UNSUP("WordForms", "ispell forms are not supported: Stemming (Snowball) finds word forms"),
	UNSUP("SiteWeight", "ranking uses PageRank"),
	UNSUP("AccountDistance", "ranking has its own proximity boost"),
	UNSUP("Cache", "the result cache is not supported"),
	UNSUP("CacheLocalSize", "the result cache is not supported"),
	UNSUP("CachedUrls", "the result cache is not supported"),
};

const size_t conf_n_directives = ARRAY_SIZE(conf_directives);

/* ---- value parsers ------------------------------------------------------ */

int conf_parse_time(const char *s, long *seconds)
{
	long total = 0;
	const char *q;

	if (!s || !*s)
		return -1;
	/* A plain (signed) number is seconds. */
	q = s + (*s == '-' || *s == '+');
	if (is_digit(*q)) {
		while (is_digit(*q))
			q++;
		if (!*q)
			return parse_long(s, LONG_MIN, LONG_MAX, seconds);
	}
	while (*s) {
		long sign = 1, v = 0, unit;

		if (*s == '-' || *s == '+')
			sign = *s++ == '-' ? -1 : 1;
		if (!is_digit(*s))
			return -1;
		while (is_digit(*s)) {
			if (__builtin_mul_overflow(v, 10L, &v) ||
			    __builtin_add_overflow(v, (long)(*s - '0'), &v))
				return -1;
			s++;
		}
		switch (*s++) {
		case 's': unit = 1; break;
		case 'M': unit = MINUTE; break;
		case 'h': unit = HOUR; break;
		case 'd': unit = DAY; break;
		case 'm': unit = MONTH; break;
		case 'y': unit = YEAR; break;
		default: return -1;
		}
		if (__builtin_mul_overflow(v, unit * sign, &v) ||
		    __builtin_add_overflow(total, v, &total))
			return -1;
	}
	*seconds = total;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	if (!ascii_casecmp(s, "yes") || !ascii_casecmp(s, "on") || !strcmp(s, "1"))
		*out = true;
	else if (!ascii_casecmp(s, "no") || !ascii_casecmp(s, "off") || !strcmp(s, "0"))
		*out = false;
	else
		return -1;
	return 0;
}

/* "0.5" or "2" as decimal seconds, else a time value ("1M"). */
static int parse_delay(const char *s, double *out)
{
	const char *q = s;
	long v;

	while (is_digit(*q))
		q++;
	if (q > s && *q == '.' && is_digit(q[1])) {
		for (q++; is_digit(*q); q++)
			;
		if (!*q && q - s < 32) {
			*out = strtod(s, NULL);
			return 0;
		}
		return -1;
	}
	if (conf_parse_time(s, &v))
		return -1;
	*out = (double)v;
	return 0;
}

static bool is_hostname(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 253)
		return false;
	for (i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

static bool is_ip(const char *s, int *bits)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, s, a) == 1) {
		*bits = 32;
		return true;
	}
	if (inet_pton(AF_INET6, s, a) == 1) {
		*bits = 128;
		return true;
	}
	return false;
}

/* "host[:port]" or "[v6]:port" into a malloc'd "host:port"; defport < 0
 * means the port is required.  0 or -1. */
static int parse_hostport(const char *s, long defport, char **norm)
{
	const char *h = s, *he, *ps = NULL;
	bool v6 = false;
	long port = defport;

	if (*s == '[') {
		h = s + 1;
		he = strchr(h, ']');
		if (!he || he == h)
			return -1;
		for (const char *q = h; q < he; q++)
			if (!is_alnum(*q) && *q != ':' && *q != '.')
				return -1;
		v6 = true;
		if (he[1] == ':')
			ps = he + 2;
		else if (he[1])
			return -1;
	} else {
		const char *colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':'))
			return -1; /* a bare IPv6 address needs [] */
		he = colon ? colon : s + strlen(s);
		ps = colon ? colon + 1 : NULL;
		if (!is_hostname(h, (size_t)(he - h)))
			return -1;
	}
	if (ps ? parse_long(ps, 1, 65535, &port) : port < 0)
		return -1;
	if (v6)
		*norm = xasprintf("[%.*s]:%ld", (int)(he - h), h, port);
	else
		*norm = xasprintf("%.*s:%ld", (int)(he - h), h, port);
	return 0;
}

/* Percent-decode s[0..n) into a malloc'd string; NULL on a bad escape or %00. */
static char *pct_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi, lo;
			if (i + 2 >= n) {
				free(out);
				return NULL;
			}
			hi = hex_value(s[i + 1]);
			lo = hex_value(s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
				free(out);
				return NULL;
			}
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return out;
}

/* ---- handlers ----------------------------------------------------------- */

static void *field(struct parser *p, const struct directive *d)
{
	char *base = d->where == W_PARAMS ? (char *)&p->cur : (char *)p->c;
	return base + d->off;
}

static int d_include(struct parser *p, const struct directive *d, int argc, char **argv)
{
	const char *slash = strrchr(p->file, '/');
	char *path, *shown;
	int rc;

	UNUSED(d);
	UNUSED(argc);
	if (p->flags & CONF_NO_FILES)
		return conf_perr(p, "Include is disabled here");
	path = conf_join_path(p->dir, argv[0]);
	/* Messages name an included file the way the user would: next to
	 * the including file as that one is named. */
	if (argv[0][0] == '/' || !slash)
		shown = xstrdup(argv[0]);
	else
		shown = xasprintf("%.*s/%s", (int)(slash - p->file), p->file, argv[0]);
	rc = conf_load_file(p, path, shown, false, false);
	free(path);
	free(shown);
	return rc;
}

static int set_dbname(struct parser *p, const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return conf_perr(p, "bad DBAddr: missing database name");
	if (n > 64)
		return conf_perr(p, "database name longer than 64 characters");
	/* The name goes into CREATE DATABASE statements: keep it an identifier. */
	for (i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '_' && s[i] != '$')
			return conf_perr(
			    p, "database name \"%.*s\" may hold only letters, digits, _ and $",
			    (int)n, s);
	p->c->db.name = conf_pool_take(p->c, xstrndup(s, n));
	return 0;
}

static int d_dbaddr(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	const char *s = argv[0], *slash, *at, *h, *he, *name, *ne;
	char *user = NULL, *pass = NULL;

	UNUSED(d);
	UNUSED(argc);
	if (ascii_ncasecmp(s, "mysql://", 8)) {
		if (strstr(s, "://"))
			return conf_perr(p, "bad DBAddr: only mysql:// is supported");
		return conf_perr(p, "bad DBAddr: want mysql://[user[:pass]@]host[:port]/dbname/");
	}
	memset(&c->db, 0, sizeof(c->db));
	s += 8;
	slash = strchr(s, '/');
	if (!slash)
		return conf_perr(p, "bad DBAddr: missing database name");
	/* An '@' past the first '/' is a password with a '/' in it: parsed as
	 * host or port, the messages would quote a piece of it. */
	if (memchr(slash, '@', strcspn(slash, "?")))
		return conf_perr(p, "bad DBAddr: write '/' and '@' in the user or password as "
				    "%%2F and %%40");
	at = memrchr(s, '@', (size_t)(slash - s));
	h = s;
	if (at) {
		const char *colon = memchr(s, ':', (size_t)(at - s));
		const char *ue = colon ? colon : at;

		user = pct_decode(s, (size_t)(ue - s));
		if (colon) {
			pass = pct_decode(colon + 1, (size_t)(at - colon - 1));
			conf_secret_note(p);
		}
		if (!user || (colon && !pass)) {
			free(user);
			free(pass);
			return conf_perr(p, "bad DBAddr: bad %%-escape in user or password");
		}
		c->db.user = conf_pool_take(c, user);
		if (pass)
			c->db.pass = conf_pool_take(c, pass);
		h = at + 1;
	}
	/* host[:port], IPv6 in brackets */
	he = slash;
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(slash - h));
		if (!rb)
			return conf_perr(p, "bad DBAddr: unterminated [IPv6] host");
		he = rb + 1;
	} else {
		const char *colon = memchr(h, ':', (size_t)(slash - h));
		if (colon)
			he = colon;
	}
	if (he < slash) {
		char portbuf[16];
		long port;
		size_t pn = (size_t)(slash - he - 1);

		if (*he != ':' || pn == 0 || pn >= sizeof(portbuf))
			return conf_perr(p, "bad DBAddr: bad port");
		memcpy(portbuf, he + 1, pn);
		portbuf[pn] = '\0';
		if (parse_long(portbuf, 1, 65535, &port))
			return conf_perr(p, "bad DBAddr: bad port \"%s\"", portbuf);
		c->db.port = (int)port;
	}
	if (he > h) {
		const char *hs = *h == '[' ? h + 1 : h;
		size_t hn = (size_t)(he - h) - (*h == '[' ? 2 : 0);
		if (*h != '[' && !is_hostname(hs, hn))
			return conf_perr(p, "bad DBAddr: bad host \"%.*s\"", (int)(he - h), h);
		c->db.host = conf_pool_take(c, xstrndup(hs, hn));
	}
	name = slash + 1;
	ne = name + strcspn(name, "/?");
	if (set_dbname(p, name, (size_t)(ne - name)))
		return -1;
	if (*ne == '/')
		ne++;
	if (*ne == '?') {
		if (strncmp(ne, "?socket=", 8))
			return conf_perr(p, "bad DBAddr: the only option is ?socket=/path");
		if (ne[8] != '/')
			return conf_perr(p, "bad DBAddr: the socket path must be absolute");
		c->db.socket = conf_pool_dup(c, ne + 8);
	} else if (*ne) {
		return conf_perr(p, "bad DBAddr: unexpected \"%.40s\" after the database name", ne);
	}
	c->db.set = true;
	return 0;
}

static int d_dbsplit(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	const char *v = argv[0];
	long port;

	UNUSED(argc);
	if (d->def == DB_TYPE) {
		if (ascii_casecmp(v, "mysql"))
			return conf_perr(p, "only DBType mysql is supported");
		return 0;
	}
	if (!p->db_split.file) {
		p->db_split.file = p->file;
		p->db_split.line = p->line;
	}
	switch (d->def) {
	case DB_HOST:
		if (!is_hostname(v, strlen(v)) && !is_ip(v, &(int){ 0 }))
			return conf_perr(p, "bad host \"%.80s\"", v);
		c->db.host = conf_pool_dup(c, v);
		break;
	case DB_NAME:
		if (set_dbname(p, v, strlen(v)))
			return -1;
		break;
	case DB_USER:
		c->db.user = conf_pool_dup(c, v);
		break;
	case DB_PASS:
		conf_secret_note(p);
		c->db.pass = conf_pool_dup(c, v);
		break;
	case DB_PORT:
		if (parse_long(v, 1, 65535, &port))
			return conf_perr(p, "bad port \"%.80s\"", v);
		c->db.port = (int)port;
		break;
	case DB_SOCK:
		if (v[0] != '/')
			return conf_perr(p, "the socket path must be absolute");
		c->db.socket = conf_pool_dup(c, v);
		break;
	}
	c->db.set = true;
	return 0;
}

static int d_debuglevel(struct parser *p, const struct directive *d, int argc, char **argv)
{
	int level = log_level_parse(argv[0]);

	UNUSED(d);
	UNUSED(argc);
	if (level < 0)
		return conf_perr(
		    p, "bad DebugLevel \"%.80s\" (none, error, warning, info or debug)", argv[0]);
	p->c->debug_level = level;
	return 0;
}

static int d_server(struct parser *p, const struct directive *d, int argc, char **argv)
{
	UNUSED(d);
	UNUSED(argc);
	return conf_add_server(p, argv[0]);
}

static int d_clear(struct parser *p, const struct directive *d, int argc, char **argv)
{
	UNUSED(argc);
	UNUSED(argv);
	*(bool *)field(p, d) = false;
	return 0;
}

static int d_proxy(struct parser *p, const struct directive *d, int argc, char **argv)
{
	char *norm;

	UNUSED(d);
	if (argc == 0) {
		p->cur.proxy = NULL; /* a bare Proxy goes back to direct */
		return 0;
	}
	if (parse_hostport(argv[0], DEFAULT_PROXY_PORT, &norm))
		return conf_perr(p, "bad proxy \"%.80s\" (want host[:port])", argv[0]);
	p->cur.proxy = conf_pool_take(p->c, norm);
	return 0;
}

static int d_authbasic(struct parser *p, const struct directive *d, int argc, char **argv)
{
	UNUSED(d);
	UNUSED(argc);
	if (!strchr(argv[0], ':'))
		return conf_perr(p, "AuthBasic wants user:password");
	conf_secret_note(p);
	p->auth_next = conf_pool_dup(p->c, argv[0]);
	return 0;
}

/* ServerScope site|path: what the following Server lines admit. */
static int d_scope(struct parser *p, const struct directive *d, int argc, char **argv)
{
	UNUSED(d);
	UNUSED(argc);
	if (!ascii_casecmp(argv[0], "site"))
		p->cur.path_scope = false;
	else if (!ascii_casecmp(argv[0], "path"))
		p->cur.path_scope = true;
	else
		return conf_perr(p, "ServerScope wants site or path");
	return 0;
}

static int d_stopword(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	const char *file = argv[argc - 1];
	char *path = conf_join_path(p->dir, file);
	size_t n = c->n_stopword_files;

	UNUSED(d);
	if (!(p->flags & CONF_NO_FILES) && access(path, R_OK)) {
		int e = errno;
		free(path);
		return conf_perr(p, "cannot read stopword file \"%.200s\": %s", file, strerror(e));
	}
	c->stopword_files = conf_grow_array(c->stopword_files, n, sizeof(char *));
	c->stopword_langs = conf_grow_array(c->stopword_langs, n, sizeof(char *));
	c->stopword_files[n] = conf_pool_take(c, path);
	c->stopword_langs[n] = argc == 2 ? conf_pool_dup(c, argv[0]) : NULL;
	c->n_stopword_files++;
	return 0;
}

static bool is_tchar(char ch)
{
	return is_alnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static int d_httpheader(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	const char *s = argv[0], *colon, *v, *e;
	size_t n = strlen(s), i;

	UNUSED(d);
	UNUSED(argc);
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	colon = memchr(s, ':', n);
	if (!colon || colon == s)
		return conf_perr(p, "HTTPHeader wants \"Name: value\"");
	for (i = 0; s + i < colon; i++)
		if (!is_tchar(s[i]))
			return conf_perr(p, "bad HTTP header name \"%.*s\"", (int)(colon - s), s);
	for (v = colon + 1; v < s + n && is_ws(*v); v++)
		;
	for (e = s + n; e > v && is_ws(e[-1]); e--)
		;
	if (e == v)
		return conf_perr(p, "HTTPHeader has an empty value");
	for (i = 0; v + i < e; i++)
		if (((unsigned char)v[i] < 0x20 && v[i] != '\t') || v[i] == 0x7f)
			return conf_perr(p, "HTTPHeader value holds a control character");
	if ((size_t)(colon - s) == 10 && !ascii_ncasecmp(s, "User-Agent", 10)) {
		c->user_agent = conf_pool_take(c, xstrndup(v, (size_t)(e - v)));
		return 0;
	}
	conf_push_str(
	    &c->http_headers, &c->n_http_headers,
	    conf_pool_take(c, xasprintf("%.*s: %.*s", (int)(colon - s), s, (int)(e - v), v)));
	return 0;
}

static int d_bandwidth(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	struct conf_bandwidth bw = { 0, 0, DAY };
	long *ends[2] = { &bw.start, &bw.end };
	int i;

	UNUSED(d);
	if (parse_long(argv[0], 1, LONG_MAX, &bw.bytes_per_sec))
		return conf_perr(p, "bad byte rate \"%.80s\"", argv[0]);
	for (i = 1; i < argc; i++) {
		if (conf_parse_time(argv[i], ends[i - 1]))
			return conf_perr(p, "bad time value \"%.80s\"", argv[i]);
		if (*ends[i - 1] < 0 || *ends[i - 1] > DAY)
			return conf_perr(
			    p, "time of day \"%.80s\" out of range (0 to 86400 seconds)", argv[i]);
	}
	c->bandwidth = conf_grow_array(c->bandwidth, c->n_bandwidth, sizeof(*c->bandwidth));
	c->bandwidth[c->n_bandwidth++] = bw;
	return 0;
}

/* A decimal argument (the table has no type for them): 1 and *v, or 0 when
 * it is not a finite number (the caller says what it wanted). */
static int decimal_arg(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !(errno || end == s || *end || !isfinite(*v));
}

/* PageRankDamping (0 < d < 1) and PageRankTolerance (1e-15 to 1). */
static int d_pagerank(struct parser *p, const struct directive *d, int argc, char **argv)
{
	double v;

	UNUSED(argc);
	if (!decimal_arg(argv[0], &v))
		return conf_perr(p, "%s wants a number, not \"%.80s\"", d->name, argv[0]);
	if (d->def == 0) {
		if (!(v > 0 && v < 1))
			return conf_perr(p, "PageRankDamping %.80s out of range (between 0 and 1)",
					 argv[0]);
		p->c->pagerank_damping = v;
	} else {
		if (!(v >= 1e-15 && v <= 1))
			return conf_perr(p, "PageRankTolerance %.80s out of range (1e-15 to 1)",
					 argv[0]);
		p->c->pagerank_tolerance = v;
	}
	return 0;
}

/* RecrawlMode period|value (doc/CRAWL.md, "Recrawl by value"). */
static int d_recrawl(struct parser *p, const struct directive *d, int argc, char **argv)
{
	UNUSED(d);
	UNUSED(argc);
	if (!ascii_casecmp(argv[0], "period"))
		p->cur.recrawl_value = false;
	else if (!ascii_casecmp(argv[0], "value"))
		p->cur.recrawl_value = true;
	else
		return conf_perr(p, "RecrawlMode wants period or value");
	return 0;
}

/* MaxFetchRate (pages/s of the crawl) and PageValue (of a Server's pages):
 * a decimal number >= 0, at most 1e6; 0 = none / from PageRank. */
static int d_rate(struct parser *p, const struct directive *d, int argc, char **argv)
{
	char *end;
	double v;

	UNUSED(argc);
	errno = 0;
	v = strtod(argv[0], &end);
	if (errno || end == argv[0] || *end || !isfinite(v))
		return conf_perr(p, "%s wants a number, not \"%.80s\"", d->name, argv[0]);
	if (!(v >= 0 && v <= 1e6))
		return conf_perr(p, "%s %.80s out of range (0 to 1000000)", d->name, argv[0]);
	if (d->def == 0)
		p->c->max_fetch_rate = v;
	else
		p->cur.page_value = v;
	return 0;
}

/* SeenBloomFPRate: a decimal number, 1e-6 to 0.5. */
static int d_seen_fp(struct parser *p, const struct directive *d, int argc, char **argv)
{
	double v;

	UNUSED(argc);
	if (!decimal_arg(argv[0], &v))
		return conf_perr(p, "%s wants a number, not \"%.80s\"", d->name, argv[0]);
	if (!(v >= 1e-6 && v <= 0.5))
		return conf_perr(p, "%s %.80s out of range (1e-6 to 0.5)", d->name, argv[0]);
	p->c->seen_bloom_fp = v;
	return 0;
}

/* The ranking parameters of searchd.conf (doc/SEARCH.md): decimal numbers
 * in [0, 1e6]; BM25B in [0, 1]; BM25K1 above 0. */
static int d_ranking(struct parser *p, const struct directive *d, int argc, char **argv)
{
	double v, *f;

	UNUSED(argc);
	if (!decimal_arg(argv[0], &v) || v < 0 || v > 1e6)
		return conf_perr(p, "%s wants a number from 0 to 1000000, not \"%.80s\"", d->name,
				 argv[0]);
	switch (d->def) {
	case 0: case 1: case 2: case 3: f = &p->c->section_weight[d->def]; break;
	case 4:
		if (v <= 0)
			return conf_perr(p, "BM25K1 must be above 0");
		f = &p->c->bm25_k1;
		break;
	case 5:
		if (v > 1)
			return conf_perr(p, "BM25B must be between 0 and 1");
		f = &p->c->bm25_b;
		break;
	case 6: f = &p->c->phrase_boost; break;
	case 7: f = &p->c->proximity_boost; break;
	case 8: f = &p->c->pagerank_weight; break;
	case 10:
		/* Above 1 a form would outscore the exact word (and break the
		 * bounds of top-k pruning). */
		if (v > 1)
			return conf_perr(p, "StemWeight must be between 0 and 1");
		f = &p->c->stem_weight;
		break;
	case 20:
	case 21:
		/* A weight above 1 would favour navigation over the body (and
		 * break the bounds of top-k pruning); a share is a fraction. */
		if (v > 1)
			return conf_perr(p, "%s must be between 0 and 1", d->name);
		f = d->def == 20 ? &p->c->boilerplate_weight : &p->c->boilerplate_share;
		break;
	case 22: f = &p->c->anchor_weight; break;
	default: f = &p->c->title_match_boost; break;
	}
	*f = v;
	return 0;
}

static int d_dblisten(struct parser *p, const struct directive *d, int argc, char **argv)
{
	char *norm;

	UNUSED(d);
	UNUSED(argc);
	if (parse_hostport(argv[0], -1, &norm))
		return conf_perr(p, "EmbeddedDBListen wants host:port");
	p->c->db_listen = conf_pool_take(p->c, norm);
	p->c->db_listen_tcp = true;
	return 0;
}

static int d_listen(struct parser *p, const struct directive *d, int argc, char **argv)
{
	int bits;

	UNUSED(argc);
	if (!is_ip(argv[0], &bits) && !is_hostname(argv[0], strlen(argv[0])))
		return conf_perr(p, "bad listen address \"%.80s\"", argv[0]);
	*(char **)field(p, d) = conf_pool_dup(p->c, argv[0]);
	return 0;
}

static int d_allowfrom(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	int i, bits;

	UNUSED(d);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *slash = strchr(a, '/');
		char ip[INET6_ADDRSTRLEN + 1];
		long prefix;

		if (slash) {
			if ((size_t)(slash - a) >= sizeof(ip))
				return conf_perr(p, "bad address \"%.80s\"", a);
			memcpy(ip, a, (size_t)(slash - a));
			ip[slash - a] = '\0';
			if (!is_ip(ip, &bits))
				return conf_perr(p, "bad address \"%.80s\" in %.80s", ip, a);
			if (parse_long(slash + 1, 0, bits, &prefix))
				return conf_perr(p, "bad prefix length in \"%.80s\" (0 to %d)", a,
						 bits);
		} else if (!is_ip(a, &bits) && !is_hostname(a, strlen(a))) {
			return conf_perr(p, "bad address \"%.80s\" (want ip, ip/bits or host name)",
					 a);
		}
		conf_push_str(&c->allow_from, &c->n_allow_from, conf_pool_dup(c, a));
	}
	return 0;
}

/* CommonWords word...: the words whose adjacent pairs the merge indexes
 * (include/grams.h), as the index holds them. */
static int d_common(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;

	UNUSED(d);
	if (c->n_common_words + (size_t)argc > MAX_COMMON_WORDS)
		return conf_perr(p, "more than %d common words", MAX_COMMON_WORDS);
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		size_t len = strlen(w);

		if (len > MAX_WORD_LEN - 2)
			return conf_perr(p, "common word \"%.80s\" is longer than %d bytes", w,
					 MAX_WORD_LEN - 2);
		for (size_t k = 0; k < len; k++)
			if ((unsigned char)w[k] < 0x20 || w[k] == 0x7f || (w[k] >= 'A' && w[k] <= 'Z'))
				return conf_perr(p, "common word \"%.80s\" holds a control character "
						 "or is not in lower case (the index folds words)", w);
	}
	for (int i = 0; i < argc; i++)
		conf_push_str(&c->common_words, &c->n_common_words, conf_pool_dup(c, argv[i]));
	return 0;
}

static int d_daemon(struct parser *p, const struct directive *d, int argc, char **argv)
{
	char *norm;

	UNUSED(d);
	UNUSED(argc);
	if (parse_hostport(argv[0], DEFAULT_SEARCHD_PORT, &norm))
		return conf_perr(p, "bad DaemonAddress \"%.80s\" (want host[:port])", argv[0]);
	conf_push_str(&p->c->daemon_addresses, &p->c->n_daemon_addresses,
		      conf_pool_take(p->c, norm));
	return 0;
}

static int d_errtext(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	size_t i, n = c->n_errors;

	UNUSED(argc);
	for (i = 0; i < n; i++) {
		if (!strcmp(c->error_names[i], d->name)) {
			c->error_texts[i] = conf_pool_dup(c, argv[0]);
			return 0;
		}
	}
	c->error_names = conf_grow_array(c->error_names, n, sizeof(char *));
	c->error_texts = conf_grow_array(c->error_texts, n, sizeof(char *));
	c->error_names[n] = conf_pool_dup(c, d->name);
	c->error_texts[n] = conf_pool_dup(c, argv[0]);
	c->n_errors++;
	return 0;
}

/* ---- the table's types and defaults ------------------------------------ */

int conf_apply(struct parser *p, const struct directive *d, int argc, char **argv)
{
	const char *a = argv ? argv[0] : NULL;
	long v;
	bool b;
	double dv;
	int i;

	switch (d->type) {
	case T_BOOL:
		if (parse_bool(a, &b))
			return conf_perr(p, "bad yes/no value \"%.80s\"", a);
		*(bool *)field(p, d) = b;
		return 0;
	case T_LONG:
	case T_TIME:
		if (d->type == T_LONG ? parse_long(a, LONG_MIN, LONG_MAX, &v)
				      : conf_parse_time(a, &v))
			return conf_perr(p, d->type == T_LONG ? "bad number \"%.80s\""
							      : "bad time value \"%.80s\"", a);
		if (v < d->min || v > d->max)
			return conf_perr(p, "%s %.80s out of range (%ld to %ld%s)", d->name, a,
					 d->min, d->max, d->type == T_TIME ? " seconds" : "");
		*(long *)field(p, d) = v;
		return 0;
	case T_DELAY:
		if (parse_delay(a, &dv))
			return conf_perr(p, "bad time value \"%.80s\"", a);
		if (dv < (double)d->min || dv > (double)d->max)
			return conf_perr(p, "%s %.80s out of range (%ld to %ld seconds)", d->name,
					 a, d->min, d->max);
		*(double *)field(p, d) = dv;
		return 0;
	case T_STR:
	case T_PATH:
		if (!*a)
			return conf_perr(p, "%s wants a value, not \"\"", d->name);
		if (d->type == T_STR)
			*(char **)field(p, d) = conf_pool_dup(p->c, a);
		else
			*(char **)field(p, d) = conf_pool_take(p->c, conf_join_path(p->dir, a));
		return 0;
	case T_FILTER:
		for (i = 0; i < argc; i++)
			if (conf_add_filter(p, (enum conf_filter_kind)d->def, argv[i]))
				return -1;
		return 0;
	case T_FIXED:
		if (parse_bool(a, &b))
			return conf_perr(p, "bad yes/no value \"%.80s\"", a);
		if (b != (d->def != 0))
			return conf_perr(p, "mpseek supports only \"%s %s\"", d->name,
					 d->def ? "yes" : "no");
		return 0;
	case T_IGNORE:
		warning("%s:%d: %s is accepted for ASPseek compatibility and ignored", p->file,
		      p->line, d->name);
		return 0;
	case T_UNSUPPORTED:
		return conf_perr(p, "%s is not supported by mpseek: %s", d->name, d->sdef);
	case T_FN:
		return d->fn(p, d, argc, argv);
	}
	return 0;
}

int conf_apply_defaults(struct parser *p)
{
	struct conf *c = p->c;
	const char *env = getenv("MPSEEK_DATADIR");
	size_t i;

	for (i = 0; i < conf_n_directives; i++) {
		const struct directive *d = &conf_directives[i];
		if (d->where == W_NONE || d->type == T_UNSUPPORTED)
			continue;
		switch (d->type) {
		case T_BOOL:
			*(bool *)field(p, d) = d->def != 0;
			break;
		case T_LONG:
		case T_TIME:
			*(long *)field(p, d) = d->def;
			break;
		case T_DELAY:
			*(double *)field(p, d) = (double)d->def;
			break;
		default:
			if (d->sdef)
				*(char **)field(p, d) = conf_pool_dup(c, d->sdef);
			break;
		}
	}
	/* Defaults no single directive owns. */
	c->debug_level = LOG_INFO;
	c->user_agent = conf_pool_dup(c, "mpseek/" PACKAGE_VERSION);
	c->pagerank_damping = 0.85;
	c->pagerank_tolerance = 1e-9;
	c->seen_bloom_fp = 0.01;
	c->section_weight[0] = 1;   /* body */
	c->section_weight[1] = 2;   /* description */
	c->section_weight[2] = 3;   /* keywords */
	c->section_weight[3] = 5;   /* title */
	c->bm25_k1 = 2.0;
	c->bm25_b = 0.75;
	c->phrase_boost = 1.0;
	c->proximity_boost = 2.0;
	c->pagerank_weight = 0.5;
	c->title_match_boost = 1000;
	c->stem_weight = 0.3;
	c->boilerplate_weight = 0.1;
	c->boilerplate_share = 0.5;
	c->anchor_weight = 2;
	if (env && *env) {
		char cwd[PATH_MAX];
		if (env[0] != '/' && !getcwd(cwd, sizeof(cwd)))
			return conf_perr(p, "cannot resolve MPSEEK_DATADIR: %s", strerror(errno));
		c->data_dir = conf_pool_take(c, conf_join_path(env[0] == '/' ? "/" : cwd, env));
	} else {
		c->data_dir = conf_pool_dup(c, DEFAULT_DATA_DIR);
	}
	return 0;
}
