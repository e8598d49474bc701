# What a user sees in psql: setup progress, the RanRead NOTICE lines, the
# small-target and re-read WARNINGs; and that the target's file is really
# allocated.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('messages');

# The WARNINGs psql showed in $out, each its message and DETAIL, as the
# last batch's row keeps them (ranread_batches.warnings), '--' between two;
# and what that row keeps ('{}' shows as '{}', NULL as '').
sub sent_warnings
{
	my ($out) = @_;
	my @sent = grep { /^(WARNING|DETAIL):/ } split /\n/, $out;
	return '{}' unless @sent;
	return join("\n--\n", map { (my $w = $_) =~ s/^WARNING:  //; $w } split /\n(?=WARNING:)/, join("\n", @sent));
}

sub kept_warnings
{
	return $node->safe_psql('postgres', q{SELECT CASE WHEN warnings = '{}' THEN '{}' ELSE array_to_string(warnings, E'\n--\n') END
		FROM ranread_batches ORDER BY batch DESC LIMIT 1});
}

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
# (a busy machine may make it WARN of other I/O on the device: the row keeps what was sent)
is(kept_warnings(), sent_warnings($out), 'and its row keeps the WARNINGs it sent, none of re-reads (an empty array if none)');
is($node->safe_psql('postgres', 'SELECT wrapped_reads FROM ranread_summary ORDER BY batch DESC LIMIT 1'), '0',
	'and no read re-read a unit (wrapped_reads = 0)');
# More reads than the target has units: refused before anything starts, with
# the numbers and the way out; no batch number is drawn, nothing is recorded.
my $before = $node->safe_psql('postgres',
	"SELECT (SELECT count(*) FROM ranread_batches) || ' ' || (SELECT count(*) FROM ranread_results) || ' ' || last_value FROM ranread_batch_seq");
$out = shown($node, "SELECT * FROM ranread_run(2, 5000, 'messages')", verbose => 1);
like($out, qr/^ERROR:  22023: 18% of this run's reads would re-read a unit read earlier in the run$/m,
	'2 x 5000 reads of 8192 units: refused (22023), with the exact share, 1808 of 10000');
like($out, qr/^DETAIL:  The run asks for 10000 reads \(2 x 5000 iterations\) of target "messages", which has 8192 read units of 8 kB: the last 1808 reads would re-read a unit/m,
	'the detail gives the reads asked, the units and the re-reads');
like($out, qr/^HINT:  Use iterations => 4096 or fewer with 2 processes, fewer processes, or a larger target \(ranread_setup\); or pass allow_rereads => true/m,
	'the hint gives the iterations that fit, and allow_rereads');
is(lines_matching($out, qr/^NOTICE/), 0, 'nothing ran: no NOTICE');
is($node->safe_psql('postgres',
	"SELECT (SELECT count(*) FROM ranread_batches) || ' ' || (SELECT count(*) FROM ranread_results) || ' ' || last_value FROM ranread_batch_seq"),
	$before, 'no batch number was drawn and nothing was recorded');
$out = shown($node, "SELECT * FROM ranread_run(1, 8193, 'messages', mode => 'buffer')");
like($out, qr/^ERROR:  0% of this run's reads would re-read/m, 'one re-read too many is refused too (mode buffer)');
$out = shown($node, "SELECT status FROM ranread_run(2, 5000, 'messages', mode => 'direct')");
like($out, qr/completed/, 'mode direct, whose re-reads go to the device, is not refused');

# allow_rereads => true measures re-reads on purpose, with the warning before the run.
$out = shown($node, "SELECT * FROM ranread_run(2, 5000, 'messages', allow_rereads => true)");
like($out, qr/^WARNING:  18% of this run's reads will re-read a unit read earlier in the run$/m,
	'allow_rereads: the warning before the run gives the exact share, 1808 of 10000');
is($node->safe_psql('postgres', 'SELECT wrapped_reads FROM ranread_summary ORDER BY batch DESC LIMIT 1'), '1808',
	'and the batch counts exactly those 1808 re-reads');
$out = shown($node, "SELECT * FROM ranread_run(2, NULL, 'messages', evict => false, duration => '1 s', allow_rereads => true)");
like($out, qr/^WARNING:  batch \d+ read every unit of its target and went on: \d+ of its \d+ reads re-read a unit$/m,
	'allow_rereads: a time-based run that wraps around says so after the run');
is($node->safe_psql('postgres', 'SELECT wrapped_reads > 0 AND wrapped_reads < reads FROM ranread_summary ORDER BY batch DESC LIMIT 1'), 't',
	'and counts its re-reads');
like(kept_warnings(), qr/^batch \d+ read every unit of its target and went on: \d+ of its \d+ reads re-read a unit\nDETAIL:  /m,
	'its row keeps that WARNING');
is(kept_warnings(), sent_warnings($out), 'and every WARNING it raised, message and DETAIL as psql showed them, in order');

# Without allow_rereads a time-based run ends once every unit has been read once.
$out = shown($node, "CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(2, NULL, 'messages', evict => false, duration => '60 s'); "
	  . "SELECT status, ended_by, reads, wrapped_reads FROM ranread_summary JOIN r USING (batch)");
like($out, qr/^completed\|coverage\|8192\|0$/m,
	'a 60 s run of an 8192-unit target ends after 8192 reads, completed, ended_by coverage, no re-read');
like($out, qr/^NOTICE:  batch \d+ ended after [0-9.]+ s of its 60.0 s duration: it had read every unit of its target once$/m,
	'and a NOTICE says it ended because every unit was read once');
is(lines_matching($out, qr/^WARNING:.*re-read/), 0, 'with no re-read warning');
is($node->safe_psql('postgres', "SELECT ended_by FROM ranread_summary WHERE iterations = 4096 ORDER BY batch DESC LIMIT 1"),
	'iterations', 'a run of iterations records ended_by iterations');

# The design card's call reads in one line of a terminal: its result, and its
# table form, each within 120 columns as psql prints them
foreach my $call ("SELECT ranread_run(2, 200, 'messages')", "SELECT * FROM ranread_run(2, 200, 'messages')")
{
	my ($ret, $table, $err) = $node->psql('postgres',
		"\\pset format aligned\n\\pset tuples_only off\nSET client_min_messages = warning;\n$call;");
	my ($widest) = sort { $b <=> $a } map { length } split /\n/, $table;
	ok($ret == 0 && $table =~ /completed/ && $widest <= 120, "$call: psql prints it within 120 columns ($widest)")
	  or diag($table . $err);
}

done_testing();
