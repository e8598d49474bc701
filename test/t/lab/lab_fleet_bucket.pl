# A fleet sweep on a burst bucket: two servers whose tablespaces are on the
# FUSE laboratory (test/lab/labfs.c), sharing its one token bucket as
# servers share a volume class's contract.  Step 1 empties the bucket, so
# each server's series shows the burst, then its share of the baseline;
# read as averages, step 1 would be the fleet's highest IOPS and its knee,
# the bucket running out read as the volume's.  Each server's batch goes
# through the bucket rule (ranread_series_bucket(), gathered by the fleet
# run), so the fleet step counts at the sum of the servers' baselines: the
# fleet sweep states that sustained rate, the lab's baseline within 3 %,
# apart from the burst, and goes on to max_processes.  Reads stay at a
# thousand a second; test/run-tap.sh mounts the file system.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use List::Util ();
use RanreadTest;

my $lab_dir = $ENV{RANREAD_LAB_FUSE_DIR} // '';
plan skip_all => 'no FUSE laboratory mounted (test/run-tap.sh mounts one as root)' if $lab_dir eq '';

my @nodes = map { new_node("fleet_bucket$_", autovacuum => 'off') } 1 .. 2;
my $coordinator = $nodes[0];
my $os_user = $coordinator->safe_psql('postgres', 'SELECT current_user');
$coordinator->safe_psql('postgres', 'CREATE EXTENSION dblink');
foreach my $i (1 .. 2)
{
	my $node = $nodes[ $i - 1 ];
	mkdir "$lab_dir/fleet$i" or die "mkdir $lab_dir/fleet$i: $!";
	$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$lab_dir/fleet$i'");
	$node->safe_psql('postgres', "SELECT ranread_setup('16 MB', 'lab', 'lab_t', 0)");
	$coordinator->safe_psql('postgres', sprintf(
		q{CREATE SERVER node%d FOREIGN DATA WRAPPER dblink_fdw OPTIONS (host '%s', port '%s', dbname 'postgres');
		  CREATE USER MAPPING FOR CURRENT_USER SERVER node%d OPTIONS (user '%s');},
		$i, $node->host, $node->port, $i, $os_user));
}

# A number as the messages write it ("1,234").
sub number { my ($text) = @_; $text =~ s/,//g; return $text + 0; }

# Burst 1,000/s, baseline 600/s, 3,000 reads, shared by both servers: step 1
# (8 processes per server, 16 s) empties it after 3,000 / 400 = 7.5 s, each
# server reading about 500/s, then 300/s; step 2 (16 per server) reads the
# baseline, about 620/s on average with what refilled between the steps.
# No SLO and a far latency stop: the lab's latency is its pace.
lab_fuse('clear reset bucket=3000 burst=1000 baseline=600');
my $out = shown($coordinator, q{CALL ranread_fleet_sweep(ARRAY['node1', 'node2'], 8, 16, duration => '16 s',
	mode => 'direct', target => 'lab_t', stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000)});
my $s = lab_fuse_stats();
lab_fuse('clear');
diag($_) foreach grep { /^(NOTICE|DETAIL):  fleet sweep|^DETAIL:  (Noise|Highest|No step)/ } split /\n/, $out;
unlike($out, qr/^ERROR/m, 'the fleet sweep ran');

my $sweep = $coordinator->safe_psql('postgres', 'SELECT max(fleet_sweep) FROM ranread_fleet_runs');
my $first = $coordinator->safe_psql('postgres', qq{SELECT fleet FROM ranread_fleet_runs WHERE fleet_sweep = $sweep AND sweep_step = 1});
my ($shifted, $baselines, $average) = split /\|/, $coordinator->safe_psql('postgres', qq{
	SELECT count(baseline_iops), sum(baseline_iops), sum(iops) FROM ranread_fleet_servers WHERE fleet = $first});
# (the lab's clock starts at its first read, the direct path's probe in the
# fleet's checks, start_delay before the release: counted from the release)
my $released = $coordinator->safe_psql('postgres', qq{SELECT extract(epoch FROM start_at) FROM ranread_fleet_runs WHERE fleet = $first});
my $lab_after = $s->{bucket_empty_after_s} - ($released - $s->{bucket_first_at});
my $lab_burst = $lab_after > 0 ? $s->{bucket_empty_reads} / $lab_after : 0;
is($shifted, 2, "step 1: each server's series showed its bucket running empty, gathered with its batch");
like($out, qr/^NOTICE:  fleet sweep \d+ step 1: 8 processes per server, [0-9,]+ IOPS .*; a burst bucket ran empty: IOPS after it/m,
	'step 1 counts at the IOPS after it');

my ($verdict) = $out =~ /^NOTICE:  fleet sweep \d+ completed after \d+ steps\nDETAIL:  (.*)$/m;
$verdict //= '';
my ($v_burst, $v_sustained) = $verdict =~
  /A burst bucket ran empty at step 1 \(8 processes per server\): a burst of ([0-9,.]+) reads\/s.*?\. Sustained: ([0-9,.]+) reads\/s/;
ok(defined $v_sustained, 'the verdict states where the bucket ran empty, the burst and the sustained rate apart');
($v_burst, $v_sustained) = map { number($_ // 0) } ($v_burst, $v_sustained);
diag('fleet sweep on a bucket | set | lab counted | verdict | off');
diag(sprintf('burst reads/s | 1000 | %.1f | %s | %+.2f %%', $lab_burst, $v_burst, 100 * ($v_burst / 1000 - 1)));
diag(sprintf('sustained reads/s | 600 | - | %s | %+.2f %%', $v_sustained, 100 * ($v_sustained / 600 - 1)));
diag(sprintf('step 1: the servers averaged %.1f reads/s together, their baselines %.1f', $average, $baselines));
cmp_ok(abs($v_sustained / 600 - 1), '<=', 0.03, "the sustained rate, $v_sustained reads/s, is the lab's baseline 600 within 3 %");
cmp_ok(abs($v_sustained - $baselines), '<=', 0.5, "it is the sum of the servers' baselines, $baselines");
# (the lab loses turns on a busy machine: held to what it counted, as lab_bucket.pl)
ok($v_burst >= 0.97 * List::Util::min($lab_burst, 1000) && $v_burst <= 1030,
	sprintf('the burst, %s reads/s, is within 3 %% of %.1f (the lab counted) to 1,000 (set)', $v_burst, $lab_burst));
# the same runs through the rule book without their buckets: the averages
# put the highest IOPS and the knee at step 1, the burst's
my $blind = $coordinator->safe_psql('postgres', qq{
	SELECT d.verdict FROM (SELECT array_agg(fleet_sweep ORDER BY fleet) AS w, array_agg(sweep_step ORDER BY fleet) AS t,
		array_agg(processes ORDER BY fleet) AS p, array_agg(status ORDER BY fleet) AS s, array_agg(iops ORDER BY fleet) AS i,
		array_agg(mean_ms ORDER BY fleet) AS m, array_agg(p99_ms ORDER BY fleet) AS q, array_agg(p999_ms ORDER BY fleet) AS r,
		array_agg(max_ms ORDER BY fleet) AS x, array_agg(iops_band_pct ORDER BY fleet) AS ib,
		array_agg(mean_band_pct ORDER BY fleet) AS mb, array_agg(p99_band_pct ORDER BY fleet) AS qb,
		array_agg(false) AS o FROM ranread_fleet_runs WHERE fleet_sweep = $sweep) a,
	LATERAL ranread_sweep_decide(a.w, a.t, a.p, a.s, a.i, a.m, a.q, a.r, a.x, a.ib, a.mb, a.qb, a.o, 16, 'argument',
		1000, 25, 1000, 1000) d});
diag("the same runs as averages: $blind");
my ($b_max) = $blind =~ /^Highest IOPS: ([0-9,]+) IOPS .*? at 8 processes per server\./;
ok(defined $b_max && number($b_max) > 1.1 * 600 && $blind =~ /Knee at 8 processes per server/,
	'read as averages, the highest IOPS (' . ($b_max // 'none') . ') and the knee are step 1, the burst');
my ($v_max) = $verdict =~ /^Highest IOPS: ([0-9,]+) IOPS/;
cmp_ok(abs(number($v_max // 0) / 600 - 1), '<=', 0.03, 'counted at the sustained level, the highest IOPS are the baseline\'s');
like($verdict, qr/It stopped at max_processes \(16\)\./, "it went on to max_processes, not stopped by scaling at the bucket's end");
unlike($verdict, qr/It stopped because/, 'no stop rule took the bucket for the knee');

$_->stop foreach @nodes;
done_testing();
