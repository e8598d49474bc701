# common.sh: what the benchmarks in bench/ share (sourced, not run): their
# prerequisites, and for those against fio the target they read and the
# device it is on.  The sourcing script defines die() first.

# Print the script's usage, its header from "# Usage:" up to "# Needs:", and
# exit with status $1 (0 by default).
bench_usage() {
    sed -n '/^# Usage:/,/^# Needs:/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

# Fail, saying what to install, unless the tools and the installed ranread
# that a benchmark on a pg_virtualenv cluster with fio needs are all here.
check_benchmark_prerequisites() {
    local cmd pkg
    for cmd in pg_virtualenv:postgresql-common pg_config:postgresql-server-dev-15 \
               psql:postgresql-client-15 fio:fio python3:python3; do
        pkg=${cmd#*:}
        command -v "${cmd%%:*}" >/dev/null ||
            die "${cmd%%:*} not found: apt-get install $pkg"
    done
    local control so
    control="$(pg_config --sharedir)/extension/ranread.control"
    so="$(pg_config --pkglibdir)/ranread.so"
    [[ -f $control && -f $so ]] ||
        die "ranread is not installed ($control or $so is missing): run \`make && make install\` first"
    # An instrumented build (make with -fsanitize=address) cannot even load
    # into a normal server, and would measure the sanitizer anyway.
    ! grep -q -a -e __asan_init -e __tsan_init -e __ubsan_handle "$so" ||
        die "the installed ranread.so is a sanitizer (ASan/TSan/UBSan) build: install a normal one (make clean && make && make install)"
    pg_major=$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
    [[ -x /usr/lib/postgresql/$pg_major/bin/postgres ]] ||
        die "no PostgreSQL $pg_major server for pg_virtualenv: apt-get install postgresql-$pg_major"
}

# In a benchmark's inner part, on its pg_virtualenv cluster (PSQL, SIZE, SELF
# and work set by the caller, and TABLESPACE if the target goes in one):
# create the extension, set up a target of SIZE on the cluster's volume (or
# the tablespace's), list its segment files for fio, and say which
# ranread runs.  Sets datadir, pm_pid, clk_tck, size_bytes, setup_out, segs,
# filenames, so and so_id, which the caller declares local, and defines so_id_of and
# src_id.
setup_target_for_fio() {
    "${PSQL[@]}" -c "CREATE EXTENSION ranread" ||
        die "CREATE EXTENSION ranread failed in the throwaway cluster"
    datadir=$("${PSQL[@]}" -c "SHOW data_directory")
    pm_pid=$(head -n 1 "$datadir/postmaster.pid")
    [[ -r /proc/$pm_pid/stat ]] || die "cannot read /proc/$pm_pid/stat (postmaster)"
    clk_tck=$(getconf CLK_TCK)
    size_bytes=$("${PSQL[@]}" -c "SELECT pg_size_bytes('$SIZE')") ||
        die "PostgreSQL does not accept the size '$SIZE'"
    (( size_bytes >= 1024 * 1024 * 1024 )) ||
        die "size must be at least 1GB: the readers must not be able to touch a noticeable part of it"
    local avail_kb where=$datadir
    [[ -z ${TABLESPACE:-} ]] || where=$("${PSQL[@]}" -c "SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname = '$TABLESPACE'")
    avail_kb=$(df -Pk "$where" | awk 'NR == 2 {print $4}')
    (( avail_kb * 1024 > size_bytes + 1024 * 1024 * 1024 )) ||
        die "not enough free space for $SIZE under $where ($(( avail_kb / 1024 )) MiB free)"

    # --- the target ----------------------------------------------------------
    local first_seg
    local tablespace_arg=NULL
    [[ -z ${TABLESPACE:-} ]] || tablespace_arg="'$TABLESPACE'"
    setup_out=$("${PSQL[@]}" -c "SELECT ranread_setup('$size_bytes', tablespace => $tablespace_arg, log_level => 0)" \
                2>"$work/setup.err") || { cat "$work/setup.err" >&2; die "ranread_setup failed"; }
    first_seg=$("${PSQL[@]}" -c "SELECT current_setting('data_directory') || '/' || pg_relation_filepath('ranread_target')")
    [[ -f $first_seg ]] || die "target segment $first_seg not found"
    segs=()
    i=0
    while [[ -f $first_seg$( (( i == 0 )) || echo ".$i") ]]; do
        segs+=("$first_seg$( (( i == 0 )) || echo ".$i")")
        i=$(( i + 1 ))
    done
    local seg
    for seg in "${segs[@]}"; do
        [[ -r $seg ]] || die "fio cannot read $seg: run this script as root or as the cluster's owner"
    done
    local seg_bytes=0
    for seg in "${segs[@]}"; do seg_bytes=$(( seg_bytes + $(stat -c %s "$seg") )); done
    (( seg_bytes == size_bytes )) ||
        die "segment files hold $seg_bytes bytes, the target $size_bytes"
    # let the setup's writes settle (write-back below the OS, too) before measuring
    sync
    sleep 5
    filenames=$(IFS=:; echo "${segs[*]}")
    [[ $filenames != *' '* ]] || die "fio's --filename list cannot hold paths with spaces: $filenames"

    # --- which ranread ---------------------------------------------------------
    so="$(pg_config --pkglibdir)/ranread.so"
    so_id_of() { echo "$so md5 $(md5sum "$so" | cut -c1-12), installed $(date -u -r "$so" '+%Y-%m-%d %H:%M:%S UTC')"; }
    so_id=$(so_id_of)
    src_id() {
        local repo
        repo=$(dirname "$(dirname "$SELF")")
        if command -v git >/dev/null && git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
            echo "$repo at $(git -C "$repo" log -1 --format='%h (%ad)' --date=iso)$(
                [[ -z $(git -C "$repo" status --porcelain --untracked-files=no -- src sql Makefile 2>/dev/null) ]] ||
                echo ', with uncommitted changes in src/sql') (the installed build may differ)"
        else
            echo "$repo (not a git checkout)"
        fi
    }
}

# The block device holding datadir, and its model: sets dev, devname and
# model, which the caller declares local.
describe_data_device() {
    dev=$(findmnt -no SOURCE -T "$datadir" 2>/dev/null || echo '?')
    devname=$(lsblk -no PKNAME "$dev" 2>/dev/null | head -n 1)
    [[ -n $devname ]] || devname=$(basename "$dev")
    model=$(lsblk -dno MODEL "/dev/$devname" 2>/dev/null | sed 's/ *$//' || true)
    if [[ -z $model && -e /sys/block/$devname/device ]]; then
        model="$(basename "$(readlink -f "/sys/block/$devname/device/driver" 2>/dev/null)" 2>/dev/null)"
        model+=" vendor=$(cat "/sys/block/$devname/device/vendor" 2>/dev/null || echo '?')"
        model+=" device=$(cat "/sys/block/$devname/device/device" 2>/dev/null || echo '?')"
        model+=" (no model string)"
    fi
}

# In a benchmark's inner part: the CPU time, in clock ticks, of the children
# the postmaster (pm_pid) has reaped (cutime + cstime), which is how the CPU
# of ranread's workers is measured.
child_ticks() {
    local stat f
    stat=$(<"/proc/$pm_pid/stat")
    read -r -a f <<<"${stat##*) }"        # f[0] is field 3 (state)
    echo $(( f[13] + f[14] ))
}

# In a benchmark's inner part: the CPU time, in clock ticks, of the server's
# I/O worker processes so far (PostgreSQL 18's io_method = worker; 0 where
# there are none), which do the reads of a read stream under that method.
io_worker_ticks() {
    local pid total=0 stat f
    for pid in $("${PSQL[@]}" -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'io worker'"); do
        stat=$(<"/proc/$pid/stat") || continue
        read -r -a f <<<"${stat##*) }"
        total=$(( total + f[11] + f[12] ))
    done
    echo "$total"
}
