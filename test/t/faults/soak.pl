# Soak: 20 or more back-to-back runs at the largest worker count the cluster allows,
# while a second session issues stop, reset, export and queries.  No leaked
# worker, no lost row, no server error.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $max = 12;
my $node = new_node('soak', max_worker_processes => $max, max_parallel_workers_per_gather => 0);
my $processes = $max - 1;    # the logical replication launcher holds one slot
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', log_level => 0)");
my $log_start = -s $node->logfile;
my $export_dir = $node->basedir . '/export';
mkdir $export_dir or die "mkdir $export_dir: $!";

# The second session: a loop of stop, export, queries and one reset, which
# records when its reset finished.
$node->safe_psql('postgres',
	'CREATE TABLE soak_log (op text, at timestamptz DEFAULT clock_timestamp(), result text)');
my ($hb, $outb, $errb) = start_psql($node, qq{
	DO \$\$
	BEGIN
		FOR i IN 1..100 LOOP
			CASE i % 6
				WHEN 0 THEN INSERT INTO soak_log (op, result) VALUES ('stop', ranread_stop());
				WHEN 1 THEN INSERT INTO soak_log (op, result) SELECT 'export', ranread_export('$export_dir');
				WHEN 2 THEN INSERT INTO soak_log (op, result) SELECT 'summary', count(*) FROM ranread_summary;
				WHEN 3 THEN INSERT INTO soak_log (op, result) SELECT 'results', count(*) FROM ranread_results;
				WHEN 4 THEN IF i = 10 THEN INSERT INTO soak_log (op, result) VALUES ('reset', ranread_reset()); END IF;
				ELSE INSERT INTO soak_log (op, result) SELECT 'activity', count(*) FROM pg_stat_activity;
			END CASE;
			COMMIT;
			PERFORM pg_sleep(0.05);
		END LOOP;
	END \$\$;
});

my @batches;
my ($stopped_early, $failed, $reset_took) = (0, 0, 0);
# 20 runs, and more (up to 200 in all) until one has started after the
# second session's reset: on a fast machine the 20 could all run before it
# (it comes after about ten of that session's 50 ms pauses), and the checks
# of the batches after the reset below would have none
my $reset_seen = q{SELECT count(*) > 0 FROM ranread_batches WHERE started_at > (SELECT at FROM soak_log WHERE op = 'reset')};
for my $i (1 .. 200)
{
	last if $i > 20 && $node->safe_psql('postgres', $reset_seen) eq 't';
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT batch || ' ' || status FROM ranread_run($processes, 300)");
	# a run ending as the second session resets loses its row, and says so
	if ($ret == 0 && $out eq '' && $err =~ /WARNING:  the row of ranread batch \d+ was recorded but is no longer there/)
	{
		$reset_took++;
	}
	elsif ($ret == 0) { push @batches, [ split / /, $out ]; }
	elsif ($err =~ /ranread worker \d+ exited before the run started/) { $stopped_early++; }
	else { $failed++; diag("run $i: $err"); }
}
$hb->finish;
is($$errb =~ /ERROR/ ? $$errb : '', '', 'the second session saw no error');
is($failed, 0, 'every run ran, or was stopped before its first read with a clear error');
note "$stopped_early runs were stopped by ranread_stop() before their first read";
cmp_ok($reset_took, '<=', 1, 'at most the run that ended as the history was reset lost its row, with a WARNING');
my @odd = grep { ($_->[1] // '') !~ /^(completed|stopped)$/ } @batches;
is(scalar(@odd), 0, 'every run ended completed or stopped, and returned its row')
  or diag('returned: ' . join(', ', map { join(' ', @$_) || '(no row)' } @odd));
ok(wait_for_no_workers($node), 'no ranread worker is left');

# Batches started after the reset finished must be complete: one row per
# worker and a batch row, with statuses that agree.
my $incomplete = $node->safe_psql('postgres', qq{
	SELECT count(*) FROM ranread_batches b
	WHERE b.started_at > (SELECT at FROM soak_log WHERE op = 'reset')
	  AND ((SELECT count(*) FROM ranread_results r WHERE r.batch = b.batch) <> $processes
		   OR b.reads <> (SELECT sum(reads) FROM ranread_results r WHERE r.batch = b.batch))});
is($incomplete, '0', 'no row was lost from any batch after the reset');
my $after_reset = $node->safe_psql('postgres',
	"SELECT count(*) FROM ranread_batches WHERE started_at > (SELECT at FROM soak_log WHERE op = 'reset')");
cmp_ok($after_reset, '>', 0, "batches after the reset were checked ($after_reset)");
my $first_after_reset = $node->safe_psql('postgres',
	"SELECT min(batch) FROM ranread_batches WHERE started_at > (SELECT at FROM soak_log WHERE op = 'reset')");
my @returned_after = map { $_->[0] } grep { $_->[0] >= $first_after_reset } @batches;
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches WHERE batch IN ('
	  . join(',', @returned_after) . ')'),
	scalar(@returned_after), 'every batch a run returned after the reset has its batch row');
ok(log_is_clean($node, $log_start), 'no PANIC, crash or internal error in the server log');
note $node->safe_psql('postgres', "SELECT op, count(*) FROM soak_log GROUP BY op ORDER BY op");

$node->stop;
done_testing();
