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

CREATE OR REPLACE FUNCTION ranread_stop()
RETURNS int
AS 'MODULE_PATHNAME', 'ranread_stop'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION ranread_reset()
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_reset'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION ranread_drop(target name DEFAULT 'ranread_target')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_drop'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

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

-- Each ranread_setup() running now: how far it is.
CREATE OR REPLACE FUNCTION ranread_setup_running(OUT target name, OUT pid int, OUT state text,
									  OUT bytes_written bigint, OUT bytes_total bigint,
									  OUT elapsed_s float8, OUT mb_per_s float8, OUT time_left_s float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_setup_running'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

-- The write target writers write to: a logged table, one row a page.
CREATE OR REPLACE FUNCTION ranread_setup_writes(size text DEFAULT '256 MB',
									 tablespace name DEFAULT NULL,
									 target name DEFAULT 'ranread_write_target')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_setup_writes'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

-- How the fleet run and the write sweep (PL/pgSQL, run as their caller)
-- record their rows: as the extension's owner, run_by the caller, and only
-- for the fleet or write sweep number this session drew last
-- (src/record/history_rows.c).
CREATE OR REPLACE FUNCTION ranread_history_insert(history_table text, fields jsonb)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_history_insert'
LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION ranread_history_update(history_table text, fields jsonb, matching jsonb)
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_history_update'
LANGUAGE C VOLATILE STRICT
SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION ranread_help()
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'ranread_help'
LANGUAGE C IMMUTABLE
SET search_path = pg_catalog, pg_temp;
