/* cluster.c - the only file that talks MPI (see cluster.h).
 *
 * Collective waits are built from non-blocking calls polled with sleeps:
 * Open MPI's blocking calls busy-poll, which on a 2-core machine takes the
 * CPU away from the ranks that fetch (field-notes §3).
 */
#include "config.h"

#include <limits.h>
#include <sched.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "log.h"
#include "util.h"

static int my_rank, n_ranks = 1, initialised;

int cluster_init(int *argc, char ***argv)
{
	int provided;

	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return error("MPI_Init_thread failed");
	initialised = 1;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
	log_set_rank(my_rank);
	return 0;
}

void cluster_finalize(void)
{
	if (initialised)
		MPI_Finalize();
	initialised = 0;
}

int cluster_rank(void) { return my_rank; }
int cluster_size(void) { return n_ranks; }

/* Complete a request, sleeping between tests: 1 ms at first, up to 20 ms. */
static void wait_polled(MPI_Request *req)
{
	int done = 0;
	long ns = 1000000;

	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		struct timespec ts = { 0, ns };
		nanosleep(&ts, NULL);
		if (ns < 20000000)
			ns *= 2;
	}
}

void cluster_barrier(void)
{
	MPI_Request req;

	if (!initialised)
		return;
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	wait_polled(&req);
}

void cluster_bcast_int(int *v)
{
	MPI_Request req;

	if (!initialised)
		return;
	MPI_Ibcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
	wait_polled(&req);
}

int cluster_agree(int status)
{
	MPI_Request req;
	int worst = status;

	if (!initialised)
		return status;
	MPI_Iallreduce(&status, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
	wait_polled(&req);
	return worst;
}

void cluster_abort(int code)
{
	if (initialised)
		MPI_Abort(MPI_COMM_WORLD, code);
	exit(code);
}

/* --- pagerank: vector collectives for the power iteration --- */

static bool blocking;

void cluster_set_blocking(bool b) { blocking = b; }

/* Complete a request of the power iteration.  A non-blocking collective
 * moves its data only inside MPI_Test (Open MPI has no progress thread), so
 * a wait that sleeps between tests stalls an 8 MB exchange for hundreds of
 * milliseconds (measured: 300 ms an iteration instead of 70).  Hence: test
 * between sched_yield()s (a runnable process on the core gets it) for up to
 * 200 ms, then with sleeps of 50 us growing to 1 ms; or MPI_Wait when
 * blocking was chosen (bench/pagerank compares them). */
static int wait_fast(MPI_Request *req, const char *what)
{
	int done = 0;
	long ns = 50000;
	double t0 = 0;

	if (blocking) {
		if (MPI_Wait(req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return error("%s failed", what);
		return 0;
	}
	for (long k = 0;; k++) {
		if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return error("%s failed", what);
		if (done)
			return 0;
		if (k == 0)
			t0 = now_monotonic();
		if (now_monotonic() - t0 < 0.200) {
			sched_yield();
			continue;
		}
		struct timespec ts = { 0, ns };
		nanosleep(&ts, NULL);
		if (ns < 1000000)
			ns *= 2;
	}
}

/* MPI counts are ints. */
static int to_int(size_t n, int *out, const char *what)
{
	if (n > INT_MAX)
		return error("%s: %zu elements is more than MPI can send at once", what, n);
	*out = (int)n;
	return 0;
}

int cluster_allreduce_sum(double *v, size_t n)
{
	MPI_Request req;
	int cnt = 0;

	if (!initialised || n_ranks == 1)
		return 0;
	if (to_int(n, &cnt, "allreduce"))
		return -1;
	if (blocking) {
		if (MPI_Allreduce(MPI_IN_PLACE, v, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) !=
		    MPI_SUCCESS)
			return error("MPI_Allreduce failed");
		return 0;
	}
	if (MPI_Iallreduce(MPI_IN_PLACE, v, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS)
		return error("MPI_Iallreduce failed");
	return wait_fast(&req, "MPI_Iallreduce");
}

static int int_counts(const size_t *counts, int *ic, int *displs, const char *what)
{
	size_t at = 0;

	for (int r = 0; r < n_ranks; r++) {
		if (to_int(counts[r], &ic[r], what) || to_int(at, &displs[r], what))
			return -1;
		at += counts[r];
	}
	return 0;
}

int cluster_reduce_scatter_sum(const double *v, double *out, const size_t *counts)
{
	MPI_Request req;
	int *ic, *displs, rc = -1;

	if (!initialised || n_ranks == 1) {
		memcpy(out, v, counts[0] * sizeof(double));
		return 0;
	}
	ic = xmalloc((size_t)n_ranks * sizeof(int));
	displs = xmalloc((size_t)n_ranks * sizeof(int));
	if (int_counts(counts, ic, displs, "reduce_scatter"))
		goto out;
	if (blocking) {
		if (MPI_Reduce_scatter(v, out, ic, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) !=
		    MPI_SUCCESS)
			goto failed;
		rc = 0;
		goto out;
	}
	if (MPI_Ireduce_scatter(v, out, ic, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS)
		goto failed;
	rc = wait_fast(&req, "MPI_Ireduce_scatter");
	goto out;
failed:
	rc = error("MPI_Reduce_scatter failed");
out:
	free(ic);
	free(displs);
	return rc;
}

int cluster_allgather(double *v, const size_t *counts)
{
	MPI_Request req;
	int *ic, *displs, rc = -1;

	if (!initialised || n_ranks == 1)
		return 0;
	ic = xmalloc((size_t)n_ranks * sizeof(int));
	displs = xmalloc((size_t)n_ranks * sizeof(int));
	if (int_counts(counts, ic, displs, "allgather"))
		goto out;
	if (blocking) {
		if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, ic, displs, MPI_DOUBLE,
				   MPI_COMM_WORLD) != MPI_SUCCESS)
			goto failed;
		rc = 0;
		goto out;
	}
	if (MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, ic, displs, MPI_DOUBLE,
			    MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		goto failed;
	rc = wait_fast(&req, "MPI_Iallgatherv");
	goto out;
failed:
	rc = error("MPI_Allgatherv failed");
out:
	free(ic);
	free(displs);
	return rc;
}

int cluster_bcast_doubles(double *v, size_t n)
{
	MPI_Request req;
	int cnt = 0;

	if (!initialised || n_ranks == 1)
		return 0;
	if (to_int(n, &cnt, "bcast"))
		return -1;
	if (MPI_Ibcast(v, cnt, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		return error("MPI_Ibcast failed");
	return wait_fast(&req, "MPI_Ibcast");
}

int cluster_bcast_u32(uint32_t **v, size_t *n)
{
	MPI_Request req;
	unsigned long long len = *n;
	int cnt = 0;

	if (!initialised || n_ranks == 1)
		return 0;
	if (MPI_Ibcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
	    wait_fast(&req, "MPI_Ibcast"))
		return error("MPI_Ibcast failed");
	if (to_int((size_t)len, &cnt, "bcast"))
		return -1;
	if (my_rank != 0) {
		*v = xmalloc(len ? (size_t)len * sizeof(uint32_t) : 1);
		*n = (size_t)len;
	}
	if (MPI_Ibcast(*v, cnt, MPI_UINT32_T, 0, MPI_COMM_WORLD, &req) != MPI_SUCCESS)
		return error("MPI_Ibcast failed");
	return wait_fast(&req, "MPI_Ibcast");
}

int cluster_gather_u32(const uint32_t *v, size_t n, uint32_t **all, size_t *total)
{
	MPI_Request req;
	int cnt = 0, *counts = NULL, *displs = NULL, rc = -1;
	size_t sum = 0;

	if (!initialised || n_ranks == 1) {
		*all = xmalloc(n ? n * sizeof(uint32_t) : 1);
		memcpy(*all, v, n * sizeof(uint32_t));
		*total = n;
		return 0;
	}
	if (to_int(n, &cnt, "gather"))
		cnt = -1;  /* still take part, then fail together */
	counts = xmalloc((size_t)n_ranks * sizeof(int));
	displs = xmalloc((size_t)n_ranks * sizeof(int));
	if (MPI_Igather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS || wait_fast(&req, "MPI_Igather"))
		goto out;
	if (my_rank == 0) {
		for (int r = 0; r < n_ranks; r++) {
			if (counts[r] < 0 || sum + (size_t)counts[r] > INT_MAX)
				counts[r] = 0, cnt = -1;
			displs[r] = (int)sum;
			sum += (size_t)counts[r];
		}
		*all = xmalloc(sum ? sum * sizeof(uint32_t) : 1);
		*total = sum;
	}
	if (MPI_Igatherv(v, cnt < 0 ? 0 : cnt, MPI_UINT32_T, my_rank == 0 ? *all : NULL, counts,
			 displs, MPI_UINT32_T, 0, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
	    wait_fast(&req, "MPI_Igatherv"))
		goto out;
	rc = cnt < 0 ? error("gather: too many elements for one MPI message") : 0;
out:
	free(counts);
	free(displs);
	return rc;
}
