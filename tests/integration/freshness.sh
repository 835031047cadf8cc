#!/bin/bash
# freshness.sh - the freshness simulation through the real crawler
# (doc/CRAWL.md, "The simulation"): tests/servers/changeweb.py serves 28
# pages that change as Poisson processes of known rates (1/2 s to 1/120 s)
# in four value classes (ω 1, 3, 9, 27), the same changes for each run (one
# seed, counted from the crawl's first request).  Two continuous crawls of
# it: one with RecrawlMode value and MaxFetchRate, then one with the fixed
# Period that spends at least the value mode's fetches a second; the
# value-weighted freshness of each (from the server's log: the version each
# page's copy was fetched at against its live version, integrated over the
# window; and in expectation, from the fetch times and the true rates) is
# printed with the optimum of the convex problem on the same site
# (tests/unit/test-freshness --optimum).  The value mode must step λ_0
# across the rounds and be fresher in expectation at no more fetches.
# FRESHNESS_SECONDS lengthens each crawl (40 s by default); FRESHNESS_KEEP=DIR
# keeps the servers' logs and the crawl logs there.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
opt="$builddir/tests/unit/test-freshness"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$opt" ] || tap_skip_all "$opt not built"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"
# A race against the clock of the test server: under the sanitizers the
# crawler runs several times slower and spends its budget differently.
# Its code paths run there in recrawl.sh and continuous.sh; the plain
# build's pass runs this.
grep -q -- '-fsanitize' "$builddir/Makefile" 2>/dev/null &&
	tap_skip_all "sanitizer build (the plain build runs this timed simulation)"
T=$(tmp_dir)
mdb_start

run=${FRESHNESS_SECONDS:-40}
rate=2.3     # MaxFetchRate: 32 pages (28 and 4 index pages) every 14 s
# The values 1:3:9:27 as PageValue w/27: the optimum's multiplier is then near
# 1, where λ_0 starts; a run of 40 s has a few epochs, too few for λ_0 to
# travel far (at most a factor e^0.2 each).  Freshness is weighted by the
# classes' relative values, which the scale leaves alone.  Period 20s, the
# upper bound: a new page is taken to change every MinPeriod, so the lower
# classes go to the bound at their first fetch and must come back within
# the run to be found slow (doc/CRAWL.md, "The simulation").
values=("PageValue 0.037037" "Server @/w1/" "PageValue 0.111111" "Server @/w3/"
	"PageValue 0.333333" "Server @/w9/" "PageValue 1" "Server @/w27/")

# crawl NAME LINE...: a fresh changeweb and a continuous crawl of it for
# $run s into database NAME.
crawl() {
	local name=$1 rc lines=() l
	shift
	changeweb_start "$T/$name" --seed 7
	for l in "${values[@]}"; do lines+=("${l/@/${CHANGEWEB_URL%/}}"); done
	write_conf "$T/$name.conf" "$name" "Robots no" "MinDelay 0" "ReadTimeOut 5" \
		"ServerScope path" "PublishInterval 5" "$@" "${lines[@]}"
	mpi_no_leak_check timeout $((run + 120)) "$idx" --continuous -t "$run" "$T/$name.conf" \
		>"$T/$name.out" 2>"$T/$name.log" </dev/null
	rc=$?
	tap_is "$rc" 0 "$name: a continuous crawl of $run s"
	[ "$rc" = 0 ] || tail -15 "$T/$name.log" | sed 's/^/#   /'
	changeweb_stop
	[ -z "${FRESHNESS_KEEP:-}" ] || cp -r "$T/$name" "$T/$name.conf" "$T/$name.log" "$FRESHNESS_KEEP/"
}
# score NAME FROM: "freshness F fetches N expected E rate R" of crawl NAME
# over [FROM, $run] (R over the whole crawl).
score() {
	python3 "$srcdir/tests/servers/changeweb.py" --score "$T/$1/truth.json" "$T/$1/requests.log" \
		--window "$2" "$run"
}
field() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

crawl value "RecrawlMode value" "MinPeriod 3s" "Period 20s" "MaxFetchRate $rate"
lambda0=$(mdb_sql "SELECT lambda FROM recrawl_limits WHERE site_id = 0" value)
# λ_0 steps once an epoch (25 fetches at MaxFetchRate, 11 s) while a round
# of the continuous crawl lasts a second or two: it moved only if the
# rounds hand it on.
tap_ok "$([ -n "$lambda0" ] && echo 1)" \
	"lambda_0 was stepped and stored across the rounds (${lambda0:-none})"
# The fixed Period at the value mode's budget: its schedule's fetches a
# second (each page's fetches after its first over the time they took,
# summed: a count in a window would jump by a whole class of pages when the
# ones at the 20 s bound come back at 39.5 s or at 40.5 s), and 5% more for
# the rounds that come late (due times are whole seconds, and a page that
# falls due waits for the next round: up to 6% fewer fetches than the
# Period asks for), as all 32 pages (28 and the 4 index pages) once per
# Period, in whole seconds rounded down (the Period spends at least as
# many), at most 16 (a little above the 14 s MaxFetchRate stands for).
# Freshness is measured over the last two Periods of each crawl, so that
# every phase of the fixed schedule counts alike.
r_val=$(field "$(score value 0)" rate)
period=$(awk -v r="$r_val" 'BEGIN {
	p = r > 0 ? int(32 / (1.05 * r)) : 16
	print (p < 3 ? 3 : (p > 16 ? 16 : p))
}')
from=$((run - 2 * period))
[ "$from" -ge 8 ] || from=8
crawl period "RecrawlMode period" "Period ${period}s"
val=$(score value "$from")
per=$(score period "$from")
r_per=$(field "$per" rate)
# The optimum for the 28 pages at the value mode's fetches a second (their
# share as the fixed Period spends it, 28 of 32), and the fixed Period's
# expectation there: every page once per 32/r_val s, every phase alike, no
# round late.  Only printed: a window of 24 s or so is not every phase of a
# schedule, and a fixed one of 14 s measured so scores 0.01 above it.
best=$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["pages"].values():
    print(p["rate"], p["omega"] / 27)' "$T/value/truth.json" |
	"$opt" --optimum "$(awk -v r="$r_val" 'BEGIN { print 28 * r / 32 }')" | head -1)

f_per=$(field "$per" expected) f_val=$(field "$val" expected)
tap_diag "fetches a second: value mode $r_val, fixed Period $r_per; freshness ${from}-${run} s:"
tap_diag "value mode (MaxFetchRate $rate): $val (lambda_0 at the end ${lambda0:-none})"
tap_diag "fixed Period ${period} s: $per"
tap_diag "at the value mode's $r_val fetches/s (28/32 on the 28 pages, true rates, omega as PageValue):"
tap_diag "convex $best (the last: the fixed Period's expectation)"
tap_ok "$(awk -v a="$r_val" -v b="$r_per" 'BEGIN { if (a > 0 && a <= b * 1.05) print 1 }')" \
	"the value mode spends no more fetches: $r_val against $r_per a second"
# The claim is "higher at no more fetches", in expectation: the
# freshness each schedule kept, averaged over every realisation of the
# changes, not only the one met (on 28 pages, 7 of them two thirds of the
# weight, that one realisation moves the fixed Period's score by 0.08 with
# the phase of its rounds alone).  No margin is asked: only that value wins
# (doc/CRAWL.md, "The simulation").
tap_ok "$(awk -v v="$f_val" -v p="$f_per" 'BEGIN { if (v != "" && v > p) print 1 }')" \
	"value-ordered beats the fixed Period in expectation: $f_val > $f_per"
tap_done
