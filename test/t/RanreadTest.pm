# RanreadTest.pm: helpers shared by the fault-injection TAP tests.
package RanreadTest;

use strict;
use warnings;
use Compress::Zlib;
use Exporter 'import';
use Fcntl ();
use File::Basename ();
use File::Spec;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use File::Path ();
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes ();

# this file's folder, test/t, where deny_syscall.c is (as an absolute path, taken when loaded)
my $here = File::Basename::dirname(File::Spec->rel2abs(__FILE__));

# --- which laboratory device a file uses ----------------------------------------
# test/run-tap.sh makes two of each laboratory where it can (the capped zram
# device and the FUSE file system), exporting the second's variables as
# RANREAD_LAB2_*.  The files below use the second: their variables take the
# place of the first's when this module is loaded, before a test reads them;
# test/t/testrules.yml runs each device's files one after another, and the
# two devices' files beside each other.  A file takes its device's turn
# (an exclusive lock held to its end), so that where there is no second
# device its files wait for the first's rather than read it at once.
my %on_second_lab = map { $_ => 1 } qw(lab_calibrate lab_writes lab_limit_caps lab_bucket lab_fleet_bucket);
my %lab_kind = (
	(map { $_ => 'cap' } qw(lab_caps lab_calibrate lab_writes lab_worker_readahead lab_limit_caps)),
	(map { $_ => 'fuse' } qw(lab_fuse lab_layers lab_bucket lab_limit_fuse lab_fleet_bucket)));
my $lab_turn;
{
	my ($file) = File::Basename::basename($0) =~ /^(\w+)\.pl$/;
	$file //= '';
	if ($on_second_lab{$file})
	{
		foreach my $var (grep { /^RANREAD_LAB2_/ } keys %ENV)
		{
			(my $first = $var) =~ s/^RANREAD_LAB2_/RANREAD_LAB_/;
			$ENV{$first} = $ENV{$var};
		}
	}
	my $device = !$lab_kind{$file} ? undef
	  : $lab_kind{$file} eq 'cap' ? $ENV{RANREAD_LAB_NAME}
	  : $ENV{RANREAD_LAB_FUSE_CONTROL};
	if ($device)
	{
		(my $name = $device) =~ s/[^\w.-]/_/g;
		open($lab_turn, '>>', ($ENV{RANREAD_LAB_TURN_DIR} // File::Spec->tmpdir()) . "/lab-turn-$name.lock")
		  or die "cannot open the laboratory's turn lock: $!";
		flock($lab_turn, Fcntl::LOCK_EX()) or die "cannot take the laboratory's turn: $!";
	}
}

our @EXPORT = qw(new_node start_psql wait_until wait_for_readers wait_for_no_workers worker_count sqlstate_of
  log_is_clean orphan_bytes shown lines_matching interrupt_run io_worker_reads batch_of
  lab_missing lab_node lab_set_cap lab_set_readahead lab_run lab_done lab_fuse lab_fuse_stats
  submission_choice extra_enabled timing_skip restart_denying png_facts);

# Whether RANREAD_TEST_EXTRA (words separated by spaces or commas, as
# PostgreSQL's PG_TEST_EXTRA) names $group.  The opt-in group "timing" holds
# the assertions about this machine's speed rather than about the code (a
# prefetched read is faster, sequential beats random): they hold on an idle
# development VM and may fail on a busy or slow machine, so they run only
# when asked for (RANREAD_TEST_EXTRA=timing test/run-tap.sh).
sub extra_enabled
{
	my ($group) = @_;
	return scalar(grep { $_ eq $group } split /[\s,]+/, $ENV{RANREAD_TEST_EXTRA} // '');
}

# The reason a timing assertion is skipped, or '' when RANREAD_TEST_EXTRA
# names timing:  skip(timing_skip(), N) if timing_skip();
sub timing_skip
{
	return extra_enabled('timing') ? ''
	  : 'asserts this machine\'s speed, not the code: set RANREAD_TEST_EXTRA=timing to run it';
}

# $columns (a SELECT list, "SELECT ...") of the batch row that $run (an SQL
# statement returning a batch number) recorded: read after the run, since
# the row is the workers'.
sub batch_of
{
	my ($node, $run, $columns) = @_;
	my $batch = $node->safe_psql('postgres', $run);
	return $node->safe_psql('postgres', "$columns FROM ranread_batches WHERE batch = $batch");
}

# How a worker of the run $run (SQL returning a batch, one worker, iodepth
# above 1 in mode direct) chose to submit its reads: the first choice it
# logged (src/os/uring.c, at DEBUG1, which is on for the run only: a new
# session sees it once the postmaster, whose workers inherit it, has
# reloaded), or ''.
sub submission_choice
{
	my ($node, $run) = @_;
	my $log_start = -s $node->logfile;
	$node->safe_psql('postgres', 'ALTER SYSTEM SET log_min_messages = debug1');
	$node->reload;
	wait_until($node, "SELECT current_setting('log_min_messages') = 'debug1'")
	  or die 'the server did not reload log_min_messages = debug1';
	$node->safe_psql('postgres', $run);
	$node->safe_psql('postgres', 'ALTER SYSTEM RESET log_min_messages');
	$node->reload;
	wait_until($node, "SELECT current_setting('log_min_messages') <> 'debug1'");
	my ($choice) = PostgreSQL::Test::Utils::slurp_file($node->logfile, $log_start) =~
	  /DEBUG:  (\d+ of \d+ reads completed inside the system call that submitted them: [^\n]*)/;
	return $choice // '';
}

# A started cluster with ranread created in database postgres.
sub new_node
{
	my ($name, %conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$conf{max_worker_processes} //= 32;
	$node->append_conf('postgresql.conf', join('', map { "$_ = $conf{$_}\n" } sort keys %conf));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION ranread');
	return $node;
}

# Start psql running $sql in the background, in database $db (postgres if
# not given); returns the IPC::Run harness and references to its stdout and
# stderr.
sub start_psql
{
	my ($node, $sql, $db) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-v', 'VERBOSITY=verbose', '-d', $node->connstr($db // 'postgres'), '-c', $sql ],
		'>', \$out, '2>', \$err);
	return ($h, \$out, \$err);
}

sub worker_count
{
	my ($node, $filter) = @_;
	$filter //= '';
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'ranread worker' $filter");
}

# read(2) calls made so far by the I/O worker processes of $node
# (PostgreSQL 18's io_method = worker), from /proc/PID/io syscr.
sub io_worker_reads
{
	my ($node) = @_;
	my $pids = $node->safe_psql('postgres', "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE backend_type = 'io worker'");
	my $reads = 0;
	foreach my $pid (split / /, $pids)
	{
		open(my $fh, '<', "/proc/$pid/io") or die "cannot read /proc/$pid/io: $!";
		while (<$fh>) { $reads += $1 if /^syscr: (\d+)/; }
		close $fh;
	}
	return $reads;
}

# The one bounded wait of the suite: until $sql answers $expected (a query
# answering one boolean, true if not given) in database $db (postgres if
# not given), asked every 0.1 s for at most PostgreSQL::Test::Utils's
# timeout_default (180 s unless PG_TEST_TIMEOUT_DEFAULT says otherwise).  Returns whether it did.  A wait
# that times out says what it waited for, for how long, and what the query
# answered last, so that its failure explains itself.
sub wait_until
{
	my ($node, $sql, $db, $expected) = @_;
	$db //= 'postgres';
	$expected //= 't';
	my $limit = $PostgreSQL::Test::Utils::timeout_default;
	my $started = Time::HiRes::time();
	my $last = '';
	while (Time::HiRes::time() - $started < $limit)
	{
		# (a psql that the server turns away during crash recovery may exit
		# before it reads the query: IPC::Run then dies of the broken pipe)
		my ($ret, $out, $err) = eval { $node->psql($db, $sql) };
		($ret, $out, $err) = (-1, '', $@) unless defined $ret;
		return 1 if $ret == 0 && $out eq $expected;
		$last = $ret == 0 ? "'$out'" : "an error: $err";
		Time::HiRes::usleep(100_000);
	}
	(my $what = $sql) =~ s/\s+/ /g;
	diag(sprintf("waited %.0f s in database %s for '%s' from: %s\nIts last answer: %s",
		Time::HiRes::time() - $started, $db, $expected, $what, $last));
	return 0;
}

# Wait until $n ranread workers are reading.
sub wait_for_readers
{
	my ($node, $n) = @_;
	return wait_until($node,
		"SELECT count(*) >= $n FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%reading'");
}

# Wait until no ranread worker is left (each has recorded its rows and exited).
sub wait_for_no_workers
{
	my ($node) = @_;
	return wait_until($node, "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'ranread worker'");
}

# End the run that start_psql() began with harness $h, whose query begins
# with $query_start, as $how says: 'stopped' by ranread_stop(), 'cancelled'
# by pg_cancel_backend() of its session; then wait for that psql to end.
sub interrupt_run
{
	my ($node, $h, $how, $query_start) = @_;
	if ($how eq 'stopped')
	{
		$node->safe_psql('postgres', 'SELECT ranread_stop()');
	}
	else
	{
		$node->safe_psql('postgres', "SELECT pg_cancel_backend(pid) FROM pg_stat_activity "
			  . "WHERE query LIKE '$query_start%' AND pid <> pg_backend_pid()");
	}
	$h->finish;
	return;
}

# What psql shows for $sql (one or more statements): the result rows and every
# NOTICE, WARNING, ERROR, DETAIL and HINT line, as `psql -c` prints them.
sub shown
{
	my ($node, $sql, %opts) = @_;
	my ($ret, $out, $err) = $node->psql($opts{db} // 'postgres', $sql,
		extra_params => $opts{verbose} ? [ '-v', 'VERBOSITY=verbose' ] : []);
	$err =~ s/^psql:<stdin>:\d+: //mg;
	return "$out\n$err";
}

# How many lines of $text match $re.
sub lines_matching
{
	my ($text, $re) = @_;
	return scalar(grep { /$re/ } split /\n/, $text);
}

# SQLSTATE of the first ERROR in psql's verbose stderr, or '' if none.
sub sqlstate_of
{
	my ($stderr) = @_;
	return $stderr =~ /ERROR:\s+([0-9A-Z]{5}):/ ? $1 : '';
}

# True when the server log has no PANIC, failed assertion, crash or
# internal error (XX000) since offset $from.
sub log_is_clean
{
	my ($node, $from) = @_;
	my $log = slurp_file($node->logfile, $from);
	my @bad = grep { /PANIC|TRAP:|terminated by signal|was terminated|XX000|internal error/ } split /\n/, $log;
	diag(join("\n", @bad)) if @bad;
	return !@bad;
}

# Bytes in relation files of database postgres that no relation owns.
sub orphan_bytes
{
	my ($node) = @_;
	return $node->safe_psql('postgres', q{
		SELECT coalesce(sum((pg_stat_file(dir || '/' || f, true)).size), 0)
		FROM (SELECT 'base/' || oid AS dir FROM pg_database WHERE datname = 'postgres') d,
			 pg_ls_dir((SELECT 'base/' || oid FROM pg_database WHERE datname = 'postgres')) f
		WHERE f ~ '^[0-9]+(_[a-z]+)?(\.[0-9]+)?$'
		  AND split_part(split_part(f, '.', 1), '_', 1)::oid NOT IN
			  (SELECT pg_relation_filenode(oid) FROM pg_class WHERE pg_relation_filenode(oid) IS NOT NULL)});
}

# --- the FUSE laboratory (test/lab/labfs.sh, mounted by test/run-tap.sh,
# which exports RANREAD_LAB_FUSE_DIR and RANREAD_LAB_FUSE_CONTROL) -------------

# Set the file system: labfs commands ("reset delay_us=300", ...) written to
# its control file.
sub lab_fuse
{
	my ($commands) = @_;
	my $control = $ENV{RANREAD_LAB_FUSE_CONTROL};
	open(my $fh, '>', $control) or die "cannot open $control: $!";
	print $fh "$commands\n";
	close($fh) or die "labfs refused \"$commands\": $!";
	return;
}

# The file system's counters, read from its control file: a hash of name => value.
sub lab_fuse_stats
{
	return { map { split /=/, $_, 2 } split /\n/, PostgreSQL::Test::Utils::slurp_file($ENV{RANREAD_LAB_FUSE_CONTROL}) };
}

# --- the capped laboratory device (test/lab/capped_zram.sh, made by
# test/run-tap.sh, which exports RANREAD_LAB_*) ---------------------------------

# Why the capped lab device cannot be used here, or '' when it can.
sub lab_missing
{
	return "no capped lab device: $ENV{RANREAD_LAB_CAP_MISSING}" if $ENV{RANREAD_LAB_CAP_MISSING};
	foreach my $var (qw(RANREAD_LAB_NAME RANREAD_LAB_SCRIPT RANREAD_LAB_CGROUP RANREAD_LAB_CAP_DIR RANREAD_LAB_DEVICE))
	{
		return "no capped lab device: $var is not set (run the test through test/run-tap.sh as root)"
		  unless $ENV{$var};
	}
	return "no capped lab device: cannot write $ENV{RANREAD_LAB_CGROUP}/cgroup.procs as " . getpwuid($<)
	  unless -w "$ENV{RANREAD_LAB_CGROUP}/cgroup.procs";
	return '';
}

# Run @cmd inside the lab's capped cgroup (it and every child it starts).
sub lab_run
{
	my (@cmd) = @_;
	return ($ENV{RANREAD_LAB_SCRIPT}, 'enter', $ENV{RANREAD_LAB_NAME}, @cmd);
}

# A cluster whose postmaster, and so every backend, worker and I/O worker,
# runs inside the lab's capped cgroup, with ranread created in database
# postgres.
sub lab_node
{
	my ($name, %conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$conf{max_worker_processes} //= 32;
	$node->append_conf('postgresql.conf', join('', map { "$_ = $conf{$_}\n" } sort keys %conf));
	PostgreSQL::Test::Utils::system_or_bail(lab_run('pg_ctl', '-w', '-D', $node->data_dir,
		'-l', $node->logfile, '-o', "--cluster-name=$name", 'start'));
	$node->_update_pid(1);
	$node->safe_psql('postgres', 'CREATE EXTENSION ranread');
	return $node;
}

# The end of a file's turn on the lab device: $node stopped and @paths (its
# tablespace directories and files on the device) removed.  The files that
# take turns on it (testrules.yml) share its 1 GB, which one of them alone
# nearly fills.
sub lab_done
{
	my ($node, @paths) = @_;
	$node->stop;
	File::Path::rmtree(\@paths);
	return;
}

# Set the lab's read cap: iops => N, bps => N, both => N, M (reads/s and
# bytes/s at once); its write cap: wiops => N, wbps => N (the read cap left
# as it is); or none (neither).
sub lab_set_cap
{
	my ($kind, @values) = @_;
	PostgreSQL::Test::Utils::system_or_bail($ENV{RANREAD_LAB_SCRIPT}, 'set-cap', $ENV{RANREAD_LAB_NAME},
		$kind, @values);
	return;
}

# Set the lab device's read_ahead_kb: the kernel's readahead for the files
# opened from now on (a server's I/O workers open theirs when they first read).
sub lab_set_readahead
{
	my ($kb) = @_;
	PostgreSQL::Test::Utils::system_or_bail($ENV{RANREAD_LAB_SCRIPT}, 'set-readahead', $ENV{RANREAD_LAB_NAME}, $kb);
	return;
}

# Restart $node's postmaster under a seccomp filter that fails system call
# $syscall with $errno (test/t/deny_syscall.c, built here); returns '' then,
# or why it could not (no C compiler), for a skip.
sub restart_denying
{
	my ($node, $syscall, $errno) = @_;
	my $helper = $node->basedir . '/deny_syscall';
	return 'no C compiler to build the seccomp helper'
	  if system('cc', '-o', $helper, "$here/deny_syscall.c") != 0;
	$node->stop;
	PostgreSQL::Test::Utils::system_or_bail($helper, $syscall, $errno, 'pg_ctl', '-w', '-D', $node->data_dir,
		'-l', $node->logfile, 'start');
	$node->_update_pid(1);
	return '';
}

# PNG filter types 0-4 (PNG spec, section 9): undo one row's filter, the
# bytes of $raw against those of the row above, $previous (strings of
# equal length); returns the row's bytes as a string.  Up (2), a chart's
# most frequent filter, adds the row above 8 bytes at a time, each byte
# modulo 256: (a & 0x7f..) + (b & 0x7f..) cannot carry out of a byte, and
# the top bits are then xor-ed in.
sub unfilter
{
	my ($type, $raw, $previous, $bpp) = @_;
	return $raw if $type == 0;
	if ($type == 2)
	{
		return $previous if $raw !~ /[^\0]/;
		my $pad = (8 - length($raw) % 8) % 8;
		my @a = unpack('Q*', $raw . ("\0" x $pad));
		my @b = unpack('Q*', $previous . ("\0" x $pad));
		my ($low, $high) = (unpack('Q', "\x7f" x 8), unpack('Q', "\x80" x 8));
		my $sum = pack('Q*', map { (($a[$_] & $low) + ($b[$_] & $low)) ^ (($a[$_] ^ $b[$_]) & $high) } 0 .. $#a);
		return substr($sum, 0, length $raw);
	}
	my @row = unpack('C*', $raw);
	if ($type == 1)
	{
		$row[$_] = ($row[$_] + $row[ $_ - $bpp ]) & 0xff for $bpp .. $#row;
		return pack('C*', @row);
	}
	my @up = unpack('C*', $previous);
	if ($type == 3)
	{
		for my $i (0 .. $#row)
		{
			my $left = $i >= $bpp ? $row[ $i - $bpp ] : 0;
			$row[$i] = ($row[$i] + (($left + $up[$i]) >> 1)) & 0xff;
		}
	}
	elsif ($type == 4)
	{
		# Paeth: of left (a), above (b) and upper left (c), the one nearest
		# a + b - c; |p - a| = |b - c|, |p - b| = |a - c|, |p - c| = |a + b - 2c|
		$row[$_] = ($row[$_] + $up[$_]) & 0xff for 0 .. $bpp - 1;
		for my $i ($bpp .. $#row)
		{
			my ($a, $b, $c) = ($row[ $i - $bpp ], $up[$i], $up[ $i - $bpp ]);
			my ($pa, $pb, $pc) = (abs($b - $c), abs($a - $c), abs($a + $b - 2 * $c));
			$row[$i] = ($row[$i] + ($pa <= $pb && $pa <= $pc ? $a : $pb <= $pc ? $b : $c)) & 0xff;
		}
	}
	else { die "PNG filter type $type does not exist" }
	return pack('C*', @row);
}

# A PNG's width, height, share of non-white pixels and number of distinct
# colours, decoded with core modules (8-bit RGB or RGBA, not interlaced);
# with $top and $bottom, of its rows from $top up to $bottom only.
sub png_facts
{
	my ($path, $top, $bottom) = @_;
	open(my $fh, '<:raw', $path) or die "could not read $path: $!";
	local $/;
	my $png = <$fh>;
	close $fh;
	die "$path is not a PNG" unless substr($png, 0, 8) eq "\x89PNG\r\n\x1a\n";
	my ($pos, $idat, $width, $height, $depth, $colour, $interlace) = (8, '');
	while ($pos < length $png)
	{
		my ($length, $type) = unpack('N a4', substr($png, $pos, 8));
		my $data = substr($png, $pos + 8, $length);
		($width, $height, $depth, $colour, undef, undef, $interlace) = unpack('N N C C C C C', $data)
		  if $type eq 'IHDR';
		$idat .= $data if $type eq 'IDAT';
		$pos += 12 + $length;
	}
	die "$path: only 8-bit RGB or RGBA, not interlaced, is decoded here"
	  unless $depth == 8 && ($colour == 2 || $colour == 6) && !$interlace;
	my $bpp = $colour == 6 ? 4 : 3;
	my $pixels = uncompress($idat) // die "$path: its image data does not inflate";
	my $stride = $width * $bpp;
	die "$path: its image data holds " . length($pixels) . ' bytes, not ' . $height * ($stride + 1)
	  unless length($pixels) == $height * ($stride + 1);
	# each pixel not white, its red, green and blue (alpha left out), the
	# white ones skipped by the regular expression engine
	my $not_white = $bpp == 4 ? qr/\G(?:\xff\xff\xff.)*+(...)./s : qr/\G(?:\xff\xff\xff)*+(...)/s;
	my ($previous, $coloured, %colours, %row_colours) = ("\0" x $stride, 0);
	($top, $bottom) = (0, $height) unless defined $top;
	$bottom = $height if $bottom > $height;
	for my $y (0 .. $bottom - 1)
	{
		my $offset = $y * ($stride + 1);
		my $row = unfilter(ord(substr($pixels, $offset, 1)), substr($pixels, $offset + 1, $stride), $previous, $bpp);
		if ($y < $top)
		{
			$previous = $row;
			next;
		}
		if ($y == $top || $row ne $previous)
		{
			%row_colours = ();
			$row_colours{$1}++ while $row =~ /$not_white/g;
		}
		$colours{$_} += $row_colours{$_} foreach keys %row_colours;
		$previous = $row;
	}
	$coloured += $_ foreach values %colours;
	my $area = $width * ($bottom - $top);
	my $white = $area - $coloured;
	return ($width, $height, $area ? $coloured / $area : 0, scalar(keys %colours) + ($white > 0 ? 1 : 0));
}

1;
