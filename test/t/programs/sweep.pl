# CALL ranread_sweep(): one committed batch per step, each stop rule on a
# live sweep, the verdict and ranread_sweeps; another session watches it in
# ranread_progress; a cancel keeps the completed steps and marks the sweep
# cancelled; each step's noise bands; a step within the noise of a stop rule
# repeated, and a cancel during the repeat; repeat => 2; max_processes below the start and
# a max_rate_iops over the run's limit refused before anything is recorded;
# ranread_stop() stops the sweep, not only its step; it refuses
# to run where it cannot commit, or without the privileges it needs; a
# hostile search_path does not reach it.
use strict;
use warnings;
use Encode ();
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use List::Util qw(max);
use RanreadTest;

my $node = new_node('sweep');
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', target => 'sw', log_level => 0);
	SELECT ranread_setup('1 GB', target => 'long', log_level => 0);});
my $log_start = -s $node->logfile;

sub sweep_row
{
	my ($columns) = @_;
	return $node->safe_psql('postgres',
		"SELECT $columns FROM ranread_sweeps WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)");
}

my ($r, $o, $e, $h, $out, $err);

# shown(), with the verdict DETAIL's lines (a sentence a line) joined by spaces.
sub verdict_joined
{
	my $text = shown(@_);

	$text =~ s/\n(?!(?:NOTICE|DETAIL|HINT|WARNING|ERROR|CONTEXT):  )(?=.)/ /g;
	return $text;
}

# a small sweep: 1, 2, 4 processes.  Every rule that reads a measured figure
# is set far from any figure a machine gives (stop_latency_ms and the SLO
# bounds at 1 s, scaling off), so that no step stops the sweep early or is
# repeated for lying within its noise of a bound (a p99 of 4.95 ms +- 3 %
# against the default 5 ms was seen on a busy machine): the steps and their
# NOTICEs are then the code's, whatever the machine's speed.
my $far = 'stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000';
my $shown = shown($node, "CALL ranread_sweep(start_processes => 1, max_processes => 4, iterations => 300, target => 'sw', min_scaling_pct => 0, $far)");
my @steps = grep { /^NOTICE:  step \d/ } split /\n/, $shown;
like($shown, qr/^NOTICE:  step 1: 1 process, [\d,]+ IOPS ± [\d.]+ %, mean [\d.]+ ms, p99 [\d.]+ ms; (within|outside) the SLO\nDETAIL:  Noise: mean ± [\d.]+ %, p99 ± [\d.]+ %\. p99\.9 [\d.]+ ms, max [\d.]+ ms; the device answered [\d.]+%\.$/m,
	'a NOTICE per step: processes, IOPS with its noise band, mean, p99 and the SLO; its DETAIL the other bands, p99.9, max and the physical proof');
like($steps[1] // '', qr/^NOTICE:  step 2: 2 processes, .*; -?\d+% of linear scaling$/, 'from step 2 on, the share of linear scaling');
# columns, not bytes: the noise bands' "±" is two bytes of UTF-8 and one
# column (CI's 17 once counted a NOTICE of 120 columns as 121)
cmp_ok(max(map { length(Encode::decode('UTF-8', $_)) } grep { /^(NOTICE|DETAIL):  step \d|^DETAIL:  Noise/ } split /\n/, $shown), '<=', 120,
	'each step NOTICE and its DETAIL fit a 120-column terminal');
my ($verdict_detail) = $shown =~ /NOTICE:  sweep \d+ completed after \d steps\nDETAIL:  (.*?)\nHINT:  /s;
cmp_ok(max(map { length } split /\n/, $verdict_detail // 'x' x 200), '<=', 99, 'the verdict DETAIL: lines of at most 99 characters');
like($verdict_detail // '', qr/\.\nKnee at /, 'a sentence a line');
(my $verdict_words = $verdict_detail // '') =~ s/\n/ /g;
like($verdict_words, qr/^Highest IOPS: [\d,]+ IOPS ± [\d.]+ % \(mean [\d.]+ ms ± [\d.]+ %, p99 [\d.]+ ms ± [\d.]+ %\) at \d process(es)?\. Highest within the SLO \(mean <= 1000 ms, p99 <= 1000 ms\): [\d,]+ IOPS ± [\d.]+ % .* at \d process(es)?: what this volume can do within the SLO, the figure to quote\. Knee at \d process(es)?: the most IOPS per ms of mean latency, the most efficient load, not the capacity\. It stopped/,
	'the verdict: the highest IOPS with its band, the highest within the SLO as the figure to quote, the knee as the efficiency point, and why it stopped');
like($shown, qr/HINT:  See ranread_verdict\(\d+\) and ranread_report WHERE sweep = \d+\./, 'its HINT names the narrow answers');
is($node->safe_psql('postgres', q{SELECT count(DISTINCT sweep_step) FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)
	AND iops_band_pct > 0 AND mean_band_pct > 0 AND p99_band_pct > 0}), '3',
	'each step\'s noise bands are stored with its batch');
is($node->safe_psql('postgres', q{
	SELECT string_agg(sweep_step || ':' || processes || ':' || status, ' ' ORDER BY batch)
	FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)
		  ORDER BY sweep_step, batch) b}),
	'1:1:completed 2:2:completed 3:4:completed',
	'a batch per step, doubling 1, 2, 4, each referencing the sweep');
is($node->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}), '3',
	'no step repeated: none lay near a bound');
is(sweep_row("status, steps, stop_rule, max_iops > 0, ended_at IS NOT NULL"), 'completed|3|max processes|t|t',
	'ranread_sweeps: completed after 3 steps at max_processes');
is($node->safe_psql('postgres', q{
	SELECT s.max_iops = (SELECT round(max(iops)) FROM ranread_batches b WHERE b.sweep = s.sweep)
	FROM ranread_sweeps s WHERE s.sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}), 't',
	'max_iops is the highest IOPS of its steps');

# each stop rule, live
$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 1, iterations => 200, target => 'sw', stop_latency_ms => 0.001)");
# (on a busy machine a step's mean can have a band of 100 % or more, within which no positive
# threshold is clearly passed: the sweep then stops undecided at the same step, and says why)
like($shown, qr/It stopped because the mean latency at 1 process, [\d.]+ ms, passed stop_latency_ms \(0\.001 ms\)\.|It stopped undecided at 1 process: after 3 runs the step's mean latency was still within its noise of stop_latency_ms \(0\.001 ms\)/,
	'latency: the verdict names the rule');
like(sweep_row('steps, stop_rule'), qr/^1\|(latency|undecided)$/, 'latency: one step, rule latency');

# no step within the SLO (mean <= 1 ns): the sweep does not search on, the scaling rule decides
# (stop_latency_ms and the p99 bound far away: only the scaling rule can stop it)
$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 2, iterations => 1000, target => 'sw', min_scaling_pct => 99.9, slo_mean_ms => 0.000001, stop_latency_ms => 1000, slo_p99_ms => 1000)");
# (a first step slowed by the machine can be doubled, 111 % of linear was seen: then a later step stops it)
like($shown, qr/It stopped because from (\d+) to (??{ 2 * $1 }) processes IOPS gained -?\d+% of what linear scaling would have gained \(min_scaling_pct 99\.9%\): the storage is saturated\.|It stopped undecided at \d+ processes: after 3 runs the step's scaling was still within its noise of min_scaling_pct \(99\.9%\)/,
	'scaling: the verdict names the share and the rule (or, within the noise after the repeats, says it could not decide)');
like(sweep_row('steps, stop_rule'), qr/^[2-9]\|(scaling|undecided)$/, 'scaling: it stops after two steps or more, rule scaling');

$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 1, step_processes => 2, max_processes => 5, iterations => 100, target => 'sw', min_scaling_pct => 0, $far)");
is($node->safe_psql('postgres', q{SELECT string_agg(processes::text, ',' ORDER BY sweep_step) FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs) ORDER BY sweep_step, batch) b}) =~ /^1,3(,5)?$/ ? 1 : 0, 1,
	'a fixed step adds step_processes: 1, 3, 5');

$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 1, rate_iops => 1000000, duration => '1 s', target => 'long')");
like($shown, qr/step 1: 1,000,000 reads\/s, .*It stopped because at 1,000,000 reads\/s asked it achieved [\d,]+: the storage is saturated\./s,
	'open loop: a rate not kept stops the sweep (rate missed)');
is(sweep_row('steps, stop_rule'), '1|rate missed', 'rate missed: one step');

# (a machine too busy to keep 100 reads/s for a second stops it by rate missed:
# the rule book is right, and the test tries again, up to three times)
my $rates;
for my $attempt (1 .. 3)
{
	$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 1, rate_iops => 100, max_rate_iops => 200, duration => '1 s', target => 'sw', $far)");
	$rates = $node->safe_psql('postgres', q{SELECT string_agg(rate_iops::text, ',' ORDER BY sweep_step) FROM ranread_batches
		WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)});
	last unless sweep_row('stop_rule') eq 'rate missed';
	note("attempt $attempt: this machine did not keep the rate ($rates)");
}
is($rates, '100,200', 'open loop: the rate doubles, up to max_rate_iops');
is(sweep_row('stop_rule'), 'max rate', 'max rate: the rule');

# a step whose stop decision lies within its noise is repeated, its runs combined, at most twice:
# a trigger gives every batch a noise band of 400 %, so that no mean is clearly over stop_latency_ms
$node->safe_psql('postgres', q{CREATE FUNCTION noisy_bands() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN NEW.iops_band_pct := 400; NEW.mean_band_pct := 400; NEW.p99_band_pct := 400; RETURN NEW; END $$;
	CREATE TRIGGER noisy_bands BEFORE INSERT ON ranread_batches FOR EACH ROW EXECUTE FUNCTION noisy_bands();});
$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 1, max_processes => 4, iterations => 200, target => 'sw', stop_latency_ms => 0.001)");
like($shown, qr/NOTICE:  step 1 is within the noise of a stop rule: running it again \(repeat 1 of at most 2\), its runs combined\nDETAIL:  Its mean latency, [\d.]+ ms ± 400 %, is over stop_latency_ms \(0\.001 ms\) by less than its noise\.\n/,
	'a step within the noise of stop_latency_ms: a NOTICE says it is repeated, and why');
like($shown, qr/NOTICE:  step 1: 1 process, .*, 2 runs combined; .*\n.*repeat 2 of at most 2.*\nNOTICE:  step 1: 1 process, .*, 3 runs combined; /s,
	'each repeat\'s step NOTICE shows the runs combined, twice at most');
like($shown, qr/It stopped undecided at 1 process: after 3 runs the step's mean latency was still within its noise of stop_latency_ms \(0\.001 ms\), so the sweep cannot tell whether that rule holds there\./,
	'after the most repeats the verdict says the sweep could not decide, instead of guessing');
is(sweep_row('steps, stop_rule'), '1|undecided', 'ranread_sweeps: one step (its three runs combined), rule undecided');
is($node->safe_psql('postgres', q{SELECT string_agg(sweep_step || ':' || status, ' ' ORDER BY batch) FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}), '1:completed 1:completed 1:completed',
	'each run is a batch of the same sweep_step');

# a cancel during a repeat keeps what was measured: the step's first run and the repeat's reads
($h, $out, $err) = start_psql($node,
	"CALL ranread_sweep(start_processes => 1, max_processes => 4, duration => '6 s', target => 'long', stop_latency_ms => 0.001)");
ok(wait_until($node, q{
	SELECT count(*) = 1 FROM ranread_progress p
	WHERE p.activity = 'run' AND p.step = 1 AND p.progress !~ '^0 '
	  AND p.sweep = (SELECT max(sweep) FROM ranread_sweep_runs)
	  AND EXISTS (SELECT FROM ranread_batches b WHERE b.sweep = p.sweep AND b.sweep_step = 1)}),
	'the sweep is reading the repeat of its step 1');
$node->safe_psql('postgres', "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'CALL ranread_sweep(start_processes => 1, max_processes => 4, duration => ''6 s''%'");
$h->finish;
like($$err, qr/canceling statement due to user request/, 'the CALL is cancelled during the repeat');
# the cut repeat's workers record it after the error has reached the client
ok(wait_for_no_workers($node), 'the cancelled repeat\'s workers have recorded it and ended');
is($node->safe_psql('postgres', q{SELECT string_agg(sweep_step || ':' || status, ' ' ORDER BY batch) FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}), '1:completed 1:cancelled',
	'the first run is kept, and the repeat recorded what it measured, as cancelled');
is(sweep_row('status, steps, stop_rule'), 'cancelled|1|cancelled', 'the sweep shows as cancelled');
like(sweep_row('verdict'), qr/^Highest IOPS: [\d,]+ IOPS ± 400 % .* at 1 process\. .*It was cancelled during a repeat of step 1; the step's completed run and the steps before are kept\.$/,
	'its verdict keeps the completed run\'s figures and says the repeat was cancelled');
$node->safe_psql('postgres', 'DROP TRIGGER noisy_bands ON ranread_batches; DROP FUNCTION noisy_bands()');

# repeat => 2: the whole sweep twice, then the median and spread of each
# verdict figure, and its band between the sweeps against its step's own
# (the SLO far from any figure, so that every step meets it and none repeats)
my $first_new = $node->safe_psql('postgres', 'SELECT coalesce(max(sweep), 0) + 1 FROM ranread_sweep_runs');
$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 100, target => 'sw', min_scaling_pct => 0, $far, repeat => 2)");
my $figure = qr/median [\d,]+ IOPS, from [\d,]+ to [\d,]+ \(spread [\d.]+ % of the median\), at \d process(?:es)? in [12] of 2 sweeps; between sweeps ± ([\d.]+) %, within a step ± ([\d.]+) %: (?:the sweeps differed by no more than a step's own noise makes them|± [\d.]+ % of it is not a step's own noise but changed between the sweeps \(the device's state, other load\))/;
like($shown, qr/NOTICE:  sweep (\d+) completed after 2 steps\n.*NOTICE:  sweep \d+ completed after 2 steps\n.*NOTICE:  2 sweeps of 2 asked\nDETAIL:  Sweeps \d+ to \d+\. Highest within the SLO: $figure\. Highest IOPS: $figure\. Knee at \d process(es)? in [12] of 2 sweeps\./s,
	'repeat => 2 runs the sweep twice and reports the median, spread and bands of its verdicts');
# each sweep's highest step: its IOPS and its own band, as recorded
my @highest = map { [ split /\|/ ] } split /\n/, $node->safe_psql('postgres', qq{
	SELECT DISTINCT ON (sweep) iops, iops_band_pct FROM ranread_batches
	WHERE sweep >= $first_new AND status = 'completed' ORDER BY sweep, iops DESC});
my ($iops_a, $iops_b) = ($highest[0][0], $highest[1][0]);
# two sweeps: standard deviation |a - b| / sqrt(2); the band is 2 of them, in % of the median
my $between = 200 * abs($iops_a - $iops_b) / sqrt(2) / (($iops_a + $iops_b) / 2);
my $within = ($highest[0][1] + $highest[1][1]) / 2;
my $band = sub { sprintf($_[0] < 10 ? '%.1f' : '%.0f', $_[0]) };
my ($shown_between, $shown_within) = $shown =~ /Highest IOPS: $figure/;
is("$shown_between $shown_within", $band->($between) . ' ' . $band->($within),
	sprintf('the band between the sweeps is 2 standard deviations of their highest IOPS (%.0f, %.0f), the band within a step the median of their own (%.1f, %.1f)',
		$iops_a, $iops_b, $highest[0][1], $highest[1][1]));

# max_processes below the default start of 10: refused, saying how
($r, $o, $e) = $node->psql('postgres', "CALL ranread_sweep(max_processes => 4, target => 'sw')");
like($e, qr/max_processes 4 is below start_processes 10\nDETAIL:  A sweep starts at start_processes \(10 unless given\) and steps up to max_processes\.\nHINT:  To sweep up to 4 processes, give a start too: CALL ranread_sweep\(start_processes => 1, max_processes => 4, \.\.\.\)\./,
	'max_processes below the default start of 10 is refused with the call that sweeps up to it');

# max_rate_iops over the run's limit: refused before anything is recorded
my $sweeps_now = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs');
($r, $o, $e) = $node->psql('postgres', "CALL ranread_sweep(rate_iops => 9e6, max_rate_iops => 2e7, duration => '1 s', target => 'sw')");
like($e, qr/max_rate_iops must be at most 10000000/, 'a max_rate_iops over the run\'s 10,000,000 is refused');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs'), $sweeps_now, 'and no sweep is recorded');

# drain out of its range (10 s to a day): 22023, before anything is recorded
foreach my $drain ('1 s', '2 days', '-10 s')
{
	($r, $o, $e) = $node->psql('postgres', "CALL ranread_sweep(start_processes => 1, drain => '$drain', target => 'sw')",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($e, qr/22023: drain must be between 10 s and 86400 s/, "a drain of $drain is refused (22023)");
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs'), $sweeps_now, 'and no sweep is recorded');

# probe out of its range (0 s to a day), or with an open loop: 22023, before anything is recorded
foreach my $probe ('-1 s', '2 days')
{
	($r, $o, $e) = $node->psql('postgres', "CALL ranread_sweep(start_processes => 1, probe => '$probe', target => 'sw')",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($e, qr/22023: probe must be between 0 s and 86400 s/, "a probe of $probe is refused (22023)");
}
($r, $o, $e) = $node->psql('postgres', "CALL ranread_sweep(rate_iops => 100, probe => '0 s', duration => '1 s', target => 'sw')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/22023: an open-loop sweep cannot probe/, 'an open-loop sweep with probes is refused (22023)');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs'), $sweeps_now, 'and no sweep is recorded');

# a drain where no bucket runs empty reads to its bound, is step 0, and says so
$shown = verdict_joined($node, "CALL ranread_sweep(start_processes => 1, max_processes => 1, iterations => 100, drain => '10 s', target => 'long', $far)");
like($shown, qr/NOTICE:  drain: batch \d+, completed/, 'a drain: its NOTICE');
# The VM disk has no bucket, but other I/O starting on a busy machine can
# move its level down in the middle of the drain (CI: 14,389 then 9,263
# reads/s, 40 % of vda's reads not ranread's); the drain then says so.
my $drain_shifted = $node->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs) AND sweep_step = 0
	  AND array_to_string(warnings, ' ') LIKE '%IOPS shifted down%'});
if ($drain_shifted)
{
	like($shown, qr/The drain \(batch \d+, 1 process, at most 10 s\) read [0-9.]+ s: a burst of [0-9,.]+ reads\/s.* then a baseline of /,
		'a drain whose level other I/O moved down: the verdict gives the shift it WARNed of');
}
else
{
	like($shown, qr/The drain \(batch \d+, 1 process, at most 10 s\) read [0-9.]+ s at [0-9,.]+ IOPS.* with no burst bucket running empty/,
		'a drain without a bucket: the verdict says none ran empty');
}
is($node->safe_psql('postgres', q{SELECT string_agg(sweep_step::text, ',' ORDER BY batch) FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}), '0,1', 'a drain is a batch of the sweep, step 0, before step 1');
is(sweep_row('steps'), '1', 'and not a step');
# ranread_stop() during the drain stops the sweep before step 1 and keeps what the drain read
($h, $out, $err) = start_psql($node,
	"CALL ranread_sweep(start_processes => 1, max_processes => 1, iterations => 100, drain => '60 s', target => 'long', $far)");
ok(wait_until($node, q{SELECT count(*) = 1 FROM ranread_running() WHERE worker IS NULL AND sweep_step = 0 AND reads > 0}),
	'a drain of 60 s is reading');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() during the drain');
$h->finish;
is($node->safe_psql('postgres', q{SELECT string_agg(sweep_step || ':' || status || ':' || (reads > 0), ',' ORDER BY batch) FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}), '0:stopped:true', 'the drain is kept as stopped, with its reads; no step ran');
is(sweep_row('status, steps'), 'stopped|0', 'the sweep is stopped before step 1');
$sweeps_now = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs');

# worker slots: max_worker_processes 4 leaves 3 free (the logical replication launcher has one)
my $small = new_node('sweep_slots', max_worker_processes => 4);
$small->safe_psql('postgres', "SELECT ranread_setup('16 MB', target => 'sw', log_level => 0)");
$shown = verdict_joined($small, "CALL ranread_sweep(start_processes => 3, max_processes => 8, iterations => 100, target => 'sw', $far)");
like($shown, qr/NOTICE:  max_processes 8 is more than the 3 free worker slots: the sweep goes up to 3 processes\nHINT:  Raise max_worker_processes \(now 4\)/,
	'a max_processes over the free worker slots is bounded, with a NOTICE');
like($shown, qr/It stopped at 3 processes, as many as background worker slots were free; raise max_worker_processes to go further\./,
	'worker slots: the verdict says the bound was hit');
is($small->safe_psql('postgres', 'SELECT max_processes, max_processes_by FROM ranread_sweep_runs'), '3|worker slots',
	'ranread_sweep_runs keeps the bound and where it came from');
($r, $o, $e) = $small->psql('postgres', "CALL ranread_sweep(start_processes => 4, iterations => 100, target => 'sw')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/53000: the first step needs 4 worker slots, but only 3 are free/, 'a first step larger than the free slots is refused (53000)');
$small->stop;

# where a COMMIT cannot be
my $count = q{SELECT count(*) FROM ranread_sweep_runs};
my $sweeps_before = $node->safe_psql('postgres', $count);
($r, $o, $e) = $node->psql('postgres', "BEGIN; CALL ranread_sweep(start_processes => 1, target => 'sw'); COMMIT;",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/2D000: ranread_sweep cannot run inside a transaction block\nDETAIL:  It commits after each step/,
	'in a transaction block: 2D000, saying why');
$node->safe_psql('postgres', q{CREATE FUNCTION sweep_in_function() RETURNS void LANGUAGE plpgsql
	AS $$ BEGIN CALL ranread_sweep(start_processes => 1, target => 'sw'); END $$});
($r, $o, $e) = $node->psql('postgres', 'SELECT sweep_in_function()', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/2D000: ranread_sweep cannot run inside a transaction block/, 'in a function: 2D000');
is($node->safe_psql('postgres', $count), $sweeps_before, 'neither recorded a sweep');

# another session watches the sweep; a cancel in step 2 keeps step 1 (steps
# of 5 s, not of a count of reads: a fast machine finished a step of 100,000
# reads a process before the cancel, seen at 30,000 IOPS to take seconds,
# reached it, and the cancel landed in step 3)
($h, $out, $err) = start_psql($node,
	"CALL ranread_sweep(start_processes => 1, max_processes => 4, duration => '5 s', target => 'long', min_scaling_pct => 0, $far)");
ok(wait_until($node, q{
	SELECT count(*) = 1 FROM ranread_progress
	WHERE activity = 'run' AND step = 2 AND progress ~ '^[1-9][0-9]* reads in ' AND state = '2 of 2 reading'
	  AND sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}),
	'ranread_progress shows the running sweep, its step 2 and its reads from another session');
is(sweep_row('status, steps'), 'running|1', 'ranread_sweeps: running, one step committed');
$node->safe_psql('postgres', "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'CALL ranread_sweep(start_processes => 1, max_processes => 4, duration%'");
$h->finish;
like($$err, qr/canceling statement due to user request/, 'the CALL is cancelled');
# the cut step's workers record it after the error has reached the client
ok(wait_for_no_workers($node), 'the cancelled step\'s workers have recorded it and ended');
is($node->safe_psql('postgres', q{SELECT string_agg(sweep_step || ':' || status, ' ' ORDER BY batch) FROM ranread_batches
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}), '1:completed 2:cancelled',
	'step 1 is kept, committed; step 2 recorded what it measured, as cancelled');
is(sweep_row('status, steps, stop_rule'), 'cancelled|2|cancelled', 'the sweep shows as cancelled');
like(sweep_row('verdict'), qr/^Highest IOPS: .* at 1 process\. .*It was cancelled during step 2; the steps before are kept\.$/,
	'its verdict counts step 1 only and says it was cancelled');

# ranread_stop() from another session stops the sweep, not only its step (the
# SLO far away: a step near its bound would run again, and the stop land in
# the repeat)
($h, $out, $err) = start_psql($node,
	"CALL ranread_sweep(start_processes => 1, max_processes => 8, duration => '5 s', target => 'long', min_scaling_pct => 0, $far)");
ok(wait_until($node, q{SELECT count(*) = 1 FROM ranread_running() WHERE worker IS NULL AND sweep_step = 2 AND reads > 0}),
	'the next sweep reaches step 2');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() signals the sweep\'s session, which stops its step');
$h->finish;
like($$out . $$err, qr/NOTICE:  (00000: )?sweep \d+ stopped after 2 steps/, 'the CALL ends normally: stopped after 2 steps');
is(sweep_row('status, steps, stop_rule'), 'stopped|2|stopped', 'no step 3: the sweep is stopped');
like(sweep_row('verdict'), qr/It was stopped by ranread_stop\(\)\.$/, 'its verdict says so');

# a stop while a step's 16 workers are still starting: the step is stopped
# once they read (a worker stopped at the barrier would fail the step)
($h, $out, $err) = start_psql($node,
	"CALL ranread_sweep(start_processes => 16, step_processes => 1, max_processes => 20, duration => '5 s', target => 'long', min_scaling_pct => 0, $far)");
my $seen = 0;
for (1 .. 1000)
{
	$seen = $node->safe_psql('postgres', q{SELECT count(*) > 0 FROM ranread_progress WHERE step = 2
		AND sweep = (SELECT max(sweep) FROM ranread_sweep_runs)});
	last if $seen eq 't';
}
is($seen, 't', 'the sweep starts its step 2');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() at once');
$h->finish;
like($$out . $$err, qr/NOTICE:  (00000: )?sweep \d+ stopped after 2 steps/, 'the CALL ends normally, stopped after 2 steps, whenever in the step the stop came');
is(sweep_row('status, steps'), 'stopped|2', 'the sweep is stopped, not interrupted');
is($node->safe_psql('postgres', q{SELECT status FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs) AND sweep_step = 2}),
	'stopped', 'its step 2 is recorded as stopped');

# a role that may not signal the superuser running a sweep cannot stop it
# (steps of 3 s: the refused stop must find the sweep still running)
$node->safe_psql('postgres', q{CREATE ROLE stopper LOGIN; GRANT EXECUTE ON FUNCTION ranread_stop TO stopper;});
($h, $out, $err) = start_psql($node,
	"CALL ranread_sweep(start_processes => 1, max_processes => 2, duration => '3 s', target => 'long', min_scaling_pct => 0, $far)");
ok(wait_until($node, q{SELECT count(*) = 1 FROM ranread_running() WHERE worker IS NULL AND reads > 0}),
	'a superuser\'s sweep is reading');
($r, $o, $e) = $node->psql('postgres', 'SET ROLE stopper; SELECT ranread_stop()', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/42501: permission denied to stop the session of ranread sweep process \d+\nDETAIL:  Only superusers may stop a superuser's ranread runs\./,
	'another role\'s ranread_stop() is refused for the sweep\'s session (42501)');
$h->finish;
like($$out . $$err, qr/NOTICE:  (00000: )?sweep \d+ completed after 2 steps/, 'and the sweep goes on to its end');

# privileges: a role with EXECUTE on the procedure only
$node->safe_psql('postgres', q{CREATE ROLE sweeper LOGIN;
	GRANT EXECUTE ON PROCEDURE ranread_sweep TO sweeper;
	GRANT SELECT ON ranread_targets, sw TO sweeper;});
$sweeps_before = $node->safe_psql('postgres', $count);
($r, $o, $e) = $node->psql('postgres', "SET ROLE sweeper; CALL ranread_sweep(start_processes => 1, iterations => 10, target => 'sw')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/42501: permission denied to run a sweep\nDETAIL:  A sweep runs ranread_run\(\) as its caller/, 'without the grants a sweep needs: 42501, saying which');
is($node->safe_psql('postgres', $count), $sweeps_before, 'and nothing is recorded');
$node->safe_psql('postgres', q{
	GRANT EXECUTE ON FUNCTION ranread_run TO sweeper;
	GRANT SELECT ON ranread_summary TO sweeper;
	GRANT USAGE ON SEQUENCE ranread_batch_seq TO sweeper;
	GRANT SELECT ON ranread_results, ranread_batches, ranread_intervals TO sweeper;
	GRANT SELECT ON ranread_sweep_runs TO sweeper;
	GRANT USAGE ON SEQUENCE ranread_sweep_seq TO sweeper;
	GRANT SELECT ON ranread_sweeps TO sweeper;
	GRANT EXECUTE ON FUNCTION ranread_sweep_verdict TO sweeper;});
$shown = shown($node, "SET ROLE sweeper; CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 100, target => 'sw', min_scaling_pct => 0, $far); SELECT status FROM ranread_sweeps ORDER BY sweep DESC LIMIT 1");
like($shown, qr/^completed\n.*NOTICE:  sweep \d+ completed after 2 steps/s, 'with the grants docs/reference.md lists, a role runs a sweep and reads its verdict');
$node->safe_psql('postgres', 'CREATE ROLE outsider LOGIN');
($r, $o, $e) = $node->psql('postgres', "SET ROLE outsider; CALL ranread_sweep(start_processes => 1, target => 'sw')");
like($e, qr/permission denied for procedure ranread_sweep/, 'PUBLIC may not call ranread_sweep');

# a hostile search_path: its own ranread_run, now() and tables are not used
# (the impostor has ranread_run's signature, read from pg_proc: it stays the
# same when ranread_run gains an argument)
my $run_arguments = $node->safe_psql('postgres', q{SELECT string_agg(format_type(t, NULL), ', ' ORDER BY n)
	FROM pg_proc p, unnest(p.proargtypes) WITH ORDINALITY AS u(t, n) WHERE p.oid = 'public.ranread_run'::regproc});
$node->safe_psql('postgres', qq{CREATE SCHEMA evil;
	CREATE FUNCTION evil.ranread_run($run_arguments)
		RETURNS void LANGUAGE sql AS 'SELECT 1/0';
	CREATE TABLE evil.ranread_sweep_runs (LIKE public.ranread_sweep_runs);
	CREATE TABLE evil.ranread_batches (LIKE public.ranread_batches);});
$shown = shown($node, "SET search_path = evil, public; CALL ranread_sweep(start_processes => 2, max_processes => 2, iterations => 100, target => 'sw')");
like($shown, qr/NOTICE:  sweep \d+ completed after 1 step\n/, 'under a hostile search_path the sweep runs ranread\'s own objects');
is($node->safe_psql('postgres', 'SELECT (SELECT count(*) FROM evil.ranread_sweep_runs) + (SELECT count(*) FROM evil.ranread_batches)'), '0',
	'and writes nothing to the impostor tables');

# each privilege the sweep needs is checked alone: SELECT on ranread_sweep_runs too
$node->safe_psql('postgres', 'REVOKE SELECT ON ranread_sweep_runs FROM sweeper');
$sweeps_before = $node->safe_psql('postgres', $count);
($r, $o, $e) = $node->psql('postgres', "SET ROLE sweeper; CALL ranread_sweep(start_processes => 1, iterations => 10, target => 'sw')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/42501: permission denied to run a sweep/, 'without SELECT on ranread_sweep_runs a sweep is refused up front');
is($node->safe_psql('postgres', $count), $sweeps_before, 'and nothing is recorded');

# EXECUTE is checked on the extension's own ranread_run(), not on one of the same signature that the search_path finds
$node->safe_psql('postgres', q{GRANT SELECT ON ranread_sweep_runs TO sweeper;
	REVOKE EXECUTE ON FUNCTION ranread_run FROM sweeper;
	GRANT USAGE ON SCHEMA evil TO sweeper;
	GRANT EXECUTE ON FUNCTION evil.ranread_run TO sweeper;});
($r, $o, $e) = $node->psql('postgres', "SET ROLE sweeper; SET search_path = evil, public; CALL ranread_sweep(start_processes => 1, iterations => 10, target => 'sw')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/42501: permission denied to run a sweep\nDETAIL:  A sweep runs ranread_run\(\) as its caller/,
	'without EXECUTE on the extension\'s ranread_run() (only on an impostor) a sweep is refused up front');
is($node->safe_psql('postgres', $count), $sweeps_before, 'and nothing is recorded');

# the extension in a schema whose name holds % and a quote
$node->safe_psql('postgres', 'CREATE DATABASE odd');
$node->safe_psql('odd', q{CREATE SCHEMA "odd%s'name"; CREATE EXTENSION ranread SCHEMA "odd%s'name";
	SET search_path = "odd%s'name"; SELECT ranread_setup('16 MB', target => 'sw', log_level => 0);});
$shown = shown($node, q{SET search_path = "odd%s'name"; CALL ranread_sweep(start_processes => 1, max_processes => 1, iterations => 100, target => 'sw');
	SELECT count(DISTINCT measure) FROM ranread_compare(1, 1)}, db => 'odd');
like($shown, qr/^8\n.*NOTICE:  sweep 1 completed after 1 step/s,
	'in a schema named odd%s\'name the sweep checks its privileges, runs and records, and compare reads its noise');

is(worker_count($node), 0, 'no ranread worker is left');
ok(log_is_clean($node, $log_start), 'no PANIC, crash, assertion or internal error in the server log');
$node->stop;
done_testing();
