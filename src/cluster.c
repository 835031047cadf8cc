/* cluster.c - the only file that talks MPI (see cluster.h).
 *
 * Collective waits are built from non-blocking calls polled with sleeps:
 * Open MPI's blocking calls busy-poll, which on a 2-core machine takes the
 * CPU away from the ranks that fetch (field-notes §3).
 */
#include "config.h"

#include <mpi.h>
#include <stdlib.h>
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
