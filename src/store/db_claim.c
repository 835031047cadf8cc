/* db_claim.c - the work queue of the cluster crawl (include/db.h, "the work
 * queue"): the claim SELECT, URL and site leases, giving claims back, the
 * master's site picks and queue counts, and `-a`.  What a claimed URL turns
 * into is stored by db_store.c; connecting and retrying are db.c's.
 */
#include "config.h"

#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "db.h"
#include "db_int.h"
#include "log.h"
#include "util.h"

/* The claim SELECT.  tests/integration/db.sh runs EXPLAIN on the very same
 * text: it feeds the lines from BEGIN to END through the C preprocessor, so
 * keep them free of other macros.  STRAIGHT_JOIN and FORCE INDEX pin the
 * plan: urlword is read through `claim` in ORDER BY order, and each row's
 * site is looked up by primary key.  A filesort would have to read, and so
 * lock, every due row before it returns the first, leaving nothing for a
 * second claimer; on a small table the optimiser prefers one all the same
 * (doc/DATABASE.md, "The claim query's plan").
 * Parameters: now, rank, now, limit. */
/* BEGIN CLAIM SELECT */
/* The columns a claim hands to the fetcher (struct db_url, in this order). */
#define CLAIM_COLUMNS "u.url_id, u.site_id, u.status, u.hops, u.origin, u.tag, u.referrer," \
	" u.last_index_time, u.url, u.crc, u.last_modified, u.etag"
#define CLAIM_SELECT \
	"SELECT STRAIGHT_JOIN " CLAIM_COLUMNS \
	" FROM urlword u FORCE INDEX (claim)" \
	" JOIN sites s ON s.site_id = u.site_id" \
	" WHERE u.deleted = 0 AND u.next_index_time <= ?" \
	" AND (s.claim_rank = -1 OR s.claim_rank = ? OR s.lease_until <= ?)" \
	" ORDER BY u.next_index_time, u.url_id LIMIT ?" \
	" FOR UPDATE SKIP LOCKED"
/* END CLAIM SELECT */

/* The site-affine claim: the same through `site_claim` for one site.
 * Parameters: site_id, now, rank, now, limit. */
#define CLAIM_SITE_SELECT \
	"SELECT STRAIGHT_JOIN " CLAIM_COLUMNS \
	" FROM urlword u FORCE INDEX (site_claim)" \
	" JOIN sites s ON s.site_id = u.site_id" \
	" WHERE u.site_id = ? AND u.deleted = 0 AND u.next_index_time <= ?" \
	" AND (s.claim_rank = -1 OR s.claim_rank = ? OR s.lease_until <= ?)" \
	" ORDER BY u.next_index_time, u.url_id LIMIT ?" \
	" FOR UPDATE SKIP LOCKED"

/* --- tags (--tag N; doc/DATABASE.md, "Tags") --------------------------------
 *
 * The claims of one tag: the same plans, the rows of other tags filtered
 * as they are read.  A site's URLs share its Server's tag (sites.tag, set
 * at seeding), and the crawl claims only sites of the tag (PICK_TAG_SELECT),
 * so the site claim reads next to nothing else; the claim of any site
 * (not used by the crawl) reads past due URLs of other tags.
 * Parameters: [site_id,] now, tag, rank, now, limit. */
#define CLAIM_TAG_SELECT \
	"SELECT STRAIGHT_JOIN " CLAIM_COLUMNS \
	" FROM urlword u FORCE INDEX (claim)" \
	" JOIN sites s ON s.site_id = u.site_id" \
	" WHERE u.deleted = 0 AND u.next_index_time <= ? AND u.tag = ?" \
	" AND (s.claim_rank = -1 OR s.claim_rank = ? OR s.lease_until <= ?)" \
	" ORDER BY u.next_index_time, u.url_id LIMIT ?" \
	" FOR UPDATE SKIP LOCKED"
#define CLAIM_SITE_TAG_SELECT \
	"SELECT STRAIGHT_JOIN " CLAIM_COLUMNS \
	" FROM urlword u FORCE INDEX (site_claim)" \
	" JOIN sites s ON s.site_id = u.site_id" \
	" WHERE u.site_id = ? AND u.deleted = 0 AND u.next_index_time <= ? AND u.tag = ?" \
	" AND (s.claim_rank = -1 OR s.claim_rank = ? OR s.lease_until <= ?)" \
	" ORDER BY u.next_index_time, u.url_id LIMIT ?" \
	" FOR UPDATE SKIP LOCKED"

/* The pick of one tag: the sites of the tag, and those whose Server lines
 * give different tags (-1) with a URL of the tag due, each through tag_due
 * in order, then the two short lists merged.  A site of several tags is
 * due (next_due) when a URL of any tag is: one whose due URLs were all of
 * other tags sorted first in every pick and cost it an empty claim.  The
 * test of a -1 site walks its live URLs through site_claim in time order
 * (tag is not in the index) up to the first due one of the tag, reading
 * the rows of the due ones before it, as the site's tagged claim would.
 * A scalar subquery, not EXISTS: MariaDB turns that EXISTS into a
 * materialised semi-join, a scan of urlword.  tests/integration/tag.sh
 * checks its EXPLAIN on the text between the markers.  Parameters: tag,
 * now, now, limit, now, now, now, tag, limit, limit. */
/* BEGIN PICK TAG SELECT */
#define PICK_TAG_SELECT \
	"(SELECT site_id, next_due FROM sites FORCE INDEX (tag_due)" \
	" WHERE tag = %ld AND next_due <= %u AND lease_until <= %u" \
	" ORDER BY next_due, site_id LIMIT %d)" \
	" UNION ALL (SELECT site_id, next_due FROM sites FORCE INDEX (tag_due)" \
	" WHERE tag = -1 AND next_due <= %u AND lease_until <= %u" \
	" AND (SELECT 1 FROM urlword u FORCE INDEX (site_claim)" \
	" WHERE u.site_id = sites.site_id AND u.deleted = 0" \
	" AND u.next_index_time <= %u AND u.tag = %ld LIMIT 1) IS NOT NULL" \
	" ORDER BY next_due, site_id LIMIT %d)" \
	" ORDER BY next_due, site_id LIMIT %d"
/* END PICK TAG SELECT */

void db_select_tag(struct db *db, long tag)
{
	db->tag = tag < 0 ? -1 : tag;
}

long db_selected_tag(const struct db *db)
{
	return db->tag;
}

const char st_sql_claim_tag[] = CLAIM_TAG_SELECT;
const char st_sql_claim_site_tag[] = CLAIM_SITE_TAG_SELECT;

/* --- claims, leases ---------------------------------------------------------- */

const char st_sql_claim[] = CLAIM_SELECT;
const char st_sql_claim_site[] = CLAIM_SITE_SELECT;
const char st_sql_take_site[] =
	"UPDATE sites SET claim_rank = ?, lease_until = ? WHERE site_id = ?";
const char st_sql_release_urls[] =
	"UPDATE urlword SET index_status = IF(last_index_time = 0, 0, 1),"
	" claim_rank = -1, lease_until = 0, next_index_time = ?"
	" WHERE index_status = 2 AND claim_rank = ?";
const char st_sql_release_sites[] = "UPDATE sites SET claim_rank = -1, lease_until = 0"
	" WHERE claim_rank = ?";
const char st_sql_release_site[] = "UPDATE sites SET claim_rank = -1, lease_until = 0"
	" WHERE site_id = ? AND claim_rank = ?";
const char st_sql_explain_claim[] = "EXPLAIN " CLAIM_SELECT;

/* --- the frontier: sites.next_due ----------------------------------------
 *
 * sites.next_due is never later than the earliest next_index_time of the
 * site's live URLs (schema.sql), so free sites with due URLs are found in
 * the sites table (db_pick_sites()) at a cost that does not grow with the
 * number of URLs.  The triggers of schema.sql lower it whenever a urlword
 * row is written with an earlier time, by any statement (seeding, links,
 * outcomes, released claims, -a, an administrator's edit); only
 * next_due_recount() raises it.  A next_due that is too early costs one
 * empty claim, which recounts it. */

#define NO_DUE 4294967295u /* a site without live URLs */

/* The pick of free sites with due URLs (db_pick_sites()); its EXPLAIN is
 * checked by tests/integration/frontier.sh on this very text, taken from
 * the lines between the markers.  Parameters: now, now, limit. */
/* BEGIN PICK SELECT */
#define PICK_SELECT \
	"SELECT site_id FROM sites FORCE INDEX (due)" \
	" WHERE next_due <= %u AND lease_until <= %u" \
	" ORDER BY next_due, site_id LIMIT %d"
/* END PICK SELECT */

/* The recount of one site, inside a transaction: its row locked first (a
 * lowering waits for the recount, or was committed before it and is read
 * by it), then the earliest time of its live URLs read without locks (the
 * site_claim index: one dive; a locking read there would wait for the
 * rank's own store thread, which holds the rows of the URLs it stores). */
static int next_due_recount(struct db *db, unsigned site_id)
{
	char sql[256];
	long long v[1];
	bool found;

	int rc;

	snprintf(sql, sizeof(sql), "SELECT next_due FROM sites WHERE site_id = %u FOR UPDATE",
		 site_id);
	rc = sql_row(db, sql, v, 1, &found);
	if (rc || !found)
		return rc; /* -1, DB_AGAIN (the transaction is retried), or no such site */
	snprintf(sql, sizeof(sql), "SELECT COALESCE(MIN(next_index_time), %u) FROM urlword"
		 " FORCE INDEX (site_claim) WHERE site_id = %u AND deleted = 0", NO_DUE, site_id);
	rc = sql_row(db, sql, v, 1, &found);
	if (rc)
		return rc;
	snprintf(sql, sizeof(sql), "UPDATE sites SET next_due = %llu WHERE site_id = %u",
		 found ? (unsigned long long)v[0] : (unsigned long long)NO_DUE, site_id);
	return sql_run(db, sql, NULL);
}

static int recount_body(struct db *db, void *arg)
{
	return next_due_recount(db, *(unsigned *)arg);
}

/* The same as a transaction of its own. */
static int next_due_recount_tx(struct db *db, unsigned site_id)
{
	return in_transaction(db, "recounting a site's next due time", recount_body, &site_id);
}

long db_frontier_recount(struct db *db)
{
	double t0 = now_monotonic();
	char sql[384];

	/* At the start of a job, before any rank claims: locking reads are
	 * harmless here, and one statement does every site. */
	snprintf(sql, sizeof(sql),
		 "UPDATE sites s SET s.next_due = COALESCE((SELECT MIN(u.next_index_time)"
		 " FROM urlword u FORCE INDEX (site_claim)"
		 " WHERE u.site_id = s.site_id AND u.deleted = 0), %u)", NO_DUE);
	if (sql_run(db, sql, NULL))
		return -1;
	debug("frontier: next_due recounted for %llu site(s) in %.3f s",
	      (unsigned long long)mysql_affected_rows(db->my), now_monotonic() - t0);
	return 0;
}

/* --- claiming URLs and their sites ----------------------------------------- */

/* One claim transaction: `nsites` sites (ascending ids, so that every rank
 * locks in one order), up to want[i] URLs of sites[i] each into `out`
 * (got[i] of them, one site after the other); or, with sites NULL, up to
 * want[0] URLs of any site. */
struct claim_ctx {
	int rank;
	long lease;
	const unsigned *sites;
	int nsites;
	const int *want;
	struct db_url *out;
	int *got;
	int total;
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* Run the claim SELECT (of site_id, or of any site with 0) for up to lim
 * URLs into out.  Returns the number read, or a negative code. */
static int claim_select(struct db *db, int rank, unsigned site_id, int lim, struct db_url *out)
{
	MYSQL_BIND par[6], res[12];
	struct outstr os[4];
	struct db_url row;
	unsigned now = (unsigned)time(NULL), lit = 0;
	int tag = 0, want_tag = (int)db->tag, k = 0, got = 0, rc, f;
	enum st id = site_id ? ST_CLAIM_SITE : ST_CLAIM;

	if (db->tag >= 0)
		id = site_id ? ST_CLAIM_SITE_TAG : ST_CLAIM_TAG;
	if (site_id)
		bind_uint(&par[k++], &site_id);
	bind_uint(&par[k++], &now);
	if (db->tag >= 0)
		bind_int(&par[k++], &want_tag);
	bind_int(&par[k++], &rank);
	bind_uint(&par[k++], &now);
	bind_int(&par[k++], &lim);

	memset(&row, 0, sizeof(row));
	bind_uint(&res[0], &row.url_id);
	bind_uint(&res[1], &row.site_id);
	bind_int(&res[2], &row.status);
	bind_int(&res[3], &row.hops);
	bind_int(&res[4], &row.origin);
	bind_int(&res[5], &tag);
	bind_uint(&res[6], &row.referrer);
	bind_uint(&res[7], &lit);
	bind_outstr(&res[8], row.url, sizeof(row.url), &os[0]);
	bind_outstr(&res[9], row.crc, sizeof(row.crc), &os[1]);
	bind_outstr(&res[10], row.last_modified, sizeof(row.last_modified), &os[2]);
	bind_outstr(&res[11], row.etag, sizeof(row.etag), &os[3]);

	rc = st_exec(db, id, par, res);
	if (rc)
		return rc < 0 ? rc : -1;
	while (got < lim &&
	       ((f = mysql_stmt_fetch(db->st[id])) == 0 || f == MYSQL_DATA_TRUNCATED)) {
		finish_outstr(row.url, sizeof(row.url), &os[0]);
		finish_outstr(row.crc, sizeof(row.crc), &os[1]);
		finish_outstr(row.last_modified, sizeof(row.last_modified), &os[2]);
		finish_outstr(row.etag, sizeof(row.etag), &os[3]);
		row.tag = tag;
		row.last_index_time = (long)lit;
		out[got++] = row;
	}
	mysql_stmt_free_result(db->st[id]);
	return got;
}

/* Lease the sites of the claimed rows (in ascending order, the order every
 * rank locks in), then the URLs, in one statement. */
static int claim_lease(struct db *db, struct claim_ctx *c)
{
	MYSQL_BIND par[3];
	unsigned until = (unsigned)time(NULL) + (unsigned)c->lease, *sites;
	int rank = c->rank, ns = 0, rc = 0;

	if (!c->total)
		return 0;
	sites = xmalloc(sizeof(*sites) * (size_t)c->total);
	for (int i = 0; i < c->total; i++)
		sites[i] = c->out[i].site_id;
	qsort(sites, (size_t)c->total, sizeof(*sites), cmp_uint);
	for (int i = 0; i < c->total; i++)
		if (!ns || sites[ns - 1] != sites[i])
			sites[ns++] = sites[i];
	for (int i = 0; i < ns && !rc; i++) {
		bind_int(&par[0], &rank);
		bind_uint(&par[1], &until);
		bind_uint(&par[2], &sites[i]);
		rc = st_exec(db, ST_TAKE_SITE, par, NULL);
	}
	free(sites);
	if (!rc) {
		/* One statement for the batch (the rows are locked by the
		 * SELECT ... FOR UPDATE above): ids are numbers, no escaping. */
		struct buf sql = BUF_INIT((size_t)c->total * 12 + 256);

		buf_printf(&sql, "UPDATE urlword SET index_status = 2, claim_rank = %d,"
			   " lease_until = %u, next_index_time = %u WHERE url_id IN (",
			   rank, until, until);
		for (int i = 0; i < c->total; i++)
			buf_printf(&sql, "%s%u", i ? "," : "", c->out[i].url_id);
		if (buf_addc(&sql, ')'))
			rc = error("claim: %d URLs do not fit one statement", c->total);
		else
			rc = sql_run(db, buf_str(&sql), NULL);
		buf_free(&sql);
	}
	return rc;
}

static int claim_body(struct db *db, void *arg)
{
	struct claim_ctx *c = arg;
	int rc = 0, n;

	c->total = 0;
	if (!c->sites) {
		n = claim_select(db, c->rank, 0, c->want[0], c->out);
		if (n < 0)
			return n;
		c->total = n;
	}
	for (int i = 0; i < c->nsites && c->sites; i++) {
		n = claim_select(db, c->rank, c->sites[i], c->want[i], c->out + c->total);
		if (n < 0)
			return n;
		c->got[i] = n;
		c->total += n;
	}
	rc = claim_lease(db, c);
	/* A site claim that found fewer than it asked for took every URL due
	 * now: the site's next_due is its next one (or its lease's end). */
	for (int i = 0; i < c->nsites && c->sites && !rc; i++)
		if (c->got[i] < c->want[i])
			rc = next_due_recount(db, c->sites[i]);
	return rc;
}

static int check_claim(int rank, long lease_seconds)
{
	if (rank < 0 || rank > 32767 || lease_seconds < 1 || lease_seconds > 30L * 86400)
		return error("claim: bad rank %d or lease %ld s", rank, lease_seconds);
	return 0;
}

int db_claim_urls(struct db *db, int rank, int n, long lease_seconds, struct db_url *out)
{
	struct claim_ctx c = { rank, lease_seconds, NULL, 0, &n, out, NULL, 0 };

	if (n <= 0)
		return 0;
	if (check_claim(rank, lease_seconds) ||
	    in_transaction(db, "claiming URLs", claim_body, &c))
		return -1;
	if (c.total)
		debug("rank %d claimed %d URL(s) for %ld s", rank, c.total, lease_seconds);
	return c.total;
}

int db_claim_site_urls(struct db *db, int rank, unsigned site_id, int n, long lease_seconds,
		       struct db_url *out)
{
	int got = 0;

	if (n <= 0)
		return 0;
	return db_claim_sites_urls(db, rank, &site_id, &n, 1, lease_seconds, out, &got);
}

int db_claim_sites_urls(struct db *db, int rank, const unsigned *site_ids, const int *want,
			int nsites, long lease_seconds, struct db_url *out, int *got)
{
	struct claim_ctx c = { rank, lease_seconds, site_ids, nsites, want, out, got, 0 };

	for (int i = 0; i < nsites; i++) {
		got[i] = 0;
		if (!site_ids[i] || want[i] <= 0 || (i && site_ids[i] <= site_ids[i - 1]))
			return error("claim: site %u (want %d) out of order or empty", site_ids[i],
				     want[i]);
	}
	if (!nsites)
		return 0;
	if (check_claim(rank, lease_seconds) ||
	    in_transaction(db, "claiming URLs", claim_body, &c))
		return -1;
	if (c.total)
		debug("rank %d claimed %d URL(s) of %d site(s) for %ld s", rank, c.total, nsites,
		      lease_seconds);
	return c.total;
}

/* --- giving claims back --------------------------------------------------- */

struct release_ctx {
	int rank;
	long released;
};

static int release_body(struct db *db, void *arg)
{
	struct release_ctx *r = arg;
	MYSQL_BIND par[2];
	unsigned now = (unsigned)time(NULL);
	int rc;

	bind_uint(&par[0], &now);
	bind_int(&par[1], &r->rank);
	rc = st_exec(db, ST_RELEASE_URLS, par, NULL);
	if (rc)
		return rc;
	r->released = (long)mysql_stmt_affected_rows(db->st[ST_RELEASE_URLS]);
	bind_int(&par[0], &r->rank);
	return st_exec(db, ST_RELEASE_SITES, par, NULL);
}

long db_release_claims(struct db *db, int rank)
{
	struct release_ctx r = { rank, 0 };

	if (in_transaction(db, "releasing claims", release_body, &r))
		return -1;
	if (r.released)
		info("rank %d released %ld claimed URL(s)", rank, r.released);
	return r.released;
}

int db_release_site(struct db *db, int rank, unsigned site_id)
{
	MYSQL_BIND par[2];

	bind_uint(&par[0], &site_id);
	bind_int(&par[1], &rank);
	/* One statement in autocommit: its own transaction, retried inside. */
	if (st_exec(db, ST_RELEASE_SITE, par, NULL))
		return -1;
	return next_due_recount_tx(db, site_id) ? -1 : 0;
}

int db_explain_claim(struct db *db, FILE *out)
{
	static const char *const head[] = { "id", "select_type", "table", "type", "possible_keys",
					    "key", "key_len", "ref", "rows", "Extra" };
	char col[ARRAY_SIZE(head)][256];
	struct outstr os[ARRAY_SIZE(head)];
	MYSQL_BIND par[4], res[ARRAY_SIZE(head)];
	unsigned now = (unsigned)time(NULL);
	int rank = 0, lim = 100, f, rc;

	bind_uint(&par[0], &now);
	bind_int(&par[1], &rank);
	bind_uint(&par[2], &now);
	bind_int(&par[3], &lim);
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		bind_outstr(&res[i], col[i], sizeof(col[i]), &os[i]);
	rc = st_exec(db, ST_EXPLAIN_CLAIM, par, res);
	if (rc)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		fprintf(out, "%s%s", i ? "\t" : "", head[i]);
	fputc('\n', out);
	while ((f = mysql_stmt_fetch(db->st[ST_EXPLAIN_CLAIM])) == 0 || f == MYSQL_DATA_TRUNCATED) {
		for (size_t i = 0; i < ARRAY_SIZE(head); i++) {
			finish_outstr(col[i], sizeof(col[i]), &os[i]);
			fprintf(out, "%s%s", i ? "\t" : "", os[i].is_null ? "NULL" : col[i]);
		}
		fputc('\n', out);
	}
	mysql_stmt_free_result(db->st[ST_EXPLAIN_CLAIM]);
	return 0;
}

/* --- cluster: site-spread claims, the queue state for the master ---------- */

/* Statements of this section carry no outside data: only numbers the
 * program computed, printed with %d/%u. */

int db_pick_sites(struct db *db, int rank, int n, unsigned *out)
{
	char sql[768];
	unsigned now = (unsigned)time(NULL);
	MYSQL_RES *res;
	MYSQL_ROW row;
	int got = 0;

	if (n <= 0)
		return 0;
	/* The sites table alone, through its `due` index in order: sites whose
	 * earliest URL is due, oldest first, that nobody holds (a free site has
	 * lease_until 0) or whose lease ran out.  The rows skipped are the
	 * sites leased now, a few per rank, whatever the number of URLs (the
	 * frontier above; doc/DATABASE.md has the EXPLAIN).  The rank's own
	 * unexpired leases are left out by the same test: it knows its sites. */
	UNUSED(rank);
	if (db->tag >= 0)
		snprintf(sql, sizeof(sql), PICK_TAG_SELECT, db->tag, now, now, n, now, now, now,
			 db->tag, n, n);
	else
		snprintf(sql, sizeof(sql), PICK_SELECT, now, now, n);
	if (sql_run(db, sql, &res))
		return -1;
	while (res && got < n && (row = mysql_fetch_row(res)))
		if (row[0])
			out[got++] = (unsigned)num(row[0]);
	mysql_free_result(res);
	return got;
}

int db_release_site_after(struct db *db, int rank, unsigned site_id, double after)
{
	char sql[256];
	unsigned now = (unsigned)time(NULL);

	if (after <= 0) {
		snprintf(sql, sizeof(sql), "UPDATE sites SET claim_rank = -1, lease_until = 0"
			 " WHERE site_id = %u AND claim_rank = %d", site_id, rank);
	} else {
		/* Keep the lease until the delay has passed, counted in whole
		 * seconds from the start of this second: no rank starts on the
		 * site before `after` seconds from now. */
		unsigned until = now + 1u + (unsigned)(after > 86400 ? 86400 : after);

		snprintf(sql, sizeof(sql), "UPDATE sites SET lease_until = %u"
			 " WHERE site_id = %u AND claim_rank = %d", until, site_id, rank);
	}
	if (sql_run(db, sql, NULL))
		return -1;
	/* The site's URLs have their new times now (its outcomes are stored
	 * before the lease is given back): its next_due, exactly. */
	return next_due_recount_tx(db, site_id) ? -1 : 0;
}

static int release_all_body(struct db *db, void *arg)
{
	long *n = arg;
	unsigned now = (unsigned)time(NULL);
	char sql[256];

	snprintf(sql, sizeof(sql), "UPDATE urlword SET index_status = IF(last_index_time = 0, 0, 1),"
		 " claim_rank = -1, lease_until = 0, next_index_time = %u WHERE index_status = 2",
		 now);
	if (sql_run(db, sql, NULL))
		return -1;
	*n = (long)mysql_affected_rows(db->my);
	return sql_run(db, "UPDATE sites SET claim_rank = -1, lease_until = 0"
			   " WHERE claim_rank <> -1", NULL);
}

long db_release_all_claims(struct db *db)
{
	long n = 0;

	if (in_transaction(db, "releasing every claim", release_all_body, &n))
		return -1;
	if (n)
		info("released %ld URL(s) claimed by an earlier run", n);
	return n;
}

int db_queue_state(struct db *db, struct db_queue *q)
{
	char sql[1024], due[512];
	unsigned now = (unsigned)time(NULL);
	long long v[3];
	bool found;

	/* One statement, so one read view: `due` and `claimed` are counted at
	 * the same moment (a claim moves a URL from one to the other).  The
	 * due URLs are counted up to DB_DUE_COUNT_CAP: the coordinator needs
	 * "none", "fewer than the ranks can take" and a figure for the
	 * progress line, and a full count would read every due URL each time. */
	if (db->tag >= 0)
		/* --tag: through the due sites of the tag (a due URL's site has
		 * next_due <= now, the frontier's rule), not past every due URL
		 * of the other tags: the crawl of one tag ends when none of its
		 * URLs is due, whatever the rest of the queue holds. */
		snprintf(due, sizeof(due),
			 "SELECT 1 FROM sites s FORCE INDEX (tag_due)"
			 " JOIN urlword u FORCE INDEX (site_claim) ON u.site_id = s.site_id"
			 " AND u.deleted = 0 AND u.next_index_time <= %u AND u.tag = %ld"
			 " WHERE s.tag IN (%ld, -1) AND s.next_due <= %u LIMIT %d",
			 now, db->tag, db->tag, now, DB_DUE_COUNT_CAP);
	else
		snprintf(due, sizeof(due), "SELECT 1 FROM urlword FORCE INDEX (claim)"
			 "  WHERE deleted = 0 AND next_index_time <= %u LIMIT %d",
			 now, DB_DUE_COUNT_CAP);
	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT COUNT(*) FROM (%s) d),"
		 " (SELECT COUNT(*) FROM urlword FORCE INDEX (claims) WHERE index_status = 2),"
		 " (SELECT COUNT(*) FROM sites WHERE claim_rank <> -1 AND lease_until > %u)",
		 due, now);
	if (sql_row(db, sql, v, 3, &found))
		return -1;
	q->due = v[0];
	q->claimed = v[1];
	q->sites_leased = v[2];
	return 0;
}

/* --- index -a: everything due now ----------------------------------------- */

long db_expire_all(struct db *db)
{
	char sql[160];
	long n;
	int rc;

	snprintf(sql, sizeof(sql), "UPDATE urlword SET next_index_time = 0 WHERE index_status <> 2"
		 " AND deleted = 0");
	if (db->tag >= 0) /* --tag: only the URLs of the tag */
		snprintf(sql + strlen(sql), sizeof(sql) - strlen(sql), " AND tag = %ld", db->tag);
	rc = sql_run(db, sql, NULL);

	if (rc)
		return -1;
	n = (long)mysql_affected_rows(db->my);
	return n;
}

/* --- mpseek-index -T: given URLs, no queue ------------------------------------ */

struct ids_ctx {
	int rank;
	long lease;            /* 0: read the rows, claim nothing */
	const uint32_t *ids;
	size_t n;
	struct db_url *out;
	int total;
};

/* The rows of c->ids (those no other rank holds, when claiming) into
 * c->out, then, when claiming, the claim of them.  ids are numbers: no
 * escaping needed. */
static int ids_body(struct db *db, void *arg)
{
	struct ids_ctx *c = arg;
	struct buf sql = BUF_INIT(c->n * 12 + 512);
	unsigned now = (unsigned)time(NULL), until = now + (unsigned)c->lease;
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	int rc;

	c->total = 0;
	buf_adds(&sql, "SELECT " CLAIM_COLUMNS " FROM urlword u WHERE u.url_id IN (");
	for (size_t i = 0; i < c->n; i++)
		buf_printf(&sql, "%s%u", i ? "," : "", c->ids[i]);
	buf_addc(&sql, ')');
	if (c->lease)
		buf_printf(&sql, " AND (u.index_status <> 2 OR u.claim_rank = %d OR"
			   " u.lease_until <= %u) FOR UPDATE", c->rank, now);
	rc = sql_run(db, buf_str(&sql), &res);
	while (!rc && res && (row = mysql_fetch_row(res)) && (size_t)c->total < c->n) {
		struct db_url *u = &c->out[c->total++];

		memset(u, 0, sizeof(*u));
		u->url_id = (unsigned)num(row[0]);
		u->site_id = (unsigned)num(row[1]);
		u->status = (int)num(row[2]);
		u->hops = (int)num(row[3]);
		u->origin = (int)num(row[4]);
		u->tag = (long)num(row[5]);
		u->referrer = (unsigned)num(row[6]);
		u->last_index_time = (long)num(row[7]);
		strlcpy_(u->url, row[8] ? row[8] : "", sizeof(u->url));
		strlcpy_(u->crc, row[9] ? row[9] : "", sizeof(u->crc));
		strlcpy_(u->last_modified, row[10] ? row[10] : "", sizeof(u->last_modified));
		strlcpy_(u->etag, row[11] ? row[11] : "", sizeof(u->etag));
	}
	if (res)
		mysql_free_result(res);
	if (!rc && c->lease && c->total) {
		buf_reset(&sql);
		buf_printf(&sql, "UPDATE urlword SET index_status = 2, claim_rank = %d,"
			   " lease_until = %u, next_index_time = %u WHERE url_id IN (", c->rank,
			   until, until);
		for (int i = 0; i < c->total; i++)
			buf_printf(&sql, "%s%u", i ? "," : "", c->out[i].url_id);
		if (buf_addc(&sql, ')'))
			rc = error("claim: %d URLs do not fit one statement", c->total);
		else
			rc = sql_run(db, buf_str(&sql), NULL);
	}
	buf_free(&sql);
	return rc;
}

int db_claim_url_ids(struct db *db, int rank, const uint32_t *ids, size_t n, long lease_seconds,
		     struct db_url *out)
{
	struct ids_ctx c = { rank, lease_seconds, ids, n, out, 0 };

	if (!n)
		return 0;
	if (n > 4096 || check_claim(rank, lease_seconds) ||
	    in_transaction(db, "claiming given URLs", ids_body, &c))
		return -1;
	return c.total;
}

int db_url_rows(struct db *db, const uint32_t *ids, size_t n, struct db_url *out)
{
	struct ids_ctx c = { 0, 0, ids, n, out, 0 };

	if (!n)
		return 0;
	if (n > 4096 || ids_body(db, &c))
		return -1;
	return c.total;
}
