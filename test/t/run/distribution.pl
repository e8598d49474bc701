# distribution => 'zipf:theta' | 'hotset:P%/Q%' | 'sequential' (uniform is
# the default).  A zipf run in mode buffer on a small buffer pool reports a
# hit ratio within the bounds an LRU cache of that size gives (a simulation
# of 20,000 zipf:1.2 reads of 32,768 units with 2,048 buffers: 84 % hits, at
# most 84 % since each unit's first read misses); a hotset run sends its
# share of reads to its share of units; a sequential run reads each
# process's own consecutive units with the kernel's readahead, and the
# kernel fetches what it reads (that it is then faster than a random run is
# the device's speed: RANREAD_TEST_EXTRA=timing only).  Bad input is refused
# before anything is recorded.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('distribution', shared_buffers => '16MB');
$node->safe_psql('postgres', q{SELECT ranread_setup('256 MB', log_level => 0)});

# zipf on a buffer pool of 2,048 buffers for a target of 32,768 units
my ($out, $err);
$node->psql('postgres', q{SELECT batch FROM ranread_run(4, 5000, mode => 'buffer', distribution => 'zipf:1.2')},
	stdout => \$out, stderr => \$err);
$err =~ s/^psql:<stdin>:\d+: //mg;
like($err, qr/^NOTICE:  distribution zipf:1\.2: [0-9.]+% of the reads found their unit in memory/m,
	'a zipf run says how many reads found their unit in memory');
like($err, qr/DETAIL:  Shared buffers answered [0-9.]+% of the blocks read\./, 'and, in mode buffer, the hit ratio of shared buffers');
# (other processes' reads of the same device, a busy machine's, get their own
# WARNING "other I/O shared the device": the machine's, not this run's)
unlike($err, qr/^WARNING:  (?!other I\/O shared the device: )/m, 'and warns of nothing of its own: its hits are its result, not a fault');
my ($hit_pct, $distribution, $reads) = split /\|/, $node->safe_psql('postgres',
	"SELECT round(100.0 * buffer_hits / (buffer_hits + buffer_misses), 1), distribution, reads FROM ranread_batches WHERE batch = $out");
is($distribution, 'zipf:1.2', 'the batch records its distribution');
is($reads, 20000, 'a skewed run reads all its iterations, re-reads and all');
cmp_ok($hit_pct, '>=', 70, "zipf:1.2 on 2,048 buffers: hit ratio $hit_pct% is at least 70%");
cmp_ok($hit_pct, '<=', 90, "and at most 90% (an LRU cache of this size: 84%)");

# hotset: 90 % of the reads to 1 % of the units (328), which mode smgr's
# page cache keeps: most reads find their unit in memory
my ($hot_physical, $hot_distribution) = split /\|/,
  batch_of($node, q{SELECT batch FROM ranread_run(2, 5000, distribution => 'hotset:90%/1%')}, 'SELECT physical_pct, distribution');
is($hot_distribution, 'hotset:90%/1%', 'a hotset batch records its distribution');
cmp_ok($hot_physical, '<=', 15, "hotset:90%/1%: the device answered $hot_physical% of the reads (at most 15%)");
cmp_ok($hot_physical, '>=', 5, 'and at least 5% (the cold 10% and the hot units\' first reads)');

# uniform, the default, is unchanged: every read a distinct unit
my ($uniform_physical, $uniform_distribution, $random_iops) = split /\|/,
  batch_of($node, 'SELECT batch FROM ranread_run(2, 2000)', 'SELECT physical_pct >= 99, distribution, iops');
is("$uniform_physical $uniform_distribution", 't uniform', 'uniform stays the default: every read from the device');

# sequential: consecutive units with readahead; the kernel fetched what was read
like(shown($node, q{SELECT ranread_run(1, 2000, distribution => 'sequential')}),
	qr/NOTICE:  distribution sequential: the kernel fetched [0-9.]+ kB from storage per read of 8 kB, with its readahead(?!\nHINT)/,
	'a sequential run says what the kernel fetched per read, and no hint against readahead');
my ($seq_kb, $seq_distribution, $seq_iops) = split /\|/,
  batch_of($node, q{SELECT batch FROM ranread_run(1, 8000, distribution => 'sequential')}, 'SELECT kb_per_read, distribution, iops');
is($seq_distribution, 'sequential', 'a sequential batch records its distribution');
cmp_ok($seq_kb, '>=', 7.2, "the kernel fetched $seq_kb kB per sequential read of 8 kB (at least 90%)");
SKIP:
{
	skip timing_skip(), 1 if timing_skip();
	cmp_ok($seq_iops, '>', $random_iops,
		"sequential reads with readahead are faster than random ones ($seq_iops against $random_iops IOPS for 2 processes)");
}

# bad input, refused before anything is recorded
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
foreach my $case (
	[ q{ranread_run(1, 10, distribution => NULL)}, qr/distribution must not be null/ ],
	[ q{ranread_run(1, 10, distribution => 'pareto')}, qr/unknown distribution "pareto"/ ],
	[ q{ranread_run(1, 10, distribution => 'zipf:0')}, qr/unknown distribution "zipf:0"/ ],
	[ q{ranread_run(1, 10, distribution => 'zipf:11')}, qr/unknown distribution "zipf:11"/ ],
	[ q{ranread_run(1, 10, distribution => 'zipf:1.2x')}, qr/unknown distribution "zipf:1.2x"/ ],
	[ q{ranread_run(1, 10, distribution => 'hotset:90%')}, qr/unknown distribution "hotset:90%"/ ],
	[ q{ranread_run(1, 10, distribution => 'hotset:100%/10%')}, qr/unknown distribution/ ],
	[ q{ranread_run(1, 10, distribution => 'hotset:90%/0%')}, qr/unknown distribution/ ],
	[ q{ranread_run(1, 10, distribution => 'hotset:90%/10%%')}, qr/unknown distribution/ ])
{
	my $shown = shown($node, "SELECT $case->[0]");
	like($shown, $case->[1], "$case->[0] is refused");
	like($shown, qr/HINT:  Use 'uniform', 'zipf:theta'/, 'with the forms it takes') if $case->[0] !~ /NULL/;
}
is(sqlstate_of(shown($node, q{SELECT ranread_run(1, 10, distribution => 'zipf:-1')}, verbose => 1)), '22023', 'as invalid_parameter_value');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'and records nothing');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
