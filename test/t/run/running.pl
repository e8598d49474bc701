# ranread_running(): another session reads a running batch's live state
# from the run's shared memory; nothing when no batch runs.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('running');
$node->safe_psql('postgres', q{
	SELECT ranread_setup('16 MB', target => 'live', log_level => 0);
	CREATE ROLE nobody LOGIN;
});

is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_running()'), '0', 'no rows while nothing runs');

# 12 s: the checks below, a second apart, take about 1.5 s after the workers
# read, more on a busy machine's CPUs; the run must outlast them (4 s did,
# by a margin of 2 s only)
my ($h, $out, $err) = start_psql($node,
	"SELECT status FROM ranread_run(3, NULL, 'live', mode => 'smgr', duration => '12s', allow_rereads => true)");
ok(wait_until($node, "SELECT count(*) = 3 AND min(reads) > 0 FROM ranread_running() WHERE state = 'reading'"),
	'three workers are seen reading, each with reads done');
my $row = $node->safe_psql('postgres', q{
	SELECT batch = (SELECT last_value FROM ranread_batch_seq),
		   leader_pid = (SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT status FROM ranread_run(3%'),
		   target, mode, processes, count(DISTINCT pid), target_reads IS NULL,
		   bool_and(elapsed_s > 0 AND time_left_s >= 0 AND time_left_s < 12 AND iops > 0 AND mean_ms > 0 AND p99_ms > 0)
	FROM ranread_running() WHERE worker IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 7});
is($row, 't|t|live|smgr|3|3|t|t',
	'batch, leader, target, mode and processes are the run\'s; each worker has its pid, elapsed time, time left, IOPS, mean and p99');
is($node->safe_psql('postgres', q{
	WITH r AS (SELECT * FROM ranread_running())
	SELECT t.state, t.pid = t.leader_pid, t.reads = (SELECT sum(reads) FROM r WHERE worker IS NOT NULL),
		   t.elapsed_s = (SELECT max(elapsed_s) FROM r WHERE worker IS NOT NULL),
		   t.iops > 0 AND t.mean_ms > 0 AND t.p99_ms > 0 AND t.time_left_s < 12, t.sweep IS NULL, t.iodepth
	FROM r t WHERE t.worker IS NULL}), '3 of 3 reading|t|t|t|t|t|1',
	'one more row, worker NULL, totals the batch: the leader\'s pid, all reads, the longest elapsed time, IOPS and latencies of all reads');
my $first = $node->safe_psql('postgres', 'SELECT reads FROM ranread_running() WHERE worker IS NULL');
sleep 1;
cmp_ok($node->safe_psql('postgres', 'SELECT reads FROM ranread_running() WHERE worker IS NULL'), '>', $first,
	'the reads done grow while the run runs');
my ($ret, $o, $e) = $node->psql('postgres', 'SET ROLE nobody; SELECT * FROM ranread_running()');
like($e, qr/permission denied for function ranread_running/, 'PUBLIC may not call it');
$h->finish;
like($$out, qr/completed/, 'the run completes');
my $recorded = $node->safe_psql('postgres', 'SELECT reads FROM ranread_batches ORDER BY batch DESC LIMIT 1');
cmp_ok($recorded, '>=', $first, 'the batch recorded at least the reads seen during the run');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_running()'), '0', 'no rows once it has ended');

# ranread_progress shows a setup as it writes, from another session
my ($sh, $sout, $serr) = start_psql($node, "SELECT ranread_setup('2 GB', target => 'big', log_level => 0)");
ok(wait_until($node, q{
	SELECT state = 'writing' AND progress ~ '^big: [1-9][0-9]* of 2048 MB$'
		   AND substring(progress FROM ': ([0-9]+) of')::int < 2048 AND time_left_s > 0
	FROM ranread_progress WHERE activity = 'setup'}),
	'ranread_progress shows a setup writing: its target, MB written of the total and the time left');
ok(wait_until($node, q{
	SELECT bytes_written > 0 AND bytes_written < bytes_total AND bytes_total = 2147483648 AND pid > 0 AND mb_per_s > 0
	FROM ranread_setup_running() WHERE target = 'big'}),
	'ranread_setup_running() has its figures as numbers');
$sh->finish;
like($$sout, qr/ranread target "big": 2048 MB/, 'the setup completes');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_progress'), '0', 'no rows once it has ended');
($ret, $o, $e) = $node->psql('postgres', 'SET ROLE nobody; SELECT * FROM ranread_setup_running()');
like($e, qr/permission denied for function ranread_setup_running/, 'PUBLIC may not call ranread_setup_running');
$node->safe_psql('postgres', "SELECT ranread_drop('big')");

# ranread_run returns the batch's row itself, read with a fresh snapshot:
# also under REPEATABLE READ, whose snapshot predates the worker's commit
is($node->safe_psql('postgres', q{BEGIN ISOLATION LEVEL REPEATABLE READ;
	SELECT count(*) FROM ranread_batches;
	SELECT r.batch = s.batch AND r.iops = s.iops FROM ranread_run(1, 10, 'live') r, ranread_summary s WHERE s.batch = r.batch;
	SELECT status FROM ranread_run(1, 10, 'live');
	COMMIT;}), "1\ncompleted",
	'under REPEATABLE READ ranread_run still returns its batch\'s row (while the statement\'s own snapshot cannot see it)');

# a role's own advisory locks cannot pose as a run's shared memory
my ($ah) = start_psql($node, 'SELECT pg_advisory_lock(1381125682, 1), pg_advisory_lock(1381125683, 1); SELECT pg_sleep(30);');
ok(wait_until($node, "SELECT count(*) = 2 FROM pg_locks WHERE locktype = 'advisory' AND classid IN (1381125682, 1381125683) AND granted"),
	'a session holds advisory locks with ranread\'s keys in its own database');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_running()'), '0', 'ranread_running() ignores them');
$node->safe_psql('postgres', "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_advisory_lock(1381125682%' AND pid <> pg_backend_pid()");
$ah->finish;

done_testing();
