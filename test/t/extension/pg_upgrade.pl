# pg_upgrade from an older PostgreSQL (RANREAD_UPGRADE_FROM, its install
# directory, e.g. /usr/lib/postgresql/15) to the server under test with
# ranread installed: a database at ranread 1.1 and one at the current version
# keep their history and their targets, the 1.1 one updates in place, and both
# measure on the new server.  scripts/test-upgrade.sh runs it for each pair of
# tested-upgrades, where both majors and ranread for both are installed;
# without RANREAD_UPGRADE_FROM (the TAP suite of one major) it skips, and so
# it does when the old server or its ranread is not installed.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

plan skip_all => 'the pairs of tested-upgrades run through scripts/test-upgrade.sh (RANREAD_UPGRADE_FROM)'
  unless $ENV{RANREAD_UPGRADE_FROM};
my $old_install = $ENV{RANREAD_UPGRADE_FROM};
my $new = PostgreSQL::Test::Cluster->new('new');
my $old_share = `$old_install/bin/pg_config --sharedir 2>/dev/null`;
chomp $old_share;
plan skip_all => "ranread is not installed for $old_install"
  unless $old_share ne '' && -f "$old_share/extension/ranread.control";

my $old = PostgreSQL::Test::Cluster->new('old', install_path => $old_install);
plan skip_all => 'pg_upgrade needs a server newer than ' . $old->pg_version . ', not ' . $new->pg_version
  unless $new->pg_version > $old->pg_version;
note 'pg_upgrade from ' . $old->pg_version . ' to ' . $new->pg_version;
$old->init;
$old->append_conf('postgresql.conf', "max_worker_processes = 32\n");
$old->start;
my $version = $old->safe_psql('postgres', 'SELECT default_version FROM pg_available_extensions WHERE name = $$ranread$$');

# A database at ranread 1.1, its history as 1.1 recorded it (a 1.1 library is
# not installed, so the rows are written as its workers would have).
$old->safe_psql('postgres', 'CREATE DATABASE at_1_1; CREATE DATABASE current');
$old->safe_psql('at_1_1', q{
	CREATE EXTENSION ranread VERSION '1.1';
	INSERT INTO ranread_results (batch, worker, run_date, run_time, started_at, target, mode, block_size,
								 processes, iterations, evicted, reads, elapsed_s, iops, bytes_physical,
								 status, histogram)
	SELECT b, w, current_date, '10:00:00', now(), 'gone', 'smgr', 8192, 2, 50, true, 50, 0.1, 500,
		   409600, 'completed', '{0,0,50}'::bigint[]
	FROM generate_series(1, 2) b, generate_series(1, 2) w;
	INSERT INTO ranread_batches (batch, run_date, run_time, started_at, target, mode, block_size, processes,
								 iterations, evicted, reads, wall_s, iops, mb_per_s, status)
	SELECT b, current_date, '10:00:00', now(), 'gone', 'smgr', 8192, 2, 50, true, 100, 0.1, 1000, 7.8, 'completed'
	FROM generate_series(1, 2) b;
	SELECT setval('ranread_batch_seq', 2);
});
# A database at the current version, measured on the old server.
$old->safe_psql('current', q{
	CREATE EXTENSION ranread;
	SELECT ranread_setup('16 MB', target => 'kept', log_level => 0);
	SELECT ranread_run(2, 200, 'kept');
});
my $old_num = $old->safe_psql('postgres', 'SHOW server_version_num');
my $history = q{SELECT count(*) || ' ' || sum(reads) || ' ' || string_agg(coalesce(server_version_num::text, '-'), ',' ORDER BY batch)
	FROM ranread_batches};
my $old_current = $old->safe_psql('current', $history);
is($old_current, "1 400 $old_num", 'one batch measured on the old server, with its version');
my $old_1_1 = $old->safe_psql('at_1_1', 'SELECT count(*) || \' \' || sum(reads) FROM ranread_batches');

# Debian's 15.20 stores an option pg_attver=N in every column's attoptions,
# which 18.6 rejects ("unrecognized parameter"), so pg_upgrade from it fails
# on any table, with or without ranread (a plain CREATE TABLE shows it).
# Strip it from the user tables' columns first, as a DBA would have to.
foreach my $db ('postgres', 'at_1_1', 'current')
{
	$old->safe_psql($db, q{
		UPDATE pg_attribute
		   SET attoptions = nullif(array(SELECT o FROM unnest(attoptions) o WHERE o NOT LIKE 'pg_attver=%'), '{}')
		 WHERE attrelid >= 16384 AND attoptions::text LIKE '%pg_attver=%'});
}
$old->stop;

# pg_upgrade (the new cluster's checksum setting must match the old one's:
# initdb enables them by default from 18 on)
my @checksums = $new->pg_version >= 18 && $old->pg_version < 18 ? ('--no-data-checksums') : ();
$new->init(extra => \@checksums);
$new->append_conf('postgresql.conf', "max_worker_processes = 32\n");
chdir ${PostgreSQL::Test::Utils::tmp_check};
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'--old-datadir' => $old->data_dir, '--new-datadir' => $new->data_dir,
		'--old-bindir' => $old->config_data('--bindir'), '--new-bindir' => $new->config_data('--bindir'),
		'--socketdir' => $new->host,
		'--old-port' => $old->port, '--new-port' => $new->port,
	],
	'pg_upgrade succeeds with ranread installed');
$new->start;
my $new_num = $new->safe_psql('postgres', 'SHOW server_version_num');

# The database at the current version: history, target and a new run.
is($new->safe_psql('current', $history), $old_current, 'the history measured on the old server is intact');
is($new->safe_psql('current', "SELECT blocks FROM ranread_targets WHERE target = 'kept'"), '2048',
	'the target is still registered');
is($new->safe_psql('current', "SELECT pg_relation_size('kept')"), '16777216', 'and its file came across whole');
is($new->safe_psql('current', "SELECT status FROM ranread_run(2, 200, 'kept', allow_rereads => true)"), 'completed',
	'a run on the new server reads the target pg_upgrade carried over');
is($new->safe_psql('current', $history), "2 800 $old_num,$new_num",
	'each batch records the server it ran on');
my $io_method = $new->pg_version >= 18 ? $new->safe_psql('postgres', 'SHOW io_method') : '-';
is($new->safe_psql('current', 'SELECT coalesce(io_method, \'-\') FROM ranread_batches ORDER BY batch DESC LIMIT 1'),
	$io_method, 'and, from 18 on, its io_method');
is($new->safe_psql('current', "SELECT ranread_drop('kept') IS NOT NULL; SELECT count(*) FROM pg_class WHERE relname = 'kept'"),
	"t\n0", 'ranread_drop() drops the carried-over target (and its row type\'s membership)');
$new->safe_psql('current', 'DROP EXTENSION ranread');
is($new->safe_psql('current', "SELECT count(*) FROM pg_class WHERE relname LIKE 'ranread%'"), '0',
	'DROP EXTENSION leaves nothing behind');

# The database at 1.1: refused until updated, then updated in place.
my ($ret, $out, $err) = $new->psql('at_1_1', "SELECT ranread_run(1, 10)", extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/55000: ranread's SQL objects are version 1.1, but its library is version $version/,
	'at 1.1 the library refuses to run until the extension is updated');
$new->safe_psql('at_1_1', 'ALTER EXTENSION ranread UPDATE');
is($new->safe_psql('at_1_1', 'SELECT extversion FROM pg_extension WHERE extname = $$ranread$$'), $version,
	"ALTER EXTENSION ranread UPDATE reaches $version on the new server");
is($new->safe_psql('at_1_1', 'SELECT count(*) || \' \' || sum(reads) FROM ranread_batches'), $old_1_1,
	'the 1.1 history is intact');
$new->safe_psql('at_1_1', "SELECT ranread_setup('16 MB', log_level => 0)");
is($new->safe_psql('at_1_1', 'SELECT status FROM ranread_run(2, 200)'), 'completed', 'and it measures');

$new->stop;
done_testing();
