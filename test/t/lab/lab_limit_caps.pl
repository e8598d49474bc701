# Known answers for what limits a volume (src/rules/limit_rules.c,
# ranread_limit()): the capped lab device (test/lab/capped_zram.sh, a RAM
# device behind the kernel's block throttle) set to an IOPS cap and then to
# a bandwidth cap.  A sweep with probe => '0 s' runs its steps, finds them
# flat, and reads once more at twice the block size: an IOPS cap keeps its
# IOPS, a bandwidth cap its bytes.  Each must be named, its figure within
# 2 % of the cap set, and the sweep's verdict must say it.  The VM stalls
# now and then for half a second or more (test/t/lab/lab_caps.pl): a sweep
# in which a second fell 15 % under the cap is run again, and says so.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $missing = lab_missing();
plan skip_all => $missing if $missing;

my $node = lab_node('lablimit');
my $major = $node->pg_version->major;
my $ts = "$ENV{RANREAD_LAB_CAP_DIR}/limit-$major";
mkdir $ts or die "cannot make $ts: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$ts'");
$node->safe_psql('postgres', "SELECT ranread_setup('256 MB', tablespace => 'lab', target => 'lab', log_level => 0)");

# A sweep of 1, 2 and 4 processes on the capped device, probing after its
# last step, run again (at most four times more) when a second of a step or
# of the probe fell 15 % below $expect reads/s, or a batch's IOPS band is
# over 10 % (CI on 15 beside the matrix: bands of 17 to 57 %, with which the
# probe cannot tell the two caps apart; and three sweeps in a row with bands
# of 13 to 42 %, the last 2.02 % over a bandwidth cap); returns the sweep's
# number.
sub probed_sweep
{
	my ($what, $expect) = @_;
	my $sweep;
	foreach my $attempt (1 .. 5)
	{
		$node->safe_psql('postgres',
			"CALL ranread_sweep(start_processes => 1, max_processes => 4, duration => '5 s', target => 'lab', "
			  . "mode => 'direct', stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 5000, probe => '0 s')");
		$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
		my $stall = $node->safe_psql('postgres', qq{
			SELECT string_agg(format('batch %s: %s IOPS in the second from %s s', s.batch, s.iops, s.start_s), '; ')
			FROM ranread_series s JOIN ranread_batches b USING (batch)
			WHERE b.sweep = $sweep AND s.seconds >= 0.9 AND s.workers_reading = b.processes
			  AND s.iops * b.block_size < 0.85 * $expect * 8192});
		$stall ||= $node->safe_psql('postgres', qq{
			SELECT string_agg(format('batch %s: IOPS band %s %%', batch, round(iops_band_pct::numeric, 1)), '; ')
			FROM ranread_batches WHERE sweep = $sweep AND iops_band_pct > 10});
		last unless $stall;
		diag("$what: the machine stalled ($stall)" . ($attempt < 5 ? ': running it again' : ''));
	}
	return $sweep;
}

# --- an IOPS cap ------------------------------------------------------------------
my $C = 1000;
lab_set_cap(iops => $C);
my $sweep = probed_sweep('IOPS cap', $C);
my ($kind, $rate, $ratio, $evidence) = split /\|/, $node->safe_psql('postgres',
	"SELECT kind, round(rate_iops::numeric, 1), round(size_probe_ratio::numeric, 3), evidence FROM ranread_limit($sweep)");
diag("truth: PostgreSQL $major | IOPS cap $C reads/s | $kind | $rate | ratio $ratio");
is($kind, 'IOPS cap', "a cap of $C reads/s is named an IOPS cap ($evidence)");
cmp_ok(abs($rate / $C - 1), '<=', 0.02, "at $rate reads/s, within 2 % of the $C set");
cmp_ok(abs($ratio - 1), '<=', 0.03, "reads of 16 kB kept the IOPS ($ratio of them)");
is($node->safe_psql('postgres', "SELECT block_size FROM ranread_batches WHERE sweep = $sweep AND sweep_step = -1"),
	16384, 'the size probe read 16 kB, recorded as sweep_step -1');
my $verdict = $node->safe_psql('postgres', "SELECT verdict FROM ranread_sweeps WHERE sweep = $sweep");
like($verdict, qr/Limit: a cap of [0-9,]+ reads\/s/, 'the verdict names the cap');

# --- a bandwidth cap --------------------------------------------------------------
my $B = 8 * 1024 * 1024;
lab_set_cap(bps => $B);
my $iops_sweep = $sweep;
$sweep = probed_sweep('bandwidth cap', $B / 8192);
like($node->safe_psql('postgres', "SELECT string_agg(verdict, ' ') FROM ranread_compare_sweeps($iops_sweep, $sweep) "
		  . "WHERE measure = 'verdict'"),
	qr/What limits the volume: A: IOPS cap at [0-9,]+ reads\/s, B: bandwidth cap at [0-9,]+ reads\/s/,
	'ranread_compare_sweeps() says what limits each volume');
my $mb;
($kind, $rate, $mb, $ratio, $evidence) = split /\|/, $node->safe_psql('postgres',
	"SELECT kind, round(rate_iops::numeric, 1), round(rate_mb_per_s::numeric, 3), round(size_probe_ratio::numeric, 3), evidence "
	  . "FROM ranread_limit($sweep)");
diag("truth: PostgreSQL $major | bandwidth cap $B bytes/s | $kind | $mb MB/s | ratio $ratio");
is($kind, 'bandwidth cap', "a cap of $B bytes/s is named a bandwidth cap ($evidence)");
cmp_ok(abs($mb * 1e6 / $B - 1), '<=', 0.02, "at $mb MB/s, within 2 % of the " . $B / 1e6 . ' MB/s set');
cmp_ok(abs($ratio - 0.5), '<=', 0.03, "reads of 16 kB halved the IOPS ($ratio of them)");
like($node->safe_psql('postgres', "SELECT verdict FROM ranread_sweeps WHERE sweep = $sweep"),
	qr/Limit: a cap of [0-9.]+ MB\/s/, 'the verdict names the bandwidth cap');

# --- without probes, the same plateau is undecided and says what would decide --------
$node->safe_psql('postgres',
	"CALL ranread_sweep(start_processes => 1, max_processes => 2, duration => '3 s', target => 'lab', "
	  . "mode => 'direct', stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 5000)");
$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
($kind, $evidence) = split /\|/, $node->safe_psql('postgres', "SELECT kind, evidence FROM ranread_limit($sweep)");
is($kind, 'undecided', 'a sweep without probes cannot tell a cap from a device');
like($evidence, qr/another size/, 'and says a read of another size would');
is($node->safe_psql('postgres', "SELECT count(*) FROM ranread_batches WHERE sweep = $sweep AND sweep_step < 0"),
	0, 'it ran no probe');

lab_set_cap('none');
lab_done($node, $ts);
done_testing();
