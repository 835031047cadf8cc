#!/usr/bin/python3
"""syn-queries.py - latency queries for bench/search's synthetic index: words
of the documents bench/gen-deltas wrote as text (scriptindex's format,
"text=w w w" lines), so that the query words follow the collection's Zipf
law as a query log would (common words often, rare words seldom).

For each of N documents picked with SEED (a random byte offset, then the
next text line): one word, two and three adjacent words, and the same three
words as a phrase.  No wildcards: the synthetic words have at most 5
letters, fewer than mpseek's default MinFixedPatternLength (6).

Usage: syn-queries.py TEXT N SEED > queries.tsv     ("class<TAB>query")
"""
import os
import random
import sys


def main():
    path, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rnd = random.Random(seed)
    size = os.path.getsize(path)
    out = {'1word': [], '2words': [], '3words': [], 'phrase': []}
    with open(path, 'rb') as f:
        while len(out['3words']) < n:
            f.seek(rnd.randrange(size))
            f.readline()
            words = None
            for _ in range(4):
                line = f.readline()
                if not line:
                    break
                if line.startswith(b'text='):
                    words = line[5:].decode().split()
                    break
            if not words or len(words) < 3:
                continue
            i = rnd.randrange(len(words) - 2)
            out['1word'].append(words[i])
            out['2words'].append(' '.join(words[i:i + 2]))
            out['3words'].append(' '.join(words[i:i + 3]))
            out['phrase'].append('"%s"' % ' '.join(words[i:i + 3]))
    print('# synthetic latency queries (bench/syn-queries.py TEXT %d %d)' % (n, seed))
    for kind, qs in out.items():
        for q in qs:
            print('%s\t%s' % (kind, q))


if __name__ == '__main__':
    main()
