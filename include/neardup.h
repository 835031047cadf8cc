/* neardup.h - near-duplicate groups of an index generation (`neardup`):
 * found by the merge from the documents' simhashes (simhash.h), written
 * into the generation, read by searchd to show one document per group and
 * by `mpseek-index -S` to count them.  No MPI, no SQL.  Byte layout:
 * doc/FORMATS.md, "neardup"; the choice of grouping: doc/SEARCH.md,
 * "Near-duplicates".
 */
#ifndef MPSEEK_NEARDUP_H
#define MPSEEK_NEARDUP_H

#include <stddef.h>
#include <stdint.h>

#include "caps.h"

struct buf;

#define NEARDUP_FORMAT_VERSION 1
#define NEARDUP_FILE "neardup"
/* The largest NearDupBits: the 64 bits are cut into NEARDUP_BLOCKS blocks of
 * 16, so two signatures at most NEARDUP_BLOCKS - 1 bits apart agree on a
 * whole block (Manku, Jain and Das Sarma, "Detecting near-duplicates for
 * web crawling", 2007). */
#define NEARDUP_BLOCKS 4
#define NEARDUP_MAX_BITS (NEARDUP_BLOCKS - 1)
_Static_assert(NEARDUP_MAX_BITS == MAX_NEAR_DUP_BITS, "caps.h's NearDupBits cap");
/* Within one block's bucket, a signature is compared with at most this many
 * others (distinct signatures; equal ones are joined without comparing), so
 * a bucket that a million pages share costs linear time, not quadratic. */
#define NEARDUP_WINDOW 1024

/* A document and its signature (0: none, never grouped). */
struct neardup_doc {
	uint32_t url_id;
	uint64_t simhash;
};

/* A document of a group of two or more: group is the group's smallest
 * url_id. */
struct neardup_member {
	uint32_t url_id, group;
};

/* Group docs (n of them, url_ids distinct): two documents whose simhashes
 * differ in at most bits bits (1..NEARDUP_MAX_BITS) are in one group, and
 * groups are closed under that (a chain is one group).  *out (free()) gets
 * the members of groups of two or more, ascending by url_id; returns the
 * number of groups. */
size_t neardup_group(const struct neardup_doc *docs, size_t n, unsigned bits,
		     struct neardup_member **out, size_t *n_out);

/* Write gen_dir/neardup: the members m[0..n) (ascending by url_id).
 * Temp file, fsync, rename.  0 or -1 (logged). */
int neardup_write(const char *gen_dir, const struct neardup_member *m, size_t n, unsigned bits);

struct neardup;
/* Open gen_dir/neardup read-only: magic, version, header CRC, size, data CRC
 * and order checked.  1 and *out (neardup_close()), 0 when there is none
 * (grouping off), -1 when damaged (reason in err, or logged). */
int neardup_open(const char *gen_dir, struct neardup **out, struct buf *err);
void neardup_close(struct neardup *nd); /* accepts NULL */
/* neardup_open() and close, for --check (storage_check()): 1 good, 0 none,
 * -1 with "path: what" in err. */
int neardup_verify(const char *gen_dir, struct buf *err);
/* The group of url_id (its smallest url_id), 0 when it has no near-duplicate
 * or nd is NULL. */
uint32_t neardup_group_of(const struct neardup *nd, uint32_t url_id);
/* The members of group (ascending url_ids, the group's own first) into
 * out[0..max); returns how many were written. */
size_t neardup_members(const struct neardup *nd, uint32_t group, uint32_t *out, size_t max);
/* Every member of every group, by (group, url_id): *out (valid while nd is
 * open), their number. */
size_t neardup_by_group(const struct neardup *nd, const struct neardup_member **out);
/* The groups and the documents in them; the NearDupBits they were found with. */
void neardup_counts(const struct neardup *nd, uint64_t *groups, uint64_t *docs, unsigned *bits);

#endif
