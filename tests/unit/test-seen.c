/* test-seen.c - the rank's seen-set (seen.h) and its Bloom filter (bloom.h):
 * the exact cache's answers, replacement and CLOCK eviction from a table of
 * steps; every entry the cache counts still found after thousands of
 * evictions (backward-shift deletion); "maybe" for every URL put and
 * evicted since; the filter's sizes; and its false-positive rate measured
 * on 10^6 URLs never added against the rate predicted from its fill. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloom.h"
#include "seen.h"
#include "tap.h"
#include "util.h"

/* A URL per number, shaped like a crawl's: n = 0, 1, ... never repeat. */
static size_t url(char *b, size_t cap, unsigned long n)
{
	return (size_t)snprintf(b, cap, "http://host%lu.example/section/%lu/page-%lu.html",
				n % 64, n / 1000, n);
}

static uint32_t get(struct seen *s, const char *u)
{
	return seen_get(s, u, strlen(u));
}

static void put(struct seen *s, const char *u, uint32_t id)
{
	seen_put(s, u, strlen(u), id);
}

/* --- the cache, step by step ------------------------------------------------ */

enum op {
	PUT,      /* put a -> id */
	GET,      /* get a == id (0: not cached) */
	COUNT,    /* seen_count() == id */
	EVICTED,  /* evictions so far == id */
	ONE_OF,   /* exactly id of the URLs a, b are cached */
};

struct step {
	enum op op;
	const char *a, *b;
	uint32_t id;
};

struct script {
	const char *name;
	size_t max;
	struct step steps[24];
};

static const struct script scripts[] = {
	{ "puts and gets below the cap", 8, {
		{ PUT, "http://a/", NULL, 1 }, { PUT, "http://b/", NULL, 2 },
		{ GET, "http://a/", NULL, 1 }, { GET, "http://b/", NULL, 2 },
		{ GET, "http://c/", NULL, 0 }, { COUNT, NULL, NULL, 2 },
		{ PUT, "http://a/", NULL, 7 }, { GET, "http://a/", NULL, 7 },
		{ COUNT, NULL, NULL, 2 }, { PUT, "http://d/", NULL, 0 },
		{ GET, "http://d/", NULL, 0 }, { COUNT, NULL, NULL, 2 },
		{ EVICTED, NULL, NULL, 0 }, { 0, NULL, NULL, 0 } } },
	{ "full: CLOCK spares the entries looked up", 4, {
		{ PUT, "http://a/", NULL, 1 }, { PUT, "http://b/", NULL, 2 },
		{ PUT, "http://c/", NULL, 3 }, { PUT, "http://d/", NULL, 4 },
		{ GET, "http://a/", NULL, 1 }, { GET, "http://b/", NULL, 2 },
		{ PUT, "http://e/", NULL, 5 }, { COUNT, NULL, NULL, 4 },
		{ EVICTED, NULL, NULL, 1 }, { GET, "http://e/", NULL, 5 },
		{ GET, "http://a/", NULL, 1 }, { GET, "http://b/", NULL, 2 },
		{ ONE_OF, "http://c/", "http://d/", 1 }, { 0, NULL, NULL, 0 } } },
	{ "full: a known URL's new id evicts nothing", 2, {
		{ PUT, "http://a/", NULL, 1 }, { PUT, "http://b/", NULL, 2 },
		{ PUT, "http://b/", NULL, 9 }, { EVICTED, NULL, NULL, 0 },
		{ GET, "http://b/", NULL, 9 }, { GET, "http://a/", NULL, 1 },
		{ PUT, "http://c/", NULL, 3 }, { EVICTED, NULL, NULL, 1 },
		{ GET, "http://c/", NULL, 3 }, { ONE_OF, "http://a/", "http://b/", 1 },
		{ 0, NULL, NULL, 0 } } },
	{ "a cap of one", 1, {
		{ PUT, "http://a/", NULL, 1 }, { PUT, "http://b/", NULL, 2 },
		{ GET, "http://b/", NULL, 2 }, { GET, "http://a/", NULL, 0 },
		{ COUNT, NULL, NULL, 1 }, { EVICTED, NULL, NULL, 1 }, { 0, NULL, NULL, 0 } } },
};

static void run_script(const struct script *sc)
{
	struct seen *s = seen_new(sc->max);
	struct seen_stats st;

	for (const struct step *p = sc->steps; p->a || p->op; p++) {
		switch (p->op) {
		case PUT:
			put(s, p->a, p->id);
			break;
		case GET:
			is_int(get(s, p->a), p->id, "%s: get %s", sc->name, p->a);
			break;
		case COUNT:
			is_int(seen_count(s), p->id, "%s: count", sc->name);
			break;
		case EVICTED:
			seen_stats(s, &st);
			is_int(st.evicted, p->id, "%s: evicted", sc->name);
			break;
		case ONE_OF:
			is_int((get(s, p->a) != 0) + (get(s, p->b) != 0), p->id,
			       "%s: cached of %s and %s", sc->name, p->a, p->b);
			break;
		}
	}
	seen_free(s);
}

/* Many evictions: every entry counted is found with its id (a broken
 * backward shift loses entries behind a hole), the URL put last is always
 * there, and a URL looked up after every put (an index page every page
 * links to) is never evicted. */
static void churn(size_t max, unsigned long n, bool hot_url)
{
	struct seen *s = seen_new(max);
	char u[128], hot[] = "http://host0.example/";
	unsigned long lost_last = 0, lost_hot = 0, found = 0, wrong = 0;

	put(s, hot, 4000000000u);
	for (unsigned long i = 0; i < n; i++) {
		size_t len = url(u, sizeof(u), i);

		seen_put(s, u, len, (uint32_t)i + 1);
		/* A lookup gives the entry its second chance: either the URL
		 * put last is looked up, or the hot one. */
		if (hot_url)
			lost_hot += get(s, hot) != 4000000000u;
		else
			lost_last += seen_get(s, u, len) != (uint32_t)i + 1;
	}
	found = get(s, hot) != 0;
	for (unsigned long i = 0; i < n; i++) {
		size_t len = url(u, sizeof(u), i);
		uint32_t id = seen_get(s, u, len);

		found += id != 0;
		wrong += id && id != (uint32_t)i + 1;
	}
	is_int(seen_count(s), max, "churn %zu/%lu: the cache stays full", max, n);
	is_int(found, seen_count(s), "churn %zu/%lu: every entry counted is found", max, n);
	is_int(wrong, 0, "churn %zu/%lu: every id found is the one put", max, n);
	if (hot_url)
		is_int(lost_hot, 0, "churn %zu/%lu: the URL looked up after every put stays",
		       max, n);
	else
		is_int(lost_last, 0, "churn %zu/%lu: the URL put last is always cached", max, n);
	seen_free(s);
}

/* The filter behind the cache: made at the first eviction from what the
 * cache held, "maybe" for every URL put and evicted since. */
static void filter_behind(bool with_filter)
{
	const size_t max = 1000;
	const unsigned long n = 20000;
	struct seen *s = seen_new(max);
	struct seen_stats st;
	unsigned long missing = 0, said_maybe = 0, strangers = 0;
	const char *what = with_filter ? "with a filter" : "SeenBloomURLs 0";
	char u[128];
	bool maybe;

	if (with_filter)
		seen_filter(s, n, 0.01);
	for (unsigned long i = 0; i < max; i++) {
		size_t len = url(u, sizeof(u), i);

		seen_put(s, u, len, (uint32_t)i + 1);
	}
	{
		size_t len = url(u, sizeof(u), n + 1);

		ok(!seen_lookup(s, u, len, &maybe) && !maybe,
		   "%s: nothing evicted yet: a miss is certainly new", what);
	}
	seen_stats(s, &st);
	ok(!st.filter, "%s: no filter before the first eviction", what);
	for (unsigned long i = max; i < n; i++) {
		size_t len = url(u, sizeof(u), i);

		seen_put(s, u, len, (uint32_t)i + 1);
	}
	for (unsigned long i = 0; i < n; i++) {
		size_t len = url(u, sizeof(u), i);

		if (!seen_lookup(s, u, len, &maybe)) {
			missing++;
			said_maybe += maybe;
		}
	}
	for (unsigned long i = n; i < 2 * n; i++) {
		size_t len = url(u, sizeof(u), i);

		seen_lookup(s, u, len, &maybe);
		strangers += maybe;
	}
	seen_stats(s, &st);
	is_int(missing, n - max, "%s: %lu URLs evicted", what, n - max);
	is_int(st.filter, with_filter, "%s: a filter after the first eviction: %s", what,
	       with_filter ? "yes" : "no");
	if (with_filter) {
		is_int(said_maybe, missing, "%s: every URL evicted is \"maybe\", those put "
		       "before the first eviction too", what);
		ok(st.filter_added > n - n / 50 && st.filter_added <= n,
		   "%s: %llu of the %lu URLs put set bits", what,
		   (unsigned long long)st.filter_added, n);
		ok(strangers > 0 && strangers < n / 50, "%s: %lu of %lu URLs never put said maybe", what,
		   strangers, n);
		seen_false_positives(s, strangers);
		seen_stats(s, &st);
		ok(fabs(st.measured_fp - (double)strangers / (double)n) < 1e-12,
		   "%s: measured false-positive rate %.4f = %lu / %lu", what, st.measured_fp,
		   strangers, n);
	} else {
		is_int(said_maybe + strangers, 0, "%s: a miss is never \"maybe\"", what);
		is_int(st.asked, 0, "%s: no filter asked", what);
	}
	seen_free(s);
}

/* --- the Bloom filter ------------------------------------------------------- */

static void bloom_sizes(void)
{
	static const struct {
		uint64_t items;
		double fp;
		uint64_t bits;
		unsigned k;
	} t[] = {
		/* m = ceil(-n ln p / ln^2 2), rounded up to 64; k = round(m/n ln 2) */
		{ 1000000, 0.01, 9585088, 7 },
		{ 1000, 0.001, 14400, 10 },
		{ 100, 0.5, 192, 1 },
		{ 10, 1e-6, 320, 16 },  /* k 20 capped at 16 */
	};
	struct bloom_info bi;

	ok(bloom_new(0, 0.01) == NULL, "bloom_new(0): no filter");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct bloom *b = bloom_new(t[i].items, t[i].fp);

		bloom_info(b, &bi);
		is_int(bi.bits, t[i].bits, "%llu items at %g: bits",
		       (unsigned long long)t[i].items, t[i].fp);
		is_int(bi.k, t[i].k, "%llu items at %g: k", (unsigned long long)t[i].items,
		       t[i].fp);
		is_int(bi.set + bi.added, 0, "%llu items at %g: empty",
		       (unsigned long long)t[i].items, t[i].fp);
		bloom_free(b);
	}
}

/* The seen-set's key of a URL, as the filter gets it from seen.c. */
static uint64_t key(const char *s, size_t n)
{
	return seen_hash(s, n);
}

/* n URLs added, n others asked: no false negative, and the false positives
 * within 5 standard deviations of the rate predicted from the fill, which is
 * within 10 % of the rate the filter was sized for. */
static void bloom_measured(unsigned long n, double target)
{
	struct bloom *b = bloom_new(n, target);
	struct bloom_info bi;
	unsigned long fn = 0, fp = 0;
	double sd, expect;
	char u[128];

	for (unsigned long i = 0; i < n; i++)
		bloom_add(b, key(u, url(u, sizeof(u), i)));
	for (unsigned long i = 0; i < n; i++)
		fn += !bloom_maybe(b, key(u, url(u, sizeof(u), i)));
	for (unsigned long i = n; i < 2 * n; i++)
		fp += bloom_maybe(b, key(u, url(u, sizeof(u), i)));
	bloom_info(b, &bi);
	expect = bi.predicted_fp * (double)n;
	sd = sqrt((double)n * bi.predicted_fp * (1 - bi.predicted_fp));
	is_int(fn, 0, "%lu URLs at %g: no false negative", n, target);
	ok(fabs(bi.predicted_fp - target) < target / 10,
	   "%lu URLs at %g: predicted %.5f %% (fill %.4f, k %u)", n, target,
	   100 * bi.predicted_fp, bi.fill, bi.k);
	ok(fabs((double)fp - expect) < 5 * sd + 1,
	   "%lu URLs at %g: measured %.5f %% (%lu of %lu), predicted %.5f %% +- %.5f", n, target,
	   100.0 * (double)fp / (double)n, fp, n, 100 * bi.predicted_fp,
	   500 * sd / (double)n);
	/* An item whose every bit was set already (a false positive when it
	 * came) sets none: fewer than the target rate of them. */
	ok(bi.added > n - (unsigned long)((double)n * target) && bi.added <= n,
	   "%lu URLs at %g: %llu added", n, target, (unsigned long long)bi.added);
	bloom_free(b);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		run_script(&scripts[i]);
	churn(1, 1000, false);
	churn(2, 1000, true);
	churn(7, 10000, true);
	churn(7, 10000, false);
	churn(1000, 100000, true);
	churn(4096, 50000, false);
	filter_behind(true);
	filter_behind(false);
	bloom_sizes();
	bloom_measured(1000000, 0.01);
	bloom_measured(100000, 0.001);
	return done_testing();
}
