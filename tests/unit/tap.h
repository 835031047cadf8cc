/* tap.h - a tiny TAP producer for the unit tests (header-only).
 *
 * Tests are driven by data files under tests/data/: tap_data() finds them
 * through $srcdir (set by automake) and tap_lines() feeds a file to a
 * callback one line at a time, skipping blank lines and '#' comments, with
 * the tab-separated fields split and C-style escapes (\t \n \\ \xHH \0)
 * decoded.
 */
#ifndef MPSEEK_TAP_H
#define MPSEEK_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

static inline int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

static inline void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define is_int(got, want, ...)                                                       \
	do {                                                                         \
		long long g_ = (long long)(got), w_ = (long long)(want);             \
		if (!ok(g_ == w_, __VA_ARGS__))                                      \
			diag("  got %lld, want %lld", g_, w_);                       \
	} while (0)

#define is_str(got, want, ...)                                                       \
	do {                                                                         \
		const char *g_ = (got), *w_ = (want);                                \
		int eq_ = (g_ == NULL && w_ == NULL) ||                              \
			  (g_ && w_ && strcmp(g_, w_) == 0);                         \
		if (!ok(eq_, __VA_ARGS__))                                           \
			diag("  got \"%s\", want \"%s\"", g_ ? g_ : "(null)",        \
			     w_ ? w_ : "(null)");                                    \
	} while (0)

/* Print the plan and return the exit code. */
static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Path of a data file: $srcdir/tests/data/<name>. Returns a static buffer. */
static inline const char *tap_data(const char *name)
{
	static char path[4096];
	const char *srcdir = getenv("srcdir");
	snprintf(path, sizeof(path), "%s/tests/data/%s", srcdir ? srcdir : ".", name);
	return path;
}

/* A new directory $TMPDIR/<name>.XXXXXX (/tmp without TMPDIR: tests/run-all
 * points it at a tmpfs) into buf of size bytes: buf, or NULL. */
static inline char *tap_mkdtemp(char *buf, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	if ((size_t)snprintf(buf, size, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name) >= size)
		return NULL;
	return mkdtemp(buf);
}

/* Decode C-style escapes in place; returns the new length. */
static inline size_t tap_unescape(char *s)
{
	char *r = s, *w = s;
	while (*r) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r++;
			continue;
		}
		r++;
		switch (*r) {
		case 't': *w++ = '\t'; r++; break;
		case 'n': *w++ = '\n'; r++; break;
		case 'r': *w++ = '\r'; r++; break;
		case '0': *w++ = '\0'; r++; break;
		case 'x': {
			unsigned v = 0;
			int k;
			r++;
			for (k = 0; k < 2 && *r; k++, r++) {
				int c = *r;
				v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 32) - 'a' + 10);
			}
			*w++ = (char)v;
			break;
		}
		default: *w++ = *r++; break;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

#define TAP_MAX_FIELDS 16

/* Call fn(fields, lens, nfields, lineno, arg) for every case line of the data
 * file <name>. Returns the number of lines read, or -1 if the file is missing
 * (which also fails a test point). */
static inline int tap_lines(const char *name,
			    void (*fn)(char **f, size_t *len, int n, int lineno, void *arg),
			    void *arg)
{
	char line[65536];
	int lineno = 0, count = 0;
	FILE *fp = fopen(tap_data(name), "r");
	if (!ok(fp != NULL, "open data file %s", name))
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		char *f[TAP_MAX_FIELDS];
		size_t len[TAP_MAX_FIELDS];
		int n = 0;
		char *p = line;
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		while (n < TAP_MAX_FIELDS) {
			char *tab = strchr(p, '\t');
			f[n] = p;
			if (tab)
				*tab = '\0';
			len[n] = tap_unescape(p);
			n++;
			if (!tab)
				break;
			p = tab + 1;
		}
		fn(f, len, n, lineno, arg);
		count++;
	}
	fclose(fp);
	return count;
}

/* A whole file, NUL-terminated (malloc'd; *len its size), or NULL. */
static inline char *tap_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *p = NULL;
	long n;

	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
		p = malloc((size_t)n + 1);
		if (p && fread(p, 1, (size_t)n, fp) != (size_t)n) {
			free(p);
			p = NULL;
		} else if (p) {
			p[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(fp);
	return p;
}

#endif
