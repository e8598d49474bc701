#!/usr/bin/env bash
# valgrind.sh: run the main paths of ranread (setup, runs in every read path,
# stop, cancel, reset, export) on a cluster whose every process runs under
# valgrind memcheck, and fail if memcheck reports an error in ranread's code.
# About 20 s; part of scripts/test.sh.  Run as root after make install.
# Its directory in /tmp is removed when memcheck finds nothing, kept otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind.sh: apt-get install valgrind" >&2; exit 1; }

pgbin=$(${PG_CONFIG:-pg_config} --bindir)
work=$(mktemp -d /tmp/ranread_valgrind.XXXXXX)
cp scripts/valgrind.supp "$work/"
chown -R postgres: "$work"
as_pg() { runuser -u postgres -- env PATH="$pgbin:$PATH" "$@"; }
cleanup() { as_pg pg_ctl -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; }
trap cleanup EXIT

as_pg initdb -D "$work/data" -A trust >/dev/null
cat >>"$work/data/postgresql.conf" <<CONF
max_worker_processes = 16
unix_socket_directories = '$work'
listen_addresses = ''
port = 54329
CONF
# every backend and worker is a child of the postmaster, so trace children
as_pg bash -c "valgrind --quiet --trace-children=yes --track-origins=yes \
	--read-var-info=yes --num-callers=30 --suppressions='$work/valgrind.supp' --log-file='$work/vg.%p.log' \
	'$pgbin/postgres' -D '$work/data' >'$work/server.log' 2>&1 &"
for _ in $(seq 120); do as_pg psql -h "$work" -p 54329 -XAtqc 'SELECT 1' postgres >/dev/null 2>&1 && break; sleep 1; done

if ! as_pg psql -h "$work" -p 54329 -X -v ON_ERROR_STOP=1 -v "work=$work" postgres >"$work/psql.log" 2>&1 <<'SQL'
CREATE EXTENSION ranread;
SELECT ranread_setup('16 MB', log_level => 1);
SELECT status FROM ranread_run(2, 200);
SELECT status FROM ranread_run(2, 200, mode => 'direct');
SELECT status FROM ranread_run(2, 200, mode => 'buffer', block_size => 16384);
SELECT status FROM ranread_run(1, NULL, mode => 'direct', duration => '2 s');
SELECT status FROM ranread_run(2, NULL, duration => '60 s');
SET statement_timeout = '3s';
\set ON_ERROR_STOP 0
SELECT status FROM ranread_run(2, 100000000, allow_rereads => true);
\set ON_ERROR_STOP 1
RESET statement_timeout;
SELECT ranread_export(:'work');
SELECT count(*) FROM ranread_summary;
SELECT ranread_reset();
SELECT ranread_drop();
SQL
then
	cat "$work/psql.log" >&2
	echo "valgrind.sh: the SQL session failed (output above)" >&2
	exit 1
fi
cleanup
trap - EXIT

# memcheck errors with a frame in ranread: its object, or one of its source
# files (with debug info valgrind names "worker.c:145" rather than the object)
sources=$(cd src && ls *.c */*.c | xargs -n1 basename | sed 's/\./\\./' | paste -sd'|')
ours="ranread\.so|[( ](${sources}):[0-9]+\)"
errors=$(OURS="$ours" awk '
	/^==[0-9]+== [A-Z]/ { block = $0; next }
	/^==[0-9]+== +(at|by) / { block = block "\n" $0; next }
	/^==[0-9]+== *$/ { if (block != "" && block ~ ENVIRON["OURS"]) print block "\n"; block = "" }
' "$work"/vg.*.log)
if [ -n "$errors" ]; then
	echo "valgrind.sh: memcheck errors in ranread code (logs kept in $work):" >&2
	printf '%b\n' "$errors" >&2
	exit 1
fi
echo "valgrind.sh: $(ls "$work"/vg.*.log | wc -l) processes traced, no memcheck error in ranread code"
rm -rf "$work"
