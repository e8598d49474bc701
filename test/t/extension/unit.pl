# The C unit tests of test/unit: each NAME_test.c is built with
# src/rules/NAME.c, the pure rule of the same name, and run; its TAP lines
# become this file's.  histogram_test.c checks the latency histogram's
# percentiles against exact ones (relative error <= 1/128);
# permutation_test.c checks the read-unit permutation is a bijection;
# sweep_rules_test.c checks a sweep's stop rules, SLO verdict and knee on
# constructed histories (with order_statistics.c, which sweep_rules.c
# includes: a rule is built with the rules it includes);
# order_statistics_test.c checks the median's band by order statistics;
# calibrate_rules_test.c checks a calibration's picks, its ratio's band and
# random_page_cost; run_rules_test.c checks the re-read counts, the
# interference rule and the open-loop queueing rule on constructed numbers.
use strict;
use warnings;
use File::Basename;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;

my $top = "$FindBin::RealBin/../../..";
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';
my $server_includes = `$pg_config --includedir-server`;
chomp $server_includes;

foreach my $source (sort glob("$top/test/unit/*_test.c"))
{
	my ($name) = basename($source) =~ /^(.*)_test\.c$/;
	my $bin = PostgreSQL::Test::Utils::tempdir() . "/${name}_test";
	# with the rules its rule includes, and theirs (src/rules/ stands on itself alone)
	my @todo = ($name);
	my %seen = ($name => 1);
	while (my $next = shift @todo)
	{
		foreach my $included (slurp_file("$top/src/rules/$next.c") =~ /^#include "rules\/(\w+)\.h"/mg)
		{
			next if $seen{$included}++ || !-e "$top/src/rules/$included.c";
			push @todo, $included;
		}
	}
	my @rules = map { "$top/src/rules/$_.c" } sort keys %seen;
	is(system('cc', '-O2', "-I$top/src", "-I$server_includes", '-o', $bin,
			$source, @rules, '-lm'), 0, "$name: the unit test builds");
	my @lines = `$bin`;
	my $status = $? >> 8;
	my ($planned) = ($lines[0] // '') =~ /^1\.\.(\d+)$/;
	my $checks = 0;
	foreach my $line (@lines)
	{
		next unless $line =~ /^(not )?ok \d+ - (.*)$/;
		ok(!defined $1, "$name: $2");
		$checks++;
	}
	is($checks, $planned, "$name: the unit test ran the $checks checks it planned");
	is($status, 0, "$name: and exited 0");
}
done_testing();
