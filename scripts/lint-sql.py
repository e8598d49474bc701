#!/usr/bin/env python3
"""lint-sql.py: the SQL that an install or update script parses or runs
with the extension's schema on its search_path resolves every operator and
function to pg_catalog's or ranread's own.

CREATE EXTENSION and ALTER EXTENSION UPDATE run each script with the
extension's schema on the search_path, so an unqualified operator or call
there can be captured by a look-alike that a role planted in that schema (an
exact-type match beats pg_catalog's, which needs a cast): PostgreSQL's
"Security Considerations for Extension Scripts".  Checked, in every
sql/ranread--*.sql, sql/src/*.sql and sql/update/*.sql: views, SQL-standard function bodies (RETURN ... and
BEGIN ATOMIC ... END), DO blocks and top-level queries (SELECT, INSERT,
UPDATE, DELETE, WITH).  Not checked: routines that set their own search_path
(SET search_path = pg_catalog, pg_temp, or set_config() first thing in a
procedure), whose bodies are parsed when they run; table definitions (their
defaults are constants and pg_catalog's zero-argument now()).

In every statement, a GRANT, REVOKE, ALTER or DROP names a routine with its
argument types (a look-alike of the same name would make it ambiguous).
In those regions, outside comments and string literals:
  - an operator is written OPERATOR(pg_catalog.op);
  - a function call is qualified, pg_catalog.f(...), or is ranread's own
    (ranread_*), called with every argument of its declared type: the
    scripts run with the extension's schema alone on the search_path (and
    pg_temp, which holds no functions), where a look-alike of the same
    name and argument types cannot exist.  (Not @extschema@: PostgreSQL
    then refuses schemas whose names hold " $ ' or \.)  SQL's own
    constructs (coalesce, NULLIF, GREATEST, LEAST, ARRAY, EXISTS, IN, ANY,
    ...) and column alias lists (AS x(a, b)) are not calls.
test/t/security/trojans_at_install.pl proves the same at run time, with
look-alikes planted before CREATE EXTENSION and before every update.
Prints each finding as FILE:LINE: message and exits 1 on any.
"""
import glob
import re
import sys

OPERATORS = ["<>", "!=", "<=", ">=", "||", "@>", "<@", "&&", "!~", "~~",
             "=", "<", ">", "+", "-", "*", "/", "%", "^", "~"]
# SQL constructs written like calls, and keywords a parenthesis follows
NOT_CALLS = {
    "coalesce", "nullif", "greatest", "least", "array", "exists", "in", "any",
    "all", "some", "values", "cast", "over", "filter", "within", "row",
    "and", "or", "not", "on", "using", "from", "join", "lateral", "where",
    "select", "as", "then", "else", "when", "case", "if", "elsif", "while",
    "return", "returns", "table", "with", "union", "by", "into", "end",
    "atomic", "begin", "loop", "raise", "perform", "execute", "foreach",
    "is", "distinct", "ordinality", "set", "having", "group", "order", "operator",
}
REGION_START = re.compile(
    r"^(CREATE(?: OR REPLACE)? VIEW\b|DO\b|SELECT\b|INSERT\b|UPDATE\b|DELETE\b|WITH\b|RETURN\b|BEGIN ATOMIC\b)",
    re.M)


def strip(text):
    """text with comments and string literals blanked (offsets kept)."""
    out = list(text)
    i = 0
    n = len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        if text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif text[i] == "'":
            j = i + 1
            while j < n:
                if text[j] == "'" and j + 1 < n and text[j + 1] == "'":
                    j += 2
                elif text[j] == "'":
                    break
                else:
                    j += 1
            blank(i + 1, j)
            i = j + 1
        elif text[i] == '"':
            j = text.find('"', i + 1)
            i = n if j < 0 else j + 1
        else:
            i += 1
    return "".join(out)


def region_end(code, start):
    """End of the statement at start: its ';' outside parentheses and dollar quotes."""
    depth = 0
    i = start
    while i < len(code):
        m = re.match(r"\$([A-Za-z_]*)\$", code[i:])
        if m:
            j = code.find(m.group(0), i + len(m.group(0)))
            i = len(code) if j < 0 else j + len(m.group(0))
            continue
        c = code[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth <= 0:
            if code[start:start + 11] == "BEGIN ATOMIC":
                if re.match(r"\s*END\s*;", code[i + 1:]):
                    return code.find(";", i + 1) + 1
                i += 1
                continue
            return i + 1
        i += 1
    return len(code)


def findings(path):
    text = open(path, encoding="utf-8").read()
    code = strip(text)
    out = []
    covered = 0
    for m in REGION_START.finditer(code):
        start = m.start()
        if start < covered:
            continue            # a line of a statement already checked
        end = region_end(code, start)
        covered = end
        region = code[start:end]
        # the header of a view is not checked: its body starts after AS
        if region.startswith("CREATE"):
            body_at = re.search(r"\bAS\b", region)
            offset = body_at.end() if body_at else 0
        else:
            offset = 0
        body = region[offset:]
        base = start + offset
        # qualified operators and named arguments, assignments, casts are fine
        masked = re.sub(r"OPERATOR\(pg_catalog\.[^)]+\)", lambda x: " " * len(x.group(0)), body)
        masked = re.sub(r"=>|:=|::|\$[A-Za-z_]*\$|\[[0-9:]*\]",
                        lambda x: " " * len(x.group(0)), masked)
        # RAISE's USING options name = value
        masked = re.sub(r"\b(HINT|DETAIL|ERRCODE|MESSAGE)\s*=", lambda x: " " * len(x.group(0)), masked)
        # UPDATE's SET column =
        masked = re.sub(r"\bSET\s+[\w.]+\s*=", lambda x: " " * len(x.group(0)), masked)
        # constructs that compare with an operator looked up by name
        for construct in re.finditer(r"\bIN\s*\(|\bIS\s+(?:NOT\s+)?DISTINCT\s+FROM\b|\bBETWEEN\b", masked, re.I):
            line = text.count("\n", 0, base + construct.start()) + 1
            out.append(f"{path}:{line}: {construct.group(0).rstrip('(').strip()} compares with an operator found "
                       "by name: use OPERATOR(pg_catalog.=) ANY (...) or explicit comparisons")
        # a negative number where a value begins
        masked = re.sub(r"(?<=[(,\s])-(?=\d)", " ", masked)
        # count(*) and SELECT *
        masked = re.sub(r"\(\s*\*\s*\)|SELECT\s+\*|\.\*", lambda x: x.group(0).replace("*", " "), masked)
        for op in OPERATORS:
            for o in re.finditer(re.escape(op), masked):
                line = text.count("\n", 0, base + o.start()) + 1
                out.append(f"{path}:{line}: operator {op} not written OPERATOR(pg_catalog.{op})")
            masked = masked.replace(op, " " * len(op))
        for c in re.finditer(r"(?<![.\w@])([A-Za-z_][A-Za-z0-9_]*)\s*\(", body):
            name = c.group(1)
            if name.lower() in NOT_CALLS or name.startswith("ranread_"):
                continue
            before = body[:c.start()].rstrip()
            # a column alias list: AS x(a, b), or a CTE's name
            if re.search(r"\bAS$", before, re.I) or re.search(r"\bAS\s+$", body[:c.start()], re.I):
                continue
            line = text.count("\n", 0, base + c.start()) + 1
            out.append(f"{path}:{line}: call of {name}() not qualified with pg_catalog.")
    # a routine named without its argument types: a look-alike of that name
    # makes the statement ambiguous (or, alone in an earlier schema, its target)
    for r in re.finditer(r"\b(?:ON|ALTER|DROP)\s+(?:FUNCTION|PROCEDURE|ROUTINE)\s+[\w@.]+(?!\s*\(|\w)", text):
        line = text.count("\n", 0, r.start()) + 1
        out.append(f"{path}:{line}: routine named without its argument types: {r.group(0)}")
    return out


def main():
    # the released scripts, and the sources the Makefile makes the current
    # version's scripts from (not those scripts: their lines are the sources')
    paths = sys.argv[1:] or ([p for p in sorted(glob.glob("sql/ranread--*.sql"))
                              if "made by the Makefile" not in open(p).readline()]
                             + sorted(glob.glob("sql/src/*.sql")) + sorted(glob.glob("sql/update/*.sql")))
    problems = list(dict.fromkeys(f for p in paths for f in findings(p)))
    for p in problems:
        print(p)
    if problems:
        print(f"lint-sql.py: {len(problems)} unqualified operators or calls in SQL that install or update scripts parse",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
