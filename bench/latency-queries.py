#!/usr/bin/python3
"""latency-queries.py - the latency query set of bench/search, made from the
known-item set (bench/data/known-items.tsv): words of the corpus' titles and
headings, so that most queries match something.

Classes (N queries each, picked with SEED):
  1word     one word of a title or heading
  2words    two adjacent words of one title or heading
  3words    three adjacent words
  phrase    the same three words in double quotes
  wildcard  the first 6 letters of a word of at least 8 letters, then '*'
            (6: mpseek's default MinFixedPatternLength, after ASPseek)
Words are letters only (a-z, 3+ letters), so every engine splits them alike.

Usage: latency-queries.py KNOWN_ITEMS N SEED > latency-queries.tsv
Output: "class<TAB>query".
"""
import random
import re
import sys


def main():
    path, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    texts = []
    for line in open(path):
        if line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        if len(f) == 3:
            words = [w for w in f[1].split() if re.fullmatch('[a-z]{3,}', w)]
            if words:
                texts.append(words)
    rnd = random.Random(seed)
    runs = {k: [t[i:i + k] for t in texts for i in range(len(t) - k + 1)] for k in (1, 2, 3)}
    long_words = sorted({w for t in texts for w in t if len(w) >= 8})
    out = [('1word', ' '.join(r)) for r in rnd.sample(runs[1], n)]
    out += [('2words', ' '.join(r)) for r in rnd.sample(runs[2], n)]
    three = rnd.sample(runs[3], n)
    out += [('3words', ' '.join(r)) for r in three]
    out += [('phrase', '"%s"' % ' '.join(r)) for r in three]
    out += [('wildcard', w[:6] + '*') for w in rnd.sample(long_words, n)]
    print('# latency queries of bench/search (bench/latency-queries.py KNOWN_ITEMS %d %d)' % (n, seed))
    for kind, q in out:
        print('%s\t%s' % (kind, q))


if __name__ == '__main__':
    main()
