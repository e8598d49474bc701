#!/usr/bin/env bash
#
# bench/instructions_guard.sh: the regression guard on ranread's own cost.
# Runs bench/instructions.sh for the direct path (iodepth 1 and 32) and fails
# when ranread's own instructions per read (the "ranread" column: the
# instructions executed in ranread.so, per read) exceed the figure recorded
# for the server's major in bench/instructions_floor.tsv by more than its
# margin.  Counts, not times: the load of the machine does not move them, so
# this is a test, not a benchmark; the margin is set from the spread measured
# over repeated runs (docs/benchmarks.md, "Instructions per read").
#
# It needs root and valgrind (the server runs under callgrind).
# scripts/test.sh runs it in its valgrind step, on the first host major, so
# that a regression fails the matrix.  After a change that is meant to cost
# more, or less, record the new figure in the file, with the commit that
# measured it.
#
# Usage:
#   PG_CONFIG=... bench/instructions_guard.sh
#
# Needs: what bench/instructions.sh needs.

set -euo pipefail
SELF=$(readlink -f "$0")
here=$(dirname "$SELF")
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
[[ -x $PG_CONFIG ]] || { echo "instructions_guard: set PG_CONFIG" >&2; exit 2; }
major=$($PG_CONFIG --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
floor=$here/instructions_floor.tsv
grep -q "^$major	" "$floor" ||
    { echo "instructions_guard: no figure recorded for PostgreSQL $major in $floor" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$here/instructions.sh" --cases "direct1 direct32" --worker-only --short 1000 --long 3000 | tee "$out"
fail=0
while IFS=$'\t' read -r m c figure margin _; do
    [[ $m == "$major" ]] || continue
    got=$(awk -v c="$c" '$1 == c { print $3; exit }' "$out")
    [[ $got =~ ^[0-9]+$ ]] || { echo "not ok - $c: no figure measured"; fail=1; continue; }
    limit=$(( figure + figure * margin / 100 ))
    if (( got > limit )); then
        echo "not ok - $c: ranread's own instructions per read $got > $figure + $margin % ($limit)"
        fail=1
    else
        echo "ok - $c: ranread's own instructions per read $got <= $figure + $margin % ($limit)"
    fi
done <"$floor"
exit "$fail"
