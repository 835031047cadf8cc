/* boiler.h - a generation's `boiler` file (src/index/boiler.c): per
 * document, the body word positions that are boilerplate, text repeated
 * across many pages of its site (navigation bars, breadcrumbs, footers).
 * The merge finds them from the docstore's texts (src/index/merge_boiler.c:
 * a block of blocks.h on at least BoilerplateShare of a site's pages, the
 * site having at least BoilerplateMinPages); searchd weighs their occurrences at
 * BoilerplateWeight and keeps their lines out of snippets.  Layout in
 * doc/FORMATS.md, "boiler".  Optional: a generation without it has none.
 */
#ifndef MPSEEK_BOILER_H
#define MPSEEK_BOILER_H

#include <stddef.h>
#include <stdint.h>

#include "blocks.h"

struct buf;

#define BOILER_FILE           "boiler"
#define BOILER_FORMAT_VERSION 1
#define BOILER_MAX_RANGES     256    /* ranges kept per document */
#define BOILER_MAX_BLOCKS     4096   /* blocks of one document looked at */

/* The file being written: per document its ranges, url_ids ascending. */
struct boiler_table {
	unsigned char *docs, *ranges; /* 8 bytes each, as in the file */
	size_t n_docs, n_ranges, cap_docs, cap_ranges;
};
/* url_id's ranges (ascending, disjoint; none: nothing added), the first
 * BOILER_MAX_RANGES of them. */
void boiler_table_add(struct boiler_table *t, uint32_t url_id, const struct pos_range *r,
		      size_t n);
/* gen_dir/boiler from t (temp file, fsync, rename).  0 or -1 (err). */
int boiler_table_write(const char *gen_dir, const struct boiler_table *t, struct buf *err);
void boiler_table_free(struct boiler_table *t);

struct boiler;

/* Map gen_dir/boiler: 1 and *out, 0 when there is none, -1 (err). */
int boiler_open(const char *gen_dir, struct boiler **out, struct buf *err);
void boiler_close(struct boiler *b); /* accepts NULL */
/* The whole file checked: header, data CRC, documents ascending, every
 * document's ranges in the file, ascending and disjoint.  1 good, 0 absent,
 * -1 with "path: what" in err. */
int boiler_verify(const char *gen_dir, struct buf *err);
/* url_id's boilerplate ranges (ascending, disjoint) into out, at most max;
 * their number (0: none, or damage: never a range outside the file). */
size_t boiler_doc(const struct boiler *b, uint32_t url_id, struct pos_range *out, size_t max);

#endif
