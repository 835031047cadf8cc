/* cluster.h - roles and messages between the ranks of mpseek-index.
 *
 * cluster.c is the only file that includes <mpi.h>.  Rank 0 is the master:
 * it seeds, coordinates and merges; with one rank it also crawls.
 */
#ifndef MPSEEK_CLUSTER_H
#define MPSEEK_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MPI_Init_thread(FUNNELED) when an MPI launcher started the process;
 * alone, rank 0 of 1 without MPI (the collectives below then take their
 * one-rank forms).  Returns 0 or -1. */
int cluster_init(int *argc, char ***argv);
void cluster_finalize(void);
int cluster_rank(void);
int cluster_size(void);
/* Wait for all ranks, polling with short sleeps so a waiting rank does not
 * spin a core (doc/CLUSTER.md, "Waiting without spinning"). */
void cluster_barrier(void);
/* Rank 0's value of *v is given to every rank. */
void cluster_bcast_int(int *v);
/* Every rank passes its status; all get the worst (lowest) one, so all ranks
 * agree on whether to go on. */
int cluster_agree(int status);
/* End the whole job with an exit code (a rank that cannot go on). */
void cluster_abort(int code) __attribute__((noreturn));

/* Collective: the lowest rank that passes failed=true, or -1 when none does.
 * Lets one rank say why the job cannot start while the others end quietly
 * through MPI_Finalize (no MPI_Abort and its banner). */
int cluster_first_failed(bool failed);

/* --- merge: moving data between ranks (polled, no busy waiting) ------- */

/* Every rank passes n bytes; all get everything, rank by rank: *all
 * (malloc'd, caller frees) and *lens[r] (malloc'd array of cluster_size()
 * byte counts).  Without MPI (or with one rank) a copy of mine.  Returns 0
 * or -1. */
int cluster_allgather_bytes(const void *mine, size_t n, unsigned char **all, size_t **lens);
/* Element-wise sum of n counters over all ranks, in place. */
int cluster_sum_u64(uint64_t *v, int n);
/* Send the file `send_path` to rank `to` while receiving the file that rank
 * `from` sends into `recv_path` (created), in chunks.  Returns 0 or -1. */
int cluster_exchange_file(const char *send_path, int to, const char *recv_path, int from);
/* --- pagerank: vector collectives for the power iteration ---------------
 *
 * Each waits by polling: a non-blocking collective advances only inside
 * MPI_Test, so up to 200 ms of MPI_Test between sched_yield()s (a process
 * that wants the core gets it), then sleeps of 50 us growing to 1 ms,
 * unless cluster_set_blocking(true) chose Open MPI's blocking calls, which
 * busy-poll (compared in bench/pagerank).  Without MPI (one process) they
 * are no-ops or copies.
 * Counts are elements; each returns 0 or -1 (logged). */
void cluster_set_blocking(bool blocking);
/* v[0..n) summed over all ranks, in place on every rank. */
int cluster_allreduce_sum(double *v, size_t n);
/* v[0..n) (n = sum of counts) summed over all ranks; rank r receives the
 * counts[r] elements of its block (they start at the sum of the counts
 * before r) in out. */
int cluster_reduce_scatter_sum(const double *v, double *out, const size_t *counts);
/* v is the whole vector; each rank's block (counts as above) is sent to all. */
int cluster_allgather(double *v, const size_t *counts);
/* Rank 0's v[0..n) to every rank. */
int cluster_bcast_doubles(double *v, size_t n);
/* Rank 0's array to every rank: on rank 0 *v (n elements) is sent; on the
 * others *v is replaced by a malloc'd copy (caller frees) and *n set. */
int cluster_bcast_u32(uint32_t **v, size_t *n);
/* Every rank's v[0..n) to rank 0, in rank order: on rank 0 *all is a
 * malloc'd array (caller frees) of *total elements; elsewhere untouched. */
int cluster_gather_u32(const uint32_t *v, size_t n, uint32_t **all, size_t *total);

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

/* --- the continuous crawl (doc/CLUSTER.md, "Continuous crawl") ----------- */

/* The job's scope, rank 0's pid file for -E and the handlers of SIGTERM and
 * SIGINT (they ask for a stop, which takes effect at the next step: a
 * round's crawl stops, a merge ends first), from begin to end.  Every rank. */
struct cluster_job;
struct cluster_job *cluster_job_begin(const struct conf *c);
void cluster_job_end(const struct conf *c, struct cluster_job *j);

struct cluster_round {
	long pages;   /* fetched by all ranks in the round */
	bool stopped; /* a stop was asked (-E, a signal at any rank) */
};
/* One round: cluster_crawl() inside a job's scope; o->max_docs and
 * o->max_seconds bound the round (PublishPages, PublishInterval).  *r is
 * agreed.  Returns 0 or -1 (agreed). */
int cluster_crawl_round(const struct conf *c, struct db *db, const struct crawl_opts *o,
			struct cluster_round *r);

/* Between rounds: wait, without spinning, until a URL is due (rank 0 looks
 * once a second and logs when the next one is), a stop is asked at any rank,
 * or the monotonic deadline passes (0: none).  Collective.  Returns one of
 * these, or -1 when the database failed. */
enum {
	CLUSTER_WAKE_DUE = 1,
	CLUSTER_WAKE_LIMIT = 2,
	CLUSTER_WAKE_FAILED = 3,
	CLUSTER_WAKE_STOP = 4
};
int cluster_wait_due(struct db *db, double deadline);

/* mpseek-index -E: ask the crawl running on DataDir (its rank 0) to stop
 * gracefully, and wait up to wait_seconds for it to end.  Returns 0, 1 when
 * no crawl runs, -1 on an error. */
int cluster_request_stop(const struct conf *c, double wait_seconds);

/* --- urlstates: the merge's URL states --------------------------------------
 * Collective, polled (no busy waiting); without MPI or with one rank they
 * leave v as it is.  Return 0 or -1 (logged). */
/* v[0..n) OR-ed byte by byte over all ranks, in place on every rank. */
int cluster_or_bytes(uint8_t *v, size_t n);
/* The largest *v of all ranks, on every rank. */
int cluster_max_u64(uint64_t *v);

#endif
