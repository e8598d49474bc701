# ranread_chart(), ranread_chart_latency() and ranread_chart_intervals(): each
# chart is valid XML that rsvg-convert renders at the size asked into a PNG
# that is not blank; a real sweep's chart has one bar per step, the SLO's
# lines and the knee where ranread_sweep_verdict() puts it; a constructed
# sweep's memory-answered and stopped steps are hatched and labelled "not
# counted"; text from the tables is escaped; an open-loop sweep is drawn
# against the rate asked; without a sweep, the latest completed sweep with a
# counted step, else every batch.  The sweep chart's SLO labels cover no bar,
# its IOPS ticks read in one style, each bar has its value, the title fits
# one line and the knee and the highest within the SLO are named.  The
# latency legend names queue depth and memory-answered batches.  The
# over-time chart marks a drop where the throttle rule holds, and not on a
# flat series, and survives NaN and infinite rows.  Every error has its
# SQLSTATE.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use List::Util qw(min);
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

foreach my $tool ('rsvg-convert', 'xmllint')
{
	plan skip_all => "$tool is not installed (scripts/install-deps.sh installs it)"
	  if system("command -v $tool >/dev/null 2>&1") != 0;
}

my $node = new_node('chart');
my $dir = PostgreSQL::Test::Utils::tempdir();
my $files = 0;

# Call $sql expecting an error: its SQLSTATE and its primary message.
sub error_of
{
	my ($sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	my ($message) = $err =~ /ERROR:\s+[0-9A-Z]{5}:\s+(.*)/;
	return (sqlstate_of($err), $message // '');
}

sub write_file
{
	my ($text) = @_;
	my $path = sprintf('%s/chart%02d.svg', $dir, ++$files);
	open(my $fh, '>', $path) or die "could not write $path: $!";
	print $fh $text;
	close $fh;
	return $path;
}

# xmllint's verdict on a file: true when it is well-formed XML.
sub xml_valid
{
	my ($path) = @_;
	return system("xmllint --noout '$path' 2>/dev/null") == 0;
}

# Check a chart: valid XML, self-contained, rendered at $width x $height,
# not blank.
sub check_rendering
{
	my ($what, $svg, $width, $height) = @_;
	my $path = write_file($svg);
	ok(xml_valid($path), "$what: valid XML");
	like($svg, qr/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="$width" height="$height" viewBox="0 0 $width $height"/,
		"$what: an svg root of $width x $height");
	unlike($svg, qr/href|<image|<script|<style|\@import|url\((?!#)|[^\x09\x0a\x20-\x7e]/,
		"$what: no external reference, ASCII only");
	like($svg, qr/<rect x="0" y="0" width="$width" height="$height" fill="#ffffff"\/>/, "$what: a white background");
	is(system('rsvg-convert', '-o', "$path.png", $path), 0, "$what: rsvg-convert renders it");
	my ($w, $h, $share, $colours) = png_facts("$path.png");
	is("${w}x$h", "${width}x$height", "$what: the PNG is ${width}x$height");
	cmp_ok($share, '>=', 0.02, sprintf('%s: %.1f%% of its pixels are not white', $what, 100 * $share));
	cmp_ok($colours, '>=', 3, "$what: $colours distinct colours");
}

# The rectangles of the bars, in order: [class, middle x].
sub bars
{
	my ($svg) = @_;
	my @bars;
	push @bars, [ $1, $2 + $3 / 2 ]
	  while $svg =~ /<rect class="(bar[^"]*)" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g;
	return @bars;
}

# The bars' rectangles: [x, y, width, height].
sub bar_boxes
{
	my ($svg) = @_;
	my @boxes;
	push @boxes, [ $1, $2, $3, $4 ]
	  while $svg =~ /<rect class="bar[^"]*" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g;
	return @boxes;
}

# The texts whose content matches $pattern: [x, y, anchor, font size, text].
sub texts
{
	my ($svg, $pattern) = @_;
	my @texts;
	while ($svg =~ /<text x="([-\d.]+)" y="([-\d.]+)" ([^>]*)>([^<]*)<\/text>/g)
	{
		my ($x, $y, $attributes, $text) = ($1, $2, $3, $4);
		next unless $text =~ $pattern;
		my ($anchor) = $attributes =~ /text-anchor="(\w+)"/;
		my ($size) = $attributes =~ /font-size="([\d.]+)"/;
		push @texts, [ $x, $y, $anchor // 'start', $size // 12, $text ];
	}
	return @texts;
}

# Whether a text (from texts()) and a rectangle overlap, the text's box
# estimated as generously as svg.c lays it out (0.6 em a character).
sub text_hits_box
{
	my ($t, $box) = @_;
	my ($x, $y, $anchor, $size, $text) = @$t;
	my $w = length($text) * $size * 0.6;
	my $left = $anchor eq 'end' ? $x - $w : $anchor eq 'middle' ? $x - $w / 2 : $x;
	my ($top, $bottom) = ($y - $size, $y + $size * 0.25);
	my ($bx, $by, $bw, $bh) = @$box;
	return !($left + $w <= $bx || $left >= $bx + $bw || $bottom <= $by || $top >= $by + $bh);
}

# The labels of the left (IOPS) axis's ticks, bottom to top.
sub left_ticks
{
	my ($svg) = @_;
	my @ticks;
	push @ticks, $1 while $svg =~ /<text x="58\.0" y="[\d.]+" (?:class="tick" )?text-anchor="end">([^<]*)<\/text>/g;
	return @ticks;
}

# Check the layout of a sweep chart: no SLO label on a bar, one tick style
# on the IOPS axis, the title on one short line.
sub check_sweep_layout
{
	my ($what, $svg) = @_;
	my @boxes = bar_boxes($svg);
	my @slo = texts($svg, qr/^SLO (?:mean|p99) /);
	my @hits = grep { my $t = $_; grep { text_hits_box($t, $_) } @boxes } @slo;
	is(scalar(@hits), 0, "$what: no SLO label (of " . scalar(@slo) . ') covers a bar')
	  or diag(join("\n", map { "@$_" } @hits));
	my @ticks = left_ticks($svg);
	cmp_ok(scalar(@ticks), '>=', 2, "$what: the IOPS axis has ticks (@ticks)");
	my $with_k = grep { /k$/ } @ticks;
	ok($with_k == 0 || $with_k == grep({ $_ ne '0' } @ticks), "$what: its ticks read in one style (@ticks)");
	my @title = texts($svg, qr/^ranread /);
	@title = grep { $_->[3] > 12 } @title;
	is(scalar(@title), 1, "$what: the title is one line");
	my $characters = length(($title[0][4] // '') =~ s/&[^;]+;/_/gr);
	cmp_ok($characters, '<=', 70, "$what: of at most 70 characters, to fit a browser's 928 pixels");
}

sub knee_x
{
	my ($svg) = @_;
	return $svg =~ /<g id="knee">\n<line x1="([\d.]+)"/ ? $1 : undef;
}

# The checker itself can fail: xmllint refuses what is not XML, and the PNG
# decoder sees a blank image as blank.
ok(!xml_valid(write_file(qq{<svg xmlns="http://www.w3.org/2000/svg"><text>a <&> b</text></svg>})),
	'xmllint refuses a document with an unescaped "<&>"');
{
	my $blank = write_file(qq{<svg xmlns="http://www.w3.org/2000/svg" width="400" height="330"><rect width="400" height="330" fill="#ffffff"/></svg>});
	system('rsvg-convert', '-o', "$blank.png", $blank);
	my ($w, $h, $share, $colours) = png_facts("$blank.png");
	is("${w}x$h|$share|$colours", '400x330|0|1', 'a white image decodes as 400x330, no pixel coloured, one colour');
}

# --- errors before any batch -------------------------------------------------------
my @error = error_of('SELECT ranread_chart()');
is("@error", '55000 no ranread batch to chart', 'no batch at all: 55000 no ranread batch to chart');
@error = error_of('SELECT ranread_chart_intervals()');
is("@error", '55000 no ranread batch has intervals to chart', 'no batch at all: 55000 no ranread batch has intervals to chart');

# --- every batch, without any sweep --------------------------------------------
# (the larger batch first: the chart orders them by load, not by when they ran)
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', target => 'chart_target', log_level => 0);
	SELECT ranread_run(2, 300, 'chart_target'); SELECT ranread_run(1, 300, 'chart_target')});
my $svg = $node->safe_psql('postgres', 'SELECT ranread_chart()');
check_rendering('every batch', $svg, 960, 540);
like($svg, qr/<title>ranread: all batches, by processes<\/title>/, 'without a sweep, the title says all batches, by processes');
is(scalar(bars($svg)), 2, 'one bar per batch');
like($svg, qr/batch 2: 1 process.*batch 1: 2 processes/s, 'in order of load: the 1-process batch first, though it ran second');
# a batch of one interval has no line to draw over time: its chart says why
my $one = $node->safe_psql('postgres', 'SELECT ranread_chart_intervals(2)');
if ($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_intervals WHERE batch = 2') eq '1')
{
	like($one, qr/one interval of [\d.]+ s: too short to draw over time \(its figures are in ranread_summary\)/,
		'the interval chart of a batch of one interval says why it has no line');
}
else
{
	unlike($one, qr/too short to draw over time/, 'a batch of two intervals or more has its lines, no note');
}

# --- a real sweep ------------------------------------------------------------------
$node->safe_psql('postgres',
	"CALL ranread_sweep(start_processes => 1, max_processes => 4, iterations => 300, target => 'chart_target')");
my ($sweep, $device, $date, $knee) = split /\|/, $node->safe_psql('postgres', q{
	SELECT s.sweep, (SELECT string_agg(DISTINCT device, ', ') FROM ranread_batches b WHERE b.sweep = s.sweep),
		   to_char(s.started_at, 'YYYY-MM-DD HH24:MI'), v.knee_processes
	FROM ranread_sweep_runs s, ranread_sweep_verdict(s.sweep) v ORDER BY s.sweep DESC LIMIT 1});
# one per step: a step whose decision lay within its noise ran again, a batch of the same sweep_step
my @processes = split /,/, $node->safe_psql('postgres', qq{
	SELECT string_agg(processes::text, ',' ORDER BY sweep_step)
	FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches WHERE sweep = $sweep ORDER BY sweep_step, batch) b});
$svg = $node->safe_psql('postgres', 'SELECT ranread_chart()');
is($node->safe_psql('postgres', "SELECT ranread_chart($sweep) = ranread_chart()"), 't',
	'without an argument, the latest sweep');
check_rendering("sweep $sweep", $svg, 960, 540);
$device //= '';
like($svg, qr/<title>ranread sweep $sweep: target &quot;chart_target&quot;, smgr, 8 kB blocks, device \Q$device\E, $date<\/title>/,
	'the title names the sweep, target, read path, block size, device and date');
my @bars = bars($svg);
is(scalar(@bars), scalar(@processes), 'one bar per step (' . scalar(@processes) . ')');
is(join(',', map { $_->[0] =~ s/ slo-best$//r } @bars), join(',', ('bar') x @processes), 'every step counts');
my ($slo_processes) = $node->safe_psql('postgres', "SELECT coalesce(slo_processes, 0) FROM ranread_sweep_verdict($sweep)");
is(join(',', map { $processes[$_] } grep { $bars[$_][0] =~ /slo-best/ } 0 .. $#bars), $slo_processes || '',
	'the bar outlined as the highest within the SLO is the one ranread_sweep_verdict() names, if any');
like($svg, qr/<g class="slo" id="slo-mean">/, 'a line at the SLO mean bound');
like($svg, qr/<g class="slo" id="slo-p99">/, 'a line at the SLO p99 bound');
like($svg, qr/<path class="mean" d="M/, 'a mean latency line');
like($svg, qr/<path class="p99" d="M/, 'a p99 latency line');
foreach my $label ('>processes<', '>IOPS<', '>latency \(ms\)<', '>mean latency<', '>p99 latency<')
{
	like($svg, qr/$label/, "it has the text $label");
}
check_sweep_layout("sweep $sweep", $svg);
like($svg, qr/<text [^>]*class="subtitle"[^>]*>device \Q$device\E, $date<\/text>/, 'the subtitle names the device and date');
my ($knee_step) = grep { $processes[$_] == $knee } 0 .. $#processes;
ok(defined $knee_step && abs(knee_x($svg) - $bars[$knee_step][1]) < 0.11,
	"the knee is marked on the bar of $knee processes, as ranread_sweep_verdict() says");
foreach my $size ([ 320, 320 ], [ 1600, 900 ])
{
	my $sized = $node->safe_psql('postgres', "SELECT ranread_chart($sweep, $size->[0], $size->[1])");
	check_rendering("sweep $sweep at $size->[0]x$size->[1]", $sized, @$size);
}

# --- its latency distribution ---------------------------------------------------
my @batches = split /,/, $node->safe_psql('postgres',
	"SELECT string_agg(batch::text, ',' ORDER BY batch) FROM ranread_batches WHERE sweep = $sweep");
$svg = $node->safe_psql('postgres', 'SELECT ranread_chart_latency(' . join(', ', @batches) . ')');
check_rendering('latency distribution', $svg, 960, 540);
is(scalar(() = $svg =~ /<path class="curve"/g), scalar(@batches), 'one curve per batch');
like($svg, qr/>batch $batches[0]: 1 process, smgr</, 'the legend names batch, processes and mode');

# a copy of the first batch at queue depth 16, and one memory answered with evict => false
$node->safe_psql('postgres', qq{
	CREATE TEMP TABLE copy AS SELECT * FROM ranread_batches WHERE batch = $batches[0];
	UPDATE copy SET batch = 2001, iodepth = 16, mode = 'direct', sweep = NULL, sweep_step = NULL;
	INSERT INTO ranread_batches SELECT * FROM copy;
	UPDATE copy SET batch = 2002, iodepth = 1, mode = 'smgr', processes = 4, evicted = false, physical_pct = 0.3;
	INSERT INTO ranread_batches SELECT * FROM copy});
$svg = $node->safe_psql('postgres', "SELECT ranread_chart_latency($batches[0], 2001, 2002)");
check_rendering('latency distribution at queue depth 16 and from memory', $svg, 960, 540);
like($svg, qr/>batch 2001: 1 process at queue depth 16, direct</, 'the legend names the queue depth when it is not 1');
like($svg, qr/>batch 2002: 4 processes, smgr, evict =&gt; false \(memory answered: device 0\.3%\)</,
	'the legend flags a batch that was not evicted and that memory answered');
like($svg, qr/>batch $batches[0]: 1 process, smgr</, 'and flags neither on a batch the device answered');
foreach my $tick ('50%', '90%', '99%', '99.9%', '99.99%', 'latency (ms)', 'percentile')
{
	like($svg, qr/>\Q$tick\E</, "it has the text $tick");
}

# --- a constructed sweep: memory answered, stopped, and hostile text -------------------
my $target = q{café <&>"' target};
(my $target_sql = $target) =~ s/'/''/g;
$node->safe_psql('postgres', qq{
	INSERT INTO ranread_sweep_runs (sweep, started_at, leader_pid, target, mode, block_size, start_processes,
		max_processes, max_processes_by, stop_latency_ms, min_scaling_pct, slo_mean_ms, slo_p99_ms, status, stop_rule)
	VALUES (1000, '2026-01-02 03:04:05', 1, '$target_sql', 'direct', 16384, 1, 8, 'argument', 10, 25, 2, 5,
		'completed', 'step ended'),
		(1001, '2026-01-03 04:05:06', 1, 'open', 'direct', 8192, 2, 2, 'argument', 10, 25, 1, NULL, 'completed', 'max rate'),
		(1002, '2026-01-04 05:06:07', 1, 'empty', 'smgr', 8192, 2, 2, 'argument', 10, 25, NULL, NULL, 'running', NULL);
	UPDATE ranread_sweep_runs SET rate_iops = 1000 WHERE sweep = 1001;
	INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes, evicted,
		reads, wall_s, iops, mb_per_s, response_time_ms, p99_ms, physical_pct, device, status, rate_iops, sweep,
		sweep_step, histogram)
	VALUES (1001, '2026-01-02', '03:04', now(), '$target_sql', 'direct', 16384, 1, true, 1000, 1, 1000, 1, 1, 3, 100,
			'sdz', 'completed', NULL, 1000, 1, NULL),
		(1002, '2026-01-02', '03:04', now(), '$target_sql', 'direct', 16384, 2, true, 3000, 1, 3000, 1, 1.5, 4, 100,
			'sdz', 'completed', NULL, 1000, 2, '{}'),
		(1003, '2026-01-02', '03:04', now(), '$target_sql', 'direct', 16384, 4, true, 9000, 1, 9000, 1, 0.4, 1, 40,
			'sdz', 'completed', NULL, 1000, 3, NULL),
		(1004, '2026-01-02', '03:04', now(), '$target_sql', 'direct', 16384, 8, true, 500, 1, 4000, 1, 6, 12, 100,
			'sdz', 'stopped', NULL, 1000, 4, NULL),
		(1011, '2026-01-03', '04:05', now(), 'open', 'direct', 8192, 2, true, 1000, 1, 1000, 1, 0.2, 0.5, 100,
			NULL, 'completed', 1000, 1001, 1, NULL),
		(1012, '2026-01-03', '04:05', now(), 'open', 'direct', 8192, 2, true, 2000, 1, 2000, 1, 0.3, 0.8, 100,
			NULL, 'completed', 2000, 1001, 2, NULL),
		(1013, '2026-01-03', '04:05', now(), 'open', 'direct', 8192, 2, true, 3000, 1, 3000, 1, 2.5, 9, 100,
			NULL, 'completed', 20000, 1001, 3, NULL)});
is($node->safe_psql('postgres', 'SELECT knee_processes, memory_steps FROM ranread_sweep_verdict(1000)'), '2|1',
	'the constructed sweep: its knee is at 2 processes, and one step was answered by memory');
$svg = $node->safe_psql('postgres', 'SELECT ranread_chart(1000)');
check_rendering('the constructed sweep', $svg, 960, 540);
like($svg, qr/<title>ranread sweep 1000: target &quot;caf&#xe9; &lt;&amp;&gt;&quot;&apos; target&quot;, direct, 16 kB blocks, device sdz, 2026-01-02 03:04<\/title>/,
	'the target name is escaped: <, &, >, " and \' as entities, é as a character reference');
unlike($svg, qr/&(?!(?:amp|lt|gt|quot|apos|#x[0-9a-f]+);)/, 'every & left begins an entity or a character reference');
@bars = bars($svg);
is(join(',', map { $_->[0] } @bars), 'bar,bar slo-best,bar not-counted,bar not-counted',
	'four bars; the memory-answered step 3 and the stopped step 4 are hatched');
is(scalar(() = $svg =~ /<text [^>]*class="not-counted"[^>]*>not counted<\/text>/g), 2,
	'both are labelled "not counted"');
like($svg, qr/<rect class="bar not-counted" [^>]*fill="url\(#hatch\)"[^>]*><title>step 3, batch 1003: 4 processes, 9,000 IOPS, mean 0\.400 ms, p99 1\.00 ms, device answered 40\.0%; memory answered, not counted<\/title>/,
	'the memory-answered bar is hatched, and its tooltip says why it does not count');
like($svg, qr/<title>step 4, batch 1004: [^<]*; stopped, not counted<\/title>/, 'the stopped step too');
like($svg, qr/<g class="legend">(?:(?!<\/g>).)*>not counted</s, 'the legend has the hatched swatch');
cmp_ok(abs(knee_x($svg) - $bars[1][1]), '<', 0.11, 'the knee is marked on the second bar');
like($svg, qr/>SLO mean 2 ms<.*>SLO p99 5 ms</s, 'the SLO bounds are named on their lines');
check_sweep_layout('the constructed sweep', $svg);
{
	my $small = $node->safe_psql('postgres', 'SELECT ranread_chart(1000, 320, 320)');
	my @labels = texts($small, qr/^(?:knee:|highest within SLO)/);
	my @outside = grep { $_->[0] < 0 || $_->[0] + length($_->[4]) * $_->[3] * 0.6 > 320 } @labels;
	is(scalar(@labels) . ' ' . scalar(@outside), '2 0', "at 320x320 the markers' two labels stay within the chart");
}
is(join(',', $svg =~ /<text [^>]*class="value"[^>]*>([^<]*)</g), '1k,3k,9k,4k',
	'each bar is labelled with its IOPS, compact');
like($svg, qr/<text [^>]*class="knee-label"[^>]*>knee: most IOPS per ms of mean latency<\/text>/,
	'the knee says what it is: the efficiency point, not capacity');
$slo_processes = $node->safe_psql('postgres', 'SELECT slo_processes FROM ranread_sweep_verdict(1000)');
is($slo_processes, 2, 'the verdict: the highest within the SLO is at 2 processes');
ok($svg =~ /<g id="slo-best">\n<path d="M([\d.]+) / && abs($1 + 5 - $bars[1][1]) < 0.11,
	'the highest within the SLO is marked over the bar of 2 processes');
like($svg, qr/<rect class="bar slo-best" [^>]*stroke=/, 'and that bar is outlined');
like($svg, qr/>highest within SLO: 3k IOPS</, 'and named, with its IOPS');

$svg = $node->safe_psql('postgres', 'SELECT ranread_chart(1001)');
check_rendering('an open-loop sweep', $svg, 960, 540);
like($svg, qr/>rate asked \(reads\/s\)</, 'an open-loop sweep is drawn against the rate asked');
is(join(',', $svg =~ /<text [^>]*class="category"[^>]*>([^<]*)</g), '1k,2k,20k',
	'its bars are labelled with the rates asked, in one style: 1k, 2k, 20k, not 1000, 2000, 20k');
unlike($svg, qr/id="slo-p99"/, 'an SLO without a p99 bound has no p99 line');
like($svg, qr/id="slo-mean"/, 'but its mean line');
like($svg, qr/device unknown/, 'a sweep whose batches name no device says so');

is($node->safe_psql('postgres', 'SELECT ranread_chart() = ranread_chart(1001)'), 't',
	'without an id: the latest sweep with a step (1001), not sweep 1002, which has none yet');

# a later stopped sweep, and a later completed one that memory answered
$node->safe_psql('postgres', q{
	INSERT INTO ranread_sweep_runs (sweep, started_at, leader_pid, target, mode, block_size, start_processes,
		max_processes, max_processes_by, stop_latency_ms, min_scaling_pct, slo_mean_ms, slo_p99_ms, status, stop_rule)
	VALUES (1003, '2026-01-05 05:06:07', 1, 'open', 'direct', 8192, 2, 8, 'argument', 10, 25, 2, 5, 'stopped', 'step ended'),
		(1004, '2026-01-06 05:06:07', 1, 'open', 'smgr', 8192, 2, 8, 'argument', 10, 25, 2, 5, 'completed', 'max processes');
	INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes, evicted,
		reads, wall_s, iops, mb_per_s, response_time_ms, p99_ms, physical_pct, device, status, sweep, sweep_step)
	VALUES (1031, '2026-01-05', '05:06', now(), 'open', 'direct', 8192, 2, true, 100, 1, 100, 1, 1, 2, 100,
			'sdz', 'stopped', 1003, 1),
		(1041, '2026-01-06', '05:06', now(), 'open', 'smgr', 8192, 2, true, 9000, 1, 9000, 1, 0.01, 0.02, 3,
			'sdz', 'completed', 1004, 1)});
is($node->safe_psql('postgres', 'SELECT ranread_chart() = ranread_chart(1001)'), 't',
	'without an id: the latest completed sweep with a counted step (1001), not the stopped 1003 or the memory-answered 1004');
is($node->safe_psql('postgres', q{BEGIN; UPDATE ranread_sweep_runs SET status = 'stopped';
	SELECT ranread_chart() = ranread_chart(1004); ROLLBACK}), 't',
	'with no completed sweep, the latest sweep with a step');

# --- a batch over time ----------------------------------------------------------
$svg = $node->safe_psql('postgres', "SELECT ranread_chart_intervals($batches[-1])");
check_rendering("batch $batches[-1] over time", $svg, 960, 540);
like($svg, qr/<title>ranread batch $batches[-1] over time: target &quot;chart_target&quot;, smgr, 8 kB blocks, /,
	'the title names the batch, target, read path and block size');
like($svg, qr/<path class="iops" d="M/, 'an IOPS line');
like($svg, qr/<path class="p99" d="M/, 'a p99 line');
like($svg, qr/>seconds since counting began</, 'against seconds');

# IOPS that fall from 10,000 to 3,000 after 6 s, a flat series, and rows no run writes
sub intervals_sql
{
	my ($batch, @rows) = @_;
	my $n = 0;
	return "INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes,
		evicted, reads, wall_s, iops, mb_per_s, status) VALUES ($batch, '2026-01-07', '01:02', now(), 'over_time',
		'direct', 8192, 2, true, 1, 12, 1, 1, 'completed');
	INSERT INTO ranread_intervals (batch, interval_no, start_s, seconds, reads, iops, mean_ms, p50_ms, p99_ms, max_ms,
		workers_reading) VALUES "
	  . join(', ', map { $n++; "($batch, $n, $_)" } @rows) . ';';
}
my @throttled = map { my $r = $_ < 6 ? 10000 : 3000; "$_, 1, $r, $r, 0.2, 0.2, 0.5, 1, 2" } 0 .. 11;
my @flat = map { "$_, 1, 10000, 10000, 0.2, 0.2, 0.5, 1, 2" } 0 .. 11;
my @forged = @throttled;
$forged[2] = q{'NaN', 1, 10000, 10000, 0.2, 0.2, 0.5, 1, 2};
$forged[4] = q{4, 'Infinity', 10000, 'Infinity', 0.2, 0.2, 0.5, 1, 2};
$forged[5] = q{5, 1, -10000, 'NaN', '-Infinity', 0.2, 'NaN', 1, 2};
$forged[8] = q{8, -1, 3000, -3000, -0.2, 0.2, 'Infinity', 1, 2};
$forged[10] = q{'-Infinity', 1, 3000, 3000, 'NaN', 0.2, -5, 1, 2};
$node->safe_psql('postgres', intervals_sql(3001, @throttled) . intervals_sql(3002, @flat) . intervals_sql(3003, @forged));

$svg = $node->safe_psql('postgres', 'SELECT ranread_chart_intervals(3001)');
check_rendering('a throttled series', $svg, 960, 540);
like($svg, qr/<g id="drop">/, 'a throttled series has the drop marked');
like($svg, qr/>IOPS fell from 10k to 3k after 6 s: a burst allowance or a throttle\?</,
	'named as the WARNING names it');
my ($axis_left, $axis_right) = (64, 896);
ok($svg =~ /<g id="drop">\n<line x1="([\d.]+)"/ && abs($1 - ($axis_left + ($axis_right - $axis_left) * 6 / 12)) < 0.11,
	'at 6 s of the 12 s axis');
like($svg, qr/<text [^>]*class="tick"[^>]*>12</, 'the x axis is ticked in seconds');

$svg = $node->safe_psql('postgres', 'SELECT ranread_chart_intervals(3002)');
check_rendering('a flat series', $svg, 960, 540);
unlike($svg, qr/id="drop"|fell/, 'a flat series has no drop marked');

$svg = $node->safe_psql('postgres', 'SELECT ranread_chart_intervals()');
is($node->safe_psql('postgres', 'SELECT ranread_chart_intervals() = ranread_chart_intervals(3003)'), 't',
	'without a batch, the latest batch with intervals');
check_rendering('a series with NaN, infinite and negative rows', $svg, 960, 540);
unlike($svg, qr/nan|inf/i, 'no NaN or infinity is written');
my @numbers = map { /[-\d.e+]+/g } ($svg =~ /\s(?:x|y|x1|y1|x2|y2|cx|cy|width|height|d)="([^"]*)"/g);
my @outside = grep { !/^\d+(?:\.\d+)?$/ || $_ > 960 } @numbers;
is(scalar(@outside), 0, 'every coordinate drawn lies within the chart (' . scalar(@numbers) . ' checked)')
  or diag("@outside[0 .. min(9, $#outside)]");
like($svg, qr/<path class="iops" d="M[^"]+M/, 'the IOPS line breaks where a row is not a number');
foreach my $size ([ 320, 320 ], [ 1600, 900 ])
{
	check_rendering("a throttled series at $size->[0]x$size->[1]",
		$node->safe_psql('postgres', "SELECT ranread_chart_intervals(3001, $size->[0], $size->[1])"), @$size);
}

# --- errors --------------------------------------------------------------------
my @errors = (
	[ 'ranread_chart(99999)', '22023', 'sweep 99999 does not exist' ],
	[ 'ranread_chart(1002)', '55000', 'sweep 1002 has no step to chart' ],
	[ 'ranread_chart(width => 319)', '22023', 'width must be between 320 and 4096 pixels' ],
	[ 'ranread_chart(height => 4097)', '22023', 'height must be between 320 and 4096 pixels' ],
	[ 'ranread_chart(width => NULL)', '22004', 'width must not be null' ],
	[ 'ranread_chart(height => NULL)', '22004', 'height must not be null' ],
	[ "ranread_chart_latency(VARIADIC '{}'::bigint[])", '22023', 'no batch to chart' ],
	[ 'ranread_chart_latency(VARIADIC NULL::bigint[])', '22004', 'batches must not be null' ],
	[ "ranread_chart_latency($batches[0], NULL)", '22004', 'a batch number must not be null' ],
	[ 'ranread_chart_latency(99999)', '22023', 'batch 99999 does not exist' ],
	[ 'ranread_chart_latency(1001)', '22023', 'batch 1001 has no latency histogram' ],
	[ 'ranread_chart_latency(1002)', '22023', 'batch 1002 has no read in its latency histogram' ],
	[ 'ranread_chart_latency(' . join(', ', ($batches[0]) x 9) . ')', '22023',
		'at most 8 batches fit in one latency chart' ],
	[ 'ranread_chart_intervals(99999)', '22023', 'batch 99999 does not exist' ],
	[ 'ranread_chart_intervals(1001)', '55000', 'batch 1001 has no interval to chart' ],
	[ 'ranread_chart_intervals(3001, width => 319)', '22023', 'width must be between 320 and 4096 pixels' ],
	[ 'ranread_chart_intervals(3001, height => NULL)', '22004', 'height must not be null' ],
);
foreach my $case (@errors)
{
	my ($call, $state, $message) = @$case;
	@error = error_of("SELECT $call");
	is("@error", "$state $message", "$call: $state $message");
}
is($node->safe_psql('postgres', 'SELECT length(ranread_chart_latency(' . join(', ', ($batches[0]) x 8) . ')) > 0'),
	't', 'eight batches fit');

# --- privileges ---------------------------------------------------------------
$node->safe_psql('postgres', 'CREATE ROLE chart_nobody LOGIN');
foreach my $call ('ranread_chart()', "ranread_chart_latency($batches[0])", 'ranread_chart_intervals()')
{
	my ($ret, $out, $err) = $node->psql('postgres', "SET ROLE chart_nobody; SELECT $call",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	is(sqlstate_of($err), '42501', "$call is not granted to PUBLIC (42501)");
}

done_testing();
