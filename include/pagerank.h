/* pagerank.h - the link graph and the distributed PageRank of mpseek-index
 * (src/index/pagerank.c, linked into mpseek-index only: it talks MPI through
 * cluster.h).  Rules, formula and convergence: doc/PAGERANK.md; the files
 * it writes: ranks.h, citations.h.
 */
#ifndef MPSEEK_PAGERANK_H
#define MPSEEK_PAGERANK_H

#include <stdbool.h>
#include <stdio.h>

struct conf;
struct db;

/* How the ranks combine the partial vectors of an iteration (both move
 * about 2N doubles per rank; measured in doc/PERFORMANCE.md). */
enum pagerank_comm {
	PAGERANK_RSAG = 0,   /* MPI_Reduce_scatter + MPI_Allgatherv of blocks (default) */
	PAGERANK_ALLREDUCE,  /* one MPI_Allreduce of N+1 doubles */
};

struct pagerank_opts {
	enum pagerank_comm comm;
	bool blocking;       /* Open MPI's blocking collectives instead of polled ones */
	bool cold;           /* no warm start */
};

/* Build the link graph from the database (doc/PAGERANK.md, "The graph"),
 * compute PageRank with every rank of the job, and write gen_dir/ranks and
 * gen_dir/citations/ (rank 0 writes; gen_dir need exist on rank 0 only).
 * A `ranks` file already in gen_dir (the previous generation's, hard-linked)
 * is the warm start when the graph changed little.  Call on all ranks;
 * opts may be NULL.  Returns 0 on every rank or -1 on every rank. */
int pagerank_run(const struct conf *c, struct db *db, const char *gen_dir,
		 const struct pagerank_opts *opts);

/* The same computation on an edge list file (test and benchmark entry,
 * `mpseek-index --pagerank-edges FILE`): lines "SRC DST" or "ID" (a page
 * without links), decimal ids below PAGERANK_MAX_FILE_ID, '#' comments.
 * Rank 0 prints "id<TAB>rank" for every page to out and one summary line
 * "pagerank-edges: ..." to stderr.  Returns 0 or -1 on every rank. */
#define PAGERANK_MAX_FILE_ID 100000000u
int pagerank_edges(const struct conf *c, const char *path, FILE *out,
		   const struct pagerank_opts *opts);

#endif
