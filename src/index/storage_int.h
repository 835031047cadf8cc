/* storage_int.h - what storage.c, storage_gen.c, storage_check.c,
 * storage_sum.c and storage_block.c share: the file layout constants, the
 * mapped files and partitions, and the helpers that read them.  Private to
 * src/index/storage*.c; everyone else goes through storage.h.
 */
#ifndef MPSEEK_STORAGE_INT_H
#define MPSEEK_STORAGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "le.h"
#include "storage.h"

/* Common file header: magic[8], version u32, partition u32, count u64,
 * crc32 of the data after the header u32, crc32 of bytes 0..27 u32. */
#define HDR 32
/* Version 2: the offsets into sites and urls and a word's total are u64,
 * each at a multiple of 8 in the file (the header is 32 bytes). */
#define IND_ENTRY 24  /* sites end u64, site count u32, URL count u32, total u64 */
#define SITE_ENTRY 16 /* site_id u32, 0 u32, urls end u64 */
#define URL_FIXED 6   /* url_id u32, count u16, then count positions (storage.h) */
#define DOC_ENTRY 20  /* site_id u32, len[4] u16, last_modified u64 */
#define NO_PART 0xffffffffu

/* A URL record's count field (storage.h, "URL records"): its positions and
 * their width in bytes (2 or 4) in a generation of format version ver. */
static inline uint32_t url_rec_count(uint16_t field, uint32_t ver, unsigned *width)
{
	if (ver >= STORAGE_FORMAT_WIDE_POS && (field & STORAGE_URL_WIDE)) {
		*width = 4;
		return field & ~STORAGE_URL_WIDE;
	}
	*width = 2;
	return ver >= STORAGE_FORMAT_WIDE_POS ? field & ~STORAGE_URL_WIDE : field;
}
/* Version 1 (ASPseek's widths), read only to convert it: storage_open_old(). */
#define STORAGE_FORMAT_OLDEST 1
#define IND_ENTRY_V1 16  /* sites end u32, site count u32, URL count u32, total u32 */
#define SITE_ENTRY_V1 8  /* site_id u32, urls end u32 */

/* An ind entry and a sites entry, decoded: the same for every version. */
struct ind_entry {
	uint64_t sites_end;     /* bytes into sites where the word's entries end */
	uint32_t n_sites, n_urls;
	uint64_t total;
};
struct site_entry {
	uint32_t site_id;
	uint64_t urls_end;      /* bytes into urls where the site's records end */
};

/* The entry sizes of a format version (1 or STORAGE_FORMAT_VERSION). */
static inline size_t ind_entry_size(uint32_t version)
{
	return version == 1 ? IND_ENTRY_V1 : IND_ENTRY;
}
static inline size_t site_entry_size(uint32_t version)
{
	return version == 1 ? SITE_ENTRY_V1 : SITE_ENTRY;
}

/* Encode (the current version only: nothing writes version 1) and decode
 * (any version read).  The u64 fields need no check when encoded: a file
 * or a count cannot pass 2^64. */
static inline void ind_entry_pack(unsigned char *p, const struct ind_entry *e)
{
	le_put64(p, e->sites_end);
	le_put32(p + 8, e->n_sites);
	le_put32(p + 12, e->n_urls);
	le_put64(p + 16, e->total);
}
static inline void ind_entry_unpack(const unsigned char *p, uint32_t version, struct ind_entry *e)
{
	if (version == 1) {
		e->sites_end = le_get32(p);
		e->n_sites = le_get32(p + 4);
		e->n_urls = le_get32(p + 8);
		e->total = le_get32(p + 12);
		return;
	}
	e->sites_end = le_get64(p);
	e->n_sites = le_get32(p + 8);
	e->n_urls = le_get32(p + 12);
	e->total = le_get64(p + 16);
}
static inline void site_entry_pack(unsigned char *p, const struct site_entry *e)
{
	le_put32(p, e->site_id);
	le_put32(p + 4, 0);
	le_put64(p + 8, e->urls_end);
}
/* The urls end of the sites entry at p. */
static inline uint64_t site_urls_end(const unsigned char *p, uint32_t version)
{
	return version == 1 ? le_get32(p + 4) : le_get64(p + 8);
}

enum ftype { F_IND, F_SITES, F_URLS, F_WORDS, F_DOCINFO, F_SITESUM, F_BLOCKSUM, F_SKIPS, F_TYPES };
/* The file names of the types: "ind", "sites", "urls", "words", "docinfo",
 * "sitesum", "blocksum" and "skips" (the optional site and block summaries
 * and skip entries, storage_sum.c, storage_block.c and storage_skip.c). */
extern const char *const storage_fname[F_TYPES];

/* One mapped file (storage_map_file()). */
struct map {
	const unsigned char *base; /* whole file */
	size_t size;
	const unsigned char *data; /* after the header */
	size_t len;
	uint64_t count;
	uint32_t crc;
	uint32_t version;          /* of the header */
};

/* The four files of a partition NNw/, mapped, and its dictionary's tables. */
struct part {
	struct map ind, sites, urls, words;
	uint32_t version;              /* of the generation: the entry layouts */
	size_t ind_entry, site_entry;  /* their sizes in this version */
	uint32_t n;                    /* words */
	const unsigned char *offs;     /* (n+1) x u32 */
	const unsigned char *sorted;   /* n x u32 */
	const unsigned char *text;
	size_t text_len;
};

/* The summary files NNw/sitesum and NNw/blocksum (doc/FORMATS.md): after
 * the header, a words table (word k u32, entry count u32, index of its
 * first entry u64; k ascending), then the entries. */
#define SUM_WORD 16
#define SUM_ENTRY 56   /* a site summary */
#define BLOCK_ENTRY 64 /* a block: a summary of its records (max_url at 52), off u32, window u32 */
#define SKIP_ENTRY 12  /* a skip entry: site u32, url_id u32, off u32 */

/* One kind of summary file of every partition, mapped (storage_sum.c). */
struct sum_files {
	struct map m[STORAGE_PARTITIONS];
	uint64_t n_words[STORAGE_PARTITIONS];
};
/* storage_blocks_open()'s (storage_block.c) and storage_skips_open()'s
 * (storage_skip.c), verified by storage_sum.c. */
struct storage_blocks {
	struct sum_files f;
};
struct storage_skips {
	struct sum_files f;
};
/* Map gen_dir's NNw/<type> files of entries of `entry` bytes and check
 * their words tables: 1, 0 when 00w has none, -1 when one is missing or
 * damaged (err).  Unmap with storage_sum_files_close(). */
int storage_sum_files_open(const char *gen_dir, enum ftype type, size_t entry,
			   struct sum_files *f, struct buf *err);
void storage_sum_files_close(struct sum_files *f);
/* word_id's entries [*e, *end): 1, or 0 when it has none. */
int storage_sum_files_word(const struct sum_files *f, uint32_t word_id, size_t entry,
			   const unsigned char **e, const unsigned char **end);
/* Whether the summary at e is damaged: a hull longer than an entry holds,
 * a section past the four. */
static inline bool storage_sum_bad(const unsigned char *e)
{
	return e[12] > STORAGE_SUM_HULL || (e[13] & 0xf0);
}
/* The summary at e (sum_pack()'s layout): 1, or 0 when it is damaged. */
int storage_sum_unpack(const unsigned char *e, struct storage_sum *out);

/* Words in byte order (memcmp, then the shorter first). */
static inline int storage_wordcmp(const unsigned char *a, size_t al, const unsigned char *b,
				  size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

/* The common header of a file of `type` (HDR bytes at h). */
void storage_hdr_pack(unsigned char *h, enum ftype type, uint32_t part, uint64_t count,
		      uint32_t data_crc);

/* Map a file and check its header (magic of `type`, format `version`,
 * partition `part` or NO_PART).  Returns 0, or -1 with "path: why" in err;
 * unmap with storage_map_free(), which accepts a zeroed map. */
int storage_map_file(const char *path, enum ftype type, uint32_t part, uint32_t version,
		     struct map *m, struct buf *err);
void storage_map_free(struct map *m);

/* Size and count checks of a mapped partition that make every later bound
 * check meaningful; sets p's dictionary tables (p->version must be set).
 * path_dir names it in err. */
int storage_shape_part(const char *path_dir, struct part *p, struct buf *err);

/* The text of word k of partition p (borrowed from the mapping): 0, or -1
 * when the offsets are bad. */
int storage_dict_word(const struct part *p, uint32_t k, const unsigned char **w, size_t *len);

/* Read gen_dir/FORMAT as storage_format_read(), accepting the versions
 * oldest..STORAGE_FORMAT_VERSION (f->version says which). */
int storage_format_read_from(const char *gen_dir, uint32_t oldest, struct storage_format *f,
			     struct buf *err);

/* A decimal u64 at *p (advanced past it): 0, or -1 when none or too big. */
int storage_parse_u64(const char **p, uint64_t *v);

/* "gen-<digits>" (exactly): 0 and *gen; with tmp, "gen-<digits>.tmp". */
int storage_parse_gen_name(const char *name, bool tmp, uint64_t *gen);

/* The first of the entries of size bytes in [e, end) whose little-endian
 * u32 key at offset 0 is at least key (end when none is): the entries are
 * in key order.  Galloping from e, then a binary search: O(log d) for a
 * hop of d entries, so that a cursor asked for its sites out of a walk's
 * order (search_prune_sum.c visits the best bounds first, in rounds) costs
 * no scan of the entries between. */
const unsigned char *storage_gallop(const unsigned char *e, const unsigned char *end,
				    size_t size, uint32_t key);

#endif
