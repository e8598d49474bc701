/* ranread--1.1--1.2.sql: update ranread 1.1 to 1.2 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.2'" to load this file. \quit

-- counts: runs that would re-read are refused (allow_rereads), a time-based
-- run ends when every unit has been read once (ended_by), and other I/O on
-- the device is measured (device_shared_pct).
ALTER TABLE ranread_batches
	ADD COLUMN ended_by text,
	ADD COLUMN device_shared_pct float8;

-- One row per batch: RanRead's seven columns first, in its order.
CREATE OR REPLACE VIEW ranread_summary AS
SELECT run_date,
	   run_time,
	   target,
	   iterations,
	   processes,
	   ranread_round_ms(response_time_ms, 2) AS response_time_ms,
	   round(iops::numeric) AS iops,
	   batch,
	   mode,
	   block_size,
	   ranread_round_ms(p50_ms) AS p50_ms,
	   ranread_round_ms(p95_ms) AS p95_ms,
	   ranread_round_ms(p99_ms) AS p99_ms,
	   ranread_round_ms(p999_ms) AS p999_ms,
	   ranread_round_ms(min_ms) AS min_ms,
	   ranread_round_ms(max_ms) AS max_ms,
	   round(pct_over_2ms::numeric, 2) AS pct_over_2ms,
	   round(pct_over_5ms::numeric, 2) AS pct_over_5ms,
	   round(pct_over_10ms::numeric, 2) AS pct_over_10ms,
	   round(mb_per_s::numeric, 1) AS mb_per_s,
	   round(physical_pct::numeric, 1) AS physical_pct,
	   buffer_hits,
	   buffer_misses,
	   device,
	   round(device_reads_per_s::numeric) AS device_reads_per_s,
	   ranread_round_ms(device_read_wait_ms) AS device_read_wait_ms,
	   round(device_util_pct::numeric, 1) AS device_util_pct,
	   reads,
	   round(wall_s::numeric, 3) AS wall_s,
	   duration_s,
	   evicted,
	   status,
	   started_at,
	   wrapped_reads,
	   round(kb_per_read::numeric, 1) AS kb_per_read,
	   ramp_s,
	   steady_at_s,
	   rate_iops,
	   ranread_round_ms(service_mean_ms) AS service_mean_ms,
	   ranread_round_ms(service_p50_ms) AS service_p50_ms,
	   ranread_round_ms(service_p99_ms) AS service_p99_ms,
	   ranread_round_ms(service_p999_ms) AS service_p999_ms,
	   sweep,
	   sweep_step,
	   iodepth,
	   ended_by,
	   round(device_shared_pct::numeric, 1) AS device_shared_pct
FROM ranread_batches;

-- A new argument means a new function: the roles granted EXECUTE on the old
-- signature are granted it on the new one (WITH GRANT OPTION is not carried
-- over; docs/reference.md, "Upgrading").
SELECT pg_catalog.set_config('ranread.update_run_grantees',
							 coalesce(pg_catalog.array_agg(r.rolname)::text, '{}'), true)
FROM pg_catalog.pg_proc p,
	 LATERAL pg_catalog.aclexplode(p.proacl) a
	 JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
WHERE p.oid = 'ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int)'::pg_catalog.regprocedure
  AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner;
DROP FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int);
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
							allow_rereads boolean DEFAULT false)
RETURNS ranread_summary			-- the batch's row, as the view shows it
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean) FROM PUBLIC;
DO $$
DECLARE
	grantee name;
BEGIN
	FOREACH grantee IN ARRAY pg_catalog.current_setting('ranread.update_run_grantees')::name[]
	LOOP
		EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean, interval, interval, interval, float8, float8, text, int, boolean) TO %I', grantee);
	END LOOP;
END
$$;
