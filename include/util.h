/* util.h - allocation that never returns NULL, small string helpers.
 *
 * Every source file of the library includes this header last-but-one and
 * banned.h through it.  Library code never calls exit() except through
 * xmalloc's out-of-memory path, which aborts: there is nothing to recover.
 */
#ifndef MPSEEK_UTIL_H
#define MPSEEK_UTIL_H

#include <pthread.h>
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

/* mkdir -p (mode 0755, less the umask).  Returns 0, or -1 after logging. */
int mkdir_p(const char *path);
/* Add 027 to the process's umask: nothing the programs create in DataDir
 * (or their logs) is writable by the group or readable by others; the
 * group keeps read unless the admin's umask takes it (doc/ADMIN.md,
 * "Security"). */
void umask_private(void);
/* Write all n bytes (EINTR retried; a zero write is EIO).  0 or -1 (errno). */
int write_all(int fd, const void *data, size_t n);
/* pthread_create() with every signal blocked in the new thread: signals
 * stay with the threads that handle them (the stop handlers, MPI's).
 * Returns pthread_create()'s 0 or error number. */
int thread_start(pthread_t *th, void *(*fn)(void *), void *arg);
/* fsync a directory, making its new or renamed entries durable.  0 or -1. */
int fsync_dir(const char *dir);

/* The value of an ASCII hex digit of either case, or -1. */
static inline int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 32-bit FNV-1a of p[0..n).  Each step is a bijection of the state, so any
 * one changed byte changes the sum.  It places words in delta partitions
 * and checksums cached robots.txt rules: on-disk formats, so it never
 * changes. */
static inline uint32_t fnv1a32(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

#include "banned.h"

#endif
