# The GRANT block of docs/reference.md ("Privileges"), run verbatim: a
# superuser creates the tablespace it names and a target, runs the block
# between its <!-- grant-block --> markers, then the role it creates calls
# every entry point once on the superuser's target (and on a target of its
# own) and each must succeed; every function and relation of the extension
# must then be usable by that role.  Without SELECT on another role's
# target, a run is refused with 42501 and a hint naming the GRANT.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

# The SQL of the block, as docs/reference.md has it.
my $doc = slurp_file("$FindBin::RealBin/../../../docs/reference.md");
my ($block) = $doc =~ /<!-- grant-block\b[^>]*-->\n```sql\n(.*?)```\n<!-- \/grant-block -->/s;
ok(defined $block, 'docs/reference.md has a SQL block between <!-- grant-block --> markers');
$block //= '';
my $role = $block =~ /^CREATE ROLE (\w+) LOGIN;$/m ? $1 : 'bench';
is($role, 'bench', 'the block creates the role bench');

my $node = new_node('grant_block');
my $base = $node->basedir;
mkdir "$base/vol" or die;
my $export_dir = PostgreSQL::Test::Utils::tempdir();
$node->safe_psql('postgres', qq{
	CREATE TABLESPACE ranread_vol LOCATION '$base/vol';
	SELECT ranread_setup('16 MB', log_level => 0);
	SELECT ranread_setup_writes('1 MB');});

my ($ret, $out, $err) = $node->psql('postgres', $block, on_error_stop => 1);
is($ret, 0, 'a superuser runs the block without an error') or diag($err);

# Run $sql connected as the role; each statement must succeed.
sub as_bench
{
	my ($sql, $what) = @_;
	my ($r, $o, $e) = $node->psql('postgres', $sql, on_error_stop => 1,
		extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
	ok($r == 0 && $e !~ /ERROR/, "as $role: $what") or diag("$sql\n$e");
	return $o;
}

# Runs and sweeps on the superuser's target
my $batch = as_bench("SELECT batch FROM ranread_run(1, 50) WHERE status = 'completed'",
	"ranread_run on the superuser's ranread_target");
my $second = as_bench('SELECT batch FROM ranread_run(1, 50)', 'a second run');
as_bench("SELECT batch FROM ranread_run(1, NULL, duration => '1 s', rate_iops => 200, writers => 1, write_rate_iops => 100)",
	"a run with a writer on the superuser's write target");
is(as_bench('SELECT writes > 0 FROM ranread_write_summary', 'ranread_write_summary'), 't', 'which wrote');
# mode direct: the device answers every read, so the step counts (and is exported in RanRead's format)
as_bench("CALL ranread_sweep(start_processes => 1, max_processes => 1, iterations => 50, mode => 'direct')",
	'a one-step sweep');
my $sweep = as_bench('SELECT max(sweep) FROM ranread_sweeps', 'ranread_sweeps');
as_bench("SELECT * FROM ranread_sweep_verdict($sweep)", 'ranread_sweep_verdict');
is(as_bench("SELECT count(*) FROM ranread_summary WHERE sweep = $sweep", 'ranread_summary'), '1',
	'the sweep has its step');
as_bench('SELECT count(*) FROM ranread_batches, ranread_results, ranread_intervals, ranread_targets',
	'the history tables');

# Watching and stopping its own run from another session
my ($run_out, $run_err) = ('', '');
my $h = IPC::Run::start(
	[ 'psql', '-X', '-At', '-U', $role, '-d', $node->connstr('postgres'),
	  '-c', 'SELECT status FROM ranread_run(1, 1000, rate_iops => 50)' ],
	'>', \$run_out, '2>', \$run_err);
ok(wait_for_readers($node, 1), "${role}'s open-loop run is reading");
is(as_bench("SELECT count(*) > 0 FROM ranread_progress", 'ranread_progress'), 't', 'which ranread_progress shows');
is(as_bench('SELECT count(*) > 0 FROM ranread_running()', 'ranread_running()'), 't', 'and ranread_running() lists');
as_bench('SELECT * FROM ranread_setup_running()', 'ranread_setup_running()');
is(as_bench('SELECT ranread_stop()', 'ranread_stop()'), '1', 'ranread_stop() stops its one worker');
$h->finish;
is($run_out =~ s/\s+\z//r, 'stopped', 'the run ends stopped') or diag($run_err);

# Charts, comparisons, help, export
like(as_bench('SELECT ranread_chart()', 'ranread_chart()'), qr/<svg\b/, 'an SVG');
like(as_bench("SELECT ranread_chart($sweep)", 'ranread_chart(sweep)'), qr/<svg\b/, 'of the sweep');
like(as_bench("SELECT ranread_chart_latency($batch, $second)", 'ranread_chart_latency'), qr/<svg\b/,
	'of the latencies');
as_bench("SELECT * FROM ranread_layers(1, 50)", 'ranread_layers');
as_bench("SELECT * FROM ranread_calibrate(iterations => 100, max_depth => 1, max_duration => '1 s')", 'ranread_calibrate');
as_bench("SELECT * FROM ranread_compare($batch, $second)", 'ranread_compare');
as_bench("SELECT * FROM ranread_compare_sweeps($sweep, $sweep)", 'ranread_compare_sweeps');
as_bench('SELECT count(*) FROM ranread_help()', 'ranread_help()');
# export: to the client (the block grants no server-file privilege)
my @files = split /\n/, as_bench("SELECT file || ' ' || length(content) FROM ranread_export_files(csv => true, svg => true)",
	'ranread_export_files, TSV, CSV and the charts');
is(scalar(grep { / [1-9]\d*$/ } @files), scalar(@files), scalar(@files) . ' files, none empty');
as_bench("SELECT file FROM ranread_export_files('ranread', sweep => $sweep, csv => true, svg => true)",
	"ranread_export_files of the sweep, RanRead's format");
($ret, $out, $err) = $node->psql('postgres', "SELECT * FROM ranread_export('$export_dir')",
	extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  42501: permission denied for function ranread_export/,
	'ranread_export to a server file is not granted to the role');
is(join(' ', glob("$export_dir/*")), '', 'and writes nothing');
is($node->safe_psql('postgres', qq{SELECT string_agg(r.rolname, ', ') FROM pg_roles r
	WHERE r.rolname IN ('pg_write_server_files', 'pg_read_server_files', 'pg_execute_server_program')
	  AND pg_has_role('$role', r.oid, 'USAGE')}), '',
	'the block grants no predefined role PostgreSQL says can gain superuser access');

# A target of its own, in the tablespace
as_bench("SELECT ranread_setup('8 MB', 'ranread_vol', 'ranread_bench', 0)", 'ranread_setup in ranread_vol');
as_bench("SELECT batch FROM ranread_run(1, 50, 'ranread_bench')", 'a run on it');
is($node->safe_psql('postgres', qq{SELECT has_schema_privilege('$role', 'public', 'CREATE') || ' '
	|| (SELECT tableowner FROM pg_tables WHERE tablename = 'ranread_bench')}), "false $role",
	"without CREATE on the extension's schema, setup made the role a target it owns");
as_bench("SELECT ranread_drop('ranread_bench')", 'ranread_drop of its target');
$node->safe_psql('postgres', "REVOKE CREATE ON TABLESPACE ranread_vol FROM $role");
($ret, $out, $err) = $node->psql('postgres', "SELECT ranread_setup('8 MB', 'ranread_vol', 'ranread_bench', 0)",
	extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  42501: permission denied for tablespace ranread_vol/,
	'setup still needs CREATE on the tablespace it writes to');
$node->safe_psql('postgres', "GRANT CREATE ON TABLESPACE ranread_vol TO $role");

# Everything the extension has is usable by the role
is($node->safe_psql('postgres', qq{
	SELECT string_agg(p.oid::regprocedure::text, ', ' ORDER BY 1)
	FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
	WHERE e.extname = 'ranread' AND NOT has_function_privilege('$role', p.oid, 'EXECUTE')}),
	'ranread_export(text,text,bigint,boolean,boolean)',
	"the block grants EXECUTE on every function and procedure of the extension but ranread_export (server files)");
is($node->safe_psql('postgres', qq{
	SELECT string_agg(c.relname, ', ' ORDER BY 1)
	FROM pg_class c
	JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
	WHERE e.extname = 'ranread' AND CASE c.relkind WHEN 'S' THEN NOT has_sequence_privilege('$role', c.oid, 'USAGE')
									ELSE NOT has_table_privilege('$role', c.oid, 'SELECT') END}), '',
	'and SELECT on every table and view (USAGE on every sequence)');

as_bench('SELECT ranread_reset()', 'ranread_reset()');

# Without SELECT on another role's target: refused up front, with the GRANT in a hint
$node->safe_psql('postgres', "REVOKE SELECT ON ranread_target FROM $role");
($ret, $out, $err) = $node->psql('postgres', 'SELECT * FROM ranread_run(1, 50)',
	extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '42501', 'without SELECT on the target a run is refused with 42501');
like($err, qr/permission denied for table ranread_target\n/, 'permission denied for table ranread_target');
like($err, qr/HINT:  Run GRANT SELECT ON public\.ranread_target TO $role as the target's owner or a superuser\./,
	'with a hint naming the GRANT');
($ret, $out, $err) = $node->psql('postgres', 'CALL ranread_sweep(start_processes => 1, max_processes => 1, iterations => 50)',
	extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  42501: permission denied for table ranread_target\n.*HINT:  Run GRANT SELECT/s,
	'a sweep says the same before its first step');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), '0', 'and neither recorded a batch');

$node->stop;
done_testing();
