#!/usr/bin/env bash
# lint.sh: static analysis of src/ with cppcheck and clang-tidy (config in
# .clang-tidy) against the headers of $PG_CONFIG (default pg_config), checks
# that only src/compat.h knows PostgreSQL's versions, the layer rules of
# src/'s folders stated as paths (docs/architecture.md), no C function's
# body over 200 lines, and a check of
# META.json and of debian/pgversions against tested-majors.  Fails on any
# finding; scripts/lint-sql.py checks the install and update scripts.  Needs cppcheck, clang-tidy and postgresql-server-dev-15
# (scripts/install-deps.sh installs them).  lint.sh --layout runs the
# checks of paths alone, in a second, with nothing but python3;
# lint.sh --no-analysers all but cppcheck and clang-tidy, lint.sh
# --analysers-only those two alone (scripts/test.sh runs them once, against
# the newest host major, where every read path compiles, niced beside all
# the host majors' tests: on the other majors they would read the same
# functions, less the read paths of 18, and on 2 cores they cost the matrix
# minutes; the -Werror build checks each major's side of src/compat.h).
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

# The layer rules, as paths.  Each folder of src/ stands on a floor and
# includes only its own headers, the shared headers at src/'s root and the
# headers of folders on lower floors; docs/architecture.md has a paragraph
# for each.  An include of one of ranread's headers names its folder
# ("rules/histogram.h"), so the rule reads off the #include line.
python3 - <<'PY'
import glob, os, re, sys

# From the ground up; folders on one floor do not include each other.
FLOORS = [["rules", "os"], ["stats"], ["readpath"], ["record"], ["run"],
          ["sweep", "setup", "programs", "admin"], ["history"]]
floor_of = {folder: n for n, folders in enumerate(FLOORS) for folder in folders}
# The root's own: the shared headers and their small .c files stand on
# rules/ and os/ (ranread.h holds their types); init.c, the library's entry
# (_PG_init), may include any folder.
ROOT_ENTRY = {"src/init.c"}
# What rules/ may include besides rules/: it is pure, and test/unit builds
# each of its files alone (test/t/extension/unit.pl).
PURE = re.compile(r"(postgres\.h|c\.h|port/.*|common/.*)$")

problems = []
headers_in_folders = {os.path.basename(h): h[len("src/"):] for h in glob.glob("src/*/*.h")}
for path in sorted(glob.glob("src/*.[ch]") + glob.glob("src/*/*.[ch]")):
    parts = path.split("/")
    folder = parts[1] if len(parts) == 3 else None
    if folder is not None and folder not in floor_of:
        problems.append(f"{path}: src/{folder}/ is on no floor: add it to FLOORS in scripts/lint.sh and a paragraph to docs/architecture.md")
        continue
    for n, line in enumerate(open(path), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        inc = m.group(1)
        where = f"{path}:{n}: #include \"{inc}\""
        ours = os.path.exists("src/" + inc)
        target = inc.split("/")[0] if "/" in inc and ours else None
        if not ours and "/" not in inc and inc in headers_in_folders:
            problems.append(f"{where}: name its folder: \"{headers_in_folders[inc]}\"")
            continue
        if folder == "rules":
            if (ours and target != "rules") or (not ours and not PURE.match(inc)):
                problems.append(f"{where}: src/rules/ is pure: it includes only src/rules/, postgres.h and PostgreSQL's port/ and common/ headers")
            continue
        if not ours or target == folder:
            continue
        if folder is None:
            if path in ROOT_ENTRY or target is None or target in ("rules", "os"):
                continue
            problems.append(f"{where}: the shared files at src/'s root stand on src/rules/ and src/os/ only")
        elif target is None:
            if folder == "os" and inc != "compat.h":
                problems.append(f"{where}: src/os/ includes from src/'s root only compat.h (ranread.h stands on src/os/)")
        elif floor_of.get(target, len(FLOORS)) >= floor_of[folder]:
            problems.append(f"{where}: src/{folder}/ (floor {floor_of[folder] + 1}) may not include src/{target}/ (floor {floor_of.get(target, -1) + 1}): includes go down")

# A read path is one file of src/readpath/, its declaration in readpath.h and
# its line in readpath.c's table: no other file names or defines an ops table.
# A chart kind likewise: one file of src/history/, chart_<kind>.c, its
# declaration in chart.h and its line in chart.c's table.
sources = {p: open(p).read() for p in glob.glob("src/*.[ch]") + glob.glob("src/*/*.[ch]")}
PLUGINS = [("RanreadReadPath", "ranread_readpath_", "src/readpath/readpath", "a read path's ops table"),
           ("RanreadChart", "ranread_chart_kind_", "src/history/chart", "a chart kind")]
for struct, prefix, stem, what in PLUGINS:
    for path, text in sorted(sources.items()):
        for m in re.finditer(rf"\b{struct}\s+({prefix}\w+)\s*=", text):
            if not re.fullmatch(rf"{stem}_\w+\.c", path):
                problems.append(f"{path}: defines {what}, {m.group(1)}: that is a file {stem}_<name>.c")
        for m in set(re.findall(rf"\b{prefix}(\w+)", text)):
            own = f"{stem}_{m}.c"
            if path not in (own, f"{stem}.c", f"{stem}.h") and os.path.exists(own):
                problems.append(f"{path}: names {prefix}{m}, {what}: only {own} and {stem}.[ch] may")

# A query's columns are read by name (src/spi_columns.h), so that a SELECT
# list reordered or grown cannot be read as another column.
for path, text in sorted(sources.items()):
    if path != "src/spi_columns.h":
        for m in re.finditer(r"\bSPI_get(binval|value)\s*\(", text):
            line = text.count("\n", 0, m.start()) + 1
            problems.append(f"{path}:{line}: SPI_get{m.group(1)}() reads a column by number: read it by name through src/spi_columns.h")

# No C function's body is over 200 lines, as no SQL routine's is
# (test/t/docs/comments.pl): a function's body opens with "{" alone on the
# line after its parameter list and closes with the next "}" at a line's
# start, as pgindent lays them out.
MAX_BODY_LINES = 200
for path, text in sorted(sources.items()):
    if not path.endswith(".c"):
        continue
    lines = text.split("\n")
    opened = None
    for n, line in enumerate(lines):
        if line == "{" and n > 0 and lines[n - 1].rstrip().endswith(")"):
            k = n - 1
            while k > 0 and "(" not in lines[k]:
                k -= 1
            name = re.search(r"(\w+)\s*\(", lines[k])
            opened = (n, name.group(1) if name else lines[k].strip(), k + 1)
        elif line.startswith("}") and opened is not None:
            body = n - opened[0] - 1
            if body > MAX_BODY_LINES:
                problems.append(f"{path}:{opened[2]}: {opened[1]}() has {body} lines between its braces, more than "
                                f"{MAX_BODY_LINES}: give a phase of it a function of its own")
            opened = None

# A unit test tests a pure rule of the same name.
for test in sorted(glob.glob("test/unit/*_test.c")):
    name = os.path.basename(test)[:-len("_test.c")]
    if not os.path.exists(f"src/rules/{name}.c"):
        problems.append(f"{test}: test/t/extension/unit.pl builds it with src/rules/{name}.c, which does not exist")

if problems:
    print("\n".join(problems))
    sys.exit("lint.sh: the layout's rules are broken (above); docs/architecture.md says why each holds")
PY
# The install and update scripts resolve every operator and call to
# pg_catalog's or ranread's own (scripts/lint-sql.py says where it looks).
python3 scripts/lint-sql.py
if [ "${1:-}" = --layout ]; then
	echo "lint.sh: src/ keeps its layer rules: rules/ is pure, includes go down the floors, read paths live in readpath/, chart kinds in history/chart_<kind>.c, columns are read by name, no C function is over 200 lines; sql/ qualifies its operators and calls"
	exit 0
fi

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
# Both analysers run a file a core: they take most of lint.sh's minutes.
jobs=$(nproc)
analysers="cppcheck and clang-tidy"
if [ "${1:-}" = --no-analysers ]; then
	analysers=
else
	cppcheck -j "$jobs" --error-exitcode=1 --quiet --std=c99 --enable=warning,performance,portability \
		--suppress='nullPointerRedundantCheck:*/pg_list.h' \
		--platform=unix64 -D__GNUC__=12 -D__x86_64__ "${includes[@]}" -D_GNU_SOURCE src/*.c src/*/*.c
fi

# clang-tidy reports on stderr how many warnings it generated and then
# suppressed (in PostgreSQL's headers, or from checks turned off), as
# "27 warnings generated.", even with --quiet and nothing found; drop those
# lines only.  Findings are errors (WarningsAsErrors), shown and failing.
tidy_args=$(mktemp)
trap 'rm -f "$tidy_args"' EXIT
printf '%s\n' "${includes[@]}" -D_GNU_SOURCE >"$tidy_args"
tidy_one() {
	local f=$1 out status=0 args
	mapfile -t args <"$tidy_args"
	out=$(clang-tidy --quiet "$f" -- "${args[@]}" 2>&1) || status=$?
	out=$(printf '%s\n' "$out" | grep -Ev '^[0-9]+ warnings? generated\.$' || true)
	if [ -n "$out" ]; then
		printf '%s\n' "$out"
	fi
	if [ "$status" -ne 0 ]; then
		echo "lint.sh: clang-tidy failed on $f" >&2
		return 1
	fi
}
export -f tidy_one
export tidy_args
if [ -n "$analysers" ] && ! printf '%s\n' src/*.c src/*/*.c | xargs -P "$jobs" -I{} bash -c 'tidy_one "$1"' _ {}; then
	exit 1
fi
if [ "${1:-}" = --analysers-only ]; then
	echo "lint.sh: $analysers found nothing against $($pg_config --version)"
	exit 0
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
if [ -n "$analysers" ]; then
	analysed="$analysers found nothing against $($pg_config --version)"
else
	analysed="no analyser ran (--no-analysers)"
fi
echo "lint.sh: $analysed; sql/ qualifies its operators and calls; only src/compat.h tests versions; src/ keeps its layer rules and no C function over 200 lines; META.json has PGXN's required keys; debian/pgversions is tested-majors"
