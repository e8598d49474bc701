# Known answer: ranread_calibrate() on a device whose random/sequential
# ratio we set.  The lab device (test/lab/capped_zram.sh, made by
# test/run-tap.sh: zram behind the kernel's block throttle, the server
# inside the throttle's cgroup) gets two caps at once: N reads/s, which
# random 8 kB reads meet first, and B bytes/s, which a sequential scan's
# readahead (128 kB reads, far fewer than N a second) meets first.  A random
# page then takes 1/N s and a sequential one 8192/B s, so the set ratio is
# B / (8192 N).  The calibration's 95 % band of the ratio must contain it.
# The caps are a few hundred reads/s and a few MB/s, so that a busy machine's
# CPU is not the limit.  Skips, with the reason, without a lab device.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use RanreadTest;

my $missing = lab_missing();
plan skip_all => $missing if $missing;

my $started = Time::HiRes::time();
my $N = 400;                     # reads/s: random 8 kB reads
my $B = 16 * 1024 * 1024;        # bytes/s: sequential reads
my $set = $B / (8192 * $N);      # 5.12

my $node = lab_node('labcal');
my $major = $node->pg_version->major;
my $ts = "$ENV{RANREAD_LAB_CAP_DIR}/cal-$major";
mkdir $ts or die "cannot make $ts: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$ts'");
$node->safe_psql('postgres', "SELECT ranread_setup('256 MB', tablespace => 'lab', target => 'lab', log_level => 0)");

lab_set_cap(both => $N, $B);
my $out = shown($node, q{SELECT ratio, ratio_low, ratio_high, band_pct_reached, steady, pairs, random_ms, sequential_ms,
	array_to_string(batches, ',')
	FROM ranread_calibrate('lab', iterations => 1000, max_pairs => 12, max_depth => 4, band_pct => 10,
						   max_duration => '10 min')});
lab_set_cap('none');
my ($row) = grep { /\|/ } split /\n/, $out;
my ($ratio, $low, $high, $reached, $steady, $pairs, $random_ms, $sequential_ms, $batches) = split /\|/, $row;
diag(sprintf('truth: PostgreSQL %d | random/sequential ratio %.2f (%d reads/s, %d MiB/s) | ratio %s, 95 %% band %s to %s (± %s %%) over %s pairs; random %s ms (set %.3f), sequential %s ms (set %.4f)',
	$major, $set, $N, $B >> 20, $ratio, $low, $high, $reached, $pairs, $random_ms, 1000 / $N, $sequential_ms, 8192 * 1000 / $B));
ok($low ne '' && $high ne '', "the calibration has a 95 % band ($pairs pairs)");
ok($low <= $set && $set <= $high, sprintf('its band, %s to %s, contains the set ratio %.2f', $low, $high, $set));
is($steady, 't', "on a device held at its caps the band is steady (± $reached %, target ± 10 %)");
# the random batches' reads were the device's (a sequential batch's are
# mostly answered from its readahead, by design)
is($node->safe_psql('postgres', qq{SELECT bool_and(physical_pct >= 99) FROM ranread_batches
	WHERE batch = ANY('{$batches}'::bigint[]) AND mode = 'smgr' AND prefetch = 0 AND distribution = 'uniform'}), 't',
	'the device answered the random batches\' reads (physical_pct >= 99)');

diag(sprintf('222_lab_calibrate.pl on PostgreSQL %d took %.0f s', $major, Time::HiRes::time() - $started));
lab_done($node, $ts);
done_testing();
