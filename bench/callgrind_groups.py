#!/usr/bin/env python3
"""callgrind_groups.py: PostgreSQL's instructions per block by function group
(checksum, buffer mapping, pins and locks, AIO handles, the AIO debug
ereport, read stream, smgr, stats), from the callgrind files that
bench/instructions.sh --keep DIR keeps, for cases that read through shared
buffers (stream, stream-seq, prewarm, buffer).

    callgrind_groups.py DIR READS CASE...

READS is how many more reads each case's long run did than its short one
(--long less --short); the first repetition's files (CASE.1.short,
CASE.1.long) are used.  Self cost, as callgrind_split.py counts it.
"""
import collections
import os
import re
import subprocess
import sys


def selfcost(path):
    """Self cost (Ir) by (function, object file name) in one callgrind file."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", path], capture_output=True, text=True).stdout
    c = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(?:\?\?\?|[^:]*):(\S+)\s+\[(.*)\]", line)
        if m: c[(m.group(2), m.group(3).split('/')[-1])] += int(m.group(1).replace(',', ''))
    return c


GROUPS = [
 ("checksum (pg_checksum_page, PageIsVerified)", r"^(pg_checksum_page|PageIsVerified.*)$"),
 ("AIO debug ereport (errstart, PGAIO_VERBOSE)", r"^errstart$"),
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
    for g, rx in GROUPS:
        if re.match(rx, fn): return g
    return "other postgres"
if len(sys.argv) < 4:
    sys.exit(__doc__)
folder, n, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
res = {}
for case in cases:
    s = selfcost(os.path.join(folder, f"{case}.1.short"))
    l = selfcost(os.path.join(folder, f"{case}.1.long"))
    g = collections.Counter(); other = collections.Counter()
    for k in set(s) | set(l):
        d = (l[k] - s[k]) / n
        gg = group(*k); g[gg] += d
        if gg == "other postgres": other[k[0]] += d
    res[case] = (g, other)
names = sorted(set().union(*[set(r[0]) for r in res.values()]), key=lambda x: -res[cases[0]][0][x])
print(f"{'group (instructions per block)':<52}" + "".join(f"{c:>11}" for c in cases))
for name in names:
    print(f"{name:<52}" + "".join(f"{res[c][0][name]:>11.0f}" for c in cases))
print(f"{'total':<52}" + "".join(f"{sum(res[c][0].values()):>11.0f}" for c in cases))
for case in cases:
    print(case, "other postgres:", " ".join(f"{k}={v:.0f}" for k, v in res[case][1].most_common(8)))
