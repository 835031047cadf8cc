/* recrawl.c - the arithmetic of recrawl by value: the change-rate estimate,
 * the crawl value V(τ) and its inverse, freshness, the multiplier step
 * (include/recrawl.h; the model is in doc/CRAWL.md, "Recrawl by value").
 * Owns no state and does no I/O; where the history is stored and when a
 * page is claimed are the crawler's.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "recrawl.h"

/* The bin of an interval, and the interval a bin stands for (its geometric
 * middle: the error is at most a factor 2^(1/4)). */
static int bin_of(double interval)
{
	double b = floor(2.0 * log2(interval));

	if (!(b > 0))
		return 0;
	return b >= RECRAWL_BINS - 1 ? RECRAWL_BINS - 1 : (int)b;
}

static double bin_mid(int b)
{
	return exp2((b + 0.5) / 2.0);
}

void recrawl_observe(struct recrawl_hist *h, double interval, bool changed)
{
	if (!(interval > 0))
		return;
	if (changed) {
		int b = bin_of(interval);

		if (h->bins[b] == UINT16_MAX) {
			/* Halve it all: the likelihood equation keeps its root. */
			for (int i = 0; i < RECRAWL_BINS; i++)
				h->bins[i] /= 2;
			h->unchanged /= 2;
			h->fetches /= 2;
			h->changes /= 2;
		}
		h->bins[b]++;
		h->changes++;
	} else {
		h->unchanged += interval;
	}
	h->fetches++;
}

/* x / (e^x - 1), 1 at 0. */
static double x_over_expm1(double x)
{
	return x < 1e-12 ? 1.0 : x / expm1(x);
}

/* The left side minus the right side of the likelihood equation: falls
 * strictly as δ grows. */
static double score(const struct recrawl_hist *h, double delta, double w, double prior)
{
	double s = w / delta - w / prior - h->unchanged;

	for (int b = 0; b < RECRAWL_BINS; b++)
		if (h->bins[b])
			s += h->bins[b] * x_over_expm1(delta * bin_mid(b)) / delta;
	return s;
}

double recrawl_delta(const struct recrawl_hist *h, double prior_delta, double prior_weight)
{
	double lo = log(1e-12), hi = log(1e3);

	if (!(prior_weight > 0))
		prior_weight = 1e-9;
	if (score(h, exp(lo), prior_weight, prior_delta) <= 0)
		return exp(lo);
	if (score(h, exp(hi), prior_weight, prior_delta) >= 0)
		return exp(hi);
	/* 80 halvings of a 35-wide log range: far below a part in 10^9. */
	for (int i = 0; i < 80; i++) {
		double mid = 0.5 * (lo + hi);

		if (score(h, exp(mid), prior_weight, prior_delta) > 0)
			lo = mid;
		else
			hi = mid;
	}
	return exp(0.5 * (lo + hi));
}

/* g(x) = 1 - e^{-x}(1 + x), so that V(τ) = (ω/δ) g(δτ).  Its series near
 * 0, where the two terms cancel. */
static double g_of(double x)
{
	if (x < 1e-3)
		return x * x * (0.5 - x / 3.0 + x * x / 8.0);
	return -expm1(-x) - x * exp(-x);
}

double recrawl_value(double omega, double delta, double tau)
{
	if (!(delta > 0) || !(tau > 0))
		return 0;
	return omega / delta * g_of(delta * tau);
}

double recrawl_due(double omega, double delta, double lambda)
{
	double y, lo = 0, hi = 1;

	if (!(lambda > 0))
		return 0;
	if (!(delta > 0) || !(omega > 0))
		return HUGE_VAL;
	y = lambda * delta / omega;
	if (y >= 1)
		return HUGE_VAL;
	/* g rises from 0 to 1 (g' = x e^{-x} > 0): bracket, then bisect. */
	while (g_of(hi) < y && hi < 1e6)
		hi *= 2;
	if (g_of(hi) < y)
		return HUGE_VAL;
	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		double mid = 0.5 * (lo + hi);

		if (g_of(mid) < y)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi) / delta;
}

double recrawl_freshness(double delta, double f)
{
	double x;

	if (!(f > 0))
		return 0;
	if (!(delta > 0))
		return 1;
	x = delta / f;
	return x < 1e-9 ? 1 - x / 2 : -expm1(-x) / x;
}

double recrawl_lambda_step(double lambda, double rate, double limit, double gain, double lo,
			   double hi)
{
	double l;

	if (!(limit > 0))
		return hi;
	/* (rate - limit) / limit near the limit, bounded by ±2 far from it, so
	 * that one step never moves λ by more than e^(2 gain). */
	l = (lambda > lo ? lambda : lo) * exp(gain * 2 * (rate - limit) / (rate + limit));
	return l < lo ? lo : l > hi ? hi : l;
}

double recrawl_delay(const struct recrawl_hist *h, double omega, double lambda,
		     double min_period, double period, double hint)
{
	double prior = 1 / (min_period > 1 ? min_period : 1);
	double tau = recrawl_due(omega, recrawl_delta(h, prior, 0.5), lambda);

	if (hint > 0 && hint < tau)
		tau = hint;
	return tau < min_period ? min_period : tau > period ? period : tau;
}

double recrawl_retry_spacing(double retry, double since)
{
	double r;

	if (!(retry > 0))
		return 0;
	r = (retry < RECRAWL_RETRY_MAX ? retry : RECRAWL_RETRY_MAX) *
	    exp2(-(since > 0 ? since : 0) / RECRAWL_RETRY_HALFLIFE);
	return r >= 1 ? r : 0;
}

double recrawl_host_limit(double delay, double retry, double since)
{
	double r = recrawl_retry_spacing(retry, since), d = delay > r ? delay : r;

	return d > 0 ? 1 / d : 0;
}

double recrawl_epoch(const struct recrawl_limit *l)
{
	double e = l->limit > 0 ? RECRAWL_EPOCH_FETCHES / l->limit : RECRAWL_EPOCH_MIN;

	return e > RECRAWL_EPOCH_MIN ? e : RECRAWL_EPOCH_MIN;
}

bool recrawl_limit_tick(struct recrawl_limit *l, double now, long backlog)
{
	double e = recrawl_epoch(l), demand;

	if (!l->epoch_end) {
		l->epoch_end = now + e;
		l->backlog = backlog;
		l->fetched = 0;
	}
	if (now < l->epoch_end)
		return false;
	demand = (l->fetched + backlog - l->backlog + backlog / 2.0) / e;
	if (demand < 0)
		demand = 0;
	l->lambda = l->limit > 0 ? recrawl_lambda_step(l->lambda, demand, l->limit, RECRAWL_GAIN,
						       RECRAWL_LAMBDA_MIN, RECRAWL_LAMBDA_MAX)
				 : RECRAWL_LAMBDA_MIN;
	l->backlog = backlog;
	l->fetched = 0;
	l->epoch_end = now + e;
	l->refused = false;
	return true;
}

bool recrawl_limit_refused(struct recrawl_limit *l, double now, long backlog)
{
	double lambda = l->lambda > RECRAWL_LAMBDA_MIN ? l->lambda : RECRAWL_LAMBDA_MIN;

	if (l->refused && now < l->epoch_end)
		return false;
	lambda *= exp(2 * RECRAWL_GAIN);
	l->lambda = lambda < RECRAWL_LAMBDA_MAX ? lambda : RECRAWL_LAMBDA_MAX;
	/* The epoch restarts: its length follows the new limit, and the
	 * fetches counted under the old one say nothing about it. */
	l->epoch_end = now + recrawl_epoch(l);
	l->fetched = 0;
	l->backlog = backlog;
	l->refused = true;
	return true;
}

void recrawl_hist_pack(const struct recrawl_hist *h, unsigned char *out)
{
	for (int b = 0; b < RECRAWL_BINS; b++) {
		out[2 * b] = (unsigned char)(h->bins[b] & 0xff);
		out[2 * b + 1] = (unsigned char)(h->bins[b] >> 8);
	}
}

void recrawl_hist_unpack(struct recrawl_hist *h, const unsigned char *blob, size_t len)
{
	memset(h->bins, 0, sizeof(h->bins));
	for (int b = 0; b < RECRAWL_BINS && (size_t)(2 * b + 1) < len; b++)
		h->bins[b] = (uint16_t)(blob[2 * b] | blob[2 * b + 1] << 8);
}
