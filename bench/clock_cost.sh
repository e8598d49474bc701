#!/usr/bin/env bash
#
# bench/clock_cost.sh: what timing a read costs on PostgreSQL 18 and 19.
# ranread reads its clock twice per read (before and after it: src/run/worker.c)
# with RANREAD_TIME_SET_CURRENT() (src/compat.h): on 18 that is
# INSTR_TIME_SET_CURRENT(), clock_gettime(CLOCK_MONOTONIC); on 19, whose
# INSTR_TIME_SET_CURRENT() may read the CPU's time-stamp counter instead
# (timing_clock_source), it is pg_get_ticks_system(), the same system clock.
# This measures both with each major's own pg_test_timing, which times a
# loop of clock reads: its "loop time including overhead" bounds one clock
# read from above.  19's pg_test_timing also times its TSC sources (RDTSCP,
# RDTSC), which is what ranread would pay if it used 19's fast clock.
#
# Both majors run in the sid chroot (scripts/chroot.sh: Debian's 18 and
# experimental's 19, on this machine's kernel and its clock source), in
# alternated pairs 18 19 19 18 ... (ABBA), so that a drift of the machine
# over the run falls on both alike; it prints each run's figures, then the
# median of each and their ratio, and the cost per read (two clock reads)
# against reads of 20 us (a RAM device), 100 us (a fast NVMe) and 1 ms.
#
# Usage (as root, on the Debian 12 host):
#   bench/clock_cost.sh [--pairs N] [--duration SECONDS]
#     --pairs N          ABBA pairs (default 4: 8 runs of each major)
#     --duration SECONDS each pg_test_timing run (default 3)
# Run it alone: other work on the machine's CPUs is part of what it measures.
# Runtime: 4 x pairs x duration seconds, plus the chroot's start-up.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PAIRS=4
DURATION=3

die() { echo "clock_cost: $*" >&2; exit 1; }

while [[ $# -gt 0 ]]; do
    case $1 in
        --pairs) [[ $# -ge 2 ]] || die "--pairs needs a number"; PAIRS=$2; shift 2 ;;
        --duration) [[ $# -ge 2 ]] || die "--duration needs seconds"; DURATION=$2; shift 2 ;;
        -h|--help) sed -n '2,/^# Runtime:/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1" ;;
    esac
done
[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || die "--pairs must be a positive integer, not '$PAIRS'"
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration must be whole seconds, not '$DURATION'"
[[ $(id -u) -eq 0 ]] || die "the sid chroot needs root"

"$here/../scripts/chroot.sh" make sid >/dev/null
echo "clock source: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), kernel $(uname -r), $(nproc) CPUs"
echo "load:         $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"

# In the chroot: the pairs, one line per run: "MAJOR SOURCE NS".
# shellcheck disable=SC2016 # expanded by the inner shell
runs=$("$here/../scripts/chroot.sh" run sid bash -c '
    pairs=$1 duration=$2
    measure() {
        /usr/lib/postgresql/$1/bin/pg_test_timing -d "$duration" | awk -v major="$1" "
            /^System clock source:/ { source = \"system\" }
            /^Clock source: /       { source = \$3 }
            /^Fast clock source: /  { source = \$4 }
            /loop time including overhead:/ { print major, (source == \"\" ? \"system\" : source), \$(NF - 1); source = \"\" }"
    }
    for ((i = 0; i < pairs; i++)); do
        if ((i % 2 == 0)); then measure 18; measure 19; else measure 19; measure 18; fi
    done' _ "$PAIRS" "$DURATION")
echo "runs, in order (major, clock, ns per loop):"
while read -r line; do echo "  $line"; done <<<"$runs"
python3 -c '
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in sys.stdin:
    major, source, ns = line.split()
    runs[(major, source)].append(float(ns))
print()
print("ns per loop (one clock read and the loop around it), each run:")
for key in sorted(runs):
    print(f"  {key[0]} {key[1]:<7} " + ", ".join(f"{x:.2f}" for x in runs[key]))
print("medians:")
median = {key: statistics.median(values) for key, values in runs.items()}
for key in sorted(median):
    print(f"  {key[0]} {key[1]:<7} {median[key]:6.2f} ns")
a, b = median.get(("18", "system")), median.get(("19", "system"))
if a and b:
    print(f"19 / 18, the system clock ranread reads on both: {b / a:.3f}")
print("per read (two clock reads), as a share of the read:")
for key in sorted(median):
    per_read = 2 * median[key]
    shares = ", ".join(f"{100 * per_read / (us * 1000):.3f} % of {us} us" for us in (20, 100, 1000))
    print(f"  {key[0]} {key[1]:<7} {per_read:6.1f} ns: {shares}")
' <<<"$runs"
echo "load:         $(cut -d' ' -f1-3 /proc/loadavg) at end"
