# A fleet run's stop reaches only its own coordinator: ranread_fleet_wait()
# advertises only the number this session drew last from ranread_fleet_seq
# (as ranread_fleet_run() draws it).  Before, the benchmark role could
# advertise a running superuser's fleet number (readable in pg_locks) and
# stop that fleet with its own ranread_stop() (review of 1.3, D3).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('fleet_wait_owner');
$node->safe_psql('postgres', q{
	CREATE EXTENSION dblink;
	CREATE ROLE bench LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_fleet_wait, ranread_stop TO bench;
	GRANT USAGE ON SEQUENCE ranread_fleet_seq TO bench;});

# Wait with no connection: returns at once (nothing is busy), after the check.
my $wait = q{SELECT ranread_fleet_wait(%s, '{}'::text[], '{}'::name[], '{}'::name[])};

# the superuser's coordinator draws its number, as ranread_fleet_run() does
my $theirs = $node->safe_psql('postgres', "SELECT nextval('ranread_fleet_seq')");
my ($ret, $out, $err) = $node->psql('postgres', sprintf($wait, $theirs),
	extra_params => [ '-U', 'bench', '-v', 'VERBOSITY=verbose' ]);
like($err, qr/ERROR:  42501: permission denied to wait for fleet run $theirs\n.*DETAIL:  A session waits only for the fleet run whose number it drew last/s,
	"the role cannot advertise another session's fleet number");
($ret, $out, $err) = $node->psql('postgres', sprintf($wait, '9223372036854775807'),
	extra_params => [ '-U', 'bench', '-v', 'VERBOSITY=verbose' ]);
is(sqlstate_of($err), '42501', 'nor a number nobody drew, before it drew any');
($ret, $out, $err) = $node->psql('postgres', "SELECT nextval('ranread_fleet_seq') AS n \\gset\n" . sprintf($wait, ':n') . ";\n"
	  . sprintf($wait, ':n - 1'), extra_params => [ '-U', 'bench', '-v', 'VERBOSITY=verbose' ]);
is($out, 'f', 'a session waits for the number it drew');
like($err, qr/ERROR:  42501: permission denied to wait for fleet run/, 'and for no other, even one it drew before');
ok(log_is_clean($node), 'the server log has no crash');

done_testing();
