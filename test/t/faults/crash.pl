# Crashes: SIGKILL of one worker mid-run (the postmaster restarts every
# backend), and an immediate server restart during ranread_setup.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('crash', restart_after_crash => 'on');
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', log_level => 0)");
$node->safe_psql('postgres', 'SELECT ranread_run(2, 200)');
my $history = $node->safe_psql('postgres',
	'SELECT count(*), sum(reads) FROM ranread_results');

# SIGKILL one worker in the middle of a run
my ($h, $out, $err) = start_psql($node, 'SELECT * FROM ranread_run(2, 1000000000, allow_rereads => true)');
ok(wait_for_readers($node, 2), 'two workers are reading');
my $victim = $node->safe_psql('postgres',
	"SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker' LIMIT 1");
kill 'KILL', $victim;
$h->finish;
like($$err, qr/terminating connection because of crash of another server process|server closed the connection unexpectedly/,
	'the caller gets a clear error');
ok(wait_until($node, 'SELECT true'), 'the server recovers');
is($node->safe_psql('postgres', 'SELECT count(*), sum(reads) FROM ranread_results'),
	$history, 'committed history is intact after recovery');
is(worker_count($node), 0, 'no ranread worker survives the crash');

my ($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT ranread_run(2, 100)',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($stderr), '55000', 'a run on the reset target is refused (55000)');
like($stderr, qr/ranread target "ranread_target" is empty or incomplete.*\n.*\n.*HINT:  Run ranread_setup\(target => 'ranread_target'\) again: it replaces the target\./,
	'the message says the target was emptied and to run ranread_setup again');
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', log_level => 0)");
is($node->safe_psql('postgres', 'SELECT status FROM ranread_run(2, 100)'), 'completed',
	'a new setup and run work');

# Immediate restart in the middle of ranread_setup
($h, $out, $err) = start_psql($node, "SELECT ranread_setup('4 GB', target => 'crash_setup', log_level => 0)");
ok(wait_until($node, "SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%crash_setup%' AND pid <> pg_backend_pid()"),
	'setup is running');
sleep 1;
$node->stop('immediate');
$h->finish;
$node->start;
is($node->safe_psql('postgres',
	"SELECT (SELECT count(*) FROM ranread_targets WHERE target = 'crash_setup') + (SELECT count(*) FROM pg_class WHERE relname = 'crash_setup')"),
	'0', 'no catalog row or relation is left by the interrupted setup');
is(orphan_bytes($node), '0', 'no data is left in orphaned relation files (unlogged reset emptied them)');
($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT ranread_run(1, 50)',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($stderr), '55000', 'the restart emptied the existing unlogged target, and a run says so');
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', log_level => 0)");
is($node->safe_psql('postgres', 'SELECT status FROM ranread_run(1, 50)'), 'completed',
	'after a new setup, runs work again');

$node->stop;
done_testing();
