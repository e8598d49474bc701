-- demo.sql: RanRead's methodology in one call, on a small target (see demo.sh).
CREATE EXTENSION ranread;
SELECT ranread_setup('4 GB');
-- 10, 20, 40 ... processes of 10,000 reads each, one committed batch per step,
-- until the mean passes 10 ms, IOPS stops scaling, or the worker slots run out
CALL ranread_sweep();
\echo ranread_sweeps: the verdict
\x on
SELECT sweep, status, steps, max_iops, max_iops_processes, slo_iops, slo_processes,
	   knee_processes, stop_rule, verdict
FROM ranread_sweeps;
\x off
\echo ranread_summary: one row per step
SELECT sweep_step, processes, iterations, response_time_ms, iops, p50_ms, p99_ms, p999_ms, max_ms,
	   physical_pct, device_reads_per_s, status
FROM ranread_summary WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps) ORDER BY batch;
