#!/usr/bin/python3
"""pagerank-peers.py - the peers of bench/pagerank on the same graph, and
the comparison of every result.

usage: pagerank-peers.py igraph GRAPH.npy N OUT.npy
       pagerank-peers.py networkx GRAPH.npy N OUT.npy
       pagerank-peers.py compare GRAPH.npy N NAME=RESULT...
  igraph/networkx: time one pagerank() call (d 0.85; networkx at the same L1
  tolerance as mpseek, 1e-9: its test is L1 < N*tol) and save the vector;
  prints "peer NAME build_s=.. pagerank_s=.. rss_mb=..".
  compare: RESULT is an "id<TAB>rank" file (mpseek) or a .npy vector; the
  first is the reference.  Prints per result: the L1 residual of one more
  power iteration on it (the same "final L1 delta" for every tool), the L1
  distance to the reference, whether the top 20 agree in order, the largest
  top-20 difference and the sum.
"""
import resource
import sys
import time

import numpy as np


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_vec(path, n):
    if path.endswith('.npy'):
        return np.load(path)
    a = np.loadtxt(path, dtype=np.float64, ndmin=2)
    v = np.zeros(n)
    v[a[:, 0].astype(np.int64)] = a[:, 1]
    return v


def residual(pairs, n, x, d=0.85):
    src, dst = pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)
    out = np.bincount(src, minlength=n).astype(np.float64)
    share = np.divide(x, out, out=np.zeros(n), where=out > 0)
    y = np.bincount(dst, weights=share[src], minlength=n)
    dang = x[out == 0].sum()
    nxt = (1 - d) / n + d * dang / n + d * y
    return np.abs(nxt - x).sum()


def main():
    mode, graph, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    pairs = np.load(graph)
    if mode == 'igraph':
        import igraph
        t = time.time()
        g = igraph.Graph(n=n, edges=pairs, directed=True)
        b = time.time() - t
        t = time.time()
        r = g.pagerank(damping=0.85, implementation='prpack')
        p = time.time() - t
        np.save(sys.argv[4], np.array(r))
        print('peer igraph-%s build_s=%.2f pagerank_s=%.3f rss_mb=%.0f' %
              (igraph.__version__, b, p, rss_mb()))
    elif mode == 'networkx':
        import networkx as nx
        t = time.time()
        g = nx.DiGraph()
        g.add_nodes_from(range(n))
        g.add_edges_from(pairs.tolist())
        b = time.time() - t
        t = time.time()
        r = nx.pagerank(g, alpha=0.85, tol=1e-9 / n, max_iter=1000)
        p = time.time() - t
        v = np.zeros(n)
        for k, x in r.items():
            v[k] = x
        np.save(sys.argv[4], v)
        print('peer networkx-%s build_s=%.2f pagerank_s=%.3f rss_mb=%.0f' %
              (nx.__version__, b, p, rss_mb()))
    else:
        ref = None
        for arg in sys.argv[4:]:
            name, path = arg.split('=', 1)
            v = load_vec(path, n)
            if ref is None:
                ref, refname = v, name
                top = np.argsort(-ref, kind='stable')[:20]
            vt = np.argsort(-v, kind='stable')[:20]
            print('compare %s residual=%.3g l1_to_%s=%.3g top20_same_order=%d top20_maxdiff=%.3g '
                  'sum_err=%.3g' % (name, residual(pairs, n, v), refname, np.abs(v - ref).sum(),
                                    int((vt == top).all()), np.abs(v[top] - ref[top]).max(),
                                    abs(v.sum() - 1)))


main()
