/* seen.h - the rank's seen-set: normalised URL -> url_id, in bounded memory.
 *
 * Links the rank has met before cost no database query (doc/CRAWL.md,
 * "Links and the seen-set").  Two parts:
 *  - an exact cache keyed by a 64-bit hash of the URL (a collision, about
 *    2^-63 per pair, would give a link the wrong id: accepted): at most
 *    `max` entries of 12 bytes in a table of at most 2 max slots; when full,
 *    CLOCK eviction (a second chance for every entry looked up since the
 *    hand last passed) keeps the URLs in use, such as the index pages every
 *    page links to;
 *  - from the cache's first eviction on, a Bloom filter (bloom.h) of every
 *    URL ever put, filled from the cache at that moment: a URL the cache
 *    does not hold is then "certainly never put" or "maybe put".
 * Not thread-safe.
 */
#ifndef MPSEEK_SEEN_H
#define MPSEEK_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct seen;

struct seen *seen_new(size_t max);
void seen_free(struct seen *s);                 /* accepts NULL */
/* The 64-bit key of a URL in the cache and the filter (FNV-1a, then
 * splitmix64's finaliser; never 0, its low bit clear: seen.c keeps a flag there). */
uint64_t seen_hash(const char *s, size_t n);
/* Keep a Bloom filter for `urls` URLs at false-positive rate fp once the
 * cache evicts (urls 0: none; then a URL not cached is always "new"). */
void seen_filter(struct seen *s, uint64_t urls, double fp);
/* The url_id cached for url, or 0. */
uint32_t seen_get(struct seen *s, const char *url, size_t len);
/* seen_get(), and for a URL not cached *maybe: true when it may have been
 * put before (the filter says maybe), false when it certainly was not
 * (nothing evicted yet, or the filter says no) or no filter can tell. */
uint32_t seen_lookup(struct seen *s, const char *url, size_t len, bool *maybe);
/* Remember url -> id (id != 0); replaces an earlier id. */
void seen_put(struct seen *s, const char *url, size_t len, uint32_t id);
/* n of the "maybe" answers were for URLs the database did not have. */
void seen_false_positives(struct seen *s, uint64_t n);
size_t seen_count(const struct seen *s);

struct seen_stats {
	size_t entries, max;
	uint64_t evicted;       /* entries dropped by CLOCK */
	bool filter;            /* a filter exists (made at the first eviction) */
	uint64_t filter_bits, filter_set, filter_added;
	unsigned filter_k;
	double filter_fill, predicted_fp;
	uint64_t asked;         /* seen_lookup() misses the filter answered */
	uint64_t maybe;         /* of them "maybe" */
	uint64_t false_pos;     /* of them not in the database (seen_false_positives()) */
	double measured_fp;     /* false_pos / (asked - maybe + false_pos), -1 = no data */
};
void seen_stats(const struct seen *s, struct seen_stats *st);

#endif
