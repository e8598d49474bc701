/* ranread--1.1--1.2.sql: update ranread 1.1 to 1.2 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.2'" to load this file. \quit

-- repeat: noise bands, each batch's figures carry their uncertainty (the sweep's stop rules read them)
ALTER TABLE ranread_batches ADD COLUMN iops_band_pct float8,
	ADD COLUMN mean_band_pct float8,
	ADD COLUMN p99_band_pct float8;

-- repeat: CALL ranread_sweep(repeat => N) runs the whole sweep N times (GRANTs on the old procedure go with it)
DROP PROCEDURE ranread_sweep(int, int, int, bigint, interval, name, text, int, float8, float8, float8, float8, float8, float8, float8, float8, float8, interval, int, int);
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
							   repeat int DEFAULT 1)	-- whole sweeps to run, 1 to 10
AS 'MODULE_PATHNAME', 'ranread_sweep'
LANGUAGE C;
REVOKE ALL ON PROCEDURE ranread_sweep(int, int, int, bigint, interval, name, text, int, float8, float8, float8, float8, float8, float8, float8, float8, float8, interval, int, int, int) FROM PUBLIC;
