/* citations.h - the link graph of an index generation (`citations/`):
 * written by mpseek-index (pagerank.c) after redirects and clones are
 * resolved, read by searchd for `link:` queries through this module (no MPI,
 * no SQL); and `links`, each indexed page's out-links as the crawl stored
 * them (before that resolution), kept by the merge for PageRank's graph.
 * Byte layout: doc/FORMATS.md, "citations".
 */
#ifndef MPSEEK_CITATIONS_H
#define MPSEEK_CITATIONS_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/* Version 2 added the CRC-32 of the offsets and lists (doc/FORMATS.md,
 * "citations"). */
#define CITATIONS_FORMAT_VERSION 2
#define CITATIONS_DIR "citations"
#define LINKS_FILE "links"

enum citations_kind {
	CITATIONS_DIRECT = 1,  /* citations/direct: url_id -> the pages it links to */
	CITATIONS_REVERSE = 2, /* citations/reverse: url_id -> the pages linking to it */
	CITATIONS_LINKS = 3,   /* links: url_id -> the url_ids its page links to, unresolved */
};

/* Write gen_dir/citations/{direct,reverse}.  The graph: page ids[i] (ids
 * ascending, n pages) links to the url_ids dst[off[i] .. off[i+1]), each list
 * ascending without duplicates.  Each file: temp file, fsync, rename.
 * Returns 0 or -1 (logged). */
int citations_write(const char *gen_dir, const uint32_t *ids, size_t n, const uint64_t *off,
		    const uint32_t *dst);

/* Write gen_dir/links: url_id ids[i] (ascending, n of them, each below
 * slots) has the out-links dst[off[i] .. off[i+1]) (ascending, unique);
 * every other url_id below slots none.  Temp file, fsync, rename.  Returns
 * 0 or -1 (logged). */
int citations_write_links(const char *gen_dir, uint32_t slots, const uint32_t *ids, size_t n,
			  const uint64_t *off, const uint32_t *dst);

struct citations;

/* Open one of the two files read-only (mmap), checking magic, version, kind,
 * header CRC and size.  Returns 1 and *out (close with citations_close()), 0
 * when the file does not exist, -1 when damaged (reason in err if not NULL,
 * else logged). */
int citations_open(const char *gen_dir, enum citations_kind kind, struct citations **out,
		   struct buf *err);
/* citations_open() and the data checksum of the whole file: 1 when good, 0
 * when the file does not exist, -1 with "path: offset N: what" in err
 * (logged when err is NULL). */
int citations_verify(const char *gen_dir, enum citations_kind kind, struct buf *err);
void citations_close(struct citations *ci); /* accepts NULL */
/* The list of url_id: *n url_ids, ascending, as little-endian u32 borrowed
 * from the mapping (read them with citations_at()).  Returns 1 with the list
 * (maybe empty), 0 when url_id is past the end of the file, -1 when the
 * offsets of url_id are damaged. */
int citations_list(const struct citations *ci, uint32_t url_id, const unsigned char **list,
		   size_t *n);
/* Element i of a list returned by citations_list(). */
uint32_t citations_at(const unsigned char *list, size_t i);
/* Totals from the header. */
uint32_t citations_n_url_ids(const struct citations *ci);
uint64_t citations_n_links(const struct citations *ci);
/* The CRC-32 of the offsets and lists the header records (not verified
 * here: citations_verify() does): with the totals, what tells two files
 * apart. */
uint32_t citations_data_crc(const struct citations *ci);

#endif
