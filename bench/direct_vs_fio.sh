#!/usr/bin/env bash
#
# bench/direct_vs_fio.sh: does ranread's mode 'direct' measure the same
# random-read IOPS, latency and CPU cost as fio doing the same reads?
#
# This is a benchmark, not a test: it measures this machine and prints tables
# and a verdict.  It starts a throwaway cluster (pg_virtualenv -t, under /tmp,
# with max_worker_processes=80), writes ONE target with ranread_setup() and
# then, for 1, 4, 16 and 64 processes, alternates on that same target
# (A B A B ..., --reps repetitions of each, --duration each):
#
#   A  SELECT * FROM ranread_run(N, NULL, mode => 'direct', duration => D)
#        N background workers, each one O_DIRECT pread() of 8 kB at a time at
#        uniformly random aligned offsets of the target's segment files.
#   B  fio --ioengine=psync --direct=1 --rw=randread --bs=8k --numjobs=N
#          --time_based --runtime=D --group_reporting --randrepeat=0
#          --norandommap --filename=<seg0>:<seg1>:... --output-format=json
#        the same reads of the same files (the target's own segment files),
#        one pread() in flight per job, uniform with replacement.
#
# and one extra row: ranread mode 'smgr' (through the OS page cache, evicted
# before the run) against mode 'direct', alternating, at --smgr-processes,
# judged by the physical-read proof: physical_pct >= 99, at most 1.01 device
# reads per read, and IOPS within 10 % of direct's.  With --rate, an
# open-loop row: ranread_run(N, mode => 'direct', rate_iops => R) against
# fio --rate_iops=R/N with N jobs (fio's rate is per job), alternating; both
# sides' service times (issue to completion: ranread's service_* columns,
# fio's clat) are compared, and ranread's response time from each read's due
# time is shown beside them.
#
# Per step it prints the medians over the repetitions of:
#   IOPS           ranread: reads / (release of the barrier -> last read);
#                  fio: read.iops (total_ios / longest job runtime).
#   latency (ms)   mean, p50, p99.  fio: mean of read.lat_ns (submission to
#                  completion) and percentiles "50.000000" / "99.000000" of
#                  read.clat_ns (fio 3.33 reports only clat percentiles by
#                  default; with psync, slat = 0 and lat - clat is fio's
#                  bookkeeping, 63 ns at a 0.3 ms mean: interchangeable).
#                  ranread: its own histogram (bucket midpoints) and mean.
#   CPU us / read  ranread: the workers exit at the end of a run, and the
#                  kernel adds an exited child's CPU time to its parent's
#                  cutime/cstime; so the difference of fields 16+17 of
#                  /proc/<postmaster>/stat (clock ticks, getconf CLK_TCK)
#                  across the run, divided by the reads.  That is the
#                  workers' whole lives (start, connect, read loop, recording
#                  results) plus the leader backend's session.
#                  fio(job): (usr_cpu + sys_cpu)/100 * job_runtime/1000.  With
#                  group_reporting fio sums usr_time, sys_time and
#                  total_run_time over the jobs and prints
#                  usr_cpu = 100 * sum(usr_time) / sum(total_run_time), i.e.
#                  the mean percent of ONE CPU per job; job_runtime is that
#                  summed total_run_time (ms).  So CPU seconds = (usr+sys)/100
#                  * runtime * numjobs, counted by getrusage(RUSAGE_THREAD)
#                  in each job over its I/O phase only.
#                  fio(proc): getrusage(RUSAGE_CHILDREN) around the whole fio
#                  command (all its processes, start-up and exit included),
#                  the like-for-like figure for ranread's; the verdict uses it.
#   spread         (max - min) / median over the repetitions of one tool:
#                  how much fio disagrees with fio, run to run.
#
# Every run also shows what else the machine did meanwhile (busy CPUs, device
# reads per read, MB written) and is marked "other" when someone else used the
# disk; the verdict lists those runs.  The cluster loads a copy of the
# installed ranread.so taken at the start, so a `make install` during the
# benchmark cannot mix builds, and runs with autovacuum off (an exiting
# autovacuum worker would add its CPU to the postmaster's cutime).
#
# Verdict (per target): IOPS ratio ranread/fio >= 0.98 at every step; mean,
# p50 and p99 ratios within 0.95..1.05 at every step; CPU per read no worse
# than fio(proc) at every step.
#
# Usage:
#   make install                       # the extension must be installed
#   bench/direct_vs_fio.sh             # 8GB target, 2 reps, 10 s, 1 4 16 64
#   bench/direct_vs_fio.sh --size 16GB --reps 3 --duration 20
#   bench/direct_vs_fio.sh --processes "1 16" --smgr-processes 4
#
# Options:
#   --size SIZE          target size, pg_size_bytes syntax (default 8GB).  It
#                        must be far larger than what the readers touch (64
#                        processes x duration x IOPS x 8 kB); larger is better
#                        against caches below the OS (hypervisor, array).
#   --reps N             repetitions of each tool per step (default 2)
#   --duration SECONDS   length of every run (default 10)
#   --processes "LIST"   process counts (default "1 4 16 64"; at most 72)
#   --smgr-processes N   processes of the smgr-vs-direct row (default 16,
#                        0 to skip it)
#   --rate R             add an open-loop row: ranread mode 'direct' with
#                        rate_iops => R against fio --rate_iops=R/N per job,
#                        comparing service times (default 0: no such row)
#   --rate-processes N   processes (fio jobs) of the open-loop row (default 4)
#
# Needs: pg_virtualenv (postgresql-common), psql, pg_config, fio, python3,
# lsblk and findmnt (util-linux), ranread installed (make install; not a
# sanitizer build), free space for SIZE under /tmp (TMPDIR),
# and read access to the cluster's files for fio (run as root, or as the user
# that owns the throwaway cluster, which pg_virtualenv does by default).
# Runtime: setup (SIZE / write speed) + 2 * reps * (steps + 1) * duration,
# plus about a second per run: about 4 minutes with the defaults.
# Results and how to read them: docs/benchmarks-archive.md.

set -euo pipefail

SELF=$(readlink -f "$0")
IOPS_TARGET=0.98
LAT_TOLERANCE=0.05

die() { echo "direct_vs_fio: $*" >&2; exit 1; }

# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------
ARGS=("$@")
SIZE=8GB
REPS=2
DURATION=10
PROCESSES="1 4 16 64"
SMGR_PROCESSES=16
RATE=0
RATE_PROCESSES=4
MAX_WORKERS=80
optarg() { [[ $# -ge 2 ]] || die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --size) optarg "$@"; SIZE=$2; shift 2 ;;
        --size=*) SIZE=${1#*=}; shift ;;
        --reps) optarg "$@"; REPS=$2; shift 2 ;;
        --reps=*) REPS=${1#*=}; shift ;;
        --duration) optarg "$@"; DURATION=$2; shift 2 ;;
        --duration=*) DURATION=${1#*=}; shift ;;
        --processes) optarg "$@"; PROCESSES=$2; shift 2 ;;
        --processes=*) PROCESSES=${1#*=}; shift ;;
        --smgr-processes) optarg "$@"; SMGR_PROCESSES=$2; shift 2 ;;
        --smgr-processes=*) SMGR_PROCESSES=${1#*=}; shift ;;
        --rate) optarg "$@"; RATE=$2; shift 2 ;;
        --rate-processes) optarg "$@"; RATE_PROCESSES=$2; shift 2 ;;
        *) echo "direct_vs_fio: unknown argument '$1'" >&2; bench_usage 1 ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps must be a positive integer, not '$REPS'"
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration must be a whole number of seconds, not '$DURATION'"
[[ $SMGR_PROCESSES =~ ^[0-9]+$ ]] || die "--smgr-processes must be a number, not '$SMGR_PROCESSES'"
[[ $RATE =~ ^[0-9]+$ ]] || die "--rate must be a whole number of reads/s, not '$RATE'"
[[ $RATE_PROCESSES =~ ^[1-9][0-9]*$ ]] || die "--rate-processes must be a positive integer, not '$RATE_PROCESSES'"
PROCESSES=${PROCESSES//,/ }
read -r -a STEPS <<<"$PROCESSES"
[[ ${#STEPS[@]} -gt 0 ]] || die "--processes needs at least one number"
for p in "${STEPS[@]}" "$SMGR_PROCESSES"; do
    [[ $p =~ ^[0-9]+$ ]] || die "process counts must be numbers, not '$p'"
    (( p <= MAX_WORKERS - 8 )) ||
        die "at most $(( MAX_WORKERS - 8 )) processes (max_worker_processes=$MAX_WORKERS), not $p"
done
for p in "${STEPS[@]}"; do (( p >= 1 )) || die "process counts must be at least 1"; done
[[ $SIZE =~ ^[0-9]+(\.[0-9]+)?\ *([kKmMgGtTpP][bB]|[bB]ytes)?$ ]] ||
    die "size '$SIZE' is not a size like 8GB, 16GB or 1TB"

# ---------------------------------------------------------------------------
# Inner part: runs inside pg_virtualenv, with PGHOST/PGPORT/... exported.
# ---------------------------------------------------------------------------
inner() {
    local PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At -F $'\t')
    export PGOPTIONS='-c client_min_messages=warning'
    work=$(mktemp -d -t direct_vs_fio.XXXXXX)     # global, for the EXIT trap
    trap 'rm -rf "$work"' EXIT
    local t_start=$SECONDS

    local datadir size_bytes pm_pid clk_tck setup_out segs filenames so so_id
    setup_target_for_fio

    # --- what we run ---------------------------------------------------------
    local dev devname model
    describe_data_device

    echo "== ranread mode 'direct' vs fio, random 8 kB O_DIRECT reads"
    echo "command:  ${DIRECT_VS_FIO_CMD}"
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
    echo "A:        SELECT * FROM ranread_run(N, NULL, mode => 'direct', duration => '$DURATION s')"
    echo "B:        fio --name=randread --ioengine=psync --direct=1 --rw=randread --bs=8k --numjobs=N --time_based --runtime=$DURATION --group_reporting --randrepeat=0 --norandommap --filename=${segs[0]}:... (${#segs[@]} files) --output-format=json"
    echo "order:    per step: A B A B ... ($REPS of each), steps: ${STEPS[*]}; then smgr vs direct at ${SMGR_PROCESSES} processes"
    echo

    # --- helpers -------------------------------------------------------------


    # run_ranread MODE PROCS [RATE] -> TSV line on stdout.  Open loop (RATE):
    # the latency fields are the service times, and the last field is the p99
    # of the response time (from each read's due time); closed loop: "-".
    run_ranread() {
        local mode=$1 n=$2 rate=${3:-0} before after out pid batch iops mean p50 p99 status phys resp reads wall w
        local cols="response_time_ms, p50_ms, p99_ms" extra="" resp_col="'-'"
        if (( rate > 0 )); then
            cols="service_mean_ms, service_p50_ms, service_p99_ms"
            extra=", rate_iops => $rate"
            resp_col="p99_ms"
        fi
        before=$(child_ticks)
        if ! out=$("${PSQL[@]}" \
                -c "CREATE TEMP TABLE r AS
                    SELECT batch FROM ranread_run($n, NULL, mode => '$mode', duration => '$DURATION s'$extra)" \
                -c "SELECT pg_backend_pid(), batch, iops, $cols, status, physical_pct, $resp_col
                    FROM ranread_summary JOIN r USING (batch)" \
                -c "SELECT reads, wall_s FROM ranread_batches WHERE batch = currval('ranread_batch_seq')" \
                2>"$work/run.err"); then
            cat "$work/run.err" >&2
            die "ranread_run($n, mode => '$mode') failed"
        fi
        # warnings (e.g. smgr reads answered by the page cache) go to the log
        sed 's/^/          ranread: /' "$work/run.err" >&2
        { IFS=$'\t' read -r pid batch iops mean p50 p99 status phys resp
          IFS=$'\t' read -r reads wall; } <<<"$out"
        # the leader backend exits once psql has gone; wait until the
        # postmaster has reaped it, so that its CPU is in cutime too
        for (( w = 0; w < 1000; w++ )); do [[ -e /proc/$pid ]] || break; sleep 0.01; done
        [[ ! -e /proc/$pid ]] || die "backend $pid did not exit after its session ended"
        after=$(child_ticks)
        [[ $status == completed ]] || die "ranread batch $batch ended with status $status"
        local cpu
        cpu=$(python3 -c "print(1e6 * ($after - $before) / $clk_tck / $reads)")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
            "$iops" "$mean" "$p50" "$p99" "$cpu" "$cpu" "$reads" "$wall" "$phys" "$batch" "$resp"
    }

    # run_fio PROCS [RATE]: with RATE, each of the PROCS jobs at RATE/PROCS reads/s
    run_fio() {
        local n=$1 rate=${2:-0} limit=()
        (( rate > 0 )) && limit=(--rate_iops=$(( rate / n )))
        python3 "$(dirname "$SELF")/fio_run.py" "$work/fio.json" \
            fio --name=randread --ioengine=psync --direct=1 --rw=randread --bs=8k \
                --numjobs="$n" --time_based --runtime="$DURATION" --group_reporting \
                --randrepeat=0 --norandommap --filename="$filenames" "${limit[@]}" \
                --output-format=json ||
            die "fio with $n jobs failed"
    }

    # --- the runs ------------------------------------------------------------
    # What else the machine did during a run: all CPUs' busy share (user, sys,
    # irq, softirq; /proc/stat) and the device's completed reads and written
    # sectors (/sys/block/DEV/stat).  A run alone on the machine shows
    # dev_r/read = 1.00 (one device read per read; 0 for page cache hits) and
    # nothing written; more means someone else was using the disk too, and
    # the run is marked "other" (more than 16 MB written, or, for reads that
    # must all reach the device, more than 1.02 device reads per read).
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
    echo "   busy% = all CPUs during the run; dev_r/rd = device reads per read; dev_wMB = MB written meanwhile)"
    printf '%-6s %5s %3s %-14s %9s %8s %8s %8s %8s %8s %8s %6s %6s %7s %6s %s\n' \
        step procs rep tool IOPS mean p50 p99 cpu_job cpu_proc reads phys% busy% dev_r/rd dev_wMB other
    run_one() {    # section procs rep tool: run it, print it, record it
        local sec=$1 n=$2 rep=$3 tool=$4 s0 s1 line
        s0=$(sys_snap)
        case $tool in
            fio) line=$(run_fio "$n") ;;
            ranread|ranread-direct) line=$(run_ranread direct "$n") ;;
            ranread-smgr) line=$(run_ranread smgr "$n") ;;
            ranread-open) line=$(run_ranread direct "$n" "$RATE") ;;
            fio-rate) line=$(run_fio "$n" "$RATE") ;;
        esac
        s1=$(sys_snap)
        local iops mean p50 p99 cj cp reads wall phys b0 t0 r0 w0 b1 t1 r1 w1 busy devr devw
        local resp=-
        IFS=$'\t' read -r iops mean p50 p99 cj cp reads wall phys _ resp <<<"$line"
        resp=${resp:--}
        read -r b0 t0 r0 w0 <<<"$s0"
        read -r b1 t1 r1 w1 <<<"$s1"
        [[ $tool == fio* ]] && phys=-
        busy=$(python3 -c "print(f'{100 * ($b1 - $b0) / max($t1 - $t0, 1):.0f}')")
        devr=$(python3 -c "print(f'{($r1 - $r0) / $reads:.2f}')")
        devw=$(python3 -c "print(f'{($w1 - $w0) * 512 / 2**20:.0f}')")
        local other=-
        if (( devw > 16 )) ||
           [[ $tool != ranread-smgr && $(python3 -c "print(int($devr > 1.02))") == 1 ]]; then
            other=yes
        fi
        printf '%-6s %5s %3s %-14s %9.0f %8.4f %8.4f %8.4f %8.2f %8.2f %8s %6s %6s %7s %6s %s\n' \
            "$sec" "$n" "$rep" "$tool" "$iops" "$mean" "$p50" "$p99" "$cj" "$cp" "$reads" \
            "$( [[ $phys == - ]] && echo - || printf '%.1f' "$phys")" "$busy" "$devr" "$devw" "$other"
        printf '%s\t' "$sec" "$n" "$rep" "$tool" "$iops" "$mean" "$p50" "$p99" "$cj" "$cp" "$reads" \
            "$phys" "$busy" "$devr" "$resp" >>"$results"
        printf '%s\n' "$other" >>"$results"
    }

    local n rep
    for n in "${STEPS[@]}"; do
        for (( rep = 1; rep <= REPS; rep++ )); do
            run_one step "$n" "$rep" ranread
            run_one step "$n" "$rep" fio
        done
    done
    if (( SMGR_PROCESSES > 0 )); then
        for (( rep = 1; rep <= REPS; rep++ )); do
            run_one smgr "$SMGR_PROCESSES" "$rep" ranread-smgr
            run_one smgr "$SMGR_PROCESSES" "$rep" ranread-direct
        done
    fi
    if (( RATE > 0 )); then
        for (( rep = 1; rep <= REPS; rep++ )); do
            run_one open "$RATE_PROCESSES" "$rep" ranread-open
            run_one open "$RATE_PROCESSES" "$rep" fio-rate
        done
    fi
    echo

    # --- summary and verdict -------------------------------------------------
    python3 - "$results" "$IOPS_TARGET" "$LAT_TOLERANCE" "$REPS" "$size_bytes" "$RATE" <<'EOF'
import statistics, sys
from collections import defaultdict
path, iops_target, tol, reps, size = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rate = int(sys.argv[6])
runs = defaultdict(list)
order = []
for line in open(path):
    sec, n, rep, tool, iops, mean, p50, p99, cj, cp, reads, phys, busy, devr, resp, other = line.rstrip("\n").split("\t")
    key = (sec, int(n))
    if key not in order:
        order.append(key)
    runs[key + (tool,)].append(dict(iops=float(iops), mean=float(mean), p50=float(p50), p99=float(p99),
                                    cj=float(cj), cp=float(cp), reads=int(reads), rep=int(rep),
                                    other=other == "yes", devr=float(devr),
                                    resp=None if resp == "-" else float(resp),
                                    phys=None if phys == "-" else float(phys)))
med = lambda rs, k: statistics.median(r[k] for r in rs)
def spread(rs, k):
    v = [r[k] for r in rs]
    m = statistics.median(v)
    return (max(v) - min(v)) / m if len(v) > 1 and m else 0.0

steps = [n for sec, n in order if sec == "step"]
print(f"== medians over {reps} repetitions; ratio = ranread/fio; ms and us per read")
print(f"{'procs':>5} | {'IOPS ranread':>12} {'fio':>8} {'ratio':>6} | {'mean ranread':>12} {'fio':>7} {'ratio':>6} |"
      f" {'p50 ranread':>11} {'fio':>7} {'ratio':>6} | {'p99 ranread':>11} {'fio':>7} {'ratio':>6}")
fails = defaultdict(list)
rows = {}
for n in steps:
    a, b = runs[("step", n, "ranread")], runs[("step", n, "fio")]
    r = {k: (med(a, k), med(b, k)) for k in ("iops", "mean", "p50", "p99", "cj", "cp")}
    rows[n] = r
    ratio = {k: v[0] / v[1] for k, v in r.items()}
    print(f"{n:>5} | {r['iops'][0]:>12.0f} {r['iops'][1]:>8.0f} {ratio['iops']:>6.3f} |"
          f" {r['mean'][0]:>12.4f} {r['mean'][1]:>7.4f} {ratio['mean']:>6.3f} |"
          f" {r['p50'][0]:>11.4f} {r['p50'][1]:>7.4f} {ratio['p50']:>6.3f} |"
          f" {r['p99'][0]:>11.4f} {r['p99'][1]:>7.4f} {ratio['p99']:>6.3f}")
    if ratio["iops"] < iops_target:
        fails["iops"].append(f"{n}: {ratio['iops']:.3f}")
    for k in ("mean", "p50", "p99"):
        if abs(ratio[k] - 1) > tol:
            fails["latency"].append(f"{n} {k}: {ratio[k]:.3f}")
    if r["cp"][0] > r["cp"][1]:
        fails["cpu"].append(f"{n}: {r['cp'][0]:.2f} vs {r['cp'][1]:.2f}")
print()
print(f"{'procs':>5} | {'CPU us/read ranread':>19} {'fio(job)':>8} {'fio(proc)':>9} {'ratio':>6} |"
      f" {'fio vs fio spread: IOPS':>23} {'mean':>6} {'p50':>6} {'p99':>6} |"
      f" {'ranread vs ranread: IOPS':>24} {'mean':>6} {'p50':>6} {'p99':>6}")
for n in steps:
    r = rows[n]
    a, b = runs[("step", n, "ranread")], runs[("step", n, "fio")]
    sb = [spread(b, k) for k in ("iops", "mean", "p50", "p99")]
    sa = [spread(a, k) for k in ("iops", "mean", "p50", "p99")]
    print(f"{n:>5} | {r['cp'][0]:>19.2f} {r['cj'][1]:>8.2f} {r['cp'][1]:>9.2f} {r['cp'][0] / r['cp'][1]:>6.3f} |"
          f" {sb[0]:>22.1%} {sb[1]:>6.1%} {sb[2]:>6.1%} {sb[3]:>6.1%} |"
          f" {sa[0]:>23.1%} {sa[1]:>6.1%} {sa[2]:>6.1%} {sa[3]:>6.1%}")
# re-reads: a direct read bypasses the OS page cache, but not a cache below it
most = max((r["reads"] for k, rs in runs.items() for r in rs), default=0)
blocks = size / 8192
print()
# ranread reads every block once before any again (a permutation), so only reads past the
# first pass re-read (fio's random map does the same)
reread = max(0, most - blocks) / most if most else 0
print(f"largest run: {most} reads over {blocks:.0f} blocks; share of re-reads in it {reread:.1%}")
if reread > 0.10:
    print("  (mode 'smgr' can answer re-reads from the page cache, a cache below the OS can answer"
          " any mode's; --size makes the share smaller)")

smgr = [n for sec, n in order if sec == "smgr"]
for n in smgr:
    a, b = runs[("smgr", n, "ranread-smgr")], runs[("smgr", n, "ranread-direct")]
    print()
    print(f"== ranread mode 'smgr' (cold: evict => true) vs mode 'direct' at {n} processes, medians; ratio = smgr/direct")
    print(f"{'':>14} {'IOPS':>8} {'mean':>8} {'p50':>8} {'p99':>8} {'CPU us/read':>11} {'physical%':>9}")
    for name, rs in (("smgr", a), ("direct", b)):
        print(f"{name:>14} {med(rs, 'iops'):>8.0f} {med(rs, 'mean'):>8.4f} {med(rs, 'p50'):>8.4f} {med(rs, 'p99'):>8.4f}"
              f" {med(rs, 'cp'):>11.2f} {med(rs, 'phys'):>9.1f}")
    print(f"{'ratio':>14} {med(a, 'iops') / med(b, 'iops'):>8.3f} {med(a, 'mean') / med(b, 'mean'):>8.3f}"
          f" {med(a, 'p50') / med(b, 'p50'):>8.3f} {med(a, 'p99') / med(b, 'p99'):>8.3f}"
          f" {med(a, 'cp') / med(b, 'cp'):>11.3f}")
    phys, devr, ratio = min(r["phys"] for r in a), max(r["devr"] for r in a), med(a, "iops") / med(b, "iops")
    ok = phys >= 99 and devr <= 1.01 and abs(ratio - 1) <= 0.10
    print(f"smgr cold: lowest physical% {phys:.1f} (target >= 99), most device reads per read {devr:.2f}"
          f" (target <= 1.01), IOPS smgr/direct {ratio:.3f} (target within 10%): {'MET' if ok else 'MISSED'}")

for n in [n for sec, n in order if sec == "open"]:
    a, b = runs[("open", n, "ranread-open")], runs[("open", n, "fio-rate")]
    print()
    print(f"== open loop at {rate} reads/s, {n} processes (fio: {n} jobs at --rate_iops={rate // n}), medians;"
          f" service time = issue to completion; ratio = ranread/fio")
    print(f"{'':>14} {'IOPS':>8} {'svc mean':>8} {'svc p50':>8} {'svc p99':>8} {'CPU us/read':>11} {'resp p99':>8}")
    for name, rs in (("ranread", a), ("fio", b)):
        resp = f"{med(rs, 'resp'):>8.4f}" if rs[0]["resp"] is not None else f"{'-':>8}"
        print(f"{name:>14} {med(rs, 'iops'):>8.0f} {med(rs, 'mean'):>8.4f} {med(rs, 'p50'):>8.4f} {med(rs, 'p99'):>8.4f}"
              f" {med(rs, 'cp'):>11.2f} {resp}")
    print(f"{'ratio':>14} {med(a, 'iops') / med(b, 'iops'):>8.3f} {med(a, 'mean') / med(b, 'mean'):>8.3f}"
          f" {med(a, 'p50') / med(b, 'p50'):>8.3f} {med(a, 'p99') / med(b, 'p99'):>8.3f}"
          f" {med(a, 'cp') / med(b, 'cp'):>11.3f}")

print()
print("== verdict (target: IOPS ratio >= %.2f, latency ratios within +-%.0f%%, CPU/read <= fio(proc), at every step)"
      % (iops_target, tol * 100))
for k, label in (("iops", f"IOPS ratio >= {iops_target:.2f}"),
                 ("latency", f"mean/p50/p99 within +-{tol:.0%}"),
                 ("cpu", "CPU per read <= fio(proc)")):
    if fails[k]:
        print(f"MISSED  {label}: " + "; ".join(fails[k]))
    else:
        print(f"MET     {label}")
noisy = [n for n in steps
         if max(spread(runs[("step", n, "fio")], k) for k in ("iops", "mean", "p50", "p99")) > tol]
if noisy and reps > 1:
    print(f"NOTE    fio disagrees with itself by more than {tol:.0%} between repetitions at "
          f"{', '.join(map(str, noisy))} processes: at those steps a ratio outside the target can be noise")
disturbed = [f"{sec} {n} {tool} rep {r['rep']}" for (sec, n, tool), rs in runs.items() for r in rs if r["other"]]
if disturbed:
    print("NOTE    other I/O on the device during: " + "; ".join(disturbed))
EOF
    echo
    [[ $(so_id_of) == "$so_id" ]] ||
        echo "note: the installed ranread.so changed during the benchmark (now $(so_id_of)); the runs used the copy taken at the start"
    echo "total time: $(( SECONDS - t_start )) s"
}

# shared with the other benchmarks: checks, the target, the device

if [[ -n ${DIRECT_VS_FIO_INNER:-} ]]; then
    inner
    exit 0
fi

# ---------------------------------------------------------------------------
# Outer part: check what we need, then re-run ourselves in a cluster.
# ---------------------------------------------------------------------------
check_benchmark_prerequisites
command -v lsblk >/dev/null && command -v findmnt >/dev/null ||
    die "lsblk/findmnt not found: apt-get install util-linux"

export DIRECT_VS_FIO_INNER=1
DIRECT_VS_FIO_CMD=$0
[[ ${#ARGS[@]} -eq 0 ]] || DIRECT_VS_FIO_CMD+=$(printf ' %q' "${ARGS[@]}")
export DIRECT_VS_FIO_CMD
# autovacuum off: an autovacuum worker exiting during a run would add its CPU
# to the postmaster's cutime, which is how ranread's CPU per read is measured.
exec pg_virtualenv -t -v "$pg_major" -o max_worker_processes=$MAX_WORKERS -o autovacuum=off \
    "$SELF" "${ARGS[@]}"
