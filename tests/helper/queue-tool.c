/* queue-tool.c - the work queue of src/store/db_claim.c from the shell, for
 * tests/integration/frontier.sh and tag.sh: each verb is one call of
 * include/db.h.
 *
 *   queue-tool CONF pick RANK N [TAG]             site_ids, one a line (TAG:
 *                                                 the pick of --tag TAG)
 *   queue-tool CONF claim RANK N LEASE SITE_ID    url_ids claimed, one a line
 *   queue-tool CONF links SITE_ID URL...          new URLs of a site; prints
 *                                                 how many rows were new
 *   queue-tool CONF store RANK NEXT URL_ID...     outcomes (status 200, no
 *                                                 document) due again at NEXT
 *   queue-tool CONF release RANK                  every claim of RANK back
 *   queue-tool CONF release-after RANK SITE_ID S  the site's lease back, S
 *                                                 seconds of politeness owed
 *   queue-tool CONF recount                       db_frontier_recount()
 *   queue-tool CONF start                         what a crawl job's master does
 *                                                 first: db_release_all_claims(),
 *                                                 db_frontier_recount()
 *   queue-tool CONF expire                        db_expire_all() (-a)
 * Exit 0, or 1 after the library's error message (2: usage).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "util.h"

static long arg(int argc, char **argv, int i)
{
	long v = 0;

	if (i >= argc || parse_long(argv[i], 0, 4294967295L, &v)) {
		fprintf(stderr, "queue-tool: argument %d: a number, please\n", i);
		exit(2);
	}
	return v;
}

static int do_claim(struct db *db, int argc, char **argv)
{
	int n = (int)arg(argc, argv, 4), got;
	struct db_url *u = xcalloc((size_t)(n ? n : 1), sizeof(*u));

	got = db_claim_site_urls(db, (int)arg(argc, argv, 3), (unsigned)arg(argc, argv, 6), n,
				 arg(argc, argv, 5), u);
	for (int i = 0; i < got; i++)
		printf("%u\n", u[i].url_id);
	free(u);
	return got < 0;
}

static int do_pick(struct db *db, int argc, char **argv)
{
	int n = (int)arg(argc, argv, 4), got;
	unsigned *ids = xcalloc((size_t)(n ? n : 1), sizeof(*ids));

	if (argc > 5)
		db_select_tag(db, arg(argc, argv, 5));
	got = db_pick_sites(db, (int)arg(argc, argv, 3), n, ids);
	for (int i = 0; i < got; i++)
		printf("%u\n", ids[i]);
	free(ids);
	return got < 0;
}

static int do_links(struct db *db, int argc, char **argv)
{
	size_t n = argc > 4 ? (size_t)(argc - 4) : 0;
	struct db_link *l = xcalloc(n ? n : 1, sizeof(*l));
	long added;

	for (size_t i = 0; i < n; i++) {
		l[i].url = argv[4 + i];
		l[i].site_id = (unsigned)arg(argc, argv, 3);
		l[i].hops = 1;
	}
	added = db_add_links(db, l, n);
	printf("%ld\n", added);
	free(l);
	return added < 0;
}

static int do_store(struct db *db, int argc, char **argv)
{
	size_t n = argc > 5 ? (size_t)(argc - 5) : 0, lost = 0;
	struct db_done *d = xcalloc(n ? n : 1, sizeof(*d));
	int rc;

	for (size_t i = 0; i < n; i++) {
		d[i].url_id = (unsigned)arg(argc, argv, 5 + (int)i);
		d[i].status = 200;
		d[i].crc = d[i].last_modified = d[i].etag = "";
		d[i].last_index_time = 1;
		d[i].next_index_time = arg(argc, argv, 4);
		d[i].origin = 1;
		d[i].doc_op = DB_DOC_KEEP;
	}
	rc = db_store_done(db, (int)arg(argc, argv, 3), d, n, &lost);
	printf("%zu\n", lost);
	free(d);
	return rc != 0;
}

int main(int argc, char **argv)
{
	struct buf err = BUF_INIT(4096);
	struct conf *c = NULL;
	struct db *db = NULL;
	char *sock = NULL;
	const char *verb;
	int rc = 1;

	log_set_prog("queue-tool");
	if (argc < 3) {
		fprintf(stderr, "usage: queue-tool CONF VERB ARGS... (see the source)\n");
		return 2;
	}
	verb = argv[2];
	if (conf_load(argv[1], CONF_INDEXER, &c, &err)) {
		fprintf(stderr, "queue-tool: %s\n", buf_str(&err));
		goto out;
	}
	sock = dbserver_socket_path(c->data_dir);
	if (db_open(c, sock, 30, &db) || db_schema_check(db, false))
		goto out;
	if (!strcmp(verb, "pick"))
		rc = do_pick(db, argc, argv);
	else if (!strcmp(verb, "claim"))
		rc = do_claim(db, argc, argv);
	else if (!strcmp(verb, "links"))
		rc = do_links(db, argc, argv);
	else if (!strcmp(verb, "store"))
		rc = do_store(db, argc, argv);
	else if (!strcmp(verb, "release"))
		rc = db_release_claims(db, (int)arg(argc, argv, 3)) < 0;
	else if (!strcmp(verb, "release-after"))
		rc = db_release_site_after(db, (int)arg(argc, argv, 3),
					   (unsigned)arg(argc, argv, 4),
					   (double)arg(argc, argv, 5)) != 0;
	else if (!strcmp(verb, "recount"))
		rc = db_frontier_recount(db) != 0;
	else if (!strcmp(verb, "start"))
		rc = db_release_all_claims(db) < 0 || db_frontier_recount(db) != 0;
	else if (!strcmp(verb, "expire"))
		rc = db_expire_all(db) < 0;
	else {
		fprintf(stderr, "queue-tool: unknown verb %s\n", verb);
		rc = 2;
	}
out:
	db_close(db);
	free(sock);
	conf_free(c);
	buf_free(&err);
	return rc;
}
