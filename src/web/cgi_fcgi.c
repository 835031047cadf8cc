/* cgi_fcgi.c - the s.cgi process: one plain CGI request, or a FastCGI
 * responder's loop (libfcgi's FCGX interface) that answers request after
 * request in one process; and what that process keeps between requests:
 * the templates it loaded (reloaded when the file changes) and one searchd
 * connection per DaemonAddress (re-established when it fails).  The page
 * itself is cgi_page.c's; nothing of a request outlives cgi_serve().
 */
#include "config.h"

#include <errno.h>
#include <fcgiapp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cgi.h"
#include "cgi_int.h"
#include "conf.h"
#include "log.h"
#include "proto.h"
#include "template.h"
#include "util.h"

#define STATE_MAX_TEMPLATES 16   /* templates kept (tmpl= picks among them) */
#define STATE_MAX_CONNS 64       /* searchd connections kept */
#define FCGI_BACKLOG 128         /* listen() backlog of --fastcgi SOCKET */
#define CGI_MAX_PROCESSES 64     /* --processes N */

/* A loaded template and the file it came from, as stat() saw it. */
struct tpl_slot {
	char *path;
	struct stat st;
	struct conf *conf;
	struct tpl *t;
};

struct conn_slot {
	char *addr;
	int fd;
};

struct cgi_state {
	const char *default_template;
	struct tpl_slot tpls[STATE_MAX_TEMPLATES];
	size_t n_tpls;
	struct conn_slot conns[STATE_MAX_CONNS];
	size_t n_conns;
};

struct cgi_state *cgi_state_new(const char *default_template)
{
	struct cgi_state *st = xcalloc(1, sizeof(*st));

	st->default_template = default_template;
	return st;
}

static void tpl_slot_free(struct tpl_slot *s)
{
	free(s->path);
	conf_free(s->conf);
	tpl_free(s->t);
	memset(s, 0, sizeof(*s));
}

void cgi_state_free(struct cgi_state *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->n_tpls; i++)
		tpl_slot_free(&st->tpls[i]);
	for (i = 0; i < st->n_conns; i++) {
		close(st->conns[i].fd);
		free(st->conns[i].addr);
	}
	free(st);
}

const char *state_default_template(const struct cgi_state *st)
{
	return st->default_template;
}

/* Drop template slot i, keeping the others in order (oldest first). */
static void drop_template(struct cgi_state *st, size_t i)
{
	tpl_slot_free(&st->tpls[i]);
	memmove(&st->tpls[i], &st->tpls[i + 1], (st->n_tpls - i - 1) * sizeof(st->tpls[0]));
	st->n_tpls--;
}

/* The same file, unchanged: inode, size and modification time (to the
 * nanosecond) as when it was loaded. */
static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

int state_template(struct cgi_state *st, const char *path, const struct conf **conf,
		   const struct tpl **t, struct buf *err)
{
	const char *names[CGI_MAX_VARS];
	size_t n_names = cgi_var_names(names), i;
	struct tpl_slot s;
	struct stat sb;

	if (stat(path, &sb)) {
		int e = errno;
		for (i = 0; i < st->n_tpls; i++)
			if (!strcmp(st->tpls[i].path, path))
				drop_template(st, i--);
		buf_printf(err, "%s: %s", path, strerror(e));
		return e == ENOENT || e == ENOTDIR ? -2 : -1;
	}
	for (i = 0; i < st->n_tpls; i++) {
		if (strcmp(st->tpls[i].path, path))
			continue;
		if (same_file(&st->tpls[i].st, &sb)) {
			*conf = st->tpls[i].conf;
			*t = st->tpls[i].t;
			return 0;
		}
		drop_template(st, i); /* changed: load it again */
		break;
	}
	memset(&s, 0, sizeof(s));
	if (conf_load(path, CONF_TEMPLATE, &s.conf, err) ||
	    tpl_load(path, names, n_names, &s.t, err)) {
		/* a broken template is not kept: the next request reads it again */
		tpl_slot_free(&s);
		return -1;
	}
	s.path = xstrdup(path);
	s.st = sb;
	if (st->n_tpls == STATE_MAX_TEMPLATES)
		drop_template(st, 0);
	st->tpls[st->n_tpls++] = s;
	*conf = s.conf;
	*t = s.t;
	return 0;
}

int state_connect(struct cgi_state *st, const char *addr, int timeout_ms, bool *reused,
		  struct buf *err)
{
	size_t i;
	int fd;

	*reused = false;
	for (i = 0; i < st->n_conns; i++) {
		if (!strcmp(st->conns[i].addr, addr)) {
			*reused = true;
			return st->conns[i].fd;
		}
	}
	fd = proto_connect(addr, timeout_ms, err);
	if (fd < 0)
		return -1;
	if (st->n_conns == STATE_MAX_CONNS) {
		/* more daemons than slots (many templates): forget the oldest */
		close(st->conns[0].fd);
		free(st->conns[0].addr);
		memmove(&st->conns[0], &st->conns[1], (st->n_conns - 1) * sizeof(st->conns[0]));
		st->n_conns--;
	}
	st->conns[st->n_conns].addr = xstrdup(addr);
	st->conns[st->n_conns].fd = fd;
	st->n_conns++;
	return fd;
}

void state_disconnect(struct cgi_state *st, const char *addr)
{
	size_t i;

	for (i = 0; i < st->n_conns; i++) {
		if (strcmp(st->conns[i].addr, addr))
			continue;
		close(st->conns[i].fd);
		free(st->conns[i].addr);
		memmove(&st->conns[i], &st->conns[i + 1],
			(st->n_conns - i - 1) * sizeof(st->conns[0]));
		st->n_conns--;
		return;
	}
}

/* ---- plain CGI: the process's environment, stdin and stdout ------------- */

static const char *cgi_get_env(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

static size_t cgi_read(void *ctx, char *p, size_t want, int timeout_ms)
{
	(void)ctx;
	return cgi_read_fd(0, p, want, timeout_ms);
}

static void cgi_write(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	if (fwrite(p, 1, n, stdout) == n)
		fflush(stdout);
}

/* ---- FastCGI: one FCGX request ------------------------------------------- */

static const char *fcgi_get_env(void *ctx, const char *name)
{
	return FCGX_GetParam(name, ((FCGX_Request *)ctx)->envp);
}

/* The web server sends the body with the request (nginx buffers it):
 * FCGX_GetStr blocks until it has it or the stream ends. */
static size_t fcgi_read(void *ctx, char *p, size_t want, int timeout_ms)
{
	FCGX_Request *r = ctx;
	size_t got = 0;

	(void)timeout_ms;
	while (got < want) {
		int chunk = want - got > (1u << 20) ? 1 << 20 : (int)(want - got);
		int n = FCGX_GetStr(p + got, chunk, r->in);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

static void fcgi_write(void *ctx, const void *p, size_t n)
{
	FCGX_Request *r = ctx;
	const char *s = p;

	while (n > 0) {
		int chunk = n > (1u << 20) ? 1 << 20 : (int)n;
		if (FCGX_PutStr(s, chunk, r->out) != chunk)
			return; /* the web server went away: nothing to tell it */
		s += chunk;
		n -= (size_t)chunk;
	}
}

/* SIGTERM/SIGINT: finish the request in hand, then leave the loop (the
 * accept() it interrupts returns an error once shutdown is pending). */
static void on_term(int sig)
{
	(void)sig;
	FCGX_ShutdownPending();
}

/* Serve FastCGI requests on listen_fd until a signal ends the loop. */
static int fcgi_loop(struct cgi_state *st, int listen_fd)
{
	struct sigaction sa;
	FCGX_Request r;
	struct cgi_io io = { fcgi_get_env, fcgi_read, fcgi_write, &r };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term; /* no SA_RESTART: accept() must see EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (FCGX_InitRequest(&r, listen_fd, FCGI_FAIL_ACCEPT_ON_INTR))
		return error("FastCGI: cannot set up a request");
	while (FCGX_Accept_r(&r) >= 0) {
		cgi_serve(st, &io);
		FCGX_Finish_r(&r);
	}
	FCGX_Free(&r, 1);
	return 0;
}

/* --fastcgi SOCKET --processes N: N-1 children accept on the same socket
 * beside the parent (libfcgi serialises accept()).  The parent's loop ends
 * on a signal; it then ends the children's and waits for them. */
static int fcgi_processes(struct cgi_state *st, int listen_fd, long n)
{
	pid_t *kids = xcalloc((size_t)n, sizeof(*kids));
	int rc;

	for (long i = 1; i < n; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			free(kids);
			return fcgi_loop(st, listen_fd) ? 1 : 0;
		}
		if (kids[i] < 0)
			warning("FastCGI: fork: %s: %ld processes", strerror(errno), i);
	}
	rc = fcgi_loop(st, listen_fd) ? 1 : 0;
	for (long i = 1; i < n; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGTERM);
	for (long i = 1; i < n; i++)
		if (kids[i] > 0)
			waitpid(kids[i], NULL, 0);
	free(kids);
	return rc;
}

static int usage(void)
{
	fprintf(stderr, "usage: s.cgi [--cgi | --fastcgi SOCKET [--processes N]]\n"
			"  run by a web server as a CGI program, or as a FastCGI application\n"
			"  (stdin a listening socket, or SOCKET: a unix socket path or :PORT,\n"
			"  served by N processes, default 1)\n");
	return 2;
}

int cgi_main(int argc, char **argv, const char *default_template)
{
	const char *sock = NULL;
	bool force_cgi = false;
	long procs = 1;
	pid_t parent = getpid();
	struct cgi_state *st;
	int fd, rc = 0, listen_fd = 0;

	/* A web server may start us with 0, 1 or 2 closed: keep those numbers
	 * off the sockets we open. */
	for (fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
			return 1;
	log_set_prog("s.cgi");
	log_set_level(LOG_WARN);
	/* a searchd or web server that went away is an error, not a death */
	signal(SIGPIPE, SIG_IGN);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cgi"))
			force_cgi = true;
		else if (!strcmp(argv[i], "--fastcgi") && i + 1 < argc)
			sock = argv[++i];
		else if (!strcmp(argv[i], "--processes") && i + 1 < argc &&
			 !parse_long(argv[i + 1], 1, CGI_MAX_PROCESSES, &procs))
			i++;
		else
			return usage();
	}
	if ((force_cgi && sock) || (procs > 1 && !sock))
		return usage();
	if (FCGX_Init()) {
		error("FastCGI: cannot initialise libfcgi");
		return 1;
	}
	st = cgi_state_new(default_template);
	if (sock) {
		if (sock[0] == '/')
			unlink(sock); /* a socket left by an earlier run */
		listen_fd = FCGX_OpenSocket(sock, FCGI_BACKLOG);
		if (listen_fd < 0) {
			error("FastCGI: cannot listen on %s", sock);
			rc = 1;
			goto out;
		}
		rc = fcgi_processes(st, listen_fd, procs);
	} else if (!force_cgi && !FCGX_IsCGI()) {
		rc = fcgi_loop(st, 0) ? 1 : 0;
	} else {
		struct cgi_io io = { cgi_get_env, cgi_read, cgi_write, NULL };
		cgi_serve(st, &io);
	}
out:
	if (sock && listen_fd > 0) {
		close(listen_fd);
		if (sock[0] == '/' && getpid() == parent) /* not a --processes child */
			unlink(sock);
	}
	cgi_state_free(st);
	return rc;
}
