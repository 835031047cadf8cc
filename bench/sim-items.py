#!/usr/bin/python3
"""sim-items.py - the simulated known-item sets of `QUALITY=1 bench/search`,
made from the pages a crawl stored, deterministically from SEED:

 * title: the exact title of a page (cleaned as bench/known-items.py
   cleans it: without the site's suffix, section numbers and man-page
   sections; 1-8 words);
 * half:  a half-remembered title: ceil(n/2) of a title's n >= 2 words,
   drawn at random, kept in their order;
 * body:  three distinct words of the page's body text drawn without
   replacement with probability proportional to tf * idf, the "tf.idf"
   term selection of Azzopardi, de Rijke and Balog, "Building simulated
   queries for known-item topics" (SIGIR 2007), with no noise terms.

Only pages whose cleaned title no other stored page has are targets, so
each query names one page.  Body words are those of the word pattern of
known-items.py with at least one letter, 2-32 characters, not among a
few English stopwords.

Also writes the pages as an xmlpipe2 stream (fields title and content: the
title and the visible body text) for Sphinx's indexer, so that Sphinx
indexes exactly the pages the items are drawn from.

Usage: sim-items.py CORPUS_DIR URLS N_TITLE N_HALF N_BODY SEED ITEMS XMLPIPE
URLS: the stored pages' URLs, one a line (http://127.0.0.1:PORT/path).
ITEMS: "kind<TAB>query<TAB>url" lines, the format of bench/search-load.c.
"""
import html.parser
import math
import os
import random
import re
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
ki = __import__('known-items')

STOP = set('a an and are as at be by for from in into is it of on or that the this to with'.split())
SKIP = ('script', 'style', 'title', 'head', 'noscript')


class Text(html.parser.HTMLParser):
    """The title and the visible text outside <head>, <script>, <style>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.title, self.body, self.skip, self.in_title = [], [], 0, False

    def handle_starttag(self, tag, attrs):
        if tag in SKIP:
            self.skip += 1
            self.in_title = self.in_title or tag == 'title'

    def handle_endtag(self, tag):
        if tag in SKIP and self.skip:
            self.skip -= 1
            if tag == 'title':
                self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.skip:
            self.body.append(data)


def body_words(text):
    return [w.lower() for w in ki.WORD.findall(text)
            if 2 <= len(w) <= 32 and re.search('[A-Za-z]', w) and w.lower() not in STOP]


def draw(rnd, weights, k):
    """k distinct keys of weights, each drawn with probability proportional to its weight."""
    pool, out = dict(weights), []
    while pool and len(out) < k:
        keys = sorted(pool)
        x, acc = rnd.random() * sum(pool[t] for t in keys), 0.0
        for t in keys:
            acc += pool[t]
            if acc >= x:
                break
        out.append(t)
        del pool[t]
    return out


def subseq(words, title):
    it = iter(title)
    return all(w in it for w in words)


def load_pages(corpus, urls, xml=None):
    """The stored pages found under CORPUS_DIR: a list of (url, cleaned
    title, {body word: tf}), the body words' df and the owners of each
    cleaned title; each page also written to the xmlpipe2 stream xml."""
    roots = {}
    for line in open(os.path.join(corpus, 'sites.tsv')):
        f = line.rstrip('\n').split('\t')
        if not line.startswith('#') and f[0] == 'dev':
            roots[f[2]] = f[3]
    pages = []   # (url, cleaned title, {word: tf})
    df, owners = {}, {}
    for url in sorted(set(l.strip() for l in open(urls) if l.strip())):
        m = re.match(r'https?://[^:/]+:([0-9]+)/(.*)$', url)
        if not m or m.group(1) not in roots:
            continue
        rel = m.group(2).split('#')[0]
        path = os.path.join(roots[m.group(1)], rel + 'index.html' if rel == '' or rel.endswith('/') else rel)
        if not os.path.isfile(path):
            continue
        p = Text()
        with open(path, encoding='utf-8', errors='replace') as fh:
            p.feed(fh.read())
        title = ' '.join(''.join(p.title).split())
        body = ' '.join(' '.join(p.body).split())
        if xml:
            xml.write('<sphinx:document id="%d">\n<title>%s</title>\n<content>%s</content>\n<url>%s</url>\n'
                      '</sphinx:document>\n' % (len(pages) + 1, escape(title), escape(body), escape(url)))
        tf = {}
        for w in body_words(body):
            tf[w] = tf.get(w, 0) + 1
        for w in tf:
            df[w] = df.get(w, 0) + 1
        t = ki.clean(title)
        if t:
            owners.setdefault(t, set()).add(url)
        pages.append((url, t, tf))
    return pages, df, owners


def main():
    if len(sys.argv) != 9:
        sys.exit('usage: sim-items.py CORPUS_DIR URLS N_TITLE N_HALF N_BODY SEED ITEMS XMLPIPE')
    corpus, urls = sys.argv[1], sys.argv[2]
    n_title, n_half, n_body, seed = (int(a) for a in sys.argv[3:7])
    xml = open(sys.argv[8], 'w', encoding='utf-8')
    xml.write('<?xml version="1.0" encoding="utf-8"?>\n<sphinx:docset>\n<sphinx:schema>\n'
              '<sphinx:field name="title"/>\n<sphinx:field name="content"/>\n'
              '<sphinx:attr name="url" type="string"/>\n</sphinx:schema>\n')
    pages, df, owners = load_pages(corpus, urls, xml)
    xml.write('</sphinx:docset>\n')
    xml.close()

    n = len(pages)
    unique = [(url, t, tf) for url, t, tf in pages if t and owners[t] == {url}]
    rnd = random.Random(seed)
    out = [('title', t, url) for url, t, _ in rnd.sample(unique, min(n_title, len(unique)))]
    multi = [p for p in unique if len(p[1].split()) >= 2]
    for url, t, _ in random.Random(seed + 1).sample(multi, min(n_half, len(multi))):
        w = t.split()
        r = random.Random('%d half %s' % (seed, url))
        keep = sorted(r.sample(range(len(w)), (len(w) + 1) // 2))
        out.append(('half', ' '.join(w[i] for i in keep), url))
    # A half title whose words, in order, are in another page's title too
    # may rank that page first with reason: the set's ceiling is below 1.
    titles = [t.split() for _, t, _ in pages if t]
    sole = sum(1 for kind, q, _ in out if kind == 'half' and
               sum(1 for t in titles if subseq(q.split(), t)) == 1)
    rich = [p for p in unique if len(p[2]) >= 3]
    for url, _, tf in random.Random(seed + 2).sample(rich, min(n_body, len(rich))):
        weights = {w: c * math.log(n / df[w]) for w, c in tf.items() if df[w] < n}
        if len(weights) < 3:
            continue
        out.append(('body', ' '.join(draw(random.Random('%d body %s' % (seed, url)), weights, 3)), url))
    with open(sys.argv[7], 'w', encoding='utf-8') as f:
        f.write('# simulated known items: kind, query, target url (bench/sim-items.py %d %d %d %d;'
                ' %d pages, %d with a unique title; %d half titles in no other title)\n'
                % (n_title, n_half, n_body, seed, n, len(unique), sole))
        for kind, q, url in out:
            f.write('%s\t%s\t%s\n' % (kind, q, url))


if __name__ == '__main__':
    main()
