# ranread_calibrate(): a look-ahead series (prefetch depths on 15 to 17, a
# read stream's look-ahead on 18) and ABBA pairs of sequential and random
# batches, all marked with the calibration's number; the random/sequential
# cost ratio with its range, random_page_cost and effective_io_concurrency
# by the stated rules, and an ALTER TABLESPACE naming the target's
# tablespace, applied by nobody.  Bad input, a missing privilege and a
# small target; a stopped calibration keeps its batches.  The figures are
# checked against the batches they come from; that sequential pages are
# cheaper than random ones is the device's speed (RANREAD_TEST_EXTRA=timing).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('calibrate');
my $dir = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql('postgres', qq{
	CREATE TABLESPACE "fast vol" LOCATION '$dir';
	SELECT ranread_setup('256 MB', target => 'cal', tablespace => 'fast vol', log_level => 0);
});
my $stream = $node->safe_psql('postgres', q{SELECT current_setting('server_version_num')::int >= 180000}) eq 't';

my $shown = shown($node, q{SELECT calibration, ratio > 1, ratio_min <= ratio AND ratio <= ratio_max,
	random_page_cost = greatest(1.0, round((ratio * 0.1)::numeric, 1)) OR abs(random_page_cost - greatest(1.0, ratio * 0.1)) <= 0.06,
	effective_io_concurrency, array_to_string(depths, ','), array_to_string(depth_iops, ','),
	statement, array_length(batches, 1), random_ms > sequential_ms, ratio, ratio_min, ratio_max, random_ms, sequential_ms
	FROM ranread_calibrate('cal', iterations => 500, repetitions => 2, max_depth => 8)});
like($shown, qr/WARNING:  ranread target "cal" is smaller than twice the server's memory/,
	'a target smaller than twice the server\'s memory is warned of');
like($shown, qr/NOTICE:  calibration \d+: effective_io_concurrency = \d+, the least look-ahead within 10% of the most IOPS \(\d+ at \d+\)/,
	'a NOTICE gives the look-ahead that pays');
like($shown, qr/NOTICE:  calibration \d+: a random page costs [0-9.]+ sequential ones \([0-9.]+ to [0-9.]+ over 2 repetitions\); random_page_cost = [0-9.]+/,
	'a NOTICE gives the ratio, its range and the recommendation');
like($shown, qr/HINT:  Nothing was changed\. To apply: ALTER TABLESPACE "fast vol" SET/, 'and says nothing was changed');
my ($row) = grep { /\|/ } split /\n/, $shown;
my ($calibration, $faster, $within, $cost_rule, $eic, $depths, $iops, $statement, $batch_count, $costlier, @figures) = split /\|/, $row;
my ($ratio, $ratio_min, $ratio_max, $random_ms, $sequential_ms) = @figures;
SKIP:
{
	skip timing_skip(), 2 if timing_skip();
	is($faster, 't', 'sequential pages cost less than random ones (ratio above 1)');
	is($costlier, 't', 'a random page takes longer than a sequential one');
}
is($within, 't', 'the ratio lies within its range over the repetitions');
is($cost_rule, 't', 'random_page_cost is the ratio for 90% of random reads cached, at least 1');
# the ratio is the median over the ABBA pairs of the sequential batch's IOPS
# over the random one's, and the page times are 1000 / median IOPS: the
# batches' own figures, whichever way the device answered
is($node->safe_psql('postgres', qq{
	WITH b AS (SELECT batch, distribution, iops, row_number() OVER (ORDER BY batch) AS n FROM ranread_batches
			   WHERE calibration = $calibration AND mode = 'smgr' AND prefetch = 0 AND distribution IS NOT NULL
			     AND batch > (SELECT max(batch) - 4 FROM ranread_batches WHERE calibration = $calibration)),
	pairs AS (SELECT (n + 1) / 2 AS pair, max(iops) FILTER (WHERE distribution = 'sequential') AS seq,
					 max(iops) FILTER (WHERE distribution = 'uniform') AS rnd FROM b GROUP BY 1)
	SELECT count(*) = 2
	   AND abs($ratio - avg(seq / rnd)) <= 0.006
	   AND abs($ratio_min - min(seq / rnd)) <= 0.006 AND abs($ratio_max - max(seq / rnd)) <= 0.006
	   AND abs($random_ms - 1000 / avg(rnd)) <= 0.0001 + 1e-6 * $random_ms
	   AND abs($sequential_ms - 1000 / avg(seq)) <= 0.0001 + 1e-6 * $sequential_ms
	FROM pairs}),
	't', "the ratio ($ratio), its range and the page times are the two pairs' figures (a median of 2 is their mean)");
is($depths, $stream ? '1,2,4,8' : '0,1,2,4,8', 'the look-ahead series doubles up to max_depth');
my @depths = split /,/, $depths;
my @iops = split /,/, $iops;
my ($best) = sort { $b <=> $a } @iops;
my ($expected) = map { $depths[$_] } grep { $iops[$_] >= $best * 0.9 } 0 .. $#depths;
is($eic, $expected, "effective_io_concurrency $eic: the least depth within 10% of the most IOPS ($iops)");
like($statement, qr/^ALTER TABLESPACE "fast vol" SET \(random_page_cost = \d+\.\d, effective_io_concurrency = $eic\);$/,
	'the statement sets both on the target\'s tablespace, quoted');
is($batch_count, scalar(@depths) + 4, 'its batches: the series and two pairs');
is($node->safe_psql('postgres', qq{
	SELECT string_agg(distribution || ':' || mode, ',' ORDER BY batch) FROM ranread_batches
	WHERE calibration = $calibration AND (mode = 'smgr' AND prefetch = 0 AND distribution IS NOT NULL)
	  AND batch > (SELECT max(batch) - 4 FROM ranread_batches WHERE calibration = $calibration)}),
	'sequential:smgr,uniform:smgr,uniform:smgr,sequential:smgr', 'the pairs run in ABBA order');
is($node->safe_psql('postgres', qq{SELECT count(*) FROM ranread_batches WHERE calibration = $calibration AND processes = 1 AND status = 'completed'}),
	$batch_count, 'each batch is one process, completed, marked with the calibration');
is($node->safe_psql('postgres', q{SELECT spcoptions IS NULL FROM pg_tablespace WHERE spcname = 'fast vol'}), 't',
	'nothing was applied');

# cached_pct => 0: the raw ratio
is($node->safe_psql('postgres', q{SELECT abs(random_page_cost - greatest(1.0, ratio)) <= 0.06
	FROM ranread_calibrate('cal', iterations => 500, repetitions => 1, max_depth => 1, cached_pct => 0)}),
	't', 'with cached_pct => 0, random_page_cost is the measured ratio');

# the statement applies; on 18 the stream's look-ahead then follows the tablespace, not the series
$node->safe_psql('postgres', $statement);
like($node->safe_psql('postgres', q{SELECT spcoptions::text FROM pg_tablespace WHERE spcname = 'fast vol'}),
	qr/random_page_cost=.*effective_io_concurrency=$eic/, 'the statement applies as given');
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
if ($stream)
{
	my $again = shown($node, q{SELECT * FROM ranread_calibrate('cal', 500, 1, 2)}, verbose => 1);
	is(sqlstate_of($again), '55000', 'on 18, a tablespace with its own look-ahead is refused');
	like($again, qr/HINT:  Run ALTER TABLESPACE "fast vol" RESET \(effective_io_concurrency\)/, 'with the way out');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'before any batch');
	$node->safe_psql('postgres', q{ALTER TABLESPACE "fast vol" RESET (effective_io_concurrency)});
}
else
{
	# its own series 0, 1, 2 runs, and its pick follows the rule on that
	# series, not the tablespace's effective_io_concurrency
	my ($own_eic, $own_depths, $own_iops) = split /\|/, $node->safe_psql('postgres', q{
		SELECT effective_io_concurrency, array_to_string(depths, ','), array_to_string(depth_iops, ',')
		FROM ranread_calibrate('cal', 500, 1, 2)});
	my @own_depths = split /,/, $own_depths;
	my @own_iops = split /,/, $own_iops;
	my ($own_best) = sort { $b <=> $a } @own_iops;
	my ($own_expected) = map { $own_depths[$_] } grep { $own_iops[$_] >= $own_best * 0.9 } 0 .. $#own_depths;
	is("$own_depths $own_eic", "0,1,2 $own_expected",
		'before 18, prefetch depths are its own (0, 1, 2) and so is its pick: the tablespace\'s setting does not matter');
	$batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
}

# a transaction that keeps one snapshot would never see the workers' batches
like(shown($node, q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT * FROM ranread_calibrate('cal', 500, 1, 1)}, verbose => 1),
	qr/ERROR:  25000: ranread_calibrate cannot run in a transaction of isolation level repeatable read or serializable/,
	'calibrate refuses a repeatable read transaction');
like(shown($node, q{BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT * FROM ranread_layers(1, 100)}),
	qr/ERROR:  ranread_layers cannot run in a transaction of isolation level repeatable read or serializable/,
	'and so does ranread_layers in a serializable one');

# bad input, refused before anything is recorded
foreach my $case (
	[ q{ranread_calibrate(NULL)}, qr/target, iterations, repetitions, max_depth and cached_pct must not be null/, '22004' ],
	[ q{ranread_calibrate('cal', 99)}, qr/iterations must be at least 100/, '22023' ],
	[ q{ranread_calibrate('cal', 50000)}, qr/iterations must be at most the target's 32768 blocks/, '22023' ],
	[ q{ranread_calibrate('cal', repetitions => 0)}, qr/repetitions must be between 1 and 10/, '22023' ],
	[ q{ranread_calibrate('cal', repetitions => 11)}, qr/repetitions must be between 1 and 10/, '22023' ],
	[ q{ranread_calibrate('cal', max_depth => 0)}, qr/max_depth must be between 1 and 1000/, '22023' ],
	[ q{ranread_calibrate('cal', max_depth => 1001)}, qr/max_depth must be between 1 and 1000/, '22023' ],
	[ q{ranread_calibrate('cal', cached_pct => 100)}, qr/cached_pct must be at least 0 and below 100/, '22023' ],
	[ q{ranread_calibrate('cal', cached_pct => 'NaN')}, qr/cached_pct must be at least 0 and below 100/, '22023' ],
	[ q{ranread_calibrate('no_such_target')}, qr/ranread target "no_such_target" does not exist/, undef ])
{
	my $out = shown($node, "SELECT * FROM $case->[0]", verbose => 1);
	like($out, $case->[1], "$case->[0] is refused");
	is(sqlstate_of($out), $case->[2], "as $case->[2]") if defined $case->[2];
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'and records nothing');

# a role that may call ranread_calibrate but not ranread_run
$node->safe_psql('postgres', q{
	CREATE ROLE tuner LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_calibrate TO tuner;
});
my $denied = shown($node, q{SET ROLE tuner; SELECT * FROM ranread_calibrate('cal')}, verbose => 1);
like($denied, qr/ERROR:  42501: permission denied to run ranread_calibrate/, 'calibrating needs EXECUTE on ranread_run()');

# ranread_stop() during a calibration: it ends with an error, its batches stay
my ($h, $out, $err) = start_psql($node, q{SELECT * FROM ranread_calibrate('cal', iterations => 30000, repetitions => 1, max_depth => 1)});
wait_for_readers($node, 1);
$node->safe_psql('postgres', 'SELECT ranread_stop()');
$h->finish;
like($$err, qr/ERROR:  57014: calibration (\d+) ended at batch (\d+), which did not complete/, 'a stopped calibration ends with an error');
my ($stopped) = $$err =~ /calibration (\d+) ended/;
is($node->safe_psql('postgres', qq{SELECT count(*), min(status) FROM ranread_batches WHERE calibration = $stopped}),
	'1|stopped', 'and the batch it stopped is kept, marked with the calibration');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
