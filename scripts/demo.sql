-- demo.sql: a short RanRead-style step-up on a small target (see demo.sh).
CREATE EXTENSION ranread;
SELECT ranread_setup('2 GB');
SELECT * FROM ranread_run(1, 1500);
SELECT * FROM ranread_run(2, 1500);
SELECT * FROM ranread_run(4, 1500);
SELECT * FROM ranread_run(8, 1500);
SELECT * FROM ranread_run(16, 1500);
\echo ranread_summary: one row per batch
SELECT run_date, run_time, target, iterations, processes, response_time_ms, iops,
	   p50_ms, p99_ms, max_ms, physical_pct, device_reads_per_s, status
FROM ranread_summary ORDER BY batch;
