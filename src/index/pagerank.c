/* pagerank.c - the link graph and the distributed PageRank of mpseek-index
 * (include/pagerank.h; rules, formula and measurements in doc/PAGERANK.md).
 *
 * The pages are numbered 0..N-1 in url_id order on every rank; rank r owns
 * the contiguous block of sources [N*r/P, N*(r+1)/P) and keeps their links
 * transposed (per target, its own sources), so that an iteration is a
 * gather of x[s]/outdeg(s) into a full-length partial vector, then one
 * collective (cluster.h) that sums the partial vectors.  Rank 0 alone reads
 * what every rank must agree on (the pages, redirects, clones, the previous
 * ranks) and broadcasts it; each rank reads the links of its own block.
 * Only rank 0 writes files.  MPI only through cluster.h.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "binfile.h"
#include "buf.h"
#include "citations.h"
#include "cluster.h"
#include "conf.h"
#include "db.h"
#include "log.h"
#include "pagerank.h"
#include "ranks.h"
#include "storage.h"
#include "util.h"

#define NONE UINT32_MAX
/* A warm start needs this share of today's pages ranked before, and the
 * page count within this ratio (doc/PAGERANK.md, "Warm start"). */
#define WARM_MIN_OVERLAP 0.9
#define WARM_MAX_GROWTH  0.1
/* Bytes of one line of an edge list file. */
#define MAX_EDGE_LINE    4096

struct graph {
	size_t n;            /* pages, on every rank */
	uint32_t *ids;       /* url_id of page i, ascending */
	uint32_t *map;       /* url_id -> page it stands for (redirects, clones resolved) or NONE */
	size_t m;            /* entries of map */
	size_t lo, hi;       /* this rank's sources */
	size_t *counts;      /* pages per rank */
	/* out-lists of the own sources as read: targets as page numbers,
	 * ascending, no duplicates */
	uint64_t *out_at;    /* per own source: start in out, UINT64_MAX = none */
	uint32_t *out_len;
	uint32_t *out;
	size_t n_out, cap_out;
	/* the transposed own graph that the iteration reads */
	uint32_t *in_off;    /* n+1: own sources of target t are in_src[in_off[t]..in_off[t+1]) */
	uint32_t *in_src;    /* own source minus lo */
	uint32_t *outdeg;    /* per own source */
	size_t n_links;      /* links of the whole graph (rank 0, after gathering) */
};

struct result {
	uint32_t iterations;
	double delta;
	bool converged, warm;
	double build_s, transpose_s, iterate_s;
};

static void graph_free(struct graph *g)
{
	free(g->ids);
	free(g->map);
	free(g->counts);
	free(g->out_at);
	free(g->out_len);
	free(g->out);
	free(g->in_off);
	free(g->in_src);
	free(g->outdeg);
	memset(g, 0, sizeof(*g));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort and drop duplicates; returns the new length. */
static size_t sort_unique(uint32_t *v, size_t n)
{
	size_t k = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* The map url_id -> page for the pages ids[0..n) (ascending, unique) and
 * room for url_ids below m. */
static void graph_map(struct graph *g, size_t m)
{
	if (g->n && m <= g->ids[g->n - 1])
		m = (size_t)g->ids[g->n - 1] + 1;
	g->m = m;
	g->map = xmalloc((m ? m : 1) * sizeof(*g->map));
	for (size_t i = 0; i < m; i++)
		g->map[i] = NONE;
	for (size_t i = 0; i < g->n; i++)
		g->map[g->ids[i]] = (uint32_t)i;
}

/* This rank's block of sources and the per-rank counts. */
static void graph_partition(struct graph *g)
{
	size_t p = (size_t)cluster_size(), r = (size_t)cluster_rank();

	g->counts = xmalloc(p * sizeof(*g->counts));
	for (size_t k = 0; k < p; k++)
		g->counts[k] = g->n * (k + 1) / p - g->n * k / p;
	g->lo = g->n * r / p;
	g->hi = g->n * (r + 1) / p;
	g->out_at = xmalloc((g->hi - g->lo + 1) * sizeof(*g->out_at));
	g->out_len = xcalloc(g->hi - g->lo + 1, sizeof(*g->out_len));
	for (size_t i = 0; i < g->hi - g->lo; i++)
		g->out_at[i] = UINT64_MAX;
}

/* The links of own source page s: t[0..k) page numbers (reordered here).
 * A source given twice keeps its first list. */
static void graph_add(struct graph *g, size_t s, uint32_t *t, size_t k)
{
	size_t i = s - g->lo;

	if (g->out_at[i] != UINT64_MAX)
		return;
	k = sort_unique(t, k);
	if (g->n_out + k > g->cap_out) {
		size_t cap = g->cap_out ? g->cap_out : 1024;

		while (cap < g->n_out + k)
			cap *= 2;
		g->out = xrealloc(g->out, cap * sizeof(*g->out));
		g->cap_out = cap;
	}
	if (k)
		memcpy(g->out + g->n_out, t, k * sizeof(*t));
	g->out_at[i] = g->n_out;
	g->out_len[i] = (uint32_t)k;
	g->n_out += k;
}

/* Per target, the own sources that link to it, ascending (the sources are
 * visited in order).  keep_out = false frees the out-lists. */
static int graph_transpose(struct graph *g, bool keep_out)
{
	size_t nb = g->hi - g->lo;

	if (g->n_out >= UINT32_MAX)
		return error("pagerank: %zu links on one rank is more than this build handles",
			     g->n_out);
	g->in_off = xcalloc(g->n + 1, sizeof(*g->in_off));
	g->in_src = xmalloc((g->n_out ? g->n_out : 1) * sizeof(*g->in_src));
	g->outdeg = xmalloc((nb ? nb : 1) * sizeof(*g->outdeg));
	for (size_t i = 0; i < nb; i++) {
		g->outdeg[i] = g->out_len[i];
		for (uint32_t j = 0; j < g->out_len[i]; j++)
			g->in_off[g->out[g->out_at[i] + j] + 1]++;
	}
	for (size_t t = 0; t < g->n; t++)
		g->in_off[t + 1] += g->in_off[t];
	/* Fill with in_off[t] as the cursor of t, then shift back. */
	for (size_t i = 0; i < nb; i++)
		for (uint32_t j = 0; j < g->out_len[i]; j++)
			g->in_src[g->in_off[g->out[g->out_at[i] + j]]++] = (uint32_t)i;
	for (size_t t = g->n; t > 0; t--)
		g->in_off[t] = g->in_off[t - 1];
	g->in_off[0] = 0;
	if (!keep_out) {
		free(g->out);
		g->out = NULL;
		g->cap_out = 0;
	}
	return 0;
}

/* y[t] = sum over own sources s -> t of xs[s] (t = 0..n-1). */
static void gather(const struct graph *g, const double *xs, double *y)
{
	const uint32_t *off = g->in_off, *src = g->in_src;

	for (size_t t = 0; t < g->n; t++) {
		double sum = 0;

		for (uint32_t j = off[t]; j < off[t + 1]; j++)
			sum += xs[src[j]];
		y[t] = sum;
	}
}

/* The power iteration (doc/PAGERANK.md, "Formula"): x (n values, the same
 * on every rank) is the start and receives the result, normalised to sum 1.
 * Convergence is decided on rank 0 and broadcast. */
static int iterate(const struct graph *g, const struct conf *c, enum pagerank_comm comm,
		   double *x, struct result *res)
{
	const double d = c->pagerank_damping, tol = c->pagerank_tolerance;
	const size_t n = g->n, nb = g->hi - g->lo;
	double *xs = xmalloc((nb ? nb : 1) * sizeof(*xs));
	double *y = xmalloc((n + 1) * sizeof(*y));
	double *yb = xmalloc((nb ? nb : 1) * sizeof(*yb));
	double t0 = now_monotonic(), sum;
	int stop = 0, rc = -1;

	res->iterations = 0;
	res->delta = 0;
	res->converged = false;
	while (!stop) {
		double dang = 0, delta = 0, base;

		for (size_t s = 0; s < nb; s++) {
			if (g->outdeg[s]) {
				xs[s] = x[g->lo + s] / g->outdeg[s];
			} else {
				xs[s] = 0;
				dang += x[g->lo + s];
			}
		}
		gather(g, xs, y);
		if (comm == PAGERANK_ALLREDUCE) {
			/* The dangling mass travels as element n. */
			y[n] = dang;
			if (cluster_allreduce_sum(y, n + 1))
				goto out;
			base = (1 - d) / (double)n + d * y[n] / (double)n;
			for (size_t i = 0; i < n; i++) {
				double v = base + d * y[i];

				delta += fabs(v - x[i]);
				x[i] = v;
			}
		} else {
			if (cluster_allreduce_sum(&dang, 1) ||
			    cluster_reduce_scatter_sum(y, yb, g->counts))
				goto out;
			base = (1 - d) / (double)n + d * dang / (double)n;
			for (size_t i = 0; i < nb; i++) {
				double v = base + d * yb[i];

				delta += fabs(v - x[g->lo + i]);
				x[g->lo + i] = v;
			}
			if (cluster_allgather(x, g->counts) || cluster_allreduce_sum(&delta, 1))
				goto out;
		}
		res->iterations++;
		res->delta = delta;
		/* One place decides; the others follow its word. */
		if (cluster_rank() == 0) {
			if (delta < tol)
				res->converged = true;
			stop = res->converged || res->iterations >= (uint32_t)c->pagerank_max_iterations;
		}
		{
			double flag = stop;   /* the fast-polled broadcast */

			if (cluster_bcast_doubles(&flag, 1))
				goto out;
			stop = flag != 0;
		}
	}
	/* Rounding drifts the sum by a few ulps per iteration: renormalise,
	 * summing with Neumaier's compensation (a plain sum of 10^6 values is
	 * off by ~1e-12 itself). */
	sum = 0;
	{
		double comp = 0;

		for (size_t i = 0; i < n; i++) {
			double t = sum + x[i];

			comp += fabs(sum) >= fabs(x[i]) ? (sum - t) + x[i] : (x[i] - t) + sum;
			sum = t;
		}
		sum += comp;
	}
	for (size_t i = 0; i < n && sum > 0; i++)
		x[i] /= sum;
	rc = 0;
out:
	res->iterate_s = now_monotonic() - t0;
	free(xs);
	free(y);
	free(yb);
	return rc;
}

/* The start vector: uniform, or the previous ranks (rank 0 reads them from
 * gen_dir and decides) when the graph changed little.  x has n entries. */
static int start_vector(const struct graph *g, const char *gen_dir, bool cold, double *x,
			bool *warm)
{
	int use = 0;
	size_t n = g->n;

	for (size_t i = 0; i < n; i++)
		x[i] = 1.0 / (double)n;
	if (cluster_rank() == 0 && gen_dir && !cold && n) {
		struct ranks *r = NULL;
		size_t known = 0;
		double sum = 0;
		struct buf err = BUF_INIT(512);

		/* Unreadable previous ranks (an older format version after an
		 * upgrade, damage) only mean a cold start. */
		if (ranks_open(gen_dir, &r, &err) < 0)
			info("pagerank: previous ranks not used: %s: cold start", buf_str(&err));
		buf_free(&err);
		if (r) {
			const struct ranks_meta *m = ranks_meta(r);

			for (size_t i = 0; i < n; i++)
				if (ranks_get(r, g->ids[i]) > 0)
					known++;
			if (known >= WARM_MIN_OVERLAP * (double)n &&
			    fabs((double)m->n_nodes - (double)n) <= WARM_MAX_GROWTH * (double)n) {
				use = 1;
				for (size_t i = 0; i < n; i++) {
					double v = ranks_get(r, g->ids[i]);

					x[i] = v > 0 ? v : 1.0 / (double)n;
					sum += x[i];
				}
				for (size_t i = 0; i < n; i++)
					x[i] /= sum;
			}
			info("pagerank: previous ranks know %zu of %zu pages: %s start", known, n,
			     use ? "warm" : "cold");
		}
		ranks_close(r);
	}
	cluster_bcast_int(&use);
	*warm = use != 0;
	if (use && cluster_bcast_doubles(x, n))
		return -1;
	return 0;
}

/* Rank 0 gets every rank's out-lists (as url_ids) and writes citations/. */
static int write_citations(const struct graph *g, const char *gen_dir)
{
	size_t nb = g->hi - g->lo, k = 0, total = 0;
	uint32_t *mine = xmalloc((nb + g->n_out + 1) * sizeof(*mine)), *all = NULL;
	uint64_t *off = NULL;
	int rc = 0;

	/* Per own source: its count, then its targets' url_ids. */
	for (size_t i = 0; i < nb; i++) {
		mine[k++] = g->out_len[i];
		for (uint32_t j = 0; j < g->out_len[i]; j++)
			mine[k++] = g->ids[g->out[g->out_at[i] + j]];
	}
	if (cluster_gather_u32(mine, k, &all, &total))
		rc = -1;
	free(mine);
	if (cluster_rank() != 0 || rc)
		goto out;
	/* The blocks arrive in rank order: sources 0..n-1. */
	off = xmalloc((g->n + 1) * sizeof(*off));
	{
		size_t at = 0, w = 0;

		for (size_t i = 0; i < g->n; i++) {
			uint32_t len;

			if (at >= total || (len = all[at]) > total - at - 1) {
				rc = error("pagerank: the gathered link lists do not add up");
				goto out;
			}
			off[i] = w;
			memmove(all + w, all + at + 1, len * sizeof(*all));
			w += len;
			at += 1 + (size_t)len;
		}
		off[g->n] = w;
		rc = citations_write(gen_dir, g->ids, g->n, off, all);
	}
out:
	free(all);
	free(off);
	return rc;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_maxrss;
}

/* Transpose, iterate, and (rank 0) write the files; every rank returns the
 * same status. */
static int compute(struct graph *g, const struct conf *c, const struct pagerank_opts *o,
		   const char *gen_dir, bool files, double **xout, struct result *res)
{
	double *x = NULL;
	int rc;

	double t0 = now_monotonic();

	rc = graph_transpose(g, files);
	res->transpose_s = now_monotonic() - t0;
	/* The url_id map is not needed any more. */
	free(g->map);
	g->map = NULL;
	g->m = 0;
	rc = cluster_agree(rc);
	if (rc)
		return -1;
	x = xmalloc((g->n ? g->n : 1) * sizeof(*x));
	rc = start_vector(g, gen_dir, o->cold, x, &res->warm);
	if (!rc && g->n)
		rc = iterate(g, c, o->comm, x, res);
	rc = cluster_agree(rc);
	if (!rc && files) {
		if (write_citations(g, gen_dir))
			rc = -1;
		if (!rc && cluster_rank() == 0) {
			struct ranks_meta m = {
				.iterations = res->iterations, .damping = c->pagerank_damping,
				.delta = res->delta,
				.flags = (res->converged ? RANKS_CONVERGED : 0) |
					 (res->warm ? RANKS_WARM : 0),
			};

			rc = ranks_write(gen_dir, g->ids, x, g->n, &m);
		}
		rc = cluster_agree(rc);
	}
	if (rc || !xout)
		free(x);
	else
		*xout = x;
	return rc;
}

/* --- the graph from the database ----------------------------------------- */

struct vec32 {
	uint32_t *v;
	size_t n, cap;
};

static void vec_push(struct vec32 *a, uint32_t x)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 1024;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = x;
}

static int push_one(void *arg, uint32_t id)
{
	vec_push(arg, id);
	return 0;
}

static int push_two(void *arg, uint32_t a, uint32_t b)
{
	vec_push(arg, a);
	vec_push(arg, b);
	return 0;
}

/* Sorted (key, value) pairs: the value of key or NONE. */
static uint32_t pair_find(const uint32_t *p, size_t n, uint32_t key)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (p[2 * mid] < key)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && p[2 * a] == key ? p[2 * a + 1] : NONE;
}

static int cmp_pair(const void *a, const void *b)
{
	return cmp_u32(a, b);
}

/* Rank 0: the url_ids that stand for another page, as (url_id, page
 * url_id) pairs.  A redirect is followed to its end (at most MAX_REDIRECTS
 * steps; a loop leads nowhere), a clone stands for its origin; what ends
 * at a page of the graph is kept. */
static void resolve_aliases(const struct graph *g, struct vec32 *red, struct vec32 *clo,
			    struct vec32 *out)
{
	/* qsort(NULL, 0, ...) is undefined (UBSan): a crawl without redirects. */
	if (red->n)
		qsort(red->v, red->n / 2, 2 * sizeof(uint32_t), cmp_pair);
	if (clo->n)
		qsort(clo->v, clo->n / 2, 2 * sizeof(uint32_t), cmp_pair);
	for (int pass = 0; pass < 2; pass++) {
		const struct vec32 *from = pass ? clo : red;

		for (size_t i = 0; i < from->n; i += 2) {
			uint32_t u = from->v[i], t = u;
			int steps = 0;

			/* Redirects first (a link to a redirecting page counts
			 * for where it leads), then clone to origin. */
			for (; steps <= MAX_REDIRECTS; steps++) {
				uint32_t r = pair_find(red->v, red->n / 2, t), o;

				if (r != NONE && r != t) {
					t = r;
					continue;
				}
				o = pair_find(clo->v, clo->n / 2, t);
				if (o != NONE && o != t) {
					t = o;
					continue;
				}
				break;
			}
			if (steps > MAX_REDIRECTS || t >= g->m || g->map[t] == NONE || t == u)
				continue;
			vec_push(out, u);
			vec_push(out, t);
		}
	}
}

struct href_ctx {
	struct graph *g;
	uint32_t *t;          /* MAX_HTML_LINKS scratch */
	size_t kept, dropped;
};

static int add_hrefs(void *arg, uint32_t url_id, const unsigned char *p, size_t len)
{
	struct href_ctx *h = arg;
	struct graph *g = h->g;
	size_t a = g->lo, b = g->hi, k = 0, s;

	/* Only the own pages themselves, found by url_id (the map sends a
	 * page that also redirects to its target). */
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (g->ids[mid] < url_id)
			a = mid + 1;
		else
			b = mid;
	}
	if (a >= g->hi || g->ids[a] != url_id)
		return 0;
	s = a;
	for (size_t i = 0; i + 4 <= len && k < MAX_HTML_LINKS; i += 4) {
		uint32_t u = le_get32(p + i), t = u < g->m ? g->map[u] : NONE;

		if (t == NONE) {
			h->dropped++;
			continue;
		}
		h->t[k++] = t;
	}
	h->kept += k;
	graph_add(g, s, h->t, k);
	return 0;
}

/* The pages of the generation: its documents (docinfo), as the database
 * query names them (doc/PAGERANK.md, "The graph"). */
static int pages_from_gen(const struct storage *s, struct vec32 *pages)
{
	uint64_t slots = storage_docinfo_slots(s);

	for (uint32_t u = 1; u < slots && u; u++) {
		struct storage_doc d;
		int k = storage_doc(s, u, &d);

		if (k < 0)
			return -1;
		if (k > 0 && d.site_id)
			vec_push(pages, u);
	}
	return 0;
}

/* Rank 0's generation directory on every rank (the others may not have
 * been told it: -K makes it on rank 0); NULL when it has none. */
static char *rank0_dir(const char *gen_dir)
{
	const char *mine = cluster_rank() == 0 && gen_dir ? gen_dir : "";
	unsigned char *all = NULL;
	size_t *lens = NULL;
	char *d = NULL;

	if (!cluster_allgather_bytes(mine, strlen(mine), &all, &lens) && lens[0])
		d = xstrndup((const char *)all, lens[0]);
	free(all);
	free(lens);
	return d;
}

/* The generation's own copy of the graph: `links` (every rank) and docinfo
 * (rank 0), unless MPSEEK_PAGERANK_GRAPH=db asks for the database.  Every
 * rank agrees: 1 when all of them opened the files, else 0 (the database
 * then, on every rank). */
static int open_gen_graph(const char *rank0_gen_dir, struct citations **links,
			  struct storage **doc)
{
	const char *how = getenv("MPSEEK_PAGERANK_GRAPH");
	char *gen_dir = rank0_dir(rank0_gen_dir);
	struct buf err = BUF_INIT(1024);
	int rc = -1;

	*links = NULL;
	*doc = NULL;
	/* Verified whole first (its data CRC: ~30 ms at 10^6 pages), so that
	 * damage means the database, not a failed PageRank. */
	if (gen_dir && !(how && !strcmp(how, "db")) &&
	    citations_verify(gen_dir, CITATIONS_LINKS, &err) > 0 &&
	    citations_open(gen_dir, CITATIONS_LINKS, links, &err) > 0 &&
	    (cluster_rank() != 0 || storage_open_docinfo(gen_dir, doc, &err) == 0))
		rc = 0;
	if (rc && err.len)
		warning("pagerank: %s: the graph is read from the database", buf_str(&err));
	buf_free(&err);
	free(gen_dir);
	/* A rank on a host of its own may find another file at that path (its
	 * own DataDir's): each must read rank 0's. */
	{
		unsigned char mine[16] = { 0 }, *all = NULL;
		size_t *lens = NULL;

		if (*links) {
			le_put64(mine, citations_n_links(*links));
			le_put32(mine + 8, citations_n_url_ids(*links));
			le_put32(mine + 12, citations_data_crc(*links));
		}
		if (cluster_allgather_bytes(mine, sizeof(mine), &all, &lens) ||
		    memcmp(all, mine, sizeof(mine))) {
			if (!rc)
				warning("pagerank: %s is not rank 0's here (another host's data "
					"directory): the graph is read from the database", LINKS_FILE);
			rc = -1;
		}
		free(all);
		free(lens);
	}
	if (cluster_agree(rc)) {
		citations_close(*links);
		storage_close(*doc);
		*links = NULL;
		*doc = NULL;
		return 0;
	}
	return 1;
}

/* Rank 0 reads the pages and aliases and broadcasts them; every rank reads
 * its own block's links: the pages and the links from the generation
 * (docinfo, `links`) when it has them, else from the database; the aliases
 * always from the database.  Returns 0 or -1 on every rank. */
static int graph_read(struct graph *g, struct db *db, const char *gen_dir, bool *from_gen)
{
	struct vec32 pages = { 0 }, red = { 0 }, clo = { 0 }, alias = { 0 };
	struct href_ctx h = { .g = g };
	struct citations *links;
	struct storage *doc;
	size_t n_alias = 0;
	int rc = 0;

	*from_gen = open_gen_graph(gen_dir, &links, &doc);
	if (cluster_rank() == 0) {
		if ((*from_gen ? pages_from_gen(doc, &pages) : db_graph_nodes(db, push_one, &pages)) ||
		    db_graph_redirects(db, push_two, &red) || db_graph_clones(db, push_two, &clo))
			rc = -1;
		storage_close(doc);
		pages.n = sort_unique(pages.v, pages.n);
		g->n = pages.n;
		g->ids = pages.v;
		pages.v = NULL;
		graph_map(g, 0);
		resolve_aliases(g, &red, &clo, &alias);
		n_alias = alias.n;
		free(g->map);
		g->map = NULL;
	}
	if (cluster_agree(rc))
		goto fail;
	/* Everybody gets the pages and the aliases. */
	if (cluster_bcast_u32(&g->ids, &g->n) || cluster_bcast_u32(&alias.v, &n_alias))
		rc = -1;
	if (cluster_agree(rc))
		goto fail;
	{
		size_t m = 0;

		for (size_t i = 0; i < n_alias; i += 2)
			if (alias.v[i] >= m)
				m = (size_t)alias.v[i] + 1;
		graph_map(g, m);
		for (size_t i = 0; i < n_alias; i += 2)
			g->map[alias.v[i]] = g->map[alias.v[i + 1]];
	}
	graph_partition(g);
	h.t = xmalloc(MAX_HTML_LINKS * sizeof(*h.t));
	if (links) {
		/* The file's lists are the hrefs column's bytes: little-endian
		 * url_ids, ascending. */
		for (size_t i = g->lo; i < g->hi && !rc; i++) {
			const unsigned char *l;
			size_t n;

			if (citations_list(links, g->ids[i], &l, &n) < 0)
				rc = error("pagerank: the generation's %s: url_id %u: damaged "
					   "offsets", LINKS_FILE, g->ids[i]);
			else if (n)
				add_hrefs(&h, g->ids[i], l, 4 * n);
		}
		citations_close(links);
		links = NULL;
	} else if (g->hi > g->lo &&
		   db_graph_hrefs(db, g->ids[g->lo], g->ids[g->hi - 1], add_hrefs, &h)) {
		rc = -1;
	}
	free(h.t);
	debug("pagerank: pages %zu..%zu: %zu links kept, %zu to no page", g->lo, g->hi, h.kept,
	      h.dropped);
	if (cluster_agree(rc))
		goto fail;
	free(pages.v);
	free(red.v);
	free(clo.v);
	free(alias.v);
	return 0;
fail:
	citations_close(links);
	free(pages.v);
	free(red.v);
	free(clo.v);
	free(alias.v);
	return -1;
}

int pagerank_run(const struct conf *c, struct db *db, const char *gen_dir,
		 const struct pagerank_opts *opts)
{
	struct pagerank_opts def = { PAGERANK_RSAG, false, false };
	struct graph g = { 0 };
	struct result res = { 0 };
	double t0 = now_monotonic();
	size_t links = 0;
	bool from_gen = false;
	int rc;

	if (!opts)
		opts = &def;
	cluster_set_blocking(opts->blocking);
	rc = graph_read(&g, db, gen_dir, &from_gen);
	if (!rc) {
		double l = (double)g.n_out;

		res.build_s = now_monotonic() - t0;
		if (cluster_allreduce_sum(&l, 1))
			rc = -1;
		links = (size_t)l;
	}
	if (!rc)
		rc = compute(&g, c, opts, gen_dir, true, NULL, &res);
	if (!rc && cluster_rank() == 0)
		info("pagerank: %zu pages, %zu links, %u iterations (%s), L1 change %.3g,"
		     " %s start; graph %.2f s (from the %s), iterations %.2f s", g.n, links,
		     res.iterations, res.converged ? "converged" : "iteration cap", res.delta,
		     res.warm ? "warm" : "cold", res.build_s,
		     from_gen ? "generation's links" : "database", res.iterate_s);
	graph_free(&g);
	return rc;
}

/* --- the graph from an edge list file ----------------------------------- */

/* Parse a line: 0 numbers (blank/comment), 1 or 2.  Returns the count or
 * -1 on junk. */
static int parse_line(const char *s, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];
	int k = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			break;
		if (k == 2 || *s < '0' || *s > '9')
			return -1;
		uint64_t x = 0;

		while (*s >= '0' && *s <= '9') {
			x = x * 10 + (uint64_t)(*s++ - '0');
			if (x >= PAGERANK_MAX_FILE_ID)
				return -1;
		}
		if (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n' && *s != '#')
			return -1;
		v[k++] = (uint32_t)x;
	}
	*a = k > 0 ? v[0] : 0;
	*b = k > 1 ? v[1] : 0;
	return k;
}

/* One pass over the file: fn(arg, k, a, b) per line with numbers. */
static int each_line(const char *path, void (*fn)(void *arg, int k, uint32_t a, uint32_t b),
		     void *arg)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	long no = 0;
	int rc = 0;

	if (!fp)
		return error_errno("cannot open %s", path);
	ssize_t len;

	while ((len = getline(&line, &cap, fp)) > 0) {
		uint32_t a, b;
		int k;

		no++;
		/* Two ids and a comment fit; anything longer is not an edge list. */
		k = len > MAX_EDGE_LINE ? -1 : parse_line(line, &a, &b);
		if (k < 0) {
			rc = error("%s:%ld: want \"SRC DST\" or \"ID\" (ids below %u)", path, no,
				   PAGERANK_MAX_FILE_ID);
			break;
		}
		if (k)
			fn(arg, k, a, b);
	}
	if (!rc && ferror(fp))
		rc = error_errno("cannot read %s", path);
	free(line);
	fclose(fp);
	return rc;
}

struct file_ctx {
	struct graph *g;
	uint32_t *cnt;        /* per own source: links counted (pass 2), filled (pass 3) */
	uint64_t *at;         /* per own source: start in the fill buffer */
	uint32_t *buf;
};

/* Pass 1: every id seen is marked in map (growing). */
static void mark_ids(void *arg, int k, uint32_t a, uint32_t b)
{
	struct graph *g = arg;
	uint32_t hi = k > 1 && b > a ? b : a;

	if (hi >= g->m) {
		size_t m = g->m ? g->m : 1024;

		while (m <= hi)
			m *= 2;
		g->map = xrealloc(g->map, m * sizeof(*g->map));
		for (size_t i = g->m; i < m; i++)
			g->map[i] = NONE;
		g->m = m;
	}
	g->map[a] = 0;
	if (k > 1)
		g->map[b] = 0;
}

static void count_links(void *arg, int k, uint32_t a, uint32_t b)
{
	struct file_ctx *f = arg;
	uint32_t s = f->g->map[a];

	(void)b;
	if (k > 1 && s >= f->g->lo && s < f->g->hi)
		f->cnt[s - f->g->lo]++;
}

static void fill_links(void *arg, int k, uint32_t a, uint32_t b)
{
	struct file_ctx *f = arg;
	uint32_t s = f->g->map[a];

	if (k > 1 && s >= f->g->lo && s < f->g->hi) {
		size_t i = s - f->g->lo;

		f->buf[f->at[i] + f->cnt[i]++] = f->g->map[b];
	}
}

static int graph_from_file(struct graph *g, const char *path)
{
	struct file_ctx f = { .g = g };
	size_t nb, total = 0;

	if (each_line(path, mark_ids, g))
		return -1;
	for (size_t i = 0; i < g->m; i++)
		if (g->map[i] != NONE)
			g->n++;
	g->ids = xmalloc((g->n ? g->n : 1) * sizeof(*g->ids));
	g->n = 0;
	for (size_t i = 0; i < g->m; i++)
		if (g->map[i] != NONE) {
			g->map[i] = (uint32_t)g->n;
			g->ids[g->n++] = (uint32_t)i;
		}
	graph_partition(g);
	nb = g->hi - g->lo;
	f.cnt = xcalloc(nb + 1, sizeof(*f.cnt));
	f.at = xmalloc((nb + 1) * sizeof(*f.at));
	if (each_line(path, count_links, &f))
		goto fail;
	for (size_t i = 0; i < nb; i++) {
		f.at[i] = total;
		total += f.cnt[i];
		f.cnt[i] = 0;
	}
	f.buf = xmalloc((total ? total : 1) * sizeof(*f.buf));
	if (each_line(path, fill_links, &f))
		goto fail;
	/* graph_add() sorts each list in place and copies it. */
	for (size_t i = 0; i < nb; i++)
		graph_add(g, g->lo + i, f.buf + f.at[i], f.cnt[i]);
	free(f.buf);
	free(f.cnt);
	free(f.at);
	return 0;
fail:
	free(f.buf);
	free(f.cnt);
	free(f.at);
	return -1;
}

int pagerank_edges(const struct conf *c, const char *path, FILE *out,
		   const struct pagerank_opts *opts)
{
	struct pagerank_opts def = { PAGERANK_RSAG, false, true };
	struct graph g = { 0 };
	struct result res = { 0 };
	double t0 = now_monotonic(), *x = NULL, links;
	long rss;
	int rc;

	if (!opts)
		opts = &def;
	cluster_set_blocking(opts->blocking);
	rc = cluster_agree(graph_from_file(&g, path));
	if (rc)
		goto out;
	links = (double)g.n_out;
	if (cluster_allreduce_sum(&links, 1)) {
		rc = -1;
		goto out;
	}
	res.build_s = now_monotonic() - t0;
	rc = compute(&g, c, opts, NULL, false, &x, &res);
	if (rc)
		goto out;
	rss = peak_rss_kb();
	{
		double r = (double)rss;

		if (cluster_allreduce_sum(&r, 1))
			rc = -1;
		if (cluster_rank() == 0) {
			for (size_t i = 0; i < g.n; i++)
				fprintf(out, "%u\t%.17g\n", g.ids[i], x[i]);
			fflush(out);
			fprintf(stderr,
				"pagerank-edges: ranks=%d nodes=%zu edges=%.0f iterations=%u"
				" delta=%.3g converged=%d comm=%s blocking=%d build_s=%.3f"
				" transpose_s=%.3f iterate_s=%.3f per_iteration_ms=%.3f rss_kb_rank0=%ld"
				" rss_kb_total=%.0f\n",
				cluster_size(), g.n, links, res.iterations, res.delta,
				res.converged, opts->comm == PAGERANK_RSAG ? "rsag" : "allreduce",
				opts->blocking, res.build_s, res.transpose_s, res.iterate_s,
				res.iterations ? 1000 * res.iterate_s / res.iterations : 0.0, rss,
				r);
		}
	}
out:
	free(x);
	graph_free(&g);
	return rc;
}
