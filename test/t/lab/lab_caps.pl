# Known answers: ranread against a device whose answer we set.  The lab
# device (test/lab/capped_zram.sh, made by test/run-tap.sh) is a RAM-backed
# zram device behind the kernel's block throttle; the server runs inside the
# throttle's cgroup, so every read any of its processes submits to the device
# counts against a cap we choose, and the cap is exact for every submission
# path.  Against that truth:
#   - an IOPS cap C: direct at iodepth 1 and 32, smgr, buffer and (18) stream
#     each report C within 2 %, and so does fio beside them (O_DIRECT randread
#     8k in the same cgroup, libaio at depth 8 and io_uring at 32); a run during which the whole machine
#     stalled (an interval far below the cap) is run again, and says so;
#   - a bandwidth cap B: block sizes 8 kB to 1 MB report B / block size
#     within 2 %;
#   - Little's law in every closed-loop run: reads in flight (processes x
#     depth) = IOPS x mean latency within 5 %;
#   - an open-loop rate sweep across C: the highest step within the SLO is the
#     highest rate step below C, the step above C misses its rate, achieves C,
#     and is called queueing, and (timing group) no step below C is;
#   - the cap lowered mid-run: the series shows the fall at the second it was
#     lowered (within 1 s), and the sharp-fall WARNING names that second.
# Each measured number is printed (diag "truth: ...") for docs/benchmarks.md.
# Rates are a few thousand reads/s, and each run measures its steady part
# (a ramp skips the throttle's first time slice), so that a busy machine's
# CPU is not the limit.  Skips, with the reason, without a lab device.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use JSON::PP;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();
use RanreadTest;

my $missing = lab_missing();
plan skip_all => $missing if $missing;

my $started = Time::HiRes::time();
my $C = 2000;                    # the IOPS cap
my $B = 24 * 1024 * 1024;        # the bandwidth cap, bytes/s
my $device = "$ENV{RANREAD_LAB_DEVICE_NAME} ($ENV{RANREAD_LAB_DEVICE}, zram, throttled by cgroup $ENV{RANREAD_LAB_CGROUP_KIND})";

my $node = lab_node('labcaps');
my $major = $node->pg_version->major;
# 18: more I/O workers than the default 3, so that a stream's reads queue at
# the throttle rather than for an I/O worker (io_workers takes a reload; 19
# sizes its pool between io_min_workers and io_max_workers)
if ($major >= 18)
{
	$node->safe_psql('postgres', $major >= 19 ? 'ALTER SYSTEM SET io_min_workers = 8' : 'ALTER SYSTEM SET io_workers = 8');
	$node->reload;
}
# the postmaster, and a backend it forked, in the capped cgroup: a line of
# /proc/PID/cgroup names a path that the cgroup's directory ends with
sub in_lab_cgroup
{
	my ($cgroup) = @_;
	return grep { my $path = (split /:/, $_, 3)[2] // '/'; $path ne '/' && $ENV{RANREAD_LAB_CGROUP} =~ /\Q$path\E$/ }
	  split /\n/, $cgroup;
}
ok(in_lab_cgroup(slurp_file("/proc/$node->{_pid}/cgroup"))
	  && in_lab_cgroup($node->safe_psql('postgres', "SELECT pg_read_file('/proc/self/cgroup')")),
	'the postmaster and its backends run inside the lab\'s capped cgroup');

my $ts = "$ENV{RANREAD_LAB_CAP_DIR}/ts-$major";
mkdir $ts or die "cannot make $ts: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$ts'");
$node->safe_psql('postgres', "SELECT ranread_setup('512 MB', tablespace => 'lab', target => 'lab', log_level => 0)");

# a row of the truth table: truth | what measured it | its answer | error
sub truth
{
	my ($truth, $what, $ranread) = @_;
	diag(sprintf('truth: PostgreSQL %d | %s | %s | %.1f | %+.2f %%', $major, $truth, $what,
		$ranread, 100 * ($ranread - $truth) / $truth));
	return;
}

# Whether the machine, not the cap, held the reads back in batch $batch: a
# full interval (every worker reading) far below what the cap allows.  This
# VM stalls now and then for half a second or more, all devices at once (seen
# on two lab devices of two concurrent runs in the same 0.7 s, the device's
# own count agreeing with ranread's), and a 10 s run then misses its cap by
# several percent: such a run is run again, and says so.  $where narrows the
# intervals (an SQL condition).
sub stall_of
{
	my ($batch, $processes, $expect, $where) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT string_agg(format('%s IOPS in the second from %s s, its slowest read %s ms', iops, start_s, max_ms), '; ')
		FROM ranread_series WHERE batch = $batch AND seconds >= 0.9 AND workers_reading = $processes
		  AND iops < 0.85 * $expect - 2 AND } . ($where // 'true'));
}

# The median of the means of each two neighbouring seconds of $batch that
# $where selects: a late sample moves reads between neighbours, and a
# single second a slice above the cap is one of them.  The run's last
# interval, in which the workers stop, is not one of them.
sub two_second_median
{
	my ($batch, $where) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY two)
		FROM (SELECT (iops + lead(iops) OVER (ORDER BY interval_no)) / 2 AS two FROM ranread_intervals
			  WHERE batch = $batch AND $where
				AND interval_no < (SELECT max(interval_no) FROM ranread_intervals WHERE batch = $batch)) s
		WHERE two IS NOT NULL});
}

# The seconds of $batch in which a read was held over 50 ms (the sweep's p99
# bound), as text; '' when none was.
sub held_of
{
	my ($batch) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT string_agg(format('batch %s held a read %s ms in the second from %s s', batch, max_ms, start_s), '; ')
		FROM ranread_series WHERE batch = $batch AND max_ms > 50});
}

# Run $sql (returning a batch) up to 3 times until the batch has no stall;
# returns the batch.
sub run_unstalled
{
	my ($what, $sql, $processes, $expect) = @_;
	my $batch;
	foreach my $attempt (1 .. 3)
	{
		$batch = $node->safe_psql('postgres', $sql);
		my $stall = stall_of($batch, $processes, $expect);
		last unless $stall;
		diag("$what: the machine stalled ($stall)" . ($attempt < 3 ? ': running it again' : ''));
	}
	return $batch;
}

# A closed-loop run of $processes workers for 10 s after a 1 s ramp; checks
# its IOPS against $expect (within $tolerance, 2 % unless given), 8 kB reads
# against the device's own count of them, and Little's law with $in_flight
# reads in flight per worker (within 5 %), and that the device answered at
# least $min_physical % of the reads (99 unless given).
sub closed_run
{
	my ($what, $processes, $args, $expect, $in_flight, $min_physical, $tolerance) = @_;
	$min_physical //= 99;
	$tolerance //= 0.02;
	my $batch = run_unstalled($what,
		"SELECT batch FROM ranread_run($processes, NULL, 'lab', $args, duration => '11 s', ramp => '1 s')",
		$processes, $expect);
	my ($iops, $mean, $physical, $status, $dev, $device_iops, $block_size, $duration_s, $counting_s) = split /\|/,
	  $node->safe_psql('postgres',
		"SELECT iops, response_time_ms, physical_pct, status, device, device_reads_per_s, block_size, duration_s - ramp_s, wall_s "
		  . "FROM ranread_batches WHERE batch = $batch");
	is("$status|$dev", "completed|$ENV{RANREAD_LAB_DEVICE_NAME}", "$what: the run completed, reading the lab device");
	# The batch's IOPS are its counted reads over the time from counting's
	# start to the end of its last read, which ends after the duration: a
	# worker counts the read it is in at the deadline, and under the
	# throttle that read can wait up to a time slice (docs/benchmarks.md,
	# "what the runs showed", 1).  The cap's known answer is for the
	# duration: $expect a second during it.  At 3,000 IOPS the tail's reads
	# fill the tail, but at 24 (1 MB reads at 24 MiB/s) one read a worker
	# is 166 ms, and a 141 ms tail took 1.39 % off the batch's IOPS (quiet,
	# 18), which a small stall beside a load then pushed past 2 %.  So the
	# run's known answer is $expect x duration / counting time.
	my $model = $expect * $duration_s / $counting_s;
	cmp_ok(abs($iops - $model) / $model, '<=', $tolerance,
		sprintf('%s: %.1f IOPS, within %.0f %% of the %.1f the cap allows (%.0f a second for %.0f s, over %.3f s)',
			$what, $iops, 100 * $tolerance, $model, $expect, $duration_s, $counting_s));
	cmp_ok($physical, '>=', $min_physical, "$what: the device answered the reads ($physical %)");
	cmp_ok(abs($device_iops / $iops - 1), '<=', 0.02,
		sprintf("%s: the device's own count, %.0f reads/s, agrees", $what, $device_iops)) if $block_size == 8192;
	my $little = $iops * $mean / 1000;
	my $reads_in_flight = $processes * $in_flight;
	cmp_ok(abs($little / $reads_in_flight - 1), '<=', 0.05,
		sprintf("%s: Little's law holds, IOPS x mean latency = %.2f reads in flight for %d", $what, $little, $reads_in_flight));
	# the rate of the full intervals alone, without the end of the run: the
	# batch's IOPS runs to the end of each worker's last read, which under
	# the throttle can wait a time slice past the duration
	my ($series_iops, $tail) = split /\|/, $node->safe_psql('postgres',
		"SELECT sum(reads) FILTER (WHERE seconds >= 0.9) / sum(seconds) FILTER (WHERE seconds >= 0.9), "
		  . "(SELECT 1000 * (wall_s - duration_s + ramp_s) FROM ranread_batches WHERE batch = $batch) "
		  . "FROM ranread_intervals WHERE batch = $batch");
	truth($expect, sprintf('%s, mean %.3f ms, full intervals %.1f IOPS, last read ended %.0f ms after the duration',
		$what, $mean, $series_iops, $tail), $iops);
	return;
}

# fio in the lab's cgroup: 8 kB random O_DIRECT reads of a 256 MB file on the
# same file system, 10 s after a 1 s ramp; returns its IOPS and mean latency.
# The file is written (random data, flushed) beforehand, so that no layout or
# writeback of fio's own overlaps its reads.
my $have_fio = system('fio --version >/dev/null 2>&1') == 0;
my $fio_file = "$ENV{RANREAD_LAB_CAP_DIR}/fio-$major.dat";
system_or_bail('dd', 'if=/dev/urandom', "of=$fio_file", 'bs=1M', 'count=256', 'conv=fsync', 'status=none') if $have_fio;
sub fio
{
	my (@args) = @_;
	my ($iops, $mean);
	foreach my $attempt (1 .. 3)
	{
		my ($out, $err) = run_command([ lab_run('fio', '--name=lab', "--filename=$fio_file", '--size=256M',
			'--rw=randread', '--bs=8k', '--direct=1', '--time_based', '--runtime=10', '--ramp_time=1',
			'--group_reporting', '--randrepeat=0', '--output-format=json', @args) ]);
		my $json = eval { decode_json($out) } or die "fio failed: $err";
		my $read = $json->{jobs}[0]{read};
		($iops, $mean) = ($read->{iops}, $read->{clat_ns}{mean} / 1e6);
		# fio has no series: a stall shows as a read held far longer than
		# the throttle's own time slice (100 ms) and its queue
		my $max = $read->{clat_ns}{max} / 1e6;
		last if $max < 300;
		diag(sprintf('fio %s: the machine stalled (%.0f IOPS, its slowest read %.0f ms)%s', "@args", $iops, $max,
			$attempt < 3 ? ': running it again' : ''));
	}
	return ($iops, $mean);
}

# --- an IOPS cap C: every read path, and fio ------------------------------------
lab_set_cap(iops => $C);
SKIP:
{
	skip 'fio is not installed (scripts/install-deps.sh installs it): no twin beside ranread', 2 unless $have_fio;
	# one job each: a group of jobs (psync, --numjobs) counts each job from
	# the end of its own ramp, and on a busy machine their starts spread over
	# a few hundred ms, which overstated the group's IOPS by up to 2 %
	my ($iops, $mean) = fio('--ioengine=libaio', '--iodepth=8');
	cmp_ok(abs($iops - $C) / $C, '<=', 0.02, sprintf('fio libaio QD8: %.0f IOPS, within 2 %% of the cap %d', $iops, $C));
	truth($C, sprintf('fio libaio QD8, mean %.3f ms', $mean), $iops);
	($iops, $mean) = fio('--ioengine=io_uring', '--iodepth=32');
	cmp_ok(abs($iops - $C) / $C, '<=', 0.02, sprintf('fio io_uring QD32: %.0f IOPS, within 2 %% of the cap %d', $iops, $C));
	truth($C, sprintf('fio io_uring QD32, mean %.3f ms', $mean), $iops);
}
# Eight reads or more in flight, so that reads always wait at the throttle and
# a worker the busy machine does not run for a moment costs no throughput.
closed_run("direct, 8 processes, iodepth 1", 8, "mode => 'direct', allow_rereads => true", $C, 1);
closed_run("direct, 1 process, iodepth 32", 1, "mode => 'direct', iodepth => 32, allow_rereads => true", $C, 32);
closed_run("smgr, 8 processes", 8, "mode => 'smgr'", $C, 1);
closed_run("buffer, 8 processes", 8, "mode => 'buffer'", $C, 1);
SKIP:
{
	skip "mode 'stream' needs PostgreSQL 18", 4 if $major < 18;
	# a stream keeps one block asked for beyond its reads in flight, and
	# ranread's latency of a read runs from that ask (docs/reference.md, Read
	# paths): iodepth + 1 per worker
	# io_method worker's I/O workers read without ranread's POSIX_FADV_RANDOM,
	# so the kernel reads a few units ahead for them: at least 95 % physical,
	# as test/t/run/stream.pl asks.  Its reads pass through the I/O workers,
	# whose hand-offs leave the throttle's queue empty now and then: its full
	# intervals read 1,974 to 1,979 of the 2,000 allowed in the runs measured,
	# and the whole batch -1.2 to -2.1 % (CI's quiet run), so within 3 %
	closed_run("stream, 2 processes, iodepth 8", 2, "mode => 'stream', iodepth => 8", $C, 9, 95, 0.03);
}

# --- a bandwidth cap B: B / block size ------------------------------------------
lab_set_cap(bps => $B);
foreach my $block_size (8192, 65536, 262144, 1048576)
{
	closed_run(sprintf('bandwidth %d MiB/s, direct, %d kB reads, 4 processes', $B >> 20, $block_size / 1024),
		4, "mode => 'direct', block_size => $block_size, allow_rereads => true", $B / $block_size, 1);
}

# --- an open-loop sweep across the cap ------------------------------------------
# Steps 1,200, 1,600, 2,000 and 2,400 reads/s across a cap of 2,200, 8 s each
# after a 1 s ramp.  The SLO is loose (mean 5 ms, p99 50 ms): below the cap the
# device answers in tens of us, and an open loop's response time is then the
# worker's wake-up, which a busy VM delays by milliseconds now and then; above
# it, reads queue for a growing backlog.
my $Csweep = 2200;
lab_set_cap(iops => $Csweep);
my ($out, $sweep, @steps);
foreach my $attempt (1 .. 2)
{
	$out = shown($node, "CALL ranread_sweep(start_processes => 4, duration => '9 s', ramp => '1 s', target => 'lab', "
		  . "mode => 'direct', rate_iops => 1200, rate_step_iops => 400, max_rate_iops => 3200, "
		  . "slo_mean_ms => 5, slo_p99_ms => 50)");
	$sweep = $node->safe_psql('postgres', 'SELECT max(sweep) FROM ranread_sweep_runs');
	@steps = map { [ split /\|/ ] } split /\n/, $node->safe_psql('postgres',
		"SELECT sweep_step, rate_iops, iops, round(response_time_ms::numeric, 3), round(service_mean_ms::numeric, 3), batch "
		  . "FROM ranread_batches WHERE sweep = $sweep ORDER BY sweep_step");
	my $stall = join('; ', grep { $_ ne '' } map { stall_of($_->[5], 4, $_->[1] < $Csweep ? $_->[1] : $Csweep) } @steps);
	# below the cap an open loop keeps its rate through a stall by catching
	# up, so the stall shows as reads held far longer than the device's tens
	# of us (a backlog that makes the step look queueing)
	$stall = join('; ', grep { $_ ne '' } $stall, map { held_of($_->[5]) } grep { $_->[1] < $Csweep } @steps);
	last unless $stall;
	diag("sweep $sweep: the machine stalled ($stall)" . ($attempt < 2 ? ': running it again' : ''));
}
is(join(',', map { $_->[1] } @steps), '1200,1600,2000,2400', 'the sweep stepped 1,200 to 2,400 reads/s, and stopped above the cap');
my %queueing = map { $_ => 1 } $out =~ /^WARNING:  batch (\d+) was queueing/mg;
my %missed = map { $_ => 1 } $out =~ /^WARNING:  batch (\d+) did not keep its rate/mg;
foreach my $step (@steps)
{
	my ($n, $rate, $iops, $mean, $service, $batch) = @$step;
	my $above = $rate > $Csweep;
	my $expect = $above ? $Csweep : $rate;
	cmp_ok(abs($iops - $expect) / $expect, '<=', 0.02,
		sprintf('sweep step %d at %d reads/s: %.0f IOPS, within 2 %% of %d (%s the cap)', $n, $rate, $iops, $expect,
			$above ? 'above' : 'below'));
	truth($expect, "open loop $rate reads/s, 4 processes, mean $mean ms, service mean $service ms", $iops);
	if ($above)
	{
		ok($missed{$batch}, "step $n, above the cap, gets the WARNING that it did not keep its rate");
		ok($queueing{$batch}, "step $n, above the cap, gets the queueing WARNING");
		next;
	}
	ok(!$missed{$batch}, "step $n, below the cap, kept its rate (no WARNING)");
	# Below the cap a read waits only for its worker to wake, which is the
	# machine's scheduling: beside the matrix's other tests (load 11) step 3
	# waited a mean 2.0 ms and was, rightly, called queueing.  So whether it
	# is not is the timing group's (before the rule's 1 ms floor, most of
	# these were: the wake-up alone is ten times the device's 10 us).
  SKIP:
	{
		skip timing_skip(), 1 if timing_skip();
		ok(!$queueing{$batch}, "step $n, below the cap, is not called queueing (mean $mean ms, service $service ms)");
	}
}
my ($stop_rule, $slo_iops, $verdict) = split /\|/, $node->safe_psql('postgres',
	"SELECT stop_rule, slo_iops, verdict FROM ranread_sweeps WHERE sweep = $sweep");
is($stop_rule, 'rate missed', 'it stopped because the step above the cap missed its rate');
diag("sweep $sweep: $1") if $verdict =~ /(Highest within the SLO [^:]*:[^:]*?reads\/s):/;
like($verdict, qr/Highest within the SLO \(mean <= 5 ms, p99 <= 50 ms\): [0-9,]+ IOPS [^:]*? at 2,000 reads\/s: /,
	"the verdict's highest step within the SLO is 2,000 reads/s, the highest rate step below the cap");
cmp_ok(abs($slo_iops - 2000) / 2000, '<=', 0.02, "and its IOPS within the SLO, $slo_iops, are that rate's");
like($verdict, qr/It stopped because at 2,400 reads\/s asked it achieved 2,(1[6-9]\d|2[0-4]\d): the storage is saturated\./,
	'the verdict says the step above the cap achieved the cap');

# --- the cap lowered mid-run --------------------------------------------------
# 3,000 reads/s, then 1,000 from about 6 s into a 15 s run, as a cloud volume
# whose burst credits run out.  A 12 s run left four seconds to judge after
# the drop, the last one the workers' stop, and one short second on a busy
# machine moved their median more than 2 % (CI, 18): 15 s leave seven.
my ($high, $low) = (3000, 1000);
lab_set_cap(iops => $high);
my ($e, $batch, $at);
foreach my $attempt (1 .. 2)
{
	my ($h, $o);
	($h, $o, $e) = start_psql($node, "SELECT batch FROM ranread_run(4, NULL, 'lab', mode => 'direct', duration => '15 s', "
		  . "sample_interval => '1 s', allow_rereads => true)");
	ok(wait_for_readers($node, 4), 'the mid-run drop: the workers read');
	ok(wait_until($node, 'SELECT elapsed_s >= 6 FROM ranread_running() WHERE worker IS NULL'),
		'the run is 6 s in');
	my $before = Time::HiRes::time();
	lab_set_cap(iops => $low);
	my $lowered = (Time::HiRes::time() + $before) / 2;
	$h->finish;
	$batch = $node->safe_psql('postgres', 'SELECT max(batch) FROM ranread_batches');
	$at = $lowered - $node->safe_psql('postgres', "SELECT extract(epoch FROM started_at) FROM ranread_batches WHERE batch = $batch");
	my $stall = join('; ', grep { $_ ne '' } stall_of($batch, 4, $high, "start_s + seconds <= $at - 0.5"),
		stall_of($batch, 4, $low, "start_s >= $at + 1.5"));
	last unless $stall;
	diag("the mid-run drop: the machine stalled ($stall)" . ($attempt < 2 ? ': running it again' : ''));
	lab_set_cap(iops => $high);
}
my ($iops, $mean) = split /\|/, $node->safe_psql('postgres',
	"SELECT iops, response_time_ms FROM ranread_batches WHERE batch = $batch");
my $midpoint = ($high + $low) / 2;
my $fell = $node->safe_psql('postgres', qq{
	SELECT min(start_s) FROM ranread_intervals i
	WHERE batch = $batch AND workers_reading = 4
	  AND NOT EXISTS (SELECT FROM ranread_intervals j WHERE j.batch = $batch AND j.interval_no >= i.interval_no
						AND j.workers_reading = 4 AND j.iops >= $midpoint)});
cmp_ok(abs($fell - $at), '<=', 1,
	sprintf('the series falls below %d IOPS from %s s on, and the cap was lowered at %.2f s', $midpoint, $fell, $at));
my $series = $node->safe_psql('postgres', "SELECT string_agg(iops::text, ' ' ORDER BY interval_no) FROM ranread_series WHERE batch = $batch");
diag("the mid-run drop: cap lowered at " . sprintf('%.2f', $at) . " s; IOPS per second: $series");
# The throttle grants a new time slice one slice's worth (100 ms of the cap)
# ahead: the run's first second reads about 3,300, and so does a later second
# in which a new slice began because no read was queued for a slice (the
# readers stalled on a busy machine: seen once beside a load of 12, seconds
# 3,296 3,290 3,010 2,990 ...).  So each second is at the cap or at most one
# slice above it.  On a loaded machine the leader also samples late, and a
# second gains what its neighbour lost (seen beside a load of 11: after the
# drop 959 1042 900 1099, before it 2844 3158 2999 2822).  So the level
# before the drop is the median of two seconds' means (a second a slice
# above the cap is one of them, and a neighbour's loss is made up in them),
# from the run's second second to half a second before the drop, and from
# the lowered cap's second second on (the seconds' reads over their time lost
# what the last full second gave the partial one after it: 1000 900 1099 901
# read 975).
my $before_iops = two_second_median($batch, "start_s >= 1 AND start_s + seconds <= $at - 0.5");
my $after_iops = two_second_median($batch, "start_s >= $at + 1.5 AND workers_reading = 4");
my $before_max = $node->safe_psql('postgres', qq{
	SELECT max(iops) FROM ranread_intervals WHERE batch = $batch AND start_s + seconds <= $at - 0.5 AND start_s >= 1});
cmp_ok(abs($before_iops - $high) / $high, '<=', 0.02, sprintf('before the drop two seconds read a median %.0f IOPS, the cap of %d', $before_iops, $high));
cmp_ok($before_max, '<=', $high * 1.1 * 1.02, sprintf('and no second more than one 100 ms slice above it (%.0f)', $before_max));
cmp_ok(abs($after_iops - $low) / $low, '<=', 0.02, sprintf('after it %.0f IOPS, the cap of %d', $after_iops, $low));
truth($high, 'mid-run drop, before (median of 2 s)', sprintf('%.0f', $before_iops));
truth($low, 'mid-run drop, after (median of 2 s)', sprintf('%.0f', $after_iops));
like($$e, qr/IOPS fell from [0-9,]+ to [0-9,]+ after \d+ s: a burst allowance or a throttle\?/, 'the run WARNs that IOPS fell sharply');
my ($warning, $warned) = $$e =~ /(IOPS fell from [0-9,]+ to [0-9,]+ after (\d+) s[^\n]*)/;
diag("the mid-run drop: WARNING:  $warning") if $warning;
cmp_ok(abs(($warned // -100) - $at), '<=', 1, "the WARNING names the second the cap was lowered (" . ($warned // 'none') . " s)");
my $in_flight = $iops * $mean / 1000;
cmp_ok(abs($in_flight / 4 - 1), '<=', 0.05, sprintf("the mid-run drop: Little's law holds over the whole run, %.2f reads in flight for 4", $in_flight));

lab_set_cap('none');
# --- submission follows the device (src/os/uring.c): uncapped, zram completes a
# read inside the io_uring_enter() that submits it, so after its first reads,
# each submitted alone, a worker submits each refill's reads together.
like(submission_choice($node, "SELECT batch FROM ranread_run(1, 2000, 'lab', mode => 'direct', iodepth => 8)"),
	qr/^\d+ of \d+ reads completed inside the system call that submitted them: submitting each refill's reads together$/,
	'uncapped zram: reads complete inside their submission, so refills are submitted together');
# the lab device is the run's, and the next file on it needs the room
$node->safe_psql('postgres', "SELECT ranread_drop('lab')");
diag(sprintf('lab/lab_caps.pl on PostgreSQL %d took %.0f s', $major, Time::HiRes::time() - $started));
lab_done($node, $ts, $fio_file);
done_testing();
