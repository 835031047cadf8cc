/* log.h - the one logger: level, time, pid and MPI rank on every line.
 *
 * Lines go to stderr (or the file given to log_open()).  error() and friends
 * return -1 so that `return error("...")` reads well (after git's usage.c).
 */
#ifndef MPSEEK_LOG_H
#define MPSEEK_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

/* Process-wide settings; call before threads start. rank < 0 = not under MPI. */
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_set_rank(int rank);
void log_set_prog(const char *prog);  /* borrowed: must outlive logging */
/* Log to a file instead of stderr; returns 0 or -1 (and keeps stderr). */
int log_open(const char *path);
/* Open path again and put it in place of the current log file with dup2(),
 * so that threads writing at that moment never see a closed descriptor
 * (log rotation: searchd on SIGHUP).  Returns 0, or -1 (logged). */
int log_reopen(const char *path);
void log_close(void);
/* When the log is a pipe whose reader reads chunk bytes at a time (Open
 * MPI's IOF: 4096), place every line inside one chunk (padding with a line
 * of blanks when needed), so that a reader that fell behind and forwards
 * several pipes chunk by chunk never splits a line.  chunk must lie between
 * MAX_LOG_LINE and PIPE_BUF (both 4096 on Linux).  Also grows the pipe to
 * 1 MB where allowed, so that a reader that stops for a while does not
 * block the writer.  Returns 1 if set, 0 if the log is not a pipe (or chunk
 * is out of range); log_open() and log_close() turn it off. */
int log_align_pipe(size_t chunk);
/* Parse "none|error|warning|info|debug" (ASPseek DebugLevel); -1 if unknown. */
int log_level_parse(const char *name);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level level, const char *fmt, va_list ap);

/* Log at LOG_ERROR and return -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log at LOG_ERROR with ": strerror(errno)" appended, and return -1. */
int error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
