/* searchd_main.c - main() of searchd: options and config.
 *
 * The query daemon itself arrives with the search issue; until then searchd
 * checks its config and data directory and says that no index is served.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "conf.h"
#include "log.h"
#include "util.h"

int main(int argc, char **argv)
{
	const char *path = SYSCONFDIR "/searchd.conf";
	struct buf err = BUF_INIT(4096);
	struct conf *c;

	log_set_prog("searchd");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: searchd [-F|-D] [config]\n");
			return 0;
		}
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("searchd %s\n", PACKAGE_VERSION);
			return 0;
		}
		if (argv[i][0] == '-' && strcmp(argv[i], "-F") && strcmp(argv[i], "-D")) {
			fprintf(stderr, "searchd: unknown option %s (try --help)\n", argv[i]);
			return 2;
		}
		if (argv[i][0] != '-')
			path = argv[i];
	}
	if (conf_load(path, CONF_SEARCHD, &c, &err)) {
		fprintf(stderr, "searchd: %s\n", buf_str(&err));
		buf_free(&err);
		return 2;
	}
	buf_free(&err);
	error("no index to serve under %s yet: run mpseek-index first", c->data_dir);
	conf_free(c);
	return 1;
}
