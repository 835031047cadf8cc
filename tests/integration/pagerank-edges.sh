#!/bin/bash
# pagerank-edges.sh - the distributed power iteration on the small graphs of
# tests/data/pagerank (dangling pages, self-loops, duplicates, disconnected
# parts, a single page, sparse ids, a random graph) under real mpirun with
# -np 1..4, both ways of combining the vectors, polled and blocking waits:
# every result within 1e-9 (L1) of networkx.pagerank and of a plain power
# iteration computed here, the -np runs within 1e-9 of each other, sums 1.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

# Debian's python3 (python3-networkx); another python3 first in PATH may lack it.
PY=${PYTHON3:-/usr/bin/python3}
"$PY" -c 'import networkx' 2>/dev/null || PY=python3
"$PY" -c 'import networkx' 2>/dev/null || tap_skip_all "python3-networkx is not installed"
T=$(tmp_dir)
printf 'DataDir %s\nPageRankTolerance 1e-12\n' "$T" > "$T/tight.conf"
printf 'DataDir %s\n' "$T" > "$T/default.conf"

pr() { # NP CONF FILE OUT [OPTIONS...]
	local np=$1 conf=$2 file=$3 out=$4; shift 4
	mpi_no_leak_check timeout 120 "$MPIRUN" -np "$np" --oversubscribe \
		"$builddir/mpseek-index" --pagerank-edges "$file" "$@" "$conf" >"$out" 2>"$out.err"
}

for f in "$srcdir"/tests/data/pagerank/*.edges; do
	name=$(basename "$f" .edges)
	outs=()
	runs=("1" "2" "3" "4" "3 --pagerank-comm rsag" "2 --pagerank-comm rsag --pagerank-blocking"
	      "4 --pagerank-blocking")
	for r in "${runs[@]}"; do
		set -- $r
		np=$1; shift
		out="$T/$name.$np$(echo "$*" | tr -d ' -')"
		pr "$np" "$T/tight.conf" "$f" "$out" "$@"; rc=$?
		tap_is "$rc" 0 "$name: -np $np $* exits 0"
		[ "$rc" = 0 ] || sed 's/^/# /' "$out.err" | head -5
		outs+=("$out")
	done
	"$PY" "$srcdir/tests/integration/pagerank-ref.py" "$f" "${outs[@]}" > "$T/$name.cmp"
	i=0
	while read -r l1 l1own sum bad; do
		r=${runs[$i]}; i=$((i + 1))
		tap_ok "$(num_below "$l1" 1e-9)" "$name -np $r: L1 to networkx $l1 < 1e-9"
		tap_ok "$(num_below "$l1own" 1e-9)" "$name -np $r: L1 to the plain power iteration $l1own < 1e-9"
		tap_ok "$(num_below "$sum" 1e-9)" "$name -np $r: |sum - 1| = $sum < 1e-9"
		tap_is "$bad" 0 "$name -np $r: the same pages as networkx"
	done < "$T/$name.cmp"
	tap_is "$i" "${#runs[@]}" "$name: every run compared"
done

# Rank-count independence at the default tolerance (1e-9), on the random graph.
f="$srcdir/tests/data/pagerank/random300.edges"
for np in 1 2 3 4; do
	pr "$np" "$T/default.conf" "$f" "$T/def.$np"
done
for np in 2 3 4; do
	l1=$(awk -F'\t' 'NR==FNR { a[$1] = $2; next } { d = a[$1] - $2; s += d < 0 ? -d : d }
		END { printf "%.3g", s }' "$T/def.1" "$T/def.$np")
	tap_ok "$(num_below "$l1" 1e-9)" "default tolerance: -np $np vs -np 1, L1 $l1 < 1e-9"
done
tap_ok "$(grep -q 'iterations=[0-9]* delta=[0-9.e-]* converged=1' "$T/def.1.err" && echo 1)" \
	"default tolerance: converged, summary line printed"

# Bad input: a usage error names file and line, every rank stops.
printf '1 2\n3 x\n' > "$T/bad.edges"
pr 2 "$T/tight.conf" "$T/bad.edges" "$T/bad.out"; rc=$?
tap_is "$rc" 1 "a junk line: exit 1"
tap_ok "$(grep -q 'bad.edges:2: want' "$T/bad.out.err" && echo 1)" "the error names file:line"
pr 2 "$T/tight.conf" "$T/missing.edges" "$T/missing.out"; rc=$?
tap_is "$rc" 1 "a missing file: exit 1"
printf '1 100000000\n' > "$T/big.edges"
pr 1 "$T/tight.conf" "$T/big.edges" "$T/big.out"; rc=$?
tap_is "$rc" 1 "an id over the cap: exit 1"
{ printf '1 2 # '; head -c 5000 /dev/zero | tr '\0' x; echo; } > "$T/long.edges"
pr 1 "$T/tight.conf" "$T/long.edges" "$T/long.out"; rc=$?
tap_is "$rc" 1 "a line over 4096 bytes: exit 1"
# An empty graph: nothing to rank, no output, success.
printf '# nothing\n' > "$T/empty.edges"
pr 2 "$T/tight.conf" "$T/empty.edges" "$T/empty.out"; rc=$?
tap_is "$rc" 0 "an empty graph: exit 0"
tap_is "$(wc -c < "$T/empty.out")" 0 "an empty graph: no ranks"

tap_done
