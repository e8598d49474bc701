# The memory of a run's reads: ranread.max_run_memory refuses a run or a
# sweep whose read buffers (processes x iodepth x block_size) exceed it
# before any number is drawn; only a superuser can raise it, also before
# the library is loaded (a placeholder); and io_uring buffers that the
# locked-memory limit refuses are recorded (registered_buffers) and warned
# about, as is a ring it refuses at iodepth 1, where the workers then read
# by pread().
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $node = new_node('run_memory', 'ranread.max_run_memory' => "'64MB'");
$node->safe_psql('postgres', "SELECT ranread_setup('64 MB', target => 'mem', log_level => 0)");
$node->safe_psql('postgres', q{
	CREATE ROLE bench LOGIN;
	GRANT EXECUTE ON FUNCTION ranread_run TO bench;
	GRANT EXECUTE ON PROCEDURE ranread_sweep TO bench;
});
my $log_start = -s $node->logfile;

# Everything a refused call must leave alone: rows, sweeps and both sequences.
my $state = q{SELECT (SELECT count(*) FROM ranread_results) || '/' || (SELECT count(*) FROM ranread_batches)
	|| '/' || (SELECT last_value || ' ' || is_called FROM ranread_batch_seq)
	|| '/' || (SELECT count(*) FROM ranread_sweep_runs) || '/' || (SELECT last_value || ' ' || is_called FROM ranread_sweep_seq)};

# Run sql in a new session; returns its SQLSTATE and its messages without prefixes.
sub refusal
{
	my ($sql, $user) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', $sql,
		extra_params => [ '-v', 'VERBOSITY=verbose', $user ? ('-U', $user) : () ]);
	my $state = sqlstate_of($err);
	$err =~ s/^psql:<stdin>:\d+: //mg;
	$err =~ s/^(ERROR|DETAIL|HINT|WARNING):  [0-9A-Z]{5}: /$1:  /mg;
	$err =~ s/^LOCATION: .*\n//mg;
	return ($state, $err);
}

# --- the bound, as postgresql.conf sets it, and its default -------------------------
is($node->safe_psql('postgres', 'SHOW ranread.max_run_memory'), '64MB', 'postgresql.conf sets ranread.max_run_memory');
my ($mem_kb) = slurp_file('/proc/meminfo') =~ /^MemTotal:\s+(\d+) kB/m;
is($node->safe_psql('postgres', q{SELECT ranread_histogram_check('{}');
	SELECT boot_val || ' ' || unit || ' ' || context FROM pg_settings WHERE name = 'ranread.max_run_memory'}),
	"{}\n" . ($mem_kb >> 4) . ' kB superuser', 'its default is 1/16 of physical memory, in kB, set by superusers');

# --- a run above the bound is refused before anything starts ---------------------------
my $before = $node->safe_psql('postgres', $state);
my ($sqlstate, $err) = refusal("SELECT ranread_run(1, 10, 'mem', mode => 'direct', block_size => 1048576, iodepth => 1024)");
is($sqlstate, '53400', 'iodepth 1024 of 1 MB: refused with 53400 (configuration_limit_exceeded)');
like($err, qr/^ERROR:  1 ranread process at iodepth 1024 would allocate 1024 MB of read buffers, more than ranread\.max_run_memory \(64 MB\)
DETAIL:  Each process of mode 'direct' reads into iodepth x block_size = 1024 x 1048576 bytes \(1024 MB\) of memory of its own, outside shared_buffers\.
HINT:  Use a smaller iodepth, block_size or number of processes \(in a sweep: max_iodepth or max_processes\), or have a superuser raise ranread\.max_run_memory\./m,
	'the message names the numbers, the GUC, and what to do') or diag($err);
($sqlstate, $err) = refusal("SELECT ranread_run(65, 10, 'mem', block_size => 1048576)");
is($sqlstate, '53400', 'mode smgr: 65 processes of one 1 MB block each (65 MB) refused too');
like($err, qr/^ERROR:  65 ranread processes at iodepth 1 would allocate 65 MB of read buffers/m, 'and counted per process');
is($node->safe_psql('postgres', $state), $before, 'nothing was recorded and no batch number was drawn');
is(worker_count($node), 0, 'no worker was started');
is($node->safe_psql('postgres', "SET ranread.max_run_memory = '1MB'; SELECT status FROM ranread_run(4, 2, 'mem', mode => 'buffer', block_size => 1048576)"),
	'completed', 'mode buffer reads into shared buffers: 4 processes of 1 MB blocks run under a bound of 1 MB');

# --- at the bound it runs ---------------------------------------------------------------
is($node->safe_psql('postgres', "CREATE TEMP TABLE r AS SELECT batch FROM ranread_run(2, 5, 'mem', mode => 'direct', block_size => 1048576, iodepth => 32); "
	  . "SELECT status || ' ' || reads FROM ranread_summary JOIN r USING (batch)"),
	'completed 10', '2 processes x 32 x 1 MB = 64 MB, at the bound: runs');

# --- sweeps: refused before their first step ----------------------------------------------
$before = $node->safe_psql('postgres', $state);
($sqlstate, $err) = refusal("CALL ranread_sweep(1, mode => 'direct', block_size => 1048576, iodepth => 1, max_iodepth => 1024, target => 'mem', iterations => 5)");
is($sqlstate, '53400', 'a sweep stepping iodepth up to 1024 of 1 MB is refused with 53400');
like($err, qr/^ERROR:  1 ranread process at iodepth 1024 would allocate 1024 MB of read buffers/m, 'for its deepest step');
unlike($err, qr/NOTICE:  step/, 'before any step ran');
($sqlstate, $err) = refusal("SET ranread.max_run_memory = '8MB'; CALL ranread_sweep(1, max_processes => 16, mode => 'direct', block_size => 1048576, target => 'mem', iterations => 5)");
is($sqlstate, '53400', 'a sweep stepping processes up to 16 of 1 MB each, above 8 MB, is refused with 53400');
like($err, qr/^ERROR:  16 ranread processes at iodepth 1 would allocate 16 MB of read buffers, more than ranread\.max_run_memory \(8192 kB\)/m,
	'for its widest step') or diag($err);
is($node->safe_psql('postgres', $state), $before, 'the sweeps recorded nothing and drew no sweep or batch number');

# --- only a superuser raises it ---------------------------------------------------------------
my $deep = "ranread_run(1, 5, 'mem', mode => 'direct', block_size => 1048576, iodepth => 128)";
($sqlstate) = refusal("SELECT $deep");
is($sqlstate, '53400', '128 MB for one process: refused at 64 MB');
is($node->safe_psql('postgres', "SET ranread.max_run_memory = '256MB'; SELECT status FROM $deep"), 'completed',
	'SET by a superuser raises the bound: the same run completes');
($sqlstate, $err) = refusal("SELECT ranread_histogram_check('{}'); SET ranread.max_run_memory = '2GB'", 'bench');
is($sqlstate, '42501', 'a role that is not a superuser cannot SET it');
like($err, qr/permission denied to set parameter "ranread\.max_run_memory"/, 'PostgreSQL says so');

# Before the library is loaded a SET makes a placeholder; loading it applies the value if a superuser set it.
($sqlstate, $err) = refusal("SET ranread.max_run_memory = '1MB'; SELECT ranread_run(1, 10, 'mem', mode => 'direct', block_size => 1048576, iodepth => 2)");
like($err, qr/^ERROR:  1 ranread process at iodepth 2 would allocate 2048 kB of read buffers, more than ranread\.max_run_memory \(1024 kB\)/m,
	"a superuser's SET before the library is loaded takes effect when it loads") or diag($err);
($sqlstate, $err) = refusal("SET ranread.max_run_memory = '2GB'; SELECT $deep", 'bench');
is($sqlstate, '53400', "a non-superuser's SET before the library is loaded does not raise it");
like($err, qr/WARNING:  permission denied to set parameter "ranread\.max_run_memory"/, 'loading the library says so') or diag($err);

# --- io_uring buffers refused by the locked-memory limit ---------------------------------------
my $registered = q{SELECT coalesce(b.registered_buffers::text, 'null') || ' ' || string_agg(coalesce(r.registered_buffers::text, 'null'), ',' ORDER BY r.worker)
	FROM ranread_batches b JOIN ranread_results r USING (batch) WHERE batch = (SELECT max(batch) FROM ranread_batches) GROUP BY b.batch, b.registered_buffers};
$node->safe_psql('postgres', "SELECT ranread_run(1, 10, 'mem', mode => 'direct', iodepth => 4)");
is($node->safe_psql('postgres', $registered), 'true true', 'iodepth 4 of 8 kB under the usual limit: registered, in the batch and the worker row');
$node->safe_psql('postgres', "SELECT ranread_run(2, 10, 'mem', mode => 'direct')");
is($node->safe_psql('postgres', $registered), 'true true,true', 'iodepth 1 reads through io_uring too: registered');
$node->safe_psql('postgres', "SELECT ranread_run(1, 10, 'mem', mode => 'smgr')");
is($node->safe_psql('postgres', $registered), 'null null', 'smgr (no io_uring of its own): NULL');

# restart the server with a locked-memory limit of KB kB (lowering it needs no privilege)
sub restart_with_memlock
{
	my ($kb) = @_;
	$node->stop;
	system_or_bail('bash', '-c', "ulimit -l $kb && exec \"\$@\"", 'ulimit', 'pg_ctl', '-w', '-D', $node->data_dir,
		'-l', $node->logfile, 'start');
	$node->_update_pid(1);
}

# With no locked memory at all, a kernel that counts a ring's own memory
# (6.18 does) refuses the ring, and the error says whose memory counts.
restart_with_memlock(0);
($sqlstate, $err) = refusal("SELECT status FROM ranread_run(1, 10, 'mem', mode => 'direct', iodepth => 32)");
SKIP:
{
	skip('this kernel does not count an io_uring\'s own memory as locked', 2) if $sqlstate eq '';
	is($sqlstate, '53200', 'under ulimit -l 0 the ring is refused with 53200');
	like($err, qr/^ERROR:  could not create an io_uring for 32 reads in flight: Cannot allocate memory
DETAIL:  The kernel counts a ring's memory against the locked-memory limit together with what every other process of the server's OS user "[^"]+" holds locked, other servers' io_uring rings included\.
HINT:  Raise the server's locked-memory limit \(ulimit -l\), or use a smaller iodepth\./m, 'and the error says whose locked memory counts') or diag($err);
}

# At iodepth 1 the refused ring leaves pread(): the run completes, warns and records NULL.
($sqlstate, $err) = refusal("SELECT status FROM ranread_run(2, 10, 'mem', mode => 'direct')");
is($sqlstate, '', 'iodepth 1 under ulimit -l 0: the run completes');
SKIP:
{
	skip('this kernel does not count an io_uring\'s own memory as locked', 2) if $err !~ /WARNING/;
	like($err, qr/^WARNING:  2 of 2 ranread workers of batch \d+ read by pread\(\), not through io_uring
DETAIL:  The kernel refused them an io_uring: Cannot allocate memory\. pread\(\) costs more CPU per read; registered_buffers in ranread_results and ranread_batches is NULL for them\.
HINT:  Allow io_uring to the server \(kernel\.io_uring_disabled, a container's seccomp profile\), or raise the locked-memory limit of its OS user \(ulimit -l\)\./m,
		'a WARNING says the workers read by pread(), why, and what to do') or diag($err);
	is($node->safe_psql('postgres', $registered), 'null null,null', 'registered_buffers is NULL in the batch and in each worker row');
}

# At 64 kB the ring fits and its 256 kB of buffers do not, unless other
# processes of the same OS user hold the limit's 64 kB: the matrix's other
# servers (PostgreSQL 18's io_uring rings, ranread's workers' rings at every
# depth) come and go, so up to 10 tries.  The refused ring may be the
# leader's check (53200) or a worker's, which ends the run before it starts
# (55000, the worker's error in the DETAIL).
restart_with_memlock(64);
foreach my $try (1 .. 10)
{
	($sqlstate, $err) = refusal("SELECT status FROM ranread_run(2, 50, 'mem', mode => 'direct', iodepth => 32)");
	last unless ($sqlstate eq '53200' && $err =~ /^ERROR:  could not create an io_uring/m)
	  || ($sqlstate eq '55000' && $err =~ /^DETAIL:  could not create an io_uring for 32 reads in flight/m);
	diag("try $try: other processes of the server's OS user held the locked-memory limit; again in 3 s");
	sleep 3;
}
is($sqlstate, '', 'iodepth 32 of 8 kB (256 kB per worker) under ulimit -l 64: the run completes');
like($err, qr/^WARNING:  2 of 2 ranread workers of batch \d+ read into unregistered io_uring buffers
DETAIL:  Registering iodepth x block_size = 32 x 8192 bytes per worker failed: Cannot allocate memory\. Unregistered buffers cost more CPU per read; registered_buffers in ranread_results and ranread_batches records it\.
HINT:  Raise the locked-memory limit of the server's OS user \(ulimit -l; LimitMEMLOCK in a systemd unit\), or use a smaller iodepth or block_size\./m,
	'a WARNING says the buffers were not registered, why, and what to do') or diag($err);
is($node->safe_psql('postgres', $registered), 'false false,false', 'registered_buffers is false in the batch and in each worker row');

ok(log_is_clean($node, $log_start), 'no PANIC, crash, assertion or internal error in the server log');
$node->stop;
done_testing();
