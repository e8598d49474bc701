-- The stable SQL surface of ranread: objects, help text, messages of bad input.
-- Numbers that vary between machines are checked as booleans.
\set VERBOSITY terse

\dx+ ranread
\d ranread_summary
SELECT * FROM ranread_help();

-- setup: a small target; the description line carries timing, so match it
SELECT ranread_setup('8 MB', target => 'regress_target', log_level => 0)
	~ '^ranread target "regress_target": 8 MB \(1024 blocks\) at /.+, written in [0-9.]+ s \([0-9]+ MB/s\)$' AS described;
SELECT target, bytes, blocks, tablespace FROM ranread_targets;
SELECT relpersistence, reloptions FROM pg_class WHERE relname = 'regress_target';
SELECT pg_relation_size('regress_target') AS bytes;

-- run: NOTICEs and WARNINGs carry measurements, so keep them out of this file
SET client_min_messages = error;
SELECT batch > 0 AS numbered, processes, iterations, status,
	   response_time_ms > 0 AS timed, iops > 0 AS counted
FROM ranread_run(2, 100, 'regress_target');
SELECT worker, reads, status FROM ranread_results ORDER BY worker;
SELECT processes, iterations, reads, status FROM ranread_summary;
RESET client_min_messages;

-- bad input
SELECT ranread_setup('1 MB', target => 'regress_small');
SELECT ranread_setup('banana', target => 'regress_small');
SELECT ranread_setup('8 MB', target => 'regress_target');
SELECT ranread_setup('8 MB', target => NULL);
SELECT ranread_setup('8 MB', target => 'regress_small', log_level => 4);
SELECT ranread_setup('8 MB', 'no_such_tablespace', 'regress_small');
SELECT ranread_run(0, 100, 'regress_target');
SELECT ranread_run(2, 0, 'regress_target');
SELECT ranread_run(NULL, 100, 'regress_target');
SELECT ranread_run(2, NULL, 'regress_target');
SELECT ranread_run(2, 100, 'regress_target', mode => 'bogus');
SELECT ranread_run(2, 100, 'regress_target', block_size => 4096);
SELECT ranread_run(2, 100, 'regress_target', block_size => 12000);
SELECT ranread_run(2, 100, 'regress_target', block_size => 2097152);
SELECT ranread_run(2, NULL, 'regress_target', duration => '-1 s');
SELECT ranread_run(2, 100, 'regress_target', evict => NULL);
SELECT ranread_run(2, 100, 'no_such_target');
SELECT ranread_run(2, 100, 'ranread_targets');
SELECT ranread_export('relative/dir');
SELECT ranread_export(NULL);
SELECT ranread_drop('no_such_target');
SELECT count(*) AS leftovers FROM pg_class WHERE relname = 'regress_small';

-- clean up
SELECT ranread_drop('regress_target');
SELECT ranread_reset();
SELECT count(*) AS targets FROM ranread_targets;
