/* caps.h - every size limit of mpseek, named once.
 *
 * A crawler eats hostile input: every buffer that grows from outside data has
 * a ceiling, and the ceiling lives here so that a reader can audit them all.
 */
#ifndef MPSEEK_CAPS_H
#define MPSEEK_CAPS_H

#define MAX_URL_LEN         2048      /* bytes of a normalised URL (urlword.url) */
#define MAX_SITE_LEN        255       /* scheme://host[:port]/ */
#define MAX_CONF_LINE       65536     /* one logical config line, continuations joined */
#define MAX_CONF_DEPTH      16        /* Include nesting */
#define MAX_WORD_LEN        64        /* hard cap for MaxWordLength, in bytes of UTF-8 */
#define MAX_DOC_BYTES       (64L << 20) /* hard cap for MaxDocSize */
#define MAX_ROBOTS_BYTES    (500 * 1024) /* RFC 9309 §2.5: at least 500 KiB parsed */
#define MAX_HTML_DEPTH      256       /* nesting the tokenizer tracks */
#define MAX_TITLE_LEN       128       /* urlwordsNN.title */
#define MAX_TXT_LEN         255       /* urlwordsNN.txt */
#define MAX_KEYWORDS_LEN    255       /* urlwordsNN.keywords */
#define MAX_DESCRIPTION_LEN 100       /* urlwordsNN.description (ASPseek width) */
#define MAX_HTTP_HEADER     16384     /* one response header line */
#define MAX_REDIRECTS       32        /* hard cap for RedirectLoopLimit */
#define MAX_POSITION        16777215  /* 24 position bits per section (words of one page) */
#define MAX_LOG_LINE        4096
#define MAX_CHARSET_PRESCAN 4096      /* bytes searched for <meta charset> (WHATWG says 1024) */
#define MAX_CHARSET_DETECT  65536     /* bytes fed to libuchardet / checked for UTF-8 */
#define MAX_HTML_LINKS      10000     /* links kept per document; the rest are counted */
#define MAX_ANCHOR_LEN      256       /* bytes of anchor text kept per link */
#define MAX_COMMON_WORDS    256       /* CommonWords (include/grams.h): at most 65,536 pairs */
#define MAX_HTML_ATTR_LEN   8192      /* bytes of one attribute value kept (href, content) */
#define MAX_HTML_META_TEXT  4096      /* bytes of title/description/keywords text indexed */
#define MAX_JS_SCAN         65536     /* bytes of inline script searched for a redirect */
#define MAX_CLONE_TABLE_ENTRIES (1L << 26) /* hard cap for CloneTableEntries (5-10 GiB) */
#define MAX_NEAR_DUP_BITS 3  /* NearDupBits: neardup.h's 4 blocks of 16 bits find pairs <= 3 apart */
#define MAX_SEEN_CACHE_ENTRIES (1L << 28) /* hard cap for SeenCacheEntries (6 GiB) */
#define MAX_SEEN_BLOOM_URLS (1L << 34)    /* hard cap for SeenBloomURLs (20 GiB at 1 %) */
#define MAX_CONF_FILE       (16L << 20) /* bytes of one config file (read whole) */

#endif
