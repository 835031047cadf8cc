/* conf.c - one directive table drives etc/mpseek.conf, etc/searchd.conf and
 * the <!--variables--> block of etc/s.htm into one immutable struct conf.
 * Owns the syntax, defaults, range checks, the URL filter chain and the
 * Server lookup; not URL normalisation (url.c), not reading stopword lists.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "log.h"
#include "util.h"

/* Bytes of the offending line quoted in an error message. */
#define MAX_SHOWN_LINE 200
/* PCRE2 limits per URL match: a pathological filter must not stall a rank. */
#define FILTER_MATCH_LIMIT 1000000
#define FILTER_DEPTH_LIMIT 10000

#define MINUTE 60L
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)
#define MONTH (30 * DAY)
#define YEAR (365 * DAY)

#define DEFAULT_DATA_DIR "/var/lib/mpseek"
#define DEFAULT_SEARCHD_PORT 12345
#define DEFAULT_PROXY_PORT 3128

enum dtype {
	T_BOOL,        /* yes|no|on|off|1|0 into a bool */
	T_LONG,        /* decimal in [min, max] into a long */
	T_TIME,        /* time value (conf_parse_time) in [min, max] seconds */
	T_DELAY,       /* decimal seconds ("0.5") or a time value, into a double */
	T_STR,         /* one argument, copied */
	T_PATH,        /* one argument, resolved against the file's directory */
	T_FILTER,      /* one or more regexes; def is the enum conf_filter_kind */
	T_FIXED,       /* ASPseek storage flag: only the value in def is accepted */
	T_IGNORE,      /* ASPseek tuning knob with no meaning here: accepted */
	T_UNSUPPORTED, /* ASPseek directive mpseek refuses; sdef says why */
	T_FN,          /* special handler */
};

enum where { W_NONE, W_CONF, W_PARAMS };

struct parser;
struct directive;
typedef int (*handler_fn)(struct parser *p, const struct directive *d, int argc, char **argv);

struct directive {
	const char *name;
	unsigned kinds;   /* bit (1 << enum conf_kind) per file it is valid in */
	enum dtype type;
	enum where where; /* struct conf or the sticky struct conf_server_params */
	size_t off;
	long def, min, max;
	int amin, amax;   /* argument count; amax < 0 = no upper limit */
	handler_fn fn;
	bool raw;         /* takes the rest of the line as one argument, unsplit */
	const char *sdef; /* string default (or T_UNSUPPORTED's reason) */
};

#define IDX (1u << CONF_INDEXER)
#define SRD (1u << CONF_SEARCHD)
#define TPL (1u << CONF_TEMPLATE)
#define ANY (IDX | SRD | TPL)
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
static int d_proxy(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_authbasic(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_stopword(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_httpheader(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_bandwidth(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_dblisten(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_listen(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_allowfrom(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_daemon(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_errtext(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_pagerank(struct parser *p, const struct directive *d, int argc, char **argv);
static int d_ranking(struct parser *p, const struct directive *d, int argc, char **argv);

/* The vocabulary (reference/aspseek.md §2).  A name may appear twice with
 * different kinds (Clones is a crawl switch in mpseek.conf and a display
 * switch in s.htm).  Documented one by one in doc/CONFIG.md. */
static const struct directive directives[] = {
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
	 * lengths and stopwords are read by both (ASPseek §2.2). */
	LONG("MinWordLength", IDX | SRD, C(min_word_length), 1, 1, MAX_WORD_LEN),
	LONG("MaxWordLength", IDX | SRD, C(max_word_length), 32, 1, MAX_WORD_LEN),
	FN("StopwordFile", IDX | SRD, 1, 2, d_stopword),
	RAW("HTTPHeader", IDX, d_httpheader),
	FN("MaxBandwidth", IDX, 1, 3, d_bandwidth),
	LONG("DeltaBufferSize", IDX, C(delta_buffer_size), 1024, 4, 65536),
	BOOL("Clones", IDX, C(clones), 1),
	BOOL("DeleteNoServer", IDX, C(delete_no_server), 1),
	TIME("AddressExpiry", IDX, C(address_expiry), HOUR, 0, 30 * DAY),
	LONG("NextDocLimit", IDX, C(next_doc_limit), 1000, 1, 1000000),
	LONG("DBConnectionsPerRank", IDX, C(db_connections), 2, 1, 64),
	LONG("ClaimBatchSize", IDX, C(claim_batch), 0, 0, 100000),
	LONG("IndexThreads", IDX, C(index_threads), 2, 0, 64),
	TIME("LeaseTime", IDX, C(lease_time), 15 * MINUTE, MINUTE, 30 * DAY),
	LONG("CloneTableEntries", IDX, C(clone_table_entries), CLONE_TABLE_ENTRIES, 0,
	     MAX_CLONE_TABLE_ENTRIES),
	FN("EmbeddedDBListen", IDX, 1, 1, d_dblisten),
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
	LONG("MaxDocsAtOnce", IDX, P(max_docs_at_once), 1, 1, 1000),
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
	UNSUP("WordForms", "ispell forms are not supported"),
	UNSUP("SiteWeight", "ranking uses PageRank"),
	UNSUP("AccountDistance", "ranking has its own proximity boost"),
	UNSUP("Cache", "the result cache is not supported"),
	UNSUP("CacheLocalSize", "the result cache is not supported"),
	UNSUP("CachedUrls", "the result cache is not supported"),
};

#define N_DIRECTIVES ARRAY_SIZE(directives)

struct loc {
	const char *file;
	int line;
};

struct parser {
	struct conf *c;
	unsigned flags;
	struct buf *err;
	struct conf_server_params cur; /* globals in force: each Server copies them */
	char *auth_next;               /* AuthBasic waiting for its Server (pooled) */
	const char *file;              /* current file, as shown in messages (in c->files) */
	char *dir;                     /* its directory, absolute (malloc'd) */
	int line;                      /* first physical line of the current logical line */
	const char *text;              /* the current logical line, trimmed, or NULL */
	int depth;
	struct { dev_t dev; ino_t ino; } open[MAX_CONF_DEPTH]; /* files being read */
	struct loc last[N_DIRECTIVES]; /* where each directive was last seen */
	struct loc db_split;           /* first legacy DBHost/DBName/... line */
	bool failed;
};

static const char *const kind_files[] = { "mpseek.conf", "searchd.conf", "s.htm" };

/* ---- small helpers ------------------------------------------------------ */

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f' || ch == '\r';
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_alnum(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static char lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
}

/* Make room for element n of an array whose capacity is implicit: 8, then
 * doubled each time n reaches a power of two. */
static void *grow_array(void *arr, size_t n, size_t size)
{
	if (n == 0)
		return xrealloc(arr, 8 * size);
	if (n >= 8 && (n & (n - 1)) == 0)
		return xrealloc(arr, 2 * n * size);
	return arr;
}

/* A string owned by c, freed by conf_free(). */
static char *pool_take(struct conf *c, char *s)
{
	c->pool = grow_array(c->pool, c->n_pool, sizeof(*c->pool));
	c->pool[c->n_pool++] = s;
	return s;
}

static char *pool_dup(struct conf *c, const char *s)
{
	return pool_take(c, xstrdup(s));
}

static void push_str(char ***arr, size_t *n, char *s)
{
	*arr = grow_array(*arr, *n, sizeof(**arr));
	(*arr)[(*n)++] = s;
}

/* dir + "/" + rel (or rel if absolute), with "//", "." and ".." collapsed
 * lexically.  dir is absolute.  Returns malloc'd. */
static char *join_path(const char *dir, const char *rel)
{
	char *full = rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", dir, rel);
	char *out = xmalloc(strlen(full) + 2);
	const char *s = full;
	size_t o = 0;

	while (*s) {
		const char *e;
		size_t n;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		if (!e)
			e = s + strlen(s);
		n = (size_t)(e - s);
		if (n == 1 && s[0] == '.') {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else {
			out[o++] = '/';
			memcpy(out + o, s, n);
			o += n;
		}
		s = e;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(full);
	return out;
}

/* The absolute directory holding `path`; NULL if the cwd is unknown. */
static char *abs_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir, *res;
	char cwd[PATH_MAX];

	if (!slash)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	if (dir[0] == '/') {
		res = join_path("/", dir);
	} else if (getcwd(cwd, sizeof(cwd))) {
		res = join_path(cwd, dir);
	} else {
		res = NULL;
	}
	free(dir);
	return res;
}

/* ---- error messages ----------------------------------------------------- */

/* Record "file:line: what: the line" in p->err (the first error only) and
 * return -1.  The message is forced onto one line. */
static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(struct parser *p, const char *fmt, ...)
{
	struct buf m = BUF_INIT(MAX_LOG_LINE);
	va_list ap;
	size_t i, n;

	if (p->failed)
		return -1;
	p->failed = true;
	if (!p->err)
		return -1;
	if (p->line > 0)
		buf_printf(&m, "%.512s:%d: ", p->file, p->line);
	else
		buf_printf(&m, "%.512s: ", p->file);
	va_start(ap, fmt);
	buf_vprintf(&m, fmt, ap);
	va_end(ap);
	if (p->text) {
		n = strlen(p->text);
		buf_adds(&m, ": ");
		buf_add(&m, p->text, n > MAX_SHOWN_LINE ? MAX_SHOWN_LINE : n);
		if (n > MAX_SHOWN_LINE)
			buf_adds(&m, "...");
	}
	for (i = 0; i < m.len; i++)
		if ((unsigned char)m.ptr[i] < 0x20 || m.ptr[i] == 0x7f)
			m.ptr[i] = '?';
	buf_reset(p->err);
	n = m.len;
	if (p->err->max < n)
		n = p->err->max;
	buf_add(p->err, buf_str(&m), n);
	buf_free(&m);
	return -1;
}

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

/* ---- the Server index --------------------------------------------------- */

/* Length of "scheme://authority" in url; 0 if it has no "://". */
static size_t site_len(const char *url)
{
	const char *s = strstr(url, "://");

	if (!s)
		return 0;
	s += 3;
	s += strcspn(s, "/?#");
	return (size_t)(s - url);
}

static size_t site_hash(const char *url, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)lower(url[i]);
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

static bool same_site(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && !ascii_ncasecmp(a, b, an);
}

static void index_insert(size_t *tab, size_t size, const struct conf_server *servers, size_t i)
{
	const char *u = servers[i].url;
	size_t h = site_hash(u, site_len(u)) & (size - 1);

	while (tab[h])
		h = (h + 1) & (size - 1);
	tab[h] = i + 1;
}

/* Keep the load factor under 1/2 so a probe always ends on an empty slot. */
static void index_add(struct conf *c, size_t i)
{
	if ((i + 1) * 2 > c->server_index_size) {
		size_t size = c->server_index_size ? c->server_index_size * 2 : 16;
		size_t *tab = xcalloc(size, sizeof(*tab));

		for (size_t k = 0; k < i; k++)
			index_insert(tab, size, c->servers, k);
		free(c->server_index);
		c->server_index = tab;
		c->server_index_size = size;
	}
	index_insert(c->server_index, c->server_index_size, c->servers, i);
}

const struct conf_server *conf_server_for(const struct conf *c, const char *url)
{
	const struct conf_server *best = NULL;
	size_t n, h, best_len = 0;
	const char *rest;

	if (!c || !c->server_index || !url)
		return NULL;
	n = site_len(url);
	if (!n)
		return NULL;
	rest = url[n] ? url + n : "/";
	h = site_hash(url, n) & (c->server_index_size - 1);
	for (; c->server_index[h]; h = (h + 1) & (c->server_index_size - 1)) {
		const struct conf_server *s = &c->servers[c->server_index[h] - 1];
		size_t sn = site_len(s->url), rn;
		const char *srest = s->url + sn;

		if (!same_site(s->url, sn, url, n))
			continue;
		rn = strlen(srest);
		if (strncmp(rest, srest, rn))
			continue;
		/* a prefix ends at a path boundary: /a covers /a/b, not /ab */
		if (rn && srest[rn - 1] != '/' && rest[rn] && !strchr("/?#", rest[rn]))
			continue;
		if (!best || rn + 1 > best_len) {
			best = s;
			best_len = rn + 1;
		}
	}
	return best;
}

const struct conf_server_params *conf_params_for(const struct conf *c, const char *url)
{
	const struct conf_server *s = conf_server_for(c, url);
	return s ? &s->p : &c->defaults;
}

/* ---- filters ------------------------------------------------------------ */

enum conf_verdict conf_filter_url(const struct conf *c, const char *url)
{
	enum conf_verdict v = VERDICT_ALLOW;
	pcre2_match_data *md;
	size_t len, i;

	if (!url)
		return VERDICT_DISALLOW;
	if (!c || !c->n_filters)
		return VERDICT_ALLOW;
	md = pcre2_match_data_create(1, NULL);
	if (!md)
		return VERDICT_DISALLOW;
	len = strlen(url);
	for (i = 0; i < c->n_filters; i++) {
		const struct conf_filter *f = &c->filters[i];
		int rc = pcre2_match(f->re, (PCRE2_SPTR)url, len, 0, 0, md, c->match_ctx);
		bool hit;

		if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
			v = VERDICT_DISALLOW; /* match limit: refuse rather than guess */
			break;
		}
		hit = rc >= 0;
		switch (f->kind) {
		case FILTER_ALLOW_NOMATCH:
		case FILTER_DISALLOW_NOMATCH:
		case FILTER_CHECKONLY_NOMATCH:
			hit = !hit;
			break;
		default:
			break;
		}
		if (!hit)
			continue;
		switch (f->kind) {
		case FILTER_ALLOW:
		case FILTER_ALLOW_NOMATCH:
			v = VERDICT_ALLOW;
			break;
		case FILTER_DISALLOW:
		case FILTER_DISALLOW_NOMATCH:
			v = VERDICT_DISALLOW;
			break;
		case FILTER_CHECKONLY:
		case FILTER_CHECKONLY_NOMATCH:
			v = VERDICT_CHECKONLY;
			break;
		}
		break;
	}
	pcre2_match_data_free(md);
	return v;
}

static int add_filter(struct parser *p, enum conf_filter_kind kind, const char *pattern)
{
	struct conf *c = p->c;
	struct conf_filter *f;
	pcre2_code *re;
	PCRE2_SIZE eoff;
	int ecode;

	if (!c->match_ctx) {
		pcre2_match_context *mc = pcre2_match_context_create(NULL);
		if (!mc)
			return perr(p, "out of memory");
		pcre2_set_match_limit(mc, FILTER_MATCH_LIMIT);
		pcre2_set_depth_limit(mc, FILTER_DEPTH_LIMIT);
		c->match_ctx = mc;
	}
	/* Bytes, not UTF: URLs are percent-encoded ASCII in practice, and a
	 * stray byte must not make the pattern fail to match. */
	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS, &ecode,
			   &eoff, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ecode, msg, sizeof(msg));
		return perr(p, "bad regex \"%.80s\": %s at offset %zu", pattern, (char *)msg,
			    (size_t)eoff);
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* best effort: the interpreter also works */
	c->filters = grow_array(c->filters, c->n_filters, sizeof(*c->filters));
	f = &c->filters[c->n_filters++];
	f->kind = kind;
	f->pattern = pool_dup(c, pattern);
	f->re = re;
	f->file = p->file;
	f->line = p->line;
	return 0;
}

/* ---- handlers ----------------------------------------------------------- */

static void *field(struct parser *p, const struct directive *d)
{
	char *base = d->where == W_PARAMS ? (char *)&p->cur : (char *)p->c;
	return base + d->off;
}

static int load_file(struct parser *p, const char *path, const char *shown, bool top, bool vars);

static int d_include(struct parser *p, const struct directive *d, int argc, char **argv)
{
	const char *slash = strrchr(p->file, '/');
	char *path, *shown;
	int rc;

	UNUSED(d);
	UNUSED(argc);
	if (p->flags & CONF_NO_FILES)
		return perr(p, "Include is disabled here");
	path = join_path(p->dir, argv[0]);
	/* Messages name an included file the way the user would: next to
	 * the including file as that one is named. */
	if (argv[0][0] == '/' || !slash)
		shown = xstrdup(argv[0]);
	else
		shown = xasprintf("%.*s/%s", (int)(slash - p->file), p->file, argv[0]);
	rc = load_file(p, path, shown, false, false);
	free(path);
	free(shown);
	return rc;
}

static int set_dbname(struct parser *p, const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return perr(p, "bad DBAddr: missing database name");
	if (n > 64)
		return perr(p, "database name longer than 64 characters");
	/* The name goes into CREATE DATABASE statements: keep it an identifier. */
	for (i = 0; i < n; i++)
		if (!is_alnum(s[i]) && s[i] != '_' && s[i] != '$')
			return perr(p, "database name \"%.*s\" may hold only letters, digits, _ and $",
				    (int)n, s);
	p->c->db.name = pool_take(p->c, xstrndup(s, n));
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
			return perr(p, "bad DBAddr: only mysql:// is supported");
		return perr(p, "bad DBAddr: want mysql://[user[:pass]@]host[:port]/dbname/");
	}
	memset(&c->db, 0, sizeof(c->db));
	s += 8;
	slash = strchr(s, '/');
	if (!slash)
		return perr(p, "bad DBAddr: missing database name");
	at = memrchr(s, '@', (size_t)(slash - s));
	h = s;
	if (at) {
		const char *colon = memchr(s, ':', (size_t)(at - s));
		const char *ue = colon ? colon : at;

		user = pct_decode(s, (size_t)(ue - s));
		if (colon)
			pass = pct_decode(colon + 1, (size_t)(at - colon - 1));
		if (!user || (colon && !pass)) {
			free(user);
			free(pass);
			return perr(p, "bad DBAddr: bad %%-escape in user or password");
		}
		c->db.user = pool_take(c, user);
		if (pass)
			c->db.pass = pool_take(c, pass);
		h = at + 1;
	}
	/* host[:port], IPv6 in brackets */
	he = slash;
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(slash - h));
		if (!rb)
			return perr(p, "bad DBAddr: unterminated [IPv6] host");
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
			return perr(p, "bad DBAddr: bad port");
		memcpy(portbuf, he + 1, pn);
		portbuf[pn] = '\0';
		if (parse_long(portbuf, 1, 65535, &port))
			return perr(p, "bad DBAddr: bad port \"%s\"", portbuf);
		c->db.port = (int)port;
	}
	if (he > h) {
		const char *hs = *h == '[' ? h + 1 : h;
		size_t hn = (size_t)(he - h) - (*h == '[' ? 2 : 0);
		if (*h != '[' && !is_hostname(hs, hn))
			return perr(p, "bad DBAddr: bad host \"%.*s\"", (int)(he - h), h);
		c->db.host = pool_take(c, xstrndup(hs, hn));
	}
	name = slash + 1;
	ne = name + strcspn(name, "/?");
	if (set_dbname(p, name, (size_t)(ne - name)))
		return -1;
	if (*ne == '/')
		ne++;
	if (*ne == '?') {
		if (strncmp(ne, "?socket=", 8))
			return perr(p, "bad DBAddr: the only option is ?socket=/path");
		if (ne[8] != '/')
			return perr(p, "bad DBAddr: the socket path must be absolute");
		c->db.socket = pool_dup(c, ne + 8);
	} else if (*ne) {
		return perr(p, "bad DBAddr: unexpected \"%.40s\" after the database name", ne);
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
			return perr(p, "only DBType mysql is supported");
		return 0;
	}
	if (!p->db_split.file) {
		p->db_split.file = p->file;
		p->db_split.line = p->line;
	}
	switch (d->def) {
	case DB_HOST:
		if (!is_hostname(v, strlen(v)) && !is_ip(v, &(int){ 0 }))
			return perr(p, "bad host \"%.80s\"", v);
		c->db.host = pool_dup(c, v);
		break;
	case DB_NAME:
		if (set_dbname(p, v, strlen(v)))
			return -1;
		break;
	case DB_USER:
		c->db.user = pool_dup(c, v);
		break;
	case DB_PASS:
		c->db.pass = pool_dup(c, v);
		break;
	case DB_PORT:
		if (parse_long(v, 1, 65535, &port))
			return perr(p, "bad port \"%.80s\"", v);
		c->db.port = (int)port;
		break;
	case DB_SOCK:
		if (v[0] != '/')
			return perr(p, "the socket path must be absolute");
		c->db.socket = pool_dup(c, v);
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
		return perr(p, "bad DebugLevel \"%.80s\" (none, error, warning, info or debug)",
			    argv[0]);
	p->c->debug_level = level;
	return 0;
}

static int d_server(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	const char *url = argv[0], *host;
	struct conf_server *s;
	size_t n, sn;

	UNUSED(d);
	UNUSED(argc);
	if (!ascii_ncasecmp(url, "http://", 7))
		host = url + 7;
	else if (!ascii_ncasecmp(url, "https://", 8))
		host = url + 8;
	else
		return perr(p, "Server URL must start with http:// or https://");
	if (strlen(url) > MAX_URL_LEN)
		return perr(p, "Server URL longer than %d bytes", MAX_URL_LEN);
	for (const char *q = url; *q; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return perr(p, "Server URL holds a blank or a control character");
	n = strcspn(host, "/?#");
	if (n == 0 || host[0] == ':' || host[0] == '@')
		return perr(p, "Server URL has no host");
	sn = site_len(url);
	if (c->server_index) {
		size_t h = site_hash(url, sn) & (c->server_index_size - 1);
		for (; c->server_index[h]; h = (h + 1) & (c->server_index_size - 1)) {
			const struct conf_server *o = &c->servers[c->server_index[h] - 1];
			size_t on = site_len(o->url);
			if (same_site(o->url, on, url, sn) && !strcmp(o->url + on, url + sn))
				return perr(p, "duplicate Server (first at %s:%d)", o->file, o->line);
		}
	}
	c->servers = grow_array(c->servers, c->n_servers, sizeof(*c->servers));
	s = &c->servers[c->n_servers];
	s->url = pool_dup(c, url);
	s->file = p->file;
	s->line = p->line;
	s->p = p->cur;
	s->auth_basic = p->auth_next;
	p->auth_next = NULL;
	index_add(c, c->n_servers);
	c->n_servers++;
	return 0;
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
		return perr(p, "bad proxy \"%.80s\" (want host[:port])", argv[0]);
	p->cur.proxy = pool_take(p->c, norm);
	return 0;
}

static int d_authbasic(struct parser *p, const struct directive *d, int argc, char **argv)
{
	UNUSED(d);
	UNUSED(argc);
	if (!strchr(argv[0], ':'))
		return perr(p, "AuthBasic wants user:password");
	p->auth_next = pool_dup(p->c, argv[0]);
	return 0;
}

static int d_stopword(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	const char *file = argv[argc - 1];
	char *path = join_path(p->dir, file);
	size_t n = c->n_stopword_files;

	UNUSED(d);
	if (!(p->flags & CONF_NO_FILES) && access(path, R_OK)) {
		int e = errno;
		free(path);
		return perr(p, "cannot read stopword file \"%.200s\": %s", file, strerror(e));
	}
	c->stopword_files = grow_array(c->stopword_files, n, sizeof(char *));
	c->stopword_langs = grow_array(c->stopword_langs, n, sizeof(char *));
	c->stopword_files[n] = pool_take(c, path);
	c->stopword_langs[n] = argc == 2 ? pool_dup(c, argv[0]) : NULL;
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
		return perr(p, "HTTPHeader wants \"Name: value\"");
	for (i = 0; s + i < colon; i++)
		if (!is_tchar(s[i]))
			return perr(p, "bad HTTP header name \"%.*s\"", (int)(colon - s), s);
	for (v = colon + 1; v < s + n && is_ws(*v); v++)
		;
	for (e = s + n; e > v && is_ws(e[-1]); e--)
		;
	if (e == v)
		return perr(p, "HTTPHeader has an empty value");
	for (i = 0; v + i < e; i++)
		if (((unsigned char)v[i] < 0x20 && v[i] != '\t') || v[i] == 0x7f)
			return perr(p, "HTTPHeader value holds a control character");
	if ((size_t)(colon - s) == 10 && !ascii_ncasecmp(s, "User-Agent", 10)) {
		c->user_agent = pool_take(c, xstrndup(v, (size_t)(e - v)));
		return 0;
	}
	push_str(&c->http_headers, &c->n_http_headers,
		 pool_take(c, xasprintf("%.*s: %.*s", (int)(colon - s), s, (int)(e - v), v)));
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
		return perr(p, "bad byte rate \"%.80s\"", argv[0]);
	for (i = 1; i < argc; i++) {
		if (conf_parse_time(argv[i], ends[i - 1]))
			return perr(p, "bad time value \"%.80s\"", argv[i]);
		if (*ends[i - 1] < 0 || *ends[i - 1] > DAY)
			return perr(p, "time of day \"%.80s\" out of range (0 to 86400 seconds)",
				    argv[i]);
	}
	c->bandwidth = grow_array(c->bandwidth, c->n_bandwidth, sizeof(*c->bandwidth));
	c->bandwidth[c->n_bandwidth++] = bw;
	return 0;
}

/* PageRankDamping (0 < d < 1) and PageRankTolerance (1e-15 to 1): decimal
 * numbers, which the table has no type for. */
static int d_pagerank(struct parser *p, const struct directive *d, int argc, char **argv)
{
	char *end;
	double v;

	UNUSED(argc);
	errno = 0;
	v = strtod(argv[0], &end);
	if (errno || end == argv[0] || *end || !isfinite(v))
		return perr(p, "%s wants a number, not \"%.80s\"", d->name, argv[0]);
	if (d->def == 0) {
		if (!(v > 0 && v < 1))
			return perr(p, "PageRankDamping %.80s out of range (between 0 and 1)", argv[0]);
		p->c->pagerank_damping = v;
	} else {
		if (!(v >= 1e-15 && v <= 1))
			return perr(p, "PageRankTolerance %.80s out of range (1e-15 to 1)", argv[0]);
		p->c->pagerank_tolerance = v;
	}
	return 0;
}

/* The ranking parameters of searchd.conf (doc/SEARCH.md): decimal numbers
 * in [0, 1e6]; BM25B in [0, 1]; BM25K1 above 0. */
static int d_ranking(struct parser *p, const struct directive *d, int argc, char **argv)
{
	char *end;
	double v, *f;

	UNUSED(argc);
	errno = 0;
	v = strtod(argv[0], &end);
	if (errno || end == argv[0] || *end || !isfinite(v) || v < 0 || v > 1e6)
		return perr(p, "%s wants a number from 0 to 1000000, not \"%.80s\"", d->name,
			    argv[0]);
	switch (d->def) {
	case 0: case 1: case 2: case 3: f = &p->c->section_weight[d->def]; break;
	case 4:
		if (v <= 0)
			return perr(p, "BM25K1 must be above 0");
		f = &p->c->bm25_k1;
		break;
	case 5:
		if (v > 1)
			return perr(p, "BM25B must be between 0 and 1");
		f = &p->c->bm25_b;
		break;
	case 6: f = &p->c->phrase_boost; break;
	case 7: f = &p->c->proximity_boost; break;
	case 8: f = &p->c->pagerank_weight; break;
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
		return perr(p, "EmbeddedDBListen wants host:port");
	p->c->db_listen = pool_take(p->c, norm);
	p->c->db_listen_tcp = true;
	return 0;
}

static int d_listen(struct parser *p, const struct directive *d, int argc, char **argv)
{
	int bits;

	UNUSED(argc);
	if (!is_ip(argv[0], &bits) && !is_hostname(argv[0], strlen(argv[0])))
		return perr(p, "bad listen address \"%.80s\"", argv[0]);
	*(char **)field(p, d) = pool_dup(p->c, argv[0]);
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
				return perr(p, "bad address \"%.80s\"", a);
			memcpy(ip, a, (size_t)(slash - a));
			ip[slash - a] = '\0';
			if (!is_ip(ip, &bits))
				return perr(p, "bad address \"%.80s\" in %.80s", ip, a);
			if (parse_long(slash + 1, 0, bits, &prefix))
				return perr(p, "bad prefix length in \"%.80s\" (0 to %d)", a, bits);
		} else if (!is_ip(a, &bits) && !is_hostname(a, strlen(a))) {
			return perr(p, "bad address \"%.80s\" (want ip, ip/bits or host name)", a);
		}
		push_str(&c->allow_from, &c->n_allow_from, pool_dup(c, a));
	}
	return 0;
}

static int d_daemon(struct parser *p, const struct directive *d, int argc, char **argv)
{
	char *norm;

	UNUSED(d);
	UNUSED(argc);
	if (parse_hostport(argv[0], DEFAULT_SEARCHD_PORT, &norm))
		return perr(p, "bad DaemonAddress \"%.80s\" (want host[:port])", argv[0]);
	push_str(&p->c->daemon_addresses, &p->c->n_daemon_addresses, pool_take(p->c, norm));
	return 0;
}

static int d_errtext(struct parser *p, const struct directive *d, int argc, char **argv)
{
	struct conf *c = p->c;
	size_t i, n = c->n_errors;

	UNUSED(argc);
	for (i = 0; i < n; i++) {
		if (!strcmp(c->error_names[i], d->name)) {
			c->error_texts[i] = pool_dup(c, argv[0]);
			return 0;
		}
	}
	c->error_names = grow_array(c->error_names, n, sizeof(char *));
	c->error_texts = grow_array(c->error_texts, n, sizeof(char *));
	c->error_names[n] = pool_dup(c, d->name);
	c->error_texts[n] = pool_dup(c, argv[0]);
	c->n_errors++;
	return 0;
}

/* ---- lines -------------------------------------------------------------- */

/* Cut a '#' comment (at the start or after whitespace, outside quotes). */
static void strip_comment(char *s)
{
	bool quoted = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (quoted) {
			if (s[i] == '\\' && s[i + 1])
				i++;
			else if (s[i] == '"')
				quoted = false;
			continue;
		}
		if (i > 0 && !is_ws(s[i - 1]))
			continue;
		if (s[i] == '"') {
			quoted = true;
		} else if (s[i] == '#') {
			s[i] = '\0';
			return;
		}
	}
}

/* Split s into whitespace-separated arguments written to out; a "quoted
 * argument" may hold spaces, \" is a quote, other backslashes are kept for
 * the regex engine. */
static int tokenize(struct parser *p, const char *s, char *out, char **argv, int *argc)
{
	int n = 0;

	for (;;) {
		while (is_ws(*s))
			s++;
		if (!*s)
			break;
		argv[n++] = out;
		if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				if (*s == '\\' && s[1] == '"')
					s++;
				else if (*s == '\\' && s[1])
					*out++ = *s++;
				*out++ = *s;
			}
			if (!*s)
				return perr(p, "unterminated quoted argument");
			s++;
			if (*s && !is_ws(*s))
				return perr(p, "text after a closing quote");
		} else {
			while (*s && !is_ws(*s))
				*out++ = *s++;
		}
		*out++ = '\0';
	}
	*argc = n;
	return 0;
}

static const struct directive *lookup(const char *name, size_t n, enum conf_kind kind,
				      unsigned *other_kinds)
{
	size_t i;

	*other_kinds = 0;
	for (i = 0; i < N_DIRECTIVES; i++) {
		const struct directive *d = &directives[i];
		if (strlen(d->name) != n || ascii_ncasecmp(d->name, name, n))
			continue;
		if (d->kinds & (1u << kind))
			return d;
		*other_kinds |= d->kinds;
	}
	return NULL;
}

static void kinds_text(unsigned kinds, char *out, size_t size)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(kind_files); i++) {
		if (!(kinds & (1u << i)))
			continue;
		o += (size_t)snprintf(out + o, size - o, "%s%s", o ? " or " : "", kind_files[i]);
		if (o >= size)
			break;
	}
}

static int check_argc(struct parser *p, const struct directive *d, int argc)
{
	if (argc >= d->amin && (d->amax < 0 || argc <= d->amax))
		return 0;
	if (d->amax == 0)
		return perr(p, "%s takes no argument", d->name);
	if (d->amax < 0)
		return perr(p, "%s needs at least %d argument%s", d->name, d->amin,
			    d->amin == 1 ? "" : "s");
	if (d->amin == d->amax)
		return perr(p, "%s takes %d argument%s, got %d", d->name, d->amin,
			    d->amin == 1 ? "" : "s", argc);
	return perr(p, "%s takes %d to %d arguments, got %d", d->name, d->amin, d->amax, argc);
}

static int apply(struct parser *p, const struct directive *d, int argc, char **argv)
{
	const char *a = argv ? argv[0] : NULL;
	long v;
	bool b;
	double dv;
	int i;

	switch (d->type) {
	case T_BOOL:
		if (parse_bool(a, &b))
			return perr(p, "bad yes/no value \"%.80s\"", a);
		*(bool *)field(p, d) = b;
		return 0;
	case T_LONG:
	case T_TIME:
		if (d->type == T_LONG ? parse_long(a, LONG_MIN, LONG_MAX, &v)
				      : conf_parse_time(a, &v))
			return perr(p, d->type == T_LONG ? "bad number \"%.80s\""
							: "bad time value \"%.80s\"", a);
		if (v < d->min || v > d->max)
			return perr(p, "%s %.80s out of range (%ld to %ld%s)", d->name, a, d->min,
				    d->max, d->type == T_TIME ? " seconds" : "");
		*(long *)field(p, d) = v;
		return 0;
	case T_DELAY:
		if (parse_delay(a, &dv))
			return perr(p, "bad time value \"%.80s\"", a);
		if (dv < (double)d->min || dv > (double)d->max)
			return perr(p, "%s %.80s out of range (%ld to %ld seconds)", d->name, a,
				    d->min, d->max);
		*(double *)field(p, d) = dv;
		return 0;
	case T_STR:
	case T_PATH:
		if (!*a)
			return perr(p, "%s wants a value, not \"\"", d->name);
		if (d->type == T_STR)
			*(char **)field(p, d) = pool_dup(p->c, a);
		else
			*(char **)field(p, d) = pool_take(p->c, join_path(p->dir, a));
		return 0;
	case T_FILTER:
		for (i = 0; i < argc; i++)
			if (add_filter(p, (enum conf_filter_kind)d->def, argv[i]))
				return -1;
		return 0;
	case T_FIXED:
		if (parse_bool(a, &b))
			return perr(p, "bad yes/no value \"%.80s\"", a);
		if (b != (d->def != 0))
			return perr(p, "mpseek supports only \"%s %s\"", d->name,
				    d->def ? "yes" : "no");
		return 0;
	case T_IGNORE:
		debug("%s:%d: %s is accepted for ASPseek compatibility and ignored", p->file,
		      p->line, d->name);
		return 0;
	case T_UNSUPPORTED:
		return perr(p, "%s is not supported by mpseek: %s", d->name, d->sdef);
	case T_FN:
		return d->fn(p, d, argc, argv);
	}
	return 0;
}

/* One logical line (continuations joined), NUL-terminated and writable. */
static int do_line(struct parser *p, char *line, int lineno)
{
	char name[64], *rest, *e, *copy = NULL, **argv = NULL;
	const struct directive *d;
	unsigned other;
	size_t nlen;
	int argc = 0, rc = -1;

	strip_comment(line);
	while (is_ws(*line))
		line++;
	for (e = line + strlen(line); e > line && is_ws(e[-1]); e--)
		;
	*e = '\0';
	if (!*line)
		return 0;
	p->line = lineno;
	p->text = line;
	for (nlen = 0; line[nlen] && !is_ws(line[nlen]); nlen++)
		;
	for (rest = line + nlen; is_ws(*rest); rest++)
		;
	d = lookup(line, nlen, p->c->kind, &other);
	if (!d) {
		snprintf(name, sizeof(name), "%.*s", (int)nlen, line);
		if (other) {
			char where[64];
			kinds_text(other, where, sizeof(where));
			rc = perr(p, "%s belongs in %s, not in %s", name, where,
				  kind_files[p->c->kind]);
		} else {
			rc = perr(p, "unknown directive \"%s\"", name);
		}
		goto out;
	}
	p->last[d - directives].file = p->file;
	p->last[d - directives].line = lineno;
	if (d->raw) {
		copy = xstrdup(rest);
		argv = xmalloc(sizeof(*argv));
		argv[0] = copy;
		argc = *copy ? 1 : 0;
	} else {
		size_t n = strlen(rest);
		copy = xmalloc(n + 2);
		argv = xmalloc((n / 2 + 2) * sizeof(*argv));
		if (tokenize(p, rest, copy, argv, &argc))
			goto out;
	}
	if (check_argc(p, d, argc))
		goto out;
	rc = apply(p, d, argc, argv);
out:
	free(copy);
	free(argv);
	p->text = NULL;
	return rc;
}

/* A line ends in a continuation when it ends in an odd run of backslashes
 * ("\\" at the end is an escaped backslash of a regex). */
static bool continues(const char *s, const char *e)
{
	size_t n = 0;

	while (e > s && e[-1] == '\\') {
		e--;
		n++;
	}
	return n % 2 == 1;
}

/* Feed text line by line.  With `vars` only the lines of <!--variables ...
 * --> blocks are read (s.htm), keeping the file's real line numbers. */
static int parse_text(struct parser *p, const char *text, size_t len, bool vars)
{
	struct buf lb = BUF_INIT(MAX_CONF_LINE);
	const char *s = text, *end = text + len;
	int lineno = 0, start = 0, block_line = 0, rc = -1;
	bool cont = false, inside = !vars;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end, *next = nl ? nl + 1 : end, *q;
		bool closing = false, more;

		lineno++;
		if (e > s && e[-1] == '\r')
			e--;
		if (!inside) {
			for (q = s; q < e && is_ws(*q); q++)
				;
			if ((size_t)(e - q) < 13 || ascii_ncasecmp(q, "<!--variables", 13) ||
			    (q + 13 < e && !is_ws(q[13]) && q[13] != '-')) {
				s = next;
				continue;
			}
			inside = true;
			block_line = lineno;
			s = q + 13;
		}
		if (vars) {
			const char *close = memmem(s, (size_t)(e - s), "-->", 3);
			if (close) {
				e = close;
				closing = true;
			}
		}
		if (memchr(s, '\0', (size_t)(e - s))) {
			p->line = lineno;
			perr(p, "NUL byte in line");
			goto out;
		}
		for (q = s; q < e && is_ws(*q); q++)
			;
		if (q < e && *q == '#') {
			/* A comment line is skipped, even between continued
			 * lines, and never continues whatever it ends with. */
		} else {
			if (!cont) {
				start = lineno;
				buf_reset(&lb);
			}
			more = continues(s, e);
			if (buf_add(&lb, s, (size_t)(e - s - more))) {
				char *head = xstrndup(lb.len ? buf_str(&lb) : s,
						      lb.len ? lb.len : (size_t)(e - s));
				p->line = start;
				p->text = head;
				perr(p, "line longer than %d bytes", MAX_CONF_LINE);
				p->text = NULL;
				free(head);
				goto out;
			}
			cont = more;
			if (!cont && do_line(p, lb.ptr, start))
				goto out;
		}
		if (closing) {
			if (cont && do_line(p, lb.ptr, start))
				goto out;
			cont = false;
			inside = false;
		}
		s = next;
	}
	if (cont && do_line(p, lb.ptr, start))
		goto out;
	if (vars && inside) {
		p->line = block_line;
		perr(p, "<!--variables block has no closing -->");
		goto out;
	}
	rc = 0;
out:
	buf_free(&lb);
	return rc;
}

/* Read a whole regular file (at most MAX_CONF_FILE bytes).  On failure
 * returns -1 with *why set. */
static int read_all(const char *path, char **text, size_t *len, struct stat *st,
		    const char **why)
{
	struct buf b = BUF_INIT((size_t)MAX_CONF_FILE);
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 || fstat(fd, st)) {
		*why = strerror(errno);
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
		goto fail;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			*why = strerror(errno);
			goto fail;
		}
		if (buf_add(&b, chunk, (size_t)n)) {
			*why = "file larger than 16 MiB";
			goto fail;
		}
	}
	close(fd);
	*text = buf_detach(&b, len);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	buf_free(&b);
	return -1;
}

/* Read and parse one file, top level or Included from the current line;
 * `shown` names it in messages. */
static int load_file(struct parser *p, const char *path, const char *shown, bool top, bool vars)
{
	struct conf *c = p->c;
	const char *why = NULL, *saved_file = p->file, *saved_text = p->text;
	char *text = NULL, *saved_dir = p->dir, *dir = NULL, *name;
	int saved_line = p->line, rc = -1, i;
	struct stat st;
	size_t len;

	if (p->depth >= MAX_CONF_DEPTH)
		return perr(p, "Include nested deeper than %d files", MAX_CONF_DEPTH);
	if (read_all(path, &text, &len, &st, &why)) {
		if (top)
			return perr(p, "cannot read config: %s", why);
		return perr(p, "cannot read include file \"%.200s\": %s", shown, why);
	}
	for (i = 0; i < p->depth; i++) {
		if (p->open[i].dev == st.st_dev && p->open[i].ino == st.st_ino) {
			free(text);
			return perr(p, "Include loop: \"%.200s\" is already being read", shown);
		}
	}
	dir = abs_dir(path);
	if (!dir) {
		free(text);
		return perr(p, "cannot find the current directory: %s", strerror(errno));
	}
	name = xstrdup(shown);
	push_str(&c->files, &c->n_files, name);
	p->open[p->depth].dev = st.st_dev;
	p->open[p->depth].ino = st.st_ino;
	p->depth++;
	p->file = name;
	p->dir = dir;
	p->line = 0;
	p->text = NULL;
	rc = parse_text(p, text, len, vars);
	p->depth--;
	p->file = saved_file;
	p->dir = saved_dir;
	p->line = saved_line;
	p->text = saved_text;
	free(dir);
	free(text);
	return rc;
}

/* ---- load / free -------------------------------------------------------- */

static int apply_defaults(struct parser *p)
{
	struct conf *c = p->c;
	const char *env = getenv("MPSEEK_DATADIR");
	size_t i;

	for (i = 0; i < N_DIRECTIVES; i++) {
		const struct directive *d = &directives[i];
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
				*(char **)field(p, d) = pool_dup(c, d->sdef);
			break;
		}
	}
	/* Defaults no single directive owns. */
	c->debug_level = LOG_INFO;
	c->user_agent = pool_dup(c, "mpseek/" PACKAGE_VERSION);
	c->pagerank_damping = 0.85;
	c->pagerank_tolerance = 1e-9;
	c->section_weight[0] = 1;   /* body */
	c->section_weight[1] = 2;   /* description */
	c->section_weight[2] = 3;   /* keywords */
	c->section_weight[3] = 5;   /* title */
	c->bm25_k1 = 1.2;
	c->bm25_b = 0.75;
	c->phrase_boost = 1.0;
	c->proximity_boost = 2.0;
	c->pagerank_weight = 0.5;
	c->title_match_boost = 1000;
	if (env && *env) {
		char cwd[PATH_MAX];
		if (env[0] != '/' && !getcwd(cwd, sizeof(cwd)))
			return perr(p, "cannot resolve MPSEEK_DATADIR: %s", strerror(errno));
		c->data_dir = pool_take(c, join_path(env[0] == '/' ? "/" : cwd, env));
	} else {
		c->data_dir = pool_dup(c, DEFAULT_DATA_DIR);
	}
	return 0;
}

static size_t find_directive(const char *name, unsigned kinds)
{
	size_t i;

	for (i = 0; i < N_DIRECTIVES; i++)
		if (!strcmp(directives[i].name, name) && (directives[i].kinds & kinds))
			break;
	return i;
}

/* Checks that need the whole file. */
static int finish(struct parser *p)
{
	struct conf *c = p->c;

	if (c->min_word_length > c->max_word_length) {
		struct loc a = p->last[find_directive("MinWordLength", IDX)];
		struct loc b = p->last[find_directive("MaxWordLength", IDX)];
		struct loc at = (!b.file || (a.file && a.file == b.file && a.line > b.line)) ? a : b;
		p->file = at.file;
		p->line = at.line;
		return perr(p, "MinWordLength %ld is larger than MaxWordLength %ld",
			    c->min_word_length, c->max_word_length);
	}
	if (c->db.set && !c->db.name) {
		p->file = p->db_split.file;
		p->line = p->db_split.line;
		return perr(p, "DBHost/DBUser/DBPass/DBPort/DBSock given without DBName");
	}
	c->defaults = p->cur;
	return 0;
}

static int load(const char *name, const char *text, size_t len, enum conf_kind kind,
		unsigned flags, struct conf **out, struct buf *err)
{
	struct parser p;
	struct conf *c = xcalloc(1, sizeof(*c));
	int rc = -1;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.flags = flags;
	p.err = err;
	p.file = name ? name : "(config)";
	if (err)
		buf_reset(err);
	if ((unsigned)kind >= ARRAY_SIZE(kind_files)) {
		perr(&p, "unknown config kind %d", (int)kind);
		goto out;
	}
	c->kind = kind;
	c->path = pool_dup(c, p.file);
	if (apply_defaults(&p))
		goto out;
	if (!text) {
		if (load_file(&p, p.file, p.file, true, kind == CONF_TEMPLATE))
			goto out;
	} else {
		char *shown = xstrdup(p.file);
		push_str(&c->files, &c->n_files, shown);
		p.file = shown;
		p.dir = abs_dir(shown);
		if (!p.dir) {
			perr(&p, "cannot find the current directory: %s", strerror(errno));
			goto out;
		}
		/* no device/inode for a string: it can never be Included again */
		p.open[0].dev = (dev_t)-1;
		p.open[0].ino = (ino_t)-1;
		p.depth = 1;
		rc = parse_text(&p, text, len, kind == CONF_TEMPLATE);
		free(p.dir);
		p.dir = NULL;
		if (rc)
			goto out;
		rc = -1;
	}
	if (finish(&p))
		goto out;
	rc = 0;
out:
	if (rc) {
		conf_free(c);
		c = NULL;
	}
	*out = c;
	return rc;
}

int conf_load(const char *path, enum conf_kind kind, struct conf **out, struct buf *err)
{
	return load(path, NULL, 0, kind, 0, out, err);
}

int conf_load_string(const char *name, const char *text, size_t len, enum conf_kind kind,
		     struct conf **out, struct buf *err)
{
	return load(name, text ? text : "", text ? len : 0, kind, 0, out, err);
}

int conf_load_string_ex(const char *name, const char *text, size_t len, enum conf_kind kind,
			unsigned flags, struct conf **out, struct buf *err)
{
	return load(name, text ? text : "", text ? len : 0, kind, flags, out, err);
}

void conf_free(struct conf *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n_filters; i++)
		pcre2_code_free(c->filters[i].re);
	free(c->filters);
	free(c->servers);
	free(c->server_index);
	pcre2_match_context_free(c->match_ctx);
	free(c->stopword_files);
	free(c->stopword_langs);
	free(c->http_headers);
	free(c->bandwidth);
	free(c->allow_from);
	free(c->daemon_addresses);
	free(c->error_names);
	free(c->error_texts);
	for (i = 0; i < c->n_files; i++)
		free(c->files[i]);
	free(c->files);
	for (i = 0; i < c->n_pool; i++)
		free(c->pool[i]);
	free(c->pool);
	free(c);
}
