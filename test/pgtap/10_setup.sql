-- ranread_setup(): what it writes, where, and what it leaves behind on error.
SET client_min_messages = error;
\ir helpers.psql
SELECT plan(30);

SELECT lives_ok($$SELECT ranread_setup('16 MB', target => 'tap_setup', log_level => 0)$$,
				'setup of a 16 MB target succeeds');
SELECT is((SELECT blocks FROM ranread_targets WHERE target = 'tap_setup'), 2048::bigint,
		  'catalog row records 2048 blocks');
SELECT is(pg_relation_size('tap_setup'), 16777216::bigint, 'relation holds every block');
SELECT is((SELECT relpersistence FROM pg_class WHERE relname = 'tap_setup'), 'u'::"char",
		  'target is unlogged');
SELECT ok((SELECT reloptions @> '{autovacuum_enabled=false,vacuum_truncate=false}' FROM pg_class WHERE relname = 'tap_setup'),
		  'autovacuum is off for the target and VACUUM does not truncate it');
SELECT is((SELECT relation FROM ranread_targets WHERE target = 'tap_setup'), 'tap_setup'::regclass::oid,
		  'catalog row points at the relation');
SELECT is((SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
		   WHERE d.objid = 'tap_setup'::regclass AND d.classid = 'pg_class'::regclass
			 AND e.extname = 'ranread' AND d.deptype = 'e'),
		  1::bigint, 'the target is a member of the extension');
SELECT is((SELECT attstorage FROM pg_attribute WHERE attrelid = 'tap_setup'::regclass AND attname = 'filler'),
		  'p'::"char", 'its one column is stored plain: never compressed, never moved out of line');
SELECT is((SELECT reltoastrelid FROM pg_class WHERE relname = 'tap_setup'), 0::oid,
		  'so it has no TOAST table');

-- valid pages: the buffer manager verifies each page (and its checksum) on read
SELECT is((SELECT count(*) FROM tap_setup), 2048::bigint, 'every page reads back as a valid page with one row');
SELECT is((SELECT count(*) FROM verify_heapam('tap_setup')), 0::bigint, 'amcheck finds no corruption');
SELECT is((SELECT count(*) FROM generate_series(0, 2047, 97) b,
				  page_header(get_raw_page('tap_setup', b::int)) h
		   WHERE h.lower = 28 AND h.upper = 32 AND h.special = 8192 AND h.flags = 4),
		  22::bigint, 'sampled pages hold one tuple filling the page and are marked all-visible');
SELECT is((SELECT count(*) FROM generate_series(0, 2047, 97) b
		   WHERE current_setting('data_checksums')::bool IS FALSE
			  OR (page_header(get_raw_page('tap_setup', b::int))).checksum
				 = page_checksum(get_raw_page('tap_setup', b::int), b::int)),
		  22::bigint, 'sampled pages carry a valid checksum when the cluster has checksums');

-- incompressible, and not the same page over and over
SELECT cmp_ok((SELECT count(DISTINCT get_byte(get_raw_page('tap_setup', 1000), i))
			   FROM generate_series(24, 8191) i), '>=', 250::bigint,
			  'free space holds bytes of (nearly) every value');
SELECT isnt(md5(get_raw_page('tap_setup', 0)), md5(get_raw_page('tap_setup', 1)),
			'two pages differ');
CREATE TEMP TABLE tap_compress (b bytea);
ALTER TABLE tap_compress ALTER b SET STORAGE MAIN;
INSERT INTO tap_compress VALUES (get_raw_page('tap_setup', 7)), (decode(repeat('00', 8192), 'hex'));
SELECT cmp_ok((SELECT pg_column_size(b) FROM tap_compress WHERE get_byte(b, 100) <> 0 OR get_byte(b, 101) <> 0 LIMIT 1),
			  '>=', 8192, 'pglz cannot compress a target page');
SELECT cmp_ok((SELECT min(pg_column_size(b)) FROM tap_compress), '<', 1000,
			  'while a zero page compresses (the check can fail)');

-- a tablespace
SELECT lives_ok($$COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf /tmp/ranread_tap_ts && mkdir -p /tmp/ranread_tap_ts'$$,
				'make a tablespace directory');
CREATE TABLESPACE tap_ts LOCATION '/tmp/ranread_tap_ts';
SELECT matches(ranread_setup('8 MB', 'tap_ts', 'tap_in_ts', 0), ' at /.*/pg_tblspc/[0-9]+/',
			   'setup in a tablespace reports the path of its first segment there');
SELECT is((SELECT tablespace FROM ranread_targets WHERE target = 'tap_in_ts'), 'tap_ts'::name,
		  'catalog row records the tablespace');
SELECT is((SELECT spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
		   WHERE relname = 'tap_in_ts'), 'tap_ts'::name, 'relation lives in the tablespace');
SELECT lives_ok($$SELECT ranread_drop('tap_in_ts')$$, 'drop the tablespace target');
DROP TABLESPACE tap_ts;
SELECT lives_ok($$COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf /tmp/ranread_tap_ts'$$, 'remove the tablespace directory');

-- a target emptied the way crash recovery empties unlogged tables
TRUNCATE tap_setup;
SELECT throws_like($$SELECT ranread_run(1, 10, 'tap_setup')$$,
				   'ranread target "tap_setup" is empty or incomplete',
				   'a run refuses an emptied target');
SELECT lives_ok($$SELECT ranread_setup('8 MB', target => 'tap_setup', log_level => 0)$$,
				'setup again replaces the emptied target');
SELECT is((SELECT blocks FROM ranread_targets WHERE target = 'tap_setup'), 1024::bigint,
		  'the replacement is registered with its new size');

-- a cancelled setup leaves no data, relation or catalog row (PostgreSQL keeps
-- an aborted relation's first segment as an empty file until the next checkpoint)
CREATE TEMP VIEW tap_db_files AS
SELECT f, 'base/' || d.oid || '/' || f AS path
FROM pg_database d, pg_ls_dir('base/' || d.oid) f WHERE d.datname = current_database();
CREATE TEMP TABLE tap_files_before AS SELECT f FROM tap_db_files;
SET statement_timeout = '300ms';
SELECT is((pg_temp.tap_catch($$SELECT ranread_setup('4 GB', target => 'tap_cancelled', log_level => 0)$$)).state,
		  '57014', 'a long setup is cancelled by statement_timeout');
RESET statement_timeout;
SELECT is((SELECT coalesce(sum((pg_stat_file(path, true)).size), 0) FROM tap_db_files
		   WHERE f NOT IN (SELECT f FROM tap_files_before)),
		  0::numeric, 'the cancelled setup left no data on disk');
SELECT is((SELECT count(*) FROM pg_class WHERE relname = 'tap_cancelled')
		  + (SELECT count(*) FROM ranread_targets WHERE target = 'tap_cancelled'),
		  0::bigint, 'the cancelled setup left no relation or catalog row');

SELECT lives_ok($$SELECT ranread_drop('tap_setup')$$, 'drop the target');
SELECT * FROM finish();
