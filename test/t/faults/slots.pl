# Worker slots: exhausted by other background workers, and a second run
# while one is running.  Clear errors, no partial run, no leaked worker.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

# 4 slots: the logical replication launcher takes one, a parallel worker another
my $node = new_node('slots', max_worker_processes => 4);
$node->safe_psql('postgres', "SELECT ranread_setup('16 MB', log_level => 0)");
my $log_start = -s $node->logfile;

# force_parallel_mode is called debug_parallel_query since 16
my $force_parallel = $node->safe_psql('postgres', 'SHOW server_version_num') >= 160000
	? 'debug_parallel_query' : 'force_parallel_mode';
my ($hp, $outp, $errp) = start_psql($node, qq{
	SET $force_parallel = on; SET parallel_setup_cost = 0; SET max_parallel_workers_per_gather = 1;
	SELECT pg_sleep(5)});
ok(wait_until($node, "SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'a parallel worker holds one slot');

# 3 x 5000 reads of 2048 blocks re-read (allowed here, so with a warning): the slots come first
my ($ret, $out, $err) = $node->psql('postgres', 'SELECT ranread_run(3, 5000, allow_rereads => true)',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '53000', 'three workers with two free slots are refused (53000)');
like($err, qr/^psql:<stdin>:1: ERROR/, 'before any other message (no re-read warning first)');
like($err, qr/could not start 3 ranread workers\n.*Only 2 background worker slots are free \(max_worker_processes = 4\); nothing was started\.\n.*HINT:  Use processes => 2 or fewer, or set max_worker_processes to at least 5 and restart the server\./,
	'the error names the free slots, a call that fits and the max_worker_processes the run needs');
is(worker_count($node), 0, 'no ranread worker is left running');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_results'), '0', 'nothing was recorded');
is($node->safe_psql('postgres', 'SELECT status FROM ranread_run(2, 100)'), 'completed',
	'right after, a run that fits gets the slots back');
$hp->finish;

# The design card's call on a server with few slots and a small target: one
# refusal names both limits, its HINT a call that starts, and no refusal
# takes a batch number (1.3 refused twice and used up a number)
ok(wait_until($node, "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'the parallel worker has left');
my $drawn = $node->safe_psql('postgres', 'SELECT last_value || is_called::text FROM ranread_batch_seq');
($ret, $out, $err) = $node->psql('postgres', 'SELECT ranread_run(20, 10000)', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '22023', 're-reads and too few slots: one refusal (22023)');
like($err, qr/DETAIL:  .*re-read a unit.*Its 20 workers would also need more background worker slots than the 3 free \(max_worker_processes = 4\)\./,
	'its DETAIL names both limits');
my ($can_processes, $can_iterations) = $err =~ /HINT:  This server can start processes => (\d+) with iterations => (\d+) or fewer; for 20 processes set max_worker_processes to at least 21/;
ok(defined $can_iterations, 'its HINT proposes a call this server can start, and the setting 20 processes need') or diag($err);
is($node->safe_psql('postgres', 'SELECT last_value || is_called::text FROM ranread_batch_seq'), $drawn,
	'the refusals drew no batch number');
is($node->safe_psql('postgres', "SELECT status FROM ranread_run($can_processes, $can_iterations)"), 'completed',
	"the proposed call, ranread_run($can_processes, $can_iterations), starts and completes");

# A second run while one is running
my ($h, $o, $e) = start_psql($node, 'SELECT * FROM ranread_run(2, 1000000000, allow_rereads => true)');
ok(wait_for_readers($node, 2), 'a long run is reading');
my $batch = $node->safe_psql('postgres', 'SELECT last_value FROM ranread_batch_seq');
($ret, $out, $err) = $node->psql('postgres', 'SELECT ranread_run(1, 100)',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '55P03', 'a second run is refused (55P03)');
like($err, qr/ranread batch $batch is already running/, 'the error names the running batch');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '2', 'stop the first run');
$h->finish;
like($$o, qr/stopped/, 'the first run reports itself stopped');
is($node->safe_psql('postgres', 'SELECT status FROM ranread_run(1, 100)'), 'completed',
	'once it has ended, the next run starts');
# A stop that lands while the workers are still starting
($h, $o, $e) = start_psql($node, 'SELECT status FROM ranread_run(3, 1000000000, allow_rereads => true)');
ok(wait_until($node, sprintf(
	"SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND objsubid = %d AND granted",
	20018)), 'a run has started (its batch lock is held)');
cmp_ok($node->safe_psql('postgres', 'SELECT ranread_stop()'), '>=', 1, 'ranread_stop() signals its workers');
is(worker_count($node), '0', 'no worker is left when ranread_stop() returns');
$h->finish;
ok($$o =~ /stopped/ || $$e =~ /exited before the run started/,
	'the run is recorded as stopped, or ends before its first read with a clear error');

ok(log_is_clean($node, $log_start), 'no PANIC, crash or internal error in the server log');

$node->stop;
done_testing();
