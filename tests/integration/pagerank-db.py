#!/usr/bin/python3
"""pagerank-db.py - check what PageRank left in a directory against the
database it was computed from, with an implementation of the graph rules
(doc/PAGERANK.md) and of the file formats (doc/FORMATS.md) of its own.

usage: pagerank-db.py URLWORD.tsv URLWORDS.tsv DIR [PRINT-RANKS-OUTPUT]
  URLWORD.tsv   url_id site_id status deleted origin redir crc url
  URLWORDS.tsv  url_id deleted HEX(hrefs)      (all 16 tables)
  DIR           holds ranks, citations/direct, citations/reverse
Prints "name value" lines; the shell test judges them.
"""
import struct
import sys
import zlib

import networkx as nx


def read_tsv(path):
    with open(path) as f:
        return [line.rstrip('\n').split('\t') for line in f if line.strip()]


def graph(urlword, urlwords):
    rows = {}
    for r in urlword:
        u = int(r[0])
        rows[u] = dict(site=r[1], status=int(r[2]), deleted=int(r[3]),
                       origin=int(r[4]), redir=int(r[5]), crc=r[6], url=r[7])
    live_doc = {int(r[0]) for r in urlwords if int(r[1]) == 0}
    pages = sorted(u for u, r in rows.items() if r['status'] == 200 and r['deleted'] == 0
                   and r['origin'] == 1 and u in live_doc)
    pageset = set(pages)

    def origin_of(u):
        r = rows[u]
        cands = [v for v, o in rows.items() if o['origin'] == 1 and o['status'] == 200
                 and o['deleted'] == 0 and o['site'] == r['site'] and o['crc'] == r['crc']]
        return min(cands) if cands else None

    stats = dict(redirect=0, clone=0, dropped=0)

    def resolve(u):
        seen = 0
        kind = None
        while u in rows and seen <= 32:
            r = rows[u]
            if r['redir'] and not r['deleted'] and r['redir'] != u:
                u = r['redir']
                kind = kind or 'redirect'
            elif (r['origin'] == 0 and not r['deleted'] and r['status'] == 200 and r['crc']
                  and origin_of(u) not in (None, u)):
                u = origin_of(u)
                kind = kind or 'clone'
            else:
                break
            seen += 1
        if seen > 32 or u not in pageset:
            return None, None
        return u, kind

    g = nx.DiGraph()
    g.add_nodes_from(pages)
    for r in urlwords:
        s, deleted, hx = int(r[0]), int(r[1]), r[2] if len(r) > 2 else ''
        if deleted or s not in pageset or not hx or hx == 'NULL':
            continue
        raw = bytes.fromhex(hx)
        for (t,) in struct.iter_unpack('<I', raw):
            v, kind = resolve(t)
            if v is None and t in pageset:  # a page whose redirect leads nowhere
                v, kind = t, None
            if v is None:
                stats['dropped'] += 1
                continue
            if kind:
                stats[kind] += 1
            g.add_edge(s, v)
    return g, rows, stats


def read_citations(path, kind):
    b = open(path, 'rb').read()
    magic, ver, k, slots, _, links, dcrc, crc = struct.unpack_from('<8sIIIIQII', b, 0)
    assert magic == b'MPSCITE\0' and ver == 2 and k == kind, (magic, ver, k)
    assert crc == zlib.crc32(b[:36]), 'header crc'
    assert dcrc == zlib.crc32(b[40:]), 'data crc'
    assert len(b) == 40 + 8 * (slots + 1) + 4 * links, 'size'
    off = struct.unpack_from('<%dQ' % (slots + 1), b, 40)
    ids = struct.unpack_from('<%dI' % links, b, 40 + 8 * (slots + 1))
    return {u: list(ids[off[u]:off[u + 1]]) for u in range(slots) if off[u + 1] > off[u]}


def read_ranks(path):
    b = open(path, 'rb').read()
    magic, ver, slots, nodes, iters, damp, delta, top, flags, dcrc, _, crc = \
        struct.unpack_from('<8sIIIIdddIIII', b, 0)
    assert magic == b'MPSRANK\0' and ver == 2, magic
    assert crc == zlib.crc32(b[:60]), 'header crc'
    assert dcrc == zlib.crc32(b[64:]), 'data crc'
    assert len(b) == 64 + 8 * slots, 'size'
    vals = struct.unpack_from('<%dd' % slots, b, 64)
    return {u: v for u, v in enumerate(vals) if v > 0}, dict(nodes=nodes, iterations=iters,
                                                              flags=flags, delta=delta)


def main():
    urlword, urlwords, d = read_tsv(sys.argv[1]), read_tsv(sys.argv[2]), sys.argv[3]
    g, rows, stats = graph(urlword, urlwords)
    print('pages', g.number_of_nodes())
    print('links', g.number_of_edges())
    for k, v in stats.items():
        print('links_via_' + k, v)
    direct = read_citations(d + '/citations/direct', 1)
    reverse = read_citations(d + '/citations/reverse', 2)
    want_direct = {u: sorted(g.successors(u)) for u in g if g.out_degree(u)}
    want_reverse = {u: sorted(g.predecessors(u)) for u in g if g.in_degree(u)}
    print('direct_mismatch', sum(1 for u in set(direct) | set(want_direct)
                                 if direct.get(u) != want_direct.get(u)))
    print('reverse_mismatch', sum(1 for u in set(reverse) | set(want_reverse)
                                  if reverse.get(u) != want_reverse.get(u)))
    ranks, meta = read_ranks(d + '/ranks')
    try:
        ref = nx.pagerank(g, alpha=0.85, tol=1e-15, max_iter=100000)
    except ImportError:
        from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python
        ref = _pagerank_python(g, alpha=0.85, tol=1e-15, max_iter=100000)
    print('rank_pages_mismatch', len(set(ranks) ^ set(ref)))
    print('rank_l1', '%.3g' % sum(abs(ranks.get(u, 0) - ref[u]) for u in ref))
    print('rank_sum_error', '%.3g' % abs(sum(ranks.values()) - 1))
    print('header_nodes_ok', int(meta['nodes'] == g.number_of_nodes()))
    print('iterations', meta['iterations'])
    print('warm', int(meta['flags'] & 2 != 0))
    if len(sys.argv) > 4:
        printed = {}
        for line in open(sys.argv[4]):
            url, v = line.rstrip('\n').split('\t')
            printed[url] = float(v)
        want = {rows[u]['url']: v for u, v in ranks.items()}
        print('print_mismatch', sum(1 for u in set(printed) | set(want)
                                    if printed.get(u) != want.get(u)))


main()
