# What shaped a batch besides the server's settings, recorded with it since
# 1.4 (ranread_batches.kernel, data_checksums, file_system,
# ranread_version), each checked against what the machine says another
# way: the kernel's release from /proc, the file system from findmnt (or,
# in a chroot, the mount table's line for the device), the
# checksums from SHOW, the version from the extension's catalog row.  A
# cluster made with data checksums records true; rows from before 1.4 keep
# NULL (extension/upgrade.pl compares the update with a fresh install).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

my $kernel = slurp_file('/proc/sys/kernel/osrelease');
chomp $kernel;

# The type of the file system holding $path, from /proc/self/mountinfo's
# line for its device (major:minor as glibc encodes them in st_dev).
sub file_system_by_device
{
	my ($path) = @_;
	my $dev = (stat $path)[0];
	return '' unless defined $dev;
	my $major = (($dev >> 8) & 0xfff) | (($dev >> 32) & ~0xfff);
	my $minor = ($dev & 0xff) | (($dev >> 12) & ~0xff);
	open(my $mounts, '<', '/proc/self/mountinfo') or return '';
	while (my $line = <$mounts>)
	{
		return $1 if $line =~ /^\d+ \d+ $major:$minor .*? - (\S+)/;
	}
	return '';
}

foreach my $checksums (0, 1)
{
	my $node = PostgreSQL::Test::Cluster->new($checksums ? 'host_checksums' : 'host_columns');
	# (initdb makes checksums by default from 18 on, and knows --no-data-checksums from then)
	$node->init(extra => [ $checksums ? '--data-checksums'
		  : $node->pg_version->major >= 18 ? '--no-data-checksums' : () ]);
	$node->append_conf('postgresql.conf', "max_worker_processes = 32\n");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION ranread');
	my $base = $node->basedir;
	mkdir "$base/vol" or die "cannot make $base/vol: $!";
	$node->safe_psql('postgres', qq{
		CREATE TABLESPACE vol LOCATION '$base/vol';
		SELECT ranread_setup('16 MB', tablespace => 'vol', log_level => 0);
		SELECT ranread_run(1, 50);});
	my ($row_kernel, $row_checksums, $row_fs, $row_version) = split /\|/, $node->safe_psql('postgres',
		'SELECT kernel, data_checksums, file_system, ranread_version FROM ranread_batches ORDER BY batch DESC LIMIT 1');
	my $shown = $node->safe_psql('postgres', 'SHOW data_checksums');
	my $extversion = $node->safe_psql('postgres', q{SELECT extversion FROM pg_extension WHERE extname = 'ranread'});
	my $fs = `findmnt -n -o FSTYPE --target '$base/vol'`;
	chomp $fs;
	my $fs_source = 'findmnt';
	if ($fs eq '')
	{
		# in a chroot, whose root is no mount point, findmnt finds no mount
		# above the path: the mount table's line for the path's device
		$fs = file_system_by_device("$base/vol");
		$fs_source = 'the mount table, by device number';
	}

	my $what = $checksums ? 'with data checksums' : 'without';
	is($row_kernel, $kernel, "$what: kernel is the running kernel's release ($kernel)");
	is($row_checksums, $shown eq 'on' ? 't' : 'f', "$what: data_checksums is what SHOW says ($shown)");
	is($shown, $checksums ? 'on' : 'off', "$what: (the cluster was made so)");
	is($row_fs, $fs, "$what: file_system is what $fs_source says of the target's tablespace ($fs)");
	is($row_version, $extversion, "$what: ranread_version is the extension's ($extversion)");
	$node->stop;
}
done_testing();
