# Every psql example of README.md and docs/reference.md runs, and what psql
# prints for it fits a terminal of 120 columns; so does every psql answer the
# docs quote.  The examples run as written but shrunk in size and time by the
# rules of shrink() below (a 64 MB target, two processes, a second or two), so
# that the suite stays quick: the columns an answer has, and the width of its
# figures, do not depend on how long it ran.  A file path in an answer may
# pass the bound (ranread_setup names the target's file).
use strict;
use warnings;
use FindBin;
use lib "$FindBin::RealBin/..";
use PostgreSQL::Test::Utils;
use Test::More;
use RanreadTest;

use constant COLUMNS => 120;

my $root = "$FindBin::RealBin/../../..";

# The examples of a markdown file, in order: [line, SQL].  A ```sql block
# that begins with a query or a CALL holds examples; a signature (its
# arguments typed, or RETURNS) is not one.  A plain block that begins with a
# query or psql's prompt quotes an answer: its queries are examples too.
sub examples_of
{
	my ($file) = @_;
	my $text = slurp_file("$root/$file");
	my @examples;
	while ($text =~ /^```(\w*)\n(.*?)^```/msg)
	{
		my ($lang, $block, $at) = ($1, $2, $-[0]);
		my $line = 1 + (() = substr($text, 0, $at) =~ /\n/g);
		my @statements;
		if ($lang eq 'sql' && $block =~ /\A(?:\s*--[^\n]*\n)*\s*(?:SELECT|CALL|WITH|CREATE EXTENSION)\b/)
		{
			@statements = grep { /\S/ } split /;[ \t]*(?:--[^\n]*)?\n/, "$block\n";
		}
		elsif ($lang eq '' && $block =~ /\A(?:postgres=# )?SELECT\b/)
		{
			# each query runs from its first line to the one that ends with ';'
			my $query;
			foreach (split /\n/, $block)
			{
				$query = '' if !defined $query && /^(?:postgres=# )?SELECT\b/;
				next if !defined $query;
				$query .= s/^postgres=# //r . "\n";
				push @statements, $query if /;\s*$/;
				undef $query if /;\s*$/;
			}
		}
		foreach my $sql (@statements)
		{
			# a signature that shares a block with an example
			next if $sql =~ /\bRETURNS\b|\bOUT \w+ \w+|\b(?:int|bigint|text|name|float8|interval|boolean) DEFAULT\b/;
			$sql =~ s/;\s*$//;
			push @examples, [ "$file:$line", $sql ];
		}
	}
	return @examples;
}

# The answers a doc quotes: the lines of psql's tables in its plain blocks.
sub quoted_answers
{
	my ($file) = @_;
	my $text = slurp_file("$root/$file");
	my @lines;
	while ($text =~ /^```(\w*)\n(.*?)^```/msg)
	{
		my ($lang, $block, $at) = ($1, $2, $-[0]);
		next if $lang ne '';
		my $line = 1 + (() = substr($text, 0, $at) =~ /\n/g);
		foreach my $row (split /\n/, $block)
		{
			$line++;
			push @lines, [ "$file:$line", $row ] if $row =~ /^ .* \| |^-+\+-/;
		}
	}
	return @lines;
}

# The same example at a test's size and length.
sub shrink
{
	my ($sql) = @_;
	$sql =~ s/ranread_setup\(NULL,/ranread_setup('64 MB',/;
	$sql =~ s/^CALL ranread_sweep\(\)$/CALL ranread_sweep(start_processes => 1, max_processes => 2, iterations => 500)/;
	$sql =~ s/ranread_run\((\d+), (\d+|NULL)/'ranread_run(' . ($1 > 2 ? 2 : $1) . ', ' . ($2 eq 'NULL' ? 'NULL' : 300)/e;
	# a steady state spans two sample intervals of a second after the ramp
	my $duration = $sql =~ /\bsteady_state =>/ ? '3 s' : '1 s';
	$sql =~ s/\bduration => '[^']*'/duration => '$duration'/g;
	$sql =~ s/\bramp => '[^']*'/ramp => '0.5 s'/g;
	$sql =~ s/\bsteady_state => '[^']*'/steady_state => '2 s'/g;
	$sql =~ s/\bmax_write_rate_iops => \d+/max_write_rate_iops => 500/g;
	# the history's numbers: the docs' sweep 3 is this run's sweep 1
	$sql =~ s/\bsweep => \d+/sweep => 1/;
	$sql =~ s/(\\g \(format=unaligned tuples_only=on\)) \S+/$1 \/dev\/null/;
	return $sql;
}

# The widest line of an answer, a file path aside: psql pads every line of a
# table to its widest cell, so the path's length comes off every line.
sub widest
{
	my ($answer) = @_;
	my $path = qr{(?:/|base/|pg_tblspc/)[\w./-]+};
	my ($widest) = sort { $b <=> $a } map { length } split /\n/, $answer;
	my ($longest_path) = sort { $b <=> $a } map { length } $answer =~ /$path/g;
	return ($widest // 0) - ($longest_path // 0);
}

my $node = new_node('docs', max_worker_processes => 16);
$node->safe_psql('postgres', 'DROP EXTENSION ranread; CREATE EXTENSION dblink');
my $volume = PostgreSQL::Test::Utils::tempdir;
$node->safe_psql('postgres', "CREATE TABLESPACE ranread_vol LOCATION '$volume'");

my $ran = 0;
foreach my $file ('README.md', 'docs/reference.md')
{
	foreach my $example (examples_of($file))
	{
		my ($where, $sql) = @$example;
		# InterSystems' own query, quoted to compare
		next if $sql =~ /\bPerfTools\.RanRead\b/;
		my $run = shrink($sql);
		my ($ret, $answer, $err) = $node->psql('postgres',
			"\\set ON_ERROR_STOP on\n\\pset format aligned\n\\pset tuples_only off\n$run");
		my $width = widest($answer);
		ok($ret == 0 && $width <= COLUMNS, "$where: runs, its answer within " . COLUMNS . " columns ($width)")
		  or diag("$run\n$answer$err");
		$ran++;
	}
	foreach my $quoted (quoted_answers($file))
	{
		my ($where, $row) = @$quoted;
		cmp_ok(widest($row), '<=', COLUMNS, "$where: the quoted answer fits " . COLUMNS . " columns");
	}
}
cmp_ok($ran, '>=', 25, "the docs' examples were found ($ran)");

ok(log_is_clean($node), 'the server log has no internal error');
done_testing();
