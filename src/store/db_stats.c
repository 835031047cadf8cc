/* db_stats.c - `mpseek-index -S` (include/db.h): ASPseek's per-status table,
 * the URLs per index_status, the claims per rank, and the sites with the
 * most URLs, all from one pass over urlword; then when the next URL is due.
 * The index generation's figures are the caller's (storage.h).
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
#include "status.h"
#include "util.h"

#define STATS_TOP_SITES 20 /* sites listed, most URLs first */

static const char *const index_status_name[] = { "not indexed", "indexed", "being indexed" };

struct site_count {
	unsigned site_id;
	long long urls, indexed, due, errors;
};

struct status_count {
	int status;
	long long expired, total;
};

struct stats {
	struct status_count *st;
	size_t n_st, alloc_st;
	long long is_exp[3], is_tot[3];
	struct site_count *sites;
	size_t n_sites, alloc_sites;
};

static bool is_error(int status)
{
	return (status >= 400 && status < 600) || (status >= CST_DNS && status <= CST_ROBOTS_UNAVAILABLE);
}

static void add_status(struct stats *s, int status, long long e, long long t)
{
	size_t i;

	for (i = 0; i < s->n_st && s->st[i].status != status; i++)
		;
	if (i == s->n_st) {
		if (s->n_st == s->alloc_st) {
			s->alloc_st = s->alloc_st ? 2 * s->alloc_st : 32;
			s->st = xrealloc(s->st, s->alloc_st * sizeof(*s->st));
		}
		s->st[s->n_st++] = (struct status_count){ status, 0, 0 };
	}
	s->st[i].expired += e;
	s->st[i].total += t;
}

static struct site_count *site_slot(struct stats *s, unsigned site_id)
{
	if (s->n_sites && s->sites[s->n_sites - 1].site_id == site_id)
		return &s->sites[s->n_sites - 1];
	if (s->n_sites == s->alloc_sites) {
		s->alloc_sites = s->alloc_sites ? 2 * s->alloc_sites : 256;
		s->sites = xrealloc(s->sites, s->alloc_sites * sizeof(*s->sites));
	}
	s->sites[s->n_sites] = (struct site_count){ site_id, 0, 0, 0, 0 };
	return &s->sites[s->n_sites++];
}

/* The one pass over urlword (as many as the status table alone took): per
 * site, status and index_status, the rows and the expired rows. */
static int stats_scan(struct db *db, struct stats *s)
{
	MYSQL_RES *res;
	MYSQL_ROW row;

	if (sql_run(db, "SELECT site_id, status, index_status,"
		    " SUM(next_index_time <= UNIX_TIMESTAMP()), COUNT(*)"
		    " FROM urlword WHERE deleted = 0 GROUP BY site_id, status, index_status"
		    " ORDER BY site_id", &res))
		return -1;
	while (res && (row = mysql_fetch_row(res))) {
		int status = (int)num(row[1]);
		long long k = num(row[2]), e = num(row[3]), t = num(row[4]);
		struct site_count *sc = site_slot(s, (unsigned)num(row[0]));

		add_status(s, status, e, t);
		if (k >= 0 && k < 3) {
			s->is_exp[k] += e;
			s->is_tot[k] += t;
		}
		sc->urls += t;
		sc->indexed += status == 200 ? t : 0;
		sc->due += k != 2 ? e : 0;
		sc->errors += is_error(status) ? t : 0;
	}
	mysql_free_result(res);
	return 0;
}

static int cmp_status(const void *a, const void *b)
{
	const struct status_count *x = a, *y = b;

	return (x->status > y->status) - (x->status < y->status);
}

static void print_by_status(struct stats *s, FILE *out)
{
	long long exp_sum = 0, tot_sum = 0;

	if (s->n_st)
		qsort(s->st, s->n_st, sizeof(*s->st), cmp_status);
	fprintf(out, "\n    Status    Expired      Total\n   -----------------------------\n");
	for (size_t i = 0; i < s->n_st; i++) {
		fprintf(out, "%10d %10lld %10lld %s\n", s->st[i].status, s->st[i].expired,
			s->st[i].total, http_status_text(s->st[i].status));
		exp_sum += s->st[i].expired;
		tot_sum += s->st[i].total;
	}
	fprintf(out, "   -----------------------------\n%10s %10lld %10lld\n", "Total", exp_sum,
		tot_sum);
}

static int print_by_index_status(struct db *db, const struct stats *s, FILE *out)
{
	long long deleted;
	bool found;

	fprintf(out, "\n%-26s %10s %10s\n   ---------------------------------------------\n",
		"    index_status", "Expired", "Total");
	for (int k = 0; k < 3; k++)
		fprintf(out, "%10d %-15s %10lld %10lld\n", k, index_status_name[k], s->is_exp[k],
			s->is_tot[k]);
	fprintf(out, "   ---------------------------------------------\n");
	if (sql_row(db, "SELECT COUNT(*) FROM urlword WHERE deleted <> 0", &deleted, 1, &found))
		return -1;
	if (deleted)
		fprintf(out, "%10s %-15s %10s %10lld\n", "", "deleted", "", deleted);
	return 0;
}

#define DASHES "---------------------------------------------------------"

static int stats_claims(struct db *db, FILE *out)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	long long now = (long long)time(NULL);
	int n = 0;

	if (sql_run(db, "SELECT u.claim_rank, COUNT(*), SUM(u.lease_until <= UNIX_TIMESTAMP()),"
		    " MIN(u.lease_until), MAX(u.lease_until),"
		    " (SELECT COUNT(*) FROM sites s WHERE s.claim_rank = u.claim_rank"
		    "  AND s.lease_until > UNIX_TIMESTAMP())"
		    " FROM urlword u WHERE u.index_status = 2"
		    " GROUP BY u.claim_rank ORDER BY u.claim_rank",
		    &res))
		return -1;
	fprintf(out, "\n    Claims (index_status 2)\n      Rank       URLs    Expired      Sites"
		"  Lease ends in (s)\n   %s\n", DASHES);
	while (res && (row = mysql_fetch_row(res))) {
		long long lo = num(row[3]) - now, hi = num(row[4]) - now;
		fprintf(out, "%10lld %10lld %10lld %10lld  ", num(row[0]), num(row[1]), num(row[2]),
			num(row[5]));
		if (lo == hi)
			fprintf(out, "%lld\n", lo);
		else
			fprintf(out, "%lld..%lld\n", lo, hi);
		n++;
	}
	mysql_free_result(res);
	if (!n)
		fprintf(out, "      none\n");
	fprintf(out, "   %s\n", DASHES);
	return 0;
}

static int cmp_site_urls(const void *a, const void *b)
{
	const struct site_count *x = a, *y = b;

	if (x->urls != y->urls)
		return x->urls < y->urls ? 1 : -1;
	return (x->site_id > y->site_id) - (x->site_id < y->site_id);
}

/* The sites with the most URLs, at most STATS_TOP_SITES of them: their
 * names by primary key, one statement. */
static int print_sites(struct db *db, struct stats *s, FILE *out)
{
	struct buf sql = BUF_INIT(1u << 16);
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	size_t top = s->n_sites < STATS_TOP_SITES ? s->n_sites : STATS_TOP_SITES;
	char *name[STATS_TOP_SITES] = { NULL };
	int rc = 0;

	if (!top)
		return 0;
	if (s->n_sites) /* qsort() wants a non-NULL base even for no element */
		qsort(s->sites, s->n_sites, sizeof(*s->sites), cmp_site_urls);
	buf_adds(&sql, "SELECT site_id, site FROM sites WHERE site_id IN (0");
	for (size_t i = 0; i < top; i++)
		buf_printf(&sql, ",%u", s->sites[i].site_id);
	buf_addc(&sql, ')');
	rc = sql_run(db, buf_str(&sql), &res);
	while (!rc && res && (row = mysql_fetch_row(res)))
		for (size_t i = 0; i < top; i++)
			if (s->sites[i].site_id == (unsigned)num(row[0]) && !name[i])
				name[i] = xstrdup(row[1] ? row[1] : "?");
	mysql_free_result(res);
	buf_free(&sql);
	if (!rc) {
		fprintf(out, "\n    Sites by URLs");
		if (s->n_sites > top)
			fprintf(out, " (the first %d)", STATS_TOP_SITES);
		fprintf(out, "\n         URLs    Indexed        Due     Errors  Site\n   %s\n", DASHES);
		for (size_t i = 0; i < top; i++) {
			const struct site_count *c = &s->sites[i];

			fprintf(out, "   %10lld %10lld %10lld %10lld  %s\n", c->urls, c->indexed, c->due,
				c->errors, name[i] ? name[i] : "?");
		}
		if (s->n_sites > top)
			fprintf(out, "   ... and %zu more site(s) with URLs\n", s->n_sites - top);
		fprintf(out, "   %s\n", DASHES);
	}
	for (size_t i = 0; i < top; i++)
		free(name[i]);
	return rc ? -1 : 0;
}

void db_due_text(long long when, char *buf, size_t size)
{
	long long now = (long long)time(NULL), d = when - now;
	time_t t = (time_t)when;
	struct tm tm;
	char date[64] = "?";

	if (when <= now) {
		snprintf(buf, size, "now");
		return;
	}
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (d < 120)
		snprintf(buf, size, "in %lld s, at %s", d, date);
	else if (d < 7200)
		snprintf(buf, size, "in %lld min, at %s", d / 60, date);
	else if (d < 172800)
		snprintf(buf, size, "in %lld h %lld min, at %s", d / 3600, d / 60 % 60, date);
	else
		snprintf(buf, size, "in %lld days %lld h, at %s", d / 86400, d / 3600 % 24, date);
}

/* Per Tag: the live URLs (expired/total) and the sites; printed only when
 * some URL or site has a tag other than 0 (`--tag N`, doc/DATABASE.md
 * "Tags").  Sites of tag -1 have Server lines with different tags. */
static int stats_by_tag(struct db *db, FILE *out)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	long long v[1];
	bool found;

	/* A URL carries the Tag of its Server line and a site the tag of its
	 * Server lines (-1 when they differ): without a tagged site no URL has
	 * a tag, and the sites table answers that without reading urlword. */
	if (sql_row(db, "SELECT COUNT(*) FROM sites WHERE tag <> 0", v, 1, &found))
		return -1;
	if (!v[0])
		return 0;
	if (sql_run(db, "SELECT t, SUM(e), SUM(n), SUM(s) FROM ("
		    "SELECT tag t, SUM(next_index_time <= UNIX_TIMESTAMP()) e, COUNT(*) n, 0 s"
		    " FROM urlword WHERE deleted = 0 GROUP BY tag"
		    " UNION ALL SELECT tag, 0, 0, COUNT(*) FROM sites GROUP BY tag) x"
		    " GROUP BY t ORDER BY t", &res))
		return -1;
	fprintf(out, "\n       Tag    Expired       URLs      Sites\n"
		"   ----------------------------------------\n");
	while (res && (row = mysql_fetch_row(res)))
		fprintf(out, "%10lld %10lld %10lld %10lld%s\n", num(row[0]), num(row[1]),
			num(row[2]), num(row[3]), num(row[0]) < 0 ? " (sites of several tags)" : "");
	mysql_free_result(res);
	fprintf(out, "   ----------------------------------------\n");
	return 0;
}

int db_print_stats(struct db *db, FILE *out)
{
	struct stats s;
	long long v[2], when = 0;
	char due[128];
	bool found;
	int rc = -1, k;

	memset(&s, 0, sizeof(s));
	fprintf(out, "\n          mpseek database statistics (database %s at %s)\n", db->name,
		db->where);
	if (stats_scan(db, &s))
		goto out;
	print_by_status(&s, out);
	if (print_by_index_status(db, &s, out) || stats_claims(db, out) || stats_by_tag(db, out))
		goto out;
	if (sql_row(db, "SELECT COUNT(*), SUM(claim_rank >= 0 AND lease_until > UNIX_TIMESTAMP())"
		    " FROM sites", v, 2, &found))
		goto out;
	fprintf(out, "\n    Sites: %lld (%lld leased)\n", v[0], v[1]);
	if (print_sites(db, &s, out))
		goto out;
	k = db_next_due(db, &when);
	if (k < 0)
		goto out;
	if (k == 0)
		snprintf(due, sizeof(due), "never (no live URL)");
	else
		db_due_text(when, due, sizeof(due));
	fprintf(out, "\n    Next URL due: %s\n", due);
	rc = fflush(out) ? error_errno("writing the statistics") : 0;
out:
	free(s.st);
	free(s.sites);
	return rc;
}
