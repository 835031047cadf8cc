#!/usr/bin/python3
"""search-sphinx.py - the Sphinx side of `QUALITY=1 bench/search`: Sphinx
2.2 (Debian's sphinxsearch) indexes an xmlpipe2 stream of pages (fields
title and content, attribute url; bench/sim-items.py writes it) with its
defaults (no morphology, min_word_len 1), a private searchd serves it on a
free port of 127.0.0.1, and each known item is asked over SphinxQL (the
mariadb client) with the SPH04 ranker, the title field weighted 10,
content 1, 100 matches, all words required (Sphinx's default).  A query's
characters other than letters, digits and '_' become spaces (Sphinx's
extended syntax would read them as operators).  Output: that of
search-load's mrr (bench/search-load.c).

Usage: search-sphinx.py mrr DIR XMLPIPE ITEMS
DIR: a fresh directory for the index, config, logs; searchd is stopped
before the program exits.
"""
import os
import re
import socket
import subprocess
import sys
import time


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def write_conf(d, pipe, port):
    conf = os.path.join(d, 'sphinx.conf')
    with open(conf, 'w') as f:
        f.write('source pages\n{\n\ttype = xmlpipe2\n\txmlpipe_command = cat %s\n}\n'
                'index pages\n{\n\tsource = pages\n\tpath = %s/pages\n\tmin_word_len = 1\n}\n'
                'indexer\n{\n\tmem_limit = 256M\n}\n'
                'searchd\n{\n\tlisten = 127.0.0.1:%d:mysql41\n\tlog = %s/searchd.log\n'
                '\tquery_log = %s/query.log\n\tpid_file = %s/searchd.pid\n\tbinlog_path =\n'
                '\tworkers = threads\n}\n' % (pipe, d, port, d, d, d))
    return conf


def ask(port, q):
    words = re.sub(r'[^0-9A-Za-z_]+', ' ', q).strip()
    if not words:
        return []
    sql = ("SELECT url FROM pages WHERE MATCH('%s') LIMIT 100 "
           "OPTION ranker=sph04, field_weights=(title=10, content=1), max_matches=100" % words)
    r = subprocess.run(['mariadb', '--skip-ssl', '-h', '127.0.0.1', '-P', str(port), '-N', '-B', '-e', sql],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit('search-sphinx.py: query "%s": %s' % (q, r.stderr.strip()))
    return [l.split('\t')[-1] for l in r.stdout.splitlines() if l]


def strip_index(u):
    return u[:-len('index.html')] if u.endswith('/index.html') else u


def mrr(d, pipe, path):
    os.makedirs(d, exist_ok=True)
    port = free_port()
    conf = write_conf(d, os.path.abspath(pipe), port)
    with open(os.path.join(d, 'indexer.log'), 'w') as log:
        if subprocess.run(['indexer', '--config', conf, '--all'], stdout=log, stderr=log).returncode:
            sys.exit('search-sphinx.py: indexer failed (log %s/indexer.log)' % d)
    with open(os.path.join(d, 'searchd.out'), 'w') as log:
        if subprocess.run(['searchd', '--config', conf], stdout=log, stderr=log).returncode:
            sys.exit('search-sphinx.py: searchd failed (log %s/searchd.out)' % d)
    try:
        for _ in range(100):
            try:
                socket.create_connection(('127.0.0.1', port), 1).close()
                break
            except OSError:
                time.sleep(0.1)
        stats = {}
        for line in open(path, encoding='utf-8'):
            if line.startswith('#') or not line.strip():
                continue
            kind, q, url = line.rstrip('\n').split('\t')[:3]
            rank = 0
            for i, u in enumerate(ask(port, q)):
                if strip_index(u) == strip_index(url):
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
    finally:
        subprocess.run(['searchd', '--config', conf, '--stopwait'], capture_output=True)


if __name__ == '__main__':
    if len(sys.argv) != 5 or sys.argv[1] != 'mrr':
        sys.exit('usage: search-sphinx.py mrr DIR XMLPIPE ITEMS')
    mrr(sys.argv[2], sys.argv[3], sys.argv[4])
