-- fleet.sql: the C helpers of a fleet run across servers through contrib
-- dblink (src/fleet): connect, check, wait, a server's burst bucket, and
-- the fleet's chart.

-- a dblink connection to a foreign server, with a connect timeout and the
-- remote search_path pinned to pg_catalog
CREATE OR REPLACE FUNCTION ranread_fleet_connect(connection text, server name)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_fleet_connect'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_fleet_connect(text,name) IS 'the fleet run''s dblink connection, with a timeout
connection: the dblink connection''s name
server: the foreign server to connect to';

-- on each server: what its ranread_run() would refuse before it starts, and
-- the cluster's identity
CREATE OR REPLACE FUNCTION ranread_fleet_check(processes int, iterations bigint, target name, mode text,
									duration interval)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_fleet_check'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_fleet_check(integer,bigint,name,text,interval) IS 'on a server: what its run would refuse, and its identity
processes: as the fleet run will ask of ranread_run()
iterations: as the fleet run will ask
target: as the fleet run will ask
mode: as the fleet run will ask
duration: as the fleet run will ask';

-- the bucket rule (src/rules/bucket_rules.c) on a batch's series given as
-- arrays, for the fleet run to apply to each server's: a pure computation,
-- so left executable by PUBLIC, like ranread_sweep_decide()
CREATE OR REPLACE FUNCTION ranread_series_bucket(processes int, physical_pct float8, start_s float8[],
									  seconds float8[], reads bigint[], workers_reading int[],
									  OUT burst_iops float8, OUT burst_band_pct float8,
									  OUT baseline_iops float8, OUT baseline_band_pct float8,
									  OUT bucket_reads float8, OUT bucket_band float8, OUT shift_s float8)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_series_bucket'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION ranread_series_bucket(integer,double precision,double precision[],double precision[],bigint[],integer[]) IS 'the bucket rule on a batch''s series (any role)
processes: the batch''s processes
physical_pct: the batch''s physical_pct (NULL: not measured)
start_s: each interval''s, as ranread_intervals has it
seconds: each interval''s
reads: each interval''s
workers_reading: each interval''s';

-- the coordinator's wait for its servers, which ranread_stop() finds
CREATE OR REPLACE FUNCTION ranread_fleet_wait(fleet bigint, connections text[], servers name[], schemas name[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_fleet_wait'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_fleet_wait(bigint,text[],name[],name[]) IS 'the fleet run''s wait for its servers
fleet: the fleet run waiting
connections: its dblink connections, one per server
servers: its servers, in the same order
schemas: ranread''s schema on each server';

-- a fleet sweep as an SVG chart: IOPS stacked by server, the fleet's p99 (src/history/chart_fleet.c)
CREATE OR REPLACE FUNCTION ranread_chart_fleet(fleet_sweep bigint DEFAULT NULL,
									width int DEFAULT 960,
									height int DEFAULT 540)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_fleet'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_chart_fleet(bigint,integer,integer) IS 'a fleet sweep as SVG, IOPS stacked by server
fleet_sweep: the fleet sweep (NULL: the latest)
width: the SVG''s width, in pixels
height: its height, in pixels';
