# Steps that would not count are not run: a sweep on a small target caps each
# step's iterations so that no step re-reads a unit (one NOTICE with the
# numbers), and a time-based step ends once every unit has been read.  The
# refusal of a plain run and allow_rereads are in run/messages.pl, the
# open-loop queueing WARNING in run/over_time.pl, the interference rule in
# test/unit/run_rules_test.c.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('rereads');
# 8 MB: 1024 units of 8 kB
$node->safe_psql('postgres', "SELECT ranread_setup('8 MB', target => 'small', log_level => 0)");

my $out = shown($node, "CALL ranread_sweep(start_processes => 1, max_processes => 8, iterations => 300, target => 'small', min_scaling_pct => 0, stop_latency_ms => 1000)");
my $sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
is($node->safe_psql('postgres', "SELECT string_agg(processes || 'x' || iterations || ':' || status || ':' || wrapped_reads, ' ' ORDER BY sweep_step) FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches WHERE sweep = $sweep ORDER BY sweep_step, batch) b"),
	'1x300:completed:0 2x300:completed:0 4x256:completed:0 8x128:completed:0',
	'a sweep of 300 iterations on 1024 units: steps of 4 and 8 processes read 256 and 128 iterations, none re-reads');
is(lines_matching($out, qr/^NOTICE:  steps from 4 processes on read at most 256 iterations per process instead of 300, so that no step re-reads a unit$/), 1,
	'one NOTICE, at the first capped step, with the numbers');
like($out, qr/^DETAIL:  The target has 1024 read units; a step reads at most that many/m, 'its detail gives the units');
is(lines_matching($out, qr/^WARNING:.*re-read/), 0, 'no re-read warning');
like($node->safe_psql('postgres', "SELECT status || ' ' || steps FROM ranread_sweeps WHERE sweep = $sweep"), qr/^completed 4$/,
	'the sweep completes its four steps');

# more processes than the target has units (1 MB blocks: 8 units): refused up front for the first
# step, cut for the last, instead of a step refused in the middle of the sweep
my $sweeps = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs');
my ($ret, $o, $e) = $node->psql('postgres', "CALL ranread_sweep(start_processes => 10, iterations => 1, block_size => 1048576, target => 'small')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/22023: the first step's 10 processes are more than the 8 read units of the target/,
	'a first step of more processes than units is refused (22023)');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs'), $sweeps, 'and nothing is recorded');
$out = shown($node, "CALL ranread_sweep(start_processes => 2, max_processes => 16, iterations => 2, block_size => 1048576, target => 'small', min_scaling_pct => 0, stop_latency_ms => 1000)");
like($out, qr/^NOTICE:  the target has 8 read units: the sweep goes up to 8 processes$/m, 'max_processes is cut to the units, said');
$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
is($node->safe_psql('postgres', "SELECT string_agg(processes || 'x' || iterations || ':' || wrapped_reads, ' ' ORDER BY sweep_step) FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches WHERE sweep = $sweep ORDER BY sweep_step, batch) b"),
	'2x2:0 4x2:0 8x1:0', 'its steps stop at 8 processes, none re-reads');
like($node->safe_psql('postgres', "SELECT status || ' ' || stop_rule FROM ranread_sweeps WHERE sweep = $sweep"), qr/^completed max processes$/,
	'and it completes at its max');

# a time-based sweep on the same target: each step ends at coverage
$out = shown($node, "CALL ranread_sweep(start_processes => 1, max_processes => 2, duration => '30 s', target => 'small', min_scaling_pct => 0, stop_latency_ms => 1000)");
$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
is($node->safe_psql('postgres', "SELECT string_agg(processes || ':' || status || ':' || ended_by || ':' || reads || ':' || wrapped_reads || ':' || (wall_s < 30), ' ' ORDER BY sweep_step) FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches WHERE sweep = $sweep ORDER BY sweep_step, batch) b"),
	'1:completed:coverage:1024:0:true 2:completed:coverage:1024:0:true',
	'a 30 s step on 1024 units ends once it has read each unit once, ended_by coverage');
# (a step whose runs disagree is run again, so count the sweep's batches)
is(lines_matching($out, qr/^NOTICE:  batch \d+ ended after [0-9.]+ s of its 30.0 s duration: it had read every unit of its target once$/),
	$node->safe_psql('postgres', "SELECT count(*) FROM ranread_batches WHERE sweep = $sweep"),
	'each batch of each step says why it ended early');

# mode direct bypasses the page cache: its steps are neither capped nor cut
$out = shown($node, "CALL ranread_sweep(start_processes => 2, max_processes => 2, iterations => 600, target => 'small', mode => 'direct')");
$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
is($node->safe_psql('postgres', "SELECT iterations || ':' || ended_by || ':' || (wrapped_reads > 0) FROM ranread_batches WHERE sweep = $sweep"),
	'600:iterations:true', 'mode direct: 2 x 600 reads of 1024 units run as asked, re-reading from the device');

done_testing();
