#!/usr/bin/env python3
"""search-prune.py - the generated query set of search-prune.sh: from the
postings `mpseek-index --dump-index` prints (word TAB url_id TAB positions),
deterministic queries of one to three words (words of one page, so that
their AND matches), words with a NOT, phrases of adjacent words and ORs.
Prints one query a line."""
import sys

post = {}
for line in open(sys.argv[1], encoding="utf-8"):
    w, u, p = line.rstrip("\n").split("\t")
    post.setdefault(w, {})[int(u)] = [int(x) for x in p.split(",")]
words = sorted(w for w in post if len(w) >= 2 and w.isalnum() and w.isascii())
docs = sorted(set(u for d in post.values() for u in d))
by_doc = {}
for w in words:
    for u in post[w]:
        by_doc.setdefault(u, []).append(w)
out = []
step = max(1, len(words) // 150)
out += words[::step]
n = len(words)
for i in range(0, n, max(1, n // 100)):
    out.append("%s %s" % (words[i], words[(i * 7 + 3) % n]))
for u in docs:
    ws = sorted(by_doc.get(u, []), key=lambda w: (-len(post[w]), w))
    if len(ws) < 6:
        continue
    common, rare = ws[:3], ws[-3:]
    mid = ws[len(ws) // 2]
    out.append("%s %s" % (common[0], common[1]))
    out.append("%s %s %s" % (common[0], mid, common[2]))
    out.append("%s %s" % (rare[0], common[0]))
    out.append("%s %s %s" % (rare[1], mid, rare[2]))
    out.append("%s -%s" % (common[0], mid))
    out.append("%s %s -%s" % (common[1], common[2], rare[0]))
    out.append("%s OR %s" % (mid, rare[0]))
    # a phrase of two adjacent words of the page
    pos = {}
    for w in ws:
        for p in post[w][u]:
            pos[p] = w
    for p in sorted(pos):
        if p + 1 in pos and pos[p] != pos[p + 1]:
            out.append('"%s %s"' % (pos[p], pos[p + 1]))
            break
seen = set()
for q in out:
    if q not in seen:
        seen.add(q)
        print(q)
