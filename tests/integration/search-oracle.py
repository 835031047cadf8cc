#!/usr/bin/env python3
"""search-oracle.py - the brute-force side of search.sh: from the postings
`mpseek-index --dump-index` prints (word TAB url_id TAB positions, each
position tokenize.h's value: section << 24 | position) and a url_id
TAB url map, compute what AND (of two and three words), OR, NOT, two-word phrases and title: must
select, for pairs of words chosen deterministically.  Prints one line per
query: query TAB the expected URLs, sorted, blank-separated.  Anchor text
(doc/SEARCH.md): a plain word outside phrases, NOTs and sections also
selects the documents of its anchor word (the word behind a 0x01 byte)."""
import sys

dump, urlmap, port = sys.argv[1], sys.argv[2], sys.argv[3]
post = {}
for line in open(dump, encoding="utf-8"):
    w, u, p = line.rstrip("\n").split("\t")
    post.setdefault(w, {})[int(u)] = [int(x) for x in p.split(",")]
urls = {}
for line in open(urlmap, encoding="utf-8"):
    u, url = line.rstrip("\n").split("\t")
    urls[int(u)] = url
docs = set(u for d in post.values() for u in d)
prefix = ("http://127.0.0.1:%s/" % port, "http://localhost:%s/" % port)


def show(ids):
    out = []
    for u in ids:
        s = urls[u]
        for p in prefix:
            if s.startswith(p):
                s = s[len(p):]
        out.append(s)
    return " ".join(sorted(out))


def phrase(a, b):
    r = set()
    for u in set(post[a]) & set(post[b]):
        pb = set(post[b][u])
        if any((p & 0xFFFFFF) < 0xFFFFFF and p + 1 in pb for p in post[a][u]):
            r.add(u)
    return r


# Plain words of 2+ letters in 2..n-1 documents; keyword-like words are fine
# (the query is typed in lower case).
words = sorted(w for w, d in post.items()
               if 2 <= len(d) < len(docs) and len(w) >= 2 and w.isalnum())
pairs = []
for i in range(0, len(words), max(1, len(words) // 12)):
    a, b = words[i], words[(i * 7 + 3) % len(words)]
    if a != b:
        pairs.append((a, b))


def found(w):
    """The documents a plain word selects: its own and its anchor word's."""
    return set(post[w]) | set(post.get("\x01" + w, {}))


for a, b in pairs:
    A, B = found(a), found(b)
    print("%s %s\t%s" % (a, b, show(A & B)))
    print("%s OR %s\t%s" % (a, b, show(A | B)))
    print("%s -%s\t%s" % (a, b, show(A - set(post[b]))))
    print("title:%s\t%s" % (a, show(u for u in post[a] if any(p >> 24 == 3 for p in post[a][u]))))
    c = words[(words.index(a) * 3 + 1) % len(words)]
    C = found(c)
    if c not in (a, b):
        print("%s %s %s\t%s" % (a, b, c, show(A & B & C)))
        print("%s %s -%s\t%s" % (a, c, b, show((A & C) - set(post[b]))))
        print("(%s OR %s) %s\t%s" % (a, b, c, show((A | B) & C)))
# Adjacent pairs that do occur as phrases, and their reverse.
seen = 0
for a in words:
    for u, ps in sorted(post[a].items()):
        for b in words:
            if seen < 12 and b != a and u in post[b] and \
                    any(p + 1 in set(post[b][u]) for p in ps):
                print('"%s %s"\t%s' % (a, b, show(phrase(a, b))))
                print('"%s %s"\t%s' % (b, a, show(phrase(b, a))))
                seen += 1
                break
        break
