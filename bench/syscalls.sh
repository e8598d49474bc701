#!/usr/bin/env bash
#
# bench/syscalls.sh: system calls per read of ranread's direct path, and of
# t/io_uring -t 1, counted by strace.  callgrind (bench/instructions.sh)
# sees user space only; how often a read enters the kernel is the other half
# of its cost, and like an instruction count it does not move with the load
# of the machine.
#
# The server (a throwaway cluster of PG_CONFIG's binaries, io_method = sync
# on 18) runs with strace attached to its postmaster (-f: its children
# too, one output file each); each case runs twice, --short and --long reads,
# one worker, and the worker's system calls of the short run are subtracted
# from the long one's, so that its start and its recording cancel.  The
# clock is read through the vDSO, which is no system call (strace does not
# take the vDSO away, as valgrind does).  t/io_uring runs for whole seconds
# under strace -f -c; its reads are counted by the device (/proc/diskstats)
# and its system calls per read are its io_uring_enter() calls over them.
#
# Usage:
#   make install PG_CONFIG=...
#   PG_CONFIG=... bench/syscalls.sh                       # about 2 minutes
#   PG_CONFIG=... bench/syscalls.sh --cases "direct1 tio1"
#
# Options:
#   --short N   reads in the short run (default 2000)
#   --long N    reads in the long run (default 12000)
#   --cases L   from: direct1 direct8 direct32 tio1 tio8 tio32 (default all)
#
# Needs: root (the RAM-backed device, the cluster as postgres), strace,
# mkfs.ext4, Debian's fio source (fetched and built once for t/io_uring),
# 2 GB of free memory.

set -euo pipefail

SELF=$(readlink -f "$0")
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
die() { echo "syscalls: $*" >&2; exit 1; }
# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

SHORT=2000
LONG=12000
CASES="direct1 direct8 direct32 tio1 tio8 tio32"
CASES_ALL=$CASES
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --short) SHORT=${2:?}; shift 2 ;;
        --long) LONG=${2:?}; shift 2 ;;
        --cases) CASES=${2:?}; shift 2 ;;
        *) echo "syscalls: unknown argument $1" >&2; bench_usage 1 ;;
    esac
done
[[ $SHORT =~ ^[1-9][0-9]*$ && $LONG =~ ^[1-9][0-9]*$ ]] && (( LONG > SHORT )) ||
    die "--short and --long must be positive integers, --long the larger"
for c in $CASES; do
    [[ " $CASES_ALL " == *" $c "* ]] || die "unknown case $c"
done
[[ $(id -u) -eq 0 ]] || die "needs root, to make a RAM-backed block device and run the cluster as postgres"
for cmd in strace mkfs.ext4; do
    command -v "$cmd" >/dev/null || die "$cmd not found: apt-get install ${cmd/mkfs.ext4/e2fsprogs}"
done
[[ -x $PG_CONFIG ]] || die "set PG_CONFIG to the pg_config of the server to measure"
so="$($PG_CONFIG --pkglibdir)/ranread.so"
[[ -f $so ]] || die "ranread is not installed for $PG_CONFIG: make install PG_CONFIG=$PG_CONFIG"
major=$($PG_CONFIG --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
if [[ " $CASES " == *" tio"* ]]; then tio_uring_build; fi

work=$(mktemp -d /tmp/ranread_syscalls.XXXXXX)
strace_pid=
cleanup() {
    [[ -z $strace_pid ]] || kill "$strace_pid" 2>/dev/null || true
    cluster_stop "$work"
    ram_device_remove
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

make_ram_device 2G
cluster_init "$work"
{
    echo "shared_buffers = 32MB"
    echo "max_worker_processes = 8"
    (( major < 18 )) || echo "io_method = sync"
} >"$work/settings.conf"
cluster_start "$work"
mkdir "$ram_mount/ts" && chown postgres "$ram_mount/ts"
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
"${PSQL[@]}" -c "CREATE TABLESPACE fast LOCATION '$ram_mount/ts'" -c "CREATE EXTENSION ranread"
"${PSQL[@]}" -c "SELECT ranread_setup('1GB', tablespace => 'fast', log_level => 0)" >/dev/null 2>"$work/setup.err" ||
    { cat "$work/setup.err" >&2; die "ranread_setup failed"; }
file=$("${PSQL[@]}" -c "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('ranread_target')")
pm_pid=$(head -n 1 "$work/data/postmaster.pid")

echo "server:   $("${PSQL[@]}" -c "SELECT version()")"
echo "ranread:  $so md5 $(md5sum "$so" | cut -c1-12)"
echo "source:   $(git -C "$(dirname "$SELF")" log -1 --format='%h' 2>/dev/null || echo '?')$(git -C "$(dirname "$SELF")" diff --quiet HEAD -- :/src 2>/dev/null || echo ' (src modified)')"
echo "device:   $ram_device ($ram_kind), ext4; reads $SHORT and $LONG, difference per read"
echo

# The system calls of the one worker of a run of N reads at depth D, by
# name, "name count" a line, then "reads R".
ranread_syscalls() {
    local n=$1 depth=$2 dir f reads
    dir=$work/st.$n.$depth
    mkdir "$dir"
    strace -f -ff -qq -o "$dir/t" -p "$pm_pid" 2>/dev/null &
    strace_pid=$!
    sleep 1
    reads=$("${PSQL[@]}" -c "CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(1, $n, mode => 'direct', iodepth => $depth)" \
        -c "SELECT reads FROM ranread_summary JOIN r USING (batch)" 2>/dev/null)
    sleep 1
    kill "$strace_pid"; wait "$strace_pid" 2>/dev/null || true
    strace_pid=
    # the worker: the process that read the most (pread64 or io_uring_enter)
    f=$(grep -c -E '^(pread64|io_uring_enter)\(' "$dir"/t.* | sort -t: -k2 -n | tail -n 1 | cut -d: -f1)
    sed -n 's/^\([a-z_0-9]*\)(.*/\1/p' "$f" | sort | uniq -c | awk '{print $2, $1}'
    echo "reads $reads"
}

printf '%-10s %8s  %s\n' case "calls" "per read, by name (long run less short run)"
for c in $CASES; do
    case $c in
        direct*)
            d=${c#direct}
            s=$(ranread_syscalls "$SHORT" "$d")
            l=$(ranread_syscalls "$LONG" "$d")
            python3 - "$c" "$s" "$l" <<'EOF'
import sys
def parse(t):
    d = dict(line.split() for line in t.splitlines())
    return {k: int(v) for k, v in d.items()}
c, s, l = sys.argv[1], parse(sys.argv[2]), parse(sys.argv[3])
reads = l.pop("reads") - s.pop("reads")
names = sorted(set(s) | set(l), key=lambda k: -(l.get(k, 0) - s.get(k, 0)))
per = {k: (l.get(k, 0) - s.get(k, 0)) / reads for k in names}
total = sum(per.values())
print(f"{c:<10} {total:8.3f}  " + " ".join(f"{k}={v:.3f}" for k, v in per.items() if abs(v) >= 0.0005))
EOF
            ;;
        tio*)
            d=${c#tio}
            calls=()
            reads=()
            for secs in 1 3; do
                r0=$(device_reads "$ram_device")
                strace -f -c -o "$work/tio.$secs" -e trace=io_uring_enter "$tio_uring" -d "$d" -s "$d" -c "$d" \
                    -b 8192 -p 0 -t 1 -n 1 -O 1 -r "$secs" "$file" >/dev/null 2>&1
                reads+=($(( $(device_reads "$ram_device") - r0 )))
                calls+=("$(awk '$NF == "io_uring_enter" { print $4 }' "$work/tio.$secs")")
            done
            awk -v c="$c" -v s="${calls[0]}" -v l="${calls[1]}" -v rs="${reads[0]}" -v rl="${reads[1]}" \
                'BEGIN { printf "%-10s %8.3f  io_uring_enter=%.3f\n", c, (l - s) / (rl - rs), (l - s) / (rl - rs) }'
            ;;
    esac
done
echo "(system calls per read of the worker, or of t/io_uring; the clock's reads go through the vDSO)"
