# A corpus of bad calls: every one answered with a specific SQLSTATE (never
# XX000), nothing written (no target, result, batch, sweep or number drawn), and no PANIC, crash or assertion in the log.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('badinput');
$node->safe_psql('postgres', q{
	SELECT ranread_setup('8 MB', target => 'bad_target', log_level => 0);
	SELECT ranread_setup('8 MB', target => 'bad_dropped', log_level => 0);
	SELECT ranread_setup('8 MB', target => 'bad_emptied', log_level => 0);
	ALTER EXTENSION ranread DROP TABLE bad_dropped;
	DROP TABLE bad_dropped;
	TRUNCATE bad_emptied;
	CREATE TABLE plain_table (a int);
	CREATE VIEW plain_view AS SELECT 1 AS a;
	CREATE SEQUENCE plain_seq;
});
my $loop = $node->basedir . '/loop';
symlink($loop, $loop) or die "symlink: $!";
my $log_start = -s $node->logfile;

# [ call, expected SQLSTATE ]
my @corpus = (
	# ranread_setup: sizes
	[ "ranread_setup('1 MB', target => 'x1')", '22023' ],
	[ "ranread_setup('0', target => 'x1')", '22023' ],
	[ "ranread_setup('-5 GB', target => 'x1')", '22023' ],
	[ "ranread_setup('8388607', target => 'x1')", '22023' ],
	[ "ranread_setup('banana', target => 'x1')", '22023' ],
	[ "ranread_setup('10 parsecs', target => 'x1')", '22023' ],
	[ "ranread_setup('', target => 'x1')", '22023' ],
	[ "ranread_setup('8 MiB', target => 'x1')", '22023' ],
	[ "ranread_setup('99999999999 PB', target => 'x1')", '22003' ],
	[ "ranread_setup('100 TB', target => 'x1')", '54000' ],
	# ranread_setup: other arguments
	[ "ranread_setup('8 MB', 'no_such_tablespace', 'x1')", '42704' ],
	[ "ranread_setup('8 MB', 'pg_global', 'x1')", '22023' ],
	[ "ranread_setup('8 MB', NULL, NULL)", '22004' ],
	[ "ranread_setup('8 MB', NULL, '')", '22004' ],
	[ "ranread_setup('8 MB', target => 'x1', log_level => 4)", '22023' ],
	[ "ranread_setup('8 MB', target => 'x1', log_level => -1)", '22023' ],
	[ "ranread_setup('8 MB', target => 'x1', log_level => NULL)", '22004' ],
	[ "ranread_setup('8 MB', target => 'bad_target')", '42710' ],
	[ "ranread_setup('8 MB', target => 'plain_table')", '42P07' ],
	[ "ranread_setup('8 MB', target => 'ranread_targets')", '42P07' ],
	[ "ranread_setup(8)", '42883' ],
	[ "ranread_setup('8 MB', log_level => 'loud')", '22P02' ],
	[ "ranread_setup('8 MB', target => 'ranread_results')", '42P07' ],
	[ "ranread_setup('8 MB', target => 'ranread_summary')", '42P07' ],
	[ "ranread_setup('8 MB', target => 'plain_view')", '42P07' ],
	[ "ranread_setup('8 MB', target => 'plain_seq')", '42P07' ],
	[ "ranread_setup('8 MB', tablespace => '')", '42704' ],
	[ "ranread_setup(NULL, target => 'x1', log_level => 99)", '22023' ],
	[ "ranread_setup('8 MB', target => 'x1', log_level => 2147483648)", '42883' ],
	[ "ranread_setup('8 MB', 'pg_default', 'x1', 0, 5)", '42883' ],
	[ "ranread_setup('1 EB', target => 'x1')", '22023' ],
	[ "ranread_setup(' ', target => 'x1')", '22023' ],
	[ "ranread_setup('NaN MB', target => 'x1')", '22023' ],
	# ranread_run: processes and iterations
	[ "ranread_run(0, 100, 'bad_target')", '22023' ],
	[ "ranread_run(-1, 100, 'bad_target')", '22023' ],
	[ "ranread_run(1025, 100, 'bad_target')", '22023' ],
	[ "ranread_run(2147483647, 100, 'bad_target')", '22023' ],
	[ "ranread_run(NULL, 100, 'bad_target')", '22004' ],
	[ "ranread_run(2, 0, 'bad_target')", '22023' ],
	[ "ranread_run(2, -5, 'bad_target')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target')", '22004' ],
	[ "ranread_run('two', 100, 'bad_target')", '22P02' ],
	[ "ranread_run(2, 1e30::numeric, 'bad_target')", '42883' ],
	[ "ranread_run(2, 99999999999999999999, 'bad_target')", '42883' ],
	# ranread_run: targets
	[ "ranread_run(2, 100, NULL)", '22004' ],
	[ "ranread_run(2, 100, 'no_such_target')", '42704' ],
	[ "ranread_run(2, 100, 'plain_table')", '42809' ],
	[ "ranread_run(2, 100, 'plain_view')", '42809' ],
	[ "ranread_run(2, 100, 'plain_seq')", '42809' ],
	[ "ranread_run(2, 100, 'ranread_targets')", '42809' ],
	[ "ranread_run(2, 100, 'bad_dropped')", '42P01' ],
	[ "ranread_run(2, 100, 'bad_emptied')", '55000' ],
	[ "ranread_run(2, 100, repeat('t', 200))", '42704' ],
	# ranread_run: mode, block_size, duration, evict
	[ "ranread_run(2, 100, 'bad_target', mode => 'bogus')", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', mode => '')", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', mode => NULL)", '22004' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => 0)", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => -8192)", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => 4096)", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => 12000)", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => 2097152)", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => NULL)", '22004' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => 'big')", '22P02' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '-1 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '0 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => 'soon')", '22007' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => NULL)", '22004' ],
	[ "ranread_run(2, 100, 'bad_target', evict => NULL)", '22004' ],
	[ "ranread_run(2, 100, 'bad_target', evict => 'perhaps')", '22P02' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '-1 month 31 days')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '1 day -1 second')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '-0.5 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '8 days')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '7 days 1 second')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '1 mon')", '22023' ],
	# ranread_run: ramp, sample_interval, steady state, open loop
	[ "ranread_run(2, NULL, 'bad_target', duration => '2 s', ramp => '2 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '2 s', ramp => '3 s')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', ramp => '-1 s')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', ramp => '8 days')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', sample_interval => '99 ms')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', sample_interval => '0 s')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', sample_interval => '-1 s')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', sample_interval => NULL)", '22004' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '7 days', sample_interval => '100 ms')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', steady_state => '5 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', steady_state => '1 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', steady_state => '11 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', ramp => '5 s', steady_state => '6 s')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', steady_state => '5 s', steady_band_pct => 0)", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', steady_state => '5 s', steady_band_pct => -5)", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', steady_state => '5 s', steady_band_pct => 100)", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', steady_state => '5 s', steady_band_pct => 'NaN')", '22023' ],
	[ "ranread_run(2, NULL, 'bad_target', duration => '10 s', steady_band_pct => NULL)", '22004' ],
	[ "ranread_run(2, 10, 'bad_target', rate_iops => 0)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', rate_iops => -100)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', rate_iops => 'NaN')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', rate_iops => 'Infinity')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', rate_iops => 1e12)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', arrivals => 'poisson')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', rate_iops => 100, arrivals => 'bursty')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', rate_iops => 100, arrivals => '')", '22023' ],
	# ranread_run: iodepth
	[ "ranread_run(2, 10, 'bad_target', mode => 'direct', iodepth => 0)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', mode => 'direct', iodepth => -1)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', mode => 'direct', iodepth => 1025)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', mode => 'direct', iodepth => NULL)", '22004' ],
	# ranread_run: re-reads (bad_target has 1024 units of 8 kB)
	[ "ranread_run(2, 513, 'bad_target')", '22023' ],
	[ "ranread_run(1, 1025, 'bad_target', mode => 'buffer')", '22023' ],
	[ "ranread_run(2, 65, 'bad_target', block_size => 65536)", '22023' ],
	[ "ranread_run(1024, 2, 'bad_target')", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', allow_rereads => NULL)", '22004' ],
	[ "ranread_run(2, 10, 'bad_target', allow_rereads => 'maybe')", '22P02' ],
	[ "ranread_run(2, 10, 'bad_target', iodepth => 4)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', mode => 'buffer', iodepth => 2)", '22023' ],
	[ "ranread_run(2, 10, 'bad_target', mode => 'direct', iodepth => 4, rate_iops => 100)", '22023' ],
	# ranread_run: read buffers above ranread.max_run_memory (1 TB: above 1/16 of any memory below 16 TB)
	[ "ranread_run(1024, 10, 'bad_target', mode => 'direct', block_size => 1048576, iodepth => 1024)", '53400' ],
	[ "ranread_histogram_check('{}'), set_config('ranread.max_run_memory', '-1', false)", '22023' ],
	[ "ranread_histogram_check('{}'), set_config('ranread.max_run_memory', '10 parsecs', false)", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', mode => 'SMGR ')", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', mode => 'direct; DROP TABLE plain_table')", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => 8193)", '22023' ],
	[ "ranread_run(2, 100, 'bad_target', block_size => 1056768)", '22023' ],
	[ "ranread_run(2, 100, 'pg_class')", '42704' ],
	[ "ranread_run(2, 100, 'ranread_summary')", '42809' ],
	[ "ranread_run(2, 100, 'ranread_results', mode => 'buffer')", '42809' ],
	[ "ranread_run(2, 100, '')", '42704' ],
	# ranread_export
	[ "ranread_export(NULL)", '22004' ],
	[ "ranread_export('')", '22023' ],
	[ "ranread_export('relative/dir')", '22023' ],
	[ "ranread_export('/nonexistent/dir')", '58P01' ],
	[ "ranread_export('/etc/hostname')", '42809' ],
	[ "ranread_export('/proc/self')", '58P01' ],
	[ "ranread_export('/')", '42501' ],
	[ "ranread_export('/tmp/../etc')", '42501' ],
	[ "ranread_export('/dev/null')", '42809' ],
	[ "ranread_export(repeat('/a', 3000))", '22023' ],
	[ "ranread_export('$loop')", '22023' ],
	[ "ranread_export(E'/tmp/new\\nline')", '58P01' ],
	[ "ranread_export(42)", '42883' ],
	# ranread_sweep: its own arguments, then those it passes to ranread_run
	[ "CALL ranread_sweep(start_processes => NULL, target => 'bad_target')", '22004' ],
	[ "CALL ranread_sweep(start_processes => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(start_processes => 2000, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(step_processes => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(step_processes => -5, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(start_processes => 4, max_processes => 2, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(max_processes => 5000, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(stop_latency_ms => NULL, target => 'bad_target')", '22004' ],
	[ "CALL ranread_sweep(stop_latency_ms => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(stop_latency_ms => 'NaN', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(stop_latency_ms => 'Infinity', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(min_scaling_pct => NULL, target => 'bad_target')", '22004' ],
	[ "CALL ranread_sweep(min_scaling_pct => -1, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(min_scaling_pct => 100, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(slo_mean_ms => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(slo_p99_ms => -5, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(slo_p999_ms => 'NaN', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(slo_max_ms => '-Infinity', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(rate_step_iops => 100, target => 'bad_target')", '22023' ],
	# a step that cannot change the rate: the sweep would never reach max_rate_iops (review of 1.3, D5)
	[ "CALL ranread_sweep(rate_iops => 100, rate_step_iops => 1e-300, max_rate_iops => 200, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(max_rate_iops => 100, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(rate_iops => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(max_iodepth => 8, mode => 'direct', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(iodepth => 0, mode => 'direct', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(iodepth => 8, max_iodepth => 4, mode => 'direct', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(iodepth => 8, max_iodepth => 2048, mode => 'direct', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(iodepth => 8, step_processes => 2, mode => 'direct', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(iodepth => 8, rate_iops => 100, mode => 'direct', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(iodepth => 8, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(1000, iodepth => 1, max_iodepth => 1024, mode => 'direct', block_size => 1048576, target => 'bad_target')", '53400' ],
	[ "CALL ranread_sweep(rate_iops => 1000, max_rate_iops => 500, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(rate_iops => 1000, step_processes => 2, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(rate_iops => 1000, max_processes => 20, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(rate_iops => 1e12, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(rate_iops => 9e6, max_rate_iops => 2e7, duration => '1 s', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(max_processes => 4, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(max_processes => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(repeat => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(repeat => 11, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(repeat => -1, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(repeat => NULL, target => 'bad_target')", '22004' ],
	[ "CALL ranread_sweep(iterations => 0, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(duration => '-1 s', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(duration => '2 s', ramp => '3 s', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(mode => 'bogus', target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(mode => NULL, target => 'bad_target')", '22004' ],
	[ "CALL ranread_sweep(block_size => 4096, target => 'bad_target')", '22023' ],
	[ "CALL ranread_sweep(target => 'no_such_target')", '42704' ],
	[ "CALL ranread_sweep(target => 'plain_table')", '42809' ],
	[ "CALL ranread_sweep(target => NULL)", '22004' ],
	[ "CALL ranread_sweep(start_processes => 40, target => 'bad_target')", '53000' ],
	[ "CALL ranread_sweep(start_processes => 'x')", '22P02' ],
	# ranread_drop
	[ "ranread_drop(NULL)", '22004' ],
	[ "ranread_drop('no_such_target')", '42704' ],
	[ "ranread_drop('plain_table')", '42809' ],
	[ "ranread_drop('plain_view')", '42809' ],
	[ "ranread_drop('plain_seq')", '42809' ],
	[ "ranread_drop('ranread_results')", '42809' ],
	[ "ranread_drop('ranread_summary')", '42809' ],
	[ "ranread_drop('')", '42704' ],
	[ "ranread_drop(repeat('x', 100))", '42704' ],
	[ "ranread_drop(1)", '42883' ],
	# functions without arguments, given some
	[ "ranread_help('x')", '42883' ],
	[ "ranread_reset(1)", '42883' ],
	[ "ranread_stop(1)", '42883' ],
	[ "ranread_running('x')", '42883' ],
);

my $state = q{SELECT (SELECT count(*) FROM ranread_targets) || '/' || (SELECT count(*) FROM ranread_results)
	|| '/' || (SELECT count(*) FROM ranread_batches) || '/' || (SELECT count(*) FROM pg_class)
	|| '/' || (SELECT last_value FROM ranread_batch_seq) || '/' || (SELECT count(*) FROM ranread_sweep_runs)
	|| '/' || (SELECT last_value FROM ranread_sweep_seq)};
my $before = $node->safe_psql('postgres', $state);

foreach my $case (@corpus)
{
	my ($call, $expected) = @$case;
	my ($ret, $out, $err) = $node->psql('postgres', $call =~ /^CALL / ? $call : "SELECT $call",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	my $got = sqlstate_of($err);
	is($got, $expected, "$call: $expected");
	diag($err) if $got ne $expected;
}
cmp_ok(scalar(@corpus), '>=', 100, 'the corpus has at least 100 calls');
is($node->safe_psql('postgres', $state), $before,
	'nothing was written: targets, results, batches, relations and batch numbers unchanged');
is(worker_count($node), 0, 'no ranread worker is left');
ok(log_is_clean($node, $log_start), 'no PANIC, crash, assertion or internal error in the server log');

# the messages of two of them say what to do
my ($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_setup('lots', target => 'x1')");
like($err, qr/invalid size: "lots"\n.*HINT:  Give a number and a unit, such as '64 GB'/s,
	'a size that is not one: a HINT with the accepted forms');
($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_setup('8 MB', 'no_such_tablespace', 'x1')");
like($err, qr/tablespace "no_such_tablespace" does not exist\n.*HINT:  .*CREATE TABLESPACE no_such_tablespace LOCATION/s,
	'a tablespace not yet created: a HINT to CREATE TABLESPACE');

$node->stop;
done_testing();
