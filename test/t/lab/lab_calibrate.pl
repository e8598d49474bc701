# Known answer: ranread_calibrate() on a device whose random/sequential
# ratio we set.  The lab device (test/lab/capped_zram.sh, made by
# test/run-tap.sh: zram behind the kernel's block throttle, the server
# inside the throttle's cgroup) gets two caps at once: N reads/s, which
# random 8 kB reads meet first, and B bytes/s, which a sequential scan's
# readahead (128 kB reads, far fewer than N a second) meets first.  A random
# page then takes 1/N s and a sequential one 8192/B s, so the set ratio is
# B / (8192 N).  The calibration's ratio must be within 2 % of it.
# The caps are a few hundred reads/s and a few MB/s, so that a busy machine's
# CPU is not the limit.  Skips, with the reason, without a lab device.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
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

# cached_pct => 0: the pairs go on until the band itself is within 10 %
# (at 90 %, every ratio from 5 to 5.9 gives random_page_cost 1.0, and the
# calibration stops at 6 pairs, whose band is their least and greatest: one
# batch the busy machine stalled, 376 ms on one read, made it 5.02 to 5.83);
# from 9 pairs on, the band leaves out the outermost pair on each side.
lab_set_cap(both => $N, $B);
my $out = shown($node, q{SELECT ratio, ratio_low, ratio_high, band_pct_reached, steady, pairs, random_ms, sequential_ms,
	array_to_string(batches, ',')
	FROM ranread_calibrate('lab', iterations => 1000, max_pairs => 12, max_depth => 4, band_pct => 10,
						   cached_pct => 0, max_duration => '10 min')});
lab_set_cap('none');
my ($row) = grep { /\|/ } split /\n/, $out;
my ($ratio, $low, $high, $reached, $steady, $pairs, $random_ms, $sequential_ms, $batches) = split /\|/, $row;
diag(sprintf('truth: PostgreSQL %d | random/sequential ratio %.2f (%d reads/s, %d MiB/s) | ratio %s, 95 %% band %s to %s (± %s %%) over %s pairs; random %s ms (set %.3f), sequential %s ms (set %.4f)',
	$major, $set, $N, $B >> 20, $ratio, $low, $high, $reached, $pairs, $random_ms, 1000 / $N, $sequential_ms, 8192 * 1000 / $B));
ok($low ne '' && $high ne '', "the calibration has a 95 % band ($pairs pairs)");
# Within the lab's 2 %, as every read path is of its cap: the throttle lets
# a readahead through a little early (seen: a sequential page's read 0.4856
# ms for a set 0.4883, a random one's 2.4986 ms for 2.500), so a band of a
# few tenths of a per cent need not contain the set ratio itself.  A page's
# cost is its read's mean time; by 1 / IOPS, beside the matrix's load of
# about 11, this calibration read 5.25 (random batches 385.6 reads/s).
cmp_ok(abs($ratio - $set) / $set, '<=', 0.02, sprintf('its ratio, %s (band %s to %s), is within 2 %% of the set ratio %.2f', $ratio, $low, $high, $set));
is($steady, 't', "on a device held at its caps the band is steady (± $reached %, target ± 10 %)");
# a throttle spends at once what the batch before left unspent (a sequential
# batch uses few of its IOPS): each batch's ramp keeps that out of its count,
# so no random batch of a pair (those after the first sequential one) beat
# the cap (without the ramp those after a sequential batch read 443 to 448
# reads/s)
my $fastest = $node->safe_psql('postgres', qq{SELECT max(iops) FROM ranread_batches
	WHERE batch = ANY('{$batches}'::bigint[]) AND distribution = 'uniform'
	  AND batch > (SELECT min(batch) FROM ranread_batches WHERE batch = ANY('{$batches}'::bigint[]) AND distribution = 'sequential')});
cmp_ok($fastest, '<=', $N * 1.02, sprintf('no random batch of a pair beat the cap of %d reads/s by over 2 %% (fastest %.1f)', $N, $fastest));
# the random batches' reads were the device's (a sequential batch's are
# mostly answered from its readahead, by design)
is($node->safe_psql('postgres', qq{SELECT bool_and(physical_pct >= 99) FROM ranread_batches
	WHERE batch = ANY('{$batches}'::bigint[]) AND mode = 'smgr' AND prefetch = 0 AND distribution = 'uniform'}), 't',
	'the device answered the random batches\' reads (physical_pct >= 99)');

diag(sprintf('lab/lab_calibrate.pl on PostgreSQL %d took %.0f s', $major, Time::HiRes::time() - $started));
lab_done($node, $ts);
done_testing();
