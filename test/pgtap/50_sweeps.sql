-- 50_sweeps.sql: ranread_sweeps and ranread_sweep_verdict() on constructed
-- histories -- sweeps and steps written as rows, not run -- so that each
-- verdict is known exactly: the highest IOPS, the highest within the SLO
-- (with a p99.9 or a max bound too), the knee, a step memory answered, a
-- step that did not complete, how a sweep that did not end by itself shows,
-- an open-loop sweep, and noise: the verdict's bands, a repeated step's runs
-- combined, a sweep that could not decide within its repeats.  All in one
-- transaction, rolled back.
BEGIN;
SELECT plan(27);

-- A sweep as ranread_sweep() records it, with RanRead's defaults.
CREATE FUNCTION pg_temp.forge_sweep(id bigint, status text, slo_p999 float8 DEFAULT NULL,
									slo_max float8 DEFAULT NULL, rate float8 DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
	INSERT INTO ranread_sweep_runs (sweep, started_at, leader_pid, target, mode, block_size, iterations,
									start_processes, max_processes, max_processes_by, rate_iops,
									stop_latency_ms, min_scaling_pct, slo_mean_ms, slo_p99_ms, slo_p999_ms,
									slo_max_ms, status)
	VALUES (id, now(), 0, 'forged', 'smgr', 8192, 10000, 10, 1024, 'argument', rate, 10, 25, 2, 5,
			slo_p999, slo_max, status);
$$;

-- One step: p99 three times the mean, p99.9 five times, max eight times.
CREATE FUNCTION pg_temp.forge_step(id bigint, step int, processes int, iops float8, mean float8,
								   physical float8 DEFAULT 100, status text DEFAULT 'completed',
								   rate float8 DEFAULT NULL, band float8 DEFAULT NULL, run int DEFAULT 0)
RETURNS void LANGUAGE sql AS $$
	INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes,
								 iterations, evicted, reads, wall_s, iops, mb_per_s, response_time_ms, p99_ms,
								 p999_ms, max_ms, physical_pct, status, rate_iops, sweep, sweep_step,
								 iops_band_pct, mean_band_pct, p99_band_pct)
	VALUES (id * 100 + step + 10 * run, current_date, '10:00', now(), 'forged', 'smgr', 8192, processes, 10000, true,
			processes * 10000, processes * 10000 / iops, iops, iops * 8 / 1024, mean, mean * 3, mean * 5,
			mean * 8, physical, status, rate, id, step, band, band, band);
$$;

-- a flash device that scales to 40 processes and saturates at 80
SELECT pg_temp.forge_sweep(900001, 'completed');
SELECT pg_temp.forge_step(900001, 1, 10, 10000, 1.0);
SELECT pg_temp.forge_step(900001, 2, 20, 20000, 1.0);
SELECT pg_temp.forge_step(900001, 3, 40, 39000, 1.02);
SELECT pg_temp.forge_step(900001, 4, 80, 41000, 1.95);
SELECT is((SELECT (status, steps, max_iops, max_iops_processes, slo_iops, slo_processes, knee_processes, memory_steps)::text
		   FROM ranread_sweeps WHERE sweep = 900001),
		  '(completed,4,41000,80,39000,40,40,0)',
		  'flash: highest IOPS 41,000 at 80; within the SLO 39,000 at 40 (p99 5.85 ms at 80); knee at 40');
SELECT is((SELECT stop_rule FROM ranread_sweeps WHERE sweep = 900001), 'scaling',
		  'a completed sweep without a recorded rule gets it from its steps: scaling');
SELECT is((SELECT verdict FROM ranread_sweeps WHERE sweep = 900001),
		  'Highest IOPS: 41,000 IOPS (mean 1.95 ms, p99 5.85 ms) at 80 processes. '
		  'Highest within the SLO (mean <= 2 ms, p99 <= 5 ms): 39,000 IOPS (mean 1.02 ms, p99 3.06 ms) at 40 processes: '
		  'what this volume can do within the SLO, the figure to quote. '
		  'Knee at 40 processes: the most IOPS per ms of mean latency, the most efficient load, not the capacity. '
		  'It stopped because from 40 to 80 processes IOPS gained 5% of what linear scaling would have gained (min_scaling_pct 25%): the storage is saturated.',
		  'the verdict in plain words');

-- the same steps under a p99.9 bound, then a max bound
SELECT pg_temp.forge_sweep(900002, 'completed', slo_p999 => 5.05);
SELECT pg_temp.forge_step(900002, 1, 10, 10000, 1.0);
SELECT pg_temp.forge_step(900002, 2, 20, 20000, 1.0);
SELECT pg_temp.forge_step(900002, 3, 40, 39000, 1.02);
SELECT is((SELECT (slo_iops, slo_processes)::text FROM ranread_sweeps WHERE sweep = 900002), '(20000,20)',
		  'p99.9 <= 5.05 ms: 40 processes (p99.9 5.1 ms) is out, 20 is the highest within the SLO');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900002),
			'%Highest within the SLO (mean <= 2 ms, p99 <= 5 ms, p99.9 <= 5.05 ms): 20,000 IOPS%',
			'the verdict names every bound of the SLO');
SELECT pg_temp.forge_sweep(900003, 'completed', slo_max => 7);
SELECT pg_temp.forge_step(900003, 1, 10, 10000, 1.0);
SELECT is((SELECT slo_iops FROM ranread_sweeps WHERE sweep = 900003), NULL,
		  'max <= 7 ms: no step (max 8 ms) is within the SLO');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900003),
			'%No step met the SLO (mean <= 2 ms, p99 <= 5 ms, max <= 7 ms).%', 'and the verdict says so');

-- a disk whose mean passes 10 ms
SELECT pg_temp.forge_sweep(900004, 'completed');
SELECT pg_temp.forge_step(900004, 1, 10, 2000, 5.0);
SELECT pg_temp.forge_step(900004, 2, 20, 3200, 6.25);
SELECT pg_temp.forge_step(900004, 3, 40, 4100, 10.5);
SELECT is((SELECT (stop_rule, max_iops, slo_iops)::text FROM ranread_sweeps WHERE sweep = 900004),
		  '(latency,4100,)', 'disk: stopped by latency; highest 4,100 IOPS; none within a mean of 2 ms');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900004),
			'%It stopped because the mean latency at 40 processes, 10.50 ms, passed stop_latency_ms (10 ms).',
			'the verdict names the latency and the rule');

-- a step memory answered is flagged and never counted
SELECT pg_temp.forge_sweep(900005, 'completed');
SELECT pg_temp.forge_step(900005, 1, 10, 10000, 1.0);
SELECT pg_temp.forge_step(900005, 2, 20, 200000, 0.05, physical => 40);
SELECT pg_temp.forge_step(900005, 3, 40, 30000, 1.3);
SELECT is((SELECT (max_iops, max_iops_processes, memory_steps)::text FROM ranread_sweeps WHERE sweep = 900005),
		  '(30000,40,1)', 'the highest IOPS is the device''s 30,000, not memory''s 200,000; one step flagged');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900005),
			'%Step 2 (20 processes) is not counted: the device answered only 40% of its reads, memory the rest.%',
			'the verdict flags it');

-- sweeps that did not end by themselves: no session holds their sweep lock
SELECT pg_temp.forge_sweep(900006, 'running');
SELECT pg_temp.forge_step(900006, 1, 10, 10000, 1.0);
SELECT pg_temp.forge_step(900006, 2, 20, 15000, 1.3, status => 'cancelled');
SELECT is((SELECT (status, stop_rule, steps, max_iops_processes)::text FROM ranread_sweeps WHERE sweep = 900006),
		  '(cancelled,cancelled,2,10)', 'last step cancelled: the sweep shows as cancelled; the partial step is not counted');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900006),
			'%It was cancelled during step 2; the steps before are kept.', 'its verdict says so');
SELECT pg_temp.forge_sweep(900007, 'running');
SELECT pg_temp.forge_step(900007, 1, 10, 10000, 1.0);
SELECT is((SELECT (status, stop_rule)::text FROM ranread_sweeps WHERE sweep = 900007), '(interrupted,interrupted)',
		  'a forged running sweep whose session is gone shows as interrupted, not running');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900007),
			'%It was ended by an error or a crash after 1 step.', 'its verdict says so');
SELECT pg_temp.forge_sweep(900008, 'running');
SELECT is((SELECT (status, steps, max_iops, knee_processes)::text FROM ranread_sweeps WHERE sweep = 900008),
		  '(interrupted,0,,)', 'a sweep without steps');
SELECT is((SELECT verdict FROM ranread_sweeps WHERE sweep = 900008),
		  'No step measured the storage. It was ended by an error or a crash after 0 steps.', 'says no step measured the storage');
-- stopped during its second step: what it measured, and no figure to quote (issue 42)
SELECT pg_temp.forge_sweep(900020, 'stopped');
UPDATE ranread_sweep_runs SET stop_rule = 'stopped' WHERE sweep = 900020;
SELECT pg_temp.forge_step(900020, 1, 10, 10000, 1.0);
SELECT pg_temp.forge_step(900020, 2, 20, 15000, 1.3, status => 'stopped');
SELECT is((SELECT verdict FROM ranread_sweeps WHERE sweep = 900020),
		  'Highest IOPS: 10,000 IOPS (mean 1.00 ms, p99 3.00 ms) at 10 processes. '
		  'Highest within the SLO (mean <= 2 ms, p99 <= 5 ms) of the steps it reached: 10,000 IOPS (mean 1.00 ms, p99 3.00 ms) '
		  'at 10 processes; the sweep did not end by its rules, so it has no figure to quote. '
		  'Knee at 10 processes: the most IOPS per ms of mean latency, the most efficient load, not the capacity. '
		  'It was stopped by ranread_stop().',
		  'a sweep stopped in its second step says what it measured and that it has no figure to quote');
SELECT pg_temp.forge_sweep(900009, 'stopped');
UPDATE ranread_sweep_runs SET stop_rule = 'stopped' WHERE sweep = 900009;
SELECT pg_temp.forge_step(900009, 1, 10, 10000, 1.0, status => 'stopped');
SELECT is((SELECT (status, stop_rule, max_iops)::text FROM ranread_sweeps WHERE sweep = 900009), '(stopped,stopped,)',
		  'a sweep stopped in its first step: stopped, nothing counted');

-- an open-loop sweep: the rate is its axis
SELECT pg_temp.forge_sweep(900010, 'completed', rate => 10000);
SELECT pg_temp.forge_step(900010, 1, 4, 9990, 0.2, rate => 10000);
SELECT pg_temp.forge_step(900010, 2, 4, 18500, 3.0, rate => 20000);
SELECT is((SELECT (stop_rule, max_iops, slo_iops)::text FROM ranread_sweeps WHERE sweep = 900010),
		  '("rate missed",18500,9990)', 'open loop: stopped by the missed rate; p99 9 ms at 20,000 reads/s is outside the SLO');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900010),
			'Highest IOPS: 18,500 IOPS (mean 3.00 ms, p99 9.00 ms) at 20,000 reads/s. Highest within the SLO (mean <= 2 ms, p99 <= 5 ms): 9,990 IOPS (mean 0.200 ms, p99 0.600 ms) at 10,000 reads/s: what this volume can do within the SLO, the figure to quote.%It stopped because at 20,000 reads/s asked it achieved 18,500: the storage is saturated.',
			'its verdict speaks of rates');

-- noise: each figure of the verdict with its band (the 95 % half-width stored with the batch)
SELECT pg_temp.forge_sweep(900011, 'completed');
SELECT pg_temp.forge_step(900011, 1, 10, 10000, 1.0, band => 2);
SELECT pg_temp.forge_step(900011, 2, 20, 20000, 1.0, band => 2);
SELECT pg_temp.forge_step(900011, 3, 40, 39000, 1.02, band => 3);
SELECT pg_temp.forge_step(900011, 4, 80, 41000, 1.95, band => 3);
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900011),
			'Highest IOPS: 41,000 IOPS ± 3.0 % (mean 1.95 ms ± 3.0 %, p99 5.85 ms ± 3.0 %) at 80 processes. '
			'Highest within the SLO (mean <= 2 ms, p99 <= 5 ms): 39,000 IOPS ± 3.0 % (mean 1.02 ms ± 3.0 %, p99 3.06 ms ± 3.0 %) at 40 processes: what this volume can do within the SLO, the figure to quote. '
			'Knee at 40 processes: %',
			'the verdict states each figure with its band');
SELECT is((SELECT stop_rule FROM ranread_sweeps WHERE sweep = 900011), 'scaling',
		  'outside the SLO at 80 processes and 5 % of linear, clearly below 25 % with 3 % bands: scaling');

-- a repeated step: its runs (batches of one sweep_step) combined into one step
SELECT pg_temp.forge_sweep(900012, 'completed');
SELECT pg_temp.forge_step(900012, 1, 10, 10000, 1.0, band => 2);
SELECT pg_temp.forge_step(900012, 2, 20, 20000, 1.0, band => 2);
SELECT pg_temp.forge_step(900012, 2, 20, 22000, 1.0, band => 2, run => 1);
SELECT is((SELECT (steps, max_iops, max_iops_processes)::text FROM ranread_sweeps WHERE sweep = 900012),
		  '(2,21000,20)', 'two runs of step 2 are one step, their IOPS averaged: 21,000');
SELECT alike((SELECT verdict FROM ranread_sweeps WHERE sweep = 900012),
			'Highest IOPS: 21,000 IOPS ± 9.5 % %',
			'its band is the larger of the runs'' own bands combined and their spread (2 x 1,414 / sqrt 2 / 21,000)');

-- a step still within the noise of stop_latency_ms after two repeats: undecided, said so
SELECT pg_temp.forge_sweep(900013, 'completed');
SELECT pg_temp.forge_step(900013, 1, 10, 1000, 10.4, band => 50);
SELECT pg_temp.forge_step(900013, 1, 10, 1000, 10.4, band => 50, run => 1);
SELECT pg_temp.forge_step(900013, 1, 10, 1000, 10.4, band => 50, run => 2);
SELECT alike((SELECT stop_rule || ': ' || verdict FROM ranread_sweeps WHERE sweep = 900013),
			'undecided: %It stopped undecided at 10 processes: after 3 runs the step''s mean latency was still within its noise of stop_latency_ms (10 ms), so the sweep cannot tell whether that rule holds there.',
			'a sweep that cannot decide within its repeats says so instead of guessing');

-- a sweep that does not exist
SELECT is((SELECT ranread_sweep_verdict(424242) IS NULL), true, 'ranread_sweep_verdict() of no sweep is NULL');

SELECT * FROM finish();
ROLLBACK;
