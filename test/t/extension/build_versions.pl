# The Makefile builds for the majors src/compat.h knows: it refuses another
# major before compiling anything, naming the supported ones, and warns on a
# major the test matrix does not run.  Stand-in pg_configs report the major;
# everything else is the real one's.
use strict;
use warnings;
use FindBin;
use File::Copy;
use PostgreSQL::Test::Utils;
use Test::More;

my $top = "$FindBin::RealBin/../../..";
my $real = $ENV{PG_CONFIG} // 'pg_config';
my $dir = PostgreSQL::Test::Utils::tempdir();
copy("$top/$_", "$dir/$_") or die "copy $_: $!" foreach ('Makefile', 'ranread.control', 'tested-majors');
# the SQL sources the Makefile makes the install and update scripts of
system('cp', '-r', "$top/sql", "$dir/sql") == 0 or die "copy sql: $?";

# make -n in a copy of the Makefile and sql/, against a pg_config that says it is $version
sub make_for
{
	my ($version) = @_;
	my $fake = "$dir/pg_config_$version";
	open(my $fh, '>', $fake) or die $!;
	print $fh "#!/bin/sh\n[ \"\$1\" = --version ] && { echo 'PostgreSQL $version'; exit 0; }\nexec $real \"\$@\"\n";
	close $fh;
	chmod 0755, $fake;
	my $out = `make -n -C $dir PG_CONFIG=$fake 2>&1`;
	return ($? >> 8, $out);
}

my ($status, $out) = make_for('14.12');
isnt($status, 0, 'PostgreSQL 14: make fails');
like($out, qr/ranread builds on PostgreSQL 15 16 17 18 19 \(tested on 15 17 18 19\), but \S+ is PostgreSQL 14/,
	'and names the majors it builds for and those tested');
($status, $out) = make_for('20devel');
isnt($status, 0, 'PostgreSQL 20: make fails too');
($status, $out) = make_for('16.10');
is($status, 0, 'PostgreSQL 16: make goes on');
like($out, qr/ranread is untested on PostgreSQL 16: its test matrix runs 15 17 18 19/, 'with a warning that 16 is untested');
($status, $out) = make_for('18.6');
unlike($out, qr/untested/, 'PostgreSQL 18: no warning');

done_testing();
