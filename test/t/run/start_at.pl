# start_at: a run's workers are released at a given wall-clock time, so that
# runs on several servers start together; the batch records start_at and
# the skew of the release (started_at less start_at).  A start_at in the
# past or more than an hour ahead is refused before anything is recorded;
# a cancel while it waits records nothing read.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('start_at');
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', log_level => 0)});

my ($batch, $waited) = split /\|/, $node->safe_psql('postgres', q{
	SELECT batch, round(extract(epoch FROM clock_timestamp() - s)::numeric, 1)
	FROM (SELECT clock_timestamp() AS s) t,
	     LATERAL ranread_run(2, 200, start_at => t.s + interval '1.5 s')});
cmp_ok($waited, '>=', 1.4, "the call returned $waited s after it was made: it waited for start_at");
my ($skew, $recorded) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT start_skew_ms, started_at - start_at = start_skew_ms * interval '1 ms'
	FROM ranread_batches WHERE batch = $batch});
cmp_ok($skew, '>=', 0, "the release came at or after start_at (skew $skew ms)");
cmp_ok($skew, '<', 50, 'within 50 ms of it');
is($node->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches WHERE start_at IS NULL}), '0',
	'no batch without start_at so far');
$node->safe_psql('postgres', q{SELECT ranread_run(1, 10)});
is($node->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches WHERE start_at IS NULL AND start_skew_ms IS NULL}), '1',
	'a run without start_at records neither');

# bad input
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
foreach my $case (
	[ q{ranread_run(1, 10, start_at => now() - interval '1 s')}, qr/start_at must lie ahead, by at most 3600 s/ ],
	[ q{ranread_run(1, 10, start_at => now() + interval '2 hours')}, qr/start_at must lie ahead, by at most 3600 s/ ],
	[ q{ranread_run(1, 10, start_at => 'infinity')}, qr/start_at must lie ahead/ ])
{
	my $out = shown($node, "SELECT $case->[0]", verbose => 1);
	like($out, $case->[1], "$case->[0] is refused");
	is(sqlstate_of($out), '22023', 'as invalid_parameter_value');
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'and records nothing');

# cancelled while waiting for start_at: nothing was read, the workers are gone
my ($h, $out, $err) = start_psql($node, q{SELECT ranread_run(2, 100, start_at => clock_timestamp() + interval '60 s')});
wait_until($node, q{SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'ranread worker'});
$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT ranread_run(2, 100, start_at%' AND pid <> pg_backend_pid()});
$h->finish;
like($$err, qr/canceling statement due to user request/, 'a run waiting for start_at can be cancelled');
ok(wait_until($node, q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'ranread worker'}),
	'and its workers are gone');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
