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

# A RAM-backed block device of SIZE (e.g. 3G), ext4, mounted on a new
# directory: a zram device that is not in use (disksize 0) or one added
# through /sys/class/zram-control, else a loop device over a file in
# /dev/shm.  Sets ram_device, ram_kind and ram_mount; ram_device_remove
# undoes all of it and is safe to call at any point (put it in the trap
# before calling this).  Only a device made here is ever reset or detached.
ram_device=
ram_kind=
ram_mount=
ram_backing=
ram_device_remove() {
    if [[ -n $ram_mount ]]; then
        umount "$ram_mount" 2>/dev/null || true
        rmdir "$ram_mount" 2>/dev/null || true
    fi
    if [[ $ram_device == /dev/zram* ]]; then
        echo 1 >"/sys/block/${ram_device#/dev/}/reset" 2>/dev/null || true
    elif [[ -n $ram_device ]]; then
        losetup -d "$ram_device" 2>/dev/null || true
    fi
    [[ -z $ram_backing ]] || rm -f "$ram_backing"
    ram_device= ram_mount= ram_backing=
}
make_ram_device() {
    local size=$1 z zram=
    ram_mount=$(mktemp -d /tmp/ranread_fastfs.XXXXXX)
    for z in /sys/block/zram*; do
        [[ -e $z/disksize && $(cat "$z/disksize") == 0 ]] && { zram=$(basename "$z"); break; }
    done
    if [[ -z $zram && -w /sys/class/zram-control/hot_add ]]; then
        zram=zram$(cat /sys/class/zram-control/hot_add 2>/dev/null) || zram=
    fi
    # the disksize is set here: from now on the device is ours to reset
    if [[ -n $zram && -e /dev/$zram ]] && echo "$size" >"/sys/block/$zram/disksize" 2>/dev/null; then
        ram_device=/dev/$zram
        ram_kind="zram, RAM-backed"
    elif command -v losetup >/dev/null && ram_backing=$(mktemp /dev/shm/ranread_fast.XXXXXX) &&
        truncate -s "$size" "$ram_backing" && ram_device=$(losetup --find --show "$ram_backing" 2>/dev/null); then
        ram_kind="loop device over /dev/shm"
    else
        die "cannot make a RAM-backed block device here (no zram, and no loop device over /dev/shm)"
    fi
    mkfs.ext4 -q -F "$ram_device" || die "mkfs.ext4 $ram_device failed"
    mount "$ram_device" "$ram_mount" || die "cannot mount $ram_device"
}

# The count of reads completed by block device DEV (/dev/zram1), from
# /proc/diskstats.
device_reads() {
    awk -v d="${1#/dev/}" '$3 == d { print $4 }' /proc/diskstats
}

# A throwaway cluster of PG_CONFIG's own binaries (not Debian's, which
# pg_virtualenv would start), owned by postgres, in DIR/data.
# cluster_init DIR initdb's it; cluster_start DIR [WRAPPER...] starts it
# (WRAPPER, e.g. valgrind and its options, runs the postmaster, whose
# children it then follows) with the settings in DIR/settings.conf, and
# exports PGHOST, PGPORT, PGUSER and PGDATABASE; cluster_stop DIR stops it
# (fast: an unlogged target survives), and is safe to call when it is not running.
cluster_as_pg() { runuser -u postgres -- env PATH="$($PG_CONFIG --bindir):$PATH" "$@"; }
cluster_init() {
    local dir=$1
    chown postgres "$dir"
    cluster_as_pg initdb -D "$dir/data" -A trust >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    cat >>"$dir/data/postgresql.conf" <<CONF
unix_socket_directories = '$dir'
listen_addresses = ''
port = $(( 50000 + $$ % 5000 ))
autovacuum = off
include_if_exists = '$dir/settings.conf'
CONF
}
cluster_start() {
    local dir=$1 i wrapper=
    shift
    export PGHOST=$dir PGPORT=$(sed -n "s/^port = //p" "$dir/data/postgresql.conf") PGUSER=postgres PGDATABASE=postgres
    (( $# == 0 )) || wrapper=$(printf '%q ' "$@")
    cluster_as_pg bash -c "$wrapper'$($PG_CONFIG --bindir)/postgres' -D '$dir/data' >>'$dir/server.log' 2>&1 & echo \$! >'$dir/starter.pid'"
    for i in $(seq 600); do
        cluster_as_pg psql -XAtqc 'SELECT 1' >/dev/null 2>&1 && return 0
        kill -0 "$(cat "$dir/starter.pid")" 2>/dev/null || break
        sleep 1
    done
    tail -n 20 "$dir/server.log" >&2
    die "the server did not start (log above)"
}
cluster_stop() {
    local dir=$1 pid kids i
    [[ -f $dir/data/postmaster.pid ]] || return 0
    pid=$(head -n 1 "$dir/data/postmaster.pid")
    kids=$(pgrep -P "$pid" || true)
    cluster_as_pg pg_ctl -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 || true
    # a postmaster under valgrind may not finish: end it and its children by their ids
    for i in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    # shellcheck disable=SC2086
    kill -9 "$pid" $kids 2>/dev/null || true
    rm -f "$dir/data/postmaster.pid"
}

# fio's minimal io_uring engine, t/io_uring, built from Debian's fio source
# package (bookworm serves fio 3.33) into /var/cache/ranread-bench/fio and
# kept there; the host's apt configuration is left alone (a private sources
# list and lists directory).  Built without -march=native, which valgrind
# (bench/instructions.sh) cannot always run.  Sets tio_uring to its path.
tio_uring=${tio_uring:-}
tio_uring_build() {
    local cache=/var/cache/ranread-bench apt_opts src
    tio_uring=$cache/fio/build/t/io_uring
    [[ -x $tio_uring ]] && return 0
    command -v apt-get >/dev/null || die "t/io_uring: needs apt-get to fetch Debian's fio source package"
    command -v make >/dev/null && command -v gcc >/dev/null || die "t/io_uring: apt-get install build-essential"
    mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/fio"
    echo "deb-src http://deb.debian.org/debian bookworm main" >"$cache/apt/sources.list"
    apt_opts=(-q -o "Dir::Etc::sourcelist=$cache/apt/sources.list" -o Dir::Etc::sourceparts=-
              -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
              -o APT::Get::List-Cleanup=0)
    if ! ls "$cache"/fio/fio_*.orig.tar.* >/dev/null 2>&1; then
        apt-get "${apt_opts[@]}" update >"$cache/fio/apt.log" 2>&1 &&
            (cd "$cache/fio" && apt-get "${apt_opts[@]}" source --download-only fio >>"$cache/fio/apt.log" 2>&1) ||
            { cat "$cache/fio/apt.log" >&2; die "t/io_uring: could not download Debian's fio source package"; }
    fi
    src=$(ls "$cache"/fio/fio_*.orig.tar.gz | head -n 1)
    rm -rf "$cache/fio/build" && mkdir "$cache/fio/build"
    tar -xf "$src" -C "$cache/fio/build" --strip-components=1 || die "t/io_uring: cannot unpack $src"
    (cd "$cache/fio/build" && ./configure --disable-native >configure.log 2>&1 && make -j"$(nproc)" t/io_uring >make.log 2>&1) ||
        die "t/io_uring: the build failed (logs in $cache/fio/build)"
    [[ -x $tio_uring ]] || die "t/io_uring: no binary after the build"
}
