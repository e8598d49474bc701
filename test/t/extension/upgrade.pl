# ALTER EXTENSION ranread UPDATE from 1.0, through 1.1, reaches exactly the objects a new
# install of the current version has, adopts the targets 1.0 made, and
# adopts nothing else.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('upgrade');
my $version = $node->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'ranread'");
$node->safe_psql('postgres', q{
	CREATE DATABASE old;
	CREATE TABLE payroll (salary int);
});

# The extension as 1.0 left it: a target made the 1.0 way (no columns,
# autovacuum off, not a member), and a forged row naming an ordinary table.
$node->safe_psql('old', q{
	CREATE EXTENSION ranread VERSION '1.0';
	CREATE UNLOGGED TABLE old_target () WITH (autovacuum_enabled = false);
	INSERT INTO ranread_targets VALUES ('old_target', 'old_target'::regclass, 8388608, 1024, 'pg_default');
	CREATE TABLE payroll (salary int);
	INSERT INTO ranread_targets VALUES ('payroll', 'payroll'::regclass, 8192, 1, 'pg_default');
});
# History as 1.0 recorded it: two batches of two workers, 50 reads each.
$node->safe_psql('old', q{
	INSERT INTO ranread_results (batch, worker, run_date, run_time, started_at, target, mode, block_size,
								 processes, iterations, evicted, reads, elapsed_s, iops, bytes_physical,
								 status, histogram)
	SELECT b, w, current_date, '10:00:00', now(), 'old_target', 'smgr', 8192, 2, 50, true, 50, 0.1, 500,
		   409600, 'completed', CASE w WHEN 1 THEN '{0,0,50}'::bigint[] ELSE '{0,0,0,50}' END
	FROM generate_series(1, 2) b, generate_series(1, 2) w;
	INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes,
								 iterations, evicted, reads, wall_s, iops, mb_per_s, status)
	SELECT b, current_date, '10:00:00', now(), 'old_target', 'smgr', 8192, 2, 50, true, 100, 0.1, 1000, 7.8,
		   'completed'
	FROM generate_series(1, 2) b;
	SELECT setval('ranread_batch_seq', 2);
});
my ($r, $o, $e) = $node->psql('old', "SELECT ranread_run(1, 10, 'old_target')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($e, qr/55000: ranread's SQL objects are version 1.0, but its library is version $version.*\n.*HINT:  Run ALTER EXTENSION ranread UPDATE/,
	'the new library refuses to run against 1.0\'s tables, which lack its columns');
my $history = q{SELECT (SELECT count(*) FROM ranread_results) || ' ' || (SELECT count(*) FROM ranread_batches)
	|| ' ' || (SELECT sum(reads) FROM ranread_batches) || ' ' || (SELECT string_agg(status, ',') FROM ranread_summary)};
my $before = $node->safe_psql('old', $history);
is($before, '4 2 200 completed,completed', 'two batches recorded under 1.0');
# 1.0 -> 1.1, then 1.1's own history (a sweep of one step), then -> the current version.
$node->safe_psql('old', "ALTER EXTENSION ranread UPDATE TO '1.1'");
is($node->safe_psql('old', $history), $before, 'the history is intact after the update to 1.1');
$node->safe_psql('old', q{
	INSERT INTO ranread_sweep_runs (sweep, started_at, ended_at, leader_pid, target, mode, block_size,
									iterations, start_processes, max_processes, max_processes_by,
									stop_latency_ms, min_scaling_pct, slo_mean_ms, slo_p99_ms, status, stop_rule)
	VALUES (1, now(), now(), 1, 'old_target', 'smgr', 8192, 50, 2, 2, 'argument', 10, 25, 2, 5,
			'completed', 'max processes');
	UPDATE ranread_batches SET sweep = 1, sweep_step = 1, iodepth = 1 WHERE batch = 2;
	SELECT setval('ranread_sweep_seq', 1);
});
my $sweeps = q{SELECT string_agg(sweep || ' ' || status || ' ' || steps, ',') FROM ranread_sweeps};
is($node->safe_psql('old', $sweeps), '1 completed 1', 'a sweep recorded under 1.1');
# 1.2 recreates ranread_run and ranread_sweep with a new last argument each; a
# role granted EXECUTE on the old signature keeps it on the new one.
$node->safe_psql('old', q{CREATE ROLE upgrade_bench LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_run TO upgrade_bench;
	GRANT EXECUTE ON PROCEDURE ranread_sweep TO upgrade_bench;});
$node->safe_psql('old', "ALTER EXTENSION ranread UPDATE TO '1.2'");
# 1.3 replaces ranread_fleet_waiting by three functions, and ranread_fleet_sweep,
# ranread_calibrate, ranread_layers and ranread_run (granted above) by ones
# with other arguments; a role that could call the old may call the new
$node->safe_psql('old', 'GRANT EXECUTE ON FUNCTION ranread_fleet_waiting TO upgrade_bench');
$node->safe_psql('old', 'GRANT EXECUTE ON PROCEDURE ranread_fleet_sweep TO upgrade_bench');
$node->safe_psql('old', 'GRANT EXECUTE ON FUNCTION ranread_calibrate TO upgrade_bench');
$node->safe_psql('old', 'GRANT EXECUTE ON FUNCTION ranread_layers TO upgrade_bench');
# and a role that could reset the history can still, with 1.3's two new tables
$node->safe_psql('old', 'GRANT DELETE ON ranread_results TO upgrade_bench');
$node->safe_psql('old', "ALTER EXTENSION ranread UPDATE TO '1.3'");
is($node->safe_psql('old', q{SELECT string_agg(has_table_privilege('upgrade_bench', t, 'DELETE') || ' '
	|| has_table_privilege('upgrade_bench', t, 'INSERT') || ' ' || has_table_privilege('public', t, 'DELETE'), ',')
	FROM unnest(ARRAY['ranread_write_results', 'ranread_db_activity']::regclass[]) t}),
	'true false false,true false false', 'the update grants DELETE on the new tables to the roles that had it on ranread_results (for ranread_reset), and nothing more');
$node->safe_psql('old', 'REVOKE DELETE ON ranread_results, ranread_write_results, ranread_db_activity FROM upgrade_bench');
is($node->safe_psql('old', q{SELECT string_agg(has_function_privilege('upgrade_bench', f, 'EXECUTE') || ' '
	|| has_function_privilege('public', f, 'EXECUTE'), ',') FROM unnest(ARRAY['ranread_fleet_sweep',
	'ranread_layers']::regproc[]) f}),
	'true false,true false', 'the update grants the new ranread_fleet_sweep and ranread_layers to the roles that had the old ones, not to PUBLIC');
$node->safe_psql('old', 'REVOKE EXECUTE ON PROCEDURE ranread_fleet_sweep FROM upgrade_bench');
$node->safe_psql('old', 'REVOKE EXECUTE ON FUNCTION ranread_layers FROM upgrade_bench');
is($node->safe_psql('old', q{SELECT has_function_privilege('upgrade_bench', f, 'EXECUTE') || ' ' || has_function_privilege('public', f, 'EXECUTE')
	FROM CAST('ranread_calibrate(name, bigint, int, int, float8, float8, interval, boolean)' AS regprocedure) f}),
	'true false', 'the update grants the new ranread_calibrate to the roles that had the old one, not to PUBLIC');
$node->safe_psql('old', 'REVOKE EXECUTE ON FUNCTION ranread_calibrate(name, bigint, int, int, float8, float8, interval, boolean) FROM upgrade_bench');
is($node->safe_psql('old', q{SELECT string_agg(has_function_privilege('upgrade_bench', f, 'EXECUTE') || ' '
	|| has_function_privilege('public', f, 'EXECUTE'), ',') FROM unnest(ARRAY['ranread_fleet_connect',
	'ranread_fleet_check', 'ranread_fleet_wait']::regproc[]) f}),
	'true false,true false,true false', "the update grants the fleet's new functions to the roles that had the one they replace, not to PUBLIC");
$node->safe_psql('old', 'REVOKE EXECUTE ON FUNCTION ranread_fleet_connect, ranread_fleet_check, ranread_fleet_wait FROM upgrade_bench');
is($node->safe_psql('old', q{SELECT has_function_privilege('upgrade_bench', 'ranread_run'::regproc, 'EXECUTE')
	|| ' ' || has_function_privilege('public', 'ranread_run'::regproc, 'EXECUTE')}),
	'true false', 'the update grants EXECUTE on the new ranread_run to the roles that had it on the old one, not to PUBLIC');
is($node->safe_psql('old', q{SELECT has_function_privilege('upgrade_bench', 'ranread_sweep'::regproc, 'EXECUTE')
	|| ' ' || has_function_privilege('public', 'ranread_sweep'::regproc, 'EXECUTE')}),
	'true false', 'and EXECUTE on the new ranread_sweep likewise');
$node->safe_psql('old', 'REVOKE EXECUTE ON FUNCTION ranread_run FROM upgrade_bench');
$node->safe_psql('old', 'REVOKE EXECUTE ON PROCEDURE ranread_sweep FROM upgrade_bench');
# 1.4: only ranread writes the history.  A role 1.3's GRANT block gave INSERT,
# UPDATE and DELETE on it keeps SELECT, loses the writes, and may call the two
# functions the fleet run and the write sweep record their rows with.
$node->safe_psql('old', q{GRANT SELECT, INSERT, DELETE ON ranread_results, ranread_batches, ranread_intervals TO upgrade_bench;
	GRANT SELECT, INSERT, UPDATE, DELETE ON ranread_fleet_runs, ranread_write_sweeps TO upgrade_bench;
	GRANT SELECT, INSERT ON ranread_db_activity TO upgrade_bench;
	GRANT EXECUTE ON FUNCTION ranread_fleet_run TO upgrade_bench;
	GRANT EXECUTE ON PROCEDURE ranread_write_sweep TO upgrade_bench;
	CREATE ROLE upgrade_reader LOGIN;
	GRANT SELECT ON ranread_results, ranread_batches TO upgrade_reader;
	GRANT DELETE ON ranread_sweep_runs TO PUBLIC;
	GRANT EXECUTE ON FUNCTION ranread_run TO upgrade_reader;
	GRANT SELECT ON ranread_progress TO upgrade_reader WITH GRANT OPTION;
	GRANT EXECUTE ON FUNCTION ranread_layers TO upgrade_reader;});
my ($ret, $out, $err) = $node->psql('old', 'SET client_min_messages = notice; ALTER EXTENSION ranread UPDATE');
is($ret, 0, 'the update to 1.4') or diag($err);
like($err, qr/WARNING:  ranread 1.4: PUBLIC no longer holds INSERT, UPDATE or DELETE on ranread's history, which only ranread writes\n.*WARNING:  ranread 1.4: upgrade_bench no longer holds/s,
	'says which roles lose which grants');
my $history_tables = q{ARRAY['ranread_results', 'ranread_batches', 'ranread_intervals', 'ranread_sweep_runs', 'ranread_fleet_runs',
	'ranread_fleet_servers', 'ranread_write_results', 'ranread_db_activity', 'ranread_write_sweeps',
	'ranread_write_sweep_steps']::regclass[]};
is($node->safe_psql('old', qq{SELECT count(*) FROM unnest($history_tables) t, unnest(ARRAY['upgrade_bench', 'upgrade_reader', 'public']) r,
	unnest(ARRAY['INSERT', 'UPDATE', 'DELETE']) p WHERE has_table_privilege(r, t, p)}), '0',
	'no role but the owner may write a history table after the update to 1.4');
is($node->safe_psql('old', q{SELECT string_agg(has_table_privilege(r, 'ranread_batches', 'SELECT')::text, ' ' ORDER BY r)
	FROM unnest(ARRAY['upgrade_bench', 'upgrade_reader']) r}), 'true true', 'SELECT is kept');
is($node->safe_psql('old', q{SELECT string_agg(has_function_privilege(r, f, 'EXECUTE')::text, ' ' ORDER BY r, f)
	FROM unnest(ARRAY['upgrade_bench', 'upgrade_reader', 'public']) r,
	unnest(ARRAY['ranread_history_insert(text, jsonb)', 'ranread_history_update(text, jsonb, jsonb)']::regprocedure[]) f}),
	'false false true true false false', 'the role that recorded fleets and write sweeps may call the functions that record them now, no other');
# 1.4 splits the fleet run and the write sweep into phases, which they call as
# their caller: granted to the roles that may run them, not to PUBLIC
is($node->safe_psql('old', q{SELECT string_agg(has_function_privilege(r, f, 'EXECUTE')::text, ' ' ORDER BY r, f)
	FROM unnest(ARRAY['upgrade_bench', 'upgrade_reader', 'public']) r,
	unnest(ARRAY['ranread_fleet_open', 'ranread_fleet_gather', 'ranread_write_sweep_check', 'ranread_write_sweep_pool']::regproc[]) f}),
	'false false false false true true true true false false false false',
	'the phases of the fleet run and the write sweep are granted to the role that may run them, no other');
is($node->safe_psql('old', q{SELECT count(*) FILTER (WHERE run_by IS NULL) || ' of ' || count(*) FROM ranread_batches}), '2 of 2',
	'the rows of older versions name no role');
# and ranread_run answers in one line: made again, granted to the roles that could run it
is($node->safe_psql('old', q{SELECT array_to_string(proargnames[pronargs + 1:], ',') FROM pg_proc WHERE oid = 'ranread_run'::regproc}),
	'batch,status,iops,response_time_ms,p99_ms',
	'1.4\'s ranread_run returns batch, status, iops, response_time_ms and p99_ms');
is($node->safe_psql('old', q{SELECT has_table_privilege('upgrade_reader', 'ranread_progress', 'SELECT WITH GRANT OPTION')
	|| ' ' || has_function_privilege('upgrade_reader', 'ranread_layers'::regproc, 'EXECUTE')
	|| ' ' || has_table_privilege('public', 'ranread_progress', 'SELECT')}),
	'true true false', 'the view and the function made again keep their grants, a grant option too, and PUBLIC gains none');
$node->safe_psql('old', 'REVOKE SELECT ON ranread_progress FROM upgrade_reader CASCADE; REVOKE EXECUTE ON FUNCTION ranread_layers FROM upgrade_reader');
is($node->safe_psql('old', q{SELECT has_function_privilege('upgrade_reader', 'ranread_run'::regproc, 'EXECUTE')
	|| ' ' || has_function_privilege('public', 'ranread_run'::regproc, 'EXECUTE')}),
	'true false', 'the update grants the new ranread_run to the roles that had the old one, not to PUBLIC');
$node->safe_psql('old', 'REVOKE EXECUTE ON FUNCTION ranread_run FROM upgrade_reader');
$node->safe_psql('old', 'REVOKE ALL ON ranread_results, ranread_batches, ranread_intervals, ranread_fleet_runs, ranread_write_sweeps,
	ranread_db_activity FROM upgrade_bench, upgrade_reader;
	REVOKE EXECUTE ON FUNCTION ranread_history_insert, ranread_history_update FROM upgrade_bench;
	REVOKE EXECUTE ON FUNCTION ranread_fleet_run, ranread_fleet_open, ranread_fleet_gather, ranread_write_sweep_check,
		ranread_write_sweep_pool FROM upgrade_bench;
	REVOKE EXECUTE ON PROCEDURE ranread_write_sweep FROM upgrade_bench');
is($node->safe_psql('old', $history), $before, 'the history is intact after the update');
is($node->safe_psql('old', $sweeps), '1 completed 1', "1.1's sweep is intact after the update");
is($node->safe_psql('old', 'SELECT string_agg(histogram::text, \' \' ORDER BY batch) FROM ranread_batches'),
	'{0,0,50,50} {0,0,50,50}', "1.0's batches get their merged histograms from their worker rows");
$node->safe_psql('old', "SELECT ranread_setup('8 MB', target => 'run_target', log_level => 0)");
is($node->safe_psql('old', "SELECT status || ' ' || batch FROM ranread_run(1, 10, 'run_target')"), 'completed 3',
	'a run after the update records the next batch');
is($node->safe_psql('old', "SELECT extversion FROM pg_extension WHERE extname = 'ranread'"), $version,
	"1.0 updates to $version");

# Everything that describes the extension's objects, comparable across databases.
my $describe = q{
	SELECT pg_describe_object(classid, objid, objsubid) FROM pg_depend
	 WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread') AND deptype = 'e'
	UNION ALL
	SELECT format('%s.%s %s %s %s %s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
				  a.attnotnull, pg_get_expr(d.adbin, d.adrelid),
				  (SELECT count(*) FROM pg_attribute b WHERE b.attrelid = c.oid AND b.attnum > 0
					  AND NOT b.attisdropped AND b.attnum < a.attnum))
	  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
	 WHERE c.relname LIKE 'ranread%'
	UNION ALL
	SELECT format('comment on %s: %s', pg_describe_object(classoid, objoid, objsubid), description)
	  FROM pg_description
	 WHERE (classoid = 'pg_class'::regclass AND objoid IN (SELECT oid FROM pg_class WHERE relname LIKE 'ranread%'))
		OR (classoid = 'pg_proc'::regclass AND objoid IN (SELECT oid FROM pg_proc WHERE proname LIKE 'ranread%'))
	UNION ALL
	SELECT format('%s %s %s %s %s %s', p.oid::regprocedure, p.proconfig, p.provolatile, coalesce(p.proacl, acldefault('f', p.proowner)),
				  pg_get_function_result(p.oid), md5(p.prosrc))
	  FROM pg_proc p WHERE p.proname LIKE 'ranread%'
	UNION ALL
	SELECT format('%s %s %s %s', a.aggfnoid::regprocedure, a.aggtransfn, a.aggfinalfn, a.agginitval)
	  FROM pg_aggregate a WHERE a.aggfnoid::regproc::text LIKE 'ranread%'
	UNION ALL
	SELECT format('%s %s %s', c.relname, coalesce(c.relacl, acldefault('r', c.relowner)), pg_get_viewdef(c.oid))
	  FROM pg_class c WHERE c.relname LIKE 'ranread%' AND c.relkind = 'v'
	UNION ALL
	SELECT format('%s %s', c.relname, array_agg(x.conname ORDER BY x.conname))
	  FROM pg_class c JOIN pg_constraint x ON x.conrelid = c.oid WHERE c.relname LIKE 'ranread%'
	 GROUP BY c.relname
	ORDER BY 1};
my $fresh = $node->safe_psql('postgres', $describe);
my $updated = $node->safe_psql('old', $describe . '');
# the targets are members as well (since 17 with their row types and those types' arrays)
$updated =~ s/^(?:table|type) (?:old_target|run_target)(?:\[\])?\n//mg;
is($updated, $fresh, 'the updated extension has the objects, columns, functions (their bodies too) and view of a new install');

# so do the updates from each earlier version's own install script: every
# column in the same place, every comment the same
foreach my $from ('1.2', '1.3')
{
	my $db = 'from_' . ($from =~ tr/./_/r);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, "CREATE EXTENSION ranread VERSION '$from'; ALTER EXTENSION ranread UPDATE");
	is($node->safe_psql($db, $describe), $fresh, "$from updated to $version has the objects, in the same order, of a new install");
}

is($node->safe_psql('old', q{
	SELECT string_agg(pg_describe_object(classid, objid, objsubid), ', ') FROM pg_depend
	 WHERE refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread') AND deptype = 'e'
	   AND classid = 'pg_class'::regclass AND objid::regclass::text IN ('old_target', 'payroll')}),
	'table old_target', 'the 1.0 target is adopted; the table a forged row names is not');
is($node->safe_psql('old', "SELECT reloptions FROM pg_class WHERE relname = 'old_target'"),
	'{autovacuum_enabled=false,vacuum_truncate=false}', 'VACUUM no longer truncates the 1.0 target');
($ret, $out, $err) = $node->psql('old', "SELECT ranread_drop('payroll')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/42809: relation "payroll" is not a ranread target/, 'ranread_drop() refuses the forged row');
is($node->safe_psql('old', "SELECT ranread_drop('old_target')"), 'dropped ranread target "old_target"',
	'ranread_drop() removes the adopted 1.0 target');
is($node->safe_psql('old', "SELECT count(*) FROM pg_class WHERE relname IN ('old_target', 'payroll')"), '1',
	'and payroll is still there');

done_testing();
