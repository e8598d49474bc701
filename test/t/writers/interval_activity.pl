# What the server did in each interval of a batch (src/record/interval_activity.c):
# the columns of ranread_intervals beside the reads.  A batch with writers and
# checkpoint => 'during' has WAL in its intervals, bounded by the WAL the
# server inserted around the run and at least its writes' rows; its
# cumulative counters per interval add up to no more than its
# ranread_db_activity row (the same counters over a wider window); its
# checkpoint marked in the intervals where checkpoint_began_s and
# checkpoint_ended_s fall (or the one before: the two are looked at
# separately).  A batch without writers has the WAL, checkpoint and device
# columns, the statistics ones NULL, and marks a CHECKPOINT run while it
# reads; ranread_chart_intervals draws the marks.  Nothing here asserts a speed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

# no timed checkpoint of its own in the few seconds of a run
my $node = new_node('interval_activity', checkpoint_timeout => '1h', track_wal_io_timing => 'on');
$node->safe_psql('postgres', q{SELECT ranread_setup('16 MB', log_level => 0)});
$node->safe_psql('postgres', q{SELECT ranread_setup_writes('2 MB')});

# Reads with writers and a checkpoint a third into them
my $lsn_before = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
is($node->safe_psql('postgres', q{SELECT status FROM ranread_run(2, NULL, duration => '6 s', rate_iops => 200,
	writers => 1, write_rate_iops => 100, checkpoint => 'during')}), 'completed', 'a run with a writer and a checkpoint');
my $lsn_wal = $node->safe_psql('postgres', "SELECT pg_current_wal_insert_lsn() - '$lsn_before'");
my $batch = $node->safe_psql('postgres', 'SELECT max(batch) FROM ranread_batches');
note($node->safe_psql('postgres', "SELECT * FROM ranread_series WHERE batch = $batch ORDER BY interval_no"));

is($node->safe_psql('postgres', qq{SELECT count(*) FILTER (WHERE wal_bytes >= 0 AND wal_syncs >= 0 AND wal_sync_ms >= 0
	AND buffers_checkpoint >= 0 AND buffers_clean >= 0 AND buffers_backend >= 0
	AND checkpoint_began IS NOT NULL AND checkpoint_ended IS NOT NULL AND checkpoint_running IS NOT NULL) = count(*)
	FROM ranread_intervals WHERE batch = $batch}), 't',
	'with writers, every interval has its WAL, WAL syncs and their time (track_wal_io_timing), buffers written and checkpoint marks');
my ($sum, $writes, $writers) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT (SELECT sum(wal_bytes) FROM ranread_intervals WHERE batch = $batch), sum(writes), count(*)
	FROM ranread_write_results WHERE batch = $batch});
ok($sum > 0 && $sum <= $lsn_wal,
	"its intervals' WAL ($sum bytes) is within the WAL the server inserted around the run ($lsn_wal bytes)");
# every write but the one in progress when the reads ended is in an interval
ok($sum >= ($writes - $writers) * 480, "and holds at least the rows written ($writes writes of 480 bytes)");
is($node->safe_psql('postgres', qq{
	SELECT bool_and(s.syncs <= a.wal_syncs AND s.checkpoint <= a.buffers_checkpoint AND s.clean <= a.buffers_clean
					AND s.backend <= a.buffers_backend)
	FROM (SELECT sum(wal_syncs) AS syncs, sum(buffers_checkpoint) AS checkpoint, sum(buffers_clean) AS clean,
				 sum(buffers_backend) AS backend FROM ranread_intervals WHERE batch = $batch) s,
		 ranread_db_activity a WHERE a.batch = $batch}), 't',
	'its WAL syncs and buffers written add up to no more than its ranread_db_activity row');

# Where the requested checkpoint fell: in the interval that holds the moment
# the leader saw it begin (or end), or in the one before, when it began (or
# ended) between the leader's look and the series' sample.
my ($began_s, $ended_s) = split /\|/, $node->safe_psql('postgres',
	"SELECT checkpoint_began_s, checkpoint_ended_s FROM ranread_db_activity WHERE batch = $batch");
sub interval_holding
{
	my ($s) = @_;
	return $node->safe_psql('postgres', qq{SELECT interval_no FROM ranread_intervals
		WHERE batch = $batch AND start_s < $s AND $s <= start_s + seconds + 1e-9});
}
sub marked
{
	my ($mark) = @_;
	return $node->safe_psql('postgres', qq{SELECT coalesce(string_agg(interval_no::text, ',' ORDER BY interval_no), '')
		FROM ranread_intervals WHERE batch = $batch AND $mark});
}
SKIP:
{
	skip 'the checkpoint had not begun when the reads ended', 3 if $began_s eq '';
	my $n = interval_holding($began_s);
	like(marked('checkpoint_began'), qr/^(?:$n|@{[$n - 1]})$/, "one interval marks its beginning: $n (${began_s} s) or the one before");
	my $from = marked('checkpoint_began');
	my $to = $ended_s eq '' ? $node->safe_psql('postgres', "SELECT max(interval_no) FROM ranread_intervals WHERE batch = $batch")
	  : marked('checkpoint_ended');
	skip 'the checkpoint ended as the reads did', 2 if $ended_s eq '' && marked('checkpoint_ended') ne '';
	if ($ended_s ne '')
	{
		my $m = interval_holding($ended_s);
		like($to, qr/^(?:$m|@{[$m - 1]})$/, "one interval marks its end: $m (${ended_s} s) or the one before");
	}
	else
	{
		is(marked('checkpoint_ended'), '', 'it outlasted the reads: no interval marks its end');
	}
	is(marked('checkpoint_running'), join(',', $from .. $to), 'and those from its beginning to its end are marked running');
}
like($node->safe_psql('postgres', "SELECT ranread_chart_intervals($batch)"),
	qr/<g id="checkpoints">\n<rect class="checkpoint-began-or-ended" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="6" fill="#79706e"\/>/,
	'ranread_chart_intervals marks the intervals a checkpoint began or ended in, along the top');

# Reads alone: the WAL, checkpoint and device columns; no cumulative statistics
is($node->safe_psql('postgres', q{SELECT status FROM ranread_run(1, NULL, duration => '2 s', rate_iops => 100)}),
	'completed', 'a run without writers');
$batch = $node->safe_psql('postgres', 'SELECT max(batch) FROM ranread_batches');
is($node->safe_psql('postgres', qq{SELECT count(*) FILTER (WHERE wal_bytes >= 0 AND checkpoint_running IS NOT NULL
	AND wal_syncs IS NULL AND wal_sync_ms IS NULL AND buffers_checkpoint IS NULL AND buffers_clean IS NULL
	AND buffers_backend IS NULL) = count(*) FROM ranread_intervals WHERE batch = $batch}), 't',
	'without writers, WAL and checkpoint marks in every interval, WAL syncs and buffers written NULL');
is($node->safe_psql('postgres', qq{SELECT count(*) FILTER (WHERE (i.device_reads >= 0 AND i.device_writes >= 0) = (b.device IS NOT NULL))
	= count(*) FROM ranread_intervals i JOIN ranread_batches b USING (batch) WHERE batch = $batch}), 't',
	"the device's reads and writes where ranread found the target's device, NULL where it did not");

# Any checkpoint is marked, not only one a run asks for: a CHECKPOINT while a batch reads
my ($h, $out, $err) = start_psql($node, q{SELECT status FROM ranread_run(1, NULL, duration => '4 s', rate_iops => 100)});
ok(wait_for_readers($node, 1), 'a run reads');
$node->safe_psql('postgres', 'CHECKPOINT');
my $still_reading = $node->safe_psql('postgres',
	"SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'");
$h->finish;
like($$out, qr/completed/, 'it completes');
$batch = $node->safe_psql('postgres', 'SELECT max(batch) FROM ranread_batches');
SKIP:
{
	skip 'the reads ended before the CHECKPOINT did', 1 if $still_reading ne 't';
	is($node->safe_psql('postgres', qq{SELECT count(*) FILTER (WHERE checkpoint_began) || ' '
		|| count(*) FILTER (WHERE checkpoint_ended) FROM ranread_intervals WHERE batch = $batch}), '1 1',
		'a CHECKPOINT while it read is marked: one interval where it began, one where it ended');
}
my $marks = $node->safe_psql('postgres', "SELECT count(*) FILTER (WHERE checkpoint_running) FROM ranread_intervals WHERE batch = $batch - 1");
is($node->safe_psql('postgres', "SELECT ranread_chart_intervals($batch - 1)") =~ /id="checkpoints"/ ? 1 : 0, $marks > 0 ? 1 : 0,
	'the chart of a batch marks checkpoints only where its intervals say one ran');

done_testing();
