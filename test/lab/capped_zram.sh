#!/usr/bin/env bash
#
# test/lab/capped_zram.sh: a block device whose answer we set.  A zram
# device (RAM-backed: the device itself is never the limit) with ext4 on it,
# behind the kernel's block throttle, whose IOPS or bandwidth cap is exact
# for every way of reading (O_DIRECT, io_uring, buffered) at the task that
# submits (see /work/shared/notes/lab-devices.md, or docs/benchmarks.md "How
# we know the numbers are right").  A process put in the lab's cgroup, and
# every child it starts (a postmaster and all its backends, workers and I/O
# workers), reads the device at most at the cap; the cap can be changed
# while they read, as a cloud volume's burst credits running out would.
#
# How: `make` hot-adds a zram device of its own (/sys/class/zram-control),
# makes ext4 on it, mounts it, makes a directory there owned by OS_USER for
# a tablespace, and makes a throttle cgroup for the device: cgroup v2's
# io.max where the v2 hierarchy has the io controller, else cgroup v1's
# blkio.throttle.read_iops_device / read_bps_device (and write_...).  It delegates the
# cgroup to OS_USER (chown of cgroup.procs and the cap files), so that a
# test running as that user can start its server inside it and change the
# cap.  What it made is written to a state file, /run/ranread-lab/NAME/state;
# `remove`, `set-cap` and `set-readahead` act only on what a state file
# names, so no zram device, mount or cgroup this script did not make is ever
# touched.
#
# Usage (root for make, adopt and remove; set-cap and set-readahead as root
# or OS_USER):
#   test/lab/capped_zram.sh make [--name NAME] [--size 1G] [--user postgres]
#       prints the lab as shell assignments (RANREAD_LAB_...=...), see below
#   test/lab/capped_zram.sh adopt NAME PID       v2 only: put PID (and its
#       future children) in the lab's uncapped group, from which OS_USER may
#       move its processes into the capped one (a no-op for v1)
#   test/lab/capped_zram.sh set-cap NAME iops N | bps N | both N M | none
#       N reads/s or bytes/s from now on, for reads only; both: N reads/s
#       and M bytes/s at once (small random reads meet the first, large
#       sequential ones the second); none lifts the read and write caps
#   test/lab/capped_zram.sh set-cap NAME wiops N | wbps N
#       N writes/s or bytes/s from now on, for writes only (the read cap is
#       left as it is); a write is a request as the block layer submits it,
#       so contiguous pages written back together are one
#   test/lab/capped_zram.sh set-readahead NAME KB
#       the device's read_ahead_kb (zram's default is 128): the kernel's
#       readahead for files opened from now on
#   test/lab/capped_zram.sh enter NAME COMMAND [ARG...]
#       run COMMAND inside the capped cgroup (as whoever calls it)
#   test/lab/capped_zram.sh remove NAME
#       end what the lab made, on every path: processes left in its cgroup
#       (the lab's own: only its users put them there) are ended by pid, the
#       cgroup removed, the file system unmounted, the zram device reset and
#       hot-removed, the state removed.  Safe to run again.
#   test/lab/capped_zram.sh list                 the labs that exist
#
# What make prints (and writes to the state file):
#   RANREAD_LAB_NAME          NAME
#   RANREAD_LAB_CAP_DIR       a directory on the capped device owned by OS_USER
#                             (for a tablespace and fio's files)
#   RANREAD_LAB_MOUNT         where the device is mounted
#   RANREAD_LAB_DEVICE        the device's MAJ:MIN (e.g. 252:1)
#   RANREAD_LAB_DEVICE_NAME   zramN
#   RANREAD_LAB_CGROUP        the capped cgroup's directory: write a pid to
#                             its cgroup.procs to put a process under the cap
#   RANREAD_LAB_CGROUP_KIND   v1 (blkio) or v2 (io.max)
#   RANREAD_LAB_SCRIPT        this script, for set-cap
# The device starts uncapped.
#
# Needs: root, a kernel with zram and CONFIG_BLK_DEV_THROTTLING, mkfs.ext4.
# Each check says what is missing; make cleans up after itself when it fails.

set -euo pipefail

SELF=$(readlink -f "$0")
LAB_ROOT=/run/ranread-lab
V1=/sys/fs/cgroup/blkio
V2=/sys/fs/cgroup/unified
[[ -e $V2/cgroup.controllers ]] || V2=/sys/fs/cgroup

die() { echo "capped_zram: $*" >&2; exit 1; }
usage() { sed -n '/^# Usage/,/^# What make/p' "$SELF" | sed 's/^# \{0,1\}//;$d' >&2; exit "${1:-1}"; }

need_root() { [[ $(id -u) -eq 0 ]] || die "$1 needs root (run it with sudo, or as root)"; }

# state NAME: loads the state file of lab NAME into variables, or fails
state_file() { echo "$LAB_ROOT/$1/state"; }
load_state() {
	local name=$1 file
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || die "bad lab name '$name' (letters, digits, . _ - only)"
	file=$(state_file "$name")
	[[ -r $file ]] || die "no lab '$name' ($file missing): see '$SELF list'"
	# only our own assignments, never arbitrary shell
	while IFS='=' read -r key value; do
		[[ $key =~ ^RANREAD_LAB_[A-Z_]+$ ]] || continue
		printf -v "$key" '%s' "$value"
	done <"$file"
	[[ ${RANREAD_LAB_NAME:-} == "$name" ]] || die "state file $file does not name lab '$name'"
}

# --- set-cap ----------------------------------------------------------------
set_cap() {
	local kind=$1 value=${2:-} bytes=${3:-}
	case $kind in
		iops|bps|wiops|wbps) [[ $value =~ ^[1-9][0-9]*$ ]] || die "set-cap $kind needs a positive integer, not '$value'" ;;
		both) [[ $value =~ ^[1-9][0-9]*$ && $bytes =~ ^[1-9][0-9]*$ ]] ||
				  die "set-cap both needs two positive integers (reads/s, bytes/s), not '$value' '$bytes'" ;;
		none) ;;
		*) die "set-cap takes iops N, bps N, both N M, wiops N, wbps N or none, not '$kind'" ;;
	esac
	local dev=$RANREAD_LAB_DEVICE cg=$RANREAD_LAB_CGROUP
	if [[ $RANREAD_LAB_CGROUP_KIND == v2 ]]; then
		case $kind in
			iops) echo "$dev riops=$value rbps=max" >"$cg/io.max" ;;
			bps) echo "$dev riops=max rbps=$value" >"$cg/io.max" ;;
			both) echo "$dev riops=$value rbps=$bytes" >"$cg/io.max" ;;
			wiops) echo "$dev wiops=$value wbps=max" >"$cg/io.max" ;;
			wbps) echo "$dev wiops=max wbps=$value" >"$cg/io.max" ;;
			none) echo "$dev riops=max rbps=max wiops=max wbps=max" >"$cg/io.max" ;;
		esac
	else
		# v1: 0 removes a rule; set the one asked, clear the other
		case $kind in
			iops) echo "$dev 0" >"$cg/blkio.throttle.read_bps_device"
				  echo "$dev $value" >"$cg/blkio.throttle.read_iops_device" ;;
			bps) echo "$dev 0" >"$cg/blkio.throttle.read_iops_device"
				 echo "$dev $value" >"$cg/blkio.throttle.read_bps_device" ;;
			both) echo "$dev $value" >"$cg/blkio.throttle.read_iops_device"
				  echo "$dev $bytes" >"$cg/blkio.throttle.read_bps_device" ;;
			wiops) echo "$dev 0" >"$cg/blkio.throttle.write_bps_device"
				   echo "$dev $value" >"$cg/blkio.throttle.write_iops_device" ;;
			wbps) echo "$dev 0" >"$cg/blkio.throttle.write_iops_device"
				  echo "$dev $value" >"$cg/blkio.throttle.write_bps_device" ;;
			none) echo "$dev 0" >"$cg/blkio.throttle.read_iops_device"
				  echo "$dev 0" >"$cg/blkio.throttle.read_bps_device"
				  echo "$dev 0" >"$cg/blkio.throttle.write_iops_device"
				  echo "$dev 0" >"$cg/blkio.throttle.write_bps_device" ;;
		esac
	fi
}

# --- remove -----------------------------------------------------------------
# pids in cgroup directory $1 and every group under it
cgroup_pids() { find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null || true; }

remove_lab() {
	local name=$1 dir pids pid i mnt ok=1
	dir=$LAB_ROOT/$name
	# The cgroup: its processes are the lab's own (only its users put them
	# there); end them by pid, TERM first, so that the mount is free.
	if [[ -n ${RANREAD_LAB_CGROUP_TOP:-} && -d $RANREAD_LAB_CGROUP_TOP ]]; then
		local parent procs_out
		if [[ $RANREAD_LAB_CGROUP_KIND == v2 ]]; then
			parent=$(dirname "$RANREAD_LAB_CGROUP_TOP")
		else
			parent=$V1
		fi
		procs_out=$parent/cgroup.procs
		# the uncapped group (v2) holds the test runner: move it out, do not end it
		if [[ -n ${RANREAD_LAB_CGROUP_FREE:-} && -d $RANREAD_LAB_CGROUP_FREE ]]; then
			while read -r pid; do
				echo "$pid" >"$procs_out" 2>/dev/null || true
			done <"$RANREAD_LAB_CGROUP_FREE/cgroup.procs"
		fi
		pids=$(cgroup_pids "$RANREAD_LAB_CGROUP")
		if [[ -n $pids ]]; then
			echo "capped_zram: ending processes left in the lab's cgroup: ${pids//$'\n'/ }" >&2
			for pid in $pids; do kill -TERM "$pid" 2>/dev/null || true; done
			for (( i = 0; i < 100; i++ )); do
				[[ -z $(cgroup_pids "$RANREAD_LAB_CGROUP") ]] && break
				sleep 0.1
			done
			for pid in $(cgroup_pids "$RANREAD_LAB_CGROUP"); do kill -KILL "$pid" 2>/dev/null || true; done
			for (( i = 0; i < 50; i++ )); do
				[[ -z $(cgroup_pids "$RANREAD_LAB_CGROUP") ]] && break
				sleep 0.1
			done
		fi
		# what remains (zombies being reaped) goes back to the parent
		for pid in $(cgroup_pids "$RANREAD_LAB_CGROUP_TOP"); do echo "$pid" >"$procs_out" 2>/dev/null || true; done
		[[ -d $RANREAD_LAB_CGROUP ]] && [[ $RANREAD_LAB_CGROUP != "$RANREAD_LAB_CGROUP_TOP" ]] &&
			{ rmdir "$RANREAD_LAB_CGROUP" || ok=0; }
		[[ -n ${RANREAD_LAB_CGROUP_FREE:-} && -d $RANREAD_LAB_CGROUP_FREE ]] && { rmdir "$RANREAD_LAB_CGROUP_FREE" || ok=0; }
		rmdir "$RANREAD_LAB_CGROUP_TOP" || { ok=0; echo "capped_zram: cannot remove cgroup $RANREAD_LAB_CGROUP_TOP" >&2; }
	fi
	# the file system, if it is still ours on our mount point
	mnt=${RANREAD_LAB_MOUNT:-}
	if [[ -n $mnt ]] && findmnt -rn -M "$mnt" >/dev/null 2>&1; then
		if [[ $(findmnt -rn -o SOURCE -M "$mnt") == "/dev/${RANREAD_LAB_DEVICE_NAME:-}" ]]; then
			umount "$mnt" || { ok=0; echo "capped_zram: cannot unmount $mnt (busy? see: fuser -vm $mnt)" >&2; }
		else
			echo "capped_zram: $mnt is not our device's mount; left alone" >&2
			ok=0
		fi
	fi
	[[ -n $mnt && -d $mnt ]] && { rmdir "$mnt" 2>/dev/null || true; }
	# the zram device: only the one this lab hot-added, and only when unmounted
	local zram=${RANREAD_LAB_DEVICE_NAME:-}
	if [[ -n $zram && -e /sys/block/$zram ]]; then
		if findmnt -rn -S "/dev/$zram" >/dev/null 2>&1; then
			echo "capped_zram: /dev/$zram is still mounted; not reset" >&2
			ok=0
		else
			# just after umount, udev may still hold the device open for a
			# moment (its blkid probe): poll, up to 10 s
			for (( i = 0; i < 100; i++ )); do
				{ echo 1 >"/sys/block/$zram/reset" && echo "${zram#zram}" >/sys/class/zram-control/hot_remove; } 2>/dev/null && break
				sleep 0.1
			done
			if [[ -e /sys/block/$zram && -e /proc/fs/ext4/$zram ]]; then
				ok=0
				echo "capped_zram: $zram is unmounted here but its ext4 is still mounted in another mount namespace" \
					"(a process that unshared its mounts while the lab existed); it is freed when that namespace ends:" \
					"run remove again then" >&2
			elif [[ -e /sys/block/$zram ]]; then
				ok=0
				echo "capped_zram: cannot reset and hot-remove $zram: still open? (see: fuser -v /dev/$zram)" >&2
			fi
		fi
	fi
	if (( ok )); then
		rm -f "$dir/state"
		rmdir "$dir" 2>/dev/null || true
		rmdir "$LAB_ROOT" 2>/dev/null || true
	else
		die "lab '$name' is not fully removed; fix the above and run '$SELF remove $name' again"
	fi
}

# --- make -------------------------------------------------------------------
make_lab() {
	local name=lab-$$ size=1G user=postgres
	while [[ $# -gt 0 ]]; do
		case $1 in
			--name) name=${2:?}; shift 2 ;;
			--size) size=${2:?}; shift 2 ;;
			--user) user=${2:?}; shift 2 ;;
			*) echo "capped_zram: unknown argument $1" >&2; usage ;;
		esac
	done
	need_root make
	[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || die "bad lab name '$name' (letters, digits, . _ - only)"
	id "$user" >/dev/null 2>&1 || die "no OS user '$user' to delegate the lab to (--user)"
	command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is missing: apt-get install e2fsprogs"
	[[ -w /sys/class/zram-control/hot_add ]] ||
		die "no zram here (/sys/class/zram-control/hot_add): modprobe zram, or a kernel with CONFIG_ZRAM"
	local kind
	if [[ -r $V2/cgroup.controllers ]] && grep -qw io "$V2/cgroup.controllers"; then
		kind=v2
	elif [[ -e $V1/blkio.throttle.read_iops_device ]]; then
		kind=v1
	else
		die "no block throttle: neither cgroup v2's io controller ($V2) nor v1's blkio.throttle ($V1); needs CONFIG_BLK_DEV_THROTTLING"
	fi
	local dir=$LAB_ROOT/$name
	[[ ! -e $dir/state ]] || die "lab '$name' exists already ($dir/state): remove it first"
	mkdir -p "$dir"
	chmod 755 "$LAB_ROOT" "$dir"

	# From here each step is recorded in the state as soon as it is made, so
	# that a failure part way removes exactly what was made.
	local state=$dir/state
	record() { echo "$1=$2" >>"$state"; printf -v "$1" '%s' "$2"; }
	: >"$state"
	chmod 644 "$state"
	record RANREAD_LAB_NAME "$name"
	record RANREAD_LAB_SCRIPT "$SELF"
	record RANREAD_LAB_CGROUP_KIND "$kind"
	# any failure from here (a die, or a command under set -e) undoes it all
	# shellcheck disable=SC2154  # rc is assigned in the trap itself
	trap 'rc=$?; if (( rc != 0 )); then echo "capped_zram: make failed; removing what it made" >&2; remove_lab "$RANREAD_LAB_NAME" || true; fi; exit $rc' EXIT

	local id zram
	id=$(cat /sys/class/zram-control/hot_add)
	zram=zram$id
	record RANREAD_LAB_DEVICE_NAME "$zram"
	local i
	for (( i = 0; i < 50; i++ )); do [[ -b /dev/$zram ]] && break; sleep 0.1; done
	[[ -b /dev/$zram ]] || die "hot_add gave $zram but /dev/$zram did not appear"
	echo "$size" >"/sys/block/$zram/disksize"
	record RANREAD_LAB_DEVICE "$(cat "/sys/block/$zram/dev")"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$zram"
	local mnt=$dir/mnt
	mkdir -p "$mnt"
	record RANREAD_LAB_MOUNT "$mnt"
	mount "/dev/$zram" "$mnt"
	install -d -o "$user" -m 700 "$mnt/data"
	record RANREAD_LAB_CAP_DIR "$mnt/data"
	# the device's readahead, which set-readahead changes as OS_USER too
	chown "$user" "/sys/block/$zram/queue/read_ahead_kb"

	local top cg
	if [[ $kind == v2 ]]; then
		# The v2 rules: a group with a controller for its children holds no
		# process, and moving a process needs write access to the
		# cgroup.procs of the common ancestor.  So: top (io for its
		# children, delegated), top/free (the test runner, put there by
		# `adopt`) and top/capped (io.max), between which OS_USER moves its
		# own processes.
		grep -qw io "$V2/cgroup.subtree_control" || echo +io >"$V2/cgroup.subtree_control"
		top=$V2/ranread-lab-$name
		mkdir "$top"
		record RANREAD_LAB_CGROUP_TOP "$top"
		echo +io >"$top/cgroup.subtree_control"
		mkdir "$top/free" "$top/capped"
		record RANREAD_LAB_CGROUP_FREE "$top/free"
		cg=$top/capped
		[[ -e $cg/io.max ]] || die "cgroup v2 gives $cg no io.max (no CONFIG_BLK_DEV_THROTTLING?)"
		chown "$user" "$top/cgroup.procs" "$top/free/cgroup.procs" "$cg/cgroup.procs" "$cg/io.max"
	else
		top=$V1/ranread-lab-$name
		mkdir "$top"
		record RANREAD_LAB_CGROUP_TOP "$top"
		cg=$top
		chown "$user" "$cg/cgroup.procs" "$cg/tasks" \
			"$cg/blkio.throttle.read_iops_device" "$cg/blkio.throttle.read_bps_device" \
			"$cg/blkio.throttle.write_iops_device" "$cg/blkio.throttle.write_bps_device"
	fi
	record RANREAD_LAB_CGROUP "$cg"
	set_cap none
	# prove the throttle takes the device's rules before anyone relies on it
	set_cap iops 1000
	if [[ $kind == v1 ]]; then
		grep -q "^$RANREAD_LAB_DEVICE 1000\$" "$cg/blkio.throttle.read_iops_device" ||
			die "the throttle did not take a cap for $RANREAD_LAB_DEVICE ($cg)"
	else
		grep -q "^$RANREAD_LAB_DEVICE .*riops=1000" "$cg/io.max" ||
			die "the throttle did not take a cap for $RANREAD_LAB_DEVICE ($cg/io.max)"
	fi
	set_cap none
	trap - EXIT
	grep '^RANREAD_LAB_[A-Z_]*=' "$state" | grep -v '_TOP=\|_FREE=' | sed 's/=\(.*\)/='"'"'\1'"'"'/'
}

# --- main -------------------------------------------------------------------
[[ $# -ge 1 ]] || usage
cmd=$1
shift
case $cmd in
	make) make_lab "$@" ;;
	remove)
		[[ $# -eq 1 ]] || usage
		need_root remove
		if [[ ! -e $(state_file "$1") ]]; then
			echo "capped_zram: no lab '$1' to remove" >&2
			exit 0
		fi
		load_state "$1"
		remove_lab "$1" ;;
	set-cap)
		[[ $# -ge 2 ]] || usage
		load_state "$1"
		shift
		set_cap "$@" ;;
	set-readahead)
		[[ $# -eq 2 && $2 =~ ^[0-9]+$ ]] || usage
		load_state "$1"
		echo "$2" >"/sys/block/$RANREAD_LAB_DEVICE_NAME/queue/read_ahead_kb" ;;
	adopt)
		[[ $# -eq 2 ]] || usage
		need_root adopt
		load_state "$1"
		[[ $2 =~ ^[0-9]+$ ]] || die "adopt needs a pid, not '$2'"
		[[ -z ${RANREAD_LAB_CGROUP_FREE:-} ]] || echo "$2" >"$RANREAD_LAB_CGROUP_FREE/cgroup.procs" ;;
	enter)
		[[ $# -ge 2 ]] || usage
		load_state "$1"
		shift
		echo $$ >"$RANREAD_LAB_CGROUP/cgroup.procs" ||
			die "cannot enter $RANREAD_LAB_CGROUP (not delegated to $(id -un)? under v2, is the caller in the lab's free group?)"
		exec "$@" ;;
	list)
		for f in "$LAB_ROOT"/*/state; do
			[[ -e $f ]] && echo "$(basename "$(dirname "$f")"): $(grep -E '^RANREAD_LAB_(DEVICE_NAME|MOUNT|CGROUP)=' "$f" | tr '\n' ' ')"
		done
		true ;;
	-h|--help|help) usage 0 ;;
	*) echo "capped_zram: unknown command $cmd" >&2; usage ;;
esac
