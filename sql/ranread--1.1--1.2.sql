/* ranread--1.1--1.2.sql: update ranread 1.1 to 1.2 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.2'" to load this file. \quit

-- mem: ranread_histogram_merge() checks a single row too (its final function).
DROP AGGREGATE ranread_histogram_merge(bigint[]);
CREATE FUNCTION ranread_histogram_check(bigint[])
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'ranread_histogram_check'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE AGGREGATE ranread_histogram_merge(bigint[]) (
	SFUNC = ranread_histogram_add,
	STYPE = bigint[],
	FINALFUNC = ranread_histogram_check,
	PARALLEL = SAFE
);

-- mem: the io_uring buffers of a run registered with the kernel, or not
-- (NULL where no worker read through io_uring).
ALTER TABLE ranread_results ADD COLUMN registered_buffers boolean;
ALTER TABLE ranread_batches ADD COLUMN registered_buffers boolean;
