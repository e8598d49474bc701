/* ranread--1.2.sql: the SQL surface of ranread 1.2 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION ranread" to load this file. \quit

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

-- Targets made by ranread_setup(): one row per target relation.  The table
-- itself is named target, lives in this schema and is a member of the
-- extension (so pg_dump leaves its data out); relation is its OID when made.
CREATE TABLE ranread_targets (
	target name PRIMARY KEY,
	relation oid NOT NULL,
	bytes bigint NOT NULL,
	blocks bigint NOT NULL,
	tablespace name NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);

CREATE SEQUENCE ranread_batch_seq;

-- One row per worker and batch, written by the worker itself when it ends.
CREATE TABLE ranread_results (
	batch bigint NOT NULL,
	worker int NOT NULL,
	run_date date NOT NULL,
	run_time time(0) NOT NULL,
	started_at timestamptz NOT NULL,
	target name NOT NULL,
	mode text NOT NULL,
	block_size int NOT NULL,
	processes int NOT NULL,
	iterations bigint,
	duration_s float8,
	evicted boolean NOT NULL,
	reads bigint NOT NULL,
	elapsed_s float8 NOT NULL,
	response_time_ms float8,
	min_ms float8,
	max_ms float8,
	p50_ms float8,
	p95_ms float8,
	p99_ms float8,
	p999_ms float8,
	iops float8 NOT NULL,
	bytes_physical bigint NOT NULL,
	physical_pct float8,
	buffer_hits bigint,
	buffer_misses bigint,
	status text NOT NULL,
	histogram bigint[] NOT NULL,
	iodepth int NOT NULL DEFAULT 1,	-- reads in flight per worker
	registered_buffers boolean,	-- io_uring buffers registered (NULL: no io_uring, iodepth 1)
	PRIMARY KEY (batch, worker)
);

-- One row per batch, written by the last worker of the batch to end.
CREATE TABLE ranread_batches (
	batch bigint PRIMARY KEY,
	run_date date NOT NULL,
	run_time time(0) NOT NULL,
	started_at timestamptz NOT NULL,
	target name NOT NULL,
	mode text NOT NULL,
	block_size int NOT NULL,
	processes int NOT NULL,
	iterations bigint,
	duration_s float8,
	evicted boolean NOT NULL,
	reads bigint NOT NULL,
	wall_s float8 NOT NULL,
	response_time_ms float8,
	min_ms float8,
	max_ms float8,
	p50_ms float8,
	p95_ms float8,
	p99_ms float8,
	p999_ms float8,
	iops float8 NOT NULL,
	mb_per_s float8 NOT NULL,
	pct_over_2ms float8,
	pct_over_5ms float8,
	pct_over_10ms float8,
	physical_pct float8,
	buffer_hits bigint,
	buffer_misses bigint,
	device text,
	device_reads_per_s float8,
	device_read_wait_ms float8,
	device_util_pct float8,
	status text NOT NULL,
	histogram bigint[],			-- every worker's reads, merged (NULL for 1.0's batches without rows)
	wrapped_reads bigint,		-- reads of units read before in the run (NULL for 1.0's batches)
	kb_per_read float8,			-- kB the kernel fetched from storage per read (NULL for 1.0's batches)
	ramp_s float8,				-- the first seconds, read but not counted (NULL: none)
	sample_interval_s float8,	-- length of its rows in ranread_intervals
	steady_state_s float8,		-- the steady-state window asked for (NULL: none)
	steady_band_pct float8,
	steady_at_s float8,			-- when the steady-state rule was met (NULL: not met)
	rate_iops float8,			-- open loop: the rate asked for (NULL: closed loop)
	arrivals text,				-- open loop: 'uniform' or 'poisson'
	service_mean_ms float8,		-- open loop: from issuing each read to its end
	service_p50_ms float8,
	service_p99_ms float8,
	service_p999_ms float8,
	sweep bigint,				-- the sweep it is a step of (NULL: a plain run)
	sweep_step int,
	iodepth int NOT NULL DEFAULT 1,	-- reads in flight per worker
	registered_buffers boolean,	-- every worker's io_uring buffers registered (NULL: no io_uring)
	ended_by text,				-- completed: 'iterations', 'duration', 'steady state' or 'coverage' (NULL: not completed, or before 1.2)
	device_shared_pct float8,	-- share of the device's bytes read that were not ranread's (NULL: no device statistics)
	-- noise bands: the 95 % half-width, in percent, of iops, response_time_ms
	-- and p99_ms from the batch's histogram, workers and sample intervals (NULL: unknown)
	iops_band_pct float8,
	mean_band_pct float8,
	p99_band_pct float8,
	server_version_num int,		-- the server's version (NULL for batches before 1.2)
	io_method text,				-- its io_method, 18 and later (NULL: earlier, or before 1.2)
	-- its other I/O settings, 18 and later, as the batch's workers had them
	io_workers int,
	effective_io_concurrency int,	-- the server's (mode 'stream' looks ahead iodepth)
	io_combine_limit int,		-- in blocks
	io_max_concurrency int,
	stat_io_reads bigint,			-- blocks background workers read per pg_stat_io during the batch (16+; modes buffer and stream)
	layers bigint,				-- the ranread_layers() run it is part of (NULL: none)
	calibration bigint,			-- the ranread_calibrate() run it is part of (NULL: none)
	seed bigint,				-- of the order its units were read in (same seed, processes and target: same units)
	prefetch int,				-- units advised ahead of each read (NULL: before it existed)
	distribution text,			-- which units it read: uniform, zipf:theta, hotset:P%/Q%, sequential (NULL: before it existed)
	start_at timestamptz,		-- the wall-clock time its workers were to be released (NULL: once ready)
	start_skew_ms float8		-- started_at less start_at
);

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

SELECT pg_catalog.pg_extension_config_dump('ranread_targets', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_results', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_batches', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_intervals', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_batch_seq', '');

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

-- One row per batch: RanRead's seven columns first, in its order.
CREATE VIEW ranread_summary AS
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

-- Latency histograms as stored (bigint[]): merge them, read a percentile.
-- Pure computations on the arrays given, so left executable by PUBLIC.
CREATE FUNCTION ranread_histogram_add(bigint[], bigint[])
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ranread_histogram_add'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The histogram itself, or an error saying why it is not one.
CREATE FUNCTION ranread_histogram_check(bigint[])
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ranread_histogram_check'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The final function checks a single row, which the aggregate takes as its state unchecked.
CREATE AGGREGATE ranread_histogram_merge(bigint[]) (
	SFUNC = ranread_histogram_add,
	STYPE = bigint[],
	FINALFUNC = ranread_histogram_check,
	PARALLEL = SAFE
);

CREATE FUNCTION ranread_histogram_percentile(histogram bigint[], fraction float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'ranread_histogram_percentile'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION ranread_setup(size text DEFAULT NULL,
							  tablespace name DEFAULT NULL,
							  target name DEFAULT 'ranread_target',
							  log_level int DEFAULT 1)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_setup'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

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
							iodepth int DEFAULT 1,
							allow_rereads boolean DEFAULT false,
							prefetch int DEFAULT 0,	-- units advised ahead of each read (mode smgr)
							distribution text DEFAULT 'uniform',	-- or 'zipf:theta', 'hotset:P%/Q%', 'sequential'
							start_at timestamptz DEFAULT NULL)	-- release the workers then (NULL: once ready)
RETURNS ranread_summary			-- the batch's row, as the view shows it
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION ranread_stop()
RETURNS int
AS 'MODULE_PATHNAME', 'ranread_stop'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION ranread_reset()
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_reset'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

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

CREATE FUNCTION ranread_drop(target name DEFAULT 'ranread_target')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_drop'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

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

CREATE FUNCTION ranread_help()
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'ranread_help'
LANGUAGE C IMMUTABLE
SET search_path = pg_catalog, pg_temp;

-- Superuser-only by default; docs/reference.md lists the GRANTs for a benchmark role.
REVOKE ALL ON FUNCTION ranread_setup(text, name, name, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean, int, text, timestamptz) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_stop() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_reset() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_export(text, text, bigint, boolean, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_drop(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_help() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_running() FROM PUBLIC;

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
-- with its sweep and step) and each running setup (MB written of the total).
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
	   NULL::bigint AS mb_done,
	   NULL::bigint AS mb_total,
	   NULL::numeric AS mb_per_s,
	   r.iodepth
FROM ranread_running() r
UNION ALL
SELECT 'setup', NULL, NULL, NULL, s.target, NULL, NULL, NULL, s.pid, s.state, NULL, NULL,
	   pg_catalog.round(s.elapsed_s::numeric, 1), pg_catalog.round(s.time_left_s::numeric, 1), NULL, NULL, NULL,
	   pg_catalog.round(s.bytes_written::numeric OPERATOR(pg_catalog./) 1048576.0)::bigint, pg_catalog.round(s.bytes_total::numeric OPERATOR(pg_catalog./) 1048576.0)::bigint,
	   pg_catalog.round(s.mb_per_s::numeric, 1), NULL
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
	max_iodepth int,			-- stepping reads in flight: the last step's at most
	prefetch int,				-- stepping prefetch: the first step's (NULL: not stepped)
	max_prefetch int			-- stepping prefetch: the last step's at most
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
							   max_iodepth int DEFAULT NULL,
							   repeat int DEFAULT 1,	-- whole sweeps to run, 1 to 10
							   prefetch int DEFAULT NULL,	-- stepping prefetch (mode smgr): the first step's
							   max_prefetch int DEFAULT NULL)
AS 'MODULE_PATHNAME', 'ranread_sweep'
LANGUAGE C;

REVOKE ALL ON FUNCTION ranread_sweep_verdict(bigint) FROM PUBLIC;
REVOKE ALL ON PROCEDURE ranread_sweep(int, int, int, bigint, interval, name, text, int, float8, float8, float8, float8, float8, float8, float8, float8, float8, interval, int, int, int, int, int) FROM PUBLIC;

-- Charts as self-contained SVG: a sweep (IOPS bars, mean and p99 latency
-- lines against processes, the SLO and the knee), the latency
-- distribution of batches from their histograms, and a batch over time.
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

-- A batch over time: IOPS and mean and p99 latency per ranread_intervals
-- row against seconds, and where IOPS fell sharply (the throttle rule).
CREATE FUNCTION ranread_chart_intervals(batch bigint DEFAULT NULL,
										width int DEFAULT 960,
										height int DEFAULT 540)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_intervals'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

REVOKE ALL ON FUNCTION ranread_chart_intervals(bigint, int, int) FROM PUBLIC;

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

-- insight: the latency each layer of the read path adds, the same units
-- read through each read path in turn (batches marked with their layers run).
CREATE FUNCTION ranread_layers(processes int DEFAULT 4,
							   iterations bigint DEFAULT 10000,
							   target name DEFAULT 'ranread_target',
							   duration interval DEFAULT NULL)
RETURNS TABLE(layer text, mode text, batch bigint, iops float8, mean_ms float8, p50_ms float8,
			  p99_ms float8, adds_mean_ms float8, adds_p99_ms float8, physical_pct float8)
AS 'MODULE_PATHNAME', 'ranread_layers'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_layers(int, bigint, name, interval) FROM PUBLIC;

-- insight: the planner's I/O settings measured from the target's tablespace
-- (a random page's cost in sequential ones, the look-ahead that pays), and
-- the ALTER TABLESPACE that would apply them; it applies nothing.
CREATE FUNCTION ranread_calibrate(target name DEFAULT 'ranread_target',
								  iterations bigint DEFAULT 5000,	-- random reads per batch
								  repetitions int DEFAULT 5,		-- sequential and random pairs
								  max_depth int DEFAULT 64,		-- deepest look-ahead tried
								  cached_pct float8 DEFAULT 90,	-- random reads assumed cached
								  OUT calibration bigint,
								  OUT random_ms float8,
								  OUT sequential_ms float8,
								  OUT ratio float8,
								  OUT ratio_min float8,
								  OUT ratio_max float8,
								  OUT random_page_cost float8,
								  OUT effective_io_concurrency int,
								  OUT depths int[],
								  OUT depth_iops float8[],
								  OUT statement text,
								  OUT batches bigint[])
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_calibrate'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_calibrate(name, bigint, int, int, float8) FROM PUBLIC;

REVOKE ALL ON FUNCTION ranread_compare_sweeps(bigint, bigint) FROM PUBLIC;

-- readable: answers that fit a terminal.  ranread_report (one short row per
-- batch), ranread_series (ranread_intervals rounded), ranread_verdict()
-- (a sweep's verdict as lines); the wide views stay for export.

-- One row per batch, the handful of columns a DBA reads first.
CREATE VIEW ranread_report AS
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

-- ranread_intervals as people read it: seconds to 2 decimals, IOPS whole,
-- latencies as ranread_round_ms shows them.
CREATE VIEW ranread_series AS
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

-- A sweep's verdict (the latest sweep's without an argument) as lines of at
-- most 100 characters: a heading, then each sentence, wrapped at spaces.
CREATE FUNCTION ranread_verdict(sweep bigint DEFAULT NULL)
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
			 pg_catalog.regexp_split_to_table(s.words, '(?<=[.!?])\s+') WITH ORDINALITY AS x(sentence, n),
			 pg_catalog.regexp_matches(x.sentence, '(.{1,99})(?:\s+|$)', 'g') WITH ORDINALITY AS m(part, k)
	)
	SELECT line.text FROM line ORDER BY line.n, line.k;
END;

REVOKE ALL ON FUNCTION ranread_verdict(bigint) FROM PUBLIC;

-- fleet: one benchmark across several servers on shared storage, started
-- together through contrib dblink and the foreign servers' user mappings
-- (credentials never pass through ranread), gathered here.
CREATE SEQUENCE ranread_fleet_seq;
CREATE TABLE ranread_fleet_runs (
	fleet bigint PRIMARY KEY,
	started_at timestamptz NOT NULL,	-- when the coordinator began its checks
	start_at timestamptz NOT NULL,		-- the common release, on the coordinator's clock
	servers name[] NOT NULL,
	processes int NOT NULL,				-- per server
	iterations bigint,
	duration_s float8,
	mode text NOT NULL,
	target name NOT NULL,
	status text NOT NULL,				-- completed, partial (a server did not complete), failed, cancelled, stopped
	iops float8,						-- the servers' IOPS summed
	mean_ms float8,						-- of every server's reads
	p50_ms float8,						-- from the servers' histograms merged
	p99_ms float8,
	p999_ms float8,
	max_ms float8,
	slowest_server name,				-- the highest p99
	overlap_pct float8,					-- the servers' common window, % of the whole
	histogram bigint[],
	fleet_sweep bigint,					-- the fleet sweep it is a step of (NULL: none)
	sweep_step int
);
CREATE TABLE ranread_fleet_servers (
	fleet bigint NOT NULL,
	server name NOT NULL,
	batch bigint,						-- its batch, in the server's own ranread_batches
	status text NOT NULL,				-- the batch's status, or failed or disconnected
	error text,							-- what the server or the connection said
	iops float8,
	mean_ms float8,
	p99_ms float8,
	max_ms float8,
	reads bigint,
	started_at timestamptz,				-- its release, on the coordinator's clock
	wall_s float8,
	start_skew_ms float8,				-- on the server's clock
	clock_offset_ms float8,				-- the server's clock less the coordinator's
	histogram bigint[],
	PRIMARY KEY (fleet, server)
);
SELECT pg_catalog.pg_extension_config_dump('ranread_fleet_runs', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_fleet_servers', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_fleet_seq', '');

-- the coordinator's wait, as ranread_stop() sees it (src/programs/fleet.c)
CREATE FUNCTION ranread_fleet_waiting(fleet bigint, waiting boolean)
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_fleet_waiting'
LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION ranread_fleet_waiting(bigint, boolean) FROM PUBLIC;

CREATE FUNCTION ranread_fleet_run(servers name[],
								  processes int DEFAULT 4,
								  iterations bigint DEFAULT NULL,
								  mode text DEFAULT 'smgr',
								  target name DEFAULT 'ranread_target',
								  duration interval DEFAULT NULL,
								  max_clock_offset_ms float8 DEFAULT 50,	-- refuse a server whose clock is further off
								  start_delay interval DEFAULT '2 s')	-- from the checks to the common start
RETURNS TABLE(scope text, fleet bigint, server name, batch bigint, status text, iops float8,
			  mean_ms float8, p99_ms float8, max_ms float8, start_skew_ms float8,
			  clock_offset_ms float8, overlap_pct float8, error text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET datestyle = 'ISO, YMD'				-- start_at's text, as every server reads it
AS $fleet$
DECLARE
	link name;							-- dblink's schema
	own name;							-- ranread's schema, looked up: its name may hold a quote
	n int := coalesce(cardinality(servers), 0);
	conns text[] := '{}';
	remote_schemas name[] := '{}';
	offsets float8[] := '{}';
	problems text[] := '{}';
	own_version text;
	fleet_no bigint;
	began timestamptz := clock_timestamp();
	common_start timestamptz;
	cancelled boolean := false;
	stopped boolean := false;
	srv name;
	conn text;
	i int;
	r record;
	t0 timestamptz;
	t1 timestamptz;
	remote_now timestamptz;
	best_rtt float8;
	busy boolean;
	one_busy boolean;
	existing text[];
	err text;
BEGIN
	-- the arguments, and what the coordinator needs, before any server is asked
	IF n = 0 OR array_position(servers, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'servers must name at least one foreign server, and no NULL'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF n > 64 OR (SELECT count(DISTINCT s) FROM unnest(servers) s) <> n THEN
		RAISE EXCEPTION 'servers must name at most 64 foreign servers, each once'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF processes IS NULL OR mode IS NULL OR target IS NULL OR (iterations IS NULL AND duration IS NULL)
	   OR max_clock_offset_ms IS NULL OR start_delay IS NULL THEN
		RAISE EXCEPTION 'processes, mode, target, max_clock_offset_ms and start_delay must not be null, nor both iterations and duration'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF NOT max_clock_offset_ms > 0 OR start_delay < interval '0.2 s' OR start_delay > interval '1 minute' THEN
		RAISE EXCEPTION 'max_clock_offset_ms must be positive and start_delay between 0.2 s and 1 minute'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF processes < 1 THEN
		RAISE EXCEPTION 'processes must be at least 1'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT ns.nspname INTO link FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'dblink';
	IF link IS NULL THEN
		RAISE EXCEPTION 'ranread_fleet_run needs extension dblink in this database'
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Run CREATE EXTENSION dblink; each server is a foreign server of its dblink_fdw with a user mapping.';
	END IF;
	SELECT e.extversion, ns.nspname INTO own_version, own
	FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace WHERE e.extname = 'ranread';
	FOREACH srv IN ARRAY servers LOOP
		IF NOT EXISTS (SELECT FROM pg_foreign_server WHERE srvname = srv) THEN
			RAISE EXCEPTION 'foreign server "%" does not exist', srv
				USING ERRCODE = 'undefined_object',
					  HINT = 'CREATE SERVER ... FOREIGN DATA WRAPPER dblink_fdw OPTIONS (host ..., dbname ...), and a USER MAPPING for it.';
		END IF;
		IF NOT has_server_privilege(srv, 'USAGE') THEN
			RAISE EXCEPTION 'permission denied for foreign server "%"', srv
				USING ERRCODE = 'insufficient_privilege',
					  HINT = format('GRANT USAGE ON FOREIGN SERVER %I TO %I, and a user mapping for that role.', srv, current_user);
		END IF;
	END LOOP;

	-- every server checked: reachable, the same ranread, the target, free
	-- worker slots, its clock; all problems are said together
	FOR i IN 1 .. n LOOP
		srv := servers[i];
		conn := 'ranread_fleet_' || i;
		conns := conns || conn;
		remote_schemas := remote_schemas || NULL::name;
		offsets := offsets || NULL::float8;
		BEGIN
			EXECUTE format('SELECT %I.dblink_get_connections()', link) INTO existing;
			IF conn = ANY (coalesce(existing, '{}')) THEN
				EXECUTE format('SELECT %I.dblink_disconnect($1)', link) USING conn;
			END IF;
			EXECUTE format('SELECT %I.dblink_connect($1, $2)', link) USING conn, srv;
			EXECUTE format('SELECT * FROM %I.dblink($1, $2) AS t(s name, v text)', link) INTO r
				USING conn, 'SELECT n.nspname, e.extversion FROM pg_catalog.pg_extension e '
							'JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ''ranread''';
			IF r.s IS NULL THEN
				problems := problems || format('%s: extension ranread is not installed', srv);
				CONTINUE;
			END IF;
			IF r.v IS DISTINCT FROM own_version THEN
				problems := problems || format('%s: extension ranread %s, the coordinator''s %s', srv, r.v, own_version);
				CONTINUE;
			END IF;
			remote_schemas[i] := r.s;
			EXECUTE format('SELECT * FROM %I.dblink($1, $2) AS t(present boolean, intact boolean, free_slots int)', link) INTO r
				USING conn, format('SELECT EXISTS (SELECT FROM %1$I.ranread_targets WHERE target = %2$L), '
								   -- every block setup wrote (an unlogged target is empty after a crash)
								   'coalesce((SELECT pg_catalog.pg_relation_size(relation) = blocks * '
								   'pg_catalog.current_setting(''block_size'')::bigint '
								   'FROM %1$I.ranread_targets WHERE target = %2$L), false), '
								   'pg_catalog.current_setting(''max_worker_processes'')::int - '
								   '(SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type NOT IN '
								   '(''client backend'', ''autovacuum launcher'', ''autovacuum worker'', ''background writer'', '
								   '''checkpointer'', ''walwriter'', ''startup'', ''walsender'', ''walreceiver'', ''archiver'', '
								   '''io worker'', ''walsummarizer'', ''slotsync worker''))::int', r.s, target);
			IF NOT r.present THEN
				problems := problems || format('%s: no ranread target "%s"', srv, target);
			ELSIF NOT r.intact THEN
				problems := problems || format('%s: ranread target "%s" is empty or incomplete (ranread_setup() makes it again)',
											   srv, target);
			ELSIF r.free_slots < processes THEN
				problems := problems || format('%s: %s free worker slots for %s processes', srv, r.free_slots, processes);
			END IF;
			-- the clock: the least round trip of three
			best_rtt := NULL;
			FOR k IN 1 .. 3 LOOP
				t0 := clock_timestamp();
				EXECUTE format('SELECT * FROM %I.dblink($1, ''SELECT pg_catalog.clock_timestamp()'') AS t(c timestamptz)', link)
					INTO remote_now USING conn;
				t1 := clock_timestamp();
				IF best_rtt IS NULL OR extract(epoch FROM t1 - t0) < best_rtt THEN
					best_rtt := extract(epoch FROM t1 - t0);
					offsets[i] := 1000 * extract(epoch FROM remote_now - (t0 + (t1 - t0) / 2));
				END IF;
			END LOOP;
			IF abs(offsets[i]) > max_clock_offset_ms THEN
				problems := problems || format('%s: its clock is %s ms off the coordinator''s, more than max_clock_offset_ms (%s)',
											   srv, round(offsets[i]::numeric, 3), max_clock_offset_ms);
			END IF;
		EXCEPTION WHEN OTHERS THEN
			problems := problems || format('%s: %s', srv, SQLERRM);
		END;
	END LOOP;
	IF cardinality(problems) > 0 THEN
		FOR i IN 1 .. cardinality(conns) LOOP
			BEGIN
				EXECUTE format('SELECT %I.dblink_disconnect($1)', link) USING conns[i];
			EXCEPTION WHEN OTHERS THEN
				NULL;			-- never connected, or the connection is lost
			END;
		END LOOP;
		RAISE EXCEPTION '% of % servers cannot run the fleet', cardinality(problems), n
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = array_to_string(problems, E'\n'),
				  HINT = 'Nothing was started.';
	END IF;

	-- every run started with one start_at, on each server's own clock
	fleet_no := nextval(format('%I.ranread_fleet_seq', own)::regclass);
	common_start := clock_timestamp() + start_delay;
	-- and waited for; a cancel here cancels every server's run, and
	-- ranread_stop() here (it finds the wait advertised) stops them
	BEGIN
		FOR i IN 1 .. n LOOP
			EXECUTE format('SELECT %I.dblink_send_query($1, $2)', link)
				USING conns[i], format('SELECT batch FROM %I.ranread_run(%s, %s, %L, %L, duration => %L::interval, start_at => %L::timestamptz)',
									   remote_schemas[i], processes, coalesce(iterations::text, 'NULL'), target, mode,
									   duration, common_start + offsets[i] * interval '1 ms');
		END LOOP;
		LOOP
			busy := false;
			FOR i IN 1 .. n LOOP
				EXECUTE format('SELECT %I.dblink_is_busy($1) = 1', link) INTO one_busy USING conns[i];
				busy := busy OR one_busy;
			END LOOP;
			EXIT WHEN NOT busy;
			EXECUTE format('SELECT %I.ranread_fleet_waiting($1, NOT $2)', own) INTO one_busy USING fleet_no, stopped;
			IF one_busy THEN
				stopped := true;
				FOR i IN 1 .. n LOOP
					BEGIN
						-- a connection of its own: the fleet's is busy with the run
						EXECUTE format('SELECT * FROM %I.dblink($1, $2) AS t(n int)', link)
							USING servers[i], format('SELECT %I.ranread_stop()', remote_schemas[i]);
					EXCEPTION WHEN OTHERS THEN
						NULL;	-- a lost server: the gathering records it
					END;
				END LOOP;
				EXECUTE format('SELECT %I.ranread_fleet_waiting($1, false)', own) USING fleet_no;
			END IF;
			PERFORM pg_sleep(0.05);
		END LOOP;
		EXECUTE format('SELECT %I.ranread_fleet_waiting($1, false)', own) USING fleet_no;
	EXCEPTION WHEN query_canceled THEN
		cancelled := true;
		FOR i IN 1 .. n LOOP
			BEGIN
				EXECUTE format('SELECT %I.dblink_cancel_query($1)', link) USING conns[i];
			EXCEPTION WHEN OTHERS THEN
				NULL;			-- a lost connection has nothing to cancel
			END;
		END LOOP;
	END;

	-- gather each server's batch, found by its start_at: also after a failure
	-- (a cancelled server run raises query_canceled here, which OTHERS omits)
	FOR i IN 1 .. n LOOP
		err := NULL;
		BEGIN
			-- the batch number is not needed (start_at finds the batch); the error is
			EXECUTE format('SELECT * FROM %I.dblink_get_result($1) AS t(b bigint)', link) USING conns[i];
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			err := SQLERRM;
		END;
		BEGIN
			-- the empty result that ends the asynchronous query
			EXECUTE format('SELECT count(*) FROM %I.dblink_get_result($1, false) AS t(b bigint)', link) USING conns[i];
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			NULL;
		END;
		BEGIN
			-- a cancelled run's workers record its batch just after its leader has returned
			FOR attempt IN 1 .. 50 LOOP
				EXECUTE format('SELECT * FROM %I.dblink($1, $2) AS t(batch bigint, status text, iops float8, mean_ms float8, '
							   'p99_ms float8, max_ms float8, reads bigint, started_at timestamptz, wall_s float8, '
							   'start_skew_ms float8, histogram bigint[])', link) INTO r
					USING conns[i], format('SELECT batch, status, iops, response_time_ms, p99_ms, max_ms, reads, started_at, '
										   'wall_s, start_skew_ms, histogram FROM %I.ranread_batches '
										   'WHERE start_at = %L::timestamptz ORDER BY batch DESC LIMIT 1',
										   remote_schemas[i], common_start + offsets[i] * interval '1 ms');
				EXIT WHEN r.batch IS NOT NULL OR err IS NULL;
				PERFORM pg_sleep(0.1);
			END LOOP;
			EXECUTE format('INSERT INTO %I.ranread_fleet_servers VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)', own)
				USING fleet_no, servers[i], r.batch, coalesce(r.status, 'failed'), err, r.iops, r.mean_ms, r.p99_ms,
					  r.max_ms, r.reads, r.started_at - offsets[i] * interval '1 ms', r.wall_s, r.start_skew_ms,
					  offsets[i], r.histogram;
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			-- dblink raises a lost connection as class 08 or XX000 (libpq's
			-- words), an error of the server's with the server's SQLSTATE
			EXECUTE format('INSERT INTO %I.ranread_fleet_servers (fleet, server, status, error, clock_offset_ms) '
						   'VALUES ($1, $2, $3, $4, $5)', own)
				USING fleet_no, servers[i],
					  CASE WHEN SQLSTATE LIKE '08%' OR SQLSTATE = 'XX000' THEN 'disconnected' ELSE 'failed' END,
					  coalesce(err, SQLERRM), offsets[i];
		END;
	END LOOP;
	FOR i IN 1 .. cardinality(conns) LOOP
		BEGIN
			EXECUTE format('SELECT %I.dblink_disconnect($1)', link) USING conns[i];
		EXCEPTION WHEN OTHERS OR query_canceled THEN
			NULL;			-- never connected, or the connection is lost
		END;
	END LOOP;

	-- the fleet: IOPS summed, percentiles of the merged histograms, overlap
	EXECUTE format(
		'INSERT INTO %1$I.ranread_fleet_runs '
		'SELECT $1, $2, $3, $4, $5, $6, extract(epoch FROM $7), $8, $9, '
		'	CASE WHEN $10 THEN ''cancelled'' WHEN $12 THEN ''stopped'' '
		'		WHEN count(*) FILTER (WHERE s.status = ''completed'') = $11 THEN ''completed'' '
		'		WHEN count(*) FILTER (WHERE s.status = ''completed'') > 0 THEN ''partial'' '
		'		ELSE ''failed'' END, '
		'	sum(s.iops), sum(s.mean_ms * s.reads) / nullif(sum(s.reads) FILTER (WHERE s.mean_ms IS NOT NULL), 0), '
		'	NULL, NULL, NULL, max(s.max_ms), '
		'	(array_agg(s.server ORDER BY s.p99_ms DESC NULLS LAST))[1], '
		'	100 * greatest(0, extract(epoch FROM min(s.started_at + s.wall_s * interval ''1 s'') - max(s.started_at))) '
		'		/ nullif(extract(epoch FROM max(s.started_at + s.wall_s * interval ''1 s'') - min(s.started_at)), 0), '
		'	%1$I.ranread_histogram_merge(s.histogram) '
		'FROM %1$I.ranread_fleet_servers s WHERE s.fleet = $1', own)
		USING fleet_no, began, common_start, servers, processes, iterations, duration, mode, target, cancelled, n, stopped;
	EXECUTE format(
		'UPDATE %1$I.ranread_fleet_runs '
		'SET p50_ms = %1$I.ranread_histogram_percentile(histogram, 0.5), '
		'	p99_ms = %1$I.ranread_histogram_percentile(histogram, 0.99), '
		'	p999_ms = %1$I.ranread_histogram_percentile(histogram, 0.999) '
		'WHERE fleet = $1 AND histogram IS NOT NULL', own) USING fleet_no;

	EXECUTE format('SELECT f.*, (SELECT count(*) FROM %1$I.ranread_fleet_servers s '
				   '	WHERE s.fleet = $1 AND s.status = ''completed'') AS completed '
				   'FROM %1$I.ranread_fleet_runs f WHERE f.fleet = $1', own) INTO r USING fleet_no;
	RAISE NOTICE 'fleet %: % server%, % IOPS together, p99 % ms of the merged reads, slowest %, their windows overlapping by % %%',
		fleet_no, n, CASE WHEN n = 1 THEN '' ELSE 's' END, round(r.iops), round(r.p99_ms::numeric, 3), r.slowest_server,
		round(r.overlap_pct::numeric, 1);
	IF r.status <> 'completed' THEN
		RAISE WARNING 'fleet % ended %: % of % servers completed', fleet_no, r.status, r.completed, n
			USING DETAIL = 'ranread_fleet_servers has each server''s status and error; what the others measured is kept.';
	END IF;
	RETURN QUERY EXECUTE format(
		'SELECT ''server'', s.fleet, s.server, s.batch, s.status, s.iops, s.mean_ms, s.p99_ms, s.max_ms, '
		'	s.start_skew_ms, s.clock_offset_ms, NULL::float8, s.error '
		'FROM %1$I.ranread_fleet_servers s WHERE s.fleet = $1 '
		'ORDER BY array_position($2, s.server)', own) USING fleet_no, servers;
	RETURN QUERY EXECUTE format(
		'SELECT ''fleet'', f.fleet, NULL::name, NULL::bigint, f.status, f.iops, f.mean_ms, f.p99_ms, f.max_ms, '
		'	NULL::float8, NULL::float8, f.overlap_pct, NULL::text '
		'FROM %1$I.ranread_fleet_runs f WHERE f.fleet = $1', own) USING fleet_no;
END
$fleet$;
REVOKE ALL ON FUNCTION ranread_fleet_run(name[], int, bigint, text, name, interval, float8, interval) FROM PUBLIC;

-- a fleet sweep: processes stepped on every server at once, one fleet run a
-- step, committed after each, with the SLO judged on the fleet and on every
-- server; min_scaling_pct 0 turns the scaling rule off, as in ranread_sweep.  No SET clause (a procedure with one cannot COMMIT): it sets its
-- search_path itself, again after each COMMIT.
CREATE VIEW ranread_fleet_summary AS
SELECT f.fleet, f.fleet_sweep, f.sweep_step, f.started_at, f.servers, f.processes, f.mode, f.target, f.status,
	   pg_catalog.round(f.iops) AS iops,
	   ranread_round_ms(f.mean_ms, 3) AS mean_ms,
	   ranread_round_ms(f.p99_ms, 3) AS p99_ms,
	   ranread_round_ms(f.max_ms, 3) AS max_ms,
	   f.slowest_server,
	   pg_catalog.round(f.overlap_pct::numeric, 1) AS overlap_pct,
	   (SELECT pg_catalog.count(*) FROM ranread_fleet_servers s WHERE s.fleet OPERATOR(pg_catalog.=) f.fleet AND s.status OPERATOR(pg_catalog.=) 'completed'::text) AS servers_completed
FROM ranread_fleet_runs f;

CREATE PROCEDURE ranread_fleet_sweep(servers name[],
									 start_processes int DEFAULT 2,
									 max_processes int DEFAULT 64,
									 iterations bigint DEFAULT NULL,
									 duration interval DEFAULT '10 s',
									 mode text DEFAULT 'smgr',
									 target name DEFAULT 'ranread_target',
									 stop_latency_ms float8 DEFAULT 10,
									 min_scaling_pct float8 DEFAULT 25,
									 slo_mean_ms float8 DEFAULT 2,
									 slo_p99_ms float8 DEFAULT 5)
LANGUAGE plpgsql
AS $fleet_sweep$
DECLARE
	own name;
	sweep_no bigint;
	processes int := start_processes;
	step int := 0;
	fleet_id bigint;
	f record;
	prev_iops float8;
	prev_processes int;
	servers_meet boolean;
	stop_rule text;
	v record;
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	IF start_processes IS NULL OR max_processes IS NULL OR stop_latency_ms IS NULL OR min_scaling_pct IS NULL
	   OR slo_mean_ms IS NULL OR slo_p99_ms IS NULL THEN
		RAISE EXCEPTION 'start_processes, max_processes, stop_latency_ms, min_scaling_pct, slo_mean_ms and slo_p99_ms must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF start_processes < 1 OR max_processes < start_processes OR max_processes > 1024 THEN
		RAISE EXCEPTION 'start_processes must be at least 1, and max_processes between start_processes and 1024'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('start_processes is %s and max_processes %s.', start_processes, max_processes);
	END IF;
	IF NOT (stop_latency_ms > 0 AND slo_mean_ms > 0 AND slo_p99_ms > 0 AND min_scaling_pct >= 0 AND min_scaling_pct < 100) THEN
		RAISE EXCEPTION 'stop_latency_ms and the SLO bounds must be positive, min_scaling_pct at least 0 and below 100'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT ns.nspname INTO own FROM pg_extension e JOIN pg_namespace ns ON ns.oid = e.extnamespace
	WHERE e.extname = 'ranread';
	sweep_no := nextval(format('%I.ranread_fleet_seq', own)::regclass);
	LOOP
		step := step + 1;
		EXECUTE format('SELECT max(fleet) FROM %I.ranread_fleet_run($1, $2, $3, $4, $5, $6)', own)
			INTO fleet_id USING servers, processes, iterations, mode, target, duration;
		EXECUTE format('UPDATE %I.ranread_fleet_runs SET fleet_sweep = $1, sweep_step = $2 WHERE fleet = $3 RETURNING *', own)
			INTO f USING sweep_no, step, fleet_id;
		EXECUTE format('SELECT bool_and(status = ''completed'' AND mean_ms <= $1 AND p99_ms <= $2) '
					   'FROM %I.ranread_fleet_servers WHERE fleet = $3', own)
			INTO servers_meet USING slo_mean_ms, slo_p99_ms, fleet_id;
		RAISE NOTICE 'fleet sweep % step %: % process% per server, % IOPS, mean % ms, p99 % ms (fleet %)%',
			sweep_no, step, processes, CASE WHEN processes = 1 THEN '' ELSE 'es' END, round(f.iops),
			round(f.mean_ms::numeric, 3), round(f.p99_ms::numeric, 3), fleet_id,
			CASE WHEN servers_meet AND f.mean_ms <= slo_mean_ms AND f.p99_ms <= slo_p99_ms THEN ', within the SLO'
				 ELSE '' END;
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		IF f.status <> 'completed' THEN
			stop_rule := format('step %s was %s', step, f.status);
		ELSIF f.mean_ms > stop_latency_ms THEN
			stop_rule := format('the fleet''s mean latency, %s ms, passed stop_latency_ms (%s ms)', round(f.mean_ms::numeric, 3), stop_latency_ms);
		ELSIF min_scaling_pct > 0 AND prev_iops > 0
			  AND 100 * (f.iops - prev_iops) / (prev_iops * (processes::float8 / prev_processes - 1)) < min_scaling_pct THEN
			stop_rule := format('from %s to %s processes per server the fleet''s IOPS gained %s%% of linear (min_scaling_pct %s%%)',
								prev_processes, processes,
								round((100 * (f.iops - prev_iops) / (prev_iops * (processes::float8 / prev_processes - 1)))::numeric),
								min_scaling_pct);
		ELSIF processes >= max_processes THEN
			stop_rule := format('it reached max_processes (%s)', max_processes);
		END IF;
		EXIT WHEN stop_rule IS NOT NULL;
		prev_iops := f.iops;
		prev_processes := processes;
		processes := least(processes * 2, max_processes);
	END LOOP;

	-- the verdict: the most IOPS, and the most within the SLO on the fleet and on every server
	EXECUTE format(
		'SELECT (SELECT round(f.iops) || '' IOPS at '' || f.processes || '' processes per server'' '
		'        FROM %1$I.ranread_fleet_runs f WHERE f.fleet_sweep = $1 AND f.status = ''completed'' '
		'        ORDER BY f.iops DESC LIMIT 1) AS highest, '
		'       (SELECT round(f.iops) || '' IOPS at '' || f.processes || '' processes per server'' '
		'        FROM %1$I.ranread_fleet_runs f WHERE f.fleet_sweep = $1 AND f.status = ''completed'' '
		'          AND f.mean_ms <= $2 AND f.p99_ms <= $3 '
		'          AND NOT EXISTS (SELECT FROM %1$I.ranread_fleet_servers s WHERE s.fleet = f.fleet '
		'                          AND NOT (s.mean_ms <= $2 AND s.p99_ms <= $3)) '
		'        ORDER BY f.iops DESC LIMIT 1) AS within', own)
		INTO v USING sweep_no, slo_mean_ms, slo_p99_ms;
	RAISE NOTICE 'fleet sweep %: % step%; it stopped because %', sweep_no, step, CASE WHEN step = 1 THEN '' ELSE 's' END, stop_rule
		USING DETAIL = format('Highest: %s. Highest within the SLO (mean <= %s ms, p99 <= %s ms, on the fleet and on every server): %s.',
							  coalesce(v.highest, 'none'), slo_mean_ms, slo_p99_ms, coalesce(v.within, 'none'));
END
$fleet_sweep$;
REVOKE ALL ON PROCEDURE ranread_fleet_sweep(name[], int, int, bigint, interval, text, name, float8, float8, float8, float8) FROM PUBLIC;

-- a fleet sweep as an SVG chart: IOPS stacked by server, the fleet's p99 (src/history/chart_fleet.c)
CREATE FUNCTION ranread_chart_fleet(fleet_sweep bigint DEFAULT NULL,
									width int DEFAULT 960,
									height int DEFAULT 540)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_fleet'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_chart_fleet(bigint, int, int) FROM PUBLIC;
