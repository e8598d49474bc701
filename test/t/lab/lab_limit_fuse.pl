# Known answers for what limits a volume (src/rules/limit_rules.c,
# ranread_limit()) on the FUSE laboratory (test/lab/labfs.c):
# - a burst bucket (6,000 reads, burst 1,000, baseline 500 reads/s, which
#   also refills it): a sweep drains it first, steps at the baseline (16
#   and 32 processes: a plateau over a doubling), then
#   with probe => '3 s' waits 3 s idle and reads again; the burst and the
#   baseline must be named within 3 % of the set rates, the bucket within
#   10 % of its size, and the refill (the credits found over the seconds no
#   read was issued) within 10 % of the 500 a second the lab accrues; the
#   baseline itself is a cap on reads (the lab counts a token a read,
#   whatever its size), which the size probe must find; ranread_stop() in
#   the idle pause ends the sweep, keeping what it read;
# - the device itself: 4 slots, each read holding one for 2 ms and 125 us
#   per kB (a fixed cost and a transfer time, as a device's reads have):
#   its plateau, probed at 16 kB, keeps neither its IOPS nor its bytes.
# test/run-tap.sh mounts the file system; the reads stay at a few thousand
# a second, so that the figures hold on a busy machine.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $lab_dir = $ENV{RANREAD_LAB_FUSE_DIR} // '';
plan skip_all => 'no FUSE laboratory mounted (test/run-tap.sh mounts one as root)' if $lab_dir eq '';

my $node = new_node('lab_limit', autovacuum => 'off', max_worker_processes => 40);
my $tablespace = "$lab_dir/limit";
mkdir $tablespace or die "mkdir $tablespace: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$tablespace'");
$node->safe_psql('postgres', "SELECT ranread_setup('16 MB', 'lab', 'lab_t', 0)");
my $file = $node->safe_psql('postgres', "SELECT pg_relation_filenode('lab_t')");
my $slo = 'stop_latency_ms => 10000, slo_mean_ms => 10000, slo_p99_ms => 20000';

# --- a burst bucket -----------------------------------------------------------------
my ($N, $burst, $baseline) = (6000, 1000, 500);
lab_fuse("clear count=$file reset bucket=$N burst=$burst baseline=$baseline");
my $out = shown($node, "CALL ranread_sweep(start_processes => 16, max_processes => 32, duration => '10 s', "
	  . "target => 'lab_t', mode => 'direct', $slo, drain => '40 s', probe => '3 s')");
my $sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
my ($kind, $rate, $bucket, $m_burst, $m_size, $refill, $evidence) = split /\|/, $node->safe_psql('postgres',
	"SELECT kind, round(rate_iops::numeric, 1), bucket, round(burst_iops::numeric, 1), round(bucket_reads::numeric), "
	  . "round(refill_per_s::numeric, 1), evidence FROM ranread_limit($sweep)");
diag("truth: bucket $N, burst $burst, baseline $baseline | ranread: $kind, bucket $bucket, burst $m_burst, "
	  . "baseline $rate, size $m_size, refill $refill");
diag($evidence);
is($bucket, 't', 'a burst bucket is named');
cmp_ok(abs($m_burst / $burst - 1), '<=', 0.03, "its burst, $m_burst reads/s, within 3 % of $burst");
cmp_ok(abs($rate / $baseline - 1), '<=', 0.03, "its sustained rate, $rate reads/s, within 3 % of the baseline $baseline");
cmp_ok(abs($m_size / $N - 1), '<=', 0.10, "its size, $m_size reads, within 10 % of $N");
cmp_ok(abs($refill / $baseline - 1), '<=', 0.10, "its refill, $refill a second, within 10 % of the $baseline the lab accrues");
is($kind, 'IOPS cap', 'the baseline is a cap on reads, whatever their size');
like($out, qr/refill probe: batch \d+, completed/, 'the sweep said what its refill probe read');
like($node->safe_psql('postgres', "SELECT verdict FROM ranread_sweeps WHERE sweep = $sweep"),
	qr/A burst bucket ran empty: .* a refill of /s, 'the verdict gives the bucket and its refill');
is($node->safe_psql('postgres',
		"SELECT string_agg(sweep_step::text, ',' ORDER BY sweep_step) FROM ranread_batches WHERE sweep = $sweep AND sweep_step < 1"),
	'-2,-1,0', 'the refill probe, the size probe and the drain are recorded as steps -2, -1 and 0');

# --- ranread_stop() in the idle pause before the refill probe -----------------------
lab_fuse("clear count=$file reset bucket=$N burst=$burst baseline=$baseline");
my ($h, $stop_out, $stop_err) = start_psql($node, "CALL ranread_sweep(start_processes => 16, max_processes => 16, "
	  . "duration => '4 s', target => 'lab_t', mode => 'direct', $slo, drain => '40 s', probe => '1 hour')");
my $stopped = $sweep + 1;
ok(wait_until($node, "SELECT count(*) = 1 FROM ranread_batches WHERE sweep = $stopped AND sweep_step = 1 "
	  . 'AND NOT EXISTS (SELECT FROM ranread_running())'), 'the sweep ran its step and waits idle before its refill probe');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() in the pause signals the sweep');
$h->finish;
is($node->safe_psql('postgres', "SELECT status FROM ranread_sweep_runs WHERE sweep = $stopped"), 'stopped',
	'ends the sweep as stopped');
is($node->safe_psql('postgres',
		"SELECT string_agg(sweep_step::text, ',' ORDER BY sweep_step) FROM ranread_batches WHERE sweep = $stopped"),
	'0,1', 'keeping its drain and step, with no probe run');

# --- the device: 4 slots, 2 ms and 125 us a kB each read ----------------------------
lab_fuse("clear count=$file reset limit=4 delay_us=2000 kb_us=125");
$node->safe_psql('postgres', "CALL ranread_sweep(start_processes => 2, max_processes => 16, duration => '4 s', "
	  . "target => 'lab_t', mode => 'direct', $slo, probe => '0 s')");
$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
my $ratio;
($kind, $rate, $ratio, $evidence) = split /\|/, $node->safe_psql('postgres',
	"SELECT kind, round(rate_iops::numeric, 1), coalesce(round(size_probe_ratio::numeric, 3), -1), evidence "
	  . "FROM ranread_limit($sweep)");
diag("truth: device of 4 slots x (2 ms + 125 us/kB) | ranread: $kind, $rate reads/s, probe ratio $ratio");
is($kind, 'device', "a device of 4 slots whose reads cost 2 ms and 125 us a kB is the device ($evidence)");

lab_fuse('clear');
$node->stop;
done_testing();
