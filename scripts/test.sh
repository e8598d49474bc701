#!/usr/bin/env bash
# test.sh: the whole ranread test suite on a fresh Debian 12 machine, as root.
#
# Installs dependencies, builds with warnings as errors (COPT=-Werror), installs, runs the
# static analysis (scripts/lint.sh), then runs
# test/run-suite.sh (pg_regress, pgTAP) twice on throwaway
# clusters made by pg_virtualenv, without and with data checksums, and last
# the fault-injection suite test/run-tap.sh (crashes, disk full, slots, bad
# input, soak, privileges), which makes its own clusters, and the main paths
# under valgrind (scripts/valgrind.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
make clean >/dev/null
make COPT=-Werror
make install
scripts/lint.sh

# Workers: the suite needs up to 24 dynamic workers at once.
cluster_opts=(-o max_worker_processes=32 -o shared_buffers=128MB)

echo "=== cluster without data checksums ==="
pg_virtualenv -t "${cluster_opts[@]}" test/run-suite.sh
echo "=== cluster with data checksums ==="
pg_virtualenv -t -i --data-checksums "${cluster_opts[@]}" test/run-suite.sh
echo "=== fault-injection suite ==="
test/run-tap.sh
echo "=== main paths under valgrind memcheck ==="
scripts/valgrind.sh
echo "ranread: all test suites passed"
