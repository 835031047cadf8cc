/* searchd_main.c - main() of searchd: options, config, searchd_run().
 *
 * `searchd [-F|-D] [-l logfile] [-P pidfile] [config]`; the daemon itself is
 * src/searchd.c (doc/SEARCHD.md).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "log.h"
#include "searchd.h"
#include "util.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: searchd -F|-D [options] [config]\n"
		"\n"
		"Answer queries over the index of mpseek-index (config default %s/searchd.conf).\n"
		"\n"
		"  -F              run in the foreground, log to stderr\n"
		"  -D              run as a daemon: detach, log to DataDir/searchd.log,\n"
		"                  write DataDir/searchd.pid\n"
		"  -l FILE         log to FILE\n"
		"  -P FILE         write the pid to FILE (locked while searchd runs)\n"
		"  -v              verbose (debug log: every query)\n"
		"      --check-config  parse the config, report errors and exit\n"
		"  -h, --help      this text\n"
		"  -V, --version   print the version\n",
		SYSCONFDIR);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "check-config", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct searchd_opts o = { 0 };
	const char *path = SYSCONFDIR "/searchd.conf";
	struct buf err = BUF_INIT(4096);
	struct conf *c;
	bool fg = false, check = false, verbose = false;
	int ch, rc;

	log_set_prog("searchd");
	umask_private(); /* DataDir is not for other users (doc/ADMIN.md, "Security") */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "FDl:P:vhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'F': fg = true; break;
		case 'D': o.daemonize = true; break;
		case 'l': o.log_file = optarg; break;
		case 'P': o.pid_file = optarg; break;
		case 'v': verbose = true; break;
		case 'c': check = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("searchd %s\n", PACKAGE_VERSION); return 0;
		default:
			if (optopt)
				fprintf(stderr, "searchd: option -%c: unknown or missing its argument "
					"(try --help)\n", optopt);
			else
				fprintf(stderr, "searchd: unknown option %s (try --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "searchd: more than one config file given (try --help)\n");
		return 2;
	}
	if (optind < argc)
		path = argv[optind];
	/* As ASPseek: without -F or -D searchd only explains itself. */
	if (!check && fg == o.daemonize) {
		fprintf(stderr, "searchd: give -F (foreground) or -D (daemon), not %s\n",
			fg ? "both" : "neither");
		usage(stderr);
		return 2;
	}
	if (conf_load(path, CONF_SEARCHD, &c, &err)) {
		fprintf(stderr, "searchd: %s\n", buf_str(&err));
		buf_free(&err);
		return 2;
	}
	buf_free(&err);
	if (check) {
		printf("%s: ok\n", c->path);
		conf_free(c);
		return 0;
	}
	log_set_level(verbose ? LOG_DEBUG : (enum log_level)c->debug_level);
	rc = searchd_run(c, &o);
	conf_free(c);
	return rc == 0 ? 0 : 1;
}
