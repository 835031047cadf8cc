/* search_main.c - mpseek-search: ask searchd from the shell and print the
 * answer (text with highlights marked *like this*, or JSON), or a cached
 * copy.  For admins and tests; it speaks the same protocol as s.cgi
 * (proto.h) and knows nothing else of mpseek.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cgi.h"
#include "charset.h"
#include "proto.h"
#include "util.h"

enum { EXIT_RESULTS = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_DOWN = 3 };

struct options {
	const char *addr;
	long page, page_size, timeout_ms, excerpts, excerpt_len, site;
	bool json, by_date, no_group, ping;
	const char *cached;
	const char *ul;
	struct buf q;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: mpseek-search [options] query...\n"
		"       mpseek-search [options] --cached URL|ID [query...]\n"
		"       mpseek-search [-s host:port] --ping\n"
		"\n"
		"Ask searchd and print the results: rank, score, URL, title, excerpts, with\n"
		"the query terms marked *like this*.\n"
		"\n"
		"  -s HOST:PORT    searchd's address (default 127.0.0.1:%d)\n"
		"  -n N            page N of the results, from 1 (default 1)\n"
		"  -p N            results per page, 1..%d (default 10)\n"
		"  -e N            excerpts per result, 0..%d (default 2)\n"
		"  -l N            bytes per excerpt, 0..%d (default 200)\n"
		"  -t MS           give up after MS milliseconds (default 10000)\n"
		"      --date      newest first instead of by relevance\n"
		"      --no-group  do not group the results by site (gr=off)\n"
		"      --site ID   only the site with this site_id (st=)\n"
		"      --ul PREFIXES  only URLs under these prefixes (ul=, blank-separated)\n"
		"      --json      print the whole answer as one JSON object\n"
		"      --cached URL|ID  print the cached copy of a page (by URL or url_id),\n"
		"                  the query terms marked\n"
		"      --ping      exit 0 if searchd answers, 3 if not\n"
		"  -h, --help      this text\n"
		"  -V, --version   print the version\n"
		"\n"
		"Exit status: 0 results (maybe none), 1 searchd refused the query (ER_*),\n"
		"2 usage error, 3 searchd could not be asked.\n",
		PROTO_DEFAULT_PORT, PROTO_MAX_PAGE_SIZE, PROTO_MAX_EXCERPTS, PROTO_MAX_EXCERPT_LEN);
}

static int num_opt(const char *name, const char *arg, long min, long max, long *out)
{
	if (parse_long(arg, min, max, out)) {
		fprintf(stderr, "mpseek-search: %s wants a number from %ld to %ld, not '%s'\n", name,
			min, max, arg);
		return -1;
	}
	return 0;
}

/* Returns 0 to go on, 1 to exit 0, 2 on a usage error. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 1 },
		{ "cached", required_argument, NULL, 2 },
		{ "date", no_argument, NULL, 3 },
		{ "no-group", no_argument, NULL, 4 },
		{ "site", required_argument, NULL, 5 },
		{ "ul", required_argument, NULL, 6 },
		{ "ping", no_argument, NULL, 7 },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	o->addr = "127.0.0.1";
	o->page = 1;
	o->page_size = 10;
	o->timeout_ms = 10000;
	o->excerpts = 2;
	o->excerpt_len = 200;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "s:n:p:e:l:t:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': o->addr = optarg; break;
		case 'n': if (num_opt("-n", optarg, 1, PROTO_MAX_PAGE + 1, &o->page)) return 2; break;
		case 'p':
			if (num_opt("-p", optarg, 1, PROTO_MAX_PAGE_SIZE, &o->page_size))
				return 2;
			break;
		case 'e':
			if (num_opt("-e", optarg, 0, PROTO_MAX_EXCERPTS, &o->excerpts))
				return 2;
			break;
		case 'l':
			if (num_opt("-l", optarg, 0, PROTO_MAX_EXCERPT_LEN, &o->excerpt_len))
				return 2;
			break;
		case 't': if (num_opt("-t", optarg, 1, 3600000, &o->timeout_ms)) return 2; break;
		case 1: o->json = true; break;
		case 2: o->cached = optarg; break;
		case 3: o->by_date = true; break;
		case 4: o->no_group = true; break;
		case 5: if (num_opt("--site", optarg, 1, UINT32_MAX, &o->site)) return 2; break;
		case 6: o->ul = optarg; break;
		case 7: o->ping = true; break;
		case 'h': usage(stdout); return 1;
		case 'V': printf("mpseek-search %s\n", PACKAGE_VERSION); return 1;
		default:
			if (optopt)
				fprintf(stderr, "mpseek-search: option -%c: unknown or missing its "
					"argument (try --help)\n", optopt);
			else
				fprintf(stderr, "mpseek-search: unknown option %s (try --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	for (int i = optind; i < argc; i++)
		if ((i > optind && buf_addc(&o->q, ' ')) || buf_adds(&o->q, argv[i])) {
			fprintf(stderr, "mpseek-search: the query is longer than %d bytes\n",
				PROTO_MAX_QUERY);
			return 2;
		}
	if (!o->ping && !o->cached && optind >= argc) {
		fprintf(stderr, "mpseek-search: no query (try --help)\n");
		return 2;
	}
	if (!utf8_valid(buf_str(&o->q), o->q.len)) {
		fprintf(stderr, "mpseek-search: the query is not valid UTF-8\n");
		return 2;
	}
	return 0;
}

/* ---- text output ---------------------------------------------------------- */

/* The text with its spans marked *like this*; control characters become
 * blanks so that a result stays on its lines. */
static void print_marked(const struct proto_text *t)
{
	const char *s = t->text ? t->text : "";
	size_t len = strlen(s), k = 0;

	for (size_t i = 0; i <= len; i++) {
		while (k < 2 * t->n_spans && t->spans[k] == i) {
			putchar('*');
			k++;
		}
		if (i < len)
			putchar((unsigned char)s[i] < 0x20 ? ' ' : s[i]);
	}
}

static void print_text_results(const struct options *o, const struct proto_results *r)
{
	uint32_t shown = 0;

	printf("\"%s\": %s%" PRIu64 " URL(s) on %u site(s), %" PRIu64 " result(s)", buf_str(&o->q),
	       r->estimated ? "about " : "", r->total_urls, r->total_sites, r->total_results);
	for (uint32_t i = 0; i < r->n_hits; i++)
		shown += r->hits[i].second ? 0 : 1;
	if (r->n_hits)
		printf(", %u-%u shown", r->first + 1, r->first + shown);
	printf("; generation %" PRIu64 ", %.3f s\n", r->generation, r->seconds);
	if (r->n_words) {
		printf("words:");
		for (uint32_t i = 0; i < r->n_words; i++) {
			const struct proto_word_stat *w = &r->words[i];
			if (w->stopword)
				printf(" %s (stopword)", w->word);
			else
				printf(" %s (%u URLs, %" PRIu64 " times)", w->word, w->urls, w->total);
		}
		putchar('\n');
	}
	if (r->message && *r->message)
		printf("note: %s\n", r->message);
	for (uint32_t i = 0, rank = r->first; i < r->n_hits; i++) {
		const struct proto_hit *h = &r->hits[i];
		char date[32] = "";

		if (!h->second)
			rank++;
		if (h->last_modified) {
			time_t t = (time_t)h->last_modified;
			struct tm tm;
			gmtime_r(&t, &tm);
			strftime(date, sizeof(date), ", %Y-%m-%d", &tm);
		}
		printf("%s%u. %s [%.4f] (%u bytes%s)\n", h->second ? "  " : "", rank, h->url, h->score,
		       h->size, date);
		printf("   ");
		print_marked(&h->title);
		putchar('\n');
		if (h->description.text && *h->description.text) {
			printf("   ");
			print_marked(&h->description);
			putchar('\n');
		}
		for (uint32_t e = 0; e < h->n_excerpts; e++) {
			printf("   ...");
			print_marked(&h->excerpts[e]);
			printf("...\n");
		}
		for (uint32_t k = 0; k < h->n_clones; k++)
			printf("   clone: %s\n", h->clones[k].url);
		if (h->site_hits > 2 && !h->second)
			printf("   more from %s: %u URLs\n", h->site, h->site_hits);
	}
}

/* ---- JSON output ---------------------------------------------------------- */

/* The answer in s.cgi fmt=json's shape (cgi_json.c, doc/CGI.md "JSON"). */
static void print_json_results(const struct options *o, const struct proto_results *r,
			       double elapsed)
{
	struct cgi_json_answer a;
	struct cgi_json_word *words = xcalloc(r->n_words + 1, sizeof(*words));
	const struct proto_hit **hits = xcalloc(r->n_hits + 1, sizeof(*hits));
	struct buf b = BUF_INIT(64u << 20);

	memset(&a, 0, sizeof(a));
	a.query = buf_str(&o->q);
	a.page = o->page - 1;
	a.page_size = o->page_size;
	a.total_results = r->total_results;
	a.total_urls = r->total_urls;
	a.total_sites = r->total_sites;
	a.estimated = r->estimated != 0;
	a.seconds = r->seconds;
	a.elapsed = elapsed;
	a.generation = r->generation;
	for (uint32_t i = 0; i < r->n_words; i++) {
		words[i].word = r->words[i].word;
		words[i].urls = r->words[i].urls;
		words[i].total = r->words[i].total;
		words[i].stopword = r->words[i].stopword;
	}
	a.words = words;
	a.n_words = r->n_words;
	for (uint32_t i = 0; i < r->n_hits; i++)
		hits[i] = &r->hits[i];
	a.hits = hits;
	a.n_hits = r->n_hits;
	a.note = *r->error ? NULL : r->message;
	a.error_token = r->error;
	a.error_message = r->message;
	cgi_json_results(&b, &a);
	fwrite(b.ptr, 1, b.len, stdout);
	buf_free(&b);
	free(words);
	free(hits);
}

/* ---- the requests --------------------------------------------------------- */

static int run_search(const struct options *o, int fd)
{
	struct proto_search req = { 0 };
	struct proto_results res;
	struct buf err = BUF_INIT(4096);
	double started;
	int rc;

	req.q = (char *)buf_str(&o->q);
	req.page = (uint32_t)(o->page - 1);
	req.page_size = (uint32_t)o->page_size;
	req.sort = o->by_date ? PROTO_SORT_DATE : PROTO_SORT_RATE;
	req.group = o->no_group ? 0 : 1;
	req.site_id = (uint32_t)o->site;
	req.ul = (char *)(o->ul ? o->ul : "");
	req.max_excerpts = (uint32_t)o->excerpts;
	req.excerpt_len = (uint32_t)o->excerpt_len;
	req.client = (char *)"mpseek-search";
	req.referer = (char *)"";
	started = now_monotonic();
	if (proto_search(fd, &req, (int)o->timeout_ms, &res, &err)) {
		fprintf(stderr, "mpseek-search: %s\n", buf_str(&err));
		buf_free(&err);
		return EXIT_DOWN;
	}
	if (o->json)
		print_json_results(o, &res, now_monotonic() - started);
	else if (*res.error)
		printf("%s: %s\n", res.error, res.message);
	else
		print_text_results(o, &res);
	rc = *res.error ? EXIT_REFUSED : EXIT_RESULTS;
	proto_results_free(&res);
	buf_free(&err);
	return rc;
}

static int run_cached(const struct options *o, int fd)
{
	struct proto_cached_req req = { 0 };
	struct proto_cached res;
	struct buf err = BUF_INIT(4096);
	long id;
	int rc;

	if (!parse_long(o->cached, 1, UINT32_MAX, &id)) {
		req.url_id = (uint32_t)id;
		req.url = (char *)"";
	} else {
		req.url = (char *)o->cached;
	}
	req.q = (char *)buf_str(&o->q);
	if (proto_cached(fd, &req, (int)o->timeout_ms, &res, &err)) {
		fprintf(stderr, "mpseek-search: %s\n", buf_str(&err));
		buf_free(&err);
		return EXIT_DOWN;
	}
	if (o->json) {
		struct buf b = BUF_INIT(64u << 20);
		if (*res.error)
			cgi_json_error(&b, res.error, "This page is not in the index.");
		else
			cgi_json_cached(&b, &res);
		fwrite(b.ptr, 1, b.len, stdout);
		buf_free(&b);
	} else if (*res.error) {
		printf("%s: no cached copy of %s\n", res.error, o->cached);
	} else {
		printf("%s (url_id %u, %s, %s)\n\n", res.url, res.url_id, res.content_type,
		       res.charset);
		print_marked(&res.text);
		putchar('\n');
	}
	rc = *res.error ? EXIT_REFUSED : EXIT_RESULTS;
	proto_cached_free(&res);
	buf_free(&err);
	return rc;
}

static int run_ping(const struct options *o, int fd)
{
	struct buf frame = BUF_INIT(64), payload = BUF_INIT(64), err = BUF_INIT(1024);
	enum proto_type type = PROTO_ERROR;
	int rc = EXIT_DOWN;

	proto_encode_empty(&frame, PROTO_PING);
	if (proto_write_all(fd, frame.ptr, frame.len, (int)o->timeout_ms, &err) == 0 &&
	    proto_read_frame(fd, (int)o->timeout_ms, &type, &payload, &err) == 0 &&
	    type == PROTO_PONG)
		rc = EXIT_RESULTS;
	else
		fprintf(stderr, "mpseek-search: no PONG from %s%s%s\n", o->addr,
			err.len ? ": " : "", buf_str(&err));
	buf_free(&frame);
	buf_free(&payload);
	buf_free(&err);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	struct buf err = BUF_INIT(4096);
	int fd, rc;

	memset(&o, 0, sizeof(o));
	buf_init(&o.q, PROTO_MAX_QUERY);
	rc = parse_options(argc, argv, &o);
	if (rc) {
		buf_free(&o.q);
		return rc == 1 ? 0 : EXIT_USAGE;
	}
	fd = proto_connect(o.addr, (int)o.timeout_ms, &err);
	if (fd < 0) {
		fprintf(stderr, "mpseek-search: cannot reach searchd at %s: %s\n", o.addr,
			buf_str(&err));
		rc = EXIT_DOWN;
	} else {
		rc = o.ping ? run_ping(&o, fd) : o.cached ? run_cached(&o, fd) : run_search(&o, fd);
		close(fd);
	}
	if (fflush(stdout) && rc == EXIT_RESULTS)
		rc = EXIT_DOWN;
	buf_free(&o.q);
	buf_free(&err);
	return rc;
}
