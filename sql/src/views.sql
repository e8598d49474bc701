-- views.sql: the narrow answers a DBA reads in psql: each view rounds the
-- history tables' figures and names their columns for a 120-column screen.
-- Every operator, function and constant resolves to pg_catalog's or
-- ranread's own, so that no look-alike another role planted is bound into
-- them.

CREATE OR REPLACE VIEW ranread_summary AS
SELECT run_date,
	   run_time,
	   target,
	   iterations,
	   processes,
	   ranread_round_ms(response_time_ms, 2) AS response_time_ms,
	   pg_catalog.round(iops::numeric) AS iops,
	   batch,
	   mode,
	   block_size,
	   ranread_round_ms(p50_ms, 3) AS p50_ms,
	   ranread_round_ms(p95_ms, 3) AS p95_ms,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   ranread_round_ms(p999_ms, 3) AS p999_ms,
	   ranread_round_ms(min_ms, 3) AS min_ms,
	   ranread_round_ms(max_ms, 3) AS max_ms,
	   pg_catalog.round(pct_over_2ms::numeric, 2) AS pct_over_2ms,
	   pg_catalog.round(pct_over_5ms::numeric, 2) AS pct_over_5ms,
	   pg_catalog.round(pct_over_10ms::numeric, 2) AS pct_over_10ms,
	   pg_catalog.round(mb_per_s::numeric, 1) AS mb_per_s,
	   pg_catalog.round(physical_pct::numeric, 1) AS physical_pct,
	   buffer_hits,
	   buffer_misses,
	   device,
	   pg_catalog.round(device_reads_per_s::numeric) AS device_reads_per_s,
	   ranread_round_ms(device_read_wait_ms, 3) AS device_read_wait_ms,
	   pg_catalog.round(device_util_pct::numeric, 1) AS device_util_pct,
	   reads,
	   pg_catalog.round(wall_s::numeric, 3) AS wall_s,
	   duration_s,
	   evicted,
	   status,
	   started_at,
	   wrapped_reads,
	   pg_catalog.round(kb_per_read::numeric, 1) AS kb_per_read,
	   ramp_s,
	   pg_catalog.round(steady_at_s::numeric, 2)::float8 AS steady_at_s,
	   rate_iops,
	   ranread_round_ms(service_mean_ms, 3) AS service_mean_ms,
	   ranread_round_ms(service_p50_ms, 3) AS service_p50_ms,
	   ranread_round_ms(service_p99_ms, 3) AS service_p99_ms,
	   ranread_round_ms(service_p999_ms, 3) AS service_p999_ms,
	   sweep,
	   sweep_step,
	   iodepth,
	   ended_by,
	   pg_catalog.round(device_shared_pct::numeric, 1) AS device_shared_pct
FROM ranread_batches;
COMMENT ON VIEW ranread_summary IS 'One row per batch: ranread_batches rounded for reading, RanRead''s seven columns first.';
COMMENT ON COLUMN ranread_summary.run_date IS 'batch start date (RanRead''s RunDate)';
COMMENT ON COLUMN ranread_summary.run_time IS 'batch start time (RanRead''s RunTime)';
COMMENT ON COLUMN ranread_summary.target IS 'target read (RanRead''s Database)';
COMMENT ON COLUMN ranread_summary.iterations IS 'reads: per worker (RanRead''s Iterations); NULL for a time-based run';
COMMENT ON COLUMN ranread_summary.processes IS 'workers (RanRead''s Processes)';
COMMENT ON COLUMN ranread_summary.response_time_ms IS 'ms: mean read time, 2 decimals, or three significant digits below 1 ms (RanRead''s ResponseTime)';
COMMENT ON COLUMN ranread_summary.iops IS 'reads/s: batch IOPS, rounded to an integer (RanRead''s IOPS)';
COMMENT ON COLUMN ranread_summary.batch IS 'batch number';
COMMENT ON COLUMN ranread_summary.mode IS 'read path';
COMMENT ON COLUMN ranread_summary.block_size IS 'bytes: bytes per read';
COMMENT ON COLUMN ranread_summary.p50_ms IS 'ms: percentiles, 3 decimals, or three significant digits below 1 ms (0.00412)';
COMMENT ON COLUMN ranread_summary.p95_ms IS 'ms: percentiles, 3 decimals, or three significant digits below 1 ms (0.00412)';
COMMENT ON COLUMN ranread_summary.p99_ms IS 'ms: percentiles, 3 decimals, or three significant digits below 1 ms (0.00412)';
COMMENT ON COLUMN ranread_summary.p999_ms IS 'ms: percentiles, 3 decimals, or three significant digits below 1 ms (0.00412)';
COMMENT ON COLUMN ranread_summary.min_ms IS 'ms: fastest and slowest read, as the percentiles';
COMMENT ON COLUMN ranread_summary.max_ms IS 'ms: fastest and slowest read, as the percentiles';
COMMENT ON COLUMN ranread_summary.pct_over_2ms IS '% of reads: 2 decimals';
COMMENT ON COLUMN ranread_summary.pct_over_5ms IS '% of reads: 2 decimals';
COMMENT ON COLUMN ranread_summary.pct_over_10ms IS '% of reads: 2 decimals';
COMMENT ON COLUMN ranread_summary.mb_per_s IS 'MB/s: 1 decimal';
COMMENT ON COLUMN ranread_summary.physical_pct IS '%: 1 decimal';
COMMENT ON COLUMN ranread_summary.buffer_hits IS 'blocks: mode buffer only';
COMMENT ON COLUMN ranread_summary.buffer_misses IS 'blocks: mode buffer only';
COMMENT ON COLUMN ranread_summary.device IS 'block device, or NULL';
COMMENT ON COLUMN ranread_summary.device_reads_per_s IS 'requests/s: rounded to an integer';
COMMENT ON COLUMN ranread_summary.device_read_wait_ms IS 'ms: as the percentiles';
COMMENT ON COLUMN ranread_summary.device_util_pct IS '%: 1 decimal';
COMMENT ON COLUMN ranread_summary.reads IS 'reads: all reads of the batch';
COMMENT ON COLUMN ranread_summary.wall_s IS 's: 3 decimals';
COMMENT ON COLUMN ranread_summary.duration_s IS 's: as given, or NULL';
COMMENT ON COLUMN ranread_summary.evicted IS 'whether the page cache was evicted';
COMMENT ON COLUMN ranread_summary.status IS 'batch status';
COMMENT ON COLUMN ranread_summary.started_at IS 'batch start, to the microsecond';
COMMENT ON COLUMN ranread_summary.wrapped_reads IS 'reads: reads after the batch had read every unit once, which can re-read a unit from the page cache';
COMMENT ON COLUMN ranread_summary.kb_per_read IS 'kB: 1 decimal';
COMMENT ON COLUMN ranread_summary.ramp_s IS 's, %: the run''s arguments (NULL when not given; steady_band_pct only with steady_state)';
COMMENT ON COLUMN ranread_summary.steady_at_s IS 's: when the steady-state rule was met, after counting began; NULL if it was not (or not asked for)';
COMMENT ON COLUMN ranread_summary.rate_iops IS 'reads/s: an open loop''s rate and spacing; NULL for a closed loop';
COMMENT ON COLUMN ranread_summary.service_mean_ms IS 'ms: open loop only, as the percentiles';
COMMENT ON COLUMN ranread_summary.service_p50_ms IS 'ms: open loop only, as the percentiles';
COMMENT ON COLUMN ranread_summary.service_p99_ms IS 'ms: open loop only, as the percentiles';
COMMENT ON COLUMN ranread_summary.service_p999_ms IS 'ms: open loop only, as the percentiles';
COMMENT ON COLUMN ranread_summary.sweep IS 'the sweep the batch is a step of, and which step; NULL for a plain run';
COMMENT ON COLUMN ranread_summary.sweep_step IS 'the sweep the batch is a step of, and which step; NULL for a plain run';
COMMENT ON COLUMN ranread_summary.iodepth IS 'reads: reads in flight per worker';
COMMENT ON COLUMN ranread_summary.ended_by IS 'what ended a completed batch, as in ranread_batches';
COMMENT ON COLUMN ranread_summary.device_shared_pct IS '%: other I/O''s share of the device''s reads, 1 decimal (the view''s last column)';

CREATE OR REPLACE VIEW ranread_progress AS
SELECT 'run'::text AS activity,
	   r.sweep,
	   r.sweep_step AS step,
	   r.batch,
	   r.state,
	   CASE WHEN r.target_reads IS NOT NULL
			THEN pg_catalog.format('%s of %s reads', r.reads, r.target_reads)
			ELSE pg_catalog.format('%s reads in %s s', r.reads, pg_catalog.round(r.elapsed_s::numeric, 1)) END AS progress,
	   pg_catalog.round(r.time_left_s::numeric, 1) AS time_left_s,
	   pg_catalog.round(r.iops::numeric) AS iops,
	   ranread_round_ms(r.mean_ms, 3) AS mean_ms,
	   ranread_round_ms(r.p99_ms, 3) AS p99_ms
FROM ranread_running() r
WHERE r.worker IS NULL
UNION ALL
SELECT 'setup', NULL, NULL, NULL, s.state,
	   pg_catalog.format('%s: %s of %s MB', s.target,
						 pg_catalog.round(s.bytes_written::numeric OPERATOR(pg_catalog./) 1048576.0),
						 pg_catalog.round(s.bytes_total::numeric OPERATOR(pg_catalog./) 1048576.0)),
	   pg_catalog.round(s.time_left_s::numeric, 1), NULL, NULL, NULL
FROM ranread_setup_running() s;
COMMENT ON VIEW ranread_progress IS 'What runs now: one row per batch (in total) and one per ranread_setup().';
COMMENT ON COLUMN ranread_progress.activity IS 'run or setup';
COMMENT ON COLUMN ranread_progress.sweep IS 'the run''s sweep and step (NULL for a plain run) and its batch';
COMMENT ON COLUMN ranread_progress.step IS 'the run''s sweep and step (NULL for a plain run) and its batch';
COMMENT ON COLUMN ranread_progress.batch IS 'the run''s sweep and step (NULL for a plain run) and its batch';
COMMENT ON COLUMN ranread_progress.state IS 'a run: how many workers read (2 of 2 reading), or writers alone; a setup: writing, then flushing (every block written; flushing and evicting the files)';
COMMENT ON COLUMN ranread_progress.progress IS 'a run: reads so far of iterations x processes (23240 of 40000 reads), or reads in the seconds so far for a time-based run';
COMMENT ON COLUMN ranread_progress.time_left_s IS 'the time left at the rate so far';
COMMENT ON COLUMN ranread_progress.iops IS 'a run''s rate and latency so far, all workers together';
COMMENT ON COLUMN ranread_progress.mean_ms IS 'a run''s rate and latency so far, all workers together';
COMMENT ON COLUMN ranread_progress.p99_ms IS 'a run''s rate and latency so far, all workers together';

CREATE OR REPLACE VIEW ranread_report AS
SELECT batch,
	   sweep,
	   sweep_step AS step,
	   mode,
	   processes,
	   iodepth,
	   pg_catalog.round(iops::numeric) AS iops,
	   ranread_round_ms(response_time_ms, 3) AS mean_ms,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   pg_catalog.round(physical_pct::numeric, 1) AS physical_pct,
	   status
FROM ranread_batches;
COMMENT ON VIEW ranread_report IS 'One short row per batch, for a terminal; ranread_summary has every column.';
COMMENT ON COLUMN ranread_report.batch IS 'the batch, and the sweep and step it is (NULL for a plain run)';
COMMENT ON COLUMN ranread_report.sweep IS 'the batch, and the sweep and step it is (NULL for a plain run)';
COMMENT ON COLUMN ranread_report.step IS 'the batch, and the sweep and step it is (NULL for a plain run)';
COMMENT ON COLUMN ranread_report.mode IS 'how it read';
COMMENT ON COLUMN ranread_report.processes IS 'how it read';
COMMENT ON COLUMN ranread_report.iodepth IS 'how it read';
COMMENT ON COLUMN ranread_report.iops IS 'whole IOPS';
COMMENT ON COLUMN ranread_report.mean_ms IS 'mean and p99 response time, 3 decimals, or three significant digits below 1 ms';
COMMENT ON COLUMN ranread_report.p99_ms IS 'mean and p99 response time, 3 decimals, or three significant digits below 1 ms';
COMMENT ON COLUMN ranread_report.physical_pct IS 'share of reads the device answered, 1 decimal';
COMMENT ON COLUMN ranread_report.status IS 'as in Statuses';

CREATE OR REPLACE VIEW ranread_series AS
SELECT batch,
	   interval_no,
	   pg_catalog.round(start_s::numeric, 2) AS start_s,
	   pg_catalog.round(seconds::numeric, 2) AS seconds,
	   reads,
	   pg_catalog.round(iops::numeric) AS iops,
	   ranread_round_ms(mean_ms, 3) AS mean_ms,
	   ranread_round_ms(p50_ms, 3) AS p50_ms,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   ranread_round_ms(max_ms, 3) AS max_ms,
	   workers_reading
FROM ranread_intervals;
COMMENT ON VIEW ranread_series IS 'ranread_intervals rounded for reading: a batch over time.';
COMMENT ON COLUMN ranread_series.batch IS 'the batch, and the interval''s number from 1 (the primary key)';
COMMENT ON COLUMN ranread_series.interval_no IS 'the batch, and the interval''s number from 1 (the primary key)';
COMMENT ON COLUMN ranread_series.start_s IS 'when the interval began, in seconds after counting began (the release, or the end of the ramp), and how long it lasted (the last one is partial)';
COMMENT ON COLUMN ranread_series.seconds IS 'when the interval began, in seconds after counting began (the release, or the end of the ramp), and how long it lasted (the last one is partial)';
COMMENT ON COLUMN ranread_series.reads IS 'reads that ended in the interval, and reads / seconds';
COMMENT ON COLUMN ranread_series.iops IS 'reads that ended in the interval, and reads / seconds';
COMMENT ON COLUMN ranread_series.mean_ms IS 'of the interval''s reads alone (response times in an open loop); NULL when it had none';
COMMENT ON COLUMN ranread_series.p50_ms IS 'of the interval''s reads alone (response times in an open loop); NULL when it had none';
COMMENT ON COLUMN ranread_series.p99_ms IS 'of the interval''s reads alone (response times in an open loop); NULL when it had none';
COMMENT ON COLUMN ranread_series.max_ms IS 'of the interval''s reads alone (response times in an open loop); NULL when it had none';
COMMENT ON COLUMN ranread_series.workers_reading IS 'workers still reading at its end: fewer than processes means some had finished';

CREATE OR REPLACE VIEW ranread_series_activity AS
SELECT batch,
	   interval_no,
	   pg_catalog.round(start_s::numeric, 2) AS start_s,
	   pg_catalog.round(iops::numeric) AS iops,
	   ranread_round_ms(p99_ms, 3) AS p99_ms,
	   wal_bytes,
	   wal_syncs,
	   pg_catalog.round(wal_sync_ms::numeric, 2) AS wal_sync_ms,
	   buffers_checkpoint,
	   buffers_clean,
	   buffers_backend,
	   -- 'began', 'ended', 'began ended', or 'running' (through it); NULL: none, or unknown
	   NULLIF(pg_catalog.concat_ws(' ', CASE WHEN checkpoint_began THEN 'began' END,
								   CASE WHEN checkpoint_ended THEN 'ended' END,
								   CASE WHEN checkpoint_running AND NOT (checkpoint_began OR checkpoint_ended) THEN 'running' END),
			  ''::text) AS checkpoint,
	   device_reads,
	   device_writes
FROM ranread_intervals;
COMMENT ON VIEW ranread_series_activity IS 'A batch over time with what the server did: WAL, checkpoints, buffers, device I/O.';
COMMENT ON COLUMN ranread_series_activity.batch IS 'the batch, and the interval''s number from 1 (the primary key)';
COMMENT ON COLUMN ranread_series_activity.interval_no IS 'the batch, and the interval''s number from 1 (the primary key)';
COMMENT ON COLUMN ranread_series_activity.start_s IS 'when the interval began, in seconds after counting began (the release, or the end of the ramp), and how long it lasted (the last one is partial)';
COMMENT ON COLUMN ranread_series_activity.iops IS 'reads that ended in the interval, and reads / seconds';
COMMENT ON COLUMN ranread_series_activity.p99_ms IS 'of the interval''s reads alone (response times in an open loop); NULL when it had none';
COMMENT ON COLUMN ranread_series_activity.wal_bytes IS 'how far the WAL insert position moved (pg_current_wal_insert_lsn()): every process''s WAL, page headers included, exact at both ends; NULL on a standby, which inserts none';
COMMENT ON COLUMN ranread_series_activity.wal_syncs IS 'with writers (NULL otherwise): WAL syncs, and their time (NULL unless track_wal_io_timing is on), from the counters of ranread_db_activity';
COMMENT ON COLUMN ranread_series_activity.wal_sync_ms IS 'with writers (NULL otherwise): WAL syncs, and their time (NULL unless track_wal_io_timing is on), from the counters of ranread_db_activity';
COMMENT ON COLUMN ranread_series_activity.buffers_checkpoint IS 'with writers: buffers written by the checkpointer, the background writer and every other process, likewise';
COMMENT ON COLUMN ranread_series_activity.buffers_clean IS 'with writers: buffers written by the checkpointer, the background writer and every other process, likewise';
COMMENT ON COLUMN ranread_series_activity.buffers_backend IS 'with writers: buffers written by the checkpointer, the background writer and every other process, likewise';
COMMENT ON COLUMN ranread_series_activity.checkpoint IS 'began, ended or running: a checkpoint in this interval (NULL: none)';
COMMENT ON COLUMN ranread_series_activity.device_reads IS 'the target''s block device (/proc/diskstats): reads and writes completed in it, everyone''s; NULL when ranread found no device for the target';
COMMENT ON COLUMN ranread_series_activity.device_writes IS 'the target''s block device (/proc/diskstats): reads and writes completed in it, everyone''s; NULL when ranread found no device for the target';

CREATE OR REPLACE VIEW ranread_sweeps AS
SELECT s.sweep,
	   s.started_at,
	   v.status,
	   v.steps,
	   pg_catalog.round(v.max_iops::numeric) AS max_iops,
	   v.max_iops_processes,
	   pg_catalog.round(v.slo_iops::numeric) AS slo_iops,
	   v.slo_processes,
	   v.knee_processes,
	   v.memory_steps,
	   v.stop_rule,
	   v.verdict,
	   s.target,
	   s.mode,
	   s.block_size,
	   s.slo_mean_ms,
	   s.slo_p99_ms,
	   s.slo_p999_ms,
	   s.slo_max_ms,
	   s.ended_at
FROM ranread_sweep_runs s,
	 LATERAL ranread_sweep_verdict(s.sweep) v;
COMMENT ON VIEW ranread_sweeps IS 'One row per sweep, with ranread_sweep_verdict() computed from its steps as they are now.';
COMMENT ON COLUMN ranread_sweeps.sweep IS 'sweep number (ranread_sweep_seq)';
COMMENT ON COLUMN ranread_sweeps.started_at IS 'when the sweep began';
COMMENT ON COLUMN ranread_sweeps.status IS 'running, completed, stopped, or, for a sweep that did not end by itself, cancelled (its last step was cancelled) or interrupted (an error or a crash)';
COMMENT ON COLUMN ranread_sweeps.steps IS 'steps recorded';
COMMENT ON COLUMN ranread_sweeps.max_iops IS 'the highest IOPS of the steps that count, and its processes';
COMMENT ON COLUMN ranread_sweeps.max_iops_processes IS 'the highest IOPS of the steps that count, and its processes';
COMMENT ON COLUMN ranread_sweeps.slo_iops IS 'the highest IOPS of the steps that count and meet the SLO; NULL when none does';
COMMENT ON COLUMN ranread_sweeps.slo_processes IS 'the highest IOPS of the steps that count and meet the SLO; NULL when none does';
COMMENT ON COLUMN ranread_sweeps.knee_processes IS 'the knee (highest IOPS per ms of mean latency)';
COMMENT ON COLUMN ranread_sweeps.memory_steps IS 'completed steps whose physical-read proof failed';
COMMENT ON COLUMN ranread_sweeps.stop_rule IS 'latency, scaling, rate missed, max processes, worker slots, max rate, step ended, undecided (a step still within the noise of a stop rule after its repeats), stopped, cancelled, interrupted; NULL while running';
COMMENT ON COLUMN ranread_sweeps.verdict IS 'all of it in words';
COMMENT ON COLUMN ranread_sweeps.target IS 'the target read';
COMMENT ON COLUMN ranread_sweeps.mode IS 'the read path';
COMMENT ON COLUMN ranread_sweeps.block_size IS 'bytes per read';
COMMENT ON COLUMN ranread_sweeps.slo_mean_ms IS 'ms: the SLO on the mean (NULL: none)';
COMMENT ON COLUMN ranread_sweeps.slo_p99_ms IS 'ms: the SLO on p99 (NULL: none)';
COMMENT ON COLUMN ranread_sweeps.slo_p999_ms IS 'ms: the SLO on p99.9 (NULL: none)';
COMMENT ON COLUMN ranread_sweeps.slo_max_ms IS 'ms: the SLO on the slowest read (NULL: none)';
COMMENT ON COLUMN ranread_sweeps.ended_at IS 'NULL while it runs, or after a cancel, an error or a crash';

CREATE OR REPLACE VIEW ranread_write_summary AS
SELECT w.batch,
	   pg_catalog.min(w.started_at) AS started_at,
	   pg_catalog.min(w.write_target) AS write_target,
	   pg_catalog.min(w.writers) AS writers,
	   pg_catalog.min(w.write_rate_iops) AS write_rate_iops,
	   pg_catalog.sum(w.writes) AS writes,
	   pg_catalog.round((pg_catalog.sum(w.writes)::float8
						 OPERATOR(pg_catalog./) NULLIF(pg_catalog.max(w.elapsed_s), 0::float8))::numeric) AS write_iops,
	   ranread_round_ms(pg_catalog.sum(w.mean_ms OPERATOR(pg_catalog.*) w.writes::float8)
									OPERATOR(pg_catalog./) NULLIF(pg_catalog.sum(w.writes)::float8, 0::float8), 3) AS mean_ms,
	   ranread_round_ms(ranread_histogram_percentile(ranread_histogram_merge(w.histogram),
																			 0.5::float8), 3) AS p50_ms,
	   ranread_round_ms(ranread_histogram_percentile(ranread_histogram_merge(w.histogram),
																			 0.99::float8), 3) AS p99_ms,
	   ranread_round_ms(pg_catalog.max(w.max_ms), 3) AS max_ms,
	   -- the worst status other than completed (text order would put stopped above failed)
	   (ARRAY['stopped', 'cancelled', 'failed'])[pg_catalog.max(pg_catalog.array_position(ARRAY['stopped', 'cancelled', 'failed'],
																						 w.status))]
		   AS not_completed,
	   a.wal_bytes, a.wal_fpi, a.wal_syncs, a.wal_sync_ms, a.checkpoints_timed, a.checkpoints_requested,
	   a.buffers_checkpoint, a.buffers_clean, a.buffers_backend, a.updates, a.hot_updates, a.seconds AS activity_s
FROM ranread_write_results w
LEFT JOIN ranread_db_activity a ON a.batch OPERATOR(pg_catalog.=) w.batch
GROUP BY w.batch, a.batch;
COMMENT ON VIEW ranread_write_summary IS 'One row per batch with writers: its writers merged, beside its ranread_db_activity row.';
COMMENT ON COLUMN ranread_write_summary.batch IS 'the batch, and the writer from 1 (the primary key)';
COMMENT ON COLUMN ranread_write_summary.started_at IS 'the batch''s release';
COMMENT ON COLUMN ranread_write_summary.write_target IS 'writes/s: as asked';
COMMENT ON COLUMN ranread_write_summary.writers IS 'writes/s: as asked';
COMMENT ON COLUMN ranread_write_summary.write_rate_iops IS 'writes/s: as asked';
COMMENT ON COLUMN ranread_write_summary.writes IS 'writes committed';
COMMENT ON COLUMN ranread_write_summary.write_iops IS 'writes/s: writes / elapsed_s';
COMMENT ON COLUMN ranread_write_summary.mean_ms IS 'ms: each write from its transaction''s start to its commit''s return';
COMMENT ON COLUMN ranread_write_summary.p50_ms IS 'ms: each write from its transaction''s start to its commit''s return';
COMMENT ON COLUMN ranread_write_summary.p99_ms IS 'ms: each write from its transaction''s start to its commit''s return';
COMMENT ON COLUMN ranread_write_summary.max_ms IS 'ms: each write from its transaction''s start to its commit''s return';
COMMENT ON COLUMN ranread_write_summary.not_completed IS 'writers whose status is not completed';
COMMENT ON COLUMN ranread_write_summary.wal_bytes IS 'bytes: WAL written, every process''s';
COMMENT ON COLUMN ranread_write_summary.wal_fpi IS 'WAL full-page images';
COMMENT ON COLUMN ranread_write_summary.wal_syncs IS 'WAL syncs (fsyncs of WAL)';
COMMENT ON COLUMN ranread_write_summary.wal_sync_ms IS 'NULL unless track_wal_io_timing';
COMMENT ON COLUMN ranread_write_summary.checkpoints_timed IS 'checkpoints started by checkpoint_timeout';
COMMENT ON COLUMN ranread_write_summary.checkpoints_requested IS 'checkpoints requested';
COMMENT ON COLUMN ranread_write_summary.buffers_checkpoint IS 'written by the checkpointer';
COMMENT ON COLUMN ranread_write_summary.buffers_clean IS 'by the background writer';
COMMENT ON COLUMN ranread_write_summary.buffers_backend IS 'by every other process';
COMMENT ON COLUMN ranread_write_summary.updates IS 'updates of the write target';
COMMENT ON COLUMN ranread_write_summary.hot_updates IS 'of those, HOT';
COMMENT ON COLUMN ranread_write_summary.activity_s IS 's: the span ranread_db_activity covers';

CREATE OR REPLACE VIEW ranread_fleet_summary AS
SELECT f.fleet, f.fleet_sweep, f.sweep_step, f.started_at, f.servers, f.processes, f.mode, f.target, f.status,
	   pg_catalog.round(f.iops) AS iops,
	   ranread_round_ms(f.mean_ms, 3) AS mean_ms,
	   ranread_round_ms(f.p99_ms, 3) AS p99_ms,
	   ranread_round_ms(f.max_ms, 3) AS max_ms,
	   f.slowest_server,
	   pg_catalog.round(f.overlap_pct::numeric, 1) AS overlap_pct,
	   (SELECT pg_catalog.count(*) FROM ranread_fleet_servers s
		WHERE s.fleet OPERATOR(pg_catalog.=) f.fleet AND s.status OPERATOR(pg_catalog.=) 'completed'::text) AS servers_completed
FROM ranread_fleet_runs f;
COMMENT ON VIEW ranread_fleet_summary IS 'One rounded row per fleet run.';
COMMENT ON COLUMN ranread_fleet_summary.fleet IS 'fleet run number';
COMMENT ON COLUMN ranread_fleet_summary.fleet_sweep IS 'the fleet sweep it is a step of (NULL: none)';
COMMENT ON COLUMN ranread_fleet_summary.sweep_step IS 'the step of its fleet sweep (NULL: none)';
COMMENT ON COLUMN ranread_fleet_summary.started_at IS 'when the coordinator began its checks';
COMMENT ON COLUMN ranread_fleet_summary.servers IS 'how many servers it ran on';
COMMENT ON COLUMN ranread_fleet_summary.processes IS 'per server';
COMMENT ON COLUMN ranread_fleet_summary.mode IS 'the read path, as ranread_run''s';
COMMENT ON COLUMN ranread_fleet_summary.target IS 'the target each server read';
COMMENT ON COLUMN ranread_fleet_summary.status IS 'completed, partial (a server did not complete), failed, cancelled, stopped';
COMMENT ON COLUMN ranread_fleet_summary.iops IS 'the servers'' IOPS summed';
COMMENT ON COLUMN ranread_fleet_summary.mean_ms IS 'of every server''s reads';
COMMENT ON COLUMN ranread_fleet_summary.p99_ms IS 'ms: 99th percentile of the merged reads';
COMMENT ON COLUMN ranread_fleet_summary.max_ms IS 'ms: the slowest read of any server';
COMMENT ON COLUMN ranread_fleet_summary.slowest_server IS 'the server with the highest p99';
COMMENT ON COLUMN ranread_fleet_summary.overlap_pct IS '%: the servers'' common window, of the whole';
COMMENT ON COLUMN ranread_fleet_summary.servers_completed IS 'servers whose batch completed';

CREATE OR REPLACE FUNCTION ranread_verdict(sweep bigint DEFAULT NULL)
RETURNS TABLE(verdict text)
LANGUAGE sql STABLE
BEGIN ATOMIC
	WITH s AS (
		SELECT r.sweep, r.target, r.mode, v.status, v.steps, v.verdict AS words
		FROM ranread_sweep_runs r,
			 LATERAL ranread_sweep_verdict(r.sweep) v
		WHERE r.sweep OPERATOR(pg_catalog.=) coalesce(ranread_verdict.sweep,
													  (SELECT pg_catalog.max(l.sweep) FROM ranread_sweep_runs l))
	), line AS (
		SELECT 0::bigint AS n, 0::bigint AS k,
			   pg_catalog.format('sweep %s (%s, %s on %s, %s %s):', s.sweep, s.status, s.mode, s.target, s.steps,
								 CASE WHEN s.steps OPERATOR(pg_catalog.=) 1 THEN 'step' ELSE 'steps' END) AS text
		FROM s
		UNION ALL
		SELECT x.n, m.k, m.part[1]
		FROM s,
			 pg_catalog.regexp_split_to_table(s.words, '(?<=[.!?])\s+'::text) WITH ORDINALITY AS x(sentence, n),
			 pg_catalog.regexp_matches(x.sentence, '(.{1,99})(?:\s+|$)'::text, 'g'::text) WITH ORDINALITY AS m(part, k)
	)
	SELECT line.text FROM line ORDER BY line.n, line.k;
END;
COMMENT ON FUNCTION ranread_verdict(bigint) IS 'a sweep''s verdict (the latest by default), a sentence a line
sweep: the sweep (NULL: the latest)';
