-- run.sql: the routines that make targets, run and stop batches and
-- record them (src/admin, src/run, src/record), and ranread_help().

CREATE OR REPLACE FUNCTION ranread_setup(size text DEFAULT NULL,
							  tablespace name DEFAULT NULL,
							  target name DEFAULT 'ranread_target',
							  log_level int DEFAULT 1)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_setup'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_setup(text,name,name,integer) IS 'create a target and write every block
size: the target''s size (''256 MB'', ''1.5 TB''); NULL: twice the server''s memory
tablespace: the tablespace to create it in: the volume under test
target: the target''s name, a table in the extension''s schema; a role other than a superuser must begin it with ranread_
log_level: how many NOTICEs, from 0 (none) to 3';

CREATE OR REPLACE FUNCTION ranread_run(processes int,
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
							start_at timestamptz DEFAULT NULL,	-- release the workers then (NULL: once ready)
							writers int DEFAULT 0,	-- background writers beside the readers
							write_rate_iops float8 DEFAULT NULL,	-- writes/s of all writers (open loop)
							write_target name DEFAULT 'ranread_write_target',	-- made by ranread_setup_writes()
							checkpoint text DEFAULT NULL,	-- 'during': a fast checkpoint a third into the run
							OUT batch bigint,
							OUT status text,
							OUT iops numeric,
							OUT response_time_ms numeric,	-- the mean
							OUT p99_ms numeric)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_run(integer,bigint,name,text,integer,interval,boolean,interval,interval,interval,double precision,double precision,text,integer,boolean,integer,text,timestamp with time zone,integer,double precision,name,text) IS 'one batch of timed random reads; returns its batch, status, IOPS, mean and p99
processes: background workers, from 1 to 1024; 0 for writers alone (RanWrite)
iterations: reads per worker; NULL only with duration
target: a target made by ranread_setup
mode: the read path: ''smgr'', ''direct'', ''buffer'' or ''stream''
block_size: bytes per read: a multiple of 8192, at most 1 MiB
duration: run time per worker, at most 7 days
evict: evict the target from the OS page cache first
ramp: read without counting for this long first
sample_interval: the length of a row of ranread_intervals, at least 100 ms
steady_state: end a timed run once IOPS and latency held steady this long
steady_band_pct: the band of steady_state, in percent
rate_iops: an open loop: reads per second, all workers together
arrivals: with rate_iops: ''uniform'' or ''poisson'' gaps
iodepth: reads in flight per worker, from 1 to 1024
allow_rereads: allow reading a unit twice (smgr, buffer)
prefetch: smgr only: advise the kernel this many reads ahead
distribution: which units: ''uniform'', ''zipf:theta'', ''hotset:P%/Q%'', ''sequential''
start_at: the wall-clock time at which the workers start reading
writers: background writers beside the readers, 0 to 1024
write_rate_iops: with writers: writes per second, all writers together
write_target: the write target, made by ranread_setup_writes
checkpoint: with writers: ''during'' asks for a checkpoint a third into the run';

CREATE OR REPLACE FUNCTION ranread_stop()
RETURNS int
AS 'MODULE_PATHNAME', 'ranread_stop'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_stop() IS 'stop every ranread worker of the cluster, a sweep, layers run or calibration, and a fleet run waiting here';

CREATE OR REPLACE FUNCTION ranread_reset()
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_reset'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_reset() IS 'delete the caller''s history (a superuser''s call: all of it)';

CREATE OR REPLACE FUNCTION ranread_drop(target name DEFAULT 'ranread_target')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_drop'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_drop(name) IS 'drop a target and forget it
target: the target to drop';

-- The batch running now, one row per worker, read live from the run's shared memory.
CREATE OR REPLACE FUNCTION ranread_running(OUT batch bigint, OUT leader_pid int, OUT target name,
								OUT mode text, OUT processes int, OUT worker int, OUT pid int,
								OUT state text, OUT reads bigint, OUT target_reads bigint,
								OUT elapsed_s float8, OUT time_left_s float8, OUT iops float8,
								OUT mean_ms float8, OUT p99_ms float8, OUT sweep bigint,
								OUT sweep_step int, OUT iodepth int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_running'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_running() IS 'the batch running now, per worker and in total';

-- Each ranread_setup() running now: how far it is.
CREATE OR REPLACE FUNCTION ranread_setup_running(OUT target name, OUT pid int, OUT state text,
									  OUT bytes_written bigint, OUT bytes_total bigint,
									  OUT elapsed_s float8, OUT mb_per_s float8, OUT time_left_s float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_setup_running'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_setup_running() IS 'each ranread_setup() running now (the view ranread_progress)';

-- The write target writers write to: a logged table, one row a page.
CREATE OR REPLACE FUNCTION ranread_setup_writes(size text DEFAULT '256 MB',
									 tablespace name DEFAULT NULL,
									 target name DEFAULT 'ranread_write_target')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_setup_writes'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_setup_writes(text,name,name) IS 'create (or replace) the logged write target that writers write to
size: the write target''s size, at least 1 MB: 32,768 rows at the default, room for 229,376 writes in a run (7 a row)
tablespace: the tablespace to create it in
target: the write target''s name, a table in the extension''s schema; a role other than a superuser must begin it with ranread_';

-- How the fleet run and the write sweep (PL/pgSQL, run as their caller)
-- record their rows: as the extension's owner, run_by the caller, and only
-- for the fleet or write sweep number this session drew last
-- (src/record/history_rows.c).
CREATE OR REPLACE FUNCTION ranread_history_insert(history_table text, fields jsonb)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_history_insert'
LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_history_insert(text,jsonb) IS 'how the fleet run and the write sweep record a row (the caller''s, for the number it drew)
history_table: the history table: ranread_fleet_runs, ranread_fleet_servers, ranread_write_sweeps or ranread_write_sweep_steps
fields: the row, as a JSON object of its columns';

CREATE OR REPLACE FUNCTION ranread_history_update(history_table text, fields jsonb, matching jsonb)
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_history_update'
LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_history_update(text,jsonb,jsonb) IS 'how they change one (the caller''s rows of that number)
history_table: the history table, as for ranread_history_insert()
fields: the columns to set, as a JSON object
matching: the columns that pick the rows, as a JSON object (within the caller''s rows of the number it drew)';

CREATE OR REPLACE FUNCTION ranread_help()
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'ranread_help'
LANGUAGE C IMMUTABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_help() IS 'a line per entry point and per read path, each at most 120 characters';
