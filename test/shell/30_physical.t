#!/usr/bin/env bash
# What psql shows about where a run's bytes came from: the device statistics
# NOTICE (or why there are none), the WARNING when a batch was answered from
# memory (never for mode 'direct'), the shared-buffer counts of buffer mode,
# and the refusal of mode 'direct' on a file system without O_DIRECT.
set -u
. "$(dirname "$0")/tap.sh"
plan 16

tmpfs_dir=/dev/shm/ranread_sh_tmpfs
ramfs_dir=/tmp/ranread_sh_ramfs

# Everything this file makes, removed at the start (leftovers of an aborted
# run) and at the end.
cleanup() {
	psql -XAtq -c "DO \$\$
		DECLARE t name;
		BEGIN
			FOREACH t IN ARRAY ARRAY['sh_physical', 'sh_physical_buf', 'sh_physical_tmpfs', 'sh_physical_ramfs']::name[] LOOP
				IF EXISTS (SELECT 1 FROM ranread_targets WHERE target = t) THEN
					PERFORM ranread_drop(t);
				END IF;
			END LOOP;
		END \$\$" \
		-c "DROP TABLESPACE IF EXISTS sh_physical_tmpfs" \
		-c "DROP TABLESPACE IF EXISTS sh_physical_ramfs" \
		-c "COPY (SELECT 1) TO PROGRAM 'rm -rf $tmpfs_dir'" >/dev/null 2>&1
	if mountpoint -q "$ramfs_dir" 2>/dev/null; then
		umount "$ramfs_dir" 2>/dev/null || umount -l "$ramfs_dir" 2>/dev/null
	fi
	rmdir "$ramfs_dir" 2>/dev/null
	return 0
}
cleanup
trap cleanup EXIT
trap 'exit 1' INT TERM

# The expected text of a line, computed by the server from a batch row.
line_of() { sql "SELECT $1 FROM ranread_batches WHERE batch = $2"; }
last_batch() { sql "SELECT max(batch) FROM ranread_batches"; }
count_lines() { printf '%s\n' "$1" | grep -Ec -- "$2"; }
count_exact() { printf '%s\n' "$1" | grep -Fxc -- "$2"; }

# 64 MB: 2 x 150 reads re-read few blocks; 16 MB fits in shared buffers.
sql "SELECT ranread_setup('64 MB', target => 'sh_physical', log_level => 0)" >/dev/null 2>&1
sql "SELECT ranread_setup('16 MB', target => 'sh_physical_buf', log_level => 0)" >/dev/null 2>&1

# --- the target's device ------------------------------------------------------
out=$(psql -X -c "SELECT * FROM ranread_run(2, 150, 'sh_physical')" 2>&1)
batch=$(last_batch)
device=$(line_of "device" "$batch")
if [ -n "$device" ]; then
	like "$out" "^NOTICE:  device $device: [0-9]+ reads/s, average read wait [0-9]+\.[0-9]{2,}ms, [0-9]+% utilised$" \
		"default tablespace: the device NOTICE names $device, its reads/s, read wait and utilisation"
	expected=$(line_of "format('NOTICE:  device %s: %s reads/s, average read wait %sms, %s%% utilised',
							   device, round(device_reads_per_s::numeric),
							   round(device_read_wait_ms::numeric, CASE WHEN device_read_wait_ms > 0 AND device_read_wait_ms < 1
								   THEN least(6, 2 - floor(log(device_read_wait_ms::numeric)))::int ELSE 2 END),
							   round(device_util_pct::numeric))" "$batch")
	is "$(count_exact "$out" "$expected")/$(count_lines "$out" '^NOTICE:  no device statistics')" 1/0 \
		"the device NOTICE gives the batch row's numbers ($expected), and no 'no device statistics'"
else
	ok 0 "# SKIP the default tablespace is not on a block device in /proc/diskstats"
	ok 0 "# SKIP the default tablespace is not on a block device in /proc/diskstats"
fi
is "$(count_lines "$out" '^NOTICE:  shared buffers')" 0 "an smgr run shows no shared-buffer counts"

# --- tmpfs: no device ---------------------------------------------------------
sql "COPY (SELECT 1) TO PROGRAM 'mkdir $tmpfs_dir'" >/dev/null
sql "CREATE TABLESPACE sh_physical_tmpfs LOCATION '$tmpfs_dir'" >/dev/null
sql "SELECT ranread_setup('8 MB', 'sh_physical_tmpfs', 'sh_physical_tmpfs', 0)" >/dev/null 2>&1
out=$(psql -X -c "SELECT * FROM ranread_run(2, 100, 'sh_physical_tmpfs')" 2>&1)
like "$out" "^NOTICE:  no device statistics: the target's file system is not on a block device listed in /proc/diskstats$" \
	"tmpfs tablespace: the NOTICE says there are no device statistics"
is "$(count_lines "$out" '^NOTICE:  device ')" 0 "tmpfs tablespace: no device NOTICE"

# --- reads answered from the page cache ---------------------------------------
out=$(psql -X -c "SELECT pg_prewarm('sh_physical', 'read')" \
	-c "SELECT * FROM ranread_run(2, 150, 'sh_physical', evict => false)" 2>&1)
batch=$(last_batch)
like "$out" '^WARNING:  only [0-9]+% of the bytes read in batch [0-9]+ were fetched from storage$' \
	"prewarmed smgr run with evict => false: the WARNING says how little came from storage"
expected=$(line_of "format('WARNING:  only %s%% of the bytes read in batch %s were fetched from storage',
						   round(physical_pct::numeric), batch)" "$batch")
is "$(count_exact "$out" "$expected")" 1 "the WARNING gives the batch and its physical_pct ($expected)"
like "$out" "^DETAIL:  The rest was answered from memory \(the OS page cache\), so the latencies are not the device's\.$" \
	"the WARNING's DETAIL blames the OS page cache"

# --- direct reads always reach the device -------------------------------------
out=$(psql -X -c "SELECT pg_prewarm('sh_physical', 'read')" \
	-c "SELECT * FROM ranread_run(2, 150, 'sh_physical', mode => 'direct', evict => false)" 2>&1)
like "$out" '^NOTICE:  Calculated IOPS = [0-9]+$' "a direct run on the prewarmed target, evict => false, completes"
is "$(count_lines "$out" '^WARNING:  only ')" 0 "the direct run has no 'only N% ... fetched from storage' WARNING"

# --- buffer mode --------------------------------------------------------------
out=$(psql -X -c "SELECT pg_prewarm('sh_physical_buf', 'buffer')" \
	-c "SELECT * FROM ranread_run(2, 200, 'sh_physical_buf', mode => 'buffer')" 2>&1)
batch=$(last_batch)
like "$out" '^NOTICE:  shared buffers: [0-9]+ hits, [0-9]+ misses$' "buffer mode: the NOTICE counts shared-buffer hits and misses"
expected=$(line_of "format('NOTICE:  shared buffers: %s hits, %s misses', buffer_hits, buffer_misses)" "$batch")
is "$(count_exact "$out" "$expected")" 1 "the NOTICE gives the batch's counts ($expected)"
like "$out" "^DETAIL:  The rest was answered from memory \(the OS page cache or shared buffers\), so the latencies are not the device's\.$" \
	"buffer mode on a target in shared buffers: the WARNING's DETAIL names shared buffers"

# --- a file system that refuses O_DIRECT: ramfs (needs root to mount) ---------
# (Linux refuses O_DIRECT on ramfs, unlike tmpfs since 6.6.)  Its statfs
# reports no free space, so the target is set up elsewhere and moved there.
if [ "$(id -u)" -eq 0 ] && mkdir -p "$ramfs_dir" && mount -t ramfs ramfs "$ramfs_dir" 2>/dev/null; then
	chown "$(stat -c %U "$(sql "SHOW data_directory")")" "$ramfs_dir"
	sql "CREATE TABLESPACE sh_physical_ramfs LOCATION '$ramfs_dir'" >/dev/null
	sql "SELECT ranread_setup('8 MB', target => 'sh_physical_ramfs', log_level => 0)" >/dev/null 2>&1
	sql "ALTER TABLE sh_physical_ramfs SET TABLESPACE sh_physical_ramfs" >/dev/null
	before=$(sql "SELECT count(*) FROM ranread_batches")
	out=$(psql -X -v VERBOSITY=verbose -c "SELECT * FROM ranread_run(2, 100, 'sh_physical_ramfs', mode => 'direct')" 2>&1)
	like "$out" '^ERROR:  0A000: the file system holding "pg_tblspc/[^"]+" does not support direct I/O$' \
		"ramfs: mode 'direct' is refused with 0A000, naming the file"
	like "$out" "^HINT:  Use mode 'smgr'" \
		"the refusal's HINT names mode 'smgr'"
	out=$(psql -X -c "SELECT * FROM ranread_run(2, 100, 'sh_physical_ramfs')" 2>&1)
	is "$(count_lines "$out" '^NOTICE:  (Calculated IOPS = [0-9]+|no device statistics: .*)$')/$(sql "SELECT count(*) - $before FROM ranread_batches")/$(ranread_workers)" \
		"2/1/0" "after the refusal, which recorded nothing and left no worker, an smgr run there works"
else
	for _ in 1 2 3; do
		ok 0 "# SKIP cannot mount a ramfs (needs root with CAP_SYS_ADMIN)"
	done
fi

sql "SELECT ranread_reset()" >/dev/null
