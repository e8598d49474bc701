/* ranread--1.0.sql: the SQL surface of ranread 1.0 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION ranread" to load this file. \quit

-- Targets made by ranread_setup(): one row per target relation.
CREATE TABLE ranread_targets (
	target name PRIMARY KEY,
	relation regclass NOT NULL,
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
	status text NOT NULL
);

SELECT pg_catalog.pg_extension_config_dump('ranread_targets', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_results', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_batches', '');
SELECT pg_catalog.pg_extension_config_dump('ranread_batch_seq', '');

-- One row per batch: RanRead's seven columns first, in its order.
CREATE VIEW ranread_summary AS
SELECT run_date,
	   run_time,
	   target,
	   iterations,
	   processes,
	   pg_catalog.round(response_time_ms::numeric, 2) AS response_time_ms,
	   pg_catalog.round(iops::numeric) AS iops,
	   batch,
	   mode,
	   block_size,
	   pg_catalog.round(p50_ms::numeric, 3) AS p50_ms,
	   pg_catalog.round(p95_ms::numeric, 3) AS p95_ms,
	   pg_catalog.round(p99_ms::numeric, 3) AS p99_ms,
	   pg_catalog.round(p999_ms::numeric, 3) AS p999_ms,
	   pg_catalog.round(min_ms::numeric, 3) AS min_ms,
	   pg_catalog.round(max_ms::numeric, 3) AS max_ms,
	   pg_catalog.round(pct_over_2ms::numeric, 2) AS pct_over_2ms,
	   pg_catalog.round(pct_over_5ms::numeric, 2) AS pct_over_5ms,
	   pg_catalog.round(pct_over_10ms::numeric, 2) AS pct_over_10ms,
	   pg_catalog.round(mb_per_s::numeric, 1) AS mb_per_s,
	   pg_catalog.round(physical_pct::numeric, 1) AS physical_pct,
	   buffer_hits,
	   buffer_misses,
	   device,
	   pg_catalog.round(device_reads_per_s::numeric) AS device_reads_per_s,
	   pg_catalog.round(device_read_wait_ms::numeric, 3) AS device_read_wait_ms,
	   pg_catalog.round(device_util_pct::numeric, 1) AS device_util_pct,
	   reads,
	   pg_catalog.round(wall_s::numeric, 3) AS wall_s,
	   duration_s,
	   evicted,
	   status,
	   started_at
FROM ranread_batches;

CREATE TYPE ranread_run_result AS (
	batch bigint,
	processes int,
	iterations bigint,
	response_time_ms float8,
	p50_ms float8,
	p99_ms float8,
	max_ms float8,
	iops float8,
	mb_per_s float8,
	status text,
	mode text,
	block_size int,
	physical_pct float8,
	buffer_hits bigint,
	device_util_pct float8
);

CREATE FUNCTION ranread_setup(size text DEFAULT NULL,
							  tablespace name DEFAULT NULL,
							  target name DEFAULT 'ranread_target',
							  log_level int DEFAULT 1)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_setup'
LANGUAGE C VOLATILE;

CREATE FUNCTION ranread_run(processes int,
							iterations bigint,
							target name DEFAULT 'ranread_target',
							mode text DEFAULT 'smgr',
							block_size int DEFAULT 8192,
							duration interval DEFAULT NULL,
							evict boolean DEFAULT true)
RETURNS ranread_run_result
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C VOLATILE;

CREATE FUNCTION ranread_stop()
RETURNS int
AS 'MODULE_PATHNAME', 'ranread_stop'
LANGUAGE C VOLATILE;

CREATE FUNCTION ranread_reset()
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_reset'
LANGUAGE C VOLATILE;

CREATE FUNCTION ranread_export(directory text)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_export'
LANGUAGE C VOLATILE;

CREATE FUNCTION ranread_drop(target name DEFAULT 'ranread_target')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_drop'
LANGUAGE C VOLATILE;

CREATE FUNCTION ranread_help()
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'ranread_help'
LANGUAGE C IMMUTABLE;

-- Superuser-only by default; docs/reference.md lists the GRANTs for a benchmark role.
REVOKE ALL ON FUNCTION ranread_setup(text, name, name, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_stop() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_reset() FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_export(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_drop(name) FROM PUBLIC;
REVOKE ALL ON FUNCTION ranread_help() FROM PUBLIC;
