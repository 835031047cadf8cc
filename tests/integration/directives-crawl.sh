#!/bin/bash
# directives-crawl.sh - crawl directives of mpseek.conf, each against a small
# site served by nginx (private MariaDB): a crawl with the defaults and one
# with Follow/NoFollow, IncrementHopsOnRedirect, Charset, Clones, HTTPHeader,
# Period and ClaimBatchSize set, compared row by row; Proxy (a host that
# does not resolve, reached through nginx as the proxy); DeleteNoServer (a
# re-crawl after a Server line went); LeaseTime (the lease of a URL whose
# fetch is under way, on tests/servers/hostile.py's /sleep); AddressExpiry
# (how often strace sees the resolver read /etc/hosts); and EmbeddedDBListen
# (the embedded server answers on TCP).
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ -x "$NGINX" ] || tap_skip_all "nginx not found (Debian package nginx)"
command -v python3 >/dev/null 2>&1 || tap_skip_all "python3 not found"
T=$(tmp_dir)

# The site: index.html links every page; nofollow/ links deep.html; r.html
# redirects to t.html; koi.html is KOI8-R text and plain.html ASCII, neither
# declaring its charset (nginx sends none); dup2.html is a copy of dup1.html;
# hdr/ answers 403 unless the request has "X-Dirtest: yes"; sub/ is a
# Server of its own later; p01..p16.html are there to be claimed; ka0/
# closes every connection.
site=$T/site
mkdir -p "$site/nofollow" "$site/hdr" "$site/sub" "$site/ka0"
page() { printf '<html><head><title>%s</title></head><body>%s</body></html>\n' "$2" "$3" >"$site/$1"; }
page index.html home 'homeword <a href="nofollow/">n</a> <a href="r.html">r</a>
<a href="koi.html">k</a> <a href="dup1.html">d</a> <a href="dup2.html">d</a>
<a href="hdr/">h</a> <a href="sub/">s</a> <a href="plain.html">p</a>
'"$(for i in $(seq -w 1 16); do printf '<a href="p%s.html">p</a> ' "$i"; done)"
for i in $(seq -w 1 16); do page "p$i.html" "p$i" "pageword$i"; done
page nofollow/index.html nf '<a href="deep.html">deep</a>'
page nofollow/deep.html deep deepword
page t.html target targetword
page dup1.html dup 'dupword the same bytes'
cp "$site/dup1.html" "$site/dup2.html"
page hdr/index.html hdr headerword
page sub/index.html sub subword
page plain.html plain 'asciiword only'
page ka0/index.html ka '<a href="k1.html">1</a> <a href="k2.html">2</a> <a href="k3.html">3</a>'
for i in 1 2 3; do page "ka0/k$i.html" "k$i" "kaword$i"; done
# "привет" in KOI8-R: read as any other charset it is other letters.
printf '<html><body>\xd0\xd2\xc9\xd7\xc5\xd4 koiword</body></html>\n' >"$site/koi.html"
cat >"$T/site.conf" <<'EOF'
location = /r.html { return 301 /t.html; }
location /ka0/ { keepalive_timeout 0; }
location /hdr/ {
	if ($http_x_dirtest != "yes") { return 403; }
}
EOF
web_start "$site" "$T/site.conf"
base=${WEB_URL%/}
mdb_start
SQL() { mdb_sql "$1" "$2"; }

# crawl DB [ARGS --] LINES...: a config for database DB with the lines,
# crawled; log in $T/DB.log, exit status in $rc.
crawl() {
	local db=$1 args=()
	shift
	if [ "${1:-}" = -a ]; then args=(-a); shift; fi
	write_conf "$T/$db.conf" "$db" "Robots no" "MinDelay 0" "ReadTimeOut 10" "$@"
	mpi_no_leak_check timeout 120 "$idx" "${args[@]}" "$T/$db.conf" >"$T/$db.out" 2>"$T/$db.log"
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "$db: exit $rc"; tail -5 "$T/$db.log" | sed 's/^/#   /'; }
}
col() { SQL "SELECT $2 FROM urlword WHERE url = '$base/$3'" "$1"; }
claims() { sed -n 's/.* in \([0-9]*\) claim(s).*/\1/p' "$T/$1.log" | tail -1; }

# ---- the defaults against the directives set
crawl dflt "Server $base/"
tap_is "$rc" 0 "the crawl with the defaults exits 0"
crawl set "HTTPHeader X-Dirtest: yes" "HTTPHeader User-Agent: dirtest-agent/1" "Clones no" \
	"ClaimBatchSize 1" "Period 1h" "IncrementHopsOnRedirect no" "Charset koi8-r" \
	"NoFollow" "Server $base/nofollow/" "Follow yes" "Server $base/"
tap_is "$rc" 0 "the crawl with the directives exits 0"

tap_is "$(col dflt status nofollow/deep.html)" 200 "Follow (default yes): the link of nofollow/ is followed"
tap_is "$(col set 'COUNT(*)' nofollow/deep.html)" 0 "NoFollow: the links of its Server are not stored"
tap_is "$(col set status t.html)" 200 "... while Follow yes on the next Server follows the others"

tap_is "$(col dflt hops r.html):$(col dflt hops t.html)" 1:2 \
	"IncrementHopsOnRedirect (default yes): a redirect target is one hop further"
tap_is "$(col set hops t.html)" 1 "IncrementHopsOnRedirect no: the target keeps the redirect's hops"

"$idx" --dump-index "$T/dflt.conf" 2>/dev/null | cut -f1 | sort -u >"$T/dflt.words"
"$idx" --dump-index "$T/set.conf" 2>/dev/null | cut -f1 | sort -u >"$T/set.words"
# The charset stored for a page (urlwordsNN.charset).
cs() {
	local id
	id=$(col "$1" url_id "$2")
	SQL "SELECT charset FROM $(urlwords_table "$id") WHERE url_id = $id" "$1"
}
tap_is "$(cs dflt plain.html)" windows-1252 \
	"Charset (default: none): an undeclared page the detector cannot place is windows-1252"
tap_is "$(cs set plain.html)" KOI8-R "Charset koi8-r: it is read as KOI8-R"
tap_ok "$(grep -qx 'привет' "$T/dflt.words" && grep -qx 'привет' "$T/set.words" && echo 1)" \
	"... but the detector, when it knows, comes first (the KOI8-R page is read as such)"

tap_is "$(col dflt origin dup1.html):$(col dflt origin dup2.html)" 1:0 \
	"Clones (default yes): the copy is a clone of the first"
tap_is "$(col set origin dup1.html):$(col set origin dup2.html)" 1:1 \
	"Clones no: both copies are indexed as origins"

tap_is "$(col dflt status hdr/)" 403 "without HTTPHeader: hdr/ answers 403"
tap_is "$(col set status hdr/)" 200 "HTTPHeader X-Dirtest: yes: hdr/ answers 200"
tap_ok "$(awk -F'\t' '$9 == "dirtest-agent/1"' "$WEB_LOG" | grep -q . &&
	awk -F'\t' '$9 ~ /^mpseek\//' "$WEB_LOG" | grep -q . && echo 1)" \
	"HTTPHeader User-Agent: replaces the default mpseek/<version>"

due() { SQL "SELECT next_index_time - last_index_time FROM urlword WHERE url = '$base/t.html'" "$1"; }
tap_is "$(due dflt)" 604800 "Period (default 7d): due 7 days after the fetch"
tap_is "$(due set)" 3600 "Period 1h: due an hour after the fetch"

n_urls=$(SQL 'SELECT COUNT(*) FROM urlword WHERE status = 200' set)
tap_diag "claims: $(claims dflt) by default, $(claims set) with ClaimBatchSize 1 ($n_urls pages)"
tap_ok "$([ "$(claims set)" -ge "$n_urls" ] && [ "$(claims dflt)" -lt "$n_urls" ] && echo 1)" \
	"ClaimBatchSize 1: a claim per URL"

# ---- Proxy: proxied.invalid does not resolve; nginx, as the proxy, serves it
crawl proxy "Proxy 127.0.0.1:$WEB_PORT" "Server http://proxied.invalid/sub/"
tap_is "$(SQL "SELECT status FROM urlword WHERE url = 'http://proxied.invalid/sub/'" proxy)" 200 \
	"Proxy: a host that does not resolve is fetched through the proxy"
tap_ok "$(awk -F'\t' '$3 == "http://proxied.invalid/sub/" || $8 == "proxied.invalid"' "$WEB_LOG" |
	grep -q . && echo 1)" "... which got the request for it"
crawl noproxy "Server http://proxied.invalid/sub/"
tap_ok "$([ "$(SQL "SELECT status FROM urlword WHERE url = 'http://proxied.invalid/sub/'" noproxy)" != 200 ] && echo 1)" \
	"without it: not fetched"

# ---- DeleteNoServer: re-crawl everything (-a) with only the sub/ Server left,
# narrowed to its directory (a Server admits its whole site otherwise)
live() { SQL "SELECT COUNT(*) FROM urlword WHERE deleted = 0 AND url LIKE '$base/%' AND url NOT LIKE '$base/sub/%'" "$1"; }
before=$(live dflt)
crawl dflt -a "ServerScope path" "Server $base/sub/"
tap_is "$(live dflt)" 0 "DeleteNoServer (default yes): the $before URLs no Server covers are deleted"
crawl set -a "DeleteNoServer no" "ServerScope path" "Server $base/sub/"
tap_ok "$([ "$(live set)" -ge 8 ] && echo 1)" "DeleteNoServer no: they are kept ($(live set))"

# ---- LeaseTime: the lease of a URL while its fetch (3 s) is under way
hostile_start
lease() { # DB LINE...: crawl in the background, read the lease after 2 s
	local db=$1
	shift
	write_conf "$T/$db.conf" "$db" "Robots no" "MinDelay 0" "ReadTimeOut 20" "$@" \
		"Server ${HOSTILE_URL}sleep/3"
	mpi_no_leak_check timeout 120 "$idx" "$T/$db.conf" >"$T/$db.out" 2>"$T/$db.log" &
}
lease lease15
p1=$!
lease lease2h "LeaseTime 2h"
p2=$!
left() {
	SQL "SELECT MAX(lease_until) - UNIX_TIMESTAMP() FROM urlword WHERE claim_rank >= 0 AND url LIKE '%/sleep/3'" "$1" 2>/dev/null
}
l1="" l2=""
for _ in $(seq 50); do
	sleep 0.2
	[ -z "$l1" ] || [ "$l1" = NULL ] && l1=$(left lease15)
	[ -z "$l2" ] || [ "$l2" = NULL ] && l2=$(left lease2h)
	[ -n "$l1" ] && [ "$l1" != NULL ] && [ -n "$l2" ] && [ "$l2" != NULL ] && break
done
wait "$p1" "$p2"
tap_ok "$([ "${l1:-0}" != NULL ] && [ "${l1:-0}" -gt 800 ] && [ "${l1:-0}" -le 900 ] && echo 1)" \
	"LeaseTime (default 15M): the claim holds 15 minutes (${l1:-none} s left)"
tap_ok "$([ "${l2:-0}" != NULL ] && [ "${l2:-0}" -gt 7100 ] && [ "${l2:-0}" -le 7200 ] && echo 1)" \
	"LeaseTime 2h: the claim holds 2 hours (${l2:-none} s left)"

# ---- AddressExpiry: how long curl keeps a host's address.  The host is a
# name /etc/hosts gives 127.0.0.1 (curl answers "localhost" itself); ka0/
# closes every connection, so each fetch connects anew; a fetch every 1.2 s
# resolves the name again (glibc opens /etc/hosts) only once the address
# has expired: with 1 s each time, with the default (1h) once.
name=$(awk '$1 == "127.0.0.1" { for (i = 2; i <= NF; i++) if ($i != "localhost") { print $i; exit } }' /etc/hosts)
if [ -z "$name" ]; then
	tap_skip 2 "no name for 127.0.0.1 in /etc/hosts but localhost: AddressExpiry not shown"
elif command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
	resolve() { # DB LINE...: crawl ka0/ under strace in the background
		local db=$1
		shift
		write_conf "$T/$db.conf" "$db" "Robots no" "MinDelay 1.2" "ReadTimeOut 10" "$@" \
			"Server http://$name:$WEB_PORT/ka0/"
		mpi_no_leak_check timeout 120 strace -f -e trace=open,openat -o "$T/$db.strace" \
			"$idx" "$T/$db.conf" >"$T/$db.out" 2>"$T/$db.log" &
	}
	resolve dns1h
	p1=$!
	resolve dns1s "AddressExpiry 1"
	p2=$!
	wait "$p1" "$p2"
	hosts() { grep -c '"/etc/hosts"' "$T/$1.strace"; }
	tap_is "$(SQL "SELECT COUNT(*) FROM urlword WHERE status = 200" dns1s)" 4 "AddressExpiry 1: the 4 pages fetched"
	tap_diag "/etc/hosts read $(hosts dns1h) times by default, $(hosts dns1s) with AddressExpiry 1"
	tap_ok "$([ "$(hosts dns1s)" -ge 4 ] && [ "$(hosts dns1s)" -gt "$(hosts dns1h)" ] && echo 1)" \
		"AddressExpiry 1: the name is resolved again for every fetch"
else
	tap_skip 2 "strace not usable: AddressExpiry not shown"
fi

# ---- EmbeddedDBListen: the embedded server (no DBAddr) answers on TCP
E=$(tmp_dir)
port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
printf 'DataDir %s/d\nEmbeddedDBListen 127.0.0.1:%s\n' "$E" "$port" >"$E/c.conf"
"$idx" --db-start "$E/c.conf" >"$E/start.log" 2>&1
tap_is "$?" 0 "EmbeddedDBListen: --db-start exits 0"
greeting() {
	python3 - "$1" <<'PYEOF'
import socket, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2)
    print("mariadb" if b"mariadb" in s.recv(200).lower() else "other")
except OSError as e:
    print("refused")
PYEOF
}
tap_is "$(greeting "$port")" mariadb "EmbeddedDBListen 127.0.0.1:$port: the server greets on TCP"
"$idx" --db-stop "$E/c.conf" >/dev/null 2>&1
printf 'DataDir %s/d\n' "$E" >"$E/n.conf"
"$idx" --db-start "$E/n.conf" >"$E/start2.log" 2>&1
tap_is "$(greeting "$port")" refused "without it: unix socket only"
"$idx" --db-stop "$E/n.conf" >/dev/null 2>&1

tap_done
