/* index_admin.h - the administrator's targeted verbs of mpseek-index
 * (index_admin.c), for index_main.c only.
 */
#ifndef MPSEEK_INDEX_ADMIN_H
#define MPSEEK_INDEX_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct conf;
struct db;

/* The URLs or patterns of the command line: -u arguments, then the lines of
 * -f FILE ("-" = standard input), each with where it came from. */
struct url_list {
	char **v;
	char **where;         /* "-u" or "FILE:LINE" */
	size_t n, alloc;
};

/* Fill l from the n -u arguments and the file (NULL: none).  Blank lines and
 * lines starting with '#' are skipped.  Returns 0 or -1 (file unreadable). */
int url_list_load(struct url_list *l, char *const *args, size_t n, const char *file);
void url_list_free(struct url_list *l);

/* -C: remove the URLs l selects (all of them when l is empty), after asking
 * on the terminal unless no_confirm.  Their documents leave the index at
 * the next merge (DEL records in a delta segment).  Returns 0 or -1. */
int admin_clear(const struct conf *c, struct db *db, const struct url_list *l, bool no_confirm);

/* -i: insert the URLs of l, admitted as links are.  Returns 0 when every URL
 * was inserted or known, 1 when some were refused or malformed, -1 on error. */
int admin_insert(const struct conf *c, struct db *db, const struct url_list *l);

/* -T: fetch the URLs of l now (robots.txt first) through the crawl's loop,
 * store them as a crawl does, move their delta segment to DataDir/deltas/
 * for the next merge and rebuild the real-time index searchd reads
 * (include/rt.h).  Runs beside a crawl: no writer lock.  One line per URL
 * on stdout.  Returns 0 when every URL was indexed or found gone, 1 when
 * some were refused or failed, -1 on error. */
int admin_now(const struct conf *c, struct db *db, const struct url_list *l);
/* -a/-m with -u or -f: the URLs l selects are due now (force: fetched in
 * full and parsed again).  Returns 0 or -1. */
int admin_expire(struct db *db, const struct url_list *l, bool force);

/* Before a merge (rank 0): a DEL record for every URL marked deleted in the
 * database whose document the live generation still has, so that rows an
 * administrator marked by hand leave the index at this merge as -C's do.
 * Returns 0 or -1. */
int admin_reconcile(const struct conf *c, struct db *db);

/* -S: the live index generation: documents, words, bytes, date. */
int admin_print_index(const struct conf *c, FILE *out);

#endif
