#!/usr/bin/env bash
# package.sh: build ranread's Debian packages from debian/ (dh --with
# pgxs_loop, pg_buildext) with dpkg-buildpackage -us -uc -b in a scratch copy
# of the tree, then for each PostgreSQL major: install
# postgresql-<major>-ranread, check its files, run the regression test against
# the installed files (debian/tests/installcheck, the autopkgtest) and purge the
# package again, restoring any ranread files a `make install` had put there.
# As root.  RANREAD_PG_VERSIONS (space-separated, default "15") picks the majors.
#
# How pg_buildext picks majors: it builds those listed in debian/pgversions that
# /usr/share/postgresql-common/supported-versions also prints.  That script
# prints the first of $PG_SUPPORTED_VERSIONS, $DEB_PG_SUPPORTED_VERSIONS,
# ~/.pg_supported_versions, /etc/postgresql-common/supported_versions (here:
# "default"), where "default" is the distribution's major (bookworm: 15 only)
# and "installed" the majors with a postgresql-server-dev-<major> *package*.
# So a PostgreSQL built from source into /usr/lib/postgresql/18 is never picked
# up by itself, only when named: PG_SUPPORTED_VERSIONS="15 18" (pg_buildext then
# needs /usr/lib/postgresql/18/bin/pg_config).  This script passes
# RANREAD_PG_VERSIONS as PG_SUPPORTED_VERSIONS, and PG_UPDATECONTROL=yes lets
# the build's clean step (pg_buildext checkcontrol) regenerate debian/control
# (committed for 15) with one package per chosen major, in the scratch copy.
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

versions="${RANREAD_PG_VERSIONS:-15}"
for v in $versions; do
	grep -qx "$v" debian/pgversions || { echo "package.sh: PostgreSQL $v is not in debian/pgversions" >&2; exit 1; }
	[ -x "/usr/lib/postgresql/$v/bin/pg_config" ] || { echo "package.sh: no /usr/lib/postgresql/$v/bin/pg_config" >&2; exit 1; }
done
export PG_SUPPORTED_VERSIONS="$versions" PG_UPDATECONTROL=yes
extversion=$(sed -n "s/^default_version = '\(.*\)'/\1/p" ranread.control)

# Scratch copy of the tracked files as they are now (uncommitted edits included):
# dpkg-buildpackage writes its .deb files into the parent directory.
work=$(mktemp -d /tmp/ranread-package.XXXXXX)
# the build's own installcheck loads the extension from inside the build tree
# (extension_destdir), and the server (postgres) scans its directory for the
# update scripts that install 1.3: it must be able to enter it
chmod 755 "$work"
src="$work/ranread"
mkdir "$src"
tree=$(git stash create)
git archive "${tree:-HEAD}" | tar -C "$src" -xf -

installed_pkg=""
cleanup() {
	local rc=$?
	if [ -n "$installed_pkg" ]; then
		dpkg --purge "$installed_pkg" >>"$work/purge.log" 2>&1 || rc=1
		restore_preexisting
	fi
	if [ "$rc" -eq 0 ]; then rm -rf "$work"; else echo "package.sh: FAILED; logs in $work" >&2; fi
	exit "$rc"
}
trap cleanup EXIT

# Files the package ships that are already on disk and no package owns (a
# `make install` of ranread) go to a tarball, and come back after the purge.
save_preexisting() {
	local deb=$1 f
	dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n 's|^\./|/|; /[^/]$/p' | while read -r f; do
		if [ -e "$f" ]; then echo "$f"; fi
	done >"$work/ondisk.list"
	# dpkg -S prints "package: /path" for the owned ones (one call: each takes 0.1 s)
	: >"$work/owned.list"
	if [ -s "$work/ondisk.list" ]; then
		{ xargs -d '\n' dpkg -S <"$work/ondisk.list" 2>/dev/null || true; } | sed 's/^[^:]*: //' >"$work/owned.list"
	fi
	{ grep -vxFf "$work/owned.list" "$work/ondisk.list" || true; } | sed 's|^/||' >"$work/preexisting.list"
	rm -f "$work/preexisting.tar"
	if [ -s "$work/preexisting.list" ]; then tar -C / -cpf "$work/preexisting.tar" -T "$work/preexisting.list"; fi
}
restore_preexisting() {
	if [ -f "$work/preexisting.tar" ]; then tar -C / -xpf "$work/preexisting.tar"; fi
}

echo "=== building (dpkg-buildpackage -us -uc -b) for PostgreSQL $versions ==="
if ! (cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$work/build.log" 2>&1; then
	tail -n 150 "$work/build.log"
	exit 1
fi

for v in $versions; do
	pkg="postgresql-$v-ranread"
	deb=$(ls "$work/${pkg}_"*.deb 2>/dev/null) || { echo "package.sh: the build made no $pkg" >&2; exit 1; }
	pkgversion=$(dpkg-deb -f "$deb" Version)
	save_preexisting "$deb"

	installed_pkg="$pkg"
	if dpkg-query -W -f='${Status}' "postgresql-$v" 2>/dev/null | grep -q "install ok installed"; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 "$deb" >"$work/install-$v.log" 2>&1 ||
			{ cat "$work/install-$v.log"; exit 1; }
	else
		# A server built from source is no package: its Depends cannot be met.
		dpkg -i --force-depends "$deb" >"$work/install-$v.log" 2>&1 || { cat "$work/install-$v.log"; exit 1; }
	fi

	# The list goes to a file first: with pipefail, `dpkg -L | grep -q` fails
	# whenever grep exits at its match before dpkg has written the whole list.
	dpkg -L "$pkg" >"$work/files-$v.list"
	for f in ranread.so ranread.control; do
		grep -q "/$f\$" "$work/files-$v.list" || { echo "package.sh: $pkg lacks $f" >&2; exit 1; }
	done
	# the current version's install script, or the update script that reaches it
	grep -Eq "/ranread--([0-9.]+--)?$extversion\.sql\$" "$work/files-$v.list" ||
		{ echo "package.sh: $pkg has no script that installs ranread $extversion" >&2; exit 1; }

	# pg_buildext installcheck tests every installed postgresql-*-ranread: only this one is.
	if ! (cd "$src" && debian/tests/installcheck) >"$work/installcheck-$v.log" 2>&1; then
		cat "$work/installcheck-$v.log"
		exit 1
	fi

	dpkg --purge "$pkg" >>"$work/purge.log" 2>&1 || { cat "$work/purge.log"; exit 1; }
	installed_pkg=""
	restore_preexisting
	echo "package $pkg $pkgversion: built, installed, installcheck passed"
done
