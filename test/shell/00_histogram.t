#!/usr/bin/env bash
# Builds and runs test/unit/histogram_test.c: the latency histogram's
# percentiles against exact ones (relative error <= 1/128).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
cc -O2 -I"$here/src" -I"$(pg_config --includedir-server)" -o "$bin" \
	"$here/test/unit/histogram_test.c" "$here/src/histogram.c" -lm
"$bin"
