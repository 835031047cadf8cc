/* cgi_json.c - the one JSON shape of a search answer, written for both
 * s.cgi fmt=json (its merged answer of several searchds) and mpseek-search
 * --json (one searchd's answer).  The shape is doc/CGI.md's, "JSON"; the
 * escaping is template.c's tpl_escape_json (safe inside HTML too).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "buf.h"
#include "cgi.h"
#include "proto.h"
#include "template.h"

static void jstr(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	tpl_escape_json(b, s ? s : "", s ? strlen(s) : 0);
	buf_addc(b, '"');
}

static void jspans(struct buf *b, const struct proto_text *t)
{
	buf_addc(b, '[');
	for (uint32_t i = 0; i < t->n_spans; i++)
		buf_printf(b, "%s[%u,%u]", i ? "," : "", t->spans[2 * i], t->spans[2 * i + 1]);
	buf_addc(b, ']');
}

/* "key":"text","key_highlights":[[a,b],...] */
static void jtext(struct buf *b, const char *key, const struct proto_text *t)
{
	buf_printf(b, "\"%s\":", key);
	jstr(b, t->text);
	buf_printf(b, ",\"%s_highlights\":", key);
	jspans(b, t);
}

static void jhit(struct buf *b, const struct cgi_json_answer *a, const struct proto_hit *h,
		 long n)
{
	uint32_t i;

	buf_printf(b, "{\"n\":%ld,\"url\":", n);
	jstr(b, h->url);
	buf_adds(b, ",\"site\":");
	jstr(b, h->site);
	buf_printf(b, ",\"url_id\":%u,\"site_id\":%u,\"score\":%.17g,\"second\":%s,"
		   "\"site_hits\":%u,", h->url_id, h->site_id, isfinite(h->score) ? h->score : 0.0,
		   h->second ? "true" : "false", h->site_hits);
	jtext(b, "title", &h->title);
	buf_addc(b, ',');
	jtext(b, "description", &h->description);
	buf_adds(b, ",\"keywords\":");
	jstr(b, h->keywords);
	buf_adds(b, ",\"content_type\":");
	jstr(b, h->content_type);
	buf_printf(b, ",\"size\":%u,\"last_modified\":", h->size);
	if (h->last_modified)
		buf_printf(b, "%llu", (unsigned long long)h->last_modified);
	else
		buf_adds(b, "null");
	buf_adds(b, ",\"excerpts\":[");
	for (i = 0; i < h->n_excerpts; i++) {
		buf_adds(b, i ? ",{\"text\":" : "{\"text\":");
		jstr(b, h->excerpts[i].text);
		buf_adds(b, ",\"highlights\":");
		jspans(b, &h->excerpts[i]);
		buf_addc(b, '}');
	}
	buf_adds(b, "],\"clones\":[");
	for (i = 0; i < h->n_clones; i++) {
		buf_printf(b, "%s{\"url_id\":%u,\"url\":", i ? "," : "", h->clones[i].url_id);
		jstr(b, h->clones[i].url);
		buf_addc(b, '}');
	}
	buf_adds(b, "],\"cached\":");
	if (a->cached_prefix) {
		struct buf l = BUF_INIT(1 << 16);
		buf_adds(&l, a->cached_prefix);
		tpl_escape_component(&l, h->url, strlen(h->url));
		jstr(b, buf_str(&l));
		buf_free(&l);
	} else {
		buf_adds(b, "null");
	}
	buf_addc(b, '}');
}

void cgi_json_results(struct buf *b, const struct cgi_json_answer *a)
{
	long offset = a->page * a->page_size, entries = 0, n = offset;
	const char *s, *e;
	size_t i;

	for (i = 0; i < a->n_hits; i++)
		entries += a->hits[i]->second && i ? 0 : 1;
	buf_adds(b, "{\"query\":");
	jstr(b, a->query);
	buf_printf(b, ",\"page\":%ld,\"page_size\":%ld,\"first\":%ld,\"last\":%ld,"
		   "\"total_results\":%llu,\"total_urls\":%llu,\"total_sites\":%llu,"
		   "\"estimated\":%s,\"seconds\":%.6f,\"elapsed\":%.6f,\"generation\":%llu,\"words\":[",
		   a->page, a->page_size, entries ? offset + 1 : 0, offset + entries,
		   (unsigned long long)a->total_results, (unsigned long long)a->total_urls,
		   (unsigned long long)a->total_sites, a->estimated ? "true" : "false", isfinite(a->seconds) ? a->seconds : 0.0,
		   isfinite(a->elapsed) ? a->elapsed : 0.0, (unsigned long long)a->generation);
	for (i = 0; i < a->n_words; i++) {
		buf_adds(b, i ? ",{\"word\":" : "{\"word\":");
		jstr(b, a->words[i].word);
		buf_printf(b, ",\"urls\":%llu,\"total\":%llu,\"stopword\":%s}",
			   (unsigned long long)a->words[i].urls,
			   (unsigned long long)a->words[i].total,
			   a->words[i].stopword ? "true" : "false");
	}
	buf_adds(b, "],\"results\":[");
	for (i = 0; i < a->n_hits; i++) {
		/* a site's second hit shares the number of its first */
		if (!a->hits[i]->second || i == 0)
			n++;
		if (i)
			buf_addc(b, ',');
		jhit(b, a, a->hits[i], n);
	}
	buf_adds(b, "],\"note\":");
	if (a->note && *a->note)
		jstr(b, a->note);
	else
		buf_adds(b, "null");
	buf_adds(b, ",\"error\":");
	if (a->error_token && *a->error_token) {
		buf_adds(b, "{\"token\":");
		jstr(b, a->error_token);
		buf_adds(b, ",\"message\":");
		jstr(b, a->error_message);
		buf_addc(b, '}');
	} else {
		buf_adds(b, "null");
	}
	buf_adds(b, ",\"daemon_errors\":[");
	for (s = a->daemon_errors ? a->daemon_errors : ""; *s; s = e + 1) {
		e = strchr(s, '\n');
		if (!e)
			break;
		if (s != a->daemon_errors)
			buf_addc(b, ',');
		buf_addc(b, '"');
		tpl_escape_json(b, s, (size_t)(e - s));
		buf_addc(b, '"');
	}
	buf_adds(b, "]}\n");
}

void cgi_json_cached(struct buf *b, const struct proto_cached *c)
{
	buf_adds(b, "{\"url\":");
	jstr(b, c->url);
	buf_adds(b, ",\"content_type\":");
	jstr(b, c->content_type);
	buf_adds(b, ",\"charset\":");
	jstr(b, c->charset);
	buf_printf(b, ",\"url_id\":%u,\"last_index_time\":%llu,\"text\":", c->url_id,
		   (unsigned long long)c->last_index_time);
	jstr(b, c->text.text);
	buf_adds(b, ",\"highlights\":");
	jspans(b, &c->text);
	buf_adds(b, "}\n");
}

void cgi_json_error(struct buf *b, const char *token, const char *message)
{
	buf_adds(b, "{\"error\":{\"token\":");
	jstr(b, token);
	buf_adds(b, ",\"message\":");
	jstr(b, message);
	buf_adds(b, "}}\n");
}
