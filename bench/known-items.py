#!/usr/bin/python3
"""known-items.py - the known-item query set of bench/search, made from the
development corpus' pages (the docroots on disk, the URLs of dev-urls.txt).

For every page: its <title> without the site's suffix ("— Python 3.11.2
documentation"), section numbers ("9.3.", "F.1.") and man-page sections
("(1)"), and its h1-h3 headings.  A text becomes a query when it has 1-8
words after cleaning (letters, digits, '_' and inner '.' or '-' kept,
lower-cased) and no other page of the corpus has a title or heading that
cleans to the same words: the target is then the one page it names.
Headings also need at least 2 words ("Description", "Parameters" name
nothing).  From those, SEED picks N title and N heading queries.

Usage: known-items.py CORPUS_DIR N SEED > known-items.tsv
Output: "kind<TAB>query<TAB>url" with url in dev-urls.txt form (a
directory's index.html written as the directory).
"""
import html.parser
import os
import random
import re
import sys

SUFFIX = re.compile(r'\s+[\u2014\u2013-]\s+(Python [0-9.]+ documentation|Django [0-9.]+ documentation)\s*$')
SECNUM = re.compile(r'^\s*(?:[A-Z]|[0-9]+)(?:\.[0-9]+)*\.\s+')
MANSEC = re.compile(r'\([0-9][a-z]*\)\s*$')
WORD = re.compile(r'[0-9A-Za-z_]+(?:[.\-][0-9A-Za-z_]+)*')


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.title, self.heads, self.cur, self.depth = '', [], None, 0

    def handle_starttag(self, tag, attrs):
        if tag in ('title', 'h1', 'h2', 'h3') and self.cur is None:
            self.cur, self.buf = tag, []
        elif self.cur and tag == 'a' and ('class', 'headerlink') in attrs:
            self.depth += 1   # Sphinx's pilcrow link: not part of the heading

    def handle_endtag(self, tag):
        if self.cur and tag == 'a' and self.depth:
            self.depth -= 1
        if tag == self.cur:
            text = ' '.join(''.join(self.buf).split())
            if tag == 'title':
                self.title = text
            else:
                self.heads.append(text)
            self.cur = None

    def handle_data(self, data):
        if self.cur and not self.depth:
            self.buf.append(data)


def clean(text):
    text = SUFFIX.sub('', text)
    text = MANSEC.sub('', SECNUM.sub('', text))
    words = [w.lower() for w in WORD.findall(text)]
    return ' '.join(words) if 1 <= len(words) <= 8 else None


def main():
    corpus, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    roots = {}
    for line in open(os.path.join(corpus, 'sites.tsv')):
        f = line.rstrip('\n').split('\t')
        if not line.startswith('#') and f[0] == 'dev':
            roots[f[2]] = f[3]
    pages = []   # (url, title query, [heading queries])
    owners = {}  # cleaned text -> set of urls
    for url in sorted(set(l.strip() for l in open(os.path.join(corpus, 'dev-urls.txt')) if l.strip())):
        m = re.match(r'https?://[^:/]+:([0-9]+)/(.*)$', url)
        if not m or m.group(1) not in roots:
            continue
        rel = m.group(2).split('#')[0]
        path = os.path.join(roots[m.group(1)], rel + 'index.html' if rel == '' or rel.endswith('/') else rel)
        if not path.endswith('.html') or not os.path.isfile(path):
            continue
        p = Page()
        with open(path, encoding='utf-8', errors='replace') as fh:
            p.feed(fh.read())
        t = clean(p.title)
        hs = [h for h in (clean(h) for h in p.heads) if h]
        for q in ([t] if t else []) + hs:
            owners.setdefault(q, set()).add(url)
        pages.append((url, t, hs))
    titles, heads = [], []
    for url, t, hs in pages:
        if t and owners[t] == {url}:
            titles.append(('title', t, url))
        good = [h for h in hs if owners[h] == {url} and len(h.split()) >= 2 and h != t]
        if good:
            heads.append(('heading', random.Random('%d %s' % (seed, url)).choice(good), url))
    rnd = random.Random(seed)
    out = rnd.sample(titles, min(n, len(titles))) + rnd.sample(heads, min(n, len(heads)))
    print('# known items of the development corpus: kind, query, target url (bench/known-items.py %d %d;'
          ' %d pages, %d usable titles, %d usable headings)' % (n, seed, len(pages), len(titles), len(heads)))
    for kind, q, url in out:
        print('%s\t%s\t%s' % (kind, q, url))


if __name__ == '__main__':
    main()
