/* log.c - the logger declared in log.h.
 *
 * One line per call, written with a single write(2) so that lines from
 * several ranks or threads sharing a file do not interleave.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"

static enum log_level cur_level = LOG_INFO;
static int cur_rank = -1;
static const char *cur_prog = "mpseek";
static int log_fd = 2;

void log_set_level(enum log_level level) { cur_level = level; }
enum log_level log_get_level(void) { return cur_level; }
void log_set_rank(int rank) { cur_rank = rank; }
void log_set_prog(const char *prog) { cur_prog = prog; }

int log_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_errno("cannot open log file %s", path);
	log_close();
	log_fd = fd;
	return 0;
}

int log_reopen(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return error_errno("cannot reopen log file %s", path);
	if (log_fd <= 2) {
		log_fd = fd;
		return 0;
	}
	if (dup3(fd, log_fd, O_CLOEXEC) < 0) {
		close(fd);
		return error_errno("cannot reopen log file %s", path);
	}
	close(fd);
	return 0;
}

void log_close(void)
{
	if (log_fd > 2)
		close(log_fd);
	log_fd = 2;
}

/* a (any case) equals the lower-case ASCII name b: the log is the bottom of src/common
 * (util and buf log through it), so it uses neither. */
static int name_is(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a >= 'A' && *a <= 'Z' ? *a + 32 : *a) != *b)
			return 0;
	return *a == *b;
}

int log_level_parse(const char *name)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	if (name_is(name, "none"))
		return LOG_ERROR;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name_is(name, names[i]))
			return (int)i;
	return -1;
}

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
{
	static const char *const tags[] = { "error", "warning", "info", "debug" };
	char line[MAX_LOG_LINE];
	struct timespec ts;
	struct tm tm;
	size_t n;
	int k;

	if (level > cur_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%d %H:%M:%S", &tm);
	if (cur_rank >= 0)
		k = snprintf(line + n, sizeof(line) - n, ".%03ld %s[%ld] rank %d %s: ",
			     ts.tv_nsec / 1000000, cur_prog, (long)getpid(), cur_rank,
			     tags[level]);
	else
		k = snprintf(line + n, sizeof(line) - n, ".%03ld %s[%ld] %s: ",
			     ts.tv_nsec / 1000000, cur_prog, (long)getpid(), tags[level]);
	if (k > 0)
		n += (size_t)k < sizeof(line) - n ? (size_t)k : sizeof(line) - n - 1;
	k = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	if (k > 0)
		n += (size_t)k < sizeof(line) - n ? (size_t)k : sizeof(line) - n - 1;
	/* Keep one line per message: control characters from outside data
	 * (URLs, headers) must not forge log lines. */
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			line[i] = '?';
	if (n >= sizeof(line) - 1)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	while (write(log_fd, line, n) < 0 && errno == EINTR)
		;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(LOG_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	char msg[MAX_LOG_LINE];
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_msg(LOG_ERROR, "%s: %s", msg, strerror(saved));
	errno = saved;
	return -1;
}

#define LOG_AT(name, level)                  \
	void name(const char *fmt, ...)      \
	{                                    \
		va_list ap;                  \
		va_start(ap, fmt);           \
		log_vmsg(level, fmt, ap);    \
		va_end(ap);                  \
	}
LOG_AT(warning, LOG_WARN)
LOG_AT(info, LOG_INFO)
LOG_AT(debug, LOG_DEBUG)
