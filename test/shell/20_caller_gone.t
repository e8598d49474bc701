#!/usr/bin/env bash
# A run whose caller is cancelled or terminated: every worker gone within 1 s,
# and what the workers measured recorded with status "cancelled".
set -u
. "$(dirname "$0")/tap.sh"
plan 8

sql "SELECT ranread_setup('16 MB', target => 'sh_gone', log_level => 0)" >/dev/null 2>&1

for how in cancel terminate; do
	psql -X -c "SELECT * FROM ranread_run(2, 1000000000, 'sh_gone')" >/tmp/ranread_sh_$how.out 2>&1 &
	client=$!
	wait_for_readers 2
	ok $? "$how: two workers are reading"
	leader=$(sql "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND query LIKE '%ranread_run(2, 1000000000%' AND pid <> pg_backend_pid()")
	sql "SELECT pg_${how}_backend($leader)" >/dev/null
	sleep 1
	is "$(ranread_workers)" 0 "$how: no ranread worker alive 1 s after pg_${how}_backend() of the caller"
	wait $client
	batch=$(sql "SELECT max(batch) FROM ranread_batches")
	is "$(sql "SELECT count(*) FILTER (WHERE status = 'cancelled' AND reads > 0) FROM ranread_results WHERE batch = $batch")" 2 \
		"$how: both workers recorded their reads as cancelled"
	is "$(sql "SELECT status FROM ranread_batches WHERE batch = $batch")" cancelled "$how: the batch is recorded as cancelled"
done

sql "SELECT ranread_drop('sh_gone'), ranread_reset()" >/dev/null
