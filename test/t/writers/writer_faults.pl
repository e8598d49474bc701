# Writers and the faults around them: on a streaming standby they are
# refused before anything starts (as ranread_setup_writes() is); a writer
# killed by SIGKILL in the middle of a run takes the server through crash
# recovery, after which the history recorded before is intact, the write
# target (logged) whole, the read target (unlogged) empty as after any
# crash, and once set up again a new run with writers completes.  Nothing
# here asserts a speed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $primary = PostgreSQL::Test::Cluster->new('writer_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "max_worker_processes = 32\nrestart_after_crash = on\n");
$primary->start;
$primary->safe_psql('postgres', q{CREATE EXTENSION ranread;
	SELECT ranread_setup('16 MB', log_level => 0);
	SELECT ranread_setup_writes('1 MB');});

# --- a standby ---------------------------------------------------------------

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('writer_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "max_worker_processes = 32\n");
$standby->start;
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'the standby is in recovery');
my ($ret, $out, $err) = $standby->psql('postgres',
	q{SELECT * FROM ranread_run(1, NULL, duration => '1 s', rate_iops => 20, writers => 1, write_rate_iops => 10)},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '25006', 'writers on a standby: 25006');
like($err, qr/cannot run writers on a standby/, 'saying so');
($ret, $out, $err) = $standby->psql('postgres', q{SELECT ranread_setup_writes('1 MB', target => 'standby_writes')},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '25006', 'ranread_setup_writes on a standby: 25006');
$standby->stop;

# --- kill -9 of a writer -------------------------------------------------------

is($primary->safe_psql('postgres', q{SELECT status FROM ranread_run(1, NULL, duration => '1 s', rate_iops => 50,
	writers => 1, write_rate_iops => 20)}), 'completed', 'a first batch with a writer');
my $history_sql = q{SELECT (SELECT count(*) FROM ranread_batches) || ' ' || (SELECT count(*) FROM ranread_results)
	|| ' ' || (SELECT count(*) FROM ranread_write_results) || ' ' || (SELECT count(*) FROM ranread_db_activity)
	|| ' ' || (SELECT md5(string_agg(b::text, '' ORDER BY batch)) FROM ranread_batches b)};
my $history = $primary->safe_psql('postgres', $history_sql);
my $log_offset = -s $primary->logfile;

my ($h, $outref, $errref) = start_psql($primary, q{SELECT * FROM ranread_run(1, NULL, duration => '60 s', rate_iops => 20,
	writers => 2, write_rate_iops => 10)});
ok(wait_until($primary, q{SELECT count(*) = 2 FROM pg_stat_activity WHERE query LIKE 'ranread batch %: writer % of 2 writing'}),
	'the writers write');
my $pid = $primary->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE query LIKE 'ranread batch %: writer 1 of 2 writing'});
ok(kill('KILL', $pid), "writer 1 (pid $pid) killed with SIGKILL");
$h->finish;
like($$errref, qr/terminat|server closed the connection|connection to server was lost/,
	'the caller loses its session to the crash');
ok(wait_until($primary, 'SELECT NOT pg_is_in_recovery()'), 'the server recovers and accepts connections');
my $log = slurp_file($primary->logfile, $log_offset);
like($log, qr/\(PID $pid\) was terminated by signal 9.*\n.*DETAIL:  Failed process was running: ranread batch \d+: writer 1 of 2 writing/,
	'the postmaster logged the killed writer');
like($log, qr/all server processes terminated; reinitializing/, 'and went through crash recovery');
is($primary->safe_psql('postgres', $history_sql), $history, 'the history recorded before is intact; the killed batch left no row');
is($primary->safe_psql('postgres', q{SELECT count(*) || ' ' || min(length(filler)) || ' ' || max(length(filler))
	FROM ranread_write_target}), '128 480 480', 'every row of the write target is whole');
# the read target is unlogged: crash recovery emptied it, and a run says so
($ret, $out, $err) = $primary->psql('postgres', q{SELECT * FROM ranread_run(1, 10)});
like($err, qr/ranread target "ranread_target" is empty or incomplete/, 'crash recovery emptied the (unlogged) read target');
$primary->safe_psql('postgres', q{SELECT ranread_setup('16 MB', log_level => 0)});
is($primary->safe_psql('postgres', q{SELECT status FROM ranread_run(1, NULL, duration => '1 s', rate_iops => 50,
	writers => 1, write_rate_iops => 20)}), 'completed', 'set up again, a new batch with a writer completes');

$primary->stop;
done_testing();
