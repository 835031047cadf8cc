/* searchd-load.c - a load generator for searchd (tests and benchmarks): C
 * connections, each sending its share of N requests (or requests for D
 * seconds) through proto_search() on one kept-open connection, queries
 * taken in turn from a file or the arguments.  Prints throughput, latency
 * percentiles, the index generations that answered and the error tokens.
 *
 *   searchd-load [-s host:port] [-c conns] [-n total | -d seconds]
 *               [-f queryfile] [-p page_size] [-e excerpts] [-r rate] [--ping]
 *               [--strict] [query...]
 * (-r: requests per second per connection, default as fast as possible)
 *
 * Exit 1 when a request failed (no answer, a broken frame, ER_BUSY...); a
 * query answered with an ER_* token is counted apart and is not a failure
 * unless --strict.  SIGINT or SIGTERM ends the run early (the summary is
 * printed all the same).
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "proto.h"
#include "util.h"

#define MAX_QUERIES 100000
#define MAX_GENS 64
#define MAX_SAMPLES (4L << 20)
#define MAX_TOKENS 16

/* SIGINT/SIGTERM end the run early; the summary is still printed. */
static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

struct shared {
	const char *addr;
	char **queries;
	size_t n_queries;
	long per_thread;         /* requests, or 0 with a duration */
	double until;            /* monotonic end, 0 with a count */
	long page_size, excerpts;
	long rate;               /* requests per second per connection, 0 = as fast as possible */
	bool ping;
};

struct thread {
	pthread_t t;
	const struct shared *sh;
	int id;
	double *lat;
	long n_lat, cap_lat;
	long ok, failed, refused, hits;
	uint64_t gens[MAX_GENS];
	size_t n_gens;
	char tokens[MAX_TOKENS][64];
	long token_n[MAX_TOKENS];
	char last_err[256];
};

static void note_token(struct thread *t, const char *tok)
{
	for (int i = 0; i < MAX_TOKENS; i++) {
		if (!t->tokens[i][0])
			snprintf(t->tokens[i], sizeof(t->tokens[i]), "%s", tok);
		if (!strcmp(t->tokens[i], tok)) {
			t->token_n[i]++;
			return;
		}
	}
}

static void note_gen(struct thread *t, uint64_t g)
{
	for (size_t i = 0; i < t->n_gens; i++)
		if (t->gens[i] == g)
			return;
	if (t->n_gens < MAX_GENS)
		t->gens[t->n_gens++] = g;
}

static int ping(int fd, struct buf *err)
{
	struct buf frame = BUF_INIT(64), payload = BUF_INIT(64);
	enum proto_type type = PROTO_ERROR;
	int rc = -1;

	proto_encode_empty(&frame, PROTO_PING);
	if (!proto_write_all(fd, frame.ptr, frame.len, 10000, err) &&
	    !proto_read_frame(fd, 10000, &type, &payload, err)) {
		rc = type == PROTO_PONG ? 0 : -1;
		if (rc) {
			buf_reset(err);
			buf_printf(err, "answer of type %d to PING", type);
		}
	}
	buf_free(&frame);
	buf_free(&payload);
	return rc;
}

static void *run(void *arg)
{
	struct thread *t = arg;
	const struct shared *sh = t->sh;
	struct buf err = BUF_INIT(1024);
	double start = now_monotonic();
	int fd = -1;

	for (long i = 0;; i++) {
		struct proto_search req = { 0 };
		struct proto_results res;
		double t0;
		int rc;

		if (stop_now || (sh->until ? now_monotonic() >= sh->until : i >= sh->per_thread))
			break;
		if (sh->rate) { /* keep the pace: request i is due at i / rate */
			double due = start + (double)i / (double)sh->rate, now = now_monotonic();
			if (due > now)
				usleep((useconds_t)((due - now) * 1e6));
		}
		if (fd < 0)
			fd = proto_connect(sh->addr, 10000, &err);
		if (fd < 0) {
			t->failed++;
			snprintf(t->last_err, sizeof(t->last_err), "connect: %s", buf_str(&err));
			usleep(10000);
			continue;
		}
		req.q = sh->queries[(size_t)(i * 7 + t->id) % sh->n_queries];
		req.page_size = (uint32_t)sh->page_size;
		req.group = 1;
		req.max_excerpts = (uint32_t)sh->excerpts;
		req.excerpt_len = 200;
		req.ul = (char *)"";
		req.client = (char *)"searchd-load";
		req.referer = (char *)"";
		t0 = now_monotonic();
		if (sh->ping) {
			rc = ping(fd, &err);
			memset(&res, 0, sizeof(res));
		} else {
			rc = proto_search(fd, &req, 10000, &res, &err);
		}
		if (rc) {
			t->failed++;
			snprintf(t->last_err, sizeof(t->last_err), "%s", buf_str(&err));
			close(fd);
			fd = -1;
			continue;
		}
		if (t->n_lat == t->cap_lat && t->cap_lat < MAX_SAMPLES) {
			t->cap_lat = t->cap_lat ? 2 * t->cap_lat : 4096;
			t->lat = xrealloc(t->lat, (size_t)t->cap_lat * sizeof(double));
		}
		if (t->n_lat < t->cap_lat)
			t->lat[t->n_lat++] = now_monotonic() - t0;
		if (!sh->ping) {
			if (res.error && *res.error) {
				t->refused++;
				note_token(t, res.error);
			} else {
				t->ok++;
				t->hits += res.n_hits;
				note_gen(t, res.generation);
			}
			proto_results_free(&res);
		} else {
			t->ok++;
		}
	}
	if (fd >= 0)
		close(fd);
	buf_free(&err);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int read_queries(const char *path, struct shared *sh)
{
	FILE *fp = fopen(path, "r");
	char line[PROTO_MAX_QUERY + 2];

	if (!fp) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) && sh->n_queries < MAX_QUERIES) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		sh->queries = xrealloc(sh->queries, (sh->n_queries + 1) * sizeof(char *));
		sh->queries[sh->n_queries++] = xstrdup(line);
	}
	fclose(fp);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ping", no_argument, NULL, 1 },
		{ "strict", no_argument, NULL, 2 },
		{ NULL, 0, NULL, 0 },
	};
	struct shared sh = { .addr = "127.0.0.1", .page_size = 10, .excerpts = 2 };
	long conns = 1, total = 1000, secs = 0;
	bool strict = false;
	struct thread *th;
	double t0, elapsed, *all;
	long n_all = 0, ok = 0, failed = 0, refused = 0, hits = 0;
	int ch, rc = 0;

	while ((ch = getopt_long(argc, argv, "s:c:n:d:f:p:e:r:", longopts, NULL)) != -1) {
		switch (ch) {
		case 's': sh.addr = optarg; break;
		case 'c': if (parse_long(optarg, 1, 256, &conns)) goto usage; break;
		case 'n': if (parse_long(optarg, 1, 100000000, &total)) goto usage; break;
		case 'd': if (parse_long(optarg, 1, 3600, &secs)) goto usage; break;
		case 'f': if (read_queries(optarg, &sh)) return 2; break;
		case 'p': if (parse_long(optarg, 1, PROTO_MAX_PAGE_SIZE, &sh.page_size)) goto usage; break;
		case 'e': if (parse_long(optarg, 0, PROTO_MAX_EXCERPTS, &sh.excerpts)) goto usage; break;
		case 'r': if (parse_long(optarg, 1, 1000000, &sh.rate)) goto usage; break;
		case 1: sh.ping = true; break;
		case 2: strict = true; break;
		default: goto usage;
		}
	}
	for (int i = optind; i < argc; i++) {
		sh.queries = xrealloc(sh.queries, (sh.n_queries + 1) * sizeof(char *));
		sh.queries[sh.n_queries++] = xstrdup(argv[i]);
	}
	if (!sh.n_queries && !sh.ping)
		goto usage;
	if (!sh.n_queries) {
		sh.queries = xmalloc(sizeof(char *));
		sh.queries[sh.n_queries++] = xstrdup("");
	}
	sh.per_thread = (total + conns - 1) / conns;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	th = xcalloc((size_t)conns, sizeof(*th));
	t0 = now_monotonic();
	if (secs)
		sh.until = t0 + (double)secs;
	for (long i = 0; i < conns; i++) {
		th[i].sh = &sh;
		th[i].id = (int)i;
		if (pthread_create(&th[i].t, NULL, run, &th[i])) {
			fprintf(stderr, "searchd-load: pthread_create failed\n");
			return 2;
		}
	}
	for (long i = 0; i < conns; i++)
		pthread_join(th[i].t, NULL);
	elapsed = now_monotonic() - t0;
	for (long i = 0; i < conns; i++)
		n_all += th[i].n_lat;
	all = xmalloc((size_t)(n_all ? n_all : 1) * sizeof(double));
	n_all = 0;
	printf("generations:");
	for (long i = 0; i < conns; i++) {
		memcpy(all + n_all, th[i].lat, (size_t)th[i].n_lat * sizeof(double));
		n_all += th[i].n_lat;
		ok += th[i].ok;
		failed += th[i].failed;
		refused += th[i].refused;
		hits += th[i].hits;
		for (size_t g = 0; g < th[i].n_gens; g++) {
			bool seen = false;
			for (long j = 0; j < i && !seen; j++)
				for (size_t k = 0; k < th[j].n_gens; k++)
					seen = seen || th[j].gens[k] == th[i].gens[g];
			for (size_t k = 0; k < g && !seen; k++)
				seen = th[i].gens[k] == th[i].gens[g];
			if (!seen)
				printf(" %" PRIu64, th[i].gens[g]);
		}
	}
	printf("\n");
	for (long i = 1; i < conns; i++) /* into thread 0's table */
		for (int k = 0; k < MAX_TOKENS && th[i].tokens[k][0]; k++)
			for (long n = 0; n < th[i].token_n[k]; n++)
				note_token(&th[0], th[i].tokens[k]);
	for (int k = 0; k < MAX_TOKENS && th[0].tokens[k][0]; k++)
		printf("token %s %ld\n", th[0].tokens[k], th[0].token_n[k]);
	for (long i = 0; i < conns; i++)
		if (th[i].last_err[0])
			printf("last error (connection %ld): %s\n", i, th[i].last_err);
	qsort(all, (size_t)n_all, sizeof(double), cmp_double);
#define PCT(p) (n_all ? all[(size_t)((double)(n_all - 1) * (p))] * 1000.0 : 0.0)
	printf("requests %ld ok %ld refused %ld failed %ld hits %ld connections %ld seconds %.3f "
	       "qps %.1f p50_ms %.3f p95_ms %.3f p99_ms %.3f max_ms %.3f\n",
	       ok + refused + failed, ok, refused, failed, hits, conns, elapsed,
	       (double)(ok + refused) / (elapsed > 0 ? elapsed : 1), PCT(0.50), PCT(0.95),
	       PCT(0.99), PCT(1.0));
	if (failed || (strict && refused))
		rc = 1;
	for (long i = 0; i < conns; i++)
		free(th[i].lat);
	free(th);
	free(all);
	for (size_t i = 0; i < sh.n_queries; i++)
		free(sh.queries[i]);
	free(sh.queries);
	return rc;
usage:
	fprintf(stderr, "usage: searchd-load [-s host:port] [-c conns] [-n total | -d seconds] "
			"[-f queryfile] [-p page_size] [-e excerpts] [-r rate] [--ping] [--strict] "
			"[query...]\n");
	return 2;
}
