/* cgi_int.h - what the two files of s.cgi's page share (cgi.h is the
 * CGI layer's face): the page being answered.  cgi_page.c asks searchd and
 * chooses the page; cgi_render.c writes it through s.htm.
 */
#ifndef MPSEEK_CGI_INT_H
#define MPSEEK_CGI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "proto.h"

struct cgi_io;
struct cgi_params;
struct cgi_state;
struct conf;
struct tpl;

#define MULTI_MAX_PAGE 49            /* np with several daemons (each is asked pages 0..np) */
#define CGI_MAX_VARS 64              /* variables tpl_load() takes */

/* One ranked entry of the merged list: a hit and, when grouped, the second
 * hit of its site right after it. */
struct entry {
	const struct proto_hit *hit;
	const struct proto_hit *second;
	unsigned daemon;
};

struct page {
	struct cgi_state *st;     /* what the process keeps between requests */
	const struct cgi_io *io;  /* the request's environment and streams */
	const struct cgi_params *p;
	const struct conf *conf;
	const struct tpl *t;
	const char *action;       /* $A */
	const char *tmpl;         /* tmpl= as given (valid), or NULL */
	/* the request */
	const char *q_typed;      /* q as typed ($Q) */
	struct buf q;             /* the query sent: q, iq, xq, is, xs */
	long np, ps, o;
	bool by_date, group;
	const char *error;        /* $E: a text for people, or NULL */
	/* answers, one per daemon that answered */
	struct proto_results *res;
	size_t n_res;
	size_t *first;            /* indexes into res of each daemon's first answer */
	size_t n_first;
	struct buf errors;        /* daemons that failed, "addr: why\n" */
	struct entry *ent;        /* the entries shown */
	size_t n_ent;
	uint64_t total_results, total_urls;
	uint64_t total_sites;
	bool estimated;          /* some daemon's counts are estimates */
	double seconds, started;
	/* a cached copy */
	struct proto_cached *cached;
	/* while rendering */
	const struct entry *cur;
	const struct proto_hit *hit;
	const struct proto_clone *clone;
	long n_cur;               /* $DN */
	long nav;                 /* page of $NH / $NP */
	unsigned color;           /* $H: index into hicolors */
};

/* cgi_fcgi.c: the template at path with its configuration, loaded once and
 * again when the file changes (borrowed until the next call).  Returns 0,
 * -1 (err: a broken template) or -2 (no such file; err names the path). */
int state_template(struct cgi_state *st, const char *path, const struct conf **conf,
		   const struct tpl **t, struct buf *err);
/* cgi_fcgi.c: the default template of the process. */
const char *state_default_template(const struct cgi_state *st);
/* cgi_fcgi.c: a connection to searchd at addr: the one kept from an
 * earlier request (*reused set) or a new one.  Returns the socket (owned
 * by st) or -1 (err). */
int state_connect(struct cgi_state *st, const char *addr, int timeout_ms, bool *reused,
		  struct buf *err);
/* cgi_fcgi.c: close the connection to addr (it failed: the next
 * state_connect() makes a new one). */
void state_disconnect(struct cgi_state *st, const char *addr);

/* cgi_page.c: parameter `name`, "" when absent (borrowed from the request). */
const char *param(const struct page *pg, const char *name);
/* cgi_fcgi.c: the template at path with its configuration, loaded once and
 * again when the file changes (borrowed until the next call).  Returns 0,
 * -1 (err: a broken template) or -2 (no such file; err names the path). */
int state_template(struct cgi_state *st, const char *path, const struct conf **conf,
		   const struct tpl **t, struct buf *err);
/* cgi_fcgi.c: the default template of the process. */
const char *state_default_template(const struct cgi_state *st);
/* cgi_fcgi.c: a connection to searchd at addr: the one kept from an
 * earlier request (*reused set) or a new one.  Returns the socket (owned
 * by st) or -1 (err). */
int state_connect(struct cgi_state *st, const char *addr, int timeout_ms, bool *reused,
		  struct buf *err);
/* cgi_fcgi.c: close the connection to addr (it failed: the next
 * state_connect() makes a new one). */
void state_disconnect(struct cgi_state *st, const char *addr);

/* cgi_page.c: parameter `name` as a number within [lo, hi], dflt when absent
 * or not a number. */
long param_long(const struct page *pg, const char *name, long dflt, long lo, long hi);
/* cgi_page.c: is `name` spN (web space N, doc/CGI.md)?  *n is N. */
bool space_param(const char *name, uint32_t *n);

/* cgi_render.c: the sections (NULL-terminated; "*results" stands for the
 * hits) of s.htm appended to out: 0, or -1 at out's cap. */
int render(struct page *pg, struct buf *out, const char *const *sections);
/* cgi_render.c: the variables' names for tpl_load(), in the order var_cb
 * numbers them, into names (room for CGI_MAX_VARS); returns how many. */
size_t cgi_var_names(const char **names);
/* cgi_render.c: date t as YYYY-MM-DD ("" for 0). */
void fmt_date(uint64_t t, char *s, size_t n);
/* cgi_render.c: statistics of word i summed over the daemons (each one's
 * first answer). */
void word_sum(const struct page *pg, uint32_t i, uint64_t *urls, uint64_t *total);

#endif
