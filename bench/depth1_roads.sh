#!/usr/bin/env bash
#
# bench/depth1_roads.sh: at iodepth 1, is a read cheaper through pread()
# (ranread's direct path) or through io_uring with the file, the buffer and
# the ring's descriptor registered (t/io_uring -d 1)?  Builds bench/depth1_roads.c, which reads
# the same random 8 kB O_DIRECT blocks of a 1 GB file on a RAM-backed device
# either way, one at a time, and measures each road three ways:
#
#   instructions  user space, per read (callgrind, under its read loop;
#                 a short run's count subtracted from a long one's)
#   syscalls      system calls per read (strace -f -c, the same difference)
#   cpu           user + system CPU time per read (getrusage), --pairs runs
#                 of each in ABBA order, medians: the kernel's work, which
#                 the two counts above do not see.  Only on a quiet
#                 machine: on a loaded one CPU time per read moves with
#                 the load.
#
# Usage:
#   bench/depth1_roads.sh                  # counts, and 6 pairs of 200,000 reads
#   bench/depth1_roads.sh --pairs 0        # the counts alone (a busy machine)
#
# Options:
#   --pairs N   ABBA pairs for the CPU time (default 6; 0: none)
#   --reads N   reads per timed run (default 200000)
#
# Needs: root (the RAM-backed device), gcc, liburing-dev, valgrind, strace,
# mkfs.ext4, 2 GB of free memory.

set -euo pipefail

SELF=$(readlink -f "$0")
die() { echo "depth1_roads: $*" >&2; exit 1; }
# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

PAIRS=6
READS=200000
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --pairs) PAIRS=${2:?}; shift 2 ;;
        --reads) READS=${2:?}; shift 2 ;;
        *) echo "depth1_roads: unknown argument $1" >&2; bench_usage 1 ;;
    esac
done
[[ $PAIRS =~ ^[0-9]+$ && $READS =~ ^[1-9][0-9]*$ ]] || die "--pairs and --reads must be whole numbers"
[[ $(id -u) -eq 0 ]] || die "needs root, to make a RAM-backed block device"
for cmd in gcc valgrind strace mkfs.ext4 python3; do
    command -v "$cmd" >/dev/null || die "$cmd not found: apt-get install ${cmd/mkfs.ext4/e2fsprogs}"
done
[[ -f /usr/include/liburing.h ]] || die "liburing.h not found: apt-get install liburing-dev"

work=$(mktemp -d /tmp/ranread_roads.XXXXXX)
cleanup() {
    umount "$ram_mount" 2>/dev/null || true
    ram_device_remove
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bin=$work/depth1_roads
gcc -O2 -g -Wall -o "$bin" "$(dirname "$SELF")/depth1_roads.c" -luring || die "the build failed"
make_ram_device 2G
file=$ram_mount/target
# incompressible, or zram stores nothing and answers without reading
dd if=/dev/urandom of="$file" bs=1M count=1024 status=none
sync

echo "device:   $ram_device ($ram_kind), ext4; 8 kB O_DIRECT reads of a 1 GB file"
echo "kernel:   $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo

# instructions per read of ROAD in user space, under read_loop()
instructions() {
    local road=$1 n s l
    for n in 2000 12000; do
        valgrind --tool=callgrind --toggle-collect=read_loop --callgrind-out-file="$work/cg.$road.$n" \
            "$bin" "$road" "$file" "$n" >/dev/null 2>"$work/cg.$road.$n.log" ||
            { cat "$work/cg.$road.$n.log" >&2; die "$road failed under callgrind"; }
    done
    s=$(sed -n 's/^totals: *//p' "$work/cg.$road.2000")
    l=$(sed -n 's/^totals: *//p' "$work/cg.$road.12000")
    awk -v s="$s" -v l="$l" 'BEGIN { printf "%.1f", (l - s) / 10000 }'
}
# system calls per read of ROAD, by name
syscalls() {
    local road=$1 n
    for n in 2000 12000; do
        strace -f -c -o "$work/st.$road.$n" "$bin" "$road" "$file" "$n" >/dev/null
    done
    python3 - "$work/st.$road.2000" "$work/st.$road.12000" <<'EOF'
import sys
def calls(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 5 and f[0][0].isdigit() and f[-1] != "total":
            out[f[-1]] = int(f[3])
    return out
s, l = calls(sys.argv[1]), calls(sys.argv[2])
per = {k: (l.get(k, 0) - s.get(k, 0)) / 10000 for k in set(s) | set(l)}
per = {k: v for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if abs(v) >= 0.0005}
print(f"{sum(per.values()):.3f} (" + " ".join(f"{k}={v:.3f}" for k, v in per.items()) + ")")
EOF
}

printf '%-6s %14s  %s\n' road "instructions" "system calls per read"
for road in pread uring; do
    printf '%-6s %14s  %s\n' "$road" "$(instructions "$road")" "$(syscalls "$road")"
done
echo "(user space per read, the loop with its two clock reads included; the kernel's work is not counted)"

(( PAIRS > 0 )) || exit 0
echo
: >"$work/cpu"
for (( p = 1; p <= PAIRS; p++ )); do
    order="pread uring"
    (( p % 2 )) || order="uring pread"
    for road in $order; do "$bin" "$road" "$file" "$READS" >>"$work/cpu"; done
done
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at end"
python3 - "$work/cpu" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    runs.setdefault(f[0], []).append((float(f[4]), float(f[6]), float(f[8])))
print(f"{'road':<6}{'mean us':>10}{'CPU us/read':>13}{'of it system':>14}   (medians of {len(runs['pread'])} runs each, ABBA)")
for road, r in runs.items():
    print(f"{road:<6}" + "".join(f"{statistics.median(x[i] for x in r):>{w}.3f}" for i, w in ((0, 10), (1, 13), (2, 14))))
print(f"uring / pread CPU per read: {statistics.median(x[1] for x in runs['uring']) / statistics.median(x[1] for x in runs['pread']):.3f}")
EOF
