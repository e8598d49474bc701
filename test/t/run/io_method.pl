# PostgreSQL 18's io_method does not change what ranread measures: its smgr,
# direct and buffer paths read synchronously in the worker itself (a single
# smgrread() or ReadBuffer() does not go through AIO).  Under each io_method,
# every path's reads are counted by the worker's own I/O counters
# (physical_pct), the batch records the io_method, and under 'worker' the
# I/O workers issue no read for ranread while they do for a sequential scan
# (the contrast shows the check can fail).  Skips before 18.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('io_method');
plan skip_all => 'io_method is new in PostgreSQL 18' if $node->pg_version < 18;

$node->safe_psql('postgres', q{
	SELECT ranread_setup('64 MB', log_level => 0);
	CREATE TABLE scanned AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 100000) g;
});

foreach my $method ('worker', 'io_uring', 'sync')
{
	$node->safe_psql('postgres', "ALTER SYSTEM SET io_method = '$method'");
	$node->restart;
	is($node->safe_psql('postgres', 'SHOW io_method'), $method, "io_method = $method");
	foreach my $mode ('smgr', 'direct', 'buffer')
	{
		my $before = $method eq 'worker' ? io_worker_reads($node) : 0;
		my $row = $node->safe_psql('postgres', qq{
			CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(2, 500, mode => '$mode');
			SELECT status || ' ' || (physical_pct >= 99) FROM ranread_summary JOIN r USING (batch)});
		is($row, 'completed true', "$method, $mode: the worker's own reads reached the device (physical_pct >= 99)");
		if ($method eq 'worker')
		{
			cmp_ok(io_worker_reads($node) - $before, '<', 50, "worker, $mode: the I/O workers read nothing for it");
		}
	}
	is($node->safe_psql('postgres', 'SELECT io_method FROM ranread_batches ORDER BY batch DESC LIMIT 1'),
		$method, "the batch records io_method = $method");
	if ($method eq 'worker')
	{
		my $before = io_worker_reads($node);
		$node->safe_psql('postgres', "SET effective_io_concurrency = 16; SELECT count(*) FROM scanned");
		cmp_ok(io_worker_reads($node) - $before, '>', 50, 'a sequential scan\'s reads, by contrast, are the I/O workers\'');
	}
}

done_testing();
