# Known answers for a burst bucket: the FUSE laboratory (test/lab/labfs.c)
# keeps a token bucket as AWS gp2 and Azure Premium SSD state theirs
# (credits accrue at the baseline rate up to the bucket's size, each read
# spends one, reads go at the burst rate while credits last, then at the
# baseline).  A run long enough to see both levels is checked twice: the
# file system's own counters first (the device obeyed the truth we set),
# then what ranread's bucket rule (src/rules/bucket_rules.c) says in the
# batch's WARNING, against that truth: burst and baseline within 3 %, the
# bucket's size within 10 % (the issue's bounds).  The first bucket's
# baseline is above half its burst on purpose: the sharp-fall rule does not
# see it.  Left idle, the empty bucket refills at the baseline, and a second
# run finds what the lab says it held; a baseline under half the burst gets
# the sharp-fall WARNING with the same figures; a plain pace (a cap) gets no
# bucket WARNING.  A sweep whose first step empties the bucket states the
# sustained rate apart from the burst and does not stop at the bucket's
# end; a sweep drained first reads the baseline in every step.
# test/run-tap.sh mounts the
# file system; reads stay at a few thousand per second, far below what the
# machine serves, so that the figures hold on a busy machine.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use List::Util ();
use Time::HiRes qw(time sleep);
use RanreadTest;

my $lab_dir = $ENV{RANREAD_LAB_FUSE_DIR} // '';
plan skip_all => 'no FUSE laboratory mounted (test/run-tap.sh mounts one as root)' if $lab_dir eq '';

my $node = new_node('lab_bucket', autovacuum => 'off');
my $tablespace = "$lab_dir/bucket";
mkdir $tablespace or die "mkdir $tablespace: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$tablespace'");
$node->safe_psql('postgres', "SELECT ranread_setup('16 MB', 'lab', 'lab_t', 0)");
my $file = $node->safe_psql('postgres', "SELECT pg_relation_filenode('lab_t')");
lab_fuse("clear count=$file");

# A number as the messages write it ("1,234").
sub number { my ($text) = @_; $text =~ s/,//g; return $text + 0; }

# One bucket case: the lab set to it from full, a closed loop of 16 processes
# for $seconds (16 keep a read waiting for each turn of the burst; 4 did not
# on a busy machine, and a turn no read waits for is lost), the lab's
# counters checked against the truth, then the rule's WARNING.  $warning is
# the WARNING expected: the shift's own, or the sharp fall's, whose DETAIL
# then carries the same figures.  With $bucket undefined the bucket is left
# as the previous case and the idle time left it, and the truth the rule is
# held to is what the lab says it held at the batch's start: a bucket not
# full gains the baseline's tokens between the direct path's probe (the
# lab's first read) and the workers' release (CI at a load of 15: 0.57 s,
# 342 tokens, 10.2 % of the 3,348 it held at the probe).
sub bucket_case
{
	my ($bucket, $burst, $baseline, $seconds, $warning) = @_;
	my $case = 'bucket ' . ($bucket // 'refilled') . ", burst $burst, baseline $baseline";
	lab_fuse(defined $bucket ? "clear count=$file reset bucket=$bucket burst=$burst baseline=$baseline" : 'reset');
	my $out = shown($node, "SELECT batch FROM ranread_run(16, NULL, 'lab_t', mode => 'direct', duration => '$seconds s')");
	my $s = lab_fuse_stats();
	my ($batch) = $out =~ /^\s*(\d+)\s*$/m;
	my $reads = $node->safe_psql('postgres', "SELECT reads FROM ranread_batches WHERE batch = $batch");
	diag($_) foreach grep { /^(WARNING|DETAIL):/ } split /\n/, $out;

	# the device obeyed its truth
	is($s->{bucket_burst_reads} + $s->{bucket_baseline_reads}, $s->{reads},
		"$case: the file system paced each of its $s->{reads} reads by the bucket: $s->{bucket_burst_reads} at the burst rate, $s->{bucket_baseline_reads} at the baseline");
	cmp_ok($s->{reads} - $reads, '<=', 1, "$case: it served the batch's $reads reads and the direct path's one probe");
	# (the reads it served until then, less the tokens that accrued meanwhile)
	my $lab_seen = $s->{bucket_empty_reads} - $s->{bucket_empty_accrued};
	if (defined $bucket)
	{
		cmp_ok(abs($lab_seen - $bucket), '<=', 2, sprintf(
			'%s: it ran empty after %.3f s and %d reads, %.1f tokens having accrued: it held %.1f = %d tokens',
			$case, $s->{bucket_empty_after_s}, $s->{bucket_empty_reads}, $s->{bucket_empty_accrued}, $lab_seen, $bucket));
	}
	else
	{
		my $released = $node->safe_psql('postgres', "SELECT extract(epoch FROM started_at) FROM ranread_batches WHERE batch = $batch");
		my $gap = $released - $s->{bucket_first_at};
		$bucket = List::Util::min($lab_seen + $baseline * List::Util::max($gap, 0), $s->{bucket});
		ok($s->{bucket_first_at} > 0 && $gap > -0.1 && $gap < 10, sprintf(
			'%s: it held %.1f tokens at the probe, %.3f s before the workers were released: %.1f then',
			$case, $lab_seen, $gap, $bucket));
	}
	my $lab_burst = $s->{bucket_empty_reads} / $s->{bucket_empty_after_s};
	# (within 5 %: the lab's clock starts at the direct path's probe, a
	# moment before the workers read.  Whether the lab and the 16 workers
	# keep 1,000 turns a second is this machine's speed: beside the matrix
	# and another run the lab counted 894.9; the rule is held below to what
	# the lab served either way.)
  SKIP:
	{
		skip(timing_skip(), 1) if timing_skip();
		cmp_ok(abs($lab_burst / $burst - 1), '<=', 0.05,
			sprintf('%s: ranread kept up with the burst: %.1f reads/s until it ran empty, within 5 %% of %d', $case, $lab_burst, $burst));
	}

	# what the rule found
	like($out, $warning, "$case: the batch WARNs");
	my ($m_burst, $b_burst, $m_base, $b_base, $m_bucket, $b_bucket, $m_after, $m_reads) = $out =~
	  /As a burst bucket: a burst of ([0-9,]+) ± ([0-9.]+) reads\/s, a baseline of ([0-9,]+) ± ([0-9.]+) reads\/s, a bucket of (\d+) ± (\d+) reads when counting began, empty after ([0-9.]+) s and (\d+) reads\./;
	ok(defined $m_reads, "$case: its DETAIL gives the burst, the baseline, the bucket and when it ran empty");
	($m_burst, $b_burst, $m_base, $b_base) = map { number($_ // 0) } ($m_burst, $b_burst, $m_base, $b_base);
	$_ //= 0 foreach ($m_bucket, $b_bucket, $m_after, $m_reads);
	diag("$case: truth vs measured | lab set | lab counted | ranread's rule | off");
	diag(sprintf('burst reads/s | %d | %.1f | %d ± %.1f | %+.2f %%', $burst, $lab_burst, $m_burst, $b_burst, 100 * ($m_burst / $burst - 1)));
	diag(sprintf('baseline reads/s | %d | - | %d ± %.1f | %+.2f %%', $baseline, $m_base, $b_base, 100 * ($m_base / $baseline - 1)));
	diag(sprintf('bucket reads | %d | %.1f | %d ± %d | %+.2f %%', $bucket, $lab_seen, $m_bucket, $b_bucket, 100 * ($m_bucket / $bucket - 1)));
	diag(sprintf('empty after s | %.2f | %.3f | %s | %+.2f %%', $bucket / ($burst - $baseline), $s->{bucket_empty_after_s}, $m_after,
		100 * ($m_after / $s->{bucket_empty_after_s} - 1)));
	diag(sprintf('reads until empty | %d | %d | %d | %+.2f %%', $burst * $bucket / ($burst - $baseline), $s->{bucket_empty_reads}, $m_reads,
		100 * ($m_reads / $s->{bucket_empty_reads} - 1)));
	# The burst the device served lies between what the lab counted and what
	# was set: on a busy machine the lab loses turns (CI beside the matrix's
	# load: it counted 958.9 reads/s of a set 1,000, and the rule found 967),
	# and its count starts at the direct path's probe, a moment early (in
	# another run it counted 967.9 where the rule found 1,000).  The rule is
	# held to that range, within 3 %.
	my $served = List::Util::min($lab_burst, $burst);
	ok($m_burst >= 0.97 * $served && $m_burst <= 1.03 * $burst, sprintf(
		'%s: the burst rate, %d reads/s, is within 3 %% of %.1f (the lab counted) to %d (set)', $case, $m_burst, $served, $burst));
	cmp_ok(abs($m_base / $baseline - 1), '<=', 0.03, "$case: the baseline, $m_base reads/s, is the $baseline set within 3 %");
	cmp_ok(abs($m_bucket / $bucket - 1), '<=', 0.10, "$case: the bucket, $m_bucket reads, is the $bucket set within 10 %");
	# (the lab's clock starts at the direct path's probe, just before the workers read)
	cmp_ok(abs($m_after / $s->{bucket_empty_after_s} - 1), '<=', 0.10,
		"$case: it ran empty after $m_after s, the file system's $s->{bucket_empty_after_s} s within 10 %");
	return $out;
}

# --- baseline above half the burst: 1,000/s, then 600/s, 5,000 reads -----------
# From a full bucket a closed loop that keeps up reads at 1,000/s for
# 5,000 / (1,000 - 600) = 12.5 s, then at 600/s; 30 s shows both.  The
# sharp-fall rule (last third under half the first) cannot see it.  (At
# 2,000 and 1,200/s a busy machine kept the burst only within 2-3 %.)
my $out = bucket_case(5000, 1000, 600, 30,
	qr/^WARNING:  IOPS shifted down from [0-9,]+ to [0-9,]+ reads\/s after [0-9.]+ s: a burst bucket ran empty\?$/m);
unlike($out, qr/IOPS fell/, 'and not that IOPS fell sharply: the baseline is above half the burst');

# --- refill: idle, the empty bucket gains the baseline's 600 tokens a second ----
my ($t1, $s1) = (time(), lab_fuse_stats());
sleep 3;
my ($t2, $s2) = (time(), lab_fuse_stats());
my $refill = ($s2->{bucket_tokens} - $s1->{bucket_tokens}) / ($t2 - $t1);
my $refilled = sprintf('idle, the bucket refilled at %.1f tokens/s (%.1f to %.1f in %.2f s), within 3 %% of the baseline 600',
	$refill, $s1->{bucket_tokens}, $s2->{bucket_tokens}, $t2 - $t1);
diag($refilled);
cmp_ok(abs($refill / 600 - 1), '<=', 0.03, $refilled);
sleep 2;
# about 3,000 tokens now: the rule is held to what the lab says it held
bucket_case(undef, 1000, 600, 20,
	qr/^WARNING:  IOPS shifted down from [0-9,]+ to [0-9,]+ reads\/s after [0-9.]+ s: a burst bucket ran empty\?$/m);

# --- baseline below half the burst: 1,000/s, then 300/s, 3,500 reads -----------
# Empty after 3,500 / 700 = 5 s; the sharp-fall WARNING fires and its
# DETAIL carries the bucket's figures, with no second WARNING.
$out = bucket_case(3500, 1000, 300, 20,
	qr/^WARNING:  IOPS fell from [0-9,]+ to [0-9,]+ after \d+ s: a burst allowance or a throttle\?$/m);
unlike($out, qr/shifted down/, 'and no second WARNING of a shift');

# --- a cap: a plain pace of 800/s is one level, no bucket ---------------------
# The pace is the lab's turns: on a busy machine the lab loses some (CI
# beside the matrix's load WARNed of a shift), and then the device itself
# changed level; such a run, one whose reads fell short of 97 % of the pace,
# runs again, up to three times.
foreach my $attempt (1 .. 3)
{
	lab_fuse("clear count=$file reset pace=800");
	$out = shown($node, "SELECT batch FROM ranread_run(4, NULL, 'lab_t', mode => 'direct', duration => '12 s')");
	my ($pace_batch) = $out =~ /^\s*(\d+)\s*$/m;
	my $iops = $node->safe_psql('postgres', "SELECT iops FROM ranread_batches WHERE batch = $pace_batch");
	last if $attempt == 3 || $out !~ /shifted down|IOPS fell/ || $iops >= 0.97 * 800;
	diag(sprintf('a cap of 800 reads/s: the lab served %.0f reads/s and ranread WARNed of a shift: the machine slowed the lab, running it again', $iops));
}
unlike($out, qr/shifted down|IOPS fell/, 'a cap of 800 reads/s: no WARNING of a shift or a fall');

# --- a sweep on a bucket: 1,000/s, then 600/s, 3,000 reads --------------------
# Step 1 (16 processes, 16 s) empties the bucket after 3,000 / 400 = 7.5 s;
# step 2 (24 processes) reads the baseline.  Read as averages, step 1 is
# about 800 reads/s and step 2 600: a fall the scaling rule would take for
# the volume's knee.  The sweep counts step 1 at its baseline, compares
# step 2 with it, and its verdict states the sustained rate apart from the
# burst.  (No SLO and a far latency stop: the lab's latency is its pace.)
my $sweep_args = "start_processes => 16, step_processes => 8, max_processes => 24, target => 'lab_t', mode => 'direct', "
  . "stop_latency_ms => 1000, slo_mean_ms => NULL, slo_p99_ms => NULL";
lab_fuse("clear count=$file reset bucket=3000 burst=1000 baseline=600");
$out = shown($node, "CALL ranread_sweep($sweep_args, duration => '16 s')");
my $s = lab_fuse_stats();
my $lab_burst = $s->{bucket_empty_after_s} > 0 ? $s->{bucket_empty_reads} / $s->{bucket_empty_after_s} : 0;
my $sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
my ($verdict, $stop_rule) = split /\|/, $node->safe_psql('postgres', "SELECT verdict, stop_rule FROM ranread_sweep_verdict($sweep)");
diag("a sweep on a bucket (burst 1,000, baseline 600, 3,000 reads): $verdict");
my ($v_step, $v_burst, $v_base, $v_sustained) = $verdict =~
  /A burst bucket ran empty at step (\d+) \([^)]*\): a burst of ([0-9,.]+) reads\/s.*?, then a baseline of ([0-9,.]+) reads\/s.*?\. Sustained: ([0-9,.]+) reads\/s/;
ok(defined $v_sustained, 'a sweep on a bucket: the verdict states where the bucket ran empty, the burst and the sustained rate');
($v_burst, $v_base, $v_sustained) = map { number($_ // 0) } ($v_burst, $v_base, $v_sustained);
my $served = List::Util::min($lab_burst, 1000);
diag(sprintf('sweep on a bucket | set | lab counted | verdict | off'));
diag(sprintf('burst reads/s | 1000 | %.1f | %s | %+.2f %%', $lab_burst, $v_burst, 100 * ($v_burst / 1000 - 1)));
diag(sprintf('sustained reads/s | 600 | - | %s | %+.2f %%', $v_sustained, 100 * ($v_sustained / 600 - 1)));
is($v_step, 1, 'a sweep on a bucket: it ran empty in step 1, as the lab set it (7.5 s into a 16 s step)');
ok($v_burst >= 0.97 * $served && $v_burst <= 1.03 * 1000,
	sprintf('a sweep on a bucket: the burst, %s reads/s, is within 3 %% of %.1f (the lab counted) to 1,000 (set)', $v_burst, $served));
cmp_ok(abs($v_sustained / 600 - 1), '<=', 0.03, "a sweep on a bucket: the sustained rate, $v_sustained reads/s, is the baseline 600 within 3 %");
is($stop_rule, 'max processes', 'a sweep on a bucket: it went on to max_processes, not stopped by scaling at the bucket\'s end');
like($verdict, qr/Highest IOPS: [0-9,.]+ IOPS/, 'a sweep on a bucket: its highest IOPS are of the sustained level');
unlike($out, qr/^ERROR/m, 'a sweep on a bucket: no error');

# --- a drained sweep: the drain empties the bucket, the steps read the baseline -
# The drain reads at step 1's load until the bucket ran empty (7.5 s) and
# the level after it held steady 5 s, within its bound of 40 s.  Between
# two batches the idle bucket refills at the baseline (a second or so: a
# few hundred tokens, served at the burst rate as a step begins): a step
# after a drain ramps 3 s before it counts, so its average is the baseline
# (without the ramp, 627.6 and 638.8 reads/s).
lab_fuse("clear count=$file reset bucket=3000 burst=1000 baseline=600");
$out = shown($node, "CALL ranread_sweep($sweep_args, duration => '8 s', drain => '40 s')");
$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
$verdict = $node->safe_psql('postgres', "SELECT verdict FROM ranread_sweep_verdict($sweep)");
diag("a drained sweep: $verdict");
my ($d_burst, $d_base, $d_steady) = $verdict =~
  /The drain \(batch \d+, 16 processes, at most 40 s\) read [0-9.]+ s: a burst of ([0-9,.]+) reads\/s.*?, then a baseline of ([0-9,.]+) reads\/s.*?, steady after ([0-9.]+) s: the steps read the volume's sustained rate\./;
ok(defined $d_steady, 'a drained sweep: the drain emptied the bucket and was steady after it');
($d_burst, $d_base) = map { number($_ // 0) } ($d_burst, $d_base);
cmp_ok(abs($d_base / 600 - 1), '<=', 0.03, "a drained sweep: the drain's baseline, $d_base reads/s, is 600 within 3 %");
ok($d_burst >= 0.97 * List::Util::min($lab_burst, 1000) && $d_burst <= 1030, "a drained sweep: the drain's burst, $d_burst reads/s, is 1,000 within 3 %");
unlike($verdict, qr/ran empty at step/, 'a drained sweep: no step saw the bucket run empty');
my $steps = $node->safe_psql('postgres', "SELECT b.sweep_step, b.iops, "
	. "(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY i.iops) FROM ranread_intervals i "
	. " WHERE i.batch = b.batch AND i.interval_no > 2 AND i.workers_reading = b.processes) "
	. "FROM ranread_batches b WHERE b.sweep = $sweep AND b.sweep_step > 0 ORDER BY b.batch");
foreach my $row (split /\n/, $steps)
{
	my ($step, $iops, $median) = split /\|/, $row;
	diag(sprintf('drained sweep, step %d: %.1f reads/s on average, %.1f the median second from the third', $step, $iops, $median));
	cmp_ok(abs($iops / 600 - 1), '<=', 0.03, sprintf('a drained sweep: step %d read the baseline, %.1f reads/s, 600 within 3 %%', $step, $iops));
}
is($node->safe_psql('postgres', "SELECT count(*) FROM ranread_batches WHERE sweep = $sweep AND sweep_step = 0"), 1,
	'a drained sweep: the drain is one batch of the sweep, step 0');
lab_fuse('clear');

$node->stop;
done_testing();
