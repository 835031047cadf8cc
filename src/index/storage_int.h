/* storage_int.h - what storage.c, storage_gen.c and storage_check.c share:
 * the file layout constants, the mapped files and partitions, and the
 * helpers that read them.  Private to src/index/storage*.c; everyone else
 * goes through storage.h.
 */
#ifndef MPSEEK_STORAGE_INT_H
#define MPSEEK_STORAGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "storage.h"

/* Common file header: magic[8], version u32, partition u32, count u64,
 * crc32 of the data after the header u32, crc32 of bytes 0..27 u32. */
#define HDR 32
#define IND_ENTRY 16  /* sites end u32, site count u32, URL count u32, total u32 */
#define SITE_ENTRY 8  /* site_id u32, urls end u32 */
#define URL_FIXED 6   /* url_id u32, count u16, then count x position u16 */
#define DOC_ENTRY 20  /* site_id u32, len[4] u16, last_modified u64 */
#define NO_PART 0xffffffffu

enum ftype { F_IND, F_SITES, F_URLS, F_WORDS, F_DOCINFO, F_TYPES };
/* The file names of the types: "ind", "sites", "urls", "words", "docinfo". */
extern const char *const storage_fname[F_TYPES];

/* One mapped file (storage_map_file()). */
struct map {
	const unsigned char *base; /* whole file */
	size_t size;
	const unsigned char *data; /* after the header */
	size_t len;
	uint64_t count;
	uint32_t crc;
};

/* The four files of a partition NNw/, mapped, and its dictionary's tables. */
struct part {
	struct map ind, sites, urls, words;
	uint32_t n;                    /* words */
	const unsigned char *offs;     /* (n+1) x u32 */
	const unsigned char *sorted;   /* n x u32 */
	const unsigned char *text;
	size_t text_len;
};

/* Words in byte order (memcmp, then the shorter first). */
static inline int storage_wordcmp(const unsigned char *a, size_t al, const unsigned char *b,
				  size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

/* Map a file and check its header (magic of `type`, version, partition
 * `part` or NO_PART).  Returns 0, or -1 with "path: why" in err; unmap with
 * storage_map_free(), which accepts a zeroed map. */
int storage_map_file(const char *path, enum ftype type, uint32_t part, struct map *m,
		     struct buf *err);
void storage_map_free(struct map *m);

/* Size and count checks of a mapped partition that make every later bound
 * check meaningful; sets p's dictionary tables.  path_dir names it in err. */
int storage_shape_part(const char *path_dir, struct part *p, struct buf *err);

/* The text of word k of partition p (borrowed from the mapping): 0, or -1
 * when the offsets are bad. */
int storage_dict_word(const struct part *p, uint32_t k, const unsigned char **w, size_t *len);

/* A decimal u64 at *p (advanced past it): 0, or -1 when none or too big. */
int storage_parse_u64(const char **p, uint64_t *v);

/* "gen-<digits>" (exactly): 0 and *gen; with tmp, "gen-<digits>.tmp". */
int storage_parse_gen_name(const char *name, bool tmp, uint64_t *gen);

#endif
