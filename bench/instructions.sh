#!/usr/bin/env bash
#
# bench/instructions.sh: user-space instructions per read, for each of
# ranread's read paths and for fio's engines on the same file, counted by
# callgrind.  Unlike IOPS and CPU time, an instruction count does not move
# with the load of a shared VM: this is the tool's own cost to record per
# release, and the figure bench/instructions_guard.sh checks.
#
# The server (PostgreSQL of PG_CONFIG, a throwaway cluster, io_method =
# sync on 18 unless --io-method says otherwise) runs under
# callgrind, which follows the postmaster's children, and counts only under
# the worker's read loop (read_random_units(), --toggle-collect): the
# worker's start and its recording of the results, whose size grows with the
# run's length in seconds (the series), are left out.  Each case runs twice,
# --short and --long reads, one worker each time; the worker's profile of
# the short run is subtracted from the long one's, so what the loop spends
# once (its permutation, residency map) cancels and what is left is the cost
# of the extra reads.
# The server's other processes (the I/O workers of io_method = worker, the
# checkpointer, background writer, WAL writer) count under their main loops;
# the server is started before each run and stopped after it, so that they
# write their profiles (callgrind writes a process's profile at its exit;
# vgdb cannot reach a forked child to dump it earlier), and the same
# short/long difference gives their instructions per read: rows CASE/io (the
# I/O workers) and CASE/other (the rest), and CASE/all, the run's process
# plus these.
# fio (--thread, the whole process: Debian's binary has no symbol for its
# job's loop, so its helper thread's per-second work is in, a little) and
# t/io_uring (counted under submitter_uring_fn()) run under callgrind the
# same way, their reads counted by the device (/proc/diskstats).  Each instruction is counted in
# the function that executes it, grouped by object: ranread.so, postgres,
# libc, liburing, the tool (fio or t/io_uring), other; the groups add up.
#
# Not counted: the kernel (system calls, the device's work).  Valgrind gives
# the program no vDSO, so each clock_gettime() is a system call there: a
# timer read counts its few libc instructions, not its vDSO ones.
#
# Cases: ranread direct iodepth 1 and 32, smgr, buffer, stream (18,
# iodepth 32) on a cold 1 GB target on a RAM-backed device; fio psync and
# io_uring (iodepth 32), O_DIRECT, and t/io_uring -t 1 at depth 1 and 32, on
# the target's file.  stream's twin in PostgreSQL itself (18): stream-seq is
# ranread stream with distribution => 'sequential' (the target's first
# blocks, in order), prewarm is pg_prewarm(target, 'buffer') of the same
# blocks, which reads through a read_stream too, counted under pg_prewarm()
# in its backend, after evicting the target from shared buffers
# (pg_buffercache_evict_relation()) and the page cache, as ranread's run
# does.  On 18 io_combine_limit = 1, so that each I/O is one block.
#
# Usage:
#   make install PG_CONFIG=...
#   PG_CONFIG=... bench/instructions.sh                  # about 10 minutes
#   PG_CONFIG=... bench/instructions.sh --cases "direct1 direct32"
#   PG_CONFIG=... bench/instructions.sh --repeat 5 --cases direct32
#
# Options:
#   --short N   reads in the short run (default 2000)
#   --long N    reads in the long run (default 22000)
#   --cases L   which cases, from: direct1 direct8 direct32 smgr buffer
#               stream stream-seq prewarm fio-psync fio-uring tio1 tio8 tio32
#               (default all)
#   --repeat K  measure each case K times (the spread of the count)
#   --io-method M  io_method of the server on 18: sync (default), worker
#               (io_workers = 3) or io_uring
#   --worker-only  count the ranread worker alone, without the rows of the
#               server's other processes (CASE/io, CASE/other, CASE/all),
#               so that one server under callgrind serves every run rather
#               than one started and stopped around each (the guard's way:
#               a third of the time)
#   --keep DIR  keep the callgrind files in DIR (CASE.K.short, CASE.K.long;
#               the other processes' CASE.K.short.io.N, CASE.K.short.other.N
#               and the same for long), for bench/callgrind_groups.py and
#               callgrind_annotate (--tree=caller: who calls what)
#
# Needs: root (the RAM-backed device, the cluster as postgres), valgrind,
# fio, python3, mkfs.ext4, Debian's fio source (fetched and built once for
# t/io_uring), 3 GB of free memory.

set -euo pipefail

SELF=$(readlink -f "$0")
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config)}
die() { echo "instructions: $*" >&2; exit 1; }
# shellcheck source=bench/common.sh
. "$(dirname "$SELF")/common.sh"

SHORT=2000
LONG=22000
CASES="direct1 direct8 direct32 smgr buffer stream stream-seq prewarm fio-psync fio-uring tio1 tio8 tio32"
REPEAT=1
KEEP=
WORKER_ONLY=0
IO_METHOD=sync
CASES_ALL=$CASES
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) bench_usage 0 ;;
        --short) SHORT=${2:?}; shift 2 ;;
        --long) LONG=${2:?}; shift 2 ;;
        --cases) CASES=${2:?}; shift 2 ;;
        --repeat) REPEAT=${2:?}; shift 2 ;;
        --keep) KEEP=${2:?}; shift 2 ;;
        --worker-only) WORKER_ONLY=1; shift ;;
        --io-method) IO_METHOD=${2:?}; shift 2 ;;
        *) echo "instructions: unknown argument $1" >&2; bench_usage 1 ;;
    esac
done
[[ $SHORT =~ ^[1-9][0-9]*$ && $LONG =~ ^[1-9][0-9]*$ ]] && (( LONG > SHORT )) ||
    die "--short and --long must be positive integers, --long the larger"
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a positive integer"
[[ -z $KEEP || -d $KEEP ]] || die "--keep $KEEP: no such directory"
[[ $IO_METHOD =~ ^(sync|worker|io_uring)$ ]] || die "--io-method must be sync, worker or io_uring"
for c in $CASES; do
    [[ " $CASES_ALL " == *" $c "* ]] ||
        die "unknown case $c"
done
[[ $(id -u) -eq 0 ]] || die "needs root, to make a RAM-backed block device and run the cluster as postgres"
for cmd in valgrind fio python3 mkfs.ext4; do
    command -v "$cmd" >/dev/null || die "$cmd not found: apt-get install ${cmd/mkfs.ext4/e2fsprogs}"
done
[[ -x $PG_CONFIG ]] || die "set PG_CONFIG to the pg_config of the server to measure"
so="$($PG_CONFIG --pkglibdir)/ranread.so"
[[ -f $so ]] || die "ranread is not installed for $PG_CONFIG: make install PG_CONFIG=$PG_CONFIG"
major=$($PG_CONFIG --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
[[ $IO_METHOD == sync || $major -ge 18 ]] || die "--io-method $IO_METHOD needs PostgreSQL 18"
if [[ " $CASES " == *" tio"* ]]; then tio_uring_build; fi

work=$(mktemp -d /tmp/ranread_instr.XXXXXX)
cleanup() {
    cluster_stop "$work"
    ram_device_remove
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

make_ram_device 3G
cluster_init "$work"
{
    echo "shared_buffers = 32MB"          # far smaller than the target: few hits
    echo "max_connections = 10"           # a pin limit above a stream's depth of 32
    echo "max_worker_processes = 8"
    (( major < 18 )) || echo "io_method = $IO_METHOD"
    [[ $IO_METHOD != worker ]] || echo "io_workers = 3"
    (( major < 18 )) || echo "io_combine_limit = 1"  # one block per I/O, for ranread and pg_prewarm alike
} >"$work/settings.conf"
cluster_start "$work"
mkdir "$ram_mount/ts" && chown postgres "$ram_mount/ts"
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -At)
"${PSQL[@]}" -c "CREATE TABLESPACE fast LOCATION '$ram_mount/ts'" -c "CREATE EXTENSION ranread"
(( major < 18 )) || "${PSQL[@]}" -c "CREATE EXTENSION pg_prewarm" -c "CREATE EXTENSION pg_buffercache"
setup_out=$("${PSQL[@]}" -c "SELECT ranread_setup('1GB', tablespace => 'fast', log_level => 0)" 2>"$work/setup.err") ||
    { cat "$work/setup.err" >&2; die "ranread_setup failed"; }
file=$("${PSQL[@]}" -c "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('ranread_target')")
[[ -f $file && $(stat -c %s "$file") == 1073741824 ]] || die "the target's file $file is not the 1 GB set up"
server=$("${PSQL[@]}" -c "SELECT version()")
cluster_stop "$work"
sync

echo "server:   $server"
echo "ranread:  $so md5 $(md5sum "$so" | cut -c1-12), installed $(date -u -r "$so" '+%Y-%m-%d %H:%M:%S UTC')"
echo "source:   $(git -C "$(dirname "$SELF")" log -1 --format='%h' 2>/dev/null || echo '?')"
echo "target:   $setup_out"
(( major < 18 )) || echo "io_method: $IO_METHOD"
echo "device:   $ram_device ($ram_kind), ext4; reads $SHORT and $LONG, difference per read"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"

cg=$work/cg
mkdir "$cg" && chown postgres "$cg"
CALLGRIND=(valgrind --tool=callgrind --dump-instr=no --compress-pos=no)
results=$work/results.tsv
: >"$results"

# The profile of the ranread worker of a run of N reads: its callgrind file
# (written when the worker exits); prints "file reads".
ranread_profile() {
    local n=$1 mode=$2 depth=$3 extra=${4:-} before reads
    before=$(ls "$cg")
    reads=$("${PSQL[@]}" -c "CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(1, $n, mode => '$mode', iodepth => $depth$extra)" \
        -c "SELECT reads FROM ranread_summary JOIN r USING (batch)")
    echo "$(new_profile "$before" read_random_units) $reads"
}

# The callgrind file, not among BEFORE, of the process that ran function
# FN (written when the process exits).
new_profile() {
    local before=$1 fn=$2 f i
    for i in $(seq 300); do
        for f in $(ls "$cg"); do
            [[ $'\n'$before$'\n' == *$'\n'$f$'\n'* ]] && continue
            if grep -q '^totals:' "$cg/$f" && grep -Eq "^c?fn=(\([0-9]+\) )?$fn\$" "$cg/$f"; then
                echo "$cg/$f"
                return 0
            fi
        done
        sleep 1
    done
    die "no callgrind profile of a process that ran $fn() appeared"
}

# aux_begin starts the server under callgrind before a run; aux_end RUN
# (short or long) stops it after the run, which makes its other processes
# write their profiles, and puts those of the I/O workers into auxf[RUN.io],
# the others' into auxf[RUN.other] (comma-separated).
declare -A auxf
aux_begin() {
    # --worker-only: one server for every run, started at the first
    if (( WORKER_ONLY )) && [[ -f $work/data/postmaster.pid ]]; then return 0; fi
    aux_before=$(ls "$cg")
    cluster_start "$work" "${CALLGRIND[@]}" --callgrind-out-file="$cg/%p.out" --toggle-collect=read_random_units \
        --toggle-collect=pg_prewarm --toggle-collect=IoWorkerMain --toggle-collect=CheckpointerMain \
        --toggle-collect=BackgroundWriterMain --toggle-collect=WalWriterMain
}
aux_end() {
    local run=$1 f kind ios=0 others=0
    auxf[$run.io]='' auxf[$run.other]=''
    (( ! WORKER_ONLY )) || return 0
    cluster_stop "$work"
    for f in "$cg"/*; do
        [[ $'\n'$aux_before$'\n' != *$'\n'${f##*/}$'\n'* ]] && grep -q '^totals:' "$f" || continue
        if grep -Eq '^c?fn=(\([0-9]+\) )?IoWorkerMain$' "$f"; then
            kind=io ios=$(( ios + 1 ))
        elif grep -Eq '^c?fn=(\([0-9]+\) )?(CheckpointerMain|BackgroundWriterMain|WalWriterMain)$' "$f"; then
            kind=other others=$(( others + 1 ))
        else
            continue
        fi
        auxf[$run.$kind]+=${auxf[$run.$kind]:+,}$f
    done
    # a process whose profile is missing (killed at the stop) would be lost
    (( others == 3 )) || die "$others profiles of the checkpointer, background writer and WAL writer, not 3"
    [[ $IO_METHOD != worker ]] || (( ios == 3 )) || die "$ios profiles of the 3 I/O workers"
}

# The profile of the backend that ran pg_prewarm(target, 'buffer') of the
# target's first N blocks, cold: evicted from shared buffers and from the
# page cache first; prints "file blocks".
prewarm_profile() {
    local n=$1 before blocks
    "${PSQL[@]}" -c "SELECT pg_buffercache_evict_relation('ranread_target')" >/dev/null
    python3 -c "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$file"
    before=$(ls "$cg")
    blocks=$("${PSQL[@]}" -c "SELECT pg_prewarm('ranread_target', 'buffer', 'main', 0, $(( n - 1 )))")
    echo "$(new_profile "$before" pg_prewarm) $blocks"
}

# The profile of a tool run under callgrind: prints "file reads", the reads
# counted by the device.
tool_profile() {
    local out=$1 r0
    shift
    r0=$(device_reads "$ram_device")
    "${CALLGRIND[@]}" --callgrind-out-file="$out" "$@" >"$out.log" 2>&1 ||
        { tail -n 20 "$out.log" >&2; die "$* failed under callgrind"; }
    echo "$out $(( $(device_reads "$ram_device") - r0 ))"
}

measure() {
    local c=$1 s l
    case $c in
        stream-seq)
            aux_begin; s=$(ranread_profile "$SHORT" stream 32 ", distribution => 'sequential'"); aux_end short
            aux_begin; l=$(ranread_profile "$LONG" stream 32 ", distribution => 'sequential'"); aux_end long
            ;;
        prewarm)
            aux_begin; s=$(prewarm_profile "$SHORT"); aux_end short
            aux_begin; l=$(prewarm_profile "$LONG"); aux_end long
            ;;
        direct1|direct8|direct32|smgr|buffer|stream)
            local mode=${c%%[0-9]*} depth=${c#"${c%%[0-9]*}"}
            [[ -n $depth ]] || depth=1
            [[ $c != stream ]] || depth=32
            aux_begin; s=$(ranread_profile "$SHORT" "$mode" "$depth"); aux_end short
            aux_begin; l=$(ranread_profile "$LONG" "$mode" "$depth"); aux_end long
            ;;
        fio-psync|fio-uring)
            local eng=(--ioengine=psync)
            [[ $c == fio-psync ]] || eng=(--ioengine=io_uring --iodepth=32)
            s=$(tool_profile "$work/fio.s" fio --name=twin --thread --rw=randread --bs=8k --direct=1 \
                --norandommap --randrepeat=0 --filename="$file" --number_ios="$SHORT" "${eng[@]}")
            l=$(tool_profile "$work/fio.l" fio --name=twin --thread --rw=randread --bs=8k --direct=1 \
                --norandommap --randrepeat=0 --filename="$file" --number_ios="$LONG" "${eng[@]}")
            ;;
        tio1|tio8|tio32)
            local d=${c#tio}
            # t/io_uring runs for whole seconds: the device counts its reads
            s=$(tool_profile "$work/tio.s" --toggle-collect=submitter_uring_fn "$tio_uring" -d "$d" -s "$d" -c "$d" -b 8192 -p 0 -t 1 -n 1 -O 1 -r 2 "$file")
            l=$(tool_profile "$work/tio.l" --toggle-collect=submitter_uring_fn "$tio_uring" -d "$d" -s "$d" -c "$d" -b 8192 -p 0 -t 1 -n 1 -O 1 -r 6 "$file")
            ;;
    esac
    # shellcheck disable=SC2086
    set -- $s $l
    [[ -z $KEEP ]] || { cp "$1" "$KEEP/$c.$k.short"; cp "$3" "$KEEP/$c.$k.long"; }
    python3 "$(dirname "$SELF")/callgrind_split.py" "$1" "$3" $(( $4 - $2 )) "$c" >>"$results"
    [[ $c == fio-* || $c == tio* ]] && return 0
    (( ! WORKER_ONLY )) || return 0
    local kind run i f all_s=$1 all_l=$3
    for kind in io other; do
        [[ -n ${auxf[short.$kind]} ]] || continue
        python3 "$(dirname "$SELF")/callgrind_split.py" "${auxf[short.$kind]}" "${auxf[long.$kind]}" \
            $(( $4 - $2 )) "$c/$kind" >>"$results"
        all_s+=,${auxf[short.$kind]} all_l+=,${auxf[long.$kind]}
        for run in short long; do
            i=0
            for f in ${auxf[$run.$kind]//,/ }; do
                i=$(( i + 1 ))
                [[ -z $KEEP ]] || cp "$f" "$KEEP/$c.$k.$run.$kind.$i"
            done
        done
    done
    python3 "$(dirname "$SELF")/callgrind_split.py" "$all_s" "$all_l" $(( $4 - $2 )) "$c/all" >>"$results"
}

ranread_cases=
for c in $CASES; do [[ $c == fio-* || $c == tio* ]] || ranread_cases+=" $c"; done
[[ $major -ge 18 ]] || ranread_cases=$(echo " $ranread_cases " | sed 's/ stream-seq / /; s/ stream / /; s/ prewarm / /')
for (( k = 1; k <= REPEAT; k++ )); do
    for c in $CASES; do
        [[ $c == fio-* || $c == tio* || " $ranread_cases " == *" $c "* ]] || continue
        measure "$c"
        rm -f "$cg"/* "$work"/fio.* "$work"/tio.*
    done
done
cluster_stop "$work"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) at end"
echo
python3 - "$results" <<'EOF'
import sys
print(f"{'case':<17}{'total':>8}{'ranread':>9}{'postgres':>9}{'libc':>7}{'liburing':>9}{'tool':>7}{'other':>7}  top functions of ranread (or the tool), per read")
for line in open(sys.argv[1]):
    c = line.rstrip("\n").split("\t")
    print(f"{c[0]:<17}{c[1]:>8}{c[2]:>9}{c[3]:>9}{c[4]:>7}{c[5]:>9}{c[6]:>7}{c[7]:>7}  {c[8]}")
print("\ncase             top functions of the other objects, per read")
for line in open(sys.argv[1]):
    c = line.rstrip("\n").split("\t")
    print(f"{c[0]:<17}{c[9]}")
EOF
echo "(instructions per read in user space; the kernel's work is not counted)"
