# ranread_calibrate(io_workers => true): on PostgreSQL 18 under io_method =
# worker it steps io_workers (ALTER SYSTEM and a reload, waiting until that
# many I/O workers run) with one read stream at the recommended look-ahead,
# recommends the least count within 10 % of the best, and puts io_workers
# back as it was on every way out: after success (unset, and set by ALTER
# SYSTEM before), after an error injected mid-way, a cancel and
# ranread_stop().  A role that is not superuser is refused with 42501
# before anything runs; io_method = sync, and PostgreSQL 15 (no AIO), are
# told that the part does not apply; under io_method = io_uring the series'
# own figure at that look-ahead is the comparison.  Asserts what was set and
# restored, never a speed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('calibrate_io');
my $major = $node->pg_version->major;
my $call = q{SELECT * FROM ranread_calibrate('cal', iterations => 500, max_depth => 4, max_duration => '1 s', io_workers => true)};
$node->safe_psql('postgres', q{SELECT ranread_setup('128 MB', target => 'cal', log_level => 0)});
my $batches = sub { $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches') };

if ($major < 18)
{
	my $out = shown($node, $call, verbose => 1);
	like($out, qr/ERROR:  0A000: the io_workers part does not apply to this server: it has no asynchronous I\/O\n.*DETAIL:  I\/O workers and io_method came with PostgreSQL 18; this server is $major/s,
		"PostgreSQL $major: the io_workers part does not apply, and says why");
	is($batches->(), 0, 'before anything runs');
	done_testing();
	exit;
}
if ($node->safe_psql('postgres', q{SELECT count(*) FROM pg_settings WHERE name = 'io_workers'}) eq '0')
{
	# a server that sizes its pool of I/O workers itself (PostgreSQL 19)
	my $out = shown($node, $call, verbose => 1);
	like($out, qr/ERROR:  0A000: the io_workers part does not apply to this server: it has no io_workers setting/,
		"PostgreSQL $major: the io_workers part does not apply, and says why");
	is($batches->(), 0, 'before anything runs');
	done_testing();
	exit;
}

# postgresql.auto.conf's io_workers ('unset' when it has none) and the I/O
# workers running
sub io_state
{
	return $node->safe_psql('postgres', q{
		SELECT coalesce((SELECT setting FROM pg_file_settings WHERE name = 'io_workers'
						   AND sourcefile = current_setting('data_directory') || '/postgresql.auto.conf'
						 ORDER BY seqno DESC LIMIT 1), 'unset')
			   || ' ' || (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'io worker')});
}
# wait until the state is $want (a restore after an error does not wait for the postmaster)
sub io_state_becomes
{
	my ($want) = @_;
	foreach (1 .. 100)
	{
		return $want if io_state() eq $want;
		select(undef, undef, undef, 0.1);
	}
	return io_state();
}
is(io_state(), 'unset 3', 'to start with: io_workers not set by ALTER SYSTEM, the default 3 I/O workers');

# --- refused without the privilege, before anything runs ------------------------
$node->safe_psql('postgres', q{
	CREATE ROLE tuner LOGIN;
	GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO tuner;
	GRANT SELECT ON cal TO tuner;
});
my $denied = shown($node, "SET ROLE tuner; $call", verbose => 1);
like($denied, qr/ERROR:  42501: permission denied to step io_workers\n.*HINT:  Run it as a superuser, or without io_workers => true\./s,
	'a role that is not superuser is refused with 42501 and a hint');
is($batches->(), 0, 'before any batch');
is(io_state(), 'unset 3', 'and io_workers is untouched');

# --- success, from unset -------------------------------------------------------
my $out = shown($node, "SELECT io_method, io_workers_recommended, array_to_string(io_workers_steps, ','),
	array_to_string(io_workers_iops, ','), effective_io_concurrency, array_length(depths, 1), array_to_string(batches, ',')
	FROM ranread_calibrate('cal', iterations => 500, max_depth => 4, max_duration => '1 s', io_workers => true)");
my ($row) = grep { /\|/ } split /\n/, $out;
my ($method, $pick, $steps, $iops, $eic, $n_depths, $batch_list) = split /\|/, $row;
is("$method $steps", 'worker 1,2,3,4,6,8,12,16,32', 'io_method worker: io_workers stepped 1 to 32, its maximum');
is(io_state(), 'unset 3', 'after success, io_workers is unset again and 3 I/O workers run');
my @counts = split /,/, $steps;
my @iops = split /,/, $iops;
# each count's IOPS is the median of its four passes (up, down, up, down), the batches' own
my @batches = split /,/, $batch_list;
my @step_batches = @batches[3 * $n_depths .. 3 * $n_depths + 4 * @counts - 1];
my @rows = map { [ split /\|/ ] } split /\n/, $node->safe_psql('postgres',
	'SELECT mode, iodepth, iops FROM ranread_batches WHERE batch IN (' . join(',', @step_batches) . ') ORDER BY batch');
is(scalar(grep { $_->[0] eq 'stream' && $_->[1] == $eic } @rows), 4 * @counts,
	"its " . 4 * @counts . " step batches each read through a read stream at the recommended look-ahead ($eic)");
my @order = map { $_ % 2 ? reverse(0 .. $#counts) : (0 .. $#counts) } 0 .. 3;
my @by_count;
push @{ $by_count[ $order[$_] ] }, $rows[$_][2] for 0 .. $#rows;
my @medians = map { my @v = sort { $a <=> $b } @$_; ($v[1] + $v[2]) / 2 } @by_count;
ok(!grep({ abs($medians[$_] - $iops[$_]) > 1 } 0 .. $#counts), 'each count\'s IOPS is the median of its four passes');
# the pick from the medians themselves: io_workers_iops shows them rounded,
# and a count within 1 IOPS of 90 % of the best would decide otherwise
my ($best) = sort { $b <=> $a } @medians;
my ($expected) = map { $counts[$_] } grep { $medians[$_] >= $best * 0.9 } 0 .. $#counts;
is($pick, $expected, "io_workers $pick: the least count within 10% of the most IOPS ($iops)");
my @step_notices = $out =~ /^NOTICE:  calibration \d+: io_workers = \d+, pass [1-4] of 4: [0-9,]+ IOPS of one read stream at look-ahead $eic$/mg;
is(scalar(@step_notices), 4 * @counts, 'one NOTICE per step');
like($out, qr/NOTICE:  calibration \d+: io_workers = $pick, the least within 10% of the most IOPS of one read stream at look-ahead $eic \([0-9,]+ with \d+\)\n.*After each reload the postmaster took \d+ to \d+ ms to run that many\. io_workers is back as it was \(not set by ALTER SYSTEM\)\.\nHINT:  Nothing was changed\. To apply: ALTER SYSTEM SET io_workers = $pick; SELECT pg_reload_conf\(\);/,
	'the NOTICE gives the pick, how long the postmaster took, that it was restored, and how to apply it');

# --- success, from a value set by ALTER SYSTEM ----------------------------------
$node->safe_psql('postgres', 'ALTER SYSTEM SET io_workers = 5; SELECT pg_reload_conf()');
is(io_state_becomes('5 5'), '5 5', 'io_workers set to 5 by ALTER SYSTEM');
like(shown($node, $call), qr/io_workers is back as it was \(ALTER SYSTEM set 5\)/, 'a calibration from there');
is(io_state(), '5 5', 'after success, io_workers is 5 again, in postgresql.auto.conf');

# --- an error mid-way: the batch at 4 I/O workers cannot be recorded ------------
$node->safe_psql('postgres', q{
	CREATE FUNCTION public.fail_at_4() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF NEW.mode = 'stream' AND (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'io worker') = 4 THEN
			RAISE EXCEPTION 'injected failure at 4 I/O workers';
		END IF;
		RETURN NEW;
	END $$;
	CREATE TRIGGER fail_at_4 BEFORE INSERT ON ranread_batches FOR EACH ROW EXECUTE FUNCTION public.fail_at_4();
});
my $before = $batches->();
$out = shown($node, $call, verbose => 1);
like($out, qr/ERROR:  /, 'an error mid-way ends the calibration');
cmp_ok($batches->(), '>', $before, 'the batches before it are kept');
is(io_state_becomes('5 5'), '5 5', 'after the error, io_workers is 5 again');
$node->safe_psql('postgres', 'DROP TRIGGER fail_at_4 ON ranread_batches; DROP FUNCTION public.fail_at_4()');

# --- a cancel and ranread_stop() while stepping, from unset -----------------------
$node->safe_psql('postgres', 'ALTER SYSTEM RESET io_workers; SELECT pg_reload_conf()');
is(io_state_becomes('unset 3'), 'unset 3', 'io_workers unset again');
foreach my $how ('pg_cancel_backend', 'ranread_stop')
{
	my ($h, $o, $e) = start_psql($node, $call);
	ok(wait_until($node, q{SELECT count(*) FILTER (WHERE setting IS NOT NULL) > 0
		FROM pg_file_settings WHERE name = 'io_workers'}), "$how: the calibration is stepping io_workers");
	if ($how eq 'ranread_stop')
	{
		# one call stops the calibration, in a batch or between two (a
		# reload and its wait): it signals the calibration's session
		is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() signalled the calibration\'s session');
	}
	else
	{
		$node->safe_psql('postgres',
			q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%io_workers => true%' AND pid <> pg_backend_pid()});
	}
	$h->finish;
	like($$e, $how eq 'ranread_stop' ? qr/ERROR:  57014: calibration \d+ (?:ended at batch \d+, which did not complete|was stopped by ranread_stop\(\) between two batches)/
		: qr/ERROR:  57014: canceling statement due to user request|ERROR:  57014: calibration \d+ ended at batch/,
		"$how ends the calibration");
	# a cancel that lands in one of the calibration's own queries (CI's 18: the
	# count of I/O workers) has PostgreSQL's SQL statement line first
	like($$e, qr/CONTEXT:  (?:SQL statement "[^\n]*"\n)?calibration \d+, cut (while it stepped io_workers \(put back as it was\)|in pair 1); the batches it ran are kept/,
		"$how: the error says what was cut and that its batches are kept");
	is(io_state_becomes('unset 3'), 'unset 3', "after $how, io_workers is unset again and 3 I/O workers run");
}

# --- io_method = io_uring: the comparison; io_method = sync: does not apply -------
my $uring = $node->safe_psql('postgres', q{SELECT 'io_uring' = ANY(enumvals) FROM pg_settings WHERE name = 'io_method'}) eq 't';
SKIP:
{
	skip 'this build has no io_uring', 3 unless $uring;
	$node->safe_psql('postgres', q{ALTER SYSTEM SET io_method = 'io_uring'});
	$node->restart;
	$out = shown($node, q{SELECT io_method, io_workers_recommended IS NULL AND io_workers_steps IS NULL,
		depth_iops[array_position(depths, effective_io_concurrency)], effective_io_concurrency
		FROM ranread_calibrate('cal', iterations => 500, max_depth => 4, max_duration => '1 s', io_workers => true)});
	($row) = grep { /\|/ } split /\n/, $out;
	my ($m, $none, $at, $depth) = split /\|/, $row;
	is("$m $none", 'io_uring t', 'io_method io_uring: no I/O workers stepped');
	my ($said) = $out =~ /io_method = io_uring has no I\/O workers to step: one read stream at look-ahead $depth read ([0-9,]+) IOPS/;
	is($said // '', do { my $n = sprintf('%.0f', $at); 1 while $n =~ s/^(\d+)(\d{3})/$1,$2/; $n },
		'the NOTICE gives the series\' figure at the recommended look-ahead as the comparison');
	is(io_state(), 'unset 0', 'and nothing was set');
}
$node->safe_psql('postgres', q{ALTER SYSTEM SET io_method = 'sync'});
$node->restart;
$before = $batches->();
$out = shown($node, $call, verbose => 1);
like($out, qr/ERROR:  0A000: the io_workers part does not apply under io_method = sync/,
	'io_method sync: the io_workers part does not apply');
is($batches->(), $before, 'refused before anything runs');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
