#!/usr/bin/env bash
#
# bench/setup_vs_fio.sh: how fast does ranread_setup() write its target,
# compared with fio writing the same amount on the same file system?
#
# This is a benchmark, not a test: it measures this machine and prints a
# small table.  It starts a throwaway cluster (pg_virtualenv -t -o fsync=on,
# under /tmp) and alternates, run after run:
#
#   A  SELECT ranread_setup(SIZE)     timed from the client (date around psql,
#                                     so it includes every fsync and the final
#                                     eviction), then SELECT ranread_drop();
#   B  fio --rw=write --bs=1M --ioengine=psync --end_fsync=1 --size=SIZE
#                                     (buffered 1 MiB writes and a final fsync,
#                                     like setup) on a file next to the data
#                                     directory, bandwidth read from its JSON.
#
# One unmeasured fio write of SIZE comes first as a warm-up.  Before each
# measured step the page cache is dropped (sync; echo 3 >
# /proc/sys/vm/drop_caches, system-wide) when that is possible (root).  The
# numbers are only as quiet as the machine: run it alone.  At the end it
# prints the median of each and the ratio setup/fio; the target is >= 0.90.
# All sizes and rates are in MiB (2^20 bytes), as ranread reports them.
#
# Usage:
#   make install                      # the extension must be installed
#   bench/setup_vs_fio.sh             # 4GB, 3 runs
#   bench/setup_vs_fio.sh 1GB         # another size (pg_size_bytes syntax)
#   bench/setup_vs_fio.sh --runs 5 8GB
#
# Needs: pg_virtualenv (postgresql-common), psql, pg_config, fio, python3,
# free space for SIZE under /tmp (TMPDIR), and root to drop the page cache.
# Runtime: roughly 2 * runs * SIZE / (write speed), plus a few seconds.

set -euo pipefail

SELF=$(readlink -f "$0")
TARGET_RATIO=0.90

die() { echo "setup_vs_fio: $*" >&2; exit 1; }

usage() {
    sed -n '/^# Usage:/,/^# Runtime:/p' "$SELF" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------
ARGS=("$@")
SIZE=4GB
RUNS=3
size_given=
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage 0 ;;
        --runs) [[ $# -ge 2 ]] || die "--runs needs a number"; RUNS=$2; shift 2 ;;
        --runs=*) RUNS=${1#--runs=}; shift ;;
        -*) echo "setup_vs_fio: unknown option $1" >&2; usage 1 ;;
        *) [[ -z $size_given ]] || die "only one size argument, got '$SIZE' and '$1'"
           SIZE=$1; size_given=1; shift ;;
    esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer, not '$RUNS'"
# The full check is pg_size_bytes() inside the cluster; catch typos early.
[[ $SIZE =~ ^[0-9]+(\.[0-9]+)?\ *([kKmMgGtTpP][bB]|[bB]ytes)?$ ]] ||
    die "size '$SIZE' is not a size like 4GB, 512MB or 1TB"

# ---------------------------------------------------------------------------
# Inner part: runs inside pg_virtualenv, with PGHOST/PGPORT/... exported.
# ---------------------------------------------------------------------------
# fio's sequential 1 MiB buffered write of SIZE with a final fsync, plus any
# extra options; prints its bandwidth (MiB/s, from its JSON) and removes the file.
fio_write() {
    local run=$1
    shift
    if ! fio --name=seqwrite --rw=write --bs=1M --size="$size_bytes" \
             --ioengine=psync --end_fsync=1 --filename="$fiofile" "$@" \
             --output-format=json >"$work/fio.json" 2>"$work/fio.err"; then
        cat "$work/fio.err" "$work/fio.json" >&2
        die "fio failed in run $run"
    fi
    rm -f "$fiofile"
    # write.bw_bytes is bytes/s over fio's runtime, which includes the
    # end_fsync (it excludes process start and file layout).
    python3 -c '
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
if job["error"]:
    sys.exit("fio job error %d" % job["error"])
w = job["write"]
if w["io_bytes"] != int(sys.argv[2]):
    sys.exit("fio wrote %d bytes, expected %s" % (w["io_bytes"], sys.argv[2]))
print("%.1f" % (w["bw_bytes"] / 2**20))' "$work/fio.json" "$size_bytes"
}

inner() {
    local PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
    local datadir fsdir size_bytes size_mib
    # globals, for the EXIT trap
    work=$(mktemp -d -t setup_vs_fio.XXXXXX)
    fiofile=
    trap 'rm -rf "$work"; [[ -z $fiofile ]] || rm -f "$fiofile"' EXIT

    "${PSQL[@]}" -c "CREATE EXTENSION ranread" ||
        die "CREATE EXTENSION ranread failed in the throwaway cluster"
    datadir=$("${PSQL[@]}" -c "SHOW data_directory")
    fsdir=$(dirname "$datadir")
    fiofile="$fsdir/fio_setup_bench.dat"
    [[ $(stat -c %d "$datadir") == $(stat -c %d "$fsdir") ]] ||
        die "$fsdir is not on the same file system as $datadir"
    size_bytes=$("${PSQL[@]}" -c "SELECT pg_size_bytes('$SIZE')") ||
        die "PostgreSQL does not accept the size '$SIZE'"
    (( size_bytes >= 8 * 1024 * 1024 )) || die "size must be at least 8MB"
    (( size_bytes % (1024 * 1024) == 0 )) ||
        die "size must be a whole number of MiB (fio writes 1 MiB blocks)"
    size_mib=$(( size_bytes / 1024 / 1024 ))

    local can_drop=yes
    if ! { sync && echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
        can_drop=no
    fi

    echo "== machine"
    echo "cpus:    $(nproc)"
    echo "memory:  $(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')"
    echo "kernel:  $(uname -r)"
    echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min; other work on the machine skews results)"
    echo "fio:     $(fio --version)"
    echo "psql:    $(psql --version)"
    echo "server:  $("${PSQL[@]}" -c "SELECT current_setting('server_version')") fsync=$("${PSQL[@]}" -c "SHOW fsync")"
    echo "dirty:   vm.dirty_background_ratio=$(cat /proc/sys/vm/dirty_background_ratio)" \
         "vm.dirty_ratio=$(cat /proc/sys/vm/dirty_ratio)"
    echo "fs:      $(findmnt -no FSTYPE,OPTIONS -T "$datadir" 2>/dev/null || echo '?')"
    df -h "$datadir" | sed 's/^/         /'
    echo "datadir: $datadir"
    echo "fio file: $fiofile"
    if [[ $can_drop == yes ]]; then
        echo "page cache: dropped before each measured step"
    else
        echo "page cache: NOT dropped (/proc/sys/vm/drop_caches not writable; run as root for fair numbers)"
    fi
    # Warm-up, not measured: on this kind of VM the first big write after a
    # while is several times slower (guest memory being faulted back in from
    # the host), and it would always land on run 1's ranread_setup.
    drop_caches() {
        sync
        if [[ $can_drop == yes ]]; then echo 3 > /proc/sys/vm/drop_caches; fi
    }
    now() { date +%s.%N; }
    local t0 t1
    drop_caches
    t0=$(now)
    fio --name=warmup --rw=write --bs=1M --size="$size_bytes" --ioengine=psync \
        --end_fsync=1 --filename="$fiofile" --output-format=json >/dev/null 2>&1 ||
        die "fio warm-up failed: try by hand: fio --name=t --rw=write --bs=1M --size=$size_bytes --filename=$fiofile"
    t1=$(now)
    rm -f "$fiofile"
    echo "warm-up: one unmeasured fio write of $size_mib MiB ($(python3 -c "print(f'{$t1 - $t0:.1f}')") s)"
    echo
    echo "== $RUNS runs of $size_mib MiB each (A = ranread_setup, B = fio), MiB/s"
    echo "   (fio(like): --fallocate=none --refill_buffers=1, i.e. no preallocation and new data for"
    echo "    every write, which setup must do: it may not fallocate and writes fresh random pages)"
    printf '%-4s %14s %10s %14s %14s %10s %13s %15s\n' \
        run "setup(client)" "setup s" "setup(server)" "fio(json)" "fio s" "fio(wall)" "fio(like,json)"

    local i out setup_s setup_mibs setup_srv fio_s fio_json fio_wall fio_like
    local setup_all=() fio_all=() fio_wall_all=() fio_like_all=()
    for (( i = 1; i <= RUNS; i++ )); do
        # --- A: ranread_setup ------------------------------------------------
        drop_caches
        t0=$(now)
        if ! out=$(PGOPTIONS='-c client_min_messages=error' "${PSQL[@]}" \
                   -c "SELECT ranread_setup('$size_bytes', log_level => 0)" 2>"$work/setup.err"); then
            cat "$work/setup.err" >&2
            die "ranread_setup failed in run $i"
        fi
        t1=$(now)
        setup_s=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
        setup_mibs=$(python3 -c "print(f'{$size_mib / ($t1 - $t0):.1f}')")
        # "... written in 6.10 s (671 MB/s)": the server's own figure
        setup_srv=$(sed -n 's/.*(\([0-9.]*\) MB\/s)$/\1/p' <<<"$out")
        [[ -n $setup_srv ]] || setup_srv='?'
        "${PSQL[@]}" -c "SELECT ranread_drop()" >/dev/null
        "${PSQL[@]}" -c "CHECKPOINT" >/dev/null

        # --- B: fio as is (it preallocates with fallocate and reuses one buffer)
        drop_caches
        t0=$(now)
        fio_json=$(fio_write "$i")
        t1=$(now)
        fio_s=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
        fio_wall=$(python3 -c "print(f'{$size_mib / ($t1 - $t0):.1f}')")

        # --- C: fio doing what setup must: no preallocation, fresh data -----
        drop_caches
        fio_like=$(fio_write "$i" --fallocate=none --refill_buffers=1)

        printf '%-4s %14s %10s %14s %14s %10s %13s %15s\n' \
            "$i" "$setup_mibs" "$setup_s" "$setup_srv" "$fio_json" "$fio_s" "$fio_wall" "$fio_like"
        setup_all+=("$setup_mibs")
        fio_all+=("$fio_json")
        fio_wall_all+=("$fio_wall")
        fio_like_all+=("$fio_like")
    done

    echo
    echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 - "$TARGET_RATIO" "${setup_all[*]}" "${fio_all[*]}" "${fio_wall_all[*]}" "${fio_like_all[*]}" <<'EOF'
import statistics, sys
target = float(sys.argv[1])
setup, fio, fio_wall, fio_like = ([float(x) for x in arg.split()] for arg in sys.argv[2:6])
ms, mf, mw, ml = (statistics.median(x) for x in (setup, fio, fio_wall, fio_like))
ratio = ms / mf
print(f"median ranread_setup (client wall): {ms:8.1f} MiB/s")
print(f"median fio seq write (JSON bw):     {mf:8.1f} MiB/s")
print(f"median fio like-for-like (JSON bw): {ml:8.1f} MiB/s")
print(f"ratio setup/fio:                    {ratio:8.3f}")
print(f"ratio setup/fio like-for-like:      {ms / ml:8.3f}")
print(f"(both as wall-clock, for information: {ms / mw:6.3f}; fio's JSON bw leaves out its")
print(" start-up and file layout, setup's client time counts SQL and page-cache eviction)")
if ratio >= target:
    print(f"PASS: ratio >= {target:.2f}")
else:
    print(f"BELOW TARGET: ratio < {target:.2f}")
EOF
}

if [[ -n ${SETUP_VS_FIO_INNER:-} ]]; then
    inner
    exit 0
fi

# ---------------------------------------------------------------------------
# Outer part: check what we need, then re-run ourselves in a cluster.
# ---------------------------------------------------------------------------
. "$(dirname "$(readlink -f "$0")")/common.sh"
check_benchmark_prerequisites

export SETUP_VS_FIO_INNER=1
exec pg_virtualenv -t -v "$pg_major" -o fsync=on "$SELF" "${ARGS[@]}"
