# What psql shows about where a run's bytes came from: the device statistics
# NOTICE (or why there are none), the WARNING when a batch was answered from
# memory (never for mode 'direct'), the shared-buffer counts of buffer mode,
# and the refusal of mode 'direct' on a file system without O_DIRECT (ramfs,
# which test/run-tap.sh mounts as root and passes in RANREAD_RAMFS).
use strict;
use warnings;
use File::Path qw(rmtree);
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('physical');
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_prewarm;
	SELECT ranread_setup('64 MB', target => 'physical', log_level => 0);
	SELECT ranread_setup('16 MB', target => 'physical_buf', log_level => 0);
});

# The expected text of a line, computed by the server from the last batch row.
sub line_of_last_batch
{
	my ($expr) = @_;
	return $node->safe_psql('postgres', "SELECT $expr FROM ranread_batches ORDER BY batch DESC LIMIT 1");
}

sub count_exact
{
	my ($text, $line) = @_;
	return scalar(grep { $_ eq $line } split /\n/, $text);
}

# --- the target's device ------------------------------------------------------
my $out = shown($node, "SELECT * FROM ranread_run(2, 150, 'physical')");
my $device = line_of_last_batch('device');
SKIP:
{
	skip 'the default tablespace is not on a block device in /proc/diskstats', 2 if $device eq '';
	like($out, qr/^NOTICE:  device \Q$device\E: [0-9]+ reads\/s, average read wait [0-9]+\.[0-9]{2,}ms, [0-9]+% utilised$/m,
		"default tablespace: the device NOTICE names $device, its reads/s, read wait and utilisation");
	my $expected = line_of_last_batch(q{format('NOTICE:  device %s: %s reads/s, average read wait %sms, %s%% utilised',
		device, round(device_reads_per_s::numeric),
		round(device_read_wait_ms::numeric, CASE WHEN device_read_wait_ms > 0 AND device_read_wait_ms < 1
			THEN least(6, 2 - floor(log(device_read_wait_ms::numeric)))::int ELSE 2 END),
		round(device_util_pct::numeric))});
	is(count_exact($out, $expected) . '/' . lines_matching($out, qr/^NOTICE:  no device statistics/), '1/0',
		"the device NOTICE gives the batch row's numbers ($expected), and no 'no device statistics'");
}
is(lines_matching($out, qr/^NOTICE:  shared buffers/), 0, 'an smgr run shows no shared-buffer counts');

# --- tmpfs: no device ---------------------------------------------------------
my $tmpfs = "/dev/shm/ranread_tap_physical_$$";
rmtree($tmpfs);
mkdir $tmpfs or die "mkdir $tmpfs: $!";
$node->safe_psql('postgres', qq{CREATE TABLESPACE physical_tmpfs LOCATION '$tmpfs'});
$node->safe_psql('postgres', "SELECT ranread_setup('8 MB', 'physical_tmpfs', 'physical_tmpfs', 0)");
$out = shown($node, "SELECT * FROM ranread_run(2, 100, 'physical_tmpfs')");
like($out, qr/^NOTICE:  no device statistics: the target's file system is not on a block device listed in \/proc\/diskstats$/m,
	'tmpfs tablespace: the NOTICE says there are no device statistics');
is(lines_matching($out, qr/^NOTICE:  device /), 0, 'tmpfs tablespace: no device NOTICE');

# --- reads answered from the page cache ---------------------------------------
$out = shown($node, "SELECT pg_prewarm('physical', 'read'); SELECT * FROM ranread_run(2, 150, 'physical', evict => false)");
like($out, qr/^WARNING:  only [0-9]+% of the reads in batch [0-9]+ were answered by the device$/m,
	'prewarmed smgr run with evict => false: the WARNING says how few reads the device answered');
my $expected = line_of_last_batch(q{format('WARNING:  only %s%% of the reads in batch %s were answered by the device',
	round(physical_pct::numeric), batch)});
is(count_exact($out, $expected), 1, "the WARNING gives the batch and its physical_pct ($expected)");
like($out, qr/^DETAIL:  The rest found their unit in memory \(the OS page cache\) before they were issued, so the latencies are not the device's\.$/m,
	"the WARNING's DETAIL blames the OS page cache");

# --- physical_pct counts reads, whatever readahead does ----------------------
# Half of the target's 8192 units in the page cache: about half of the reads
# find their unit there (2000 reads: the share's standard error is about
# 1 %, and readahead of one read seldom brings in another's unit).  The
# second half is prewarmed, because the kernel's
# readahead of a sequential prewarm runs on past its end (8 MB on the
# development VM's disk) and would bring in more than half.
$node->safe_psql('postgres', "SELECT ranread_run(1, 10, 'physical')");	# evicts the target
$node->safe_psql('postgres', "SELECT pg_prewarm('physical', 'read', 'main', 4096, 8191)");
$node->safe_psql('postgres', "SELECT ranread_run(2, 1000, 'physical', evict => false)");
my $half = line_of_last_batch('physical_pct');
cmp_ok(abs($half - 50), '<=', 5, "half the target prewarmed: physical_pct is about 50 ($half)");
$node->safe_psql('postgres', "SELECT pg_prewarm('physical', 'read', 'main', 4096, 8191)");
$node->safe_psql('postgres', "SELECT ranread_run(2, 200, 'physical')");
my $cold = line_of_last_batch('physical_pct');
cmp_ok($cold, '>=', 95, "the same, evicted first (the default): physical_pct is about 100 ($cold)");
my $kb = line_of_last_batch('round(kb_per_read::numeric, 1)');
cmp_ok($kb, '>', 0, "kb_per_read says what the kernel fetched per read ($kb kB), readahead included");

# --- readahead answers no read ------------------------------------------------
# Reading 90 % of the target's units once each: with the kernel's default
# readahead, the neighbours earlier reads brought in answer about 40 % of
# the later ones (bench/readahead_probe.sh); with the random-access advice of
# modes smgr and buffer (src/readpath/readahead.c), none.  Only a block device has
# readahead, so this needs the target on one.
SKIP:
{
	skip 'the default tablespace is not on a block device in /proc/diskstats', 4 if $device eq '';
	foreach my $mode ('smgr', 'buffer')
	{
		$node->safe_psql('postgres', "SELECT ranread_run(2, 3686, 'physical', mode => '$mode')");
		my ($pct, $kb_read) = split /\|/, line_of_last_batch('physical_pct, round(kb_per_read::numeric, 2)');
		cmp_ok($pct, '>=', 99, "$mode, 90 % of the units read once each: the device answered every read (physical_pct $pct)");
		cmp_ok($kb_read, '<=', 8.5, "$mode: the kernel fetched no more than the unit per read ($kb_read kB)");
	}
}

# --- direct reads always reach the device -------------------------------------
$out = shown($node, "SELECT pg_prewarm('physical', 'read'); SELECT * FROM ranread_run(2, 150, 'physical', mode => 'direct', evict => false)");
like($out, qr/^NOTICE:  Calculated IOPS = [0-9]+$/m, 'a direct run on the prewarmed target, evict => false, completes');
is(lines_matching($out, qr/^WARNING:  only /), 0, "the direct run has no 'only N% ... fetched from storage' WARNING");

# --- buffer mode --------------------------------------------------------------
$out = shown($node, "SELECT pg_prewarm('physical_buf', 'buffer'); SELECT * FROM ranread_run(2, 200, 'physical_buf', mode => 'buffer')");
like($out, qr/^NOTICE:  shared buffers: [0-9]+ hits, [0-9]+ misses$/m, 'buffer mode: the NOTICE counts shared-buffer hits and misses');
$expected = line_of_last_batch(q{format('NOTICE:  shared buffers: %s hits, %s misses', buffer_hits, buffer_misses)});
is(count_exact($out, $expected), 1, "the NOTICE gives the batch's counts ($expected)");
like($out, qr/^DETAIL:  The rest found their unit in memory \(the OS page cache or shared buffers\) before they were issued, so the latencies are not the device's\.$/m,
	"buffer mode on a target in shared buffers: the WARNING's DETAIL names shared buffers");

# --- a file system that refuses O_DIRECT: ramfs -------------------------------
# (Linux refuses O_DIRECT on ramfs, unlike tmpfs since 6.6.)  Its statfs
# reports no free space, so the target is set up elsewhere and moved there.
SKIP:
{
	my $ramfs = $ENV{RANREAD_RAMFS} // '';
	skip 'no ramfs mounted (test/run-tap.sh mounts one as root)', 3 if $ramfs eq '';
	$node->safe_psql('postgres', qq{CREATE TABLESPACE physical_ramfs LOCATION '$ramfs'});
	$node->safe_psql('postgres', "SELECT ranread_setup('8 MB', target => 'physical_ramfs', log_level => 0)");
	$node->safe_psql('postgres', 'ALTER TABLE physical_ramfs SET TABLESPACE physical_ramfs');
	my $before = $node->safe_psql('postgres', 'SELECT count(*) FROM ranread_batches');
	$out = shown($node, "SELECT * FROM ranread_run(2, 100, 'physical_ramfs', mode => 'direct')", verbose => 1);
	like($out, qr/^ERROR:  0A000: the file system holding "pg_tblspc\/[^"]+" does not support direct I\/O$/m,
		"ramfs: mode 'direct' is refused with 0A000, naming the file");
	like($out, qr/^HINT:  Use mode 'smgr'/m, "the refusal's HINT names mode 'smgr'");
	$out = shown($node, "SELECT * FROM ranread_run(2, 100, 'physical_ramfs')");
	is(lines_matching($out, qr/^NOTICE:  (Calculated IOPS = [0-9]+|no device statistics: .*)$/) . '/'
		. $node->safe_psql('postgres', "SELECT count(*) - $before FROM ranread_batches") . '/' . worker_count($node),
		'2/1/0', 'after the refusal, which recorded nothing and left no worker, an smgr run there works');
}

$node->safe_psql('postgres', "SELECT ranread_drop('physical_tmpfs'); DROP TABLESPACE physical_tmpfs");
rmtree($tmpfs);
done_testing();
