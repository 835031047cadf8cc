/* fuzz-robots.c - libFuzzer target for robots.c: the input is a robots.txt
 * body (parsed for "mpseek" and for no agent) and, separately, a cache blob.
 * Checks: no crash or leak; /robots.txt always allowed; the object rebuilt
 * from its blob answers alike and serialises to the same bytes; any blob
 * that loads serialises back to exactly itself (the format is canonical).
 * Inputs starting with the blob magic are also tried with their checksum
 * fixed, to reach the structural checks.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "robots.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
	if (!cond)
		abort();
}

static void body(const char *text, size_t size, const char *agent, const char *probe)
{
	static const char *const paths[] = {"/",          "/a",         "/private/x", "/x.gif",
	                                    "/a%2Fb?c=d", "/%E3%83%84", "/*$"};
	struct robots *r = robots_parse(text, size, agent), *r2;
	struct buf b1 = BUF_INIT(64u << 20), b2 = BUF_INIT(64u << 20);
	size_t i;

	check(r != NULL);
	check(robots_allowed(r, "/robots.txt"));
	check(robots_crawl_delay(r) <= ROBOTS_MAX_CRAWL_DELAY);
	check(robots_rule_count(r) <= ROBOTS_MAX_RULES);
	check(robots_sitemap_count(r) <= ROBOTS_MAX_SITEMAPS);
	check(robots_serialize(r, &b1) == 0);
	r2 = robots_deserialize(b1.ptr, b1.len);
	check(r2 != NULL);
	check(robots_serialize(r2, &b2) == 0);
	check(b1.len == b2.len && memcmp(b1.ptr, b2.ptr, b1.len) == 0);
	for (i = 0; i < ARRAY_SIZE(paths); i++)
		check(robots_allowed(r, paths[i]) == robots_allowed(r2, paths[i]));
	check(robots_allowed(r, probe) == robots_allowed(r2, probe));
	robots_free(r);
	robots_free(r2);
	buf_free(&b1);
	buf_free(&b2);
}

/* Any blob that loads must serialise back to exactly itself. */
static void blob(const unsigned char *data, size_t size, const char *probe)
{
	struct robots *r = robots_deserialize(data, size);
	struct buf b = BUF_INIT(64u << 20);

	if (!r)
		return;
	check(robots_serialize(r, &b) == 0);
	check(b.len == size && memcmp(b.ptr, data, size) == 0);
	check(robots_allowed(r, "/robots.txt"));
	(void)robots_allowed(r, probe);
	buf_free(&b);
	robots_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	char probe[129];
	struct robots *r;
	bool ni = false, nf = false;
	size_t n = size < sizeof(probe) - 1 ? size : sizeof(probe) - 1;

	memcpy(text, data, size);
	text[size] = '\0';
	/* A path taken from the input itself, so that rules can match it. */
	memcpy(probe, data, n);
	probe[n] = '\0';

	body(text, size, "mpseek", probe);
	body(text, size, NULL, probe);

	blob(data, size, probe);
	if (size >= 24 && memcmp(data, "MPRB", 4) == 0) {
		unsigned char *fixed = xmalloc(size);
		uint32_t h;
		memcpy(fixed, data, size);
		h = fnv1a32(fixed, size - 4);
		fixed[size - 4] = (unsigned char)h;
		fixed[size - 3] = (unsigned char)(h >> 8);
		fixed[size - 2] = (unsigned char)(h >> 16);
		fixed[size - 1] = (unsigned char)(h >> 24);
		blob(fixed, size, probe);
		free(fixed);
	}

	check(robots_meta_parse(text, &ni, &nf) == 0);
	if (size >= 4) {
		int status = (int)((uint32_t)data[0] | (uint32_t)data[1] << 8 |
		                   (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24);
		r = robots_from_status(status, data[0] & 1 ? ROBOTS_STRICT_AUTH : 0);
		check(r && robots_allowed(r, "/robots.txt"));
		(void)robots_policy_name(robots_status_policy(status, 0));
		robots_free(r);
	}
	free(text);
	return 0;
}
