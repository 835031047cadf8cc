/* merge_int.h - what the files of the merge share: the kinds of records it
 * sorts, the k-way merge of sorted files, the external sorter and the files
 * moved between ranks (merge_sort.c).  Private to src/index/merge*.c; the
 * merge's interface is merge.h.
 */
#ifndef MPSEEK_MERGE_INT_H
#define MPSEEK_MERGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* wordurl.totalcount of a word: the index keeps a word's total in 64 bits
 * (doc/FORMATS.md, "Format versions"), the table's column (ASPseek's) is 32:
 * it saturates at 2^32 - 1.  The merge writes it, --check compares it. */
static inline uint32_t wordurl_totalcount(uint64_t total)
{
	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

/* A kind of record: a fixed head, then as many bytes as the head says.
 * merge.c defines the kinds (postings, URL records, winners) and so the
 * order of each; merge_sort.c sorts and moves any of them. */
struct kind {
	size_t head;
	size_t max;             /* the largest record */
	/* bytes after the head, or -1 when the head is impossible */
	long (*extra)(const unsigned char *head);
	int (*cmp)(const unsigned char *a, const unsigned char *b);
};

/* ---- the k-way merge of sorted files ------------------------------------ */

/* A sorted stream of records from a file. */
struct run {
	FILE *fp;
	unsigned char *rec;     /* current record, kind->max bytes */
	int has;
};

/* A k-way merge of sorted files, pulled one record at a time. */
struct merger {
	const struct kind *k;
	struct run *r;
	size_t n;
	size_t *heap, hn;       /* the runs that have a record, smallest first */
	bool started;           /* heap[0]'s record was handed out */
};

/* Open n files of kind k (paths borrowed for the call).  Returns 0, or -1
 * (then close it anyway). */
int merger_open(struct merger *m, const struct kind *k, char **paths, size_t n);
/* 1 and *rec (borrowed until the next call), 0 at the end, -1. */
int merger_next(struct merger *m, const unsigned char **rec);
/* Close the files, free everything.  Accepts a zeroed merger. */
void merger_close(struct merger *m);
/* k-way merge of files into fn(rec) calls, in order.  Returns 0 or -1. */
int merge_files(const struct kind *k, char **paths, size_t n,
		int (*fn)(void *arg, const unsigned char *rec), void *arg);

/* ---- the external sort ---------------------------------------------------- */

/* The external sort: records collect in an arena of DeltaBufferSize and
 * are spilled as sorted runs. */
struct sorter {
	const struct kind *k;
	const char *dir;
	const char *tag;        /* run names: <dir>/<tag>-run-NNNNNN */
	unsigned char *arena;
	size_t cap, used;
	size_t *idx;
	size_t n, idx_cap;
	char **runs;
	size_t n_runs, next_name;
	uint64_t spilled;       /* bytes written to runs */
	uint64_t records;       /* records added */
	size_t spills;          /* runs written from the arena */
};

/* An empty sorter of kind k with an arena of cap bytes; its runs go to
 * dir/tag-run-NNNNNN (dir and tag borrowed until sorter_free()). */
void sorter_init(struct sorter *s, const struct kind *k, const char *dir, const char *tag,
		 size_t cap);
/* Remove the runs, free everything.  Accepts a zeroed sorter. */
void sorter_free(struct sorter *s);
/* Room for a record of len bytes (at most k->max), to be filled by the
 * caller; NULL when a spill failed. */
unsigned char *sorter_room(struct sorter *s, size_t len);
/* The last run written, the arena freed, at most FANIN (64) runs left:
 * one merger reads them all. */
int sorter_finish(struct sorter *s);

/* ---- moving sorted files between ranks ------------------------------------ */

/* <scratch>/<tag>-<dir>-<r> for every rank r (malloc'd, free with
 * xfer_free()). */
char **xfer_paths(const char *scratch, const char *tag, const char *dir);
/* Remove the files and free the paths.  Accepts NULL. */
void xfer_free(char **p);
/* Open one file per rank for writing; NULL slots on failure. */
int xfer_open(char **paths, FILE **f);
/* Close the files xfer_open() opened.  Returns 0 or -1 (a write failed). */
int xfer_close(char **paths, FILE **f);
/* Collective: to[r] (this rank's file for rank r) goes to rank r; *from
 * gets the files received in scratch (from[r] came from rank r; malloc'd,
 * free with xfer_free()).  The to files are removed.  Returns 0 or -1,
 * agreed. */
int xfer_exchange(const char *scratch, const char *tag, char **to, int rc, char ***from);
/* Collective: the records of the sorted runs of s, each to the rank dest()
 * names, through files in scratch (no shared filesystem needed); *from gets
 * what this rank received: cluster_size() files, each sorted.  The runs are
 * removed and s freed.  Returns 0 or -1, agreed. */
int sort_exchange(struct sorter *s, const char *scratch, const char *tag,
		  int (*dest)(const void *arg, const unsigned char *rec), const void *arg,
		  char ***from);

#endif
