# prefetch => N (mode smgr): each unit is advised to the kernel N reads
# ahead of its read (smgrprefetch: posix_fadvise WILLNEED), as PostgreSQL 15
# to 17 prefetch ahead of a bitmap heap scan.  The proof of physical reads
# asks before the advice, so a prefetched run is still counted as physical.
# That the reads the advice brought in are faster than without it (the
# device works ahead), and that a sweep's IOPS grow with the look-ahead, is
# the device's speed, not the code: those two run only with
# RANREAD_TEST_EXTRA=timing.  Bad input refused before anything is recorded.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('prefetch');
$node->safe_psql('postgres', q{SELECT ranread_setup('256 MB', log_level => 0)});

my ($plain_mean, $plain_physical, $plain_prefetch) = split /\|/,
  batch_of($node, 'SELECT batch FROM ranread_run(1, 3000)', 'SELECT response_time_ms, physical_pct >= 99, prefetch');
my ($ahead_mean, $ahead_physical, $ahead_prefetch, $ahead_kb) = split /\|/,
  batch_of($node, 'SELECT batch FROM ranread_run(1, 3000, prefetch => 16)', 'SELECT response_time_ms, physical_pct >= 99, prefetch, kb_per_read < 9');
is("$plain_physical $ahead_physical", 't t', 'with and without prefetch, the reads are counted as the device\'s (physical_pct >= 99)');
is("$plain_prefetch $ahead_prefetch", '0 16', 'the batch records prefetch');
is($ahead_kb, 't', 'the advice reads no more than the units (kb_per_read about 8)');
SKIP:
{
	skip timing_skip(), 1 if timing_skip();
	cmp_ok($ahead_mean, '<', $plain_mean * 0.8,
		"a read advised 16 reads ahead waits less ($ahead_mean ms against $plain_mean ms)");
}

# a sweep stepping prefetch: 0, 1, 2, 4, 8 with one process, to max_prefetch
# (stop_latency_ms and the SLO far from any machine's figures: only
# max_prefetch stops it, and no step is repeated)
$node->safe_psql('postgres', q{CALL ranread_sweep(1, iterations => 2000, prefetch => 0, max_prefetch => 8, min_scaling_pct => 0,
	stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000)});
my $sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
is($node->safe_psql('postgres', qq{SELECT string_agg(DISTINCT prefetch::text, ',' ORDER BY prefetch::text)
	FROM ranread_batches WHERE sweep = $sweep AND processes = 1}), '0,1,2,4,8', 'a sweep steps prefetch 0, 1, 2, 4, 8 with one process');
is($node->safe_psql('postgres', qq{SELECT prefetch || ' ' || max_prefetch || ' ' || stop_rule FROM ranread_sweep_runs WHERE sweep = $sweep}),
	'0 8 max prefetch', 'records what it stepped and stops at max_prefetch');
my $verdict = $node->safe_psql('postgres', "SELECT string_agg(line, ' ') FROM ranread_verdict($sweep) AS v(line)");
like($verdict, qr/1 process with prefetch \d+/, 'the verdict names steps by their prefetch');
like($verdict, qr/It stopped at max_prefetch \(8\)\./, 'and says where it stopped');
like($node->safe_psql('postgres', "SELECT ranread_chart($sweep)"), qr/prefetch \(units advised ahead of each read\)/,
	'the chart\'s x axis is the prefetch');
SKIP:
{
	skip timing_skip(), 1 if timing_skip();
	cmp_ok($node->safe_psql('postgres', qq{SELECT max(iops) FILTER (WHERE prefetch = 8) / max(iops) FILTER (WHERE prefetch = 0)
		FROM ranread_batches WHERE sweep = $sweep}), '>', 1.2, 'and IOPS grew with the look-ahead');
}

# bad input, refused before anything is recorded
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
foreach my $case (
	[ 'ranread_run(1, 10, prefetch => -1)', qr/prefetch must be between 0 and 1024/ ],
	[ 'ranread_run(1, 10, prefetch => NULL)', qr/prefetch must not be null/ ],
	[ "ranread_run(1, 10, mode => 'direct', prefetch => 4)", qr/mode 'direct' cannot prefetch/ ],
	[ "ranread_run(1, 10, mode => 'buffer', prefetch => 4)", qr/mode 'buffer' cannot prefetch/ ],
	[ 'ranread_run(1, 10, prefetch => 4, rate_iops => 100)', qr/prefetch cannot be combined with rate_iops/ ],
	[ 'CALL ranread_sweep(1, max_prefetch => 4)', qr/max_prefetch needs prefetch/ ],
	[ 'CALL ranread_sweep(1, prefetch => -1)', qr/prefetch must be at least 0, and max_prefetch between prefetch \(at least 1\) and 1024/ ],
	[ 'CALL ranread_sweep(1, prefetch => 0, max_prefetch => 0)', qr/max_prefetch between prefetch/ ],
	[ 'CALL ranread_sweep(1, prefetch => 0, iodepth => 2)', qr/a sweep stepping prefetch cannot also step processes, iodepth or a rate/ ],
	[ 'CALL ranread_sweep(1, prefetch => 0, max_processes => 4)', qr/a sweep stepping prefetch cannot also step/ ],
	[ "CALL ranread_sweep(1, mode => 'direct', prefetch => 0, max_prefetch => 4)", qr/mode 'direct' cannot prefetch/ ])
{
	like(shown($node, $case->[0] =~ /^CALL/ ? $case->[0] : "SELECT $case->[0]"), $case->[1], "$case->[0] is refused");
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'and records nothing');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_sweep_runs'), 1, 'no sweep either');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
