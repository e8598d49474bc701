# Known answers: ranread against the FUSE laboratory (test/lab/labfs.c), a
# file system whose reads have a delay, an in-flight limit, errors and stalls
# we set, and which counts and times them itself.  Each check compares what
# ranread measured with a truth the file system gives: its read count, its
# own measured service time plus the FUSE round trip, a capacity curve
# (K reads in flight of service time s serve K / s reads/s), its EIO and its
# stalls.  test/run-tap.sh mounts the file system (with direct_io: every read
# reaches it, and files cannot be mapped) and passes RANREAD_LAB_FUSE_DIR and
# RANREAD_LAB_FUSE_CONTROL.  Reads stay at a few thousand per second, so that
# the numbers hold on a busy machine.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use RanreadTest;

my $lab_dir = $ENV{RANREAD_LAB_FUSE_DIR} // '';
my $control = $ENV{RANREAD_LAB_FUSE_CONTROL} // '';
plan skip_all => 'no FUSE laboratory mounted (test/run-tap.sh mounts one as root)' if $lab_dir eq '';

my $node = new_node('lab_fuse', autovacuum => 'off');
my $tablespace = "$lab_dir/225";
mkdir $tablespace or die "mkdir $tablespace: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$tablespace'");
# 16 MB: 2,048 units, no run below reads one twice in smgr or buffer mode
$node->safe_psql('postgres', "SELECT ranread_setup('16 MB', 'lab', 'lab_t', 0)");
my $file = $node->safe_psql('postgres', "SELECT pg_relation_filenode('lab_t')");
my $path = $node->safe_psql('postgres', "SELECT pg_relation_filepath('lab_t')");
lab_fuse("clear count=$file");

# A run (SQL returning a batch) against the file system's counters, zeroed first.
sub measured
{
	my ($commands, $run) = @_;
	lab_fuse("reset $commands");
	my %batch;
	@batch{qw(batch reads mean_us iops status physical_pct kb_per_read)} = split /\|/,
	  batch_of($node, $run, 'SELECT batch, reads, response_time_ms * 1000, iops, status, physical_pct, kb_per_read'), -1;
	return (\%batch, lab_fuse_stats());
}

# --- counts: every read ranread times is one read of the file system --------
# Mode direct's leader reads block 0 once before the workers start
# (src/readpath/readpath_direct.c, direct_check()), and once more through io_uring for
# iodepth > 1 (src/os/uring.c, ranread_uring_check()); smgr and buffer read
# nothing before their workers do.
foreach my $case ([ 'direct', 1, 1 ], [ 'direct', 4, 2 ], [ 'smgr', 1, 0 ], [ 'buffer', 1, 0 ])
{
	my ($mode, $depth, $probes) = @$case;
	my ($b, $s) = measured('delay_us=0',
		"SELECT batch FROM ranread_run(2, 400, 'lab_t', mode => '$mode', iodepth => $depth)");
	is("$b->{status} $b->{reads}", 'completed 800', "$mode, iodepth $depth: the batch completed its 2 x 400 reads");
	is($s->{reads} - $b->{reads}, $probes,
		"$mode, iodepth $depth: the file system served the batch's $b->{reads} reads and $probes start-up probe(s) ($s->{reads})");
	is($s->{bytes}, 8192 * $s->{reads}, "$mode, iodepth $depth: each read the file system served was one 8 kB block");
	is($b->{kb_per_read}, '', "$mode, iodepth $depth: kb_per_read is NULL: the file system has no /proc/diskstats line");
}

# --- latency: the file system's service time plus the FUSE round trip ---------
# ranread's mean less the file system's own mean is the FUSE round trip
# (kernel, context switches, libfuse).  With no delay it is the bare round
# trip; with a delay the reader sleeps in the kernel meanwhile and its wake-up
# adds to it, so the round trip of a read that blocks is measured with a
# short delay (500 us).  With longer delays ranread's mean is then the file
# system's measured mean plus that round trip: the delay itself overshoots
# (timers wake late), so the truth is what the file system measured, not what
# was set.
my ($b0, $s0) = measured('delay_us=0', "SELECT batch FROM ranread_run(1, 1000, 'lab_t', mode => 'direct')");
my $bare = $b0->{mean_us} - $s0->{latency_us_mean};
cmp_ok($bare, '>', 0, sprintf('the bare FUSE round trip: ranread %.1f us, the file system %.1f us, so %.1f us',
	$b0->{mean_us}, $s0->{latency_us_mean}, $bare));
my ($b1, $s1) = measured('delay_us=500', "SELECT batch FROM ranread_run(2, 250, 'lab_t', mode => 'direct')");
my $round_trip = $b1->{mean_us} - $s1->{latency_us_mean};
# (tens of microseconds on an idle machine; a reader's wake-up waits for a CPU under load)
cmp_ok($round_trip, '<', 2000, sprintf('the round trip of a read that blocks: ranread %.1f us, the file system %.1f us, so %.1f us, under 2 ms',
	$b1->{mean_us}, $s1->{latency_us_mean}, $round_trip));
# The round trip is measured again just before each delay's batch, under the
# same load; a machine that starved the reader of a CPU meanwhile (its wake-up
# then far from the round trip measured a moment before) runs both again, at
# most 3 times, and says so.
foreach my $delay (1000, 3000)
{
	my ($b, $s, $truth, $bound, $trip);
	foreach my $attempt (1 .. 3)
	{
		my ($bt, $st) = measured('delay_us=500', "SELECT batch FROM ranread_run(2, 250, 'lab_t', mode => 'direct')");
		$trip = $bt->{mean_us} - $st->{latency_us_mean};
		($b, $s) = measured("delay_us=$delay", "SELECT batch FROM ranread_run(2, 250, 'lab_t', mode => 'direct')");
		$truth = $s->{latency_us_mean} + $trip;
		# the wake-up of a reader varies with the machine's load: 300 us, or 10 % of the mean
		$bound = $truth * 0.10 > 300 ? $truth * 0.10 : 300;
		last if abs($b->{mean_us} - $truth) <= $bound;
		diag(sprintf('delay %d us: ranread mean %.1f us against %.1f us + round trip %.1f us: the machine delayed the reader%s',
			$delay, $b->{mean_us}, $s->{latency_us_mean}, $trip, $attempt < 3 ? ', running both again' : ''));
	}
	cmp_ok(abs($b->{mean_us} - $truth), '<=', $bound, sprintf(
		'delay %d us: ranread mean %.1f us = the file system\'s %.1f us + round trip %.1f us, within %.0f us',
		$delay, $b->{mean_us}, $s->{latency_us_mean}, $trip, $bound));
}

# --- a capacity curve we know: K reads in flight, each of service time s ------
# With the in-flight limit K = 4 and a delay of 2 ms, the file system serves
# at most K / s reads/s, s being its own measured service time (slot taken to
# reply) of the reads that waited for a slot: a finishing read hands its slot
# straight to the next, so while reads wait no slot is idle and K / s is
# exact (Little's law on the slots).  So a batch of 8 processes, whose reads
# always wait, reads K / s a second, s measured over that batch; its
# first attempt that misses (the file system's daemon starved of a CPU
# between its measurements) runs again, at most 3 times, and says so.  A
# sweep of 1, 2, 4, 8 processes scales up to 4 and no further; at 8 the file
# system queues, so the mean doubles: with an SLO of mean <= 3 ms (between d
# and 2d) the highest step within it is 4 processes.  (Its highest IOPS is not
# held to K / s: s is the whole sweep's, and a loaded machine serves its
# steps at different speeds.)
my ($limit, $delay_ms, $sweeps) = (4, 2, 5);
foreach my $attempt (1 .. 3)
{
	my ($b, $s) = measured('delay_us=' . ($delay_ms * 1000) . " limit=$limit",
		"SELECT batch FROM ranread_run(8, 250, 'lab_t', mode => 'direct')");
	my $model = $limit / ($s->{queued_service_us_mean} / 1e6);
	my $off = abs($b->{iops} / $model - 1);
	diag(sprintf('truth: PostgreSQL %d | K / s = %d / %.1f us = %.1f | 8 processes, in-flight limit %d | %.1f | %+.2f %%',
		$node->pg_version->major, $limit, $s->{queued_service_us_mean}, $model, $limit, $b->{iops},
		100 * ($b->{iops} / $model - 1)));
	if ($off <= 0.03 || $attempt == 3)
	{
		cmp_ok($off, '<=', 0.03, sprintf(
			'8 processes against an in-flight limit of %d (%d seen): %.0f IOPS = K / s = %d / %.1f us = %.0f, within 3 %%',
			$limit, $s->{max_in_flight}, $b->{iops}, $limit, $s->{queued_service_us_mean}, $model));
		last;
	}
	diag(sprintf('8 processes: %.0f IOPS against K / s = %.0f: the machine delayed the file system, running it again',
		$b->{iops}, $model));
}
for my $n (1 .. $sweeps)
{
	my ($s, $sweep, $max_iops, $slo_processes, %iops, $model, $curve);
	# K readers keep the K slots busy only if the machine wakes them at once:
	# a sweep whose step at K processes fell under 85 % of K / s was slowed
	# by the machine (seen beside the matrix's load: 1: 393, 2: 833, 4: 1500,
	# 8: 1986), and runs again, up to three times
	foreach my $attempt (1 .. 3)
	{
		lab_fuse("reset delay_us=" . ($delay_ms * 1000) . " limit=$limit");
		$node->safe_psql('postgres', qq{CALL ranread_sweep(start_processes => 1, max_processes => 8, iterations => 250,
			target => 'lab_t', mode => 'direct', slo_mean_ms => @{[ 1.5 * $delay_ms ]}, slo_p99_ms => NULL)});
		$s = lab_fuse_stats();
		($sweep, $max_iops, $slo_processes) = split /\|/, $node->safe_psql('postgres',
			'SELECT sweep, max_iops, slo_processes FROM ranread_sweeps ORDER BY sweep DESC LIMIT 1');
		%iops = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
			"SELECT processes, max(iops) FROM ranread_batches WHERE sweep = $sweep AND status = 'completed' GROUP BY processes");
		$model = $limit / ($s->{queued_service_us_mean} / 1e6);
		$curve = join(', ', map { sprintf('%d: %.0f', $_, $iops{$_}) } sort { $a <=> $b } keys %iops);
		last if $attempt == 3 || ($iops{$limit} // 0) >= 0.85 * $model;
		diag(sprintf('sweep %d: %d processes read %.0f IOPS against K / s = %.0f (%s): the machine delayed the readers, running it again',
			$n, $limit, $iops{$limit} // 0, $model, $curve));
	}
	is($s->{max_in_flight}, $limit, "sweep $n: the file system had at most $limit reads in flight");
	# each doubling up to K gains over 30 % of linear scaling (the readers' own
	# wake-ups, which a loaded machine delays, are part of it); past K under
	# 30 %: it gains only the slots the 4 readers' wake-ups left idle
	ok(defined $iops{1} && defined $iops{2} && defined $iops{4} && defined $iops{8}
		  && $iops{2} / $iops{1} > 1.3 && $iops{4} / $iops{2} > 1.3 && $iops{8} / $iops{4} < 1.3,
		sprintf('sweep %d: IOPS by processes (%s) scale up to %d and no further (K / s over the sweep = %.0f, highest %.0f)',
			$n, $curve, $limit, $model, $max_iops));
	is($slo_processes, $limit, "sweep $n: the highest step within mean <= @{[ 1.5 * $delay_ms ]} ms is $limit processes, as the model predicts");
}
lab_fuse('clear');
lab_fuse("count=$file");

# --- residency where files cannot be mapped -----------------------------------
# Mode smgr and buffer ask the page cache before each read whether the unit
# is there.  The file system refuses mappings (direct_io): cachestat()
# answers instead, and every read reached the file system.
# Its physical_pct is the file system's truth: the share of the batch's reads
# it served (buffer mode's hits in shared buffers from earlier runs are the
# rest).
foreach my $mode ('smgr', 'buffer')
{
	lab_fuse('reset');
	my $out = shown($node, "SELECT status FROM ranread_run(2, 200, 'lab_t', mode => '$mode')");
	my $served = lab_fuse_stats()->{reads};
	my $row = $node->safe_psql('postgres',
		"SELECT status, round(physical_pct::numeric, 2) = round(100.0 * $served / reads, 2), kb_per_read IS NULL, device IS NULL FROM ranread_batches ORDER BY batch DESC LIMIT 1");
	is($row, 'completed|t|t|t',
		"$mode on a file system that refuses mappings: completed, physical_pct the share of reads the file system served ($served of 400, by cachestat), kb_per_read and device NULL (no /proc/diskstats line)");
	is(lines_matching($out, qr/no proof of physical reads/), 0, "$mode: no NOTICE of a missing proof, since cachestat() answered");
}

# Without cachestat() either (a kernel before 6.5: the server under a seccomp
# filter that fails it with ENOSYS), the run goes on without the proof.
SKIP:
{
	my $why = restart_denying($node, 'cachestat', 'ENOSYS');
	skip $why, 3 if $why;
	my $out = shown($node, "SELECT status FROM ranread_run(2, 200, 'lab_t', mode => 'smgr')");
	is($node->safe_psql('postgres',
		"SELECT status || ' ' || coalesce(physical_pct::text, 'NULL') FROM ranread_batches ORDER BY batch DESC LIMIT 1"),
		'completed NULL', 'no mapping and no cachestat(): the smgr run completes with physical_pct NULL');
	like($out, qr/^NOTICE:  no proof of physical reads for batch \d+: physical_pct is unknown\nDETAIL:  Ranread could not ask which units the OS page cache held: the file system refused to map "[^"]+" \(No such device\), and the kernel did not answer cachestat\(\) for it \(Function not implemented\)\./m,
		'a NOTICE says the proof is unknown and why (the mapping refused, no cachestat())');
	unlike($out, qr/^WARNING:  only/m, 'and no WARNING of reads answered from memory');
	$node->restart;
}

# --- faults: EIO on a range of blocks ------------------------------------------
# Blocks 1000-1003 fail with EIO; 2 workers read 1,000 of the 2,048 units each.
lab_fuse('reset eio=' . $file . ':' . (1000 * 8192) . '-' . (1004 * 8192));
my $before = $node->safe_psql('postgres', 'SELECT last_value FROM ranread_batch_seq');
my ($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_run(2, 1000, 'lab_t', mode => 'direct')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
my $s = lab_fuse_stats();
my $batch = $node->safe_psql('postgres', 'SELECT last_value FROM ranread_batch_seq');
is(sqlstate_of($err), '58030', 'EIO on blocks 1000-1003: the run fails with 58030');
like($err, qr/ranread worker [12] of batch $batch failed: could not read block 100[0-3] of "\Q$path\E": Input\/output error/,
	"the error names the failing block, in the range, and the device's error");
my ($status, $reads, $rows, $failed_rows) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT b.status, b.reads, count(r.*), count(r.*) FILTER (WHERE r.status = 'failed')
	FROM ranread_batches b LEFT JOIN ranread_results r USING (batch) WHERE b.batch = $batch GROUP BY 1, 2});
is($status, 'failed', 'the batch is recorded as failed');
is($reads, $s->{reads} - 1, "what it read before is kept: its $reads reads are the file system's, less the probe");
is("$rows $failed_rows", "2 $s->{errors}", "both workers' rows are recorded, one failed for each EIO the file system returned ($s->{errors})");

# The same at iodepth 4: the failed completion names its block (src/os/uring.c).
lab_fuse('reset eio=' . $file . ':' . (1000 * 8192) . '-' . (1004 * 8192));
($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_run(2, 1000, 'lab_t', mode => 'direct', iodepth => 4)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
$batch = $node->safe_psql('postgres', 'SELECT last_value FROM ranread_batch_seq');
is(sqlstate_of($err), '58030', 'iodepth 4: EIO on blocks 1000-1003 fails the run with 58030');
like($err, qr/ranread worker [12] of batch $batch failed: could not read block 100[0-3] of "\Q$path\E": Input\/output error/,
	'iodepth 4: the error names the failing block, in the range, and the device\'s error');

# EIO at block 0 is the device's error, not a refusal of direct I/O.
lab_fuse("clear count=$file eio=$file:0-8192");
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_run(2, 100, 'lab_t', mode => 'direct')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '58030', 'EIO at block 0: mode direct fails with 58030 (an I/O error), not 0A000');
like($err, qr/ERROR:  58030: could not read block 0 of "\Q$path\E": Input\/output error\nDETAIL:  Mode 'direct' reads block 0 once before its workers start; the file system failed that read, so no block was timed\./,
	"the error is the device's, with its own DETAIL");
unlike($err, qr/direct I\/O|HINT:  Use mode 'smgr'/, 'and it does not blame direct I/O');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'no batch was recorded');
lab_fuse('clear');

# --- submission follows the device (src/os/uring.c): a read of this file
# system completes in its daemon, never inside the io_uring_enter() that
# submits it, so a worker submits each read as it is queued.
lab_fuse("reset count=$file delay_us=200");
like(submission_choice($node, "SELECT batch FROM ranread_run(1, 400, 'lab_t', mode => 'direct', iodepth => 4)"),
	qr/^0 of \d+ reads completed inside the system call that submitted them: submitting each read as it is queued$/,
	'FUSE: no read completes inside its submission, so each is submitted as it is queued');
lab_fuse('clear');

# --- faults: a stalled read ------------------------------------------------------
# Every block but 0 stalls (for at most 30 s).  Mode direct reads through
# io_uring, and FUSE serves its O_DIRECT reads asynchronously, where no
# cancel reaches them: told to stop, a worker cancels its reads in flight
# and abandons those that have not ended a second later (src/os/uring.c),
# which the server log says.  The run has ended when its workers have
# recorded the batch and exited.
foreach my $case ([ 'stopped', 1 ], [ 'cancelled', 1 ], [ 'stopped', 4 ])
{
	my ($how, $depth) = @$case;
	lab_fuse("reset count=$file stall=$file:8192-" . (2048 * 8192) . ' stall_s=30');
	my $before = $node->safe_psql('postgres', 'SELECT last_value FROM ranread_batch_seq');
	my $log_from = -s $node->logfile;
	my ($h, $o, $e) = start_psql($node,
		"SELECT status FROM ranread_run(2, 100, 'lab_t', mode => 'direct', iodepth => $depth)");
	ok(wait_until($node, "SELECT pg_read_file('$control') ~ 'waiting_stalled=" . 2 * $depth . "'"),
		"$how, iodepth $depth: both workers' reads are stalled");
	my $t0 = time;
	interrupt_run($node, $h, $how, 'SELECT status FROM ranread_run');
	wait_until($node, qq{SELECT (SELECT count(*) FROM ranread_batches WHERE batch > $before) = 1
		AND NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'ranread worker')});
	my $took = time - $t0;
	# (a third of the 30 s stall: ended by the interrupt, not by the stall's end, however busy the machine)
	cmp_ok($took, '<', 10, sprintf('%s, iodepth %d: the run ended (batch recorded, workers gone) %.2f s after the %s, within 10 s',
		$how, $depth, $took, $how eq 'stopped' ? 'ranread_stop()' : 'cancel'));
	is($node->safe_psql('postgres', "SELECT status FROM ranread_batches WHERE batch > $before"), $how,
		"$how, iodepth $depth: the batch is recorded as $how");
	my @gave_up = substr(slurp_file($node->logfile), $log_from)
		=~ /LOG:  gave up (\d+) reads? still in flight 1000 ms after (?:it was|they were) cancelled at a stop/g;
	is(join(',', @gave_up), join(',', ($depth) x 2), "$how, iodepth $depth: each worker abandoned its $depth stalled read(s), the log says");
	lab_fuse('release clear');
}
is(worker_count($node), 0, 'no worker is left');

done_testing();
