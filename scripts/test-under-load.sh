#!/usr/bin/env bash
# test-under-load.sh: run ranread's tests beside a CPU and I/O load, as a new
# user's busy machine would (other builds, other test suites), to show that
# the suite asserts the code and not this machine's speed or scheduling.
#
# The load is `stress-ng --cpu 2 --io 1`: two CPU hogs and one I/O hog
# (sync(2) in a loop), started in a process group of its own and ended, by
# that group's id, on every exit path (success, failure, ^C, TERM).  The I/O
# hog also opens every mount point it sees (for syncfs(2)), which would keep
# test/run-tap.sh's loop-mounted ext4 and ramfs busy, this script's and any
# other user's, so that their umount fails: stress-ng runs in a private
# mount namespace (unshare), where the TAP suites' mounts are detached and
# later ones never appear.
#
# Usage, as root, after `make install` for each major (PG_CONFIG as usual):
#   scripts/test-under-load.sh [-r RUNS] [MAJOR ...] [-- COMMAND ...]
#     MAJOR ...     the majors whose TAP suite (test/run-tap.sh) runs, each
#                   against /usr/lib/postgresql/MAJOR/bin/pg_config unless
#                   RANREAD_PG_CONFIG_DIR names another tree
#                   (RANREAD_PG_CONFIG_DIR=/opt/pg/usr/lib/postgresql:
#                   DIR/MAJOR/bin/pg_config); default: $PG_CONFIG's major,
#                   or 15 and 18
#     -r RUNS       run each major's suite RUNS times in a row (default 1;
#                   -r 3 is "three times in a row")
#     -- COMMAND    run COMMAND (once per run) instead of the TAP suite
#   RANREAD_TEST_EXTRA passes through to the tests (e.g. "timing" to run the
#   opt-in tests that assert this machine's speed; they are expected to be
#   the ones a busy machine can fail).
# Each run's TAP output goes to a log under $RANREAD_LOAD_LOGDIR (default a
# fresh /tmp/ranread_load.XXXXXX); the summary at the end has one line per
# run: major, run number, result, prove's test and failure counts, duration;
# then the load average seen during the runs.  Exit status: non-zero when
# any run failed.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1
majors=()
command=()
while [ $# -gt 0 ]; do
	case $1 in
	-r)
		runs=$2
		shift 2
		;;
	--)
		shift
		command=("$@")
		break
		;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d'
		exit 0
		;;
	*)
		majors+=("$1")
		shift
		;;
	esac
done
if [ ${#majors[@]} -eq 0 ]; then
	if [ -n "${PG_CONFIG:-}" ]; then
		majors=("$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')")
	else
		majors=(15 18)
	fi
fi

if ! command -v stress-ng >/dev/null; then
	scripts/install-deps.sh
fi

logdir=${RANREAD_LOAD_LOGDIR:-$(mktemp -d /tmp/ranread_load.XXXXXX)}
mkdir -p "$logdir"

# The load: in a process group of its own (setsid), so that it and every
# hog it forks end together.
load_pid=
stop_load() {
	if [ -n "$load_pid" ]; then
		kill -TERM -- "-$load_pid" 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 -- "-$load_pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -KILL -- "-$load_pid" 2>/dev/null || true
		wait "$load_pid" 2>/dev/null || true
		load_pid=
	fi
}
trap stop_load EXIT
trap 'stop_load; exit 130' INT
trap 'stop_load; exit 143' TERM

# shellcheck disable=SC2016 # expanded by the inner shell
setsid unshare --mount --propagation private sh -c '
	for m in $(awk "\$5 ~ /^\/tmp\/ranread_tap\./ { print \$5 }" /proc/self/mountinfo); do
		umount -l "$m"
	done
	exec stress-ng --cpu 2 --io 1 --timeout 0 --quiet' >"$logdir/stress-ng.log" 2>&1 &
load_pid=$!
sleep 2
if ! kill -0 "$load_pid" 2>/dev/null; then
	echo "test-under-load.sh: stress-ng did not start:" >&2
	cat "$logdir/stress-ng.log" >&2
	exit 1
fi
echo "test-under-load.sh: load started (stress-ng --cpu 2 --io 1, process group $load_pid); logs in $logdir"

summary=()
failed=0
loads=()
for major in "${majors[@]}"; do
	if [ ${#command[@]} -eq 0 ]; then
		if [ -n "${RANREAD_PG_CONFIG_DIR:-}" ]; then
			export PG_CONFIG=$RANREAD_PG_CONFIG_DIR/$major/bin/pg_config
		elif [ ${#majors[@]} -gt 1 ] || [ -z "${PG_CONFIG:-}" ]; then
			export PG_CONFIG=/usr/lib/postgresql/$major/bin/pg_config
		fi
		# the suite runs what is installed for this major: install this tree
		if ! { make -s clean && make -s COPT=-Werror && make -s install; } >"$logdir/build-$major.log" 2>&1; then
			summary+=("$(printf 'PostgreSQL %-3s  build failed (see %s)' "$major" "$logdir/build-$major.log")")
			failed=1
			continue
		fi
	fi
	for run in $(seq 1 "$runs"); do
		log=$logdir/$major-run$run.log
		echo "=== PostgreSQL $major, run $run of $runs, under load (log: $log) ==="
		start=$(date +%s)
		status=0
		if [ ${#command[@]} -eq 0 ]; then
			test/run-tap.sh >"$log" 2>&1 || status=$?
		else
			"${command[@]}" >"$log" 2>&1 || status=$?
		fi
		secs=$(($(date +%s) - start))
		loads+=("$(cut -d' ' -f1-3 /proc/loadavg)")
		# prove's counts: "Files=36, Tests=1234" and the failed files
		counts=$(grep -Eo 'Files=[0-9]+, Tests=[0-9]+' "$log" | tail -1 || true)
		nfailed=$(grep -Eo '^test/t/[^ ]+\.pl +\(Wstat: .*Failed: [0-9]+\)' "$log" | grep -Eo '[0-9]+\)$' | tr -d ')' |
			awk '{ n += $1 } END { print n + 0 }' || true)
		counts="${counts:+$counts, $nfailed failed}"
		# prove's "Test Summary Report": each failed file and its failed tests
		bad=$(awk '/^test\/t\/[^ ]+\.pl +\(Wstat/ { sub(/^test\/t\//, "", $1); file = $1; printf "%s%s", sep, file; sep = ", " }
			file != "" && /^ +Failed tests?: / { sub(/^ +Failed tests?: +/, ""); printf " %s", $0 }
			file != "" && /^ +Parse errors?: / { printf " (parse errors)" }' "$log" || true)
		if [ "$status" -eq 0 ]; then
			result=passed
		else
			result=failed
			failed=1
		fi
		summary+=("$(printf 'PostgreSQL %-3s run %d/%d  %-6s  %s  %dm%02ds%s' "$major" "$run" "$runs" "$result" \
			"${counts:-no prove counts}" $((secs / 60)) $((secs % 60)) "${bad:+  failed: $bad}")")
		echo "${summary[-1]}"
	done
done
stop_load
trap - EXIT

echo
echo "test-under-load.sh: summary (load: stress-ng --cpu 2 --io 1 on $(nproc) CPUs; logs in $logdir)"
printf '%s\n' "${summary[@]}"
load_text=$(printf '%s; ' "${loads[@]}")
echo "load average (1, 5, 15 min) at the end of each run: ${load_text%; }"
if [ "$failed" -ne 0 ]; then
	echo "test-under-load.sh: some runs failed" >&2
	exit 1
fi
echo "test-under-load.sh: all runs passed"
