/* test-log.c - log lines on a pipe stay whole in a chunked reader's reads:
 * with log_align_pipe(4096) every read of 4096 bytes that a lagging reader
 * (mpirun after its kill sequence) makes ends at a line's end. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"
#include "tap.h"

#define CHUNK 4096

struct reader {
	int fd;
	int chunks, cut, lines, blanks, junk;
};

/* One read of up to CHUNK bytes, as Open MPI's IOF makes it; counts what
 * came whole.  Returns the bytes read. */
static ssize_t read_chunk(struct reader *r)
{
	char buf[CHUNK + 1];
	ssize_t n = read(r->fd, buf, CHUNK);
	char *s, *e;

	if (n <= 0)
		return n;
	r->chunks++;
	if (buf[n - 1] != '\n')
		r->cut++;
	buf[n] = '\0';
	for (s = buf; (e = strchr(s, '\n')); s = e + 1) {
		*e = '\0';
		if (strstr(s, "mpseek-test[") && strstr(s, " rank 1 info: m") && e[-1] == '.')
			r->lines++;
		else if (strspn(s, " ") == (size_t)(e - s))
			r->blanks++;
		else
			r->junk++;
	}
	return n;
}

static int queued(int fd)
{
	int q = 0;

	ioctl(fd, FIONREAD, &q);
	return q;
}

/* Log count messages of pseudo-random lengths into the pipe; the reader
 * keeps up (drain) when the pipe holds more than lag bytes, else lags:
 * it reads only whole chunks while more than one is queued, as mpirun does
 * when it wakes, so the chunk grid carries over from read to read. */
static void run(struct reader *r, int count, int lag, unsigned seed)
{
	char msg[MAX_LOG_LINE];
	int len;

	for (int i = 0; i < count; i++) {
		seed = seed * 1103515245u + 12345u;
		len = i % 50 == 49 ? MAX_LOG_LINE - 80 : 20 + (int)(seed >> 16) % 400;
		memset(msg, 'm', (size_t)len);
		msg[len] = '\0';
		log_msg(LOG_INFO, "%s.", msg);
		while (queued(r->fd) > lag)
			read_chunk(r);
		if (i % 7 == 0 && queued(r->fd) >= CHUNK)
			read_chunk(r);
	}
	while (queued(r->fd) > 0)
		read_chunk(r);
}

int main(void)
{
	int p[2], saved = dup(2);
	struct reader r = { 0 };
	char path[] = "/tmp/test-log-XXXXXX";
	int fd;

	log_set_prog("mpseek-test");
	log_set_rank(1);
	if (pipe(p) < 0 || saved < 0 || dup2(p[1], 2) < 0)
		return printf("Bail out! no pipe\n"), 1;
	r.fd = p[0];
	/* The alignment keeps the pipe at most one chunk short of full, and
	 * the default pipe (64 KB) is large enough for a lag of 40 KB. */
	ok(log_align_pipe(CHUNK) == 1, "stderr is a pipe: lines aligned to 4096-byte reads");
	ok(fcntl(2, F_GETPIPE_SZ) >= 1 << 20, "the pipe grown to 1 MB (%d)",
	   fcntl(2, F_GETPIPE_SZ));
	run(&r, 600, 40000, 1);
	is_int(r.lines, 600, "every line read back whole");
	is_int(r.cut, 0, "every 4096-byte read ends at a line's end (%d reads)", r.chunks);
	is_int(r.junk, 0, "nothing but log lines and blank padding lines");
	ok(r.blanks > 0, "a lagging reader needed padding (%d blank lines)", r.blanks);

	/* A reader that keeps up never sees padding. */
	memset(&r, 0, sizeof(r));
	r.fd = p[0];
	run(&r, 300, 0, 7);
	ok(r.lines == 300 && r.cut == 0 && r.blanks == 0, "a reader that keeps up: no padding");

	/* Without it (what log_close() restores), the same lagging reader
	 * splits lines: what the alignment is for. */
	log_close();
	memset(&r, 0, sizeof(r));
	r.fd = p[0];
	run(&r, 600, 40000, 1);
	ok(r.cut > 0, "unaligned, a lagging reader's reads cut lines (%d of %d)", r.cut, r.chunks);

	dup2(saved, 2);
	fd = mkstemp(path);
	if (fd >= 0) {
		close(fd);
		ok(log_open(path) == 0 && log_align_pipe(CHUNK) == 0, "a log file is not aligned");
		log_close();
		unlink(path);
	}
	dup2(p[1], 2);
	ok(log_align_pipe(100) == 0, "a chunk shorter than a log line is refused");
	ok(log_align_pipe(8192) == 0, "a chunk longer than an atomic pipe write is refused");
	dup2(saved, 2);
	return done_testing();
}
