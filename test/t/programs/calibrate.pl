# ranread_calibrate(): a look-ahead series in three passes (prefetch depths
# on 15 to 17, a read stream's look-ahead on 18) and ABBA pairs of
# sequential and random batches until the ratio's 95 % band is steady or
# max_pairs, all marked with the calibration's number; one NOTICE a step;
# the ratio with its band (order statistics, recomputed here from the
# batches), random_page_cost only from a band that decides it (steady, or
# its ends give the same value), effective_io_concurrency
# as the median of the passes' picks, and an ALTER TABLESPACE naming the
# target's tablespace, applied by nobody.  Bad input, a missing privilege and a
# small target; a stopped calibration keeps its batches.  The figures are
# checked against the batches they come from; that sequential pages are
# cheaper than random ones is the device's speed (RANREAD_TEST_EXTRA=timing).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
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

# The 95 % band of the median of n values by order statistics: the k-th
# smallest to the k-th largest, k the largest with 2 P(Bin(n, 1/2) <= k - 1)
# <= 5 %; 0 when there is none (fewer than 6 values).  Written here again,
# from the binomial, to check the C rule against.
sub band_rank
{
	my ($n) = @_;
	my ($k, $below, $p) = (0, 0, 0.5**$n);
	while ($k < int($n / 2) && $below + $p <= 0.025)
	{
		$below += $p;
		$p = $p * ($n - $k) / ($k + 1);
		$k++;
	}
	return $k;
}
sub median
{
	my @v = sort { $a <=> $b } @_;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

my $shown = shown($node, q{SELECT calibration, pairs, steady, coalesce(band_pct_reached, -1), coalesce(ratio_low, -1),
	coalesce(ratio_high, -1), ratio, ratio_min, ratio_max, coalesce(random_page_cost, -1), effective_io_concurrency,
	effective_io_concurrency_low, effective_io_concurrency_high, array_to_string(depths, ','),
	array_to_string(batches, ','), statement, io_method IS NULL AND io_workers_recommended IS NULL AND io_workers_steps IS NULL,
	random_ms, sequential_ms
	FROM ranread_calibrate('cal', iterations => 500, max_pairs => 8, max_depth => 8)});
like($shown, qr/WARNING:  ranread target "cal" is smaller than twice the server's memory/,
	'a target smaller than twice the server\'s memory is warned of');
my ($row) = grep { /\|/ } split /\n/, $shown;
my ($calibration, $pairs, $steady, $reached, $low, $high, $ratio, $ratio_min, $ratio_max, $cost, $eic, $eic_low,
	$eic_high, $depths, $batch_list, $statement, $no_io, $random_ms, $sequential_ms) = split /\|/, $row;
is($depths, $stream ? '1,2,4,8' : '0,1,2,4,8', 'the look-ahead series doubles up to max_depth');
my @depths = split /,/, $depths;
my @batches = split /,/, $batch_list;
my $series = 3 * @depths;
is(scalar(@batches), $series + 2 * $pairs, "its batches: the series three times, and $pairs pairs");
ok($pairs >= 1 && $pairs <= 8, "it ran $pairs pairs, at most max_pairs");

# one NOTICE a step: three look-ahead passes, each pair, then the answers;
# the batches' own NOTICEs go to the log at DEBUG1
my @notices = $shown =~ /^NOTICE:  (.*)$/mg;
is(scalar(@notices), 3 + $pairs + 2, 'one NOTICE per pass and per pair, and two answers: ' . scalar(@notices) . ' lines');
is(scalar(grep { /^calibration $calibration: look-ahead pass [1-3] of 3: \d+, the least within 10% of the most IOPS \([0-9,]+ at \d+\)$/ } @notices),
	3, 'each look-ahead pass says its pick');
is(scalar(grep { /^calibration $calibration: pair \d+: a random page costs [0-9.]+ sequential ones; their median [0-9.]+, (95% band [0-9.]+ to [0-9.]+ \(± \d+ %\)|no 95% band before 6 pairs)$/ } @notices),
	$pairs, 'each pair says its ratio and the band so far');
like($shown, qr/NOTICE:  calibration $calibration: effective_io_concurrency = $eic \($eic_low to $eic_high over 3 passes\), the least look-ahead within 10% of the most IOPS/,
	'a NOTICE gives the look-ahead that pays, with its range over the passes');
like($shown, $cost ne '-1'
	? qr/NOTICE:  calibration $calibration: a random page costs [0-9.]+ sequential ones \(95% band [0-9.]+ to [0-9.]+, ± \d+ %, over $pairs pairs\); random_page_cost = [0-9.]+ \([0-9.]+ to [0-9.]+\)/
	: qr/NOTICE:  calibration $calibration: a random page costs [0-9.]+ sequential ones, but (the volume was too unsteady to recommend random_page_cost: its 95% band [0-9.]+ to [0-9.]+ is ± \d+ % after $pairs pairs, wider than ± 20 %|$pairs pairs give no 95% band \(6 are needed\): no random_page_cost recommended)/,
	"a NOTICE gives the ratio with its band, and the recommendation only when the band decides it (steady: $steady)");
unlike($shown, qr/Calculated IOPS/, 'no batch NOTICE');
like($shown, qr/HINT:  Nothing was changed\. To apply: ALTER TABLESPACE "fast vol" SET/, 'and says nothing was changed');
is($no_io, 't', 'without io_workers => true, the io_workers columns are NULL');

SKIP:
{
	skip timing_skip(), 2 if timing_skip();
	cmp_ok($ratio, '>', 1, 'sequential pages cost less than random ones (ratio above 1)');
	cmp_ok($random_ms, '>', $sequential_ms, 'a random page takes longer than a sequential one');
}

# the pairs: ABBA, and their ratios are the batches' own
my @pair_batches = @batches[$series .. $#batches];
my %figure = map { my ($b, $d, $m, $p, $t) = split /\|/; ($b => [ $d, $m, $p, $t ]) } split /\n/, $node->safe_psql('postgres',
	"SELECT batch, distribution, mode, prefetch, response_time_ms FROM ranread_batches WHERE batch IN (" . join(',', @pair_batches) . ")");
is(join(',', map { $figure{$_}[0] . ':' . $figure{$_}[1] } @pair_batches[0 .. 3]),
	'sequential:smgr,uniform:smgr,uniform:smgr,sequential:smgr', 'the pairs run in ABBA order') if $pairs >= 2;
my (@ratios, @seq, @rnd);
foreach my $i (0 .. $pairs - 1)
{
	my ($x, $y) = @pair_batches[2 * $i, 2 * $i + 1];
	($x, $y) = ($y, $x) if $figure{$x}[0] ne 'sequential';
	push @seq, $figure{$x}[3];
	push @rnd, $figure{$y}[3];
	push @ratios, $figure{$y}[3] / $figure{$x}[3];
}
ok(abs($ratio - median(@ratios)) <= 0.006,
	"the ratio ($ratio) is the median of the pairs' random mean read time over the sequential one");
my @sorted = sort { $a <=> $b } @ratios;
ok(abs($ratio_min - $sorted[0]) <= 0.006 && abs($ratio_max - $sorted[-1]) <= 0.006, 'ratio_min and ratio_max are their range');
ok(abs($random_ms - median(@rnd)) <= 0.0001 + 1e-6 * $random_ms
	  && abs($sequential_ms - median(@seq)) <= 0.0001 + 1e-6 * $sequential_ms,
	'the page times are the medians of the batches\' mean read times');
my $k = band_rank($pairs);
if ($k == 0)
{
	is("$low|$high|$reached|$steady", '-1|-1|-1|f', "$pairs pairs: no band, so not steady");
}
else
{
	ok(abs($low - $sorted[$k - 1]) <= 0.006 && abs($high - $sorted[$pairs - $k]) <= 0.006,
		"the band ($low to $high) is the ${k}th smallest to the ${k}th largest of $pairs ratios, by the binomial");
	my $widest = 100 * (median(@ratios) - $sorted[$k - 1] > $sorted[$pairs - $k] - median(@ratios)
		? median(@ratios) - $sorted[$k - 1] : $sorted[$pairs - $k] - median(@ratios)) / median(@ratios);
	ok(abs($reached - $widest) <= 0.06, "the band reached, ± $reached %, is its wider side");
	is($steady, $widest <= 20 ? 't' : 'f', 'steady when that is within band_pct (20)');
}
# random_page_cost for a ratio at 90 % cached: rounded to 0.1, at least 1
sub page_cost
{
	my ($r) = @_;
	my $c = sprintf('%.1f', $r * 0.1);
	return $c < 1 ? 1 : $c;
}
# the stop: the first prefix whose band is steady or whose ends give the same
# random_page_cost (decided), else the cap
my ($first_decided) = grep {
	my $n = $_;
	my $kk = band_rank($n);
	my @s = sort { $a <=> $b } @ratios[0 .. $n - 1];
	my $m = median(@s);
	$kk > 0 && (100 * ($m - $s[$kk - 1] > $s[$n - $kk] - $m ? $m - $s[$kk - 1] : $s[$n - $kk] - $m) / $m <= 20 + 1e-9
		|| page_cost($s[$kk - 1]) == page_cost($s[$n - $kk]))
} 1 .. $pairs;
is($pairs, $first_decided // 8, 'the pairs stopped at the first band that decides random_page_cost, or at max_pairs');
my $decided = $k > 0 && ($steady eq 't' || page_cost($low) == page_cost($high));
if ($decided)
{
	ok(abs($cost - ($ratio * 0.1 < 1 ? 1 : $ratio * 0.1)) <= 0.06, 'random_page_cost is the ratio for 90% of random reads cached, at least 1');
	like($statement, qr/^ALTER TABLESPACE "fast vol" SET \(random_page_cost = \d+\.\d, effective_io_concurrency = $eic\);$/,
		'the statement sets both on the target\'s tablespace, quoted');
}
else
{
	is($cost, -1, 'an unsteady ratio whose band leaves random_page_cost open recommends none');
	is($statement, qq{ALTER TABLESPACE "fast vol" SET (effective_io_concurrency = $eic);}, 'and the statement sets the look-ahead alone');
}

# the look-ahead: three passes, up, down, up; each pass's pick is the least
# depth within 10 % of its best, and the recommendation is their median
my @series_iops = split /\n/, $node->safe_psql('postgres', "SELECT iops FROM ranread_batches WHERE batch IN ("
	  . join(',', @batches[0 .. $series - 1]) . ") ORDER BY batch");
my $n_depths = @depths;
my @depth_order = map { $_ % 2 ? reverse(0 .. $n_depths - 1) : (0 .. $n_depths - 1) } 0 .. 2;
my @picks;
foreach my $pass (0 .. 2)
{
	my @iops;
	$iops[ $depth_order[ $pass * $n_depths + $_ ] ] = $series_iops[ $pass * $n_depths + $_ ] for 0 .. $n_depths - 1;
	my ($best) = sort { $b <=> $a } @iops;
	push @picks, (map { $depths[$_] } grep { $iops[$_] >= $best * 0.9 } 0 .. $#depths)[0];
}
@picks = sort { $a <=> $b } @picks;
is("$eic_low $eic $eic_high", "@picks", "effective_io_concurrency $eic: the median of the passes' picks, with their range");
is($node->safe_psql('postgres', qq{SELECT count(*) FROM ranread_batches WHERE calibration = $calibration AND processes = 1 AND status = 'completed'}),
	scalar(@batches), 'each batch is one process, completed, marked with the calibration');
is($node->safe_psql('postgres', q{SELECT spcoptions IS NULL FROM pg_tablespace WHERE spcname = 'fast vol'}), 't',
	'nothing was applied');

# cached_pct => 0: the raw ratio, and its band's ends give the range (6
# pairs always have a band)
is($node->safe_psql('postgres', q{SELECT pairs = 6 AND abs(random_page_cost_low - greatest(1.0, ratio_low)) <= 0.06
		AND abs(random_page_cost_high - greatest(1.0, ratio_high)) <= 0.06
		AND (random_page_cost IS NULL) = NOT (steady OR random_page_cost_low = random_page_cost_high)
		AND (random_page_cost IS NULL OR abs(random_page_cost - greatest(1.0, ratio)) <= 0.06)
	FROM ranread_calibrate('cal', iterations => 500, max_pairs => 6, max_depth => 1, cached_pct => 0, band_pct => 100)}),
	't', 'with cached_pct => 0, random_page_cost is the measured ratio (when decided), and its range the band\'s');

# a calibration whose random batches memory answered in part WARNs that its
# recommendations are partly the page cache's, once, naming the batch; its
# sequential batches, which read what readahead brought in by design, do not
# count.  The share is set by a trigger on the batch rows, as a target that
# fits in memory would set it.
$node->safe_psql('postgres', q{
	CREATE FUNCTION cached_random() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN NEW.physical_pct := CASE WHEN NEW.distribution = 'uniform' THEN 60 ELSE 10 END; RETURN NEW; END $$;
	CREATE TRIGGER cached_random BEFORE INSERT ON ranread_batches FOR EACH ROW
		WHEN (NEW.calibration IS NOT NULL) EXECUTE FUNCTION cached_random();});
my $cached = shown($node, q{SELECT count(*) FROM ranread_calibrate('cal', iterations => 500, max_pairs => 6, max_depth => 1)});
is(lines_matching($cached, qr/^WARNING:  calibration \d+: the device answered only/), 1, 'memory answered its random reads: one WARNING');
like($cached, qr/^WARNING:  calibration \d+: the device answered only 60\.0% of the random reads of batch \d+\nDETAIL:  Memory answered the rest, so its IOPS, and what the calibration recommends from them, are partly the page cache's/m,
	'it names the share and the batch, and what that does to the recommendations');
$node->safe_psql('postgres', 'DROP TRIGGER cached_random ON ranread_batches');
unlike(shown($node, q{SELECT count(*) FROM ranread_calibrate('cal', iterations => 500, max_pairs => 6, max_depth => 1)}),
	qr/^WARNING:  calibration \d+: the device answered only/m, 'a calibration the device answered has no such WARNING');

# the statement applies; on 18 the stream's look-ahead then follows the tablespace, not the series
$node->safe_psql('postgres', $statement);
like($node->safe_psql('postgres', q{SELECT spcoptions::text FROM pg_tablespace WHERE spcname = 'fast vol'}),
	qr/effective_io_concurrency=$eic/, 'the statement applies as given');
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
if ($stream)
{
	my $again = shown($node, q{SELECT * FROM ranread_calibrate('cal', 500, 6, 2, max_duration => '1 s')}, verbose => 1);
	is(sqlstate_of($again), '55000', 'on 18, a tablespace with its own look-ahead is refused');
	like($again, qr/HINT:  Run ALTER TABLESPACE "fast vol" RESET \(effective_io_concurrency\)/, 'with the way out');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'before any batch');
	# also when the tablespace's look-ahead is the series' first depth (CI
	# on 18 ran that depth, then was refused at the second)
	$node->safe_psql('postgres', q{ALTER TABLESPACE "fast vol" SET (effective_io_concurrency = 1)});
	is(sqlstate_of(shown($node, q{SELECT * FROM ranread_calibrate('cal', 500, 6, 2, max_duration => '1 s')}, verbose => 1)),
		'55000', 'a tablespace whose look-ahead is the first depth of the series is refused too');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'also before any batch');
	$node->safe_psql('postgres', q{ALTER TABLESPACE "fast vol" RESET (effective_io_concurrency)});
}
else
{
	# its own series 0, 1, 2 runs, whatever the tablespace's
	# effective_io_concurrency
	is($node->safe_psql('postgres', q{SELECT array_to_string(depths, ',')
		FROM ranread_calibrate('cal', 500, 6, 2, max_duration => '1 s')}), '0,1,2',
		'before 18, prefetch depths are its own (0, 1, 2): the tablespace\'s setting does not matter');
	$batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
}

# a transaction that keeps one snapshot would never see the workers' batches
like(shown($node, q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT * FROM ranread_calibrate('cal', 500, 6, 1)}, verbose => 1),
	qr/ERROR:  25000: ranread_calibrate cannot run in a transaction of isolation level repeatable read or serializable/,
	'calibrate refuses a repeatable read transaction');
like(shown($node, q{BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT * FROM ranread_layers(1, 100)}),
	qr/ERROR:  ranread_layers cannot run in a transaction of isolation level repeatable read or serializable/,
	'and so does ranread_layers in a serializable one');

# bad input, refused before anything is recorded
foreach my $case (
	[ q{ranread_calibrate(NULL)}, qr/no argument of ranread_calibrate may be null/, '22004' ],
	[ q{ranread_calibrate('cal', io_workers => NULL)}, qr/no argument of ranread_calibrate may be null/, '22004' ],
	[ q{ranread_calibrate('cal', 99)}, qr/iterations must be at least 100/, '22023' ],
	[ q{ranread_calibrate('cal', 50000)}, qr/iterations must be at most the target's 32768 blocks/, '22023' ],
	[ q{ranread_calibrate('cal', max_pairs => 5)}, qr/max_pairs must be between 6 and 200.*\n.*Fewer than 6 pairs give the ratio's median no 95% band/, '22023' ],
	[ q{ranread_calibrate('cal', max_pairs => 201)}, qr/max_pairs must be between 6 and 200/, '22023' ],
	[ q{ranread_calibrate('cal', max_depth => 0)}, qr/max_depth must be between 1 and 1000/, '22023' ],
	[ q{ranread_calibrate('cal', max_depth => 1001)}, qr/max_depth must be between 1 and 1000/, '22023' ],
	[ q{ranread_calibrate('cal', cached_pct => 100)}, qr/cached_pct must be at least 0 and below 100/, '22023' ],
	[ q{ranread_calibrate('cal', cached_pct => 'NaN')}, qr/cached_pct must be at least 0 and below 100/, '22023' ],
	[ q{ranread_calibrate('cal', band_pct => 0.5)}, qr/band_pct must be between 1 and 100/, '22023' ],
	[ q{ranread_calibrate('cal', band_pct => 'NaN')}, qr/band_pct must be between 1 and 100/, '22023' ],
	[ q{ranread_calibrate('cal', max_duration => '0.5 s')}, qr/max_duration must be between 1 second and 1 day/, '22023' ],
	[ q{ranread_calibrate('cal', max_duration => '2 days')}, qr/max_duration must be between 1 second and 1 day/, '22023' ],
	[ q{ranread_calibrate('cal', max_duration => '1 day -1 hour')}, qr/max_duration must be between 1 second and 1 day/, '22023' ],
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

# ranread_stop() during a calibration: it ends with an error, its batches
# stay.  The stop lands in a batch (which is then stopped) or, on a device
# fast enough to end a batch of 30,000 reads before the stop arrives, between
# two (and no batch is cut): both end the calibration, each with its message.
my ($h, $out, $err) = start_psql($node, q{SELECT * FROM ranread_calibrate('cal', iterations => 30000, max_depth => 1)});
wait_for_readers($node, 1);
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() signals the calibration\'s session');
$h->finish;
like($$err, qr/ERROR:  57014: calibration \d+ (?:ended at batch \d+, which did not complete|was stopped by ranread_stop\(\) between two batches)/,
	'a stopped calibration ends with an error');
like($$err, qr/CONTEXT:  calibration \d+, cut (?:in its look-ahead series|in pair \d+); the batches it ran are kept \(ranread_batches\.calibration\)/,
	'and says what it cut');
my ($stopped) = $$err =~ /calibration (\d+) (?:ended|was stopped)/;
my $in_batch = $$err =~ /which did not complete/;
is($node->safe_psql('postgres', qq{SELECT count(*) >= 1, count(*) FILTER (WHERE status <> 'completed') FROM ranread_batches WHERE calibration = $stopped}),
	$in_batch ? 't|1' : 't|0',
	'its batches are kept, marked with the calibration, the one it stopped (if any) as stopped');
if ($in_batch)
{
	is($node->safe_psql('postgres', qq{SELECT status FROM ranread_batches WHERE calibration = $stopped AND status <> 'completed'}),
		'stopped', 'the batch it cut is recorded as stopped');
}

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
