-- readers.sql: the routines that read the history back: export to files,
-- SVG charts, and comparisons of two batches or two sweeps (src/history).

CREATE OR REPLACE FUNCTION ranread_export(directory text,
							   format text DEFAULT 'tsv',
							   sweep bigint DEFAULT NULL,
							   csv boolean DEFAULT false,
							   svg boolean DEFAULT false)
RETURNS SETOF text				-- the path of each file written
AS 'MODULE_PATHNAME', 'ranread_export'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
SET DateStyle = 'ISO, YMD';
COMMENT ON FUNCTION ranread_export(text,text,bigint,boolean,boolean) IS 'write ranread_summary to new server-side files: TSV, RanRead''s format, CSV, charts
directory: an existing directory of the server that its OS user may write
format: ''tsv'' (every column) or ''ranread'' (RanRead''s seven)
sweep: only this sweep''s batches and chart; NULL: every batch
csv: also write every column as CSV
svg: also write the charts';

-- ranread_export()'s files as rows (file name, text), for the client to
-- save with psql: no server file is written, so the benchmark role needs no
-- server-file privilege (pg_write_server_files can gain a superuser's).
CREATE OR REPLACE FUNCTION ranread_export_files(format text DEFAULT 'tsv',
									 sweep bigint DEFAULT NULL,
									 csv boolean DEFAULT false,
									 svg boolean DEFAULT false)
RETURNS TABLE(file text, content text)
AS 'MODULE_PATHNAME', 'ranread_export_files'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp
SET DateStyle = 'ISO, YMD';
COMMENT ON FUNCTION ranread_export_files(text,bigint,boolean,boolean) IS 'the same files as rows, for psql to save on the client (no server-file privilege)
format: tsv, or ranread for RanRead''s own format
sweep: only this sweep''s batches (NULL: every batch)
csv: a CSV file too
svg: the charts too, as SVG files';

-- Charts as self-contained SVG: a sweep (IOPS bars, mean and p99 latency
-- lines against processes, the SLO and the knee), the latency
-- distribution of batches from their histograms, and a batch over time.
CREATE OR REPLACE FUNCTION ranread_chart(sweep bigint DEFAULT NULL,
							  width int DEFAULT 960,
							  height int DEFAULT 540)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_chart(bigint,integer,integer) IS 'a sweep as SVG (the latest by default)
sweep: the sweep (NULL: the latest)
width: the SVG''s width, in pixels
height: its height, in pixels';

CREATE OR REPLACE FUNCTION ranread_chart_latency(VARIADIC batches bigint[])
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_latency'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_chart_latency(bigint[]) IS 'batches'' latency distributions as SVG
batches: the batches whose latency distributions to draw';

-- A batch over time: IOPS and mean and p99 latency per ranread_intervals
-- row against seconds, and where IOPS fell sharply (the throttle rule).
CREATE OR REPLACE FUNCTION ranread_chart_intervals(batch bigint DEFAULT NULL,
										width int DEFAULT 960,
										height int DEFAULT 540)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_intervals'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_chart_intervals(bigint,integer,integer) IS 'a batch over time as SVG
batch: the batch (NULL: the latest)
width: the SVG''s width, in pixels
height: its height, in pixels';

-- Two batches, or two sweeps, side by side: each measure of A and B, B/A, the
-- noise band of the measurement in percent and whether B differs by more; a
-- last row 'verdict' in words (docs/reference.md, "Compare").
CREATE OR REPLACE FUNCTION ranread_compare(batch_a bigint, batch_b bigint)
RETURNS TABLE(measure text, a float8, b float8, ratio float8, noise_pct float8, verdict text)
AS 'MODULE_PATHNAME', 'ranread_compare'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_compare(bigint,bigint) IS 'two batches side by side, against the noise band
batch_a: the batch A, the baseline
batch_b: the batch B, compared with A';

CREATE OR REPLACE FUNCTION ranread_compare_sweeps(sweep_a bigint, sweep_b bigint)
RETURNS TABLE(measure text, a float8, b float8, ratio float8, noise_pct float8, verdict text)
AS 'MODULE_PATHNAME', 'ranread_compare_sweeps'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_compare_sweeps(bigint,bigint) IS 'two sweeps side by side, against the noise band
sweep_a: the sweep A, the baseline
sweep_b: the sweep B, compared with A';

-- A report to share: one self-contained HTML page (inline CSS and SVG, no
-- script, nothing loaded) of a sweep, a batch, a fleet run, a fleet sweep,
-- a write sweep or two sweeps compared: the verdict, the charts, the steps,
-- the proofs and warnings, the settings (docs/reference.md, "Report").
-- Saved by psql: \pset format unaligned, \pset tuples_only on, \o file.
CREATE OR REPLACE FUNCTION ranread_report_html(sweep bigint DEFAULT NULL,
										   batch bigint DEFAULT NULL,
										   fleet bigint DEFAULT NULL,
										   fleet_sweep bigint DEFAULT NULL,
										   write_sweep bigint DEFAULT NULL,
										   compare_to bigint DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_report_html'
LANGUAGE C STABLE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION ranread_report_html(bigint,bigint,bigint,bigint,bigint,bigint) IS 'one HTML page of a sweep, batch, fleet run or sweep, write sweep, or two sweeps
sweep: the sweep (NULL, and no other subject: the latest)
batch: the batch
fleet: the fleet run
fleet_sweep: the fleet sweep
write_sweep: the write sweep
compare_to: a second sweep, compared with sweep (B against A)';
