/* util.h - allocation that never returns NULL, small string helpers.
 *
 * Every source file of the library includes this header last-but-one and
 * banned.h through it.  Library code never calls exit() except through
 * xmalloc's out-of-memory path, which aborts: there is nothing to recover.
 */
#ifndef MPSEEK_UTIL_H
#define MPSEEK_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UNUSED(x) ((void)(x))

/* Return malloc'd memory; abort with a message when memory is exhausted. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xstrdup(s), or NULL for NULL. */
char *xstrdup_or_null(const char *s);
/* malloc'd printf; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copy at most size-1 bytes and NUL-terminate; returns strlen(src) (like strlcpy). */
size_t strlcpy_(char *dst, const char *src, size_t size);

/* Parse a whole decimal integer in [min, max]; 0 on success, -1 otherwise. */
int parse_long(const char *s, long min, long max, long *out);

/* ASCII case-insensitive comparisons (locale-free). */
int ascii_casecmp(const char *a, const char *b);
int ascii_ncasecmp(const char *a, const char *b, size_t n);

/* Monotonic and wall-clock time in seconds. */
double now_monotonic(void);
double now_wall(void);

/* mkdir -p (mode 0755).  Returns 0, or -1 after logging. */
int mkdir_p(const char *path);
/* Write all n bytes (EINTR retried; a zero write is EIO).  0 or -1 (errno). */
int write_all(int fd, const void *data, size_t n);
/* fsync a directory, making its new or renamed entries durable.  0 or -1. */
int fsync_dir(const char *dir);

#include "banned.h"

#endif
