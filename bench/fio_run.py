#!/usr/bin/env python3
# fio_run.py: run fio (the command after the output file), measure its whole
# CPU with RUSAGE_CHILDREN, and print one tab-separated result line: IOPS,
# mean, p50 and p99 latency (ms), CPU us per read by fio's own account and by
# the process's, reads, runtime (s) and mean completion latency (ms).  Used
# by the benchmarks in bench/ against fio.
import json, resource, subprocess, sys
out, cmd = sys.argv[1], sys.argv[2:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    p = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode != 0:
    sys.stderr.write(p.stderr + open(out).read())
    sys.exit("fio failed with exit code %d" % p.returncode)
text = open(out).read()
j = json.loads(text[text.index("{"):])           # skip any note before the JSON
jobs = j["jobs"]
if len(jobs) != 1:
    sys.exit("expected one group-reported job, got %d" % len(jobs))
job = jobs[0]
if job["error"]:
    sys.exit("fio job error %d" % job["error"])
r = job["read"]
reads = r["total_ios"]
cpu_job = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * job["job_runtime"] / 1000.0
cpu_proc = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
pct = r["clat_ns"]["percentile"]
print("\t".join(str(x) for x in [
    r["iops"], r["lat_ns"]["mean"] / 1e6, pct["50.000000"] / 1e6, pct["99.000000"] / 1e6,
    1e6 * cpu_job / reads, 1e6 * cpu_proc / reads, reads, r["runtime"] / 1000.0,
    r["clat_ns"]["mean"] / 1e6]))
