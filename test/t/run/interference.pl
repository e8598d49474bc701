# Other I/O on the device is flagged: while dd reads another file of the same
# file system with O_DIRECT, a run's batch gets the WARNING "other I/O shared
# the device" and device_shared_pct says how much of what the device read
# was not ranread's.  (The rule itself, on constructed numbers, is in
# test/unit/run_rules_test.c; this is the live case.)  Skipped where the data
# directory has no block device in /proc/diskstats, or dd has no O_DIRECT.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('interference');
$node->safe_psql('postgres', q{SELECT ranread_setup('64 MB', target => 'measured', log_level => 0);
	SELECT ranread_setup('256 MB', target => 'other', log_level => 0);});
my $other = $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('other')");

my $quiet = $node->safe_psql('postgres', "CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(1, 200, 'measured', mode => 'direct'); "
	  . "SELECT device FROM ranread_summary JOIN r USING (batch)");
plan skip_all => 'the data directory is not on a block device listed in /proc/diskstats' if $quiet eq '';
plan skip_all => 'dd cannot read the data directory with O_DIRECT'
  if system('dd', "if=$other", 'of=/dev/null', 'bs=1M', 'count=1', 'iflag=direct', 'status=none') != 0;

# dd reads the other target's 256 MB over and over, bypassing the page cache,
# for as long as the run lasts
my $dd = IPC::Run::start([ 'sh', '-c', "while :; do dd if='$other' of=/dev/null bs=1M iflag=direct status=none; done" ]);
sleep 1;
my $out = shown($node, "CREATE TEMP TABLE r2 AS SELECT batch FROM ranread_run(1, NULL, 'measured', mode => 'direct', duration => '3 s'); "
	  . "SELECT device_shared_pct > 20 FROM ranread_summary JOIN r2 USING (batch)");
$dd->kill_kill;
like($out, qr/^WARNING:  other I\/O shared the device: [0-9]+% of what \S+ read during batch \d+ was not read for ranread$/m,
	'a run while dd reads the same device gets the WARNING');
like($out, qr/^DETAIL:  The device read [0-9.]+ MB \([0-9]+ reads\/s\); the workers' reads made it read [0-9.]+ MB \(8\.0 kB per read\)\./m,
	'its detail compares the bytes the device read with the bytes the run read');
like($out, qr/^t$/m, 'and device_shared_pct records more than 20 %');
is($node->safe_psql('postgres', 'SELECT device_shared_pct IS NOT NULL FROM ranread_summary ORDER BY batch LIMIT 1'), 't',
	'a batch with device statistics has a device_shared_pct');

done_testing();
