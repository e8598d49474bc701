# What a user sees in psql: setup progress, the RanRead NOTICE lines, the
# small-target and re-read WARNINGs; and that the target's file is really
# allocated.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('messages');

my $out = shown($node, "SELECT ranread_setup('64 MB', target => 'messages')");
is(lines_matching($out, qr/^NOTICE:  ranread_setup: [0-9]+% written \([0-9]+ of 64 MB, [0-9]+ MB\/s\)$/), 9,
	'log_level 1 reports progress about every 10 %');
like($out, qr/^WARNING:  ranread target "messages" is smaller than twice the server.s memory$/m,
	'a target under 2 x RAM is warned about');
my ($path) = $out =~ / at (\/[^,]+), written in /;
my @st = stat $path;
is($st[7], 67108864, 'the first segment holds all 64 MB');
cmp_ok($st[12] * 512, '>=', $st[7], "the segment is fully allocated, not sparse (" . $st[12] * 512 . " bytes on disk)");

$out = shown($node, "SELECT ranread_setup('8 MB', target => 'silent', log_level => 0)");
is(lines_matching($out, qr/^NOTICE/), 0, 'log_level 0 reports no progress');
$out = shown($node, "SELECT ranread_drop('silent'); SELECT ranread_setup('8 MB', target => 'silent', log_level => 3)");
like($out, qr/^NOTICE:  ranread_setup: wrote segment .+ \(1024 blocks\)$/m, 'log_level 3 reports each segment');

$out = shown($node, "SELECT * FROM ranread_run(2, 200, 'messages')");
like($out, qr/^NOTICE:  2 processes \(200 iterations\) average response time = [0-9]+\.[0-9]{2,}ms$/m,
	"RanRead's response-time line");
like($out, qr/^NOTICE:  Calculated IOPS = [0-9]+$/m, "RanRead's IOPS line");
like($out, qr/^NOTICE:  latency percentiles: p50 = [0-9.]+ms, p99 = [0-9.]+ms, max = [0-9.]+ms$/m,
	'the percentile line');
# reads from the page cache take microseconds: they must not print as 0.00
shown($node, "SELECT * FROM ranread_run(1, 300, 'messages', evict => false)");
$out = shown($node, "SELECT * FROM ranread_run(1, 300, 'messages', evict => false)");
like($out, qr/^NOTICE:  latency percentiles: p50 = (0\.0*[1-9][0-9]{2}|[1-9][0-9]*\.[0-9]{2})ms, /m,
	'a sub-millisecond p50 keeps three significant digits');
like($out, qr/^NOTICE:  1 process \(300 iterations\) average response time = /m,
	'one process is "1 process", not "1 processes"');

# Each run reads every unit once, in a random order, before any again.
$out = shown($node, "SELECT * FROM ranread_run(2, 4096, 'messages')");
is(lines_matching($out, qr/^WARNING:.*re-read/), 0, '2 x 4096 reads of 8192 units: no re-read warning');
is($node->safe_psql('postgres', 'SELECT wrapped_reads FROM ranread_summary ORDER BY batch DESC LIMIT 1'), '0',
	'and no read re-read a unit (wrapped_reads = 0)');
$out = shown($node, "SELECT * FROM ranread_run(2, 5000, 'messages')");
like($out, qr/^WARNING:  18% of this run's reads will re-read a unit read earlier in the run$/m,
	'2 x 5000 reads of 8192 units: the warning before the run gives the exact share, 1808 of 10000');
is($node->safe_psql('postgres', 'SELECT wrapped_reads FROM ranread_summary ORDER BY batch DESC LIMIT 1'), '1808',
	'and the batch counts exactly those 1808 re-reads');
$out = shown($node, "SELECT * FROM ranread_run(2, NULL, 'messages', evict => false, duration => '1 s')");
like($out, qr/^WARNING:  batch \d+ read every unit of its target and went on: \d+ of its \d+ reads re-read a unit$/m,
	'a time-based run that wraps around says so after the run');
is($node->safe_psql('postgres', 'SELECT wrapped_reads > 0 AND wrapped_reads < reads FROM ranread_summary ORDER BY batch DESC LIMIT 1'), 't',
	'and counts its re-reads');

done_testing();
