/* buf.h - a growable byte buffer with a ceiling (after curl's dynbuf).
 *
 * The content is always NUL-terminated.  Appends that would grow the buffer
 * past its maximum fail with -1 and leave the buffer unchanged, so hostile
 * input can never make it grow without bound.
 */
#ifndef MPSEEK_BUF_H
#define MPSEEK_BUF_H

#include <stddef.h>
#include <stdarg.h>

struct buf {
	char *ptr;    /* NUL-terminated content; NULL until the first append */
	size_t len;   /* bytes of content, not counting the NUL */
	size_t alloc; /* bytes allocated */
	size_t max;   /* ceiling for len */
};

#define BUF_INIT(maxlen) { NULL, 0, 0, (maxlen) }

void buf_init(struct buf *b, size_t max);
/* Free the content; b may be reused after buf_init(). Accepts NULL. */
void buf_free(struct buf *b);
/* Empty the buffer, keeping its allocation. */
void buf_reset(struct buf *b);
/* Make room for extra more bytes (within the ceiling) without changing the
 * content: an append of that many then copies nothing old.  Returns 0, or
 * -1 if len + extra passes the ceiling. */
int buf_reserve(struct buf *b, size_t extra);
int buf_add(struct buf *b, const void *data, size_t len);
int buf_adds(struct buf *b, const char *s);
int buf_addc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* Shorten to len bytes (no-op if already shorter). */
void buf_truncate(struct buf *b, size_t len);
/* The content as a string: "" when empty, never NULL. Borrowed. */
const char *buf_str(const struct buf *b);
/* Hand the content over to the caller (malloc'd, caller frees); b is reset. */
char *buf_detach(struct buf *b, size_t *len);

/* The message into err (replacing what it held) when the caller gives one,
 * else, or when it does not fit err's ceiling, the log at LOG_ERROR; returns
 * -1.  For functions whose callers decide whether a failure is an error
 * (a reader's check reports it, a crawl logs it). */
int error_into(struct buf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
