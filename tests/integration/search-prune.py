#!/usr/bin/env python3
"""search-prune.py - the generated query set of search-prune.sh: from the
postings `mpseek-index --dump-index` prints (word TAB url_id TAB positions),
deterministic queries of one to three words (words of one page, so that
their AND matches), words with a NOT, phrases of adjacent words and ORs,
words with anchor text and words with other forms, phrases of two and
three words, rare and common, alone and beside words.  Prints one query a
line; with a second argument, writes there the queries of words with
anchor text or forms whose words all have postings of their own; with a
third, the queries with a phrase."""
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
# Words with anchor text (the anchor word: the word behind a 0x01 byte),
# alone, beside a common word of a page they are on, two together; and
# words with another form (plural and singular), alone and with the words
# of a page: so that the OR of a word's lists is pruned (doc/SEARCH.md,
# "Top-k pruning") and compared too.
anchored = sorted(w[1:] for w in post if w.startswith("\x01") and w[1:].isalnum()
                  and w[1:].isascii())
common = sorted(words, key=lambda w: (-len(post[w]), w))[:20]
first_or = len(out)
for i, a in enumerate(anchored[::max(1, len(anchored) // 60)]):
    out.append(a)
    out.append("%s %s" % (a, common[i % len(common)]))
    out.append("%s %s" % (common[(i + 3) % len(common)], a))
    out.append("%s %s" % (a, anchored[(i * 7 + 1) % len(anchored)]))
    out.append("%s -%s" % (a, common[(i + 5) % len(common)]))
formed = [w for w in words if w + "s" in post]
for i, w in enumerate(formed[::max(1, len(formed) // 60)]):
    out.append(w)
    out.append(w + "s")
    out.append("%s %s" % (w + "s", common[i % len(common)]))
    u = sorted(post[w])[0]
    ws = sorted(by_doc.get(u, []), key=lambda x: (-len(post[x]), x))
    if len(ws) >= 3:
        out.append("%s %s %s" % (ws[0], w, ws[len(ws) // 2]))
last_or = len(out)
# Phrases of two and three adjacent words drawn from the pages, the rarest
# and the commonest of each length (by how many pages have all their
# words), alone, beside a word of the page, beside a NOT, two together and
# with site: (search-prune.sh adds those): pruned like the words
# (doc/SEARCH.md, "Top-k pruning").  With a third argument, they are
# written there too.
grams = {2: {}, 3: {}}
rgrams = {}
for u in docs:
    at = {}
    for w in by_doc.get(u, []):
        for p in post[w][u]:
            at[p] = w
    for p in sorted(at):
        for k in (2, 3):
            g = [at.get(p + i) for i in range(k)]
            if None not in g and len(set(g)) == k:
                grams[k].setdefault(" ".join(g), set()).add(u)
            elif None not in g:
                rgrams.setdefault(" ".join(g), set()).add(u)
phr = []
for k in (2, 3):
    by_df = sorted(grams[k], key=lambda g: (len(grams[k][g]), g))
    step = max(1, len(by_df) // 40)
    phr += by_df[:20] + by_df[-20:] + by_df[::step]
for i, g in enumerate(sorted(set(phr))):
    u = sorted(grams[len(g.split())][g])[0]
    ws = sorted(by_doc.get(u, []), key=lambda x: (-len(post[x]), x))
    out.append('"%s"' % g)
    out.append('"%s" %s' % (g, ws[len(ws) // 2]))
    out.append('%s "%s"' % (ws[0], g))
    out.append('"%s" -%s' % (g, ws[-1]))
    out.append('"%s" "%s"' % (g, phr[(i * 7 + 1) % len(phr)]))
# A word twice (term_alias(): its lists walked once): `w w`, `w x w`,
# `x -w -w`, words with anchor text or forms twice; and phrases with a word
# twice, those of the pages ("x y x", "w w") and a phrase of the pages with
# its first word again after it (on few pages: most of its documents have
# that word once, and prune_repeats() skips them).  With a fourth argument,
# the single words, the same words twice, the phrases with a word twice and
# (a comment) how many documents have every word of those phrases go there.
rep = []
for u in docs[::max(1, len(docs) // 40)]:
    ws = sorted(by_doc.get(u, []), key=lambda w: (-len(post[w]), w))
    if len(ws) >= 3:
        rep.append((ws[0], ws[len(ws) // 2]))
twice = [w for w, _ in rep] + anchored[::max(1, len(anchored) // 10)] + \
    formed[::max(1, len(formed) // 10)]
twice = sorted(set(w for w in twice if w in post))
for w, x in rep:
    out.append("%s %s %s" % (w, x, w))
    out.append("%s -%s -%s" % (w, x, x))
out += ["%s %s" % (w, w) for w in twice]
rph = sorted(rgrams, key=lambda g: (len(rgrams[g]), g))
rph = rph[:20] + rph[-20:]
rph += ["%s %s" % (g, g.split()[0]) for g in sorted(grams[2])[::max(1, len(grams[2]) // 40)]]
rph = sorted(set('"%s"' % g for g in rph))
out += rph
if len(sys.argv) > 4:
    with open(sys.argv[4], "w", encoding="utf-8") as f:
        have = 0
        for q in rph:
            ws = set(q.strip('"').split())
            have += len(set.intersection(*(set(post[w]) for w in ws)))
        print("# %d" % have, file=f)
        for w in twice:
            print("1\t%s\n2\t%s %s" % (w, w, w), file=f)
        for q in rph:
            print("p\t%s" % q, file=f)
if len(sys.argv) > 3:
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        for q in sorted(set(out)):
            if q.startswith('"') or ' "' in q:
                print(q, file=f)
print("%d anchored words, %d words with a plural, %d phrases" %
      (len(anchored), len(formed), len(set(phr))), file=sys.stderr)
if len(sys.argv) > 2:
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        for q in sorted(set(out[first_or:last_or])):
            if all(w.lstrip("-") in post for w in q.split()):
                print(q, file=f)
seen = set()
for q in out:
    if q not in seen:
        seen.add(q)
        print(q)
