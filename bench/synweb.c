/* synweb.c - a synthetic web for scale tests: one epoll thread serves H hosts
 * (one port each) whose N pages are made from their URL and a seed, so that a
 * crawl of millions of pages needs no files; and, with --list, the exact page
 * set and link graph it serves, to check a crawl's coverage and ranks.  This
 * file owns the sockets, the timers, --list and main(); the pages are
 * synweb-page.c's, HTTP synweb-http.c's.  Standalone (libc only, nothing of
 * mpseek); bench/README has the model and the measured speed.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "synweb.h"
#include "banned.h"

#define DEFAULT_PORT 18600
#define IN_MAX 4096                /* a request head, pipelined ones after it */
#define IDLE_US (60 * 1000000ull)  /* a connection silent this long is closed */
#define LINGER_US (2 * 1000000ull) /* how long a closing connection is read away */
#define MAX_EVENTS 512
#define MAX_DELAY_MS 600000

/* ---- the server: one epoll thread, edge-triggered connections ------------------- */

/* Logs "synweb: ..." to stderr; returns -1, so that `return fail(...)` reads well. */
__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("synweb: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

enum ev_kind { EV_LISTEN, EV_CONN, EV_SIGNAL };
enum conn_state { ST_RECV, ST_DELAY, ST_SEND, ST_LINGER };

/* A listening socket, or the signalfd (kind tells them apart in epoll data). */
struct listener {
	int kind;
	int fd;
	uint32_t host;
};

struct conn {
	int kind; /* EV_CONN */
	int fd;
	uint32_t host;
	uint8_t state;
	bool eof;                 /* the client half-closed: answer what was read, then close */
	bool in_full;             /* reading stopped at a full buffer: read again after a reply */
	struct conn *prev, *next; /* in s->delayed, s->lingering (by state) or s->active */
	uint64_t when;            /* µs: ST_DELAY the reply's due time, ST_LINGER the end of
	                             lingering, else the last activity */
	uint32_t in_len, req_len; /* bytes in in[]; of them, the request being answered */
	size_t sent;              /* ST_SEND: bytes of the response sent */
	struct reply rp;
	char in[IN_MAX];
};

/* A queue in time order.  Every delay is the same and every idle timeout is
 * the same, so appending at the tail keeps both queues sorted: a FIFO is the
 * timer heap of this server, O(1) each way. */
struct list {
	struct conn *head, *tail;
};

struct server {
	const struct web *web;
	int ep, spare_fd;    /* spare_fd: given up to accept and drop when out of fds */
	struct listener *ls; /* one per host; owned */
	struct listener sig;
	struct list active, delayed, lingering;
	struct conn *free_conns; /* closed connections kept for reuse (next-linked) */
	uint64_t now, delay_us, last_sweep;
	char *scratch; /* SCRATCH_BYTES: the response being sent; owned */
	uint64_t accepted, open, replies, bytes, shed;
	bool stop;
};

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void list_push(struct list *l, struct conn *c)
{
	c->next = NULL;
	c->prev = l->tail;
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
}

static void list_del(struct list *l, struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = NULL;
}

static void conn_touch(struct server *s, struct conn *c)
{
	list_del(&s->active, c);
	c->when = s->now;
	list_push(&s->active, c);
}

static struct list *conn_list(struct server *s, const struct conn *c)
{
	return c->state == ST_DELAY    ? &s->delayed
	       : c->state == ST_LINGER ? &s->lingering
	                               : &s->active;
}

static void conn_close(struct server *s, struct conn *c)
{
	list_del(conn_list(s, c), c);
	close(c->fd);
	c->next = s->free_conns;
	s->free_conns = c;
	s->open--;
}

/* Ends c after its last reply.  A client may still be sending (the rest of
 * a head too long, a body not read): closing now would answer that with a
 * reset, which can destroy the reply before the client reads it.  So the
 * write side is shut and what comes is read away until the client closes
 * or LINGER_US pass (nginx's lingering close). */
static void conn_finish(struct server *s, struct conn *c)
{
	if (c->eof || c->state == ST_LINGER || shutdown(c->fd, SHUT_WR) < 0) {
		conn_close(s, c);
		return;
	}
	list_del(conn_list(s, c), c);
	c->state = ST_LINGER;
	c->when = s->now + LINGER_US;
	list_push(&s->lingering, c);
}

/* ST_LINGER: reads what came and drops it; -1 when the client is done. */
static int conn_drain(struct conn *c)
{
	char sink[4096];
	ssize_t n;

	while ((n = recv(c->fd, sink, sizeof(sink), 0)) > 0)
		;
	return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -1;
}

/* Reads what the socket holds into c->in; -1 on an error (a reset). */
static int conn_read(struct conn *c)
{
	for (;;) {
		size_t room = IN_MAX - c->in_len;
		ssize_t n;

		if (room == 0) {
			c->in_full = true;
			return 0;
		}
		n = recv(c->fd, c->in + c->in_len, room, 0);
		if (n > 0) {
			c->in_len += (uint32_t)n;
			if ((size_t)n < room) /* drained: edge-triggered, the next data wakes us */
				return 0;
		} else if (n == 0) {
			c->eof = true;
			return 0;
		} else if (errno != EINTR) {
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
	}
}

static void conn_start_send(struct server *s, struct conn *c)
{
	c->state = ST_SEND;
	c->sent = 0;
	c->rp.date = time(NULL);
	(void)s;
}

/* Takes the next request from c->in.  Returns 0 when c has a reply to send
 * (now or after the delay), 1 when the request is not complete yet, -1 when
 * the connection is done (the client closed). */
static int conn_take(struct server *s, struct conn *c)
{
	struct request rq;
	long n = parse_request(c->in, c->in_len, &rq);

	if (n == 0 && c->in_len < IN_MAX)
		return c->eof ? -1 : 1;
	if (n <= 0) { /* malformed, or a head longer than IN_MAX */
		c->rp = (struct reply){ .kind = RP_BAD, .host = c->host, .close = true, .ims = -1 };
		c->req_len = c->in_len;
	} else {
		route(s->web, c->host, &rq, &c->rp);
		c->req_len = (uint32_t)n;
	}
	if (!s->delay_us) {
		conn_start_send(s, c);
		return 0;
	}
	list_del(&s->active, c);
	c->state = ST_DELAY;
	c->when = mono_us() + s->delay_us; /* not s->now: at least the delay from now */
	list_push(&s->delayed, c);
	return 0;
}

/* Sends (the rest of) c's response.  Returns 0 when it is out and c waits
 * for its next request, 1 when the socket is full, -1 to close. */
static int conn_send(struct server *s, struct conn *c)
{
	size_t len;
	const char *p = render(s->web, &c->rp, s->scratch, SCRATCH_BYTES, &len);

	while (c->sent < len) {
		ssize_t n = send(c->fd, p + c->sent, len - c->sent, MSG_NOSIGNAL);

		if (n > 0) {
			c->sent += (size_t)n;
			s->bytes += (uint64_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return 1;
		} else if (n == 0 || errno != EINTR) {
			return -1;
		}
	}
	s->replies++;
	if (c->rp.close)
		return -1;
	c->in_len -= c->req_len;
	memmove(c->in, c->in + c->req_len, c->in_len);
	c->req_len = 0;
	c->state = ST_RECV;
	conn_touch(s, c);
	if (c->in_full) {
		c->in_full = false;
		if (conn_read(c) < 0)
			return -1;
	}
	return 0;
}

/* Answers c's requests until it waits for input, the delay or the socket. */
static void conn_run(struct server *s, struct conn *c)
{
	int rc = 0;

	while (rc == 0 && c->state != ST_DELAY)
		rc = c->state == ST_RECV ? conn_take(s, c) : conn_send(s, c);
	if (rc < 0)
		conn_finish(s, c);
}

static void conn_event(struct server *s, struct conn *c, uint32_t ev)
{
	if ((ev & (EPOLLERR | EPOLLHUP)) || (c->state == ST_LINGER && conn_drain(c) < 0)) {
		conn_close(s, c);
		return;
	}
	if (c->state == ST_LINGER)
		return;
	if ((ev & (EPOLLIN | EPOLLRDHUP)) && conn_read(c) < 0) {
		conn_close(s, c);
		return;
	}
	if (c->state == ST_RECV || (c->state == ST_SEND && (ev & EPOLLOUT)))
		conn_run(s, c);
}

static void conn_open(struct server *s, uint32_t host, int fd)
{
	struct conn *c = s->free_conns;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET };
	int one = 1;

	if (c)
		s->free_conns = c->next;
	else if (!(c = malloc(sizeof(*c)))) {
		close(fd);
		return;
	}
	c->kind = EV_CONN;
	c->fd = fd;
	c->host = host;
	c->state = ST_RECV;
	c->eof = c->in_full = false;
	c->in_len = c->req_len = 0;
	c->when = s->now;
	ev.data.ptr = c;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		c->next = s->free_conns;
		s->free_conns = c;
		return;
	}
	list_push(&s->active, c);
	s->accepted++;
	s->open++;
}

/* Out of descriptors: accept the connection with the spare one and drop it,
 * so that the level-triggered listener does not wake us for it forever. */
static void shed_one(struct server *s, int lfd)
{
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	int fd = accept(lfd, NULL, NULL);
	if (fd >= 0)
		close(fd);
	s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->shed++ == 0)
		fail("out of file descriptors (RLIMIT_NOFILE): connections are being dropped");
}

static void on_accept(struct server *s, const struct listener *l)
{
	for (int i = 0; i < 256; i++) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			conn_open(s, l->host, fd);
		} else if (errno == EMFILE || errno == ENFILE) {
			shed_one(s, l->fd);
			return;
		} else if (errno != EINTR && errno != ECONNABORTED) {
			return;
		}
	}
}

/* Sends the replies whose delay is over, ends lingering, and closes
 * connections idle for IDLE_US (checked once a second). */
static void run_timers(struct server *s)
{
	while (s->delayed.head && s->delayed.head->when <= s->now) {
		struct conn *c = s->delayed.head;

		list_del(&s->delayed, c);
		conn_start_send(s, c);
		c->when = s->now;
		list_push(&s->active, c);
		conn_run(s, c);
	}
	while (s->lingering.head && s->lingering.head->when <= s->now)
		conn_close(s, s->lingering.head);
	if (s->now - s->last_sweep < 1000000)
		return;
	s->last_sweep = s->now;
	while (s->active.head && s->active.head->when + IDLE_US <= s->now)
		conn_close(s, s->active.head);
}

/* epoll_wait's timeout: until the first delayed reply is due, and at most a
 * second while connections are open (for lingering and the idle sweep). */
static int next_timeout(const struct server *s)
{
	uint64_t t = 1000000;

	if (!s->active.head && !s->delayed.head && !s->lingering.head)
		return -1;
	if (s->delayed.head)
		t = s->delayed.head->when <= s->now      ? 0
		    : s->delayed.head->when - s->now < t ? s->delayed.head->when - s->now
		                                         : t;
	return (int)((t + 999) / 1000);
}

static int server_loop(struct server *s)
{
	struct epoll_event ev[MAX_EVENTS];

	while (!s->stop) {
		s->now = mono_us();
		int n = epoll_wait(s->ep, ev, MAX_EVENTS, next_timeout(s));

		if (n < 0 && errno != EINTR)
			return fail("epoll_wait: %s", strerror(errno));
		s->now = mono_us();
		for (int i = 0; i < n; i++) {
			int kind = *(int *)ev[i].data.ptr;

			if (kind == EV_CONN)
				conn_event(s, ev[i].data.ptr, ev[i].events);
			else if (kind == EV_LISTEN)
				on_accept(s, ev[i].data.ptr);
			else
				s->stop = true; /* SIGINT or SIGTERM on the signalfd */
		}
		run_timers(s);
	}
	return 0;
}

/* Raises the soft RLIMIT_NOFILE to the hard one; fails when the listeners
 * alone would leave fewer than 64 descriptors for connections. */
static int raise_nofile(uint32_t hosts)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)hosts + 16;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return fail("getrlimit: %s", strerror(errno));
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? 1048576 : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 && getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return fail("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur < need + 64)
		return fail("%u hosts need %llu file descriptors and more for connections, but "
		            "RLIMIT_NOFILE allows %llu: raise the hard limit (ulimit -Hn, "
		            "limits.conf) or serve fewer hosts",
		            hosts, (unsigned long long)need, (unsigned long long)rl.rlim_cur);
	if (rl.rlim_cur < need + 10000)
		fail("RLIMIT_NOFILE %llu: at most %llu connections at once",
		     (unsigned long long)rl.rlim_cur, (unsigned long long)(rl.rlim_cur - need));
	return 0;
}

static int listen_on(struct server *s, const char *addr, uint32_t h)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(s->web->port + h) };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->ls[h] };
	int one = 1, fd;

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return fail("--bind %s: not an IPv4 address", addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail("socket: %s", strerror(errno));
	s->ls[h] = (struct listener){ .kind = EV_LISTEN, .fd = fd, .host = h };
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return fail("bind %s:%u: %s", addr, s->web->port + h, strerror(errno));
	if (listen(fd, 4096) < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		return fail("listen %s:%u: %s", addr, s->web->port + h, strerror(errno));
	return 0;
}

/* SIGINT and SIGTERM arrive on a signalfd in the loop, so that the loop
 * ends between two events and the exit is clean. */
static int catch_signals(struct server *s)
{
	sigset_t set;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &s->sig };

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return fail("sigprocmask: %s", strerror(errno));
	s->sig = (struct listener){ .kind = EV_SIGNAL, .fd = signalfd(-1, &set, SFD_CLOEXEC) };
	if (s->sig.fd < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->sig.fd, &ev) < 0)
		return fail("signalfd: %s", strerror(errno));
	return 0;
}

static void server_free(struct server *s)
{
	while (s->active.head)
		conn_close(s, s->active.head);
	while (s->delayed.head)
		conn_close(s, s->delayed.head);
	while (s->lingering.head)
		conn_close(s, s->lingering.head);
	while (s->free_conns) {
		struct conn *c = s->free_conns;

		s->free_conns = c->next;
		free(c);
	}
	for (uint32_t h = 0; s->ls && h < s->web->nhosts; h++)
		if (s->ls[h].fd >= 0)
			close(s->ls[h].fd);
	if (s->sig.fd >= 0)
		close(s->sig.fd);
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	if (s->ep >= 0)
		close(s->ep);
	free(s->ls);
	free(s->scratch);
}

static int serve(const struct web *w, const char *addr, unsigned delay_ms)
{
	struct server s = {
	    .web = w, .ep = -1, .spare_fd = -1, .sig.fd = -1, .delay_us = delay_ms * 1000ull};
	int rc = -1;

	if (raise_nofile(w->nhosts) < 0)
		return -1;
	s.ls = malloc(w->nhosts * sizeof(*s.ls));
	s.scratch = malloc(SCRATCH_BYTES);
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	s.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (!s.ls || !s.scratch || s.ep < 0) {
		fail("out of memory or descriptors");
		goto out;
	}
	for (uint32_t h = 0; h < w->nhosts; h++)
		s.ls[h].fd = -1;
	if (catch_signals(&s) < 0)
		goto out;
	for (uint32_t h = 0; h < w->nhosts; h++)
		if (listen_on(&s, addr, h) < 0)
			goto out;
	fprintf(stderr, "synweb: %u pages on %u hosts, http://%s:%u/ to :%u/, delay %u ms\n",
	        w->pages, w->nhosts, w->name, w->port, w->port + w->nhosts - 1, delay_ms);
	rc = server_loop(&s);
	fprintf(stderr, "synweb: %llu connections, %llu replies, %llu bytes%s\n",
	        (unsigned long long)s.accepted, (unsigned long long)s.replies,
	        (unsigned long long)s.bytes,
	        s.shed ? ", some connections dropped (RLIMIT_NOFILE)" : "");
out:
	server_free(&s);
	return rc;
}

/* ---- the page set and the link graph (--list) ------------------------------------ */

static void put_url_line(FILE *f, const struct web *w, const struct link *from,
                         const struct link *to)
{
	char line[2 * 128];
	struct out o = {line, line + sizeof(line), false};

	put_origin(&o, w, from->host);
	put_path(&o, from);
	if (to) {
		out_lit(&o, "\t");
		put_origin(&o, w, to->host);
		put_path(&o, to);
	}
	out_lit(&o, "\n");
	fwrite(line, 1, (size_t)(o.p - line), f);
}

static bool same_link(const struct link *a, const struct link *b)
{
	return a->kind == b->kind && a->level == b->level && a->host == b->host && a->id == b->id;
}

/* The edges of a page: its links resolved, without the dead, the
 * disallowed, itself and repeats. */
static void page_edges(FILE *f, const struct web *w, const struct link *from)
{
	struct link l[LINKS_MAX], to[LINKS_MAX];
	unsigned n = page_links(w, from->host, from->id, l), m = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned j = 0;

		if (!link_resolve(w, &l[i], &to[m]) || same_link(&to[m], from))
			continue;
		while (j < m && !same_link(&to[j], &to[m]))
			j++;
		if (j == m)
			put_url_line(f, w, from, &to[m++]);
	}
}

/* A section and, with edges, its links: home and its children. */
static void list_section(FILE *f, const struct web *w, uint32_t h, unsigned level, uint32_t k,
			 bool edges)
{
	struct link root = { .kind = LK_ROOT, .host = h }, from = section_link(h, level, k), to;
	uint32_t first, end;

	put_url_line(f, w, &from, edges ? &root : NULL);
	section_children(&w->hosts[h], level, k, &first, &end);
	for (uint32_t c = first; edges && c < end; c++) {
		to = section_link(h, level - 1, c);
		put_url_line(f, w, &from, &to);
	}
}

/* Host by host: the root, the sections from the top level down, the pages;
 * with edges, each followed by the pages it links to. */
static void list_host(FILE *f, const struct web *w, uint32_t h, bool edges)
{
	const struct host *hs = &w->hosts[h];
	struct link root = { .kind = LK_ROOT, .host = h }, from, to;

	if (!edges)
		put_url_line(f, w, &root, NULL);
	for (uint32_t k = 0; edges && k < hs->count[hs->levels]; k++) {
		to = section_link(h, hs->levels, k);
		put_url_line(f, w, &root, &to);
	}
	for (unsigned level = hs->levels; level >= 1; level--)
		for (uint32_t k = 0; k < hs->count[level]; k++)
			list_section(f, w, h, level, k, edges);
	for (uint32_t id = 0; id < hs->pages; id++) {
		from = section_link(h, 0, id);
		if (edges)
			page_edges(f, w, &from);
		else
			put_url_line(f, w, &from, NULL);
	}
}

static int list_web(const struct web *w, bool edges)
{
	size_t size = 1 << 20; /* tens of millions of lines: write in big blocks */
	char *buf = malloc(size);
	int rc = 0;

	if (buf)
		setvbuf(stdout, buf, _IOFBF, size);
	for (uint32_t h = 0; h < w->nhosts; h++)
		list_host(stdout, w, h, edges);
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = fail("writing the list: %s", strerror(errno));
	setvbuf(stdout, NULL, _IONBF, 0); /* stdout no longer uses buf */
	free(buf);
	return rc;
}

/* ---- options and main --------------------------------------------------------------- */

struct options {
	uint64_t pages, hosts, port, delay_ms, seed;
	const char *bind, *name, *list;
};

static const char usage[] =
    "usage: synweb [--pages N] [--hosts H] [--port P] [--delay-ms D] [--seed S]\n"
    "              [--bind ADDR] [--name HOST] [--list urls|edges]\n"
    "Serves N pages (default 1000000) on H hosts (default 64), host h on port P+h\n"
    "(default P 18600) of ADDR (default 127.0.0.1); absolute links name HOST\n"
    "(default ADDR, or 127.0.0.1 for 0.0.0.0).  Each response waits D ms (default 0).\n"
    "--list prints every URL a crawler keeps, or the link graph (SOURCE TAB TARGET),\n"
    "and exits.  bench/README describes the pages and links.\n";

static int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (!*s || *s == '-' || *end || errno || *v < min || *v > max)
		return fail("%s %s: want a number from %llu to %llu", opt, s,
		            (unsigned long long)min, (unsigned long long)max);
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
	    {"pages", required_argument, NULL, 'n'}, {"hosts", required_argument, NULL, 'H'},
	    {"port", required_argument, NULL, 'p'},  {"delay-ms", required_argument, NULL, 'd'},
	    {"seed", required_argument, NULL, 's'},  {"bind", required_argument, NULL, 'b'},
	    {"name", required_argument, NULL, 'N'},  {"list", required_argument, NULL, 'l'},
	    {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
	int c, rc = 0;

	*o = (struct options){
	    .pages = 1000000, .hosts = 64, .port = DEFAULT_PORT, .seed = 1, .bind = "127.0.0.1"};
	while (rc == 0 && (c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'n':
			rc = parse_u64("--pages", optarg, 1, MAX_PAGES, &o->pages);
			break;
		case 'H':
			rc = parse_u64("--hosts", optarg, 1, MAX_HOSTS, &o->hosts);
			break;
		case 'p':
			rc = parse_u64("--port", optarg, 1, 65535, &o->port);
			break;
		case 'd':
			rc = parse_u64("--delay-ms", optarg, 0, MAX_DELAY_MS, &o->delay_ms);
			break;
		case 's':
			rc = parse_u64("--seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case 'b':
			o->bind = optarg;
			break;
		case 'N':
			o->name = optarg;
			break;
		case 'l':
			o->list = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if (rc == 0 && optind < argc)
		rc = fail("unexpected argument %s\n%s", argv[optind], usage);
	if (rc == 0 && o->list && strcmp(o->list, "urls") != 0 && strcmp(o->list, "edges") != 0)
		rc = fail("--list %s: want urls or edges", o->list);
	if (rc == 0 && o->hosts > o->pages)
		rc = fail("--hosts %llu is more than --pages %llu", (unsigned long long)o->hosts,
		          (unsigned long long)o->pages);
	if (rc == 0 && o->port + o->hosts - 1 > 65535)
		rc = fail("ports %llu to %llu: past 65535", (unsigned long long)o->port,
		          (unsigned long long)(o->port + o->hosts - 1));
	if (!o->name)
		o->name = strcmp(o->bind, "0.0.0.0") == 0 ? "127.0.0.1" : o->bind;
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	struct web w;
	int rc;

	if (parse_options(argc, argv, &o) < 0)
		return 2;
	if (web_init(&w, o.seed, (uint32_t)o.pages, (uint32_t)o.hosts, (unsigned)o.port, o.name) <
	    0) {
		fail("out of memory");
		web_free(&w);
		return 1;
	}
	if (o.list)
		rc = list_web(&w, strcmp(o.list, "edges") == 0);
	else
		rc = serve(&w, o.bind, (unsigned)o.delay_ms);
	web_free(&w);
	return rc < 0 ? 1 : 0;
}
