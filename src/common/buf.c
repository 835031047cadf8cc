/* buf.c - the bounded buffer declared in buf.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "log.h"
#include "util.h"

void buf_init(struct buf *b, size_t max)
{
	b->ptr = NULL;
	b->len = b->alloc = 0;
	b->max = max;
}

void buf_free(struct buf *b)
{
	if (!b)
		return;
	free(b->ptr);
	b->ptr = NULL;
	b->len = b->alloc = 0;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

static int grow(struct buf *b, size_t extra)
{
	size_t need, a;

	if (extra > b->max || b->len > b->max - extra)
		return -1;
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return 0;
	a = b->alloc ? b->alloc : 64;
	while (a < need)
		a = a > SIZE_MAX / 2 ? need : a * 2;
	if (a > b->max + 1)
		a = b->max + 1;
	b->ptr = xrealloc(b->ptr, a);
	b->alloc = a;
	return 0;
}

int buf_reserve(struct buf *b, size_t extra)
{
	return grow(b, extra);
}

int buf_add(struct buf *b, const void *data, size_t len)
{
	if (grow(b, len))
		return -1;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_addc(struct buf *b, char c)
{
	/* The common case without grow() and memcpy(): the parsers append
	 * byte by byte. */
	if (b->len + 2 <= b->alloc && b->len < b->max) {
		b->ptr[b->len++] = c;
		b->ptr[b->len] = '\0';
		return 0;
	}
	return buf_add(b, &c, 1);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || grow(b, (size_t)n))
		return -1;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void buf_truncate(struct buf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->ptr[len] = '\0';
	}
}

const char *buf_str(const struct buf *b)
{
	return b->ptr ? b->ptr : "";
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p = b->ptr ? b->ptr : xstrdup("");
	if (len)
		*len = b->len;
	b->ptr = NULL;
	b->len = b->alloc = 0;
	return p;
}

int error_into(struct buf *err, const char *fmt, ...)
{
	va_list ap, aq;
	int lost = 1;

	va_start(ap, fmt);
	if (err) {
		va_copy(aq, ap);
		buf_reset(err);
		lost = buf_vprintf(err, fmt, aq) < 0;
		va_end(aq);
	}
	if (lost)
		log_vmsg(LOG_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}
