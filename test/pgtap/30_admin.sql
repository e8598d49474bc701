-- 30_admin.sql: everything around a run -- ranread_help, ranread_export,
-- ranread_reset, ranread_drop, ranread_setup's refusals, and privileges.
--
-- Runs outside a transaction: workers record results in their own
-- transactions.  Uses its own target "tap_admin" and roles tap_*, and cleans
-- up at the end.
-- error, not warning: setup warns that a 16 MB target is small, and runs on it
-- warn that they will re-read blocks; neither belongs in TAP output.
SET client_min_messages = error;

-- Leftovers of an aborted earlier run of this file, if any.
DO $$
DECLARE
	t name;
	r name;
BEGIN
	FOREACH t IN ARRAY ARRAY['tap_admin', 'tap_admin_drop', 'tap_admin_gone']::name[] LOOP
		IF EXISTS (SELECT 1 FROM ranread_targets WHERE target = t) THEN
			PERFORM ranread_drop(t);
		END IF;
	END LOOP;
	DROP TABLE IF EXISTS tap_admin_plain;
	FOREACH r IN ARRAY ARRAY['tap_noprivs', 'tap_bench', 'tap_bench_nologin', 'tap_exporter']::name[] LOOP
		IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('DROP OWNED BY %I', r);
			EXECUTE format('DROP ROLE %I', r);
		END IF;
	END LOOP;
END
$$;

\ir helpers.psql

SELECT plan(87);

-- ---------------------------------------------------------------------------
-- A target for this file
-- ---------------------------------------------------------------------------
SELECT matches(ranread_setup('16 MB', target => 'tap_admin', log_level => 0),
			   '^ranread target "tap_admin": 16 MB \(2048 blocks\) at ',
			   'ranread_setup makes target tap_admin');

-- ---------------------------------------------------------------------------
-- ranread_help()
-- ---------------------------------------------------------------------------
SELECT cmp_ok((SELECT count(*) FROM ranread_help()), '>', 0::bigint, 'ranread_help() returns rows');
SELECT ok(EXISTS (SELECT 1 FROM ranread_help() AS h(line) WHERE line ~ ('^' || f || '\(')),
		  format('a line of ranread_help() starts with %s(', f))
  FROM unnest(ARRAY['ranread_setup', 'ranread_run', 'ranread_stop', 'ranread_reset',
					'ranread_export', 'ranread_drop', 'ranread_help', 'ranread_running']) WITH ORDINALITY AS u(f, n)
 ORDER BY n;

-- ---------------------------------------------------------------------------
-- ranread_export()
-- ---------------------------------------------------------------------------
SELECT is(status, 'completed', 'a small run to export') FROM ranread_run(2, 200, 'tap_admin');
-- and one with the columns the first leaves empty: iterations NULL, a
-- duration, buffer hits and misses
CREATE TEMP TABLE tap_buffer_run AS
SELECT batch FROM ranread_run(1, NULL, 'tap_admin', mode => 'buffer', duration => '0.1 s', allow_rereads => true);
SELECT is((status, mode, iterations), ('completed'::text, 'buffer'::text, NULL::bigint),
		  'a time-based buffer-mode run to export')
  FROM tap_buffer_run JOIN ranread_summary USING (batch);
SELECT lives_ok($$COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; mkdir -p /tmp/ranread_tap_export && rm -f /tmp/ranread_tap_export/*'$$,
				'an empty export directory owned by the server''s OS user');

-- a session DateStyle that is not ISO must not change the file's dates
SET DateStyle = 'SQL, DMY';
CREATE TEMP TABLE tap_export AS
SELECT clock_timestamp() AS t0, ranread_export('/tmp/ranread_tap_export') AS path, clock_timestamp() AS t1;
RESET DateStyle;
SELECT matches(path, '^/tmp/ranread_tap_export/ranread_\d{8}-\d{4}\.tsv$',
			   'ranread_export returns DIRECTORY/ranread_YYYYMMDD-HHMM.tsv')
  FROM tap_export;
SELECT ok(substring(path FROM 'ranread_(\d{8}-\d{4})\.tsv$')
			IN (to_char(t0, 'YYYYMMDD-HH24MI'), to_char(t1, 'YYYYMMDD-HH24MI')),
		  'the file is named after the time of the export')
  FROM tap_export;

CREATE TEMP TABLE tap_lines AS
SELECT l.n, l.line
  FROM tap_export, regexp_split_to_table(rtrim(pg_read_file(path), E'\n'), E'\n') WITH ORDINALITY AS l(line, n);
SELECT is(line, E'run_date\trun_time\ttarget\titerations\tprocesses\tresponse_time_ms\tiops\tbatch\tmode\tblock_size\t'
				 'p50_ms\tp95_ms\tp99_ms\tp999_ms\tmin_ms\tmax_ms\tpct_over_2ms\tpct_over_5ms\tpct_over_10ms\t'
				 'mb_per_s\tphysical_pct\tbuffer_hits\tbuffer_misses\tdevice\tdevice_reads_per_s\t'
				 'device_read_wait_ms\tdevice_util_pct\treads\twall_s\tduration_s\tevicted\tstatus\tstarted_at\twrapped_reads\tkb_per_read\t'
				 'ramp_s\tsteady_at_s\trate_iops\tservice_mean_ms\tservice_p50_ms\tservice_p99_ms\tservice_p999_ms\t'
				 'sweep\tsweep_step\tiodepth\tended_by\tdevice_shared_pct',
		  'the first line is the tab-separated header: every column of ranread_summary, RanRead''s seven first')
  FROM tap_lines WHERE n = 1;
SELECT is((SELECT count(*) FROM tap_lines WHERE n > 1), (SELECT count(*) FROM ranread_summary),
		  'one data line per row of ranread_summary');
SELECT cmp_ok((SELECT count(*) FROM tap_lines WHERE n > 1), '>', 0::bigint, 'the export has data lines');
SELECT is((SELECT count(*) FROM tap_lines
			WHERE n > 1 AND split_part(line, E'\t', 1) ~ '^\d{4}-\d{2}-\d{2}$'
			  AND split_part(line, E'\t', 2) ~ '^\d{2}:\d{2}:\d{2}$'),
		  (SELECT count(*) FROM tap_lines WHERE n > 1),
		  'every data line starts with a YYYY-MM-DD date and an HH:MM:SS time');
SELECT results_eq(
	'SELECT line FROM tap_lines WHERE n > 1 ORDER BY n',
	$$SELECT array_to_string(ARRAY[to_char(run_date, 'YYYY-MM-DD'), to_char(run_time, 'HH24:MI:SS'),
								   target::text, iterations::text, processes::text, response_time_ms::text,
								   iops::text, batch::text, mode, block_size::text,
								   p50_ms::text, p95_ms::text, p99_ms::text, p999_ms::text, min_ms::text, max_ms::text,
								   pct_over_2ms::text, pct_over_5ms::text, pct_over_10ms::text,
								   mb_per_s::text, physical_pct::text, buffer_hits::text, buffer_misses::text,
								   device, device_reads_per_s::text, device_read_wait_ms::text, device_util_pct::text,
								   reads::text, wall_s::text, duration_s::text,
								   CASE evicted WHEN true THEN 't' WHEN false THEN 'f' END, status,
								   started_at::text, wrapped_reads::text, kb_per_read::text,
								   ramp_s::text, steady_at_s::text, rate_iops::text, service_mean_ms::text,
								   service_p50_ms::text, service_p99_ms::text, service_p999_ms::text,
								   sweep::text, sweep_step::text, iodepth::text, ended_by, device_shared_pct::text],
							 E'\t', '') COLLATE "default"
		FROM ranread_summary ORDER BY batch$$,
	'the data lines are ranread_summary''s rows, ordered by batch');

SELECT matches(ranread_export('/tmp/ranread_tap_export/'),
			   '^/tmp/ranread_tap_export/ranread_\d{8}-\d{4}(-\d+)?\.tsv$',
			   'a trailing slash in the directory works too');
SELECT is(ARRAY(SELECT f FROM pg_ls_dir('/tmp/ranread_tap_export') f WHERE f !~ '^ranread_\d{8}-\d{4}(-\d+)?\.tsv$'),
		  '{}'::text[], 'exports write nothing but ranread_YYYYMMDD-HHMM[-N].tsv files');

SELECT throws_ok($$SELECT ranread_export(NULL)$$,
				 '22004', 'export directory must not be null', 'a NULL directory is refused');
SELECT throws_ok($$SELECT ranread_export('tmp')$$,
				 '22023', 'export directory must be an absolute path', 'a relative directory is refused');
SELECT throws_ok($$SELECT ranread_export('/nonexistent/dir')$$,
				 '58P01', NULL, 'a missing directory is refused with 58P01');
SELECT throws_like($$SELECT ranread_export('/nonexistent/dir')$$,
				   'could not access export directory "/nonexistent/dir": %',
				   'the refusal names the missing directory');
SELECT throws_ok(format('SELECT ranread_export(%L)', d || '/PG_VERSION'),
				 '42809', format('"%s/PG_VERSION" is not a directory', d),
				 'a file that is not a directory is refused')
  FROM current_setting('data_directory') AS d;

CREATE ROLE tap_exporter NOLOGIN;
GRANT EXECUTE ON FUNCTION ranread_export TO tap_exporter;
GRANT SELECT ON ranread_results, ranread_batches, ranread_targets, ranread_summary TO tap_exporter;
SET ROLE tap_exporter;
SELECT throws_ok($$SELECT ranread_export('/tmp/ranread_tap_export')$$,
				 '42501', 'permission denied to export ranread results to a server file',
				 'a role without pg_write_server_files may not export');
RESET ROLE;
GRANT pg_write_server_files TO tap_exporter;
SET ROLE tap_exporter;
SELECT matches(ranread_export('/tmp/ranread_tap_export'),
			   '^/tmp/ranread_tap_export/ranread_\d{8}-\d{4}(-\d+)?\.tsv$',
			   'the same role with pg_write_server_files may export');
RESET ROLE;

-- ---------------------------------------------------------------------------
-- ranread_drop()
-- ---------------------------------------------------------------------------
SELECT matches(ranread_setup('8 MB', target => 'tap_admin_drop', log_level => 0),
			   '^ranread target "tap_admin_drop": 8 MB ', 'a target to drop');
SELECT is(ranread_drop('tap_admin_drop'), 'dropped ranread target "tap_admin_drop"',
		  'ranread_drop() says what it dropped');
SELECT is((SELECT count(*) FROM pg_class WHERE relname = 'tap_admin_drop'), 0::bigint,
		  'ranread_drop() drops the table');
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = 'tap_admin_drop'), 0::bigint,
		  'ranread_drop() deletes the catalog row');
SELECT matches(ranread_setup('8 MB', target => 'tap_admin_gone', log_level => 0),
			   '^ranread target "tap_admin_gone": 8 MB ', 'a target to drop behind ranread''s back');
ALTER EXTENSION ranread DROP TABLE tap_admin_gone;
DROP TABLE tap_admin_gone;
SELECT is(ranread_drop('tap_admin_gone'), 'dropped ranread target "tap_admin_gone"',
		  'ranread_drop() forgets a target whose table was dropped');
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = 'tap_admin_gone'), 0::bigint,
		  'and deletes its catalog row');
SELECT throws_ok($$SELECT ranread_drop('tap_no_such_target')$$,
				 '42704', 'ranread target "tap_no_such_target" does not exist', 'dropping an unknown target is refused');
SELECT throws_ok($$SELECT ranread_drop(NULL)$$,
				 '22004', 'target name must not be null', 'dropping a NULL target is refused');

-- ---------------------------------------------------------------------------
-- ranread_setup() refusals leave nothing behind
-- ---------------------------------------------------------------------------
SELECT throws_ok($$SELECT ranread_setup('1 MB', target => 'tap_bad_small', log_level => 0)$$,
				 '22023', 'target size must be at least 8 MB', 'size 1 MB is refused');
SELECT throws_ok($$SELECT ranread_setup('banana', target => 'tap_bad_banana', log_level => 0)$$,
				 '22023', 'invalid size: "banana"', 'size banana is refused');
SELECT throws_ok($$SELECT ranread_setup('-5 GB', target => 'tap_bad_negative', log_level => 0)$$,
				 '22023', 'target size must be at least 8 MB', 'size -5 GB is refused');
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => 'tap_bad_level', log_level => 4)$$,
				 '22023', 'log_level must be between 0 and 3', 'log_level 4 is refused');
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => 'tap_bad_level', log_level => -1)$$,
				 '22023', 'log_level must be between 0 and 3', 'log_level -1 is refused');
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => 'tap_bad_level', log_level => NULL)$$,
				 '22004', 'log_level must not be null', 'log_level NULL is refused with 22004, like every NULL argument');
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => NULL, log_level => 0)$$,
				 '22004', 'target name must not be null or empty', 'a NULL target name is refused');
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => '', log_level => 0)$$,
				 '22004', 'target name must not be null or empty', 'an empty target name is refused');
SELECT throws_ok($$SELECT ranread_setup('8 MB', 'tap_no_such_tablespace', 'tap_bad_tablespace', 0)$$,
				 '42704', 'tablespace "tap_no_such_tablespace" does not exist', 'an unknown tablespace is refused');
SELECT is(pg_temp.tap_leftovers('tap\_bad\_%'), 0::bigint,
		  'refused setups left no relation and no ranread_targets row');
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = ''), 0::bigint,
		  'the refused empty name left no ranread_targets row');

SELECT 'tap_admin'::regclass::oid AS admin_oid \gset
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => 'tap_admin', log_level => 0)$$,
				 '42710', 'ranread target "tap_admin" already exists', 'an existing intact target is refused');
SELECT matches(e.hint, 'ranread_drop\(''tap_admin''\)', 'the refusal''s hint mentions ranread_drop')
  FROM pg_temp.tap_catch($$SELECT ranread_setup('8 MB', target => 'tap_admin', log_level => 0)$$) e;
SELECT is((SELECT (relation::oid, blocks) FROM ranread_targets WHERE target = 'tap_admin'),
		  (:admin_oid::oid, 2048::bigint),
		  'the existing target is untouched: same relation, same blocks');
SELECT is(pg_relation_size('tap_admin'), 16777216::bigint, 'the existing target still holds every block');

CREATE TABLE tap_admin_plain (i int);
SELECT 'tap_admin_plain'::regclass::oid AS plain_oid \gset
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => 'tap_admin_plain', log_level => 0)$$,
				 '42P07', 'relation "tap_admin_plain" already exists', 'the name of a plain table is refused');
SELECT is((SELECT (count(*), min(oid), min(relpersistence::text)) FROM pg_class WHERE relname = 'tap_admin_plain'),
		  (1::bigint, :plain_oid::oid, 'p'::text),
		  'the plain table is untouched');
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = 'tap_admin_plain'), 0::bigint,
		  'the refused setup left no ranread_targets row');

-- ---------------------------------------------------------------------------
-- Privileges: every function is superuser-only until granted
-- ---------------------------------------------------------------------------
CREATE ROLE tap_noprivs NOLOGIN;
SET ROLE tap_noprivs;
SELECT throws_ok($$SELECT ranread_setup('8 MB', target => 'tap_noprivs_target', log_level => 0)$$,
				 '42501', 'permission denied for function ranread_setup', 'tap_noprivs may not call ranread_setup');
SELECT throws_ok($$SELECT * FROM ranread_run(2, 200, 'tap_admin')$$,
				 '42501', 'permission denied for function ranread_run', 'tap_noprivs may not call ranread_run');
SELECT throws_ok($$SELECT ranread_stop()$$,
				 '42501', 'permission denied for function ranread_stop', 'tap_noprivs may not call ranread_stop');
SELECT throws_ok($$SELECT ranread_reset()$$,
				 '42501', 'permission denied for function ranread_reset', 'tap_noprivs may not call ranread_reset');
SELECT throws_ok($$SELECT ranread_export('/tmp/ranread_tap_export')$$,
				 '42501', 'permission denied for function ranread_export', 'tap_noprivs may not call ranread_export');
SELECT throws_ok($$SELECT ranread_drop('tap_admin')$$,
				 '42501', 'permission denied for function ranread_drop', 'tap_noprivs may not call ranread_drop');
SELECT throws_ok($$SELECT * FROM ranread_help()$$,
				 '42501', 'permission denied for function ranread_help', 'tap_noprivs may not call ranread_help');
RESET ROLE;
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = 'tap_admin'), 1::bigint,
		  'tap_noprivs''s refused ranread_drop left the target');

-- A benchmark role: which grants a run needs, found one refusal at a time.
CREATE ROLE tap_bench LOGIN;
SELECT pg_temp.tap_rows() AS rows_before \gset
GRANT EXECUTE ON FUNCTION ranread_run TO tap_bench;
SET ROLE tap_bench;
SELECT throws_ok($$SELECT * FROM ranread_run(2, 200, 'tap_admin')$$,
				 '42501', 'permission denied for view ranread_summary',
				 'with EXECUTE alone, a run is refused before it starts: it returns a row of ranread_summary');
RESET ROLE;
GRANT SELECT ON ranread_summary TO tap_bench;
SET ROLE tap_bench;
SELECT throws_ok($$SELECT * FROM ranread_run(2, 200, 'tap_admin')$$,
				 '42501', 'permission denied for table ranread_targets',
				 'without SELECT on ranread_targets, a run cannot look up its target');
RESET ROLE;
GRANT SELECT ON ranread_targets TO tap_bench;
SET ROLE tap_bench;
SELECT throws_ok($$SELECT * FROM ranread_run(2, 200, 'tap_admin')$$,
				 '42501', 'permission denied for table tap_admin',
				 'without SELECT on another role''s target, a run cannot read it');
RESET ROLE;
GRANT SELECT ON tap_admin TO tap_bench;
SET ROLE tap_bench;
SELECT throws_ok($$SELECT * FROM ranread_run(2, 200, 'tap_admin')$$,
				 '42501', 'permission denied for sequence ranread_batch_seq',
				 'without USAGE on ranread_batch_seq, a run cannot number its batch');
RESET ROLE;
SELECT is(pg_temp.tap_rows(), :'rows_before', 'the refused runs recorded nothing');
SELECT is(pg_temp.tap_run_elsewhere('tap_admin'), 'completed',
		  'after the refusals another session can run: they left no run lock held');
GRANT USAGE ON SEQUENCE ranread_batch_seq TO tap_bench;
SELECT coalesce(max(batch), 0) AS b_before_bench FROM ranread_results \gset
SET ROLE tap_bench;
SELECT is(status, 'completed', 'tap_bench runs with EXECUTE, SELECT on ranread_summary, ranread_targets and the target and USAGE on the sequence: no write on the history')
  FROM ranread_run(2, 200, 'tap_admin');
RESET ROLE;
SELECT coalesce(max(batch), 0) AS b_bench FROM ranread_results \gset
SELECT cmp_ok(:b_bench::bigint, '>', :b_before_bench::bigint, 'tap_bench''s run got a new batch');
SELECT is((SELECT count(*) FROM ranread_results WHERE batch = :b_bench AND reads = 200 AND status = 'completed'),
		  2::bigint, 'tap_bench''s workers recorded their rows');
SELECT is((SELECT (reads, status) FROM ranread_batches WHERE batch = :b_bench),
		  (400::bigint, 'completed'::text), 'tap_bench''s batch row is recorded');

-- Workers connect as the calling role, so a role that cannot log in cannot run:
-- either its workers fail to connect (55000) or the run checks LOGIN up front
-- (42501).  Either way it must fail cleanly, leaving no worker and no rows.
CREATE ROLE tap_bench_nologin NOLOGIN;
GRANT EXECUTE ON FUNCTION ranread_run TO tap_bench_nologin;
GRANT SELECT ON ranread_targets TO tap_bench_nologin;
GRANT USAGE ON SEQUENCE ranread_batch_seq TO tap_bench_nologin;
SELECT pg_temp.tap_rows() AS rows_before \gset
SET ROLE tap_bench_nologin;
SELECT matches(e.state || ': ' || e.message,
			   '^(55000: ranread worker [12] exited before the run started|42501: role "tap_bench_nologin" cannot log in.*)$',
			   format('a NOLOGIN role''s run is refused (%s: %s)', e.state, e.message))
  FROM pg_temp.tap_catch($$SELECT * FROM ranread_run(2, 200, 'tap_admin')$$) e;
RESET ROLE;
SELECT is(pg_temp.tap_wait_workers(0, 5), 0::bigint, 'no worker is left of the NOLOGIN role''s run');
SELECT is(pg_temp.tap_rows(), :'rows_before', 'the NOLOGIN role''s run recorded nothing');

-- ---------------------------------------------------------------------------
-- ranread_reset()
-- ---------------------------------------------------------------------------
SELECT (SELECT count(*) FROM ranread_results) + (SELECT count(*) FROM ranread_batches) AS rows_to_delete \gset
SELECT cmp_ok(:rows_to_delete::bigint, '>', 0::bigint, 'there is history to delete');
SELECT cmp_ok((SELECT count(*) FROM ranread_intervals), '>', 0::bigint, 'there are intervals to delete');
SELECT is(ranread_reset(), :rows_to_delete::bigint,
		  'ranread_reset() returns the number of rows it deleted from both tables');
SELECT is((SELECT count(*) FROM ranread_intervals), 0::bigint, 'ranread_reset() deletes the intervals too');
SELECT is(pg_temp.tap_rows(), 'results=0 batches=0', 'ranread_results and ranread_batches are empty');
SELECT is(ranread_reset(), 0::bigint, 'a second ranread_reset() deletes nothing');
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = 'tap_admin'), 1::bigint,
		  'ranread_reset() keeps the targets');

-- ---------------------------------------------------------------------------
-- Clean up
-- ---------------------------------------------------------------------------
SELECT is(ranread_drop('tap_admin'), 'dropped ranread target "tap_admin"', 'ranread_drop cleans up tap_admin');
DROP TABLE tap_admin_plain;
SELECT lives_ok($$COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf /tmp/ranread_tap_export'$$, 'remove the export directory');
DROP OWNED BY tap_noprivs, tap_bench, tap_bench_nologin, tap_exporter;
DROP ROLE tap_noprivs, tap_bench, tap_bench_nologin, tap_exporter;
SELECT is((SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tap\_%'), 0::bigint, 'the test roles are gone');

SELECT * FROM finish();
