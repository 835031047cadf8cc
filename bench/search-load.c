/* search-load.c - the mpseek client of bench/search: known-item ranks and
 * query latency against a running searchd, through the wire protocol
 * (include/proto.h, the client side s.cgi uses).
 *
 * Usage: search-load mrr ADDR ITEMS
 *   ITEMS: "kind<TAB>query<TAB>url" lines ('#' comments).  Each query is
 *   asked once, ungrouped (gr=off), 100 results; prints per line
 *   "kind<TAB>rank<TAB>query" (rank 0: not in the first 100), then
 *   "mrr<TAB>kind<TAB>n<TAB>MRR<TAB>hits@1<TAB>hits@10" per kind and for all.
 *   URLs compare with a final "/index.html" written as "/".
 * Usage: search-load lat ADDR QUERIES CLIENTS SECONDS
 *   QUERIES: "kind<TAB>query" lines.  For each kind, CLIENTS threads (one
 *   connection each) ask the kind's queries in turn (thread t starts at
 *   query t) for SECONDS, 10 results a page, grouped by site as s.cgi asks
 *   by default, no excerpts; prints "lat<TAB>kind<TAB>clients<TAB>queries
 *   <TAB>p50_ms<TAB>p95_ms<TAB>p99_ms<TAB>qps<TAB>errors".
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "proto.h"
#include "util.h"

#define MAX_LINES 100000
#define TIMEOUT_MS 30000
#define MAX_SAMPLES (1u << 24)

/* proto_search's strings are not const; these are never written. */
static char empty[] = "", client[] = "bench";

struct item {
	char *kind, *query, *url;
};

static int read_items(const char *path, int fields, struct item **out, size_t *n)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, k = 0;
	struct item *v = NULL;

	if (!f)
		return error_errno("search-load: cannot open %s", path);
	while (getline(&line, &cap, f) > 0 && k < MAX_LINES) {
		char *p[3] = { 0 }, *s = line;
		int i;

		s[strcspn(s, "\r\n")] = 0;
		if (*s == '#' || !*s)
			continue;
		for (i = 0; i < fields && s; i++) {
			p[i] = s;
			s = strchr(s, '\t');
			if (s)
				*s++ = 0;
		}
		if (i < fields || !p[fields - 1])
			continue;
		v = xrealloc(v, (k + 1) * sizeof(*v));
		v[k].kind = xstrdup(p[0]);
		v[k].query = xstrdup(p[1]);
		v[k].url = fields > 2 ? xstrdup(p[2]) : NULL;
		k++;
	}
	free(line);
	fclose(f);
	*out = v;
	*n = k;
	return 0;
}

static void free_items(struct item *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].kind);
		free(v[i].query);
		free(v[i].url);
	}
	free(v);
}

/* Compare URLs with "/index.html" at the end written as "/". */
static bool same_url(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	static const char ix[] = "index.html";

	if (la >= sizeof(ix) - 1 && !strcmp(a + la - (sizeof(ix) - 1), ix))
		la -= sizeof(ix) - 1;
	if (lb >= sizeof(ix) - 1 && !strcmp(b + lb - (sizeof(ix) - 1), ix))
		lb -= sizeof(ix) - 1;
	return la == lb && !memcmp(a, b, la);
}

struct kind_stat {
	char *kind;
	size_t n, at1, at10;
	double rr;
};

static struct kind_stat *kind_of(struct kind_stat *ks, size_t *nk, const char *kind)
{
	for (size_t i = 0; i < *nk; i++)
		if (!strcmp(ks[i].kind, kind))
			return &ks[i];
	ks[*nk].kind = xstrdup(kind);
	return &ks[(*nk)++];
}

static void print_kind(const struct kind_stat *k, const char *name)
{
	printf("mrr\t%s\t%zu\t%.4f\t%.4f\t%.4f\n", name, k->n, k->n ? k->rr / k->n : 0,
	       k->n ? (double)k->at1 / k->n : 0, k->n ? (double)k->at10 / k->n : 0);
}

static int run_mrr(const char *addr, const char *path)
{
	struct item *it = NULL;
	size_t n = 0, nk = 0;
	struct kind_stat all = { 0 }, *ks;
	struct buf err = BUF_INIT(4096);
	int fd, rc = 0;

	if (read_items(path, 3, &it, &n))
		return -1;
	ks = xcalloc(n + 1, sizeof(*ks));
	fd = proto_connect(addr, TIMEOUT_MS, &err);
	if (fd < 0)
		rc = error("search-load: %s", buf_str(&err));
	for (size_t i = 0; i < n && !rc; i++) {
		struct proto_search q = { .q = it[i].query, .page_size = 100, .group = 0,
					  .ul = empty, .client = client, .referer = empty };
		struct proto_results r = { 0 };
		struct kind_stat *k = kind_of(ks, &nk, it[i].kind);
		uint32_t rank = 0;

		if (proto_search(fd, &q, TIMEOUT_MS, &r, &err)) {
			rc = error("search-load: query \"%s\": %s", it[i].query, buf_str(&err));
			break;
		}
		for (uint32_t h = 0; h < r.n_hits && !rank; h++)
			if (r.hits[h].url && same_url(r.hits[h].url, it[i].url))
				rank = r.first + h + 1;
		printf("%s\t%u\t%s\n", it[i].kind, rank, it[i].query);
		for (struct kind_stat *s = k; s; s = s == k ? &all : NULL) {
			s->n++;
			s->rr += rank ? 1.0 / rank : 0;
			s->at1 += rank == 1;
			s->at10 += rank && rank <= 10;
		}
		proto_results_free(&r);
	}
	if (!rc) {
		for (size_t i = 0; i < nk; i++)
			print_kind(&ks[i], ks[i].kind);
		print_kind(&all, "all");
	}
	for (size_t i = 0; i < nk; i++)
		free(ks[i].kind);
	free(ks);
	if (fd >= 0)
		close(fd);
	free_items(it, n);
	buf_free(&err);
	return rc;
}

struct worker {
	const char *addr;
	struct item **q;       /* the queries of one kind */
	size_t nq, start;
	double until;
	double *lat;           /* seconds per query */
	size_t n, cap, errors;
	int fail;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct buf err = BUF_INIT(4096);
	int fd = proto_connect(w->addr, TIMEOUT_MS, &err);
	size_t i = w->start;

	if (fd < 0) {
		error("search-load: %s", buf_str(&err));
		w->fail = 1;
	}
	while (fd >= 0 && now_monotonic() < w->until && w->n < MAX_SAMPLES) {
		struct proto_search q = { .q = w->q[i % w->nq]->query, .page_size = 10, .group = 1,
					  .ul = empty, .client = client, .referer = empty };
		struct proto_results r = { 0 };
		double t0 = now_monotonic();

		if (proto_search(fd, &q, TIMEOUT_MS, &r, &err)) {
			w->errors++;
			close(fd);
			fd = proto_connect(w->addr, TIMEOUT_MS, &err);
		} else {
			if (r.error && *r.error)
				w->errors++;
			if (w->n == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 4096;
				w->lat = xrealloc(w->lat, w->cap * sizeof(*w->lat));
			}
			w->lat[w->n++] = now_monotonic() - t0;
		}
		proto_results_free(&r);
		i++;
	}
	if (fd >= 0)
		close(fd);
	buf_free(&err);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(const double *v, size_t n, double p)
{
	size_t k = (size_t)ceil(p * (double)n);

	return n ? v[k ? k - 1 : 0] : 0;
}

static int run_lat(const char *addr, const char *path, long clients, double seconds)
{
	struct item *it = NULL;
	size_t n = 0;
	int rc = 0;

	if (read_items(path, 2, &it, &n))
		return -1;
	for (size_t first = 0; first < n && !rc; first++) {
		struct item **q = xmalloc(n * sizeof(*q));
		struct worker *w = xcalloc((size_t)clients, sizeof(*w));
		pthread_t *th = xcalloc((size_t)clients, sizeof(*th));
		size_t nq = 0, total = 0, errors = 0, seen = 0;
		double *all, t0, t1;

		for (size_t j = 0; j < first; j++)
			seen |= !strcmp(it[j].kind, it[first].kind);
		if (seen) {
			free(q);
			free(w);
			free(th);
			continue;
		}
		for (size_t j = first; j < n; j++)
			if (!strcmp(it[j].kind, it[first].kind))
				q[nq++] = &it[j];
		t0 = now_monotonic();
		for (long c = 0; c < clients; c++) {
			w[c] = (struct worker){ .addr = addr, .q = q, .nq = nq,
						.start = (size_t)c * nq / (size_t)clients,
						.until = t0 + seconds };
			if (pthread_create(&th[c], NULL, work, &w[c]))
				rc = error("search-load: cannot start a thread");
		}
		for (long c = 0; c < clients; c++) {
			pthread_join(th[c], NULL);
			total += w[c].n;
			errors += w[c].errors;
			rc |= w[c].fail ? -1 : 0;
		}
		t1 = now_monotonic();
		all = xmalloc((total + 1) * sizeof(*all));
		total = 0;
		for (long c = 0; c < clients; c++) {
			memcpy(all + total, w[c].lat, w[c].n * sizeof(*all));
			total += w[c].n;
			free(w[c].lat);
		}
		qsort(all, total, sizeof(*all), cmp_double);
		printf("lat\t%s\t%ld\t%zu\t%.3f\t%.3f\t%.3f\t%.1f\t%zu\n", it[first].kind, clients, total,
		       1000 * pct(all, total, 0.50), 1000 * pct(all, total, 0.95),
		       1000 * pct(all, total, 0.99), total / (t1 - t0), errors);
		fflush(stdout);
		free(all);
		free(q);
		free(w);
		free(th);
	}
	free_items(it, n);
	return rc;
}

int main(int argc, char **argv)
{
	long clients = 1, secs = 5;

	log_set_prog("search-load");
	if (argc == 4 && !strcmp(argv[1], "mrr"))
		return run_mrr(argv[2], argv[3]) ? 1 : 0;
	if (argc == 6 && !strcmp(argv[1], "lat") && !parse_long(argv[4], 1, 256, &clients) &&
	    !parse_long(argv[5], 1, 3600, &secs))
		return run_lat(argv[2], argv[3], clients, (double)secs) ? 1 : 0;
	fprintf(stderr, "usage: search-load mrr ADDR ITEMS\n"
		"       search-load lat ADDR QUERIES CLIENTS SECONDS\n");
	return 2;
}
