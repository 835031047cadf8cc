/* log.c - the logger declared in log.h.
 *
 * One line per call, written with a single write(2) so that lines from
 * several ranks or threads sharing a file do not interleave.  On a pipe
 * whose reader reads in fixed chunks (Open MPI's mpirun and orted read a
 * rank's stderr 4 KB at a time), log_align_pipe() keeps each line inside
 * one chunk, so a reader that fell behind still forwards whole lines.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"

/* The stderr pipe log_align_pipe() asks for (see there). */
#define LOG_PIPE_SIZE (1 << 20)

static enum log_level cur_level = LOG_INFO;
static int cur_rank = -1;
static const char *cur_prog = "mpseek";
static int log_fd = 2;
/* The pipe reader's chunk (log_align_pipe), 0 = write lines as they come;
 * the lock keeps a thread's look at the pipe and its write together. */
static size_t pipe_chunk;
static pthread_mutex_t pipe_lock = PTHREAD_MUTEX_INITIALIZER;

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
	pipe_chunk = 0;
	return 0;
}

int log_reopen(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return error_errno("cannot reopen log file %s", path);
	if (log_fd <= 2) {
		log_fd = fd;
		pipe_chunk = 0;
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
	pipe_chunk = 0;
}

int log_align_pipe(size_t chunk)
{
	struct stat st;

	pipe_chunk = 0;
	if (chunk < MAX_LOG_LINE || chunk > PIPE_BUF || fstat(log_fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return 0;
	pipe_chunk = chunk;
	/* A reader that stops reading (mpirun through its kill sequence, 2 x
	 * 10 s under mpseek-run) must not block a writer that has to release
	 * its claims meanwhile: 64 KB, the default, filled within a 10 s
	 * timeout at debug level and a rank was killed holding its claims;
	 * 1 MB is an unprivileged user's limit (pipe-max-size).  Best effort:
	 * a smaller pipe only blocks sooner. */
	if (fcntl(log_fd, F_GETPIPE_SZ) < LOG_PIPE_SIZE)
		fcntl(log_fd, F_SETPIPE_SZ, LOG_PIPE_SIZE);
	return 1;
}

static void write_all(const char *s, size_t n)
{
	ssize_t k;

	while (n > 0) {
		k = write(log_fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

/* Write line (n <= MAX_LOG_LINE <= pipe_chunk <= PIPE_BUF: every write
 * here is atomic) where the reader's
 * chunks of pipe_chunk bytes hold it whole.  The reader takes a full chunk
 * while one is queued and empties the pipe otherwise, so the queued bytes
 * modulo the chunk are this line's offset in the chunk it will land in; if
 * it would cross the chunk's end, a line of blanks fills the chunk first.
 * A read between the look and the write either keeps that offset (a full
 * chunk) or empties the pipe (offset 0): the line fits either way.  The
 * loop is bounded for a pipe shared with other writers. */
static void write_aligned(const char *line, size_t n)
{
	char pad[PIPE_BUF];
	int queued;
	size_t off, r;

	pthread_mutex_lock(&pipe_lock);
	for (int i = 0; i < 3 && ioctl(log_fd, FIONREAD, &queued) == 0; i++) {
		off = (size_t)queued % pipe_chunk;
		if (off + n <= pipe_chunk)
			break;
		r = pipe_chunk - off;
		memset(pad, ' ', r - 1);
		pad[r - 1] = '\n';
		write_all(pad, r);
	}
	write_all(line, n);
	pthread_mutex_unlock(&pipe_lock);
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
	if (pipe_chunk)
		write_aligned(line, n);
	else
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
