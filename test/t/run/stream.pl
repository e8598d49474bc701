# Read path 'stream': PostgreSQL 18's read_stream through io_method.
#
# Before 18 the mode is refused (0A000) before anything is recorded.  On 18,
# under each io_method, a stream at iodepth 32 reads physically (physical_pct
# >= 99 after the target was prewarmed into shared buffers: the leader
# evicts it; >= 95 under 'worker', whose I/O workers read without ranread's
# POSIX_FADV_RANDOM, so kernel readahead brings a few units in early), keeps more than one read in flight (Little's law), and records
# the server's I/O settings with effective_io_concurrency = iodepth; under
# 'worker' the I/O workers make its reads (their read(2) calls grow), and
# the batch leaves the worker's own byte count out; ranread_compare names
# the io_method that differs between two batches.  Without eviction the
# stream's buffer hits are counted as reads from memory.  Stopped or
# cancelled mid-stream, no buffer of the target stays pinned.  Bad input:
# an iodepth beyond io_max_concurrency, rate_iops, a tablespace that sets
# its own effective_io_concurrency.  pg_stat_io's count of the batch's reads
# (stat_io_reads) agrees with ranread's buffer misses for stream and buffer,
# and a parallel scan's reads meanwhile make the run WARN.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('stream');

if ($node->pg_version < 18)
{
	$node->safe_psql('postgres', q{SELECT ranread_setup('16 MB', log_level => 0)});
	my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
	is(sqlstate_of(shown($node, q{SELECT ranread_run(1, 10, mode => 'stream')}, verbose => 1)), '0A000',
		'mode stream before 18: feature not supported');
	like(shown($node, q{SELECT ranread_run(1, 10, mode => 'stream')}),
		qr/ERROR:  mode 'stream' needs PostgreSQL 18 or later\nDETAIL:  This server is PostgreSQL \d+/,
		'the refusal names the version it needs and the server\'s');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches,
		'and records nothing');
	done_testing();
	exit;
}

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_prewarm;
	CREATE EXTENSION pg_buffercache;
	SELECT ranread_setup('64 MB', log_level => 0);
});

# buffers of the target some backend still pins
sub pinned_buffers
{
	my ($target) = @_;
	$target //= 'ranread_target';
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM pg_buffercache
		WHERE relfilenode = pg_relation_filenode('$target') AND pinning_backends > 0});
}

foreach my $method ('worker', 'io_uring', 'sync')
{
	$node->safe_psql('postgres', "ALTER SYSTEM SET io_method = '$method'");
	$node->restart;
	is($node->safe_psql('postgres', 'SHOW io_method'), $method, "io_method = $method");

	# in shared buffers beforehand: the leader must evict it for the reads to be physical
	$node->safe_psql('postgres', q{SELECT pg_prewarm('ranread_target', 'buffer')});
	my $before = io_worker_reads($node);
	my $row = batch_of($node, q{SELECT batch FROM ranread_run(1, 3000, mode => 'stream', iodepth => 32)}, q{
		SELECT status, physical_pct >= (CASE io_method WHEN 'worker' THEN 95 ELSE 99 END), iodepth, effective_io_concurrency, io_method,
			   io_workers IS NOT NULL AND io_combine_limit > 0 AND io_max_concurrency >= 32,
			   kb_per_read IS NULL, reads, round(iops * response_time_ms / 1000)});
	my ($status, $physical, $depth, $eic, $io_method, $settings, $bytes_unknown, $reads, $in_flight) = split /\|/, $row;
	is($status, 'completed', "$method: a stream at iodepth 32 completes");
	is($physical, 't', "$method: its reads reached the device though the target was in shared buffers (physical_pct >= "
		  . ($method eq 'worker' ? 95 : 99) . ')');
	is("$depth $eic $io_method", "32 " . $node->safe_psql('postgres', 'SHOW effective_io_concurrency') . " $method",
		"$method: the batch records iodepth (the stream's look-ahead), the server's effective_io_concurrency and io_method");
	is($settings, 't', "$method: and the server's other I/O settings");
	# sync: the worker reads itself; worker: the I/O workers' bytes are counted;
	# io_uring: the kernel may read in threads of its own, uncounted
	is($bytes_unknown, $method eq 'io_uring' ? 't' : 'f',
		"$method: kb_per_read is " . ($method eq 'io_uring' ? 'unknown (the reads may run in other threads)'
			: $method eq 'sync' ? "the worker's own bytes" : "the I/O workers' bytes"));
	cmp_ok($in_flight, '>', 2, "$method: more than two reads in flight on average (Little's law: $in_flight)");
	if ($method eq 'worker')
	{
		cmp_ok(io_worker_reads($node) - $before, '>=', $reads * 0.9, "worker: the I/O workers made the stream's $reads reads");
	}
	is(pinned_buffers(), '0', "$method: no buffer of the target is left pinned");
}

# ranread_compare names the I/O settings that differ between batches from before and after a restart
my ($worker_batch, $uring_batch, $sync_batch) = map {
	$node->safe_psql('postgres', "SELECT min(batch) FROM ranread_batches WHERE io_method = '$_' AND mode = 'stream'")
} ('worker', 'io_uring', 'sync');
like($node->safe_psql('postgres', "SELECT string_agg(verdict, ' ') FROM ranread_compare($worker_batch, $uring_batch) WHERE measure = 'verdict'"),
	qr/^Not like for like: io_method worker vs io_uring\. /, 'ranread_compare: io_method worker vs io_uring is named');
unlike($node->safe_psql('postgres', "SELECT verdict FROM ranread_compare($sync_batch, $sync_batch) WHERE measure = 'verdict'"),
	qr/Not like for like/, 'and a batch against itself is like for like');

# io_method is sync now: without eviction the buffer hits are reads from memory
$node->safe_psql('postgres', q{SELECT pg_prewarm('ranread_target', 'buffer')});
is(batch_of($node, q{SELECT batch FROM ranread_run(1, 1000, mode => 'stream', iodepth => 8, evict => false)},
		q{SELECT physical_pct < 50 AND buffer_hits > 0}),
	't', 'evict => false: the stream\'s buffer hits count as reads from memory');

# the second proof: pg_stat_io's count of the background workers' reads during the batch
is(batch_of($node, q{SELECT batch FROM ranread_run(2, 1000, mode => 'stream', iodepth => 8)},
		q{SELECT stat_io_reads >= buffer_misses AND stat_io_reads <= buffer_misses * 1.05 + 32}),
	't', 'pg_stat_io counts the stream\'s reads (stat_io_reads within 5 % and 16 blocks a process of the misses)');
is(batch_of($node, q{SELECT batch FROM ranread_run(2, 1000, mode => 'buffer')},
		q{SELECT stat_io_reads >= buffer_misses AND stat_io_reads <= buffer_misses * 1.05 + 32}),
	't', 'and mode buffer\'s');
is(batch_of($node, q{SELECT batch FROM ranread_run(2, 1000, mode => 'smgr')}, q{SELECT stat_io_reads IS NULL}),
	't', 'mode smgr reads past shared buffers: no pg_stat_io count');

# parallel workers are background workers too: their reads during a run make the counts disagree
$node->safe_psql('postgres', q{CREATE TABLE scanned AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 100000) g});
# (more scans than the run lasts on any machine; cancelled once the run is done)
my $scans = join('', map { "SELECT pg_buffercache_evict_relation('scanned'); SELECT count(*) FROM scanned;" } 1 .. 1000);
my ($scanner) = start_psql($node, "SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; "
	  . "SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; $scans");
# the run starts once the scans read, not when psql may not have begun yet
ok(wait_until($node, q{SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'}),
	'the parallel scans are running');
like(shown($node, q{SELECT status FROM ranread_run(1, NULL, mode => 'stream', iodepth => 8, duration => '2 s', allow_rereads => true)}),
	qr/WARNING:  pg_stat_io and ranread disagree on the reads of batch \d+\nDETAIL:  pg_stat_io counted \d+ blocks read by background workers during the batch and ranread \d+ buffer misses/,
	'another background worker\'s reads during the run: the counts disagree and the run says so');
$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SET max_parallel_workers_per_gather%' AND pid <> pg_backend_pid()});
$scanner->finish;

# iodepth 1 is a stream too: one read in flight, and the next block waits in the stream
is(batch_of($node, q{SELECT batch FROM ranread_run(1, 500, mode => 'stream')},
		q{SELECT status || ' ' || (physical_pct >= 99) || ' ' || (iops * response_time_ms / 1000 < 3)}),
	'completed true true', 'iodepth 1: at most one read in flight and one asked for');

# stopped and cancelled mid-stream: the stream is drained and nothing stays pinned
$node->safe_psql('postgres', "ALTER SYSTEM SET io_method = 'worker'");
$node->restart;
# larger than shared_buffers, so that the stream keeps missing (and pinning) after its first pass
$node->safe_psql('postgres', q{SELECT ranread_setup('512 MB', target => 'stream_big', log_level => 0)});
foreach my $how ('stopped', 'cancelled')
{
	my ($h) = start_psql($node,
		q{SELECT ranread_run(2, NULL, 'stream_big', mode => 'stream', iodepth => 16, duration => '60 s', allow_rereads => true)});
	ok(wait_for_readers($node, 2), "$how: the stream's workers are reading");
	ok(wait_until($node, q{
		SELECT count(*) > 0 FROM pg_buffercache
		WHERE relfilenode = pg_relation_filenode('stream_big') AND pinning_backends > 0}),
		"$how: while it reads, its buffers are pinned");
	interrupt_run($node, $h, $how, 'SELECT ranread_run');
	ok(wait_for_no_workers($node),
		"$how: the workers end");
	is(pinned_buffers('stream_big'), '0', "$how: no buffer of the target is left pinned");
	is($node->safe_psql('postgres', 'SELECT status, reads > 0 FROM ranread_batches ORDER BY batch DESC LIMIT 1'),
		"$how|t", "$how: the batch records what it measured and how it ended");
}

# bad input, each refused before anything is recorded
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
my $max_io = $node->safe_psql('postgres', 'SHOW io_max_concurrency');
like(shown($node, "SELECT ranread_run(1, 10, mode => 'stream', iodepth => " . ($max_io + 1) . ")"),
	qr/ERROR:  iodepth \d+ is more than io_max_concurrency \($max_io\)/,
	'an iodepth beyond io_max_concurrency is refused');
like(shown($node, q{SELECT ranread_run(1, 10, mode => 'stream', iodepth => 1001)}),
	qr/ERROR:  iodepth 1001 is more than a read stream can look ahead \(1000\)/, 'an iodepth beyond effective_io_concurrency\'s range is refused');
like(shown($node, q{SELECT ranread_run(1, 10, mode => 'stream', iodepth => 32, block_size => 1048576)}),
	qr/ERROR:  iodepth 32 of 128-block reads needs more than the \d+ buffer pins a process may hold/,
	'iodepth units of block_size beyond the pin limit are refused');
is(sqlstate_of(shown($node, q{SELECT ranread_run(1, 10, mode => 'stream', rate_iops => 100)}, verbose => 1)), '22023',
	'rate_iops with a stream is refused');
is(sqlstate_of(shown($node, q{CALL ranread_sweep(mode => 'stream', iodepth => 1)}, verbose => 1)), '22023',
	'a sweep stepping a stream up to the default max_iodepth (1024) is refused up front');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'none of them recorded a batch');
my $dir = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql('postgres', qq{
	CREATE TABLESPACE own_eic LOCATION '$dir' WITH (effective_io_concurrency = 4);
	SELECT ranread_setup('16 MB', target => 'in_own_eic', tablespace => 'own_eic', log_level => 0);
});
like(shown($node, q{SELECT ranread_run(1, 10, 'in_own_eic', mode => 'stream', iodepth => 8)}),
	qr/ERROR:  tablespace "own_eic" sets its own effective_io_concurrency \(4\)/,
	'a tablespace that sets its own look-ahead is refused');
like(shown($node, q{SELECT ranread_run(1, 10, 'in_own_eic', mode => 'stream', iodepth => 4)}),
	qr/ERROR:  tablespace "own_eic" sets its own effective_io_concurrency \(4\)/,
	'also when its look-ahead equals iodepth (a series stepping iodepth would be refused further on)');
is($node->safe_psql('postgres', q{SELECT status FROM ranread_run(1, 10, 'in_own_eic', mode => 'direct')}),
	'completed', 'other modes read from it');

# a sweep stepping the stream's look-ahead, to max_iodepth: the rules that
# read measured figures are off or far away (scaling off, stop_latency_ms and
# the SLO at 1 s), so that it stops at max_iodepth whatever the machine's
# speed (with the defaults a busy machine stopped it at iodepth 4)
$node->safe_psql('postgres', q{CALL ranread_sweep(mode => 'stream', iodepth => 1, max_iodepth => 8, iterations => 500,
	min_scaling_pct => 0, stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000)});
is($node->safe_psql('postgres', q{
	SELECT string_agg(DISTINCT iodepth::text, ',' ORDER BY iodepth::text) FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_batches) AND mode = 'stream'}),
	'1,2,4,8', 'a sweep steps the stream\'s iodepth 1 to 8');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
