#!/usr/bin/env bash
# run-tap.sh: the fault-injection TAP suite (test/t/*.pl), which drives its own
# clusters with PostgreSQL::Test::Cluster, through PGXS's prove_installcheck
# (`make tapcheck`).  initdb refuses root, so the tests run as the postgres OS
# user in a scratch copy of the tree it owns.  Run as root after
# `make install`; scripts/test.sh calls it.  Arguments name test files
# (test/t/070_maintenance.pl ...); without any, all run.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d /tmp/ranread_tap.XXXXXX)
cp -r Makefile ranread.control README.md src test docs "$scratch/"

# A small file system for the disk-full test (t/020_disk_full.pl skips
# without one): 512 MB of ext4 on a loop device.
smallfs="$scratch/smallfs"
mkdir -p "$smallfs"
if truncate -s 512M "$scratch/smallfs.img" && mkfs.ext4 -q "$scratch/smallfs.img" &&
	mount -o loop "$scratch/smallfs.img" "$smallfs"; then
	export RANREAD_SMALL_FS="$smallfs"
	trap 'umount "$smallfs" 2>/dev/null || true' EXIT
else
	echo "run-tap.sh: could not mount a loop file system; the disk-full test will skip" >&2
fi
# A ramfs, which refuses O_DIRECT, for test/t/035_physical.pl (skips without one).
ramfs="$scratch/ramfs"
mkdir -p "$ramfs"
if mount -t ramfs ramfs "$ramfs" 2>/dev/null; then
	export RANREAD_RAMFS="$ramfs"
else
	echo "run-tap.sh: could not mount a ramfs; the direct I/O refusal test will skip" >&2
fi
trap 'umount "$smallfs" "$ramfs" 2>/dev/null || true' EXIT
chown -R postgres: "$scratch"

status=0
# RANREAD_TEST_EXTRA (e.g. "timing") opts in to the tests that assert this
# machine's speed rather than the code (test/t/RanreadTest.pm, extra_enabled).
runuser -u postgres -- env RANREAD_SMALL_FS="${RANREAD_SMALL_FS:-}" RANREAD_RAMFS="${RANREAD_RAMFS:-}" \
	RANREAD_TEST_EXTRA="${RANREAD_TEST_EXTRA:-}" \
	make -C "$scratch" -s tapcheck ${*:+PROVE_TESTS="$*"} || status=$?
if [ "$status" -ne 0 ]; then
	echo "run-tap.sh: failed; server logs and test output kept in $scratch/tmp_check" >&2
	exit "$status"
fi
umount "$smallfs" "$ramfs" 2>/dev/null || true
rm -rf "$scratch"
