/* ranks.h - the PageRank file of an index generation (`ranks`): written by
 * mpseek-index (pagerank.c), read by searchd through this module, which
 * links no MPI and no SQL.  Byte layout: doc/FORMATS.md, "ranks".
 */
#ifndef MPSEEK_RANKS_H
#define MPSEEK_RANKS_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/* Version 2 added the CRC-32 of the values (doc/FORMATS.md, "ranks"). */
#define RANKS_FORMAT_VERSION 2
#define RANKS_FILE "ranks"

/* ranks_meta.flags */
#define RANKS_CONVERGED 1u  /* the L1 test was met before the iteration cap */
#define RANKS_WARM      2u  /* started from the previous generation's ranks */

/* What the header says about the computation. */
struct ranks_meta {
	uint32_t n_url_ids;    /* slots: one per url_id 0..n_url_ids-1 */
	uint32_t n_nodes;      /* ranked pages (slots with a value > 0) */
	uint32_t iterations;
	uint32_t flags;        /* RANKS_* */
	double damping;
	double delta;          /* L1 change of the last iteration */
	double max_rank;       /* the largest value (for ranks_score()) */
};

/* Write gen_dir/ranks: node i (url_id ids[i], ids ascending) has rank x[i];
 * every other url_id gets 0.  meta's n_url_ids, n_nodes and max_rank are
 * computed here; the rest is copied.  Temp file, fsync, rename, fsync of
 * the directory.  Returns 0 or -1 (logged). */
int ranks_write(const char *gen_dir, const uint32_t *ids, const double *x, size_t n,
		const struct ranks_meta *meta);

struct ranks;

/* Open gen_dir/ranks read-only (mmap): checks magic, version, header CRC and
 * the file size before trusting anything.  Returns 1 and *out (close with
 * ranks_close()), 0 when the file does not exist, -1 when it is damaged or
 * unreadable (reason in err if not NULL, else logged).  Thread-safe after
 * open. */
int ranks_open(const char *gen_dir, struct ranks **out, struct buf *err);
/* ranks_open() and the data checksum of every value (reads the whole
 * file): 1 when good, 0 when there is no ranks file, -1 with
 * "path: offset N: what" in err (logged when err is NULL). */
int ranks_verify(const char *gen_dir, struct buf *err);
void ranks_close(struct ranks *r); /* accepts NULL */
const struct ranks_meta *ranks_meta(const struct ranks *r); /* borrowed */
/* The PageRank of url_id: a probability (all ranked pages sum to 1), 0 for a
 * url_id that is not ranked or out of range (or a damaged value). */
double ranks_get(const struct ranks *r, uint32_t url_id);
/* The same, normalised to [0, 1] for blending with a text score:
 * log(1 + rank*N) / log(1 + max_rank*N), N = ranked pages; an average page
 * (rank 1/N) scores log 2 / log(1 + max_rank*N), the top page 1. */
double ranks_score(const struct ranks *r, uint32_t url_id);

#endif
