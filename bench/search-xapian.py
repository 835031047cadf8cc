#!/usr/bin/python3
"""search-xapian.py - the Xapian side of bench/search, with Omega's defaults:
QueryParser with the english stemmer (STEM_SOME), default operator AND,
phrases, boolean operators, +/- and wildcards; BM25; the document data
(omindex's "url=..." lines) read for every hit shown, as a result page
needs it.  Output formats are those of search-load (bench/search-load.c).

Usage: search-xapian.py [--stemmer=LANG] mrr DB ITEMS
       search-xapian.py [--stemmer=LANG] lat DB QUERIES CLIENTS SECONDS
(lat: CLIENTS processes, each with its own Database, 10 hits a page;
--stemmer=none for a database indexed without stemming.)
"""
import math
import multiprocessing
import re
import sys
import time

import xapian


STEMMER = 'english'


def parser(db):
    qp = xapian.QueryParser()
    qp.set_database(db)
    if STEMMER != 'none':
        qp.set_stemmer(xapian.Stem(STEMMER))
        qp.set_stemming_strategy(xapian.QueryParser.STEM_SOME)
    qp.set_default_op(xapian.Query.OP_AND)
    return qp


FLAGS = xapian.QueryParser.FLAG_DEFAULT | xapian.QueryParser.FLAG_WILDCARD


def url_of(doc):
    m = re.search(r'^url=(.*)$', doc.get_data().decode('utf-8', 'replace'), re.M)
    u = m.group(1) if m else ''
    return u[:-len('index.html')] if u.endswith('/index.html') else u


def search(db, qp, q, n):
    enq = xapian.Enquire(db)
    enq.set_query(qp.parse_query(q, FLAGS))
    return enq.get_mset(0, n)


def items(path, fields):
    for line in open(path, encoding='utf-8'):
        if line.startswith('#') or not line.strip():
            continue
        f = line.rstrip('\n').split('\t')
        if len(f) >= fields:
            yield f


def mrr(dbpath, path):
    db = xapian.Database(dbpath)
    qp = parser(db)
    stats = {}
    for kind, q, url in items(path, 3):
        target = url[:-len('index.html')] if url.endswith('/index.html') else url
        rank = 0
        try:
            ms = search(db, qp, q, 100)
        except xapian.QueryParserError:
            ms = []
        for i, m in enumerate(ms):
            if url_of(m.document) == target:
                rank = i + 1
                break
        print('%s\t%d\t%s' % (kind, rank, q))
        for k in (kind, 'all'):
            s = stats.setdefault(k, [0, 0.0, 0, 0])
            s[0] += 1
            s[1] += 1.0 / rank if rank else 0
            s[2] += rank == 1
            s[3] += 0 < rank <= 10
    for k in [k for k in stats if k != 'all'] + ['all']:
        n, rr, a1, a10 = stats[k]
        print('mrr\t%s\t%d\t%.4f\t%.4f\t%.4f' % (k, n, rr / n, a1 / n, a10 / n))


def worker(args):
    global STEMMER
    dbpath, queries, start, until, STEMMER = args
    db = xapian.Database(dbpath)
    qp = parser(db)
    lat, errors, i = [], 0, start
    while time.monotonic() < until:
        t0 = time.monotonic()
        try:
            for m in search(db, qp, queries[i % len(queries)], 10):
                m.document.get_data()
        except xapian.Error:
            errors += 1
        lat.append(time.monotonic() - t0)
        i += 1
    return lat, errors


def pct(v, p):
    k = math.ceil(p * len(v))
    return v[k - 1 if k else 0] if v else 0


def lat(dbpath, path, clients, seconds):
    by_kind = {}
    for kind, q in items(path, 2):
        by_kind.setdefault(kind, []).append(q)
    with multiprocessing.Pool(clients) as pool:
        for kind, qs in by_kind.items():
            t0 = time.monotonic()
            res = pool.map(worker, [(dbpath, qs, c * len(qs) // clients, t0 + seconds, STEMMER)
                                    for c in range(clients)])
            t1 = time.monotonic()
            all_lat = sorted(x for l, _ in res for x in l)
            errors = sum(e for _, e in res)
            print('lat\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.1f\t%d' % (
                kind, clients, len(all_lat), 1000 * pct(all_lat, 0.50), 1000 * pct(all_lat, 0.95),
                1000 * pct(all_lat, 0.99), len(all_lat) / (t1 - t0), errors), flush=True)


def main():
    global STEMMER
    if len(sys.argv) > 1 and sys.argv[1].startswith('--stemmer='):
        STEMMER = sys.argv.pop(1).split('=', 1)[1]
    if len(sys.argv) == 4 and sys.argv[1] == 'mrr':
        mrr(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == 'lat':
        lat(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    else:
        sys.exit('usage: search-xapian.py [--stemmer=LANG] mrr DB ITEMS | lat DB QUERIES CLIENTS SECONDS')


if __name__ == '__main__':
    main()
