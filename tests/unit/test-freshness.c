/* test-freshness.c - the freshness simulation of recrawl by value
 * (doc/CRAWL.md, "Recrawl by value"): a synthetic site of pages that change
 * as Poisson processes of known rates and have known values, crawled under
 * a simulated clock at one fetch per slot.  The fixed Period fetches every
 * page once per Period; the value mode schedules with recrawl_delay() from
 * what its own fetches saw (changed or not) and adapts λ to the slot rate
 * with recrawl_limit_tick(), as the crawler does.  Both spend the same number of fetches; the test
 * prints their value-weighted freshness and the optimum of the convex
 * problem, and fails unless value beats Period.  With --optimum K0 it
 * solves the convex problem for the pages on stdin instead (the site of
 * tests/integration/freshness.sh, the same run through the real crawler).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recrawl.h"
#include "tap.h"

#define NPAGES 100
#define DAY 86400.0
#define HORIZON (120 * DAY)
#define WARMUP (20 * DAY)      /* freshness is measured after it */
#define PERIOD_FIXED DAY       /* the fixed mode: every page once a day */
#define MIN_PERIOD 3600.0      /* the value mode's bounds */
#define MAX_PERIOD (30 * DAY)

struct page {
	double delta, omega;       /* the truth */
	double last, fresh_until;  /* last fetch; the first change after it */
	double due;                /* value mode: next due time */
	double fresh;              /* seconds fresh inside the measured window */
	struct recrawl_hist h;
};

static double uniform(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) / 9007199254740992.0;
}

static void site_make(struct page *p, uint64_t seed)
{
	uint64_t s = seed;

	memset(p, 0, NPAGES * sizeof(*p));
	for (int i = 0; i < NPAGES; i++) {
		/* Changes from every 15 minutes to every 60 days; values 1 to 10
		 * independent of them. */
		p[i].delta = exp(log(1 / 900.0) + uniform(&s) * log(900.0 / (60 * DAY)));
		p[i].omega = exp(uniform(&s) * log(10.0));
	}
}

/* Fetch page p at time t: account its freshness since the last fetch and
 * draw its first change after this one.  Returns whether it had changed. */
static bool fetch(struct page *p, double t, uint64_t *s)
{
	double from = p->last > WARMUP ? p->last : WARMUP;
	double to = p->fresh_until < t ? p->fresh_until : t;
	bool changed = p->fresh_until < t;

	if (to > from)
		p->fresh += to - from;
	p->last = t;
	p->fresh_until = t - log(uniform(s)) / p->delta;
	return changed;
}

static double weighted(struct page *p)
{
	double num = 0, den = 0;

	for (int i = 0; i < NPAGES; i++) {
		num += p[i].omega * p[i].fresh;
		den += p[i].omega * (HORIZON - WARMUP);
	}
	return num / den;
}

/* Close the window at HORIZON without a fetch. */
static void close_out(struct page *p)
{
	for (int i = 0; i < NPAGES; i++) {
		double from = p[i].last > WARMUP ? p[i].last : WARMUP;
		double to = p[i].fresh_until < HORIZON ? p[i].fresh_until : HORIZON;

		if (to > from)
			p[i].fresh += to - from;
	}
}

/* Every page once per PERIOD_FIXED, phases spread over the period. */
static double run_period(long *fetches)
{
	struct page p[NPAGES];
	uint64_t s = 99;

	site_make(p, 1);
	*fetches = 0;
	for (int i = 0; i < NPAGES; i++)
		fetch(&p[i], -PERIOD_FIXED * i / NPAGES, &s);
	for (long k = 0;; k++) {
		int i = (int)(k % NPAGES);
		double t = PERIOD_FIXED * (double)k / NPAGES;

		if (t >= HORIZON)
			break;
		fetch(&p[i], t, &s);
		(*fetches)++;
	}
	close_out(p);
	return weighted(p);
}

/* One fetch per slot of PERIOD_FIXED / NPAGES: the due page with the
 * earliest due time (the claim order), none when nothing is due.  The
 * crawl's limit is the slot rate; λ follows it through
 * recrawl_limit_tick(), as in the crawler. */
static double run_value(long *fetches, double *lambda_end)
{
	struct page p[NPAGES];
	uint64_t s = 99;
	double slot = PERIOD_FIXED / NPAGES;
	struct recrawl_limit k0 = { .lambda = 1, .limit = 1 / slot };

	site_make(p, 1);
	*fetches = 0;
	for (int i = 0; i < NPAGES; i++) {
		fetch(&p[i], -slot * i, &s);
		p[i].due = -slot * i + MIN_PERIOD;
	}
	for (double t = 0; t < HORIZON; t += slot) {
		int best = -1;
		long backlog = 0;

		for (int i = 0; i < NPAGES; i++)
			if (p[i].due <= t && (best < 0 || p[i].due < p[best].due))
				best = i;
		if (best >= 0) {
			double iv = t - p[best].last; /* before fetch() moves it */

			recrawl_observe(&p[best].h, iv, fetch(&p[best], t, &s));
			p[best].due = t + recrawl_delay(&p[best].h, p[best].omega, k0.lambda,
							MIN_PERIOD, MAX_PERIOD, 0);
			(*fetches)++;
			k0.fetched++;
		}
		for (int i = 0; i < NPAGES; i++)
			backlog += p[i].due <= t;
		recrawl_limit_tick(&k0, t, backlog);
	}
	close_out(p);
	*lambda_end = k0.lambda;
	return weighted(p);
}

/* The convex problem: maximise Σ ω F(δ, f) over n pages subject to
 * Σ f <= k0; its optimum has V(1/f) = λ for each page fetched (f = 0 for
 * those whose ω/δ stays below λ), λ found by bisection on log λ.  Returns
 * the optimum's value-weighted freshness. */
static double optimum_of(int n, const double *delta, const double *omega, double k0,
			 double *lambda_out)
{
	double lo = log(1e-6), hi = log(1e15), num = 0, den = 0;

	for (int it = 0; it < 200; it++) {
		double mid = 0.5 * (lo + hi), rate = 0;

		for (int i = 0; i < n; i++)
			rate += 1 / recrawl_due(omega[i], delta[i], exp(mid));
		if (rate > k0)
			lo = mid;
		else
			hi = mid;
	}
	*lambda_out = exp(hi);
	for (int i = 0; i < n; i++) {
		double tau = recrawl_due(omega[i], delta[i], *lambda_out);

		num += omega[i] * recrawl_freshness(delta[i], 1 / tau);
		den += omega[i];
	}
	return num / den;
}

/* The optimum on the simulated site. */
static double optimum(double *lambda_out)
{
	struct page p[NPAGES];
	double delta[NPAGES], omega[NPAGES];

	site_make(p, 1);
	for (int i = 0; i < NPAGES; i++) {
		delta[i] = p[i].delta;
		omega[i] = p[i].omega;
	}
	return optimum_of(NPAGES, delta, omega, NPAGES / PERIOD_FIXED, lambda_out);
}

/* --optimum K0: the optimum for the pages on stdin, a line "δ ω" each (the
 * site of tests/integration/freshness.sh); prints "optimum F lambda L
 * period P", P the freshness of the fixed Period at the same budget (every
 * page once per n/K0), and, at the optimum's λ, each page's delay. */
static int optimum_cli(const char *k0_arg)
{
	double delta[1024], omega[1024], k0 = atof(k0_arg), lambda, f, uniform_num = 0, den = 0;
	int n = 0;

	while (n < 1024 && scanf("%lf %lf", &delta[n], &omega[n]) == 2)
		if (delta[n] > 0 && omega[n] > 0)
			n++;
	if (!n || !(k0 > 0)) {
		fprintf(stderr, "test-freshness --optimum K0 < \"delta omega\" lines\n");
		return 2;
	}
	f = optimum_of(n, delta, omega, k0, &lambda);
	for (int i = 0; i < n; i++) {
		uniform_num += omega[i] * recrawl_freshness(delta[i], k0 / n);
		den += omega[i];
	}
	printf("optimum %.4f lambda %.6g period %.4f\n", f, lambda, uniform_num / den);
	for (int i = 0; i < n; i++)
		printf("tau %g %g %.3f\n", delta[i], omega[i], recrawl_due(omega[i], delta[i], lambda));
	return 0;
}

/* The fixed Period's expected freshness: Σ ω F(δ, 1/Period) / Σ ω. */
static double period_expected(void)
{
	struct page p[NPAGES];
	double num = 0, den = 0;

	site_make(p, 1);
	for (int i = 0; i < NPAGES; i++) {
		num += p[i].omega * recrawl_freshness(p[i].delta, 1 / PERIOD_FIXED);
		den += p[i].omega;
	}
	return num / den;
}

int main(int argc, char **argv)
{
	long nper, nval;
	double lval, lopt, fper, fval, fopt, fexp;

	if (argc == 3 && !strcmp(argv[1], "--optimum"))
		return optimum_cli(argv[2]);
	fper = run_period(&nper);
	fval = run_value(&nval, &lval);
	fopt = optimum(&lopt);
	fexp = period_expected();

	printf("# %d pages, %.0f days, measured after day %.0f, %.0f fetches/day\n", NPAGES,
	       HORIZON / DAY, WARMUP / DAY, NPAGES * DAY / PERIOD_FIXED);
	printf("# fixed Period %.0f s: %ld fetches, freshness %.4f (expected %.4f)\n", PERIOD_FIXED,
	       nper, fper, fexp);
	printf("# value mode: %ld fetches, freshness %.4f (lambda %.4g)\n", nval, fval, lval);
	printf("# convex optimum: freshness %.4f (lambda %.4g)\n", fopt, lopt);
	ok(fabs(fper - fexp) < 0.02, "the simulated Period matches its expectation");
	ok(nval <= nper, "value mode spends no more fetches: %ld <= %ld", nval, nper);
	ok(nval >= nper * 0.9, "and uses its budget: %ld of %ld", nval, nper);
	ok(fval > fper + 0.03, "value-ordered beats the fixed Period: %.4f > %.4f", fval, fper);
	ok(fval <= fopt + 0.02, "and stays at or below the optimum: %.4f <= %.4f", fval, fopt);
	return done_testing();
}
