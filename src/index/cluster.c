/* cluster.c - the only file that talks MPI (see cluster.h).
 *
 * Collective waits are built from non-blocking calls polled with sleeps:
 * Open MPI's blocking calls busy-poll, which on a 2-core machine takes the
 * CPU away from the ranks that fetch (doc/CLUSTER.md, "Waiting without
 * spinning").
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cluster.h"
#include "conf.h"
#include "crawl.h"
#include "db.h"
#include "log.h"
#include "util.h"

static int my_rank, n_ranks = 1, initialised;

/* Was the process started by an MPI launcher (mpirun, mpiexec, srun)?  Each
 * leaves its mark in the environment of the processes it starts: Open MPI
 * and PMIx launchers OMPI_COMM_WORLD_SIZE and PMIX_RANK, MPICH's Hydra and
 * Slurm's PMI PMI_RANK / PMI_SIZE. */
static bool launched(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
					    "PMI_SIZE" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

int cluster_init(int *argc, char ***argv)
{
	int provided;

	/* Alone (no launcher), the job is rank 0 of 1: every collective
	 * below has its one-rank form without MPI, and Open MPI's singleton
	 * start-up and shutdown (0.31 s of each run) are not paid. */
	if (!launched()) {
		my_rank = 0;
		n_ranks = 1;
		log_set_rank(0);
		debug("no MPI launcher in the environment: rank 0 of 1, MPI not started");
		return 0;
	}
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return error("MPI_Init_thread failed");
	initialised = 1;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
	log_set_rank(my_rank);
	/* mpirun (or orted) reads a rank's stderr 4 KB at a time and
	 * interleaves the ranks' chunks; after it stalled (its SIGTERM kill
	 * sequence sleeps) a line crossing a chunk's end came out split by
	 * another rank's chunk (doc/CLUSTER.md, "Signals"). */
	log_align_pipe(4096);
	debug("started by an MPI launcher: rank %d of %d", my_rank, n_ranks);
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

/* Complete n requests by polling: Open MPI's blocking waits busy-poll,
 * which on a 2-core machine takes the CPU from the ranks that fetch
 * (doc/CLUSTER.md, "Waiting without spinning").  A non-blocking operation
 * moves its data only inside
 * MPI_Test (no progress thread), so for bulk transfers (`eager`) the tests
 * run between sched_yield()s for up to 200 ms before sleeping: sleeping from
 * the start stalled PageRank's 8 MB exchange 4x (bench/pagerank) and the
 * merge's file exchange 3.5x (bench/merge).  The other waits (agreements
 * and small collectives at phase boundaries, which may last seconds when a
 * rank is still busy) test between sched_yield()s for 5 ms,
 * then sleep 1 ms growing to 20 ms: sleeping from the start cost every
 * agreement 10-40 ms even when the ranks came within a millisecond of each
 * other (both asleep when the other arrived), about 0.5 s of an empty
 * `-np 2` merge; eager waits sleep 50 us growing to 1 ms after their
 * 200 ms.  st may be NULL.  Returns 0, or -1 when MPI reports an error. */
static int poll_wait(int n, MPI_Request *req, MPI_Status *st, bool eager)
{
	long ns = eager ? 50000 : 1000000, max_ns = eager ? 1000000 : 20000000;
	double t0 = now_monotonic(), spin = eager ? 0.200 : 0.005;
	int done = 0;

	for (;;) {
		if (MPI_Testall(n, req, &done, st ? st : MPI_STATUSES_IGNORE) != MPI_SUCCESS)
			return -1;
		if (done)
			return 0;
		if (now_monotonic() - t0 < spin) {
			sched_yield();
			continue;
		}
		struct timespec ts = { 0, ns };
		nanosleep(&ts, NULL);
		ns = ns * 2 < max_ns ? ns * 2 : max_ns;
	}
}

void cluster_barrier(void)
{
	MPI_Request req;

	if (!initialised)
		return;
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	poll_wait(1, &req, NULL, false);
}

void cluster_bcast_int(int *v)
{
	MPI_Request req;

	if (!initialised)
		return;
	MPI_Ibcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
	poll_wait(1, &req, NULL, false);
}

int cluster_agree(int status)
{
	MPI_Request req;
	int worst = status;

	if (!initialised)
		return status;
	MPI_Iallreduce(&status, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
	poll_wait(1, &req, NULL, false);
	return worst;
}

int cluster_first_failed(bool failed)
{
	MPI_Request req;
	int mine = failed ? my_rank : n_ranks, first = mine;

	if (initialised) {
		MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &req);
		poll_wait(1, &req, NULL, false);
	}
	return first < n_ranks ? first : -1;
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
	poll_wait(1, &req, NULL, false);
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
		poll_wait(1, &req, NULL, true);   /* bulk: the merge's URL states */
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
	poll_wait(1, &req, NULL, false);
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
		MPI_Status st[2];
		int nreq = 0, got = 0;
		size_t k = 0;

		if (!send_done) {
			k = in && !rc ? fread(sbuf, 1, XFER_CHUNK, in) : 0;
			MPI_Isend(sbuf, (int)k, MPI_BYTE, to, XFER_TAG, MPI_COMM_WORLD, &req[nreq++]);
		}
		if (!recv_done)
			MPI_Irecv(rbuf, XFER_CHUNK, MPI_BYTE, from, XFER_TAG, MPI_COMM_WORLD,
				  &req[nreq++]);
		/* The send and the receive complete together (poll_wait). */
		poll_wait(nreq, req, st, true);
		if (!recv_done)
			MPI_Get_count(&st[nreq - 1], MPI_BYTE, &got);
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

/* Complete a request of the power iteration: polled (poll_wait), or
 * MPI_Wait when blocking was chosen (bench/pagerank compares them). */
static int wait_fast(MPI_Request *req, const char *what)
{
	int rc = blocking ? (MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1)
			  : poll_wait(1, req, NULL, true);

	return rc ? error("%s failed", what) : 0;
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

/* --- the cluster crawl ------------------------------------------------------- */

/* Messages: small fixed arrays of int64, sent with MPI_Send (eager: they
 * never block) and received after MPI_Iprobe, so nobody waits in MPI. */
enum { TAG_REPORT = 101, TAG_ADVICE = 102 };

/* A worker's report (TAG_REPORT). */
enum {
	R_FINAL, R_RC, R_IDLE, R_STOPPING, R_DOCS, R_IN_HAND, R_SITES, R_CLAIMED, R_CLAIMS,
	R_CLAIM_MS, R_STORE_MS, R_FETCHED, R_INDEXED, R_BYTES, R_WIRE, R_ERRORS, R_ERR_NET,
	R_ERR_4XX, R_ERR_5XX, R_DROPPED, R_LIMIT, R_SECONDS, R_DB_DOWN_MS, R_N
};
/* The master's advice (TAG_ADVICE). */
enum { A_CMD, A_LIMIT, A_DUE, A_CRAWLERS, A_IDLE, A_DB_GONE, A_N };

/* -n: URLs a worker may claim beyond what it has claimed, at most. */
#define GRANT_CHUNK 32
#define PROGRESS_TTY 1.0
#define PROGRESS_LOG 10.0

struct rstat {
	int64_t v[R_N];
	bool seen, final;
};

struct coord {
	const struct conf *c;
	struct db *db;
	long max_docs;
	int n;                      /* ranks */
	int crawlers;
	struct rstat *r;            /* per rank */
	int64_t *granted;           /* per rank: claim limit sent (-n) */
	int64_t *sent_cmd;          /* per rank: last command sent */
	int64_t *sent_limit;        /* per rank: last claim limit sent */
	struct db_queue q;
	bool have_q;
	double started, last_q, last_progress, last_log;
	bool tty, stop, done, failed;
	double db_down;             /* > 0: a rank (or this one) gave up on the database
	                             * after this many seconds (DBGrace) */
	bool all_idle;              /* every crawler idle at the last decision */
	bool round;                 /* a round of a continuous crawl: the job goes on */
	int64_t due;
	int idle;
	char next_due[96];          /* "; next URL due in 4 s, at ...", when none is due */
	double last_next_due;
};

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	UNUSED(sig);
	stop_signal = 1;
	crawl_request_stop();
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static void load_to_report(const struct crawl_totals *t, const struct crawl_load *l,
			   int64_t limit, double secs, int64_t *v)
{
	memset(v, 0, sizeof(int64_t) * R_N);
	v[R_IDLE] = l->idle;
	v[R_STOPPING] = l->stopping;
	v[R_DOCS] = l->docs;
	v[R_IN_HAND] = (int64_t)l->in_hand;
	v[R_SITES] = (int64_t)l->sites_held;
	v[R_CLAIMED] = (int64_t)l->claimed;
	v[R_CLAIMS] = (int64_t)l->claims;
	v[R_CLAIM_MS] = (int64_t)(l->claim_seconds * 1000);
	v[R_STORE_MS] = (int64_t)(l->store_seconds * 1000);
	v[R_FETCHED] = (int64_t)t->fetched;
	v[R_INDEXED] = (int64_t)t->indexed;
	v[R_BYTES] = (int64_t)t->bytes;
	v[R_WIRE] = (int64_t)t->wire_bytes;
	v[R_ERRORS] = (int64_t)t->errors;
	v[R_ERR_NET] = (int64_t)t->errors_net;
	v[R_ERR_4XX] = (int64_t)t->errors_4xx;
	v[R_ERR_5XX] = (int64_t)t->errors_5xx;
	v[R_DROPPED] = (int64_t)t->dropped;
	v[R_LIMIT] = limit;
	v[R_SECONDS] = (int64_t)(secs * 1000);
	v[R_DB_DOWN_MS] = (int64_t)(l->db_down * 1000);
}

static int64_t sum(const struct coord *k, int f)
{
	int64_t x = 0;

	for (int i = 0; i < k->n; i++)
		x += k->r[i].v[f];
	return x;
}

/* Ranks that crawl: 1..N-1, or rank 0 alone. */
static int first_crawler(const struct coord *k)
{
	return k->n == 1 ? 0 : 1;
}

/* The queue in the database, at most every 0.2 s (every second while busy);
 * now when now is set. */
static void coord_query(struct coord *k, bool soon, bool now_)
{
	double now = now_monotonic();

	if (k->have_q && !now_ && now - k->last_q < (soon ? 0.2 : 1.0))
		return;
	if (db_queue_state(k->db, &k->q)) {
		k->failed = true;
		/* Gone past DBGrace: every rank stops without waiting for it. */
		if (db_gave_up(k->db) && db_unreachable_seconds(k->db) > k->db_down)
			k->db_down = db_unreachable_seconds(k->db);
		return;
	}
	k->have_q = true;
	k->last_q = now;
	k->due = k->q.due;
}

/* When none is due, the progress line says when the next URL will be: an
 * administrator watching a crawl that waits wants to know for what.  One
 * index dive at most every 5 s. */
static void coord_next_due(struct coord *k, double now)
{
	long long when = 0;
	char due[80];
	int n;

	if (!k->have_q || k->q.due) {
		k->next_due[0] = '\0';
		return;
	}
	if (k->next_due[0] && now - k->last_next_due < 5.0)
		return;
	k->last_next_due = now;
	n = db_next_due(k->db, &when);
	if (n > 0)
		db_due_text(when, due, sizeof(due));
	snprintf(k->next_due, sizeof(k->next_due), "%s%s", n > 0 ? "; next URL due " : "",
		 n > 0 ? due : "");
}

static void coord_progress(struct coord *k, bool last)
{
	double now = now_monotonic(), el = now - k->started;
	int64_t docs = sum(k, R_DOCS), errs = sum(k, R_ERRORS);
	int busy = 0;
	char line[352];

	if (!last && now - k->last_progress < (k->tty ? PROGRESS_TTY : PROGRESS_LOG))
		return;
	k->last_progress = now;
	coord_next_due(k, now);
	for (int i = first_crawler(k); i < k->n; i++)
		busy += k->r[i].seen && !k->r[i].v[R_IDLE] && !k->r[i].final;
	snprintf(line, sizeof(line),
		 "%lld pages done, %lld%s due, %lld claimed; %.1f pages/s, %.2f MB/s; "
		 "%lld errors; %d/%d ranks busy, %lld sites held%s",
		 (long long)docs, (long long)k->q.due, k->q.due >= DB_DUE_COUNT_CAP ? "+" : "",
		 (long long)k->q.claimed,
		 el > 0 ? (double)docs / el : 0.0, el > 0 ? (double)sum(k, R_WIRE) / 1e6 / el : 0.0,
		 (long long)errs, busy, k->crawlers, (long long)sum(k, R_SITES), k->next_due);
	if (k->tty) {
		fprintf(stderr, "\r%-200s%s", line, last ? "\n" : "");
		fflush(stderr);
	} else {
		info("progress: %s", line);
	}
}

static void coord_summary(const struct coord *k)
{
	double el = now_monotonic() - k->started;

	printf("\n  rank     pages   indexed        MB  err net/4xx/5xx   claims  claim s  store s   seconds\n");
	for (int i = first_crawler(k); i < k->n; i++) {
		const int64_t *v = k->r[i].v;

		printf("%6d %9lld %9lld %9.1f %7lld/%lld/%lld %8lld %8.1f %8.1f %9.1f\n", i,
		       (long long)v[R_DOCS], (long long)v[R_INDEXED], (double)v[R_WIRE] / 1e6,
		       (long long)v[R_ERR_NET], (long long)v[R_ERR_4XX], (long long)v[R_ERR_5XX],
		       (long long)v[R_CLAIMS], (double)v[R_CLAIM_MS] / 1000,
		       (double)v[R_STORE_MS] / 1000, (double)v[R_SECONDS] / 1000);
	}
	printf("%6s %9lld %9lld %9.1f %7lld/%lld/%lld %8lld %8.1f %8.1f %9.1f\n", "all",
	       (long long)sum(k, R_DOCS), (long long)sum(k, R_INDEXED),
	       (double)sum(k, R_WIRE) / 1e6, (long long)sum(k, R_ERR_NET),
	       (long long)sum(k, R_ERR_4XX), (long long)sum(k, R_ERR_5XX),
	       (long long)sum(k, R_CLAIMS), (double)sum(k, R_CLAIM_MS) / 1000,
	       (double)sum(k, R_STORE_MS) / 1000, el);
	printf("  %.1f pages/s, %.1f claims/s, database %.0f%% of the crawling ranks' time\n",
	       el > 0 ? (double)sum(k, R_DOCS) / el : 0.0,
	       el > 0 ? (double)sum(k, R_CLAIMS) / el : 0.0,
	       el > 0 ? 100.0 * (double)(sum(k, R_CLAIM_MS) + sum(k, R_STORE_MS)) / 1000 /
				(el * k->crawlers) : 0.0);
	fflush(stdout);
}

/* -n: give each crawler room to claim, never more than the job's budget.
 * What a rank may still turn into documents is bounded by its grant minus
 * what it claimed, plus what it holds, plus what it fetched (a stale report
 * only overstates it), so the sum over the ranks never passes -n. */
static void coord_grant(struct coord *k)
{
	int64_t reserved = 0, free_;

	if (k->max_docs <= 0)
		return;
	for (int i = first_crawler(k); i < k->n; i++) {
		const int64_t *v = k->r[i].v;

		reserved += k->granted[i] - v[R_CLAIMED] + v[R_IN_HAND] + v[R_DOCS];
	}
	free_ = k->max_docs - reserved;
	for (int i = first_crawler(k); i < k->n && free_ > 0; i++) {
		int64_t unused = k->granted[i] - k->r[i].v[R_CLAIMED], g;

		if (k->r[i].final || unused >= GRANT_CHUNK / 2)
			continue;
		g = free_ / k->crawlers;
		if (g < 1)
			g = 1;
		if (g > GRANT_CHUNK - unused)
			g = GRANT_CHUNK - unused;
		if (g > free_)
			g = free_;
		k->granted[i] += g;
		free_ -= g;
	}
}

/* The crawl is over: say so, and when the next URL will be due (an
 * administrator reading "nothing is due" wants to know when to look again). */
static void coord_over(const struct coord *k)
{
	long long when = 0;
	char due[128];
	int n = db_next_due(k->db, &when);

	if (n > 0)
		db_due_text(when, due, sizeof(due));
	info("nothing is due and no rank is busy: the %s is over%s%s",
	     k->round ? "round" : "crawl",
	     n > 0 ? "; the next URL is due " : n == 0 ? "; no live URL is left" : "",
	     n > 0 ? due : "");
}

/* Is the crawl over?  Decided here only: every crawler idle (or gone), and
 * in one read of the database no URL due and none claimed (work exists
 * exactly while one of the two does: a URL is claimed until its outcome
 * and its links are stored), or -n reached. */
static void coord_decide(struct coord *k)
{
	bool all_idle = true;

	k->idle = 0;
	for (int i = first_crawler(k); i < k->n; i++) {
		bool idle = k->r[i].final || (k->r[i].seen && k->r[i].v[R_IDLE]);

		all_idle &= idle;
		/* A rank that has not reported yet is still starting and
		 * will want work: counted idle for the advice (the others
		 * leave it a site), not for the end of the crawl. */
		k->idle += idle || (!k->r[i].seen && !k->r[i].final);
		if ((double)k->r[i].v[R_DB_DOWN_MS] / 1000 > k->db_down) {
			k->db_down = (double)k->r[i].v[R_DB_DOWN_MS] / 1000;
			k->failed = true;
		}
		if (k->r[i].v[R_STOPPING] && !k->stop) {
			info("rank %d was asked to stop: stopping every rank", i);
			k->stop = true;
		}
	}
	/* crawl_stop_requested(): a signal between two rounds of a continuous
	 * crawl, before this round's handler was installed. */
	if ((stop_signal || crawl_stop_requested()) && !k->stop) {
		info("signal received: stopping every rank");
		k->stop = true;
	}
	/* The moment the last crawler turns idle, its outcomes and links are
	 * stored: ask at once rather than on the next 0.2 s (a crawl's end
	 * waited up to that for a stale answer). */
	coord_query(k, all_idle, all_idle && !k->all_idle);
	k->all_idle = all_idle;
	if (k->done || k->stop || !all_idle)
		return;
	if (k->max_docs > 0 && sum(k, R_DOCS) >= k->max_docs) {
		info("document limit of %ld reached", k->max_docs);
		k->done = true;
	} else if (k->have_q && !k->q.due && !k->q.claimed) {
		coord_over(k);
		k->done = true;
	}
}

static void coord_advice(const struct coord *k, int i, struct crawl_advice *a)
{
	a->cmd = k->stop || k->failed ? CRAWL_STOP : k->done ? CRAWL_DONE : CRAWL_GO_ON;
	a->claim_limit = k->max_docs > 0 ? k->granted[i] : -1;
	a->due = k->have_q ? k->due : -1;
	a->crawlers = k->crawlers;
	a->idle_crawlers = k->idle;
	a->db_gone = k->db_down > 0;
}

static void coord_init(struct coord *k, const struct conf *c, struct db *db, long max_docs)
{
	memset(k, 0, sizeof(*k));
	k->c = c;
	k->db = db;
	k->max_docs = max_docs;
	k->n = n_ranks;
	k->crawlers = n_ranks == 1 ? 1 : n_ranks - 1;
	k->r = xcalloc((size_t)n_ranks, sizeof(*k->r));
	k->granted = xcalloc((size_t)n_ranks, sizeof(*k->granted));
	k->sent_cmd = xcalloc((size_t)n_ranks, sizeof(*k->sent_cmd));
	k->sent_limit = xcalloc((size_t)n_ranks, sizeof(*k->sent_limit));
	k->started = now_monotonic();
	k->last_progress = k->started;
	k->tty = isatty(2);
	k->due = -1;
}

static void coord_free(struct coord *k)
{
	free(k->r);
	free(k->granted);
	free(k->sent_cmd);
	free(k->sent_limit);
}

/* --- one rank alone: the coordinator lives in the crawl's ticks --- */

static void solo_tick(void *arg, const struct crawl_totals *t, const struct crawl_load *l,
		      struct crawl_advice *adv)
{
	struct coord *k = arg;
	int64_t limit = -1;

	if (k->max_docs > 0)
		limit = (int64_t)l->claimed + (k->max_docs - l->docs - (int64_t)l->in_hand);
	load_to_report(t, l, limit, now_monotonic() - k->started, k->r[0].v);
	k->r[0].seen = true;
	k->granted[0] = limit;
	coord_decide(k);
	coord_progress(k, false);
	coord_advice(k, 0, adv);
}

/* --- a worker: ticks report to the master and read its advice --- */

struct worker {
	struct crawl_advice adv;
	struct crawl_load last;     /* the last tick's load, for the final report */
	double started, last_sent;
	int64_t last_idle, last_stopping;
};

static void worker_tick(void *arg, const struct crawl_totals *t, const struct crawl_load *l,
			struct crawl_advice *adv)
{
	struct worker *w = arg;
	double now = now_monotonic();
	int64_t v[R_N], a[A_N];
	int flag = 1;

	/* Every advice the master sent, the last one wins. */
	while (MPI_Iprobe(0, TAG_ADVICE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
	       flag) {
		MPI_Recv(a, A_N, MPI_INT64_T, 0, TAG_ADVICE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		w->adv.cmd = (enum crawl_cmd)a[A_CMD];
		w->adv.claim_limit = a[A_LIMIT];
		w->adv.due = a[A_DUE];
		w->adv.crawlers = (int)a[A_CRAWLERS];
		w->adv.idle_crawlers = (int)a[A_IDLE];
		w->adv.db_gone = a[A_DB_GONE] != 0;
	}
	*adv = w->adv;
	w->last = *l;
	/* Report four times a second, and at once when idleness changes. */
	if (now - w->last_sent < 0.25 && w->last_idle == (int64_t)l->idle &&
	    w->last_stopping == (int64_t)l->stopping)
		return;
	load_to_report(t, l, w->adv.claim_limit, now - w->started, v);
	MPI_Send(v, R_N, MPI_INT64_T, 0, TAG_REPORT, MPI_COMM_WORLD);
	w->last_sent = now;
	w->last_idle = l->idle;
	w->last_stopping = l->stopping;
}

static int run_worker(const struct conf *c, struct db *db, const struct crawl_opts *o)
{
	struct worker w;
	struct crawl_hooks h = { worker_tick, &w };
	struct crawl_opts co = *o;
	struct crawl_totals t;
	struct crawl_load l;
	int64_t v[R_N];
	int rc;

	memset(&w, 0, sizeof(w));
	w.started = now_monotonic();
	w.last_idle = -1;
	w.adv.claim_limit = o->max_docs > 0 ? 0 : -1;
	w.adv.due = -1;
	w.adv.crawlers = n_ranks - 1;
	co.hooks = &h;
	co.max_docs = 0;
	rc = crawl_run(c, db, &co, &t);
	/* The final report: the master waits for one from every worker. */
	l = w.last;
	l.in_hand = 0;
	l.sites_held = 0;
	load_to_report(&t, &l, 0, now_monotonic() - w.started, v);
	v[R_FINAL] = 1;
	v[R_RC] = rc;
	v[R_IDLE] = 1;
	v[R_STOPPING] = crawl_stop_requested();
	MPI_Send(v, R_N, MPI_INT64_T, 0, TAG_REPORT, MPI_COMM_WORLD);
	return rc;
}

/* --- the master of a job of N > 1 ranks --- */

static void master_send(struct coord *k, bool all)
{
	for (int i = 1; i < k->n; i++) {
		struct crawl_advice a;
		int64_t m[A_N];

		if (k->r[i].final)
			continue;
		coord_advice(k, i, &a);
		m[A_CMD] = a.cmd;
		m[A_LIMIT] = a.claim_limit;
		m[A_DUE] = a.due;
		m[A_CRAWLERS] = a.crawlers;
		m[A_IDLE] = a.idle_crawlers;
		m[A_DB_GONE] = a.db_gone;
		/* New commands and grants at once, the rest once a second. */
		if (!all && m[A_CMD] == k->sent_cmd[i] && m[A_LIMIT] == k->sent_limit[i])
			continue;
		MPI_Send(m, A_N, MPI_INT64_T, i, TAG_ADVICE, MPI_COMM_WORLD);
		k->sent_cmd[i] = m[A_CMD];
		k->sent_limit[i] = m[A_LIMIT];
	}
}

static int run_master(struct coord *k)
{
	int finals = 0, rc = 0;
	double last_all = 0;

	info("master: %d crawling rank(s)", k->crawlers);
	master_send(k, true);
	while (finals < k->n - 1) {
		int flag = 0, got = 0;
		MPI_Status st;

		while (MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &flag, &st) ==
			       MPI_SUCCESS && flag) {
			int64_t v[R_N];
			struct rstat *r = &k->r[st.MPI_SOURCE];

			MPI_Recv(v, R_N, MPI_INT64_T, st.MPI_SOURCE, TAG_REPORT, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (v[R_FINAL]) {
				r->final = true;
				finals++;
				if (v[R_RC]) {
					warning("rank %d failed: stopping every rank", st.MPI_SOURCE);
					k->stop = true;
					rc = -1;
				}
			}
			memcpy(r->v, v, sizeof(v));
			r->seen = true;
			got++;
		}
		coord_grant(k);
		coord_decide(k);
		if (k->failed)
			rc = -1;
		coord_progress(k, false);
		master_send(k, now_monotonic() - last_all > 1.0);
		if (now_monotonic() - last_all > 1.0)
			last_all = now_monotonic();
		if (!got)
			sleep_s(0.01);
	}
	return rc;
}

static char *pid_path(const struct conf *c)
{
	return xasprintf("%s/mpseek-index.pid", c->data_dir);
}

static void pid_write(const struct conf *c)
{
	char *p = pid_path(c), *tmp = xasprintf("%s.tmp", p);
	FILE *fp;

	if (mkdir_p(c->data_dir) == 0 && (fp = fopen(tmp, "w"))) {
		fprintf(fp, "%ld\n", (long)getpid());
		if (fclose(fp) == 0 && rename(tmp, p) == 0)
			debug("pid file %s", p);
		else
			warning("cannot write %s: %s (mpseek-index -E will not find this job)", p,
				strerror(errno));
		/* A full disk leaves the temp file empty: never a stale one. */
		unlink(tmp);
	} else {
		warning("cannot create %s: %s (mpseek-index -E will not find this job)", tmp,
			strerror(errno));
	}
	free(tmp);
	free(p);
}

static void pid_remove(const struct conf *c)
{
	char *p = pid_path(c);

	unlink(p);
	free(p);
}

/* The crawl of a job (r NULL: rank 0 writes the pid file for -E) or of a
 * round of a continuous crawl (r: the job's scope holds the pid file; the
 * pages of the round and whether a stop came are agreed into *r). */
static int crawl_job(const struct conf *c, struct db *db, const struct crawl_opts *o,
		     struct cluster_round *r)
{
	struct sigaction sa, old_term, old_int;
	struct coord k;
	uint64_t pages = 0, stopped = 0;
	double db_down = 0;
	int rc = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	if (my_rank == 0) {
		coord_init(&k, c, db, o->max_docs);
		k.round = r != NULL;
		if (!r)
			pid_write(c);
		if (n_ranks == 1) {
			struct crawl_hooks h = { solo_tick, &k };
			struct crawl_opts co = *o;
			struct crawl_totals t;

			co.hooks = &h;
			co.max_docs = 0;
			rc = crawl_run(c, db, &co, &t);
		} else {
			rc = run_master(&k);
		}
		coord_progress(&k, true);
		coord_summary(&k);
		if (!r)
			pid_remove(c);
		pages = (uint64_t)sum(&k, R_DOCS);
		stopped = k.stop;
		db_down = k.db_down;
		coord_free(&k);
	} else {
		rc = run_worker(c, db, o);
	}
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	rc = cluster_agree(rc);
	/* The one line an operator needs: the ranks' own messages say which
	 * statement failed, this says why the job ends and what to do. */
	if (db_down > 0)
		rc = error("the database at %s has been unreachable for %.0f s (DBGrace): "
			   "stopping; rerun to resume", db_where(db), db_down);
	if (r) {
		stopped |= crawl_stop_requested();
		if (cluster_max_u64(&pages) || cluster_max_u64(&stopped))
			rc = -1;
		r->pages = (long)pages;
		r->stopped = stopped != 0;
	}
	return rc;
}

int cluster_crawl(const struct conf *c, struct db *db, const struct crawl_opts *o)
{
	return crawl_job(c, db, o, NULL);
}

/* --- the continuous crawl (doc/CLUSTER.md, "Continuous crawl") ---------- */

int cluster_crawl_round(const struct conf *c, struct db *db, const struct crawl_opts *o,
			struct cluster_round *r)
{
	memset(r, 0, sizeof(*r));
	return crawl_job(c, db, o, r);
}

struct cluster_job {
	struct sigaction old_term, old_int;
};

struct cluster_job *cluster_job_begin(const struct conf *c)
{
	struct cluster_job *j = xcalloc(1, sizeof(*j));
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	/* A stop during a merge takes effect after it: its reads and writes
	 * (files, the database) go on rather than fail with EINTR. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &j->old_term);
	sigaction(SIGINT, &sa, &j->old_int);
	if (my_rank == 0)
		pid_write(c);
	return j;
}

void cluster_job_end(const struct conf *c, struct cluster_job *j)
{
	if (!j)
		return;
	if (my_rank == 0)
		pid_remove(c);
	sigaction(SIGTERM, &j->old_term, NULL);
	sigaction(SIGINT, &j->old_int, NULL);
	free(j);
}

/* Rank 0's look at the queue while the job waits: CLUSTER_WAKE_DUE when a
 * URL is due, 0 to wait on, -1 (as CLUSTER_WAKE_FAILED) on an error.  Says
 * what is due next and when, once a minute and whenever that changes. */
static int wait_look(struct db *db, long long *shown, double *said)
{
	struct db_queue q;
	long long when = 0;
	char due[96], url[256] = "";
	int n;

	if (db_queue_state(db, &q))
		return -1;
	if (q.due > 0)
		return CLUSTER_WAKE_DUE;
	n = db_next_due(db, &when);
	if (n < 0)
		return -1;
	if (n == 0)
		when = -1;
	if (when != *shown || now_monotonic() - *said >= 60.0) {
		if (n > 0) {
			db_due_text(when, due, sizeof(due));
			if (db_next_due_url(db, when, url, sizeof(url)) < 0)
				return -1;
		}
		/* What is due next and when: the administrator of a crawl that
		 * never ends sees what it waits for. */
		info("progress: waiting: nothing is due; %s%s%s%s",
		     n > 0 ? "the next URL is due " : "no live URL is left", n > 0 ? due : "",
		     url[0] ? ": " : "", url);
		*shown = when;
		*said = now_monotonic();
	}
	return 0;
}

int cluster_wait_due(struct db *db, double deadline)
{
	long long shown = -2;
	double said = 0, looked = -1e9;

	for (;;) {
		uint64_t v = 0;

		if (crawl_stop_requested()) {
			v = CLUSTER_WAKE_STOP;
		} else if (my_rank == 0 && deadline > 0 && now_monotonic() >= deadline) {
			v = CLUSTER_WAKE_LIMIT;
		} else if (my_rank == 0 && now_monotonic() - looked >= 1.0) {
			int k = wait_look(db, &shown, &said);

			looked = now_monotonic();
			v = k < 0 ? CLUSTER_WAKE_FAILED : (uint64_t)k;
		}
		/* Any rank's stop, else rank 0's word: every rank the same. */
		if (cluster_max_u64(&v))
			return -1;
		if (v == CLUSTER_WAKE_FAILED)
			return -1;
		if (v)
			return (int)v;
		sleep_s(0.25);
	}
}

int cluster_request_stop(const struct conf *c, double wait_seconds)
{
	char *p = pid_path(c), buf[64], cmd[256];
	char *proc = NULL;
	FILE *fp;
	long pid = 0;
	size_t n;
	int rc = 1;
	double deadline = now_monotonic() + wait_seconds;

	fp = fopen(p, "r");
	if (!fp) {
		info("no crawl runs on %s (no %s)", c->data_dir, p);
		goto out;
	}
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	if (parse_long(buf, 2, 1L << 30, &pid)) {
		rc = error("%s: not a pid", p);
		goto out;
	}
	/* Only an mpseek-index: a stale file may name a pid reused since. */
	proc = xasprintf("/proc/%ld/cmdline", pid);
	fp = fopen(proc, "r");
	n = fp ? fread(cmd, 1, sizeof(cmd) - 1, fp) : 0;
	if (fp)
		fclose(fp);
	cmd[n] = '\0';
	if (!n || !strstr(cmd, "mpseek-index")) {
		info("no crawl runs on %s (stale %s)", c->data_dir, p);
		goto out;
	}
	if (kill((pid_t)pid, SIGTERM))
		rc = error_errno("kill %ld", pid);
	else {
		info("asked the crawl (pid %ld) to stop", pid);
		rc = 0;
		while (kill((pid_t)pid, 0) == 0 && now_monotonic() < deadline)
			sleep_s(0.1);
		if (kill((pid_t)pid, 0) == 0)
			rc = error("the crawl (pid %ld) still runs after %.0f s", pid, wait_seconds);
	}
out:
	free(proc);
	free(p);
	return rc;
}

/* --- urlstates: the merge's touched-URL bitmap --- */

int cluster_or_bytes(uint8_t *v, size_t n)
{
	MPI_Request req;
	uint8_t *out;

	if (!initialised || n_ranks == 1 || !n)
		return 0;
	if (n > INT_MAX)
		return error("allreduce: %zu bytes is more than one MPI call moves", n);
	out = xmalloc(n);
	if (MPI_Iallreduce(v, out, (int)n, MPI_UINT8_T, MPI_BOR, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS || poll_wait(1, &req, NULL, true)) {
		free(out);
		return error("allreduce (or) of %zu bytes failed", n);
	}
	memcpy(v, out, n);
	free(out);
	return 0;
}

int cluster_max_u64(uint64_t *v)
{
	MPI_Request req;
	uint64_t out = *v;

	if (!initialised || n_ranks == 1)
		return 0;
	if (MPI_Iallreduce(v, &out, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD, &req) != MPI_SUCCESS ||
	    poll_wait(1, &req, NULL, false))
		return error("allreduce (max) failed");
	*v = out;
	return 0;
}
