/* ranread--1.0--1.1.sql: from ranread 1.0 to 1.1 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.1'" to load this file. \quit

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
ALTER FUNCTION ranread_run(int, bigint, name, text, int, interval, boolean) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_stop() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_reset() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_export(text) SET search_path = pg_catalog, pg_temp;
-- the export writes the view's rows as they are: dates YYYY-MM-DD
ALTER FUNCTION ranread_export(text) SET DateStyle = 'ISO, YMD';
ALTER FUNCTION ranread_drop(name) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ranread_help() SET search_path = pg_catalog, pg_temp;

-- The batch running now, one row per worker, read live from the run's shared memory.
CREATE FUNCTION ranread_running(OUT batch bigint, OUT leader_pid int, OUT target name,
								OUT mode text, OUT processes int, OUT worker int, OUT pid int,
								OUT state text, OUT reads bigint, OUT target_reads bigint,
								OUT elapsed_s float8, OUT time_left_s float8, OUT iops float8,
								OUT mean_ms float8, OUT p99_ms float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_running'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION ranread_running() FROM PUBLIC;
