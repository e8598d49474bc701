#!/usr/bin/env bash
# fleet_local.sh: ranread_fleet_run() on three throwaway clusters of one
# machine, sharing its disk: one server alone, then all three at once, so
# that the fleet's sum shows the contention, then a fleet sweep of 1 to 8
# processes per server (docs/fleet.md quotes its output).
# Run as root after `make install`; PG_CONFIG picks the server (default:
# pg_config on the PATH).  Usage: bench/fleet_local.sh [SIZE] [DURATION] [CHART]
# (CHART: a file for the fleet sweep's ranread_chart_fleet(), an SVG).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1 GB}
duration=${2:-10 s}
chart=${3:-}
bin=$("${PG_CONFIG:-pg_config}" --bindir)
base=$(mktemp -d /tmp/ranread_fleet.XXXXXX)
chown postgres "$base"
trap 'for i in 1 2 3; do runuser -u postgres -- "$bin/pg_ctl" -D "$base/n$i" stop -m fast >/dev/null 2>&1 || true; done; rm -rf "$base"' EXIT
sql() { "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$base" -p "$1" -U postgres "${@:2}"; }
for i in 1 2 3; do
	runuser -u postgres -- "$bin/initdb" -D "$base/n$i" -A trust >/dev/null
	runuser -u postgres -- "$bin/pg_ctl" -D "$base/n$i" -l "$base/n$i.log" \
		-o "-p 5550$i -k $base -c max_worker_processes=32 -c listen_addresses=''" start >/dev/null
	sql "5550$i" -c 'CREATE EXTENSION ranread' -c 'SET client_min_messages = error' \
		-c "SELECT ranread_setup('$size', log_level => 0)" >/dev/null
done
sql 55501 -c 'CREATE EXTENSION dblink' >/dev/null
for i in 1 2 3; do
	sql 55501 -c "CREATE SERVER node$i FOREIGN DATA WRAPPER dblink_fdw OPTIONS (host '$base', port '5550$i', dbname 'postgres')" \
		-c "CREATE USER MAPPING FOR postgres SERVER node$i OPTIONS (user 'postgres')" >/dev/null
done
columns="scope, server, status, round(iops) AS iops, round(mean_ms::numeric, 4) AS mean_ms, round(p99_ms::numeric, 4) AS p99_ms,
	round(start_skew_ms::numeric, 3) AS skew_ms, round(clock_offset_ms::numeric, 3) AS offset_ms, round(overlap_pct::numeric, 1) AS overlap_pct"
echo "== node1 alone, 4 processes, $duration"
sql 55501 -c "SELECT $columns FROM ranread_fleet_run(ARRAY['node1'], 4, NULL, duration => '$duration')"
echo "== node1, node2 and node3 at once, 4 processes each, $duration"
sql 55501 -c "SELECT $columns FROM ranread_fleet_run(ARRAY['node1', 'node2', 'node3'], 4, NULL, duration => '$duration')"
echo "== a fleet sweep: 1, 2, 4, 8 processes per server on all three at once, 5 s a step"
sql 55501 -c "CALL ranread_fleet_sweep(ARRAY['node1', 'node2', 'node3'], 1, 8, duration => '5 s')" \
	-c "SELECT fleet, sweep_step, processes, iops, mean_ms, p99_ms, slowest_server, overlap_pct, servers_completed FROM ranread_fleet_summary WHERE fleet_sweep IS NOT NULL ORDER BY fleet"
if [ -n "$chart" ]; then
	sql 55501 -At -c 'SELECT ranread_chart_fleet()' >"$chart"
fi
