#!/usr/bin/python3
"""sim-ceiling.py - the best MRR@10 any engine can reach, in expectation, on
the simulated known items of bench/sim-items.py (`QUALITY=1 bench/search`).

sim-items.py draws each half title and body-word query from its target page
by a known random process, the target uniformly from a known set of pages.
Given the query, the probability that page d was the target is then
P(q | d) / sum over pages e of P(q | e) (Bayes; the prior is uniform), and
ranking the pages by it maximises the expected reciprocal rank of the
target: no ranking, whatever it knows of the pages, does better on average.
That expected MRR@10 is the set's ceiling:

 * half: P(q | d) = (the ways of choosing ceil(n/2) of the n words of d's
   cleaned title, kept in order, that spell q) / C(n, ceil(n/2)), over the
   pages with a unique cleaned title of two words or more;
 * body: P(q | d) = w1/W * w2/(W - w1) * w3/(W - w1 - w2), the three words
   drawn without replacement in the query's order with weights tf * idf of
   d's body words (W their sum), over the pages with a unique cleaned title
   and three body words or more.

Also printed: the MRR@10 of that ranking on the targets actually drawn
(ties counted at their mean reciprocal rank), which moves with the draw.

An exact title names its page alone (the targets' titles are unique): 1.

Usage: sim-ceiling.py CORPUS_DIR URLS ITEMS
Prints "kind n MRR@10 s@1 s@10 drawn" for title, half and body: the
expected MRR@10, success@1 and success@10 of the best ranking, and the
MRR@10 of the drawn targets in it.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
si = __import__('sim-items')


def subseq_ways(q, t):
    """The number of index tuples i1 < ... < ik of t that spell q."""
    ways = [1] + [0] * len(q)
    for w in t:
        for j in range(len(q), 0, -1):
            if q[j - 1] == w:
                ways[j] += ways[j - 1]
    return ways[len(q)]


def body_prob(q, weights, total):
    p, left = 1.0, total
    for w in q:
        x = weights.get(w)
        if x is None or left <= 0:
            return 0.0
        p *= x / left
        left -= x
    return p


def score(post, target):
    """The posterior's ranking: its expected MRR@10, success@1 and
    success@10, and the drawn target's reciprocal rank in it (the mean over
    its tie group)."""
    z = sum(post.values())
    if z <= 0:
        return 0.0, 0.0, 0.0, 0.0
    ranked = sorted((p / z for p in post.values()), reverse=True)
    expect = sum(p / (i + 1) for i, p in enumerate(ranked[:10]))
    mine = post.get(target, 0.0) / z
    if mine <= 0:
        return expect, ranked[0], sum(ranked[:10]), 0.0
    above = sum(1 for p in ranked if p > mine)
    tied = sum(1 for p in ranked if p == mine)
    rr = sum(1.0 / r for r in range(above + 1, above + tied + 1) if r <= 10) / tied
    return expect, ranked[0], sum(ranked[:10]), rr


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: sim-ceiling.py CORPUS_DIR URLS ITEMS')
    pages, df, owners = si.load_pages(sys.argv[1], sys.argv[2])
    n = len(pages)
    unique = [(url, t, tf) for url, t, tf in pages if t and owners[t] == {url}]
    multi = [(url, t.split()) for url, t, _ in unique if len(t.split()) >= 2]
    rich = []
    for url, _, tf in unique:
        if len(tf) < 3:
            continue
        weights = {w: c * math.log(n / df[w]) for w, c in tf.items() if df[w] < n}
        rich.append((url, weights, sum(weights.values())))
    titles = {t: url for url, t, _ in unique}
    sums = {k: [0, 0.0, 0.0, 0.0, 0.0] for k in ('title', 'half', 'body')}
    for line in open(sys.argv[3], encoding='utf-8'):
        if line.startswith('#'):
            continue
        kind, q, target = line.rstrip('\n').split('\t')
        q = q.split()
        if kind == 'title':
            post = {titles[' '.join(q)]: 1.0} if ' '.join(q) in titles else {}
        elif kind == 'half':
            post = {}
            for url, t in multi:
                k = (len(t) + 1) // 2
                if k == len(q):
                    ways = subseq_ways(q, t)
                    if ways:
                        post[url] = ways / math.comb(len(t), k)
        elif kind == 'body':
            post = {url: p for url, w, tot in rich if (p := body_prob(q, w, tot)) > 0}
        else:
            continue
        s = sums[kind]
        s[0] += 1
        for i, v in enumerate(score(post, target)):
            s[i + 1] += v
    for kind in ('title', 'half', 'body'):
        c = sums[kind][0] or 1
        print('%s %4d %6.3f %6.3f %6.3f %6.3f' % ((kind, sums[kind][0]) + tuple(v / c for v in sums[kind][1:])))


if __name__ == '__main__':
    main()
