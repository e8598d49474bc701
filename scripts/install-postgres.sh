#!/usr/bin/env bash
# install-postgres.sh MAJOR: a PostgreSQL server of that major version, with
# the contrib modules and pgTAP the tests use, in Debian's layout, as root.
#
# 15 comes from Debian 12's binary packages (scripts/install-deps.sh).  Any
# other major is built from Debian's own source package (apt-get source
# postgresql-MAJOR, from whichever Debian suite serves it) with TAP support and
# liburing, and installed where Debian would put it:
#   /usr/lib/postgresql/MAJOR/{bin,lib}, /usr/share/postgresql/MAJOR,
#   /usr/include/postgresql/MAJOR/server
# so that pg_virtualenv -v MAJOR, pg_buildext and PG_CONFIG=.../pg_config all
# find it.  Debian's pgtap source package is built against it the same way.
#
# The installed tree is cached as a tarball per version under
# $RANREAD_PG_CACHE (default /var/cache/ranread): a second run unpacks it in
# seconds.  Apt runs with a private source list and private state, so the
# machine's own apt configuration is never touched.
#
# Exit status: 0 installed (or already there), 2 the archive does not serve
# that major, 1 anything else.
set -euo pipefail

major=${1:-}
if ! [[ "$major" =~ ^[0-9]+$ ]]; then
	echo "usage: install-postgres.sh MAJOR   (e.g. 18)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-postgres.sh: run as root (it installs into /usr/lib/postgresql)" >&2
	exit 1
fi

here=$(cd "$(dirname "$0")" && pwd)
if [ "$major" = 15 ]; then
	exec "$here/install-deps.sh"
fi

cache=${RANREAD_PG_CACHE:-/var/cache/ranread}
prefix=/usr/lib/postgresql/$major
stamp=$prefix/.ranread-build
mkdir -p "$cache"

# A PostgreSQL this script did not build is left alone.
if [ -x "$prefix/bin/postgres" ] && [ ! -f "$stamp" ] && [ ! -f "$prefix/.ranread-building" ]; then
	echo "install-postgres.sh: $prefix holds a PostgreSQL not built by this script; leaving it alone" >&2
	exit 1
fi
# An earlier build that was interrupted: start again.
if [ -f "$prefix/.ranread-building" ]; then
	echo "install-postgres.sh: removing an interrupted build in $prefix"
	rm -rf "$prefix" "/usr/share/postgresql/$major" "/usr/include/postgresql/$major"
fi
have_pgtap() { [ -f "/usr/share/postgresql/$major/extension/pgtap.control" ]; }
if [ -f "$stamp" ] && have_pgtap; then
	echo "install-postgres.sh: PostgreSQL $(cat "$stamp") with pgTAP already installed in $prefix"
	exit 0
fi

# Build tools: bison and flex since 17 (tarballs no longer carry their output).
build_packages=(build-essential dpkg-dev bison flex libipc-run-perl liburing-dev pkg-config
	zlib1g-dev libkrb5-dev postgresql-common)
# shellcheck source=scripts/apt.sh
source "$here/apt.sh"
install_packages "${build_packages[@]}"

# A cached build of this major: unpack it.
cached=$(ls -1 "$cache"/postgresql-"$major"_*.tar.gz 2>/dev/null | sort -V | tail -n 1 || true)
if [ ! -f "$stamp" ] && [ -n "$cached" ]; then
	tar -C / -xzf "$cached"
	echo "install-postgres.sh: PostgreSQL $(cat "$stamp") installed from $cached"
	exit 0
fi

# Apt with a private source list and state: Debian's source suites, newest last.
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial"
cat >"$apt_dir/sources.list" <<'EOF'
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian forky main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian experimental main
EOF
apt_src=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
	-o "APT::Get::List-Cleanup=false")
apt-get "${apt_src[@]}" update -q >/dev/null

work=$(mktemp -d /tmp/ranread-pg"$major".XXXXXX)
trap 'rm -rf "$work"' EXIT

# Fetch a source package's upstream tarball (.orig.tar.*), the newest version
# whose tarball the archive serves: an index can list a version whose pool
# files answer 404, or serve the tarball but not the .dsc (only the tarball is
# built here).  Exit 2 with a plain message where none is served.
fetch_source() {
	local package=$1 version
	for version in $(apt-cache "${apt_src[@]}" showsrc "$package" 2>/dev/null | sed -n 's/^Version: //p' | sort -rVu); do
		(cd "$work" && apt-get "${apt_src[@]}" source --download-only -q "$package=$version" >>"$work/$package.log" 2>&1) || true
		if ls "$work/${package}_${version%%-*}".orig.tar.* >/dev/null 2>&1; then
			return 0
		fi
	done
	echo "install-postgres.sh: Debian's archive does not serve the source package $package:" >&2
	grep -E '^(E|W|Err):' "$work/$package.log" 2>/dev/null | grep -v unsandboxed | head -n 6 >&2 ||
		echo "no suite (bookworm, trixie, forky, sid, experimental) lists it" >&2
	exit 2
}

# The server, unless installed already.
if [ ! -f "$stamp" ]; then
	fetch_source "postgresql-$major"
	orig=$(ls -1 "$work"/postgresql-"$major"_*.orig.tar.* | sort -V | tail -n 1)
	version=$(basename "$orig" | sed -E "s/^postgresql-${major}_(.*)\.orig\.tar\..*$/\1/")
	echo "install-postgres.sh: building PostgreSQL $version from $(basename "$orig")"
	mkdir "$work/src"
	tar -C "$work/src" --strip-components=1 -xf "$orig"
	(
		cd "$work/src"
		./configure -q --prefix="$prefix" \
			--datadir="/usr/share/postgresql/$major" \
			--includedir="/usr/include/postgresql/$major" \
			--sysconfdir=/etc/postgresql-common \
			--mandir="/usr/share/postgresql/$major/man" \
			--docdir="/usr/share/doc/postgresql-doc-$major" \
			--with-extra-version=" (ranread build of Debian $version)" \
			--enable-tap-tests --with-liburing --without-icu --without-readline
		make -s -j"$(nproc)" >/dev/null
		mkdir -p "$prefix"
		touch "$prefix/.ranread-building"
		make -s install >/dev/null
		for module in pg_prewarm pageinspect amcheck dblink postgres_fdw pg_buffercache; do
			make -s -C "contrib/$module" install >/dev/null
		done
		# the TAP modules (PostgreSQL::Test::Cluster), where PGXS's prove_installcheck looks
		make -s -C src/test/perl install >/dev/null
	)
	echo "$version" >"$stamp"
	rm "$prefix/.ranread-building"
fi
version=$(cat "$stamp")

# pgTAP for this major, from Debian's pgtap source package.
if ! have_pgtap; then
	fetch_source pgtap
	pgtap=$(ls -1 "$work"/pgtap_*.orig.tar.* | sort -V | tail -n 1)
	echo "install-postgres.sh: building $(basename "$pgtap") for PostgreSQL $version"
	mkdir "$work/pgtap"
	tar -C "$work/pgtap" --strip-components=1 -xf "$pgtap"
	make -s -C "$work/pgtap" PG_CONFIG="$prefix/bin/pg_config" >/dev/null
	make -s -C "$work/pgtap" PG_CONFIG="$prefix/bin/pg_config" install >/dev/null
fi

cd /
tar -czf "$cache/postgresql-${major}_$version.tar.gz" \
	"${prefix#/}" "usr/share/postgresql/$major" "usr/include/postgresql/$major"
echo "install-postgres.sh: PostgreSQL $version and pgTAP installed in $prefix (cached in $cache)"
