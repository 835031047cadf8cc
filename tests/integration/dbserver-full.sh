#!/bin/bash
# dbserver-full.sh - creating the embedded database on a full file system
# (doc/DATABASE.md): mariadb-install-db fails with "error 28" in its log;
# mpseek-index --db-start must say "disk full" with the megabytes free, and
# leave no mysql.new/ behind.  Needs root to mount a 20 MB tmpfs; skipped
# otherwise.
. "${srcdir:-$(dirname "$0")/../..}/tests/integration/lib.sh"

idx="$builddir/mpseek-index"
[ -x "$idx" ] || tap_skip_all "$idx not built"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root to mount a small tmpfs"
T=$(tmp_dir)
mkdir -p "$T/small"
mount -t tmpfs -o size=20m tmpfs "$T/small" 2>/dev/null ||
	tap_skip_all "cannot mount a tmpfs here"
trap 'umount "$T/small" 2>/dev/null; _lib_cleanup' EXIT
printf 'DataDir %s/small/data\n' "$T" >"$T/full.conf"
out=$(timeout 300 "$idx" --db-start "$T/full.conf" 2>&1)
rc=$?
tap_ok "$([ "$rc" != 0 ] && echo 1)" "--db-start on a 20 MB file system fails (exit $rc)"
tap_ok "$(echo "$out" | grep -qE 'disk full: [0-9]+ MB free on the file system of ' && echo 1)" \
	"the message says disk full in words: $(echo "$out" | grep -m1 'disk full' | cut -c1-200)"
tap_ok "$([ ! -e "$T/small/data/mysql.new" ] && echo 1)" "no mysql.new/ is left behind"
"$idx" --db-stop "$T/full.conf" >/dev/null 2>&1
umount "$T/small" 2>/dev/null
tap_done
