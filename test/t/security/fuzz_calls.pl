# A fuzz corpus of calls, from the catalog: every function and procedure of
# the extension, each argument in turn given every extreme value of its type
# (and NULL), the others their defaults or a plain value, called as the
# superuser and as the role the GRANT block of docs/reference.md makes.
# Refusals are expected; no call may crash the server or raise an internal
# error (SQLSTATE class XX), and the history stays readable.  (The review
# of 1.3 ran 1,917 such calls; this corpus makes more than 1,500 a role.)
# Each call is bounded by a statement timeout, so a call that a value makes
# valid and long (a duration of a day) costs a moment.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('fuzz_calls', fsync => 'off');
my $base = $node->basedir;
mkdir "$base/vol" or die;
$node->safe_psql('postgres', qq{
	CREATE TABLESPACE ranread_vol LOCATION '$base/vol';
	SELECT ranread_setup('8 MB', log_level => 0);
	SELECT ranread_setup_writes('1 MB');
	CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 200, min_scaling_pct => 0);});
my $doc = slurp_file("$FindBin::RealBin/../../../docs/reference.md");
my ($block) = $doc =~ /<!-- grant-block\b[^>]*-->\n```sql\n(.*?)```\n<!-- \/grant-block -->/s;
$node->safe_psql('postgres', $block);
$node->safe_psql('postgres', "GRANT CREATE ON TABLESPACE ranread_vol TO bench");

# Extreme values of each argument type, as SQL expressions (NULL too).
my %extremes = (
	int4 => [ '0', '-1', '2147483647', '-2147483648', '1024', '65536', '2', '32' ],
	int8 => [ '0', '-1', '9223372036854775807', '-9223372036854775808', '1', '1000000000000', '200' ],
	float8 => [ q{'NaN'}, q{'Infinity'}, q{'-Infinity'}, '-1', '0', '1e308', '4.9e-324', '0.5', '1000' ],
	text => [ q{''}, q{repeat('x', 100000)}, q{'</title><script>'}, q{'x''; SELECT 1/0; --'}, q{'smgr'},
		q{'direct'}, q{'buffer'}, q{'stream'}, q{'csv'}, q{'ranread_fleet_servers'} ],
	name => [ q{''}, q{repeat('n', 63)}, q{'pg_stat_statements_info'}, q{'ranread_results'}, q{'ranread_target'},
		q{'no such'}, q{'ranread_write_target'} ],
	bool => [ 'true', 'false' ],
	interval => [ q{'-1 s'}, q{'0'}, q{'1 us'}, q{'100 years'}, q{'0.3 s'} ],
	timestamptz => [ q{'-infinity'}, q{'infinity'}, q{'1900-01-01'}, q{now() + '0.2 s'}, q{now() - '1 day'} ],
	_int8 => [ q{'{}'}, q{'{NULL}'}, q{'{-1,-1}'}, q{'{1,2}'}, q{(SELECT array_agg(g) FROM generate_series(1, 3000) g)} ],
	_int4 => [ q{'{}'}, q{'{NULL}'}, q{'{-1}'}, q{'{1,2}'} ],
	_float8 => [ q{'{}'}, q{'{NaN}'}, q{'{Infinity,-1}'}, q{'{1,2}'} ],
	_bool => [ q{'{}'}, q{'{NULL}'}, q{'{true,false}'} ],
	_text => [ q{'{}'}, q{'{NULL}'}, q{'{completed,""}'}, q{ARRAY[repeat('x', 10000)]} ],
	_name => [ q{'{}'}, q{'{NULL}'}, q{'{a,a}'}, q{'{no_such_server}'} ],
	jsonb => [ q{'{}'}, q{'[]'}, q{'null'}, q{'{"fleet": 1, "server": "ghost"}'}, q{'{"run_by": "postgres"}'},
		q{'{"nope": 1}'} ],
);
# A plain value of a type, for an argument without a default.
my %plain = (int4 => '1', int8 => '100', float8 => '1', text => q{'smgr'}, name => q{'ranread_target'},
	bool => 'false', interval => q{'0.2 s'}, timestamptz => 'now()', _int8 => q{'{1}'}, _int4 => q{'{1}'},
	_float8 => q{'{1}'}, _bool => q{'{true}'}, _text => q{'{completed}'}, _name => q{'{}'}, jsonb => q{'{}'});

# Every routine of the extension with its input arguments' types and defaults
# (those that reset, drop or stop last, so that the others meet history).
my @routines = map { [ split /\|/, $_, -1 ] } split /\n/, $node->safe_psql('postgres', q{
	SELECT p.proname, p.prokind, p.pronargs, p.pronargdefaults,
	       (SELECT string_agg(t.typname, ',' ORDER BY o) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t_oid, o)
	        JOIN pg_type t ON t.oid = a.t_oid),
	       (SELECT string_agg(coalesce(pg_get_function_arg_default(p.oid, g::int), ''), chr(31) ORDER BY g)
	        FROM generate_series(1, p.pronargs) g)
	FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass AND e.extname = 'ranread'
	ORDER BY p.proname IN ('ranread_reset', 'ranread_drop', 'ranread_stop'), p.proname});
my @calls;
foreach my $r (@routines)
{
	my ($fn, $kind, $nargs, $ndefaults, $types, $defaults) = @$r;
	my @types = split /,/, $types // '';
	my @defaults = split /\x1f/, $defaults // '', -1;
	my $required = $nargs - $ndefaults;
	foreach my $i (0 .. $#types)
	{
		my $values = $extremes{ $types[$i] } or BAIL_OUT("no extreme values for type $types[$i] of $fn");
		foreach my $v ('NULL', @$values)
		{
			my $last = $i > $required - 1 ? $i : $required - 1;
			my @args = map {
				my $value = $_ == $i ? $v : ($_ < $required ? $plain{ $types[$_] } : $defaults[$_]);
				"($value)::" . ($types[$_] =~ /^_(.*)/ ? "$1\[\]" : $types[$_])
			} 0 .. $last;
			my $call = "$fn(" . join(', ', @args) . ')';
			push @calls, $kind eq 'p' ? "CALL $call;" : "SELECT $call;";
		}
	}
	push @calls, $kind eq 'p' ? "CALL $fn();" : "SELECT $fn();" if $required == 0;
}
note(scalar(@calls) . ' calls of ' . scalar(@routines) . ' routines');
cmp_ok(scalar(@calls), '>=', 1500, 'the corpus has at least 1,500 calls');

my $start_time = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
my $log_offset = -s $node->logfile;
foreach my $role ('postgres', 'bench')
{
	# one session a role: every call in turn, each error its SQLSTATE
	my $script = "SET statement_timeout = '300ms';\nSET client_min_messages = warning;\n" . join("\n", @calls) . "\n";
	my ($ret, $out, $err) = $node->psql('postgres', $script,
		extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose', '-v', 'ON_ERROR_STOP=0' ]);
	my %states;
	$states{$1}++ while $err =~ /ERROR:  ([0-9A-Z]{5}):/g;
	note("$role: " . join(', ', map { "$_ x$states{$_}" } sort keys %states));
	my @internal = grep { /^XX/ } keys %states;
	is(join(',', @internal), '', "as $role: no call raises an internal error (class XX)");
	unlike($err, qr/server closed the connection|connection to server was lost|terminating connection/,
		"as $role: no call ends the session");
}
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $start_time, 'the server never restarted');
ok(log_is_clean($node, $log_offset), 'the server log has no crash, PANIC or internal error');
is($node->safe_psql('postgres', 'SELECT count(*) >= 0 FROM ranread_summary'), 't', 'the history is readable after the corpus');

$node->stop;
done_testing();
