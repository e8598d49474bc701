#!/usr/bin/env python3
"""callgrind_groups.py: PostgreSQL's instructions per block by function group
(checksum, buffer mapping, pins and locks, AIO handles, the AIO debug
ereport, read stream, smgr, stats), from the callgrind files that
bench/instructions.sh --keep DIR keeps, for cases that read through shared
buffers (stream, stream-seq, prewarm, buffer).

    callgrind_groups.py DIR READS COLUMN...

READS is how many more reads each case's long run did than its short one
(--long less --short); the first repetition's files are used.  A COLUMN is
CASE (the process that ran it: CASE.1.short, CASE.1.long), CASE/io (the I/O
workers: CASE.1.short.io.N, ...), CASE/other (the server's other processes)
or CASE/all (all of these).  Self cost, counted by callgrind_split.py.
"""
import collections
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_split import self_costs_of  # noqa: E402


def files(folder, column, run):
    """The comma-separated callgrind files of a column's short or long run."""
    case, _, procs = column.partition("/")
    kinds = ("", "io", "other") if procs == "all" else (procs,)
    out = []
    for kind in kinds:
        if kind:
            out += sorted(glob.glob(os.path.join(folder, f"{case}.1.{run}.{kind}.*")))
        else:
            out.append(os.path.join(folder, f"{case}.1.{run}"))
    if not out:
        sys.exit(f"callgrind_groups.py: no {run} files for {column} in {folder}")
    return ",".join(out)


def selfcost(paths):
    """Self cost (Ir) by (function, object file name) in callgrind files."""
    return collections.Counter({(fn, os.path.basename(obj)): c for (obj, fn), c in self_costs_of(paths).items()})


HANDOVER = "I/O hand-over (queue, latches, wait, CVs, liburing)"
GROUPS = [
 ("checksum (pg_checksum_page, PageIsVerified)", r"^(pg_checksum_page|PageIsVerified.*)$"),
 ("AIO debug ereport (errstart, PGAIO_VERBOSE)", r"^errstart$"),
 (HANDOVER, r"^(pgaio_worker_\w+|IoWorkerMain|pgaio_uring_\w+|_*io_uring_\w+|pgaio_io_wait|pgaio_io_was_recycled|pgaio_submit_staged|pgaio_io_stage|SetLatch|ResetLatch|WaitLatch|WaitEventSet\w+|ModifyWaitEvent|WakeupMyProc|WakeupOtherProc|ConditionVariable\w+|latch_sigurg_handler|sendSelfPipeByte|drain)$"),
 ("AIO handle (pgaio_*)", r"^pgaio_"),
 ("buffer mapping (hash, BufTable*, victim, strategy)", r"^(hash_search_with_hash_value|hash_bytes|BufTable\w+|GetVictimBuffer|StrategyGetBuffer|ClockSweepTick|InvalidateVictimBuffer|BufferAlloc|PinBufferForBlock|StrategyRejectBuffer|InvalidateBuffer)$"),
 ("pin, header lock, LWLocks, resource owner", r"^(PinBuffer\w*|UnpinBuffer\w*|LockBufHdr|UnlockBufHdr|WaitBufHdrUnlocked|ResourceOwner\w+|LWLock\w+|ReleaseBuffer|IncrBufferRefCount|GetPrivateRefCount\w*|ReservePrivateRefCountEntry|NewPrivateRefCountEntry|ForgetPrivateRefCountEntry|TrackNewBufferPin|pg_atomic\w*|s_lock)$"),
 ("read buffers, read_stream", r"^(StartReadBuffer\w*|WaitReadBuffers|AsyncReadBuffers|read_stream\w*|CompleteReadBuffers|ReadBuffersCanStartIO\w*|StartBufferIO\w*|TerminateBufferIO\w*|buffer_readv\w*|shared_buffer_readv\w*|buffer_stage_common|ProcessReadBuffersResult|TerminateReadBuffers|ReadBufferExtended|ReadBuffer_common|ZeroAndLockBuffer)$"),
 ("smgr, md, fd", r"^(smgr\w+|md\w+|_mdfd\w+|File\w+|pg_preadv|pg_pwritev|fd\w*|FileAccess|LruDelete|Insert|Delete)$"),
 ("stats and wait events (pgstat_*, pgBufferUsage)", r"^(pgstat\w+|pgaio_io_get_wait_event)$"),
]


def group(fn, obj):
    """The group of a function of an object."""
    if obj.startswith("ranread"): return "ranread (ranread.so)"
    if obj.startswith("pg_prewarm"): return "pg_prewarm (pg_prewarm.so)"
    if obj.startswith("libc") : return "libc (pread, posix_fadvise, clock, ...)"
    if obj.startswith("liburing"): return HANDOVER
    for g, rx in GROUPS:
        if re.match(rx, fn): return g
    return "other postgres"
if len(sys.argv) < 4:
    sys.exit(__doc__)
folder, n, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
res = {}
for case in cases:
    s = selfcost(files(folder, case, "short"))
    l = selfcost(files(folder, case, "long"))
    g = collections.Counter(); other = collections.Counter(); libc = collections.Counter(); hand = collections.Counter()
    for k in set(s) | set(l):
        d = (l[k] - s[k]) / n
        gg = group(*k); g[gg] += d
        if gg == "other postgres": other[k[0]] += d
        if gg.startswith("libc"): libc[k[0]] += d
        if gg == HANDOVER: hand[k[0]] += d
    res[case] = (g, other, libc, hand)
names = sorted(set().union(*[set(r[0]) for r in res.values()]), key=lambda x: -res[cases[0]][0][x])
w = max(11, max(len(c) for c in cases) + 2)
print(f"{'group (instructions per block)':<52}" + "".join(f"{c:>{w}}" for c in cases))
for name in names:
    print(f"{name:<52}" + "".join(f"{res[c][0][name]:>{w}.0f}" for c in cases))
print(f"{'total':<52}" + "".join(f"{sum(res[c][0].values()):>{w}.0f}" for c in cases))
for case in cases:
    print(case, "other postgres:", " ".join(f"{k}={v:.0f}" for k, v in res[case][1].most_common(8)))
    print(case, "libc:", " ".join(f"{k}={v:.0f}" for k, v in res[case][2].most_common(6)))
    print(case, "I/O hand-over:", " ".join(f"{k}={v:.0f}" for k, v in res[case][3].most_common(8)))
