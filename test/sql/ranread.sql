-- The stable SQL surface of ranread: objects, help text, messages of bad input.
-- Numbers that vary between machines are checked as booleans.
\set VERBOSITY terse

-- The extension's members, as \dx+ lists them on 15; since 17 the tables' and
-- views' row types are members too, and no test needs to list those.
SELECT pg_describe_object(classid, objid, objsubid) AS member
FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread')
  AND classid <> 'pg_type'::regclass
ORDER BY 1;
\d ranread_summary
-- the read paths' lines follow the table of read paths: counted, not listed,
-- so that a new read path does not change this file
SELECT * FROM ranread_help() AS h(line) WHERE line NOT LIKE 'mode => %';
SELECT count(*) >= 3 AS read_paths_described FROM ranread_help() AS h(line) WHERE line LIKE 'mode => ''%'': %';

-- setup: a small target; the description line carries timing, so match it
SELECT ranread_setup('8 MB', target => 'regress_target', log_level => 0)
	~ '^ranread target "regress_target": 8 MB \(1024 blocks\) at /.+, written in [0-9.]+ s \([0-9]+ MB/s\)$' AS described;
SELECT target, bytes, blocks, tablespace FROM ranread_targets;
SELECT relpersistence, reloptions FROM pg_class WHERE relname = 'regress_target';
SELECT pg_relation_size('regress_target') AS bytes;

-- run: NOTICEs and WARNINGs carry measurements, so keep them out of this file
SET client_min_messages = error;
-- one line: the figures that decide (the rest of the batch's row is ranread_summary's)
SELECT batch > 0 AS numbered, status, response_time_ms > 0 AS timed, iops > 0 AS counted,
	   p99_ms >= response_time_ms AS tail
FROM ranread_run(2, 100, 'regress_target');
SELECT worker, reads, status FROM ranread_results ORDER BY worker;
SELECT processes, iterations, reads, status FROM ranread_summary;
RESET client_min_messages;

-- bad input
SELECT ranread_setup('1 MB', target => 'regress_small');
SELECT ranread_setup('banana', target => 'regress_small');
SELECT ranread_setup('8 MB', target => 'regress_target');
SELECT ranread_setup('8 MB', target => NULL);
SELECT ranread_setup('8 MB', target => 'regress_small', log_level => 4);
SELECT ranread_setup('8 MB', 'no_such_tablespace', 'regress_small');
SELECT ranread_run(0, 100, 'regress_target');
SELECT ranread_run(2, 0, 'regress_target');
SELECT ranread_run(NULL, 100, 'regress_target');
SELECT ranread_run(2, NULL, 'regress_target');
SELECT ranread_run(2, 100, 'regress_target', mode => 'bogus');
SELECT ranread_run(2, 100, 'regress_target', block_size => 4096);
SELECT ranread_run(2, 100, 'regress_target', block_size => 12000);
SELECT ranread_run(2, 100, 'regress_target', block_size => 2097152);
SELECT ranread_run(2, NULL, 'regress_target', duration => '-1 s');
SELECT ranread_run(2, 100, 'regress_target', evict => NULL);
SELECT ranread_run(2, 100, 'no_such_target');
SELECT ranread_run(2, 100, 'ranread_targets');
SELECT ranread_export('relative/dir');
SELECT ranread_export(NULL);
SELECT ranread_drop('no_such_target');
SELECT count(*) AS leftovers FROM pg_class WHERE relname = 'regress_small';

-- answers that fit a terminal: ranread_help() lines, ranread_report,
-- ranread_series and ranread_verdict() on a constructed sweep of two steps
-- with unrounded numbers (as workers write them)
SELECT max(length(line)) <= 120 AS help_fits_120 FROM ranread_help() AS h(line);
\d ranread_report
\d ranread_series
INSERT INTO ranread_sweep_runs (sweep, started_at, ended_at, leader_pid, target, mode, block_size, iterations,
								start_processes, max_processes, max_processes_by, stop_latency_ms, min_scaling_pct,
								slo_mean_ms, slo_p99_ms, status, stop_rule)
VALUES (990001, '2026-11-23 20:00+00', '2026-11-23 20:01+00', 1, 'regress_target', 'smgr', 8192, 10000,
		10, 20, 'argument', 10, 25, 2, 5, 'completed', 'max processes');
INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes, iterations,
							 evicted, reads, wall_s, iops, mb_per_s, status, response_time_ms, p50_ms, p99_ms,
							 p999_ms, max_ms, physical_pct, sweep, sweep_step, steady_at_s)
VALUES (990001, '2026-11-23', '20:00', '2026-11-23 20:00+00', 'regress_target', 'smgr', 8192, 10, 10000,
		true, 100000, 3.357, 29789.492984698867, 232.7, 'completed', 0.3316388980804081, 0.29, 4.8213,
		9.1, 20.5, 99.96, 990001, 1, 6.00097649),
	   (990002, '2026-11-23', '20:00', '2026-11-23 20:00+10', 'regress_target', 'smgr', 8192, 20, 10000,
		true, 200000, 5.1, 39215.68627, 306.4, 'completed', 1.1, 1.0, 6.59,
		12.0, 30.1, 100, 990001, 2, NULL);
INSERT INTO ranread_intervals VALUES (990001, 1, 1.000285571, 0.999714429, 29781, 29789.492984698867,
									  0.3316388980804081, 0.29, 1.1034, 20.53, 10);
SELECT * FROM ranread_report WHERE sweep = 990001 ORDER BY batch;
SELECT * FROM ranread_series WHERE batch = 990001;
SELECT steady_at_s FROM ranread_summary WHERE batch = 990001;
SELECT * FROM ranread_verdict(990001);
SELECT max(length(verdict)) <= 100 AS verdict_lines_fit FROM ranread_verdict(990001);
SELECT count(*) AS no_such_sweep FROM ranread_verdict(999999);
-- forged figures at the float's limits print neither NaN nor Infinity, and stay short
INSERT INTO ranread_intervals VALUES (990001, 2, 2, 1, 1, 1, 5e-324, 5e-324, 5e-324, 5e-324, 10);
SELECT ranread_chart_intervals(990001) !~ 'NaN|Infinity' AS chart_coordinates_finite;
SELECT verdict !~ 'NaN|Infinity|In,fin' AS verdict_finite, length(verdict) < 400 AS verdict_short
FROM ranread_sweep_decide('{1,1,1}', '{1,1,1}', '{1,1,1}', '{completed,completed,completed}', '{1e308,1e308,1e308}',
						  '{1e308,0,1}', '{1e308,1e308,1e308}', '{1,1,1}', '{1,1,1}', '{1e308,1e308,1e308}', '{1,1,1}',
						  '{1,1,1}', '{f,f,f}', 4, 'argument', 1e308, 99.999, 1e308, 1e308);
DELETE FROM ranread_intervals WHERE batch = 990001;
DELETE FROM ranread_batches WHERE sweep = 990001;
DELETE FROM ranread_sweep_runs WHERE sweep = 990001;

-- clean up
SELECT ranread_drop('regress_target');
SELECT ranread_reset();
SELECT count(*) AS targets FROM ranread_targets;
