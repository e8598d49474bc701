# Writes against known answers, on the capped laboratory device
# (test/lab/capped_zram.sh) whose write cap the kernel's block throttle
# enforces for every process of the server:
#   - a checkpoint of the writers' dirty pages, the write target on the lab
#     device and its writes capped at B bytes/s, lasts the bytes the device
#     wrote for it over B (the window ranread reports against the device's
#     own count), while reads of the same device, capped apart at C reads/s,
#     keep C inside the window and out of it;
#   - with pg_wal on the lab device and its writes capped at W a second, one
#     writer asked for more commits than that commits W a second (each
#     synchronous commit is one WAL write request), and one asked for fewer
#     keeps its rate; a write sweep of one writer alone stops at the first
#     rate above W and absorbs the one below it.
# Each measured number is printed (diag "truth: ...") for docs/benchmarks.md.
# Skips, with the reason, without a lab device.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use File::Copy ();
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $missing = lab_missing();
plan skip_all => $missing if $missing;

my $B = 8 * 1024 * 1024;    # the write bandwidth cap of the checkpoint, bytes/s
my $C = 1000;               # the read cap beside it, reads/s
my $W = 400;                # the write request cap of the WAL, writes/s

# fsync on (a test cluster has it off): a checkpoint and a commit then wait
# for the device.  The background writer writes nothing here
# (bgwriter_lru_maxpages = 0), and shared buffers hold the write target's
# pages, so the device's writes during the run are the checkpoint's.
my $node = lab_node('labwrites', fsync => 'on', bgwriter_lru_maxpages => 0, shared_buffers => '256MB');
my $major = $node->pg_version->major;
my $ts = "$ENV{RANREAD_LAB_CAP_DIR}/writes-$major";
mkdir $ts or die "mkdir $ts: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$ts'");
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', tablespace => 'lab', target => 'lab', log_level => 0)");
$node->safe_psql('postgres', "SELECT ranread_setup_writes('64 MB', tablespace => 'lab')");

# the device's own count of bytes written (/sys/block/NAME/stat, field 7: sectors)
sub device_bytes_written
{
	return (split ' ', slurp_file("/sys/block/$ENV{RANREAD_LAB_DEVICE_NAME}/stat"))[6] * 512;
}

# The lab cgroup's own write requests to the device (the throttle's count:
# blkio.throttle.io_serviced on cgroup v1, io.stat's wios on v2): the
# server's, without the kernel's flusher threads, which write outside the
# cgroup (beside stress-ng --io's sync() calls the device counted 10,773
# requests for 2,190 commits)
sub cgroup_write_requests
{
	my $cg = $ENV{RANREAD_LAB_CGROUP};
	my $dev = $ENV{RANREAD_LAB_DEVICE};
	if (-e "$cg/blkio.throttle.io_serviced")
	{
		my ($n) = slurp_file("$cg/blkio.throttle.io_serviced") =~ /^\Q$dev\E Write (\d+)$/m;
		return $n // 0;
	}
	my ($n) = slurp_file("$cg/io.stat") =~ /^\Q$dev\E .*\bwios=(\d+)/m;
	return $n // 0;
}

sub truth
{
	my ($truth, $what, $ranread) = @_;
	diag(sprintf('truth: PostgreSQL %d | %.4g | %s | %.4g | %+.2f %%', $major, $truth, $what,
		$ranread, 100 * ($ranread - $truth) / $truth));
	return;
}

# --- a checkpoint under a write bandwidth cap ----------------------------------
# 4 readers of the lab device (closed loop, capped at C reads/s), 2 writers at
# 1,000 writes/s for 20 s; the checkpoint asked for a third in has some 40 MB
# of the write target's pages to write at B: about 5 s.  The window runs from
# when the checkpointer began it to when pg_control recorded it, so it holds
# the writes and their fsyncs; the throttle lets a first time slice through
# at once (about 0.1 s of the cap), and the checkpoint's own steps off the
# device take a few ms.  A window far longer than the model, or reads inside
# it short of their cap, is the machine stalling (as in lab_caps.pl): run
# again once, saying so.
lab_set_cap(iops => $C);
lab_set_cap(wbps => $B);
my ($batch, $written, $model, $window);
foreach my $attempt (1 .. 2)
{
	$node->safe_psql('postgres', 'CHECKPOINT');
	my $before = device_bytes_written();
	$batch = $node->safe_psql('postgres', q{SELECT batch FROM ranread_run(4, NULL, 'lab', mode => 'direct', allow_rereads => true,
		duration => '21 s', ramp => '1 s', writers => 2, write_rate_iops => 1000, checkpoint => 'during')});
	$written = device_bytes_written() - $before;
	$window = $node->safe_psql('postgres',
		"SELECT checkpoint_ended_s - checkpoint_began_s FROM ranread_db_activity WHERE batch = $batch");
	$model = $written / $B;
	# reads are capped apart from the writes: inside the window's 2 s they
	# fall short of their cap only when the machine's CPU stalled the readers
	my $inside_rate = $node->safe_psql('postgres', "SELECT reads_inside / NULLIF(checkpoint_ended_s - checkpoint_requested_s, 0)
		FROM ranread_db_activity WHERE batch = $batch");
	last if $window ne '' && $window <= 1.10 * $model && $inside_rate ne '' && abs($inside_rate / $C - 1) <= 0.03;
	diag(sprintf('checkpoint window %s s against %.3f s, reads inside it %.1f/s against %d: the machine stalled%s', $window,
		$model, $inside_rate || 0, $C, $attempt < 2 ? ': running it again' : ''));
}
my ($status, $began, $buffers, $inside, $outside, $wall, $reads_window) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT b.status, a.checkpoint_began_s, a.buffers_checkpoint, a.reads_inside, a.reads_outside, b.wall_s,
		   a.checkpoint_ended_s - a.checkpoint_requested_s
	FROM ranread_db_activity a JOIN ranread_batches b USING (batch) WHERE batch = $batch});
is($status, 'completed', 'the run with writers and a checkpoint on the lab device completed');
cmp_ok($began, '>=', 20 / 3, 'its checkpoint began after it was asked for, a third into the 20 s counted');
truth($model, sprintf('checkpoint window, s (%.1f MB the device wrote / %d MiB/s; %d buffers written)', $written / 1e6, $B >> 20, $buffers),
	$window);
cmp_ok($window, '>=', 0.95 * $model, sprintf('the checkpoint window, %.3f s, is at least the %.3f s the cap allows for its %.0f bytes (less a time slice)',
	$window, $model, $written));
cmp_ok($window, '<=', 1.10 * $model, 'and at most 10 % longer');
cmp_ok(abs($written / ($buffers * 8192) - 1), '<=', 0.05,
	sprintf('the device wrote the %d buffers the checkpointer wrote (%.0f bytes), within 5 %%', $buffers, $written));
# the reads inside are counted from the request (the checkpointer's moment
# to begin included) to the end
my $inside_rate = $inside / $reads_window;
truth($C, 'reads/s inside the checkpoint window (reads capped apart)', $inside_rate);
cmp_ok(abs($inside_rate / $C - 1), '<=', 0.03, sprintf('reads kept their cap inside the window: %.1f reads/s', $inside_rate));
my $outside_rate = $outside / ($wall - $reads_window);
truth($C, 'reads/s outside it', $outside_rate);
cmp_ok(abs($outside_rate / $C - 1), '<=', 0.02, sprintf('and outside it: %.1f reads/s', $outside_rate));

# --- WAL under a write request cap -----------------------------------------------
# pg_wal moved to the lab device, its writes capped at W requests a second:
# one writer's synchronous commit is one WAL write request (the commit's
# WAL page, flushed), so one writer asked for 2 W commits W a second, each
# waiting 1 / W (Little's law with one in flight), and one asked for W / 2
# keeps its rate.
lab_set_cap('none');
$node->stop;
my $wal = "$ENV{RANREAD_LAB_CAP_DIR}/wal-$major";
system_or_bail('mv', $node->data_dir . '/pg_wal', $wal);
symlink($wal, $node->data_dir . '/pg_wal') or die "symlink: $!";
system_or_bail(lab_run('pg_ctl', '-w', '-D', $node->data_dir, '-l', $node->logfile, 'start'));
$node->_update_pid(1);
lab_set_cap(wiops => $W);
foreach my $rate (2 * $W, $W / 2)
{
	my $expect = $rate < $W ? $rate : $W;
	my $requests = cgroup_write_requests();
	my $b = $node->safe_psql('postgres', qq{SELECT batch FROM ranread_run(1, NULL, 'lab', mode => 'direct', allow_rereads => true,
		rate_iops => 20, duration => '11 s', ramp => '1 s', writers => 1, write_rate_iops => $rate)});
	$requests = cgroup_write_requests() - $requests;
	my ($writes, $wiops, $mean, $wstatus) = split /\|/, $node->safe_psql('postgres',
		"SELECT writes, write_iops, mean_ms, status FROM ranread_write_results WHERE batch = $b");
	is($wstatus, 'completed', "1 writer asked $rate writes/s: completed");
	truth($expect, sprintf('1 writer asked %d writes/s, WAL capped at %d write requests/s, mean %.3f ms, %d requests for %d commits',
		$rate, $W, $mean, $requests, $writes), $wiops);
	cmp_ok(abs($wiops / $expect - 1), '<=', 0.02, sprintf('and committed %.1f writes/s, within 2 %% of %d', $wiops, $expect));
	# (a commit whose WAL the WAL writer flushed first, with another's, has
	# no request of its own: 2,190 for 2,191 beside stress-ng)
	cmp_ok($requests / $writes, '>=', 0.99, sprintf('the server wrote a WAL write request a commit (%d for %d, the throttle\'s count), at least 99 %% of one', $requests, $writes));
	cmp_ok($requests / $writes, '<=', 1.1, 'and at most 10 % more');
	next if $rate < $W;
	cmp_ok(abs($mean / (1000 / $W) - 1), '<=', 0.05,
		sprintf('each commit waited its turn: a mean of %.3f ms, within 5 %% of 1 / %d s', $mean, $W));
}

# --- the write sweep's verdict against the cap ----------------------------------
# Writers alone, one writer, 150, 300 and 600 writes/s asked (doubling), the
# WAL capped at W = 400 requests/s: 300 is absorbed, 600 cannot be (the
# writer commits W a second), so the sweep stops there on the rate rule and
# its verdict names 300; the stopping step achieved W.
my $sweep_out = shown($node, q{CALL ranread_write_sweep(writers => 1, start_write_rate_iops => 150,
	max_write_rate_iops => 600, duration => '6 s', slo_write_p99_ms => 50, target => 'lab')});
my ($best, $rule, $steps, $verdict) = split /\|/, $node->safe_psql('postgres',
	'SELECT best_write_rate_iops, stop_rule, steps, verdict FROM ranread_write_sweeps ORDER BY write_sweep DESC LIMIT 1');
diag("write sweep: $verdict");
is("$steps|$rule|$best", '3|write rate missed|300',
	"the write sweep stopped at its third step, 600 writes/s, on the rate rule, and absorbed 300 within the SLO (cap $W)");
my ($asked, $achieved) = split /\|/, $node->safe_psql('postgres', q{SELECT write_rate_iops, write_iops
	FROM ranread_write_sweep_steps WHERE write_sweep = (SELECT max(write_sweep) FROM ranread_write_sweeps) AND step = 3});
# A step has no ramp, so the throttle's first time slice (0.1 s of the cap,
# let through at once after the idle moment between steps) is in its 6 s:
# the step's known answer is W x 6.1 / 6 (measured +1.81 % against W, +0.12 %
# against this).
my $step_model = $W * (6 + 0.1) / 6;
truth($step_model, sprintf('the write sweep\'s stopping step: 1 writer asked %d writes/s, WAL capped at %d write requests/s (and a first slice)',
	$asked, $W), $achieved);
cmp_ok(abs($achieved / $step_model - 1), '<=', 0.02,
	sprintf('and that step committed %.1f writes/s, within 2 %% of the cap over its 6 s and the first slice, %.1f', $achieved, $step_model));
like($sweep_out, qr/write sweep \d+ .*: the volume absorbed 300\.0 writes\/s/, 'its verdict says so');
lab_done($node, $ts, $wal);
done_testing();
