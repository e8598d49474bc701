#!/usr/bin/env bash
#
# bench/aio_vs_direct.sh: what does PostgreSQL 18's asynchronous I/O get
# from this volume?  For each io_method (sync, worker, io_uring; the server
# restarted between), on one target, one worker at each look-ahead Q
# (default 1 8 32), it alternates (A B C, then C B A, ... --reps times):
#
#   A  ranread_run(1, NULL, mode => 'stream', iodepth => Q, duration => D)
#      PostgreSQL's read_stream through io_method, look-ahead Q
#   B  ranread_run(1, NULL, mode => 'direct', iodepth => Q, duration => D)
#      ranread's own io_uring, O_DIRECT, Q in flight
#   C  fio --ioengine=io_uring --direct=1 --iodepth=Q --rw=randread --bs=8k
#
# and under io_method = worker it steps io_workers (default 1 3 8, reloaded)
# for A at the largest Q.  Per cell it prints the medians over the
# repetitions: IOPS, mean and p99 latency (ms), CPU us per read and the
# device's reads/s (/sys/block/DEV/stat over the run), and the ratio of
# stream's IOPS to direct's.  CPU per read: for ranread, the postmaster's
# reaped children (the run's workers, whole lives) plus the I/O worker
# processes over the run (under io_method = worker they do the reads); for
# fio, getrusage of the fio command (bench/fio_run.py).  stream's latency
# runs from the stream asking for a block to the buffer handed back, so it
# includes waiting in the stream (docs/reference.md, Read paths).
#
# Target: stream over io_uring >= 0.9 x direct at the same depth.
#
# Usage:
#   make install PG_CONFIG=/usr/lib/postgresql/18/bin/pg_config
#   bench/aio_vs_direct.sh                   # 8GB target, 2 reps, 5 s runs
#   bench/aio_vs_direct.sh --depths "1 32" --reps 3 --duration 8
#
# Options:
#   --size SIZE          target size (default 8GB)
#   --reps N             repetitions of each tool per cell (default 2)
#   --duration SECONDS   each run (default 5)
#   --depths "LIST"      look-aheads / queue depths (default "1 8 32")
#   --io-workers "LIST"  io_workers under io_method = worker (default "1 3 8"; "" none)
#   --methods "LIST"     io_methods, in order (default "sync worker io_uring
#                        io_uring+direct"); +direct also sets debug_io_direct =
#                        'data', so that PostgreSQL's own reads, the stream's
#                        too, bypass the page cache as mode direct's do
#
# Needs: PostgreSQL 18 (scripts/install-postgres.sh 18) with ranread
# installed for it, pg_virtualenv, fio, python3, free space for SIZE.
# Runtime: about methods x depths x 3 tools x reps x (D + 1 s), plus the
# io_workers steps and the setup: about 9 minutes with the defaults.

set -euo pipefail

SELF=$(readlink -f "$0")
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/18/bin/pg_config}
export PATH="$($PG_CONFIG --bindir):$PATH"

die() { echo "aio_vs_direct: $*" >&2; exit 1; }

# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

ARGS=("$@")
SIZE=8GB
REPS=2
DURATION=5
DEPTHS="1 8 32"
IO_WORKERS="1 3 8"
METHODS="sync worker io_uring io_uring+direct"
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --size) SIZE=${2:?}; shift 2 ;;
        --reps) REPS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        --depths) DEPTHS=${2:?}; shift 2 ;;
        --io-workers) IO_WORKERS=${2-}; shift 2 ;;
        --methods) METHODS=${2:?}; shift 2 ;;
        *) echo "aio_vs_direct: unknown argument $1" >&2; bench_usage 1 ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer"
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration must be whole seconds"
for q in $DEPTHS; do [[ $q =~ ^[1-9][0-9]*$ ]] || die "--depths must be positive integers, not '$q'"; done
for m in $METHODS; do [[ $m =~ ^(sync|worker|io_uring)(\+direct)?$ ]] || die "--methods takes sync, worker, io_uring, each with +direct or not, not '$m'"; done
for w in $IO_WORKERS; do [[ $w =~ ^[1-9][0-9]*$ ]] || die "--io-workers must be positive integers, not '$w'"; done


inner() {
    local datadir pm_pid clk_tck size_bytes setup_out segs filenames so so_id i dev devname model
    PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
    work=$(mktemp -d "${TMPDIR:-/tmp}/ranread_aio.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    setup_target_for_fio
    describe_data_device
    local devstat=/sys/block/$devname/stat results=$work/results.tsv
    : >"$results"

    echo "server:   $("${PSQL[@]}" -c 'SELECT version()')"
    echo "ranread:  $so_id"
    echo "source:   $(src_id)"
    echo "target:   $setup_out"
    echo "disk:     /dev/$devname: $model"
    echo "runs:     1 worker, $DURATION s each, $REPS reps, A B C then C B A; depths $DEPTHS"
    echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"

    device_reads() { awk '{print $1}' "$devstat"; }
    restart() {
        pg_ctlcluster "$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')" regress restart >"$work/restart.log" 2>&1 ||
            { cat "$work/restart.log" >&2; die "could not restart the server"; }
        datadir=$("${PSQL[@]}" -c "SHOW data_directory")
        pm_pid=$(head -n 1 "$datadir/postmaster.pid")
    }
    # run_tool TOOL Q -> TSV: iops mean p99 cpu_us_per_read device_reads_per_s
    run_tool() {
        local tool=$1 q=$2 d0 d1 t0 t1 w0 w1 line batch
        d0=$(device_reads); t0=$(child_ticks); w0=$(io_worker_ticks)
        case $tool in
            stream|direct)
                batch=$("${PSQL[@]}" -c "SELECT batch FROM ranread_run(1, NULL, mode => '$tool', iodepth => $q,
                                                                       duration => '$DURATION s')" 2>"$work/run.err") ||
                    { cat "$work/run.err" >&2; die "ranread_run(mode => '$tool', iodepth => $q) failed"; }
                # the batch row is the workers': a statement after the run sees it
                line=$("${PSQL[@]}" -F $'\t' -c "SELECT iops, response_time_ms, p99_ms, reads
                                                 FROM ranread_batches WHERE batch = $batch")
                ;;
            fio)
                line=$(python3 "$(dirname "$SELF")/fio_run.py" "$work/fio.json" \
                    fio --name=randread --ioengine=io_uring --direct=1 --iodepth="$q" --rw=randread \
                    --bs=8k --numjobs=1 --time_based --runtime="$DURATION" --group_reporting \
                    --randrepeat=0 --norandommap --filename="$filenames" --output-format=json)
                ;;
        esac
        d1=$(device_reads); t1=$(child_ticks); w1=$(io_worker_ticks)
        python3 - "$tool" "$line" "$d0" "$d1" "$t0" "$t1" "$w0" "$w1" "$clk_tck" "$DURATION" <<'EOF'
import sys
tool, line, d0, d1, t0, t1, w0, w1, tck, dur = sys.argv[1:]
f = line.split("\t")
if tool == "fio":
    iops, mean, p99, cpu, reads = float(f[0]), float(f[1]), float(f[3]), float(f[5]), float(f[6])
else:
    iops, mean, p99, reads = float(f[0]), float(f[1]), float(f[2]), float(f[3])
    ticks = (int(t1) - int(t0)) + max(0, int(w1) - int(w0))
    cpu = 1e6 * ticks / int(tck) / reads
print(f"{iops:.0f}\t{mean:.4f}\t{p99:.4f}\t{cpu:.2f}\t{(int(d1) - int(d0)) / float(dur):.0f}")
EOF
    }

    local method q rep tool order w
    for method in $METHODS; do
        "${PSQL[@]}" -c "ALTER SYSTEM SET io_method = '${method%+direct}'"
        if [[ $method == *+direct ]]; then
            "${PSQL[@]}" -c "ALTER SYSTEM SET debug_io_direct = 'data'"
        else
            "${PSQL[@]}" -c "ALTER SYSTEM RESET debug_io_direct"
        fi
        restart
        echo
        echo "$method: io_method = $("${PSQL[@]}" -c 'SHOW io_method'), debug_io_direct '$("${PSQL[@]}" -c 'SHOW debug_io_direct')', io_workers $("${PSQL[@]}" -c 'SHOW io_workers'), io_max_concurrency $("${PSQL[@]}" -c 'SHOW io_max_concurrency')"
        for q in $DEPTHS; do
            for (( rep = 1; rep <= REPS; rep++ )); do
                order="stream direct fio"
                (( rep % 2 == 0 )) && order="fio direct stream"
                for tool in $order; do
                    printf '%s\t%s\t%s\t%s\n' "$method" "$q" "$tool" "$(run_tool "$tool" "$q")" >>"$results"
                done
            done
        done
        if [[ $method == worker && -n $IO_WORKERS ]]; then
            q=${DEPTHS##* }
            for m in $METHODS; do [[ $m =~ ^(sync|worker|io_uring)(\+direct)?$ ]] || die "--methods takes sync, worker, io_uring, each with +direct or not, not '$m'"; done
for w in $IO_WORKERS; do
                "${PSQL[@]}" -c "ALTER SYSTEM SET io_workers = $w" -c "SELECT pg_reload_conf()" >/dev/null
                sleep 1
                for (( rep = 1; rep <= REPS; rep++ )); do
                    printf '%s\t%s\t%s\t%s\n' "worker, io_workers $w" "$q" stream "$(run_tool stream "$q")" >>"$results"
                done
            done
            "${PSQL[@]}" -c "ALTER SYSTEM RESET io_workers" -c "SELECT pg_reload_conf()" >/dev/null
        fi
    done
    echo
    echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at end"
    echo
    python3 - "$results" <<'EOF'
import collections, statistics, sys
cells = collections.OrderedDict()
for line in open(sys.argv[1]):
    method, q, tool, *v = line.rstrip("\n").split("\t")
    cells.setdefault((method, int(q), tool), []).append([float(x) for x in v])
print(f"{'io_method':<22}{'Q':>4} {'tool':<7}{'IOPS':>8}{'mean ms':>9}{'p99 ms':>8}{'CPU us/read':>12}{'dev reads/s':>12}{'stream/direct':>14}")
for (method, q, tool), runs in cells.items():
    med = [statistics.median(col) for col in zip(*runs)]
    ratio = ""
    if tool == "stream" and (method, q, "direct") in cells:
        direct = statistics.median(r[0] for r in cells[(method, q, "direct")])
        ratio = f"{med[0] / direct:.2f}"
    print(f"{method:<22}{q:>4} {tool:<7}{med[0]:>8.0f}{med[1]:>9.3f}{med[2]:>8.3f}{med[3]:>12.1f}{med[4]:>12.0f}{ratio:>14}")
EOF
}

if [[ -n ${AIO_VS_DIRECT_INNER:-} ]]; then
    inner
    exit 0
fi
check_benchmark_prerequisites
(( pg_major >= 18 )) || die "PostgreSQL $pg_major has no asynchronous I/O: PG_CONFIG must name 18 or later"
export SIZE REPS DURATION DEPTHS IO_WORKERS METHODS PG_CONFIG AIO_VS_DIRECT_INNER=1
exec pg_virtualenv -t -v "$pg_major" -o autovacuum=off "$SELF" "${ARGS[@]}"
