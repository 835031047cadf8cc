#!/bin/bash
# db.sh - the database layer (src/store/db*.c, src/store/dbserver.c) end to end.
#
# Against a private MariaDB server (lib.sh's mdb_start, independent of the
# code under test): the schema is created once and rechecked idempotently; a
# wrong schema version, an interrupted creation, a missing table and a
# database of someone else's tables are refused with one clear message;
# seeding inserts the Server URLs and robots.txt once; `-S` shows the status
# and index_status tables; the claim query reads its index (EXPLAIN: no full
# scan, no filesort); concurrent claimers never get the same URL nor the same
# site; expired leases come back; a batch of outcomes stores the rows the
# rank still holds and counts the others lost, strings escaped; a restarted
# server is reconnected to; a missing server is one message and a clean exit.
#
# Then the embedded default (no DBAddr): --db-start creates and starts it
# (once, even when two start it at the same time), --db-status, a crawl run
# seeds it, kill -9 of mariadbd is recovered by the next run, --db-stop
# stops it; a too-long socket path is refused by name; and the same works
# for an ordinary user when the tests run as root.
#
# The claim tests drive src/store/db_claim.c through a small C program
# compiled here against libmpseek.a (no mpseek program exposes claims yet).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"

mdb_start
T=$(tmp_dir)

# Run mpseek-index with a time limit; output in $out, status in $rc.  A run
# without an option first seeds (--seed, no crawl: the Server URLs of these
# tests do not answer) and initialises MPI: no leak check there (lib.sh).
run() {
	case $1 in
	-*) out=$(timeout 180 "$idx" "$@" 2>&1); rc=$? ;;
	*) out=$(mpi_no_leak_check timeout 180 "$idx" --seed "$@" 2>&1); rc=$? ;;
	esac
}
# Lines of $out matching an extended regex.
has() { grep -qE -- "$1" <<<"$out" && echo 1; }
# Error lines of $out (what the logger marks "error:").
errors() { grep -c ' error: ' <<<"$out"; }

# --- schema creation and seeding -------------------------------------------
write_conf "$T/a.conf" mpa \
	"Server http://127.0.0.1:18090/" \
	"Server http://Example.COM:80/docs/#frag" \
	"Robots no" \
	"Server http://127.0.0.1:18092/"
run "$T/a.conf"
tap_is "$rc" 0 "first run exits 0"
tap_ok "$(has 'created the mpseek schema \(version 4\) in database mpa')" "first run creates the schema"
tap_ok "$(has 'inserted 5 new URL')" "first run inserts 3 Server URLs + 2 robots.txt (Robots no for the last)"
tap_is "$(mdb_sql "SELECT value FROM mpseek_meta WHERE name = 'schema_version'" mpa)" 4 \
	"mpseek_meta holds schema_version 4"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'mpa'")" 28 \
	"28 tables (urlword, urlwords00..15, anchors, wordurl, sites, robots, stat, spaces, subsets, wordsite, recrawl, recrawl_limits, mpseek_meta)"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'mpa' AND engine <> 'InnoDB'")" 0 \
	"every table is InnoDB"
tap_is "$(mdb_sql "SELECT url FROM urlword ORDER BY url_id" mpa)" \
"http://127.0.0.1:18090/robots.txt
http://127.0.0.1:18090/
http://example.com/robots.txt
http://example.com/docs/
http://127.0.0.1:18092/" "Server URLs normalised, each after its site's robots.txt"
tap_is "$(mdb_sql "SELECT site FROM sites ORDER BY site_id" mpa)" \
"http://127.0.0.1:18090/
http://example.com/
http://127.0.0.1:18092/" "one sites row per site"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM urlword u JOIN sites s USING (site_id)
	WHERE u.index_status = 0 AND u.hops = 0 AND u.next_index_time = 0 AND u.status = 0
	AND u.url LIKE CONCAT(s.site, '%')" mpa)" 5 "every URL: index_status 0, hops 0, due, on its own site"

run "$T/a.conf"
tap_is "$rc" 0 "second run exits 0"
tap_ok "$(has 'inserted 0 new URL')" "second run inserts nothing"
tap_ok "$([ -z "$(has 'created the mpseek schema')" ] && echo 1)" "second run does not create the schema again"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM urlword" mpa)/$(mdb_sql "SELECT COUNT(*) FROM sites" mpa)" 5/3 \
	"still 5 URLs and 3 sites"

# --- -S -------------------------------------------------------------------
run -S "$T/a.conf"
tap_is "$rc" 0 "-S exits 0"
tap_ok "$(has '^ +0 +5 +5 Not indexed yet$')" "-S: status 0, 5 expired of 5, 'Not indexed yet'"
tap_ok "$(has '^ +Total +5 +5$')" "-S: total line"
tap_ok "$(has '^ +0 not indexed +5 +5$')" "-S: index_status 0 line"
tap_ok "$(has '^ +2 being indexed +0 +0$')" "-S: index_status 2 line"
tap_ok "$(has 'Sites: 3 \(0 leased\)')" "-S: number of sites"
mdb_sql "UPDATE urlword SET status = 200, index_status = 1, last_index_time = UNIX_TIMESTAMP(),
	next_index_time = UNIX_TIMESTAMP() + 3600 WHERE url LIKE '%/robots.txt';
	UPDATE urlword SET status = 404, index_status = 1, last_index_time = UNIX_TIMESTAMP()
	WHERE url = 'http://127.0.0.1:18092/'" mpa
run -S "$T/a.conf"
tap_ok "$(has '^ +200 +0 +2 OK$')" "-S: 200 OK, 0 expired of 2"
tap_ok "$(has '^ +404 +1 +1 Not found$')" "-S: 404 Not found, 1 expired of 1"
tap_ok "$(has '^ +1 indexed +1 +3$')" "-S: index_status 1 (indexed), 1 expired of 3"

# --- the claim driver ---------------------------------------------------------
drv=$T/claim-driver
cat >"$T/claim-driver.c" <<'EOC'
/* claim-driver - drive db.c's claim queue from the shell (tests/integration/db.sh).
 *   claim-driver CONF claim RANK N LEASE [SITE_ID]  one claim; prints url_id site_id url
 *   claim-driver CONF loop RANK N LEASE GOFILE      once connected, create GOFILE.RANK;
 *                                                   when GOFILE exists, claim until
 *                                                   nothing is left
 *   claim-driver CONF twice RANK N LEASE PAUSE      claim, print "--", sleep, claim
 *   claim-driver CONF store RANK ETAG URL_ID...     stores status 200, crc "c<url_id>",
 *                                                   the ETag as given and a document
 *                                                   (title "t<url_id>", words 00 27 5C
 *                                                   and the url_id) for each URL in one
 *                                                   batch; prints the number lost
 *   claim-driver CONF release RANK                  prints the number released
 *   claim-driver CONF release-site RANK SITE_ID     gives back one site lease
 *   claim-driver CONF explain                       EXPLAIN of the claim SELECT */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "buf.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "util.h"

static long arg(char **argv, int i, int argc)
{
	long v = 0;
	if (i >= argc || parse_long(argv[i], 0, 1000000, &v)) {
		fprintf(stderr, "claim-driver: bad argument %d\n", i);
		exit(2);
	}
	return v;
}

static int claim_print(struct db *db, int rank, int n, long lease, unsigned site, struct db_url *u)
{
	int got = site ? db_claim_site_urls(db, rank, site, n, lease, u)
		       : db_claim_urls(db, rank, n, lease, u);
	for (int i = 0; i < got; i++)
		printf("%u\t%u\t%s\n", u[i].url_id, u[i].site_id, u[i].url);
	fflush(stdout);
	return got;
}

int main(int argc, char **argv)
{
	struct conf *c = NULL;
	struct db *db = NULL;
	struct buf err = BUF_INIT(4096);
	struct db_url *u = NULL;
	char *sock = NULL;
	int rc = 1, n, rank;
	long lease;

	log_set_prog("claim-driver");
	if (argc < 3)
		return 2;
	if (conf_load(argv[1], CONF_INDEXER, &c, &err)) {
		fprintf(stderr, "%s\n", buf_str(&err));
		goto out;
	}
	sock = dbserver_socket_path(c->data_dir); /* used when there is no DBAddr */
	if (db_open(c, sock, 30, &db) || db_schema_check(db, false))
		goto out;
	if (!strcmp(argv[2], "explain")) {
		rc = db_explain_claim(db, stdout) ? 1 : 0;
		goto out;
	}
	rank = (int)arg(argv, 3, argc);
	if (!strcmp(argv[2], "release-site")) {
		rc = db_release_site(db, rank, (unsigned)arg(argv, 4, argc)) ? 1 : 0;
		goto out;
	}
	if (!strcmp(argv[2], "store") && argc > 5) {
		size_t k = (size_t)(argc - 5), lost = 0;
		struct db_done *d = xcalloc(k, sizeof(*d));
		struct db_doc *doc = xcalloc(k, sizeof(*doc));
		char (*crc)[16] = xcalloc(k, sizeof(*crc));
		char (*title)[16] = xcalloc(k, sizeof(*title));
		unsigned char (*words)[8] = xcalloc(k, sizeof(*words));

		for (size_t i = 0; i < k; i++) {
			d[i].url_id = (unsigned)arg(argv, 5 + (int)i, argc);
			snprintf(crc[i], sizeof(crc[i]), "c%u", d[i].url_id);
			d[i].status = 200;
			d[i].crc = crc[i];
			d[i].last_modified = "";
			d[i].etag = argv[4];
			d[i].last_index_time = 1000 + (long)i;
			d[i].next_index_time = 2000 + (long)i;
			d[i].origin = 1;
			snprintf(title[i], sizeof(title[i]), "t%u", d[i].url_id);
			words[i][0] = 0x00;
			words[i][1] = 0x27;
			words[i][2] = 0x5c;
			memcpy(&words[i][3], &d[i].url_id, 4);
			doc[i].title = title[i];
			doc[i].words = words[i];
			doc[i].words_len = 7;
			doc[i].wordcount = d[i].url_id;
			d[i].doc = &doc[i];
			d[i].doc_op = DB_DOC_PUT;
		}
		rc = db_store_done(db, rank, d, k, &lost) ? 1 : 0;
		printf("%zu\n", lost);
		free(d);
		free(doc);
		free(crc);
		free(title);
		free(words);
		goto out;
	}
	if (!strcmp(argv[2], "release")) {
		long r = db_release_claims(db, rank);
		printf("%ld\n", r);
		rc = r < 0;
		goto out;
	}
	n = (int)arg(argv, 4, argc);
	lease = arg(argv, 5, argc);
	u = xcalloc((size_t)n, sizeof(*u));
	if (!strcmp(argv[2], "claim")) {
		rc = claim_print(db, rank, n, lease, argc > 6 ? (unsigned)arg(argv, 6, argc) : 0, u) < 0;
	} else if (!strcmp(argv[2], "loop")) {
		int got, empty = 0;
		if (argc > 6) {
			/* Say "connected" (GOFILE.RANK), then wait for the start. */
			char *ready = xasprintf("%s.%d", argv[6], rank);
			FILE *f = fopen(ready, "w");
			if (f)
				fclose(f);
			free(ready);
			while (access(argv[6], F_OK))
				usleep(10000);
		}
		/* Patient: on a loaded machine a claimer may wake up after
		 * another has leased every site; it gets sites as they are
		 * released (ran out after 0.6 s once under ASan). */
		while (empty < 25) {
			got = claim_print(db, rank, n, lease, 0, u);
			if (got < 0)
				goto out;
			empty = got ? 0 : empty + 1;
			/* A breath after each claim: on a loaded machine the
			 * first claimer to wake took every site before the
			 * others were scheduled (seen once in CI). */
			usleep(got ? 2000 : 200000);
		}
		rc = 0;
	} else if (!strcmp(argv[2], "twice")) {
		if (claim_print(db, rank, n, lease, 0, u) < 0)
			goto out;
		printf("--\n");
		fflush(stdout);
		sleep((unsigned)arg(argv, 6, argc));
		rc = claim_print(db, rank, n, lease, 0, u) < 0;
	}
out:
	free(u);
	free(sock);
	db_close(db);
	conf_free(c);
	buf_free(&err);
	return rc;
}
EOC
mkvars=$(printf 'pv:\n\t@echo "$(CC)|$(SAN_CFLAGS)|$(SAN_LDFLAGS)|$(DEP_LIBS)"\n' |
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$builddir" -f Makefile -f - pv 2>/dev/null)
IFS='|' read -r dcc dsan dsanld dlibs <<<"$mkvars"
# shellcheck disable=SC2086
if [ -n "$dcc" ] && $dcc -std=c11 -D_GNU_SOURCE $dsan -I"$builddir" -I"$srcdir/include" \
	-o "$drv" "$T/claim-driver.c" "$builddir/libmpseek.a" $dsanld $dlibs >"$T/cc.log" 2>&1; then
	tap_ok 1 "claim driver compiled against libmpseek.a"
else
	tap_ok "" "claim driver compiled against libmpseek.a"
	tap_diag "$(cat "$T/cc.log")"
fi

# A work queue of 40 sites x 50 URLs (plus the 5 seeded ones), all due.
mdb_sql "UPDATE urlword SET index_status = 0, status = 0, next_index_time = 0, last_index_time = 0;
	INSERT INTO sites (site) SELECT CONCAT('http://h', seq, '.test/') FROM seq_1_to_40;
	CREATE TEMPORARY TABLE hs AS SELECT site_id, site FROM sites WHERE site LIKE 'http://h%.test/';
	INSERT INTO urlword (site_id, url, next_index_time)
		SELECT s.site_id, CONCAT(s.site, 'p', q.seq), q.seq % 7
		FROM hs s JOIN seq_1_to_50 q;
	ANALYZE TABLE urlword, sites" mpa >/dev/null
total=$(mdb_sql "SELECT COUNT(*) FROM urlword" mpa)
tap_is "$total" 2005 "work queue of 2005 URLs"

# EXPLAIN of the claim SELECT: the text comes from src/store/db_claim.c
# itself, through the preprocessor, with the placeholders filled in.
sel=$({ sed -n '/BEGIN CLAIM SELECT/,/END CLAIM SELECT/p' "$srcdir/src/store/db_claim.c"; echo CLAIM_SELECT; } |
	${dcc:-cc} -E -P -x c - | tr -d '\n' | sed 's/"[[:space:]]*"//g; s/^[[:space:]]*"//; s/"[[:space:]]*$//')
tap_ok "$(grep -q 'FOR UPDATE SKIP LOCKED$' <<<"$sel" && echo 1)" "claim SELECT text extracted from src/store/db_claim.c"
now=$(date +%s)
q=$(awk -v now="$now" '{ n = split($0, p, "?"); v[1] = now; v[2] = 3; v[3] = now; v[4] = 100;
	s = p[1]; for (i = 2; i <= n; i++) s = s v[i - 1] p[i]; print s }' <<<"$sel")
explain=$(mdb_sql "EXPLAIN $q" mpa 2>&1)
tap_diag "EXPLAIN (mariadb client):" "$explain"
tap_ok "$(awk -F'\t' '$3 == "u" && $4 == "range" && $6 == "claim"' <<<"$explain" | grep -q . && echo 1)" \
	"EXPLAIN: urlword read as a range of index claim"
tap_ok "$(awk -F'\t' '$3 == "s" && $4 == "eq_ref" && $6 == "PRIMARY"' <<<"$explain" | grep -q . && echo 1)" \
	"EXPLAIN: sites looked up by primary key"
tap_ok "$([ -n "$explain" ] && ! grep -qi 'filesort\|temporary' <<<"$explain" && echo 1)" \
	"EXPLAIN: no filesort, no temporary table"
tap_ok "$([ -n "$explain" ] && ! awk -F'\t' '$4 == "ALL"' <<<"$explain" | grep -q . && echo 1)" \
	"EXPLAIN: no full table scan"
out=$("$drv" "$T/a.conf" explain 2>&1); rc=$?
tap_is "$rc" 0 "db_explain_claim() works"
tap_ok "$(awk -F'\t' '$3 == "u" && $4 == "range" && $6 == "claim" && $10 !~ /filesort/' <<<"$out" | grep -q . && echo 1)" \
	"db_explain_claim(): range on claim, no filesort"

# Four claimers at once (connected first, then let go together, in small
# batches): every URL is handed out exactly once, and every site goes to one
# rank only.
pids=""
for r in 1 2 3 4; do
	"$drv" "$T/a.conf" loop "$r" 5 600 "$T/go" >"$T/claims.$r" 2>"$T/claims.$r.err" &
	pids="$pids $!"
done
for _ in $(seq 600); do [ -f "$T/go.1" ] && [ -f "$T/go.2" ] && [ -f "$T/go.3" ] && [ -f "$T/go.4" ] && break; sleep 0.1; done
touch "$T/go"
for p in $pids; do wait "$p"; done
tap_is "$(cat "$T"/claims.[1-4].err)" "" "concurrent claimers report no errors"
tap_is "$(cat "$T"/claims.[1-4] | wc -l)" 2005 "concurrent claimers got 2005 URLs in all"
tap_is "$(cut -f1 "$T"/claims.[1-4] | sort | uniq -d | wc -l)" 0 "no URL was handed out twice"
tap_is "$(for r in 1 2 3 4; do cut -f2 "$T/claims.$r" | sort -u; done | sort | uniq -d | wc -l)" 0 \
	"no site was crawled by two ranks"
busy=0 r1=""
for r in 1 2 3 4; do
	[ -s "$T/claims.$r" ] && { busy=$((busy + 1)); r1=${r1:-$r}; }
done
tap_ok "$([ "$busy" -ge 2 ] && echo 1)" "the work was shared ($busy of 4 ranks got URLs)"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM urlword WHERE index_status = 2 AND claim_rank BETWEEN 1 AND 4
	AND lease_until = next_index_time AND lease_until > UNIX_TIMESTAMP()" mpa)" 2005 \
	"every URL is index_status 2 with its rank and lease"
out=$("$drv" "$T/a.conf" claim 9 10 600 2>&1)
tap_is "$out" "" "nothing left to claim while the leases hold"
run -S "$T/a.conf"
tap_ok "$(has '^ +2 being indexed +0 +2005$')" "-S: 2005 being indexed"
tap_ok "$(has "^ +$r1 +[0-9]+ +0 +[0-9]+  [0-9]+")" "-S: claims of rank $r1 with lease times"
tap_ok "$(has 'Sites: 43 \(43 leased\)')" "-S: 43 sites, all leased"

# Releasing gives a rank's URLs back; the sites it held become free.
n1=$(wc -l <"$T/claims.$r1")
out=$("$drv" "$T/a.conf" release "$r1" 2>/dev/null)
tap_is "$out" "$n1" "release gives back rank $r1's $n1 URLs"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM urlword WHERE claim_rank = $r1 OR (index_status = 2 AND claim_rank = -1)" mpa)" 0 \
	"no claim of rank $r1 left"
out=$("$drv" "$T/a.conf" claim 5 5000 600 2>&1)
tap_is "$(wc -l <<<"$out")" "$n1" "another rank can claim them at once"

# A site-affine claim takes URLs of one site only.
reset="UPDATE urlword SET index_status = 0, claim_rank = -1, lease_until = 0, next_index_time = 0;
	UPDATE sites SET claim_rank = -1, lease_until = 0"
mdb_sql "$reset" mpa
site=$(mdb_sql "SELECT site_id FROM sites WHERE site = 'http://h7.test/'" mpa)
out=$("$drv" "$T/a.conf" claim 8 10 600 "$site" 2>&1)
tap_is "$(cut -f2 <<<"$out" | sort -u)" "$site" "site claim: URLs of that site only"
tap_is "$(wc -l <<<"$out")" 10 "site claim: as many as asked"
out=$("$drv" "$T/a.conf" claim 9 10 600 "$site" 2>&1)
tap_is "$out" "" "site claim: nothing for another rank while the site is leased"
"$drv" "$T/a.conf" release-site 9 "$site" 2>/dev/null
out=$("$drv" "$T/a.conf" claim 9 10 600 "$site" 2>&1)
tap_is "$out" "" "site claim: a rank cannot give back a lease it does not hold"
"$drv" "$T/a.conf" release-site 8 "$site" 2>/dev/null
out=$("$drv" "$T/a.conf" claim 9 10 600 "$site" 2>&1)
tap_is "$(wc -l <<<"$out")" 10 "site claim: once the holder gives the site back, another rank gets it"

# An expired lease makes the URLs claimable again, by any rank (a crash).
# Only the first 30 URLs are due, so the second claim sees just those.
mdb_sql "$reset; UPDATE urlword SET next_index_time = UNIX_TIMESTAMP() + 86400;
	UPDATE urlword SET next_index_time = 0 ORDER BY url_id LIMIT 30" mpa
out=$("$drv" "$T/a.conf" claim 6 100 1 2>&1)
first=$(cut -f1 <<<"$out" | sort -n | tr '\n' ' ')
tap_is "$(wc -w <<<"$first")" 30 "rank 6 claims the 30 due URLs with a 1 s lease"
sleep 2.2
out=$("$drv" "$T/a.conf" claim 7 100 600 2>&1)
tap_is "$(cut -f1 <<<"$out" | sort -n | tr '\n' ' ')" "$first" "URLs of an expired lease go to the next claimer"
tap_is "$(mdb_sql "SELECT DISTINCT claim_rank FROM urlword WHERE index_status = 2" mpa)" 7 "now held by rank 7"

# The server restarts between two claims: the driver reconnects by itself.
mdb_sql "$reset" mpa
"$drv" "$T/a.conf" twice 2 5 600 3 >"$T/twice.out" 2>"$T/twice.err" &
dpid=$!
for _ in $(seq 100); do grep -q -- '^--$' "$T/twice.out" 2>/dev/null && break; sleep 0.1; done
mdb_restart
wait "$dpid"; rc=$?
tap_is "$rc" 0 "claims across a server restart: exit 0"
tap_is "$(grep -vc -- '^--$' "$T/twice.out")" 10 "both claims got their URLs"
tap_ok "$(grep -q 'reconnecting' "$T/twice.err" && echo 1)" "the lost connection was logged and re-made"

# Storing outcomes: one batch writes the rows the rank still holds and
# counts the others lost (their lease went to another rank); strings from
# outside (an ETag with quotes and a backslash) arrive as they were.
mdb_sql "$reset" mpa
ids=$("$drv" "$T/a.conf" claim 3 40 600 2>/dev/null | cut -f1 | tr '\n' ' ')
set -- $ids
tap_is "$#" 40 "store: rank 3 claims 40 URLs"
mdb_sql "UPDATE urlword SET claim_rank = 4 WHERE url_id IN ($2, $5)" mpa   # taken over
etag="W/\"x'y\\z\""
out=$("$drv" "$T/a.conf" store 3 "$etag" $ids 2>"$T/store.err")
tap_is "$out" 2 "store: a batch of 40 with 2 taken over: 2 lost"
tap_ok "$(grep -q 'warning: 2 URL(s) were claimed by another rank' "$T/store.err" && echo 1)" \
	"store: ... and says so"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM urlword WHERE url_id IN (${ids// /,}0) AND index_status = 1
	AND claim_rank = -1 AND status = 200 AND crc = CONCAT('c', url_id) AND origin = 1
	AND next_index_time - last_index_time = 1000" mpa)" 38 \
	"store: the 38 held rows are stored, each with its own values"
# Their documents, 38 over 16 tables (written several rows per INSERT).
docs_q=""
for i in $(seq -w 0 15); do
	docs_q="$docs_q${docs_q:+ UNION ALL }SELECT url_id, title, words, wordcount FROM urlwords$i"
done
tap_is "$(mdb_sql "SELECT COUNT(*) FROM ($docs_q) d WHERE url_id IN (${ids// /,}0) AND
	title = CONCAT('t', url_id) AND wordcount = url_id AND LENGTH(words) = 7 AND
	LEFT(HEX(words), 6) = '00275C' AND CONV(CONCAT(SUBSTR(HEX(words), 13, 2), SUBSTR(HEX(words), 11, 2),
	SUBSTR(HEX(words), 9, 2), SUBSTR(HEX(words), 7, 2)), 16, 10) = url_id" mpa)" 38 \
	"store: the 38 documents, each in its own row with its own title and bytes"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM ($docs_q) d WHERE url_id IN ($2, $5)" mpa)" 0 \
	"store: no document for the 2 taken over"
tap_is "$(mdb_sql "SELECT DISTINCT HEX(etag) FROM urlword WHERE url_id IN (${ids// /,}0) AND index_status = 1" mpa)" \
	"$(printf '%s' "$etag" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" "store: the ETag $etag stored byte for byte"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM urlword WHERE url_id IN ($2, $5) AND index_status = 2
	AND claim_rank = 4 AND status = 0" mpa)" 2 "store: the 2 taken over are left to their new holder"
out=$("$drv" "$T/a.conf" store 4 - "$2" 2>"$T/store.err")
tap_is "$out" 0 "store: a batch of one, by the new holder: nothing lost"
tap_is "$(mdb_sql "SELECT CONCAT(index_status, ' ', etag) FROM urlword WHERE url_id = $2" mpa)" "1 -" \
	"store: ... and its row is stored"

# --- refusing databases that are not right ----------------------------------
mdb_sql "UPDATE mpseek_meta SET value = '0' WHERE name = 'schema_version'" mpa
run -S "$T/a.conf"
tap_is "$rc" 1 "-S on a wrong schema version exits 1"
tap_ok "$(has 'database mpa has schema version 0, this mpseek needs 4: run the upgrade scripts in sql/ \(see sql/README\)')" \
	"the wrong version is named with what to do: $(tail -1 <<<"$out")"
tap_is "$(errors)" 1 "... in one message"
run "$T/a.conf"
tap_is "$rc" 1 "a crawl run refuses the wrong version too"
mdb_sql "UPDATE mpseek_meta SET value = '5' WHERE name = 'schema_version'" mpa
run -S "$T/a.conf"
tap_ok "$([ "$rc" = 1 ] && has 'newer mpseek')" "a newer schema version is refused as newer"

mdb_sql "DELETE FROM mpseek_meta" mpa
run -S "$T/a.conf"
tap_ok "$([ "$rc" = 1 ] && has 'creation of the schema was interrupted')" "-S: an interrupted creation is named"
run "$T/a.conf"
tap_ok "$([ "$rc" = 0 ] && has 'completed the mpseek schema')" "a crawl run completes an interrupted creation"
mdb_sql "DROP TABLE urlwords07" mpa
run -S "$T/a.conf"
tap_ok "$([ "$rc" = 1 ] && has 'lacks table urlwords07')" "-S: a missing table is named"
run "$T/a.conf"
tap_ok "$([ "$rc" = 0 ] && [ "$(mdb_sql "SHOW TABLES LIKE 'urlwords07'" mpa)" = urlwords07 ] && echo 1)" \
	"a crawl run recreates the missing table"

mdb_sql "CREATE DATABASE foreign_db; CREATE TABLE foreign_db.customers (id int)"
write_conf "$T/f.conf" foreign_db "Server http://127.0.0.1:18090/"
run "$T/f.conf"
tap_is "$rc" 1 "a database with foreign tables: exit 1"
tap_ok "$(has 'database foreign_db is not an mpseek database')" "... with a clear message: $(tail -1 <<<"$out")"
tap_is "$(mdb_sql "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'foreign_db'")" 1 \
	"... and nothing was created in it"

write_conf "$T/e.conf" mpempty "Server http://127.0.0.1:18090/"
run -S "$T/e.conf"
tap_ok "$([ "$rc" = 1 ] && has 'database mpempty has no mpseek tables yet: run mpseek-index')" \
	"-S on an empty database says how to create the schema"

# --- no server --------------------------------------------------------------
printf 'DBAddr mysql://root@localhost/mpseek/?socket=%s/none.sock\nDataDir %s/none\n' "$T" "$T" >"$T/n.conf"
t0=$(date +%s)
run -S "$T/n.conf"
tap_is "$rc" 1 "-S with no server: exit 1"
tap_ok "$(has "cannot connect to MySQL at $T/none.sock: .*is the server running")" \
	"-S with no server: the address and the reason: $(tail -1 <<<"$out")"
tap_is "$(grep -c . <<<"$out")" 1 "-S with no server: one line"
run "$T/n.conf"
tap_ok "$([ "$rc" = 1 ] && has 'cannot connect to MySQL')" "a crawl run with no server: exit 1 (not a crash: $rc)"
tap_ok "$([ $(($(date +%s) - t0)) -lt 120 ] && echo 1)" "... within the connect wait"

# --- the embedded default server ----------------------------------------------
mdb_stop
E=$(tmp_dir)
printf 'DataDir %s/d\nServer http://127.0.0.1:18090/\nServer http://127.0.0.1:18091/x/\n' "$E" >"$E/c.conf"
server_pid() { cat "$E/d/mysql/mariadbd.pid" 2>/dev/null; }
# A process is gone when it does not exist or is a zombie nobody reaped yet.
gone() { case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) in ""|Z|X) echo 1 ;; esac; }

run --db-status "$E/c.conf"
tap_is "$rc" 1 "--db-status before start: 1"
run --db-start "$E/c.conf"
tap_is "$rc" 0 "--db-start creates and starts the embedded server"
tap_ok "$(has 'started the embedded database')" "... and says so"
pid1=$(server_pid)
tap_ok "$([ -n "$pid1" ] && kill -0 "$pid1" 2>/dev/null && echo 1)" "mariadbd runs (pid $pid1)"
tap_ok "$([ -S "$E/d/mysql/mysqld.sock" ] && echo 1)" "socket at DataDir/mysql/mysqld.sock"
# EmbeddedDBBufferPool 0 (the default): an eighth of the memory, 128 MiB..4 GiB.
mem=$(awk '/^MemTotal:/ { m = int($2 / 8 / 1024); print (m < 128 ? 128 : m > 4096 ? 4096 : m) }' /proc/meminfo)
pool=$("$MARIADB" --no-defaults -S "$E/d/mysql/mysqld.sock" -uroot -N -B -e 'SELECT @@innodb_buffer_pool_size')
tap_ok "$([ -n "$pool" ] && [ $((pool / 1048576)) -ge $((mem - 128)) ] && [ $((pool / 1048576)) -le $((mem + 128)) ] && echo 1)" \
	"the default buffer pool is an eighth of the memory ($((pool / 1048576)) MiB, ~$mem)"
run --db-status "$E/c.conf"
tap_is "$rc" 0 "--db-status: 0"
tap_is "$("$srcdir/mpi-scripts/mpseek-db" status --index "$idx" "$E/c.conf" 2>/dev/null)" running \
	"mpseek-db status: running"
run --db-start "$E/c.conf"
tap_ok "$([ "$rc" = 0 ] && has 'embedded database is running')" "a second --db-start finds the running server"
tap_is "$(server_pid)" "$pid1" "... and starts no other"

run "$E/c.conf"
tap_is "$rc" 0 "a crawl run on the embedded server exits 0"
tap_ok "$(has 'inserted 4 new URL')" "... and seeds 2 Server URLs + 2 robots.txt"
run -S "$E/c.conf"
tap_ok "$([ "$rc" = 0 ] && has '^ +0 +4 +4 Not indexed yet$')" "-S shows the 4 URLs"
# A crawl (its sites refuse connections): the report of where its CPU went
# names the embedded server's share.
out=$(mpi_no_leak_check timeout 180 "$idx" "$E/c.conf" 2>&1); rc=$?
tap_is "$rc" 0 "a crawl on the embedded server exits 0"
tap_ok "$(has 'CPU in the crawl: [0-9.]+ s in the loop thread, [0-9.]+ s in the process \(all threads\), its embedded database [0-9.]+ s, in [0-9.]+ s$')" \
	"... and reports the CPU of its threads and of the embedded database in the crawl"

kill -9 "$pid1"
for _ in $(seq 100); do [ -n "$(gone "$pid1")" ] && break; sleep 0.1; done
run --db-status "$E/c.conf"
tap_is "$rc" 1 "after kill -9: --db-status 1"
run "$E/c.conf"
tap_is "$rc" 0 "after kill -9: a crawl run recovers by itself"
tap_ok "$(has 'inserted 0 new URL')" "... and finds the 4 URLs"
pid2=$(server_pid)
tap_ok "$([ -n "$pid2" ] && [ "$pid2" != "$pid1" ] && kill -0 "$pid2" 2>/dev/null && echo 1)" \
	"... on a new mariadbd (pid $pid2)"

run --db-stop "$E/c.conf"
tap_is "$rc" 0 "--db-stop: 0"
tap_ok "$(gone "$pid2")" "mariadbd has exited"
run --db-status "$E/c.conf"
tap_is "$rc" 1 "--db-status after stop: 1"
out=$("$srcdir/mpi-scripts/mpseek-db" status --index "$idx" "$E/c.conf" 2>/dev/null); rc=$?
tap_is "$rc/$out" "1/stopped" "mpseek-db status: stopped, exit 1"
run --db-stop "$E/c.conf"
tap_ok "$([ "$rc" = 0 ] && has 'not running')" "--db-stop when stopped: 0, 'not running'"

# Two starters at once (as mpirun ranks would): one server.
printf 'DataDir %s/p\nEmbeddedDBBufferPool 64\n' "$E" >"$E/p.conf"
"$idx" --db-start "$E/p.conf" >"$E/p1.log" 2>&1 & p1=$!
"$idx" --db-start "$E/p.conf" >"$E/p2.log" 2>&1 & p2=$!
wait "$p1"; r1=$?; wait "$p2"; r2=$?
tap_is "$r1/$r2" 0/0 "two concurrent --db-start: both exit 0"
tap_is "$(cat "$E/p1.log" "$E/p2.log" | grep -c 'started the embedded database')" 1 "... and one started the server"
tap_is "$(pgrep -f -- "--datadir=$E/p/mysql" | wc -l)" 1 "... one mariadbd runs"
tap_is "$("$MARIADB" --no-defaults -S "$E/p/mysql/mysqld.sock" -uroot -N -B \
	-e 'SELECT @@innodb_buffer_pool_size')" 67108864 "... with the buffer pool of EmbeddedDBBufferPool 64"
run --db-stop "$E/p.conf"
tap_is "$rc" 0 "... stopped"

long=$E/$(printf 'x%.0s' $(seq 100))
printf 'DataDir %s\n' "$long" >"$E/l.conf"
run --db-start "$E/l.conf"
tap_is "$rc" 1 "a DataDir too long for a unix socket: exit 1"
tap_ok "$(has "socket $long/mysql/mysqld.sock is [0-9]+ bytes long.*use a shorter DataDir")" \
	"... naming the path: $(tail -1 <<<"$out" | cut -c1-120)..."

# An ordinary user (when running as root): the same, in a directory it owns.
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null &&
	runuser -u nobody -- test -x "$idx" -a -r "$srcdir/mpi-scripts/mpseek-db"; then
	U=$(tmp_dir)
	chown nobody "$U"
	printf 'DataDir %s/d\nServer http://127.0.0.1:18090/\n' "$U" >"$U/c.conf"
	chmod 644 "$U/c.conf"
	out=$(cd / && runuser -u nobody -- timeout 180 "$idx" --db-start "$U/c.conf" 2>&1); rc=$?
	tap_is "$rc" 0 "as nobody: --db-start"
	tap_is "$(ps -o user= -p "$(cat "$U/d/mysql/mariadbd.pid" 2>/dev/null || echo 1)")" nobody \
		"as nobody: mariadbd runs as nobody"
	out=$(cd / && mpi_no_leak_check runuser -u nobody -- timeout 180 "$idx" --seed "$U/c.conf" 2>&1); rc=$?
	tap_ok "$([ "$rc" = 0 ] && has 'inserted 2 new URL')" "as nobody: a crawl run seeds"
	out=$(cd / && runuser -u nobody -- "$idx" --db-stop "$U/c.conf" 2>&1); rc=$?
	tap_is "$rc" 0 "as nobody: --db-stop"
else
	tap_skip 4 "not root, or nobody cannot run $idx"
fi

tap_done
