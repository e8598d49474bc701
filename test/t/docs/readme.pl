# README's "Getting started" block, run as written (on a small target and a
# short sweep, so that it fits a test): every line psql prints for its
# queries fits a 120-column terminal.  The setup's one-line answer carries
# the target's file path, whose length depends on where the cluster lives,
# so its line is measured without the path.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

open(my $fh, '<', "$FindBin::RealBin/../../../README.md") or die "README.md: $!";
my $readme = do { local $/; <$fh> };
close $fh;
my ($block) = $readme =~ /<!-- getting-started: begin -->\n```sql\n(.*?)```\n<!-- getting-started: end -->/s;
ok(defined $block, 'README.md has the getting-started block between its markers');
$block //= '';
like($block, qr/ranread_setup\(NULL, 'ranread_vol'\)/, 'it sets up a twice-memory target in ranread_vol');
like($block, qr/^CALL ranread_sweep\(\);/m, 'it runs a sweep with every default');

my $node = new_node('readme');
my $dir = $node->basedir . '/ts';
mkdir $dir or die "mkdir $dir: $!";
$node->safe_psql('postgres', "CREATE TABLESPACE ranread_vol LOCATION '$dir'");

# the test's scale: 64 MB, steps of 1 and 2 processes of 500 reads
(my $sql = $block) =~ s/^CREATE EXTENSION ranread;/CREATE EXTENSION IF NOT EXISTS ranread;/m;
$sql =~ s/ranread_setup\(NULL, 'ranread_vol'\)/ranread_setup('64 MB', 'ranread_vol', log_level => 0)/;
$sql =~ s/CALL ranread_sweep\(\);/CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 500);/;
my ($ret, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '-v', 'ON_ERROR_STOP=1', '-P', 'format=aligned', '-P', 'tuples_only=off' ]);  # as psql shows it, not -At
is($ret, 0, 'the block runs without an error') or diag($err);

# setup's answer (heading, dashes and its line, all as wide as the line) is
# measured as its line without the path
my @wide;
my @lines = split /\n/, $out;
for (my $i = 0; $i < @lines; $i++)
{
	my $line = $lines[$i];
	if ($line =~ /^\s*ranread_setup\s*$/ && $i + 2 < @lines)
	{
		$i += 2;
		($line = $lines[$i]) =~ s/ at \/\S+, written in / at <path>, written in /;
	}
	push @wide, length($line) . ": $line" if length($line) > 120;
}
like($out, qr/^-+\+-+/m, 'psql printed the answers as tables');
cmp_ok(scalar(split /\n/, $out), '>', 15, 'with their rows');
is(scalar(@wide), 0, 'every line of the answers fits 120 columns') or diag(join("\n", @wide));

$node->stop;
done_testing();
