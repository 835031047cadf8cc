/* crawl_robots.c - a claimed URL's way to the fetcher, robots.txt, and redirects.
 *
 * Owns the admission of a claimed job (config, then the site's robots.txt,
 * fetched first when unknown: the job waits on its site), its submission
 * to the fetcher, the robots.txt responses and the sites' rules, and the
 * outcome of a redirect (HTTP 3xx, and the targets of META refresh and
 * script redirects) with the depth of redirect chains.  Not the rules'
 * parsing (robots.c) nor what a page's body yields (crawl_commit.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "delta.h"
#include "fetch.h"
#include "log.h"
#include "robots.h"
#include "seen.h"
#include "url.h"
#include "util.h"
#include "crawl_int.h"

/* ---- fetching -------------------------------------------------------------------- */

/* Hand job j to the fetcher: conditional when we have validators, with
 * the host's delay (MinDelay raised by Crawl-delay). */
void job_submit(struct crawl *cr, struct job *j)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	bool robots_job = j->kind != JOB_PAGE;
	/* Pages, and robots.txt rows fetched before (not after a redirect):
	 * a 304 keeps the rules (robots_txt_result()). */
	bool conditional = !cr->o->force && j->row.status == 200 &&
			   (j->kind == JOB_PAGE || (j->kind == JOB_ROBOTS_ROW && !j->hops));
	double delay = p->min_delay;
	const struct conf_server *srv = conf_server_for(cr->c, robots_job ? j->fetch_url : j->row.url);
	struct fetch_req req = {
		.url = robots_job ? j->fetch_url : j->row.url,
		.user = j,
		.if_modified_since = conditional && j->row.last_modified[0] ? j->row.last_modified : NULL,
		.if_none_match = conditional && j->row.etag[0] ? j->row.etag : NULL,
		.head = j->head,
		.proxy = p->proxy,
		.userpwd = srv ? srv->auth_basic : NULL,
		.read_timeout = (double)p->read_timeout,
		.max_size = robots_job ? MAX_ROBOTS_BYTES + 1 : 0,
	};

	if (j->site && j->site->robots && robots_crawl_delay(j->site->robots) > delay)
		delay = robots_crawl_delay(j->site->robots);
	req.host_delay = delay;
	fetcher_add(cr->f, &req);
}

/* ---- robots.txt ---------------------------------------------------------------- */

static void site_set_robots(struct crawl *cr, struct site *s, struct robots *r, int status)
{
	struct buf blob = BUF_INIT(MAX_ROBOTS_BYTES * 4);
	double age = robots_max_age(r);
	double delay = robots_crawl_delay_raw(r);
	struct job *w;

	if (s->robots != r)
		robots_free(s->robots);
	s->robots = r;
	s->robots_until = now_wall() + age;
	s->robots_fetching = false;
	if (delay > ROBOTS_MAX_CRAWL_DELAY)
		warning("%s: Crawl-delay %.0f s capped at %.0f s", s->key, delay,
			ROBOTS_MAX_CRAWL_DELAY);
	if (robots_serialize(r, &blob) == 0 &&
	    db_robots_put(cr->db, s->site_id, status, (long)s->robots_until, blob.ptr, blob.len))
		warning("%s: could not store robots.txt in the database", s->key);
	buf_free(&blob);
	/* The URLs that waited for these rules go on. */
	w = s->waiting;
	s->waiting = NULL;
	while (w) {
		struct job *n = w->next;

		w->next = NULL;
		job_admit(cr, w);
		w = n;
	}
}

/* Start fetching robots.txt of site s (internal: no row of ours). */
static void robots_fetch(struct crawl *cr, struct site *s)
{
	struct job *j = xcalloc(1, sizeof(*j));

	j->kind = JOB_ROBOTS_FETCH;
	j->site = s;
	snprintf(j->fetch_url, sizeof(j->fetch_url), "%srobots.txt", s->key);
	strlcpy_(j->row.url, j->fetch_url, sizeof(j->row.url));
	s->robots_fetching = true;
	job_submit(cr, j);
}

/* The rules of site s are known and fresh: 1; being fetched: 0 (j waits
 * on the site); -1 on a database error. */
static int robots_ready(struct crawl *cr, struct site *s, struct job *j)
{
	if (s->robots && s->robots_until > now_wall())
		return 1;
	if (!s->robots_db_checked) {
		void *blob = NULL;
		size_t len = 0;
		long expires = 0;
		int status = 0, rc;

		s->robots_db_checked = true;
		rc = db_robots_get(cr->db, s->site_id, &blob, &len, &expires, &status);
		if (rc < 0)
			return -1;
		if (rc == 1 && expires > (long)time(NULL) && blob) {
			struct robots *r = robots_deserialize(blob, len);

			if (r) {
				robots_free(s->robots);
				s->robots = r;
				s->robots_until = (double)expires;
				free(blob);
				return 1;
			}
		}
		free(blob);
	}
	j->next = s->waiting;
	s->waiting = j;
	if (!s->robots_fetching)
		robots_fetch(cr, s);
	return 0;
}

/* The rules of site s we have, fresh or not: the rank's copy, else the
 * robots table's.  NULL when there are none. */
static struct robots *robots_known(struct crawl *cr, struct site *s)
{
	void *blob = NULL;
	size_t len = 0;
	long expires = 0;
	int status = 0;
	struct robots *r = NULL;

	if (s->robots)
		return s->robots;
	if (db_robots_get(cr->db, s->site_id, &blob, &len, &expires, &status) == 1 && blob)
		r = robots_deserialize(blob, len);
	free(blob);
	return r;
}

/* A redirect of robots.txt: followed (j submitted again, true) unless there
 * are too many or the target is no URL. */
static bool robots_follow(struct crawl *cr, struct job *j, const struct fetch_result *r)
{
	struct buf next = BUF_INIT(MAX_URL_LEN + 1);
	bool again = false;

	if (r->location && j->hops < ROBOTS_MAX_REDIRECTS &&
	    url_resolve(j->fetch_url, r->location, &next, NULL) == 0) {
		debug("%s: robots.txt redirects to %s", j->site->key, buf_str(&next));
		strlcpy_(j->fetch_url, buf_str(&next), sizeof(j->fetch_url));
		j->hops++;
		again = true;
	}
	buf_free(&next);
	if (again)
		job_submit(cr, j);
	return again;
}

/* The rules of site s from response r (status st, policy pol, not KEEP):
 * the body parsed, or what the status implies. */
static struct robots *robots_rules_of(struct crawl *cr, struct site *s,
				      const struct fetch_result *r, int st,
				      enum robots_policy pol)
{
	struct robots *rules;
	char mt[64];

	media_type(r->content_type, mt, sizeof(mt));
	if (pol == ROBOTS_POLICY_PARSE && is_html_type(mt)) {
		/* ASPseek: an HTML "robots.txt" is a soft-404 home page. */
		warning("%s: robots.txt is %s, not text: taken as absent", s->key, mt);
		rules = robots_allow_all();
	} else if (pol == ROBOTS_POLICY_PARSE) {
		rules = robots_parse(r->body.ptr ? r->body.ptr : "", r->body.len, cr->agent);
		if (robots_warnings(rules) & ROBOTS_W_TRUNCATED)
			warning("%s: robots.txt longer than %d bytes: the rest is ignored", s->key,
				MAX_ROBOTS_BYTES);
	} else {
		rules = robots_from_status(st, 0);
		if (robots_is_temporary(rules) && r->err)
			warning("%s: robots.txt unavailable (%s: %s): the site is retried later",
				s->key, fetch_err_name(r->err), r->reason);
		else if (robots_is_temporary(rules))
			warning("%s: robots.txt unavailable (status %ld): the site is retried later",
				s->key, r->status);
	}
	return rules;
}

static void robots_log(const struct job *j, const struct fetch_result *r, enum robots_policy pol,
		       const struct robots *rules)
{
	if (pol == ROBOTS_POLICY_KEEP)
		info("%s: 304 robots.txt not modified, %zu rule(s) kept", j->fetch_url,
		     robots_rule_count(rules));
	else if (strcmp(j->fetch_url, j->row.url))
		info("%s: %ld robots.txt %s, %zu rule(s) (after %d redirect(s), last %s)",
		     j->row.url, r->status, robots_policy_name(pol), robots_rule_count(rules),
		     j->hops, j->fetch_url);
	else
		info("%s: %ld robots.txt %s, %zu rule(s)", j->fetch_url, r->status,
		     robots_policy_name(pol), robots_rule_count(rules));
}

/* The outcome of a claimed robots.txt row: its status, validators and when
 * it is due again. */
static void robots_row_outcome(struct crawl *cr, struct job *j, const struct fetch_result *r,
			       int st, enum robots_policy pol, const struct robots *rules)
{
	struct pending *p = pending_new(cr, j);

	p->d.status = st == 304 ? 200 : st ? st : r->err == FETCH_ERR_DNS ? CST_DNS
			: r->err == FETCH_ERR_TIMEOUT ? CST_TIMEOUT : CST_CONNECT;
	if (pol == ROBOTS_POLICY_PARSE) {
		/* The validators of the next conditional GET. */
		copy_header(p->last_modified, sizeof(p->last_modified), r->last_modified);
		copy_header(p->etag, sizeof(p->etag), r->etag);
	}
	p->d.next_index_time = (long)time(NULL) + (long)robots_max_age(rules);
	cr->t->fetched += st != 0;
}

/* A robots.txt response (or failure) for site s; j is the robots job. */
void robots_txt_result(struct crawl *cr, struct job *j, const struct fetch_result *r)
{
	struct site *s = j->site;
	struct robots *rules;
	int st = r->err == FETCH_ERR_NONE || r->err == FETCH_ERR_TOO_BIG ? (int)r->status : 0;
	enum robots_policy pol = robots_status_policy(st, 0);

	if (pol == ROBOTS_POLICY_REDIRECT && robots_follow(cr, j, r))
		return;
	if (pol == ROBOTS_POLICY_KEEP) {
		/* 304 to our conditional GET: the rules we have stay valid. */
		rules = robots_known(cr, s);
		if (!rules) {
			debug("%s: robots.txt 304 but no rules kept: fetched again", s->key);
			j->row.etag[0] = j->row.last_modified[0] = '\0';
			job_submit(cr, j);
			return;
		}
	} else {
		rules = robots_rules_of(cr, s, r, st, pol);
	}
	robots_log(j, r, pol, rules);
	if (j->kind == JOB_ROBOTS_ROW)
		robots_row_outcome(cr, j, r, st, pol, rules);
	site_set_robots(cr, s, rules, pol == ROBOTS_POLICY_KEEP ? 200 : st);
	if (j->kind == JOB_ROBOTS_ROW)
		job_done(cr, j);
	else
		free(j);
}

/* ---- admission ------------------------------------------------------------------ */

/* Decide what to do with a claimed (or waiting) job: drop, wait, fetch. */
void job_admit(struct crawl *cr, struct job *j)
{
	const char *why = NULL;
	struct buf site = BUF_INIT(MAX_URL_LEN + 1);
	const struct conf_server_params *p = job_params(cr->c, j);
	struct buf target = BUF_INIT(MAX_URL_LEN + 1);
	int st, rc;

	if (!j->site) {
		rc = url_site(j->row.url, &site, &why);
		if (rc) {
			buf_free(&site);
			buf_free(&target);
			finish_dropped(cr, j, CST_BAD_URL, why ? why : "not http(s)");
			return;
		}
		j->site = site_get(cr, buf_str(&site), j->row.site_id, j->row.tag);
		buf_free(&site);
		if (!j->site) {
			cr->failed = true;
			job_done(cr, j);
			buf_free(&target);
			return;
		}
	}
	if (url_is_robots(j->row.url)) {
		j->kind = JOB_ROBOTS_ROW;
		strlcpy_(j->fetch_url, j->row.url, sizeof(j->fetch_url));
		j->site->robots_fetching = true;
		buf_free(&target);
		job_submit(cr, j);
		return;
	}
	st = admit_url(cr->c, j->row.url, j->row.hops, !cr->c->delete_no_server, false, &why);
	if (st) {
		buf_free(&target);
		finish_dropped(cr, j, st, why);
		return;
	}
	if (p->robots) {
		rc = robots_ready(cr, j->site, j);
		if (rc < 0) {
			cr->failed = true;
			job_done(cr, j);
		}
		if (rc <= 0) {
			buf_free(&target);
			return;
		}
		if (robots_is_temporary(j->site->robots)) {
			buf_free(&target);
			finish_status(cr, j, CST_ROBOTS_UNAVAILABLE, ROBOTS_RETRY_SECONDS);
			return;
		}
		if (url_request_target(j->row.url, &target, NULL) == 0 &&
		    !robots_allowed(j->site->robots, buf_str(&target))) {
			buf_free(&target);
			finish_dropped(cr, j, CST_ROBOTS, "disallowed by robots.txt");
			return;
		}
	}
	buf_free(&target);
	j->head = conf_filter_url(cr->c, j->row.url) == VERDICT_CHECKONLY;
	job_submit(cr, j);
}

/* ---- redirects ------------------------------------------------------------------ */

/* Insert url (normalised, admitted), the target of a redirect of job j;
 * returns its url_id or 0. */
unsigned redirect_to(struct crawl *cr, struct job *j, const char *url)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	struct buf site = BUF_INIT(MAX_URL_LEN + 1);
	struct linkset ls = { 0 };
	int hops = j->row.hops + (p->increment_hops_on_redirect ? 1 : 0);
	unsigned id = 0;

	if (url_site(url, &site, NULL) == 0)
		link_collect_site(cr, &ls, url, buf_str(&site), hops, j->row.url_id);
	if (ls.n && links_resolve(cr, &ls) == 0)
		id = ls.v[0].url_id;
	linkset_free(&ls);
	buf_free(&site);
	return id;
}

/* A redirect of job j to ref (Location): admit and insert the target;
 * returns its url_id or 0. */
static unsigned redirect_target(struct crawl *cr, struct job *j, const char *ref,
				const char **why)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	struct buf to = BUF_INIT(MAX_URL_LEN + 1);
	int hops = j->row.hops + (p->increment_hops_on_redirect ? 1 : 0);
	unsigned id = 0;

	*why = "target refused";
	if (admit_link(cr->c, p, j->row.url, j->row.url, ref, hops, &to) == 0) {
		if (!strcmp(buf_str(&to), j->row.url))
			*why = "redirect to itself";
		else
			id = redirect_to(cr, j, buf_str(&to));
	}
	buf_free(&to);
	return id;
}

/* How many redirects led to url_id in this run (0 = none known). */
static uint32_t redirect_depth(struct crawl *cr, unsigned url_id)
{
	return seen_get(cr->redir_depth, (const char *)&url_id, sizeof(url_id));
}

/* Count one more hop for the target of a redirect from j; false when the
 * chain is longer than RedirectLoopLimit. */
bool redirect_allowed(struct crawl *cr, struct job *j, const char **why)
{
	const struct conf_server_params *p = job_params(cr->c, j);
	uint32_t d = redirect_depth(cr, j->row.url_id) + 1;

	if ((long)d > p->redirect_loop_limit) {
		*why = "RedirectLoopLimit reached";
		return false;
	}
	return true;
}

void note_redirect(struct crawl *cr, const struct job *j, unsigned target)
{
	uint32_t d = redirect_depth(cr, j->row.url_id) + 1;

	seen_put(cr->redir_depth, (const char *)&target, sizeof(target), d);
}

/* A 3xx response r to page j: the target admitted and inserted, a REDIR
 * record, or the status alone when it is not followed. */
void page_redirect(struct crawl *cr, struct job *j, const struct fetch_result *r)
{
	struct pending *p;
	const char *why = "no Location";
	unsigned id = 0;
	bool limit = false;

	if (!redirect_allowed(cr, j, &why))
		limit = true;
	else if (r->location && r->location[0])
		id = redirect_target(cr, j, r->location, &why);
	cr->t->redirects++;
	if (!id) {
		info("%s: %ld redirect to %.200s not followed (%s)", j->row.url, r->status,
		     r->location ? r->location : "", why);
		p = pending_new(cr, j);
		p->d.status = limit || !strcmp(why, "redirect to itself") ? CST_REDIRECT_LIMIT
									 : (int)r->status;
		/* A URL that only leads back to itself or too far leaves the crawl. */
		p->d.deleted = p->d.status == CST_REDIRECT_LIMIT;
		p->d.redir = 0;
		job_done(cr, j);
		return;
	}
	note_redirect(cr, j, id);
	info("%s: %ld redirect to url %u (%.200s)", j->row.url, r->status, id, r->location);
	if (delta_add_redir(cr->dw, j->row.url_id, id))
		cr->failed = true;
	p = pending_new(cr, j);
	p->d.status = (int)r->status;
	p->d.redir = id;
	job_done(cr, j);
}
