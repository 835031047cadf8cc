/* search-load.c - the mpseek client of bench/search: known-item ranks and
 * query latency, either in-process (-c CONFIG: search_run() on the live
 * generation of DataDir, one database connection per thread, as a searchd
 * thread does) or against a running searchd (-a HOST:PORT: the wire
 * protocol of include/proto.h, the client side s.cgi uses).
 *
 * Usage: search-load -c CONFIG [-S SEARCHD_CONF] [-n] | -a ADDR  ping | mrr ITEMS | lat ...
 * -S: the searchd.conf whose ranking weights and limits searchd would use
 * (without it, the searchd directives keep their built-in defaults).
 * -n: in-process without the database (the index alone: no URLs, titles,
 * clones; for lat only, to tell the engine's time from the database's).
 * ping: exit 0 when the index opens / searchd answers a PING.
 * mrr ITEMS:
 *   ITEMS: "kind<TAB>query<TAB>url" lines ('#' comments).  Each query is
 *   asked once, ungrouped (gr=off), 100 results; prints per line
 *   "kind<TAB>rank<TAB>query" (rank 0: not in the first 100), then
 *   "mrr<TAB>kind<TAB>n<TAB>MRR<TAB>hits@1<TAB>hits@10" per kind and for all.
 *   URLs compare with a final "/index.html" written as "/".
 * lat QUERIES CLIENTS SECONDS:
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

#include "arena.h"
#include "buf.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "proto.h"
#include "search.h"
#include "tokenize.h"
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

/* Where queries go: searchd over the wire, or search_run() in-process. */
struct target {
	const char *addr;              /* -a */
	struct conf *c;                /* -c: owned */
	struct conf *sc;               /* -S: searchd.conf, its ranking weights; owned */
	struct tokenizer *tok;         /* owned */
	struct search_index *ix;       /* one reference */
	bool no_db;                    /* -n: in-process without the database */
};

/* One client: a connection to searchd, or to the database. */
struct session {
	int fd;
	struct db *db;
	struct arena arena; /* in-process: the thread's, kept between queries as searchd's workers do */
};

static int session_open(const struct target *t, struct session *s, struct buf *err)
{
	char *sock; /* the embedded server's, used when there is no DBAddr */
	int rc;

	s->fd = -1;
	s->arena = (struct arena)ARENA_INIT;
	s->db = NULL;
	if (t->addr) {
		s->fd = proto_connect(t->addr, TIMEOUT_MS, err);
		return s->fd < 0 ? -1 : 0;
	}
	if (t->no_db)
		return 0;
	sock = dbserver_socket_path(t->c->data_dir);
	rc = db_open(t->c, sock, 10, &s->db);
	free(sock);
	if (rc) {
		buf_reset(err);
		buf_adds(err, "cannot connect to the database");
		return -1;
	}
	return 0;
}

static void session_close(struct session *s)
{
	if (s->fd >= 0)
		close(s->fd);
	db_close(s->db);
	arena_free(&s->arena);
	s->fd = -1;
	s->db = NULL;
}

/* One query: 0 and *r filled (free with proto_results_free()), or -1
 * (err; the session is then closed and reopened once). */
static int ask(const struct target *t, struct session *s, const struct proto_search *q,
	       struct proto_results *r, struct buf *err)
{
	if (t->addr) {
		if (s->fd >= 0 && proto_search(s->fd, q, TIMEOUT_MS, r, err) == 0)
			return 0;
		session_close(s);
		session_open(t, s, err);
		return -1;
	}
	struct search_env env = { t->sc ? t->sc : t->c, t->tok, s->db, 0, NULL, NULL, &s->arena };

	if (search_run(t->ix, &env, q, r) == 0)
		return 0;
	buf_reset(err);
	buf_printf(err, "%s: %s", r->error ? r->error : "?", r->message ? r->message : "");
	return -1;
}

static int target_open(struct target *t, const char *conf_path, const char *sconf_path,
		       const char *addr)
{
	struct buf err = BUF_INIT(4096);
	int rc = 0;

	t->addr = addr;
	if (addr)
		return 0;
	if (conf_load(conf_path, CONF_INDEXER, &t->c, &err)) {
		rc = error("search-load: %s", buf_str(&err));
		goto out;
	}
	if (sconf_path && conf_load(sconf_path, CONF_SEARCHD, &t->sc, &err)) {
		rc = error("search-load: %s", buf_str(&err));
		goto out;
	}
	t->tok = tok_new(t->c->min_word_length, t->c->max_word_length);
	for (size_t i = 0; i < t->c->n_stopword_files && !rc; i++)
		if (tok_load_stopwords(t->tok, t->c->stopword_files[i]))
			rc = -1;
	if (!rc && search_index_open(t->sc ? t->sc : t->c, t->c->data_dir, NULL, true, &t->ix, &err))
		rc = error("search-load: %s", buf_str(&err));
out:
	buf_free(&err);
	return rc;
}

static void target_close(struct target *t)
{
	search_index_unref(t->ix);
	tok_free(t->tok);
	conf_free(t->c);
	conf_free(t->sc);
}

/* searchd answers a PING with a PONG; in-process: a database connection. */
static int ping(const struct target *t)
{
	struct buf err = BUF_INIT(4096), frame = BUF_INIT(64), payload = BUF_INIT(PROTO_MAX_FRAME);
	struct session s;
	enum proto_type type = 0;
	int rc = session_open(t, &s, &err);

	if (!rc && t->addr &&
	    (proto_encode_empty(&frame, PROTO_PING) ||
	     proto_write_all(s.fd, frame.ptr, frame.len, TIMEOUT_MS, &err) ||
	     proto_read_frame(s.fd, TIMEOUT_MS, &type, &payload, &err) || type != PROTO_PONG))
		rc = -1;
	if (rc)
		error("search-load: no answer: %s", buf_str(&err));
	session_close(&s);
	buf_free(&err);
	buf_free(&frame);
	buf_free(&payload);
	return rc;
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

static int run_mrr(const struct target *t, const char *path)
{
	struct item *it = NULL;
	size_t n = 0, nk = 0;
	struct kind_stat all = { 0 }, *ks;
	struct buf err = BUF_INIT(4096);
	struct session s;
	int rc = 0;

	if (read_items(path, 3, &it, &n))
		return -1;
	ks = xcalloc(n + 1, sizeof(*ks));
	if (session_open(t, &s, &err))
		rc = error("search-load: %s", buf_str(&err));
	for (size_t i = 0; i < n && !rc; i++) {
		struct proto_search q = { .q = it[i].query, .page_size = 100, .group = 0,
					  .ul = empty, .client = client, .referer = empty };
		struct proto_results r = { 0 };
		struct kind_stat *k = kind_of(ks, &nk, it[i].kind);
		uint32_t rank = 0;

		if (ask(t, &s, &q, &r, &err)) {
			rc = error("search-load: query \"%s\": %s", it[i].query, buf_str(&err));
			proto_results_free(&r);
			break;
		}
		for (uint32_t h = 0; h < r.n_hits && !rank; h++)
			if (r.hits[h].url && same_url(r.hits[h].url, it[i].url))
				rank = r.first + h + 1;
		printf("%s\t%u\t%s\n", it[i].kind, rank, it[i].query);
		for (struct kind_stat *st = k; st; st = st == k ? &all : NULL) {
			st->n++;
			st->rr += rank ? 1.0 / rank : 0;
			st->at1 += rank == 1;
			st->at10 += rank && rank <= 10;
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
	session_close(&s);
	free_items(it, n);
	buf_free(&err);
	return rc;
}

struct worker {
	const struct target *t;
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
	struct session s;
	size_t i = w->start;

	if (session_open(w->t, &s, &err)) {
		error("search-load: %s", buf_str(&err));
		w->fail = 1;
	}
	while (!w->fail && now_monotonic() < w->until && w->n < MAX_SAMPLES) {
		struct proto_search q = { .q = w->q[i % w->nq]->query, .page_size = 10, .group = 1,
					  .ul = empty, .client = client, .referer = empty };
		struct proto_results r = { 0 };
		double t0 = now_monotonic();

		if (ask(w->t, &s, &q, &r, &err)) {
			if (!w->errors++)
				error("search-load: \"%s\": %s", q.q, buf_str(&err));
		} else {
			if (r.error && *r.error && !w->errors++)
				error("search-load: \"%s\": %s %s", q.q, r.error, r.message ? r.message : "");
			if (w->n == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 4096;
				w->lat = xrealloc(w->lat, w->cap * sizeof(*w->lat));
			}
			w->lat[w->n++] = now_monotonic() - t0;
		}
		proto_results_free(&r);
		i++;
	}
	session_close(&s);
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

static int run_lat(const struct target *t, const char *path, long clients, double seconds)
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
			w[c] = (struct worker){ .t = t, .q = q, .nq = nq,
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

static int usage(void)
{
	fprintf(stderr, "usage: search-load -c CONFIG [-S SEARCHD_CONF] [-n] | -a HOST:PORT  ping | mrr ITEMS |"
		" lat QUERIES CLIENTS SECONDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct target t = { 0 };
	const char *conf = NULL, *sconf = NULL, *addr = NULL;
	long clients = 1, secs = 5;
	int opt, rc;

	log_set_prog("search-load");
	log_set_level(LOG_WARN);
	while ((opt = getopt(argc, argv, "c:S:a:n")) != -1) {
		switch (opt) {
		case 'c': conf = optarg; break;
		case 'S': sconf = optarg; break;
		case 'n': t.no_db = true; break;
		case 'a': addr = optarg; break;
		default: return usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (!conf == !addr || argc < 1)
		return usage();
	if (!strcmp(argv[0], "lat") && (argc != 4 || parse_long(argv[2], 1, 256, &clients) ||
					 parse_long(argv[3], 1, 3600, &secs)))
		return usage();
	if ((!strcmp(argv[0], "mrr") && argc != 2) || (!strcmp(argv[0], "ping") && argc != 1))
		return usage();
	if (strcmp(argv[0], "lat") && strcmp(argv[0], "mrr") && strcmp(argv[0], "ping"))
		return usage();
	rc = target_open(&t, conf, sconf, addr);
	if (!rc) {
		if (!strcmp(argv[0], "ping"))
			rc = ping(&t);
		else if (!strcmp(argv[0], "mrr"))
			rc = run_mrr(&t, argv[1]);
		else
			rc = run_lat(&t, argv[1], clients, (double)secs);
	}
	target_close(&t);
	return rc ? 1 : 0;
}
