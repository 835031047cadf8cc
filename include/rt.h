/* rt.h - real-time indexing's side index (mpseek-index -T; doc/MERGE.md,
 * "Real-time indexing").
 *
 * A -T run crawls its URLs into a delta segment of rank RT_RANK, which it
 * moves into DataDir/deltas/ once complete, so that the next normal merge
 * folds it in like any other.  Until then the segments of rank RT_RANK are
 * also compacted into DataDir/index/rt (one delta log: the newest DOC or
 * DEL of each URL, with its last LASTMOD), which searchd reads beside the
 * live generation and lets override it.  The merge rebuilds index/rt from
 * what is left after it removed the segments it consumed.  This module owns
 * the files; it knows neither the database nor MPI.
 */
#ifndef MPSEEK_RT_H
#define MPSEEK_RT_H

struct buf;

/* The delta rank of real-time segments (the highest rank a claim accepts):
 * the merge reads them on rank 0, whose DataDir has the index. */
#define RT_RANK 32767

/* Take DataDir/index/rt.lock (flock, waiting for another holder): -T runs
 * and the rebuilds of index/rt follow each other.  Returns the descriptor
 * (rt_unlock() it) or -1 with the reason in err. */
int rt_lock(const char *data_dir, struct buf *err);
void rt_unlock(int fd); /* accepts -1 */

/* Move the finished segment at path (another directory of the same
 * filesystem) into DataDir/deltas/ as the next r<RT_RANK>-<seq>.dlt.
 * Returns 0 or -1. */
int rt_add_segment(const char *data_dir, const char *path, struct buf *err);

/* Rewrite DataDir/index/rt from the RT_RANK segments under DataDir/deltas
 * (temporary file, fsync, rename), or remove it when there are none.  The
 * caller holds rt_lock().  *docs (if not NULL) is the number of URLs it
 * holds.  Returns 0 or -1. */
int rt_rebuild(const char *data_dir, long *docs, struct buf *err);

/* rt_lock(), rt_rebuild(), rt_unlock(): for the merge, after it removed
 * the segments it consumed.  Returns 0 or -1 (logged). */
int rt_refresh(const char *data_dir);

#endif
