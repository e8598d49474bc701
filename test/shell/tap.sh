# tap.sh: a few TAP helpers for the shell tests (sourced, not run).
# Each test file calls plan N, then ok/like as it goes; psql talks to the
# cluster in PGHOST/PGPORT/PGDATABASE (see test/run-suite.sh).

tap_count=0

plan() { echo "1..$1"; }

# ok CONDITION_EXIT_STATUS DESCRIPTION
ok() {
	tap_count=$((tap_count + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_count - $2"
	else
		echo "not ok $tap_count - $2"
	fi
}

# like TEXT EXTENDED_REGEX DESCRIPTION: passes when a line of TEXT matches
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '%s\n' "$1" | sed 's/^/# /'
		echo "# expected a line matching: $2"
	fi
}

# is GOT EXPECTED DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "# got: '$1', expected: '$2'"
	fi
}

sql() { psql -XAtq -v ON_ERROR_STOP=1 -c "$1"; }

# Wait up to 10 s until N ranread workers are reading.
wait_for_readers() {
	for _ in $(seq 100); do
		[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

ranread_workers() { sql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'ranread worker'"; }
