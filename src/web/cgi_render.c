/* cgi_render.c - s.htm rendered for one page of s.cgi (cgi_int.h): the
 * variables of the template, each written by its handler from a table,
 * highlighted text, the navigator and the links back to s.cgi.  What to
 * ask searchd and which sections make a page are cgi_page.c's; escaping
 * per context is template.c's.  Variables: doc/CGI.md.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cgi.h"
#include "cgi_int.h"
#include "conf.h"
#include "proto.h"
#include "template.h"
#include "util.h"

/* Parameters carried over into the links of a page (navigation, more from
 * this site), everything but np and st. */
static const char *const carry[] = {
	"q", "ps", "s", "gr", "o", "tmpl", "ul", "dt", "dp", "dx", "dd", "dm", "dy", "db",
	"de", "iq", "im", "xq", "xm", "is", "xs", "bd", "ds", "kw", "tl",
};

/* ---- rendering ------------------------------------------------------------ */

static int put_num(struct tpl_run *r, enum tpl_ctx ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int put_num(struct tpl_run *r, enum tpl_ctx ctx, const char *fmt, ...)
{
	char s[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(s))
		n = sizeof(s) - 1;
	return tpl_put_text(r, ctx, s, (size_t)n);
}

static int put_str(struct tpl_run *r, enum tpl_ctx ctx, const char *s)
{
	return tpl_put_text(r, ctx, s ? s : "", s ? strlen(s) : 0);
}

/* A section, or `dflt` as markup when the template has none. */
static int section_or(struct tpl_run *r, const char *name, const char *dflt)
{
	if (tpl_has(r->t, name))
		return tpl_render(r, name);
	return tpl_put_markup(r, TPL_HTML, dflt, strlen(dflt));
}

/* Highlighted text: the spans wrapped in `open`/`close` sections (markup in
 * element text only; elsewhere the plain text).  `colors`: set $H per
 * distinct term, for the cached copy. */
static int put_highlighted(struct tpl_run *r, enum tpl_ctx ctx, const struct proto_text *tx,
			   const char *open, const char *close, const char *dopen,
			   const char *dclose, bool colors)
{
	struct page *pg = r->arg;
	size_t pos = 0, len = strlen(tx->text);
	char terms[16][64];
	size_t n_terms = 0;
	uint32_t i;

	if (ctx != TPL_HTML || tx->n_spans == 0)
		return tpl_put_text(r, ctx, tx->text, len);
	for (i = 0; i < tx->n_spans; i++) {
		size_t s = tx->spans[2 * i], e = tx->spans[2 * i + 1];
		if (s < pos || e > len || s >= e)
			continue; /* proto.c checks; stay safe anyway */
		if (tpl_put_text(r, ctx, tx->text + pos, s - pos))
			return -1;
		if (colors) {
			/* one colour per distinct term (ASCII case-folded) */
			char term[64];
			size_t k, tl = e - s < sizeof(term) - 1 ? e - s : sizeof(term) - 1;
			for (k = 0; k < tl; k++) {
				char c = tx->text[s + k];
				term[k] = (c >= 'A' && c <= 'Z') ? (char)(c | 0x20) : c;
			}
			term[tl] = '\0';
			for (k = 0; k < n_terms && strcmp(terms[k], term); k++)
				;
			if (k == n_terms && n_terms < ARRAY_SIZE(terms))
				strlcpy_(terms[n_terms++], term, sizeof(terms[0]));
			pg->color = (unsigned)k;
		}
		if (section_or(r, open, dopen) ||
		    tpl_put_text(r, ctx, tx->text + s, e - s) || section_or(r, close, dclose))
			return -1;
		pos = e;
	}
	return tpl_put_text(r, ctx, tx->text + pos, len - pos);
}

/* $H: the colour of term pg->color, from the lines of section hicolors. */
static int put_color(struct tpl_run *r, enum tpl_ctx ctx)
{
	/* names: a value in a style attribute is CSS-escaped, '#' included */
	static const char *const dflt[] = { "yellow", "palegreen", "lightskyblue", "pink",
					    "orange", "plum" };
	struct page *pg = r->arg;
	size_t len, n = 0, i, want;
	const char *s = tpl_literal(r->t, "hicolors", r->variant, &len), *e, *line[32];
	size_t ll[32];

	while (s && len && n < ARRAY_SIZE(line)) {
		while (len && (*s == '\n' || *s == '\r' || *s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		if (!len)
			break;
		e = memchr(s, '\n', len);
		ll[n] = e ? (size_t)(e - s) : len;
		line[n] = s;
		while (ll[n] && (line[n][ll[n] - 1] == '\r' || line[n][ll[n] - 1] == ' '))
			ll[n]--;
		n++;
		s += e ? (size_t)(e - s) + 1 : len;
		len -= e ? (size_t)(e - line[n - 1]) + 1 : len;
	}
	if (n == 0) {
		want = pg->color % ARRAY_SIZE(dflt);
		return put_str(r, ctx, dflt[want]);
	}
	i = pg->color % n;
	return tpl_put_text(r, ctx, line[i], ll[i]);
}

/* A link back to s.cgi: $A?q=...&<carried parameters>[&st=][&np=]: st >= 0
 * that site, -1 the request's st= if any, -2 no st= (all sites). */
static void self_link(const struct page *pg, struct buf *b, long np, long st)
{
	size_t i, k;
	char sep = '?';

	buf_adds(b, pg->action);
	for (k = 0; k <= ARRAY_SIZE(carry); k++) {
		for (i = 0; i < pg->p->n; i++) {
			const struct cgi_param *cp = &pg->p->v[i];
			uint32_t sp;
			if (k < ARRAY_SIZE(carry) ? strcmp(cp->name, carry[k]) != 0
						  : !space_param(cp->name, &sp))
				continue;
			if (!cp->len && strcmp(cp->name, "q"))
				continue;
			buf_printf(b, "%c%s=", sep, cp->name);
			tpl_escape_component(b, cp->value, cp->len);
			sep = '&';
		}
	}
	if (st >= 0)
		buf_printf(b, "%cst=%ld", sep, st), sep = '&';
	else if (st == -1 && cgi_get(pg->p, "st") && *param(pg, "st"))
		buf_printf(b, "%cst=%ld", sep, param_long(pg, "st", 0, 0, UINT32_MAX)), sep = '&';
	if (np > 0)
		buf_printf(b, "%cnp=%ld", sep, np);
}

static int put_link(struct tpl_run *r, enum tpl_ctx ctx, long np, long st)
{
	struct buf b = BUF_INIT(1 << 17);
	int rc;

	self_link(r->arg, &b, np, st);
	rc = tpl_put_url(r, ctx, b.ptr ? b.ptr : "", b.len);
	buf_free(&b);
	return rc;
}

static long n_pages(const struct page *pg)
{
	uint64_t n = (pg->total_results + (uint64_t)pg->ps - 1) / (uint64_t)pg->ps;
	uint64_t cap = pg->conf->n_daemon_addresses > 1 ? MULTI_MAX_PAGE + 1 : PROTO_MAX_PAGE + 1;
	return (long)(n > cap ? cap : n);
}

static int nav_bar(struct tpl_run *r)
{
	struct page *pg = r->arg;
	long per = pg->conf->pages_per_screen, total = n_pages(pg);
	long first = pg->np - per / 2, last, i;

	if (first + per > total)
		first = total - per;
	if (first < 0)
		first = 0;
	last = first + per < total ? first + per : total;
	for (i = first; i < last; i++) {
		pg->nav = i;
		if (tpl_render(r, i == pg->np ? "navbar0" : "navbar1"))
			return -1;
	}
	return 0;
}

void fmt_date(uint64_t t, char *s, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t || !gmtime_r(&tt, &tm) || !strftime(s, n, "%Y-%m-%d", &tm))
		s[0] = '\0';
}

/* Statistics of word i, summed over the daemons (each one's first answer). */
void word_sum(const struct page *pg, uint32_t i, uint64_t *urls, uint64_t *total)
{
	size_t d;

	*urls = *total = 0;
	for (d = 0; d < pg->n_first; d++) {
		const struct proto_results *x = &pg->res[pg->first[d]];
		if (i < x->n_words) {
			*urls += x->words[i].urls;
			*total += x->words[i].total;
		}
	}
}

/* $W: each word with what its numbers are ("home: 93 pages, 412 times"). */
static int put_words(struct tpl_run *r, enum tpl_ctx ctx)
{
	struct page *pg = r->arg;
	struct buf b = BUF_INIT(1 << 16);
	uint64_t urls, total;
	uint32_t i;
	int rc;

	for (i = 0; pg->n_res && i < pg->res[0].n_words; i++) {
		const char *sep = i ? "; " : "";
		word_sum(pg, i, &urls, &total);
		if (pg->res[0].words[i].stopword)
			buf_printf(&b, "%s%s: a stopword, not searched", sep, pg->res[0].words[i].word);
		else
			buf_printf(&b, "%s%s: %llu page%s, %llu time%s", sep, pg->res[0].words[i].word,
				   (unsigned long long)urls, urls == 1 ? "" : "s",
				   (unsigned long long)total, total == 1 ? "" : "s");
	}
	rc = tpl_put_text(r, ctx, b.ptr ? b.ptr : "", b.len);
	buf_free(&b);
	return rc;
}

/* ---- the variables of s.htm ----------------------------------------------- */

struct var;

/* What a variable's handler gets. */
struct var_call {
	struct tpl_run *r;
	struct page *pg;
	const struct var *v;
	long num;                 /* the number after a name ending in '#' ($r5), else -1 */
	enum tpl_ctx ctx;
};

/* The request as the page shows it. */
static int v_query(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->q_typed);
}

static int v_action(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->action);
}

static int v_tmpl(const struct var_call *c)
{
	char s[64];

	if (!c->pg->tmpl)
		return 0;
	snprintf(s, sizeof(s), "&tmpl=%s", c->pg->tmpl);
	return tpl_put_url(c->r, c->ctx, s, strlen(s));
}

static int v_ps(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%ld", c->pg->ps);
}

static int v_sort(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->by_date ? "date" : "rate");
}

static int v_np(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%ld", c->pg->np);
}

static int v_group(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->group ? "on" : "off");
}

static int v_variant(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%ld", c->pg->o);
}

/* A parameter as given (arg names it): ul, st, and bd ds kw tl for
 * checked="$tl". */
static int v_param(const struct var_call *c);

/* A constant text (arg). */
static int v_const(const struct var_call *c);

/* $r5: a number below 5 that changes from request to request. */
static int v_random(const struct var_call *c)
{
	unsigned long x = (unsigned long)(c->pg->started * 1e6) ^ (unsigned long)getpid();

	return put_num(c->r, c->ctx, "%lu", c->num > 0 ? x % (unsigned long)c->num : 0);
}

static int v_error(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->error);
}

/* The results as a whole. */
static int v_first(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%ld", c->pg->n_ent ? c->pg->np * c->pg->ps + 1 : 0);
}

static int v_last(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%ld", c->pg->np * c->pg->ps + (long)c->pg->n_ent);
}

static int v_total(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%llu", (unsigned long long)c->pg->total_results);
}

static int v_total_urls(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%llu", (unsigned long long)c->pg->total_urls);
}

/* $PW, $SW: "93 pages", "1 site". */
static int v_pages_word(const struct var_call *c)
{
	uint64_t n = c->pg->total_urls;
	return put_num(c->r, c->ctx, "%llu page%s", (unsigned long long)n, n == 1 ? "" : "s");
}

static int v_sites_word(const struct var_call *c)
{
	uint64_t n = c->pg->total_sites;
	return put_num(c->r, c->ctx, "%llu site%s", (unsigned long long)n, n == 1 ? "" : "s");
}

/* $SL: the section sitelimit when st= limits the results to one site. */
static int v_site_limit(const struct var_call *c)
{
	if (param_long(c->pg, "st", 0, 0, UINT32_MAX) > 0 && c->pg->n_ent)
		return tpl_render(c->r, "sitelimit");
	return 0;
}

/* $SD: the site st= limits to (that of the first result). */
static int v_limit_site(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->n_ent ? c->pg->ent[0].hit->site : "");
}

/* $SA: the same search on all sites. */
static int v_all_sites(const struct var_call *c)
{
	return put_link(c->r, c->ctx, 0, -2);
}

static int v_words(const struct var_call *c)
{
	return put_words(c->r, c->ctx);
}

static int v_seconds(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%.3f", c->pg->seconds);
}

static int v_color(const struct var_call *c)
{
	return put_color(c->r, c->ctx);
}

/* The navigator: none for a single page. */
static int v_navigator(const struct var_call *c)
{
	return n_pages(c->pg) > 1 ? tpl_render(c->r, "navigator") : 0;
}

static int v_nav_left(const struct var_call *c)
{
	if (c->pg->np > 0) {
		c->pg->nav = c->pg->np - 1;
		return tpl_render(c->r, "navleft");
	}
	return tpl_render(c->r, "navleft0");
}

static int v_nav_right(const struct var_call *c)
{
	if (c->pg->np + 1 < n_pages(c->pg)) {
		c->pg->nav = c->pg->np + 1;
		return tpl_render(c->r, "navright");
	}
	return tpl_render(c->r, "navright0");
}

static int v_nav_bar(const struct var_call *c)
{
	return nav_bar(c->r);
}

static int v_nav_link(const struct var_call *c)
{
	return put_link(c->r, c->ctx, c->pg->nav, -1);
}

static int v_nav_page(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%ld", c->pg->nav + 1);
}

/* Of the document shown: a hit, a clone of it, or the cached copy. */
static int v_cached_text(const struct var_call *c)
{
	const struct proto_cached *cc = c->pg->cached;

	return cc ? put_highlighted(c->r, c->ctx, &cc->text, "hiopen", "hiclose", "<mark>",
				    "</mark>", true) : 0;
}

static int v_url(const struct var_call *c)
{
	const struct page *pg = c->pg;
	const struct proto_cached *cc = pg->cached;

	return put_str(c->r, c->ctx, pg->clone ? pg->clone->url : pg->hit ? pg->hit->url :
				     cc ? cc->url : NULL);
}

static int v_date(const struct var_call *c)
{
	const struct proto_hit *h = c->pg->hit;
	const struct proto_cached *cc = c->pg->cached;
	char s[64];

	fmt_date(h ? h->last_modified : cc ? cc->last_index_time : 0, s, sizeof(s));
	return put_str(c->r, c->ctx, s);
}

static int v_content_type(const struct var_call *c)
{
	const struct proto_hit *h = c->pg->hit;
	const struct proto_cached *cc = c->pg->cached;

	return put_str(c->r, c->ctx, h ? h->content_type : cc ? cc->content_type : "");
}

/* Of a hit only (the table's `hit`: nothing outside one). */
static int v_title(const struct var_call *c)
{
	const struct proto_hit *h = c->pg->hit;

	if (!h->title.text[0])
		return put_str(c->r, c->ctx, h->url);
	return put_highlighted(c->r, c->ctx, &h->title, "hiexopen", "hiexclose", "<b>", "</b>",
			       false);
}

static int v_score(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%.4f", c->pg->hit->score);
}

static int v_excerpts(const struct var_call *c)
{
	const struct proto_hit *h = c->pg->hit;
	struct tpl_run *r = c->r;

	for (uint32_t i = 0; i < h->n_excerpts; i++) {
		if (c->ctx == TPL_HTML && section_or(r, "exopen", ""))
			return -1;
		if (put_highlighted(r, c->ctx, &h->excerpts[i], "hiexopen", "hiexclose", "<b>",
				    "</b>", false))
			return -1;
		if (c->ctx == TPL_HTML ? section_or(r, "exclose", " &hellip; ")
				       : tpl_put_text(r, c->ctx, " ... ", 5))
			return -1;
	}
	if (h->n_excerpts == 0)
		return put_highlighted(r, c->ctx, &h->description, "hiexopen", "hiexclose", "<b>",
				       "</b>", false);
	return 0;
}

static int v_size(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%u", c->pg->hit->size);
}

static int v_size_kb(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%u", (c->pg->hit->size + 1023) / 1024);
}

static int v_size_unit(const struct var_call *c)
{
	return tpl_render(c->r, c->pg->hit->size < 1024 ? "sizeb" : "sizek");
}

static int v_number(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%ld", c->pg->n_cur);
}

static int v_description(const struct var_call *c)
{
	return put_highlighted(c->r, c->ctx, &c->pg->hit->description, "hiexopen", "hiexclose",
			       "<b>", "</b>", false);
}

static int v_keywords(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->hit->keywords);
}

/* A template section (arg). */
static int v_section(const struct var_call *c);

static int v_clones(const struct var_call *c)
{
	struct page *pg = c->pg;
	const struct proto_hit *h = pg->hit;

	if (!pg->conf->show_clones)
		return 0;
	for (uint32_t i = 0; i < h->n_clones; i++) {
		pg->clone = &h->clones[i];
		if (tpl_render(c->r, "clone")) {
			pg->clone = NULL;
			return -1;
		}
	}
	pg->clone = NULL;
	return 0;
}

/* "More from this site" when the site has hits not shown. */
static int v_more(const struct var_call *c)
{
	const struct page *pg = c->pg;

	if (pg->group && pg->hit->site_hits > (pg->cur && pg->cur->second ? 2u : 1u) &&
	    !cgi_get(pg->p, "st"))
		return tpl_render(c->r, "moreurls");
	return 0;
}

static int v_site(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->pg->hit->site);
}

static int v_site_link(const struct var_call *c)
{
	return put_link(c->r, c->ctx, 0, c->pg->hit->site_id);
}

static int v_site_hits(const struct var_call *c)
{
	return put_num(c->r, c->ctx, "%u", c->pg->hit->site_hits);
}

static int v_results(const struct var_call *c)
{
	return tpl_render(c->r, c->pg->group ? "ressites" : "resurls");
}

/* The variables of s.htm (doc/CGI.md, "Variables", after ASPseek 1.2): a name
 * (a trailing '#' lets a number follow it), its handler, the handler's
 * argument, and whether it belongs to a hit. */
static const struct var {
	const char *name;
	int (*put)(const struct var_call *c);
	const char *arg;
	bool hit;
} vars[] = {
	{ "Q", v_query, NULL, false },         { "QF", v_query, NULL, false },
	{ "q", v_query, NULL, false },         { "A", v_action, NULL, false },
	{ "P", v_tmpl, NULL, false },          { "c", v_const, "UTF-8", false },
	{ "ps", v_ps, NULL, false },           { "s", v_sort, NULL, false },
	{ "np", v_np, NULL, false },           { "gr", v_group, NULL, false },
	{ "o", v_variant, NULL, false },       { "ul", v_param, "ul", false },
	{ "r#", v_random, NULL, false },       { "AV", v_const, PACKAGE_VERSION, false },
	{ "E", v_error, NULL, false },         { "f", v_first, NULL, false },
	{ "l", v_last, NULL, false },          { "t", v_total, NULL, false },
	{ "W", v_words, NULL, false },         { "Y", v_seconds, NULL, false },
	{ "DU", v_url, NULL, false },          { "DE", v_url, NULL, false },
	{ "DT", v_title, NULL, true },         { "DR", v_score, NULL, true },
	{ "DX", v_excerpts, NULL, true },      { "DC", v_content_type, NULL, false },
	{ "DM", v_date, NULL, false },         { "DS", v_size, NULL, true },
	{ "DB", v_size_kb, NULL, true },       { "DZ", v_size_unit, NULL, true },
	{ "DN", v_number, NULL, true },        { "DD", v_description, NULL, true },
	{ "DK", v_keywords, NULL, true },      { "CC", v_section, "cached", true },
	{ "CL", v_clones, NULL, true },        { "M", v_more, NULL, true },
	{ "SS", v_site, NULL, true },          { "SH", v_site_link, NULL, true },
	{ "SC", v_site_hits, NULL, true },     { "R", v_results, NULL, false },
	{ "V", v_navigator, NULL, false },     { "NL", v_nav_left, NULL, false },
	{ "NB", v_nav_bar, NULL, false },      { "NR", v_nav_right, NULL, false },
	{ "NH", v_nav_link, NULL, false },     { "NP", v_nav_page, NULL, false },
	{ "H", v_color, NULL, false },         { "CX", v_cached_text, NULL, false },
	{ "UT", v_total_urls, NULL, false },   { "ST", v_param, "st", false },
	{ "PW", v_pages_word, NULL, false },   { "SW", v_sites_word, NULL, false },
	{ "SL", v_site_limit, NULL, false },   { "SD", v_limit_site, NULL, false },
	{ "SA", v_all_sites, NULL, false },
	{ "bd", v_param, "bd", false },        { "ds", v_param, "ds", false },
	{ "kw", v_param, "kw", false },        { "tl", v_param, "tl", false },
};
_Static_assert(sizeof(vars) / sizeof(vars[0]) <= CGI_MAX_VARS, "tpl_load() takes at most 64 names");

static int v_param(const struct var_call *c)
{
	return put_str(c->r, c->ctx, param(c->pg, c->v->arg));
}

static int v_const(const struct var_call *c)
{
	return put_str(c->r, c->ctx, c->v->arg);
}

static int v_section(const struct var_call *c)
{
	return tpl_render(c->r, c->v->arg);
}

size_t cgi_var_names(const char **names)
{
	for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
		names[i] = vars[i].name;
	return ARRAY_SIZE(vars);
}

/* The template engine's callback: variable `var` is vars[var]. */
static int var_cb(struct tpl_run *r, int var, long num, enum tpl_ctx ctx)
{
	struct var_call c = { r, r->arg, NULL, num, ctx };

	if (var < 0 || (size_t)var >= ARRAY_SIZE(vars))
		return 0;
	c.v = &vars[var];
	if (c.v->hit && !c.pg->hit)
		return 0; /* a hit variable outside a hit */
	return c.v->put(&c);
}

int render(struct page *pg, struct buf *out, const char *const *sections)
{
	struct tpl_run r;

	memset(&r, 0, sizeof(r));
	r.t = pg->t;
	r.fn = var_cb;
	r.arg = pg;
	r.variant = (unsigned)pg->o;
	r.out = out;
	for (; *sections; sections++) {
		if (!strcmp(*sections, "*results")) {
			size_t i;
			if (tpl_render(&r, "restop"))
				return -1;
			for (i = 0; i < pg->n_ent; i++) {
				pg->cur = &pg->ent[i];
				pg->n_cur = pg->np * pg->ps + (long)i + 1;
				pg->hit = pg->ent[i].hit;
				if (tpl_render(&r, "res"))
					return -1;
				if (pg->ent[i].second) {
					pg->hit = pg->ent[i].second;
					if (tpl_render(&r, tpl_has(pg->t, "res2") ? "res2" : "res"))
						return -1;
				}
			}
			pg->hit = NULL;
			pg->cur = NULL;
			if (tpl_render(&r, "resbot"))
				return -1;
		} else if (tpl_render(&r, *sections)) {
			return -1;
		}
	}
	return 0;
}

