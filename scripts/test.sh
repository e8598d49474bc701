#!/usr/bin/env bash
# test.sh: the whole ranread test suite on a fresh Debian 12 machine, as root,
# on every PostgreSQL major of the matrix, with a summary table at the end.
#
# For each major (RANREAD_PG_VERSIONS, default tested-majors), the suites of
# scripts/test-major.sh against that major's pg_config:
#   build  make COPT=-Werror, make install
#   lint   scripts/lint.sh (the one version boundary, the layers, the SQL's
#          qualification), on the host's majors (15 and 18), beside the
#          tests; cppcheck and clang-tidy once, against 18, niced in the
#          background after 18's server is built (the row "analysers")
#   suite  test/run-suite.sh (pg_regress, pgTAP) on throwaway clusters made
#          by pg_virtualenv, without and then with data checksums
#   tap    test/run-tap.sh: the fault-injection suite, which makes its own
#          clusters (the extension's upgrade tests among them; pg_upgrade
#          between majors runs apart, below); its longest checks, against
#          the capped lab device (test/t/lab/: 5 minutes a major), on the
#          host's majors (15 and 18) only
# The host's majors run one after the other, and beside them, in a copy of
# the tree, the chroots' (below).
# 15 comes from Debian 12's packages and 18 is built from Debian's source
# package (scripts/install-postgres.sh, cached); 17 (trixie) and 19
# (experimental) run in a chroot of the suite that serves them, with
# Debian's own binary packages (scripts/chroot.sh, cached).  16 is served by
# no suite this machine reaches and is reported so.  Then the main paths
# under valgrind on the first host major (scripts/valgrind.sh), and there
# the regression guard on ranread's own instructions per read on `direct`
# (bench/instructions_guard.sh, under callgrind: under a minute); the Debian
# package of each major, built in the suite that packages it (bookworm here
# for 15, trixie for 17, sid for 18 and 19: scripts/package.sh --suite;
# build, install, pg_buildext installcheck, purge); and pg_upgrade for each
# pair of tested-upgrades whose majors are both in the matrix
# (scripts/test-upgrade.sh, in the chroots with those packages).  The
# chroots' own packages and the upgrades between them run at the end of the
# chroots' lane, beside the host's majors (chroots_own_packages).  A failing
# suite does not stop the others, and a chroot that cannot be made is a row
# "not available" with the reason; the exit status is non-zero when any
# failed.  RANREAD_TEST_STEPS (default "majors valgrind packages upgrades")
# runs only the steps it names: "packages upgrades" checks the packaging and
# the upgrades alone, the host pairs then with whatever ranread is installed.
# RANREAD_TAP_JOBS=N runs N TAP files at once (test/run-tap.sh; default 4).
# RANREAD_TEST_EXTRA (e.g. "timing") passes through to the TAP suite: it
# opts in to the tests that assert this machine's speed rather than the code
# (see docs/reliability.md, "On a busy machine"); scripts/test-under-load.sh
# runs the TAP suite beside a CPU and I/O load.
set -euo pipefail
cd "$(dirname "$0")/.."

versions=${RANREAD_PG_VERSIONS:-$(cat tested-majors)}
# reported as not served, unless the matrix is narrowed
if [ -n "${RANREAD_PG_VERSIONS:-}" ]; then
	not_served=""
else
	not_served=16
fi

scripts/install-deps.sh
# test/run-tap.sh hands it on to the tests (as the postgres user)
export RANREAD_TEST_EXTRA=${RANREAD_TEST_EXTRA:-}
if [ -n "$RANREAD_TEST_EXTRA" ]; then
	echo "test.sh: RANREAD_TEST_EXTRA=$RANREAD_TEST_EXTRA: the opt-in tests it names run too"
fi

export RANREAD_SUMMARY=test-summary.tsv
rm -f "$RANREAD_SUMMARY"

# record MAJOR SUITE RESULT [SINCE]: a row of the summary table (as
# test-major.sh writes them), with the seconds since SINCE (a $SECONDS).
record() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:+$((SECONDS - ${4:-0}))}" >>"$RANREAD_SUMMARY"
}

steps=" ${RANREAD_TEST_STEPS:-majors valgrind packages upgrades} "

# chroot_ready SUITE: make SUITE's chroot, once per run; when it cannot be
# made, chroot_state[SUITE] says why, for the table.
declare -A chroot_state=()
chroot_ready() {
	local suite=$1 log
	if [ -z "${chroot_state[$suite]:-}" ]; then
		log=$(mktemp)
		if scripts/chroot.sh make "$suite" 2>"$log"; then
			chroot_state[$suite]=ready
		else
			chroot_state[$suite]="not available: $(tail -n 1 "$log" | sed 's/^chroot.sh: //')"
		fi
		cat "$log" >&2
		rm -f "$log"
	fi
	[ "${chroot_state[$suite]}" = ready ]
}

# The packages, kept for the upgrades: each major's in the suite that
# packages it ("host" for this machine), one build per suite.
debs=$(mktemp -d /tmp/ranread-debs.XXXXXX)
trap 'rm -rf "$debs" "${lane:-/nonexistent}" "${lane:-/nonexistent}.log" "${background:-/nonexistent}"' EXIT
declare -A suite_majors=()
suites=()
for major in $versions; do
	suite=$(scripts/chroot.sh package-suite "$major") || suite=host
	[ -n "${suite_majors[$suite]+set}" ] || suites+=("$suite")
	suite_majors[$suite]+="${suite_majors[$suite]:+ }$major"
done

# package_suite SUITE: build, install, check and purge the packages of the
# majors SUITE packages, there; keep them in $debs.
package_suite() {
	local suite=$1 majors=${suite_majors[$1]} major
	if [ "$suite" = host ]; then
		scripts/package.sh --keep "$debs" $majors || true
	elif chroot_ready "$suite"; then
		scripts/package.sh --suite "$suite" --keep "$debs" $majors || true
	else
		for major in $majors; do record "$major" "package ($suite)" "${chroot_state[$suite]}"; done
		return
	fi
	# package.sh writes a row per major, unless it stopped before building
	for major in $majors; do
		grep -q "^$major"$'\t'"package (" "$RANREAD_SUMMARY" || record "$major" "package ($suite)" failed
	done
}

# upgrade_pairs: the pairs of tested-upgrades (OLD NEW WHERE) whose majors
# are both in the matrix
upgrade_pairs() {
	local old new where
	while read -r old new where; do
		[[ " $versions " == *" $old "* && " $versions " == *" $new "* ]] && echo "$old $new $where"
	done < <(grep -v -e '^#' -e '^$' tested-upgrades)
}

# upgrade_pair OLD NEW WHERE: pg_upgrade from OLD to NEW, on this machine or
# in the chroot WHERE with the packages of $debs
upgrade_pair() {
	local old=$1 new=$2 where=$3
	if [ "$where" = host ]; then
		scripts/test-upgrade.sh "$old" "$new" || true
	elif chroot_ready "$where"; then
		scripts/test-upgrade.sh "$old" "$new" --suite "$where" --debs "$debs" || true
	else
		record "$old->$new" "pg_upgrade ($where)" "${chroot_state[$where]}"
	fi
}

# chroots_own_packages: what needs the chroots alone, run at the end of
# their lane while the host's majors are still tested: the packages of the
# chroot suites, and the upgrades in a chroot between two of them (their
# rows go to the lane's summary; each leaves a mark in $debs so that it is
# not run again below).  The host's package and the upgrades that need it
# follow the host's majors: a package installed and purged on the host would
# take its major's files from the tests.
chroots_own_packages() {
	local suite old new where
	if [[ $steps == *" packages "* ]]; then
		for suite in "${suites[@]}"; do
			[ "$suite" != host ] || continue
			package_suite "$suite"
			touch "$debs/$suite.done"
		done
	fi
	if [[ $steps == *" upgrades "* && $steps == *" packages "* ]]; then
		while read -r old new where; do
			local old_suite new_suite
			old_suite=$(scripts/chroot.sh package-suite "$old") || old_suite=host
			new_suite=$(scripts/chroot.sh package-suite "$new") || new_suite=host
			[ "$where" != host ] && [ "$old_suite" != host ] && [ "$new_suite" != host ] || continue
			upgrade_pair "$old" "$new" "$where"
			touch "$debs/$old-$new.done"
		done < <(upgrade_pairs)
	fi
}

# The majors run in two lanes at once: the host's majors here, and the
# chroots' majors in a copy of the tree (each lane builds in its own), whose
# output follows the host lane's and whose rows join the table after them.
# Their tests wait on their servers far more than they compute, and the
# chroots have their own network namespace and mounts; the capped lab
# device is the host lane's alone.
host_built=()
if [[ $steps == *" majors "* ]]; then
	chroot_majors=() host_majors=()
	for major in $versions; do
		if scripts/chroot.sh suite "$major" >/dev/null; then chroot_majors+=("$major"); else host_majors+=("$major"); fi
	done
	# the chroots are made first, here: making one may install packages on the host
	lane_majors=()
	for major in "${chroot_majors[@]}"; do
		suite=$(scripts/chroot.sh suite "$major")
		if chroot_ready "$suite"; then
			lane_majors+=("$major")
		else
			record "$major" "server ($suite)" "${chroot_state[$suite]}"
		fi
	done
	lane=
	if [ ${#lane_majors[@]} -gt 0 ]; then
		lane=$(mktemp -d /tmp/ranread-lane.XXXXXX)
		tar -c --exclude=./.git --exclude="./$RANREAD_SUMMARY" . | tar -x -C "$lane"
		echo "test.sh: PostgreSQL ${lane_majors[*]} run in their chroots beside the host's majors (their output follows)"
		(
			for major in "${lane_majors[@]}"; do
				RANREAD_CHROOT_SRC=$lane scripts/chroot.sh run "$(scripts/chroot.sh suite "$major")" \
					/src/scripts/test-major.sh "$major" --no-lint --no-capped-lab || true
			done
			export RANREAD_SUMMARY=$lane/chroots-own.tsv
			chroots_own_packages
		) >"$lane.log" 2>&1 &
		lane_pid=$!
	fi
	# The host's other majors are built from source (install-postgres.sh, a
	# few minutes the first time), then cppcheck and clang-tidy read src/
	# once, against the last host major's headers (scripts/lint.sh says why),
	# niced: in the background, from the lane's start, beside the first
	# major's tests, which mostly wait.  (A niced build of 18 took longer
	# than 15's tests: the lane waited 200 s for it.)
	background=$(mktemp -d /tmp/ranread-background.XXXXXX)
	background_pid=
	if [ ${#host_majors[@]} -gt 0 ]; then
		rc=0
		scripts/install-postgres.sh "${host_majors[0]}" || rc=$?
		echo "$rc" >"$background/${host_majors[0]}.rc"
		(
			for major in "${host_majors[@]:1}"; do
				rc=0
				scripts/install-postgres.sh "$major" >"$background/$major.log" 2>&1 || rc=$?
				echo "$rc" >"$background/$major.rc"
			done
			last=${host_majors[-1]}
			if [ "$(cat "$background/$last.rc")" = 0 ]; then
				since=$SECONDS rc=0
				PG_CONFIG=/usr/lib/postgresql/$last/bin/pg_config \
					nice -n 19 scripts/lint.sh --analysers-only >"$background/analysers.log" 2>&1 || rc=$?
				printf '%s\t%s\n' "$rc" "$((SECONDS - since))" >"$background/analysers.rc"
			fi
		) &
		background_pid=$!
	fi
	for major in "${host_majors[@]}"; do
		while [ ! -s "$background/$major.rc" ] && kill -0 "$background_pid" 2>/dev/null; do sleep 2; done
		cat "$background/$major.log" 2>/dev/null || true
		if [ "$(cat "$background/$major.rc" 2>/dev/null)" != 0 ]; then
			record "$major" server failed
			continue
		fi
		scripts/test-major.sh "$major" --no-analysers || true
		if grep -qx "$(printf '%s\tbuild\tpassed\t[0-9]*' "$major")" "$RANREAD_SUMMARY"; then
			host_built+=("$major")
		fi
	done
	if [ -n "$background_pid" ]; then
		wait "$background_pid" || true
		if [ -f "$background/analysers.rc" ]; then
			echo "=== PostgreSQL ${host_majors[-1]}: cppcheck and clang-tidy (ran beside the host's majors) ==="
			cat "$background/analysers.log"
			read -r rc seconds <"$background/analysers.rc"
			printf '%s\t%s\t%s\t%s\n' "${host_majors[-1]}" analysers "$([ "$rc" = 0 ] && echo passed || echo failed)" \
				"$seconds" >>"$RANREAD_SUMMARY"
		fi
	fi
	rm -rf "$background"
	if [ -n "$lane" ]; then
		wait "$lane_pid" || true
		echo "=== PostgreSQL ${lane_majors[*]}, in their chroots (run beside the above) ==="
		cat "$lane.log"
		cat "$lane/$RANREAD_SUMMARY" >>"$RANREAD_SUMMARY" 2>/dev/null || true
		for major in "${lane_majors[@]}"; do
			grep -q "^$major"$'\t' "$RANREAD_SUMMARY" || record "$major" "server (chroot)" failed
		done
		cat "$lane/chroots-own.tsv" >>"$RANREAD_SUMMARY" 2>/dev/null || true
		rm -rf "$lane" "$lane.log"
	fi
	for major in $not_served; do
		record "$major" server "not served by Debian's archive"
	done
fi

if [[ $steps == *" valgrind "* ]] && [ ${#host_built[@]} -gt 0 ]; then
	# valgrind on the first host major: the last make install was another one's
	first=${host_built[0]}
	export PG_CONFIG=/usr/lib/postgresql/$first/bin/pg_config
	make -s && make -s install
	since=$SECONDS
	if scripts/valgrind.sh; then record "$first" valgrind passed $since; else record "$first" valgrind failed $since; fi
	# the regression guard on ranread's own instructions per read, under callgrind too
	since=$SECONDS
	if bench/instructions_guard.sh; then
		record "$first" "instructions guard" passed $since
	else
		record "$first" "instructions guard" failed $since
	fi
	unset PG_CONFIG
fi

if [[ $steps == *" packages "* ]]; then
	for suite in "${suites[@]}"; do
		[ -e "$debs/$suite.done" ] || package_suite "$suite"
	done
fi

# pg_upgrade for the pairs of tested-upgrades whose majors are both in the matrix
if [[ $steps == *" upgrades "* ]]; then
	while read -r old new where; do
		[ -e "$debs/$old-$new.done" ] || upgrade_pair "$old" "$new" "$where"
	done < <(upgrade_pairs)
fi

echo
printf '%-10s  %-22s  %-8s  %s\n' PostgreSQL suite seconds result
failed=0
while IFS=$'\t' read -r major suite result seconds; do
	printf '%-10s  %-22s  %8s  %s\n' "$major" "$suite" "$seconds" "$result"
	[ "$result" = failed ] && failed=1
done <"$RANREAD_SUMMARY"
echo "test.sh: the whole matrix took $((SECONDS / 60)) min $((SECONDS % 60)) s"
if [ "$failed" -ne 0 ]; then
	echo "ranread: some test suites failed" >&2
	exit 1
fi
echo "ranread: all test suites passed"
