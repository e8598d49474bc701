# Disk full during setup, on a small loop-mounted file system used as a
# tablespace: a clean error, nothing left behind, the server keeps running.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $fs = $ENV{RANREAD_SMALL_FS};
plan skip_all => 'no small file system (RANREAD_SMALL_FS) mounted by test/run-tap.sh'
  unless $fs;

my $node = new_node('diskfull');
mkdir "$fs/ts" or die "mkdir $fs/ts: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE small LOCATION '$fs/ts'");
my $log_start = -s $node->logfile;

sub free_mb
{
	my @df = split /\s+/, (split /\n/, `df -Pm $fs`)[1];
	return $df[3];
}
my $free = free_mb();
note "free space on the small file system: $free MB";

# Bigger than the free space: refused before anything is written
my ($ret, $out, $err) = $node->psql('postgres',
	"SELECT ranread_setup('1 GB', 'small', 'too_big', 0)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '53100', 'a target larger than the free space is refused (53100)');
like($err, qr/not enough free space for a target of 1024 MB/, 'the message says why');
cmp_ok(abs(free_mb() - $free), '<=', 1, 'the refused setup used no space');

# Two setups of 60 % of the free space each: both may pass the free-space
# check, so one of them runs out of space part-way through its writes.
my $size = int($free * 0.6);
my ($h1, $out1, $err1) = start_psql($node, "SELECT ranread_setup('$size MB', 'small', 'full_a', 0)");
my ($h2, $out2, $err2) = start_psql($node, "SELECT ranread_setup('$size MB', 'small', 'full_b', 0)");
$h1->finish;
$h2->finish;
my @states = map { sqlstate_of($$_) } ($err1, $err2);
my $succeeded = grep { $_ eq '' } @states;
is(scalar(grep { $_ ne '' && $_ ne '53100' } @states), 0,
	'each setup either succeeds or fails with disk full (53100)');
cmp_ok($succeeded, '<', 2, 'they cannot both fit');
my $midwrite = slurp_file($node->logfile, $log_start) =~ /could not write to file .*No space left on device/;
note $midwrite
  ? 'the failing setup ran out of space in the middle of its writes (ENOSPC)'
  : 'the failing setup was refused by the free-space check this time';

is($node->safe_psql('postgres', 'SELECT true'), 't', 'the server keeps running');
is($node->safe_psql('postgres', "SELECT count(*) FROM ranread_targets WHERE tablespace = 'small'"),
	$succeeded, 'only a successful setup is registered');
is($node->safe_psql('postgres', q{
	SELECT coalesce(sum((pg_stat_file(d || '/' || f, true)).size), 0)
	FROM (SELECT format('pg_tblspc/%s/PG_%s_%s/%s', t.oid,
						current_setting('server_version_num')::int / 10000,
						(pg_control_system()).catalog_version_no, d.oid) AS d
		  FROM pg_tablespace t, pg_database d
		  WHERE t.spcname = 'small' AND d.datname = 'postgres') t,
		 pg_ls_dir(d) f
	WHERE split_part(split_part(f, '.', 1), '_', 1)::oid NOT IN
		  (SELECT pg_relation_filenode(oid) FROM pg_class WHERE pg_relation_filenode(oid) IS NOT NULL)}),
	'0', 'the failed setup left no data in the tablespace');
SKIP:
{
	skip 'both setups ran out of space', 1 unless $succeeded;
	is($node->safe_psql('postgres',
		"SELECT status FROM ranread_run(2, 100, (SELECT target FROM ranread_targets WHERE tablespace = 'small'))"),
		'completed', 'the successful target can be read');
}

$node->safe_psql('postgres', "SELECT ranread_drop(target) FROM ranread_targets WHERE tablespace = 'small'");
cmp_ok(abs(free_mb() - $free), '<=', 2, 'dropping the target gives the space back');
ok(log_is_clean($node, $log_start), 'no PANIC, crash or internal error in the server log');

$node->safe_psql('postgres', 'DROP TABLESPACE small');
$node->stop;
done_testing();
