#!/usr/bin/env bash
# package.sh [--suite SUITE] [--keep DIR] [MAJOR...]: build ranread's Debian
# packages from debian/ (dh --with pgxs_loop, pg_buildext) with
# dpkg-buildpackage -us -uc -b in a scratch copy of the tree, then for each
# PostgreSQL major: install postgresql-<major>-ranread, check its files, run
# the regression test against the installed files (debian/tests/installcheck,
# the autopkgtest) and purge the package again, restoring any ranread files a
# `make install` had put there (scripts/deb.sh).  As root.  MAJORs default to
# RANREAD_PG_VERSIONS, else 15.
#
# Where: on this machine, or with --suite in that suite's chroot
# (scripts/chroot.sh), so that each package is built by its own suite's
# compiler, pg_buildext and libraries and its Depends are that suite's
# (trixie's postgresql-17-ranread needs libc6 >= 2.38).  The scratch copy is
# made here with git (uncommitted edits included) and the chroot, which has
# no git, sees it at /src: this script runs again there with --exported.
# --keep DIR copies the .deb files to DIR (scripts/test-upgrade.sh installs
# them).  With RANREAD_SUMMARY set, each major's result is a row
# "MAJOR<tab>package (SUITE)<tab>passed|failed" of it, as test-major.sh writes.
#
# How pg_buildext picks majors: it builds those listed in debian/pgversions that
# /usr/share/postgresql-common/supported-versions also prints.  That script
# prints the first of $PG_SUPPORTED_VERSIONS, $DEB_PG_SUPPORTED_VERSIONS,
# ~/.pg_supported_versions, /etc/postgresql-common/supported_versions (here:
# "default"), where "default" is the distribution's major (bookworm: 15 only)
# and "installed" the majors with a postgresql-server-dev-<major> *package*.
# debian/pgversions lists every tested major (tested-majors, checked by
# scripts/lint.sh), and this script passes the MAJORs as
# PG_SUPPORTED_VERSIONS: a suite's build makes exactly the packages asked of
# it, even in a chroot that also holds an older major for pg_upgrade, and a
# PostgreSQL built from source into /usr/lib/postgresql/18, no package, is
# built for when named (pg_buildext then needs its pg_config).
# PG_UPDATECONTROL=yes lets the build's clean step (pg_buildext checkcontrol)
# regenerate debian/control (committed for 15) with one package per chosen
# major, in the scratch copy.
#
# How the test runs: pg_buildext installcheck runs `make installcheck` at the
# top of the source tree under `pg_virtualenv -v <major>` (a throwaway cluster
# in a temp dir, run as postgres even when called as root) for every major whose
# postgresql-<major>-ranread is installed, and prints regression.diffs when it
# fails.  The default settings suffice (the test starts 2 workers); GUCs would
# go as `pg_buildext -o name=value installcheck`.  The build runs the same test
# once before (dh_pgxs_test: against debian/postgresql-<major>-ranread/, through
# Debian's extension_destdir).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
	echo "package.sh: run as root (it installs and purges packages)" >&2
	exit 1
fi
usage() {
	echo "usage: package.sh [--suite SUITE] [--keep DIR] [MAJOR...]" >&2
	exit 1
}
suite="" keep="" exported=no
while [ $# -gt 0 ]; do
	case "$1" in
		--suite) [ $# -ge 2 ] || usage; suite=$2; shift 2 ;;
		--keep) [ $# -ge 2 ] || usage; keep=$(realpath "$2"); shift 2 ;;
		--exported) exported=yes; shift ;;
		-*) usage ;;
		*) break ;;
	esac
done
versions="${*:-${RANREAD_PG_VERSIONS:-15}}"
for v in $versions; do
	grep -qx "$v" debian/pgversions || { echo "package.sh: PostgreSQL $v is not in debian/pgversions" >&2; exit 1; }
done

# build_and_test: in the scratch copy (the current directory), build the
# packages of $versions, then install, check and purge each; a line
# "MAJOR<tab>passed|failed" per major in ../results.tsv, the .deb files in ..
build_and_test() {
	local work v pkg deb pkgversion codename failed=0
	work=$(cd .. && pwd)
	# the suite's name (sid calls itself forky), else this machine's
	codename=${suite:-$(. /etc/os-release && echo "$VERSION_CODENAME")}
	for v in $versions; do
		[ -x "/usr/lib/postgresql/$v/bin/pg_config" ] || { echo "package.sh: no /usr/lib/postgresql/$v/bin/pg_config" >&2; exit 1; }
	done
	export PG_SUPPORTED_VERSIONS="$versions" PG_UPDATECONTROL=yes
	extversion=$(sed -n "s/^default_version = '\(.*\)'/\1/p" ranread.control)
	# shellcheck source=scripts/deb.sh
	. scripts/deb.sh

	installed_pkg=""
	trap 'if [ -n "$installed_pkg" ]; then deb_purge "$work" "$installed_pkg" || true; fi' EXIT

	echo "=== building (dpkg-buildpackage -us -uc -b) for PostgreSQL $versions on $codename ==="
	if ! dpkg-buildpackage -us -uc -b -j"$(nproc)" >"$work/build.log" 2>&1; then
		tail -n 150 "$work/build.log"
		for v in $versions; do printf '%s\tfailed\n' "$v" >>"$work/results.tsv"; done
		exit 1
	fi

	for v in $versions; do
		pkg="postgresql-$v-ranread"
		if ! test_package "$work" "$v" "$pkg"; then
			printf '%s\tfailed\n' "$v" >>"$work/results.tsv"
			failed=1
			continue
		fi
		deb=$(ls "$work/${pkg}_"*.deb)
		pkgversion=$(dpkg-deb -f "$deb" Version)
		printf '%s\tpassed\n' "$v" >>"$work/results.tsv"
		echo "package $pkg $pkgversion ($codename): built, installed, installcheck passed"
		echo "  Depends: $(dpkg-deb -f "$deb" Depends)"
	done
	return "$failed"
}

# test_package WORK MAJOR PACKAGE: install, check its files, installcheck, purge.
test_package() {
	local work=$1 v=$2 pkg=$3 deb f
	deb=$(ls "$work/${pkg}_"*.deb 2>/dev/null) || { echo "package.sh: the build made no $pkg" >&2; return 1; }
	installed_pkg="$pkg"
	deb_install "$work" "$deb" || return 1

	# The list goes to a file first: with pipefail, `dpkg -L | grep -q` fails
	# whenever grep exits at its match before dpkg has written the whole list.
	dpkg -L "$pkg" >"$work/files-$v.list"
	for f in ranread.so ranread.control; do
		grep -q "/$f\$" "$work/files-$v.list" || { echo "package.sh: $pkg lacks $f" >&2; return 1; }
	done
	# the current version's install script, or the update script that reaches it
	grep -Eq "/ranread--([0-9.]+--)?$extversion\.sql\$" "$work/files-$v.list" ||
		{ echo "package.sh: $pkg has no script that installs ranread $extversion" >&2; return 1; }

	# pg_buildext installcheck tests every installed postgresql-*-ranread: only this one is.
	if ! debian/tests/installcheck >"$work/installcheck-$v.log" 2>&1; then
		cat "$work/installcheck-$v.log"
		return 1
	fi
	installed_pkg=""
	deb_purge "$work" "$pkg"
}

if [ "$exported" = yes ]; then
	build_and_test
	exit
fi

# Scratch copy of the tracked files as they are now (uncommitted edits included):
# dpkg-buildpackage writes its .deb files into the parent directory.
work=$(mktemp -d /tmp/ranread-package.XXXXXX)
# the build's own installcheck loads the extension from inside the build tree
# (extension_destdir), and the server (postgres) scans its directory for the
# update scripts that install 1.3: it must be able to enter it
chmod 755 "$work"
mkdir "$work/ranread"
tree=$(git stash create)
git archive "${tree:-HEAD}" | tar -C "$work/ranread" -xf -

status=0
if [ -n "$suite" ]; then
	where=$suite
	RANREAD_CHROOT_SRC=$work scripts/chroot.sh run "$suite" /src/ranread/scripts/package.sh --exported --suite "$suite" $versions || status=$?
else
	where=$(. /etc/os-release && echo "$VERSION_CODENAME")
	(cd "$work/ranread" && scripts/package.sh --exported $versions) || status=$?
fi
for v in $versions; do
	result=$(sed -n "s/^$v\t//p" "$work/results.tsv" 2>/dev/null)
	[ -n "$result" ] || { result=failed; status=1; }
	if [ -n "${RANREAD_SUMMARY:-}" ]; then
		printf '%s\tpackage (%s)\t%s\n' "$v" "$where" "$result" >>"$RANREAD_SUMMARY"
	fi
done
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$work"/*.deb "$keep/" 2>/dev/null || true
fi
if [ "$status" -eq 0 ]; then rm -rf "$work"; else echo "package.sh: FAILED; logs in $work" >&2; fi
exit "$status"
