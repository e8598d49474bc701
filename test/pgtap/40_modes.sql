-- 40_modes.sql: the read paths (smgr, direct, buffer), block_size, duration,
-- evict, and the proof of physical reads and device statistics that a run
-- records -- and how ranread_run refuses bad values of its new arguments.
--
-- Runs outside a transaction: workers record results in their own
-- transactions.  Uses its own targets tap_modes* and tablespace
-- tap_modes_tmpfs (under /dev/shm), and cleans up at the end.
-- error, not warning: small targets, re-reads and cached runs are warned
-- about; none of that belongs in TAP output (test/t/run/physical.pl checks it).
SET client_min_messages = error;

-- Leftovers of an aborted earlier run of this file, if any.
DO $$
DECLARE
	t name;
BEGIN
	FOREACH t IN ARRAY ARRAY['tap_modes', 'tap_modes_buf', 'tap_modes_tiny', 'tap_modes_tmpfs']::name[] LOOP
		IF EXISTS (SELECT 1 FROM ranread_targets WHERE target = t) THEN
			PERFORM ranread_drop(t);
		END IF;
	END LOOP;
	DROP TABLE IF EXISTS tap_modes_tiny;
END
$$;
DROP TABLESPACE IF EXISTS tap_modes_tmpfs;

\ir helpers.psql

SELECT plan(96);

-- ---------------------------------------------------------------------------
-- Targets for this file
-- ---------------------------------------------------------------------------
-- 64 MB = 8192 blocks: 2 x 150 reads re-read under 2 % of them, so a run
-- that evicted the target must fetch nearly every byte from storage.
SELECT matches(ranread_setup('64 MB', target => 'tap_modes', log_level => 0),
			   '^ranread target "tap_modes": 64 MB \(8192 blocks\) at ',
			   'ranread_setup makes target tap_modes (64 MB)');
-- 16 MB fits the default 128 MB of shared buffers, for a fully cached buffer run.
SELECT matches(ranread_setup('16 MB', target => 'tap_modes_buf', log_level => 0),
			   '^ranread target "tap_modes_buf": 16 MB \(2048 blocks\) at ',
			   'ranread_setup makes target tap_modes_buf (16 MB)');

-- ---------------------------------------------------------------------------
-- One sane run per mode: 2 x 150 reads of 8 kB on the evicted 64 MB target
-- (buffer mode too: none of its blocks is in shared buffers yet)
-- ---------------------------------------------------------------------------
-- (tap_runs: each run's whole row of ranread_summary, read in later statements:
-- ranread_run returns the figures that decide)
CREATE TEMP TABLE tap_runs_r AS
SELECT 1 AS pos, 'smgr'::text AS label, * FROM ranread_run(2, 150, 'tap_modes');
CREATE TEMP VIEW tap_runs AS SELECT r.pos, r.label, s.* FROM tap_runs_r r JOIN ranread_summary s USING (batch);
INSERT INTO tap_runs_r SELECT 2, 'direct', * FROM ranread_run(2, 150, 'tap_modes', mode => 'direct');
INSERT INTO tap_runs_r SELECT 3, 'buffer', * FROM ranread_run(2, 150, 'tap_modes', mode => 'buffer');

SELECT is((status, mode, block_size, processes, iterations),
		  ('completed'::text, label, 8192, 2, 150::bigint),
		  format('%s: ranread_run returns a completed run of mode %s, block_size 8192', label, label))
  FROM tap_runs ORDER BY pos;

SELECT is((b.reads, b.mode, b.block_size, b.processes, b.iterations, b.duration_s, b.evicted, b.status),
		  (300::bigint, r.label, 8192, 2, 150::bigint, NULL::float8, true, 'completed'::text),
		  format('%s: the batch row records reads = 2 x 150, mode, block_size, no duration, evicted, completed', r.label))
  FROM tap_runs r JOIN ranread_batches b USING (batch) ORDER BY r.pos;

SELECT is((SELECT (count(*), sum(w.reads), bool_and(w.reads = 150 AND w.mode = r.label AND w.block_size = 8192
													 AND w.iterations = 150 AND w.duration_s IS NULL
													 AND w.evicted AND w.status = 'completed'))
			 FROM ranread_results w WHERE w.batch = r.batch),
		  (2::bigint, 300::numeric, true),
		  format('%s: 2 worker rows, each 150 reads with mode, block_size, iterations, evicted, completed', r.label))
  FROM tap_runs r ORDER BY r.pos;

SELECT is(row_to_json(r)::jsonb - 'pos' - 'label', row_to_json(s)::jsonb,
		  format('%s: what ranread_run returns is the batch''s row of ranread_summary', r.label))
  FROM tap_runs r JOIN ranread_summary s USING (batch) ORDER BY r.pos;

SELECT ok(abs(b.iops - b.reads / b.wall_s) <= 1e-9 * b.iops
		  AND abs(b.mb_per_s - b.iops * 8192 / 1048576) <= 1e-9 * b.mb_per_s,
		  format('%s: iops = reads / wall_s and mb_per_s = iops * 8192 / 1048576 (%s IOPS, %s MB/s)',
				 r.label, round(b.iops::numeric), round(b.mb_per_s::numeric, 1)))
  FROM tap_runs r JOIN ranread_batches b USING (batch) ORDER BY r.pos;

SELECT ok(abs(b.kb_per_read - w.bytes / 1024.0 / b.reads) <= 1e-9 * greatest(b.kb_per_read, 1)
		  AND b.physical_pct BETWEEN 0 AND 100 AND w.bad_workers = 0,
		  format('%s: kb_per_read = bytes_physical / 1024 / reads, and physical_pct, a share of reads, is within 0..100 per worker and per batch (%s %%, %s kB)',
				 r.label, round(b.physical_pct::numeric, 1), round(b.kb_per_read::numeric, 1)))
  FROM tap_runs r JOIN ranread_batches b USING (batch)
  JOIN (SELECT batch, sum(bytes_physical) AS bytes,
			   count(*) FILTER (WHERE NOT physical_pct BETWEEN 0 AND 100 OR physical_pct IS NULL) AS bad_workers
		  FROM ranread_results GROUP BY batch) w USING (batch)
 ORDER BY r.pos;

-- O_DIRECT reads always reach the device, and the kernel counts them in
-- read_bytes; the other modes read an evicted target, with few re-reads.
SELECT ok(CASE r.label WHEN 'direct' THEN b.physical_pct BETWEEN 99 AND 101 ELSE b.physical_pct >= 80 END,
		  format('%s: physical_pct %s (got %s)', r.label,
				 CASE r.label WHEN 'direct' THEN 'is 100 +- 1' ELSE '>= 80 after eviction' END,
				 round(b.physical_pct::numeric, 2)))
  FROM tap_runs r JOIN ranread_batches b USING (batch) ORDER BY r.pos;

SELECT is((r.buffer_hits, b.buffer_hits, b.buffer_misses,
		   (SELECT count(*) FROM ranread_results w
			 WHERE w.batch = r.batch AND (w.buffer_hits IS NOT NULL OR w.buffer_misses IS NOT NULL))),
		  (NULL::bigint, NULL::bigint, NULL::bigint, 0::bigint),
		  format('%s: buffer_hits and buffer_misses are NULL in the result, the batch and the worker rows', r.label))
  FROM tap_runs r JOIN ranread_batches b USING (batch) WHERE r.label IN ('smgr', 'direct') ORDER BY r.pos;
SELECT is((r.buffer_hits, b.buffer_hits, b.buffer_misses, b.buffer_hits + b.buffer_misses, w.ok_workers),
		  (w.hits, w.hits, w.misses, b.reads, 2::bigint),
		  format('buffer: buffer hits + misses = reads, per worker and per batch (%s hits, %s misses)',
				 b.buffer_hits, b.buffer_misses))
  FROM tap_runs r JOIN ranread_batches b USING (batch)
  JOIN (SELECT batch, sum(buffer_hits)::bigint AS hits, sum(buffer_misses)::bigint AS misses,
			   count(*) FILTER (WHERE buffer_hits + buffer_misses = reads) AS ok_workers
		  FROM ranread_results GROUP BY batch) w USING (batch)
 WHERE r.label = 'buffer';
-- the second proof, from pg_stat_io (16 and later): the background workers'
-- reads during the batch, at least the misses (plus catalog reads at connection)
SELECT is(CASE WHEN current_setting('server_version_num')::int < 160000 THEN b.stat_io_reads IS NULL
			   ELSE b.stat_io_reads BETWEEN b.buffer_misses AND b.buffer_misses * 1.05 + 32 END, true,
		  format('buffer: pg_stat_io counts its reads, NULL before 16 (%s blocks, %s misses)',
				 b.stat_io_reads, b.buffer_misses))
  FROM tap_runs r JOIN ranread_batches b USING (batch) WHERE r.label = 'buffer';
SELECT is(b.stat_io_reads, NULL, 'smgr: no pg_stat_io count (it reads past shared buffers)')
  FROM tap_runs r JOIN ranread_batches b USING (batch) WHERE r.label = 'smgr';

-- ---------------------------------------------------------------------------
-- block_size 65536: a read is one unit of 8 blocks
-- ---------------------------------------------------------------------------
-- 2 x 30 reads over the 1024 units of 64 kB: under 3 % re-reads.
INSERT INTO tap_runs_r SELECT 4, 'direct 64 kB', * FROM ranread_run(2, 30, 'tap_modes', mode => 'direct', block_size => 65536);
INSERT INTO tap_runs_r SELECT 5, 'smgr 64 kB', * FROM ranread_run(2, 30, 'tap_modes', block_size => 65536);

SELECT is((r.status, r.mode, r.block_size, b.block_size, b.reads, (SELECT sum(reads) FROM ranread_results w WHERE w.batch = r.batch)),
		  ('completed'::text, split_part(r.label, ' ', 1), 65536, 65536, 60::bigint, 60::numeric),
		  format('%s: a completed run of block_size 65536 counts reads in units (2 x 30 = 60)', r.label))
  FROM tap_runs r JOIN ranread_batches b USING (batch) WHERE r.pos IN (4, 5) ORDER BY r.pos;
SELECT ok(abs(b.mb_per_s - b.iops * 65536 / 1048576) <= 1e-9 * b.mb_per_s,
		  format('%s: mb_per_s = iops * 65536 / 1048576 (%s IOPS, %s MB/s)',
				 r.label, round(b.iops::numeric), round(b.mb_per_s::numeric, 1)))
  FROM tap_runs r JOIN ranread_batches b USING (batch) WHERE r.pos IN (4, 5) ORDER BY r.pos;
SELECT is((SELECT count(*) FROM ranread_results w
			WHERE w.batch = r.batch AND abs(w.bytes_physical - w.reads * 65536) <= 0.01 * w.reads * 65536),
		  2::bigint,
		  'direct 64 kB: each worker fetched reads * 65536 bytes from storage (within 1 %)')
  FROM tap_runs r WHERE r.pos = 4;
SELECT cmp_ok((SELECT sum(bytes_physical) FROM ranread_results w WHERE w.batch = r.batch),
			  '>=', 0.8 * 60 * 65536,
			  'smgr 64 kB: at least 80 % of reads * 65536 bytes came from storage')
  FROM tap_runs r WHERE r.pos = 5;
-- smgr issues a unit as 8 consecutive smgrread() calls, as PostgreSQL 15
-- would; the kernel's readahead may fetch more, which kb_per_read shows and
-- the run points out in a NOTICE (test/t/run/physical.pl).
SELECT cmp_ok(b.kb_per_read, '>=', 0.8 * 64::float8,
			  'smgr 64 kB: kb_per_read counts readahead too, never much less than what was read')
  FROM ranread_batches b JOIN tap_runs r USING (batch) WHERE r.pos = 5;

-- Buffer mode reads a unit as block_size / 8192 buffers.
INSERT INTO tap_runs_r SELECT 6, 'buffer 64 kB', * FROM ranread_run(1, 20, 'tap_modes', mode => 'buffer', block_size => 65536);
SELECT is((r.status, b.reads, b.buffer_hits + b.buffer_misses),
		  ('completed'::text, 20::bigint, 160::bigint),
		  'buffer 64 kB: 20 reads are 20 x 8 = 160 buffer hits + misses')
  FROM tap_runs r JOIN ranread_batches b USING (batch) WHERE r.pos = 6;

-- ---------------------------------------------------------------------------
-- block_size larger than the target
-- ---------------------------------------------------------------------------
-- ranread_setup makes at least 8 MB, more than the largest block_size (1 MiB),
-- so register a 4-block table by hand as a target (a member of the extension,
-- as setup makes it).
CREATE UNLOGGED TABLE tap_modes_tiny (filler text);
ALTER TABLE tap_modes_tiny ALTER COLUMN filler SET STORAGE PLAIN;
INSERT INTO tap_modes_tiny SELECT repeat('x', 3000) FROM generate_series(1, 8);
INSERT INTO ranread_targets (target, relation, bytes, blocks, tablespace)
SELECT 'tap_modes_tiny', 'tap_modes_tiny'::regclass, pg_relation_size('tap_modes_tiny'),
	   pg_relation_size('tap_modes_tiny') / 8192, 'pg_default';
ALTER EXTENSION ranread ADD TABLE tap_modes_tiny;
SELECT is(pg_relation_size('tap_modes_tiny'), 32768::bigint, 'a target of 4 blocks (32 kB), registered by hand');
SELECT is(pg_temp.tap_refusal($$SELECT * FROM ranread_run(1, 3, 'tap_modes_tiny', block_size => 65536)$$),
		  '22023: block_size 65536 is larger than target "tap_modes_tiny"',
		  'block_size 65536 on a 32 kB target is refused with 22023, writing nothing');
SELECT is(pg_temp.tap_refusal($$SELECT * FROM ranread_run(1, 3, 'tap_modes_tiny', mode => 'direct', block_size => 40960)$$),
		  '22023: block_size 40960 is larger than target "tap_modes_tiny"',
		  'block_size 40960 (5 blocks) on a 4-block target is refused with 22023, writing nothing');
CREATE TEMP TABLE tap_tiny AS SELECT batch FROM ranread_run(1, 3, 'tap_modes_tiny', block_size => 32768, allow_rereads => true);
SELECT is((status, block_size, iterations), ('completed'::text, 32768, 3::bigint),
		  'block_size 32768, exactly the 4-block target, reads its one unit')
  FROM tap_tiny JOIN ranread_summary USING (batch);

-- ---------------------------------------------------------------------------
-- A time-based run: iterations NULL, duration 1 s
-- ---------------------------------------------------------------------------
SELECT clock_timestamp() AS t_timed \gset
CREATE TEMP TABLE tap_timed_run AS SELECT * FROM ranread_run(2, NULL, 'tap_modes', duration => '1 s', allow_rereads => true);
-- (the batch's whole row: ranread_run returns the figures that decide)
CREATE TEMP TABLE tap_timed AS SELECT s.* FROM tap_timed_run JOIN ranread_summary s USING (batch);
SELECT clock_timestamp() - :'t_timed'::timestamptz AS call_timed \gset
SELECT is((status, iterations), ('completed'::text, NULL::bigint),
		  'duration 1 s: ranread_run returns a completed run with iterations NULL')
  FROM tap_timed;
SELECT is((b.status, b.iterations, b.duration_s, b.reads > 0),
		  ('completed'::text, NULL::bigint, 1::float8, true),
		  format('duration 1 s: the batch row has iterations NULL, duration_s 1 and reads > 0 (%s)', b.reads))
  FROM tap_timed t JOIN ranread_batches b USING (batch);
SELECT ok(b.wall_s BETWEEN 0.9 AND 2, format('duration 1 s: the batch''s wall_s is between 0.9 and 2 (%s)', b.wall_s))
  FROM tap_timed t JOIN ranread_batches b USING (batch);
SELECT is((SELECT (count(*), bool_and(w.iterations IS NULL AND w.duration_s = 1 AND w.reads > 0
									  AND w.elapsed_s BETWEEN 0.9 AND 2 AND w.status = 'completed'),
				   sum(w.reads)::bigint)
			 FROM ranread_results w WHERE w.batch = t.batch),
		  (2::bigint, true, b.reads),
		  'duration 1 s: 2 worker rows with iterations NULL, duration_s 1, reads > 0, elapsed_s 0.9..2, adding up to the batch')
  FROM tap_timed t JOIN ranread_batches b USING (batch);
SELECT ok(:'call_timed'::interval BETWEEN interval '0.9 s' AND interval '3 s',
		  format('duration 1 s: the call returned after %s', :'call_timed'));

-- iterations and duration: whichever comes first.
SELECT clock_timestamp() AS t_both \gset
CREATE TEMP TABLE tap_both AS SELECT 1 AS pos, * FROM ranread_run(2, 100, 'tap_modes', duration => '60 s');
SELECT clock_timestamp() - :'t_both'::timestamptz AS call_both \gset
INSERT INTO tap_both SELECT 2, * FROM ranread_run(2, 100000000, 'tap_modes', duration => '0.5 s', allow_rereads => true);
SELECT is((b.status, b.iterations, b.duration_s, b.reads,
		   (SELECT count(*) FROM ranread_results w WHERE w.batch = b.batch AND w.reads = 100)),
		  ('completed'::text, 100::bigint, 60::float8, 200::bigint, 2::bigint),
		  'iterations 100, duration 60 s: each worker stops after its 100 reads, recording both limits')
  FROM tap_both t JOIN ranread_batches b USING (batch) WHERE t.pos = 1;
SELECT ok(b.wall_s < 10 AND :'call_both'::interval < interval '10 s',
		  format('iterations 100, duration 60 s: ends well before 60 s (wall_s %s, call %s)', b.wall_s, :'call_both'))
  FROM tap_both t JOIN ranread_batches b USING (batch) WHERE t.pos = 1;
SELECT is((b.status, b.iterations, b.duration_s,
		   (SELECT count(*) FROM ranread_results w WHERE w.batch = b.batch AND w.reads BETWEEN 1 AND 99999999)),
		  ('completed'::text, 100000000::bigint, 0.5::float8, 2::bigint),
		  'iterations 100000000, duration 0.5 s: each worker stops at the deadline, short of its iterations')
  FROM tap_both t JOIN ranread_batches b USING (batch) WHERE t.pos = 2;
SELECT ok(b.wall_s BETWEEN 0.45 AND 1.5,
		  format('iterations 100000000, duration 0.5 s: wall_s is between 0.45 and 1.5 (%s)', b.wall_s))
  FROM tap_both t JOIN ranread_batches b USING (batch) WHERE t.pos = 2;

-- ---------------------------------------------------------------------------
-- Proof of physical reads: the OS page cache
-- ---------------------------------------------------------------------------
SELECT is(pg_prewarm('tap_modes', 'read'), 8192::bigint, 'pg_prewarm reads all of tap_modes into the OS page cache');
CREATE TEMP TABLE tap_cache AS
SELECT 1 AS pos, * FROM ranread_run(2, 150, 'tap_modes', evict => false);
SELECT is(pg_prewarm('tap_modes', 'read'), 8192::bigint, 'pg_prewarm reads it into the OS page cache again');
INSERT INTO tap_cache SELECT 2, * FROM ranread_run(2, 150, 'tap_modes');
SELECT is((b.status, b.evicted, (SELECT bool_and(NOT evicted) FROM ranread_results w WHERE w.batch = b.batch)),
		  ('completed'::text, false, true),
		  'evict => false is recorded as evicted = false in the batch and worker rows')
  FROM tap_cache c JOIN ranread_batches b USING (batch) WHERE c.pos = 1;
SELECT cmp_ok(s.physical_pct, '<', 50::numeric,
			  'prewarmed, evict => false: physical_pct < 50, the reads were answered from the page cache')
  FROM tap_cache c JOIN ranread_summary s USING (batch) WHERE c.pos = 1;
SELECT cmp_ok(s.physical_pct, '>=', 80::numeric,
			  'prewarmed, evicted (the default): physical_pct >= 80, the reads reached storage')
  FROM tap_cache c JOIN ranread_summary s USING (batch) WHERE c.pos = 2;

-- ---------------------------------------------------------------------------
-- Buffer mode on a target held in shared buffers
-- ---------------------------------------------------------------------------
SELECT is(pg_prewarm('tap_modes_buf', 'buffer'), 2048::bigint, 'pg_prewarm loads all of tap_modes_buf into shared buffers');
CREATE TEMP TABLE tap_buf_run AS SELECT * FROM ranread_run(2, 500, 'tap_modes_buf', mode => 'buffer');
-- (the batch's whole row: ranread_run returns the figures that decide)
CREATE TEMP TABLE tap_buf AS SELECT s.* FROM tap_buf_run JOIN ranread_summary s USING (batch);
SELECT is((status, buffer_hits), ('completed'::text, 1000::bigint),
		  'buffer mode on a target in shared buffers returns buffer_hits = reads = 1000')
  FROM tap_buf;
SELECT is((b.reads, b.buffer_hits, b.buffer_misses), (1000::bigint, 1000::bigint, 0::bigint),
		  'its batch row has buffer_hits = reads and buffer_misses = 0')
  FROM tap_buf r JOIN ranread_batches b USING (batch);
SELECT is((SELECT count(*) FROM ranread_results w
			WHERE w.batch = r.batch AND w.buffer_hits = w.reads AND w.buffer_misses = 0 AND w.reads = 500),
		  2::bigint, 'each worker row has buffer_hits = reads = 500 and buffer_misses = 0')
  FROM tap_buf r;
SELECT cmp_ok(b.physical_pct, '<', 5::float8, 'buffer hits fetch nothing from storage: physical_pct < 5')
  FROM tap_buf r JOIN ranread_batches b USING (batch);

-- ---------------------------------------------------------------------------
-- A file system on no block device: tmpfs
-- ---------------------------------------------------------------------------
SELECT lives_ok($$COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf /dev/shm/ranread_tap_tmpfs && mkdir /dev/shm/ranread_tap_tmpfs'$$,
				'an empty directory on tmpfs for a tablespace');
CREATE TABLESPACE tap_modes_tmpfs LOCATION '/dev/shm/ranread_tap_tmpfs';
SELECT matches(ranread_setup('8 MB', 'tap_modes_tmpfs', 'tap_modes_tmpfs', 0),
			   '^ranread target "tap_modes_tmpfs": 8 MB \(1024 blocks\) at .*/pg_tblspc/',
			   'ranread_setup makes target tap_modes_tmpfs in the tmpfs tablespace');

-- tmpfs keeps files in memory: no read there can reach a device.  (Linux
-- accepts O_DIRECT on tmpfs since 6.6, and serves such reads from memory.)
SELECT coalesce(max(batch), 0) AS b_before_tmpfs FROM ranread_batches \gset
CREATE TEMP TABLE tap_tmpfs_direct AS
SELECT * FROM pg_temp.tap_catch($$SELECT * FROM ranread_run(2, 100, 'tap_modes_tmpfs', mode => 'direct')$$);
SELECT is(regexp_replace(state || ': ' || message, '"[^"]*pg_tblspc/[^"]*"', '"<path>"'),
		  '0A000: the file system holding "<path>" does not support direct I/O',
		  'direct mode on tmpfs is refused with 0A000, naming the segment file in the tablespace')
  FROM tap_tmpfs_direct;
SELECT matches(hint, '^Use mode ''smgr''', 'the refusal''s hint names mode ''smgr''') FROM tap_tmpfs_direct;
SELECT is((SELECT count(*) FROM ranread_results WHERE batch > :b_before_tmpfs)
		  + (SELECT count(*) FROM ranread_batches WHERE batch > :b_before_tmpfs),
		  0::bigint, 'the refused direct run recorded nothing');
SELECT is(pg_temp.tap_wait_workers(0, 0), 0::bigint, 'the refused direct run left no worker');
SELECT is(pg_temp.tap_run_elsewhere('tap_modes_tmpfs'), 'completed',
		  'after the refusal another session can run: the run lock was released');

CREATE TEMP TABLE tap_tmpfs_run AS SELECT * FROM ranread_run(2, 100, 'tap_modes_tmpfs');
-- (the batch's whole row: ranread_run returns the figures that decide)
CREATE TEMP TABLE tap_tmpfs AS SELECT s.* FROM tap_tmpfs_run JOIN ranread_summary s USING (batch);
SELECT is((status, mode, device_util_pct), ('completed'::text, 'smgr'::text, NULL::numeric),
		  'smgr mode on tmpfs, after the refusal, completes and returns device_util_pct NULL')
  FROM tap_tmpfs;
SELECT is((b.device, b.device_reads_per_s, b.device_read_wait_ms, b.device_util_pct),
		  (NULL::text, NULL::float8, NULL::float8, NULL::float8),
		  'smgr mode on tmpfs records device and every device column NULL')
  FROM tap_tmpfs r JOIN ranread_batches b USING (batch);
SELECT cmp_ok(b.physical_pct, '<', 5::float8, 'smgr mode on tmpfs fetches nothing from storage: physical_pct < 5')
  FROM tap_tmpfs r JOIN ranread_batches b USING (batch);

-- ---------------------------------------------------------------------------
-- Shares of slow reads, device statistics and the summary, for every batch
-- of this file
-- ---------------------------------------------------------------------------
CREATE TEMP VIEW tap_batches AS
SELECT * FROM ranread_batches
 WHERE target IN ('tap_modes', 'tap_modes_buf', 'tap_modes_tiny', 'tap_modes_tmpfs');

SELECT is((SELECT count(*) FROM tap_batches), (SELECT count(*) FROM tap_batches WHERE reads > 0),
		  'every batch of this file read something');
SELECT is((SELECT string_agg(format('batch %s: %s >= %s >= %s', batch, pct_over_2ms, pct_over_5ms, pct_over_10ms), '; ')
			 FROM tap_batches
			WHERE NOT (0 <= pct_over_10ms AND pct_over_10ms <= pct_over_5ms AND pct_over_5ms <= pct_over_2ms
					   AND pct_over_2ms <= 100)
			   OR pct_over_2ms IS NULL),
		  NULL, 'every batch has 0 <= pct_over_10ms <= pct_over_5ms <= pct_over_2ms <= 100');
SELECT is((SELECT string_agg(format('batch %s: pct_over_2ms %s, max_ms %s', batch, pct_over_2ms, max_ms), '; ')
			 FROM tap_batches WHERE pct_over_2ms > 0 AND max_ms < 1.9),
		  NULL, 'no batch counts reads over 2 ms unless one took that long (max_ms)');

SELECT is((SELECT string_agg(format('batch %s: %s, %s reads/s, %s ms, %s %%', batch, device,
									device_reads_per_s, device_read_wait_ms, device_util_pct), '; ')
			 FROM tap_batches
			WHERE NOT ((device IS NULL AND device_reads_per_s IS NULL AND device_read_wait_ms IS NULL
						AND device_util_pct IS NULL)
					   OR (device <> '' AND device_reads_per_s >= 0 AND device_read_wait_ms >= 0
						   AND device_util_pct BETWEEN 0 AND 100))),
		  NULL,
		  'every batch has its device columns all NULL, or reads/s >= 0, read wait >= 0 and utilisation 0..100');
SELECT is((SELECT count(DISTINCT coalesce(device, '(none)')) FROM tap_batches
			WHERE target IN ('tap_modes', 'tap_modes_buf', 'tap_modes_tiny')),
		  1::bigint, 'the batches on the default tablespace agree on its device (or all have none)');
SELECT b.device IS NOT NULL AS has_device, coalesce(b.device, '') AS default_device
  FROM ranread_batches b JOIN tap_runs r USING (batch) WHERE r.label = 'direct' \gset
\if :has_device
SELECT ok(EXISTS (SELECT 1 FROM regexp_split_to_table(pg_read_file('/proc/diskstats'), E'\n') AS l(line)
				   WHERE split_part(regexp_replace(btrim(line), '\s+', ' ', 'g'), ' ', 3) = :'default_device'),
		  format('the default tablespace''s device %s is a device of /proc/diskstats', :'default_device'));
SELECT cmp_ok(b.device_reads_per_s, '>', 0::float8,
			  format('the device %s saw reads during the direct run', b.device))
  FROM ranread_batches b JOIN tap_runs r USING (batch) WHERE r.label = 'direct';
\else
SELECT skip('the default tablespace is not on a block device in /proc/diskstats', 2);
\endif
SELECT is((SELECT count(*) FROM tap_batches b JOIN ranread_summary s USING (batch)
			WHERE (s.mode, s.block_size, s.evicted, s.duration_s, s.buffer_hits, s.buffer_misses, s.device,
				   s.physical_pct, s.device_util_pct)
				  IS NOT DISTINCT FROM
				  (b.mode, b.block_size, b.evicted, b.duration_s, b.buffer_hits, b.buffer_misses, b.device,
				   round(b.physical_pct::numeric, 1), round(b.device_util_pct::numeric, 1))),
		  (SELECT count(*) FROM tap_batches),
		  'ranread_summary shows each batch''s mode, block_size, evicted, duration, buffer and device columns');

-- ---------------------------------------------------------------------------
-- Bad values of the new arguments: the right SQLSTATE, nothing written, no worker
-- ---------------------------------------------------------------------------
SELECT is(pg_temp.tap_refusal(sql), want, descr)
  FROM (VALUES
	(1, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', mode => 'bogus')$$,
	 '22023: unknown ranread mode "bogus"', 'mode ''bogus'' is refused with 22023'),
	(2, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', mode => NULL)$$,
	 '22004: processes, target, mode, block_size and evict must not be null', 'mode NULL is refused with 22004'),
	(3, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', block_size => 4096)$$,
	 '22023: block_size must be a multiple of 8192 between 8192 and 1048576 bytes', 'block_size 4096 is refused with 22023'),
	(4, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', block_size => 12000)$$,
	 '22023: block_size must be a multiple of 8192 between 8192 and 1048576 bytes', 'block_size 12000 is refused with 22023'),
	(5, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', block_size => 2097152)$$,
	 '22023: block_size must be a multiple of 8192 between 8192 and 1048576 bytes', 'block_size 2097152 is refused with 22023'),
	(6, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', block_size => 0)$$,
	 '22023: block_size must be a multiple of 8192 between 8192 and 1048576 bytes', 'block_size 0 is refused with 22023'),
	(7, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', block_size => -8192)$$,
	 '22023: block_size must be a multiple of 8192 between 8192 and 1048576 bytes', 'block_size -8192 is refused with 22023'),
	(8, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', block_size => NULL)$$,
	 '22004: processes, target, mode, block_size and evict must not be null', 'block_size NULL is refused with 22004'),
	(9, $$SELECT * FROM ranread_run(2, NULL, 'tap_modes', duration => '-1 s')$$,
	 '22023: duration must be positive and at most 7 days', 'duration ''-1 s'' is refused with 22023'),
	(10, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', duration => '0 s')$$,
	 '22023: duration must be positive and at most 7 days', 'duration ''0 s'' is refused with 22023'),
	(11, $$SELECT * FROM ranread_run(2, NULL, 'tap_modes', duration => NULL)$$,
	 '22004: iterations and duration must not both be null', 'iterations NULL and duration NULL is refused with 22004'),
	(12, $$SELECT * FROM ranread_run(2, 0, 'tap_modes', duration => '1 s')$$,
	 '22023: iterations must be at least 1', 'iterations 0 is refused with 22023 even with a duration'),
	(13, $$SELECT * FROM ranread_run(2, 10, 'tap_modes', evict => NULL)$$,
	 '22004: processes, target, mode, block_size and evict must not be null', 'evict NULL is refused with 22004')
  ) AS t(n, sql, want, descr)
 ORDER BY n;

-- Durations beyond 7 days are refused rather than overflowing nanoseconds
-- (2^64 ns + 384 ns once ran for 384 ns and reported "completed").
SET statement_timeout = '5s';
SELECT matches(pg_temp.tap_refusal($$SELECT * FROM ranread_run(1, NULL, 'tap_modes', duration => '18446744073709552 microseconds')$$),
			   '^22023',
			   'a duration longer than 7 days (here about 584 years) is refused');
SELECT matches(pg_temp.tap_refusal($$SELECT * FROM ranread_run(1, NULL, 'tap_modes', duration => '300000 years')$$),
			   '^22023',
			   'a duration whose months overflow microseconds is refused too');
RESET statement_timeout;
SELECT is(pg_temp.tap_wait_workers(0, 5), 0::bigint, 'no worker is left of this file''s runs');

-- ---------------------------------------------------------------------------
-- Clean up
-- ---------------------------------------------------------------------------
SELECT is(ARRAY[ranread_drop('tap_modes'), ranread_drop('tap_modes_buf'), ranread_drop('tap_modes_tiny'),
				ranread_drop('tap_modes_tmpfs')],
		  ARRAY['dropped ranread target "tap_modes"', 'dropped ranread target "tap_modes_buf"',
				'dropped ranread target "tap_modes_tiny"', 'dropped ranread target "tap_modes_tmpfs"'],
		  'ranread_drop cleans up the targets of this file');
DROP TABLESPACE tap_modes_tmpfs;
SELECT lives_ok($$COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf /dev/shm/ranread_tap_tmpfs'$$, 'remove the tmpfs directory');
SELECT cmp_ok(ranread_reset(), '>', 0::bigint, 'ranread_reset cleans up the history');

SELECT * FROM finish();
