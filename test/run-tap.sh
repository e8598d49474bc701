#!/usr/bin/env bash
# run-tap.sh: the fault-injection TAP suite (test/t/AREA/*.pl), which drives its own
# clusters with PostgreSQL::Test::Cluster, through PGXS's prove_installcheck
# (`make tapcheck`).  initdb refuses root, so the tests run as the postgres OS
# user in a scratch copy of the tree it owns.  Run as root after
# `make install`; scripts/test.sh calls it.  Arguments name test files
# (test/t/extension/maintenance.pl ...); without any, all run.
set -euo pipefail
# The mounts below live in a mount namespace of the run's own: a process that
# unshares its mounts meanwhile (another run's stress load, say) would
# otherwise keep a copy of them, and the lab's device could not be freed;
# and they all go when the run ends, however it ends.
# (In a chroot, whose root is no mount point, a private namespace cannot be
# made: scripts/chroot.sh runs it in one of its own already.)
if [ -z "${RANREAD_TAP_NS:-}" ] && unshare --mount --propagation private true 2>/dev/null; then
	exec unshare --mount --propagation private -- env RANREAD_TAP_NS=1 bash "$0" "$@"
fi
cd "$(dirname "$0")/.."

# RANREAD_TAP_JOBS=N runs N test files at once (prove -j; default 4: the
# files wait on their servers far more than they compute, so on 2 cores
# several at once shorten the suite; 1 runs them one after
# another; test/t/testrules.yml says which files must not run beside others).
jobs=${RANREAD_TAP_JOBS:-4}
if ! [[ $jobs =~ ^[1-9][0-9]?$ ]]; then
	echo "run-tap.sh: RANREAD_TAP_JOBS must be a number of files from 1 to 99, not '$jobs'" >&2
	exit 2
fi

scratch=$(mktemp -d /tmp/ranread_tap.XXXXXX)
# (scripts/lint.sh too: docs/architecture.pl reads its floors)
cp -r Makefile ranread.control tested-majors README.md src sql test docs scripts "$scratch/"
# which files may run beside others (prove looks for it where it runs)
cp test/t/testrules.yml "$scratch/"

# A small file system for the disk-full tests (t/faults/disk_full.pl and
# t/writers/writer_disk_full.pl skip without one; test/t/testrules.yml runs them
# one after the other): 512 MB of ext4 on a loop device.
smallfs="$scratch/smallfs"
mkdir -p "$smallfs"
if truncate -s 512M "$scratch/smallfs.img" && mkfs.ext4 -q "$scratch/smallfs.img" &&
	mount -o loop "$scratch/smallfs.img" "$smallfs"; then
	export RANREAD_SMALL_FS="$smallfs"
	trap 'umount "$smallfs" 2>/dev/null || true' EXIT
else
	echo "run-tap.sh: could not mount a loop file system; the disk-full test will skip" >&2
fi
# A ramfs, which refuses O_DIRECT, for test/t/run/physical.pl (skips without one).
ramfs="$scratch/ramfs"
mkdir -p "$ramfs"
if mount -t ramfs ramfs "$ramfs" 2>/dev/null; then
	export RANREAD_RAMFS="$ramfs"
else
	echo "run-tap.sh: could not mount a ramfs; the direct I/O refusal test will skip" >&2
fi
# (the FUSE laboratory's place and its unmount: it is mounted below)
lab_fuse="$scratch/labfs"
lab_fuse_down() {
	local fs
	for fs in "$lab_fuse" "$lab_fuse-2"; do
		if [ -e "$fs/labfs.pid" ]; then
			test/lab/labfs.sh umount "$fs" || true
		fi
	done
}
# A capped laboratory device for test/t/lab/lab_caps.pl (test/lab/capped_zram.sh):
# a zram device of its own behind the block throttle, in a cgroup delegated to
# postgres.  It exports RANREAD_LAB_NAME, _CAP_DIR, _MOUNT, _DEVICE (MAJ:MIN),
# _DEVICE_NAME, _CGROUP, _CGROUP_KIND, _SCRIPT; without it RANREAD_LAB_CAP_MISSING
# says why, and the tests that need it skip with that reason.  RANREAD_LAB_CAP_SKIP
# (a reason) asks for none: scripts/test-major.sh --no-capped-lab.
lab=$(pwd)/test/lab/capped_zram.sh
lab_name=tap-$$
lab_made= lab2_made=
lab_vars=()
# add_lab_vars PREFIX <<<"$out": a lab's shell assignments (what
# capped_zram.sh make prints, RANREAD_LAB_X='v') to lab_vars, as PREFIX_X=v
add_lab_vars() {
	local line key value
	while IFS= read -r line; do
		key=${line%%=*} value=${line#*=}
		value=${value#\'} value=${value%\'}
		lab_vars+=("$1_${key#RANREAD_LAB_}=$value")
	done
}
if [ -n "${RANREAD_LAB_CAP_SKIP:-}" ]; then
	lab_vars+=("RANREAD_LAB_CAP_MISSING=$RANREAD_LAB_CAP_SKIP")
	echo "run-tap.sh: no capped lab device: $RANREAD_LAB_CAP_SKIP" >&2
elif lab_out=$("$lab" make --name "$lab_name" 2>"$scratch/lab.err"); then
	lab_made=1
	add_lab_vars RANREAD_LAB <<<"$lab_out"
	# (v2 only) the runner's tree goes into the lab's uncapped group, whence
	# postgres may move its own processes into the capped one
	"$lab" adopt "$lab_name" $$ ||
		echo "run-tap.sh: could not put the runner in the lab's uncapped group; test/t/lab/lab_caps.pl cannot start its server" >&2
else
	lab_vars+=("RANREAD_LAB_CAP_MISSING=$(head -n 1 "$scratch/lab.err")")
	echo "run-tap.sh: no capped lab device ($(head -n 1 "$scratch/lab.err")); the tests that need one will skip" >&2
fi
# A second capped device, so that its files (test/t/RanreadTest.pm,
# %on_second_lab) run beside the first's: its variables as RANREAD_LAB2_*.
# Under cgroup v2 the runner can stand in one lab's uncapped group only, so
# there is none; the second's files then take turns on the first.
if [ -n "$lab_made" ] && printf '%s\n' "${lab_vars[@]}" | grep -qx 'RANREAD_LAB_CGROUP_KIND=v1' &&
	lab2_out=$("$lab" make --name "$lab_name-2" 2>"$scratch/lab2.err"); then
	lab2_made=1
	add_lab_vars RANREAD_LAB2 <<<"$lab2_out"
fi
# every exit path: the laboratories, then the file systems
cleanup() {
	lab_fuse_down
	[ -z "$lab_made" ] || "$lab" remove "$lab_name" || true
	[ -z "$lab2_made" ] || "$lab" remove "$lab_name-2" || true
	umount "$smallfs" "$ramfs" 2>/dev/null || true
}
trap cleanup EXIT
chown -R postgres: "$scratch"

# The FUSE laboratory (test/lab/labfs.sh), a file system whose reads have a
# delay, a queue, errors and stalls the tests set, for test/t/lab/lab_fuse.pl
# (skips without it).  It exports RANREAD_LAB_FUSE_DIR, a directory the
# postgres user owns on it, and RANREAD_LAB_FUSE_CONTROL, its control file
# (writable by every user; commands and counters in test/lab/labfs.c).
if test/lab/labfs.sh mount "$lab_fuse" >/dev/null; then
	export RANREAD_LAB_FUSE_DIR="$lab_fuse/mnt/tblspc" RANREAD_LAB_FUSE_CONTROL="$lab_fuse/mnt/.labfs"
	# and a second one, as the second capped device above
	if test/lab/labfs.sh mount "$lab_fuse-2" >/dev/null; then
		lab_vars+=("RANREAD_LAB2_FUSE_DIR=$lab_fuse-2/mnt/tblspc" "RANREAD_LAB2_FUSE_CONTROL=$lab_fuse-2/mnt/.labfs")
	fi
else
	echo "run-tap.sh: could not mount the FUSE laboratory (libfuse3-dev, fuse3); its tests will skip" >&2
fi

status=0
# RANREAD_TEST_EXTRA (e.g. "timing") opts in to the tests that assert this
# machine's speed rather than the code (test/t/RanreadTest.pm, extra_enabled).
runuser -u postgres -- env RANREAD_SMALL_FS="${RANREAD_SMALL_FS:-}" RANREAD_RAMFS="${RANREAD_RAMFS:-}" \
	RANREAD_LAB_FUSE_DIR="${RANREAD_LAB_FUSE_DIR:-}" RANREAD_LAB_FUSE_CONTROL="${RANREAD_LAB_FUSE_CONTROL:-}" \
	RANREAD_TEST_EXTRA="${RANREAD_TEST_EXTRA:-}" RANREAD_UPGRADE_FROM="${RANREAD_UPGRADE_FROM:-}" \
	RANREAD_LAB_TURN_DIR="$scratch" \
	"${lab_vars[@]}" make -C "$scratch" -s tapcheck RANREAD_TAP_JOBS="$jobs" ${*:+PROVE_TESTS="$*"} || status=$?
if [ "$status" -ne 0 ]; then
	echo "run-tap.sh: failed; server logs and test output kept in $scratch/tmp_check" >&2
	exit "$status"
fi
cleanup
lab_made= lab2_made=
rm -rf "$scratch"
