/* index_main.c - main() of mpseek-index: options, config, one run function.
 *
 * Runs alone or under `mpirun -np N`.  Admin verbs that need no cluster
 * (-S, --db-*) do not initialise MPI at all.
 */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cluster.h"
#include "conf.h"
#include "crawl.h"
#include "db.h"
#include "dbserver.h"
#include "index_admin.h"
#include "log.h"
#include "merge.h"
#include "pagerank.h"
#include "ranks.h"
#include "storage.h"
#include "grams.h"
#include "util.h"
#include "writer.h"

enum verb {
	VERB_INDEX, VERB_STOP, VERB_STATS, VERB_DB_START, VERB_DB_STOP, VERB_DB_STATUS, VERB_CHECK_CONF,
	VERB_MERGE,         /* -D: merge only (MPI) */
	VERB_CHECK_INDEX, VERB_DUMP_INDEX,  /* --check, --dump-index: no MPI */
	VERB_COMMON_WORDS,  /* --common-words N: no MPI */
	VERB_PRINT_RANKS,   /* --print-ranks [--pagerank-dir DIR]: no MPI */
	VERB_CHECK_DB,      /* --check-db: no MPI, one process per host under mpirun */
	VERB_PR_EDGES,      /* --pagerank-edges FILE: MPI, no database */
	VERB_CLEAR,         /* -C: delete the URLs -u/-f select; no MPI */
	VERB_INSERT,        /* -i: insert the URLs of -u/-f; no MPI */
	VERB_NOW,           /* -T URL: fetch now into the real-time index; no MPI */
};

struct options {
	enum verb verb;
	const char *config;
	bool quick;      /* -q: do not insert the Server URLs */
	bool seed_only;  /* --seed: create/check the schema, seed, do not crawl */
	bool expire;     /* -a: every URL is due now */
	bool force;      /* -m: no conditional GET, re-parse unchanged pages */
	long max_docs;   /* -n: stop after this many documents */
	double max_seconds; /* -t: stop claiming after this many seconds */
	long tag;        /* --tag: crawl (and -a) only URLs of this Tag; -1 = all */
	int log_level;   /* -v/-d override, -1 = from config */
	bool ranks_only; /* -K: recompute PageRank alone into a new generation */
	const char *pr_file; /* --pagerank-edges FILE */
	const char *pr_dir;  /* --pagerank-dir DIR: PageRank into DIR instead of a generation */
	struct pagerank_opts pr; /* --pagerank-comm, --pagerank-blocking, --pagerank-cold */
	char **urls;     /* -u PATTERN (repeatable) */
	size_t n_urls;
	const char *url_file; /* -f FILE */
	bool no_confirm; /* -w: -C asks nothing */
	double lock_wait;    /* --lock-wait: seconds to wait for the writer lock, < 0 no limit */
	bool lock_wait_set;
	bool continuous; /* --continuous: crawl and publish in rounds until -E */
	long common_words; /* --common-words N */
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: mpseek-index [options] [config]\n"
		"       mpirun -np N mpseek-index [options] [config]\n"
		"\n"
		"Crawl the Server URLs of the config (default %s/mpseek.conf).\n"
		"\n"
		"  -S              print statistics: per HTTP status, index_status, site; the next\n"
		"                  URL due; the live index generation\n"
		"  -q              quick start: do not insert the Server URLs\n"
		"  -a, --recrawl   mark every URL (with -u/-f: the URLs selected) due now\n"
		"  -m, --force     no conditional GET; re-parse pages even when unchanged (with\n"
		"                  -u/-f: only the URLs selected, which are due now)\n"
		"  -u, --url PATTERN  select URLs (repeatable): a LIKE pattern with %% and _,\n"
		"                  a URL, or a site host[:port]\n"
		"  -f, --file FILE select the URLs or patterns of FILE, one a line (- = stdin)\n"
		"  -C, --clear     delete the URLs -u/-f select (asks first; all URLs: -C -w)\n"
		"  -w, --no-confirm  -C without asking\n"
		"  -i, --insert    insert the URLs of -u/-f (crawled by the next run)\n"
		"  -T, --now URL   fetch URL now (repeatable; with -f FILE its URLs too) and make\n"
		"                  it searchable at once; the next merge folds it in\n"
		"  -n N            stop after N documents (all ranks together)\n"
		"  -K              recompute PageRank and the citations alone (new index generation)\n"
		"  -E              ask the crawl running on DataDir to stop (it releases its\n"
		"                  claims, flushes its deltas and exits 0) and wait for it\n"
		"  -t SECONDS      stop claiming URLs after SECONDS\n"
		"      --continuous  keep crawling: claim URLs as they fall due and publish a\n"
		"                  generation every PublishPages pages or PublishInterval,\n"
		"                  until -E or SIGTERM (-n, -t: then stop too)\n"
		"      --tag N     crawl only URLs whose Server has Tag N (with -a: make only\n"
		"                  those due)\n"
		"  -D              merge only: merge the delta logs into a new index generation\n"
		"      --check     verify the live index (structure, offsets, orders, counts, wordurl)\n"
		"      --dump-index print every posting: word<TAB>url_id<TAB>positions\n"
		"      --common-words N  print a CommonWords line of the live index's N words\n"
		"                  with the most pages (phrases of them are looked up by pairs)\n"
		"  -v              verbose (debug log)\n"
		"      --seed      create/check the schema and insert the Server URLs; no crawl\n"
		"      --check-config  parse the config, report errors and exit\n"
		"      --check-db  connect to the database, check its schema and that DataDir\n"
		"                  is writable; one line with this host's name (pre-flight)\n"
		"      --print-ranks   print \"url<TAB>rank\" for every ranked page and exit\n"
		"      --db-start  start the embedded database server (no DBAddr) and exit\n"
		"      --db-stop   stop the embedded database server\n"
		"      --db-status exit 0 if the embedded database server runs, 1 if not\n"
		"      --lock-wait SECONDS  wait this long for another job's writer lock\n"
		"                  (default: a crawl is refused at once, -D and -K wait)\n"
		"  -h, --help      this text\n"
		"  -V, --version   print the version\n",
		SYSCONFDIR);
}

/* -u/-f select URLs for -C, -i, -a and -m only; -C without them would
 * delete everything, which takes an explicit -w.  0 or 2. */
static int check_selection(const struct options *o)
{
	bool sel = o->n_urls || o->url_file;
	const char *why = NULL;

	if (sel && o->verb != VERB_CLEAR && o->verb != VERB_INSERT && o->verb != VERB_NOW &&
	    !(o->verb == VERB_INDEX && (o->expire || o->force)))
		why = "-u and -f select URLs for -C, -i, -a or -m";
	else if (o->verb == VERB_INSERT && !sel)
		why = "-i inserts the URLs of -u URL or -f FILE";
	else if (o->verb == VERB_CLEAR && !sel && !o->no_confirm)
		why = "-C deletes the URLs of -u PATTERN or -f FILE (every URL: -C -w)";
	else if (o->no_confirm && o->verb != VERB_CLEAR)
		why = "-w goes with -C";
	else if (o->continuous && (o->verb != VERB_INDEX || o->seed_only || o->ranks_only ||
				   o->pr_dir))
		why = "--continuous is a crawl: not with -D, -K, --seed or another verb";
	if (!why)
		return 0;
	fprintf(stderr, "mpseek-index: %s (try --help)\n", why);
	return 2;
}

/* optarg as whole seconds from lo, into *out; 0, or -1 after the message. */
static int parse_seconds(const char *opt, long lo, double *out)
{
	long secs;

	if (parse_long(optarg, lo, 100000000L, &secs)) {
		fprintf(stderr, "mpseek-index: %s wants seconds, not '%s'\n", opt, optarg);
		return -1;
	}
	*out = (double)secs;
	return 0;
}

/* optarg as a whole number lo..hi into *out; 0, or -1 after the message
 * ("OPT wants WHAT, not 'x'"). */
static int parse_count(const char *opt, const char *what, long lo, long hi, long *out)
{
	if (parse_long(optarg, lo, hi, out)) {
		fprintf(stderr, "mpseek-index: %s wants %s, not '%s'\n", opt, what, optarg);
		return -1;
	}
	return 0;
}

/* --pagerank-comm allreduce|rsag; 0, or -1 after the message. */
static int parse_comm(struct pagerank_opts *pr)
{
	if (!strcmp(optarg, "allreduce")) {
		pr->comm = PAGERANK_ALLREDUCE;
	} else if (!strcmp(optarg, "rsag")) {
		pr->comm = PAGERANK_RSAG;
	} else {
		fprintf(stderr, "mpseek-index: --pagerank-comm wants allreduce or rsag\n");
		return -1;
	}
	return 0;
}

/* Returns 0 to go on, 1 to exit 0 (help/version), 2 on a usage error. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "check-config", no_argument, NULL, 'c' },
		{ "check-db", no_argument, NULL, 13 },
		{ "seed", no_argument, NULL, 4 },
		{ "db-start", no_argument, NULL, 1 },
		{ "db-stop", no_argument, NULL, 2 },
		{ "db-status", no_argument, NULL, 3 },
		{ "check", no_argument, NULL, 11 },
		{ "dump-index", no_argument, NULL, 12 },
		{ "common-words", required_argument, NULL, 17 },
		{ "print-ranks", no_argument, NULL, 5 },
		{ "clear", no_argument, NULL, 'C' },
		{ "insert", no_argument, NULL, 'i' },
		{ "now", required_argument, NULL, 'T' },
		{ "url", required_argument, NULL, 'u' },
		{ "file", required_argument, NULL, 'f' },
		{ "no-confirm", no_argument, NULL, 'w' },
		{ "recrawl", no_argument, NULL, 'a' },
		{ "force", no_argument, NULL, 'm' },
		{ "lock-wait", required_argument, NULL, 14 },
		/* for tests and benchmarks (doc/PAGERANK.md) */
		{ "pagerank-edges", required_argument, NULL, 6 },
		{ "pagerank-dir", required_argument, NULL, 7 },
		{ "pagerank-comm", required_argument, NULL, 8 },
		{ "pagerank-blocking", no_argument, NULL, 9 },
		{ "pagerank-cold", no_argument, NULL, 10 },
		{ "tag", required_argument, NULL, 15 },
		{ "continuous", no_argument, NULL, 16 },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(o, 0, sizeof(*o));
	o->log_level = -1;
	o->tag = -1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "SEqamDKn:t:vhVCiwu:f:T:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'S': o->verb = VERB_STATS; break;
		case 'E': o->verb = VERB_STOP; break;
		case 'D': o->verb = VERB_MERGE; break;
		case 11: o->verb = VERB_CHECK_INDEX; break;
		case 12: o->verb = VERB_DUMP_INDEX; break;
		case 13: o->verb = VERB_CHECK_DB; break;
		case 'q': o->quick = true; break;
		case 'a': o->expire = true; break;
		case 'm': o->force = true; break;
		case 'K': o->ranks_only = true; break;
		case 'C': o->verb = VERB_CLEAR; break;
		case 'i': o->verb = VERB_INSERT; break;
		case 'w': o->no_confirm = true; break;
		case 'f': o->url_file = optarg; break;
		case 'T': o->verb = VERB_NOW; /* fall through */
		case 'u':
			o->urls = xrealloc(o->urls, (o->n_urls + 1) * sizeof(*o->urls));
			o->urls[o->n_urls++] = optarg;
			break;
		case 'n':
			if (parse_count("-n", "a positive number", 1, 2000000000L, &o->max_docs))
				return 2;
			break;
		case 't':
			if (parse_seconds("-t", 1, &o->max_seconds))
				return 2;
			break;
		case 15:
			if (parse_count("--tag", "a Tag, 0..2147483647", 0, INT32_MAX, &o->tag))
				return 2;
			break;
		case 16: o->continuous = true; break;
		case 17:
			o->verb = VERB_COMMON_WORDS;
			if (parse_count("--common-words", "a number of words, 1..256", 1, GRAMS_MAX_WORDS,
					&o->common_words))
				return 2;
			break;
		case 'v': o->log_level = LOG_DEBUG; break;
		case 'c': o->verb = VERB_CHECK_CONF; break;
		case 1: o->verb = VERB_DB_START; break;
		case 2: o->verb = VERB_DB_STOP; break;
		case 3: o->verb = VERB_DB_STATUS; break;
		case 4: o->seed_only = true; break;
		case 5: o->verb = VERB_PRINT_RANKS; break;
		case 6: o->verb = VERB_PR_EDGES; o->pr_file = optarg; break;
		case 7: o->pr_dir = optarg; break;
		case 8:
			if (parse_comm(&o->pr))
				return 2;
			break;
		case 14:
			if (parse_seconds("--lock-wait", 0, &o->lock_wait))
				return 2;
			o->lock_wait_set = true;
			break;
		case 9: o->pr.blocking = true; break;
		case 10: o->pr.cold = true; break;
		case 'h': usage(stdout); return 1;
		case 'V': printf("mpseek-index %s\n", PACKAGE_VERSION); return 1;
		default:
			if (optopt)
				fprintf(stderr, "mpseek-index: unknown option -%c (try --help)\n", optopt);
			else
				fprintf(stderr, "mpseek-index: unknown option %s (try --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "mpseek-index: more than one config file given (try --help)\n");
		return 2;
	}
	o->config = optind < argc ? argv[optind] : SYSCONFDIR "/mpseek.conf";
	return check_selection(o);
}

static const char *db_name(const struct conf *c)
{
	return c->db.set ? c->db.name : "mpseek";
}

/* A connection as configured: DBAddr, or the embedded server of DataDir. */
static int open_db(const struct conf *c, double wait_seconds, struct db **db)
{
	char *sock = dbserver_socket_path(c->data_dir);
	int rc = db_open(c, sock, wait_seconds, db);

	free(sock);
	return rc;
}

struct print_ctx {
	struct ranks *r;
	long n;
};

static int print_one(void *arg, uint32_t url_id, const char *url)
{
	struct print_ctx *p = arg;
	double v = ranks_get(p->r, url_id);

	/* Normalised URLs hold no blanks or control characters (url.c). */
	if (v > 0) {
		printf("%s\t%.17g\n", url, v);
		p->n++;
	}
	return 0;
}

/* --print-ranks: the ranks of the live generation (or --pagerank-dir). */
static int print_ranks(const struct options *o, const struct conf *c, struct db *db)
{
	char *dir = o->pr_dir ? xstrdup(o->pr_dir) : xasprintf("%s/index/current", c->data_dir);
	struct print_ctx p = { NULL, 0 };
	int rc;

	rc = ranks_open(dir, &p.r, NULL);
	if (rc == 0)
		rc = error("%s has no ranks (run mpseek-index -K)", dir);
	if (rc > 0)
		rc = db_graph_urls(db, print_one, &p);
	if (!rc && fflush(stdout))
		rc = error_errno("cannot write the ranks");
	if (!rc)
		info("%ld ranked page(s)", p.n);
	ranks_close(p.r);
	free(dir);
	return rc < 0 ? -1 : 0;
}

/* --check-db: what a rank on this host would need before a job: the
 * database answers with mpseek's schema, and DataDir takes files.  One line
 * naming the host, so that `mpirun --hostfile H mpseek-index --check-db`
 * is a cluster's pre-flight (mpi-scripts/mpseek-run --preflight). */
static int check_db(const struct conf *c)
{
	char host[256] = "?";
	struct buf line = BUF_INIT(256);
	struct db *db = NULL;
	char *probe = NULL;
	int rc = -1, fd;

	gethostname(host, sizeof(host) - 1);
	if (!c->db.set && !dbserver_running(c->data_dir)) {
		error("%s: the embedded database of %s is not running here (ranks on other "
		      "hosts need DBAddr, or EmbeddedDBListen on the first host)", host, c->data_dir);
		goto out;
	}
	if (open_db(c, 5, &db) || db_schema_check(db, false) || db_describe(db, &line)) {
		error("%s: the database is not usable from this host", host);
		goto out;
	}
	probe = xasprintf("%s/.check-db-%ld", c->data_dir, (long)getpid());
	if (mkdir_p(c->data_dir) || (fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0) {
		error_errno("%s: DataDir %s is not writable", host, c->data_dir);
		goto out;
	}
	close(fd);
	unlink(probe);
	printf("%s: ok: %s, schema version %d; DataDir %s writable\n", host, buf_str(&line),
	       DB_SCHEMA_VERSION, c->data_dir);
	rc = fflush(stdout) ? -1 : 0;
out:
	free(probe);
	buf_free(&line);
	db_close(db);
	return rc;
}

/* -C and -i: the URLs of -u/-f against the database.  -i may be the first
 * thing run on a new DataDir: it starts the embedded server and creates the
 * schema as a crawl would.  Returns 0, 1 (-i: some URLs skipped) or -1. */
static int run_admin(const struct options *o, const struct conf *c)
{
	bool insert = o->verb == VERB_INSERT || o->verb == VERB_NOW;
	struct url_list l;
	struct db *db = NULL;
	struct writer *w = NULL;
	int rc = -1;

	if (url_list_load(&l, o->urls, o->n_urls, o->url_file))
		goto out;
	if (!c->db.set && !insert && !dbserver_running(c->data_dir)) {
		error("the embedded database of %s is not running (start it with "
		      "mpseek-index --db-start)", c->data_dir);
		goto out;
	}
	if ((!c->db.set && insert && dbserver_ensure(c->data_dir, c->db_listen, c->db_pool_mib, db_name(c))) ||
	    open_db(c, 10, &db) || db_schema_check(db, insert))
		goto out;
	/* -C deletes rows a running crawl may hold or store again: it waits for
	 * the writer lock as -D does.  -i only adds rows, as links do. */
	if (!insert && writer_acquire(c, db, "delete (-C)",
				      o->lock_wait_set ? o->lock_wait : -1, &w))
		goto out;
	/* -T fetches beside a running crawl, as its own loop would: no writer
	 * lock either (doc/MERGE.md, "Real-time indexing"). */
	if (o->verb == VERB_NOW)
		rc = admin_now(c, db, &l);
	else if (insert)
		rc = admin_insert(c, db, &l);
	else
		rc = admin_clear(c, db, &l, o->no_confirm);
out:
	db_close(db);
	writer_release(w);
	url_list_free(&l);
	return rc;
}

/* The verbs that work on the database alone, without MPI. */
static int run_local(const struct options *o, const struct conf *c)
{
	struct db *db = NULL;
	int rc = -1;

	switch (o->verb) {
	case VERB_CHECK_CONF:
		printf("%s: ok\n", c->path);
		return 0;
	case VERB_CHECK_DB:
		return check_db(c);
	case VERB_DB_START:
		if (c->db.set)
			return error("DBAddr is set in %s: there is no embedded server to start", c->path);
		return dbserver_ensure(c->data_dir, c->db_listen, c->db_pool_mib, db_name(c));
	case VERB_DB_STOP:
		return dbserver_stop(c->data_dir);
	case VERB_DB_STATUS:
		return dbserver_running(c->data_dir) ? 0 : 1;
	case VERB_DUMP_INDEX:
		return merge_dump(c, stdout);
	case VERB_COMMON_WORDS:
		return merge_common_words(c, (size_t)o->common_words, stdout);
	case VERB_CHECK_INDEX: {
		int k;

		/* wordurl is checked too when the database answers. */
		if ((c->db.set || dbserver_running(c->data_dir)) &&
		    (open_db(c, 10, &db) || db_schema_check(db, false))) {
			db_close(db);
			db = NULL;
		}
		if (!db)
			warning("--check: no database: wordurl is not checked");
		k = merge_check(c, db, stdout);
		db_close(db);
		return k == 0 ? 0 : k > 0 ? 1 : -1;
	}
	case VERB_STOP:
		return cluster_request_stop(c, 600) == 0 ? 0 : -1;
	case VERB_STATS:
		if (!c->db.set && !dbserver_running(c->data_dir))
			return error("the embedded database of %s is not running (start it with "
				     "mpseek-index --db-start)", c->data_dir);
		if (open_db(c, 10, &db) || db_schema_check(db, false))
			goto out;
		rc = db_print_stats(db, stdout);
		if (!rc)
			rc = admin_print_index(c, stdout) < 0 ? -1 : 0;
		break;
	case VERB_CLEAR:
	case VERB_INSERT:
	case VERB_NOW:
		return run_admin(o, c);
	case VERB_PRINT_RANKS:
		if (!c->db.set && !dbserver_running(c->data_dir))
			return error("the embedded database of %s is not running (start it with "
				     "mpseek-index --db-start)", c->data_dir);
		if (open_db(c, 10, &db) || db_schema_check(db, false))
			goto out;
		rc = print_ranks(o, c, db);
		break;
	default:
		break;
	}
out:
	db_close(db);
	return rc;
}

/* The merge of every rank's deltas into a new generation, published by
 * rank 0; the consumed deltas go only after the switch.  Collective. */
static int run_merge(const struct options *o, const struct conf *c, struct db *db)
{
	struct buf err = BUF_INIT(4096);
	struct merge *m = NULL;
	uint64_t gen = 0;
	char *dir = NULL;
	int rc = 0, published = 0;

	/* Rows an administrator marked deleted by hand leave the index at this
	 * merge, as -C's do (doc/ADMIN.md, "The tables by hand"). */
	if (cluster_rank() == 0 && admin_reconcile(c, db))
		rc = -1;
	if (cluster_agree(rc)) {
		buf_free(&err);
		return -1;
	}
	rc = merge_run(c, db, &m, &gen, &dir);
	/* PageRank writes ranks and citations/ into the new generation before
	 * it goes live, so searchd never sees an index without them. */
	if (!rc)
		rc = pagerank_run(c, db, dir, &o->pr);
	if (!rc && cluster_rank() == 0) {
		rc = storage_gen_publish(c->data_dir, gen, &err);
		if (rc)
			error("merge: %s", buf_str(&err));
		else
			info("merge: generation %" PRIu64 " is live", gen);
	}
	rc = cluster_agree(rc);
	if (!rc) {
		published = 1;
		merge_crash_point("after-publish");
	}
	if (merge_finish(m, published))
		rc = -1;
	free(dir);
	buf_free(&err);
	return cluster_agree(rc);
}

/* PageRank alone (-K) or after the crawl: into --pagerank-dir when given,
 * else (-K) into a new generation made of hard links of the current one,
 * published when every rank succeeded. */
static int run_ranks(const struct options *o, const struct conf *c, struct db *db)
{
	struct buf err = BUF_INIT(1024);
	struct storage_format f;
	char *dir = NULL;
	uint64_t gen = 0;
	int rc = 0;

	if (o->pr_dir) {
		if (cluster_rank() == 0 && mkdir_p(o->pr_dir))
			rc = -1;
		if (cluster_agree(rc))
			return -1;
		return pagerank_run(c, db, o->pr_dir, &o->pr);
	}
	if (cluster_rank() == 0) {
		storage_gen_cleanup(c->data_dir, NULL);
		if (storage_gen_clone(c->data_dir, &gen, &dir, &err))
			rc = error("-K: %s (PageRank needs an index: crawl first)", buf_str(&err));
	}
	if (cluster_agree(rc)) {
		buf_free(&err);
		return -1;
	}
	rc = pagerank_run(c, db, dir, &o->pr);
	if (cluster_rank() == 0) {
		/* The clone's FORMAT names the generation it was copied from. */
		if (!rc && (storage_format_read(dir, &f, &err) ||
			    (f.generation = gen, storage_format_write(dir, &f, &err)) ||
			    storage_gen_publish(c->data_dir, gen, &err)))
			rc = error("-K: %s", buf_str(&err));
		if (rc)
			storage_gen_cleanup(c->data_dir, NULL);
		else
			info("-K: published generation %llu", (unsigned long long)gen);
	}
	free(dir);
	buf_free(&err);
	return cluster_agree(rc);
}

/* Rank 0 takes the writer lock (doc/DATABASE.md, "One writer") before it
 * touches anything: a second crawl would give back the claims of the first.
 * A crawl is refused at once; -D and -K wait for the job that holds it. */
static int take_writer_lock(const struct options *o, const struct conf *c, struct db *db,
			    struct writer **w)
{
	bool merge = o->verb == VERB_MERGE || o->ranks_only;
	double wait = o->lock_wait_set ? o->lock_wait : merge ? -1 : 0;
	const char *what = o->verb == VERB_MERGE ? "merge (-D)" : o->ranks_only ? "PageRank (-K)"
			   : o->seed_only ? "seed (--seed)" : "crawl";

	return writer_acquire(c, db, what, wait, w) ? -1 : 0;
}

/* Setup: every rank connects; rank 0 takes the writer lock, checks the
 * schema, seeds, applies -a and gives back the claims a killed earlier job
 * left.  Workers check the schema once rank 0 has created it.  Returns 0 or
 * -1 (agreed). */
static int job_setup(const struct options *o, const struct conf *c, struct db **db,
		     struct writer **w)
{
	/* -D and -K only merge or rank: no seeding, no claims given back. */
	bool crawl_off = o->verb == VERB_MERGE || o->ranks_only;
	int rc = 0, n;

	if (open_db(c, 30, db))
		rc = -1;
	else
		db_select_tag(*db, o->tag);
	/* A server lost during the job is waited for DBGrace in all, then
	 * the crawl stops (doc/DATABASE.md, "Connections"). */
	if (!rc)
		db_set_grace(*db, (double)c->db_grace);
	if (cluster_rank() == 0 && !rc)
		rc = take_writer_lock(o, c, *db, w);
	if (cluster_rank() == 0 && !rc && o->tag >= 0 && !crawl_off && !o->seed_only)
		info("--tag %ld: only URLs of Tag %ld are crawled", o->tag, o->tag);
	if (cluster_rank() == 0 && !rc) {
		rc = db_schema_check(*db, true);
		if (!rc)
			rc = db_writer_note(*db, writer_who(*w));
		if (!rc && !o->quick && !crawl_off) {
			n = db_seed_servers(*db, c);
			if (n < 0)
				rc = -1;
			else
				info("inserted %d new URL(s) from %zu Server line(s)", n, c->n_servers);
		}
		if (!rc && (o->n_urls || o->url_file)) {
			struct url_list l;

			rc = url_list_load(&l, o->urls, o->n_urls, o->url_file) ||
			     admin_expire(*db, &l, o->force) ? -1 : 0;
			url_list_free(&l);
		} else if (!rc && o->expire) {
			long k = db_expire_all(*db);

			if (k < 0)
				rc = -1;
			else
				info("-a: %ld URL(s) are due now", k);
		}
		if (!rc && !o->seed_only && !crawl_off &&
		    (db_release_all_claims(*db) < 0 || db_frontier_recount(*db) < 0))
			rc = -1;
	}
	if (cluster_agree(rc) < 0)
		return -1;
	if (cluster_rank() != 0)
		rc = db_schema_check(*db, false);
	rc = cluster_agree(rc);
	if (!rc)
		info("rank %d of %d connected and ready", cluster_rank(), cluster_size());
	return rc;
}

/* Recrawl by value: a page's PageRank in the live generation, 1 for the
 * mean ranked page (doc/CRAWL.md, "Recrawl by value"). */
static double ranked_value(void *arg, unsigned url_id)
{
	const struct ranks *r = arg;

	return ranks_get(r, url_id) * (double)ranks_meta(r)->n_nodes;
}

/* The live generation's ranks when a Server recrawls by value without a
 * PageValue, else NULL (close with ranks_close()). */
static struct ranks *value_ranks(const struct conf *c)
{
	struct ranks *r = NULL;
	bool want = c->defaults.recrawl_value && !(c->defaults.page_value > 0);
	char *dir;

	for (size_t i = 0; i < c->n_servers; i++)
		want |= c->servers[i].p.recrawl_value && !(c->servers[i].p.page_value > 0);
	if (!want)
		return NULL;
	dir = xasprintf("%s/index/current", c->data_dir);
	if (ranks_open(dir, &r, NULL) != 1)
		r = NULL;
	free(dir);
	return r;
}

/* --continuous (doc/CLUSTER.md, "Continuous crawl"): rounds of crawl ->
 * merge -> PageRank -> publish, each round bounded by PublishPages and
 * PublishInterval and over when nothing is due; between rounds the job
 * waits for the next due URL.  Each round's crawl closes its delta logs, so
 * its merge reads them all.  The first round always merges (what a killed
 * earlier job left is folded in), the others when they fetched a page.  A
 * stop ends the round's crawl (claims released, deltas closed), merges what
 * it fetched and ends the job; -n and -t bound the whole job. */
static int run_continuous(const struct options *o, const struct conf *c, struct db *db)
{
	struct cluster_job *job = cluster_job_begin(c);
	double deadline = o->max_seconds > 0 ? now_monotonic() + o->max_seconds : 0;
	long total = 0;
	int rc = 0, wake = CLUSTER_WAKE_DUE;
	struct rv_state *rv_keep = NULL; /* recrawl by value, from round to round */

	if (cluster_rank() == 0)
		info("continuous crawl: a generation every %ld page(s) or %ld s (PublishPages, "
		     "PublishInterval); mpseek-index -E stops it", c->publish_pages,
		     c->publish_interval);
	for (long round = 1; !rc && wake == CLUSTER_WAKE_DUE; round++) {
		struct crawl_opts co = {
			.max_docs = c->publish_pages,
			.force = o->force && !o->n_urls && !o->url_file,
			.max_seconds = (double)c->publish_interval, .rank = cluster_rank(),
			.rv_keep = &rv_keep,
		};
		struct cluster_round r;
		double left = deadline > 0 ? deadline - now_monotonic() : 0;

		if (o->max_docs > 0 && o->max_docs - total < co.max_docs)
			co.max_docs = o->max_docs - total;
		if (deadline > 0 && left < co.max_seconds)
			co.max_seconds = left > 1 ? left : 1;
		/* Recrawl by value reads the ranks of the generation live now. */
		struct ranks *vr = value_ranks(c);

		if (vr) {
			co.page_value = ranked_value;
			co.page_value_arg = vr;
		}
		rc = cluster_crawl_round(c, db, &co, &r);
		ranks_close(vr);
		total += r.pages;
		if (!rc && (round == 1 || r.pages > 0)) {
			if (cluster_rank() == 0)
				info("continuous crawl: round %ld fetched %ld page(s); publishing",
				     round, r.pages);
			rc = run_merge(o, c, db);
		}
		if (rc || r.stopped || (o->max_docs > 0 && total >= o->max_docs) ||
		    (deadline > 0 && now_monotonic() >= deadline))
			break;
		wake = cluster_wait_due(db, deadline);
		if (wake < 0)
			rc = -1;
	}
	if (cluster_rank() == 0 && !rc)
		info("continuous crawl: stopped after %ld page(s)", total);
	crawl_rv_free(rv_keep);
	cluster_job_end(c, job);
	return rc;
}

/* The job: setup -> crawl (cluster-coordinated) -> merge -> PageRank ->
 * publish.  Every step is agreed by all ranks before the next. */
static int run_index(const struct options *o, const struct conf *c)
{
	struct db *db = NULL;
	struct writer *w = NULL;
	int rc;

	rc = job_setup(o, c, &db, &w);
	if (!rc && o->continuous) {
		rc = run_continuous(o, c, db);
		db_close(db);
		writer_release(w);
		return rc;
	}
	if (!rc && !o->seed_only && !o->ranks_only && o->verb != VERB_MERGE) {
		struct crawl_opts co = {
			/* -m -u: the selected URLs lost their validators and MD5
			 * (admin_expire()); the others are fetched as usual. */
			.max_docs = o->max_docs, .force = o->force && !o->n_urls && !o->url_file,
			.max_seconds = o->max_seconds,
			.rank = cluster_rank(),
		};
		struct ranks *vr = value_ranks(c);

		if (vr) {
			co.page_value = ranked_value;
			co.page_value_arg = vr;
		}
		rc = cluster_crawl(c, db, &co);
		ranks_close(vr);
	}
	/* Then all ranks merge what they wrote and rank the pages (-D: only
	 * that); -K and --pagerank-dir: PageRank alone. */
	if (!rc && !o->seed_only)
		rc = o->ranks_only || o->pr_dir ? run_ranks(o, c, db) : run_merge(o, c, db);
	db_close(db);
	writer_release(w);
	return rc;
}

/* Start MPI and agree that every rank could load its config (and start its
 * embedded server): the lowest rank that could not prints why, the others
 * end quietly, all through MPI_Finalize, so that mpirun shows the message
 * once and no MPI_Abort banner.  Returns 0 to go on, else the exit code. */
static int start_cluster(int *argc, char ***argv, const struct buf *conf_err, bool failed)
{
	int first;

	if (cluster_init(argc, argv)) {
		if (conf_err)
			fprintf(stderr, "mpseek-index: %s\n", buf_str(conf_err));
		return conf_err ? 2 : 1;
	}
	first = cluster_first_failed(conf_err || failed);
	if (first < 0)
		return 0;
	if (first == cluster_rank() && conf_err)
		fprintf(stderr, "mpseek-index: %s\n", buf_str(conf_err));
	cluster_finalize();
	return conf_err ? 2 : 1;
}

int main(int argc, char **argv)
{
	struct options o;
	struct conf *c = NULL;
	struct buf err = BUF_INIT(4096);
	bool mpi, failed = false;
	int rc;

	log_set_prog("mpseek-index");
	umask_private(); /* DataDir is not for other users (doc/ADMIN.md, "Security") */
	rc = parse_options(argc, argv, &o);
	if (rc) {
		free(o.urls);
		return rc == 1 ? 0 : 2;
	}
	mpi = o.verb == VERB_INDEX || o.verb == VERB_MERGE || o.verb == VERB_PR_EDGES;
	if (conf_load(o.config, CONF_INDEXER, &c, &err)) {
		if (mpi) {
			rc = start_cluster(&argc, &argv, &err, true);
			buf_free(&err);
			free(o.urls);
			return rc;
		}
		fprintf(stderr, "mpseek-index: %s\n", buf_str(&err));
		buf_free(&err);
		free(o.urls);
		return 2;
	}
	buf_free(&err);
	log_set_level(o.log_level >= 0 ? (enum log_level)o.log_level : (enum log_level)c->debug_level);
	if (!mpi) {
		rc = run_local(&o, c);
		conf_free(c);
		free(o.urls);
		return rc == 0 ? 0 : 1;
	}
	/* The embedded server is started before MPI_Init: it forks. */
	if (o.verb != VERB_PR_EDGES && !c->db.set &&
	    dbserver_ensure(c->data_dir, c->db_listen, c->db_pool_mib, db_name(c)))
		failed = true;
	rc = start_cluster(&argc, &argv, NULL, failed);
	if (rc) {
		conf_free(c);
		free(o.urls);
		return rc;
	}
	if (o.verb == VERB_PR_EDGES)
		rc = pagerank_edges(c, o.pr_file, stdout, &o.pr);
	else
		rc = run_index(&o, c);
	cluster_finalize();
	conf_free(c);
	free(o.urls);
	return rc == 0 ? 0 : 1;
}
