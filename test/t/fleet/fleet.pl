# ranread_fleet_run(): one benchmark across several servers, through contrib
# dblink and foreign servers with user mappings.  Three local clusters (and
# a PostgreSQL 15 one when the server under test is newer and ranread is
# installed for 15): every run starts at one start_at, the fleet row's IOPS
# is the servers' sum and their windows overlap; the checks before anything
# starts (an unreachable server, a wrong extension version, a missing
# target, a clock bound, a role without USAGE) refuse with every reason; a
# server stopped mid-run is recorded as disconnected and the others kept; a
# server whose clock is off is refused, or started at the same real time;
# ranread_stop() on the coordinator stops every server's run.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes;
use RanreadTest;

my @nodes = map { new_node("node$_") } 1 .. 3;
$_->safe_psql('postgres', q{SELECT ranread_setup('64 MB', log_level => 0)}) foreach @nodes;
my $coordinator = $nodes[0];
my $os_user = $coordinator->safe_psql('postgres', 'SELECT current_user');

# a foreign server of dblink_fdw per node, a user mapping for the superuser
sub add_server
{
	my ($name, $node) = @_;
	$coordinator->safe_psql('postgres', sprintf(
		q{CREATE SERVER %s FOREIGN DATA WRAPPER dblink_fdw OPTIONS (host '%s', port '%s', dbname 'postgres');
		  CREATE USER MAPPING FOR CURRENT_USER SERVER %s OPTIONS (user '%s');},
		$name, $node->host, $node->port, $name, $os_user));
	return;
}
$coordinator->safe_psql('postgres', 'CREATE EXTENSION dblink');
add_server("node$_", $nodes[ $_ - 1 ]) foreach 1 .. 3;

# (in a session whose DateStyle would read a timestamp's text otherwise)
my $out = shown($coordinator, q{SET datestyle = 'SQL, DMY'; SELECT scope, server, status, iops, overlap_pct, start_skew_ms
	FROM ranread_fleet_run(ARRAY['node1', 'node2', 'node3'], 2, NULL, duration => '3 s')});
like($out, qr/NOTICE:  fleet \d+: 3 servers, \d+ IOPS together, p99 [0-9.]+ ms of the merged reads, slowest node\d, their windows overlapping by [0-9.]+ %/,
	'a NOTICE sums the fleet up');
my @rows = grep { /\|/ } split /\n/, $out;
is(scalar(@rows), 4, 'three server rows and a fleet row');
is(join(',', map { (split /\|/)[0] . ':' . ((split /\|/)[1] // '') } @rows), 'server:node1,server:node2,server:node3,fleet:',
	'in the order of servers, the fleet last');
is(join(',', map { (split /\|/)[2] } @rows), 'completed,completed,completed,completed', 'all completed');
my $fleet = $coordinator->safe_psql('postgres', 'SELECT max(fleet) FROM ranread_fleet_runs');
my ($sum_ok, $overlap, $max_skew, $merged) = split /\|/, $coordinator->safe_psql('postgres', qq{
	SELECT abs(f.iops - (SELECT sum(iops) FROM ranread_fleet_servers s WHERE s.fleet = f.fleet)) < 1e-6,
	       f.overlap_pct, (SELECT max(abs(start_skew_ms)) FROM ranread_fleet_servers s WHERE s.fleet = f.fleet),
	       f.p99_ms BETWEEN (SELECT min(p99_ms) FROM ranread_fleet_servers s WHERE s.fleet = f.fleet)
	                    AND (SELECT max(p99_ms) FROM ranread_fleet_servers s WHERE s.fleet = f.fleet)
	FROM ranread_fleet_runs f WHERE f.fleet = $fleet});
is($sum_ok, 't', "the fleet's IOPS is the sum of the servers'");
# How far they overlap is the machine's speed: a server's run ends early once
# every unit of its target has been read (a busy run once read node3's 64 MB
# in 0.58 s and node2's in 1.41 s: 41 %).  So the check is the figure's rule,
# the common window over the whole, from the servers' rows; two runs started
# one after the other would not overlap at all.
my $overlap_rule = $coordinator->safe_psql('postgres', qq{
	SELECT 100 * greatest(0, extract(epoch FROM min(started_at + wall_s * interval '1 s') - max(started_at)))
		/ extract(epoch FROM max(started_at + wall_s * interval '1 s') - min(started_at))
	FROM ranread_fleet_servers WHERE fleet = $fleet});
cmp_ok(abs($overlap - $overlap_rule), '<', 1e-6, "their measured windows overlap by $overlap %, the common window of the servers' rows");
cmp_ok($overlap, '>', 0, 'which they share');
cmp_ok($max_skew, '<', 50, "each server released its workers within $max_skew ms of start_at");
is($merged, 't', "the fleet's p99, from the merged histograms, lies between the servers'");
is($nodes[1]->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches WHERE start_at IS NOT NULL AND status = 'completed'}),
	'1', 'each server recorded its own batch, with its start_at');

# a fleet sweep: 1, 2, 4 processes per server on both servers at once, one committed fleet run a step
# (stop_latency_ms and the SLO far from any machine's figures: only max_processes stops it, and no
# step lies within its noise of a bound, so none is repeated)
$out = shown($coordinator, q{CALL ranread_fleet_sweep(ARRAY['node1', 'node2'], 1, 4, iterations => 300, duration => NULL, min_scaling_pct => 0,
	stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000)});
like($out, qr/NOTICE:  fleet sweep \d+ step 1: 1 process per server, [0-9,]+ IOPS ± [0-9.]+ %, mean [0-9.]+ ms, p99 [0-9.]+ ms; within the SLO \(fleet run \d+\)\nDETAIL:  Noise: mean ± [0-9.]+ %, p99 ± [0-9.]+ %\./,
	"a fleet sweep says each step as ranread_sweep does, with the noise bands of the servers' batches");
like($out, qr/NOTICE:  fleet sweep \d+ step 2: 2 processes per server, .*; -?\d+% of linear scaling \(fleet run \d+\)/,
	'and its share of linear scaling');
like($out, qr/NOTICE:  fleet sweep \d+ completed after 3 steps\nDETAIL:  .*It stopped at max_processes \(4\)\./, 'and why it stopped');
like($out, qr/DETAIL:  Highest IOPS: [0-9,]+ IOPS ± [0-9.]+ % \(mean [0-9.]+ ms ± [0-9.]+ %, p99 [0-9.]+ ms ± [0-9.]+ %\) at \d process(es)? per server\. Highest within the SLO \(mean <= 1000 ms, p99 <= 1000 ms, on the fleet and on every server\): [0-9,]+ IOPS ± /,
	'with the highest IOPS, and the highest within the SLO on the fleet and on every server, with their bands');
is($coordinator->safe_psql('postgres', q{SELECT string_agg(sweep_step || ':' || processes || ':' || status || ':' || servers_completed, ',' ORDER BY sweep_step)
	FROM ranread_fleet_summary WHERE fleet_sweep = (SELECT max(fleet_sweep) FROM ranread_fleet_runs)}),
	'1:1:completed:2,2:2:completed:2,3:4:completed:2', 'ranread_fleet_summary: one committed fleet run per step, both servers completed');
is($coordinator->safe_psql('postgres', q{SELECT bool_and(f.iops_band_pct > 0 AND f.mean_band_pct > 0 AND f.p99_band_pct > 0
	AND f.p99_band_pct = (SELECT max(s.p99_band_pct) FROM ranread_fleet_servers s WHERE s.fleet = f.fleet)
	AND f.iops_band_pct <= (SELECT max(s.iops_band_pct) FROM ranread_fleet_servers s WHERE s.fleet = f.fleet))
	FROM ranread_fleet_runs f WHERE f.fleet_sweep = (SELECT max(fleet_sweep) FROM ranread_fleet_runs)}),
	't', "each fleet run has noise bands from its servers': the sum's IOPS band no wider than the widest server's, the widest p99 band");

# the fleet sweep's rules are ranread_sweep's: a sweep of ranread_sweep whose two
# steps are given crafted figures (1,000 then 1,100 IOPS from 1 to 2 processes,
# the second outside the SLO) stops by the scaling rule, and ranread_sweep_decide()
# on the same figures stops the fleet sweep by the same rule, in the same words
$coordinator->safe_psql('postgres', q{CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 300,
	min_scaling_pct => 0, stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000)});
$coordinator->safe_psql('postgres', q{
	UPDATE ranread_sweep_runs SET min_scaling_pct = 25, stop_latency_ms = 10, slo_mean_ms = 2, slo_p99_ms = 5, slo_p999_ms = NULL,
		slo_max_ms = NULL, stop_rule = NULL, status = 'completed' WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs);
	UPDATE ranread_batches SET iops = CASE sweep_step WHEN 1 THEN 1000 ELSE 1100 END, response_time_ms = CASE sweep_step WHEN 1 THEN 0.5 ELSE 3 END,
		p99_ms = 4, p999_ms = 6, max_ms = 8, physical_pct = 100, iops_band_pct = 2, mean_band_pct = 2, p99_band_pct = 3
	WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)});
my ($sweep_rule, $sweep_verdict) = split /\|/, $coordinator->safe_psql('postgres',
	q{SELECT stop_rule, verdict FROM ranread_sweep_verdict((SELECT max(sweep) FROM ranread_sweep_runs))});
my $decide = q{SELECT %s FROM ranread_sweep_decide(sweep => '{7,7}', step => '{1,2}', processes => '{1,2}',
	status => '{completed,completed}', iops => '{1000,1100}', mean_ms => '{0.5,%s}', p99_ms => '{4,4}', p999_ms => '{6,6}',
	max_ms => '{8,8}', iops_band_pct => '{2,2}', mean_band_pct => '{2,2}', p99_band_pct => '{3,3}', part_outside_slo => '{false,%s}',
	max_processes => 64, max_processes_by => 'argument', stop_latency_ms => 10, min_scaling_pct => 25, slo_mean_ms => 2, slo_p99_ms => 5)};
my ($decision, $fleet_rule, $fleet_verdict) = split /\|/, $coordinator->safe_psql('postgres', sprintf($decide, 'decision, stop_rule, verdict', 3, 'false'));
is($sweep_rule, 'scaling', 'ranread_sweep stops the crafted steps by the scaling rule');
is("$decision $fleet_rule", "stop $sweep_rule", 'the fleet sweep, on the same figures, stops by the same rule');
my ($sweep_reason) = $sweep_verdict =~ /(It stopped because .*)$/;
my ($fleet_reason) = $fleet_verdict =~ /(It stopped because .*)$/;
ok(defined $sweep_reason && $fleet_reason eq $sweep_reason, "with the same reason: $sweep_reason") or diag("$fleet_verdict\n$sweep_verdict");
# a step within the SLO on the fleet but not on every server is outside it: the same figures, the step's
# mean within the SLO, stop by scaling only because a server was outside
is($coordinator->safe_psql('postgres', sprintf($decide, q{decision || ' ' || next_processes}, 0.9, 'false')), 'go on 4',
	'within the SLO and gaining beyond the noise, the sweep searches on, to 4 processes per server');
is($coordinator->safe_psql('postgres', sprintf($decide, q{decision || ' ' || coalesce(stop_rule, '')}, 0.9, 'true')), 'stop scaling',
	'with a server outside the SLO the same step stops by the scaling rule');
# a mean over stop_latency_ms by less than its noise: the step is run again, in ranread_sweep's words
like($coordinator->safe_psql('postgres', sprintf($decide, q{decision || ' ' || repeat_text || ' ' || repeat_detail}, 10.1, 'false')),
	qr/^repeat step 2 is within the noise of a stop rule: running it again \(repeat 1 of at most 2\), its runs combined Its mean latency, 10\.10 ms ± 2\.0 %, is over stop_latency_ms \(10 ms\) by less than its noise\.$/,
	'a step within its noise of the latency rule is repeated, in the words of ranread_sweep');
like(shown($coordinator, q{SELECT * FROM ranread_sweep_decide('{1}', '{1}', '{1,2}', '{completed}', '{1}', '{1}', '{1}', '{1}', '{1}', '{1}', '{1}', '{1}',
	'{false}', 1, 'argument', 10, 25, 2, 5)}, verbose => 1), qr/ERROR:  22023: processes must hold as many elements as sweep/,
	'ranread_sweep_decide() refuses arrays of different lengths with 22023');

# the fleet sweep as a chart: a bar a step stacked from its servers' IOPS, the fleet's p99 and mean
my $export_dir = PostgreSQL::Test::Utils::tempdir();
my $svg = $coordinator->safe_psql('postgres', 'SELECT ranread_chart_fleet()');
my @parts = $svg =~ /<rect class="server-bar"[^>]*><title>(step \d, fleet run \d+, node\d: [0-9,]+ IOPS, completed)<\/title>/g;
is(scalar(@parts), 6, 'ranread_chart_fleet(): three steps of two servers, a stacked part each');
like($parts[0], qr/^step 1, fleet run \d+, node1: /, 'in the order of steps and servers') or diag($parts[0]);
like($svg, qr/<path class="p99" d="M[^"]*L[^"]*L[^"]*"/, "the fleet's p99 as a line through the steps");
like($svg, qr/<path class="mean" /, 'and its mean');
is(join(',', $svg =~ /class="category" text-anchor="middle">(\d+)</g), '1,2,4', 'against the processes per server');
like($svg, qr/>node2</, 'the legend names the servers');
open(my $fh, '>', "$export_dir/fleet.svg") or die;
print $fh $svg;
close($fh);
is(system("xmllint --noout '$export_dir/fleet.svg'"), 0, 'the chart is well-formed XML');
like(shown($coordinator, 'SELECT ranread_chart_fleet(123456789)', verbose => 1),
	qr/ERROR:  22023: fleet sweep 123456789 does not exist/, 'a fleet sweep that does not exist is refused');

# ranread_export(): the fleet runs, their servers and the fleet sweep's chart, in files of their own
my @exported = split /\n/, $coordinator->safe_psql('postgres', qq{SELECT * FROM ranread_export('$export_dir', svg => true)});
my ($fleet_tsv) = grep { /-fleet\.tsv$/ } @exported;
my ($servers_tsv) = grep { /-fleet-servers\.tsv$/ } @exported;
ok(defined($fleet_tsv) && defined($servers_tsv), 'ranread_export() writes the fleet runs and their servers') or diag(join(' ', @exported));
is(scalar(grep { /-fleet-sweep\d+\.svg$/ } @exported), 1, 'and, with svg, the fleet sweep\'s chart');
my @fleet_lines = split /\n/, PostgreSQL::Test::Utils::slurp_file($fleet_tsv);
like($fleet_lines[0], qr/^fleet\tfleet_sweep\tsweep_step\t/, 'the fleet file has ranread_fleet_summary\'s columns');
is(scalar(@fleet_lines) - 1, $coordinator->safe_psql('postgres', 'SELECT count(*) FROM ranread_fleet_runs'), 'a line per fleet run');
is(scalar(split /\n/, PostgreSQL::Test::Utils::slurp_file($servers_tsv)) - 1,
	$coordinator->safe_psql('postgres', 'SELECT count(*) FROM ranread_fleet_servers'), 'a line per server of each');
is(scalar(grep { /fleet/ } split /\n/, $nodes[1]->safe_psql('postgres', qq{SELECT * FROM ranread_export('$export_dir')})), 0,
	'a server that coordinated no fleet exports no fleet file');

like(shown($coordinator, q{BEGIN; CALL ranread_fleet_sweep(ARRAY['node1'], 1, 1, iterations => 100)}),
	qr/ERROR:  invalid transaction termination/, 'a fleet sweep cannot run in a transaction block (it commits each step)');
like(shown($coordinator, q{CALL ranread_fleet_sweep(ARRAY['node1'], 4, 2, iterations => 100)}),
	qr/start_processes must be at least 1, and max_processes between start_processes and 1024/, 'bad bounds are refused');

# the checks before anything starts: every problem said, nothing started
my $spare = new_node('spare');                        # ranread 1.1, no target
$spare->safe_psql('postgres', q{DROP EXTENSION ranread; CREATE EXTENSION ranread VERSION '1.1'});
add_server('old_version', $spare);
my $bare = new_node('bare');                          # 1.2, but no target
add_server('no_target', $bare);
my $gone = PostgreSQL::Test::Cluster->new('gone');   # never started
$gone->init;
add_server('unreachable', $gone);
my $batches = join ',', map { $_->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches') } @nodes;
$out = shown($coordinator, q{SELECT * FROM ranread_fleet_run(ARRAY['node2', 'old_version', 'no_target', 'unreachable'], 2, 100)}, verbose => 1);
like($out, qr/ERROR:  55000: 3 of 4 servers cannot run the fleet/, 'three bad servers of four are refused together');
my $version = $coordinator->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'ranread'});
like($out, qr/old_version: extension ranread 1\.1, the coordinator's \Q$version\E/, 'a server with another version of ranread');
like($out, qr/no_target: ranread target "ranread_target" does not exist \(Create it with ranread_setup/, 'a server without the target');
like($out, qr/unreachable: could not establish connection/, 'a server that cannot be reached');
like($out, qr/HINT:  Nothing was started\./, 'nothing was started');
# (a server whose offset measured 0, at the clocks' microseconds, is within
# any bound: either or both may be named)
like(shown($coordinator, q{SELECT * FROM ranread_fleet_run(ARRAY['node1', 'node2'], 2, 100, max_clock_offset_ms => 0.000001)}),
	qr/node[12]: its clock is -?[0-9.]+ ms off the coordinator's, more than max_clock_offset_ms \(1e-06\)/,
	'a server whose clock is further off than max_clock_offset_ms');
like(shown($coordinator, q{SELECT * FROM ranread_fleet_run(ARRAY['node1'], 64, 100)}),
	qr/node1: \d+ free worker slots for 64 processes/, 'a server without enough free worker slots');
is(join(',', map { $_->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches') } @nodes), $batches,
	'no server ran a batch');

# bad input and privileges
foreach my $case (
	[ q{ranread_fleet_run('{}', 2, 100)}, qr/servers must name at least one foreign server/ ],
	[ q{ranread_fleet_run(ARRAY['node1', 'node1'], 2, 100)}, qr/servers must name at most 64 foreign servers, each once/ ],
	[ q{ranread_fleet_run(ARRAY['node1'], 2, NULL)}, qr/must not be null, nor both iterations and duration/ ],
	[ q{ranread_fleet_run(ARRAY['node1'], 2, 100, start_delay => '0 s')}, qr/start_delay between 0\.2 s and 1 minute/ ],
	[ q{ranread_fleet_run(ARRAY['node1'], 0, 100)}, qr/processes must be at least 1/ ],
	[ q{ranread_fleet_run(ARRAY['nowhere'], 2, 100)}, qr/foreign server "nowhere" does not exist/ ])
{
	like(shown($coordinator, "SELECT * FROM $case->[0]"), $case->[1], "$case->[0] is refused");
}
$coordinator->safe_psql('postgres', q{
	CREATE ROLE fleeter LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_fleet_run, ranread_fleet_open TO fleeter;   -- with the phase that checks
	GRANT USAGE ON FOREIGN SERVER node1 TO fleeter;
});
like(shown($coordinator, q{SET ROLE fleeter; SELECT * FROM ranread_fleet_run(ARRAY['node1', 'node2'], 2, 100)}, verbose => 1),
	qr/ERROR:  42501: permission denied for foreign server "node2"/, 'a role without USAGE on a foreign server is refused');
$coordinator->safe_psql('postgres', 'DROP EXTENSION dblink CASCADE');
like(shown($coordinator, q{SELECT * FROM ranread_fleet_run(ARRAY['node1'], 2, 100)}),
	qr/ranread_fleet_run needs extension dblink in this database/, 'without dblink it says what it needs');
$coordinator->safe_psql('postgres', 'CREATE EXTENSION dblink');
add_server("node$_", $nodes[ $_ - 1 ]) foreach 1 .. 3;

# a cancel of the coordinator's statement cancels every server's run; what they measured is kept
# (the runs that must still be reading when the test acts read in mode direct: through the page
# cache a run ends once it has read each unit of its 64 MB target, within a second on a quiet machine)
my ($ch, $cancel_out, $cancel_err) = start_psql($coordinator,
	q{SELECT scope, server, status FROM ranread_fleet_run(ARRAY['node1', 'node2'], 2, NULL, 'direct', duration => '60 s')});
wait_until($nodes[1], q{SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'});
$coordinator->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE query LIKE 'SELECT scope, server, status FROM ranread_fleet_run%' AND pid <> pg_backend_pid()});
$ch->finish;
like($$cancel_out, qr/server \| node1\s+\| cancelled.*server \| node2\s+\| cancelled.*fleet\s+\|\s+\| cancelled/s,
	'a cancelled fleet returns every server\'s run as cancelled, and the fleet') or diag($$cancel_err);
is($nodes[1]->safe_psql('postgres', q{SELECT status, reads > 0 FROM ranread_batches ORDER BY batch DESC LIMIT 1}),
	'cancelled|t', 'the server recorded its cancelled batch with what it read');
is($coordinator->safe_psql('postgres', q{SELECT status, iops > 0 FROM ranread_fleet_runs ORDER BY fleet DESC LIMIT 1}),
	'cancelled|t', 'and so did the coordinator');

# ranread_stop() on the coordinator stops every server's run, each recorded as stopped with what it read
my ($sh, $stop_out, $stop_err) = start_psql($coordinator,
	q{SELECT scope, server, status FROM ranread_fleet_run(ARRAY['node2', 'node3'], 2, NULL, 'direct', duration => '60 s')});
wait_until($_, q{SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'})
	foreach @nodes[ 1, 2 ];
$coordinator->safe_psql('postgres', q{GRANT EXECUTE ON FUNCTION ranread_stop TO fleeter});
is($coordinator->safe_psql('postgres', q{SET ROLE fleeter; SELECT ranread_stop()}), '0',
	"another role's ranread_stop() leaves the fleet run alone, without an error");
is($coordinator->safe_psql('postgres', 'SELECT ranread_stop()'), '1', "ranread_stop() on the coordinator asks the fleet run's session");
is(join(',', map { $_->safe_psql('postgres', q{SELECT status, reads > 0 FROM ranread_batches ORDER BY batch DESC LIMIT 1}) } @nodes[ 1, 2 ]),
	'stopped|t,stopped|t', 'and returns once every server has recorded its run as stopped, with what it read');
$sh->finish;
like($$stop_out, qr/server \| node2\s+\| stopped.*server \| node3\s+\| stopped.*fleet\s+\|\s+\| stopped/s,
	'the fleet run returns both servers\' runs as stopped, and the fleet') or diag($$stop_err);
is($coordinator->safe_psql('postgres', q{SELECT status, iops > 0 FROM ranread_fleet_runs ORDER BY fleet DESC LIMIT 1}),
	'stopped|t', 'and records it so');
is($coordinator->safe_psql('postgres', 'SELECT ranread_stop()'), '0', 'with no fleet run waiting, ranread_stop() asks nobody');

# ... also when the coordinator is one of the servers: the fleet's own ranread_stop() on it
# does not wait for the fleet, which waits for that call (each waited for the other until
# ranread_stop()'s 5 s bound ended it: review D8)
($sh, $stop_out, $stop_err) = start_psql($coordinator,
	q{SELECT scope, server, status FROM ranread_fleet_run(ARRAY['node1', 'node2'], 2, NULL, 'direct', duration => '60 s')});
wait_until($_, q{SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'})
	foreach @nodes[ 0, 1 ];
my $stop_started = Time::HiRes::time();
is($coordinator->safe_psql('postgres', 'SELECT ranread_stop() > 0'), 't', 'ranread_stop() with the coordinator among the servers');
my $stop_took = Time::HiRes::time() - $stop_started;
cmp_ok($stop_took, '<', 4.5, sprintf('returns in %.2f s, before the 5 s a stop waits at most', $stop_took));
$sh->finish;
like($$stop_out, qr/server \| node1\s+\| stopped.*server \| node2\s+\| stopped.*fleet\s+\|\s+\| stopped/s,
	'both servers\' runs stopped, and the fleet') or diag($$stop_err);

# a server stopped in the middle of the run: recorded as disconnected, the others kept
# ('direct' reads on for its whole duration: an smgr run of the 64 MB target could end
# by covering it before node3's workers are seen reading, on a busy machine)
my ($h, $fleet_out, $fleet_err) = start_psql($coordinator,
	q{SELECT scope, server, status FROM ranread_fleet_run(ARRAY['node1', 'node2', 'node3'], 2, NULL, 'direct', duration => '8 s')});
wait_until($nodes[2], q{SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'});
$nodes[2]->stop('immediate');
$h->finish;
like($$fleet_out, qr/server \| node3\s+\| disconnected/, 'the stopped server is recorded as disconnected') or diag($$fleet_err);
like($$fleet_out, qr/server \| node1\s+\| completed.*server \| node2\s+\| completed/s, 'the others completed');
like($$fleet_out, qr/fleet\s+\|\s+\| partial/, 'the fleet is partial');
like($$fleet_err, qr/WARNING:  01000: fleet \d+ ended partial: 2 of 3 servers completed/, 'and a WARNING says so');
is($coordinator->safe_psql('postgres', q{SELECT error IS NOT NULL FROM ranread_fleet_servers WHERE server = 'node3' ORDER BY fleet DESC LIMIT 1}),
	't', 'with what the connection said');

# a server whose clock is 3 s ahead (its postmaster under libfaketime): refused
# by the default bound; with a wider one, released at the same real time as
# the others (a start_at not shifted by its offset would lie in its past)
my $faketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
ok(-e $faketime, 'libfaketime is installed (scripts/install-deps.sh)');
{
	local $ENV{LD_PRELOAD} = $faketime;
	local $ENV{FAKETIME} = '+3s';
	# as a clock set wrong is: the wall clock only, durations as they are
	local $ENV{FAKETIME_DONT_FAKE_MONOTONIC} = '1';
	$nodes[2]->start;
}
$out = shown($coordinator, q{SELECT * FROM ranread_fleet_run(ARRAY['node2', 'node3'], 2, 100)});
like($out, qr/node3: its clock is [23]\d{3}(\.\d+)? ms off the coordinator's, more than max_clock_offset_ms \(50\)/,
	'a server whose clock is 3 s ahead is refused under the default bound');
like($out, qr/node3: ranread target "ranread_target" is empty or incomplete \(Run ranread_setup\(target => 'ranread_target'\) again/,
	'as is its target, which the crash of its immediate stop emptied');
$nodes[2]->safe_psql('postgres', q{SELECT ranread_setup('64 MB', log_level => 0)});
$coordinator->safe_psql('postgres', q{SELECT * FROM ranread_fleet_run(ARRAY['node2', 'node3'], 2, NULL, duration => '3 s',
	max_clock_offset_ms => 5000)});
my ($offset, $offset_overlap, $release_gap, $statuses) = split /\|/, $coordinator->safe_psql('postgres', q{
	SELECT (SELECT clock_offset_ms FROM ranread_fleet_servers s WHERE s.fleet = f.fleet AND server = 'node3'),
	       f.overlap_pct,
	       (SELECT 1000 * extract(epoch FROM max(started_at) - min(started_at)) FROM ranread_fleet_servers s WHERE s.fleet = f.fleet),
	       f.status
	FROM ranread_fleet_runs f ORDER BY fleet DESC LIMIT 1});
is($statuses, 'completed', 'with max_clock_offset_ms 5000 the fleet runs');
ok($offset > 2900 && $offset < 3100, "the offset measured, $offset ms, is the 3 s set");
cmp_ok($release_gap, '<', 100, "both servers were released within $release_gap ms of each other, on the coordinator's clock");
# (its window not moved back by the offset would begin after the others' 3 s)
cmp_ok($offset_overlap, '>', 0, "and their windows overlap ($offset_overlap %), node3's taken back by its offset");
$nodes[2]->restart;

# servers of two majors in one fleet: 15 and the server under test
my $old_install = '/usr/lib/postgresql/15';
SKIP:
{
	skip 'a fleet of two majors needs a server newer than 15 and ranread installed for 15', 2
	  if $coordinator->pg_version < 16 || !-e "$old_install/lib/ranread.so";
	my $old = PostgreSQL::Test::Cluster->new('pg15', install_path => $old_install);
	$old->init;
	$old->append_conf('postgresql.conf', "max_worker_processes = 32\n");
	$old->start;
	$old->safe_psql('postgres', q{CREATE EXTENSION ranread; SELECT ranread_setup('64 MB', log_level => 0)});
	add_server('pg15', $old);
	my $mixed = $coordinator->safe_psql('postgres',
		q{SELECT string_agg(scope || ':' || coalesce(server, '') || ':' || status, ',') FROM ranread_fleet_run(ARRAY['node1', 'pg15'], 2, 500)});
	is($mixed, 'server:node1:completed,server:pg15:completed,fleet::completed', 'a fleet of a 15 and a ' . $coordinator->pg_version->major . ' server');
	like($old->safe_psql('postgres', 'SHOW server_version'), qr/^15\./, 'the other server is 15');
}

# Hardened IV: what the servers would refuse is refused before anything
# starts, with nothing recorded (D7); NaN is no bound
my $fleets = $coordinator->safe_psql('postgres', 'SELECT count(*) FROM ranread_fleet_runs');
foreach my $case (
	[ q{ranread_fleet_run(ARRAY['node1'], 1, 100, mode => 'bogus')}, qr/node1: unknown ranread mode "bogus"/ ],
	[ q{ranread_fleet_run(ARRAY['node1', 'node2'], 2, -5)}, qr/node1: iterations must be .*\n.*node2: iterations must be /s ],
	[ q{ranread_fleet_run(ARRAY['node1'], 1, NULL, duration => '8 days')}, qr/node1: duration must be/ ],
	[ q{ranread_fleet_run(ARRAY['node1'], 1, 100, max_clock_offset_ms => 'NaN')}, qr/max_clock_offset_ms must be a positive number/ ],
	[ q{ranread_fleet_run(ARRAY['node1'], 1, 100, max_clock_offset_ms => 'Infinity')}, qr/max_clock_offset_ms must be a positive number/ ])
{
	like(shown($coordinator, "SELECT * FROM $case->[0]"), $case->[1], "$case->[0] is refused before anything starts");
}
like(shown($coordinator, q{CALL ranread_fleet_sweep(ARRAY['node1'], 1, 2, 100, NULL, slo_mean_ms => 'NaN')}),
	qr/stop_latency_ms and the SLO bounds must be positive numbers/, 'a fleet sweep refuses a NaN bound');
is($coordinator->safe_psql('postgres', 'SELECT count(*) FROM ranread_fleet_runs'), $fleets, 'and no fleet run was recorded');

# two foreign servers for one cluster are refused, not counted twice (D5)
add_server('alias2', $nodes[1]);
like(shown($coordinator, q{SELECT * FROM ranread_fleet_run(ARRAY['node2', 'alias2'], 1, 100)}),
	qr/alias2: the same cluster as node2 \(system identifier \d+\), which runs one batch at a time/,
	'a second foreign server for one cluster is refused');

# a server whose batch row ranread cannot use is that server's failure; the
# others are kept (D4)
$nodes[1]->safe_psql('postgres', q{
	CREATE FUNCTION forge() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.wall_s := 'NaN'; RETURN NEW; END $$;
	CREATE TRIGGER forge BEFORE INSERT ON ranread_batches FOR EACH ROW EXECUTE FUNCTION forge();});
$nodes[2]->safe_psql('postgres', q{
	CREATE FUNCTION forge() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.histogram := '{-5}'; RETURN NEW; END $$;
	CREATE TRIGGER forge BEFORE INSERT ON ranread_batches FOR EACH ROW EXECUTE FUNCTION forge();});
$out = shown($coordinator, q{SELECT scope, server, status, error FROM ranread_fleet_run(ARRAY['node1', 'node2', 'node3'], 1, 200)});
like($out, qr/^server\|node1\|completed\|$/m, 'a server whose row is sound is kept');
like($out, qr/^server\|node2\|failed\|the server's row of batch \d+ has a wall_s ranread cannot use$/m,
	'a NaN wall_s makes its server failed');
like($out, qr/^server\|node3\|failed\|the server's row of batch \d+ has a histogram \(.*negative/m,
	'a negative histogram bucket makes its server failed');
like($out, qr/^fleet\|\|partial\|$/m, 'and the fleet is recorded partial');
$_->safe_psql('postgres', 'DROP TRIGGER forge ON ranread_batches; DROP FUNCTION forge()') foreach @nodes[ 1, 2 ];

# a server named like the fleet's own connections is stopped like any (D8)
add_server('ranread_fleet_1', $nodes[1]);
($sh, $stop_out, $stop_err) = start_psql($coordinator,
	q{SELECT scope, server, status FROM ranread_fleet_run(ARRAY['ranread_fleet_1', 'node3'], 1, NULL, 'direct', duration => '60 s')});
wait_until($_, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'})
	foreach @nodes[ 1, 2 ];
is($coordinator->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() asks the fleet run');
is(join(',', map { $_->safe_psql('postgres', q{SELECT status FROM ranread_batches ORDER BY batch DESC LIMIT 1}) } @nodes[ 1, 2 ]),
	'stopped,stopped', "and both servers' runs are stopped when it returns, also the one named ranread_fleet_1");
$sh->finish;

# a server that stops answering: one cancel ends the fleet run, recorded (D8)
($ch, $cancel_out, $cancel_err) = start_psql($coordinator,
	q{SELECT scope, server, status, error FROM ranread_fleet_run(ARRAY['node1', 'node2'], 1, NULL, 'direct', duration => '60 s')});
wait_until($_, q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'})
	foreach @nodes[ 0, 1 ];
my $silent = $nodes[1]->safe_psql('postgres', q{SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT batch FROM %ranread_run(%'});
ok(kill('STOP', $silent), "the server's backend running the fleet's run stops answering");
$coordinator->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE query LIKE 'SELECT scope, server, status, error FROM ranread_fleet_run%' AND pid <> pg_backend_pid()});
ok(wait_until($coordinator, q{SELECT count(*) = 0 FROM pg_stat_activity
	WHERE query LIKE 'SELECT scope, server, status, error FROM ranread_fleet_run%' AND pid <> pg_backend_pid()}),
	'one cancel ends the fleet run');
kill('CONT', $silent);
$ch->finish;
like($$cancel_out, qr/server \| node1\s+\| cancelled.*server \| node2\s+\| failed\s+\| the server did not end its run within 5 s of the fleet's cancel.*fleet\s+\|\s+\| cancelled/s,
	'the silent server is recorded as such, the other as cancelled, and the fleet as cancelled') or diag($$cancel_err);
wait_until($nodes[1], q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'ranread worker'});

# a fleet sweep past the servers' free worker slots is cut to them and ends with its verdict (D9)
# (32 processes on a busy machine's CPUs can pass the default stop_latency_ms of 10 ms: far away here)
$out = shown($coordinator, q{CALL ranread_fleet_sweep(ARRAY['node1'], 16, 64, iterations => 50, duration => NULL, min_scaling_pct => 0,
	stop_latency_ms => 1000, slo_mean_ms => 1000, slo_p99_ms => 1000)});
like($out, qr/NOTICE:  fleet sweep \d+: 32 processes per server are more than the servers' free worker slots, (\d+) from now on/,
	'a step past the free worker slots is cut to them');
like($out, qr/NOTICE:  fleet sweep \d+ completed after 2 steps\nDETAIL:  Highest IOPS: .*It stopped at \d+ processes, as many as background worker slots were free/,
	'and the sweep ends with its verdict, by the worker slots as ranread_sweep says it');

ok(log_is_clean($_), 'the server log has no internal error') foreach @nodes;
done_testing();
