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
