# ranread_layers(): the same units through each read path, from the device
# up ('direct', 'smgr', 'buffer', and from 18 'stream'), in rounds of
# batches marked with the layers run and sharing one seed; one row per layer
# with what it adds over the one below and its band, and a NOTICE saying
# where the time goes.
# The layers are read in rounds, up and down (ABCCBA), until each share has
# its band.  ranread_stop() and a cancel keep every batch and say what was
# cut.  Bad input is refused before anything runs; a role that may not run
# ranread_run() may not run it either.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('layers');
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', log_level => 0)});
my @modes = ('direct', 'smgr', 'buffer');
push @modes, 'stream' if $node->pg_version >= 18;

# rounds of short batches, up the layers and down again; 3 rounds of
# 6000 / 6 = 1000 reads per process and batch; the target is evicted from
# shared buffers before each buffer batch (on every major: before 18 by
# dropping its buffers), so the device answers every layer
my $out = shown($node, q{
	SELECT layer, mode, adds_mean_ms IS NULL AND mean_band_ms IS NULL AS first, physical_pct >= 95 AS physical
	FROM ranread_layers(2, 6000, max_rounds => 3)});
my $words = qr/(?:[0-9.]+ ± [0-9.]+ µs|not measurable here \(± [0-9.]+ µs\)|not measurable here \(mode \w+ read [0-9.]+ ± [0-9.]+ µs faster than mode \w+\))/;
like($out, qr/NOTICE:  layers run \d+ after 3 rounds: of a mean [0-9.]+ ms through mode $modes[-1], device [0-9.]+ ms, page cache $words/,
	'a NOTICE says where the time goes, each share with its band or as not measurable here');
unlike($out, qr/NOTICE:  layers run[^\n]* -[0-9]/, 'no NOTICE gives a negative time');
is(lines_matching($out, qr/^NOTICE:  layers run \d+, round \d of at most 3: /), 3, 'one NOTICE a round');
my @rows = grep { /^\s*\S.*\|/ && !/^\s*layer\s*\|/ } split /\n/, $out;
is(scalar(@rows), scalar(@modes), 'one row per layer this server has (' . scalar(@modes) . ')');
is(join(',', map { (split /\s*\|\s*/)[1] } @rows), join(',', @modes), 'from the device up, in order');
like((split /\s*\|\s*/, $rows[0])[3], qr/^t/, 'the device has no share and no band');
my $widest = (sort { $b <=> $a } map { length } grep { /\|/ } split /\n/, $out)[0];
cmp_ok($widest, '<=', 120, 'a row a layer, within 120 columns as psql prints them');

my $run = $node->safe_psql('postgres', 'SELECT max(layers) FROM ranread_batches');
is($node->safe_psql('postgres', qq{SELECT string_agg(n::text, ',' ORDER BY first) FROM (
	SELECT count(*) AS n, min(batch) AS first FROM ranread_batches WHERE layers = $run GROUP BY mode) c}),
	join(',', map { 6 } @modes), 'each layer with its 6 batches (two a round)');
my $round = join(',', @modes, reverse @modes);
is($node->safe_psql('postgres', qq{
	SELECT string_agg(mode, ',' ORDER BY batch) || ' ' || count(DISTINCT seed) || ' ' || bool_and(batch > layers)
	   || ' ' || bool_and(physical_pct >= 95)
	   || ' ' || bool_and(status = 'completed') || ' ' || min(iterations)
	FROM ranread_batches WHERE layers = $run}),
	"$round,$round,$round 1 true true true 1000",
	'its batches: up the layers and down again, three rounds, one seed for all, numbered after the run, physical, completed, 1000 reads a process');
is($node->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches WHERE layers IS NULL}), '0',
	'no other batch is marked');
$node->safe_psql('postgres', q{SELECT ranread_run(1, 100)});
$node->safe_psql('postgres', q{SELECT ranread_run(1, 100)});
is($node->safe_psql('postgres', q{SELECT count(DISTINCT seed) FROM ranread_batches WHERE layers IS NULL}), '2',
	'plain runs each draw a seed of their own');

# a share is the mean over the rounds of its layer's mean less the layer
# below's (a round's mean of a layer: its two batches'), its band the 95 %
# interval of those differences (t = 4.303 for 3 rounds); the share is
# given only when the band is above zero; the figures are the batches'
is($node->safe_psql('postgres', qq{
	CREATE TABLE layered AS SELECT row_number() OVER () AS n, * FROM ranread_layers(1, 1200, max_rounds => 3);
	WITH numbered AS (
		SELECT l.n, b.response_time_ms, (row_number() OVER (PARTITION BY l.n ORDER BY b.batch) - 1) / 2 AS round
		FROM layered l JOIN ranread_batches b ON b.mode = l.mode
		 AND b.layers = (SELECT max(layers) FROM ranread_batches)),
	per_round AS (SELECT n, round, avg(response_time_ms) AS mean FROM numbered GROUP BY 1, 2),
	diffs AS (
		SELECT a.n, a.mean - below.mean AS d FROM per_round a JOIN per_round below ON below.n = a.n - 1 AND below.round = a.round),
	shares AS (SELECT n, avg(d) AS value, 4.303 * stddev_samp(d) / sqrt(3) AS band, count(*) AS rounds FROM diffs GROUP BY n)
	SELECT bool_and(s.rounds = 3 AND abs(l.mean_band_ms - s.band) <= 0.00011
	   AND CASE WHEN s.value - s.band > 0 THEN abs(l.adds_mean_ms - s.value) <= 0.00011 ELSE l.adds_mean_ms IS NULL END)
	   AND bool_and(l.adds_mean_ms IS NULL OR l.adds_mean_ms > 0)
	FROM layered l JOIN shares s USING (n)}), 't',
	'each share is the mean of its per-round differences with their 95 % band, given only when the band is above zero');
is($node->safe_psql('postgres', q{
	SELECT bool_and(abs(l.mean_ms - b.mean) <= 0.00005 AND abs(l.p99_ms - b.p99) <= 0.00005)
	FROM layered l, LATERAL (SELECT avg(response_time_ms) AS mean, avg(p99_ms) AS p99 FROM ranread_batches
							 WHERE mode = l.mode AND layers = (SELECT max(layers) FROM ranread_batches)) b}),
	't', 'a layer\'s mean and p99 are its batches\' means, rounded');

# ranread_stop() during a layers run: one call ends the run, whether it
# stops a batch or comes between two (the run's session catches it:
# src/run/program.c); the complete rounds are reported and every batch stays
# recorded
my ($h, $hout, $herr) = start_psql($node, 'SELECT layer, mean_ms FROM ranread_layers(2, 60000, max_rounds => 10)');
$run = $node->safe_psql('postgres', 'SELECT max(layers) FROM ranread_batches') + 0;
ok(wait_until($node, qq{SELECT count(*) > 2 * @{[ scalar(@modes) ]} FROM ranread_batches WHERE layers > $run}),
	'the layers run reaches its second round');
is($node->safe_psql('postgres', 'SELECT ranread_stop()'), '1', 'ranread_stop() signals the layers run\'s session, not its two workers');
$h->finish;
$run = $node->safe_psql('postgres', 'SELECT max(layers) FROM ranread_batches');
my ($recorded, $stopped, $rounds) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), count(*) FILTER (WHERE status = 'stopped'), count(*) / (2 * @{[ scalar(@modes) ]})
	FROM ranread_batches WHERE layers = $run});
cmp_ok($stopped, '<=', 1, 'ranread_stop() stopped the running batch of the layers run, if one ran');
like($$herr, qr/NOTICE:  (?:00000: )?layers run $run after $rounds rounds?: (?:batch \d+ \(mode \w+\) of round @{[ $rounds + 1 ]} was stopped|round @{[ $rounds + 1 ]} was stopped before its batch of mode \w+): the figures are those of the $rounds complete rounds?; /,
	'the NOTICE says which batch was stopped, or before which, and that the complete rounds are reported');
like($$herr, qr/its $recorded batches stay recorded in ranread_batches \(layers = $run\)/, "and that its $recorded batches stay recorded");
is(scalar(grep { /\|/ } split /\n/, $$hout) - 1, scalar(@modes), 'the rows of the complete rounds are returned');

# a cancel: the error's CONTEXT says what the run kept
($h, $hout, $herr) = start_psql($node, 'SELECT * FROM ranread_layers(1, 60000, max_rounds => 10)');
$run = $node->safe_psql('postgres', 'SELECT max(layers) FROM ranread_batches') + 0;
# once two batches are recorded and a worker of a later one reads, so that
# the cancel lands in a batch rather than at the boundary the poll saw
ok(wait_until($node, qq{SELECT (SELECT count(*) > 2 FROM ranread_batches WHERE layers > $run)
	AND EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading')}),
	'another layers run has recorded batches and reads');
interrupt_run($node, $h, 'cancelled', 'SELECT * FROM ranread_layers(1, 60000');
# the cut batch's workers record it after the error has reached the client
ok(wait_for_no_workers($node),
	'the cut batch\'s workers have recorded it and ended');
$run = $node->safe_psql('postgres', 'SELECT max(layers) FROM ranread_batches');
($recorded, my $cancelled) = split /\|/, $node->safe_psql('postgres', qq{
	SELECT count(*), count(*) FILTER (WHERE status = 'cancelled') FROM ranread_batches WHERE layers = $run});
like($$herr, qr/canceling statement due to user request/, 'the cancel ends the layers run with an error');
# the batch that was cut is recorded as cancelled; a cancel that still
# landed between two batches (the batch ended meanwhile: the leader in one of
# its own queries, such as its read of pg_stat_io, whose SQL statement line
# then comes first) cut none
my $between = $$herr =~ /CONTEXT:  SQL statement "/;
is($cancelled, $between ? 0 : 1, $between ? 'a cancel in the leader\'s own query, between two batches, cut none'
	: 'the batch it cut is recorded as cancelled');
like($$herr, qr/CONTEXT:  (?:SQL statement "[^\n]*"\n)?layers run $run, round \d+, mode \w+: the run's @{[ $recorded - $cancelled ]} batches before this one, and this one with its status, stay recorded in ranread_batches \(layers = $run\)/,
	'its CONTEXT says which batch was cut and that the batches before it stay recorded');

# cancels landing anywhere in a layers run (statement_timeout from 150 to
# 520 ms): the leader's abort stops the batch's workers through handles that
# must outlive the call's memory (1.4's tree crashed here within 10 to 14
# cancels, in the detach callback)
{
	my $crashes_before = () = slurp_file($node->logfile) =~ /terminated by signal/g;
	foreach my $i (1 .. 30)
	{
		$node->psql('postgres', sprintf("SET statement_timeout = '%dms'; SET client_min_messages = warning; SELECT ranread_layers(4, 200)", 150 + ($i * 37) % 370));
	}
	my $crashes = () = slurp_file($node->logfile) =~ /terminated by signal/g;
	is($crashes - $crashes_before, 0, '30 layers runs cancelled at varying points: no server process crashed');
	ok(wait_for_no_workers($node), 'and no worker is left');
}

# another session holding a lock on the target (a pg_dump, say) neither
# blocks nor breaks the eviction from shared buffers before a buffer batch:
# before 18 it takes its lock only if no one else holds one, else that batch
# reads without it; the run ends as any other
my ($holder) = start_psql($node, 'BEGIN; LOCK TABLE ranread_target IN ACCESS SHARE MODE; SELECT pg_sleep(600)');
ok(wait_until($node, q{SELECT count(*) = 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid)
	WHERE l.relation = 'ranread_target'::regclass AND a.query LIKE 'BEGIN; LOCK TABLE ranread_target%'}),
	'another session holds a lock on the target');
$out = shown($node, 'SELECT count(*) FROM ranread_layers(1, 600, max_rounds => 3)');
like($out, qr/NOTICE:  layers run \d+ after 3 rounds: /, 'a layers run beside it reads its three rounds');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'BEGIN; LOCK TABLE ranread_target%'});
$holder->finish;

# bad input and privileges, refused before anything runs
my $batches = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
is(sqlstate_of(shown($node, 'SELECT * FROM ranread_layers(0, 100)', verbose => 1)), '22023', 'processes 0 is refused');
is(sqlstate_of(shown($node, 'SELECT * FROM ranread_layers(2, NULL)', verbose => 1)), '22004',
	'neither iterations nor duration is refused');
is(sqlstate_of(shown($node, "SELECT * FROM ranread_layers(2, 100, 'no_such_target')", verbose => 1)), '42704',
	'an unknown target is refused');
foreach my $bad ('max_rounds => 2', 'max_rounds => 101', 'band_pct => 0', 'band_pct => 100.5', q{band_pct => 'NaN'})
{
	$out = shown($node, "SELECT * FROM ranread_layers(2, 1000, $bad)", verbose => 1);
	is(sqlstate_of($out), '22023', "$bad is refused (22023)");
	like($out, qr/(max_rounds must be between 3 and 100|band_pct must be above 0 and at most 100)/, "$bad: the message gives the accepted range");
}
is(sqlstate_of(shown($node, 'SELECT * FROM ranread_layers(2, 1000, max_rounds => NULL)', verbose => 1)), '22004', 'max_rounds NULL is refused');
$out = shown($node, 'SELECT * FROM ranread_layers(2, 19)', verbose => 1);
is(sqlstate_of($out), '22023', 'fewer iterations than 2 x max_rounds are refused');
like($out, qr/iterations must be at least 2 x max_rounds \(20\)/, 'and the message says the least');
# 64 MB hold 8,192 units: a page-cache layer would re-read, which only mode direct may
$out = shown($node, 'SELECT * FROM ranread_layers(1, 9000 * 20)', verbose => 1);
is(sqlstate_of($out), '22023', 'more reads than units are refused before the first layer runs');
like($out, qr/re-read a unit read earlier in the run/, 'for the re-reads of the layers that may not re-read');
$node->safe_psql('postgres', q{
	CREATE ROLE layman LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_layers TO layman;
});
my ($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT * FROM ranread_layers(1, 100)', extra_params => [ '-U', 'layman' ]);
like($stderr, qr/ERROR:  permission denied to run ranread_layers/, 'a role that may not run ranread_run() may not run layers');
is($node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches'), $batches, 'none of them recorded a batch');

# A layer that memory answers ends the run with one WARNING, its cause and
# its fix, not a WARNING a batch.  The device's share is made low
# by a trigger on the batch rows of mode smgr (as a target that fits in
# memory would make it, round by round).
$node->safe_psql('postgres', q{
	CREATE FUNCTION cached_smgr() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN NEW.physical_pct := 40; RETURN NEW; END $$;
	CREATE TRIGGER cached_smgr BEFORE INSERT ON ranread_batches FOR EACH ROW
		WHEN (NEW.layers IS NOT NULL AND NEW.mode = 'smgr') EXECUTE FUNCTION cached_smgr();});
$out = shown($node, 'SELECT count(*) FROM ranread_layers(1, 400)');
# (a busy machine's own WARNINGs, "other I/O shared the device" or "IOPS
# fell", are the machine's, not this run's: only the share's are counted)
is(lines_matching($out, qr/^WARNING:  (?:layers run \d+ ended|only \d+% of the reads)/), 1,
	'a layer answered by memory: one WARNING, not one a batch');
like($out, qr/^WARNING:  layers run \d+ ended in round 1: the device answered only 40% of the reads of batch \d+ \(mode smgr\)\nDETAIL:  Memory answered the rest.*\nHINT:  Use a target at least twice the server's memory/m,
	'it names the batch, the cause and the fix');
like($out, qr/^NOTICE:  layers run \d+ has no complete round: batch \d+ \(mode smgr\) of round 1 was answered 40% by the device: no share was measured/m,
	'and the run ends there');
$node->safe_psql('postgres', 'DROP TRIGGER cached_smgr ON ranread_batches');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
