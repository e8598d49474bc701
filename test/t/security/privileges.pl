# Privileges and hostile names: a granted role can benchmark but cannot
# write files or use tablespaces it could not otherwise; target names and
# export directories with quotes, spaces, .. and maximal length are safe.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('privileges');
my $base = $node->basedir;
mkdir "$base/ts" or die;
mkdir "$base/export" or die;
$node->safe_psql('postgres', qq{
	CREATE TABLESPACE ts_allowed LOCATION '$base/ts';
	CREATE ROLE bench LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_run,
		ranread_setup, ranread_stop, ranread_export TO bench;
	GRANT SELECT ON ranread_targets, ranread_results, ranread_batches, ranread_intervals TO bench;
	GRANT INSERT ON ranread_targets TO bench;
	GRANT SELECT ON ranread_summary TO bench;
	GRANT USAGE ON SEQUENCE ranread_batch_seq TO bench;
	GRANT CREATE ON SCHEMA public TO bench;
});

sub as_bench
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "SET ROLE bench; $sql",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	return ($ret, $out, $err);
}

# What the granted role can and cannot do
my ($ret, $out, $err) = as_bench("SELECT ranread_setup('8 MB', target => 'ranread_bench', log_level => 0)");
is($ret, 0, 'the granted role can set up a target in the default tablespace');
($ret, $out, $err) = as_bench("SELECT status FROM ranread_run(2, 100, 'ranread_bench')");
is($out, 'completed', 'the granted role can run a benchmark');
($ret, $out, $err) = as_bench("SELECT ranread_setup('8 MB', 'ts_allowed', 'ranread_bench_ts', 0)");
is(sqlstate_of($err), '42501', 'without CREATE on a tablespace, setup there is refused');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'ranread_bench_ts'"), '0',
	'and leaves nothing');
# A role other than a superuser names its targets "ranread_...": another free
# name of the extension's schema may be one an extension needs (review of
# 1.3, D11: pg_stat_statements then failed to install)
foreach my $call ("ranread_setup('8 MB', target => 'pg_stat_statements_info', log_level => 0)",
	"ranread_setup_writes('1 MB', target => 'pg_stat_statements_info')")
{
	$node->safe_psql('postgres', 'GRANT EXECUTE ON FUNCTION ranread_setup_writes TO bench');
	($ret, $out, $err) = as_bench("SELECT $call");
	like($err, qr/ERROR:  42501: permission denied to name a ranread (write )?target "pg_stat_statements_info"\n.*HINT:  Use a name beginning with "ranread_", such as "ranread_pg_stat_statements_info"\./s,
		"the role may not take another name of the schema: $call");
}
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'pg_stat_statements_info'"), '0',
	'and nothing of that name was made');
($ret, $out, $err) = as_bench("SELECT ranread_export('$base/export')");
is(sqlstate_of($err), '42501', 'without pg_write_server_files, export is refused');
opendir(my $dh, "$base/export") or die;
is(scalar(grep { !/^\./ } readdir $dh), 0, 'and writes no file');
closedir $dh;

# ranread_stop() cannot stop another role's run without the right privileges
my ($h, $o, $e) = start_psql($node, "SELECT status FROM ranread_run(2, 1000000000, 'ranread_bench', allow_rereads => true)");
ok(wait_for_readers($node, 2), "a superuser's run is reading");
($ret, $out, $err) = as_bench('SELECT ranread_stop()');
is(sqlstate_of($err), '42501', "the granted role may not stop a superuser's workers");
is(worker_count($node), '2', 'they keep running');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '2', 'a superuser can stop them');
$h->finish;

# Hostile target names: each must be exactly one relation with exactly that name
my @names = ('with "quotes"', "single'quote", 'with spaces', '../../../../tmp/ranread_escape',
	'x"; DROP TABLE ranread_results; --', 'UPPER case', 'n' x 63);
foreach my $name (@names)
{
	(my $lit = $name) =~ s/'/''/g;
	my ($r, $so, $se) = $node->psql('postgres',
		"SELECT ranread_setup('8 MB', target => '$lit', log_level => 0)");
	is($r, 0, "setup of a target named $name");
	is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = '$lit'"), '1',
		"exactly one relation is named $name");
	is($node->safe_psql('postgres', "SELECT status FROM ranread_run(1, 20, '$lit')"), 'completed',
		"a run reads $name");
	is($node->safe_psql('postgres', "SELECT ranread_drop('$lit')"), "dropped ranread target \"$name\"",
		"$name can be dropped");
}
ok(!-e '/tmp/ranread_escape', 'a target name never becomes a file path');
is($node->safe_psql('postgres', "SELECT count(*) > 0 FROM ranread_results"), 't',
	'ranread_results survived the injection attempt');
my ($r, $so, $se) = $node->psql('postgres',
	"SELECT ranread_setup('8 MB', target => '" . ('m' x 100) . "', log_level => 0)");
is($node->safe_psql('postgres', "SELECT target FROM ranread_targets WHERE target LIKE 'mmm%'"), 'm' x 63,
	'a 100-character name is truncated to 63 like every identifier');

# Hostile export directories, written by a superuser
foreach my $dir ("$base/export/with space", "$base/export/quote'dir", "$base/export/sub/../dots")
{
	mkdir "$base/export/sub";
	mkdir $dir or die "mkdir $dir: $!";
	(my $lit = $dir) =~ s/'/''/g;
	my $path = $node->safe_psql('postgres', "SELECT ranread_export('$lit')");
	ok(-f $path, "export into \"$dir\" writes $path");
	like(slurp_file($path), qr/^run_date\trun_time\ttarget\titerations\tprocesses\tresponse_time_ms\tiops\t/,
		'with the header row');
}

# Only ranread writes the history (review of 1.3, D4): the role cannot plant a
# row under the next batch's number, not even with INSERT granted on the table
# as 1.3's GRANT block did (the 1.3 -> 1.4 update takes it back: extension/upgrade.pl)
my $next = $node->safe_psql('postgres', "SELECT last_value + 1 FROM ranread_batch_seq");
my $plant = qq{INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode,
	block_size, processes, iterations, evicted, reads, wall_s, iops, mb_per_s, status)
	VALUES ($next, current_date, localtime(0), now(), 'ranread_target', 'smgr', 8192, 1, 200, true, 200, 0.0001,
	2000000, 15625, 'completed')};
($ret, $out, $err) = as_bench($plant);
like($err, qr/permission denied for table ranread_batches/, "the role cannot plant batch $next");

# A row there all the same (a superuser's): the run keeps its own figures and
# says why its row was not recorded, the true cause, not a guess at privileges
$node->safe_psql('postgres', $plant);
$node->safe_psql('postgres', "SELECT ranread_setup('8 MB', log_level => 0)")
  unless $node->safe_psql('postgres', "SELECT count(*) FROM ranread_targets WHERE target = 'ranread_target'") eq '1';
($ret, $out, $err) = $node->psql('postgres', 'SELECT batch FROM ranread_run(1, 50)', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/WARNING:  01000: the summary row of ranread batch $next was not recorded\nDETAIL:  could not record results: duplicate key value violates unique constraint "ranread_batches_pkey"\./,
	'a run whose number another row holds says so, with the true cause');

# Each row names the role that ran it; a role's reset deletes its own rows only
$node->safe_psql('postgres', 'GRANT EXECUTE ON FUNCTION ranread_reset TO bench');
($ret, $out, $err) = as_bench("SELECT batch FROM ranread_run(1, 50, target => 'ranread_bench')");
is($ret, 0, 'the role runs a batch') or diag($err);
is($node->safe_psql('postgres', "SELECT string_agg(DISTINCT run_by, ',') FROM ranread_results WHERE batch = $out"),
	'bench', 'its workers\' rows name it');
is($node->safe_psql('postgres', "SELECT run_by FROM ranread_batches WHERE batch = $out"), 'bench',
	'and so does the batch row');
my $others = $node->safe_psql('postgres', "SELECT count(*) FROM ranread_results WHERE run_by IS DISTINCT FROM 'bench'");
($ret, $out, $err) = as_bench('SELECT ranread_reset()');
is($ret, 0, 'the role resets') or diag($err);
is($node->safe_psql('postgres', "SELECT count(*) FROM ranread_results WHERE run_by = 'bench'"), '0',
	'its own rows are gone');
is($node->safe_psql('postgres', "SELECT count(*) FROM ranread_results WHERE run_by IS DISTINCT FROM 'bench'"), $others,
	'every other role\'s rows are kept');
$node->safe_psql('postgres', 'SELECT ranread_reset()');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_results'), '0', 'a superuser\'s reset deletes all');

$node->stop;
done_testing();
