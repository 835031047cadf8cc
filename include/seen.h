/* seen.h - the rank's seen-set: normalised URL -> url_id, in memory.
 *
 * Links the rank has met before cost no database query (doc/CRAWL.md,
 * "Links and the seen-set").
 * Keyed by a 64-bit hash of the URL (a collision, about 2^-64 per pair,
 * would give a link the wrong id: accepted); at most `max` entries of 12
 * bytes; when full, new URLs are not remembered and simply go to the
 * database.  Not thread-safe.
 */
#ifndef MPSEEK_SEEN_H
#define MPSEEK_SEEN_H

#include <stddef.h>
#include <stdint.h>

struct seen;

struct seen *seen_new(size_t max);
void seen_free(struct seen *s);                 /* accepts NULL */
/* The url_id remembered for url, or 0. */
uint32_t seen_get(const struct seen *s, const char *url, size_t len);
/* Remember url -> id (id != 0); replaces an earlier id. */
void seen_put(struct seen *s, const char *url, size_t len, uint32_t id);
size_t seen_count(const struct seen *s);

#endif
