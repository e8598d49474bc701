#!/usr/bin/env bash
# lint.sh: static analysis of src/ with cppcheck and clang-tidy (config in
# .clang-tidy) against the headers of $PG_CONFIG (default pg_config), checks
# that only src/compat.h knows PostgreSQL's versions and that a read path's
# ops table is named only in its file and the table, and a check of
# META.json and of debian/pgversions against tested-majors.  Fails on any
# finding.  Needs cppcheck, clang-tidy and postgresql-server-dev-15
# (scripts/install-deps.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
pg_config=${PG_CONFIG:-pg_config}

# One compatibility boundary: a version test anywhere else is a port's trap.
version_tests=$(grep -rn --include='*.[ch]' 'PG_VERSION_NUM\|PG_MAJORVERSION' src | grep -v '^src/compat\.h:' || true)
if [ -n "$version_tests" ]; then
	printf '%s\n' "$version_tests"
	echo "lint.sh: PostgreSQL version tests belong in src/compat.h only" >&2
	exit 1
fi

# A read path is its own file, its declaration in readpath.h and a line in
# readpath.c's table: its ops table is named nowhere else.
for path_file in src/readpath/readpath_*.c; do
	ops=$(basename "$path_file" .c)
	elsewhere=$(grep -rln --include='*.[ch]' "ranread_$ops\b" src | grep -v -e "^$path_file\$" -e '^src/readpath/readpath\.[ch]$' || true)
	if [ -n "$elsewhere" ]; then
		echo "lint.sh: ranread_$ops is named outside $path_file and src/readpath/readpath.[ch]: $elsewhere" >&2
		exit 1
	fi
done

includes=(-I. -Isrc -I"$($pg_config --includedir-server)" -I"$($pg_config --includedir)/internal")
# the Makefile passes the extension's version to the compiler; so must the analysers
includes+=(-DRANREAD_VERSION="\"$(sed -n "s/^default_version = '\(.*\)'/\1/p" ranread.control)\"")
# and, as the Makefile does where liburing is installed, the io_uring code (src/os/uring.c)
if pkg-config --exists liburing 2>/dev/null; then
	includes+=(-DRANREAD_HAVE_LIBURING)
fi

# pg_list.h's llast_cell() asserts list != NIL before using it; cppcheck reads
# the Assert as a condition and reports a null dereference in the header.
# The compiler macros let s_lock.h pick its x86-64 spinlock as gcc does.
cppcheck --error-exitcode=1 --quiet --std=c99 --enable=warning,performance,portability \
	--suppress='nullPointerRedundantCheck:*/pg_list.h' \
	--platform=unix64 -D__GNUC__=12 -D__x86_64__ "${includes[@]}" -D_GNU_SOURCE src/*.c src/*/*.c

# clang-tidy reports on stderr how many warnings it generated and then
# suppressed (in PostgreSQL's headers, or from checks turned off), as
# "27 warnings generated.", even with --quiet and nothing found; drop those
# lines only.  Findings are errors (WarningsAsErrors), shown and failing.
tidy_failed=0
for f in src/*.c src/*/*.c; do
	tidy_status=0
	tidy_out=$(clang-tidy --quiet "$f" -- "${includes[@]}" -D_GNU_SOURCE 2>&1) || tidy_status=$?
	tidy_out=$(printf '%s\n' "$tidy_out" | grep -Ev '^[0-9]+ warnings? generated\.$' || true)
	if [ -n "$tidy_out" ]; then
		printf '%s\n' "$tidy_out"
	fi
	if [ "$tidy_status" -ne 0 ]; then
		echo "lint.sh: clang-tidy failed on $f" >&2
		tidy_failed=1
	fi
done
if [ "$tidy_failed" -ne 0 ]; then
	exit 1
fi
# META.json: PGXN's required keys (meta-spec 1.0.0), and the version the control file installs.
python3 - <<'PY'
import json, re, sys
meta = json.load(open("META.json"))
missing = [k for k in ("name", "abstract", "version", "maintainer", "license", "provides", "meta-spec")
           if k not in meta]
control = open("ranread.control").read()
default = re.search(r"default_version = '([0-9.]+)'", control).group(1)
problems = missing and ["META.json lacks " + ", ".join(missing)] or []
for name, ext in meta.get("provides", {}).items():
    if not {"file", "version"} <= ext.keys():
        problems.append(f"META.json provides.{name} lacks file or version")
    elif not ext["version"].startswith(default + "."):
        problems.append(f"META.json says {ext['version']}, ranread.control installs {default}")
tested = open("tested-majors").read().split()
if meta.get("x_tested_postgresql") != tested:
    problems.append(f"META.json x_tested_postgresql is {meta.get('x_tested_postgresql')}, tested-majors says {tested}")
packaged = open("debian/pgversions").read().split()
if packaged != tested:
    problems.append(f"debian/pgversions lists {packaged}, tested-majors says {tested}")
if problems:
    sys.exit("lint.sh: " + "; ".join(problems))
PY
echo "lint.sh: cppcheck and clang-tidy found nothing against $($pg_config --version); only src/compat.h tests versions; META.json has PGXN's required keys; debian/pgversions is tested-majors"
