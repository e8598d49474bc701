# The extension in several databases of one cluster.  Each database has its
# own sweep and batch numbers and sees only its own sweeps and batches
# (ranread_sweeps, ranread_progress, ranread_running()), while one run at a
# time per cluster still holds: a run or a sweep in one database is refused
# with a message naming the other database, and ranread_stop() still stops
# the other database's run.  Then the same between a database and its
# pg_dump / pg_restore copy, whose numbers are exactly the same; and sweep
# and batch numbers of 2^32 and more.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use File::Temp qw(tempdir);
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('databases');
$node->safe_psql('postgres', 'CREATE DATABASE dbb');
$node->safe_psql('dbb', 'CREATE EXTENSION ranread');
$node->safe_psql($_, "SELECT ranread_setup('64 MB', target => 't', log_level => 0)") for ('postgres', 'dbb');
my $log_start = -s $node->logfile;

my $long_sweep = "CALL ranread_sweep(1, max_processes => 1, duration => '10 min', mode => 'direct', target => 't')";

sub status_of
{
	my ($db, $sweep) = @_;
	return $node->safe_psql($db, "SELECT status FROM ranread_sweeps WHERE sweep = $sweep");
}

sub statuses
{
	my ($db) = @_;
	return $node->safe_psql($db, q{SELECT string_agg(sweep || ':' || status, ' ' ORDER BY sweep) FROM ranread_sweeps});
}

# Wait until the workers of an ended run have exited (a new run waits 2 s
# for them at most).
sub workers_gone
{
	my ($what) = @_;
	ok(wait_for_no_workers($node),
		"$what: its worker exits");
	return;
}

# Start the long sweep in $db and wait until it reads (seen in
# pg_stat_activity, which every database shares).
sub start_long_sweep
{
	my ($db) = @_;
	my @started = start_psql($node, $long_sweep, $db);
	ok(wait_for_readers($node, 1), "$db: a long sweep reads");
	return @started;
}

# The checks made in $db while database $other runs its sweep $sweep
# in batch $batch, while $db's own sweep $sweep is not running; $db's runs
# would read its target $target.
sub check_while_other_runs
{
	my ($db, $other, $sweep, $batch, $expected_status, $target) = @_;

	is(status_of($db, $sweep), $expected_status,
		"$db: its own sweep $sweep stays $expected_status while $other runs its sweep $sweep");
	is($node->safe_psql($db, 'SELECT count(*) FROM ranread_progress'), '0',
		"$db: ranread_progress shows nothing of $other\'s batch");
	is($node->safe_psql($db, 'SELECT count(*) FROM ranread_running()'), '0',
		"$db: ranread_running() shows nothing of $other\'s batch");
	unlike($node->safe_psql($db, "SELECT ranread_sweep_verdict($sweep)"), qr/It is running/,
		"$db: the verdict of its sweep $sweep does not call it running");

	my ($ret, $out, $err) = $node->psql($db, "SELECT status FROM ranread_run(1, 100, '$target')",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	is(sqlstate_of($err), '55P03', "$db: a run is refused while $other runs (55P03)");
	like($err, qr/ranread batch $batch of database "$other" is already running\nDETAIL:  Only one run at a time can measure the storage of the cluster; batch $batch of database "$other" was started by process \d+\./,
		"$db: the refusal names $other\'s batch and database");
	($ret, $out, $err) = $node->psql($db, "CALL ranread_sweep(1, max_processes => 1, iterations => 100, target => '$target')",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($err, qr/55P03: ranread batch $batch of database "$other" is already running/,
		"$db: a sweep is refused likewise");
	return;
}

# database postgres: sweep 1 cancelled, sweep 2 ended by a terminated session
my ($h, $out, $err) = start_long_sweep('postgres');
interrupt_run($node, $h, 'cancelled', 'CALL ranread_sweep(1, max_processes => 1, duration');
workers_gone('the cancelled sweep');
($h, $out, $err) = start_long_sweep('postgres');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	WHERE query LIKE 'CALL ranread_sweep(1, max_processes => 1, duration%' AND pid <> pg_backend_pid()});
$h->finish;
workers_gone('the terminated sweep');
my $postgres_sweeps = statuses('postgres');
like($postgres_sweeps, qr/^1:cancelled 2:(interrupted|cancelled)$/, 'postgres: sweep 1 cancelled, sweep 2 ended by the terminate');
my ($status2) = $postgres_sweeps =~ /2:(\w+)$/;

# database dbb: sweep 1 completes, sweep 2 runs
is($node->safe_psql('dbb', "CALL ranread_sweep(1, max_processes => 1, iterations => 200, target => 't');
	SELECT string_agg(sweep || ':' || status, ' ') FROM ranread_sweeps"), '1:completed', 'dbb: its sweep 1 completes');
($h, $out, $err) = start_long_sweep('dbb');
my $dbb_batch = $node->safe_psql('dbb', 'SELECT batch FROM ranread_progress WHERE sweep = 2');
is($dbb_batch, '2', 'dbb: ranread_progress shows its own sweep 2 in its batch 2');
is($node->safe_psql('dbb', 'SELECT status FROM ranread_sweeps WHERE sweep = 2'), 'running', 'dbb: its sweep 2 is running');
is($node->safe_psql('postgres', q{SELECT string_agg(classid || ':' || objid || ':' || objsubid, ' ' ORDER BY objsubid)
	FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = 'dbb')}),
	'0:2:20018 0:2:20020', 'pg_locks: the batch and sweep locks are in database dbb, number in classid and objid, kind in objsubid');
check_while_other_runs('postgres', 'dbb', 2, $dbb_batch, $status2, 't');
is(status_of('postgres', 1), 'cancelled', 'postgres: its sweep 1 stays cancelled too');

# a setup in dbb is not shown in postgres
my ($sh, $sout, $serr) = start_psql($node, "SELECT ranread_setup('1 GB', target => 'big', log_level => 0)", 'dbb');
ok(wait_until($node, q{SELECT count(*) = 1 FROM ranread_progress WHERE activity = 'setup' AND progress LIKE 'big: %'}, 'dbb'),
	'dbb: ranread_progress shows its setup writing');
is($node->safe_psql('postgres', q{SELECT count(*) FROM ranread_progress WHERE activity = 'setup'}), '0',
	'postgres: ranread_progress does not show dbb\'s setup');
$sh->finish;
like($$sout, qr/ranread target "big": 1024 MB/, 'dbb: the setup completes (a run in another database does not refuse it)');
$node->safe_psql('dbb', "SELECT ranread_drop('big')");

# ranread_stop() in postgres stops dbb's sweep, as documented
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'postgres: ranread_stop() signals dbb\'s sweep session');
$h->finish;
like($$out . $$err, qr/sweep 2 stopped after 1 step/, 'dbb: its sweep 2 stops');
workers_gone('dbb\'s stopped sweep');
is(statuses('postgres'), $postgres_sweeps, 'postgres: its sweeps are as they were');
is(statuses('dbb'), '1:completed 2:stopped', 'dbb: sweep 1 completed, sweep 2 stopped');

# sweep and batch numbers of 2^32 and more (once wrapped to 32 bits)
$node->safe_psql('dbb', q{SELECT setval('ranread_sweep_seq', 4294967297), setval('ranread_batch_seq', 4294967299)});
($h, $out, $err) = start_long_sweep('dbb');
is($node->safe_psql('dbb', 'SELECT sweep, step, batch FROM ranread_progress'),
	'4294967298|1|4294967300', 'dbb: ranread_progress shows sweep 4294967298, batch 4294967300');
is(status_of('dbb', 4294967298), 'running', 'dbb: ranread_sweeps shows sweep 4294967298 running');
check_while_other_runs('postgres', 'dbb', 2, '4294967300', $status2, 't');
is($node->safe_psql('dbb', 'SELECT ranread_stop()'), '1', 'dbb: ranread_stop() stops its own sweep');
$h->finish;
workers_gone('dbb\'s sweep 4294967298');
is(status_of('dbb', 4294967298), 'stopped', 'dbb: sweep 4294967298 is stopped');

# pg_dump of postgres, pg_restore into dbc of the same cluster: the same numbers
my $dump = tempdir(CLEANUP => 1) . '/postgres.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump -Fc of postgres');
$node->safe_psql('postgres', 'CREATE DATABASE dbc');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('dbc'), $dump ], 'pg_restore into dbc');
is(statuses('dbc'), $postgres_sweeps, 'dbc: the same sweeps with the same statuses');
is($node->safe_psql('dbc', 'SELECT s.last_value, b.last_value FROM ranread_sweep_seq s, ranread_batch_seq b'),
	$node->safe_psql('postgres', 'SELECT s.last_value, b.last_value FROM ranread_sweep_seq s, ranread_batch_seq b'), 'dbc: the same sequence values');

# dbc: its sweep 3 is cancelled; then postgres runs its own sweep 3, in the same batch number
$node->safe_psql('dbc', "SELECT ranread_setup('64 MB', target => 'tc', log_level => 0)");
($h, $out, $err) = start_psql($node, "CALL ranread_sweep(1, max_processes => 1, duration => '10 min', mode => 'direct', target => 'tc')", 'dbc');
ok(wait_for_readers($node, 1), 'dbc: its sweep 3 reads');
my $dbc_batch = $node->safe_psql('dbc', 'SELECT batch FROM ranread_progress WHERE sweep = 3');
interrupt_run($node, $h, 'cancelled', 'CALL ranread_sweep(1, max_processes => 1, duration');
workers_gone('dbc\'s cancelled sweep');
is(status_of('dbc', 3), 'cancelled', 'dbc: its sweep 3 is cancelled');
($h, $out, $err) = start_long_sweep('postgres');
is($node->safe_psql('postgres', 'SELECT sweep || \':\' || batch FROM ranread_progress'), "3:$dbc_batch",
	'postgres: its sweep 3 runs, in the batch number of dbc\'s cancelled step');
check_while_other_runs('dbc', 'postgres', 3, $dbc_batch, 'cancelled', 'tc');
is(statuses('dbc'), "$postgres_sweeps 3:cancelled", 'dbc: its restored sweeps are as they were');
is($node->safe_psql('dbc', 'SELECT ranread_stop()'), '1', 'dbc: ranread_stop() stops postgres\'s sweep');
$h->finish;
is(status_of('postgres', 3), 'stopped', 'postgres: its sweep 3 is stopped');
is(status_of('dbc', 3), 'cancelled', 'dbc: its sweep 3 is still cancelled');

ok(log_is_clean($node, $log_start), 'no PANIC, crash or internal error in the server log');

done_testing();
