/* fetch-tool.c - the fetcher (src/crawl/fetch.c) as a stdin → stdout filter.
 *
 * Usage: fetch-tool [-n max_transfers] [-d min_delay] [-a secs] [-v] < lines
 * Each input line is `URL [key=value ...]` with keys
 *   ims=RAW inm=RAW head=1 maxsize=BYTES mindelay=SECONDS timeout=SECONDS
 *   proxy=HOST:PORT
 * (blank lines and lines starting with '#' are skipped; values may use %XX
 * escapes, e.g. ims=Wed,%2021%20Oct%202015%2007:28:00%20GMT).  All URLs are
 * fetched concurrently by one fetcher; one line per result is printed in
 * input order, tab-separated:
 *   url status errclass decoded_bytes truncated content_type location
 *   retry_after ms reason reused primary_ip wire_bytes
 * where decoded_bytes is the length of the kept body, absent headers print
 * as "-", retry_after as -1 when absent.  -n caps concurrent transfers,
 * -d sets MinDelay for every host, -a cancels everything still pending after
 * secs seconds with fetcher_cancel_all() (the SIGTERM path), -v logs at
 * debug level.  Exit 0 unless the usage is wrong or the fetcher cannot be
 * created.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "fetch.h"
#include "log.h"
#include "util.h"

struct line {
	char *url;
	char *out;          /* the formatted result, NULL until it arrives */
};

struct tool {
	struct line *lines;
	size_t n, alloc;
};

/* Tabs or newlines inside a field would break the columns. */
static void put_field(struct buf *b, const char *s)
{
	if (!s || !*s) {
		buf_addc(b, '-');
		return;
	}
	for (; *s; s++)
		buf_addc(b, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void on_done(struct fetch_result *r, void *arg)
{
	struct tool *t = arg;
	size_t i = (size_t)(uintptr_t)r->user;
	struct buf b = BUF_INIT(1 << 20);

	put_field(&b, r->url);
	buf_printf(&b, "\t%ld\t%s\t%zu\t%d\t", r->status, fetch_err_name(r->err),
		   r->body.len, r->truncated ? 1 : 0);
	put_field(&b, r->content_type);
	buf_addc(&b, '\t');
	put_field(&b, r->location);
	buf_printf(&b, "\t%ld\t%.0f\t", r->retry_after, r->total_time * 1000);
	put_field(&b, r->reason);
	buf_printf(&b, "\t%d\t", r->reused ? 1 : 0);
	put_field(&b, r->primary_ip);
	buf_printf(&b, "\t%llu", (unsigned long long)r->wire_bytes);
	if (i < t->n)
		t->lines[i].out = buf_detach(&b, NULL);
	buf_free(&b);
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end)
		return -1;
	*out = v;
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decode %XX in place, so that option values can hold spaces. */
static void unescape(char *s)
{
	char *d = s;
	for (; *s; s++) {
		if (s[0] == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			*d++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
			s += 2;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* Parse one input line into a request; opts point into line. */
static int parse_line(char *line, struct fetch_req *r)
{
	char *p = line, *word;
	long v;

	memset(r, 0, sizeof(*r));
	for (int first = 1;; first = 0) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		word = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
		if (first) {
			r->url = word;
			continue;
		}
		unescape(word);
		if (!strncmp(word, "ims=", 4))
			r->if_modified_since = word + 4;
		else if (!strncmp(word, "inm=", 4))
			r->if_none_match = word + 4;
		else if (!strcmp(word, "head=1"))
			r->head = true;
		else if (!strncmp(word, "maxsize=", 8) && !parse_long(word + 8, 1, MAX_DOC_BYTES, &v))
			r->max_size = (size_t)v;
		else if (!strncmp(word, "mindelay=", 9) && !parse_double(word + 9, &r->host_delay))
			;
		else if (!strncmp(word, "timeout=", 8) && !parse_double(word + 8, &r->read_timeout))
			;
		else if (!strncmp(word, "proxy=", 6))
			r->proxy = word + 6;
		else
			return error("fetch-tool: bad option '%s'", word);
	}
	return r->url ? 0 : -1;
}

static int run(struct fetch_opts *o, double abort_after, struct tool *t)
{
	double t0 = now_monotonic();
	struct fetcher *f = NULL;
	struct fetch_req *reqs = NULL;
	char *line = NULL;
	size_t cap = 0, nreq = 0;
	ssize_t len;
	int rc = -1;

	while ((len = getline(&line, &cap, stdin)) > 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (t->n == t->alloc) {
			t->alloc = t->alloc ? 2 * t->alloc : 16;
			t->lines = xrealloc(t->lines, t->alloc * sizeof(*t->lines));
		}
		t->lines[t->n].url = xstrdup(line);   /* parse_line cuts it up */
		t->lines[t->n].out = NULL;
		t->n++;
	}
	reqs = xcalloc(t->n ? t->n : 1, sizeof(*reqs));
	for (size_t i = 0; i < t->n; i++) {
		if (parse_line(t->lines[i].url, &reqs[i]))
			goto out;
		reqs[i].user = (void *)(uintptr_t)i;
	}
	if (!(f = fetcher_new(o)))
		goto out;
	for (nreq = 0; nreq < t->n; nreq++)
		if (fetcher_add(f, &reqs[nreq]))
			goto out;
	while (fetcher_pending(f)) {
		double left = abort_after > 0 ? t0 + abort_after - now_monotonic() : 1.0;
		if (abort_after > 0 && left <= 0) {
			fetcher_cancel_all(f, on_done, t);
			break;
		}
		if (fetcher_run(f, left < 1.0 ? left : 1.0, on_done, t) < 0)
			goto out;
	}
	for (size_t i = 0; i < t->n; i++)
		printf("%s\n", t->lines[i].out ? t->lines[i].out : "?\t0\tmissing");
	rc = 0;
out:
	fetcher_free(f);
	free(reqs);
	free(line);
	return rc;
}

int main(int argc, char **argv)
{
	struct fetch_opts o = { 0 };
	struct tool t = { 0 };
	double abort_after = 0;
	int c, rc;
	long v;

	log_set_prog("fetch-tool");
	log_set_level(LOG_WARN);
	while ((c = getopt(argc, argv, "n:d:a:v")) != -1) {
		switch (c) {
		case 'n':
			if (parse_long(optarg, 1, 100000, &v))
				goto usage;
			o.max_transfers = (size_t)v;
			break;
		case 'd':
			if (parse_double(optarg, &o.min_delay))
				goto usage;
			break;
		case 'a':
			if (parse_double(optarg, &abort_after))
				goto usage;
			break;
		case 'v':
			log_set_level(LOG_DEBUG);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	rc = run(&o, abort_after, &t);
	for (size_t i = 0; i < t.n; i++) {
		free(t.lines[i].url);
		free(t.lines[i].out);
	}
	free(t.lines);
	return rc ? 1 : 0;
usage:
	fprintf(stderr, "usage: fetch-tool [-n max_transfers] [-d min_delay] [-a secs] [-v] < urls\n");
	return 2;
}
