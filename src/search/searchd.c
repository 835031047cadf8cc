/* searchd.c - the query daemon declared in searchd.h: its sockets, its
 * event loop and its start-up (searchd_int.h has the shared parts).
 *
 * Threads: the main thread runs one epoll loop that accepts (AllowFrom is
 * checked here), reads request frames of every connection without blocking
 * (an idle connection or one that trickles a frame costs no worker: idle and
 * frame timeouts close it) and hands whole frames to a bounded queue; a
 * fixed pool of MaxThreads workers answers them (searchd_work.c), each with
 * its own database connection, and gives the connection back to the loop
 * for its next request.  A reload thread watches index/current and swaps in
 * a new generation that passes its checks (searchd_reload.c); a log thread
 * writes the query log (table stat) in batches, off the query path.
 * Signals arrive through a signalfd in the loop: SIGHUP forces a reload
 * check, SIGTERM/SIGINT stop.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "proto.h"
#include "search.h"
#include "searchd.h"
#include "searchd_int.h"
#include "tokenize.h"
#include "util.h"

#define MAX_ALLOW 1024          /* AllowFrom entries after resolving names */
#define LINGER_MS 1000          /* reading what a refused client still sends */
#define LINGER_BYTES (256u << 10)

/* ---- small helpers -------------------------------------------------------- */

/* Lines about misbehaving clients (refused, bad frames, stalls, busy) are
 * limited to RATE_LINES per RATE_WINDOW seconds, so that a flood cannot
 * fill the disk; the next line that passes says how many were dropped. */
#define RATE_LINES 20
#define RATE_WINDOW 10.0

static pthread_mutex_t rate_mu = PTHREAD_MUTEX_INITIALIZER;
static double rate_start;
static unsigned rate_n, rate_dropped;

void client_log(enum log_level level, const char *fmt, ...)
{
	char line[MAX_LOG_LINE];
	unsigned dropped = 0;
	bool ok;
	double now = now_monotonic();
	va_list ap;

	pthread_mutex_lock(&rate_mu);
	if (now - rate_start >= RATE_WINDOW) {
		rate_start = now;
		rate_n = 0;
	}
	ok = rate_n < RATE_LINES;
	if (ok) {
		rate_n++;
		dropped = rate_dropped;
		rate_dropped = 0;
	} else {
		rate_dropped++;
	}
	pthread_mutex_unlock(&rate_mu);
	if (!ok)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (dropped)
		log_msg(level, "%s (and %u similar line(s) not logged)", line, dropped);
	else
		log_msg(level, "%s", line);
}

static void mutex_init(pthread_mutex_t *m)
{
	pthread_mutex_init(m, NULL);
}

/* A condition variable on the monotonic clock (timed waits ignore
 * changes of the wall clock). */
static void cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
}

/* The numeric address of sa into out (an IPv4-mapped IPv6 address as IPv4). */
static void addr_text(const struct sockaddr_storage *sa, char *out, size_t size)
{
	const void *p = NULL;
	int fam = sa->ss_family;

	if (fam == AF_INET) {
		p = &((const struct sockaddr_in *)sa)->sin_addr;
	} else if (fam == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		if (IN6_IS_ADDR_V4MAPPED(a)) {
			fam = AF_INET;
			p = &a->s6_addr[12];
		} else {
			p = a;
		}
	}
	if (!p || !inet_ntop(fam, p, out, (socklen_t)size))
		snprintf(out, size, "?");
}

/* ---- AllowFrom ------------------------------------------------------------ */

static int allow_push(struct server *s, int family, const void *addr, int bits)
{
	struct allow *a;

	if (s->n_allow >= MAX_ALLOW)
		return error("AllowFrom: more than %d addresses", MAX_ALLOW);
	a = &s->allow[s->n_allow++];
	memset(a, 0, sizeof(*a));
	a->family = family;
	memcpy(a->addr, addr, family == AF_INET ? 4 : 16);
	a->bits = bits;
	return 0;
}

/* One AllowFrom entry: ip, ip/bits, or a host name (every address it
 * resolves to now; names are not looked up again). */
static int allow_add(struct server *s, const char *entry)
{
	char ip[ADDR_LEN];
	const char *slash = strchr(entry, '/');
	uint8_t a[16];
	long bits = -1;
	struct addrinfo hints, *res = NULL, *ai;
	int k, rc = 0;

	if (slash) {
		if ((size_t)(slash - entry) >= sizeof(ip) || parse_long(slash + 1, 0, 128, &bits))
			return error("AllowFrom: bad entry %s", entry);
		memcpy(ip, entry, (size_t)(slash - entry));
		ip[slash - entry] = '\0';
	} else {
		snprintf(ip, sizeof(ip), "%s", entry);
	}
	if (inet_pton(AF_INET, ip, a) == 1)
		return bits > 32 ? error("AllowFrom: bad prefix in %s", entry)
				 : allow_push(s, AF_INET, a, bits < 0 ? 32 : (int)bits);
	if (inet_pton(AF_INET6, ip, a) == 1)
		return allow_push(s, AF_INET6, a, bits < 0 ? 128 : (int)bits);
	if (slash)
		return error("AllowFrom: bad address in %s", entry);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	k = getaddrinfo(entry, NULL, &hints, &res);
	if (k)
		return error("AllowFrom: cannot resolve %s: %s", entry, gai_strerror(k));
	for (ai = res; ai && !rc; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET)
			rc = allow_push(s, AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 32);
		else if (ai->ai_family == AF_INET6)
			rc = allow_push(s, AF_INET6,
					&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 128);
	}
	freeaddrinfo(res);
	return rc;
}

static bool prefix_match(const uint8_t *a, const uint8_t *b, int bits)
{
	int full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)full))
		return false;
	if (!rest)
		return true;
	return ((a[full] ^ b[full]) & (uint8_t)(0xFF << (8 - rest))) == 0;
}

static bool allowed(const struct server *s, const struct sockaddr_storage *sa)
{
	const uint8_t *p;
	int fam = sa->ss_family;

	if (s->allow_all)
		return true;
	if (fam == AF_INET) {
		p = (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr;
	} else if (fam == AF_INET6) {
		p = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
		if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)p)) {
			fam = AF_INET;
			p += 12;
		}
	} else {
		return false;
	}
	for (size_t i = 0; i < s->n_allow; i++)
		if (s->allow[i].family == fam && prefix_match(s->allow[i].addr, p, s->allow[i].bits))
			return true;
	return false;
}

/* ---- listening ------------------------------------------------------------ */

static int listen_all(struct server *s)
{
	const struct conf *c = s->c;
	struct addrinfo hints, *res = NULL, *ai;
	char port[16];
	int k, one = 1;

	snprintf(port, sizeof(port), "%ld", c->port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	k = getaddrinfo(c->listen, port, &hints, &res);
	if (k)
		return error("Listen %s: %s", c->listen, gai_strerror(k));
	for (ai = res; ai && s->n_lis < MAX_LISTEN; ai = ai->ai_next) {
		struct listener *l = &s->lis[s->n_lis];
		char host[ADDR_LEN];
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
				ai->ai_protocol);

		addr_text((const struct sockaddr_storage *)ai->ai_addr, host, sizeof(host));
		snprintf(l->name, sizeof(l->name), ai->ai_family == AF_INET6 ? "[%s]:%s" : "%s:%s",
			 host, port);
		if (fd < 0) {
			error_errno("socket for %s", l->name);
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 511)) {
			error_errno("cannot listen on %s", l->name);
			close(fd);
			continue;
		}
		l->kind = EV_LISTEN;
		l->fd = fd;
		s->n_lis++;
	}
	freeaddrinfo(res);
	if (!s->n_lis)
		return error("searchd has no socket to listen on (Listen %s, Port %ld)", c->listen,
			     c->port);
	return 0;
}

/* ---- connections (main thread) -------------------------------------------- */

static void conn_close(struct server *s, struct conn *cn)
{
	if (!cn->busy)
		epoll_ctl(s->ep, EPOLL_CTL_DEL, cn->fd, NULL);
	close(cn->fd);
	s->conns[cn->slot] = s->conns[--s->n_conns];
	s->conns[cn->slot]->slot = cn->slot;
	buf_free(&cn->payload);
	free(cn);
}

/* Send an ERROR frame without waiting (it fits any socket buffer). */
static void send_error_now(int fd, const char *token, const char *message)
{
	struct buf f = BUF_INIT(8192);

	if (!proto_encode_error(&f, token, message))
		(void)!send(fd, f.ptr, f.len, MSG_DONTWAIT | MSG_NOSIGNAL);
	buf_free(&f);
}

static void conn_linger(struct conn *cn);

/* Refuse: send the error, then linger (below). */
static void conn_refuse(struct conn *cn, const char *token, const char *msg)
{
	send_error_now(cn->fd, token, msg);
	conn_linger(cn);
}

static void conn_idle(struct conn *cn)
{
	cn->hdr_got = 0;
	cn->len = 0;
	buf_reset(&cn->payload);
	cn->deadline = now_monotonic() + SEARCHD_IDLE_MS / 1000.0;
}

/* Listening sockets in or out of the epoll set (out while no descriptor
 * is left for a new connection: level-triggered, they would spin). */
static void listen_pause(struct server *s, bool pause)
{
	struct epoll_event ev = { .events = EPOLLIN };

	for (size_t i = 0; i < s->n_lis; i++) {
		ev.data.ptr = &s->lis[i];
		epoll_ctl(s->ep, pause ? EPOLL_CTL_DEL : EPOLL_CTL_ADD, s->lis[i].fd, &ev);
	}
	s->accept_paused = pause;
}

static void accept_all(struct server *s, struct listener *l)
{
	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		struct epoll_event ev;
		struct conn *cn;
		char peer[ADDR_LEN];
		int fd = accept4(l->fd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				warning("accept on %s: %s: not accepting for %d ms", l->name,
					strerror(errno), SEARCHD_RELOAD_MS);
				listen_pause(s, true);
				s->accept_resume = now_monotonic() + SEARCHD_RELOAD_MS / 1000.0;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
				error_errno("accept on %s", l->name);
			}
			return;
		}
		addr_text(&sa, peer, sizeof(peer));
		if (s->n_conns >= s->max_conns) {
			client_log(LOG_WARN, "refused a connection from %s: %zu connections open",
				   peer, s->n_conns);
			send_error_now(fd, "ER_BUSY", "searchd has too many connections; try again.");
			close(fd);
			continue;
		}
		cn = xcalloc(1, sizeof(*cn));
		cn->kind = EV_CONN;
		cn->fd = fd;
		snprintf(cn->peer, sizeof(cn->peer), "%s", peer);
		buf_init(&cn->payload, SEARCHD_MAX_REQUEST);
		conn_idle(cn);
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.ptr = cn;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev)) {
			error_errno("epoll_ctl");
			close(fd);
			buf_free(&cn->payload);
			free(cn);
			continue;
		}
		cn->slot = s->n_conns;
		s->conns[s->n_conns++] = cn;
		if (!allowed(s, &sa)) {
			client_log(LOG_INFO, "refused a connection from %s: not in AllowFrom", peer);
			conn_refuse(cn, "ER_FORBIDDEN", "This address may not use searchd.");
		}
	}
}

/* Hand a whole frame to the workers, or refuse it when the queue is full.
 * Everything the worker reads is set before the connection is queued: from
 * then on it is the worker's. */
static void dispatch(struct server *s, struct conn *cn)
{
	bool queued = false;

	epoll_ctl(s->ep, EPOLL_CTL_DEL, cn->fd, NULL);
	cn->arrived = now_monotonic();
	cn->busy = true;
	cn->close_after = false;
	cn->next = NULL;
	pthread_mutex_lock(&s->job_mu);
	if (s->n_jobs < s->max_jobs) {
		if (s->job_tail)
			s->job_tail->next = cn;
		else
			s->job_head = cn;
		s->job_tail = cn;
		s->n_jobs++;
		queued = true;
		pthread_cond_signal(&s->job_cv);
	}
	pthread_mutex_unlock(&s->job_mu);
	if (queued) {
		s->busy++;
		return;
	}
	/* Not queued: still the loop's. */
	cn->busy = false;
	client_log(LOG_WARN, "%s: %zu requests waiting: answering ER_BUSY", cn->peer, s->max_jobs);
	conn_refuse(cn, "ER_BUSY", "searchd is busy; try again.");
	{
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = cn };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, cn->fd, &ev))
			cn->deadline = 0; /* closed by the next expire() */
	}
}

/* Read what cn has sent.  Returns 0 to keep it, -1 to close it. */
static int conn_read(struct server *s, struct conn *cn)
{
	struct buf err = BUF_INIT(512);
	char chunk[16384];
	int rc = 0;

	for (;;) {
		ssize_t n;

		if (cn->lingering) {
			n = recv(cn->fd, chunk, sizeof(chunk), MSG_DONTWAIT);
			if (n > 0 && (cn->lingered += (size_t)n) < LINGER_BYTES)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			rc = -1;
			break;
		}
		if (cn->hdr_got < PROTO_HEADER_SIZE) {
			n = recv(cn->fd, cn->hdr + cn->hdr_got, PROTO_HEADER_SIZE - cn->hdr_got,
				 MSG_DONTWAIT);
		} else {
			size_t want = cn->len - cn->payload.len;
			n = recv(cn->fd, chunk, want < sizeof(chunk) ? want : sizeof(chunk),
				 MSG_DONTWAIT);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			if (n < 0 || cn->hdr_got)
				debug("%s: %s", cn->peer, n < 0 ? strerror(errno)
								: "connection closed inside a frame");
			rc = -1;
			break;
		}
		if (cn->hdr_got < PROTO_HEADER_SIZE) {
			if (cn->hdr_got == 0) /* a frame begins: it must be whole in time */
				cn->deadline = now_monotonic() + SEARCHD_FRAME_MS / 1000.0;
			cn->hdr_got += (size_t)n;
			if (cn->hdr_got < PROTO_HEADER_SIZE)
				continue;
			if (proto_parse_header(cn->hdr, &cn->type, &cn->len, &err)) {
				client_log(LOG_WARN, "%s: %s", cn->peer, buf_str(&err));
				conn_refuse(cn, "ER_BADFRAME", buf_str(&err));
				continue;
			}
			if (cn->type != PROTO_SEARCH && cn->type != PROTO_CACHED &&
			    cn->type != PROTO_PING) {
				client_log(LOG_WARN, "%s: a frame of type %d is not a request", cn->peer,
					   cn->type);
				conn_refuse(cn, "ER_BADFRAME", "not a request");
				continue;
			}
			if (cn->type == PROTO_PING && cn->len) {
				/* doc/PROTOCOL.md: a PING is empty, and a payload is
				 * consumed exactly. */
				client_log(LOG_WARN, "%s: a PING with a payload of %u bytes", cn->peer,
					   cn->len);
				conn_refuse(cn, "ER_BADFRAME", "a PING carries no payload");
				continue;
			}
			if (cn->len > SEARCHD_MAX_REQUEST) {
				client_log(LOG_WARN, "%s: a request of %u bytes (at most %u)", cn->peer,
					   cn->len, SEARCHD_MAX_REQUEST);
				conn_refuse(cn, "ER_BADFRAME", "request over the size cap");
				continue;
			}
		} else if (buf_add(&cn->payload, chunk, (size_t)n)) {
			rc = -1; /* cannot happen: len <= the buffer's ceiling */
			break;
		}
		if (cn->payload.len == cn->len) {
			if (!cn->payload.ptr)
				buf_add(&cn->payload, "", 0);
			dispatch(s, cn);
			break; /* the next request is read after the answer */
		}
	}
	buf_free(&err);
	return rc;
}

/* Start lingering: stop writing, read and drop what the client still
 * sends for a moment before closing, so that an ERROR frame just sent is
 * not lost to a reset (closing with unread input sends RST). */
static void conn_linger(struct conn *cn)
{
	shutdown(cn->fd, SHUT_WR);
	cn->lingering = true;
	cn->lingered = 0;
	cn->deadline = now_monotonic() + LINGER_MS / 1000.0;
}

/* Connections the workers are done with: back to reading, lingering after
 * an ERROR answer, or closed when stopping. */
static void take_returns(struct server *s, bool stopping)
{
	struct conn *cn, *next;

	pthread_mutex_lock(&s->ret_mu);
	cn = s->ret_head;
	s->ret_head = NULL;
	pthread_mutex_unlock(&s->ret_mu);
	for (; cn; cn = next) {
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = cn };

		next = cn->next;
		cn->next = NULL;
		s->busy--;
		s->queries++;
		if (stopping) {
			conn_close(s, cn); /* busy: not in the epoll set */
			continue;
		}
		cn->busy = false;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, cn->fd, &ev)) {
			error_errno("epoll_ctl");
			conn_close(s, cn);
		} else if (cn->close_after) {
			conn_linger(cn);
		} else {
			conn_idle(cn);
		}
	}
}

/* Close connections past their deadline (idle, a frame too slow,
 * lingering).  Crowded (over 3/4 of max_conns open), an idle connection
 * gets SEARCHD_CROWDED_IDLE_MS instead of SEARCHD_IDLE_MS, so that idle
 * clients cannot keep new ones out for long. */
static void expire(struct server *s)
{
	double now = now_monotonic();
	bool crowded = s->n_conns > s->max_conns / 4 * 3;
	double cut = (SEARCHD_IDLE_MS - SEARCHD_CROWDED_IDLE_MS) / 1000.0;

	for (size_t i = 0; i < s->n_conns;) {
		struct conn *cn = s->conns[i];
		bool idle = !cn->lingering && !cn->hdr_got;

		if (cn->busy || (cn->deadline > now && !(crowded && idle && cn->deadline - cut <= now))) {
			i++;
			continue;
		}
		if (!idle && !cn->lingering)
			client_log(LOG_WARN, "%s: closing a connection that sent part of a frame "
				   "and stalled", cn->peer);
		else if (idle)
			debug("%s: closing an idle connection", cn->peer);
		conn_close(s, cn); /* moves the last slot to i */
	}
}

/* ---- start-up and the loop ------------------------------------------------ */

/* Room for SEARCHD_MAX_CONNS connections besides the database connections
 * and the rest: raise the soft descriptor limit as far as the hard one
 * allows, and take fewer connections if it stays low. */
static void size_connections(struct server *s)
{
	struct rlimit rl;
	rlim_t want = SEARCHD_MAX_CONNS + 2 * (rlim_t)s->c->max_threads + 64;

	s->max_conns = SEARCHD_MAX_CONNS;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur < want) {
		rlim_t spare = 2 * (rlim_t)s->c->max_threads + 64;
		s->max_conns = rl.rlim_cur > spare + 16 ? (size_t)(rl.rlim_cur - spare) : 16;
		warning("only %zu client connections: the descriptor limit is %llu", s->max_conns,
			(unsigned long long)rl.rlim_cur);
	}
}

static int load_tokenizer(struct server *s)
{
	const struct conf *c = s->c;

	s->tok = tok_new(c->min_word_length, c->max_word_length);
	for (size_t i = 0; i < c->n_stopword_files; i++)
		if (tok_load_stopwords(s->tok, c->stopword_files[i]))
			return -1;
	return 0;
}


static int setup_events(struct server *s)
{
	struct epoll_event ev;
	sigset_t set;

	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0)
		return error_errno("epoll_create1");
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	/* Blocked before any thread starts, so every thread inherits the mask
	 * and the signals arrive only through the signalfd. */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return error("cannot block signals");
	s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	s->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->sigfd < 0 || s->wakefd < 0)
		return error_errno("signalfd/eventfd");
	s->sig_kind = EV_SIGNAL;
	s->wake_kind = EV_WAKE;
	ev.events = EPOLLIN;
	ev.data.ptr = &s->sig_kind;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->sigfd, &ev))
		return error_errno("epoll_ctl");
	ev.data.ptr = &s->wake_kind;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->wakefd, &ev))
		return error_errno("epoll_ctl");
	for (size_t i = 0; i < s->n_lis; i++) {
		ev.data.ptr = &s->lis[i];
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->lis[i].fd, &ev))
			return error_errno("epoll_ctl");
	}
	return 0;
}

/* Returns 1 for a stop signal, 0 otherwise. */
/* The log file's absolute path when searchd logs to a file (-D, -l). */
static char *reopen_log_path;

static int read_signals(struct server *s)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			/* A rotated log file: write to a new one at the same path. */
			if (reopen_log_path && log_reopen(reopen_log_path) == 0)
				info("SIGHUP: log file %s reopened", reopen_log_path);
			pthread_mutex_lock(&s->rl_mu);
			s->rl_force = true;
			pthread_cond_signal(&s->rl_cv);
			pthread_mutex_unlock(&s->rl_mu);
		} else {
			info("%s: stopping (%zu request(s) being answered)",
			     si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT", s->busy);
			stop = 1;
		}
	}
	return stop;
}

static void loop(struct server *s)
{
	struct epoll_event evs[64];
	double next_expire = 0;
	bool stopping = false;

	while (!stopping) {
		int n = epoll_wait(s->ep, evs, (int)ARRAY_SIZE(evs), 100);

		if (n < 0 && errno != EINTR) {
			error_errno("epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++) {
			enum ev_kind kind = *(enum ev_kind *)evs[i].data.ptr;

			if (kind == EV_LISTEN) {
				accept_all(s, evs[i].data.ptr);
			} else if (kind == EV_SIGNAL) {
				if (read_signals(s))
					stopping = true;
			} else if (kind == EV_WAKE) {
				uint64_t v;
				(void)!read(s->wakefd, &v, sizeof(v));
			} else {
				struct conn *cn = evs[i].data.ptr;
				if (conn_read(s, cn))
					conn_close(s, cn);
			}
		}
		take_returns(s, false);
		if (s->accept_paused && now_monotonic() >= s->accept_resume)
			listen_pause(s, false);
		if (now_monotonic() >= next_expire) {
			expire(s);
			next_expire = now_monotonic() + 0.1;
		}
	}
}

/* Stop accepting, close what is idle, let the workers finish what they
 * have (queued requests are answered), then close the rest. */
static void shut_down(struct server *s)
{
	for (size_t i = 0; i < s->n_lis; i++) {
		if (!s->accept_paused)
			epoll_ctl(s->ep, EPOLL_CTL_DEL, s->lis[i].fd, NULL);
		close(s->lis[i].fd);
	}
	s->n_lis = 0;
	for (size_t i = 0; i < s->n_conns;) {
		if (s->conns[i]->busy)
			i++;
		else
			conn_close(s, s->conns[i]);
	}
	threads_stop(s);
	take_returns(s, true);
	info("stopped after %lu request(s)", s->queries);
}

static void server_free(struct server *s)
{
	threads_stop(s);
	while (s->n_conns)
		conn_close(s, s->conns[0]);
	for (size_t i = 0; i < s->n_lis; i++)
		close(s->lis[i].fd);
	if (s->dbs)
		for (size_t i = 0; i < (size_t)s->c->max_threads; i++)
			db_close(s->dbs[i]);
	db_close(s->st_db);
	pthread_mutex_lock(&s->st_mu);
	for (; s->st_n; s->st_n--, s->st_head = (s->st_head + 1) % SEARCHD_STAT_QUEUE)
		stat_row_free(s->st_rows[s->st_head]);
	pthread_mutex_unlock(&s->st_mu);
	search_index_unref(s->ix);
	search_rt_unref(s->rt);
	free(s->ix_link);
	free(s->failed_link);
	tok_free(s->tok);
	free(s->allow);
	free(s->conns);
	free(s->workers);
	free(s->dbs);
	if (s->ep >= 0)
		close(s->ep);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->wakefd >= 0)
		close(s->wakefd);
}

/* ---- daemon chores -------------------------------------------------------- */

/* Create and lock the pid file: another searchd holding it is an error. */
static int pid_file_open(const char *path, int *fdp)
{
	char line[32];
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	int n;

	*fdp = -1;
	if (fd < 0)
		return error_errno("cannot open the pid file %s", path);
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = (int)read(fd, line, sizeof(line) - 1);
		line[n > 0 ? n : 0] = '\0';
		line[strcspn(line, "\n")] = '\0';
		close(fd);
		return error("another searchd holds %s (pid %s)", path, *line ? line : "?");
	}
	n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, line, (size_t)n, 0) != n) {
		close(fd);
		return error_errno("cannot write the pid file %s", path);
	}
	*fdp = fd;
	return 0;
}

/* Fork into the background.  The parent waits for the child to say it
 * serves (a byte on a pipe) and exits 0, or 1 when the child failed, so
 * that `searchd -D` reports start-up errors in its exit status.  In the
 * child *ready_fd is the pipe to write to. */
static int daemonize(int *ready_fd, const char *log_path)
{
	int p[2];
	pid_t pid;
	char b;

	if (pipe2(p, O_CLOEXEC))
		return error_errno("pipe");
	pid = fork();
	if (pid < 0)
		return error_errno("fork");
	if (pid > 0) {
		ssize_t n;
		close(p[1]);
		do
			n = read(p[0], &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			fprintf(stderr, "searchd: the daemon did not start; see %s\n", log_path);
		_exit(n == 1 ? 0 : 1);
	}
	close(p[0]);
	if (setsid() < 0)
		return error_errno("setsid");
	pid = fork(); /* no controlling terminal, ever */
	if (pid < 0)
		return error_errno("fork");
	if (pid > 0)
		_exit(0);
	if (chdir("/"))
		return error_errno("chdir /");
	*ready_fd = p[1];
	return 0;
}

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

int searchd_run(const struct conf *c, const struct searchd_opts *o)
{
	struct server s;
	char *pid_path = NULL, *log_path = NULL;
	int pid_fd = -1, ready_fd = -1, rc = -1;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.ep = s.sigfd = s.wakefd = -1;
	mutex_init(&s.job_mu);
	cond_init(&s.job_cv);
	mutex_init(&s.ret_mu);
	mutex_init(&s.ix_mu);
	mutex_init(&s.rl_mu);
	cond_init(&s.rl_cv);
	mutex_init(&s.st_mu);
	cond_init(&s.st_cv);
	s.conns = xcalloc(SEARCHD_MAX_CONNS, sizeof(*s.conns));
	s.allow = xcalloc(MAX_ALLOW, sizeof(*s.allow));
	signal(SIGPIPE, SIG_IGN);

	/* Everything that can fail for a reason the admin must see happens
	 * before -D detaches: config, stopwords, the sockets. */
	s.allow_all = c->n_allow_from == 0;
	if (getenv("MPSEEK_SEARCHD_DELAY_MS") &&
	    parse_long(getenv("MPSEEK_SEARCHD_DELAY_MS"), 0, 10000, &s.test_delay_ms))
		s.test_delay_ms = 0;
	if (s.test_delay_ms)
		warning("MPSEEK_SEARCHD_DELAY_MS: every request waits %ld ms (a test hook)",
			s.test_delay_ms);
	for (size_t i = 0; i < c->n_allow_from; i++)
		if (allow_add(&s, c->allow_from[i]))
			goto out;
	size_connections(&s);
	if (!c->db.set && !dbserver_running(c->data_dir)) {
		error("the embedded database of %s is not running (start it with mpseek-index "
		      "--db-start, or set DBAddr)", c->data_dir);
		goto out;
	}
	if (load_tokenizer(&s) || listen_all(&s))
		goto out;
	if (o->daemonize || o->log_file) {
		log_path = o->log_file ? xstrdup(o->log_file) : xasprintf("%s/searchd.log", c->data_dir);
		if (log_open(log_path))
			goto out;
		/* Absolute: -D changes to / before a SIGHUP reopens it. */
		reopen_log_path = realpath(log_path, NULL);
	}
	if (o->pid_file || o->daemonize) {
		pid_path = o->pid_file ? xstrdup(o->pid_file) : xasprintf("%s/searchd.pid", c->data_dir);
		if (pid_path[0] != '/') { /* -D changes to / */
			char cwd[PATH_MAX], *abs;
			if (!getcwd(cwd, sizeof(cwd))) {
				error_errno("getcwd");
				goto out;
			}
			abs = xasprintf("%s/%s", cwd, pid_path);
			free(pid_path);
			pid_path = abs;
		}
	}
	if (o->daemonize && daemonize(&ready_fd, log_path))
		goto out;
	if (pid_path && pid_file_open(pid_path, &pid_fd))
		goto out;
	if (setup_events(&s))
		goto out;
	reload_check(&s, false);
	if (!s.ix && !s.failed_link)
		info("no index under %s/index yet: queries get ER_NOINDEX until mpseek-index "
		     "publishes one", c->data_dir);
	if (threads_start(&s))
		goto out;
	for (size_t i = 0; i < s.n_lis; i++)
		info("listening on %s (%ld worker(s), AllowFrom: %s)", s.lis[i].name, c->max_threads,
		     s.allow_all ? "anyone" : "the listed addresses");
	if (ready_fd >= 0) {
		(void)!write(ready_fd, "1", 1);
		close(ready_fd);
		ready_fd = -1;
		detach_stdio();
	}
	loop(&s);
	shut_down(&s);
	rc = 0;
out:
	if (ready_fd >= 0)
		close(ready_fd);
	server_free(&s);
	if (pid_fd >= 0) {
		unlink(pid_path);
		close(pid_fd);
	}
	free(pid_path);
	if (log_path)
		log_close();
	free(log_path);
	free(reopen_log_path);
	reopen_log_path = NULL;
	return rc;
}
