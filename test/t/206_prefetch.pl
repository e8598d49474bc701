# prefetch => N (mode smgr): each unit is advised to the kernel N reads
# ahead of its read (smgrprefetch: posix_fadvise WILLNEED), as PostgreSQL 15
# to 17 prefetch ahead of a bitmap heap scan.  The proof of physical reads
# asks before the advice, so a prefetched run is still counted as physical,
# and the reads the advice brought in are faster than without it (the device
# works ahead).  Bad input refused before anything is recorded.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('prefetch');
$node->safe_psql('postgres', q{SELECT ranread_setup('256 MB', log_level => 0)});

# batch columns of a run, by batch number (the row is the workers': read it after the run)
sub batch_of
{
	my ($run, $columns) = @_;
	my $batch = $node->safe_psql('postgres', "SELECT batch FROM $run");
	return $node->safe_psql('postgres', "SELECT $columns FROM ranread_batches WHERE batch = $batch");
}

my ($plain_mean, $plain_physical, $plain_prefetch) = split /\|/,
  batch_of('ranread_run(1, 3000)', 'response_time_ms, physical_pct >= 99, prefetch');
my ($ahead_mean, $ahead_physical, $ahead_prefetch, $ahead_kb) = split /\|/,
  batch_of('ranread_run(1, 3000, prefetch => 16)', 'response_time_ms, physical_pct >= 99, prefetch, kb_per_read < 9');
is("$plain_physical $ahead_physical", 't t', 'with and without prefetch, the reads are counted as the device\'s (physical_pct >= 99)');
is("$plain_prefetch $ahead_prefetch", '0 16', 'the batch records prefetch');
is($ahead_kb, 't', 'the advice reads no more than the units (kb_per_read about 8)');
cmp_ok($ahead_mean, '<', $plain_mean * 0.8,
	"a read advised 16 reads ahead waits less ($ahead_mean ms against $plain_mean ms)");

# bad input, refused before anything is recorded
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
foreach my $case (
	[ 'ranread_run(1, 10, prefetch => -1)', qr/prefetch must be between 0 and 1024/ ],
	[ 'ranread_run(1, 10, prefetch => NULL)', qr/prefetch must not be null/ ],
	[ "ranread_run(1, 10, mode => 'direct', prefetch => 4)", qr/mode 'direct' cannot prefetch/ ],
	[ "ranread_run(1, 10, mode => 'buffer', prefetch => 4)", qr/mode 'buffer' cannot prefetch/ ],
	[ 'ranread_run(1, 10, prefetch => 4, rate_iops => 100)', qr/prefetch cannot be combined with rate_iops/ ])
{
	like(shown($node, "SELECT $case->[0]"), $case->[1], "$case->[0] is refused");
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'and records nothing');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
