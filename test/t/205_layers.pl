# ranread_layers(): the same units through each read path, from the device
# up ('direct', 'smgr', 'buffer', and from 18 'stream'), one batch each,
# marked with the layers run and sharing one seed; one row per layer with
# what it adds over the one below, and a NOTICE saying where the time goes.
# Bad input is refused before anything runs; a role that may not run
# ranread_run() may not run it either.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('layers');
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', log_level => 0)});
my @modes = ('direct', 'smgr', 'buffer');
push @modes, 'stream' if $node->pg_version >= 18;

my $out = shown($node, q{
	SELECT layer, mode, batch, adds_mean_ms IS NULL AS first, physical_pct >= 95 AS physical
	FROM ranread_layers(2, 500)});
like($out, qr/NOTICE:  layers run \d+: of a mean [0-9.]+ ms through mode $modes[-1], device [0-9.]+ ms \(\d+%\), page cache and storage manager -?[0-9.]+ ms/,
	'a NOTICE says where the time goes, layer by layer');
my @rows = grep { /^\s*\S.*\|/ && !/^\s*layer\s*\|/ } split /\n/, $out;
is(scalar(@rows), scalar(@modes), 'one row per layer this server has (' . scalar(@modes) . ')');
is(join(',', map { (split /\s*\|\s*/)[1] } @rows), join(',', @modes), 'from the device up, in order');

my $run = $node->safe_psql('postgres', 'SELECT max(layers) FROM ranread_batches');
is($node->safe_psql('postgres', qq{
	SELECT string_agg(mode, ',' ORDER BY batch) || ' ' || count(DISTINCT seed) || ' ' || bool_and(batch > layers)
	   || ' ' || bool_and(physical_pct >= 95) || ' ' || bool_and(status = 'completed')
	FROM ranread_batches WHERE layers = $run}),
	join(',', @modes) . ' 1 true true true',
	'its batches: one per layer, one seed for all, numbered after the run, physical, completed');
is($node->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches WHERE layers IS NULL}), '0',
	'no other batch is marked');
$node->safe_psql('postgres', q{SELECT ranread_run(1, 100)});
$node->safe_psql('postgres', q{SELECT ranread_run(1, 100)});
is($node->safe_psql('postgres', q{SELECT count(DISTINCT seed) FROM ranread_batches WHERE layers IS NULL}), '2',
	'plain runs each draw a seed of their own');

# what each layer adds is its mean less the mean of the layer below, each
# rounded to 0.1 us; the figures are the batches', rounded
is($node->safe_psql('postgres', qq{
	CREATE TABLE layered AS SELECT * FROM ranread_layers(1, 300);
	SELECT bool_and(abs(l.adds_mean_ms - (l.mean_ms - lag)) <= 0.00011)
	   AND bool_and(l.iops = round(b.iops) AND abs(l.mean_ms - b.response_time_ms) <= 0.00005)
	FROM (SELECT batch, iops, adds_mean_ms, mean_ms, lag(mean_ms) OVER (ORDER BY batch) AS lag FROM layered) l
	JOIN ranread_batches b USING (batch)
	WHERE lag IS NOT NULL}), 't', 'adds_mean_ms is the mean less the layer below\'s, and the figures are the batches\' rounded');

# bad input and privileges, refused before anything runs
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
is(sqlstate_of(shown($node, 'SELECT * FROM ranread_layers(0, 100)', verbose => 1)), '22023', 'processes 0 is refused');
is(sqlstate_of(shown($node, 'SELECT * FROM ranread_layers(2, NULL)', verbose => 1)), '22004',
	'neither iterations nor duration is refused');
is(sqlstate_of(shown($node, "SELECT * FROM ranread_layers(2, 100, 'no_such_target')", verbose => 1)), '42704',
	'an unknown target is refused');
# 64 MB hold 8,192 units: a page-cache layer would re-read, which only mode direct may
$out = shown($node, 'SELECT * FROM ranread_layers(1, 9000)', verbose => 1);
is(sqlstate_of($out), '22023', 'more reads than units are refused before the first layer runs');
like($out, qr/re-read a unit read earlier in the run/, 'for the re-reads of the layers that may not re-read');
$node->safe_psql('postgres', q{
	CREATE ROLE layman LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_layers TO layman;
});
my ($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT * FROM ranread_layers(1, 100)', extra_params => [ '-U', 'layman' ]);
like($stderr, qr/ERROR:  permission denied to run ranread_layers/, 'a role that may not run ranread_run() may not run layers');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'none of them recorded a batch');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
