#!/bin/bash
# index-cli.sh - mpseek-index, searchd and s.cgi on the command line: help,
# version, unknown options, missing and bad configs, a missing database
# server.  Each failure is one clear message and a non-zero exit, never a
# crash (exit status >= 128 would be a signal).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
tmp=$(tmp_dir)

out=$("$idx" --help 2>&1); rc=$?
tap_is "$rc" 0 "--help exits 0"
tap_ok "$(echo "$out" | grep -q '^usage: mpseek-index' && echo 1)" "--help prints usage"

out=$("$idx" --version 2>&1); rc=$?
tap_is "$rc" 0 "--version exits 0"
tap_ok "$(echo "$out" | grep -qE '^mpseek-index [0-9]+\.[0-9]+' && echo 1)" "--version prints the version"

for opt in -Z --bogus; do
	out=$("$idx" $opt "$srcdir/etc/mpseek.conf" 2>&1); rc=$?
	tap_is "$rc" 2 "unknown option $opt exits 2"
	tap_ok "$(echo "$out" | grep -q 'unknown option' && echo 1)" "unknown option $opt is named: $out"
	tap_is "$(echo "$out" | wc -l)" 1 "unknown option $opt gives one line"
done

out=$("$idx" --check-config "$tmp/nope.conf" 2>&1); rc=$?
tap_is "$rc" 2 "a missing config file exits 2"
tap_ok "$(echo "$out" | grep -q "nope.conf" && echo 1)" "a missing config file is named: $out"

printf 'DataDir %s\nPeriod 7x\n' "$tmp" > "$tmp/bad.conf"
out=$("$idx" --check-config "$tmp/bad.conf" 2>&1); rc=$?
tap_is "$rc" 2 "a bad config line exits 2"
tap_ok "$(echo "$out" | grep -qF "$tmp/bad.conf:2:" && echo 1)" "the bad line is reported as file:line: $out"
tap_is "$(echo "$out" | wc -l)" 1 "a bad config line gives one line"

out=$("$idx" --check-config "$srcdir/etc/mpseek.conf" 2>&1); rc=$?
tap_is "$rc" 0 "the sample etc/mpseek.conf is valid: $out"

# A database server that is not there: one message, exit 1, well before any hang.
printf 'DBAddr mysql://root@localhost/mpseek/?socket=%s/none.sock\nDataDir %s\n' "$tmp" "$tmp" > "$tmp/nodb.conf"
out=$(timeout 60 "$idx" -S "$tmp/nodb.conf" 2>&1); rc=$?
tap_is "$rc" 1 "-S with no database server exits 1"
tap_ok "$(echo "$out" | grep -qi 'cannot connect' && echo 1)" "the missing server is reported: $(echo "$out" | tail -1)"

# The embedded default that was never started: -S says how to start it.
printf 'DataDir %s/emb\n' "$tmp" > "$tmp/emb.conf"
out=$("$idx" -S "$tmp/emb.conf" 2>&1); rc=$?
tap_is "$rc" 1 "-S on a stopped embedded database exits 1"
tap_ok "$(echo "$out" | grep -q -- '--db-start' && echo 1)" "the message says how to start it: $out"

out=$("$builddir/searchd" --bogus 2>&1); rc=$?
tap_is "$rc" 2 "searchd: unknown option exits 2"
out=$("$builddir/searchd" "$srcdir/etc/searchd.conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 2 ] && echo "$out" | grep -q -- '-F' && echo 1)" "searchd without -F or -D explains itself and exits 2"
out=$(MPSEEK_DATADIR=$tmp/emb "$builddir/searchd" -F "$srcdir/etc/searchd.conf" 2>&1); rc=$?
tap_ok "$([ "$rc" = 1 ] && echo "$out" | grep -q -- '--db-start' && echo 1)" \
	"searchd on a stopped embedded database exits 1 and says how to start it: $out"

out=$(REQUEST_METHOD=GET QUERY_STRING='q=%3Cscript%3E' "$builddir/s.cgi" </dev/null 2>"$tmp/cgi.err"); rc=$?
tap_is "$rc" 0 "s.cgi answers"
tap_ok "$(echo "$out" | grep -q '^Status: 500' && ! echo "$out" | grep -q 's\.htm' &&
	grep -q 's\.htm: No such file' "$tmp/cgi.err" && echo 1)" \
	"s.cgi without an installed template: 500, the log names the file, the page does not (searchd down: cgi-hostile.sh)"

tap_done
