#!/bin/bash
# include-graph.sh - the modules' dependencies point one way (doc/ARCHITECTURE.md).
#
# A module is a public header include/X.h with the sources that implement
# it: src/*/X.c and the rooms of a split module, src/*/X_*.c (crawl_admit.c
# belongs to crawl, db_claim.c to db) when no header of their own exists.
# Module A uses module B when a file of A includes "B.h".  The test prints
# the graph and fails on any cycle, listing it; it also checks that the
# stages are layered: src/common, src/text, src/store, src/crawl, src/index,
# src/search, src/web, src/bin, each using only those before it.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

out=$(python3 - "$srcdir" <<'PY'
import os, re, sys
top = sys.argv[1]
inc = os.path.join(top, "include")
headers = {f[:-2] for f in os.listdir(inc) if f.endswith(".h")}

def module_of(base):
    """The module a source or private header belongs to, or None."""
    name = base
    while True:
        if name in headers:
            return name
        if "_" not in name:
            return None
        name = name.rsplit("_", 1)[0]

files = {}   # path -> module
stage = {}   # module -> src/ folder of its sources
for d, _, fs in os.walk(os.path.join(top, "src")):
    for f in fs:
        if not f.endswith((".c", ".h")) or f == "schema_sql.c":
            continue
        base = f[:-2]
        if d.endswith("/bin"):
            files[os.path.join(d, f)] = "main:" + base
            continue
        m = module_of(base)
        if m is None:
            print("error %s: belongs to no module (no include/%s.h)" % (os.path.relpath(os.path.join(d, f), top), base))
            continue
        files[os.path.join(d, f)] = m
        stage.setdefault(m, os.path.basename(d))
for h in headers:
    files[os.path.join(inc, h + ".h")] = h

edges = {}
pat = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)
for path, m in files.items():
    with open(path, errors="replace") as fp:
        for dep in pat.findall(fp.read()):
            dep = os.path.basename(dep)
            if dep in headers and dep != m:
                edges.setdefault(m, set()).add(dep)

for m in sorted(edges):
    print("edge %s -> %s" % (m, " ".join(sorted(edges[m]))))

# Tarjan's strongly connected components: any with more than one module is a cycle.
index, low, onstack, stack, sccs, n = {}, {}, set(), [], [], [0]
def strong(v):
    index[v] = low[v] = n[0]; n[0] += 1
    stack.append(v); onstack.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in onstack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); onstack.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
sys.setrecursionlimit(10000)
for v in sorted(set(edges) | headers):
    if v not in index:
        strong(v)
for comp in sccs:
    if len(comp) > 1:
        print("cycle " + " ".join(sorted(comp)))

# The stages from the bottom up: a module uses only modules of its own
# stage or of stages below it (header-only modules, such as caps.h, count
# as src/common).
order = ["common", "text", "store", "crawl", "index", "search", "web", "bin"]
def level(m):
    return order.index("bin" if m.startswith("main:") else stage.get(m, "common"))
for m in sorted(edges):
    for dep in sorted(edges[m]):
        if level(dep) > level(m):
            print("upward %s (src/%s) uses %s (src/%s)" % (m, order[level(m)], dep, order[level(dep)]))
PY
)
tap_ok "$(grep -q '^edge ' <<<"$out" && echo 1)" "the include graph was read ($(grep -c '^edge ' <<<"$out") modules use others)"
while read -r line; do tap_diag "$line"; done < <(grep '^edge ' <<<"$out")
errs=$(grep '^error ' <<<"$out" || true)
tap_is "$errs" "" "every source file belongs to a module"
cycles=$(grep '^cycle ' <<<"$out" || true)
tap_is "$cycles" "" "no cycle between modules"
up=$(grep '^upward ' <<<"$out" || true)
tap_is "$up" "" "each stage uses only itself and the stages below it"
tap_done
