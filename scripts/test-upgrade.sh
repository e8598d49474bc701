#!/usr/bin/env bash
# test-upgrade.sh OLD NEW [--suite SUITE --debs DIR]: pg_upgrade from
# PostgreSQL OLD to NEW with ranread's history (test/t/extension/pg_upgrade.pl),
# as root, for one pair of tested-upgrades.
#
# On this machine it uses the ranread that `make install` put into both
# majors (scripts/test-major.sh).  With --suite it runs in that suite's chroot
# (scripts/chroot.sh), which holds both servers, and installs there the two
# Debian packages postgresql-OLD-ranread and postgresql-NEW-ranread from DIR
# (scripts/package.sh --keep DIR), each built in its own suite: a trixie
# cluster with trixie's package upgraded to sid's 18 with sid's, as a Debian
# user would.  The chroot has no git: the tree and the packages are copied to
# a scratch directory it sees at /src, and this script runs again there with
# --exported.  The packages are purged afterwards (scripts/deb.sh).
#
# Exit status: 0 passed, 1 failed, 2 not available (the reason is printed:
# a server, a package or ranread missing).  With RANREAD_SUMMARY set, a row
# "OLD->NEW<tab>pg_upgrade (WHERE)<tab>RESULT" of it, as test-major.sh writes.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	echo "usage: test-upgrade.sh OLD NEW [--suite SUITE --debs DIR]" >&2
	exit 1
}
[ $# -ge 2 ] || usage
old=$1 new=$2
shift 2
suite="" debs="" exported=no
while [ $# -gt 0 ]; do
	case "$1" in
		--suite) [ $# -ge 2 ] || usage; suite=$2; shift 2 ;;
		--debs) [ $# -ge 2 ] || usage; debs=$2; shift 2 ;;
		--exported) exported=yes; shift; break ;;
		*) usage ;;
	esac
done
[[ "$old" =~ ^[0-9]+$ && "$new" =~ ^[0-9]+$ ]] || usage
[ "$(id -u)" -eq 0 ] || { echo "test-upgrade.sh: run as root" >&2; exit 1; }

# not_available REASON: say why the pair cannot run here, exit 2
not_available() {
	echo "test-upgrade.sh: $old→$new: $1" >&2
	exit 2
}

# purge_all: purge the packages run_pair installed, and its scratch directory
purge_all() {
	local pkg
	for pkg in "${pkgs[@]}"; do
		deb_purge "$work" "$pkg" || true
	done
	rm -rf "$work"
}

# run_pair [DEB...]: install the packages, check that both servers and
# ranread for both are there, run the test, purge the packages.
run_pair() {
	local m deb status=0
	pkgs=()
	for m in "$old" "$new"; do
		[ -x "/usr/lib/postgresql/$m/bin/pg_ctl" ] || not_available "PostgreSQL $m is not installed here"
	done
	work=$(mktemp -d /tmp/ranread-upgrade.XXXXXX)
	# shellcheck source=scripts/deb.sh
	. scripts/deb.sh
	trap 'purge_all' EXIT
	for deb in "$@"; do
		deb_install "$work" "$deb" || return 1
		pkgs+=("$(dpkg-deb -f "$deb" Package)")
	done
	for m in "$old" "$new"; do
		[ -f "$("/usr/lib/postgresql/$m/bin/pg_config" --sharedir)/extension/ranread.control" ] ||
			not_available "ranread is not installed for PostgreSQL $m"
	done
	PG_CONFIG=/usr/lib/postgresql/$new/bin/pg_config RANREAD_UPGRADE_FROM=/usr/lib/postgresql/$old \
		test/run-tap.sh test/t/extension/pg_upgrade.pl || status=$?
	return "$status"
}

if [ "$exported" = yes ]; then
	run_pair "$@"
	exit
fi

status=0
if [ -n "$suite" ]; then
	where=$suite
	[ -n "$debs" ] || usage
	work=$(mktemp -d /tmp/ranread-upgrade.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	chmod 755 "$work"
	mkdir "$work/ranread"
	tree=$(git stash create)
	git archive "${tree:-HEAD}" | tar -C "$work/ranread" -xf -
	names=()
	for m in "$old" "$new"; do
		deb=$(ls "$debs/postgresql-$m-ranread_"*.deb 2>/dev/null | tail -n 1) || deb=""
		if [ -z "$deb" ]; then
			status=2
			echo "test-upgrade.sh: $old→$new: no postgresql-$m-ranread package in $debs (its build failed or did not run)" >&2
			break
		fi
		cp "$deb" "$work/"
		names+=("/src/$(basename "$deb")")
	done
	if [ "$status" -eq 0 ]; then
		RANREAD_CHROOT_SRC=$work scripts/chroot.sh run "$suite" \
			/src/ranread/scripts/test-upgrade.sh "$old" "$new" --exported "${names[@]}" || status=$?
	fi
else
	where=host
	(run_pair) || status=$?
fi
case "$status" in
	0) result=passed ;;
	2) result="not available (see the output above)" ;;
	*) result=failed ;;
esac
if [ -n "${RANREAD_SUMMARY:-}" ]; then
	printf '%s\tpg_upgrade (%s)\t%s\n' "$old->$new" "$where" "$result" >>"$RANREAD_SUMMARY"
fi
exit "$status"
