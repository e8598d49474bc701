# Several reads in flight per worker (iodepth, mode 'direct' through
# io_uring): what a run records, that iodepth 1 is the one-read-at-a-time
# path, stop and cancel, and the refusals: bad arguments, and io_uring
# blocked for the server (a seccomp filter, which needs no privilege; and
# kernel.io_uring_disabled = 2, which needs root and skips otherwise).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('iodepth');
$node->safe_psql('postgres', "SELECT ranread_setup('256 MB', target => 'deep', log_level => 0)");
my $log_start = -s $node->logfile;

sub last_batch
{
	my ($expr) = @_;
	return $node->safe_psql('postgres', "SELECT $expr FROM ranread_batches ORDER BY batch DESC LIMIT 1");
}

# The last batch: its histogram, workers' rows and intervals agree with its reads.
sub check_batch
{
	my ($what, $iodepth, $processes) = @_;
	is($node->safe_psql('postgres', q{
		WITH b AS (SELECT * FROM ranread_batches ORDER BY batch DESC LIMIT 1)
		SELECT (SELECT sum(x) FROM unnest(b.histogram) x) = b.reads,
			   (SELECT sum(reads) FROM ranread_results r WHERE r.batch = b.batch) = b.reads,
			   (SELECT string_agg(DISTINCT iodepth::text, ',') FROM ranread_results r WHERE r.batch = b.batch),
			   (SELECT count(*) FROM ranread_results r WHERE r.batch = b.batch),
			   (SELECT coalesce(sum(reads), 0) FROM ranread_intervals i WHERE i.batch = b.batch) = b.reads,
			   b.iodepth, s.iodepth
		FROM b JOIN ranread_summary s USING (batch)}),
		"t|t|$iodepth|$processes|t|$iodepth|$iodepth",
		"$what: histogram, worker rows and intervals add up to its reads; iodepth $iodepth recorded in batch, results and summary");
}

# --- one worker, 32 reads in flight ------------------------------------------------
# The device's reads/s are the whole device's: other processes' reads (a
# busy machine's other tests, 13,000 reads/s were seen) only add to them, so
# only the lower bound is the code's: every read counted reached the device.
my $row = $node->safe_psql('postgres', q{
	CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(1, NULL, 'deep', mode => 'direct', iodepth => 32, duration => '2 s');
	SELECT status, reads > 0, iops > 0, physical_pct, wrapped_reads >= 0,
		   device_reads_per_s IS NULL OR device_reads_per_s / iops > 0.75
	FROM ranread_summary JOIN r USING (batch)});
is($row, 'completed|t|t|100.0|t|t',
	'iodepth 32: completed, IOPS recorded, physical_pct 100, the device saw at least about as many reads/s as counted');
check_batch('iodepth 32', 32, 1);
cmp_ok($node->safe_psql('postgres', q{SELECT count(*) FROM ranread_intervals
	WHERE batch = (SELECT max(batch) FROM ranread_batches) AND reads > 0}), '>=', 2,
	'iodepth 32: at least two intervals with reads');
# Little's law: reads in flight = IOPS x mean latency, whatever the device's speed.  The
# one worker also reaps and resubmits, so on busy CPUs the queue drains while it waits
# for one: 23 and 29.5 of 32 were seen under load.  How far it drains is the machine's
# scheduling; the code's part is that it keeps several in flight, where iodepth 1 keeps
# at most 1: the bound is an eighth of the depth.
my $in_flight = last_batch('iops * response_time_ms / 1000');
cmp_ok($in_flight, '>', 4, "iodepth 32 keeps many reads in flight (IOPS x mean latency = $in_flight)");
cmp_ok($in_flight, '<', 33, 'and never more than 32');

# --- iterations, two workers --------------------------------------------------------
$node->safe_psql('postgres', "SELECT ranread_run(2, 3000, 'deep', mode => 'direct', iodepth => 8)");
is(last_batch('reads || \'|\' || status'), '6000|completed', 'iodepth 8 with iterations: exactly 2 x 3000 reads counted');
check_batch('iodepth 8, two workers', 8, 2);
$in_flight = last_batch('iops * response_time_ms / 1000');
# (13.7 of 16 was seen under load; two workers at iodepth 1 would keep at most 2)
cmp_ok($in_flight, '>', 2, "two workers at iodepth 8 keep more than one read in flight each ($in_flight)");

# --- iodepth 1 is the one-read-at-a-time path ---------------------------------------
foreach my $call ("iodepth => 1, ", "")
{
	$node->safe_psql('postgres', "SELECT ranread_run(1, 2000, 'deep', mode => 'direct', ${call}duration => '10 s')");
	is(last_batch('reads || \'|\' || iodepth || \'|\' || (iops * response_time_ms / 1000 <= 1.01)'), '2000|1|true',
		($call ? 'iodepth => 1' : 'the default') . ': one read in flight (IOPS x mean latency <= 1), iodepth 1 recorded');
}
is($node->safe_psql('postgres', "SELECT status FROM ranread_run(2, 100, 'deep', 'smgr', 8192, NULL, true, NULL, '1 s', NULL, 10, NULL, NULL)"),
	'completed', 'a positional call without iodepth still works');

# --- stop and cancel keep what was measured ------------------------------------------
foreach my $how ('stopped', 'cancelled')
{
	my ($h, $o, $e) = start_psql($node, "SELECT status FROM ranread_run(2, NULL, 'deep', mode => 'direct', iodepth => 16, duration => '60 s')");
	ok(wait_for_readers($node, 2), "$how: the workers read at iodepth 16");
	is($node->safe_psql('postgres', 'SELECT string_agg(DISTINCT iodepth::text, \',\') FROM ranread_running()'), '16',
		"$how: ranread_running() shows the workers' and the batch's iodepth") if $how eq 'stopped';
	sleep 2;
	interrupt_run($node, $h, $how, 'SELECT status FROM ranread_run(2, NULL');
	ok(wait_until($node, "SELECT status = '$how' AND reads > 0 FROM ranread_batches ORDER BY batch DESC LIMIT 1"),
		"iodepth 16, $how: the batch is recorded as $how with its reads");
	check_batch("iodepth 16, $how", 16, 2);
	ok(wait_for_no_workers($node),
		"iodepth 16, $how: every worker has exited");
}

# --- a sweep stepping iodepth ------------------------------------------------------------
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"CALL ranread_sweep(start_processes => 1, iodepth => 4, max_iodepth => 16, mode => 'direct', target => 'deep', duration => '1 s', min_scaling_pct => 0, stop_latency_ms => 1000)");
	is($ret, 0, 'a sweep stepping iodepth from 4 to 16 runs');
	$err =~ s/^psql:<stdin>:\d+: //mg;
	like($err, qr/NOTICE:  step 1: 1 process at queue depth 4, .*\n(?:.*\n)*?NOTICE:  step 2: 1 process at queue depth 8, .*% of linear scaling\n(?:.*\n)*?NOTICE:  step 3: 1 process at queue depth 16, /,
		'its NOTICEs name each step by its queue depth, and its scaling') or diag($err);
	like($err, qr/It stopped at max_iodepth \(16\)\./, 'its verdict says it stopped at max_iodepth');
	is($node->safe_psql('postgres', q{SELECT string_agg(processes || 'x' || iodepth, ',' ORDER BY sweep_step) FROM (SELECT DISTINCT ON (sweep_step) * FROM ranread_batches
		WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs) ORDER BY sweep_step, batch) b}), '1x4,1x8,1x16',
		'its batches: one process at iodepth 4, 8 and 16');
	is($node->safe_psql('postgres', q{SELECT r.iodepth || '|' || r.max_iodepth || '|' || s.stop_rule
		FROM ranread_sweep_runs r JOIN ranread_sweeps s USING (sweep) ORDER BY sweep DESC LIMIT 1}), '4|16|max iodepth',
		'ranread_sweep_runs records iodepth and max_iodepth; ranread_sweeps the stop rule');
	like($node->safe_psql('postgres', 'SELECT ranread_chart()'),
		qr/>4<\/text>.*>8<\/text>.*>16<\/text>.*queue depth \(reads in flight per process\)/s,
		'its chart puts the queue depth on the x axis: 4, 8, 16');
	is($node->safe_psql('postgres', q{SELECT string_agg(measure, ',' ORDER BY measure) FROM ranread_compare_sweeps(
		(SELECT max(sweep) FROM ranread_sweep_runs), (SELECT max(sweep) FROM ranread_sweep_runs)) WHERE measure LIKE 'iops at %'}),
		'iops at 1 process at queue depth 16,iops at 1 process at queue depth 4,iops at 1 process at queue depth 8',
		'ranread_compare_sweeps matches the steps by queue depth, one row each');
	like($node->safe_psql('postgres', q{SELECT verdict FROM ranread_compare(
		(SELECT min(batch) FROM ranread_batches WHERE iodepth = 1 AND mode = 'direct'),
		(SELECT min(batch) FROM ranread_batches WHERE iodepth = 16)) WHERE measure = 'verdict'}),
		qr/Not like for like: iodepth 1 vs 16/, 'ranread_compare says when two batches differ in iodepth');
	($ret, $out, $err) = $node->psql('postgres',
		"CALL ranread_sweep(start_processes => 1, iodepth => 1, max_iodepth => 4, target => 'deep', duration => '1 s')",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($err, qr/22023: mode 'smgr' keeps one read in flight per process, so iodepth must be 1/,
		'a sweep stepping iodepth in mode smgr is refused before its first step, even from iodepth 1');
}

# --- refusals -------------------------------------------------------------------------
# [ call, SQLSTATE, message ]
my @refused = (
	[ "mode => 'smgr', iodepth => 4", '22023', qr/mode 'smgr' keeps one read in flight per process, so iodepth must be 1\nHINT:  Use mode 'direct'( or 'stream')? for iodepth above 1\./ ],
	[ "mode => 'buffer', iodepth => 2", '22023', qr/HINT:  Use mode 'direct'( or 'stream')? for iodepth above 1\./ ],
	[ "mode => 'direct', iodepth => 0", '22023', qr/iodepth must be between 1 and 1024\nDETAIL:  The value given is 0\./ ],
	[ "mode => 'direct', iodepth => 1025", '22023', qr/iodepth must be between 1 and 1024/ ],
	[ "mode => 'direct', iodepth => NULL", '22004', qr/iodepth must not be null/ ],
	[ "mode => 'direct', iodepth => 4, rate_iops => 100", '22023',
		qr/rate_iops cannot be combined with iodepth above 1\nDETAIL:  .*\nHINT:  Use iodepth => 1 with rate_iops, or leave rate_iops out\./ ],
);
my $batches = last_batch('batch');
foreach my $r (@refused)
{
	my ($call, $state, $re) = @$r;
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_run(1, 10, 'deep', $call)",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	(my $msg = $err) =~ s/^psql:<stdin>:\d+: //mg;
	$msg =~ s/^(ERROR|DETAIL|HINT):  [0-9A-Z]{5}: /$1:  /mg;
	$msg =~ s/^LOCATION: .*\n//mg;
	is(sqlstate_of($err), $state, "$call: refused with $state");
	like($msg, $re, "$call: the message says why");
}
is(last_batch('batch'), $batches, 'the refused calls recorded no batch');

# io_uring blocked by a seccomp profile: restart the server under a filter
# that fails io_uring_setup() with EPERM
SKIP:
{
	my $why = restart_denying($node, 'io_uring_setup', 'EPERM');
	skip $why, 6 if $why;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT ranread_run(2, 10, 'deep', mode => 'direct', iodepth => 32)",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	is(sqlstate_of($err), '0A000', 'io_uring denied by seccomp: refused with 0A000');
	like($err, qr/io_uring is blocked for the server process\nDETAIL:  io_uring_setup\(\) failed with EPERM while kernel\.io_uring_disabled is (0|not set): a seccomp profile .* denies it\.\nHINT:  Use iodepth => 1/,
		'the error says a seccomp profile or a security module blocks io_uring, and hints at iodepth => 1')
	  or diag($err);
	is(last_batch('batch'), $batches, 'nothing was recorded');
	unlike($err, qr/exited before the run started/, 'the leader refused before starting any worker');
	is($node->safe_psql('postgres', "CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(1, 10, 'deep', mode => 'direct'); "
		  . "SELECT status || ' ' || iodepth FROM ranread_summary JOIN r USING (batch)"),
		'completed 1', 'iodepth 1 still works there');
	$node->restart;
	is($node->safe_psql('postgres', "SELECT status FROM ranread_run(1, 10, 'deep', mode => 'direct', iodepth => 4)"),
		'completed', 'and without the filter iodepth 4 works again');
}

# kernel.io_uring_disabled = 2: only root can set it
my $sysctl = '/proc/sys/kernel/io_uring_disabled';
my $saved;
END
{
	if (defined $saved && open(my $fh, '>', $sysctl))
	{
		print $fh $saved;
		close $fh;
	}
}
SKIP:
{
	skip "$sysctl is absent (a kernel before 6.6)", 3 unless -e $sysctl;
	skip "$sysctl is not writable by this user (the test runs as " . getpwuid($>) . '; root could set it)', 3
	  unless -w $sysctl;
	$batches = last_batch('batch');
	$saved = slurp_file($sysctl);
	open(my $fh, '>', $sysctl) or die "open $sysctl: $!";
	print $fh "2\n";
	close $fh;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT ranread_run(1, 10, 'deep', mode => 'direct', iodepth => 8)",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	is(sqlstate_of($err), '0A000', 'kernel.io_uring_disabled = 2: refused with 0A000');
	like($err, qr/io_uring is disabled on this server\nDETAIL:  The sysctl kernel\.io_uring_disabled is 2.*\nHINT:  Use iodepth => 1/,
		'the error names the sysctl');
	open($fh, '>', $sysctl) or die "open $sysctl: $!";
	print $fh $saved;
	close $fh;
	undef $saved;
	is(last_batch('batch'), $batches, 'nothing was recorded');
}

# A unit across the first 1 GiB segment's end (units of 24 kB: 1 GiB is not a
# multiple of them) is read as two pieces, one per segment file
# (src/os/uring.c, queue_split()), submitted as its worker submits any unit:
# a sequential run from block 0 reaches it at unit 43,690.
$node->safe_psql('postgres', "SELECT ranread_setup('1100 MB', target => 'wide', log_level => 0)");
$node->safe_psql('postgres',
	"SELECT ranread_run(1, 43700, 'wide', mode => 'direct', iodepth => 4, block_size => 24576, distribution => 'sequential')");
is(last_batch("status || ' ' || reads"), 'completed 43700',
	'iodepth 4, 24 kB units: the run read past the unit that spans two segment files');
$node->safe_psql('postgres', "SELECT ranread_drop('wide')");

ok(log_is_clean($node, $log_start), 'no crash, assertion or internal error in the log');
done_testing();
