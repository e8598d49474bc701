# RanWrite alone and the write sweep.  ranread_run(0, NULL, duration => ...,
# writers => N, write_rate_iops => R): its refusals, its batch (no reads, its
# rows as documented, no series) and the history functions on it;
# ranread_write_sweep(): its refusals (nothing recorded), a sweep stopped at
# its first step by an SLO it cannot meet, one that reaches its last rate,
# and one with a reader stopped by the readers' p99.  Each decision is
# checked against the figures the sweep recorded, never against a speed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('write_sweep');
$node->safe_psql('postgres', q{SELECT ranread_setup('16 MB', log_level => 0); SELECT ranread_setup_writes('2 MB')});

# Run $sql; return its SQLSTATE and stderr.
sub refused
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	return (sqlstate_of($err), $err);
}

my $batches = q{SELECT count(*) FROM ranread_batches};

# RanWrite alone: refusals, nothing started
for my $case ([ q{0, NULL, duration => '1 s'}, '22023', 'processes => 0 needs writers', 'without writers' ],
	[ q{0, 10, duration => '1 s', writers => 1, write_rate_iops => 10},
	  '22023', 'iterations cannot be combined with processes => 0', 'with iterations' ],
	[ q{0, NULL, duration => '1 s', writers => 1, write_rate_iops => 10, rate_iops => 10},
	  '22023', 'rate_iops cannot be combined with processes => 0', 'with a read rate' ],
	[ q{0, NULL, duration => '2 s', ramp => '1 s', writers => 1, write_rate_iops => 10},
	  '22023', 'ramp cannot be combined with processes => 0', 'with a ramp' ],
	[ q{0, NULL, duration => '1 s', writers => 1, write_rate_iops => 10, checkpoint => 'during'},
	  '22023', q{checkpoint => 'during' cannot be combined with processes => 0}, 'with a checkpoint' ],
	[ q{0, NULL, writers => 1, write_rate_iops => 10}, '22004', 'iterations and duration must not both be null',
	  'without a duration' ],
	[ q{-1, NULL, duration => '1 s', writers => 1, write_rate_iops => 10}, '22023',
	  'processes must be between 0 and 1024', 'negative processes' ])
{
	my ($state, $err) = refused("SELECT * FROM ranread_run($case->[0])");
	is($state, $case->[1], "$case->[3]: $case->[1]");
	like($err, qr/ERROR:  \d{5}: \Q$case->[2]\E\n/, "$case->[3]: $case->[2]");
}
is($node->safe_psql('postgres', $batches), '0', 'no refused run recorded a batch');

my ($ret, $out, $err) = $node->psql('postgres',
	q{SELECT batch FROM ranread_run(0, NULL, duration => '2 s', writers => 2, write_rate_iops => 40)});
is($ret, 0, 'a batch of writers alone runs') or diag($err);
my $alone = $out;
like($err, qr/NOTICE:  batch $alone: 2 writers alone committed \d+ writes in [\d.]+ s, \d+ writes\/s of 40 asked \(completed\)\n/,
	'its NOTICE says the writes');
like($err, qr/NOTICE:  write latency, transaction start to commit: mean = [\d.]+ms, p50 = [\d.]+ms, p99 = [\d.]+ms, max = [\d.]+ms(?:\n|\z)/,
	'and their latency');
is($node->safe_psql('postgres', qq{SELECT processes, reads, iops, mb_per_s, response_time_ms IS NULL, p99_ms IS NULL,
	physical_pct IS NULL, kb_per_read IS NULL, device_shared_pct IS NULL, evicted, status, ended_by, wall_s > 0
	FROM ranread_batches WHERE batch = $alone}), '0|0|0|0|t|t|t|t|t|f|completed|duration|t',
	'its batch row: nothing read, no latency, nothing to prove, ended by the duration');
is($node->safe_psql('postgres', qq{SELECT (SELECT count(*) FROM ranread_results WHERE batch = $alone) || ' '
	|| (SELECT count(*) FROM ranread_intervals WHERE batch = $alone)}), '0 0', 'no reader rows, no series');
is($node->safe_psql('postgres', qq{SELECT count(*) || ' ' || bool_and(status = 'completed') || ' ' || bool_and(writes > 0)
	FROM ranread_write_results WHERE batch = $alone}), '2 true true', 'two writer rows, both completed with writes');
is($node->safe_psql('postgres', qq{SELECT writes = (SELECT sum(writes) FROM ranread_write_results WHERE batch = $alone)
	AND updates >= writes FROM ranread_write_summary WHERE batch = $alone}), 't',
	'ranread_write_summary has the writes, and the database counted its updates');
is($node->safe_psql('postgres', qq{SELECT iops || ' ' || (mean_ms IS NULL) FROM ranread_report WHERE batch = $alone}),
	'0 true', 'ranread_report shows it');


# the history functions on it: each says why there is nothing to show, none divides by zero
my $read = $node->safe_psql('postgres', q{SELECT batch FROM ranread_run(1, 100)});
for my $case ([ "ranread_compare($alone, $read)", 'compare, A writers alone' ],
	[ "ranread_compare($read, $alone)", 'compare, B writers alone' ])
{
	my ($state, $e) = refused("SELECT * FROM $case->[0]");
	is($state, '22023', "$case->[1]: 22023");
	like($e, qr/has no reads to compare\nDETAIL:  It ran writers alone \(processes 0\)\./, "$case->[1]: says why");
}
my ($state, $e) = refused("SELECT ranread_chart_latency($alone)");
like($e, qr/DETAIL:  It ran writers alone \(processes 0\); its writes are in ranread_write_summary\./,
	'chart_latency says why');
($state, $e) = refused("SELECT ranread_chart_intervals($alone)");
like($e, qr/DETAIL:  It ran writers alone \(processes 0\): ranread_intervals holds reads, and it had none\./,
	'chart_intervals says why');
my $dir = PostgreSQL::Test::Utils::tempdir();
($ret, $out, $err) = $node->psql('postgres', qq{SELECT * FROM ranread_export('$dir', 'ranread')});
is($ret, 0, "RanRead's export runs") or diag($err);
like($err, qr/Left out: batch $alone \(writers alone\)\./, 'and leaves the batch out, saying why');
unlike(slurp_file((split /\n/, $out)[0]), qr/\t0\t\t0$/m, 'no row of 0 processes in the file');
($ret, $out, $err) = $node->psql('postgres', qq{SELECT * FROM ranread_export('$dir', csv => true, svg => true)});
is($ret, 0, 'the TSV, CSV and chart export runs') or diag($err);
like(slurp_file((split /\n/, $out)[0]), qr/^[^\t]*\t[^\t]*\tranread_target\t\t0\t\t0\t$alone\t/m, 'the TSV has its row');

# the write sweep: refusals, nothing recorded
# CALL ranread_write_sweep() with small defaults, overridden by name
sub sweep_call
{
	my %arg = (writers => '1', start_write_rate_iops => '20', max_write_rate_iops => '40', duration => q{'1 s'}, @_);
	return 'CALL ranread_write_sweep(' . join(', ', map { "$_ => $arg{$_}" } sort keys %arg) . ')';
}
for my $case ([ [ writers => '0' ], '22023', 'writers must be between 1 and 1024' ],
	[ [ start_write_rate_iops => '0' ], '22023', 'start_write_rate_iops must be positive' ],
	[ [ start_write_rate_iops => q{'NaN'} ], '22023', 'start_write_rate_iops must be positive' ],
	[ [ max_write_rate_iops => '10' ], '22023', 'max_write_rate_iops between it and 10000000' ],
	[ [ write_rate_step => '-5' ], '22023', 'write_rate_step must be between 0.1 and 10000000' ],
	# a step that cannot change the rate would never end the sweep (review of 1.3, D5)
	[ [ write_rate_step => '1e-300' ], '22023', 'write_rate_step must be between 0.1 and 10000000' ],
	[ [ duration => 'NULL' ], '22004', 'must not be null' ],
	[ [ slo_write_p99_ms => 'NULL' ], '22004', 'slo_write_p99_ms and slo_write_mean_ms must not both be null' ],
	[ [ slo_write_p99_ms => '0' ], '22023', 'the SLO bounds must be positive numbers' ],
	[ [ processes => '1' ], '22004', 'a write sweep with readers needs slo_p99_ms' ],
	[ [ slo_p99_ms => '5' ], '22023', 'slo_p99_ms needs readers' ],
	[ [ write_target => q{'no_such_target'} ], '42704', 'no_such_target' ])
{
	my $what = join(' => ', @{ $case->[0] });
	($state, $e) = refused(sweep_call(@{ $case->[0] }));
	is($state, $case->[1], "write sweep, $what: $case->[1]");
	like($e, qr/ERROR:  \d{5}: [^\n]*\Q$case->[2]\E/, "write sweep, $what: $case->[2]");
}
my $before = $node->safe_psql('postgres', $batches);
is($node->safe_psql('postgres', qq{SELECT (SELECT count(*) FROM ranread_write_sweeps) || ' ' || ($batches)}),
	"0 $before", 'no refused sweep recorded a sweep or a batch');

# A cancel after the first step (a statement timeout here, review of 1.3, D5):
# the sweep is recorded cancelled, with no figure to quote, and the cancel
# raised again; its completed steps are kept
($ret, $out, $err) = $node->psql('postgres', "SET statement_timeout = '6 s'; "
	  . sweep_call(write_rate_step => '1', max_write_rate_iops => '100', slo_write_p99_ms => '100000'),
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
my ($cancelled) = $node->safe_psql('postgres', q{SELECT max(write_sweep) FROM ranread_write_sweeps});
like($err, qr/ERROR:  57014: canceling statement due to statement timeout\nDETAIL:  write sweep $cancelled was cancelled during step (\d+) \([\d.]+ writes\/s asked\): it has no figure to quote; the steps before are kept\./,
	'a write sweep cancelled after its first step: the cancel again, its DETAIL the sweep\'s');
my ($during) = $err =~ /during step (\d+)/;
is($node->safe_psql('postgres', qq{SELECT status || ' ' || steps || ' ' || stop_rule || ' ' || (best_write_rate_iops IS NULL)
	|| ' ' || (SELECT count(*) FROM ranread_write_sweep_steps s WHERE s.write_sweep = w.write_sweep)
	FROM ranread_write_sweeps w WHERE write_sweep = $cancelled}), 'cancelled ' . ($during - 1) . ' cancelled true ' . ($during - 1),
	'its row says cancelled, not running, and its completed steps are kept');

# A step whose batch ends long before its duration (an open-loop reader whose
# one read falls after it, review of 1.3, D7): no rate is measured over a
# few ms, so the step did not complete, and its NOTICE says why
($ret, $out, $err) = $node->psql('postgres', sweep_call(processes => '1', rate_iops => '0.01', slo_p99_ms => '5'));
my ($early) = $node->safe_psql('postgres', q{SELECT max(write_sweep) FROM ranread_write_sweeps});
like($err, qr/NOTICE:  write sweep $early step 1: 20\.0 writes\/s asked, [\d.]+ achieved over [\d.]+ s, its batch ended before its 1 s; .*: stop \(step ended\)/,
	'a step whose batch ended early says so, and stops the sweep');
is($node->safe_psql('postgres', qq{SELECT completed || ' ' || decision || ' ' || within_slo FROM ranread_write_sweep_steps
	WHERE write_sweep = $early}), 'false step ended false', 'its step is recorded as not completed');
is($node->safe_psql('postgres', qq{SELECT w.elapsed_s >= b.wall_s FROM ranread_write_results w JOIN ranread_batches b USING (batch)
	WHERE w.batch = (SELECT batches[1] FROM ranread_write_sweep_steps WHERE write_sweep = $early)}), 't',
	'the writer\'s span runs to the end of the batch, not to its last commit');

# an SLO no write meets: stops at step 1, with that rule named
($ret, $out, $err) = $node->psql('postgres', sweep_call(slo_write_p99_ms => '0.001'));
is($ret, 0, 'a write sweep with an SLO of 1 us runs') or diag($err);
my @step_notices = $err =~ /NOTICE:  (write sweep \d+ step \d+: .*)$/mg;
my ($first) = $node->safe_psql('postgres', q{SELECT max(write_sweep) FROM ranread_write_sweeps});
my $steps = $node->safe_psql('postgres', qq{SELECT string_agg(step || ' ' || write_rate_iops || ' ' || decision || ' '
	|| within_slo || ' ' || (write_p99_ms > 0.001 OR write_iops < 0.95 * write_rate_iops OR NOT completed), ',' ORDER BY step)
	FROM ranread_write_sweep_steps WHERE write_sweep = $first});
my ($d1) = $node->safe_psql('postgres', qq{SELECT decision FROM ranread_write_sweep_steps WHERE write_sweep = $first AND step = 1});
ok($d1 eq 'write p99 over SLO' || $d1 eq 'write rate missed' || $d1 eq 'step ended', "step 1 stopped it ($d1)");
like($steps, qr/^1 20 [^,]+ false true$/, 'at its first rate, outside the SLO, as its recorded figures say');
is(scalar(@step_notices), 1, 'one NOTICE for its one step');
like($err, qr/NOTICE:  write sweep $first \(1 writer alone, 1 s steps, commit p99 <= 0.001 ms\): no write rate was within the SLO; the first, 20.0 writes\/s, stopped it \(\Q$d1\E\)(?:\n|\z)/,
	'its verdict says no rate was within the SLO, and the rule');
is($node->safe_psql('postgres', qq{SELECT status || ' ' || steps || ' ' || stop_rule || ' ' || (best_write_rate_iops IS NULL)
	FROM ranread_write_sweeps WHERE write_sweep = $first}), "completed 1 $d1 true", 'its row records it');

# a far SLO: every step within it, so it stops at max_write_rate_iops
($ret, $out, $err) = $node->psql('postgres',
	q{CALL ranread_write_sweep(writers => 2, start_write_rate_iops => 10, write_rate_step => 10, max_write_rate_iops => 30, duration => '1 s', slo_write_p99_ms => 100000)});
is($ret, 0, 'a write sweep with a far SLO runs') or diag($err);
my ($far) = $node->safe_psql('postgres', q{SELECT max(write_sweep) FROM ranread_write_sweeps});
my $rows = $node->safe_psql('postgres', qq{SELECT string_agg(step || ' ' || write_rate_iops || ' ' || within_slo
	|| ' ' || (write_iops >= 0.95 * write_rate_iops AND completed AND write_p99_ms <= 100000) || ' ' || decision, ',' ORDER BY step)
	FROM ranread_write_sweep_steps WHERE write_sweep = $far});
if ($rows =~ /^1 10 true true go on,2 20 true true go on,3 30 true true max_write_rate_iops$/)
{
	pass('three steps, 10, 20, 30 writes/s, each within the SLO, the last stopped at the max');
	like($err, qr/NOTICE:  write sweep $far \(2 writers alone, 1 s steps, commit p99 <= 100000 ms\): the volume absorbed 30.0 writes\/s \([\d.]+ achieved\) within the SLO, the highest rate asked: raise max_write_rate_iops to find its limit(?:\n|\z)/,
		'its verdict names 30 writes/s, the highest rate asked');
}
else
{
	# this VM's writers fell below 95 % of a step's rate: the decision must say so
	like($rows, qr/(?:^|,)\d+ \d+ false false write rate missed$/, "a step missed its rate, and the sweep stopped there: $rows");
	pass('(its verdict then names the step before)');
}
is($node->safe_psql('postgres', qq{SELECT bool_and(b.sweep IS NULL AND b.processes = 0) FROM ranread_write_sweep_steps s,
	unnest(s.batches) x(batch) JOIN ranread_batches b USING (batch) WHERE s.write_sweep = $far}), 't',
	"the steps' batches are recorded, writers alone");

# with a reader: an SLO on the reads' p99 no read meets stops the first step
($ret, $out, $err) = $node->psql('postgres',
	q{CALL ranread_write_sweep(writers => 1, start_write_rate_iops => 20, max_write_rate_iops => 40, duration => '1 s', processes => 1, rate_iops => 50, slo_write_p99_ms => 100000, slo_p99_ms => 0.000001)});
is($ret, 0, 'a write sweep beside a reader runs') or diag($err);
my ($reads) = $node->safe_psql('postgres', q{SELECT max(write_sweep) FROM ranread_write_sweeps});
$rows = $node->safe_psql('postgres', qq{SELECT step || ' ' || within_slo || ' ' || decision || ' ' || (read_p99_ms > 0.000001)
	|| ' ' || (write_iops >= 0.95 * write_rate_iops) FROM ranread_write_sweep_steps WHERE write_sweep = $reads});
ok($rows eq '1 false read p99 over SLO true true' || $rows =~ /^1 false write rate missed \w+ false$/,
	"the readers' p99 stopped it at step 1, unless the writers missed their rate first: $rows");
like($err, qr/NOTICE:  write sweep $reads step 1: 20.0 writes\/s asked, [\d.]+ achieved; commit mean [\d.]+ ms, p99 [\d.]+ ms; reads p99 [\d.]+ ms \(band [\w.]+ %\): stop/,
	"its step NOTICE gives the reads' p99");

# ranread_write_sweep_decide() is pure: its refusals
($state, $e) = refused(q{SELECT * FROM ranread_write_sweep_decide(100, -1, 1, 1, true, NULL, NULL, 1, 200, NULL, 10, NULL)});
is($state, '22023', 'decide: a negative figure, 22023');
($state, $e) = refused(q{SELECT * FROM ranread_write_sweep_decide(100, 100, 1, 1, true, NULL, NULL, 0, 200, NULL, 10, NULL)});
is($state, '22023', 'decide: runs 0, 22023');
is($node->safe_psql('postgres', q{SELECT decision || ' ' || within_slo FROM ranread_write_sweep_decide(100, 100, 1, 1, true, 5.2, 10, 1, 200, NULL, 10, 5)}),
	'repeat false', "decide: reads' p99 5.2 ms within its 10 % band of 5: repeat (outside by its point estimate)");

$node->safe_psql('postgres', q{SELECT ranread_reset()});
is($node->safe_psql('postgres', q{SELECT NOT EXISTS (SELECT FROM ranread_write_sweeps)
	AND NOT EXISTS (SELECT FROM ranread_write_sweep_steps)}), 't', 'ranread_reset() forgets the write sweeps');
# While writers alone run, ranread_running() and ranread_progress show the
# batch's total row, with state 'writers alone' and no reads (review D6)
my ($wh) = start_psql($node, q{SELECT batch FROM ranread_run(0, NULL, duration => '30 s', writers => 1, write_rate_iops => 20)});
ok(wait_until($node, q{SELECT count(*) = 1 FROM ranread_running() WHERE state = 'writers alone'}),
	'ranread_running() shows a run of writers alone');
like($node->safe_psql('postgres', q{SELECT count(*) || ' ' || min(state) || ', ' || min(progress)
	FROM ranread_progress WHERE activity = 'run'}), qr/^1 writers alone, 0 reads in [0-9.]+ s$/,
	'and ranread_progress: one row, the batch in total, no reads');
$node->safe_psql('postgres', 'SELECT ranread_stop()');
$wh->finish;

ok(log_is_clean($node), 'the server log has no error a test did not cause');
$node->stop;

done_testing();
