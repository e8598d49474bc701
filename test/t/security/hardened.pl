# Hardened II: each defect of the adversarial review of 1.0, reproduced as
# it was found.  Every check here failed against 1.0.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use RanreadTest;

my $node = new_node('hardened', log_min_messages => 'log');
my $base = $node->basedir;
$node->safe_psql('postgres', q{
	SELECT ranread_setup('16 MB', target => 'h_target', log_level => 0);
	SELECT ranread_setup('16 MB', target => 'h_truncated', log_level => 0);
	CREATE TABLE payroll (salary int);
	INSERT INTO payroll VALUES (100000);
	CREATE ROLE bench LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_run,
		ranread_setup, ranread_stop, ranread_drop TO bench;
	GRANT SELECT ON ranread_targets, ranread_results, ranread_batches, ranread_intervals TO bench;
	GRANT INSERT, DELETE ON ranread_targets TO bench;
	GRANT SELECT ON ranread_summary TO bench;
	GRANT USAGE ON SEQUENCE ranread_batch_seq TO bench;
	GRANT CREATE ON SCHEMA public TO bench;
});
my $log_start = -s $node->logfile;

sub verbose
{
	my ($sql, $db) = @_;
	my ($ret, $out, $err) = $node->psql($db // 'postgres', $sql,
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	return ($out, $err);
}

# End the session running a query LIKE $pattern, and its psql.
sub end_session
{
	my ($h, $pattern) = @_;
	$node->safe_psql('postgres',
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '$pattern' AND pid <> pg_backend_pid()");
	$h->finish;
}

# Wait (up to 30 s) until $sql returns 't'.

# 2. A TRUNCATE queued behind the leader's lock before buffer-mode workers
#    open the target: the workers join the leader's lock group, so they do
#    not queue behind it (1.0 deadlocked: leader waiting for the workers,
#    workers for the TRUNCATE, the TRUNCATE for the leader).
{
	# this session issues the TRUNCATE within a millisecond of the leader's lock
	my ($th, $tout, $terr) = start_psql($node, q{
		DO $$BEGIN
			WHILE NOT EXISTS (SELECT 1 FROM pg_locks WHERE relation = 'h_truncated'::regclass
							  AND pid <> pg_backend_pid()) LOOP
				PERFORM pg_sleep(0.001);
			END LOOP;
		END$$;
		TRUNCATE h_truncated;});
	ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE '%TRUNCATE h_truncated%'
		AND wait_event = 'PgSleep'}), 'a session waits to TRUNCATE the target as soon as a run locks it');
	my $t0 = time;
	my ($h, $out, $err) = start_psql($node,
		"SET statement_timeout = '60s'; SELECT status FROM ranread_run(30, NULL, 'h_truncated', mode => 'buffer', duration => '1s', allow_rereads => true)");
	$h->finish;
	$th->finish;
	like($$out, qr/completed/, 'a 30-process buffer-mode run with a TRUNCATE queued behind it completes')
	  or diag($$err);
	cmp_ok(time - $t0, '<', 20, 'within its duration plus start-up, not endlessly');
	is($$terr, '', 'then the TRUNCATE runs');
	is(worker_count($node), '0', 'no worker is left');
}

# 3. A concurrent DROP: the lookup locks, then rechecks; no XX000.
$node->safe_psql('postgres', "SELECT ranread_setup('8 MB', target => 'h_dropped', log_level => 0)");
foreach my $call ("ranread_run(1, 10, 'h_dropped')", "ranread_drop('h_dropped')",
	"ranread_setup('8 MB', target => 'h_dropped', log_level => 0)")
{
	my ($dh) = start_psql($node, "BEGIN; SELECT ranread_drop('h_dropped'); SELECT pg_sleep(2); COMMIT;");
	ok(wait_until($node, q{SELECT count(*) > 0 FROM pg_stat_activity WHERE query LIKE 'BEGIN; SELECT ranread_drop%'
		AND wait_event = 'PgSleep'}), 'another session holds the drop open');
	my ($out, $err) = verbose("SELECT $call");
	$dh->finish;
	unlike($err, qr/XX000|could not open relation/, "$call during a concurrent drop: no internal error");
	like($err . $out, qr/42P01: ranread target "h_dropped" was dropped|dropped ranread target|ranread target "h_dropped": 8 MB|42704/,
		"$call during a concurrent drop: a clear answer") or diag($err);
	$node->safe_psql('postgres', "SELECT ranread_setup('8 MB', target => 'h_dropped', log_level => 0)")
	  if $node->safe_psql('postgres', "SELECT count(*) FROM ranread_targets WHERE target = 'h_dropped'") eq '0';
}

# 4. Workers terminated while they wait for a lock to record their rows:
#    they exit at once, log what they measured, and no run overlaps them.
{
	my ($lh) = start_psql($node, 'BEGIN; LOCK ranread_results IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60);');
	ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_locks WHERE relation = 'ranread_results'::regclass
		AND mode = 'AccessExclusiveLock' AND granted}), 'another session locks ranread_results');
	my ($h, $out, $err) = start_psql($node, "SELECT status FROM ranread_run(4, 200, 'h_target')");
	ok(wait_until($node, q{SELECT count(*) = 4 FROM pg_stat_activity WHERE backend_type = 'ranread worker'
		AND query LIKE '%recording' AND wait_event_type = 'Lock'}), 'four workers wait for the lock to record');
	my ($out2, $err2) = verbose("SELECT status FROM ranread_run(1, 10, 'h_target')");
	like($err2, qr/55P03: ranread batch \d+ is already running/, 'a new run is refused meanwhile');
	my $one = $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker' ORDER BY pid LIMIT 1");
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($one)");
	ok(wait_until($node, "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $one"),
		'pg_terminate_backend() ends a worker waiting for a lock');
	$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity
		WHERE query LIKE 'SELECT status FROM ranread_run(4, 200%' AND backend_type = 'client backend'});
	my $t0 = time;
	$h->finish;
	like($$err, qr/canceling statement due to user request/, 'the leader is cancelled');
	ok(wait_until($node, "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'ranread worker'"),
		'its workers, waiting for the lock, exit with it');
	cmp_ok(time - $t0, '<', 5, 'within seconds, not when the lock is released');
	end_session($lh, 'BEGIN; LOCK ranread_results%');
	my $log = slurp_file($node->logfile, $log_start);
	like($log, qr/results of ranread worker \d of batch \d+ were not recorded: the worker was told to exit \(SIGTERM\) while recording.*\n.*DETAIL:\s+It measured 200 reads \(completed\): mean/,
		'what a terminated worker measured is in the server log');
}

# 4b. Without anyone terminating them, workers give up on a held lock after
#     lock_timeout, so the leader's wait ends.
{
	my ($lh) = start_psql($node, 'BEGIN; LOCK ranread_batches IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60);');
	ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_locks WHERE relation = 'ranread_batches'::regclass
		AND mode = 'AccessExclusiveLock' AND granted}), 'another session locks ranread_batches');
	my $t0 = time;
	my ($out, $err) = verbose("SELECT status FROM ranread_run(2, 100, 'h_target')");
	is($out, '', 'the run returns NULL: its batch row, which it would return, could not be recorded');
	like($err, qr/NOTICE:  (00000: )?Calculated IOPS = \d+/, 'its NOTICEs still say what it measured');
	like($err, qr/the summary row of ranread batch \d+ was not recorded/, 'and warns that its batch row was not recorded');
	cmp_ok(time - $t0, '<', 20, 'after the workers\' lock_timeout (10 s), not endlessly');
	end_session($lh, 'BEGIN; LOCK ranread_batches%');
}

# 4c. A run ended (its caller cancelled) just as its last worker writes the
#     batch row keeps that row: a SIGTERM while recording lets the write
#     finish, unless the write waits for a lock (4. above).  A trigger that
#     sleeps holds the write open.
{
	$node->safe_psql('postgres', q{
		CREATE FUNCTION public.slow_batch_row() RETURNS trigger LANGUAGE plpgsql AS
			$$BEGIN PERFORM pg_catalog.pg_sleep(3); RETURN NEW; END$$;
		CREATE TRIGGER slow_batch_row BEFORE INSERT ON ranread_batches
			FOR EACH ROW EXECUTE FUNCTION public.slow_batch_row();});
	my ($h, $out, $err) = start_psql($node, "SELECT status FROM ranread_run(2, 200, 'h_target')");
	ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'ranread worker'
		AND query LIKE '%recording' AND wait_event = 'PgSleep'}), 'the last worker writes the batch row');
	my $batch = $node->safe_psql('postgres', 'SELECT max(batch) FROM ranread_results');
	$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity
		WHERE query LIKE 'SELECT status FROM ranread_run(2, 200%' AND backend_type = 'client backend'});
	$h->finish;
	like($$err, qr/canceling statement due to user request/, 'its leader is cancelled meanwhile');
	ok(wait_until($node, "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'ranread worker'"),
		'the worker ends after the write');
	is($node->safe_psql('postgres', "SELECT status FROM ranread_batches WHERE batch = $batch"), 'completed',
		'and the batch row is recorded');
	$node->safe_psql('postgres', 'DROP TRIGGER slow_batch_row ON ranread_batches; DROP FUNCTION public.slow_batch_row()');
}

# 5. A forged ranread_targets row never makes ranread drop, lock or read a
#    table it did not make.
{
	my ($out, $err) = verbose(q{SET ROLE bench;
		INSERT INTO ranread_targets VALUES ('t2', 'payroll'::regclass, 0, 999, 'pg_default');
		INSERT INTO ranread_targets VALUES ('payroll', 'payroll'::regclass, 8192, 1, 'pg_default');});
	is($err, '', 'a role with the documented GRANTs can forge rows in ranread_targets');
	($out, $err) = verbose("SELECT ranread_setup('8 MB', target => 't2', log_level => 0)");
	($out, $err) = verbose("SELECT ranread_drop('t2')");
	is($out, 'dropped ranread target "t2"', 'a superuser\'s setup and drop of the forged name touch only their own target');
	($out, $err) = verbose("SELECT ranread_drop('payroll')");
	like($err, qr/42809: relation "payroll" is not a ranread target/, 'ranread_drop() refuses a table it did not make');
	($out, $err) = verbose("SELECT ranread_setup('8 MB', target => 'payroll', log_level => 0)");
	like($err, qr/42P07: relation "payroll" already exists/, 'ranread_setup() does not replace it');
	($out, $err) = verbose("SET ROLE bench; SELECT ranread_run(1, 10, 'payroll', mode => 'buffer')");
	like($err, qr/42809: relation "payroll" is not a ranread target/, 'a run does not read it');
	is($node->safe_psql('postgres', 'SELECT salary FROM payroll'), '100000', 'payroll is intact');
	($out, $err) = verbose("SET ROLE bench; SELECT ranread_run(1, 10, 'h_target', mode => 'buffer')");
	like($err, qr/42501: permission denied for table h_target/, "the benchmark role cannot read a superuser's target without SELECT");
	($out, $err) = verbose("SET ROLE bench; SELECT ranread_drop('h_target')");
	like($err, qr/42501: must be owner of table h_target/, 'nor drop it');
}

# 6. A Trojan operator in a schema earlier on the caller's search_path is
#    never run by ranread's queries.
{
	$node->safe_psql('postgres', q{
		SET ROLE bench;
		CREATE TABLE public.trojan_log (who name, what text);
		GRANT INSERT ON public.trojan_log TO PUBLIC;
		CREATE FUNCTION public.trojan_eq(name, name) RETURNS bool LANGUAGE plpgsql AS
			$$BEGIN INSERT INTO public.trojan_log VALUES (current_user, 'name ='); RETURN $1::text = $2::text; END$$;
		CREATE OPERATOR public.= (LEFTARG = name, RIGHTARG = name, FUNCTION = public.trojan_eq);
		CREATE FUNCTION public.trojan_eq_int(int, int) RETURNS bool LANGUAGE plpgsql AS
			$$BEGIN INSERT INTO public.trojan_log VALUES (current_user, 'int ='); RETURN $1 OPERATOR(pg_catalog.=) $2; END$$;
		CREATE OPERATOR public.= (LEFTARG = int, RIGHTARG = int, FUNCTION = public.trojan_eq_int);
		CREATE FUNCTION public.trojan_plus(bigint, bigint) RETURNS bigint LANGUAGE plpgsql AS
			$$BEGIN INSERT INTO public.trojan_log VALUES (current_user, 'bigint +'); RETURN 0; END$$;
		CREATE OPERATOR public.+ (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.trojan_plus);
	});
	mkdir "$base/trojan_export";
	my $sp = 'SET search_path = public, pg_catalog; ';
	for my $call ("SELECT status FROM ranread_run(1, 10, 'h_target')", "SELECT ranread_stop()",
		"SELECT ranread_setup('8 MB', target => 'trojan_t', log_level => 0)", "SELECT ranread_drop('trojan_t')",
		"SELECT ranread_drop('no_such')", "SELECT ranread_export('$base/trojan_export')", 'SELECT ranread_reset()')
	{
		verbose($sp . $call);
	}
	is($node->safe_psql('postgres', 'SELECT count(*) FROM public.trojan_log'), '0',
		'with search_path = public, pg_catalog no ranread function ran the Trojan operators');
}

# 7. A user-taken advisory lock cannot pose as a running batch.
{
	my ($ah) = start_psql($node, 'SET ROLE bench; SELECT pg_advisory_lock(1381125682, -1); SELECT pg_sleep(60);');
	ok(wait_until($node, "SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 1381125682 AND granted"),
		'a role with no grant holds the advisory lock ranread 1.0 took for its batches');
	my $t0 = time;
	is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '0', 'ranread_stop() finds nothing to stop');
	cmp_ok(time - $t0, '<', 1, 'and returns at once');
	is($node->safe_psql('postgres', "SELECT status FROM ranread_run(1, 10, 'h_target')"), 'completed',
		'a new run is not told a batch is already running');
	end_session($ah, 'SET ROLE bench; SELECT pg_advisory_lock%');
}

# 8. Export: no symbolic link followed, no file overwritten, a unique name.
{
	my $dir = "$base/export";
	mkdir $dir;
	my $victim = "$base/victim";
	open(my $fh, '>', $victim) or die;
	print $fh "precious\n";
	close $fh;
	chmod 0600, $victim;
	# plant a link under the name of this minute and the next
	my @stamps = map { $node->safe_psql('postgres', "SELECT to_char(now() + interval '$_ minute', 'YYYYMMDD-HH24MI')") } (0, 1);
	symlink($victim, "$dir/ranread_$_.tsv") for @stamps;
	my $first = $node->safe_psql('postgres', "SELECT ranread_export('$dir')");
	my $second = $node->safe_psql('postgres', "SELECT ranread_export('$dir')");
	is(slurp_file($victim), "precious\n", 'a planted symbolic link is not written through');
	like($first, qr{/ranread_\d{8}-\d{4}-2\.tsv$}, "the export takes the next free name ($first)");
	isnt($second, $first, 'a second export in the same minute gets its own file');
	ok(-s $first && -s $second, 'both files are there');
	is(sprintf('%04o', (stat $first)[2] & 07777), '0644', 'the file has the mode COPY TO gives (0644)');
	like(slurp_file($first), qr/^run_date\trun_time\ttarget/, 'and holds the export');
}

# 9. The extension dropped and created in another schema, in one session.
{
	$node->safe_psql('postgres', 'CREATE DATABASE moved');
	my ($out, $err) = verbose(q{
		CREATE EXTENSION ranread;
		SELECT ranread_reset();
		DROP EXTENSION ranread;
		CREATE SCHEMA s2;
		CREATE EXTENSION ranread SCHEMA s2;
		SELECT s2.ranread_reset();}, 'moved');
	is($err, '', 'the session finds the extension in its new schema');
	is($out, "0\n0", 'ranread_reset() works in both');
}

# 10. The batch's row deleted as the run ends (as a ranread_reset() at that moment does):
# the run says so instead of returning NULL silently.
{
	$node->safe_psql('postgres', q{
		CREATE FUNCTION gone() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN DELETE FROM public.ranread_batches WHERE batch = NEW.batch; RETURN NULL; END $$;
		CREATE TRIGGER gone AFTER INSERT ON ranread_batches FOR EACH ROW EXECUTE FUNCTION gone()});
	my ($out, $err) = verbose(q{SELECT ranread_run(1, 50, 'h_target') IS NULL});
	is($out, 't', 'a run whose row is deleted as it ends returns NULL');
	like($err, qr/WARNING:  01000: the row of ranread batch \d+ was recorded but is no longer there\n.*DETAIL:  ranread_reset\(\) or a DELETE removed it while the run was ending\.\n.*HINT:  Reset the history when no run is running\./,
		'after a WARNING that says why');
	$node->safe_psql('postgres', 'DROP TRIGGER gone ON ranread_batches; DROP FUNCTION gone()');
}

is(worker_count($node), '0', 'no worker is left');
ok(log_is_clean($node, $log_start), 'no PANIC, crash, assertion or internal error in the server log');
done_testing();
