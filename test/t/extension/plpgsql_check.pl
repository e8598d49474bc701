# The PL/pgSQL programs (the fleet run, the fleet sweep and the write sweep)
# pass plpgsql_check: every static statement names tables, columns and
# functions that exist, with the types they have, and no variable is unused
# or shadows another.  PL/pgSQL checks a body only when a statement of it
# runs, so a typo in a branch no test reaches would otherwise ship.  Needs
# the plpgsql_check extension of the server's major (Debian:
# postgresql-NN-plpgsql-check; scripts/install-deps.sh installs 15's); skips
# without it.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = RanreadTest::new_node('plpgsql_check');
if ($node->safe_psql('postgres', q{SELECT count(*) FROM pg_available_extensions WHERE name = 'plpgsql_check'}) eq '0')
{
	$node->stop;
	plan skip_all => 'no plpgsql_check for this major (Debian: postgresql-NN-plpgsql-check)';
}
$node->safe_psql('postgres', 'CREATE EXTENSION dblink; CREATE EXTENSION plpgsql_check');

my @programs = split /\n/, $node->safe_psql('postgres', q{
	SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
	 WHERE l.lanname = 'plpgsql' AND p.proname LIKE 'ranread%' ORDER BY 1});
ok(scalar(@programs) >= 3, scalar(@programs) . ' PL/pgSQL routines of ranread to check');
foreach my $program (@programs)
{
	my $found = $node->safe_psql('postgres', qq{
		SELECT string_agg(format('%s line %s (%s): %s: %s%s%s', level, lineno, statement, sqlstate, message,
								 coalesce(' (' || detail || ')', ''), coalesce(' in: ' || query, '')), E'\\n' ORDER BY lineno)
		  FROM plpgsql_check_function_tb('$program'::regprocedure, fatal_errors => false,
										 extra_warnings => true, security_warnings => true)
		 -- RETURN QUERY EXECUTE sets them, which plpgsql_check cannot see
		 WHERE NOT (message LIKE 'OUT variable % is maybe unmodified' AND detail LIKE '%dynamic SQL%')});
	is($found, '', "$program: plpgsql_check finds nothing");
}

$node->stop;
done_testing();
