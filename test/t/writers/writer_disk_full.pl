# A writer runs out of disk space in the middle of a run: the write target
# in a tablespace on the small loop-mounted file system of test/run-tap.sh,
# its pages filled with versions a held snapshot keeps from being pruned (so
# that the run's updates need new pages, as HOT updates otherwise never do),
# and the file system filled.  The writer's update fails with PostgreSQL's
# "could not extend file ... No space left on device"; the writer stops and
# records its committed writes with status "failed" and the error; the
# readers read on; the batch is recorded "failed"; the run's WARNING names
# the failure; the server keeps running, without crash recovery; the history
# recorded before is intact; and once space is freed a new run with writers
# completes.  Nothing here asserts a speed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $fs = $ENV{RANREAD_SMALL_FS};
plan skip_all => 'no small file system (RANREAD_SMALL_FS) mounted by test/run-tap.sh'
  unless $fs;

# verbose: the server log gives each message's SQLSTATE
my $node = new_node('writer_disk_full', log_error_verbosity => 'verbose');
my $dir = "$fs/ts_writes";
mkdir $dir or die "mkdir $dir: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE small_writes LOCATION '$dir'");
$node->safe_psql('postgres', q{SELECT ranread_setup('16 MB', log_level => 0)});
like($node->safe_psql('postgres', q{SELECT ranread_setup_writes('1 MB', tablespace => 'small_writes')}),
	qr/128 rows, one a page \(1 MB\), in tablespace small_writes$/, 'a write target on the small file system');
my $log_start = -s $node->logfile;

# Free space on the small file system, in kB, for the postgres OS user.
sub free_kb
{
	my @df = split /\s+/, (split /\n/, `df -Pk $fs`)[1];
	return $df[3];
}

# --- history before the fault ----------------------------------------------------

is($node->safe_psql('postgres', q{SELECT status FROM ranread_run(1, NULL, duration => '1 s', rate_iops => 50,
	writers => 1, write_rate_iops => 20)}), 'completed', 'a first batch with a writer completes');
my $history_sql = q{SELECT (SELECT count(*) FROM ranread_batches WHERE batch <= %1$d) || ' '
	|| (SELECT count(*) FROM ranread_results WHERE batch <= %1$d) || ' '
	|| (SELECT count(*) FROM ranread_write_results WHERE batch <= %1$d) || ' '
	|| (SELECT count(*) FROM ranread_db_activity WHERE batch <= %1$d) || ' '
	|| (SELECT md5(string_agg(b::text, '' ORDER BY batch)) FROM ranread_batches b WHERE batch <= %1$d) || ' '
	|| (SELECT md5(string_agg(w::text, '' ORDER BY batch, writer)) FROM ranread_write_results w WHERE batch <= %1$d)};
my $first = $node->safe_psql('postgres', 'SELECT max(batch) FROM ranread_batches');
my $history = $node->safe_psql('postgres', sprintf($history_sql, $first));

# --- pages full of versions nobody may prune ------------------------------------

# A session holding a snapshot: no version written after it can be pruned.
my ($holder, $holder_out, $holder_err) = start_psql($node, q{SET application_name = 'snapshot_holder';
	BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM ranread_write_target; SELECT pg_sleep(3600)});
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity
	WHERE application_name = 'snapshot_holder' AND wait_event = 'PgSleep' AND backend_xmin IS NOT NULL}),
	'a second session holds a snapshot');
# Update every row, round after round, until each row's newest version is
# the last its page has room for.  The first rounds stay on the row's page
# (HOT) until it is full; the next moves every row to a new page of its own
# (fillfactor 10 keeps a moved version from sharing a page), and as many
# rounds again fill that one.  Then any update needs a new page.
my $round_sql = q{UPDATE ranread_write_target SET filler = filler;
	SELECT n_tup_upd - n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = 'ranread_write_target'};
my ($fill_updates, $moved) = (0, 0);
while ($moved == 0 && $fill_updates < 100)
{
	$moved = $node->safe_psql('postgres', $round_sql);
	$fill_updates++;
}
is($moved, 128, "update $fill_updates of every row moved each row to a new page, all at once");
my $per_page = $fill_updates;
$node->safe_psql('postgres', $round_sql) for 1 .. $per_page - 1;
$fill_updates += $per_page - 1;
note "every row updated $fill_updates times";
my $updates_sql = q{SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'ranread_write_target'};
my $updates_before = $node->safe_psql('postgres',
	"SELECT $fill_updates * 128 + sum(writes) FROM ranread_write_results");
ok(wait_until($node, $updates_sql, 'postgres', $updates_before),
	"the server counted the first batch's writes and the $fill_updates updates of every row");
is($node->safe_psql('postgres',
	q{SELECT n_tup_upd - n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'ranread_write_target'}),
	'128', 'each row left its page once: the write target grew by a page a row');

# --- the file system filled -------------------------------------------------------

# dd stops at "No space left on device"; a second one, in 4 kB blocks
# after a sync, takes what is left once the first one's data is on disk.
system("dd if=/dev/zero of=$dir/fill bs=1M status=none 2>/dev/null; sync; "
	  . "dd if=/dev/zero of=$dir/fill bs=4k oflag=append conv=notrunc status=none 2>/dev/null; sync");
note 'free space on the small file system after filling it: ' . free_kb() . ' kB';
cmp_ok(free_kb(), '<', 64, 'the small file system is full');

# --- a run whose writer runs out of space ---------------------------------------

my ($ret, $out, $err) = $node->psql('postgres',
	q{SELECT batch || ' ' || status FROM ranread_run(1, NULL, duration => '10 s', rate_iops => 50,
		writers => 1, write_rate_iops => 50)},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is($ret, 0, 'the run returns (no ERROR)') or diag($err);
like($out, qr/^\d+ failed$/, 'with status failed');
my ($batch) = $out =~ /^(\d+)/;
$batch //= -1;
note "the run's messages:\n$err";
like($err, qr/WARNING:  01000: ranread writer 1 of batch $batch failed after \d+ writes: could not extend file "[^"]+"(?: with FileFallocate\(\))?: No space left on device/,
	'the WARNING names the writer, its writes and the disk full');
my ($warned_writes) = $err =~ /failed after (\d+) writes/;
$warned_writes //= -1;
like($err, qr/DETAIL:  The reads after it ran beside fewer writes than asked; ranread_write_results records its writes with status "failed"\./,
	'and says where its writes are recorded');

is($node->safe_psql('postgres', "SELECT status FROM ranread_batches WHERE batch = $batch"), 'failed',
	'the batch is recorded failed');
is($node->safe_psql('postgres', "SELECT count(*) || ' ' || min(status) || ' ' || bool_and(reads > 0)
	FROM ranread_results WHERE batch = $batch"), '1 completed true', 'its reader read on and completed');
my ($writes, $status, $error) = split /\|/, $node->safe_psql('postgres',
	"SELECT writes, status, error FROM ranread_write_results WHERE batch = $batch");
is($status, 'failed', "the writer's row is recorded failed");
like($error, qr/^could not extend file "pg_tblspc\/\d+\/[^"]+"(?: with FileFallocate\(\))?: No space left on device$/,
	'with the error');
is($writes, $warned_writes, "its committed writes ($writes) as the WARNING said");
# The server's count: every committed write, and the failed update too
# if its heap tuple was placed before the failure (in its index insert).
my $updates_after = $node->safe_psql('postgres', $updates_sql);
my $activity = $node->safe_psql('postgres', "SELECT updates FROM ranread_db_activity WHERE batch = $batch");
is($activity, $updates_after - $updates_before, "ranread_db_activity counts the server's updates of the batch");
ok($activity == $writes || $activity == $writes + 1,
	"the server counted the writer's committed writes ($writes), and at most the failed one ($activity)");
my $log = slurp_file($node->logfile, $log_start);
like($log, qr/LOG:  53100: ranread writer 1 of batch $batch failed: could not extend file .*No space left on device/,
	"the server log has the failure, with the error's SQLSTATE");
# the same update from a session, for its SQLSTATE and HINT
($ret, $out, $err) = $node->psql('postgres', 'UPDATE ranread_write_target SET filler = filler WHERE id = 1',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '53100', 'the same update from a session fails with 53100 (disk full)');
like($err, qr/could not extend file .*: No space left on device\n(?:.*\n)*HINT:  Check free disk space\./,
	'saying so');

# --- the server keeps running ---------------------------------------------------

is($node->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 'f', 'the server keeps running, not in recovery');
unlike($log, qr/database system was interrupted|all server processes terminated/, 'no crash recovery');
ok(log_is_clean($node, $log_start), 'no PANIC, crash or internal error in the server log');
is($node->safe_psql('postgres', sprintf($history_sql, $first)), $history, 'the history recorded before is intact');

# --- space freed, a new run with writers completes --------------------------------

unlink "$dir/fill" or die "unlink $dir/fill: $!";
$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE application_name = 'snapshot_holder'});
$holder->finish;
is($node->safe_psql('postgres', q{SELECT status FROM ranread_run(1, NULL, duration => '2 s', rate_iops => 50,
	writers => 1, write_rate_iops => 20)}), 'completed', 'space freed, a new batch with a writer completes');

$node->safe_psql('postgres', q{SELECT ranread_setup_writes('1 MB')});
$node->safe_psql('postgres', 'DROP TABLESPACE small_writes');
$node->stop;
rmdir $dir or die "rmdir $dir: $!";
done_testing();

