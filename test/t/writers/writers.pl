# Reads under writes: ranread_run(writers => N, write_rate_iops => R).
# Refusals before anything is written, the GRANT writing needs, a small run
# (its writes counted and recorded, WAL grown by at least its rows, the read
# target untouched), a cancel that leaves the write target whole, a stop
# that stops the writers too, checkpoint => 'during' (its refusals, a real
# checkpoint and its window), and the refusal of a run with writers while a
# sweep holds the run lock.  Nothing here asserts a speed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('writers');
$node->safe_psql('postgres', q{SELECT ranread_setup('16 MB', log_level => 0)});

# Run $sql; return its SQLSTATE and stderr.
sub refused
{
	my ($sql, %opt) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '-v', 'VERBOSITY=verbose', @{ $opt{as} // [] } ]);
	return (sqlstate_of($err), $err);
}

my $read_md5 = q{SELECT md5(string_agg(md5(filler), '' ORDER BY ctid)) FROM ranread_target};
my $read_before = $node->safe_psql('postgres', $read_md5);

# A batch with writers has a duration (their WAL is checked against it).
my $run = q{SELECT * FROM ranread_run(1, NULL, duration => '1 s', rate_iops => 20, };

# No write target yet
my ($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10)});
is($state, '42704', 'without a write target: 42704');
like($err, qr/HINT:  Create it with ranread_setup_writes\(target => 'ranread_write_target'\)\./, 'with a hint');

is($node->safe_psql('postgres', q{SELECT ranread_setup_writes('2 MB')}),
	'ranread write target "ranread_write_target": 256 rows, one a page (2 MB), in tablespace pg_default',
	'ranread_setup_writes makes a write target of one row a page');
is($node->safe_psql('postgres', q{SELECT relpersistence::text || ' ' || (SELECT count(*) FROM ranread_write_target)
	FROM pg_class WHERE relname = 'ranread_write_target'}), 'p 256', 'logged, with its rows');
my $write_md5 = q{SELECT md5(string_agg(md5(filler), '' ORDER BY id)) FROM ranread_write_target};
my $write_before = $node->safe_psql('postgres', $write_md5);

# Bad arguments: 22023, nothing written
for my $case ([ 'writers => 1, write_rate_iops => 0', 'a zero rate' ],
	[ q{writers => 1, write_rate_iops => 'NaN'}, 'a NaN rate' ],
	[ 'writers => -1, write_rate_iops => 10', 'negative writers' ],
	[ 'writers => 1', 'writers without a rate' ],
	[ 'write_rate_iops => 10', 'a rate without writers' ],
	[ q{writers => 1, write_rate_iops => 10, write_target => 'ranread_target'}, 'the read target as write target' ])
{
	($state, $err) = refused($run . "$case->[0])");
	is($state, '22023', "$case->[1]: 22023");
}
($state, $err) = refused(q{SELECT * FROM ranread_run(1, 10, writers => 1, write_rate_iops => 10)});
is($state, '22023', 'writers without a duration: 22023');
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10, write_target => 'pg_class')});
is($state, '42704', 'a write target that is no relation of the schema: 42704');
($state, $err) = refused(q{SELECT ranread_setup_writes('2 MB', target => 'ranread_target')});
is($state, '42809', 'setup_writes refuses to replace a read target: 42809');
# more writers than free worker slots (max_worker_processes = 32)
($state, $err) = refused($run . q{writers => 40, write_rate_iops => 100)});
is($state, '53000', 'more writers than worker slots: 53000, as for readers');
# more WAL than pg_wal's file system holds: 8,704 bytes x 10,000,000 writes/s x 7 days
($state, $err) = refused(q{SELECT * FROM ranread_run(1, NULL, duration => '7 days', rate_iops => 20,
	writers => 1, write_rate_iops => 10000000)});
is($state, '53100', 'more WAL than pg_wal has room for: 53100');
like($err, qr/DETAIL:  At most \d+ bytes a write \(a full-page image and its commit\) at 1e\+07 writes\/s for 604800 s is \d+ MB; the file system of ".*pg_wal" has \d+ MB free, and max_wal_size is \S+\./,
	'stating the estimate, the free space and max_wal_size');
is($node->safe_psql('postgres', 'SELECT (SELECT count(*) FROM ranread_batches)::text || (SELECT count(*) FROM ranread_write_results)'),
	'00', 'no refused run recorded anything');
is($node->safe_psql('postgres', $write_md5), $write_before, 'and none wrote');

# Writing needs its own GRANT
$node->safe_psql('postgres', q{CREATE ROLE reader LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_run TO reader;
	GRANT SELECT ON ranread_summary, ranread_targets, ranread_target TO reader;
	GRANT USAGE ON SEQUENCE ranread_batch_seq TO reader;
	GRANT SELECT ON ranread_results, ranread_batches, ranread_intervals, ranread_write_results, ranread_db_activity TO reader;});
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10)}, as => [ '-U', 'reader' ]);
is($state, '42501', 'a role that may read but not write the write target: 42501');
like($err, qr/HINT:  Run GRANT SELECT, UPDATE ON public\.ranread_write_target TO reader/, 'with the GRANT in a hint');
is($node->safe_psql('postgres', $write_md5), $write_before, 'nothing written');

# A small run: 2 readers, 2 writers
my $lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
is($node->safe_psql('postgres', q{SELECT status FROM ranread_run(2, NULL, duration => '2 s', rate_iops => 200,
	writers => 2, write_rate_iops => 50)}), 'completed', 'a run with two writers completes');
my $wal = $node->safe_psql('postgres', "SELECT pg_current_wal_lsn() - '$lsn'");
my ($writers, $writes, $statuses) = split /\|/, $node->safe_psql('postgres',
	q{SELECT count(*), sum(writes), string_agg(DISTINCT status, ',') FROM ranread_write_results});
is($writers, 2, 'each writer recorded its row');
is($statuses, 'completed', 'completed');
ok($writes > 0, "they committed writes ($writes)");
ok($wal >= $writes * 480, "WAL grew by at least the rows written ($wal bytes for $writes writes)");
is($node->safe_psql('postgres', 'SELECT writes = ' . $writes . ' AND wal_bytes > 0 AND wal_syncs IS NOT NULL FROM ranread_write_summary'),
	't', 'ranread_write_summary merges them, with what the database did');
isnt($node->safe_psql('postgres', $write_md5), $write_before, 'the write target changed');
is($node->safe_psql('postgres', $read_md5), $read_before, 'the read target did not');

# checkpoint => 'during': refusals first, nothing recorded
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10, checkpoint => 'now')});
is($state, '22023', "a checkpoint other than 'during': 22023");
($state, $err) = refused($run . q{checkpoint => 'during')});
is($state, '22023', 'checkpoint without writers: 22023');
like($err, qr/HINT:  Give writers and write_rate_iops as well\./, 'with a hint');
$node->safe_psql('postgres', 'GRANT SELECT, UPDATE ON ranread_write_target TO reader');
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10, checkpoint => 'during')}, as => [ '-U', 'reader' ]);
is($state, '42501', 'a role that may write but not CHECKPOINT: 42501');
like($err, qr/DETAIL:  Only roles with privileges of the "pg_checkpoint" role may run with checkpoint => 'during', as only they may execute CHECKPOINT\./,
	'saying which role it needs');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'no refused run recorded a batch');

# a run with its checkpoint: asked for a third into the counted reads (after
# the ramp: during the ramp the seconds since counting began are negative,
# and they once wrapped to 1.8e10, asking at the first look), really made
# (pg_control's redo moves), its window and both sides of it recorded
my $redo = $node->safe_psql('postgres', 'SELECT redo_lsn FROM pg_control_checkpoint()');
my $shown = shown($node, q{SELECT status FROM ranread_run(2, NULL, duration => '6 s', ramp => '1 s', rate_iops => 200,
	writers => 1, write_rate_iops => 100, checkpoint => 'during')});
like($shown, qr/^completed$/m, 'a run with checkpoint => \'during\' completes');
my $side = qr/[\d.]+ ms \(95 % band (?:[\d.]+ to [\d.]+ ms, [\d,]+ reads|[\d.]+ ms and up: [\d,]+ reads are too few to bound it above)\)/;
like($shown, qr/NOTICE:  batch \d+: checkpoint asked for at \d+\.\d\d s, after [\d,]+ writes; (?:it began by [\d.]+ s and was recorded by [\d.]+ s|it began by [\d.]+ s and was still running when the reads ended|it had not begun when the reads ended)\nDETAIL:  Read p99 in its window: (?:$side|none \(no reads\)); outside it: $side\./,
	'its NOTICE says when the checkpoint was asked for and ran, and the read p99 inside and outside it');
is($node->safe_psql('postgres', "SELECT redo_lsn > '$redo' FROM pg_control_checkpoint()"), 't', 'a checkpoint was made');
is($node->safe_psql('postgres', q{
	SELECT checkpoint_requested_s >= 5 / 3.0 AND checkpoint_requested_s < 5,
		   coalesce(checkpoint_began_s >= checkpoint_requested_s, true),
		   coalesce(checkpoint_ended_s >= checkpoint_began_s, checkpoint_ended_s IS NULL),
		   writes_before_checkpoint > 0,
		   reads_inside + reads_outside = b.reads,
		   reads_inside = 0 OR (coalesce(p99_inside_low_ms <= p99_inside_ms, true)
								AND coalesce(p99_inside_ms <= p99_inside_high_ms, true)),
		   p99_outside_low_ms <= p99_outside_ms AND coalesce(p99_outside_ms <= p99_outside_high_ms, true)
	FROM ranread_db_activity a JOIN ranread_batches b USING (batch)
	WHERE batch = (SELECT max(batch) FROM ranread_batches)}), 't|t|t|t|t|t|t',
	'asked for a third into the 5 s counted, after writes; its window in order; every read on one side of it; each p99 within its band (open above when the reads are few)');
like($node->safe_psql('postgres', 'SELECT ranread_chart_intervals()'),
	qr/<rect id="checkpoint" x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="#bab0ac"/,
	'ranread_chart_intervals shades its window');
unlike($node->safe_psql('postgres', q{SELECT ranread_chart_intervals((SELECT min(batch) FROM ranread_db_activity))}),
	qr/id="checkpoint"/, 'and no window for a batch without one');
is($node->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE checkpoint_requested_s IS NULL AND reads_inside IS NULL),
	count(*) FROM ranread_db_activity}), '1|2', 'a run without checkpoint => \'during\' leaves its columns NULL');

# A cancelled run: the writers record how it ended, the write target stays whole
my ($h, $out, $errref) = start_psql($node, q{SELECT * FROM ranread_run(1, NULL, duration => '60 s', rate_iops => 20,
	writers => 1, write_rate_iops => 20)});
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%writer 1 of 1 writing'}), 'the writer writes');
sleep 1;
interrupt_run($node, $h, 'cancelled', 'SELECT * FROM ranread_run(1, NULL');
ok(wait_until($node, q{SELECT count(*) = 4 FROM ranread_write_results}), 'the writer recorded its row');
is($node->safe_psql('postgres', q{SELECT status FROM ranread_write_results WHERE batch = (SELECT max(batch) FROM ranread_write_results)}),
	'cancelled', 'as cancelled');
is($node->safe_psql('postgres', q{SELECT count(*) || ' ' || min(length(filler)) || ' ' || max(length(filler))
	FROM ranread_write_target}), '256 480 480', 'every row of the write target is whole');

# A write target changed after setup is refused: a trigger, an index or an
# inheritance child would run code (or write elsewhere) as the role whose
# writers update it, which need not be its owner
$write_before = $node->safe_psql('postgres', $write_md5);
$batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
$node->safe_psql('postgres', q{CREATE TABLE public.trap_log (who name);
	CREATE FUNCTION public.trap() RETURNS trigger LANGUAGE plpgsql AS
		$$BEGIN INSERT INTO public.trap_log VALUES (current_user); RETURN NEW; END$$;});
for my $change ([ 'CREATE TRIGGER trap BEFORE UPDATE ON ranread_write_target FOR EACH ROW EXECUTE FUNCTION public.trap()',
		'DROP TRIGGER trap ON ranread_write_target', 'a trigger' ],
	[ 'CREATE INDEX trap_index ON ranread_write_target (md5(filler))', 'DROP INDEX trap_index',
		'other indexes than its primary key' ],
	[ 'CREATE TABLE public.trap_child () INHERITS (ranread_write_target)', 'DROP TABLE public.trap_child',
		'an inheritance child or parent' ])
{
	my ($make, $undo, $what) = @$change;
	$node->safe_psql('postgres', $make);
	($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10)});
	is($state, '55000', "a write target with $what: 55000");
	like($err, qr/ERROR:  55000: ranread write target "ranread_write_target" has \Q$what\E\nDETAIL:  Writers update only a write target as ranread_setup_writes\(\) made it/,
		'naming what changed');
	$node->safe_psql('postgres', $undo);
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM public.trap_log'), '0', 'no trigger ran');
is($node->safe_psql('postgres', $write_md5), $write_before, 'nothing was written');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'and no batch recorded');

# ... and cannot be changed while writers run: the run holds a lock that
# CREATE TRIGGER waits for
($h, $out, $errref) = start_psql($node, q{SELECT * FROM ranread_run(1, NULL, duration => '60 s', rate_iops => 20,
	writers => 1, write_rate_iops => 20)});
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%writer 1 of 1 writing'}), 'a run with a writer writes');
($state, $err) = refused(q{SET lock_timeout = '300ms';
	CREATE TRIGGER trap BEFORE UPDATE ON ranread_write_target FOR EACH ROW EXECUTE FUNCTION public.trap()});
is($state, '55P03', 'CREATE TRIGGER on the write target meanwhile waits for the run (here: lock timeout)');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '2', 'the run is stopped');
$h->finish;

# privileges: SELECT alone is not enough, refused before anything runs
$node->safe_psql('postgres', q{CREATE ROLE peeker LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_run TO peeker;
	GRANT SELECT ON ranread_summary, ranread_targets, ranread_target, ranread_write_target TO peeker;
	GRANT USAGE ON SEQUENCE ranread_batch_seq TO peeker;
	GRANT SELECT ON ranread_results, ranread_batches, ranread_intervals, ranread_write_results, ranread_db_activity TO peeker;});
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10)}, as => [ '-U', 'peeker' ]);
is($state, '42501', 'SELECT without UPDATE on the write target: 42501');
# more writes a row than its page has room for: 2,000 writes to 256 rows
($state, $err) = refused(q{SELECT * FROM ranread_run(1, NULL, duration => '2 s', rate_iops => 20, writers => 1, write_rate_iops => 1000)});
is($state, '22023', 'more than 7 writes a row of the write target: 22023');
like($err, qr/ERROR:  22023: 2000 writes to the 256 rows of ranread write target "ranread_write_target" are 7\.8 a row, more than 7/,
	'saying how many a row');
# a rate too low for one write a writer in the run, and a read-only transaction
($state, $err) = refused($run . q{writers => 2, write_rate_iops => 1)});
is($state, '22023', 'fewer writes than writers in the run: 22023');
($state, $err) = refused('BEGIN READ ONLY; ' . $run . q{writers => 1, write_rate_iops => 10)});
is($state, '25006', 'writers from a read-only transaction: 25006');

# a writer waiting for a row another session holds honours its lock_timeout
# (10 s): the write is cancelled, the writer recorded as failed, the run ends
my ($lh) = start_psql($node, 'BEGIN; SELECT id FROM ranread_write_target FOR UPDATE; SELECT pg_sleep(60);');
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'}),
	'another session holds every row of the write target');
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10)});
is($node->safe_psql('postgres', q{SELECT status, error ~ 'lock timeout' FROM ranread_write_results ORDER BY batch DESC LIMIT 1}),
	'failed|t', 'the blocked writer ended at its lock timeout, recorded as failed with the reason');
like($err, qr/WARNING:  01000: ranread writer 1 of batch \d+ failed after 0 writes: canceling statement due to lock timeout\n.*DETAIL:  The reads after it ran beside fewer writes than asked/,
	'and the run says so in a WARNING');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'});
$lh->kill_kill;

# a writer held back (here by a row lock another session holds for 3 s of a
# 1 s run, then releases) commits its write late and completes, but did not
# keep its rate, and the run says so
($lh) = start_psql($node, 'BEGIN; SELECT id FROM ranread_write_target FOR UPDATE; SELECT pg_sleep(3); COMMIT;');
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'}),
	'another session holds every row of the write target for 3 s');
my $late = shown($node, $run . q{writers => 1, write_rate_iops => 10)}, verbose => 1);
$lh->finish;
is($node->safe_psql('postgres', q{SELECT status || ' ' || writes FROM ranread_write_results ORDER BY batch DESC LIMIT 1}),
	'completed 1', 'the held writer committed its one write once the lock was released, and completed');
like($late, qr/WARNING:  01000: the writers of batch \d+ did not keep their rate: 10 writes\/s asked, [0-9.]+ achieved \(\d+%\)\n.*DETAIL:  Writes fell behind their schedule/s,
	'the run says its writers did not keep their rate');
unlike(shown($node, $run . q{writers => 1, write_rate_iops => 10)}), qr/did not keep their rate/,
	'a run whose writer kept its rate says nothing of it');

# what the run could not record is said, and its figures logged: here the
# database's activity, whose row another (a superuser's) holds the number of
$node->safe_psql('postgres', q{CREATE ROLE forgetful LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_run TO forgetful;
	GRANT SELECT ON ranread_summary, ranread_targets, ranread_target TO forgetful;
	GRANT SELECT, UPDATE ON ranread_write_target TO forgetful;
	GRANT USAGE ON SEQUENCE ranread_batch_seq TO forgetful;
	INSERT INTO ranread_db_activity (batch) SELECT last_value + 1 FROM ranread_batch_seq;});
my $log_offset = -s $node->logfile;
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10)}, as => [ '-U', 'forgetful' ]);
like($err, qr/WARNING:  01000: the ranread_db_activity row of ranread batch \d+ was not recorded\n.*HINT:  ranread records its rows as the extension's owner: it needs INSERT on ranread's tables, and no other row may hold the batch's number\./s,
	'an activity row not recorded: a WARNING');
like(slurp_file($node->logfile, $log_offset),
	qr/LOG:  the ranread_db_activity row of ranread batch \d+ was not recorded\n.*DETAIL:  Over [\d.]+ s: \d+ bytes of WAL, \d+ full-page images, .* updates of the write target, \d+ of them HOT\./,
	'and its figures in the server log');

# a non-owner cannot replace a write target, and is refused before it queues
# for the lock (which would hold up every session that reads the table)
$node->safe_psql('postgres', q{GRANT EXECUTE ON FUNCTION ranread_setup_writes TO forgetful});
my ($lockh) = start_psql($node, 'BEGIN; LOCK ranread_write_target IN ACCESS SHARE MODE; SELECT pg_sleep(60);');
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'}),
	'another session holds a lock on the write target');
($state, $err) = refused(q{SET lock_timeout = '2s'; SELECT ranread_setup_writes('2 MB')}, as => [ '-U', 'forgetful' ]);
is($state, '42501', 'setup_writes over another role\'s write target: 42501 at once, not a lock timeout');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'});
$lockh->kill_kill;
# and a write target larger than its file system has room for: refused before a row is written
($state, $err) = refused(q{SELECT ranread_setup_writes('15 TB', target => 'huge')});
is($state, '53100', 'a write target larger than the free space: 53100');
like($err, qr/DETAIL:  Its rows need up to \d+ MB beside ".*", which has \d+ MB free, and their WAL up to \d+ MB in ".*pg_wal", which has \d+ MB free/,
	'naming both file systems');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'huge'}), '0', 'and leaves nothing behind');

# every update of a run is counted, and one that left its row's page is said:
# another session's snapshot keeps alive 14 more versions of every row of a
# small write target, all its pages hold (RANREAD_WRITE_HOT_VERSIONS), so that
# the run's first update of a row has no room on its page
$node->safe_psql('postgres', q{SELECT ranread_setup_writes('1 MB', target => 'crowded')});
my ($crowd) = start_psql($node, 'BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM crowded; SELECT pg_sleep(60);');
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'}),
	'another session holds a snapshot');
$node->safe_psql('postgres', 'UPDATE crowded SET filler = filler') for 1 .. 14;
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 20, write_target => 'crowded')});
my ($updates, $hot) = split /\|/, $node->safe_psql('postgres', q{SELECT updates, hot_updates FROM ranread_db_activity
	WHERE batch = (SELECT max(batch) FROM ranread_write_results)});
is($updates, $node->safe_psql('postgres', q{SELECT writes FROM ranread_write_summary ORDER BY batch DESC LIMIT 1}),
	'ranread_db_activity counts the write target\'s updates: one a write');
cmp_ok($hot, '<', $updates, 'and fewer HOT ones, with no room on the pages');
like($err, qr/WARNING:  01000: (\d+) of the $updates updates of ranread write target "crowded" during batch \d+ left their row's page/,
	'the run warns that its updates left their pages');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'});
$crowd->kill_kill;
is($node->safe_psql('postgres', q{SELECT updates || ' ' || hot_updates FROM ranread_db_activity
	WHERE batch = (SELECT min(batch) FROM ranread_db_activity WHERE updates > 0)}) =~ /^(\d+) \1$/ ? 1 : 0, 1,
	'the first run with writes, on a fresh write target: every update HOT');

# ranread_stop() stops the writers with the readers
($h, $out, $errref) = start_psql($node, q{SELECT * FROM ranread_run(1, NULL, duration => '60 s', rate_iops => 20,
	writers => 1, write_rate_iops => 20)});
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%writer 1 of 1 writing'}), 'the writer of a new run writes');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '2', 'ranread_stop() signals its reader and its writer');
$h->finish;
is($node->safe_psql('postgres', q{SELECT b.status || ' ' || w.status FROM ranread_batches b JOIN ranread_write_results w USING (batch)
	WHERE batch = (SELECT max(batch) FROM ranread_write_results)}), 'stopped stopped', 'the batch and its writer are recorded as stopped');

# A run with writers is refused while a program of batches (here an open-loop
# sweep) holds the run lock, during a step or between two, and writes nothing
my $write_rows = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_write_results');
$write_before = $node->safe_psql('postgres', $write_md5);
($h, $out, $errref) = start_psql($node, q{CALL ranread_sweep(start_processes => 1, duration => '3 s', rate_iops => 20,
	rate_step_iops => 20, max_rate_iops => 200, min_scaling_pct => 0,
	stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000)});
ok(wait_until($node, q{SELECT count(*) = 1 FROM ranread_running() WHERE worker IS NULL AND sweep IS NOT NULL AND reads > 0}),
	'a sweep runs');
($state, $err) = refused($run . q{writers => 1, write_rate_iops => 10)});
is($state, '55P03', 'a run with writers meanwhile: 55P03');
like($err, qr/ranread (?:sweep|batch) \d+ is already running/, 'naming the sweep or its running step');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() signals the sweep\'s session');
$h->finish;
like($$out . $$errref, qr/NOTICE:  (?:00000: )?sweep \d+ stopped after \d+ steps?/, 'which stops the sweep');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_write_results'), $write_rows, 'the refused run recorded no writer');
is($node->safe_psql('postgres', $write_md5), $write_before, 'and wrote nothing');

$node->stop;
done_testing();
