#!/usr/bin/env bash
# demo.sh: the main job on a fresh Debian 12 machine, as root.
#
# Installs dependencies, builds and installs ranread, then on a throwaway
# cluster (pg_virtualenv) sets up a small target and runs a sweep with the
# defaults (CALL ranread_sweep()), printing a NOTICE per step, the verdict and
# the summary table.
# A real measurement uses a target of at least twice the server's memory on
# the volume under test: see docs/methodology.md.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --build
make
make install

pg_virtualenv -t -o max_worker_processes=32 -o fsync=on \
	psql -X -v ON_ERROR_STOP=1 -f scripts/demo.sql
