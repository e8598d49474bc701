# The end of a batch's reads is not measured with the batch's own recording
# beside it: a reader whose reads have ended waits until every reader has
# stopped before it closes, commits, reports or records anything (on a
# machine with fewer cores than readers that work took the CPU from the reads
# still running, and the reads that ended after the deadline read 5 to 10 ms
# against 0.15 ms).  Checked by when each reader's row was committed
# (track_commit_timestamp): none before the end of the batch's last read,
# in runs whose readers end apart (2,000 reads each) and together (a
# duration).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('end_of_reads', track_commit_timestamp => 'on');
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', log_level => 0)});

foreach my $run (q{ranread_run(4, 2000)}, q{ranread_run(4, NULL, mode => 'direct', duration => '3 s')},
	q{ranread_run(8, NULL, mode => 'direct', duration => '2 s')})
{
	my $batch = $node->safe_psql('postgres', "SELECT batch FROM $run");
	my ($rows, $early, $lead) = split /\|/, $node->safe_psql('postgres', qq{
		SELECT count(*),
			   count(*) FILTER (WHERE pg_xact_commit_timestamp(r.xmin) < b.started_at + b.wall_s * interval '1 s'),
			   round(extract(epoch FROM max(b.started_at + b.wall_s * interval '1 s' - pg_xact_commit_timestamp(r.xmin))) * 1000, 3)
		FROM ranread_results r JOIN ranread_batches b USING (batch) WHERE batch = $batch});
	is("$rows|$early", ($run =~ /\((\d+)/)[0] . '|0',
		"$run: no reader recorded its row before the batch's last read ended"
		  . ($early ? " ($early did, the first $lead ms before)" : ''));
}
done_testing();
