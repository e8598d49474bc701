# One line a step: the programs made of batches (ranread_layers,
# ranread_calibrate, ranread_sweep) say one NOTICE a step, and their
# batches' own NOTICEs (ranread_run's four lines: response time, IOPS,
# percentiles, device) are DEBUG1, which a caller sees by asking for it
# with client_min_messages = debug1.  A plain ranread_run() says its four.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('one_line');
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', log_level => 0)});
my $layers = $node->pg_version >= 18 ? 4 : 3;
my $batch_line = qr/^NOTICE:  \d+ process(?:es)? \(\d+ iterations\) average response time/;

my $out = shown($node, 'SELECT ranread_run(2, 100)');
is(lines_matching($out, $batch_line), 1, 'ranread_run() says its batch NOTICE');

# layers: 3 rounds, one NOTICE each, and one at the end
$out = shown($node, 'SELECT count(*) FROM ranread_layers(2, 600, max_rounds => 3)');
is(lines_matching($out, qr/^NOTICE:  /), 4, 'ranread_layers: 4 NOTICEs, one a round (3) and where the time goes');
is(lines_matching($out, $batch_line), 0, 'none of its ' . 6 * $layers . ' batches says its own');
$out = shown($node, 'SET client_min_messages = debug1; SELECT count(*) FROM ranread_layers(2, 600, max_rounds => 3)');
is(lines_matching($out, qr/^DEBUG:  \d+ process(?:es)? \(\d+ iterations\) average response time/), 6 * $layers,
	'with client_min_messages = debug1, each of its batches says its own');

# calibrate: a NOTICE a step (three look-ahead passes, six pairs), and its two answers
$out = shown($node, 'SELECT count(*) FROM ranread_calibrate(iterations => 100, max_pairs => 6, max_depth => 2)');
is(lines_matching($out, qr/^NOTICE:  calibration \d+: look-ahead pass \d of 3: /), 3, 'ranread_calibrate: one NOTICE a look-ahead pass (3)');
is(lines_matching($out, qr/^NOTICE:  calibration \d+: pair \d+: a random page costs [0-9.]+ sequential ones/), 6,
	'one NOTICE a pair (6), with its ratio');
is(lines_matching($out, qr/^NOTICE:  /), 3 + 6 + 2, 'and its two answers, nothing else');
is(lines_matching($out, $batch_line), 0, 'none of its batches says its own');

# sweep: a NOTICE a step it ran and the verdict.  A step whose stop decision
# lies within its noise runs again (another batch of that step, with its own
# NOTICE), and a busy machine may stop the sweep at its first step: so the
# NOTICEs are counted against the sweep's batches, not against two.
$out = shown($node, 'CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 100)');
is(lines_matching($out, qr/^NOTICE:  step \d+: /),
	$node->safe_psql('postgres', q{SELECT count(*) FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM ranread_sweep_runs)}),
	'ranread_sweep: one NOTICE a step it ran (each run of a repeated step included)');
is(lines_matching($out, $batch_line), 0, 'none of its batches says its own');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
