#!/usr/bin/env bash
# chroot.sh: a Debian chroot of the suite that serves a PostgreSQL major this
# machine's Debian 12 does not (17 from trixie, 18 from sid, 19 from
# experimental on sid), with Debian's own binary packages of that major, its
# server headers, pgTAP and the tools the test suites and package builds use,
# and the major before it from the suite before, for pg_upgrade; and a way to
# run a command in it.
#
#   chroot.sh suite MAJOR          the suite whose chroot runs MAJOR's tests (exit
#                                  2: none, this machine runs them)
#   chroot.sh package-suite MAJOR  the suite whose chroot builds MAJOR's Debian
#                                  package (exit 2: none, this machine's)
#   chroot.sh make SUITE           make the chroot, or restore it from its cache
#   chroot.sh run SUITE CMD...     run CMD in it as root, the source tree at /src
#                                  (or $RANREAD_CHROOT_SRC: a directory the
#                                  caller prepared, e.g. an exported tree and
#                                  the packages to install; the chroot has no git)
#
# The chroot is $RANREAD_CHROOTS/SUITE (default /var/lib/ranread/chroots: a
# private directory keeps experiments away from the chroots others use), made
# by mmdebstrap with a private apt configuration (nothing of the host's apt is
# touched), and cached as a zstd tarball under $RANREAD_PG_CACHE (default
# /var/cache/ranread), keyed by the suite and its package list, so that a
# second run restores it in seconds.  Making a chroot in the default
# directory removes the suite's older tarballs; in a private one it leaves
# them, since the default chroots may still restore from them.  The suites' Release files may be past their Valid-Until (the
# archive serves a snapshot): the chroot's apt is told not to check it.
#
# A command runs in private namespaces (mount, PID and network, with its own
# loopback), so that a cluster in the chroot never meets the host's and every
# mount is gone when the command ends: /proc, /sys and /dev of the host
# (zram, loop devices and cgroups for the tests), a private tmpfs on
# /dev/shm for PostgreSQL's shared memory, and the source tree at /src.
#
# Exit status: 0 done, 2 the archive does not serve it (or the chroot cannot
# be made: the reason is printed), else the command's.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=${RANREAD_CHROOT_SRC:-$(cd "$here/.." && pwd)}
default_chroots=/var/lib/ranread/chroots
chroots=${RANREAD_CHROOTS:-$default_chroots}
cache=${RANREAD_PG_CACHE:-/var/cache/ranread}

# What the test suites need in every chroot, besides the majors' packages.
common=build-essential,liburing-dev,libipc-run-perl,pkg-config,libkrb5-dev,libtap-parser-sourcehandler-pgtap-perl
common+=,e2fsprogs,librsvg2-bin,libxml2-utils,libfaketime,mount,procps,iproute2,fio,debhelper,dpkg-dev
common+=,postgresql-server-dev-all,postgresql-common

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//; /^set -euo/d' >&2
	exit 1
}

suite_of() {
	case "$1" in
		17) echo trixie ;;
		19) echo sid ;;
		*) return 2 ;;
	esac
}
# 18's tests run on this machine against the server built from Debian's
# source package, which is no package to depend on: its package is sid's.
package_suite_of() {
	case "$1" in
		17) echo trixie ;;
		18 | 19) echo sid ;;
		*) return 2 ;;
	esac
}

# the packages and archive lines of a suite.  Each chroot also holds the
# major before its own from the suite before (trixie: bookworm's 15; sid:
# trixie's 17), its server and client only, for pg_upgrade to its majors
# (tested-upgrades); those suites' archives are listed after its own, and
# apt takes the highest version, which for every other package is the suite's own.
# postgresql-all is in the package's Build-Depends (its build-time test).
packages_of() {
	case "$1" in
		trixie) echo "$common,postgresql-all,postgresql-17,postgresql-server-dev-17,postgresql-17-pgtap,postgresql-15,postgresql-client-15" ;;
		# 18's pgTAP is SQL only: 19 (no pgtap package yet) uses its files
		sid) echo "$common,postgresql-all,postgresql-18,postgresql-server-dev-18,postgresql-18-pgtap,postgresql-19/experimental,postgresql-server-dev-19/experimental,postgresql-client-19/experimental,libpq-dev/experimental,libpq5/experimental,postgresql-17,postgresql-client-17" ;;
		*) echo "chroot.sh: no suite $1" >&2; exit 1 ;;
	esac
}
archives_of() {
	case "$1" in
		trixie) printf '%s\n' "deb http://deb.debian.org/debian trixie main" \
			"deb http://deb.debian.org/debian trixie-updates main" \
			"deb http://deb.debian.org/debian-security trixie-security main" \
			"deb http://deb.debian.org/debian bookworm main" \
			"deb http://deb.debian.org/debian-security bookworm-security main" ;;
		sid) printf '%s\n' "deb http://deb.debian.org/debian sid main" \
			"deb http://deb.debian.org/debian experimental main" \
			"deb http://deb.debian.org/debian trixie main" \
			"deb http://deb.debian.org/debian-security trixie-security main" ;;
	esac
}

make_chroot() {
	local suite=$1 dir=$chroots/$1 key tarball reason archives=()
	key=$( { packages_of "$suite"; archives_of "$suite"; } | sha256sum | cut -c1-12)
	tarball=$cache/chroot-$suite-$key.tar.zst
	if [ -f "$dir/.ranread-chroot" ] && [ "$(cat "$dir/.ranread-chroot")" = "$key" ]; then
		echo "chroot.sh: $dir is ready"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir" "$cache"
	if [ -f "$tarball" ]; then
		echo "chroot.sh: restoring $dir from $tarball"
		tar -C "$dir" --zstd -xf "$tarball"
	else
		# shellcheck source=apt.sh
		. "$here/apt.sh"
		install_packages mmdebstrap zstd >/dev/null
		mapfile -t archives < <(archives_of "$suite")
		echo "chroot.sh: making the $suite chroot in $dir (a few minutes; cached afterwards)"
		if ! mmdebstrap --variant=apt --aptopt='APT::Install-Recommends "false"' \
			--aptopt='Acquire::Check-Valid-Until "false"' --dpkgopt=force-unsafe-io \
			--setup-hook='mkdir -p "$1/etc/postgresql-common/createcluster.d" && echo "create_main_cluster = false" > "$1/etc/postgresql-common/createcluster.d/ranread.conf"' \
			--customize-hook='echo "Acquire::Check-Valid-Until \"false\";" > "$1/etc/apt/apt.conf.d/99ranread"' \
			--include="$(packages_of "$suite")" "$suite" "$dir" "${archives[@]}" >"$cache/chroot-$suite.log" 2>&1; then
			tail -n 5 "$cache/chroot-$suite.log" >&2
			rm -rf "$dir"
			# the reason on the last line, for scripts/test.sh's table
			reason=$(grep -m 1 '^E: ' "$cache/chroot-$suite.log" || tail -n 1 "$cache/chroot-$suite.log")
			echo "chroot.sh: could not make the $suite chroot: ${reason#E: } (see $cache/chroot-$suite.log)" >&2
			exit 2
		fi
		# 18's pgTAP serves 19
		if [ -d "$dir/usr/share/postgresql/19/extension" ]; then
			cp "$dir"/usr/share/postgresql/18/extension/pgtap* "$dir/usr/share/postgresql/19/extension/"
		fi
		if [ "$chroots" = "$default_chroots" ]; then
			rm -f "$cache"/chroot-"$suite"-*.tar.zst
		fi
		tar -C "$dir" --zstd -cf "$tarball" .
	fi
	echo "$key" >"$dir/.ranread-chroot"
}

run_in() {
	local suite=$1 dir=$chroots/$1
	shift
	[ -f "$dir/.ranread-chroot" ] || make_chroot "$suite"
	mkdir -p "$dir/src"
	unshare --mount --net --pid --fork --kill-child -- bash -euo pipefail -c '
		dir=$1 src=$2; shift 2
		ip link set lo up
		mount -t proc proc "$dir/proc"
		mount --rbind /sys "$dir/sys"
		mount --rbind /dev "$dir/dev"
		mount -t tmpfs -o mode=1777 tmpfs "$dir/dev/shm"
		mount --bind "$src" "$dir/src"
		exec chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			RANREAD_SUMMARY="${RANREAD_SUMMARY:-}" RANREAD_TEST_EXTRA="${RANREAD_TEST_EXTRA:-}" RANREAD_TAP_JOBS="${RANREAD_TAP_JOBS:-}" "$@"
	' chroot "$dir" "$src" "$@"
}

[ "$(id -u)" -eq 0 ] || { echo "chroot.sh: run as root (it makes a chroot and namespaces)" >&2; exit 1; }
case "${1:-}" in
	suite) [ $# -eq 2 ] || usage; suite_of "$2" ;;
	package-suite) [ $# -eq 2 ] || usage; package_suite_of "$2" ;;
	make) [ $# -eq 2 ] || usage; make_chroot "$2" ;;
	run) [ $# -ge 3 ] || usage; suite=$2; shift 2; run_in "$suite" "$@" ;;
	*) usage ;;
esac
