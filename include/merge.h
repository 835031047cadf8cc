/* merge.h - the merge: delta logs + the live index -> a new generation.
 *
 * Runs on every rank of mpseek-index (or alone): each rank reads its own
 * delta segments, the postings travel to the owners of their partitions,
 * each owner writes its partitions, and rank 0 writes docinfo and FORMAT and
 * brings wordurl up to date.  Nothing is published here: the caller lets
 * PageRank add its files and then publishes with storage_gen_publish().
 * Semantics and crash behaviour: doc/MERGE.md.
 */
#ifndef MPSEEK_MERGE_H
#define MPSEEK_MERGE_H

#include <stdint.h>
#include <stdio.h>

struct conf;
struct db;
struct merge;

/* Merge every delta segment under DataDir/deltas with the generation
 * `current` into DataDir/index/gen-<N>.tmp (complete, FORMAT written,
 * unpublished).  Collective: every rank calls it.  On 0, *gen is N,
 * *gen_dir the directory (malloc'd, caller frees; the same on every rank)
 * and *m the merge's state, kept for merge_finish() (which frees it; c is
 * borrowed until then).  db is used by rank 0 only (wordurl).  Returns 0
 * or -1 (all ranks agree); on -1 *m is NULL and nothing is kept. */
int merge_run(const struct conf *c, struct db *db, struct merge **m, uint64_t *gen,
	      char **gen_dir);

/* After the generation of merge_run() was published: remove the delta
 * segments this rank consumed (fsynced directory).  Before the publish they
 * must stay: a crash then reruns the merge from them.  Frees m; call it with
 * published=false when the publish failed (m NULL, as a failed merge_run()
 * leaves it, is accepted).  Returns 0 or -1. */
int merge_finish(struct merge *m, int published);

/* `mpseek-index --check`: storage_check() of the live generation plus
 * wordurl against its dictionary.  Problems go to out, one per line.
 * Returns 0 when all is well, 1 when damage was found, -1 when the check
 * could not run. */
int merge_check(const struct conf *c, struct db *db, FILE *out);

/* `mpseek-index --dump-index`: every posting of the live generation as
 * "word<TAB>url_id<TAB>pos,pos,..." (positions as 16-bit values), sorted by
 * word bytes then url_id.  Returns 0 or -1. */
int merge_dump(const struct conf *c, FILE *out);
/* --common-words N: "CommonWords w ..." with the n words of the live
 * generation that are in the most documents (words a pair can hold: not
 * anchor words, pairs or words over 62 bytes), most first.  0 or -1. */
int merge_common_words(const struct conf *c, size_t n, FILE *out);

/* Test hook: when MPSEEK_MERGE_CRASH_AT equals `point`, _exit(99) here. */
void merge_crash_point(const char *point);

#endif
