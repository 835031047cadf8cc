/* dbserver.c - the embedded default database (include/dbserver.h): a private
 * mariadbd under DataDir/mysql, created by mariadb-install-db, started fully
 * detached so that it outlives the program that started it, found again by
 * its socket and stopped through its pid file.
 *
 * Process management only: whether the server answers, and creating the
 * database, go through db.c (the only file with SQL), which in turn knows
 * nothing of this file: the programs pass dbserver_socket_path() to
 * db_open().  Uses fork/exec, so it runs before MPI_Init.  Layout under DataDir:
 *   mysql/                 the MariaDB data directory, 0700: the socket lets
 *                          root in with no password, the mode keeps others out
 *   mysql/mysqld.sock      its unix socket
 *   mysql/mariadbd.pid     its pid file
 *   mysql/mariadbd.err     its error log
 *   mysql.lock             flock()ed while starting or stopping: concurrent
 *                          ranks start one server; the lock dies with its
 *                          holder, so a crash never leaves it stale
 *   mysql-install.log      output of the last mariadb-install-db (0600)
 *   mysql.new/             where mariadb-install-db writes; renamed to mysql/
 *                          when complete, so a half-made data dir never counts
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "db.h"
#include "dbserver.h"
#include "log.h"
#include "util.h"

#define START_TIMEOUT  60.0   /* seconds for mariadbd to accept connections */
#define STOP_TIMEOUT   60.0   /* seconds for mariadbd to exit after SIGTERM */
#define LOCK_TIMEOUT   300.0  /* seconds to wait for another starter */

struct paths {
	char *top;      /* DataDir, absolute */
	char *datadir;  /* top/mysql */
	char *sock;
	char *pidfile;
	char *errlog;
	char *lock;
	char *install_log;
	char *newdir;   /* top/mysql.new */
	char *tmpdir;   /* top/mysql-tmp: the server's own, never /tmp */
};

static void paths_free(struct paths *p)
{
	free(p->top);
	free(p->datadir);
	free(p->tmpdir);
	free(p->sock);
	free(p->pidfile);
	free(p->errlog);
	free(p->lock);
	free(p->install_log);
	free(p->newdir);
	memset(p, 0, sizeof(*p));
}

/* data_dir made absolute (mariadbd changes into its data directory, so a
 * relative path would point elsewhere), without trailing slashes. */
static char *abs_dir(const char *data_dir)
{
	char cwd[4096];
	char *s;
	size_t n;

	if (!data_dir || !*data_dir)
		data_dir = ".";
	if (data_dir[0] == '/')
		s = xstrdup(data_dir);
	else if (getcwd(cwd, sizeof(cwd)))
		s = xasprintf("%s/%s", cwd, data_dir);
	else
		s = xstrdup(data_dir);
	n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

static void paths_init(struct paths *p, const char *data_dir)
{
	p->top = abs_dir(data_dir);
	p->datadir = xasprintf("%s/mysql", p->top);
	p->sock = xasprintf("%s/mysqld.sock", p->datadir);
	p->pidfile = xasprintf("%s/mariadbd.pid", p->datadir);
	p->errlog = xasprintf("%s/mariadbd.err", p->datadir);
	p->lock = xasprintf("%s/mysql.lock", p->top);
	p->install_log = xasprintf("%s/mysql-install.log", p->top);
	p->newdir = xasprintf("%s/mysql.new", p->top);
	p->tmpdir = xasprintf("%s/mysql-tmp", p->top);
}

char *dbserver_socket_path(const char *data_dir)
{
	char *top = abs_dir(data_dir);
	char *s = xasprintf("%s/mysql/mysqld.sock", top);

	free(top);
	return s;
}

static int check_socket_len(const char *sock)
{
	struct sockaddr_un sun;

	if (strlen(sock) >= sizeof(sun.sun_path))
		return error("the embedded database's socket %s is %zu bytes long, but a unix "
			     "socket path can have at most %zu: use a shorter DataDir", sock,
			     strlen(sock), sizeof(sun.sun_path) - 1);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	UNUSED(st);
	UNUSED(ftw);
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		return error_errno("cannot remove %s", path);
	return 0;
}

static int rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : error_errno("cannot look at %s", path);
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The lock that serialises starting and stopping.  Returns the fd or -1. */
static int take_lock(const struct paths *p)
{
	double deadline = now_monotonic() + LOCK_TIMEOUT;
	bool said = false;
	int fd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return error_errno("cannot open lock file %s", p->lock);
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			error_errno("cannot lock %s", p->lock);
			close(fd);
			return -1;
		}
		if (now_monotonic() > deadline) {
			error("%s has been locked by another program for %.0f s: is an "
			      "mpseek-index stuck starting the database?", p->lock, LOCK_TIMEOUT);
			close(fd);
			return -1;
		}
		if (!said)
			debug("waiting for another program starting the embedded database (%s)",
			      p->lock);
		said = true;
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return fd;
}

static void release_lock(int fd)
{
	if (fd >= 0)
		close(fd); /* drops the flock */
}

/* The login name for --user (mariadbd refuses to run as root without it). */
static char *user_name(void)
{
	struct passwd *pw = getpwuid(geteuid());
	return pw && pw->pw_name ? xstrdup(pw->pw_name) : NULL;
}

static pid_t read_pid(const char *pidfile)
{
	char line[32];
	FILE *f = fopen(pidfile, "r");
	long v;
	size_t n;

	if (!f)
		return 0;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	line[strcspn(line, " \t\r\n")] = '\0';
	if (parse_long(line, 1, 0x7fffffff, &v))
		return 0;
	return (pid_t)v;
}

/* The fields of /proc/PID/stat after "pid (comm)", read into buf: from
 * the space before the state on (comm may hold spaces and parentheses, so
 * the last ')' ends it).  NULL when there is no such file. */
static const char *proc_stat(pid_t pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;
	size_t n;
	char *rp;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp ? rp + 1 : NULL;
}

/* Running, and not a zombie waiting for a parent that does not reap. */
static bool alive(pid_t pid)
{
	char buf[512];
	const char *st;

	if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
		return false;
	st = proc_stat(pid, buf, sizeof(buf));
	return !(st && st[0] == ' ' && (st[1] == 'Z' || st[1] == 'X'));
}

/* Is pid the mariadbd of this data directory?  Guards against a pid file
 * whose pid now belongs to another process (after a kill -9 and a reboot). */
static bool is_our_server(pid_t pid, const struct paths *p)
{
	char path[64], buf[8192];
	FILE *f;
	size_t n;
	char *want;
	bool ours = false;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return alive(pid); /* no /proc: trust the pid file */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	want = xasprintf("--datadir=%s", p->datadir);
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strcmp(buf + i, want))
			ours = true;
	free(want);
	return ours;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Log the last lines of a log file, [ERROR] lines preferred, so the reason
 * a server did not start is on the terminal. */
static void log_tail(const char *path)
{
	char buf[4096];
	char *lines[64];
	int n = 0, errors = 0, shown = 0;
	FILE *f = fopen(path, "r");
	long size;
	size_t got;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, size > (long)sizeof(buf) - 1 ? size - (long)sizeof(buf) + 1 : 0, SEEK_SET);
	got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	for (char *s = buf, *nl; *s && n < (int)ARRAY_SIZE(lines); s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s) - 1;
		else
			*nl = '\0';
		if (*s)
			lines[n++] = s;
		if (!nl[1])
			break;
	}
	for (int i = 0; i < n; i++)
		if (strstr(lines[i], "[ERROR]"))
			errors++;
	for (int i = 0; i < n; i++) {
		bool want = errors ? strstr(lines[i], "[ERROR]") != NULL : i >= n - 5;
		if (want && (errors <= 5 || shown < 5 || i >= n - 5)) {
			log_msg(LOG_ERROR, "  %s: %s", path, lines[i]);
			shown++;
		}
	}
}

/* Child side of a spawn: stdio to /dev/null (or out_fd for stdout/stderr),
 * every other descriptor closed, default signals. */
static void child_setup(int out_fd, int keep_fd)
{
	sigset_t none;
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, 0);
		dup2(out_fd >= 0 ? out_fd : null, 1);
		dup2(out_fd >= 0 ? out_fd : null, 2);
	}
	for (int fd = 3; fd < 4096; fd++)
		if (fd != keep_fd)
			close(fd);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
}

/* Did mariadb-install-db fail for want of space?  It says so only as an
 * errno ("preallocating ... failed with error 28", "Errcode: 28 "No space
 * left on device""): look for it in its log. */
static bool install_log_disk_full(const char *path)
{
	static const char *const says[] = { "error 28", "Errcode: 28", "errno: 28", "errno 28",
					    "No space left" };
	FILE *f = fopen(path, "r");
	char line[1024];
	bool full = false;

	if (!f)
		return false;
	while (!full && fgets(line, sizeof(line), f))
		for (size_t i = 0; i < ARRAY_SIZE(says) && !full; i++)
			full = strstr(line, says[i]) != NULL;
	fclose(f);
	return full;
}

/* mariadb-install-db into mysql.new, then rename to mysql; mysql.new is
 * removed when it fails (it holds nothing a later start could use). */
static int install_db(const struct paths *p, const char *user)
{
	char *a_datadir = xasprintf("--datadir=%s", p->newdir);
	char *a_tmp = xasprintf("--tmpdir=%s", p->tmpdir); /* its bootstrap server's */
	char *a_user = user ? xasprintf("--user=%s", user) : NULL;
	char *argv[] = { (char *)MARIADB_INSTALL_DB_PATH, (char *)"--no-defaults", a_datadir,
			 (char *)"--auth-root-authentication-method=normal",
			 (char *)"--skip-test-db", a_tmp, a_user, NULL };
	int log_fd = -1, status, rc = -1;
	pid_t pid;

	if (rm_rf(p->newdir))
		goto out;
	log_fd = open(p->install_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log_fd < 0) {
		error_errno("cannot create %s", p->install_log);
		goto out;
	}
	info("creating the embedded database in %s (mariadb-install-db, log in %s)", p->datadir,
	     p->install_log);
	pid = fork();
	if (pid < 0) {
		error_errno("fork");
		goto out;
	}
	if (pid == 0) {
		child_setup(log_fd, -1);
		if (chdir(p->top) < 0)
			_exit(126);
		execv(argv[0], argv);
		dprintf(1, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			error_errno("waitpid");
			goto out;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		error("cannot run %s (is the Debian package mariadb-server installed?); see %s",
		      MARIADB_INSTALL_DB_PATH, p->install_log);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		error("mariadb-install-db failed (%s %d) creating %s; its output is in %s",
		      WIFEXITED(status) ? "exit status" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), p->newdir,
		      p->install_log);
		log_tail(p->install_log);
		if (install_log_disk_full(p->install_log)) {
			struct statvfs fs;

			if (statvfs(p->top, &fs) == 0)
				error("disk full: %llu MB free on the file system of %s; the embedded "
				      "database needs more to be created (free space, then start again)",
				      (unsigned long long)fs.f_bavail * fs.f_frsize / (1024 * 1024),
				      p->top);
			else
				error("disk full: the file system of %s has no space for the embedded "
				      "database", p->top);
		}
		goto out;
	}
	if (rename(p->newdir, p->datadir) < 0) {
		error_errno("cannot rename %s to %s", p->newdir, p->datadir);
		goto out;
	}
	rc = 0;
out:
	if (rc && rm_rf(p->newdir) == 0)
		debug("removed %s", p->newdir);
	if (log_fd >= 0)
		close(log_fd);
	free(a_datadir);
	free(a_tmp);
	free(a_user);
	return rc;
}

/* The data directory for its owner only.  mariadb-install-db makes it
 * 0700, but mariadbd makes its socket 0777 and root logs in over it with no
 * password: the directory is all that keeps other local users out, so a
 * looser mode (a recursive chmod of DataDir, say) is put back at each start. */
static int make_private(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return error_errno("cannot look at %s", dir);
	if (!(st.st_mode & 077))
		return 0;
	if (chmod(dir, 0700) < 0)
		return error_errno("cannot make %s private (chmod 0700)", dir);
	warning("%s was mode %04o: made it 0700 again (its socket lets anyone who can reach it "
		"in as root)", dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* "host:port" -> --bind-address and --port.  Returns 0 or -1. */
static int parse_listen(const char *listen, char **bind, char **port)
{
	const char *colon = strrchr(listen, ':');
	long v;
	size_t hl;

	if (!colon || colon == listen || parse_long(colon + 1, 1, 65535, &v))
		return error("EmbeddedDBListen %s: expected host:port", listen);
	hl = (size_t)(colon - listen);
	if (listen[0] == '[' && hl > 2 && listen[hl - 1] == ']')
		*bind = xasprintf("--bind-address=%.*s", (int)(hl - 2), listen + 1);
	else
		*bind = xasprintf("--bind-address=%.*s", (int)hl, listen);
	*port = xasprintf("--port=%ld", v);
	return 0;
}

/* Start mariadbd detached (fork, setsid, fork): it belongs to no session of
 * ours, holds none of our descriptors, and survives mpirun ending the job.
 * *server gets its pid. */
static int start_server(const struct paths *p, const char *listen, long pool_mib, const char *user,
			pid_t *server)
{
	char *a_datadir = xasprintf("--datadir=%s", p->datadir);
	char *a_socket = xasprintf("--socket=%s", p->sock);
	char *a_pid = xasprintf("--pid-file=%s", p->pidfile);
	char *a_log = xasprintf("--log-error=%s", p->errlog);
	char *a_tmp = xasprintf("--tmpdir=%s", p->tmpdir);
	char *a_pool = xasprintf("--innodb-buffer-pool-size=%ldM",
				 pool_mib > 0 ? pool_mib : dbserver_pool_auto());
	char *a_user = user && geteuid() == 0 ? xasprintf("--user=%s", user) : NULL;
	char *a_bind = NULL, *a_port = NULL;
	char *argv[24];
	int n = 0, pfd[2] = { -1, -1 }, rc = -1, status, child_errno = 0;
	pid_t pid, gpid = 0;
	ssize_t got;

	if (listen && parse_listen(listen, &a_bind, &a_port))
		goto out;
	argv[n++] = (char *)MARIADBD_PATH;
	argv[n++] = (char *)"--no-defaults"; /* must come first: no /etc/mysql */
	argv[n++] = a_datadir;
	argv[n++] = a_socket;
	argv[n++] = a_pid;
	argv[n++] = a_log;
	/* A tmpdir of its own: at start-up mariadbd deletes every #sql file
	 * in its tmpdir, so a second server sharing /tmp removes the
	 * temporary tables of a running one ("Error on delete of
	 * /tmp/#sql-temptable-..." in the middle of a statement). */
	argv[n++] = a_tmp;
	if (a_user)
		argv[n++] = a_user;
	if (listen) {
		argv[n++] = a_bind;
		argv[n++] = a_port;
		argv[n++] = (char *)"--skip-name-resolve"; /* no DNS wait per connection */
	} else {
		argv[n++] = (char *)"--skip-networking";
	}
	argv[n++] = (char *)"--skip-log-bin";            /* no binlog: SKIP LOCKED needs none */
	argv[n++] = a_pool;
	argv[n++] = (char *)"--max-connections=512";     /* ranks x DBConnectionsPerRank */
	argv[n++] = (char *)"--max-allowed-packet=256M"; /* stored documents (MAX_DOC_BYTES) */
	argv[n++] = (char *)"--innodb-print-all-deadlocks=ON";
	argv[n++] = (char *)"--character-set-server=utf8mb4";
	argv[n] = NULL;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		error_errno("pipe");
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		error_errno("fork");
		goto out;
	}
	if (pid == 0) {
		pid_t g;
		int e;

		setsid();
		g = fork();
		if (g != 0)
			_exit(g < 0 ? 1 : 0);
		g = getpid();
		if (write(pfd[1], &g, sizeof(g)) < 0)
			_exit(1);
		child_setup(-1, pfd[1]);
		if (chdir("/") < 0)
			_exit(1);
		execv(argv[0], argv);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(1);
		_exit(127);
	}
	close(pfd[1]);
	pfd[1] = -1;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	got = read(pfd[0], &gpid, sizeof(gpid));
	if (got != (ssize_t)sizeof(gpid)) {
		error("could not start %s (fork failed)", MARIADBD_PATH);
		goto out;
	}
	got = read(pfd[0], &child_errno, sizeof(child_errno));
	if (got == (ssize_t)sizeof(child_errno)) {
		error("cannot run %s: %s (is the Debian package mariadb-server installed?)",
		      MARIADBD_PATH, strerror(child_errno));
		goto out;
	}
	*server = gpid;
	rc = 0;
out:
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	free(a_datadir);
	free(a_socket);
	free(a_pid);
	free(a_log);
	free(a_tmp);
	free(a_pool);
	free(a_user);
	free(a_bind);
	free(a_port);
	return rc;
}

/* Wait until the server answers on the socket; fail early if pid dies. */
static int wait_ready(const struct paths *p, pid_t pid)
{
	double deadline = now_monotonic() + START_TIMEOUT, d = 0.05;
	char *why = NULL;

	for (;;) {
		free(why);
		why = NULL;
		if (db_server_answers(p->sock, &why))
			break;
		if (!alive(pid)) {
			error("mariadbd (pid %ld) for %s exited during start-up; the end of its "
			      "error log %s:", (long)pid, p->datadir, p->errlog);
			log_tail(p->errlog);
			free(why);
			return -1;
		}
		if (now_monotonic() > deadline) {
			error("mariadbd (pid %ld) did not accept connections on %s within %.0f s "
			      "(%s); see %s", (long)pid, p->sock, START_TIMEOUT, why ? why : "?",
			      p->errlog);
			log_tail(p->errlog);
			free(why);
			return -1;
		}
		sleep_s(d);
		if (d < 0.5)
			d *= 2;
	}
	free(why);
	return 0;
}

long dbserver_pool_auto(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	long mib = pages > 0 && size > 0 ? (long)((double)pages * (double)size / 8 / 1048576) : 0;

	/* The claims read the URL table's pages at random: at 10^7 URLs (a
	 * few GB) a pool of 256 MiB sent most of them to the disk cache. */
	return mib < 128 ? 128 : mib > 4096 ? 4096 : mib;
}

int dbserver_ensure(const char *data_dir, const char *listen, long pool_mib, const char *dbname)
{
	struct paths p;
	char *user = NULL;
	pid_t pid;
	int lock = -1, rc = -1;

	paths_init(&p, data_dir);
	if (check_socket_len(p.sock) || mkdir_p(p.top))
		goto out;
	if (mkdir(p.tmpdir, 0700) < 0 && errno != EEXIST) {
		error_errno("mkdir %s", p.tmpdir);
		goto out;
	}
	lock = take_lock(&p);
	if (lock < 0)
		goto out;

	if (db_server_answers(p.sock, NULL)) {
		info("the embedded database is running (socket %s)", p.sock);
		goto create;
	}
	/* A server that runs but does not answer yet (crash recovery of an
	 * earlier start): wait for it rather than start a second one, which
	 * could not lock the data files anyway. */
	pid = read_pid(p.pidfile);
	if (pid && alive(pid) && is_our_server(pid, &p)) {
		info("waiting for mariadbd (pid %ld) of %s to accept connections", (long)pid,
		     p.datadir);
		if (wait_ready(&p, pid))
			goto out;
		goto create;
	}
	if (!is_dir(p.datadir)) {
		user = user_name();
		if (install_db(&p, user))
			goto out;
	} else {
		char *sys = xasprintf("%s/mysql", p.datadir);
		bool ok = is_dir(sys);
		free(sys);
		if (!ok) {
			error("%s exists but is not a MariaDB data directory (it has no mysql/ "
			      "system database): move it away or choose another DataDir",
			      p.datadir);
			goto out;
		}
		user = user_name();
	}
	if (make_private(p.datadir) || start_server(&p, listen, pool_mib, user, &pid) ||
	    wait_ready(&p, pid))
		goto out;
	info("started the embedded database: mariadbd pid %ld, socket %s%s%s", (long)pid, p.sock,
	     listen ? ", TCP " : "", listen ? listen : "");
create:
	rc = make_private(p.datadir) ? -1 : db_server_create_database(p.sock, dbname);
out:
	release_lock(lock);
	free(user);
	paths_free(&p);
	return rc;
}

int dbserver_stop(const char *data_dir)
{
	struct paths p;
	double deadline;
	pid_t pid;
	int lock = -1, rc = -1;

	paths_init(&p, data_dir);
	if (!is_dir(p.top)) {
		info("the embedded database of %s is not running (no such directory)", p.top);
		rc = 0;
		goto out;
	}
	lock = take_lock(&p);
	if (lock < 0)
		goto out;
	pid = read_pid(p.pidfile);
	if (!pid || !alive(pid) || !is_our_server(pid, &p)) {
		if (db_server_answers(p.sock, NULL)) {
			error("a server answers on %s but %s does not name it: stop it by hand",
			      p.sock, p.pidfile);
			goto out;
		}
		if (pid)
			unlink(p.pidfile); /* stale, from a server that was killed */
		info("the embedded database of %s is not running", p.top);
		rc = 0;
		goto out;
	}
	if (kill(pid, SIGTERM) < 0) {
		error_errno("cannot stop mariadbd (pid %ld)", (long)pid);
		goto out;
	}
	deadline = now_monotonic() + STOP_TIMEOUT;
	while (alive(pid)) {
		if (now_monotonic() > deadline) {
			error("mariadbd (pid %ld) did not stop within %.0f s of SIGTERM; see %s",
			      (long)pid, STOP_TIMEOUT, p.errlog);
			goto out;
		}
		sleep_s(0.1);
	}
	info("stopped the embedded database (mariadbd pid %ld)", (long)pid);
	rc = 0;
out:
	release_lock(lock);
	paths_free(&p);
	return rc;
}

int dbserver_running(const char *data_dir)
{
	char *sock = dbserver_socket_path(data_dir);
	int up = db_server_answers(sock, NULL);

	free(sock);
	return up;
}

double dbserver_cpu_seconds(const char *data_dir)
{
	struct paths p;
	char buf[1024];
	const char *st;
	unsigned long long ut, sy;
	double v = -1;
	pid_t pid;
	long hz = sysconf(_SC_CLK_TCK);

	paths_init(&p, data_dir);
	pid = read_pid(p.pidfile);
	/* State, then 10 fields before utime and stime (fields 14 and 15 of
	 * proc(5)). */
	if (pid > 0 && hz > 0 && is_our_server(pid, &p) &&
	    (st = proc_stat(pid, buf, sizeof(buf))) &&
	    sscanf(st, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &sy) == 2)
		v = (double)(ut + sy) / (double)hz;
	paths_free(&p);
	return v;
}
