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

$out = shown($node, "SELECT * FROM ranread_run(2, 200, 'messages')");
is(lines_matching($out, qr/^WARNING/), 0, '400 reads over 8192 blocks: no re-read warning');
$out = shown($node, "SELECT * FROM ranread_run(2, 2000, 'messages')");
like($out, qr/^WARNING:  about 21% of this run's reads will re-read a block read earlier in the run$/m,
	'4000 reads over 8192 blocks: the re-read warning gives the expected share');

done_testing();
