# Reads in flight are submitted as the device serves them faster
# (src/os/uring.c): a worker submits each of its first 64 reads by a system
# call of its own and counts how many completed inside it; if most did (a
# device that serves reads from memory), it then submits each refill's reads
# together in the system call that waits for the next completion, else it
# goes on submitting each read as it is queued.  Watched by strace attached
# to the postmaster (its children too, a file each) on this machine's disk,
# whichever it is: the worker's io_uring_enter() calls submit every read it
# issued exactly once, the first 64 one per call, no call more than
# iodepth, and after its first choice (logged at DEBUG1) as it chose.  What
# the device does (how many reads complete inside their call) is not
# asserted: only what the code decides.  The labs check the choice itself on
# a device whose answer is known (lab_caps.pl, lab_fuse.pl).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

plan skip_all => 'strace is not installed (scripts/install-deps.sh installs it)'
  if system('strace -V >/dev/null 2>&1') != 0;

my $depth = 8;
my $reads = 1000;
my $node = new_node('refill');
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', target => 'deep', log_level => 0)");
my $log_start = -s $node->logfile;

my $pm = (split /\n/, slurp_file($node->data_dir . '/postmaster.pid'))[0];
my $dir = PostgreSQL::Test::Utils::tempdir();
my $strace = IPC::Run::start(
	[ 'strace', '-f', '-ff', '-qq', '-e', 'trace=io_uring_enter', '-o', "$dir/t", '-p', $pm ],
	'>', \my $out, '2>', \my $err);
# attached once the postmaster has a tracer
ok(wait_until($node, "SELECT pg_read_file('/proc/$pm/status') ~ 'TracerPid:\\s+[1-9]'"),
	'strace is attached to the postmaster')
  or diag($err);

my $choice = submission_choice($node,
	"SELECT batch FROM ranread_run(1, $reads, 'deep', mode => 'direct', iodepth => $depth)");
like($choice, qr/^\d+ of \d+ reads completed inside the system call that submitted them: submitting /,
	"the worker chose how to submit after its first 64 reads: $choice");
is($node->safe_psql('postgres', "SELECT status || ' ' || reads FROM ranread_batches ORDER BY batch DESC LIMIT 1"),
	"completed $reads", "one worker at iodepth $depth counted its $reads reads");
$strace->signal('TERM');
$strace->finish;

# Each process's calls as [entries submitted, entries it asked to submit],
# from lines "io_uring_enter(FD, TO_SUBMIT, MIN_COMPLETE, FLAGS, ...) = RET".
my %calls;
foreach my $file (glob("$dir/t.*"))
{
	foreach my $line (split /\n/, slurp_file($file))
	{
		next unless $line =~ /^io_uring_enter\(\d+, (\d+), \d+, .*\) = (-?\d+)/;
		push @{ $calls{$file} }, [ $1 > 0 && $2 > 0 ? $2 : 0, $1 ];
	}
}
# the worker: the process that submitted the most (the leader's probe submits one)
my ($worker) = sort {
	my ($sa, $sb) = (0, 0);
	$sa += $_->[0] foreach @{ $calls{$a} };
	$sb += $_->[0] foreach @{ $calls{$b} };
	$sb <=> $sa
} keys %calls;
ok(defined $worker, 'the worker\'s io_uring_enter() calls were traced');
my @submitting = grep { $_->[1] > 0 } @{ $calls{$worker} // [] };
my $submitted = 0;
$submitted += $_->[0] foreach @submitting;
my $largest = 0;
$largest = $_->[1] > $largest ? $_->[1] : $largest foreach @submitting;

is($submitted, $reads, "the worker submitted each of its $reads reads once");
is(scalar(grep { $_->[1] == 1 } @submitting[0 .. 63]), 64, 'its first 64 reads were submitted one per call');
cmp_ok($largest, '<=', $depth, "no call submitted more than iodepth ($largest)");
my @after = @submitting[64 .. $#submitting];
my $after_reads = 0;
$after_reads += $_->[0] foreach @after;
if ($choice =~ /together$/)
{
	cmp_ok(scalar(@after), '<', $after_reads,
		sprintf('submitting together: fewer calls than reads after the choice (%d calls for %d reads)',
			scalar(@after), $after_reads));
}
else
{
	is(scalar(grep { $_->[1] == 1 } @after), scalar(@after), 'submitting each: every later call submitted one read');
}
ok(log_is_clean($node, $log_start), 'no crash, assertion or internal error in the log');

$node->stop;
done_testing();
