#!/usr/bin/env bash
# install-deps.sh: install what ranread needs to build, test and benchmark on
# Debian 12 (bookworm), as root.  Safe to run again; it installs what is
# missing and upgrades no package already installed (scripts/apt.sh).
#
#   scripts/install-deps.sh --build   what building and running need (scripts/demo.sh)
#   scripts/install-deps.sh           that and the test tools (scripts/test.sh)
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it calls apt-get install)" >&2
	exit 1
fi

# postgresql-15 includes the contrib modules the tests use (dblink, amcheck, pageinspect).
build_packages=(
	build-essential
	# libpq/libpq.h (pq_check_connection) includes GSSAPI headers
	libkrb5-dev
	postgresql-15 postgresql-server-dev-15 postgresql-client-15
	# iodepth > 1 (io_uring); the Makefile builds without it, refusing iodepth > 1
	liburing-dev pkg-config
)
test_packages=(
	postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl
	# test/t/extension/plpgsql_check.pl: the PL/pgSQL programs through plpgsql_check
	postgresql-15-plpgsql-check
	libipc-run-perl
	# bench/*.sh, and test/t/lab/lab_caps.pl: fio beside ranread on the capped lab device
	fio
	cppcheck clang-tidy valgrind
	# test/run-tap.sh: a loop-mounted ext4 for the disk-full test, and ext4 on the capped
	# lab device (test/lab/capped_zram.sh; also needs util-linux's findmnt and unshare)
	e2fsprogs util-linux
	# test/t/history/chart.pl: renders the SVG charts (rsvg-convert) and checks them as XML (xmllint)
	librsvg2-bin libxml2-utils
	# test/t/history/report_html.pl: opens each kind of HTML report in headless Chromium
	# (its DOM, console, requests, a PDF and screenshots; the PNGs are decoded in Perl)
	chromium
	# test/t/fleet/fleet.pl: a server whose clock is off (its postmaster under LD_PRELOAD=libfaketime)
	libfaketime
	# test/lab/labfs.sh: the FUSE laboratory file system (test/t/lab/lab_fuse.pl), built and mounted by test/run-tap.sh
	libfuse3-dev fuse3
	# scripts/test-under-load.sh: the CPU and I/O load the suite runs beside
	stress-ng
	# test/t/run/iodepth_refill.pl and bench/syscalls.sh: a worker's system calls
	strace
	# scripts/package.sh: dpkg-buildpackage with debian/rules (dh --with pgxs_loop, pg_buildext);
	# postgresql-all is debian/control's Build-Depends for the build-time installcheck
	debhelper postgresql-server-dev-all postgresql-all
)
if [ "${1:-}" = --build ]; then
	# the demo: the server's own packages are never upgraded (scripts/apt.sh)
	packages=(--keep-server "${build_packages[@]}")
else
	packages=("${build_packages[@]}" "${test_packages[@]}")
fi

# shellcheck source=scripts/apt.sh
source "$(dirname "$0")/apt.sh"
install_packages "${packages[@]}"
