/* ranread--1.1--1.2.sql: update ranread 1.1 to 1.2 */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION ranread UPDATE TO '1.2'" to load this file. \quit

-- noise bands: each batch's figures carry their uncertainty (the sweep's stop rules read them)
ALTER TABLE ranread_batches ADD COLUMN iops_band_pct float8,
	ADD COLUMN mean_band_pct float8,
	ADD COLUMN p99_band_pct float8;
