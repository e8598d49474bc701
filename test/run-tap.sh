#!/usr/bin/env bash
# run-tap.sh: the fault-injection TAP suite (test/t/*.pl), which drives its own
# clusters with PostgreSQL::Test::Cluster.  initdb refuses root, so the tests
# run as the postgres OS user in a scratch copy it owns.  Run as root after
# `make install`; scripts/test.sh calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

pgbin=$(pg_config --bindir)
pgxs=$(dirname "$(dirname "$(dirname "$(pg_config --pgxs)")")")  # .../lib/pgxs
scratch=$(mktemp -d /tmp/ranread_tap.XXXXXX)
cp -r test/t "$scratch/t"

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
chown -R postgres: "$scratch"

cd "$scratch"
status=0
runuser -u postgres -- env PATH="$pgbin:$PATH" TESTDIR="$scratch" RANREAD_SMALL_FS="${RANREAD_SMALL_FS:-}" \
	PG_REGRESS="$pgxs/src/test/regress/pg_regress" \
	prove -I "$pgxs/src/test/perl" ${*:-t/*.pl} || status=$?
if [ "$status" -ne 0 ]; then
	echo "run-tap.sh: failed; server logs and test output kept in $scratch/tmp_check" >&2
	exit "$status"
fi
umount "$smallfs" 2>/dev/null || true
rm -rf "$scratch"
