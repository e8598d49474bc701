#!/usr/bin/env bash
# test.sh: the whole ranread test suite on a fresh Debian 12 machine, as root,
# on every PostgreSQL major of the matrix, with a summary table at the end.
#
# For each major (RANREAD_PG_VERSIONS, default "15 18"; 15 from Debian's
# binary packages, the others built from Debian's source packages by
# scripts/install-postgres.sh and cached), against that major's pg_config:
#   build  make COPT=-Werror, make install
#   lint   scripts/lint.sh (cppcheck, clang-tidy, the one version boundary)
#   suite  test/run-suite.sh (pg_regress, pgTAP) on throwaway clusters made
#          by pg_virtualenv, without and then with data checksums
#   tap    test/run-tap.sh: the fault-injection suite, which makes its own
#          clusters (the upgrade tests among them; on a major above 15 also
#          pg_upgrade from 15)
# then the main paths under valgrind on the first major (scripts/valgrind.sh),
# and the Debian packages of every major built (scripts/package.sh: build,
# install, pg_buildext installcheck, purge).
# RANREAD_TEST_EXTRA (e.g. "timing") passes through to the TAP suite: it
# opts in to the tests that assert this machine's speed rather than the code
# (see docs/reliability.md, "On a busy machine"); scripts/test-under-load.sh
# runs the TAP suite beside a CPU and I/O load.
# Majors in RANREAD_PG_TRY_VERSIONS (default "16 17 19", none when
# RANREAD_PG_VERSIONS narrows the matrix) run too when
# Debian's archive serves their source, and are reported as not served when
# it does not.  A failing suite does not stop the others; the exit status is
# non-zero when any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

versions=${RANREAD_PG_VERSIONS:-15 18}
# the majors tried besides: by default only when the matrix is not narrowed
if [ -n "${RANREAD_PG_VERSIONS:-}" ]; then
	try_versions=${RANREAD_PG_TRY_VERSIONS:-}
else
	try_versions=${RANREAD_PG_TRY_VERSIONS-16 17 19}
fi
# Workers: the suite needs up to 24 dynamic workers at once.
cluster_opts=(-o max_worker_processes=32 -o shared_buffers=128MB)

scripts/install-deps.sh
# test/run-tap.sh hands it on to the tests (as the postgres user)
export RANREAD_TEST_EXTRA=${RANREAD_TEST_EXTRA:-}
if [ -n "$RANREAD_TEST_EXTRA" ]; then
	echo "test.sh: RANREAD_TEST_EXTRA=$RANREAD_TEST_EXTRA: the opt-in tests it names run too"
fi

summary=()
failed=0
# record MAJOR SUITE RESULT: one row of the summary table.
record() {
	summary+=("$(printf '%-10s  %-22s  %s' "$1" "$2" "$3")")
	if [ "$3" = failed ]; then
		failed=1
	fi
}
# step MAJOR SUITE COMMAND...: run a suite, record whether it passed.
step() {
	local major=$1 suite=$2
	shift 2
	echo "=== PostgreSQL $major: $suite ==="
	if "$@"; then
		record "$major" "$suite" passed
	else
		record "$major" "$suite" failed
	fi
}

built=()
suites_on() {
	local major=$1
	export PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config
	if ! { make clean >/dev/null && make COPT=-Werror && make install; }; then
		record "$major" build failed
		return
	fi
	record "$major" build passed
	built+=("$major")
	step "$major" lint scripts/lint.sh
	# initdb makes data checksums by default since 18
	local no_checksums=()
	if [ "$major" -ge 18 ]; then
		no_checksums=(-i --no-data-checksums)
	fi
	step "$major" "regress+pgtap" pg_virtualenv -v "$major" -t "${no_checksums[@]}" "${cluster_opts[@]}" test/run-suite.sh
	step "$major" "same, with checksums" pg_virtualenv -v "$major" -t -i --data-checksums "${cluster_opts[@]}" test/run-suite.sh
	step "$major" tap test/run-tap.sh
}

for major in $versions $try_versions; do
	status=0
	scripts/install-postgres.sh "$major" || status=$?
	if [ "$status" -eq 2 ] && [[ " $try_versions " == *" $major "* ]]; then
		record "$major" server "not served by Debian's archive"
		continue
	elif [ "$status" -ne 0 ]; then
		record "$major" server failed
		continue
	fi
	suites_on "$major"
done

if [ ${#built[@]} -gt 0 ]; then
	# valgrind on the first major: the last make install was another one's
	first=${built[0]}
	export PG_CONFIG=/usr/lib/postgresql/$first/bin/pg_config
	make -s && make -s install
	step "$first" valgrind scripts/valgrind.sh
	# a package per major that built and that debian/pgversions lists
	packaged=()
	for major in "${built[@]}"; do
		if grep -qx "$major" debian/pgversions; then
			packaged+=("$major")
		fi
	done
	step "${packaged[*]}" package env -u PG_CONFIG RANREAD_PG_VERSIONS="${packaged[*]}" scripts/package.sh
fi

echo
printf '%-10s  %-22s  %s\n' PostgreSQL suite result
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
	echo "ranread: some test suites failed" >&2
	exit 1
fi
echo "ranread: all test suites passed"
