/* test-ranks.c - the files PageRank leaves in a generation: `ranks` and
 * `citations/{direct,reverse}` round trip on the graphs of
 * tests/data/pagerank/ (lists checked against a naive adjacency built here),
 * missing files, and damage: every truncation and every byte flip must give
 * an error or bounded answers, never a crash (run under ASan).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "citations.h"
#include "log.h"
#include "ranks.h"
#include "tap.h"
#include "util.h"

static const char *const graphs[] = {
	"dangling", "selfloops", "disconnected", "single", "single-loop", "star", "random300",
};

#define MAX_ID 100000

struct graph {
	uint32_t *ids;        /* pages, ascending */
	size_t n;
	uint32_t *src, *dst;  /* unique edges */
	size_t e;
};

static int has_edge(const struct graph *g, uint32_t a, uint32_t b)
{
	for (size_t i = 0; i < g->e; i++)
		if (g->src[i] == a && g->dst[i] == b)
			return 1;
	return 0;
}

static void add_page(struct graph *g, uint32_t id)
{
	size_t i = 0;

	while (i < g->n && g->ids[i] < id)
		i++;
	if (i < g->n && g->ids[i] == id)
		return;
	g->ids = xrealloc(g->ids, (g->n + 1) * sizeof(*g->ids));
	memmove(g->ids + i + 1, g->ids + i, (g->n - i) * sizeof(*g->ids));
	g->ids[i] = id;
	g->n++;
}

static int load(const char *name, struct graph *g)
{
	char rel[128], line[256];
	FILE *fp;

	memset(g, 0, sizeof(*g));
	snprintf(rel, sizeof(rel), "pagerank/%s.edges", name);
	fp = fopen(tap_data(rel), "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		unsigned a, b;
		int k = sscanf(line, "%u %u", &a, &b);

		if (line[0] == '#' || k < 1)
			continue;
		add_page(g, a);
		if (k == 2) {
			add_page(g, b);
			if (!has_edge(g, a, b)) {
				g->src = xrealloc(g->src, (g->e + 1) * sizeof(*g->src));
				g->dst = xrealloc(g->dst, (g->e + 1) * sizeof(*g->dst));
				g->src[g->e] = a;
				g->dst[g->e] = b;
				g->e++;
			}
		}
	}
	fclose(fp);
	return 0;
}

static void graph_free(struct graph *g)
{
	free(g->ids);
	free(g->src);
	free(g->dst);
}

/* The direct lists in the writer's shape: per page, ascending targets. */
static void direct_lists(const struct graph *g, uint64_t **off, uint32_t **dst)
{
	size_t k = 0;

	*off = xmalloc((g->n + 1) * sizeof(**off));
	*dst = xmalloc((g->e + 1) * sizeof(**dst));
	for (size_t i = 0; i < g->n; i++) {
		(*off)[i] = k;
		for (size_t t = 0; t < g->n; t++)
			if (has_edge(g, g->ids[i], g->ids[t]))
				(*dst)[k++] = g->ids[t];
	}
	(*off)[g->n] = k;
}

/* Compare a stored list with the naive adjacency. */
static int list_ok(const struct graph *g, const struct citations *ci, uint32_t u, int reverse)
{
	const unsigned char *l;
	size_t n, want = 0, k = 0;

	if (citations_list(ci, u, &l, &n) < 0)
		return 0;
	for (size_t i = 0; i < g->n; i++) {
		uint32_t v = g->ids[i];

		if (reverse ? has_edge(g, v, u) : has_edge(g, u, v)) {
			want++;
			if (k >= n || citations_at(l, k) != v)
				return 0;
			k++;
		}
	}
	return want == n;
}

static char dir[256];

static void test_graph(const char *name)
{
	struct graph g;
	struct citations *d = NULL, *r = NULL;
	struct ranks *rk = NULL;
	uint64_t *off;
	uint32_t *dst;
	double *x;
	int good = 1;

	if (!ok(load(name, &g) == 0, "%s: load", name))
		return;
	direct_lists(&g, &off, &dst);
	ok(citations_write(dir, g.ids, g.n, off, dst) == 0, "%s: citations written", name);
	is_int(citations_open(dir, CITATIONS_DIRECT, &d, NULL), 1, "%s: direct opens", name);
	is_int(citations_open(dir, CITATIONS_REVERSE, &r, NULL), 1, "%s: reverse opens", name);
	if (d && r) {
		uint32_t top = g.ids[g.n - 1];

		for (uint32_t u = 0; u <= top && good; u++)
			good = list_ok(&g, d, u, 0) && list_ok(&g, r, u, 1);
		ok(good, "%s: every direct and reverse list matches the edges", name);
		is_int(citations_n_links(d), g.e, "%s: direct link count", name);
		is_int(citations_n_links(r), g.e, "%s: reverse link count", name);
		is_int(citations_n_url_ids(d), top + 1, "%s: url_id slots", name);
		{
			const unsigned char *l;
			size_t n;

			is_int(citations_list(d, top + 1, &l, &n), 0, "%s: past the end is 0", name);
			is_int(citations_list(r, UINT32_MAX, &l, &n), 0, "%s: UINT32_MAX is 0", name);
		}
	}
	citations_close(d);
	citations_close(r);

	/* links: the same lists, as given, one slot past the top kept empty */
	d = NULL;
	ok(citations_write_links(dir, g.ids[g.n - 1] + 2, g.ids, g.n, off, dst) == 0,
	   "%s: links written", name);
	is_int(citations_open(dir, CITATIONS_LINKS, &d, NULL), 1, "%s: links opens", name);
	if (d) {
		const unsigned char *l;
		size_t n;

		good = 1;
		for (uint32_t u = 0; u <= g.ids[g.n - 1] && good; u++)
			good = list_ok(&g, d, u, 0);
		ok(good && citations_n_links(d) == g.e && citations_n_url_ids(d) == g.ids[g.n - 1] + 2 &&
		   citations_list(d, g.ids[g.n - 1] + 1, &l, &n) == 1 && n == 0 &&
		   citations_list(d, g.ids[g.n - 1] + 2, &l, &n) == 0,
		   "%s: every links list matches the edges, the extra slot empty", name);
		is_int(citations_verify(dir, CITATIONS_LINKS, NULL), 1, "%s: links verify", name);
		is_int(citations_open(dir, CITATIONS_DIRECT, &r, NULL), 1,
		       "%s: links beside citations/direct, each of its kind", name);
		citations_close(r);
		r = NULL;
	}
	citations_close(d);
	ok(citations_write_links(dir, g.ids[g.n - 1], g.ids, g.n, off, dst) == -1,
	   "%s: links refuses a url_id past its slots", name);

	/* ranks: distinct values, the gaps read 0 */
	x = xmalloc(g.n * sizeof(*x));
	for (size_t i = 0; i < g.n; i++)
		x[i] = (double)(i + 1) / ((double)g.n * (g.n + 1) / 2);
	{
		struct ranks_meta m = { .iterations = 7, .damping = 0.85, .delta = 1e-10,
					.flags = RANKS_CONVERGED };

		ok(ranks_write(dir, g.ids, x, g.n, &m) == 0, "%s: ranks written", name);
	}
	is_int(ranks_open(dir, &rk, NULL), 1, "%s: ranks open", name);
	if (rk) {
		const struct ranks_meta *m = ranks_meta(rk);
		size_t i = 0;
		double sum = 0, top = 0;

		good = 1;
		for (uint32_t u = 0; u <= g.ids[g.n - 1] + 1; u++) {
			double v = ranks_get(rk, u);

			if (i < g.n && g.ids[i] == u)
				good &= v == x[i++];
			else
				good &= v == 0;
			sum += v;
			if (ranks_score(rk, u) > top)
				top = ranks_score(rk, u);
			good &= ranks_score(rk, u) >= 0 && ranks_score(rk, u) <= 1;
		}
		ok(good, "%s: every value read back, 0 elsewhere, scores in [0,1]", name);
		ok(fabs(sum - 1) < 1e-12, "%s: values sum to 1", name);
		ok(fabs(top - 1) < 1e-12, "%s: the top page scores 1", name);
		is_int(m->n_nodes, g.n, "%s: header pages", name);
		is_int(m->iterations, 7, "%s: header iterations", name);
		ok(m->damping == 0.85 && m->delta == 1e-10 && m->flags == RANKS_CONVERGED,
		   "%s: header damping, delta, flags", name);
		is_int(ranks_get(rk, UINT32_MAX) == 0, 1, "%s: UINT32_MAX reads 0", name);
	}
	ranks_close(rk);
	free(x);
	free(off);
	free(dst);
	graph_free(&g);
}

static unsigned char *read_all(const char *path, size_t *len)
{
	return (unsigned char *)tap_slurp(path, len);
}

static void write_bytes(const char *path, const unsigned char *p, size_t len)
{
	FILE *fp = fopen(path, "wb");

	if (fp) {
		if (len)
			fwrite(p, 1, len, fp);
		fclose(fp);
	}
}

/* Every truncation fails to open; every flip either fails or gives answers
 * inside the file (ASan watches). */
static void test_damage(void)
{
	char path[400], cpath[400];
	unsigned char *orig, *corig;
	size_t len, clen;
	int trunc_ok = 1, flip_ok = 1, sum_ok = 1;
	struct buf err = BUF_INIT(1024);

	test_graph("random300");
	snprintf(path, sizeof(path), "%s/%s", dir, RANKS_FILE);
	snprintf(cpath, sizeof(cpath), "%s/%s/reverse", dir, CITATIONS_DIR);
	orig = read_all(path, &len);
	corig = read_all(cpath, &clen);
	if (!ok(orig && corig, "read the files back"))
		goto out;
	for (size_t k = 0; k < len; k += k < 128 ? 1 : 97) {
		struct ranks *r = NULL;

		write_bytes(path, orig, k);
		trunc_ok &= ranks_open(dir, &r, &err) == -1 && r == NULL;
	}
	ok(trunc_ok, "ranks: every truncation is refused");
	for (size_t k = 0; k < len; k += k < 128 ? 1 : 61) {
		struct ranks *r = NULL;
		int rc;

		orig[k] ^= 0x5a;
		write_bytes(path, orig, len);
		orig[k] ^= 0x5a;
		rc = ranks_open(dir, &r, &err);
		if (k < 64)
			flip_ok &= rc == -1;
		/* The data checksum catches what the header CRC does not. */
		sum_ok &= ranks_verify(dir, &err) == -1 && strstr(buf_str(&err), "ranks: offset");
		if (rc == 1) {
			for (uint32_t u = 0; u < ranks_meta(r)->n_url_ids + 2; u++) {
				double v = ranks_get(r, u), s = ranks_score(r, u);

				flip_ok &= v >= 0 && v <= 1 && s >= 0 && s <= 1;
			}
		}
		ranks_close(r);
	}
	ok(flip_ok, "ranks: a header flip is refused, a value flip stays in [0, 1]");
	ok(sum_ok, "ranks: every flip fails ranks_verify(), naming the file: %s", buf_str(&err));
	write_bytes(path, orig, len);
	is_int(ranks_verify(dir, &err), 1, "ranks: the file as written verifies");
	trunc_ok = flip_ok = sum_ok = 1;
	for (size_t k = 0; k < clen; k += k < 128 ? 1 : 89) {
		struct citations *c = NULL;

		write_bytes(cpath, corig, k);
		trunc_ok &= citations_open(dir, CITATIONS_REVERSE, &c, &err) == -1 && c == NULL;
	}
	ok(trunc_ok, "citations: every truncation is refused");
	for (size_t k = 0; k < clen; k += k < 4000 ? 7 : 53) {
		struct citations *c = NULL;
		int rc;

		corig[k] ^= 0xa5;
		write_bytes(cpath, corig, clen);
		corig[k] ^= 0xa5;
		rc = citations_open(dir, CITATIONS_REVERSE, &c, &err);
		if (k < 40)
			flip_ok &= rc == -1;
		sum_ok &= citations_verify(dir, CITATIONS_REVERSE, &err) == -1 &&
			  strstr(buf_str(&err), "reverse: offset");
		if (rc == 1) {
			for (uint32_t u = 0; u < citations_n_url_ids(c) + 2; u++) {
				const unsigned char *l;
				size_t n, s = 0;

				if (citations_list(c, u, &l, &n) == 1)
					for (size_t i = 0; i < n; i++)
						s += citations_at(l, i);  /* ASan checks the reads */
				(void)s;
			}
		}
		citations_close(c);
	}
	ok(flip_ok, "citations: a header flip is refused, offsets stay inside the file");
	ok(sum_ok, "citations: every flip fails citations_verify(): %s", buf_str(&err));
	{
		struct citations *c = NULL;

		write_bytes(cpath, corig, clen);
		is_int(citations_verify(dir, CITATIONS_REVERSE, &err), 1,
		       "citations: the file as written verifies");
		is_int(citations_verify(dir, CITATIONS_DIRECT, &err), 1, "direct verifies");
		is_int(citations_open(dir, CITATIONS_DIRECT, &c, &err), 1, "direct still opens");
		citations_close(c);
		/* The reverse file opened as the direct one: wrong kind. */
		snprintf(path, sizeof(path), "%s/%s/direct", dir, CITATIONS_DIR);
		write_bytes(path, corig, clen);
		is_int(citations_open(dir, CITATIONS_DIRECT, &c, &err), -1, "wrong kind is refused");
		ok(strstr(buf_str(&err), "wrong kind") != NULL, "the reason says so: %s",
		   buf_str(&err));
	}
out:
	free(orig);
	free(corig);
	buf_free(&err);
}

static void test_missing(void)
{
	struct ranks *r = (struct ranks *)1;
	struct citations *c = (struct citations *)1;
	char empty[300];

	snprintf(empty, sizeof(empty), "%s/nothing", dir);
	is_int(ranks_open(empty, &r, NULL), 0, "no ranks file: 0");
	ok(r == NULL, "no ranks file: no handle");
	is_int(citations_open(empty, CITATIONS_REVERSE, &c, NULL), 0, "no citations: 0");
	ok(c == NULL, "no citations: no handle");
	ranks_close(NULL);
	citations_close(NULL);
	{
		/* A graph without pages writes valid empty files. */
		struct ranks_meta m = { 0 };
		uint64_t off0 = 0;

		ok(ranks_write(dir, NULL, NULL, 0, &m) == 0, "empty ranks written");
		ok(citations_write(dir, NULL, 0, &off0, NULL) == 0, "empty citations written");
		is_int(ranks_open(dir, &r, NULL), 1, "empty ranks open");
		if (r == (struct ranks *)1)
			r = NULL;
		is_int(r ? ranks_get(r, 0) == 0 : 0, 1, "empty ranks read 0");
		ranks_close(r);
		is_int(citations_open(dir, CITATIONS_DIRECT, &c, NULL), 1, "empty citations open");
		if (c == (struct citations *)1)
			c = NULL;
		citations_close(c);
	}
}

static void rm_rf(const char *d)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd) != 0)
		diag("could not remove %s", d);
}

int main(void)
{
	log_set_level(LOG_ERROR);
	if (!tap_mkdtemp(dir, sizeof(dir), "test-ranks")) {
		printf("Bail out! cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(graphs); i++)
		test_graph(graphs[i]);
	test_missing();
	test_damage();
	rm_rf(dir);
	return done_testing();
}
