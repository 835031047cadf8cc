/* cluster.h - roles and messages between the ranks of mpseek-index.
 *
 * cluster.c is the only file that includes <mpi.h>.  Rank 0 is the master:
 * it seeds, coordinates and merges; with one rank it also crawls.
 */
#ifndef MPSEEK_CLUSTER_H
#define MPSEEK_CLUSTER_H

/* MPI_Init_thread(FUNNELED).  Returns 0 or -1. */
int cluster_init(int *argc, char ***argv);
void cluster_finalize(void);
int cluster_rank(void);
int cluster_size(void);
/* Wait for all ranks, polling with short sleeps so a waiting rank does not
 * spin a core (field-notes §3: busy polling on 2 cores starves workers). */
void cluster_barrier(void);
/* Rank 0's value of *v is given to every rank. */
void cluster_bcast_int(int *v);
/* Every rank passes its status; all get the worst (lowest) one, so all ranks
 * agree on whether to go on. */
int cluster_agree(int status);
/* End the whole job with an exit code (a rank that cannot go on). */
void cluster_abort(int code) __attribute__((noreturn));


/* --- the cluster crawl (doc/CLUSTER.md) ----------------------------------- */

struct conf;
struct db;
struct crawl_opts;

/* The crawl of the whole job, on every rank.  With one rank it crawls and
 * coordinates itself; otherwise rank 0 coordinates (grants -n budget,
 * decides termination, relays a stop, prints progress and the summary per
 * rank) and ranks 1..N-1 crawl (crawl_run() with hooks that report to rank
 * 0).  o->max_docs is the job's -n.  rank 0 writes DataDir/mpseek-index.pid
 * for `mpseek-index -E`.  Returns 0, or -1 when a rank failed (agreed:
 * every rank returns the same). */
int cluster_crawl(const struct conf *c, struct db *db, const struct crawl_opts *o);

/* mpseek-index -E: ask the crawl running on DataDir (its rank 0) to stop
 * gracefully, and wait up to wait_seconds for it to end.  Returns 0, 1 when
 * no crawl runs, -1 on an error. */
int cluster_request_stop(const struct conf *c, double wait_seconds);

#endif
