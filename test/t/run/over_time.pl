# A batch over time: its rows in ranread_intervals (every batch, also one
# stopped or cancelled), the ramp, the steady-state rule, and open-loop runs
# at a set rate with their service times.  The sharp-fall rule is checked on
# constructed histories in test/unit/series_rules_test.c; here only that a
# live run with flat IOPS does not set it off.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('overtime');
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', target => 'series', log_level => 0)");

sub last_batch
{
	my ($expr) = @_;
	return $node->safe_psql('postgres', "SELECT $expr FROM ranread_batches ORDER BY batch DESC LIMIT 1");
}

# The intervals of the last batch: contiguous from 0, adding up to its reads.
sub check_series
{
	my ($what, $expect_rows) = @_;
	my $row = $node->safe_psql('postgres', q{
		WITH b AS (SELECT batch, reads, wall_s FROM ranread_batches ORDER BY batch DESC LIMIT 1),
		i AS (SELECT i.*, lag(start_s + seconds) OVER (ORDER BY interval_no) AS previous_end
			  FROM ranread_intervals i JOIN b USING (batch))
		SELECT count(*), (SELECT reads FROM b) = sum(i.reads),
			   min(interval_no) = 1 AND max(interval_no) = count(*),
			   bool_and(previous_end IS NULL OR abs(start_s - previous_end) < 1e-6),
			   min(start_s) = 0,
			   abs(max(start_s + seconds) - (SELECT wall_s FROM b)) < 0.05
		FROM i});
	my ($rows, @checks) = split /\|/, $row;
	is(join('|', @checks), 't|t|t|t|t',
		"$what: its intervals add up to its reads, numbered from 1, contiguous from 0 s to its wall time");
	cmp_ok($rows, '>=', $expect_rows, "$what: at least $expect_rows intervals ($rows)");
}

# --- every batch has its intervals ---------------------------------------------
$node->safe_psql('postgres', "SELECT ranread_run(2, 300, 'series')");
check_series('an iteration-based batch', 1);
my $out = shown($node, "SELECT status FROM ranread_run(2, NULL, 'series', mode => 'direct', duration => '3 s')");
check_series('a 3 s batch', 3);
is($node->safe_psql('postgres', q{
	SELECT count(*) FILTER (WHERE seconds BETWEEN 0.9 AND 1.1 AND workers_reading = 2 AND reads > 0
							AND iops > 0 AND mean_ms > 0 AND p50_ms > 0 AND p99_ms >= p50_ms AND max_ms >= p99_ms)
	FROM ranread_intervals WHERE batch = (SELECT max(batch) FROM ranread_batches) AND interval_no <= 2}), '2',
	'its first two intervals last 1 s, with both workers reading, and have IOPS, mean, p50 <= p99 <= max');
is(lines_matching($out, qr/IOPS fell/), 0, 'a run with flat IOPS gets no sharp-fall WARNING');
is(last_batch('sample_interval_s'), '1', 'the batch row says its sample_interval');
$node->safe_psql('postgres', "SELECT ranread_run(1, NULL, 'series', mode => 'direct', duration => '1 s', sample_interval => '200 ms')");
check_series('sample_interval 200 ms over 1 s', 5);
is(last_batch('sample_interval_s'), '0.2', 'sample_interval 200 ms is recorded');

# --- ramp ---------------------------------------------------------------------
$node->safe_psql('postgres', "SELECT ranread_run(2, NULL, 'series', mode => 'direct', duration => '3 s', ramp => '2 s')");
my ($wall, $ramp, $reads, $max_ms) = split /\|/, last_batch('wall_s, ramp_s, reads, max_ms');
# (the batch ends when the last read returns: on a busy machine that read can be late)
ok($wall > 0.9 && $wall < 1.1 + $max_ms / 1000,
	"ramp 2 s of a 3 s run: the batch counts the last second only (wall_s $wall, its slowest read $max_ms ms)");
is($ramp, '2', 'ramp_s is recorded');
check_series('the ramped batch', 1);
$node->safe_psql('postgres', "SELECT ranread_run(2, 200, 'series', mode => 'direct', ramp => '1 s')");
is(last_batch('reads'), '400', 'ramp with iterations: the iterations are counted after the ramp (2 x 200)');

# --- steady state ---------------------------------------------------------------
# A band of 99 %: two 1 s intervals are within it of their mean unless one's
# IOPS or mean latency is 199 times the other's, so the rule holds at the
# first full window on any machine (with 50 %, a factor of 3, a busy
# machine's I/O could keep a run from settling): what is checked is that the
# rule, once met, ends the run.
my $start = time;
$out = shown($node, "SELECT status FROM ranread_run(2, NULL, 'series', mode => 'direct', duration => '60 s', steady_state => '2 s', steady_band_pct => 99)");
my ($at, $status, $window) = split /\|/, last_batch('steady_at_s, status, steady_state_s');
ok($at ne '' && $at >= 2 && $at < 30, "a 60 s run with a 2 s window within 99 %: steady after $at s");
cmp_ok(time - $start, '<', 40, 'and the run ended then, not after 60 s');
is("$status|$window", 'completed|2', 'it completed, with its window recorded');
like($out, qr/^NOTICE:  steady state after [0-9.]+ s: IOPS and mean latency stayed within 99% of their means for 2\.0 s$/m,
	'a NOTICE says when the steady state was reached');
$out = shown($node, "SELECT status FROM ranread_run(2, NULL, 'series', mode => 'direct', duration => '2 s', steady_state => '2 s', steady_band_pct => 0.0001)");
is(last_batch("coalesce(steady_at_s::text, 'none') || ' ' || status"), 'none completed',
	'a band of 0.0001 % is not met within 2 s: the run goes on to its duration');
like($out, qr/^NOTICE:  no steady state within the duration/m, 'and a NOTICE says so');

# --- open loop ---------------------------------------------------------------
$out = shown($node, "SELECT status FROM ranread_run(2, NULL, 'series', mode => 'direct', duration => '2 s', rate_iops => 500)");
my ($iops, $mean, $service_mean, $service_p99, $rate, $arrivals) =
	split /\|/, last_batch('iops, response_time_ms, service_mean_ms, service_p99_ms, rate_iops, arrivals');
# the rate is kept within 5 %, or the run says it was not: a machine busy
# enough to delay the workers past their due times is told, not asserted
# away (the rate's accuracy against a known answer: lab/lab_caps.pl)
my $kept = abs($iops - 500) / 500 < 0.05;
my $warned = lines_matching($out, qr/did not keep its rate/);
ok($kept || $warned == 1, "rate_iops 500 over 2 workers: the batch did $iops IOPS, or its WARNING says it did not keep the rate");
cmp_ok($iops, '<=', 500 * 1.05, 'and never ran faster than the rate');
is("$rate|$arrivals", '500|uniform', 'the rate and its arrivals are recorded');
ok($service_mean > 0 && $service_p99 > 0 && $mean >= $service_mean,
	"service times are recorded, and the response time from each read's due time is no less ($mean >= $service_mean ms)");
like($out, qr/^NOTICE:  service time \(from issuing each read\): mean = /m, 'a NOTICE gives the service times');
is($warned, $iops < 0.95 * 500 ? 1 : 0, 'a WARNING if and only if the batch did less than 95 % of the rate');
$out = shown($node, "SELECT status FROM ranread_run(2, NULL, 'series', mode => 'direct', duration => '2 s', rate_iops => 400, arrivals => 'poisson')");
$iops = last_batch('iops');
ok(abs($iops - 400) / 400 < 0.15 || lines_matching($out, qr/did not keep its rate/) == 1,
	"poisson arrivals at 400 reads/s: about 400 IOPS ($iops), or a WARNING that the rate was not kept");
$out = shown($node, "SELECT status FROM ranread_run(1, NULL, 'series', duration => '1 s', rate_iops => 5000000)");
like($out, qr/^WARNING:  batch [0-9]+ did not keep its rate: 5,000,000 reads\/s asked, [0-9,]+ achieved \([0-9]+%\)$/m,
	'5 million reads/s from one worker: the WARNING says it did not keep its rate, and by how much');
cmp_ok(last_batch('response_time_ms / service_mean_ms'), '>', 10,
	'its response times, counted from when each read was due, dwarf its service times (coordinated omission corrected)');
like($out, qr/^WARNING:  batch [0-9]+ was queueing: its mean response time of [0-9.]+ms is [0-9]+ times its mean service time of [0-9.]+ms$/m,
	'and a WARNING says the run was queueing: its response time is more than 10 times its service time');
$node->safe_psql('postgres', "SELECT ranread_run(2, 50, 'series', mode => 'direct', rate_iops => 1000)");
is(last_batch('reads'), '100', 'an open-loop run with iterations reads them all');

# --- a stopped or cancelled batch keeps its completed intervals ---------------------
foreach my $how ('stopped', 'cancelled')
{
	my ($h, $o, $e) = start_psql($node, "SELECT status FROM ranread_run(2, NULL, 'series', mode => 'direct', duration => '60 s')");
	ok(wait_for_readers($node, 2), "$how: the workers read");
	sleep 3;
	interrupt_run($node, $h, $how, 'SELECT status FROM ranread_run(2, NULL');
	ok(wait_until($node, "SELECT status = '$how' FROM ranread_batches ORDER BY batch DESC LIMIT 1"), "the batch is recorded as $how");
	check_series("the $how batch", 2);
}
done_testing();
