/* test-recrawl.c - the arithmetic of recrawl by value (include/recrawl.h):
 * the change-rate estimate on known sequences and on simulated Poisson
 * changes seen at irregular intervals, the prior of a new page, V and its
 * inverse, the freshness formula against V (the optimality condition), and
 * the multipliers holding a host's and the crawl's rate on a toy, and a
 * host's Retry-After as its rate limit, held and let go.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "recrawl.h"
#include "tap.h"

/* splitmix64: the same numbers on every machine. */
static double uniform(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) / 9007199254740992.0;
}

static bool near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

static void test_prior(void)
{
	struct recrawl_hist h = { 0 };
	double d0 = 1.0 / 86400;

	ok(near(recrawl_delta(&h, d0, 1), d0, 1e-6), "no history: the prior %g",
	   recrawl_delta(&h, d0, 1));
	recrawl_observe(&h, 10 * 86400, false);
	ok(near(recrawl_delta(&h, d0, 1), 1.0 / (86400 + 10 * 86400), 1e-6),
	   "ten days unchanged: w/(w/prior + U)");
	recrawl_observe(&h, 0, true);
	recrawl_observe(&h, -5, true);
	ok(h.fetches == 1 && h.changes == 0, "intervals <= 0 are ignored");
}

/* N regular intervals of I with C changed: the MLE is -ln(1 - C/N)/I. */
static void test_regular(void)
{
	static const struct {
		int n, c;
		double iv;
	} cases[] = { { 100, 50, 3600 }, { 40, 10, 86400 }, { 300, 270, 600 }, { 20, 1, 7200 } };

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct recrawl_hist h = { 0 };
		double want = -log(1.0 - (double)cases[k].c / cases[k].n) / cases[k].iv, got;

		for (int i = 0; i < cases[k].n; i++)
			recrawl_observe(&h, cases[k].iv, i < cases[k].c);
		got = recrawl_delta(&h, 1.0 / 86400, 1e-6);
		/* The changed interval counts as its bin's middle: within 2^(1/4). */
		ok(near(got, want, 0.2), "regular %d/%d at %.0f s: %.3g (MLE %.3g)", cases[k].c,
		   cases[k].n, cases[k].iv, got, want);
	}
}

/* Poisson changes of rate delta, fetches at intervals uniform in [a, b]. */
static double simulate(double delta, double a, double b, int n, uint64_t seed)
{
	struct recrawl_hist h = { 0 };
	uint64_t s = seed;

	for (int i = 0; i < n; i++) {
		double iv = a + (b - a) * uniform(&s);
		double first = -log(uniform(&s)) / delta;

		recrawl_observe(&h, iv, first <= iv);
	}
	return recrawl_delta(&h, 1.0 / 86400, 1);
}

static void test_poisson(void)
{
	static const struct {
		double delta, a, b;
	} cases[] = { { 1.0 / 3600, 300, 14400 },
		      { 1.0 / 86400, 3600, 3 * 86400 },
		      { 1.0 / (7 * 86400), 86400, 20 * 86400 },
		      { 1.0 / 600, 60, 3600 } };

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		double got = simulate(cases[k].delta, cases[k].a, cases[k].b, 4000, 42 + k);

		ok(near(got, cases[k].delta, 0.1), "Poisson 1/%.0f s at [%.0f, %.0f] s: 1/%.0f s",
		   1 / cases[k].delta, cases[k].a, cases[k].b, 1 / got);
	}
}

static void test_halving(void)
{
	struct recrawl_hist h = { 0 }, back = { 0 };
	unsigned char blob[RECRAWL_BLOB_LEN];
	double before, after;

	for (int i = 0; i < 65534; i++)
		recrawl_observe(&h, 3600, i % 2 == 0);
	before = recrawl_delta(&h, 1.0 / 86400, 1);
	for (int i = 0; i < 4; i++)
		recrawl_observe(&h, 3600, true), recrawl_observe(&h, 3600, false);
	after = recrawl_delta(&h, 1.0 / 86400, 1);
	ok(h.changes < 40000 && near(after, before, 0.01), "a full bin halves: %u changes, %g ~ %g",
	   h.changes, after, before);
	recrawl_hist_pack(&h, blob);
	recrawl_hist_unpack(&back, blob, sizeof(blob));
	ok(!memcmp(back.bins, h.bins, sizeof(h.bins)), "blob round trip");
	recrawl_hist_unpack(&back, blob, 3);
	ok(back.bins[0] == h.bins[0] && back.bins[1] == 0, "a short blob leaves bins 0");
}

static void test_value(void)
{
	double omega = 3, delta = 1.0 / 3600, prev = -1;
	bool rising = true;

	ok(recrawl_value(omega, delta, 0) == 0, "V(0) = 0");
	for (double t = 1; t < 1e6; t *= 1.5) {
		double v = recrawl_value(omega, delta, t);

		/* Strictly below 40 changes; then equal to ω/δ in doubles. */
		rising = rising && (v > prev || (t * delta > 40 && v >= prev));
		prev = v;
	}
	ok(rising && near(prev, omega / delta, 1e-6), "V rises to omega/delta");
	for (double f = 0.01; f < 1; f += 0.1) {
		double lam = f * omega / delta, tau = recrawl_due(omega, delta, lam);

		ok(near(recrawl_value(omega, delta, tau), lam, 1e-9), "V(tau*) = %.2f omega/delta", f);
	}
	ok(near(recrawl_value(omega, delta, recrawl_due(omega, delta, 1e-6)), 1e-6, 1e-6),
	   "tau* of a tiny lambda");
	ok(recrawl_due(omega, delta, omega / delta) == HUGE_VAL, "lambda >= omega/delta: never");
	ok(recrawl_due(omega, 0, 1) == HUGE_VAL && recrawl_due(omega, delta, 0) == 0,
	   "delta 0: never; lambda 0: now");
	/* C(f) = omega F(delta, f) is the value of fetching at rate f; the
	 * optimum has C'(f) = lambda, and C'(f) is V(1/f). */
	for (double f = 1e-5; f < 1e-2; f *= 4) {
		double h = f * 1e-5;
		double dc = omega * (recrawl_freshness(delta, f + h) - recrawl_freshness(delta, f - h)) /
			    (2 * h);

		ok(near(dc, recrawl_value(omega, delta, 1 / f), 1e-4), "C'(%g) = V(1/f)", f);
	}
	ok(near(recrawl_freshness(delta, 1.0 / 3600), 1 - exp(-1), 1e-12),
	   "F at one fetch per change = 1 - 1/e");
}

/* Two hosts, A allowing 1 fetch per 60 s and B 1 per 10 s, the crawl 1 per
 * 20 s in all; each page's rate is 1/τ*(λ_host + λ_0) within [1 h, 30 d]. */
struct toy {
	double omega, delta;
	int host;
};

static void toy_rates(const struct toy *t, int n, const double *lam, double l0, double *r)
{
	r[0] = r[1] = 0;
	for (int i = 0; i < n; i++) {
		double tau = recrawl_due(t[i].omega, t[i].delta, lam[t[i].host] + l0);

		tau = tau < 3600 ? 3600 : tau > 30 * 86400 ? 30 * 86400 : tau;
		r[t[i].host] += 1 / tau;
	}
}

static void test_lambda(void)
{
	struct toy t[400];
	uint64_t s = 7;
	double lam[2] = { 1, 1 }, l0 = 1, r[2], k[2] = { 1.0 / 60, 1.0 / 10 }, k0 = 1.0 / 20;

	for (int i = 0; i < 400; i++) {
		t[i].omega = 1 + 9 * uniform(&s);
		t[i].delta = exp(log(1.0 / 600) + uniform(&s) * log(600.0 / (30 * 86400)));
		t[i].host = i % 2;
	}
	for (int it = 0; it < 3000; it++) {
		toy_rates(t, 400, lam, l0, r);
		for (int h = 0; h < 2; h++)
			lam[h] = recrawl_lambda_step(lam[h], r[h], k[h], 0.05, 1e-3, 1e12);
		l0 = recrawl_lambda_step(l0, r[0] + r[1], k0, 0.05, 1e-3, 1e12);
	}
	toy_rates(t, 400, lam, l0, r);
	diag("lambda A %g B %g 0 %g; rate A %g B %g", lam[0], lam[1], l0, r[0], r[1]);
	ok(r[0] <= k[0] * 1.02, "host A within its rate: %g <= %g", r[0], k[0]);
	ok(near(r[0] + r[1], k0, 0.02), "the crawl at its rate: %g ~ %g", r[0] + r[1], k0);
	ok(near(r[0], k[0], 0.02), "host A, the tighter, held at its limit");
	ok(lam[1] < 0.01 * l0, "host B's multiplier idle: %g", lam[1]);
}

static void test_tick(void)
{
	struct recrawl_limit l = { .lambda = 10, .limit = 100 };
	double e;

	ok(recrawl_epoch(&l) == RECRAWL_EPOCH_MIN && (l.limit = 0.01, recrawl_epoch(&l) == 2500),
	   "an epoch: 25 fetches at the limit, at least RECRAWL_EPOCH_MIN");
	e = recrawl_epoch(&l);
	ok(!recrawl_limit_tick(&l, 1000, 0) && !recrawl_limit_tick(&l, 1000 + e - 1, 0),
	   "no step inside the epoch");
	l.fetched = 25;
	ok(recrawl_limit_tick(&l, 1000 + e, 40) && l.lambda > 10,
	   "demand over the limit (a backlog grew): lambda rises to %g", l.lambda);
	l.fetched = 25;
	ok(recrawl_limit_tick(&l, 1000 + 2 * e, 40) && l.lambda > 10,
	   "a standing backlog keeps it rising: %g", l.lambda);
	for (int i = 3; i < 400; i++)
		recrawl_limit_tick(&l, 1000 + i * e, 0);
	ok(l.lambda == RECRAWL_LAMBDA_MIN, "no demand: lambda falls to its floor");
	l.limit = 0;
	l.lambda = 5;
	recrawl_limit_tick(&l, 1e9, 100);
	ok(l.lambda == RECRAWL_LAMBDA_MIN, "no limit: the floor");
}

/* The delay in value mode and the hints of a response (Expires,
 * Cache-Control: max-age, seconds from now): a hint brings the fetch
 * forward, never below MinPeriod (100 s here), and never pushes it back. */
static void test_hint(void)
{
	struct recrawl_hist h = { 0 };
	double tau = recrawl_delay(&h, 1, 50, 100, 1e6, 0);

	ok(tau > 150 && tau < 200, "no hint: tau* %g (prior 1/MinPeriod, lambda half omega/delta)",
	   tau);
	ok(recrawl_delay(&h, 1, 50, 100, 1e6, 130) == 130, "a hint before tau* brings it forward");
	ok(recrawl_delay(&h, 1, 50, 100, 1e6, 500) == tau, "a hint after tau* does not push it back");
	ok(recrawl_delay(&h, 1, 50, 100, 1e6, 5) == 100, "a hint below MinPeriod: MinPeriod");
	ok(recrawl_delay(&h, 1, 1000, 100, 1e6, 0) == 1e6 &&
		   recrawl_delay(&h, 1, 1000, 100, 1e6, 2e6) == 1e6,
	   "never worth it: Period, and a hint beyond Period keeps Period");
	ok(recrawl_delay(&h, 1, 1000, 100, 1e6, 3600) == 3600,
	   "a page not worth fetching before Period comes at its hint");
}

/* k_i from Retry-After: the spacing it asks for, its decay, and the limit
 * beside the politeness delay. */
static void test_retry(void)
{
	struct recrawl_limit l = { .lambda = 2, .limit = 10 };
	double lam;

	ok(recrawl_retry_spacing(120, 0) == 120 && recrawl_retry_spacing(0, 0) == 0,
	   "a Retry-After of 120 s asks for 120 s between fetches; none asks for nothing");
	ok(near(recrawl_retry_spacing(120, RECRAWL_RETRY_HALFLIFE), 60, 1e-12),
	   "it halves every RECRAWL_RETRY_HALFLIFE");
	ok(recrawl_retry_spacing(120, 7 * RECRAWL_RETRY_HALFLIFE) == 0,
	   "below 1 s it is gone: %g", recrawl_retry_spacing(120, 7 * RECRAWL_RETRY_HALFLIFE));
	ok(recrawl_retry_spacing(1e9, 0) == RECRAWL_RETRY_MAX, "at most RECRAWL_RETRY_MAX");
	ok(recrawl_host_limit(0.5, 0, 0) == 2 && recrawl_host_limit(0, 0, 0) == 0,
	   "k_i without Retry-After: 1/delay, none at 0");
	ok(near(recrawl_host_limit(0.5, 120, 0), 1.0 / 120, 1e-12) &&
		   near(recrawl_host_limit(0, 120, 0), 1.0 / 120, 1e-12),
	   "a Retry-After lowers k_i to one fetch per Retry-After");
	ok(recrawl_host_limit(0.5, 120, 12 * RECRAWL_RETRY_HALFLIFE) == 2 &&
		   recrawl_host_limit(200, 120, 0) == 1.0 / 200,
	   "decayed, or shorter than the delay: the delay's k_i");
	l.limit = recrawl_host_limit(0.1, 60, 0);
	ok(recrawl_limit_refused(&l, 1000, 3) && near(l.lambda, 2 * exp(2 * RECRAWL_GAIN), 1e-12),
	   "a refusal steps lambda up at once: %g", l.lambda);
	ok(l.epoch_end == 1000 + recrawl_epoch(&l) && recrawl_epoch(&l) == 1500 && l.backlog == 3,
	   "and starts an epoch at the new limit (%g s)", recrawl_epoch(&l));
	lam = l.lambda;
	ok(!recrawl_limit_refused(&l, 1100, 3) && l.lambda == lam, "once an epoch only");
	l.fetched = 25;
	ok(recrawl_limit_tick(&l, 2500, 3) && recrawl_limit_refused(&l, 2600, 3),
	   "the next epoch may step again");
}

/* One host of 200 pages (MinPeriod 1 h: at most 0.056 fetches/s wanted) and a
 * delay of 0.1 s (10/s: never binding) refuses a fetch with Retry-After: 60.
 * λ_i, stepped on the rate the schedule gives, holds the lowered k_i; when
 * the Retry-After has decayed, k_i is 10/s again and λ_i falls back to its
 * floor. */
static void test_retry_hold(void)
{
	struct toy t[200];
	uint64_t s = 11;
	double lam = RECRAWL_LAMBDA_MIN, r[2], free_rate, k;

	for (int i = 0; i < 200; i++) {
		t[i].omega = 1 + 9 * uniform(&s);
		t[i].delta = exp(log(1.0 / 600) + uniform(&s) * log(600.0 / (30 * 86400)));
		t[i].host = 0;
	}
	toy_rates(t, 200, &lam, 0, r);
	free_rate = r[0];
	k = recrawl_host_limit(0.1, 60, 0);
	for (int it = 0; it < 3000; it++) {
		toy_rates(t, 200, &lam, 0, r);
		lam = recrawl_lambda_step(lam, r[0], k, 0.05, RECRAWL_LAMBDA_MIN, RECRAWL_LAMBDA_MAX);
	}
	toy_rates(t, 200, &lam, 0, r);
	ok(free_rate > 2 * k && near(r[0], k, 0.02),
	   "Retry-After 60: the host held at %g fetches/s (k_i %g; %g unlimited), lambda %g", r[0], k,
	   free_rate, lam);
	k = recrawl_host_limit(0.1, 60, 8 * RECRAWL_RETRY_HALFLIFE);
	for (int it = 0; it < 3000; it++) {
		toy_rates(t, 200, &lam, 0, r);
		lam = recrawl_lambda_step(lam, r[0], k, 0.05, RECRAWL_LAMBDA_MIN, RECRAWL_LAMBDA_MAX);
	}
	toy_rates(t, 200, &lam, 0, r);
	ok(k == 10 && lam == RECRAWL_LAMBDA_MIN && near(r[0], free_rate, 1e-9),
	   "8 half-lives later k_i is %g again and lambda back at its floor", k);
}

int main(void)
{
	test_prior();
	test_regular();
	test_poisson();
	test_halving();
	test_value();
	test_lambda();
	test_tick();
	test_hint();
	test_retry();
	test_retry_hold();
	return done_testing();
}
