/* ranread--1.1--1.2.sql: update ranread 1.1 to 1.2 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.2'" to load this file. \quit

-- charts: ranread_chart_intervals(), a batch over time: IOPS and mean and p99 latency per ranread_intervals
-- row against seconds, and where IOPS fell sharply (the throttle rule).
CREATE FUNCTION ranread_chart_intervals(batch bigint DEFAULT NULL,
										width int DEFAULT 960,
										height int DEFAULT 540)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_intervals'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;

REVOKE ALL ON FUNCTION ranread_chart_intervals(bigint, int, int) FROM PUBLIC;
