#!/usr/bin/env python3
"""callgrind_split.py: user-space instructions per read, by object, from two
callgrind profiles of the same process kind that differ only in the number
of reads (bench/instructions.sh).

    callgrind_split.py SHORT LONG READS LABEL [TOP]

SHORT and LONG are callgrind.out files, or comma-separated lists of them
whose costs add (several processes: a backend and the I/O workers that read
for it); READS is how many more reads LONG did than SHORT.  Whatever both runs spend once (start-up, connection,
recording) cancels in the difference, so the figures are per read.  Each
instruction is counted once, in the function that executes it (callgrind's
self cost), and put in the group of that function's object: ranread
(ranread.so), PostgreSQL (the postgres binary), libc, liburing, the tool
itself (fio, t/io_uring) and other (the dynamic loader and the rest), so
the groups add up to the total.

Prints one tab-separated line: LABEL, total, ranread, PostgreSQL, libc,
liburing, tool, other (instructions per read), then the TOP (default 6)
functions of ranread's own object, or of the tool's when the profile has
no ranread, as "name=instructions" with their self cost per read, and the
TOP functions of the other objects (PostgreSQL, libc, liburing, other).
"""
import collections
import os
import sys

GROUPS = ("ranread", "postgres", "libc", "liburing", "tool", "other")


def group_of(obj):
    """The group of an object file's path."""
    base = os.path.basename(obj)
    if base.startswith("ranread"):
        return "ranread"
    if base == "postgres":
        return "postgres"
    if base.startswith("libc.so") or base.startswith("libc-"):
        return "libc"
    if base.startswith("liburing"):
        return "liburing"
    if base in ("fio", "io_uring"):
        return "tool"
    return "other"


def self_costs(path):
    """Self cost (Ir) by (object, function) in one callgrind.out file."""
    names = {"ob": {}, "fn": {}}
    costs = collections.Counter()
    obj, fn = "?", "?"
    skip_next = False

    def name(kind, value):
        # "(12) name" defines id 12, "(12)" refers to it, "name" is plain
        value = value.strip()
        if value.startswith("("):
            ident, _, rest = value.partition(")")
            rest = rest.strip()
            if rest:
                names[kind][ident] = rest
                return rest
            return names[kind].get(ident, "?")
        return value

    with open(path) as f:
        for line in f:
            if skip_next:
                skip_next = False
                continue
            if not line or line[0] in "#\n":
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                if len(parts) > 1:
                    costs[(obj, fn)] += int(parts[1])
                continue
            key, _, value = line.partition("=")
            if key == "ob":
                obj = name("ob", value)
            elif key == "fn":
                fn = name("fn", value)
            elif key == "cob":
                name("ob", value)
            elif key == "cfn":
                name("fn", value)
            elif key == "calls":
                skip_next = True	# the next line is the call's inclusive cost
    return costs


def self_costs_of(paths):
    """Self costs summed over a comma-separated list of callgrind.out files."""
    costs = collections.Counter()
    for path in paths.split(","):
        costs.update(self_costs(path))
    return costs


def main():
    short, long_, reads, label = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 6
    if reads <= 0:
        sys.exit(f"callgrind_split.py: {label}: the long run did not read more than the short one ({reads})")
    diff = self_costs_of(long_)
    diff.subtract(self_costs_of(short))
    by_group = collections.Counter()
    for (obj, _), cost in diff.items():
        by_group[group_of(obj)] += cost
    total = sum(by_group.values())
    funcs = [(fn, cost) for (obj, fn), cost in diff.items() if group_of(obj) == "ranread"]
    if not funcs:
        funcs = [(fn, cost) for (obj, fn), cost in diff.items() if group_of(obj) == "tool"]
    funcs.sort(key=lambda x: -x[1])
    cells = [label, f"{total / reads:.0f}"] + [f"{by_group[g] / reads:.0f}" for g in GROUPS]
    cells.append(" ".join(f"{fn}={cost / reads:.0f}" for fn, cost in funcs[:top]))
    others = sorted(((fn, obj, cost) for (obj, fn), cost in diff.items()
                     if group_of(obj) not in ("ranread", "tool")), key=lambda x: -x[2])
    cells.append(" ".join(f"{fn}={cost / reads:.0f}" for fn, obj, cost in others[:top]))
    print("\t".join(cells))


if __name__ == "__main__":
    main()
