# A run whose caller is cancelled or terminated: every worker ends (each
# would otherwise read 10^9 units), and what the workers measured is recorded
# with status "cancelled".  That they end within 1 s is this machine's speed,
# not the code's: asserted only with RANREAD_TEST_EXTRA=timing (a run of the
# whole matrix beside other tests once saw a worker still alive after 1 s).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(gettimeofday tv_interval);
use RanreadTest;

my $node = new_node('caller_gone');
$node->safe_psql('postgres', "SELECT ranread_setup('16 MB', target => 'gone', log_level => 0)");

foreach my $how ('cancel', 'terminate')
{
	my ($h) = start_psql($node, "SELECT * FROM ranread_run(2, 1000000000, 'gone', allow_rereads => true)");
	ok(wait_for_readers($node, 2), "$how: two workers are reading");
	$node->safe_psql('postgres', "SELECT pg_${how}_backend(pid) FROM pg_stat_activity
		WHERE backend_type = 'client backend' AND query LIKE '%ranread_run(2, 1000000000%' AND pid <> pg_backend_pid()");
	my $asked = [gettimeofday];
	ok(wait_for_no_workers($node),
		"$how: every ranread worker ends after pg_${how}_backend() of the caller");
	my $took = tv_interval($asked);
	SKIP:
	{
		skip timing_skip(), 1 if timing_skip();
		cmp_ok($took, '<', 1, "$how: within 1 s");
	}
	$h->finish;
	my $batch = $node->safe_psql('postgres', 'SELECT max(batch) FROM ranread_batches');
	is($node->safe_psql('postgres',
		"SELECT count(*) FILTER (WHERE status = 'cancelled' AND reads > 0) FROM ranread_results WHERE batch = $batch"),
		'2', "$how: both workers recorded their reads as cancelled");
	is($node->safe_psql('postgres', "SELECT status FROM ranread_batches WHERE batch = $batch"), 'cancelled',
		"$how: the batch is recorded as cancelled");
}
done_testing();
