/* ranread--1.0--1.1.sql: from ranread 1.0 to 1.1 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.1'" to load this file. \quit

-- First of all: a role other than a superuser that may create objects in
-- this schema could plant look-alike functions and operators in it.  Every
-- script of ranread resolves its names to pg_catalog's and its own, but
-- other code run with this schema on its search_path may not: say so, once
-- for the whole CREATE or UPDATE (docs/reference.md, "Updating").
DO $guard$
DECLARE
	creators text;
BEGIN
	IF (pg_catalog.current_setting('ranread_script.checked', true) OPERATOR(pg_catalog.=) 'yes') IS NOT TRUE THEN
		PERFORM pg_catalog.set_config('ranread_script.checked', 'yes', true);
		SELECT pg_catalog.string_agg(pg_catalog.quote_ident(r.rolname), ', ' ORDER BY r.rolname) INTO creators
		FROM pg_catalog.pg_roles r
		WHERE r.rolcanlogin AND NOT r.rolsuper
		  AND pg_catalog.has_schema_privilege(r.oid, (SELECT n.oid FROM pg_catalog.pg_namespace n
												   WHERE n.nspname OPERATOR(pg_catalog.=) pg_catalog.current_schema()), 'CREATE');
		IF creators IS NOT NULL THEN
			RAISE WARNING 'roles other than superusers may create objects in ranread''s schema %: %',
				pg_catalog.quote_ident(pg_catalog.current_schema()), creators
				USING HINT = pg_catalog.format('REVOKE CREATE ON SCHEMA %I from them, and drop the functions and operators they own there, unless you trust them as you trust a superuser.',
											   pg_catalog.current_schema());
		END IF;
	END IF;
END
$guard$;

-- A target is now proven by membership of the extension, not by this row;
-- the row keeps the OID the table had when made (a regclass would make a
-- dump unrestorable, since pg_dump leaves member tables out).
ALTER TABLE ranread_targets ALTER COLUMN relation TYPE oid;

-- Adopt the targets 1.0 made: an unlogged table of this schema, named as
-- its row, with no columns and autovacuum off.  VACUUM no longer truncates
-- them; VACUUM FULL still empties their empty pages, so set them up again to
-- get 1.1's pages of frozen tuples.
DO $$
DECLARE
	t record;
BEGIN
	FOR t IN
		SELECT c.oid::regclass AS relation
		FROM ranread_targets r
		JOIN pg_catalog.pg_class c ON c.relname OPERATOR(pg_catalog.=) r.target
		JOIN pg_catalog.pg_extension e ON e.extname OPERATOR(pg_catalog.=) 'ranread'
			AND c.relnamespace OPERATOR(pg_catalog.=) e.extnamespace
		WHERE c.relkind OPERATOR(pg_catalog.=) 'r' AND c.relpersistence OPERATOR(pg_catalog.=) 'u'
			AND c.relnatts OPERATOR(pg_catalog.=) 0
			AND c.reloptions OPERATOR(pg_catalog.@>) '{autovacuum_enabled=false}'
	LOOP
		EXECUTE pg_catalog.format('ALTER EXTENSION ranread ADD TABLE %s', t.relation);
		EXECUTE pg_catalog.format('ALTER TABLE %s SET (vacuum_truncate = false)', t.relation);
	END LOOP;
END
$$;

-- Every query the functions run is immune to the caller's search_path.
ALTER FUNCTION ranread_setup(text, name, name, int) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_stop() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_reset() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_drop(name) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_help() SET search_path = pg_catalog, pg_temp;

-- The batch running now, one row per worker, read live from the run's shared memory.
CREATE FUNCTION ranread_running(OUT batch bigint, OUT leader_pid int, OUT target name,
								OUT mode text, OUT processes int, OUT worker int, OUT pid int,
								OUT state text, OUT reads bigint, OUT target_reads bigint,
								OUT elapsed_s float8, OUT time_left_s float8, OUT iops float8,
								OUT mean_ms float8, OUT p99_ms float8, OUT sweep bigint,
								OUT sweep_step int, OUT iodepth int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_running'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_running() FROM PUBLIC;

-- Latency histograms as stored (bigint[]): merge them, read a percentile.
CREATE FUNCTION ranread_histogram_add(bigint[], bigint[])
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ranread_histogram_add'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE ranread_histogram_merge(bigint[]) (
	SFUNC = ranread_histogram_add,
	STYPE = bigint[],
	PARALLEL = SAFE
);

CREATE FUNCTION ranread_histogram_percentile(histogram bigint[], fraction float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'ranread_histogram_percentile'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Each batch keeps its merged histogram; 1.0's batches get theirs from their worker rows.
ALTER TABLE ranread_batches ADD COLUMN histogram bigint[];
-- 1.1 reads every unit once before any again, and counts the reads after that.
ALTER TABLE ranread_batches ADD COLUMN wrapped_reads bigint;
-- physical_pct counts reads the device answered (1.1); the bytes the kernel fetched per read
-- (readahead included) get their own column.
ALTER TABLE ranread_batches ADD COLUMN kb_per_read float8;
-- Ramp, steady state and open loop: their parameters and results.
ALTER TABLE ranread_batches ADD COLUMN ramp_s float8;
ALTER TABLE ranread_batches ADD COLUMN sample_interval_s float8;
ALTER TABLE ranread_batches ADD COLUMN steady_state_s float8;
ALTER TABLE ranread_batches ADD COLUMN steady_band_pct float8;
ALTER TABLE ranread_batches ADD COLUMN steady_at_s float8;
ALTER TABLE ranread_batches ADD COLUMN rate_iops float8;
ALTER TABLE ranread_batches ADD COLUMN arrivals text;
ALTER TABLE ranread_batches ADD COLUMN service_mean_ms float8;
ALTER TABLE ranread_batches ADD COLUMN service_p50_ms float8;
ALTER TABLE ranread_batches ADD COLUMN service_p99_ms float8;
ALTER TABLE ranread_batches ADD COLUMN service_p999_ms float8;
-- The sweep a batch is a step of (NULL: a plain run).
ALTER TABLE ranread_batches ADD COLUMN sweep bigint;
ALTER TABLE ranread_batches ADD COLUMN sweep_step int;
-- Reads in flight per worker (1.0's batches: one).
ALTER TABLE ranread_batches ADD COLUMN iodepth int NOT NULL DEFAULT 1;
ALTER TABLE ranread_results ADD COLUMN iodepth int NOT NULL DEFAULT 1;

-- One row per batch and sample interval: the batch over time.
CREATE TABLE ranread_intervals (
	batch bigint NOT NULL,
	interval_no int NOT NULL,
	start_s float8 NOT NULL,	-- seconds after counting began (after the ramp)
	seconds float8 NOT NULL,	-- sample_interval, or less for the last
	reads bigint NOT NULL,
	iops float8 NOT NULL,
	mean_ms float8,
	p50_ms float8,
	p99_ms float8,
	max_ms float8,
	workers_reading int NOT NULL,	-- workers still reading at its end
	PRIMARY KEY (batch, interval_no)
);
SELECT pg_catalog.pg_extension_config_dump('ranread_intervals', '');

UPDATE ranread_batches b SET histogram = m.histogram
FROM (SELECT r.batch, ranread_histogram_merge(r.histogram) AS histogram
	  FROM ranread_results r GROUP BY r.batch) m
WHERE m.batch OPERATOR(pg_catalog.=) b.batch;

-- Sub-millisecond latencies keep three significant digits in the view.
-- A latency in ms as people read it: `decimals` decimals, or as many as keep
-- three significant digits below 1 ms (0.00412, 0.0599, 0.500), so that flash
-- does not show as 0.000.
CREATE FUNCTION ranread_round_ms(ms float8, decimals int DEFAULT 3)
RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.round(ms::numeric,
			 CASE WHEN ms OPERATOR(pg_catalog.>) 0::float8 AND ms OPERATOR(pg_catalog.<) 1::float8
				  THEN GREATEST(decimals, LEAST(6, 2 OPERATOR(pg_catalog.-) pg_catalog.floor(pg_catalog.log(ms::numeric))::int))
				  ELSE decimals END);

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
	   steady_at_s,
	   rate_iops,
	   ranread_round_ms(service_mean_ms, 3) AS service_mean_ms,
	   ranread_round_ms(service_p50_ms, 3) AS service_p50_ms,
	   ranread_round_ms(service_p99_ms, 3) AS service_p99_ms,
	   ranread_round_ms(service_p999_ms, 3) AS service_p999_ms,
	   sweep,
	   sweep_step,
	   iodepth
FROM ranread_batches;

-- ranread_run returns the batch's row as ranread_summary shows it (rounded),
-- instead of a type of its own.  A changed return type means a new function:
-- GRANTs on the old one are gone and must be given again.
DROP FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean);
DROP TYPE ranread_run_result;
CREATE FUNCTION ranread_run(processes int,
							iterations bigint,
							target name DEFAULT 'ranread_target',
							mode text DEFAULT 'smgr',
							block_size int DEFAULT 8192,
							duration interval DEFAULT NULL,
							evict boolean DEFAULT true,
							ramp interval DEFAULT NULL,
							sample_interval interval DEFAULT '1 s',
							steady_state interval DEFAULT NULL,
							steady_band_pct float8 DEFAULT 10,
							rate_iops float8 DEFAULT NULL,
							arrivals text DEFAULT NULL,
							iodepth int DEFAULT 1)
RETURNS ranread_summary			-- the batch's row, as the view shows it
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int) FROM PUBLIC;

-- Each ranread_setup() running now: how far it is.
CREATE FUNCTION ranread_setup_running(OUT target name, OUT pid int, OUT state text,
									  OUT bytes_written bigint, OUT bytes_total bigint,
									  OUT elapsed_s float8, OUT mb_per_s float8, OUT time_left_s float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_setup_running'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_setup_running() FROM PUBLIC;

-- What ranread is doing now, for another session to watch: the running
-- batch (one row per worker and one, worker NULL, for the batch in total,
-- with its sweep and step) and each running setup.
CREATE VIEW ranread_progress AS
SELECT 'run'::text AS activity,
	   r.sweep,
	   r.sweep_step,
	   r.batch,
	   r.target,
	   r.mode,
	   r.processes,
	   r.worker,
	   r.pid,
	   r.state,
	   r.reads,
	   r.target_reads,
	   pg_catalog.round(r.elapsed_s::numeric, 1) AS elapsed_s,
	   pg_catalog.round(r.time_left_s::numeric, 1) AS time_left_s,
	   pg_catalog.round(r.iops::numeric) AS iops,
	   ranread_round_ms(r.mean_ms, 3) AS mean_ms,
	   ranread_round_ms(r.p99_ms, 3) AS p99_ms,
	   NULL::bigint AS bytes_done,
	   NULL::bigint AS bytes_total,
	   NULL::numeric AS mb_per_s,
	   r.iodepth
FROM ranread_running() r
UNION ALL
SELECT 'setup', NULL, NULL, NULL, s.target, NULL, NULL, NULL, s.pid, s.state, NULL, NULL,
	   pg_catalog.round(s.elapsed_s::numeric, 1), pg_catalog.round(s.time_left_s::numeric, 1), NULL, NULL, NULL,
	   s.bytes_written, s.bytes_total, pg_catalog.round(s.mb_per_s::numeric, 1), NULL
FROM ranread_setup_running() s;

-- Sweeps (CALL ranread_sweep()): one row per sweep, with its arguments; its
-- steps are the batches whose sweep column names it.
CREATE SEQUENCE ranread_sweep_seq;
CREATE TABLE ranread_sweep_runs (
	sweep bigint PRIMARY KEY,
	started_at timestamptz NOT NULL,
	ended_at timestamptz,		-- NULL while it runs, or after a cancel, an error or a crash
	leader_pid int NOT NULL,
	target name NOT NULL,
	mode text NOT NULL,
	block_size int NOT NULL,
	iterations bigint,			-- per process and step
	duration_s float8,			-- per step
	ramp_s float8,
	start_processes int NOT NULL,
	step_processes int,			-- NULL: doubled each step
	max_processes int NOT NULL,	-- as asked, or as many as worker slots were free
	max_processes_by text NOT NULL,	-- 'argument' or 'worker slots'
	rate_iops float8,			-- open loop: the first step's rate (NULL: closed loop)
	rate_step_iops float8,		-- NULL: doubled each step
	max_rate_iops float8,
	stop_latency_ms float8 NOT NULL,
	min_scaling_pct float8 NOT NULL,
	slo_mean_ms float8,
	slo_p99_ms float8,
	slo_p999_ms float8,
	slo_max_ms float8,
	status text NOT NULL,		-- 'running', then 'completed' or 'stopped' when it ends by itself
	stop_rule text,				-- which rule ended it, once it has ended by itself
	iodepth int,				-- stepping reads in flight: the first step's (NULL: 1, steps processes)
	max_iodepth int				-- stepping reads in flight: the last step's at most
);
SELECT pg_catalog.pg_extension_config_dump('ranread_sweep_runs', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_sweep_seq', '');

-- A sweep's outcome, from its row and its steps as recorded: why it ended
-- (or that it runs), the highest IOPS, the highest within the SLO, the knee.
CREATE FUNCTION ranread_sweep_verdict(sweep bigint, OUT status text, OUT steps int,
									  OUT max_iops float8, OUT max_iops_processes int,
									  OUT slo_iops float8, OUT slo_processes int,
									  OUT knee_processes int, OUT memory_steps int,
									  OUT stop_rule text, OUT verdict text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_sweep_verdict'
LANGUAGE C STABLE STRICT
SET search_path = pg_catalog, pg_temp;

-- One row per sweep, with its verdict.
CREATE VIEW ranread_sweeps AS
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

-- The methodology in one call: one batch per step, committed after each.
-- No SET clause: a procedure with one cannot commit.
CREATE PROCEDURE ranread_sweep(start_processes int DEFAULT 10,
							   step_processes int DEFAULT NULL,
							   max_processes int DEFAULT NULL,
							   iterations bigint DEFAULT NULL,
							   duration interval DEFAULT NULL,
							   target name DEFAULT 'ranread_target',
							   mode text DEFAULT 'smgr',
							   block_size int DEFAULT 8192,
							   stop_latency_ms float8 DEFAULT 10,
							   min_scaling_pct float8 DEFAULT 25,
							   slo_mean_ms float8 DEFAULT 2,
							   slo_p99_ms float8 DEFAULT 5,
							   slo_p999_ms float8 DEFAULT NULL,
							   slo_max_ms float8 DEFAULT NULL,
							   rate_iops float8 DEFAULT NULL,
							   rate_step_iops float8 DEFAULT NULL,
							   max_rate_iops float8 DEFAULT NULL,
							   ramp interval DEFAULT NULL,
							   iodepth int DEFAULT NULL,
							   max_iodepth int DEFAULT NULL)
AS 'MODULE_PATHNAME', 'ranread_sweep'
LANGUAGE C;

REVOKE ALL ON FUNCTION ranread_sweep_verdict(bigint) FROM PUBLIC;
REVOKE ALL ON PROCEDURE ranread_sweep(int, int, int, bigint, interval, name, text, int, float8, float8, float8, float8, float8, float8, float8, float8, float8, interval, int, int) FROM PUBLIC;

-- Charts as self-contained SVG: a sweep (IOPS bars, mean and p99 latency
-- lines against processes, the SLO and the knee), and the latency
-- distribution of batches from their histograms.
CREATE FUNCTION ranread_chart(sweep bigint DEFAULT NULL,
							  width int DEFAULT 960,
							  height int DEFAULT 540)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION ranread_chart_latency(VARIADIC batches bigint[])
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_latency'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

REVOKE ALL ON FUNCTION ranread_chart(bigint, int, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_chart_latency(bigint[]) FROM PUBLIC;

-- ranread_export() gains a format (RanRead's own file), a sweep to export
-- alone, a CSV and the chart, and returns one row per file written.
DROP FUNCTION ranread_export(text);
CREATE FUNCTION ranread_export(directory text,
							   format text DEFAULT 'tsv',
							   sweep bigint DEFAULT NULL,
							   csv boolean DEFAULT false,
							   svg boolean DEFAULT false)
RETURNS SETOF text				-- the path of each file written
AS 'MODULE_PATHNAME', 'ranread_export'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
SET DateStyle = 'ISO, YMD';
REVOKE ALL ON FUNCTION ranread_export(text, text, bigint, boolean, boolean) FROM PUBLIC;

-- Two batches, or two sweeps, side by side: each measure of A and B, B/A, the
-- noise band of the measurement in percent and whether B differs by more; a
-- last row 'verdict' in words (docs/reference.md, "Compare").
CREATE FUNCTION ranread_compare(batch_a bigint, batch_b bigint)
RETURNS TABLE(measure text, a float8, b float8, ratio float8, noise_pct float8, verdict text)
AS 'MODULE_PATHNAME', 'ranread_compare'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION ranread_compare_sweeps(sweep_a bigint, sweep_b bigint)
RETURNS TABLE(measure text, a float8, b float8, ratio float8, noise_pct float8, verdict text)
AS 'MODULE_PATHNAME', 'ranread_compare_sweeps'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

REVOKE ALL ON FUNCTION ranread_compare(bigint, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_compare_sweeps(bigint, bigint) FROM PUBLIC;
