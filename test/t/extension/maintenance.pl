# Routine maintenance on a target: VACUUM (plain, FREEZE, database-wide),
# anti-wraparound autovacuum, ANALYZE, VACUUM FULL, CLUSTER, TRUNCATE,
# DROP TABLE and pg_dump.  None may silently empty a target or make its pages
# compressible; what empties it on purpose is detected by the next run.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

# Anti-wraparound autovacuum runs even with autovacuum_enabled = false once a
# table's relfrozenxid is older than autovacuum_freeze_max_age (100000 at least).
my $node = new_node('maintenance',
	autovacuum_freeze_max_age => 100000,
	autovacuum_naptime => '1s');
my $size = 16 * 1024 * 1024;

# Size, rows, the digest of a page's random bytes (past the tuple header)
# and whether a run reads it: the target's state.
sub target_state
{
	my ($t) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT pg_relation_size('$t') || ' ' || (SELECT count(*) FROM $t)
			|| ' ' || md5(substr(get_raw_page('$t', 1000), 61))
			|| ' ' || (SELECT status FROM ranread_run(1, 200, '$t'))});
}

$node->safe_psql('postgres', q{
	CREATE EXTENSION pageinspect;
	SELECT ranread_setup('16 MB', target => 'maint', log_level => 0);
});
my $intact = target_state('maint');
like($intact, qr/^$size 2048 [0-9a-f]{32} completed$/, "a new target: $intact");

$node->safe_psql('postgres', 'VACUUM maint');
is(target_state('maint'), $intact, 'VACUUM of the target leaves it intact and runnable');
$node->safe_psql('postgres', 'VACUUM');
is(target_state('maint'), $intact, 'a database-wide VACUUM leaves it intact');
$node->safe_psql('postgres', 'VACUUM (FREEZE, VERBOSE) maint');
is(target_state('maint'), $intact, 'VACUUM (FREEZE) leaves it intact');
$node->safe_psql('postgres', 'ANALYZE maint');
is(target_state('maint'), $intact, 'ANALYZE leaves it intact');

# Anti-wraparound autovacuum: age the target's relfrozenxid past 100000 XIDs.
$node->safe_psql('postgres', q{
	CREATE TABLE xid_burner (i int);
	DO $$BEGIN
		FOR i IN 1..110000 LOOP
			BEGIN INSERT INTO xid_burner VALUES (i); EXCEPTION WHEN OTHERS THEN NULL; END;
		END LOOP;
	END$$;
});
ok(wait_until($node, "SELECT age(relfrozenxid) < 100000 FROM pg_class WHERE relname = 'maint'"),
	'anti-wraparound autovacuum processed the target');
is($node->safe_psql('postgres', "SELECT autovacuum_count > 0 FROM pg_stat_user_tables WHERE relname = 'maint'"),
	't', 'it was autovacuum, although autovacuum_enabled is false for the target');
is(target_state('maint'), $intact, 'anti-wraparound autovacuum leaves it intact');

# A rewrite keeps every block's data: each block holds one tuple of random bytes.
$node->safe_psql('postgres', 'VACUUM FULL maint');
my $after_full = target_state('maint');
is($after_full, $intact, 'VACUUM FULL keeps every block and its bytes');
my ($ret, $out, $err) = $node->psql('postgres', 'CLUSTER maint');
like($err, qr/no previously clustered index/, 'CLUSTER has no index to order by and changes nothing');
is(target_state('maint'), $intact, 'the target is intact after CLUSTER');

# pg_dump leaves the target's data out (it is part of the extension); a
# restore has the history and the target's row, and a run asks for setup.
my $dump = $node->basedir . '/dump.sql';
$node->command_ok([ 'pg_dump', '-f', $dump, '-d', $node->connstr('postgres') ], 'pg_dump succeeds');
ok(-s $dump < 1024 * 1024, 'the dump does not hold the target\'s 16 MB (' . (-s $dump) . ' bytes)');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
($out, $err) = run_command([ 'psql', '-X', '-d', $node->connstr('restored'), '-f', $dump ]);
unlike($err, qr/ERROR/, 'the dump restores without error') or diag($err);
($ret, $out, $err) = $node->psql('restored', "SELECT ranread_run(1, 10, 'maint')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/42P01: ranread target "maint" was dropped/, 'a run in the restored database asks for setup');

# What empties a target on purpose is refused, or detected by the next run.
($ret, $out, $err) = $node->psql('postgres', 'DROP TABLE maint',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/2BP01: cannot drop table maint because extension ranread requires it/,
	'DROP TABLE is refused: ranread_drop() removes a target');
$node->safe_psql('postgres', 'TRUNCATE maint');
($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_run(1, 10, 'maint')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/55000: ranread target "maint" is empty or incomplete/, 'a truncated target is detected');
like($err, qr/HINT:  Run ranread_setup\(target => 'maint'\) again: it replaces the target\./,
	'the hint says to run ranread_setup again, which replaces it (no ranread_drop first)');
($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_setup('8 MB', target => 'maint', log_level => 0)");
like($err, qr/NOTICE:  replacing ranread target "maint", which was dropped or emptied/, 'as the hint says, setup replaces it');
is($node->safe_psql('postgres', "SELECT status FROM ranread_run(1, 10, 'maint')"), 'completed', 'and runs read it again');
is($node->safe_psql('postgres', "SELECT ranread_drop('maint')"), 'dropped ranread target "maint"',
	'ranread_drop() removes it');

# DROP EXTENSION takes its targets with it (1.0 left them behind, and a new
# CREATE EXTENSION then could not set up a target of the same name).
$node->safe_psql('postgres', "SELECT ranread_setup('8 MB', target => 'kept', log_level => 0)");
my $file = $node->safe_psql('postgres', "SELECT pg_relation_filepath('kept')");
$node->safe_psql('postgres', 'DROP EXTENSION ranread');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relname = 'kept'"), '0',
	'DROP EXTENSION drops the targets');
$node->safe_psql('postgres', 'CHECKPOINT');
ok(!-e $node->data_dir . "/$file", 'and their files (after the next checkpoint)');
$node->safe_psql('postgres', "CREATE EXTENSION ranread; SELECT ranread_setup('8 MB', target => 'kept', log_level => 0)");
is($node->safe_psql('postgres', "SELECT status FROM ranread_run(1, 10, 'kept')"), 'completed',
	'after CREATE EXTENSION a target of the same name is set up and runs');

done_testing();
