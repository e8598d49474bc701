#!/usr/bin/env bash
#
# bench/floor_profile.sh: where, by function and the kernel included, does
# ranread's direct path spend CPU per read that the floor, fio's
# t/io_uring -t 1, does not?  The device and target of
# bench/fast_device.sh --floor (a RAM-backed device, ext4, a 1GB target in a
# tablespace on it; t/io_uring built from Debian's fio source by common.sh,
# its buffers and file registered, reading the target's file): at each
# depth, one ranread worker (mode direct, started from psql) and
# t/io_uring -d D -t 1 each run --repeat times in ABBA order, and each run is
# sampled by perf record -e cpu-clock (software: hardware counters are not
# needed), attached to the reading process alone (the background worker,
# found in pg_stat_activity; t/io_uring's process and its thread) for a
# fixed window once it reads.  perf's workload reads, at the window's start
# and end, the device's read count (/proc/diskstats) and the process's
# on-CPU time by the scheduler (its threads' schedstat): each function's
# share of the samples times that time, over those reads, is its ns per
# read, each run's, and the means' difference is printed; the top --top
# functions by difference, those t/io_uring spends more in, and the totals
# by where the code lives (kernel, PostgreSQL's binary, user space: ranread.so,
# t/io_uring, libc, liburing, the vDSO), the kernel's split into functions
# both sides ran and those one side alone ran (pread()'s road against
# io_uring's).  Symbols are folded at function level (.isra/.constprop/
# .part/.cold suffixes merged).  Beside each run: its reads/s and on-CPU
# share in the window, perf's sampled time over the scheduler's, and the
# whole run's CPU per read as bench/fast_device.sh measures it (the
# postmaster's reaped children over the batch's reads; t/io_uring's
# getrusage over the device's reads).
#
# cpu-clock samples only on-CPU time, so the figures per read hold on a
# loaded machine too; what load changes (cache misses, migrations) shows as
# the spread between a side's runs.  The sample fires from a timer
# interrupt, so kernel time spent with interrupts off is charged where they
# are turned back on (finish_task_switch, _raw_spin_unlock_irqrestore ...).
#
# Usage:
#   make install PG_CONFIG=...                    # ranread installed for that server
#   PG_CONFIG=... bench/floor_profile.sh          # depth 1 and 32, 2 runs of 8 s a side
#   PG_CONFIG=... bench/floor_profile.sh --depths 1 --repeat 4 --port 5481 --dir /tmp/prof
#
# Options:
#   --depths "D ..."     iodepths to profile (default "1 32")
#   --repeat N           runs of each side per depth, ABBA order (default 2)
#   --window SECONDS     perf's window in each run (default 8)
#   --top N              functions listed by difference (default 15)
#   --port N             the throwaway cluster's port (default: common.sh's)
#   --dir DIR            the cluster's directory, also its socket directory;
#                        made here (must not exist) and removed at the end
#                        (default: a new one under /tmp)
#
# Needs: root (zram or a loop device, mount, perf on another user's
# process), perf, PostgreSQL of PG_CONFIG with ranread installed, python3,
# mkfs.ext4, losetup if no zram, 4 GB of free memory; apt-get, gcc and make
# the first time (t/io_uring).
# Runtime: depths x repeat x (2 x window + about 16 s), plus some 30 s of
# setup: about 2.5 minutes with the defaults.

set -euo pipefail

SELF=$(readlink -f "$0")
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
export PATH="$($PG_CONFIG --bindir):$PATH"

die() { echo "floor_profile: $*" >&2; exit 1; }

# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

DEPTHS="1 32"
REPEAT=2
WINDOW=8
TOP=15
PORT=
DIR=
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --depths) DEPTHS=${2:?}; shift 2 ;;
        --repeat) REPEAT=${2:?}; shift 2 ;;
        --window) WINDOW=${2:?}; shift 2 ;;
        --top) TOP=${2:?}; shift 2 ;;
        --port) PORT=${2:?}; shift 2 ;;
        --dir) DIR=${2:?}; shift 2 ;;
        *) echo "floor_profile: unknown argument $1" >&2; bench_usage 1 ;;
    esac
done
for d in $DEPTHS; do [[ $d =~ ^[1-9][0-9]*$ ]] || die "--depths must list positive integers"; done
[[ $REPEAT =~ ^[1-9][0-9]*$ && $WINDOW =~ ^[1-9][0-9]*$ && $TOP =~ ^[1-9][0-9]*$ ]] ||
    die "--repeat, --window and --top must be positive integers"
[[ -z $PORT || $PORT =~ ^[1-9][0-9]*$ ]] || die "--port must be a port number"
[[ -z $DIR || ! -e $DIR ]] || die "--dir $DIR exists: give a new path"
[[ $(id -u) -eq 0 ]] || die "needs root, to make a RAM-backed block device and to attach perf to the server's worker"
for cmd in perf python3 mkfs.ext4 psql; do
    command -v "$cmd" >/dev/null || die "$cmd not found: apt-get install ${cmd/mkfs.ext4/e2fsprogs}"
done
[[ -f "$($PG_CONFIG --pkglibdir)/ranread.so" ]] ||
    die "ranread is not installed for $PG_CONFIG: make install PG_CONFIG=$PG_CONFIG"
tio_uring_build

# --- the RAM-backed device and a throwaway cluster of PG_CONFIG's server ----
if [[ -n $DIR ]]; then mkdir -p "$DIR"; cluster=$(readlink -f "$DIR"); else cluster=$(mktemp -d /tmp/ranread_profpg.XXXXXX); fi
work=$(mktemp -d /tmp/ranread_prof.XXXXXX)
bg_pid=
cleanup() {
    [[ -z $bg_pid ]] || kill "$bg_pid" 2>/dev/null || true
    cluster_stop "$cluster"
    ram_device_remove
    rm -rf "$cluster" "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
make_ram_device 3G
cluster_init "$cluster"
[[ -z $PORT ]] || sed -i "s/^port = .*/port = $PORT/" "$cluster/data/postgresql.conf"
cluster_start "$cluster"

PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
mkdir -p "$ram_mount/tablespace"
chown postgres "$ram_mount/tablespace"
"${PSQL[@]}" -c "CREATE TABLESPACE fast LOCATION '$ram_mount/tablespace'"
TABLESPACE=fast SIZE=1GB setup_target_for_fio
devname=${ram_device#/dev/}

echo "server:   $("${PSQL[@]}" -c 'SELECT version()')"
echo "ranread:  $so_id"
echo "source:   $(src_id)"
echo "floor:    $tio_uring -d D -s D -c D -b 8192 -p 0 -t 1 -n 1 -O 1 -B 1 -F 1"
echo "device:   $ram_device ($ram_kind), ext4; target $setup_out"
echo "kernel:   $(uname -r); cpus $(nproc); perf $(perf --version | awk '{print $3}'), -e cpu-clock"
echo "runs:     depths $DEPTHS; $REPEAT runs a side, ABBA; a window of $WINDOW s each"
echo "load:     $(uptime | sed 's/^ *//') (start)"

# record PID OUT: perf on PID for WINDOW seconds, with the device's
# statistics read by perf's workload just inside the window
record() {
    # shellcheck disable=SC2016 # expanded by the inner shell
    perf record -q -e cpu-clock -p "$1" -o "$2.data" --no-buildid --no-buildid-cache -- \
        bash -c 'cat /proc/diskstats "/proc/$4"/task/*/schedstat >"$1"; sleep "$3"
                 cat /proc/diskstats "/proc/$4"/task/*/schedstat >"$2"' _ \
        "$2.ds0" "$2.ds1" "$WINDOW" "$1" >"$2.perf.log" 2>&1 ||
        { cat "$2.perf.log" >&2; die "perf record -p $1 failed"; }
    perf script -i "$2.data" -F period,ip,sym,dso >"$2.script" 2>"$2.script.log" ||
        { cat "$2.script.log" >&2; die "perf script failed on $2.data"; }
}
# wait_reading: until the device counts reads, then a second more
wait_reading() {
    local r0 r1 i
    r0=$(device_reads "$ram_device")
    for i in $(seq 100); do
        sleep 0.2
        r1=$(device_reads "$ram_device")
        (( r1 - r0 < 1000 )) || { sleep 1; return 0; }
        r0=$r1
    done
    die "no reads on $ram_device within 20 s"
}
# side_ranread DEPTH OUT: one ranread worker, mode direct
side_ranread() {
    local d=$1 out=$2 pid='' i batch t0 t1
    t0=$(child_ticks)
    "${PSQL[@]}" -c "SELECT batch FROM ranread_run(1, NULL, duration => '$(( WINDOW + 8 )) s', allow_rereads => true, mode => 'direct', iodepth => $d)" \
        >"$out.batch" 2>"$out.err" &
    bg_pid=$!
    for i in $(seq 150); do
        pid=$("${PSQL[@]}" -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker'")
        [[ -z $pid ]] || break
        kill -0 "$bg_pid" 2>/dev/null || { cat "$out.err" >&2; die "ranread_run ended before its worker appeared"; }
        sleep 0.1
    done
    [[ $pid =~ ^[0-9]+$ ]] || die "not one ranread worker in pg_stat_activity: '$pid'"
    wait_reading
    record "$pid" "$out"
    [[ -n $("${PSQL[@]}" -c "SELECT 1 FROM pg_stat_activity WHERE pid = $pid") ]] ||
        die "the worker ended inside perf's window: the run was too short"
    wait "$bg_pid" || { cat "$out.err" >&2; die "ranread_run failed"; }
    bg_pid=
    t1=$(child_ticks)
    batch=$(<"$out.batch")
    "${PSQL[@]}" -F ' ' -c "SELECT round(iops), reads, $(( t1 - t0 )) * 1e6 / $clk_tck / reads FROM ranread_batches WHERE batch = $batch" >"$out.row"
}
# side_tio DEPTH OUT: t/io_uring, buffers and file registered
# (under python3, which writes its pid and, at the end, its getrusage)
side_tio() {
    local d=$1 out=$2 pid='' i r0 r1
    r0=$(device_reads "$ram_device")
    python3 -c 'import resource, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdout=sys.stdout, stderr=subprocess.STDOUT)
open(sys.argv[1], "w").write("%d\n" % p.pid)
p.wait()
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("cpu %f" % (u.ru_utime + u.ru_stime))
sys.exit(p.returncode)' "$out.pid" "$tio_uring" -d "$d" -s "$d" -c "$d" -b 8192 -p 0 -t 1 -n 1 -O 1 -B 1 -F 1 \
        -r $(( WINDOW + 6 )) "${segs[0]}" >"$out.tio" 2>&1 &
    bg_pid=$!
    for i in $(seq 100); do [[ -s $out.pid ]] && break; sleep 0.1; done
    pid=$(<"$out.pid")
    wait_reading
    kill -0 "$pid" 2>/dev/null || { cat "$out.tio" >&2; die "t/io_uring ended early"; }
    record "$pid" "$out"
    kill -0 "$pid" 2>/dev/null || { cat "$out.tio" >&2; die "t/io_uring ended inside perf's window"; }
    wait "$bg_pid" || { cat "$out.tio" >&2; die "t/io_uring failed"; }
    bg_pid=
    r1=$(device_reads "$ram_device")
    echo "reads $(( r1 - r0 ))" >>"$out.tio"
}

for d in $DEPTHS; do
    for (( r = 1; r <= REPEAT; r++ )); do
        if (( r % 2 )); then order="ranread tio"; else order="tio ranread"; fi
        for side in $order; do "side_$side" "$d" "$work/d$d.$side.$r"; done
    done
done
echo "load:     $(uptime | sed 's/^ *//') (end)"

# shellcheck disable=SC2086 # one argument a depth
python3 - "$work" "$devname" "$WINDOW" "$REPEAT" "$TOP" $DEPTHS <<'EOF'
import collections, os, re, statistics, sys
work, dev, window, repeat, top = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
depths = sys.argv[6:]
SUFFIX = re.compile(r"(\.(isra|constprop|part|cold|llvm)\.?\d*)+$")

def where(dso):
    if dso.startswith("[kernel") or (dso.startswith("[") and dso not in ("[vdso]", "[unknown]")):
        return "kernel"
    base = os.path.basename(dso)
    if base == "postgres":
        return "postgres"
    if base == "[vdso]":
        return "vdso"
    if base.startswith("libc.so") or base.startswith("libc-"):
        return "libc"
    if base.startswith("liburing"):
        return "liburing"
    if base == "io_uring":
        return "t/io_uring"
    return base.split(".so")[0]

GROUP = {"kernel": "kernel", "postgres": "PostgreSQL"}

def reads(path):
    for line in open(path):
        f = line.split()
        if len(f) > 3 and f[2] == dev:
            return int(f[3])
    sys.exit(f"{dev} not in {path}")

def oncpu(path):
    """the process's on-CPU ns so far, by the scheduler (its threads' schedstat)"""
    return sum(int(f[0]) for f in (l.split() for l in open(path)) if len(f) == 3)

def run(prefix):
    ns = collections.Counter()
    for line in open(prefix + ".script"):
        m = re.match(r"\s*(\d+)\s+[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$", line)
        if not m:
            continue
        w = where(m.group(3))
        sym = SUFFIX.sub("", m.group(2).strip()) or "[unknown]"
        if sym == "[unknown]":
            sym = f"[unknown in {os.path.basename(m.group(3))}]"
        ns[(sym, w)] += int(m.group(1))
    n = reads(prefix + ".ds1") - reads(prefix + ".ds0")
    if n <= 0:
        sys.exit(f"no reads counted in {prefix}")
    # perf's shares, scaled to the scheduler's on-CPU time between the two
    # reads of the counts (perf's events open a little before and close a
    # little after its workload)
    sched, sampled = oncpu(prefix + ".ds1") - oncpu(prefix + ".ds0"), sum(ns.values())
    if sched <= 0 or sampled <= 0:
        sys.exit(f"no on-CPU time or no samples in {prefix}")
    return {k: v * sched / sampled / n for k, v in ns.items()}, n, sampled, sched

for d in depths:
    sides = {}
    for side in ("ranread", "tio"):
        sides[side] = [run(f"{work}/d{d}.{side}.{r}") for r in range(1, repeat + 1)]
    R, T = sides["ranread"], sides["tio"]
    keys = set()
    for per, *_ in R + T:
        keys |= set(per)
    mean = lambda runs, k: statistics.mean(p.get(k, 0.0) for p, *_ in runs)
    diff = {k: mean(R, k) - mean(T, k) for k in keys}
    width = 9 * repeat
    print()
    print(f"iodepth {d}: on-CPU ns per read, each run (ABBA), and ranread's mean minus t/io_uring's")
    # the whole run's CPU per read, as bench/fast_device.sh measures it
    whole = {"ranread": [float(open(f"{work}/d{d}.ranread.{r}.row").read().split()[2])
                         for r in range(1, repeat + 1)], "t/io_uring": []}
    for r in range(1, repeat + 1):
        text = open(f"{work}/d{d}.tio.{r}.tio").read()
        cpu = float(re.search(r"^cpu (\S+)$", text, re.M).group(1))
        whole["t/io_uring"].append(1e6 * cpu / int(re.search(r"^reads (\d+)$", text, re.M).group(1)))
    for name, runs in (("ranread", R), ("t/io_uring", T)):
        for (_, n, s, c), w in zip(runs, whole[name]):
            print(f"  {name:<11}{n / window:>8,.0f} reads/s, {100 * c / (window * 1e9):3.0f} % on CPU,"
                  f" perf/scheduler {s / c:.2f}; whole run {w:.2f} us CPU/read")
    head = f"{'function':<34}{'where':<11}{'ranread':>{width}} {'t/io_uring':>{width - 1}}{'diff':>7}"
    row = lambda label, w, k: (f"{label[:33]:<34}{w:<11}"
                               + "".join(f"{p.get(k, 0.0):>9.0f}" for p, *_ in R)
                               + "".join(f"{p.get(k, 0.0):>9.0f}" for p, *_ in T)
                               + f"{diff[k] if k in diff else 0:>+7.0f}")
    print(head)
    ranked = sorted(keys, key=lambda k: -diff[k])
    for k in ranked[:top]:
        print(row(k[0], k[1], k))
    print("t/io_uring spends more in:")
    for k in sorted(keys, key=lambda k: diff[k])[:5]:
        if diff[k] < 0:
            print(row(k[0], k[1], k))
    print("by where the code lives:")
    groups = collections.defaultdict(set)
    for k in keys:
        groups[GROUP.get(k[1], "user space")].add(k)
    # the kernel split by whether the other side's runs ran a function at all
    kern = groups.get("kernel", set())
    groups["  kernel, both"] = {k for k in kern if mean(R, k) > 0 and mean(T, k) > 0}
    groups["  kernel, ranread's alone"] = {k for k in kern if mean(T, k) == 0}
    groups["  kernel, t/io_uring's alone"] = {k for k in kern if mean(R, k) == 0}
    for g in ("user space", "PostgreSQL", "kernel", "  kernel, both", "  kernel, ranread's alone",
              "  kernel, t/io_uring's alone"):
        ks = groups.get(g, set())
        tot = lambda p: sum(p.get(k, 0.0) for k in ks)
        line = (f"{g:<45}" + "".join(f"{tot(p):>9.0f}" for p, *_ in R)
                + "".join(f"{tot(p):>9.0f}" for p, *_ in T)
                + f"{sum(diff[k] for k in ks):>+7.0f}")
        print(line)
    print(f"{'total on CPU':<45}" + "".join(f"{sum(p.values()):>9.0f}" for p, *_ in R)
          + "".join(f"{sum(p.values()):>9.0f}" for p, *_ in T)
          + f"{sum(diff.values()):>+7.0f}")
EOF
