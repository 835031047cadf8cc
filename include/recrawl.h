/* recrawl.h - the arithmetic of recrawl by value (doc/CRAWL.md, "Recrawl by
 * value"): a page's change rate δ estimated from its fetch history, its crawl
 * value V(τ), the due delay τ* at which V reaches the multipliers λ, the
 * expected freshness of a page fetched at a fixed rate, and the step that
 * keeps λ holding a fetch rate.  Pure: no I/O, no global state, reentrant.
 *
 * Units: seconds, and changes or fetches per second.  Values ω are any
 * positive scale; λ has the unit of ω times seconds.
 */
#ifndef MPSEEK_RECRAWL_H
#define MPSEEK_RECRAWL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Changed intervals are counted in bins a factor √2 wide: bin b holds
 * intervals in [2^(b/2), 2^((b+1)/2)) seconds (bin 0 also what is shorter,
 * the last bin also what is longer: 1 s to about 136 years). */
#define RECRAWL_BINS 64
/* recrawl_hist_pack()'s blob: RECRAWL_BINS counts, 2 bytes LE each. */
#define RECRAWL_BLOB_LEN (2 * RECRAWL_BINS)

/* A page's fetch history, bounded: every fetch after the first compares the
 * new MD5 with the old one over the interval since the previous fetch.  The
 * unchanged intervals enter the likelihood only through their sum; the
 * changed ones through I/(e^{δI} - 1), kept as a histogram.  When a bin
 * would overflow, every count and the sum are halved: the estimate is
 * unchanged by that and old history fades. */
struct recrawl_hist {
	uint32_t fetches;          /* intervals observed */
	uint32_t changes;          /* of which changed */
	double unchanged;          /* sum of the unchanged intervals, seconds */
	uint16_t bins[RECRAWL_BINS];
};

/* One more interval of `interval` seconds (<= 0 is ignored), changed or not. */
void recrawl_observe(struct recrawl_hist *h, double interval, bool changed);

/* The change rate (1/s) that maximises the likelihood of h for Poisson
 * changes seen at irregular intervals, with a prior worth `prior_weight`
 * changes around `prior_delta` (> 0): with no history the estimate is
 * prior_delta; with no change seen it falls as w/(w/prior_delta + U).  Solves
 *   Σ_changed I/(e^{δI} - 1) + w/δ = w/prior_delta + Σ_unchanged I
 * by bisection on log δ (the left side falls as δ grows). */
double recrawl_delta(const struct recrawl_hist *h, double prior_delta, double prior_weight);

/* V(τ) = (ω/δ)(1 - e^{-δτ}) - ωτe^{-δτ}: the value of fetching, τ seconds
 * after its last fetch, a page of value ω that changes at rate δ.  Rises
 * from 0 towards ω/δ. */
double recrawl_value(double omega, double delta, double tau);

/* τ* with V(τ*) = lambda: when the page falls due.  0 when lambda <= 0;
 * HUGE_VAL when V never reaches lambda (lambda >= ω/δ, or δ <= 0): the
 * caller clamps it to its bounds. */
double recrawl_due(double omega, double delta, double lambda);

/* The mean freshness of a page changing at rate δ fetched at rate f:
 * F = (f/δ)(1 - e^{-δ/f}), the probability that the copy equals the live
 * page at a moment chosen uniformly. */
double recrawl_freshness(double delta, double f);

/* One step of the multiplier that holds a fetch rate: `rate` measured
 * (fetches falling due per second) against `limit` allowed.  λ moves in
 * log space by gain * 2 (rate - limit) / (rate + limit) (about gain times
 * the relative excess near the limit, at most 2 gain far from it) and stays
 * within [lo, hi]: a
 * crawl that falls due faster than it may fetch raises λ (longer τ*), one
 * with capacity to spare lowers it towards lo (where the lower bound of
 * the delay takes over).  Returns the new λ. */
double recrawl_lambda_step(double lambda, double rate, double limit, double gain, double lo,
			   double hi);

/* The delay until a page's next fetch in value mode: δ from h (the prior
 * 1/min_period worth half a change: a new page is taken to change as fast
 * as it may be fetched, so that it is fetched again soon and its own
 * history takes over), τ* for omega and lambda (λ_host + λ_0),
 * within [min_period, period]; a hint > 0 (Expires, Cache-Control: max-age:
 * seconds from now) brings it forward, never below min_period. */
double recrawl_delay(const struct recrawl_hist *h, double omega, double lambda,
		     double min_period, double period, double hint);

/* A rate limit (a host's k_i or the crawl's k_0) and its multiplier, moved
 * once per epoch of RECRAWL_EPOCH_FETCHES fetches at the limit (at least
 * RECRAWL_EPOCH_MIN seconds): fewer make the count of an epoch too noisy.
 * The demand of an epoch is the pages that fell due in it (those fetched
 * plus the growth of the backlog of due, unfetched pages) plus half the
 * standing backlog, so that a backlog that stays keeps raising λ. */
#define RECRAWL_EPOCH_FETCHES 25
#define RECRAWL_EPOCH_MIN 5.0
#define RECRAWL_GAIN 0.1
#define RECRAWL_LAMBDA_MIN 1e-3
#define RECRAWL_LAMBDA_MAX 1e12
struct recrawl_limit {
	double lambda;             /* λ, within [RECRAWL_LAMBDA_MIN, RECRAWL_LAMBDA_MAX] */
	double limit;              /* fetches per second; <= 0: none (λ stays at its floor) */
	double epoch_end;          /* when the next step is due (0: set at the first tick) */
	long fetched;              /* fetches under the limit in this epoch */
	long backlog;              /* due and unfetched at the last step */
	bool refused;              /* recrawl_limit_refused() stepped in this epoch */
};

/* A host's Retry-After as a limit on its rate.  A 429 or 503 that says
 * "Retry-After: R" tells the crawl that the host is overloaded at the rate it
 * was fetched: its spacing becomes R (at most RECRAWL_RETRY_MAX), which then
 * halves every RECRAWL_RETRY_HALFLIFE seconds and drops out below 1 s (the
 * resolution of Retry-After), so that a host that recovered gets its
 * politeness rate back within hours. */
#define RECRAWL_RETRY_HALFLIFE 3600.0
#define RECRAWL_RETRY_MAX 86400.0

/* The spacing a Retry-After of `retry` seconds given `since` seconds ago
 * still asks for: 0 once it has decayed below 1 s (or none was given). */
double recrawl_retry_spacing(double retry, double since);

/* k_i: the fetches per second host i allows, 1/max(delay, the Retry-After
 * spacing) where delay is its politeness delay (MinDelay raised by
 * Crawl-delay); 0 (no limit) when both are 0. */
double recrawl_host_limit(double delay, double retry, double since);

/* The epoch of l, seconds. */
double recrawl_epoch(const struct recrawl_limit *l);

/* At time now, with `backlog` pages due and unfetched under l: steps λ when
 * the epoch is over and starts the next.  Count fetches in l->fetched.
 * Returns true when λ stepped. */
bool recrawl_limit_tick(struct recrawl_limit *l, double now, long backlog);

/* At time now the host under l refused a fetch with Retry-After (l->limit
 * already lowered to what it asked for): the limit binds, so λ steps up
 * once as for the largest excess (a factor e^(2 RECRAWL_GAIN)) and a new
 * epoch starts at the new limit from `backlog` pages due and unfetched.
 * At most one such step an epoch: a host that keeps refusing raises λ as
 * fast as a backlog would, not once per refusal.  Returns true when λ
 * stepped. */
bool recrawl_limit_refused(struct recrawl_limit *l, double now, long backlog);

/* The histogram as a blob of RECRAWL_BLOB_LEN bytes, and back (a shorter
 * blob leaves the missing bins 0). */
void recrawl_hist_pack(const struct recrawl_hist *h, unsigned char *out);
void recrawl_hist_unpack(struct recrawl_hist *h, const unsigned char *blob, size_t len);

#endif
