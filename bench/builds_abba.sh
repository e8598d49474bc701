#!/usr/bin/env bash
#
# bench/builds_abba.sh: does build B of ranread read as fast as build A, on
# the device under a directory (the VM's disk by default)?  Two ranread.so
# files, built from two commits for the same PostgreSQL, take turns in one
# throwaway cluster whose target lies under DIR: before each run the
# library is copied over the installed ranread.so and the server restarted,
# then one worker reads in mode 'direct' for DURATION at each depth, in ABBA
# order (A B B A, then B A A B, ...), so that a drift of the device or of
# the machine falls on both builds alike.  It prints each run, then per
# depth the medians of IOPS and CPU us per read (the postmaster's reaped
# children over the run, as bench/fast_device.sh counts them) and B / A,
# with the spread of the pairs' ratios.  The SQL installed is the caller's
# (make install of either build); the two libraries must accept it.
#
# Usage:
#   make install PG_CONFIG=...                       # the SQL, and one build
#   PG_CONFIG=... bench/builds_abba.sh --a old.so --b new.so
#   PG_CONFIG=... bench/builds_abba.sh --a old.so --b new.so --depths "8 32" --pairs 8 --duration 6
#
# Options:
#   --a FILE, --b FILE   the two builds' ranread.so
#   --dir DIR            where the cluster and its target go (default /var/tmp)
#   --depths "D ..."     iodepths (default "1 8 32")
#   --pairs N            ABBA pairs (default 8)
#   --duration S         seconds a run (default 6)
#   --size SIZE          the target (default 4GB)
#
# Needs: root (the cluster runs as postgres; the library is swapped in the
# prefix's pkglibdir, and put back as it was at the end), python3.
set -euo pipefail
SELF=$(readlink -f "$0")
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
die() { echo "builds_abba: $*" >&2; exit 1; }
. "$(dirname "$SELF")/common.sh"

A= B= DIR=/var/tmp DEPTHS="1 8 32" PAIRS=8 DURATION=6 SIZE=4GB
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --a) A=$(readlink -f "${2:?}"); shift 2 ;;
        --b) B=$(readlink -f "${2:?}"); shift 2 ;;
        --dir) DIR=${2:?}; shift 2 ;;
        --depths) DEPTHS=${2:?}; shift 2 ;;
        --pairs) PAIRS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --size) SIZE=${2:?}; shift 2 ;;
        *) echo "builds_abba: unknown argument $1" >&2; bench_usage 1 ;;
    esac
done
[[ -f $A && -f $B ]] || die "--a and --b must name two ranread.so files"
[[ $PAIRS =~ ^[1-9][0-9]*$ && $DURATION =~ ^[1-9][0-9]*$ ]] || die "--pairs and --duration must be positive integers"
bindir=$($PG_CONFIG --bindir)
installed=$($PG_CONFIG --pkglibdir)/ranread.so
[[ -f $installed ]] || die "ranread is not installed for $PG_CONFIG: make install first"

work=$(mktemp -d "$DIR/ranread_abba.XXXXXX")
chown postgres "$work"
cp "$installed" "$work/installed.so"
port=$(( 20000 + RANDOM % 10000 ))
as_pg() { runuser -u postgres -- "$@"; }
cleanup() {
    as_pg "$bindir/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    cp "$work/installed.so" "$installed"
    rm -rf "$work"
}
trap cleanup EXIT
export PGOPTIONS="-c client_min_messages=warning"
PSQL=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -At -h /tmp -p "$port" -U postgres -d postgres)
start() {
    as_pg "$bindir/pg_ctl" -D "$work/data" -w -l "$work/log" \
        -o "-p $port -k /tmp -c listen_addresses= -c autovacuum=off -c max_worker_processes=16" start >/dev/null
    pm_pid=$(head -n 1 "$work/data/postmaster.pid")
}
as_pg "$bindir/initdb" -D "$work/data" -A trust >/dev/null
start
"${PSQL[@]}" -c "CREATE EXTENSION ranread"
echo "target:   $("${PSQL[@]}" -c "SELECT ranread_setup('$SIZE', log_level => 0)") under $DIR ($(df -P "$DIR" | awk 'NR == 2 {print $1}'))"
echo "A:        $A ($(md5sum "$A" | cut -c1-12))"
echo "B:        $B ($(md5sum "$B" | cut -c1-12))"
echo "server:   $("${PSQL[@]}" -c 'SELECT version()')"
echo "runs:     1 worker, mode direct, $DURATION s each, depths $DEPTHS, $PAIRS pairs ABBA"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
clk_tck=$(getconf CLK_TCK)

# run BUILD DEPTH -> a line "BUILD DEPTH IOPS CPU_US_PER_READ"
run() {
    local t0 t1 batch line
    t0=$(child_ticks)
    batch=$("${PSQL[@]}" -c "SELECT batch FROM ranread_run(1, NULL, mode => 'direct', iodepth => $2, duration => '$DURATION s', allow_rereads => true)")
    t1=$(child_ticks)
    line=$("${PSQL[@]}" -F ' ' -c "SELECT iops, reads FROM ranread_batches WHERE batch = $batch")
    python3 -c "import sys; iops, reads = map(float, sys.argv[3].split()); \
print(f'{sys.argv[1]} {sys.argv[2]} {iops:.0f} {1e6 * ($t1 - $t0) / $clk_tck / reads:.2f}')" "$1" "$2" "$line"
}
use() {
    as_pg "$bindir/pg_ctl" -D "$work/data" -m fast stop >/dev/null
    cp "$([[ $1 == A ]] && echo "$A" || echo "$B")" "$installed"
    start
}
for (( p = 1; p <= PAIRS; p++ )); do
    order="A B B A"
    (( p % 2 == 0 )) && order="B A A B"
    for build in $order; do
        use "$build"
        for depth in $DEPTHS; do
            run "$build" "$depth" | tee -a "$work/runs"
        done
    done
done
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - "$work/runs" "$PAIRS" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
pairs = int(sys.argv[2])
print(f"{'depth':>5} {'A IOPS':>9} {'B IOPS':>9} {'B/A':>6} {'spread':>7} {'A us/read':>10} {'B us/read':>10} {'B/A':>6} {'spread':>7}")
for depth in sorted({int(r[1]) for r in rows}):
    def of(build, col):
        return [float(r[col]) for r in rows if r[0] == build and int(r[1]) == depth]
    out = [f"{depth:>5}"]
    for col, fmt in ((2, "{:>9.0f}"), (3, "{:>10.2f}")):
        a, b = of("A", col), of("B", col)
        # each pair's ratio: its two B runs over its two A runs
        ratios = [sum(b[2 * i:2 * i + 2]) / sum(a[2 * i:2 * i + 2]) for i in range(pairs)]
        med = statistics.median(ratios)
        out += [fmt.format(statistics.median(a)), fmt.format(statistics.median(b)),
                f"{med:>6.3f}", f"{100 * (max(ratios) - min(ratios)) / med:>6.0f}%"]
    print(" ".join(out))
EOF
