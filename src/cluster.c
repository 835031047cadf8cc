/* cluster.c - the only file that talks MPI (see cluster.h).
 *
 * Collective waits are built from non-blocking calls polled with sleeps:
 * Open MPI's blocking calls busy-poll, which on a 2-core machine takes the
 * CPU away from the ranks that fetch (field-notes §3).
 */
#include "config.h"

#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
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

/* --- merge: moving data between ranks ------------------------------------ */

int cluster_allgather_bytes(const void *mine, size_t n, unsigned char **all, size_t **lens)
{
	MPI_Request req;
	int *cnt, *disp;
	long long *ns;
	size_t total = 0;
	int rc = 0;

	*lens = xcalloc((size_t)n_ranks, sizeof(**lens));
	if (!initialised || n_ranks == 1) {
		*all = xmalloc(n ? n : 1);
		if (n)
			memcpy(*all, mine, n);
		(*lens)[0] = n;
		return 0;
	}
	ns = xcalloc((size_t)n_ranks, sizeof(*ns));
	cnt = xcalloc((size_t)n_ranks, sizeof(*cnt));
	disp = xcalloc((size_t)n_ranks, sizeof(*disp));
	long long me = (long long)n;
	MPI_Iallgather(&me, 1, MPI_LONG_LONG, ns, 1, MPI_LONG_LONG, MPI_COMM_WORLD, &req);
	wait_polled(&req);
	for (int r = 0; r < n_ranks; r++) {
		if (total + (size_t)ns[r] > INT_MAX) {
			rc = error("allgather: %zu bytes is more than one MPI call moves",
				   total + (size_t)ns[r]);
			break;
		}
		cnt[r] = (int)ns[r];
		disp[r] = (int)total;
		(*lens)[r] = (size_t)ns[r];
		total += (size_t)ns[r];
	}
	*all = xmalloc(total ? total : 1);
	if (!rc) {
		MPI_Iallgatherv(mine, (int)n, MPI_BYTE, *all, cnt, disp, MPI_BYTE, MPI_COMM_WORLD,
				&req);
		wait_polled(&req);
	}
	free(ns);
	free(cnt);
	free(disp);
	return rc;
}

int cluster_sum_u64(uint64_t *v, int n)
{
	MPI_Request req;
	uint64_t *out;

	if (!initialised || n_ranks == 1)
		return 0;
	out = xcalloc((size_t)n, sizeof(*out));
	MPI_Iallreduce(v, out, n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, &req);
	wait_polled(&req);
	memcpy(v, out, (size_t)n * sizeof(*v));
	free(out);
	return 0;
}

#define XFER_CHUNK (4 << 20)
#define XFER_TAG 77

int cluster_exchange_file(const char *send_path, int to, const char *recv_path, int from)
{
	FILE *in = fopen(send_path, "rb"), *out = fopen(recv_path, "wb");
	char *sbuf = xmalloc(XFER_CHUNK), *rbuf = xmalloc(XFER_CHUNK);
	int send_done = 0, recv_done = 0, rc = 0;

	if (!in || !out) {
		rc = error_errno("exchange: cannot open %s or %s", send_path, recv_path);
		/* Keep the protocol going so the peer does not hang: send an empty file. */
	}
	/* Each chunk is a message; a short (possibly empty) chunk ends the file. */
	while (!send_done || !recv_done) {
		MPI_Request req[2];
		MPI_Status st;
		int nreq = 0, got = 0;
		size_t k = 0;

		if (!send_done) {
			k = in && !rc ? fread(sbuf, 1, XFER_CHUNK, in) : 0;
			MPI_Isend(sbuf, (int)k, MPI_BYTE, to, XFER_TAG, MPI_COMM_WORLD, &req[nreq++]);
		}
		if (!recv_done)
			MPI_Irecv(rbuf, XFER_CHUNK, MPI_BYTE, from, XFER_TAG, MPI_COMM_WORLD,
				  &req[nreq++]);
		for (int i = 0; i < nreq; i++) {
			if (!send_done && i == 0) {
				wait_polled(&req[i]);
				continue;
			}
			int done = 0;
			long ns = 1000000;
			for (;;) {
				MPI_Test(&req[i], &done, &st);
				if (done)
					break;
				struct timespec ts = { 0, ns };
				nanosleep(&ts, NULL);
				if (ns < 20000000)
					ns *= 2;
			}
			MPI_Get_count(&st, MPI_BYTE, &got);
		}
		if (!send_done && k < XFER_CHUNK)
			send_done = 1;
		if (!recv_done) {
			if (out && got > 0 && fwrite(rbuf, 1, (size_t)got, out) != (size_t)got)
				rc = error_errno("exchange: cannot write %s", recv_path);
			if (got < XFER_CHUNK)
				recv_done = 1;
		}
	}
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		rc = error_errno("exchange: cannot write %s", recv_path);
	free(sbuf);
	free(rbuf);
	return rc;
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
