# The latency histogram's percentiles against exact ones (relative error
# <= 1/128): builds and runs the C unit test test/unit/histogram_test.c,
# whose TAP lines become this file's.
use strict;
use warnings;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;

my $top = "$FindBin::RealBin/../..";
my $bin = PostgreSQL::Test::Utils::tempdir() . '/histogram_test';
my $server_includes = `pg_config --includedir-server`;
chomp $server_includes;
is(system('cc', '-O2', "-I$top/src", "-I$server_includes", '-o', $bin,
		"$top/test/unit/histogram_test.c", "$top/src/histogram.c", '-lm'), 0,
	'the unit test builds');
my @lines = `$bin`;
my $status = $? >> 8;
my $checks = 0;
foreach my $line (@lines)
{
	next unless $line =~ /^(not )?ok \d+ - (.*)$/;
	ok(!defined $1, $2);
	$checks++;
}
is($checks, 17, 'the unit test ran its 17 checks');
is($status, 0, 'and exited 0');
done_testing();
