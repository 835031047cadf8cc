#!/usr/bin/python3
"""pagerank-ref.py - compare mpseek's PageRank output with a reference.

usage: pagerank-ref.py EDGES RESULT [RESULT...]
  EDGES   an edge list as `mpseek-index --pagerank-edges` reads it
  RESULT  "id<TAB>rank" lines printed by mpseek-index
Prints one line per RESULT: "<L1 vs networkx> <L1 vs the power iteration
below> <|sum-1|> <missing/extra ids>", so that the shell test decides.
networkx.pagerank (alpha 0.85, a tolerance far below the test's) on a
DiGraph is the reference: duplicate edges collapse, self-loops stay, as in
mpseek's graph rules (doc/PAGERANK.md).  A second, independent reference is
a plain dense power iteration written here, run to a fixed point.
"""
import sys

import networkx as nx


def read_edges(path):
    g = nx.DiGraph()
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].split()
            if not line:
                continue
            ids = [int(x) for x in line]
            if len(ids) == 1:
                g.add_node(ids[0])
            else:
                g.add_edge(ids[0], ids[1])
    return g


def power(g, d=0.85):
    nodes = sorted(g.nodes())
    n = len(nodes)
    x = {v: 1.0 / n for v in nodes}
    for _ in range(100000):
        dang = sum(x[v] for v in nodes if g.out_degree(v) == 0)
        y = {v: (1 - d) / n + d * dang / n for v in nodes}
        for v in nodes:
            k = g.out_degree(v)
            for w in g.successors(v):
                y[w] += d * x[v] / k
        delta = sum(abs(y[v] - x[v]) for v in nodes)
        x = y
        if delta < 1e-15:
            break
    return x


def main():
    g = read_edges(sys.argv[1])
    try:
        ref = nx.pagerank(g, alpha=0.85, tol=1e-15, max_iter=100000)
    except ImportError:  # networkx 2.x without scipy: its pure-Python twin
        from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python
        ref = _pagerank_python(g, alpha=0.85, tol=1e-15, max_iter=100000)
    own = power(g)
    for path in sys.argv[2:]:
        got = {}
        with open(path) as f:
            for line in f:
                a, b = line.split('\t')
                got[int(a)] = float(b)
        bad = len(set(got) ^ set(ref))
        l1 = sum(abs(got.get(v, 0) - ref[v]) for v in ref)
        l1own = sum(abs(got.get(v, 0) - own[v]) for v in own)
        print('%.3g %.3g %.3g %d' % (l1, l1own, abs(sum(got.values()) - 1), bad))


main()
