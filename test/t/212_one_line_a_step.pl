# One line a step: the programs made of batches (ranread_layers,
# ranread_calibrate, ranread_sweep) say one NOTICE a step, and their
# batches' own NOTICEs (ranread_run's four lines: response time, IOPS,
# percentiles, device) are DEBUG1, which a caller sees by asking for it
# with client_min_messages = debug1.  A plain ranread_run() says its four.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
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

# calibrate: a NOTICE a batch (depths 1, 2 on 18; 0, 1, 2 before), two pairs, and its two answers
my $depths = $node->pg_version >= 18 ? 2 : 3;
$out = shown($node, 'SELECT count(*) FROM ranread_calibrate(iterations => 100, repetitions => 2, max_depth => 2)');
is(lines_matching($out, qr/^NOTICE:  calibration \d+, batch \d+ \(mode \w+, 1 process, \w+[^)]*\): completed, [0-9,]+ IOPS, mean [0-9.]+ ms, p99 [0-9.]+ ms$/),
	$depths + 4, 'ranread_calibrate: one NOTICE a batch (' . ($depths + 4) . '), saying what it read and measured');
is(lines_matching($out, qr/^NOTICE:  /), $depths + 4 + 2, 'and its two answers, nothing else');
is(lines_matching($out, $batch_line), 0, 'none of its batches says its own');

# sweep: a NOTICE a step and the verdict
$out = shown($node, 'CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 100)');
is(lines_matching($out, qr/^NOTICE:  step \d+: /), 2, 'ranread_sweep: one NOTICE a step');
is(lines_matching($out, $batch_line), 0, 'none of its batches says its own');

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
