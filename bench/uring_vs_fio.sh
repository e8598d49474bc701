#!/usr/bin/env bash
#
# bench/uring_vs_fio.sh: with several reads in flight per worker (iodepth,
# through io_uring), does ranread's mode 'direct' measure the same IOPS and
# latency as fio's io_uring and libaio engines doing the same reads, at no
# more CPU per read, and does one worker reach the device's limit?
#
# This is a benchmark, not a test: it measures this machine and prints tables
# and a verdict.  It starts a throwaway cluster (pg_virtualenv -t, under /tmp,
# autovacuum off), writes ONE target with ranread_setup() and then, for each
# step N:Q (N processes, Q reads in flight each; default 1:1 1:4 1:16 1:32
# 1:64 2:32), alternates on that same target (A B C A B C ..., --reps
# repetitions of each, --duration each):
#
#   A  SELECT * FROM ranread_run(N, NULL, mode => 'direct', iodepth => Q,
#                                duration => D)
#   B  fio --ioengine=io_uring --direct=1 --iodepth=Q --rw=randread --bs=8k
#          --numjobs=N --time_based --runtime=D --group_reporting
#          --randrepeat=0 --norandommap --filename=<seg0>:<seg1>:...
#   C  the same with --ioengine=libaio
#
# and, unless --psync-jobs 0, fio --ioengine=psync with that many jobs (one
# read in flight each), the many-process way to the device's limit, so that
# "the highest IOPS any fio configuration reaches" covers it too.
#
# Per step it prints the medians over the repetitions of IOPS, mean, p50 and
# p99 latency (fio: lat_ns mean, clat percentiles; ranread: its histogram,
# from queuing each read to the reap that saw it complete), CPU us per read
# (ranread: the postmaster's cutime+cstime across the run, i.e. the workers'
# and the leader's whole lives, divided by the reads; fio: getrusage of the
# whole fio command, RUSAGE_CHILDREN) and the device's own reads/s
# (/sys/block/DEV/stat over the run).  bench/direct_vs_fio.sh explains these
# measures at length.
#
# "in flight" is Little's law, IOPS x mean latency: the reads each tool kept
# in flight on average (at most N x Q); "spread" is (max - min) / median of
# a tool's IOPS over the repetitions, how much it disagrees with itself.
#
# Verdict: IOPS ratio ranread/fio(io_uring) >= 0.98 at every step; CPU per
# read no worse than fio(io_uring)'s at every step; and from one worker, at
# least 95 % of the highest IOPS any fio configuration reached in this run
# (named).
#
# Usage:
#   make install                     # the extension must be installed
#   bench/uring_vs_fio.sh            # 8GB target, 2 reps, 6 s runs
#   bench/uring_vs_fio.sh --size 16GB --reps 3 --duration 10
#   bench/uring_vs_fio.sh --steps "1:32 2:32" --psync-jobs 0
#
# Options:
#   --size SIZE        target size, pg_size_bytes syntax (default 8GB)
#   --reps N           repetitions of each tool per step (default 2)
#   --duration SECONDS length of every run (default 6; the VM's disk of
#                      docs/benchmarks-archive.md throttles long busy runs)
#   --steps "LIST"     N:Q pairs (default "1:1 1:4 1:16 1:32 1:64 2:32")
#   --psync-jobs N     also run fio psync with N jobs (default 64; 0: no)
#
# Needs: pg_virtualenv (postgresql-common), psql, pg_config, fio, python3,
# lsblk and findmnt (util-linux), ranread installed and built with liburing
# (scripts/install-deps.sh installs liburing-dev), free space for SIZE under
# /tmp, and read access to the cluster's files for fio (run as root, or as
# the user that owns the throwaway cluster).
# Runtime: setup (SIZE / write speed) + reps * (3 * steps + 1) * duration, plus
# about a second per run: about 4 minutes with the defaults.
# Results and how to read them: docs/benchmarks-archive.md.

set -euo pipefail

SELF=$(readlink -f "$0")
IOPS_TARGET=0.98
ONE_WORKER_TARGET=0.95

die() { echo "uring_vs_fio: $*" >&2; exit 1; }

# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

ARGS=("$@")
SIZE=8GB
REPS=2
DURATION=6
STEP_LIST="1:1 1:4 1:16 1:32 1:64 2:32"
PSYNC_JOBS=64
MAX_WORKERS=16
optarg() { [[ $# -ge 2 ]] || die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --size) optarg "$@"; SIZE=$2; shift 2 ;;
        --reps) optarg "$@"; REPS=$2; shift 2 ;;
        --duration) optarg "$@"; DURATION=$2; shift 2 ;;
        --steps) optarg "$@"; STEP_LIST=$2; shift 2 ;;
        --psync-jobs) optarg "$@"; PSYNC_JOBS=$2; shift 2 ;;
        *) echo "uring_vs_fio: unknown argument '$1'" >&2; bench_usage 1 ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer, not '$REPS'"
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration must be a whole number of seconds, not '$DURATION'"
[[ $PSYNC_JOBS =~ ^[0-9]+$ ]] || die "--psync-jobs must be a number, not '$PSYNC_JOBS'"
read -r -a STEPS <<<"${STEP_LIST//,/ }"
[[ ${#STEPS[@]} -gt 0 ]] || die "--steps needs at least one N:Q pair"
for s in "${STEPS[@]}"; do
    [[ $s =~ ^([1-9][0-9]*):([1-9][0-9]*)$ ]] || die "steps are N:Q pairs like 1:32, not '$s'"
    (( BASH_REMATCH[1] <= MAX_WORKERS - 8 )) || die "at most $(( MAX_WORKERS - 8 )) processes per step, not ${BASH_REMATCH[1]}"
    (( BASH_REMATCH[2] <= 1024 )) || die "at most 1024 reads in flight per process, not ${BASH_REMATCH[2]}"
done
[[ $SIZE =~ ^[0-9]+(\.[0-9]+)?\ *([kKmMgGtTpP][bB]|[bB]ytes)?$ ]] ||
    die "size '$SIZE' is not a size like 8GB, 16GB or 1TB"

# ---------------------------------------------------------------------------
# Inner part: runs inside pg_virtualenv, with PGHOST/PGPORT/... exported.
# ---------------------------------------------------------------------------
inner() {
    local PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At -F $'\t')
    export PGOPTIONS='-c client_min_messages=warning'
    work=$(mktemp -d -t uring_vs_fio.XXXXXX)     # global, for the EXIT trap
    trap 'rm -rf "$work"' EXIT
    local t_start=$SECONDS

    local datadir size_bytes pm_pid clk_tck setup_out segs filenames so so_id
    setup_target_for_fio

    # refuse early, with ranread's own words, if this server cannot use io_uring
    "${PSQL[@]}" -c "SELECT 1 FROM ranread_run(1, 1, mode => 'direct', iodepth => 2)" >/dev/null 2>"$work/check.err" ||
        { cat "$work/check.err" >&2; die "ranread cannot keep several reads in flight here"; }
    "${PSQL[@]}" -c "DELETE FROM ranread_batches; DELETE FROM ranread_results; DELETE FROM ranread_intervals"

    # --- what we run ---------------------------------------------------------
    local dev devname model
    describe_data_device

    echo "== ranread mode 'direct' with iodepth (io_uring) vs fio io_uring and libaio, random 8 kB O_DIRECT reads"
    echo "command:  ${URING_VS_FIO_CMD}"
    echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "cpus:     $(nproc) ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)$(grep -qw hypervisor /proc/cpuinfo && echo ', virtual machine'))"
    echo "memory:   $(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')"
    echo "kernel:   $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?'), CLK_TCK $clk_tck"
    echo "disk:     /dev/$devname: $model, $(lsblk -dno SIZE "/dev/$devname" 2>/dev/null | tr -d ' '), rotational=$(cat "/sys/block/$devname/queue/rotational" 2>/dev/null || echo '?'), scheduler $(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$devname/queue/scheduler" 2>/dev/null || echo '?'), nr_requests $(cat "/sys/block/$devname/queue/nr_requests" 2>/dev/null || echo '?')"
    echo "fs:       $(findmnt -no SOURCE,FSTYPE,OPTIONS -T "$datadir" 2>/dev/null || echo '?')"
    echo "fio:      $(fio --version)"
    echo "server:   $("${PSQL[@]}" -c "SELECT version()")"
    echo "ranread:  $so_id"
    echo "source:   $(src_id)"
    echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (load average 1/5/15 min before the runs; other work disturbs them)"
    echo "cluster:  $datadir (max_worker_processes=$("${PSQL[@]}" -c "SHOW max_worker_processes"), autovacuum=$("${PSQL[@]}" -c "SHOW autovacuum"))"
    echo "target:   $setup_out"
    echo "          ${#segs[@]} segment files, $(( size_bytes / 8192 )) blocks of 8 kB"
    echo "liburing: $(pkg-config --modversion liburing 2>/dev/null || echo '?'), kernel.io_uring_disabled=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 'absent'), fio $(fio --version)"
    echo "A:        SELECT * FROM ranread_run(N, NULL, mode => 'direct', iodepth => Q, duration => '$DURATION s')"
    echo "B:        fio --name=randread --ioengine=io_uring --direct=1 --iodepth=Q --rw=randread --bs=8k --numjobs=N --time_based --runtime=$DURATION --group_reporting --randrepeat=0 --norandommap --filename=${segs[0]}:... (${#segs[@]} files) --output-format=json"
    echo "C:        the same with --ioengine=libaio"
    echo "order:    per step (N processes x Q in flight): A B C A B C ... ($REPS of each), steps: ${STEPS[*]}$( (( PSYNC_JOBS > 0 )) && echo "; then fio --ioengine=psync --numjobs=$PSYNC_JOBS (the many-process way to the device's limit)")"
    echo

    # --- helpers -------------------------------------------------------------


    # run_ranread PROCS DEPTH -> TSV line: iops mean p50 p99 cpu cpu reads wall phys
    run_ranread() {
        local n=$1 q=$2 before after out pid batch iops mean p50 p99 status phys reads wall w cpu
        before=$(child_ticks)
        if ! out=$("${PSQL[@]}" \
                -c "CREATE TEMP TABLE r AS
                    SELECT batch FROM ranread_run($n, NULL, mode => 'direct', iodepth => $q, duration => '$DURATION s')" \
                -c "SELECT pg_backend_pid(), batch, iops, response_time_ms, p50_ms, p99_ms, status, physical_pct
                    FROM ranread_summary JOIN r USING (batch)" \
                -c "SELECT reads, wall_s FROM ranread_batches WHERE batch = currval('ranread_batch_seq')" \
                2>"$work/run.err"); then
            cat "$work/run.err" >&2
            die "ranread_run($n, mode => 'direct', iodepth => $q) failed"
        fi
        { IFS=$'\t' read -r pid batch iops mean p50 p99 status phys
          IFS=$'\t' read -r reads wall; } <<<"$out"
        for (( w = 0; w < 1000; w++ )); do [[ -e /proc/$pid ]] || break; sleep 0.01; done
        [[ ! -e /proc/$pid ]] || die "backend $pid did not exit after its session ended"
        after=$(child_ticks)
        [[ $status == completed ]] || die "ranread batch $batch ended with status $status"
        cpu=$(python3 -c "print(1e6 * ($after - $before) / $clk_tck / $reads)")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
            "$iops" "$mean" "$p50" "$p99" "$cpu" "$cpu" "$reads" "$wall" "$phys"
    }

    # run_fio ENGINE PROCS DEPTH
    run_fio() {
        local engine=$1 n=$2 q=$3
        python3 "$(dirname "$SELF")/fio_run.py" "$work/fio.json" \
            fio --name=randread --ioengine="$engine" --direct=1 --iodepth="$q" --rw=randread --bs=8k \
                --numjobs="$n" --time_based --runtime="$DURATION" --group_reporting \
                --randrepeat=0 --norandommap --filename="$filenames" --output-format=json ||
            die "fio --ioengine=$engine with $n jobs at iodepth $q failed"
    }

    local devstat=/sys/block/$devname/stat
    [[ -r $devstat ]] || devstat=/dev/null
    sys_snap() {
        local cpu f=()
        read -r -a cpu < /proc/stat
        read -r -a f < "$devstat" || true
        f+=(0 0 0 0 0 0 0)                   # /dev/null: no device counters
        # busy = user+nice+system+irq+softirq, total adds idle+iowait+steal
        echo "$(( cpu[1] + cpu[2] + cpu[3] + cpu[6] + cpu[7] )) $(( cpu[1] + cpu[2] + cpu[3] + cpu[4] + cpu[5] + cpu[6] + cpu[7] + cpu[8] )) ${f[0]} ${f[6]}"
    }
    local results="$work/results.tsv"
    : >"$results"
    echo "== every run (ms; CPU in us per read: ranread = postmaster cutime+cstime, fio = job / whole process;"
    echo "   busy% = all CPUs during the run; dev_r/s = the device's own completed reads per second)"
    printf '%-5s %3s %-14s %9s %8s %8s %8s %8s %8s %9s %6s %6s %9s\n' \
        step rep tool IOPS mean p50 p99 cpu_job cpu_proc reads phys% busy% dev_r/s
    run_one() {    # step rep tool
        local step=$1 rep=$2 tool=$3 n=${1%%:*} q=${1##*:} s0 s1 line t0s t1s
        s0=$(sys_snap); t0s=$(date +%s.%N)
        case $tool in
            ranread) line=$(run_ranread "$n" "$q") ;;
            fio-io_uring) line=$(run_fio io_uring "$n" "$q") ;;
            fio-libaio) line=$(run_fio libaio "$n" "$q") ;;
            fio-psync) line=$(run_fio psync "$n" 1) ;;
        esac
        s1=$(sys_snap); t1s=$(date +%s.%N)
        local iops mean p50 p99 cj cp reads wall phys b0 t0 r0 w0 b1 t1 r1 w1 busy devrs
        IFS=$'\t' read -r iops mean p50 p99 cj cp reads wall phys <<<"$line"
        read -r b0 t0 r0 w0 <<<"$s0"
        read -r b1 t1 r1 w1 <<<"$s1"
        [[ $tool == fio* ]] && phys=-
        busy=$(python3 -c "print(f'{100 * ($b1 - $b0) / max($t1 - $t0, 1):.0f}')")
        # the device's reads over the tool's own measuring time (its reads / its IOPS)
        devrs=$(python3 -c "print(f'{($r1 - $r0) / ($reads / $iops):.0f}')")
        printf '%-5s %3s %-14s %9.0f %8.4f %8.4f %8.4f %8.2f %8.2f %9s %6s %6s %9s\n' \
            "$step" "$rep" "$tool" "$iops" "$mean" "$p50" "$p99" "$cj" "$cp" "$reads" \
            "$( [[ $phys == - ]] && echo - || printf '%.1f' "$phys")" "$busy" "$devrs"
        printf '%s\t' "$step" "$rep" "$tool" "$iops" "$mean" "$p50" "$p99" "$cj" "$cp" "$reads" "$busy" >>"$results"
        printf '%s\n' "$devrs" >>"$results"
    }

    local s rep
    for s in "${STEPS[@]}"; do
        for (( rep = 1; rep <= REPS; rep++ )); do
            run_one "$s" "$rep" ranread
            run_one "$s" "$rep" fio-io_uring
            run_one "$s" "$rep" fio-libaio
        done
    done
    if (( PSYNC_JOBS > 0 )); then
        for (( rep = 1; rep <= REPS; rep++ )); do
            run_one "$PSYNC_JOBS:1" "$rep" fio-psync
        done
    fi
    echo

    python3 - "$results" "$IOPS_TARGET" "$ONE_WORKER_TARGET" "$REPS" <<'EOF'
import statistics, sys
from collections import defaultdict
path, iops_target, one_target, reps = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
runs = defaultdict(list)
order = []
for line in open(path):
    step, rep, tool, iops, mean, p50, p99, cj, cp, reads, busy, devrs = line.rstrip("\n").split("\t")
    if (step, tool) not in runs and tool != "fio-psync" and step not in order:
        order.append(step)
    runs[(step, tool)].append(dict(iops=float(iops), mean=float(mean), p50=float(p50), p99=float(p99),
                                   cj=float(cj), cp=float(cp), devrs=float(devrs)))
med = lambda rs, k: statistics.median(r[k] for r in rs)
print(f"== medians over {reps} repetitions; ratio = ranread / fio io_uring; ms, us per read; N:Q = processes:reads in flight each")
print(f"{'N:Q':>5} | {'IOPS ranread':>12} {'io_uring':>8} {'libaio':>8} {'ratio':>6} |"
      f" {'mean':>7} {'ratio':>6} | {'p50':>7} {'ratio':>6} | {'p99':>7} {'ratio':>6} |"
      f" {'CPU us/read ranread':>19} {'io_uring':>8} {'libaio':>8} | {'device r/s (ranread)':>20} |"
      f" {'in flight ranread':>17} {'io_uring':>8} | {'IOPS spread ranread':>19} {'io_uring':>8}")
def spread(rs, k):
    v = [r[k] for r in rs]
    m = statistics.median(v)
    return (max(v) - min(v)) / m if len(v) > 1 and m else 0.0
in_flight = lambda rs: med(rs, "iops") * med(rs, "mean") / 1000
fails = defaultdict(list)
for s in order:
    a, b, c = runs[(s, "ranread")], runs[(s, "fio-io_uring")], runs[(s, "fio-libaio")]
    ratio = {k: med(a, k) / med(b, k) for k in ("iops", "mean", "p50", "p99", "cp")}
    print(f"{s:>5} | {med(a, 'iops'):>12.0f} {med(b, 'iops'):>8.0f} {med(c, 'iops'):>8.0f} {ratio['iops']:>6.3f} |"
          f" {med(a, 'mean'):>7.4f} {ratio['mean']:>6.3f} | {med(a, 'p50'):>7.4f} {ratio['p50']:>6.3f} |"
          f" {med(a, 'p99'):>7.4f} {ratio['p99']:>6.3f} |"
          f" {med(a, 'cp'):>19.2f} {med(b, 'cp'):>8.2f} {med(c, 'cp'):>8.2f} | {med(a, 'devrs'):>20.0f} |"
          f" {in_flight(a):>17.1f} {in_flight(b):>8.1f} | {spread(a, 'iops'):>19.1%} {spread(b, 'iops'):>8.1%}")
    if ratio["iops"] < iops_target:
        fails["iops"].append(f"{s}: {ratio['iops']:.4f}")
    if ratio["cp"] > 1:
        fails["cpu"].append(f"{s}: {med(a, 'cp'):.2f} vs {med(b, 'cp'):.2f}")
for (s, tool), rs in runs.items():
    if tool == "fio-psync":
        print(f"fio psync, {s.split(':')[0]} jobs: {med(rs, 'iops'):.0f} IOPS, mean {med(rs, 'mean'):.4f} ms,"
              f" p99 {med(rs, 'p99'):.4f} ms, CPU {med(rs, 'cp'):.2f} us/read")
best_fio = max(((med(rs, "iops"), s, tool) for (s, tool), rs in runs.items() if tool.startswith("fio")), default=None)
best_one = max(((med(rs, "iops"), s) for (s, tool), rs in runs.items() if tool == "ranread" and s.startswith("1:")), default=None)
print()
print(f"== verdict (targets: IOPS ratio >= {iops_target:.2f} and CPU/read <= fio io_uring's at every step;"
      f" one worker >= {one_target:.0%} of the best fio)")
for k, label in (("iops", f"IOPS ratio >= {iops_target:.2f}"), ("cpu", "CPU per read <= fio io_uring (whole process)")):
    print(("MISSED  " + label + ": " + "; ".join(fails[k])) if fails[k] else "MET     " + label)
if best_fio and best_one:
    share = best_one[0] / best_fio[0]
    n, q = best_fio[1].split(":")
    print(f"{'MET   ' if share >= one_target else 'MISSED'}  one worker: {best_one[0]:.0f} IOPS at iodepth {best_one[1].split(':')[1]}"
          f" = {share:.1%} of the best fio configuration here, {best_fio[2]} with {n} job(s)"
          f"{'' if best_fio[2] == 'fio-psync' else ' at iodepth ' + q} ({best_fio[0]:.0f} IOPS)")
EOF
    echo
    echo "total time: $(( SECONDS - t_start )) s"
}

# shared with the other benchmarks: checks, the target, the device

if [[ -n ${URING_VS_FIO_INNER:-} ]]; then
    inner
    exit 0
fi

# ---------------------------------------------------------------------------
# Outer part: check what we need, then re-run ourselves in a cluster.
# ---------------------------------------------------------------------------
check_benchmark_prerequisites
command -v lsblk >/dev/null && command -v findmnt >/dev/null ||
    die "lsblk/findmnt not found: apt-get install util-linux"

export URING_VS_FIO_INNER=1
URING_VS_FIO_CMD=$0
[[ ${#ARGS[@]} -eq 0 ]] || URING_VS_FIO_CMD+=$(printf ' %q' "${ARGS[@]}")
export URING_VS_FIO_CMD
# autovacuum off: an autovacuum worker exiting during a run would add its CPU
# to the postmaster's cutime, which is how ranread's CPU per read is measured.
exec pg_virtualenv -t -v "$pg_major" -o max_worker_processes=$MAX_WORKERS -o autovacuum=off \
    "$SELF" "${ARGS[@]}"
