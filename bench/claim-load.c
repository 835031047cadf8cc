/* claim-load.c - the claim driver of bench/scale's CLAIM_BENCH mode: times
 * the crawl's three frontier statements on a database of any size, as one
 * crawling rank issues them (src/crawl/crawl_claim.c): db_pick_sites(),
 * db_claim_site_urls() for the first site picked, db_release_site_after().
 * It builds no database itself: bench/scale loads the URLs first.
 *
 * Usage: claim-load [-r ROUNDS] [-b BATCH] [-p PICK] [-k RANK] CONFIG
 *   ROUNDS rounds (2,000), BATCH URLs per claim (32, the crawl's
 *   SITE_BATCH), PICK sites per pick (64, its PICK_MAX), as rank RANK (1).
 * The claimed URLs stay claimed (leased, as if being fetched), so each round
 * moves on through the frontier.  Prints a table of p50, p99, max and mean
 * milliseconds per statement and per round, and the URLs claimed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "util.h"

#define PICK_LIMIT 1024
#define BATCH_LIMIT 10000
#define LEASE_SECONDS 900 /* LeaseTime's default */

enum step { PICK, CLAIM, RELEASE, ROUND, N_STEPS };

static const char *const step_name[N_STEPS] = {
    "pick sites (db_pick_sites)",
    "claim URLs (db_claim_site_urls)",
    "release site (db_release_site_after)",
    "round (all three)",
};

struct opts {
	long rounds, batch, pick, rank;
	const char *conf;
};

/* Milliseconds of every round and step; owned by main(). */
struct samples {
	double *ms[N_STEPS];
	long n;
	long claimed, empty; /* URLs claimed; rounds whose claim got none */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The p-quantile of sorted v[0..n-1] (nearest rank). */
static double pct(const double *v, long n, double p)
{
	long i = (long)(p * (double)n + 0.5);

	if (n <= 0)
		return 0;
	return v[i < 1 ? 0 : i > n ? n - 1 : i - 1];
}

static int run(struct db *db, const struct opts *o, struct samples *s)
{
	unsigned *ids = xcalloc((size_t)o->pick, sizeof(*ids));
	struct db_url *rows = xcalloc((size_t)o->batch, sizeof(*rows));
	int rc = 0;

	for (s->n = 0; s->n < o->rounds; s->n++) {
		double t0 = now_monotonic(), t1, t2, t3;
		int ns, got;

		ns = db_pick_sites(db, (int)o->rank, (int)o->pick, ids);
		t1 = now_monotonic();
		if (ns < 0) {
			rc = -1;
			goto out;
		}
		if (!ns) {
			fprintf(stderr, "claim-load: no site has a due URL after %ld rounds\n",
			        s->n);
			goto out;
		}
		got = db_claim_site_urls(db, (int)o->rank, ids[0], (int)o->batch, LEASE_SECONDS,
		                         rows);
		t2 = now_monotonic();
		if (got < 0 || db_release_site_after(db, (int)o->rank, ids[0], 0)) {
			rc = -1;
			goto out;
		}
		t3 = now_monotonic();
		s->claimed += got;
		s->empty += !got;
		s->ms[PICK][s->n] = 1000 * (t1 - t0);
		s->ms[CLAIM][s->n] = 1000 * (t2 - t1);
		s->ms[RELEASE][s->n] = 1000 * (t3 - t2);
		s->ms[ROUND][s->n] = 1000 * (t3 - t0);
	}
out:
	free(ids);
	free(rows);
	return rc;
}

static void report(struct samples *s)
{
	printf("%-38s %7s %9s %9s %9s %9s\n", "step", "n", "p50 ms", "p99 ms", "max ms", "mean ms");
	for (int k = 0; k < N_STEPS; k++) {
		double sum = 0;

		for (long i = 0; i < s->n; i++)
			sum += s->ms[k][i];
		qsort(s->ms[k], (size_t)s->n, sizeof(double), cmp_double);
		printf("%-38s %7ld %9.3f %9.3f %9.3f %9.3f\n", step_name[k], s->n,
		       pct(s->ms[k], s->n, 0.50), pct(s->ms[k], s->n, 0.99),
		       s->n ? s->ms[k][s->n - 1] : 0.0, s->n ? sum / (double)s->n : 0.0);
	}
	printf("claimed %ld URL(s) in %ld round(s), %ld round(s) claimed none\n", s->claimed, s->n,
	       s->empty);
}

static int parse_opt(const char *name, const char *v, long lo, long hi, long *out)
{
	if (parse_long(v, lo, hi, out))
		return error("claim-load: %s wants a number from %ld to %ld: %s", name, lo, hi, v);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: claim-load [-r ROUNDS] [-b BATCH] [-p PICK] [-k RANK] CONFIG\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = {2000, 32, 64, 1, NULL};
	struct samples s = {0};
	struct buf err = BUF_INIT(4096);
	struct conf *c = NULL;
	struct db *db = NULL;
	char *sock = NULL; /* the embedded server's, used when there is no DBAddr */
	int opt, rc = 1;

	log_set_prog("claim-load");
	log_set_level(LOG_WARN);
	while ((opt = getopt(argc, argv, "r:b:p:k:")) != -1) {
		int bad;

		switch (opt) {
		case 'r':
			bad = parse_opt("-r", optarg, 1, 10000000, &o.rounds);
			break;
		case 'b':
			bad = parse_opt("-b", optarg, 1, BATCH_LIMIT, &o.batch);
			break;
		case 'p':
			bad = parse_opt("-p", optarg, 1, PICK_LIMIT, &o.pick);
			break;
		case 'k':
			bad = parse_opt("-k", optarg, 0, 32767, &o.rank);
			break;
		default:
			return usage();
		}
		if (bad)
			return 2;
	}
	if (optind != argc - 1)
		return usage();
	o.conf = argv[optind];
	if (conf_load(o.conf, CONF_INDEXER, &c, &err)) {
		fprintf(stderr, "claim-load: %s\n", buf_str(&err));
		goto out;
	}
	sock = dbserver_socket_path(c->data_dir);
	if (db_open(c, sock, 10, &db))
		goto out;
	for (int k = 0; k < N_STEPS; k++)
		s.ms[k] = xcalloc((size_t)o.rounds, sizeof(double));
	if (!run(db, &o, &s)) {
		report(&s);
		rc = 0;
	}
out:
	for (int k = 0; k < N_STEPS; k++)
		free(s.ms[k]);
	db_close(db);
	free(sock);
	conf_free(c);
	buf_free(&err);
	return rc;
}
