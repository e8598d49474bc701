#!/usr/bin/env bash
# What a user sees in psql: setup progress, the RanRead NOTICE lines, the
# small-target WARNING; and that the target's file is really allocated.
set -u
. "$(dirname "$0")/tap.sh"
plan 12

out=$(psql -X -c "SELECT ranread_setup('64 MB', target => 'sh_messages')" 2>&1)
is "$(printf '%s\n' "$out" | grep -Ec '^NOTICE:  ranread_setup: [0-9]+% written \([0-9]+ of 64 MB, [0-9]+ MB/s\)$')" 9 \
	"log_level 1 reports progress about every 10 %"
like "$out" '^WARNING:  ranread target "sh_messages" is smaller than twice the server.s memory$' \
	"a target under 2 x RAM is warned about"

path=$(printf '%s\n' "$out" | sed -nE 's/.* at (\/[^,]+), written in .*/\1/p')
allocated=$(( $(stat -c %b "$path") * $(stat -c %B "$path") ))
size=$(stat -c '%s' "$path")
is "$size" 67108864 "the first segment holds all 64 MB"
[ "$allocated" -ge "$size" ]
ok $? "the segment is fully allocated, not sparse ($allocated bytes on disk)"

out=$(psql -X -c "SELECT ranread_setup('8 MB', target => 'sh_silent', log_level => 0)" 2>&1)
is "$(printf '%s\n' "$out" | grep -c '^NOTICE')" 0 "log_level 0 reports no progress"
out=$(psql -X -c "SELECT ranread_drop('sh_silent')" -c "SELECT ranread_setup('8 MB', target => 'sh_silent', log_level => 3)" 2>&1)
like "$out" '^NOTICE:  ranread_setup: wrote segment .+ \(1024 blocks\)$' "log_level 3 reports each segment"

out=$(psql -X -c "SELECT * FROM ranread_run(2, 200, 'sh_messages')" 2>&1)
like "$out" '^NOTICE:  2 processes \(200 iterations\) average response time = [0-9]+\.[0-9]{2,}ms$' \
	"RanRead's response-time line"
like "$out" '^NOTICE:  Calculated IOPS = [0-9]+$' "RanRead's IOPS line"
like "$out" '^NOTICE:  latency percentiles: p50 = [0-9.]+ms, p99 = [0-9.]+ms, max = [0-9.]+ms$' \
	"the percentile line"
# reads from the page cache take microseconds: they must not print as 0.00
psql -X -c "SELECT * FROM ranread_run(1, 300, 'sh_messages', evict => false)" >/dev/null 2>&1
out=$(psql -X -c "SELECT * FROM ranread_run(1, 300, 'sh_messages', evict => false)" 2>&1)
like "$out" '^NOTICE:  latency percentiles: p50 = (0\.0*[1-9][0-9]{2}|[1-9][0-9]*\.[0-9]{2})ms, ' \
	"a sub-millisecond p50 keeps three significant digits"

out=$(psql -X -c "SELECT * FROM ranread_run(2, 200, 'sh_messages')" 2>&1)
is "$(printf '%s\n' "$out" | grep -c '^WARNING')" 0 "400 reads over 8192 blocks: no re-read warning"
out=$(psql -X -c "SELECT * FROM ranread_run(2, 2000, 'sh_messages')" 2>&1)
like "$out" "^WARNING:  about 21% of this run's reads will re-read a block read earlier in the run$" \
	"4000 reads over 8192 blocks: the re-read warning gives the expected share"

sql "SELECT ranread_drop('sh_messages'), ranread_drop('sh_silent'), ranread_reset()" >/dev/null
