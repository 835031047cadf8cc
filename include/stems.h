/* stems.h - word forms (doc/SEARCH.md, "Word forms"): the Snowball stemmer
 * (Debian's libstemmer) and a generation's stem map, the file `stems` that
 * the merge writes beside the postings (doc/FORMATS.md, "stems"): each stem
 * of the live words of the dictionary with the words that have it, so that
 * searchd expands a query word into the index words of its stem without
 * scanning the dictionary.  The index itself keeps exact (case-folded)
 * words; a generation without the file means no expansion.
 */
#ifndef MPSEEK_STEMS_H
#define MPSEEK_STEMS_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct storage;

#define STEMS_FILE           "stems"
#define STEMS_FORMAT_VERSION 1
#define STEMS_LANG_LEN       16      /* bytes of the language name in the header, NUL-padded */
#define STEMS_MAX_FORMS      64      /* forms of one stem a query expands to */

/* ---- the stemmer: one per thread (libstemmer's are not shared) ---------- */

struct stemmer;

/* Is lang a language of libstemmer ("english", "german", ...)? */
bool stemmer_known(const char *lang);
/* A stemmer of lang (UTF-8): 0 and *out (free with stemmer_free()), -1
 * when libstemmer does not know the language. */
int stemmer_new(const char *lang, struct stemmer **out);
void stemmer_free(struct stemmer *s);   /* accepts NULL */
/* The stem of word (len bytes of folded UTF-8), borrowed until the next
 * call on s; *out_len its bytes.  NULL only when out of memory. */
const char *stemmer_stem(struct stemmer *s, const char *word, size_t len, size_t *out_len);

/* ---- the writer ---------------------------------------------------------- */

/* Write gen_dir/stems for the live words of st, stemmed in lang: 0, or -1
 * with the reason in err. */
int stems_write(const char *gen_dir, const struct storage *st, const char *lang,
		struct buf *err);
/* The same from a list of words (n of them, NUL-terminated, any order,
 * duplicates allowed), into path: for tests. */
int stems_write_words(const char *path, const char *lang, const char *const *words, size_t n,
		      struct buf *err);

/* ---- the reader ---------------------------------------------------------- */

struct stems;

/* Open gen_dir/stems (every record checked): 1 with *out (close with
 * stems_close()), 0 when the generation has none, -1 with "path: what is
 * wrong" in err. */
int stems_open(const char *gen_dir, struct stems **out, struct buf *err);
/* As stems_open(), the file at path. */
int stems_open_file(const char *path, struct stems **out, struct buf *err);
void stems_close(struct stems *s);      /* accepts NULL */
/* The language the words were stemmed in. */
const char *stems_language(const struct stems *s);
size_t stems_count(const struct stems *s);  /* stems in the map */

/* A word of the map, borrowed from the mapping (not NUL-terminated). */
struct stems_form {
	const char *word;
	size_t len;
};
/* The words whose stem is stem (len bytes), at most max of them into out
 * (in byte order): how many the stem has (0: none), which may exceed max. */
size_t stems_forms(const struct stems *s, const char *stem, size_t len, struct stems_form *out,
		   size_t max);

#endif
