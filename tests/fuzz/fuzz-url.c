/* fuzz-url.c - libFuzzer target for url.c.
 *
 * The input is split at its first newline into a base and a reference.
 * Every entry point runs on them, and these invariants are checked (abort on
 * failure): a normal form is at most MAX_URL_LEN bytes of printable ASCII;
 * normalising it again gives it back (fixpoint); url_parse agrees with
 * url_normalize; the site key is a prefix of the normal form and at most
 * MAX_SITE_LEN bytes; a resolved URL is itself a normal form.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "caps.h"
#include "url.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int cond, const char *what, const char *s)
{
	if (!cond) {
		fprintf(stderr, "fuzz-url: %s: \"%s\"\n", what, s);
		abort();
	}
}

/* s is a normal form: bounded, printable, a fixpoint, parsed alike. */
static void check_normal(const char *s)
{
	struct buf again = BUF_INIT(MAX_URL_LEN), site = BUF_INIT(MAX_SITE_LEN);
	const unsigned char *p;
	const char *why = NULL;
	struct url u;

	check(strlen(s) <= MAX_URL_LEN, "normal form too long", s);
	for (p = (const unsigned char *)s; *p; p++)
		check(*p > 0x20 && *p < 0x7f, "control, space or non-ASCII in normal form", s);
	check(strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0, "scheme", s);
	check(!strchr(s, '#'), "fragment in normal form", s);
	check(url_normalize(s, &again, &why) == 0, "normal form refused", s);
	check(strcmp(buf_str(&again), s) == 0, "not a fixpoint", s);
	check(url_parse(s, &u, &why) == 0, "url_parse refuses a normal form", s);
	check(u.href && strcmp(u.href, s) == 0, "url_parse href differs", s);
	check(u.host && u.path && u.path[0] == '/', "url_parse components", s);
	check(u.port >= 1 && u.port <= 65535, "port range", s);
	url_free(&u);
	check(url_site(s, &site, &why) == 0, "url_site refuses a normal form", s);
	check(site.len <= MAX_SITE_LEN && strncmp(s, buf_str(&site), site.len) == 0,
	      "site key is not a bounded prefix", s);
	check(url_same_site(s, buf_str(&site)), "not the same site as its key", s);
	buf_free(&again);
	buf_free(&site);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf out = BUF_INIT(MAX_URL_LEN), tgt = BUF_INIT(MAX_URL_LEN);
	const char *why = NULL, *ref;
	char *in, *nl;
	struct url u;
	int rc;

	if (size > 4 * URL_MAX_INPUT)
		return 0;
	in = xmalloc(size + 1);
	memcpy(in, data, size);
	in[size] = '\0';
	nl = strchr(in, '\n');
	if (nl) {
		*nl = '\0';
		ref = nl + 1;
	} else {
		ref = "";
	}

	rc = url_normalize(in, &out, &why);
	check(rc == 0 || rc == -1 || rc == URL_NOT_CRAWLABLE, "normalize rc", in);
	check(rc == 0 || (out.len == 0 && why), "failure leaves output empty and why set", in);
	if (rc == 0) {
		char *copy = xstrdup(buf_str(&out));
		check_normal(copy);
		check(url_request_target(in, &tgt, &why) == 0 && tgt.ptr[0] == '/', "target", in);
		free(copy);
	}
	check(url_parse(in, &u, &why) == rc, "url_parse and url_normalize disagree", in);
	url_free(&u);
	url_trap_check(in, &why);
	url_is_robots(in);

	rc = url_resolve(in, ref, &out, &why);
	check(rc == 0 || rc == -1 || rc == URL_NOT_CRAWLABLE, "resolve rc", ref);
	check(rc == 0 || (out.len == 0 && why), "resolve failure leaves output empty", ref);
	if (rc == 0) {
		char *copy = xstrdup(buf_str(&out));
		check_normal(copy);
		/* a normal form resolves to itself against any base */
		check(url_resolve(in, copy, &out, &why) == 0 && strcmp(buf_str(&out), copy) == 0,
		      "absolute normal form does not resolve to itself", copy);
		free(copy);
	}
	buf_free(&out);
	buf_free(&tgt);
	free(in);
	return 0;
}
