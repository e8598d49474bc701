#!/usr/bin/env bash
#
# bench/fast_device.sh: what does ranread itself cost per read?  On a
# RAM-backed block device the device is not the limit, so each read path's
# IOPS and CPU per read show the tool's own cost against its fio twin:
#
#   direct, iodepth 1    fio --ioengine=psync --direct=1
#   direct, iodepth 32   fio --ioengine=io_uring --direct=1 --iodepth=32
#   smgr                 fio --ioengine=psync (buffered) --fadvise_hint=random
#                        with its random map (no repeats) and the page cache
#                        invalidated first, as ranread evicts; both 100,000
#                        reads of the 131,072 units, so none is read twice
#   stream, iodepth 32   fio --ioengine=io_uring (buffered) --iodepth=32
#                        --fadvise_hint=random, the same 100,000 cold reads
#                        (PostgreSQL 18 only)
#
# One worker or job, 8 kB reads, on one 1GB target in a tablespace on the
# device.  Each pair runs --pairs times in ABBA order (A B, then B A, ...),
# and the medians and the spread (max - min over median) of the ratio
# ranread / fio are printed per pair, for IOPS and for CPU us per read
# (ranread: the postmaster's reaped children plus the I/O workers over the
# run; fio: getrusage of the fio command, bench/fio_run.py).
#
# With --floor it compares direct with fio's minimal engine instead,
# t/io_uring timing every read (-t 1, built from Debian's fio source by
# common.sh), at iodepth 1, 8 and 32 (default 8 pairs), twice: as fio
# builds it by default, with its buffers and file registered (-B 1 -F 1:
# the floor), and without either (-B 0 -F 0: the floor without
# registration, which shows what registering buys).  The three runs of a
# depth alternate ABC, CBA, ...; each twin's ratio is printed against the
# same ranread runs.
#
# The device: a zram device not in use (sized here, ext4), else a loop
# device over a file in /dev/shm, else it says it cannot (common.sh).  The
# server: a throwaway cluster of PG_CONFIG's binaries.
# Run it alone: it measures CPU.  Target: every path >= 0.95 x
# its twin in the median.
#
# Usage:
#   make install PG_CONFIG=...            # ranread installed for that server
#   bench/fast_device.sh                  # 6 pairs of 4 s each
#   bench/fast_device.sh --pairs 10 --duration 5
#   bench/fast_device.sh --floor          # direct against t/io_uring
#
# Options:
#   --floor              direct against t/io_uring -t 1 at depth 1, 8, 32,
#                        with and without registration (-B 1 -F 1, -B 0 -F 0)
#   --depths "D ..."     with --floor, the iodepths (default "1 8 32")
#   --pairs N            alternated pairs per comparison (default 6, 8 with --floor)
#   --duration SECONDS   each run (default 4)
#
# Needs: root (zram or a loop device, mount), PostgreSQL of PG_CONFIG, fio, python3,
# mkfs.ext4, losetup if no zram, 4 GB of free memory.
# Runtime: comparisons x pairs x 2 x (D + 1 s), plus setup: about 4 minutes
# (--floor: 3 depths x pairs x 3 x (D + 2 s), about 10 minutes).

set -euo pipefail

SELF=$(readlink -f "$0")
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
export PATH="$($PG_CONFIG --bindir):$PATH"

die() { echo "fast_device: $*" >&2; exit 1; }

# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

ARGS=("$@")
PAIRS=
DURATION=4
FLOOR=${FLOOR:-0}
FLOOR_DEPTHS="1 8 32"
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --floor) FLOOR=1; shift ;;
        --depths) FLOOR_DEPTHS=${2:?}; shift 2 ;;
        --pairs) PAIRS=${2:?}; shift 2 ;;
        --duration) DURATION=${2:?}; shift 2 ;;
        *) echo "fast_device: unknown argument $1" >&2; bench_usage 1 ;;
    esac
done
[[ -n $PAIRS ]] || PAIRS=$(( FLOOR ? 8 : 6 ))
[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || die "--pairs must be a positive integer"
[[ $DURATION =~ ^[1-9][0-9]*$ ]] || die "--duration must be whole seconds"
[[ $FLOOR_DEPTHS =~ ^[1-9][0-9]*( [1-9][0-9]*)*$ ]] || die "--depths must be iodepths separated by spaces"

inner() {
    local datadir pm_pid clk_tck size_bytes setup_out segs filenames so so_id i dev devname model
    PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
    work=$(mktemp -d "${TMPDIR:-/tmp}/ranread_fast.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$FAST_MOUNT/tablespace"
    chown postgres "$FAST_MOUNT/tablespace"
    "${PSQL[@]}" -c "CREATE TABLESPACE fast LOCATION '$FAST_MOUNT/tablespace'"
    TABLESPACE=fast SIZE=1GB setup_target_for_fio
    describe_data_device
    local major results=$work/results.tsv COLD_READS=100000
    major=$("${PSQL[@]}" -c "SELECT current_setting('server_version_num')::int / 10000")
    : >"$results"
    echo "server:   $("${PSQL[@]}" -c 'SELECT version()')"
    echo "ranread:  $so_id"
    echo "source:   $(src_id)"
    echo "target:   $setup_out"
    echo "device:   $FAST_DEVICE ($FAST_KIND), ext4 at $FAST_MOUNT"
    echo "cpus:     $(nproc); runs: 1 worker, $DURATION s each, $PAIRS pairs ABBA"
    echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"

    # ranread MODE DEPTH [READS] -> "iops cpu_us_per_read": for DURATION, or
    # READS reads, each of a unit not read before in the run (cold)
    ranread() {
        local t0 w0 t1 w1 batch line length="NULL, duration => '$DURATION s', allow_rereads => true"
        [[ -z ${3:-} ]] || length="$3"
        t0=$(child_ticks); w0=$(io_worker_ticks)
        batch=$("${PSQL[@]}" -c "SELECT batch FROM ranread_run(1, $length, mode => '$1', iodepth => $2)" \
                2>"$work/run.err") || { cat "$work/run.err" >&2; die "ranread_run(mode => '$1') failed"; }
        t1=$(child_ticks); w1=$(io_worker_ticks)
        line=$("${PSQL[@]}" -F ' ' -c "SELECT iops, reads FROM ranread_batches WHERE batch = $batch")
        python3 -c "import sys; iops, reads = map(float, sys.argv[1].split()); \
print(f'{iops:.0f} {1e6 * ($t1 - $t0 + max(0, $w1 - $w0)) / $clk_tck / reads:.2f}')" "$line"
    }
    # fio_twin ARGS... -> "iops cpu_us_per_read": for DURATION, or with
    # --number_ios=N for N reads
    fio_twin() {
        local length=(--time_based --runtime="$DURATION")
        [[ " $* " != *" --number_ios="* ]] || length=(--runtime=600)
        python3 "$(dirname "$SELF")/fio_run.py" "$work/fio.json" \
            fio --name=twin --rw=randread --bs=8k --numjobs=1 "${length[@]}" \
            --group_reporting --randrepeat=0 --filename="$filenames" --output-format=json "$@" |
            awk -F '\t' '{printf "%.0f %.2f\n", $1, $6}'
    }
    run_pair() {
        local name=$1 a b p
        shift
        for (( p = 1; p <= PAIRS; p++ )); do
            if (( p % 2 )); then
                a=$(eval "$1"); b=$(eval "$2")
            else
                b=$(eval "$2"); a=$(eval "$1")
            fi
            printf '%s\t%s\t%s\n' "$name" "$a" "$b" >>"$results"
        done
    }
    # run_triple NAME_B NAME_C A B C: A against two twins, in ABC then CBA
    # order; recorded as the pairs A/B (NAME_B) and A/C (NAME_C)
    run_triple() {
        local name_b=$1 name_c=$2 a b c p
        shift 2
        for (( p = 1; p <= PAIRS; p++ )); do
            if (( p % 2 )); then
                a=$(eval "$1"); b=$(eval "$2"); c=$(eval "$3")
            else
                c=$(eval "$3"); b=$(eval "$2"); a=$(eval "$1")
            fi
            printf '%s\t%s\t%s\n' "$name_b" "$a" "$b" >>"$results"
            printf '%s\t%s\t%s\n' "$name_c" "$a" "$c" >>"$results"
        done
    }
    # tio_twin DEPTH REGISTERED -> "iops cpu_us_per_read": fio's t/io_uring,
    # timing every read (-t 1), its buffers and file registered (-B and -F
    # REGISTERED: 1 or 0), for DURATION whole seconds; IOPS the mean of the
    # seconds it prints, CPU per read its getrusage over the reads the device
    # counted
    tio_twin() {
        local r0 r1
        r0=$(device_reads "$FAST_DEVICE")
        python3 -c 'import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stdout.write(p.stdout + "cpu %f\n" % (u.ru_utime + u.ru_stime))
sys.exit(p.returncode)' "$tio_uring" -d "$1" -s "$1" -c "$1" -b 8192 -p 0 -t 1 -n 1 -O 1 -B "$2" -F "$2" \
            -r $(( DURATION + 1 )) "${segs[0]}" >"$work/tio.out" 2>&1 ||
            { cat "$work/tio.out" >&2; die "t/io_uring failed"; }
        r1=$(device_reads "$FAST_DEVICE")
        python3 - "$work/tio.out" $(( r1 - r0 )) <<'PY'
import re, statistics, sys
text, reads = open(sys.argv[1]).read(), int(sys.argv[2])
unit = {"": 1, "K": 1e3, "M": 1e6}
iops = [float(v) * unit[u] for v, u in re.findall(r"IOPS=([0-9.]+)([KM]?),", text)]
cpu = float(re.search(r"^cpu (\S+)$", text, re.M).group(1))
if not iops or reads <= 0:
    sys.exit("t/io_uring printed no IOPS line, or the device counted no read")
print(f"{statistics.mean(iops):.0f} {1e6 * cpu / reads:.2f}")
PY
    }
    if (( FLOOR )); then
        local d
        for d in $FLOOR_DEPTHS; do
            run_triple "direct, iodepth $d / t/io_uring -d $d -t 1" \
                "direct, iodepth $d / t/io_uring -d $d -t 1 -B 0 -F 0" \
                "ranread direct $d" "tio_twin $d 1" "tio_twin $d 0"
        done
        print_pairs
        return
    fi
    run_pair "direct, iodepth 1 / fio psync" "ranread direct 1" \
        "fio_twin --ioengine=psync --direct=1 --norandommap"
    run_pair "direct, iodepth 32 / fio io_uring" "ranread direct 32" \
        "fio_twin --ioengine=io_uring --direct=1 --iodepth=32 --norandommap"
    # through the page cache: cold, every read of a unit not read before
    run_pair "smgr / fio psync buffered (cold)" "ranread smgr 1 $COLD_READS" \
        "fio_twin --ioengine=psync --direct=0 --fadvise_hint=random --invalidate=1 --number_ios=$COLD_READS"
    if (( major >= 18 )); then
        run_pair "stream, iodepth 32 / fio io_uring buffered (cold)" "ranread stream 32 $COLD_READS" \
            "fio_twin --ioengine=io_uring --direct=0 --iodepth=32 --fadvise_hint=random --invalidate=1 --number_ios=$COLD_READS"
    fi
    print_pairs
}

# The pairs' medians, ratios and spreads, after the load at the end.
print_pairs() {
    echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at end"
    echo
    python3 - "$results" <<'EOF'
import collections, statistics, sys
pairs = collections.OrderedDict()
for line in open(sys.argv[1]):
    name, a, b = line.rstrip("\n").split("\t")
    a, b = [float(x) for x in a.split()], [float(x) for x in b.split()]
    pairs.setdefault(name, []).append((a, b))
print(f"{'ranread / twin':<52}{'IOPS':>16}{'ratio':>7}{'spread':>8}{'CPU us/read':>16}{'ratio':>7}{'spread':>8}")
for name, runs in pairs.items():
    iops = [a[0] / b[0] for a, b in runs]
    cpu = [a[1] / b[1] for a, b in runs]
    med = lambda k, i: statistics.median(r[k][i] for r in runs)
    mi, mc = statistics.median(iops), statistics.median(cpu)
    print(f"{name:<52}{med(0, 0):>8.0f}/{med(1, 0):<7.0f}{mi:>7.2f}{100 * (max(iops) - min(iops)) / mi:>7.0f}%"
          f"{med(0, 1):>8.1f}/{med(1, 1):<7.1f}{mc:>7.2f}{100 * (max(cpu) - min(cpu)) / mc:>7.0f}%")
EOF
}

if [[ -n ${FAST_DEVICE_INNER:-} ]]; then
    inner
    exit 0
fi
[[ $(id -u) -eq 0 ]] || die "needs root, to make a RAM-backed block device and mount it"
for cmd in fio python3 mkfs.ext4 psql; do
    command -v "$cmd" >/dev/null || die "$cmd not found: apt-get install ${cmd/mkfs.ext4/e2fsprogs}"
done
[[ -f "$($PG_CONFIG --pkglibdir)/ranread.so" ]] ||
    die "ranread is not installed for $PG_CONFIG: make install PG_CONFIG=$PG_CONFIG"
(( ! FLOOR )) || tio_uring_build

# --- the RAM-backed device and a throwaway cluster of PG_CONFIG's server ----
cluster=$(mktemp -d /tmp/ranread_fastpg.XXXXXX)
cleanup() {
    cluster_stop "$cluster"
    ram_device_remove
    rm -rf "$cluster"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
make_ram_device 3G
cluster_init "$cluster"
cluster_start "$cluster"
export FAST_DEVICE=$ram_device FAST_KIND=$ram_kind FAST_MOUNT=$ram_mount tio_uring FLOOR
export PAIRS DURATION PG_CONFIG FAST_DEVICE_INNER=1
"$SELF" "${ARGS[@]}"
