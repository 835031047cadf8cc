/* cluster.h - roles and messages between the ranks of mpseek-index.
 *
 * cluster.c is the only file that includes <mpi.h>.  Rank 0 is the master:
 * it seeds, coordinates and merges; with one rank it also crawls.
 */
#ifndef MPSEEK_CLUSTER_H
#define MPSEEK_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

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

#endif
