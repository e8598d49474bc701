# Truth under io_method = worker, on the capped laboratory device
# (test/lab/capped_zram.sh, uncapped here) whose readahead we set.  Under
# worker, PostgreSQL's I/O workers read mode stream's blocks through file
# descriptors of their own, where the device's readahead brings each read's
# neighbours into the OS page cache, and later reads of the pass find them
# there.  A whole pass of 65,536 units (the lab device holds 1 GB):
#   - with read_ahead_kb 8192, the device answers only part of the reads, and
#     the batch's WARNING names the cause (the I/O workers' readahead, the
#     device and its read_ahead_kb), its size (kB fetched per read, no longer
#     NULL under worker) and the fix;
#   - with read_ahead_kb set to 0 but no restart, the I/O workers keep the
#     readahead they opened the target with, and the WARNING says to restart;
#   - with read_ahead_kb 0, the device answers at least 99 % of them;
#   - under io_method = io_uring, whose reads use the workers' own
#     descriptors (readahead off), the device answers them all, whatever
#     read_ahead_kb says.
# Each measured share is printed (diag "truth: ...") for docs/methodology.md.
# Skips, with the reason, without a lab device or before PostgreSQL 18.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $missing = lab_missing();
plan skip_all => $missing if $missing;

# uncapped: the files before it on the lab may leave a read or write cap
lab_set_cap('none');
my $node = lab_node('labra');
plan skip_all => 'mode stream needs PostgreSQL 18' if $node->pg_version < 18;
my $major = $node->pg_version->major;
my $ts = "$ENV{RANREAD_LAB_CAP_DIR}/readahead-$major";
mkdir $ts or die "mkdir $ts: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE lab LOCATION '$ts'");
$node->safe_psql('postgres', "SELECT ranread_setup('512 MB', 'lab', 'ra_t', 0)");
my $readahead_before = slurp_file("/sys/block/$ENV{RANREAD_LAB_DEVICE_NAME}/queue/read_ahead_kb");
chomp $readahead_before;

# One pass over every unit of the target, through the I/O workers: the
# server restarted, unless told not to, so that they open the target under
# the readahead set now.
sub whole_pass
{
	my ($readahead, $io_method, $no_restart) = @_;
	lab_set_readahead($readahead);
	if (!$no_restart)
	{
		$node->safe_psql('postgres', "ALTER SYSTEM SET io_method = '$io_method'");
		$node->stop;
		system_or_bail(lab_run('pg_ctl', '-w', '-D', $node->data_dir, '-l', $node->logfile, 'start'));
		$node->_update_pid(1);
	}
	my $out = shown($node, q{SELECT batch FROM ranread_run(1, NULL, 'ra_t', mode => 'stream', iodepth => 32,
		duration => '60 s')});
	my ($batch) = $out =~ /^\s*(\d+)\s*$/m;
	my ($reads, $physical, $kb) = split /\|/, $node->safe_psql('postgres',
		"SELECT reads, physical_pct, coalesce(kb_per_read::text, 'NULL') FROM ranread_batches WHERE batch = $batch");
	diag("truth: read_ahead_kb $readahead, io_method $io_method: $reads reads, physical_pct $physical, kb_per_read $kb");
	return ($out, $reads, $physical, $kb);
}

my ($out, $reads, $physical, $kb) = whole_pass(8192, 'worker');
is($reads, 65536, 'a whole pass: every unit of the target once');
cmp_ok($physical, '<', 95, "read_ahead_kb 8192 under worker: the device answered only $physical% of the reads");
like($out, qr/^WARNING:  only \d+% of the reads in batch \d+ were answered by the device: the kernel's readahead for PostgreSQL's I\/O workers read the rest in before them$/m,
	'the WARNING names the cause: the I/O workers\' readahead');
like($out, qr/^DETAIL:  Under io_method = worker the I\/O workers read through file descriptors of their own, where device $ENV{RANREAD_LAB_DEVICE_NAME} reads 8192 kB ahead \(read_ahead_kb\).* The I\/O workers fetched [0-9.]+ kB per read, in [0-9.]+ device reads per read\./m,
	'its DETAIL names the device, its readahead and what the I/O workers fetched');
like($out, qr/^HINT:  To measure the device, set its read_ahead_kb to 0 for the run \(as root: echo 0 > \/sys\/class\/block\/$ENV{RANREAD_LAB_DEVICE_NAME}\/queue\/read_ahead_kb, and 8192 after\) and restart the server, or set io_method = io_uring\.$/m,
	'its HINT gives the fix');
cmp_ok($kb, '>=', 7.9, "kb_per_read is the I/O workers' bytes per read under worker ($kb), no longer NULL");

($out, $reads, $physical, $kb) = whole_pass(0, 'worker', 'no restart');
cmp_ok($physical, '<', 95, "read_ahead_kb 0 but no restart: the device answered only $physical% of the reads");
like($out, qr/^DETAIL:  Under io_method = worker the I\/O workers read through file descriptors of their own, which keep the readahead device $ENV{RANREAD_LAB_DEVICE_NAME} had when they opened the target \(its read_ahead_kb is 0 now\)/m,
	'the DETAIL says the I/O workers keep the readahead they opened the target with');
like($out, qr/^HINT:  Restart the server, so that its I\/O workers open the target with no readahead, or set io_method = io_uring\.$/m,
	'and the HINT says to restart');

($out, $reads, $physical, $kb) = whole_pass(0, 'worker');
cmp_ok($physical, '>=', 99, "read_ahead_kb 0 under worker: the device answered $physical% of the reads");
unlike($out, qr/^WARNING:  only /m, 'and no WARNING');

($out, $reads, $physical, $kb) = whole_pass(8192, 'io_uring');
cmp_ok($physical, '>=', 99, "read_ahead_kb 8192 under io_uring: the device answered $physical% of the reads");

lab_set_readahead($readahead_before);
ok(log_is_clean($node), 'the server log has no internal error');
lab_done($node, $ts);
done_testing();
