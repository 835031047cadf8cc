/* conf_int.h - what the files of the config loader share, private to
 * src/common: the directive table's types, the parser's state, and the
 * helpers for the strings and arrays a struct conf owns.  The rest of mpseek
 * sees only include/conf.h.
 */
#ifndef MPSEEK_CONF_INT_H
#define MPSEEK_CONF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "caps.h"
#include "conf.h"

enum dtype {
	T_BOOL,        /* yes|no|on|off|1|0 into a bool */
	T_LONG,        /* decimal in [min, max] into a long */
	T_TIME,        /* time value (conf_parse_time) in [min, max] seconds */
	T_DELAY,       /* decimal seconds ("0.5") or a time value, into a double */
	T_STR,         /* one argument, copied */
	T_PATH,        /* one argument, resolved against the file's directory */
	T_FILTER,      /* one or more regexes; def is the enum conf_filter_kind */
	T_FIXED,       /* ASPseek storage flag: only the value in def is accepted */
	T_IGNORE,      /* ASPseek tuning knob with no meaning here: accepted */
	T_UNSUPPORTED, /* ASPseek directive mpseek refuses; sdef says why */
	T_FN,          /* special handler */
};

enum where { W_NONE, W_CONF, W_PARAMS };

struct parser;
struct directive;
typedef int (*handler_fn)(struct parser *p, const struct directive *d, int argc, char **argv);

/* The kinds bits of a directive: the files it is valid in. */
#define IDX (1u << CONF_INDEXER)
#define SRD (1u << CONF_SEARCHD)
#define TPL (1u << CONF_TEMPLATE)
#define ANY (IDX | SRD | TPL)

struct directive {
	const char *name;
	unsigned kinds;   /* bit (1 << enum conf_kind) per file it is valid in */
	enum dtype type;
	enum where where; /* struct conf or the sticky struct conf_server_params */
	size_t off;
	long def, min, max;
	int amin, amax;   /* argument count; amax < 0 = no upper limit */
	handler_fn fn;
	bool raw;         /* takes the rest of the line as one argument, unsplit */
	const char *sdef; /* string default (or T_UNSUPPORTED's reason) */
};

/* The vocabulary (conf_directives.c), conf_n_directives entries. */
extern const struct directive conf_directives[];
extern const size_t conf_n_directives;

struct loc {
	const char *file;
	int line;
};

struct parser {
	struct conf *c;
	unsigned flags;
	struct buf *err;
	struct conf_server_params cur; /* globals in force: each Server copies them */
	char *auth_next;               /* AuthBasic waiting for its Server (pooled) */
	const char *file;              /* current file, as shown in messages (in c->files) */
	char *dir;                     /* its directory, absolute (malloc'd) */
	int line;                      /* first physical line of the current logical line */
	const char *text;              /* the current logical line, trimmed, or NULL */
	int depth;
	struct { dev_t dev; ino_t ino; mode_t mode; } open[MAX_CONF_DEPTH]; /* files being read */
	struct loc *last;              /* where each directive was last seen, one per
	                                * conf_directives entry (malloc'd) */
	struct loc db_split;           /* first legacy DBHost/DBName/... line */
	bool failed;
	bool secret_warned;            /* the world-readable warning was given */
};

static inline bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f' || ch == '\r';
}

static inline bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static inline bool is_alnum(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* conf.c: the error of a load and the memory of a struct conf. */

/* Record "file:line: what: the line" in p->err (the first error only) and
 * return -1.  The message is forced onto one line. */
int conf_perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A directive holding a password (DBAddr with one, DBPass, AuthBasic) was
 * read: warn once when the file it came from is readable by every user. */
void conf_secret_note(struct parser *p);
/* Make room for element n of an array whose capacity is implicit: 8, then
 * doubled each time n reaches a power of two. */
void *conf_grow_array(void *arr, size_t n, size_t size);
/* s (malloc'd) becomes owned by c, freed by conf_free(); returns s. */
char *conf_pool_take(struct conf *c, char *s);
/* A copy of s owned by c. */
char *conf_pool_dup(struct conf *c, const char *s);
/* Append s to a conf_grow_array() array of strings. */
void conf_push_str(char ***arr, size_t *n, char *s);
/* dir + "/" + rel (or rel if absolute), with "//", "." and ".." collapsed
 * lexically.  dir is absolute.  Returns malloc'd. */
char *conf_join_path(const char *dir, const char *rel);
/* Read and parse one file, top level or Included from the current line;
 * `shown` names it in messages. */
int conf_load_file(struct parser *p, const char *path, const char *shown, bool top, bool vars);

/* conf_directives.c: from a directive's arguments to struct conf. */

/* Check and store the arguments of one directive line. */
int conf_apply(struct parser *p, const struct directive *d, int argc, char **argv);
/* Every default of the table, and those no single directive owns. */
int conf_apply_defaults(struct parser *p);

/* conf_server.c: the Server list and the URL filter chain. */

/* Add a Server with the parameters in force (p->cur) and a pending AuthBasic. */
int conf_add_server(struct parser *p, const char *url);
/* Compile an Allow/Disallow/CheckOnly regex onto the end of the chain. */
int conf_add_filter(struct parser *p, enum conf_filter_kind kind, const char *pattern);

#endif
