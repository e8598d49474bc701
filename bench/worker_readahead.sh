#!/usr/bin/env bash
#
# bench/worker_readahead.sh: what the kernel's readahead does to a whole
# pass of mode stream under each io_method, on a laboratory device whose
# readahead we set (test/lab/capped_zram.sh: zram with ext4, uncapped).
#
# For each read_ahead_kb (0, 128, 8192) and io_method (sync, worker,
# io_uring) it restarts one PostgreSQL 18 cluster (the I/O workers open their
# files, and take the device's readahead, anew), runs one process of mode
# stream at iodepth 32 over every unit of a 1 GB target once, and prints what
# ranread recorded (physical_pct, IOPS, kb_per_read) beside the device's own
# counts (/sys/block/zramN/stat: reads and kB read per ranread read) and the
# bytes the I/O workers fetched (read_bytes of /proc/PID/io).
#
# Then it calibrates under io_method = worker with io_workers => true, with
# readahead (8192) and without (0), in ABBA order: what the calibration
# recommends, and how much of its random reads the device answered.
#
# Usage, as root, on a quiet machine: bench/worker_readahead.sh [PG_BINDIR]
# (default /usr/lib/postgresql/18/bin).  Needs ranread installed into that
# PostgreSQL, zram, mkfs.ext4.  About two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

bindir=${1:-/usr/lib/postgresql/18/bin}
lab=test/lab/capped_zram.sh
name=ra$$
work=$(mktemp -d /tmp/ranread_worker_ra.XXXXXX)
chown postgres "$work"

cleanup()
{
	su postgres -c "$bindir/pg_ctl -D $work/data -m immediate stop" >/dev/null 2>&1 || true
	"$lab" remove "$name" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

eval "$("$lab" make --name "$name" --size 2G --user postgres)"
ra_file=/sys/block/$RANREAD_LAB_DEVICE_NAME/queue/read_ahead_kb
ra_before=$(cat "$ra_file")

as_postgres() { su postgres -c "$*"; }
psql_q() { as_postgres "$bindir/psql -X -At -h $work -p 5499 -d postgres -c \"$1\""; }

as_postgres "$bindir/initdb -D $work/data -A trust" >/dev/null
cat >>"$work/data/postgresql.conf" <<EOF
port = 5499
unix_socket_directories = '$work'
listen_addresses = ''
max_worker_processes = 16
shared_buffers = 128MB
EOF
as_postgres "$bindir/pg_ctl -D $work/data -l $work/log -w start" >/dev/null
psql_q "CREATE EXTENSION ranread" >/dev/null
psql_q "CREATE TABLESPACE lab LOCATION '$RANREAD_LAB_CAP_DIR'" >/dev/null
psql_q "SELECT ranread_setup('1 GB', 'lab', 'ra_t', 0)" >/dev/null 2>&1

# reads and kB read by the device so far (fields 1 and 3 of its stat file)
device_counts() { awk '{ print $1, $3 / 2 }' "/sys/block/$RANREAD_LAB_DEVICE_NAME/stat"; }
# bytes the I/O workers read from storage so far
io_worker_bytes()
{
	local total=0 pid
	for pid in $(pgrep -f 'postgres: .*io worker' || true); do
		total=$((total + $(awk '/^read_bytes/ { print $2 }' "/proc/$pid/io" 2>/dev/null || echo 0)))
	done
	echo "$total"
}

printf '%-13s %-9s %7s %8s %6s %11s %15s %14s %17s\n' read_ahead_kb io_method reads physical iops kb_per_read \
	device_reads/read device_kb/read io_worker_kb/read
for ra in 0 128 8192; do
	echo "$ra" >"$ra_file"
	for method in sync worker io_uring; do
		psql_q "ALTER SYSTEM SET io_method = '$method'" >/dev/null
		as_postgres "$bindir/pg_ctl -D $work/data -l $work/log -w restart" >/dev/null
		read -r dev_reads0 dev_kb0 < <(device_counts)
		iow0=$(io_worker_bytes)
		psql_q "CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(1, NULL, 'ra_t', mode => 'stream', iodepth => 32,
			duration => '60 s')" >/dev/null 2>&1
		read -r dev_reads1 dev_kb1 < <(device_counts)
		iow1=$(io_worker_bytes)
		row=$(psql_q "SELECT reads, physical_pct, round(iops), coalesce(kb_per_read::text, 'NULL')
			FROM ranread_summary ORDER BY batch DESC LIMIT 1")
		IFS='|' read -r reads physical iops kb <<<"$row"
		printf '%-13s %-9s %7s %8s %6s %11s %15.2f %14.1f %17.1f\n' "$ra" "$method" "$reads" "$physical" "$iops" "$kb" \
			"$(echo "($dev_reads1 - $dev_reads0) / $reads" | bc -l)" "$(echo "($dev_kb1 - $dev_kb0) / $reads" | bc -l)" \
			"$(echo "($iow1 - $iow0) / 1024 / $reads" | bc -l)"
	done
done

# The calibration under io_method = worker, with readahead and without: its
# recommendations, the least physical_pct of its random batches and their
# kB fetched per read
echo
printf '%-13s %-26s %-24s %-16s %-13s %s\n' read_ahead_kb effective_io_concurrency io_workers_recommended \
	random_page_cost min_physical kb_per_read
for ra in 8192 0 0 8192; do
	echo "$ra" >"$ra_file"
	psql_q "ALTER SYSTEM SET io_method = 'worker'" >/dev/null
	as_postgres "$bindir/pg_ctl -D $work/data -l $work/log -w restart" >/dev/null
	row=$(psql_q "SELECT calibration, effective_io_concurrency, io_workers_recommended, coalesce(random_page_cost::text, 'NULL')
		FROM ranread_calibrate('ra_t', io_workers => true, max_duration => '1 min')" 2>/dev/null)
	IFS='|' read -r calibration eic workers rpc <<<"$row"
	stats=$(psql_q "SELECT min(physical_pct), round(avg(kb_per_read)::numeric, 1) FROM ranread_batches
		WHERE calibration = $calibration AND distribution = 'uniform'")
	IFS='|' read -r physical kb <<<"$stats"
	printf '%-13s %-26s %-24s %-16s %-13s %s\n' "$ra" "$eic" "$workers" "$rpc" "$physical" "$kb"
done
echo "$ra_before" >"$ra_file"
