# The output-width guard: every function whose C code fills its result row by
# position, with a number of columns counted in C, checks the row type its
# caller expects before it fills any (src/extension.c,
# ranread_check_result_columns(), as pg_stat_statements checks).  The
# extension's own declarations must have exactly the columns C fills; and a
# declaration made over the library's symbol by hand, returning record and
# called with a column definition list of another width, must get SQLSTATE
# 42804 and the executor's message, not values read past those filled.
# Without the guard, the wider list reads past the C array.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

# Each such function, the columns its C code fills, and the arguments that
# reach the guard.
my %filled = (
	ranread_running => [ 18, '' ],
	ranread_setup_running => [ 8, '' ],
	ranread_layers => [ 9, "4, 6000, 'ranread_target', NULL, 3, 5" ],
	ranread_calibrate => [ 25, "'ranread_target', NULL, NULL, NULL, NULL, NULL, NULL, NULL" ],
	ranread_compare => [ 6, '1, 2' ],
	ranread_compare_sweeps => [ 6, '1, 2' ],
	ranread_sweep_verdict => [ 10, '1' ],
	ranread_sweep_decide => [ 9, join(', ', ('NULL') x 21) ],
	ranread_series_bucket => [ 7, "1, NULL, '{}', '{}', '{}', '{}'" ],
	ranread_help => [ 1, '' ],
	ranread_export => [ 1, "'/tmp', 'tsv', NULL, false, false" ],
);

my $node = RanreadTest::new_node('result_columns');

# The declarations the extension ships fill what C fills.
foreach my $name (sort keys %filled)
{
	my $declared = $node->safe_psql('postgres', qq{
		SELECT coalesce(NULLIF((SELECT pg_catalog.count(*) FROM pg_catalog.unnest(p.proargmodes) m
		                        WHERE m IN ('o', 't', 'b')), 0), 1)
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_depend d ON d.objid = p.oid
		  AND d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'e'
		JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
		WHERE p.proname = '$name'});
	is($declared, $filled{$name}[0], "$name is declared with the $filled{$name}[0] columns its C code fills");
}

# The same symbols, declared by hand as returning record.
$node->safe_psql('postgres', q{
	CREATE SCHEMA probe;
	DO $$
	DECLARE
		f record;
	BEGIN
		FOR f IN SELECT p.proname, pg_catalog.oidvectortypes(p.proargtypes) AS args,
		                p.proretset, p.probin, p.prosrc
		         FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_depend d ON d.objid = p.oid
		           AND d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'e'
		         JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
		         WHERE p.prolang = (SELECT oid FROM pg_catalog.pg_language WHERE lanname = 'c')
		LOOP
			EXECUTE format('CREATE FUNCTION probe.%I(%s) RETURNS %s record AS %L, %L LANGUAGE C',
			               f.proname, f.args, CASE WHEN f.proretset THEN 'SETOF' ELSE '' END,
			               f.probin, f.prosrc);
		END LOOP;
	END $$});

my $log_offset = -s $node->logfile;
foreach my $name (sort keys %filled)
{
	my ($columns, $args) = @{ $filled{$name} };
	foreach my $asked ($columns + 1, $columns > 1 ? $columns - 1 : ())
	{
		my $list = join(', ', map { "c$_ int" } 1 .. $asked);
		my ($ret, $out, $err) = $node->psql('postgres', "SELECT * FROM probe.$name($args) AS t($list)",
			extra_params => [ '-v', 'VERBOSITY=verbose' ]);
		is(RanreadTest::sqlstate_of($err), '42804', "$name through $asked columns: datatype_mismatch");
		like($err, qr/function return row and query-specified return row do not match/,
			"$name through $asked columns: the executor's message");
		my $noun = $columns == 1 ? 'attribute' : 'attributes';
		like($err, qr/Returned row contains $columns $noun, but query expects $asked\./,
			"$name through $asked columns: the detail counts both");
	}
}
# ranread_run() declared by hand: the library reads its arguments by place,
# so it checks each one's name, not only their count (55000, not a run with
# one argument taken for another).
my $run_arguments = $node->safe_psql('postgres', q{SELECT string_agg(format('%I %s', n, format_type(t, NULL)), ', ' ORDER BY i)
	FROM pg_proc p, unnest(p.proargnames[1:p.pronargs], p.proargtypes::oid[]) WITH ORDINALITY AS a(n, t, i)
	WHERE p.oid = 'public.ranread_run'::regproc});
foreach my $case ([ 'unnamed', 'probe.ranread_run', qr/argument 1 of ranread_run\(\) is declared as "", but library ranread reads it as "processes"/ ],
	[ 'swapped', 'probe.ranread_run_swapped', qr/argument 5 of ranread_run\(\) is declared as "duration", but library ranread reads it as "block_size"/ ])
{
	my ($what, $function, $message) = @$case;
	if ($what eq 'swapped')
	{
		(my $swapped = $run_arguments) =~ s/\bblock_size integer, duration interval\b/duration integer, block_size interval/;
		$node->safe_psql('postgres', "CREATE FUNCTION $function($swapped) RETURNS record AS '\$libdir/ranread', 'ranread_run' LANGUAGE C");
	}
	my $nulls = $node->safe_psql('postgres', q{SELECT pronargs - 2 FROM pg_proc WHERE oid = 'public.ranread_run'::regproc});
	my $call = "$function(1, 10" . (', NULL' x $nulls) . ')';
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT * FROM $call AS t(batch bigint, status text, iops numeric, m numeric, p numeric)",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	is(RanreadTest::sqlstate_of($err), '55000', "ranread_run declared by hand, its arguments $what: refused (55000)");
	like($err, $message, "ranread_run declared by hand, its arguments $what: the message names the argument");
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), '0', 'and no batch ran');

ok(RanreadTest::log_is_clean($node, $log_offset), 'no crash or internal error');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server still answers');

$node->stop;
done_testing();
