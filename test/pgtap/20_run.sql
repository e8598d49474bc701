-- 20_run.sql: ranread_run() -- what a run returns and records, how it refuses
-- bad input, and how it ends when cancelled, timed out or stopped.
--
-- Runs outside a transaction: workers record results in their own
-- transactions.  Uses its own target "tap_run" and cleans up at the end.
-- error, not warning: setup warns that a 16 MB target is small, and most runs
-- here warn that they will re-read blocks; neither belongs in TAP output.
SET client_min_messages = error;
-- A zone far from UTC, so that run_date in the session's zone differs from
-- the UTC date for 14 hours of every day.
SET TimeZone = 'Pacific/Kiritimati';

-- Leftovers of an aborted earlier run of this file, if any.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM ranread_targets WHERE target = 'tap_run') THEN
		PERFORM ranread_drop('tap_run');
	END IF;
	DROP TABLE IF EXISTS tap_run_plain;
END
$$;

\ir helpers.psql

SELECT plan(110);

-- ---------------------------------------------------------------------------
-- A target for this file
-- ---------------------------------------------------------------------------
SELECT matches(ranread_setup('16 MB', target => 'tap_run', log_level => 0),
			   '^ranread target "tap_run": 16 MB \(2048 blocks\) at ',
			   'ranread_setup makes target tap_run');

-- ---------------------------------------------------------------------------
-- A completed run: what ranread_run returns
-- ---------------------------------------------------------------------------
SELECT clock_timestamp() AS t_before \gset
CREATE TEMP TABLE tap_r1 AS SELECT * FROM ranread_run(2, 500, 'tap_run');
SELECT clock_timestamp() AS t_after \gset
SELECT batch AS b1 FROM tap_r1 \gset

SELECT is((SELECT count(*) FROM tap_r1), 1::bigint, 'ranread_run returns one row');
SELECT is(ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = 'tap_r1'::regclass AND a.attnum > 0 ORDER BY a.attnum),
		  ARRAY['batch', 'status', 'iops', 'response_time_ms', 'p99_ms'],
		  'ranread_run returns the figures that decide: batch, status, iops, response_time_ms, p99_ms');
SELECT is(status, 'completed', 'run returns status completed') FROM tap_r1;
SELECT cmp_ok(response_time_ms, '>', 0::numeric, 'run returns response_time_ms > 0') FROM tap_r1;
SELECT ok(s.p50_ms > 0 AND s.p50_ms <= r.p99_ms AND r.p99_ms <= s.max_ms,
		  format('run returns p99_ms between the batch''s p50 and max (%s, %s, %s)', s.p50_ms, r.p99_ms, s.max_ms))
  FROM tap_r1 r JOIN ranread_summary s USING (batch);
SELECT cmp_ok(iops, '>', 0::numeric, 'run returns iops > 0') FROM tap_r1;
SELECT is(scale(response_time_ms) >= 2 AND scale(p99_ms) >= 3 AND scale(iops) = 0, true,
		  format('run returns rounded values, as ranread_summary shows them (%s ms, %s IOPS)', response_time_ms, iops))
  FROM tap_r1;

-- the server it ran on: its version, and since 18 its io_method (NULL before)
SELECT is(server_version_num, current_setting('server_version_num')::int,
		  'the batch records the server''s version') FROM ranread_batches WHERE batch = :b1;
SELECT is(io_method, current_setting('io_method', true),
		  'and its io_method (NULL before 18)') FROM ranread_batches WHERE batch = :b1;
SELECT is(ARRAY[io_workers, effective_io_concurrency, io_combine_limit, io_max_concurrency]::text[],
		  CASE WHEN io_method IS NULL THEN ARRAY[NULL, NULL, NULL, NULL]::text[]
			   -- (19 replaced io_workers by io_min_workers and io_max_workers)
			   ELSE ARRAY[coalesce(current_setting('io_workers', true), current_setting('io_max_workers', true)),
						  current_setting('effective_io_concurrency'),
						  (pg_size_bytes(current_setting('io_combine_limit')) / 8192)::text,
						  current_setting('io_max_concurrency')] END,
		  'and its other I/O settings, io_combine_limit in blocks (NULL before 18)')
  FROM ranread_batches WHERE batch = :b1;

-- ---------------------------------------------------------------------------
-- ranread_results: one row per worker, written by the worker
-- ---------------------------------------------------------------------------
SELECT is((SELECT count(*) FROM ranread_results WHERE batch = :b1), 2::bigint,
		  'ranread_results has exactly 2 rows for the batch');
SELECT results_eq(format('SELECT worker FROM ranread_results WHERE batch = %s ORDER BY worker', :b1),
				  ARRAY[1, 2], 'the workers are numbered 1 and 2');
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b1 AND reads = 500 AND status = 'completed'),
		  2::bigint, 'each worker read 500 blocks and completed');
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b1 AND target = 'tap_run' AND processes = 2 AND iterations = 500
			  AND mode = 'smgr' AND block_size = 8192 AND duration_s IS NULL AND evicted),
		  2::bigint, 'worker rows name the target, processes, iterations and the defaults: mode smgr, block_size 8192, no duration, evicted');
SELECT is((SELECT count(*) FROM ranread_results r
			WHERE batch = :b1 AND (SELECT sum(h) FROM unnest(r.histogram) h) = r.reads),
		  2::bigint, 'each worker''s histogram buckets add up to its reads');
-- the batch keeps the merged histogram; SQL can merge and read them as the C code does
SELECT is((SELECT histogram FROM ranread_batches WHERE batch = :b1),
		  (SELECT ranread_histogram_merge(histogram) FROM ranread_results WHERE batch = :b1),
		  'the batch''s histogram is its workers'' histograms merged (ranread_histogram_merge)');
SELECT is((SELECT sum(h) FROM ranread_batches b, unnest(b.histogram) h WHERE batch = :b1), 1000::numeric,
		  'and counts the batch''s 1000 reads');
SELECT ok((SELECT bool_and(abs(ranread_histogram_percentile(histogram, f) - v) <= v / 128 + 1e-9)
		   FROM ranread_batches, LATERAL (VALUES (0.5, p50_ms), (0.95, p95_ms), (0.99, p99_ms), (0.999, p999_ms)) AS q(f, v)
		   WHERE batch = :b1),
		  'ranread_histogram_percentile() gives the batch''s p50, p95, p99 and p999 within half a bucket');
SELECT is(ranread_histogram_percentile('{0,0,5,5}', 0.5), 2e-6::float8,
		  'percentiles read bucket midpoints: the 5th of 10 reads is in the 2 ns bucket');
SELECT is(ranread_histogram_add('{1,2}', '{10,20,30}'), '{11,22,30}'::bigint[],
		  'histograms of different lengths add bucket by bucket');
SELECT is(ranread_histogram_percentile('{0,0}', 0.5), NULL, 'an empty histogram has no percentile');
SELECT throws_ok($$SELECT ranread_histogram_percentile('{1}', 99)$$, '22023',
				 'fraction must be greater than 0 and at most 1', 'a percentile is a fraction, not a percentage');
SELECT throws_ok($$SELECT ranread_histogram_add('{-1}', '{1}')$$, '22023',
				 'a ranread histogram cannot count a negative number of reads', 'negative counts are refused');
SELECT throws_ok($$SELECT ranread_histogram_add('{{1},{2}}', '{1}')$$, '22023',
				 'a ranread histogram must be a one-dimensional bigint array without nulls', 'two dimensions are refused');
SELECT throws_ok(format('SELECT ranread_histogram_percentile(array_fill(1::bigint, ARRAY[%s]), 0.5)', 100000), '22023',
				 'a ranread histogram has at most 2304 buckets', 'too many buckets are refused');
-- a count beyond 64 bits is refused, not wrapped into a wrong answer; one row is checked too
SELECT throws_ok($$SELECT ranread_histogram_percentile(array_fill(4611686018427387904::bigint, ARRAY[2304]), 0.5)$$, '22003',
				 'ranread histogram counts more reads than a bigint holds', 'a total count that would wrap to 0 is refused (it gave NULL)');
SELECT throws_ok($$SELECT ranread_histogram_percentile('{9223372036854775807,9223372036854775807,9223372036854775807,5}', 0.99)$$, '22003',
				 'ranread histogram counts more reads than a bigint holds', 'a total count that would wrap is refused (it gave 0)');
SELECT is(ranread_histogram_percentile('{9223372036854775806,1}', 1), 1e-6::float8,
		  'a total of exactly 2^63 - 1 reads still has percentiles');
SELECT throws_ok($$SELECT ranread_histogram_merge(h) FROM (VALUES ('{-1}'::bigint[])) v(h)$$, '22023',
				 'a ranread histogram cannot count a negative number of reads', 'merging a single negative histogram is refused (it passed through)');
SELECT throws_ok($$SELECT ranread_histogram_merge(h) FROM (VALUES ('{{1},{2}}'::bigint[])) v(h)$$, '22023',
				 'a ranread histogram must be a one-dimensional bigint array without nulls', 'merging a single two-dimensional array is refused');
SELECT is((SELECT ranread_histogram_merge(h) FROM (VALUES ('{1,2}'::bigint[])) v(h)), '{1,2}'::bigint[],
		  'merging a single valid histogram gives it back');
SELECT is((SELECT ranread_histogram_merge(h) FROM (VALUES ('{1,2}'::bigint[])) v(h) WHERE false), NULL,
		  'merging no rows gives NULL, as before');
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b1 AND 0 < min_ms AND min_ms <= p50_ms AND p50_ms <= p95_ms
			  AND p95_ms <= p99_ms AND p99_ms <= p999_ms AND p999_ms <= max_ms),
		  2::bigint, 'each worker has 0 < min_ms <= p50 <= p95 <= p99 <= p999 <= max_ms');
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b1 AND elapsed_s > 0 AND response_time_ms > 0
			  AND abs(iops - reads / elapsed_s) <= 1e-9 * iops),
		  2::bigint, 'each worker has elapsed_s > 0 and iops = reads / elapsed_s');
SELECT is((SELECT count(DISTINCT (run_date, run_time, started_at)) FROM ranread_results WHERE batch = :b1),
		  1::bigint, 'both workers share run_date, run_time and started_at');
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b1 AND run_date = (started_at AT TIME ZONE current_setting('TimeZone'))::date),
		  2::bigint, 'run_date is started_at''s date in the session TimeZone');
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b1
			  AND run_time = date_trunc('second', started_at AT TIME ZONE current_setting('TimeZone'))::time),
		  2::bigint, 'run_time is started_at''s time of day in the session TimeZone, to the second');
SELECT ok((SELECT bool_and(started_at BETWEEN :'t_before'::timestamptz AND :'t_after'::timestamptz)
			 FROM ranread_results WHERE batch = :b1),
		  'started_at lies within the ranread_run call');

-- ---------------------------------------------------------------------------
-- ranread_batches: one row per batch, consistent with the worker rows
-- ---------------------------------------------------------------------------
CREATE TEMP VIEW tap_w AS
SELECT batch, sum(reads) AS reads, max(elapsed_s) AS wall_s,
	   sum(response_time_ms * reads) / sum(reads) AS response_time_ms,
	   min(min_ms) AS min_ms, max(max_ms) AS max_ms,
	   min(started_at) AS started_at, min(run_date) AS run_date, min(run_time) AS run_time
  FROM ranread_results GROUP BY batch;

SELECT is((SELECT count(*) FROM ranread_batches WHERE batch = :b1), 1::bigint,
		  'ranread_batches has one row for the batch');
SELECT is(reads, 1000::bigint, 'batch reads = 1000') FROM ranread_batches WHERE batch = :b1;
SELECT ok(abs(iops - reads / wall_s) < 1e-9 * iops,
		  format('batch iops = reads / wall_s (%s, %s, %s)', iops, reads, wall_s))
  FROM ranread_batches WHERE batch = :b1;
SELECT is(b.wall_s, w.wall_s, 'batch wall_s = max of the workers'' elapsed_s')
  FROM ranread_batches b JOIN tap_w w USING (batch) WHERE batch = :b1;
SELECT ok(abs(b.response_time_ms - w.response_time_ms) < 1e-9 * w.response_time_ms,
		  format('batch response_time_ms = read-weighted mean of the workers'' (%s, %s)',
				 b.response_time_ms, w.response_time_ms))
  FROM ranread_batches b JOIN tap_w w USING (batch) WHERE batch = :b1;
SELECT is(b.max_ms, w.max_ms, 'batch max_ms = max of the workers'' max_ms')
  FROM ranread_batches b JOIN tap_w w USING (batch) WHERE batch = :b1;
SELECT is(b.min_ms, w.min_ms, 'batch min_ms = min of the workers'' min_ms')
  FROM ranread_batches b JOIN tap_w w USING (batch) WHERE batch = :b1;
SELECT ok(b.min_ms <= b.p50_ms AND b.p50_ms <= b.p95_ms AND b.p95_ms <= b.p99_ms
		  AND b.p99_ms <= b.p999_ms AND b.p999_ms <= b.max_ms,
		  'batch has min_ms <= p50 <= p95 <= p99 <= p999 <= max_ms')
  FROM ranread_batches b WHERE batch = :b1;
SELECT ok(abs(mb_per_s - iops * 8192 / 1048576) <= 1e-9 * mb_per_s,
		  'batch mb_per_s = iops * 8192 / 1048576')
  FROM ranread_batches WHERE batch = :b1;
SELECT is((b.target, b.processes, b.iterations, b.status, b.started_at, b.run_date, b.run_time,
		   b.mode, b.block_size, b.duration_s, b.evicted),
		  ('tap_run'::name, 2, 500::bigint, 'completed'::text, w.started_at, w.run_date, w.run_time,
		   'smgr'::text, 8192, NULL::float8, true),
		  'batch row: target, processes, iterations, status, start, mode, block_size, duration and evicted as the workers''')
  FROM ranread_batches b JOIN tap_w w USING (batch) WHERE batch = :b1;
SELECT results_eq(
	'SELECT * FROM tap_r1',
	format('SELECT batch, status, iops, response_time_ms, p99_ms FROM ranread_summary WHERE batch = %s', :b1),
	'what ranread_run returns is the batch''s row of ranread_summary, those columns');

-- ---------------------------------------------------------------------------
-- ranread_summary and RanRead's own summary query
-- ---------------------------------------------------------------------------
SELECT is(ARRAY(SELECT column_name::text FROM information_schema.columns
				 WHERE table_schema = (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'ranread')
				   AND table_name = 'ranread_summary' AND ordinal_position <= 7
				 ORDER BY ordinal_position),
		  ARRAY['run_date', 'run_time', 'target', 'iterations', 'processes', 'response_time_ms', 'iops'],
		  'ranread_summary starts with RanRead''s seven columns, in RanRead''s order');
SELECT is((s.response_time_ms, s.p99_ms, s.max_ms),
		  (ranread_round_ms(b.response_time_ms, 2), ranread_round_ms(b.p99_ms), ranread_round_ms(b.max_ms)),
		  'summary latencies are rounded by ranread_round_ms: response_time_ms to 2 decimals, the others to 3')
  FROM ranread_summary s JOIN ranread_batches b USING (batch) WHERE batch = :b1;
SELECT is(ARRAY[ranread_round_ms(0.0041234), ranread_round_ms(0.05991), ranread_round_ms(0.5),
				ranread_round_ms(12.34567), ranread_round_ms(0.08, 2), ranread_round_ms(1.5, 2), ranread_round_ms(0)],
		  ARRAY[0.00412, 0.0599, 0.500, 12.346, 0.0800, 1.50, 0.000]::numeric[],
		  'below 1 ms three significant digits are kept (flash does not show as 0.000)');
SELECT is(ARRAY[scale(ranread_round_ms(0.0041234)), scale(ranread_round_ms(0.5)), scale(ranread_round_ms(1.5, 2))],
		  ARRAY[5, 3, 2], 'and the scale says so');
SELECT is((s.iops, scale(s.iops)), (round(b.iops::numeric), 0),
		  'summary iops is rounded to an integer')
  FROM ranread_summary s JOIN ranread_batches b USING (batch) WHERE batch = :b1;
SELECT is((s.run_date, s.run_time, s.target, s.iterations, s.processes, s.reads, s.status),
		  (b.run_date, b.run_time, b.target, b.iterations, b.processes, b.reads, b.status),
		  'summary row of the batch matches ranread_batches')
  FROM ranread_summary s JOIN ranread_batches b USING (batch) WHERE batch = :b1;
SELECT lives_ok($$SELECT run_date, run_time, target, iterations, processes, ranread_round_ms(avg(response_time_ms), 2), round(sum(iops)) FROM ranread_results GROUP BY batch, run_date, run_time, target, iterations, processes$$,
				'RanRead''s summary query runs on ranread_results');
SELECT is((SELECT count(*) FROM (SELECT run_date, run_time, target, iterations, processes, ranread_round_ms(avg(response_time_ms), 2), round(sum(iops)) FROM ranread_results GROUP BY batch, run_date, run_time, target, iterations, processes) q),
		  (SELECT count(*) FROM ranread_summary),
		  'RanRead''s summary query gives one row per batch, like ranread_summary');
SELECT results_eq(
	format($$SELECT run_date, run_time, target, iterations, processes, ranread_round_ms(avg(response_time_ms), 2) FROM ranread_results WHERE batch = %s GROUP BY batch, run_date, run_time, target, iterations, processes$$, :b1),
	format($$SELECT run_date, run_time, target, iterations, processes, response_time_ms FROM ranread_summary WHERE batch = %s$$, :b1),
	'RanRead''s summary query agrees with ranread_summary for a completed batch');
SELECT cmp_ok(q.iops::numeric, '>=', s.iops - 1, 'RanRead''s summed iops is at least the batch''s iops')
  FROM (SELECT batch, round(sum(iops)) AS iops FROM ranread_results GROUP BY batch) q
  JOIN ranread_summary s USING (batch) WHERE batch = :b1;

-- ---------------------------------------------------------------------------
-- Batch numbers increase
-- ---------------------------------------------------------------------------
SELECT cmp_ok(batch, '>', :b1::bigint, 'a second run gets a higher batch number')
  FROM ranread_run(2, 500, 'tap_run');

-- ---------------------------------------------------------------------------
-- Bad arguments: the right SQLSTATE, and nothing written
-- ---------------------------------------------------------------------------
SELECT pg_temp.tap_rows() AS rows_before \gset
CREATE TABLE tap_run_plain (i int);

SELECT throws_ok($$SELECT * FROM ranread_run(0, 500, 'tap_run')$$,
				 '22023', 'processes => 0 needs writers', 'processes 0 without writers is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(-1, 500, 'tap_run')$$,
				 '22023', 'processes must be between 0 and 1024', 'processes -1 is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(NULL, 500, 'tap_run')$$,
				 '22004', 'processes, target, mode, block_size and evict must not be null', 'processes NULL is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(1025, 500, 'tap_run')$$,
				 '22023', 'processes must be between 0 and 1024', 'processes 1025 is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(2, 0, 'tap_run')$$,
				 '22023', 'iterations must be at least 1', 'iterations 0 is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(2, -5, 'tap_run')$$,
				 '22023', 'iterations must be at least 1', 'iterations -5 is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(2, NULL, 'tap_run')$$,
				 '22004', 'iterations and duration must not both be null', 'iterations NULL without a duration is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(2, 500, NULL)$$,
				 '22004', 'processes, target, mode, block_size and evict must not be null', 'target NULL is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(2, 500, 'tap_no_such_target')$$,
				 '42704', 'ranread target "tap_no_such_target" does not exist', 'an unknown target is refused');
SELECT throws_ok($$SELECT * FROM ranread_run(2, 500, 'tap_run_plain')$$,
				 '42809', 'relation "tap_run_plain" is not a ranread target',
				 'a plain table not made by ranread_setup is refused');
SELECT is(pg_temp.tap_rows(), :'rows_before', 'refused runs recorded nothing');
SELECT is(pg_temp.tap_wait_workers(0, 0, '%'), 0::bigint, 'refused runs started no worker');

-- ---------------------------------------------------------------------------
-- Not enough background worker slots
-- ---------------------------------------------------------------------------
SELECT least(current_setting('max_worker_processes')::int + 8, 1024) AS too_many \gset
SELECT throws_ok(format('SELECT * FROM ranread_run(%s, 100, ''tap_run'', allow_rereads => true)', :too_many),
				 '53000', format('could not start %s ranread workers', :too_many),
				 format('%s processes with max_worker_processes = %s is refused',
						:too_many, current_setting('max_worker_processes')));
-- The workers registered before the refusal are terminated asynchronously:
-- give the postmaster a second to start and stop them and free their slots.
DO $$ BEGIN PERFORM pg_sleep(1); END $$;
SELECT is(pg_temp.tap_wait_workers(0, 5, '%'), 0::bigint,
		  'the workers registered before the refusal are gone again');
SELECT is(pg_temp.tap_rows(), :'rows_before', 'a run without enough workers recorded nothing');

-- ---------------------------------------------------------------------------
-- statement_timeout cancels the run; the workers record what they measured
-- ---------------------------------------------------------------------------
SELECT coalesce(max(batch), 0) AS b_before_timeout FROM ranread_batches \gset
SET statement_timeout = '500ms';
SELECT is(e.state || ': ' || e.message, '57014: canceling statement due to statement timeout',
		  'a run longer than statement_timeout is cancelled with 57014')
  FROM pg_temp.tap_catch($$SELECT * FROM ranread_run(2, 100000000, 'tap_run', allow_rereads => true)$$) e;
RESET statement_timeout;
SELECT is(pg_temp.tap_wait_workers(0, 10, '%'), 0::bigint, 'no worker outlives the timed-out run');
SELECT is((SELECT count(DISTINCT batch) FROM ranread_results WHERE batch > :b_before_timeout),
		  1::bigint, 'the timed-out batch was recorded');
SELECT coalesce(max(batch), 0) AS b_timeout FROM ranread_results WHERE batch > :b_before_timeout \gset
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b_timeout AND status = 'cancelled' AND reads > 0 AND reads < 100000000),
		  2::bigint, 'both workers of the timed-out batch recorded status cancelled and reads > 0');
SELECT is((SELECT status FROM ranread_batches WHERE batch = :b_timeout), 'cancelled',
		  'the timed-out batch''s ranread_batches row has status cancelled');
SELECT is((SELECT reads FROM ranread_batches WHERE batch = :b_timeout),
		  (SELECT sum(reads)::bigint FROM ranread_results WHERE batch = :b_timeout),
		  'the timed-out batch''s reads are the sum of its workers''');

-- ---------------------------------------------------------------------------
-- One run at a time; ranread_stop() ends a run started by another session
-- ---------------------------------------------------------------------------
SELECT is(dblink_connect('bg', format('dbname=%s port=%s host=%s user=%s options=''-c client_min_messages=error''',
									  current_database(),
									  current_setting('port'),
									  split_part(current_setting('unix_socket_directories'), ',', 1),
									  current_user)),
		  'OK', 'a second session connects through dblink');
SELECT is(dblink_send_query('bg', $$SELECT row_to_json(r)::text FROM ranread_run(2, 100000000, 'tap_run', allow_rereads => true) r$$), 1,
		  'the second session starts a long run');
SELECT is(pg_temp.tap_wait_workers(2, 10, '%reading'), 2::bigint,
		  'two ranread workers are reading');
SELECT coalesce((SELECT substring(query FROM '^ranread batch (\d+):') FROM pg_stat_activity
				  WHERE backend_type = 'ranread worker' LIMIT 1), '0') AS b_bg \gset
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, 'tap_run')$$,
				 '55P03', format('ranread batch %s is already running', :b_bg),
				 'a run while another is running is refused with 55P03, naming the running batch');
SELECT throws_matching($$SELECT * FROM ranread_run(1, 10, 'tap_run')$$,
					   '^ranread batch \d+ is already running$',
					   'the refusal''s message matches ''ranread batch \d+ is already running''');
SELECT is(ranread_stop(), 2, 'ranread_stop() stops the 2 running workers');
CREATE TEMP TABLE tap_bg AS
SELECT x.* FROM dblink_get_result('bg') AS t(j text),
	json_to_record(j::json) AS x(batch bigint, status text, iops numeric, response_time_ms numeric, p99_ms numeric);
SELECT is(dblink_disconnect('bg'), 'OK', 'the second session disconnects');
SELECT is((SELECT count(*) FROM tap_bg), 1::bigint, 'the stopped run returned one row');
SELECT is((SELECT (batch, status) FROM tap_bg), (:b_bg::bigint, 'stopped'::text),
		  'the stopped run returned its batch with status stopped');
SELECT is((SELECT count(*) FROM ranread_results
			WHERE batch = :b_bg AND status = 'stopped' AND reads BETWEEN 1 AND 100000000),
		  2::bigint, 'both workers of the stopped batch recorded status stopped and 1..100000000 reads');
SELECT is((SELECT status FROM ranread_batches WHERE batch = :b_bg), 'stopped',
		  'the stopped batch''s ranread_batches row has status stopped');
SELECT results_eq(
	'SELECT * FROM tap_bg',
	format('SELECT batch, status, iops, response_time_ms, p99_ms FROM ranread_summary WHERE batch = %s', :b_bg),
	'what the stopped run returned is its batch''s row of ranread_summary, those columns');
SELECT is(pg_temp.tap_wait_workers(0, 5, '%'), 0::bigint, 'no worker is left after ranread_stop()');
SELECT is(ranread_stop(), 0, 'ranread_stop() with nothing running returns 0');

-- ---------------------------------------------------------------------------
-- A target dropped or emptied behind ranread's back
-- ---------------------------------------------------------------------------
SELECT pg_temp.tap_rows() AS rows_before \gset
-- (a target is a member of the extension: only its owner can release it)
ALTER EXTENSION ranread DROP TABLE tap_run;
DROP TABLE tap_run;
SELECT throws_ok($$SELECT * FROM ranread_run(2, 500, 'tap_run')$$,
				 '42P01', 'ranread target "tap_run" was dropped', 'a dropped target is refused');
SELECT matches(ranread_setup('16 MB', target => 'tap_run', log_level => 0),
			   '^ranread target "tap_run": 16 MB \(2048 blocks\) at ',
			   'ranread_setup replaces a dropped target');
TRUNCATE tap_run;
SELECT throws_ok($$SELECT * FROM ranread_run(2, 500, 'tap_run')$$,
				 '55000', 'ranread target "tap_run" is empty or incomplete', 'an emptied target is refused');
SELECT throws_like($$SELECT * FROM ranread_run(2, 500, 'tap_run')$$,
				   'ranread target "tap_run" is empty%',
				   'the refusal names the emptied target');
SELECT is(e.detail, 'It holds 0 of the 2048 blocks written by ranread_setup(); crash recovery empties unlogged tables, and so does TRUNCATE.',
		  'the refusal''s detail counts the blocks left')
  FROM pg_temp.tap_catch($$SELECT * FROM ranread_run(2, 500, 'tap_run')$$) e;
SELECT matches(e.hint, 'ranread_setup\(target => ''tap_run''\) again',
			   'the refusal''s hint says to run ranread_setup again')
  FROM pg_temp.tap_catch($$SELECT * FROM ranread_run(2, 500, 'tap_run')$$) e;
SELECT is(pg_temp.tap_rows(), :'rows_before', 'runs on a dropped or emptied target recorded nothing');
SELECT is(pg_temp.tap_wait_workers(0, 0, '%'), 0::bigint, 'runs on a dropped or emptied target started no worker');
SELECT matches(ranread_setup('16 MB', target => 'tap_run', log_level => 0),
			   '^ranread target "tap_run": 16 MB \(2048 blocks\) at ',
			   'ranread_setup replaces an emptied target');
SELECT is((SELECT blocks FROM ranread_targets WHERE target = 'tap_run'),
		  (SELECT pg_relation_size('tap_run') / 8192),
		  'the replaced target is registered with the blocks it holds');
SELECT batch AS b_last, status AS status_last FROM ranread_run(2, 500, 'tap_run') \gset
SELECT is(:'status_last'::text, 'completed', 'a run on the replaced target works');
SELECT is((SELECT reads FROM ranread_batches WHERE batch = :b_last), 1000::bigint,
		  'the run on the replaced target is recorded');

-- ---------------------------------------------------------------------------
-- Clean up
-- ---------------------------------------------------------------------------
SELECT is(ranread_drop('tap_run'), 'dropped ranread target "tap_run"', 'ranread_drop cleans up tap_run');
DROP TABLE tap_run_plain;
SELECT cmp_ok(ranread_reset(), '>', 0::bigint, 'ranread_reset cleans up the history');

SELECT * FROM finish();
