#!/usr/bin/python3
"""pagerank-gen.py - the graph of bench/pagerank: N pages, about E unique
links (no self-links), power-law out-degrees (Pareto, 15 % of the
pages without links: dangling) and power-law popularity of targets.

usage: pagerank-gen.py N E SEED OUT   writes OUT.edges (text, as
`mpseek-index --pagerank-edges` reads it: "src dst" lines, and "id" lines
for pages without any link) and OUT.npy (int32 pairs, for igraph/networkx).
"""
import sys

import numpy as np

n, e, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(seed)
# Out-degrees: Pareto (alpha 1.5, a power law with a mean), scaled to about
# E links after duplicates go; 15 % of the pages link nowhere (dangling).
d = np.minimum(rng.pareto(1.5, n) + 1, 20000)
d[rng.random(n) < 0.15] = 0
d = np.floor(d * (e * 1.06) / d.sum()).astype(np.int64)
src = np.repeat(np.arange(n, dtype=np.int64), d)
# Targets: popularity ~ 1/rank^0.9 over a random order of the pages.
w = 1.0 / np.arange(1, n + 1) ** 0.9
w /= w.sum()
perm = rng.permutation(n)
dst = perm[rng.choice(n, size=src.size, p=w)]
key = np.unique(src * n + dst)
src, dst = key // n, key % n
keep = src != dst
src, dst = src[keep], dst[keep]
pairs = np.stack([src, dst], axis=1).astype(np.int32)
np.save(out + '.npy', pairs)
seen = np.zeros(n, dtype=bool)
seen[src] = True
seen[dst] = True
with open(out + '.edges', 'w') as f:
    f.write('# bench/pagerank: %d pages, %d links, seed %d\n' % (n, len(pairs), seed))
    for v in np.flatnonzero(~seen):
        f.write('%d\n' % v)
    step = 1 << 20
    for i in range(0, len(pairs), step):
        chunk = pairs[i:i + step]
        f.write('\n'.join('%d %d' % (a, b) for a, b in chunk.tolist()))
        f.write('\n')
print('pages %d links %d dangling %d isolated %d' % (n, len(pairs), int(n - np.unique(src).size),
                                                     int((~seen).sum())))
