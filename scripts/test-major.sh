#!/usr/bin/env bash
# test-major.sh MAJOR [--no-lint] [--no-analysers] [--no-capped-lab]: every
# suite of ranread against one PostgreSQL major, as root, in this tree: build
# (make COPT=-Werror, make install), lint (scripts/lint.sh, beside the tests;
# --no-lint in a chroot, whose compilers are the suite's; --no-analysers
# for all but one host major), regress+pgTAP without and with data
# checksums (pg_virtualenv), and the TAP suite (test/run-tap.sh; with
# --no-capped-lab, the long checks of test/t/lab/ against the capped lab
# device skip and say so).  scripts/test.sh runs it on the host for the majors
# Debian 12 serves or the project builds, and in a chroot (scripts/chroot.sh)
# for the others, there with both options.
#
# Each suite's result is a line "MAJOR<tab>SUITE<tab>passed|failed<tab>SECONDS"
# appended to $RANREAD_SUMMARY (a path relative to the tree; default test-summary.tsv).
# A failing suite does not stop the others; the exit status is non-zero when
# any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

major=${1:-}
lint=yes
lint_args=()
shift || true
for option in "$@"; do
	case $option in
		--no-lint) lint=no ;;
		--no-analysers) lint_args=(--no-analysers) ;;
		# test/run-tap.sh makes no capped lab device, and its tests skip with this reason
		--no-capped-lab) export RANREAD_LAB_CAP_SKIP="its checks run on the host's majors (scripts/test.sh)" ;;
		*) major= ;;
	esac
done
if ! [[ "$major" =~ ^[0-9]+$ ]]; then
	echo "usage: test-major.sh MAJOR [--no-lint] [--no-analysers] [--no-capped-lab]" >&2
	exit 1
fi
summary=${RANREAD_SUMMARY:-test-summary.tsv}
mkdir -p "$(dirname "$summary")"
# Workers: the suite needs up to 24 dynamic workers at once.
cluster_opts=(-o max_worker_processes=32 -o shared_buffers=128MB)
failed=0

# record SUITE passed|failed SINCE: a row of the summary, with the suite's
# seconds (since SINCE, a value of $SECONDS).
record() {
	printf '%s\t%s\t%s\t%s\n' "$major" "$1" "$2" "$((SECONDS - $3))" >>"$summary"
	[ "$2" = passed ] || failed=1
}

# step SUITE COMMAND...: run a suite, record whether it passed.
step() {
	local suite=$1 since=$SECONDS
	shift
	echo "=== PostgreSQL $major: $suite ==="
	if "$@"; then record "$suite" passed "$since"; else record "$suite" failed "$since"; fi
}

export PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config
since=$SECONDS
if ! { make clean >/dev/null && make COPT=-Werror && make install; }; then
	record build failed "$since"
	exit 1
fi
record build passed "$since"
# The analysers compute and the tests mostly wait: lint runs beside them,
# its output kept until they are done.
if [ "$lint" = yes ]; then
	lint_log=$(mktemp)
	lint_since=$SECONDS
	scripts/lint.sh "${lint_args[@]}" >"$lint_log" 2>&1 &
	lint_pid=$!
fi
# initdb makes data checksums by default since 18
no_checksums=()
if [ "$major" -ge 18 ]; then
	no_checksums=(-i --no-data-checksums)
fi
step "regress+pgtap" pg_virtualenv -v "$major" -t "${no_checksums[@]}" "${cluster_opts[@]}" test/run-suite.sh
step "same, with checksums" pg_virtualenv -v "$major" -t -i --data-checksums "${cluster_opts[@]}" test/run-suite.sh
step tap test/run-tap.sh
if [ "$lint" = yes ]; then
	echo "=== PostgreSQL $major: lint (ran beside the tests) ==="
	if wait "$lint_pid"; then lint_result=passed; else lint_result=failed; fi
	cat "$lint_log"
	rm -f "$lint_log"
	record lint "$lint_result" "$lint_since"
fi
exit "$failed"
