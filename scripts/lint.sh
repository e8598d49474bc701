#!/usr/bin/env bash
# lint.sh: static analysis of src/ with cppcheck and clang-tidy (config in
# .clang-tidy).  Fails on any finding.  Needs cppcheck, clang-tidy and
# postgresql-server-dev-15 (scripts/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

includes=(-I. -I"$(pg_config --includedir-server)" -I"$(pg_config --includedir)/internal")

# pg_list.h's llast_cell() asserts list != NIL before using it; cppcheck reads
# the Assert as a condition and reports a null dereference in the header.
# The compiler macros let s_lock.h pick its x86-64 spinlock as gcc does.
cppcheck --error-exitcode=1 --quiet --std=c99 --enable=warning,performance,portability \
	--suppress='nullPointerRedundantCheck:*/pg_list.h' \
	--platform=unix64 -D__GNUC__=12 -D__x86_64__ "${includes[@]}" -D_GNU_SOURCE src/*.c

for f in src/*.c; do
	clang-tidy --quiet "$f" -- "${includes[@]}" -D_GNU_SOURCE
done
echo "lint.sh: cppcheck and clang-tidy found nothing"
