#!/usr/bin/env bash
# test-major.sh MAJOR [--no-lint] [--no-capped-lab]: every suite of ranread
# against one PostgreSQL major, as root, in this tree: build (make
# COPT=-Werror, make install), lint (scripts/lint.sh; --no-lint in a chroot,
# whose compilers are the suite's), regress+pgTAP without and with data
# checksums (pg_virtualenv), and the TAP suite (test/run-tap.sh; with
# --no-capped-lab, the long checks against the capped lab device, 220 to
# 224, skip and say so).  scripts/test.sh runs it on the host for the majors
# Debian 12 serves or the project builds, and in a chroot (scripts/chroot.sh)
# for the others, there with both options.
#
# Each suite's result is a line "MAJOR<tab>SUITE<tab>passed|failed" appended to
# $RANREAD_SUMMARY (a path relative to the tree; default test-summary.tsv).
# A failing suite does not stop the others; the exit status is non-zero when
# any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

major=${1:-}
lint=yes
shift || true
for option in "$@"; do
	case $option in
		--no-lint) lint=no ;;
		# test/run-tap.sh makes no capped lab device, and its tests skip with this reason
		--no-capped-lab) export RANREAD_LAB_CAP_SKIP="its checks run on the host's majors (scripts/test.sh)" ;;
		*) major= ;;
	esac
done
if ! [[ "$major" =~ ^[0-9]+$ ]]; then
	echo "usage: test-major.sh MAJOR [--no-lint] [--no-capped-lab]" >&2
	exit 1
fi
summary=${RANREAD_SUMMARY:-test-summary.tsv}
mkdir -p "$(dirname "$summary")"
# Workers: the suite needs up to 24 dynamic workers at once.
cluster_opts=(-o max_worker_processes=32 -o shared_buffers=128MB)
failed=0

# step SUITE COMMAND...: run a suite, record whether it passed.
step() {
	local suite=$1
	shift
	echo "=== PostgreSQL $major: $suite ==="
	if "$@"; then
		printf '%s\t%s\tpassed\n' "$major" "$suite" >>"$summary"
	else
		printf '%s\t%s\tfailed\n' "$major" "$suite" >>"$summary"
		failed=1
	fi
}

export PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config
if ! { make clean >/dev/null && make COPT=-Werror && make install; }; then
	printf '%s\tbuild\tfailed\n' "$major" >>"$summary"
	exit 1
fi
printf '%s\tbuild\tpassed\n' "$major" >>"$summary"
if [ "$lint" = yes ]; then
	step lint scripts/lint.sh
fi
# initdb makes data checksums by default since 18
no_checksums=()
if [ "$major" -ge 18 ]; then
	no_checksums=(-i --no-data-checksums)
fi
step "regress+pgtap" pg_virtualenv -v "$major" -t "${no_checksums[@]}" "${cluster_opts[@]}" test/run-suite.sh
step "same, with checksums" pg_virtualenv -v "$major" -t -i --data-checksums "${cluster_opts[@]}" test/run-suite.sh
step tap test/run-tap.sh
exit "$failed"
