#!/usr/bin/env bash
#
# bench/sweep_repeatability.sh: how repeatable is the sweep's answer?  Runs
# the same sweep (by default CALL ranread_sweep() with every default) K times
# in a row on one target and prints each verdict, then the spread of
# "highest within the SLO" (slo_iops) and of its process count.
#
# This is a benchmark, not a test: it measures this machine.  By default it
# starts a throwaway cluster (pg_virtualenv -t, under /tmp), creates the
# extension and a target of SIZE, and runs the sweeps there; with
# --existing it uses the server the PG* environment variables name (the
# extension must be installed there; the target is made and dropped).  Run
# it alone: other I/O on the device is part of what it measures.
#
# It reports, over the K sweeps: the median of slo_iops, each sweep's
# deviation from it, the spread (max - min) as a share of the median, and how
# many sweeps found the most common slo_processes.  The target (--within,
# --same): every sweep within +-5 % of the median, and the same process count
# in at least 4 of 5 runs.  With --sweep "repeat => N" each run is N sweeps,
# and its figure is their median (the one ranread_sweep's NOTICE reports), at
# the process count most of them found; the NOTICE's DETAIL, printed too,
# gives their band between sweeps against a step's own.
#
# With --lab COMMANDS the target is on the laboratory file system
# (test/lab/labfs.sh, as root), its reads set by COMMANDS, e.g. a capacity
# curve we know: "delay_us=2000 limit=4" serves at most 4 reads at a time,
# each held 2 ms.  There the device does not drift, so the spread between
# sweeps is the tool's own.  The file system is unmounted on every exit.
#
# Usage:
#   make install                          # the extension must be installed
#   bench/sweep_repeatability.sh          # 5 default sweeps on an 8GB target
#   bench/sweep_repeatability.sh --runs 7 --size 16GB
#   bench/sweep_repeatability.sh --sweep "start_processes => 2, duration => '10 s'"
#   bench/sweep_repeatability.sh --sweep "repeat => 3"   # each run the median of 3
#   bench/sweep_repeatability.sh --existing --runs 2 --size 64MB \
#       --sweep "start_processes => 1, max_processes => 4, iterations => 300"
#   bench/sweep_repeatability.sh --lab "delay_us=2000 limit=4" --size 64MB \
#       --within 2 --same 5 --sweep "start_processes => 1, max_processes => 8,
#       iterations => 250, mode => 'direct', slo_mean_ms => 3, slo_p99_ms => NULL"
#
# Needs: psql, python3; pg_virtualenv (postgresql-common) and pg_config
# unless --existing; free space for SIZE (in RAM with --lab); max_worker_processes
# above the sweep's largest step (the throwaway cluster gets 128); with
# --lab root, FUSE and libfuse3-dev (scripts/install-deps.sh).
# Runtime: K times one sweep (the default sweep: 11-35 s on the development
# VM, up to three times that when steps are repeated), plus the setup.

set -euo pipefail

SELF=$(readlink -f "$0")
TARGET=ranread_repeatability

die() { echo "sweep_repeatability: $*" >&2; exit 1; }

usage() {
    sed -n '/^# Usage:/,/^# Runtime:/p' "$SELF" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------
ARGS=("$@")
RUNS=5
SIZE=8GB
SWEEP=
EXISTING=
LAB=
WITHIN=5
SAME=
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage 0 ;;
        --runs) [[ $# -ge 2 ]] || die "--runs needs a number"; RUNS=$2; shift 2 ;;
        --size) [[ $# -ge 2 ]] || die "--size needs a size"; SIZE=$2; shift 2 ;;
        --sweep) [[ $# -ge 2 ]] || die "--sweep needs ranread_sweep() arguments"; SWEEP=$2; shift 2 ;;
        --existing) EXISTING=1; shift ;;
        --lab) [[ $# -ge 2 ]] || die "--lab needs labfs commands"; LAB=$2; shift 2 ;;
        --within) [[ $# -ge 2 ]] || die "--within needs a percentage"; WITHIN=$2; shift 2 ;;
        --same) [[ $# -ge 2 ]] || die "--same needs a number of runs"; SAME=$2; shift 2 ;;
        *) echo "sweep_repeatability: unknown argument $1" >&2; usage 1 ;;
    esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer, not '$RUNS'"
[[ $SIZE =~ ^[0-9]+(\.[0-9]+)?\ *([kKmMgGtTpP][bB]|[bB]ytes)?$ ]] ||
    die "size '$SIZE' is not a size like 8GB, 512MB or 1TB"
[[ $SWEEP != *';'* ]] || die "--sweep takes ranread_sweep() arguments, not statements"
[[ $WITHIN =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--within must be a percentage, not '$WITHIN'"
SAME=${SAME:-$(( (4 * RUNS + 4) / 5 ))}
[[ $SAME =~ ^[1-9][0-9]*$ && $SAME -le $RUNS ]] || die "--same must be a number of runs from 1 to $RUNS, not '$SAME'"
[[ -z $LAB || -z $EXISTING ]] || die "--lab makes its own cluster: it does not go with --existing"

# ---------------------------------------------------------------------------
# Inner part: on the cluster, with PGHOST/PGPORT/... exported.
# ---------------------------------------------------------------------------
inner() {
    local i before found sweep row call slo processes steps rule verdict tablespace
    local slo_all=() processes_all=()
    PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
    work=$(mktemp -d "${TMPDIR:-/tmp}/ranread_repeat.XXXXXX")
    # the target goes with the cluster, or, on an existing one, is dropped
    trap 'rm -rf "$work"; "${PSQL[@]}" -c "SELECT ranread_drop('"'$TARGET'"')" >/dev/null 2>&1 || true' EXIT

    "${PSQL[@]}" -c "CREATE EXTENSION IF NOT EXISTS ranread" ||
        die "CREATE EXTENSION ranread failed: is ranread installed for this server?"
    if [[ -n $LAB ]]; then
        "${PSQL[@]}" -c "CREATE TABLESPACE ranread_lab LOCATION '$LAB_DIR/mnt/tblspc'"
        tablespace=", tablespace => 'ranread_lab'"
    fi
    "${PSQL[@]}" -c "SELECT ranread_setup('$SIZE', target => '$TARGET'${tablespace:-}, log_level => 0)" >"$work/setup" \
        2>"$work/setup.err" || { cat "$work/setup.err" >&2; die "ranread_setup('$SIZE') failed"; }
    call="CALL ranread_sweep(target => '$TARGET'${SWEEP:+, $SWEEP})"
    echo "target:  $(cat "$work/setup")"
    [[ -z $LAB ]] || echo "device:  the laboratory file system, $LAB"
    echo "sweep:   $call, $RUNS times"
    echo "server:  $("${PSQL[@]}" -c "SELECT current_setting('server_version') || ', max_worker_processes ' || current_setting('max_worker_processes')")"
    echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"

    for (( i = 1; i <= RUNS; i++ )); do
        before=$("${PSQL[@]}" -c "SELECT coalesce(max(sweep), 0) FROM ranread_sweep_runs")
        "${PSQL[@]}" -c "$call" >/dev/null 2>"$work/sweep.err" ||
            { cat "$work/sweep.err" >&2; die "sweep $i failed"; }
        echo
        # one line per sweep this call ran (repeat => N runs N)
        "${PSQL[@]}" -F '|' -c "SELECT sweep, steps, coalesce(stop_rule, ''), verdict
                                FROM ranread_sweeps WHERE sweep > $before ORDER BY sweep" >"$work/sweeps"
        while IFS='|' read -r sweep steps rule verdict; do
            echo "run $i: sweep $sweep, $steps steps, stop rule $rule"
            echo "  $verdict"
        done <"$work/sweeps"
        echo "  $(grep -c '^NOTICE:  step .* is within the noise' "$work/sweep.err" || true) step repeats"
        # repeat => N: what its sweeps found together, as ranread_sweep said it
        sed -n '/^NOTICE:  [0-9]* sweeps of [0-9]* asked/{p;n;p}' "$work/sweep.err" | sed 's/^/  /'
        # the call's figure: the median over its sweeps, at their most common process count
        row=$("${PSQL[@]}" -F '|' -c "SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY slo_iops)::text, ''),
                                             coalesce(mode() WITHIN GROUP (ORDER BY slo_processes)::text, ''),
                                             count(slo_iops)
                                      FROM ranread_sweeps WHERE sweep > $before")
        IFS='|' read -r slo processes found <<<"$row"
        [[ $(wc -l <"$work/sweeps") -eq 1 ]] ||
            echo "  median of $found sweeps within the SLO: ${slo:-none} IOPS, most often at ${processes:-no} processes"
        if [[ -n $slo ]]; then
            slo_all+=("$slo")
            processes_all+=("$processes")
        fi
    done
    echo
    echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) at end"
    [[ -z $LAB ]] || { echo "device's counters at end:"; sed 's/^/  /' "$LAB_DIR/mnt/.labfs"; }
    python3 - "$RUNS" "${slo_all[*]:-}" "${processes_all[*]:-}" "$WITHIN" "$SAME" <<'EOF'
import collections, statistics, sys
runs = int(sys.argv[1])
slo = [float(x) for x in sys.argv[2].split()]
processes = [int(x) for x in sys.argv[3].split()]
within, same = float(sys.argv[4]), int(sys.argv[5])
print()
if len(slo) < runs:
    print(f"{runs - len(slo)} of {runs} sweeps found no step within the SLO")
if not slo:
    sys.exit(0)
median = statistics.median(slo)
deviations = [100 * (x / median - 1) for x in slo]
spread = 100 * (max(slo) - min(slo)) / median
worst = max(abs(d) for d in deviations)
count, common = max((n, p) for p, n in collections.Counter(processes).items())
print("highest within the SLO (IOPS): " + ", ".join(f"{x:,.0f}" for x in slo))
print(f"  median {median:,.0f}; each from it: " + ", ".join(f"{d:+.1f}%" for d in deviations))
print(f"  spread (max - min) {spread:.1f}% of the median; farthest from it {worst:.1f}%")
print("at processes: " + ", ".join(str(p) for p in processes))
print(f"  {common} processes in {count} of {len(processes)} sweeps")
ok = worst <= within and count >= same and len(slo) == runs
print(("PASS" if ok else "BELOW TARGET") +
      f": every sweep within +-{within:g}% of the median ({worst:.1f}%), the same process count in at least {same} of {runs} ({count})")
EOF
}

if [[ -n ${SWEEP_REPEATABILITY_INNER:-} ]]; then
    inner
    exit 0
fi

# ---------------------------------------------------------------------------
# Outer part: check what we need, then run on the cluster.
# ---------------------------------------------------------------------------
for cmd in psql:postgresql-client-15 python3:python3; do
    command -v "${cmd%%:*}" >/dev/null || die "${cmd%%:*} not found: apt-get install ${cmd#*:}"
done
export RUNS SIZE SWEEP WITHIN SAME LAB SWEEP_REPEATABILITY_INNER=1
if [[ -n $EXISTING ]]; then
    inner
    exit 0
fi
for cmd in pg_virtualenv:postgresql-common pg_config:postgresql-server-dev-15; do
    command -v "${cmd%%:*}" >/dev/null || die "${cmd%%:*} not found: apt-get install ${cmd#*:}"
done
[[ -f "$(pg_config --sharedir)/extension/ranread.control" ]] ||
    die "ranread is not installed for $(pg_config --bindir): run \`make && make install\` first"
pg_major=$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [[ -z $LAB ]]; then
    exec pg_virtualenv -t -v "$pg_major" -o max_worker_processes=128 "$SELF" "${ARGS[@]}"
fi
[[ $(id -u) -eq 0 ]] || die "--lab mounts a FUSE file system: run it as root"
LAB_DIR=$(mktemp -d /tmp/ranread_repeat_lab.XXXXXX)
export LAB_DIR
labfs=$(dirname "$SELF")/../test/lab/labfs.sh
trap '"$labfs" umount "$LAB_DIR" >/dev/null || true; rm -rf "$LAB_DIR"' EXIT
"$labfs" mount "$LAB_DIR" "$LAB" >/dev/null
pg_virtualenv -t -v "$pg_major" -o max_worker_processes=128 "$SELF" "${ARGS[@]}"
